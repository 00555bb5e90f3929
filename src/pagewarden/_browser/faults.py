"""One fault vocabulary on both paths: the browser's faults under the static path's codes and reasons.

The static path (:mod:`pagewarden._net.transport`) names each fault of a
page's server; a read that renders the same page must fail the same way, so
that a caller's retry logic does not depend on which path ran. The browser
learns of a fault from the egress proxy (:class:`~pagewarden._egress.ProxyFault`,
heard the moment it happens) or from Chromium (a ``net::ERR_*`` code, a status).

=====================================  =====================  ==========================  =========
fault                                  code                   reason                      retryable
=====================================  =====================  ==========================  =========
declared body over the cap             RESPONSE_TOO_LARGE     ``content_length_too_large``  no
streamed body over the cap             RESPONSE_TOO_LARGE     ``compressed_body_too_large`` no
response headers over the bounds       RESPONSE_TOO_LARGE     ``header_too_large``          no
connection reset or cut mid-body       NETWORK_ERROR          ``connection_lost``           yes
closed before answering                UPSTREAM_HTTP          ``server_disconnected``       yes
broken HTTP/1.1                        UPSTREAM_HTTP          ``protocol_error``            no
upstream silent                        TIMEOUT                ``http_timeout``              yes
redirects that come back               UPSTREAM_HTTP          ``redirect_loop``             no
too many redirects                     UPSTREAM_HTTP          ``too_many_redirects``        no
non-2xx status                         UPSTREAM_HTTP          ``http_<status>``             429, 5xx
                                                              (``retry_after`` kept)
TLS handshake or certificate           NETWORK_ERROR          ``tls_failure``               no
DNS, connect                           NETWORK_ERROR          ``dns_failure``,              yes
                                                              ``connect_failed``
=====================================  =====================  ==========================  =========

A browser read still has budgets of its own that the static path does not
(``browser_byte_budget`` for all of a page's resources together,
``browser_request_budget``...); those keep their ``browser_`` reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from .._egress import ProxyFault
from .._errors import NetworkError, PagewardenError, ResponseTooLarge, Timeout, UpstreamHTTP

__all__ = ["proxy_fault_error", "redirect_error", "retry_after_seconds", "status_error", "tls_error"]

_STAGE: Final = "browser_proxy"
_Factory = Callable[[str], PagewardenError]


def _too_large(reason: str, message: str) -> _Factory:
    return lambda url: ResponseTooLarge(message, reason=reason, url=url, stage=_STAGE)


# Proxy reasons (cuts after the response started have status 0) -> the static path's error.
_BY_REASON: Final[Mapping[tuple[str, bool], _Factory]] = {
    ("download_cap", False): _too_large("content_length_too_large", "the declared body is too large"),
    ("download_cap", True): _too_large("compressed_body_too_large", "the body is larger than the cap"),
    ("upstream_headers_too_large", False): _too_large("header_too_large", "the response headers are too large"),
    ("upstream_truncated", True): lambda url: NetworkError(
        "the connection was lost", reason="connection_lost", url=url, stage=_STAGE
    ),
    ("upstream_closed", False): lambda url: UpstreamHTTP(
        "the server closed the connection without answering",
        reason="server_disconnected",
        retryable=True,
        url=url,
        stage=_STAGE,
    ),
    ("upstream_protocol_error", False): lambda url: UpstreamHTTP(
        "the server broke the HTTP protocol", reason="protocol_error", url=url, stage=_STAGE
    ),
    ("upstream_timeout", False): lambda url: Timeout(
        "the server did not answer in time", reason="http_timeout", url=url, stage=_STAGE
    ),
    ("upstream_connect_failed", False): lambda url: NetworkError(
        "the connection could not be established", reason="connect_failed", url=url, stage=_STAGE
    ),
    ("idle_timeout", True): lambda url: Timeout(
        "the body stalled", reason="body_timeout", url=url, stage=_STAGE
    ),
}


def proxy_fault_error(fault: ProxyFault, url: str) -> PagewardenError | None:
    """The error a read reports when the proxy refused or cut its main document (``None``: not a page fault)."""
    refusal = fault.refusal
    factory = _BY_REASON.get((refusal.reason, refusal.status == 0))
    if factory is not None:
        return factory(url)
    error = fault.error
    if isinstance(error, PagewardenError):
        # The proxy's own verdict (address policy, DNS, connect) already speaks the static vocabulary.
        return type(error)(
            error.message,
            reason=error.reason,
            retryable=error.retryable,
            url=url,
            stage=_STAGE,
            status=error.status,
            retry_after=error.retry_after,
        )
    return None


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` in seconds when it is a small whole number (as on the static path), else ``None``."""
    text = (value or "").strip()
    return float(text) if text.isdigit() and len(text) < 7 else None


def status_error(status: int, retry_after: str | None, url: str) -> UpstreamHTTP:
    """A non-2xx main document, named as on the static path (``http_<status>``)."""
    return UpstreamHTTP(
        f"the page answered HTTP {status}",
        reason=f"http_{status}",
        retryable=status == 429 or status >= 500,
        status=status,
        retry_after=retry_after_seconds(retry_after),
        url=url,
        stage="navigation",
    )


def redirect_error(*, looped: bool, url: str) -> UpstreamHTTP:
    """Chromium gave up on the redirects: a loop when a hop came back, otherwise too many."""
    if looped:
        return UpstreamHTTP("the redirects loop", reason="redirect_loop", url=url, stage="navigation")
    return UpstreamHTTP("too many redirects", reason="too_many_redirects", url=url, stage="navigation")


def tls_error(url: str | None, stage: str) -> NetworkError:
    """A TLS handshake or certificate failure (not retryable: the same certificate fails again)."""
    return NetworkError(
        "the TLS handshake or certificate check failed", reason="tls_failure", retryable=False, url=url, stage=stage
    )
