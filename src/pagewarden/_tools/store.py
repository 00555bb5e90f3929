"""The toolset's document store: fetched pages kept in memory so ``fetch_more`` never refetches.

Bounded twice: at most ``max_documents`` entries (least recently used goes
first) and each entry lives ``ttl`` seconds after it was stored. Cursors are
opaque random tokens (``secrets.token_urlsafe``) that name a position in one
stored document; they are unguessable, die with their document, and mean
nothing to any other store, so they are bound to the toolset that issued them.
The store holds only what a tool may return anyway: the already guarded, safe
Markdown of a document whose decision did not withhold it.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from .._document import Document
from .._errors import InvalidInput

__all__ = ["DEFAULT_MAX_DOCUMENTS", "DEFAULT_TTL", "Continuation", "DocumentStore"]

DEFAULT_MAX_DOCUMENTS = 32
DEFAULT_TTL = 600.0


@dataclass(slots=True)
class _Entry:
    document: Document
    expires: float
    cursors: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Continuation:
    """What a cursor points at: the stored document, where to go on, and the page size last used."""

    document: Document
    offset: int
    page_size: int


class DocumentStore:
    """An LRU + TTL map of documents, addressed through cursors."""

    def __init__(
        self,
        *,
        max_documents: int = DEFAULT_MAX_DOCUMENTS,
        ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(max_documents, bool) or not isinstance(max_documents, int) or not 1 <= max_documents <= 1_000:
            raise InvalidInput("max_documents must be an integer in 1..1000", reason="invalid_max_documents")
        if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not 0 < ttl <= 86_400:
            raise InvalidInput("ttl must be in (0, 86400] seconds", reason="invalid_ttl")
        self._max = max_documents
        self._ttl = float(ttl)
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._cursors: dict[str, tuple[str, int, int]] = {}

    def __len__(self) -> int:
        self._expire()
        return len(self._entries)

    def put(self, document: Document) -> str:
        """Store ``document`` and return its key (used by :meth:`cursor`)."""
        self._expire()
        key = secrets.token_hex(16)
        self._entries[key] = _Entry(document, self._clock() + self._ttl)
        while len(self._entries) > self._max:
            _, oldest = self._entries.popitem(last=False)
            self._forget(oldest)
        return key

    def cursor(self, key: str, offset: int, page_size: int) -> str | None:
        """A new cursor for position ``offset`` of the stored document ``key``, or ``None`` if it is gone."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        token = secrets.token_urlsafe(24)
        self._cursors[token] = (key, offset, page_size)
        entry.cursors.add(token)
        return token

    def resolve(self, token: str) -> tuple[str, Continuation]:
        """The document key and continuation a cursor points at.

        Raises:
            InvalidInput: the cursor is unknown, expired or evicted
                (``reason="unknown_cursor"``); fetching the URL again helps.
        """
        self._expire()
        found = self._cursors.get(token)
        entry = self._entries.get(found[0]) if found is not None else None
        if found is None or entry is None:
            raise InvalidInput(
                "this cursor is unknown or expired; call fetch_content on the URL again", reason="unknown_cursor"
            )
        key, offset, page_size = found
        self._entries.move_to_end(key)
        return key, Continuation(entry.document, offset, page_size)

    def clear(self) -> None:
        """Drop every document and cursor."""
        self._entries.clear()
        self._cursors.clear()

    def _forget(self, entry: _Entry) -> None:
        for token in entry.cursors:
            self._cursors.pop(token, None)

    def _expire(self) -> None:
        now = self._clock()
        for key in [key for key, entry in self._entries.items() if entry.expires <= now]:
            self._forget(self._entries.pop(key))
