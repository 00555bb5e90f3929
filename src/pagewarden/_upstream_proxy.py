"""The upstream proxy setting: ``ReaderConfig(proxy=...)`` parsed once, and the parts that must use it.

A leaf of the foundation (it imports only :mod:`._errors`): the
configuration parses the proxy URL when it is built, the transport
(:mod:`._net.upstream`) speaks to the proxy, and the search providers carry
it. Parsing never quotes the URL (it may carry credentials); ``repr()`` and
:attr:`UpstreamProxy.display` never show them.

:func:`check_search_egress`: with a proxy, every page read goes through it;
a search provider that talked to its engine directly would be a second route
out. It walks the provider (fallback and fused members included) and refuses,
as ``INVALID_INPUT`` (``search_bypasses_proxy``), any built-in provider whose
own proxy is not the reader's: ``ddgs(proxy=...)``, and ``brave()`` /
``searxng()`` with a ``config`` carrying the same ``proxy``. Proxies compare
by scheme, host and port (credentials may differ). A custom provider cannot
be inspected: its egress is the application's responsibility.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, Literal

from ._errors import InvalidInput

__all__ = ["REMOTE_DNS_LIMITATION", "ProxyScheme", "UpstreamProxy", "check_search_egress", "parse_proxy"]

ProxyScheme = Literal["http", "https", "socks5"]
REMOTE_DNS_LIMITATION: Final = (
    "Names were resolved by the upstream proxy (unsafe_proxy_remote_dns): the address policy checked the name "
    "and IP literals only, not the address the proxy connected to."
)
_DEFAULT_PORTS: Final = {"http": 8080, "https": 443, "socks5": 1080, "socks5h": 1080}

@dataclass(frozen=True, slots=True)
class UpstreamProxy:
    """A parsed upstream proxy. ``repr()`` and :attr:`display` never show the credentials.

    Attributes:
        scheme: ``http``, ``https`` or ``socks5``.
        host: the proxy's host name or IP literal (no brackets).
        port: the proxy's port.
        remote_dns: whether the proxy is asked to resolve names (``unsafe_proxy_remote_dns``).
    """

    scheme: ProxyScheme
    host: str
    port: int
    remote_dns: bool = False
    username: str | None = field(default=None, repr=False, compare=False)
    password: str | None = field(default=None, repr=False, compare=False)

    @property
    def display(self) -> str:
        """``scheme://host:port``, safe for messages and records."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def _invalid(message: str, reason: str = "invalid_proxy") -> InvalidInput:
    # Never quote the URL: it may carry credentials.
    return InvalidInput(message, reason=reason, stage="config")


def parse_proxy(url: object, *, unsafe_remote_dns: bool = False) -> UpstreamProxy:
    """Parse ``http://``, ``https://``, ``socks5://`` (or, with remote DNS allowed, ``socks5h://``) proxy URLs.

    Raises:
        InvalidInput: anything else (the message never quotes the URL).
    """
    if not isinstance(url, str) or not 0 < len(url) <= 2_048 or not url.isprintable():
        raise _invalid("proxy must be a URL such as http://proxy.example:3128 or socks5://127.0.0.1:1080")
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise _invalid("the proxy URL is malformed") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise _invalid("the proxy scheme must be http, https, socks5 or socks5h", reason="invalid_proxy_scheme")
    if scheme == "socks5h" and not unsafe_remote_dns:
        raise _invalid(
            "socks5h:// lets the proxy resolve names, bypassing the address policy; "
            "set unsafe_proxy_remote_dns=True to accept that",
            reason="proxy_remote_dns_needs_unsafe",
        )
    host = parts.hostname
    if not host:
        raise _invalid("the proxy URL has no host")
    if (parts.path not in ("", "/")) or parts.query or parts.fragment:
        raise _invalid("the proxy URL must not have a path, query or fragment")
    username = urllib.parse.unquote(parts.username) if parts.username is not None else None
    password = urllib.parse.unquote(parts.password) if parts.password is not None else None
    for value in (username, password):
        if value is not None and (len(value) > 255 or "\r" in value or "\n" in value):
            raise _invalid("the proxy credentials must be at most 255 characters without line breaks")
    normalized: ProxyScheme = "socks5" if scheme == "socks5h" else scheme  # type: ignore[assignment]
    return UpstreamProxy(
        scheme=normalized,
        host=host,
        port=port if port is not None else _DEFAULT_PORTS[scheme],
        remote_dns=unsafe_remote_dns or scheme == "socks5h",
        username=username,
        password=password,
    )


_MAX_DEPTH = 8


def _leaves(provider: object, depth: int = 0) -> Iterator[object]:
    members = getattr(provider, "providers", None)
    if isinstance(members, tuple) and depth < _MAX_DEPTH:
        for member in members:
            yield from _leaves(member, depth + 1)
    else:
        yield provider


def _key(proxy: UpstreamProxy | None) -> tuple[str, str, int] | None:
    return None if proxy is None else (proxy.scheme, proxy.host, proxy.port)


def check_search_egress(provider: object, upstream: UpstreamProxy | None) -> None:
    """Refuse a provider (or member) whose known egress differs from the reader's proxy."""
    if provider is None:
        return
    wanted = _key(upstream)
    for leaf in _leaves(provider):
        if not hasattr(leaf, "egress_proxy"):
            continue  # a custom provider: not inspectable
        if _key(leaf.egress_proxy) != wanted:
            name = str(getattr(leaf, "name", "?"))[:60]
            raise InvalidInput(
                f"search provider {name} does not use the reader's proxy (give it the same proxy)"
                if upstream is not None
                else f"search provider {name} uses a proxy the reader does not (set ReaderConfig(proxy=...))",
                reason="search_bypasses_proxy",
                stage="config",
            )
