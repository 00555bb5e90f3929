"""Search providers must leave through the reader's upstream proxy too.

With ``ReaderConfig(proxy=...)`` every page read goes through the proxy; a
search provider that talked to its engine directly would be a second route
out. :func:`check_search_egress` walks the provider (fallback and fused
members included) and refuses, as ``INVALID_INPUT`` (``search_bypasses_proxy``),
any built-in provider whose own proxy is not the reader's: ``ddgs(proxy=...)``,
and ``brave()`` / ``searxng()`` with a ``config`` carrying the same ``proxy``.
Proxies compare by scheme, host and port (credentials may differ). A custom
provider cannot be inspected: its egress is the application's responsibility.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._errors import InvalidInput
from .._net.upstream import UpstreamProxy

__all__ = ["check_search_egress"]

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
