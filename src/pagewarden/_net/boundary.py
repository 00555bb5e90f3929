"""The one place where transport exceptions become :class:`PagewardenError`.

Everything httpcore, h11, anyio, :mod:`ssl` or the OS can raise while a hop is
in flight passes through :func:`map_transport_errors`, which calls
:func:`translate_error`. The translation never copies the upstream message
(it can quote header bytes); the original exception is not chained either,
for the same reason. Cancellation is a ``BaseException`` and passes through
untouched: the caller's deadline owns it.

==============================================  =====================================
upstream                                        pagewarden
==============================================  =====================================
``ssl.SSLError`` anywhere in the cause chain    ``NetworkError(tls_failure)``, not retryable
``httpcore.TimeoutException``, ``TimeoutError``  ``Timeout(<stage>_timeout)``
``httpcore.RemoteProtocolError``                ``ResponseTooLarge(header_too_large)`` when
                                                h11's receive buffer overflowed, else
                                                ``UpstreamHTTP`` (``body_incomplete`` /
                                                ``server_disconnected``: retryable;
                                                ``protocol_error``)
``httpcore.LocalProtocolError``                 ``UnknownError(local_protocol_error)``
``httpcore.ConnectError``                       ``NetworkError(connect_failed)``
``httpcore.ReadError`` / ``WriteError`` /       ``NetworkError(connection_lost)``
``httpcore.NetworkError``, anyio stream errors,
``OSError``
``httpcore.ConnectionNotAvailable``             ``NetworkError(connection_unavailable)``
``httpcore.ProxyError``                         ``UnknownError(proxy_error)`` (no proxy is ever used)
``httpcore.UnsupportedProtocol``                ``UnknownError(unsupported_protocol)``
anything else                                   ``UnknownError(transport_internal_error)``
==============================================  =====================================
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import h11
import httpcore

from .._errors import (
    NetworkError,
    PagewardenError,
    ResponseTooLarge,
    Timeout,
    UnknownError,
    UpstreamHTTP,
)

__all__ = ["StageTracker", "map_transport_errors", "translate_error"]

_STREAM_ERRORS = (anyio.BrokenResourceError, anyio.EndOfStream, anyio.ClosedResourceError)


def _tls_cause(exc: BaseException) -> bool:
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 16:
        if isinstance(current, ssl.SSLError | ssl.CertificateError):
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    return False


def translate_error(exc: Exception, *, stage: str, url: str | None = None) -> PagewardenError:
    """The :class:`PagewardenError` for an exception raised at ``stage`` (``connect``, ``http``, ``body``)."""
    if isinstance(exc, PagewardenError):
        return exc
    if _tls_cause(exc):
        return NetworkError(
            "the TLS handshake or certificate check failed",
            reason="tls_failure",
            retryable=False,
            url=url,
            stage=stage,
        )
    if isinstance(exc, httpcore.TimeoutException | TimeoutError):
        return Timeout(f"the {stage} step timed out", reason=f"{stage}_timeout", url=url, stage=stage)
    if isinstance(exc, httpcore.RemoteProtocolError | h11.RemoteProtocolError):
        text = str(exc).lower()
        if "buffer too long" in text:
            return ResponseTooLarge(
                "the response headers are too large", reason="header_too_large", url=url, stage=stage
            )
        if stage == "body":
            return UpstreamHTTP(
                "the response body ended early",
                reason="body_incomplete",
                retryable=True,
                url=url,
                stage=stage,
            )
        if "without sending" in text:
            return UpstreamHTTP(
                "the server closed the connection without answering",
                reason="server_disconnected",
                retryable=True,
                url=url,
                stage=stage,
            )
        return UpstreamHTTP("the server broke the HTTP protocol", reason="protocol_error", url=url, stage=stage)
    if isinstance(exc, httpcore.LocalProtocolError | h11.LocalProtocolError):
        return UnknownError("the request could not be sent", reason="local_protocol_error", url=url, stage=stage)
    if isinstance(exc, h11.ProtocolError):
        return UpstreamHTTP("the server broke the HTTP protocol", reason="protocol_error", url=url, stage=stage)
    if isinstance(exc, httpcore.ConnectError):
        return NetworkError("the connection could not be established", reason="connect_failed", url=url, stage=stage)
    if isinstance(exc, httpcore.ConnectionNotAvailable):
        return NetworkError("no connection was available", reason="connection_unavailable", url=url, stage=stage)
    if isinstance(exc, httpcore.ProxyError):
        return UnknownError("an unexpected proxy error occurred", reason="proxy_error", url=url, stage=stage)
    if isinstance(exc, httpcore.UnsupportedProtocol):
        return UnknownError("the transport refused the URL scheme", reason="unsupported_protocol", url=url, stage=stage)
    if isinstance(exc, (httpcore.NetworkError, OSError, *_STREAM_ERRORS)):
        if stage == "connect":
            return NetworkError(
                "the connection could not be established", reason="connect_failed", url=url, stage=stage
            )
        return NetworkError("the connection was lost", reason="connection_lost", url=url, stage=stage)
    return UnknownError(
        f"unexpected transport failure ({type(exc).__name__})",
        reason="transport_internal_error",
        url=url,
        stage=stage,
    )


class StageTracker:
    """Where a hop is, so one boundary can name the stage of a failure."""

    def __init__(self, url: str | None) -> None:
        self.stage = "connect"
        self.url = url


@contextmanager
def map_transport_errors(tracker: StageTracker) -> Iterator[None]:
    """Translate every non-pagewarden exception raised inside into a :class:`PagewardenError`."""
    try:
        yield
    except PagewardenError:
        raise
    except Exception as exc:
        raise translate_error(exc, stage=tracker.stage, url=tracker.url) from None
