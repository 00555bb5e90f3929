"""The public namespace is exactly what we promise, and nothing private leaks."""

from __future__ import annotations

import inspect

import pagewarden

EXPECTED_PUBLIC_NAMES = {
    "AsyncReader", "BotChallenge", "BrowserConfig", "CacheConfig", "CanaryCheck", "ConfigMissing", "ContentGuard",
    "ContentInsufficient", "DocumentUnreadable",
    "CrawlPage", "CrawlRun", "Decision", "Document", "ErrorCode", "FetchInfo", "Finding", "GuardDenied",
    "GuardFailed", "GuardReport", "GuardRequest", "GuardSegment", "InvalidInput", "Limits", "Location",
    "Metadata", "NetworkError", "PageLinks", "PagewardenError", "ParseChanged", "ProviderFailure",
    "REFERENCE_CLASSIFIER_PROMPT",
    "RateLimited", "RawHit", "ReadFailure", "ReadStore", "ReadStoreConfig", "StoredHit",
    "Reader", "ReaderConfig", "Resolver", "ResponseTooLarge",
    "SearchAndReadResult", "SearchHit", "SearchProvider", "SearchQuery", "SearchResults", "SecurityReport",
    "Severity", "SyncToolset", "Timeout", "Timings", "ToolBudget", "Toolset", "UnknownError", "UnsafeURL",
    "UnsupportedContentEncoding", "UnsupportedContentType", "UpstreamHTTP", "__version__", "aguard_html",
    "aguard_text", "brave", "custom", "ddgs", "fallback", "fence", "fused", "guard_html", "guard_text",
    "llm_classifier_guard", "parse_classifier_verdict", "read", "searxng",
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
