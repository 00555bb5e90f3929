"""The error tree: stable codes, retry flags, bounded and secret-free output."""

from __future__ import annotations

import json

import pytest

import pagewarden
from pagewarden._errors import ErrorCode, error_for_code, redact_url

RETRYABLE_BY_DEFAULT = {"NETWORK_ERROR", "TIMEOUT", "RATE_LIMITED", "BOT_CHALLENGE"}


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_has_one_class(code: ErrorCode) -> None:
    """Each stable code maps to exactly one exception class that reports it."""
    cls = error_for_code(code)
    assert issubclass(cls, pagewarden.PagewardenError)
    error = cls("message")
    assert error.code == code
    assert error.retryable == (str(code) in RETRYABLE_BY_DEFAULT)


def test_error_codes_are_the_documented_set() -> None:
    """The code spellings are part of the contract and must not drift."""
    assert {str(c) for c in ErrorCode} == {
        "INVALID_INPUT", "CONFIG_MISSING", "UNSAFE_URL", "NETWORK_ERROR", "TIMEOUT", "UPSTREAM_HTTP",
        "RESPONSE_TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE", "UNSUPPORTED_CONTENT_ENCODING",
        "CONTENT_INSUFFICIENT", "DOCUMENT_UNREADABLE", "GUARD_FAILED", "GUARD_DENIED", "RATE_LIMITED", "BOT_CHALLENGE",
        "PARSE_CHANGED", "UNKNOWN",
    }


def test_exception_tree_is_drawn_in_docstring() -> None:
    """The module docstring draws every class of the tree."""
    import pagewarden._errors as errors_module

    doc = errors_module.__doc__ or ""
    for code in ErrorCode:
        assert error_for_code(code).__name__ in doc


URL_REDACTIONS = [
    ("https://user:hunter2@example.com/a?token=abc123&q=x#frag", "https://example.com/a?token=…&q=…"),
    ("http://example.com:8080/path", "http://example.com:8080/path"),
    ("https://[2001:db8::1]/x?", "https://[2001:db8::1]/x"),
]


@pytest.mark.parametrize(("url", "expected"), URL_REDACTIONS)
def test_redact_url_drops_credentials_query_values_and_fragment(url: str, expected: str) -> None:
    """URLs in errors lose credentials, query values and the fragment."""
    assert redact_url(url) == expected


def test_serialized_error_never_contains_secrets() -> None:
    """to_dict and str carry no credentials or query values, and stay bounded."""
    error = pagewarden.UnsafeURL(
        "refused " + "x" * 5_000,
        reason="private_address",
        url="https://admin:s3cret@example.com/?api_key=sk-live-123",
    )
    text = json.dumps(error.to_dict()) + str(error) + repr(error)
    assert "s3cret" not in text
    assert "sk-live-123" not in text
    assert len(error.message) <= 400


def test_control_characters_cannot_forge_lines() -> None:
    """Messages and reasons are single-line, whatever the input."""
    error = pagewarden.UpstreamHTTP("bad\nstatus\r\nX-Injected: 1", reason="a\nb")
    assert "\n" not in str(error)
    assert "\r" not in str(error)


def test_guard_error_carries_decision_and_categories() -> None:
    """GUARD_DENIED exposes the decision and deduplicated warning categories."""
    error = pagewarden.GuardDenied(
        "withheld", guard_decision="deny", warning_categories=["a", "b", "a"]
    )
    data = error.to_dict()
    assert data["guard_decision"] == "deny"
    assert data["warning_categories"] == ["a", "b"]
