"""The document cache of one reader: documents keyed by everything that changes them.

The LRU, TTL and in-flight sharing are the generic :class:`~pagewarden._cache.ResultCache`;
what belongs to reading is the key: the normalized URL with its fragment,
``render``, ``max_characters``, ``requested_use``, the guard profile and
``on_guard``. A URL the intake refuses has no key (the uncached read raises
the very same refusal), and failures are never cached.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .._cache import ResultCache
from .._config import ReaderConfig
from .._document import Document
from .._errors import PagewardenError
from .._net import parse_target

__all__ = ["DocumentCache"]

DocumentKey = tuple[object, ...]


class DocumentCache(ResultCache[Document]):
    """:class:`Document` objects for ``config.cache.document_ttl`` seconds, bounded by ``max_entries``."""

    def __init__(self, config: ReaderConfig) -> None:
        super().__init__(config.cache.max_entries, config.cache.document_ttl)
        self._config = config

    def key(self, url: str, mode: str, use: str, limit: int) -> DocumentKey | None:
        """The cache key of one read, or ``None`` when the cache is off or the URL is refused."""
        if not self.enabled:
            return None
        config = self._config
        try:
            target = parse_target(url, config)
        except PagewardenError:
            return None
        return (target.url, target.fragment, mode, limit, use, config.guard_profile, config.on_guard)

    async def read(self, key: DocumentKey | None, work: Callable[[], Awaitable[Document]]) -> Document:
        """The cached or shared document for ``key``, else ``await work()`` (always, without a key)."""
        return await (work() if key is None else self.get_or_run(key, work))
