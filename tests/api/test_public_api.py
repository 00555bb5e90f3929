"""The public namespace is exactly what we promise, and nothing private leaks."""

from __future__ import annotations

import inspect

import pagewarden

EXPECTED_PUBLIC_NAMES = {
    "AsyncReader", "BrowserConfig", "BotChallenge", "ConfigMissing", "ContentInsufficient", "Decision", "Document",
    "ErrorCode", "FetchInfo", "Finding", "GuardDenied", "GuardFailed", "GuardReport", "InvalidInput",
    "Limits", "Location", "Metadata", "NetworkError", "PagewardenError", "ParseChanged", "RateLimited",
    "Reader", "ReaderConfig", "Resolver", "ResponseTooLarge", "SecurityReport", "Severity", "Timeout",
    "Timings", "UnknownError", "UnsafeURL", "UnsupportedContentEncoding", "UnsupportedContentType",
    "UpstreamHTTP", "__version__", "read",
    # The standalone guard, extra guards and safe output.
    "guard_text", "guard_html", "aguard_text", "aguard_html", "ContentGuard", "GuardRequest", "GuardSegment",
    "llm_classifier_guard", "REFERENCE_CLASSIFIER_PROMPT", "parse_classifier_verdict", "fence",
    # Search and read: the cache settings and the combined result.
    "CacheConfig", "SearchAndReadResult", "ReadFailure",
}


def test_all_is_pinned() -> None:
    """`pagewarden.__all__` lists exactly the promised public names."""
    assert set(pagewarden.__all__) == EXPECTED_PUBLIC_NAMES
    assert len(pagewarden.__all__) == len(set(pagewarden.__all__))


def test_every_public_name_exists_and_is_documented() -> None:
    """Every exported class and function resolves and carries a docstring."""
    for name in pagewarden.__all__:
        value = getattr(pagewarden, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name} has no docstring"


def test_public_objects_present_a_public_module() -> None:
    """Public names are defined in private modules but nothing else private is re-exported."""
    private_exports = [name for name in pagewarden.__all__ if name.startswith("_") and name != "__version__"]
    assert private_exports == []
