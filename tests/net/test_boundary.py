"""The one exception boundary: every httpcore/h11 class is mapped, on purpose."""

from __future__ import annotations

import ssl

import anyio
import h11
import httpcore
import pytest

from pagewarden._errors import ErrorCode, PagewardenError, UnsafeURL
from pagewarden._net.boundary import StageTracker, map_transport_errors, translate_error

# Every exception class httpcore exports -> the code it must become (stage "http").
# A new upstream class fails test_every_upstream_exception_class_is_mapped until it is added here
# (and, if the generic fallback is wrong for it, to translate_error).
HTTPCORE_EXPECTED = {
    "ConnectError": (ErrorCode.NETWORK_ERROR, "connect_failed"),
    "ConnectionNotAvailable": (ErrorCode.NETWORK_ERROR, "connection_unavailable"),
    "ConnectTimeout": (ErrorCode.TIMEOUT, "http_timeout"),
    "LocalProtocolError": (ErrorCode.UNKNOWN, "local_protocol_error"),
    "NetworkError": (ErrorCode.NETWORK_ERROR, "connection_lost"),
    "PoolTimeout": (ErrorCode.TIMEOUT, "http_timeout"),
    "ProtocolError": (ErrorCode.UNKNOWN, "transport_internal_error"),
    "ProxyError": (ErrorCode.UNKNOWN, "proxy_error"),
    "ReadError": (ErrorCode.NETWORK_ERROR, "connection_lost"),
    "ReadTimeout": (ErrorCode.TIMEOUT, "http_timeout"),
    "RemoteProtocolError": (ErrorCode.UPSTREAM_HTTP, "protocol_error"),
    "TimeoutException": (ErrorCode.TIMEOUT, "http_timeout"),
    "UnsupportedProtocol": (ErrorCode.UNKNOWN, "unsupported_protocol"),
    "WriteError": (ErrorCode.NETWORK_ERROR, "connection_lost"),
    "WriteTimeout": (ErrorCode.TIMEOUT, "http_timeout"),
}
H11_EXPECTED = {
    "LocalProtocolError": (ErrorCode.UNKNOWN, "local_protocol_error"),
    "ProtocolError": None,  # abstract: h11 refuses to instantiate it
    "RemoteProtocolError": (ErrorCode.UPSTREAM_HTTP, "protocol_error"),
}


def _exception_classes(module: object) -> dict[str, type[BaseException]]:
    return {name: obj for name, obj in vars(module).items() if isinstance(obj, type) and issubclass(obj, BaseException)}


@pytest.mark.parametrize(
    ("module", "expected"), [(httpcore, HTTPCORE_EXPECTED), (h11, H11_EXPECTED)], ids=["httpcore", "h11"]
)
def test_every_upstream_exception_class_is_mapped(module: object, expected: dict[str, object]) -> None:
    """Every exception class httpcore and h11 export has a pinned translation (new ones fail here)."""
    classes = _exception_classes(module)
    assert set(classes) == set(expected), "new or removed upstream exception classes: update the table"
    for name, cls in classes.items():
        want = expected[name]
        if want is None:
            continue
        error = translate_error(cls("upstream detail with a header value"), stage="http")  # type: ignore[arg-type]
        assert isinstance(error, PagewardenError)
        assert (error.code, error.reason) == want, name
        assert "header value" not in error.message


@pytest.mark.parametrize(
    ("exc", "stage", "code", "reason", "retryable"),
    [
        (
            httpcore.RemoteProtocolError("Receive buffer too long"),
            "http",
            ErrorCode.RESPONSE_TOO_LARGE,
            "header_too_large",
            False,
        ),
        (
            httpcore.RemoteProtocolError("peer closed connection"),
            "body",
            ErrorCode.UPSTREAM_HTTP,
            "body_incomplete",
            True,
        ),
        (
            httpcore.RemoteProtocolError("Server disconnected without sending a response."),
            "http",
            ErrorCode.UPSTREAM_HTTP,
            "server_disconnected",
            True,
        ),
        (httpcore.ReadTimeout("x"), "body", ErrorCode.TIMEOUT, "body_timeout", True),
        (httpcore.ConnectError("x"), "connect", ErrorCode.NETWORK_ERROR, "connect_failed", True),
        (ConnectionRefusedError(111, "refused"), "connect", ErrorCode.NETWORK_ERROR, "connect_failed", True),
        (ConnectionResetError(104, "reset"), "body", ErrorCode.NETWORK_ERROR, "connection_lost", True),
        (anyio.BrokenResourceError(), "body", ErrorCode.NETWORK_ERROR, "connection_lost", True),
        (TimeoutError(), "connect", ErrorCode.TIMEOUT, "connect_timeout", True),
        (ssl.SSLCertVerificationError("bad cert"), "connect", ErrorCode.NETWORK_ERROR, "tls_failure", False),
        (RuntimeError("surprise"), "http", ErrorCode.UNKNOWN, "transport_internal_error", False),
        (ExceptionGroup("g", [ValueError("v")]), "connect", ErrorCode.UNKNOWN, "transport_internal_error", False),
    ],
)
def test_specific_translations(exc: Exception, stage: str, code: ErrorCode, reason: str, retryable: bool) -> None:
    """Stage- and message-dependent cases get the right code, reason and retryable flag."""
    error = translate_error(exc, stage=stage)
    assert (error.code, error.reason, error.retryable) == (code, reason, retryable)


def test_tls_failure_is_found_in_the_cause_chain() -> None:
    """httpcore wraps ssl errors in ConnectError; the boundary still reports tls_failure, not retryable."""
    try:
        try:
            raise ssl.SSLCertVerificationError("hostname mismatch")
        except ssl.SSLError as inner:
            raise httpcore.ConnectError("wrapped") from inner
    except httpcore.ConnectError as outer:
        error = translate_error(outer, stage="connect")
    assert (error.reason, error.retryable) == ("tls_failure", False)


def test_map_transport_errors_translates_and_passes_through() -> None:
    """The context manager translates foreign exceptions, keeps PagewardenErrors, and drops the raw cause."""
    tracker = StageTracker("http://example.com/?token=abc")
    tracker.stage = "body"
    with pytest.raises(PagewardenError) as info, map_transport_errors(tracker):
        raise httpcore.ReadError("boom")
    assert info.value.reason == "connection_lost" and info.value.__cause__ is None
    assert info.value.url == "http://example.com/?token=…"
    original = UnsafeURL("x", reason="peer_mismatch")
    with pytest.raises(UnsafeURL) as kept, map_transport_errors(tracker):
        raise original
    assert kept.value is original


def test_map_transport_errors_leaves_cancellation_alone() -> None:
    """BaseExceptions (cancellation, KeyboardInterrupt) are never translated."""
    with pytest.raises(KeyboardInterrupt), map_transport_errors(StageTracker(None)):
        raise KeyboardInterrupt
