"""Deciding and dialling one proxied request: the step between "parsed" and "relaying".

:func:`parse_request` turns a request head into a target (DNS-free) and the
host and port the ledger shows; :func:`check_request` applies the
proxy-specific rules in a fixed order (background host, method, body, then
the intake verdict); :func:`dial` resolves once under the address policy and
connects to a validated address only, through the static path's
:class:`~pagewarden._net.pinned.PinnedBackend` (which marks the dial with
``PINNED_DIAL`` and checks the connected peer).

Every refusal is a :class:`~pagewarden._errors.PagewardenError` with a named
``reason``; :func:`status_for` maps it to the status the browser gets: a
policy refusal is 403 (405 for a method, 400 for a request body or malformed
request, 431 for oversized request headers), every other failure 502.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Collection
from typing import Final, Literal

import anyio
import h11
import httpcore

from .._config import ReaderConfig
from .._errors import InvalidInput, NetworkError, PagewardenError, Timeout, UnsafeURL
from .._net.pinned import PinnedBackend
from .._net.urls import Target
from .chromium import LISTEN_HOST
from .http1 import header_values
from .policy import (
    CONNECT_PORT,
    HTTP_PORT,
    is_refused_host,
    parse_absolute_http,
    parse_connect_authority,
    resolve_destination,
)

__all__ = ["ParsedRequest", "check_request", "dial", "parse_request", "status_for"]

Kind = Literal["connect", "http"]
_STATUS_BY_REASON: Final = {
    "method_not_allowed": 405,
    "request_body_not_allowed": 400,
    "request_headers_too_large": 431,
}


def status_for(exc: PagewardenError) -> int:
    """The HTTP status the proxy answers for ``exc``."""
    if exc.reason in _STATUS_BY_REASON:
        return _STATUS_BY_REASON[exc.reason]
    if isinstance(exc, UnsafeURL):
        return 403
    if isinstance(exc, InvalidInput):
        return 400
    return 502


class ParsedRequest:
    """A request head as the proxy understood it, before any lookup.

    Attributes:
        kind: ``connect`` or ``http``.
        target: the checked target, or ``None`` when intake refused it.
        error: the intake refusal, if any.
        host, port: for the ledger only (best effort, also when refused).
    """

    __slots__ = ("error", "host", "kind", "port", "target")

    def __init__(
        self, kind: Kind, target: Target | None, error: PagewardenError | None, host: str | None, port: int | None
    ) -> None:
        self.kind = kind
        self.target = target
        self.error = error
        self.host = host
        self.port = port


def _ledger_host(kind: Kind, text: str) -> tuple[str | None, int | None]:
    # Display only: the ledger sanitises the host again; policy never uses this.
    try:
        parts = urllib.parse.urlsplit(("//" + text) if kind == "connect" else text)
        return parts.hostname, parts.port
    except ValueError:
        return None, None


def parse_request(request: h11.Request, config: ReaderConfig) -> ParsedRequest:
    """Classify ``request`` and run the DNS-free intake on its target (never raises)."""
    kind: Kind = "connect" if request.method == b"CONNECT" else "http"
    text = request.target.decode("latin-1")
    try:
        target = parse_connect_authority(text, config) if kind == "connect" else parse_absolute_http(text, config)
    except PagewardenError as exc:
        host, port = _ledger_host(kind, text)
        return ParsedRequest(kind, None, exc, host, port)
    return ParsedRequest(kind, target, None, target.host, target.port)


def check_request(parsed: ParsedRequest, request: h11.Request, refused_hosts: Collection[str]) -> Target:
    """Apply the proxy's request rules; return the target or raise the refusal.

    Raises:
        UnsafeURL: ``background_host``, ``method_not_allowed`` or the intake's reason.
        InvalidInput: ``request_body_not_allowed`` or a malformed target.
    """
    if parsed.target is not None and is_refused_host(parsed.target.host, refused_hosts):
        raise UnsafeURL("Chromium background traffic is not proxied", reason="background_host", stage="proxy")
    if parsed.kind == "http":
        if request.method not in (b"GET", b"HEAD"):
            raise UnsafeURL("only GET and HEAD are forwarded", reason="method_not_allowed", stage="proxy")
        lengths = header_values(request.headers, b"content-length")
        if header_values(request.headers, b"transfer-encoding") or any(v.strip() != b"0" for v in lengths):
            raise InvalidInput("requests with a body are not forwarded", reason="request_body_not_allowed")
    if parsed.error is not None:
        raise parsed.error
    if parsed.target is None:  # unreachable: parse_request sets one of the two
        raise InvalidInput("unparsable request target", reason="malformed_request", stage="proxy")
    return parsed.target


async def dial(
    target: Target, kind: Kind, config: ReaderConfig, *, timeout: float, proxy_port: int
) -> httpcore.AsyncNetworkStream:
    """Resolve ``target`` once, check every answer, and connect to a validated address within ``timeout``.

    Raises:
        UnsafeURL: refused port or address, the proxy itself, or a peer mismatch.
        NetworkError: the name does not resolve or no address accepts the connection.
        Timeout: resolving and connecting took longer than ``timeout``.
    """
    if timeout <= 0:
        raise Timeout("no time left to connect", reason="deadline_passed", stage="connect")
    with anyio.move_on_after(timeout):
        addresses = await resolve_destination(
            target,
            config,
            standard_port=CONNECT_PORT if kind == "connect" else HTTP_PORT,
            proxy_endpoint=(ipaddress.ip_address(LISTEN_HOST), proxy_port),
        )
        # With ReaderConfig(proxy=...), the tunnel chains to the same upstream proxy as static reads.
        backend = PinnedBackend(target.host, target.port, addresses, proxy=config.upstream_proxy)
        try:
            return await backend.connect_tcp(target.host, target.port, timeout=timeout)
        except httpcore.ConnectTimeout:
            raise Timeout("connecting took too long", reason="connect_timeout", stage="connect") from None
        except (httpcore.ConnectError, OSError):
            raise NetworkError(
                "no validated address accepted the connection", reason="upstream_connect_failed", stage="connect"
            ) from None
    raise Timeout("resolving and connecting took too long", reason="connect_timeout", stage="connect")
