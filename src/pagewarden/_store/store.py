"""The read store: the pages a reader has read, searchable again without the network.

Every document a reader returns is offered to its :class:`ReadStore`
(``reader.store``); the store keeps it only when the guard allowed it (a
decision that withholds content, ``require_approval`` or ``deny``, never
enters, whatever the reader's ``on_guard``) and only its safe Markdown, cut to
``max_characters``. Adding is idempotent: the same URL with the same content
hash is a no-op, the same URL with new content replaces the old entry, and
the same content already stored under another URL is not stored twice.

:meth:`ReadStore.search` runs BM25 over titles and bodies (SQLite FTS5 when
the build has it, a pure-Python BM25 otherwise, same results shape) and
returns :class:`StoredHit` objects: URL, title, a short excerpt around the
first matching term and the score. Hits are page content: untrusted and
tainted, like the documents they came from.

Bounds: ``max_documents`` (the oldest indexed is dropped first), a query of
1..400 characters (at most 32 terms), 1..20 hits, excerpts of at most 300
characters. The store is in memory unless ``ReadStoreConfig.path`` names an
SQLite file. Its methods are synchronous and short (local SQLite); they hold
a lock, so the sync and async readers can share it.

Errors: SQLite's exceptions are translated here, at one boundary: a file that
cannot be opened is ``INVALID_INPUT`` (``store_unavailable``), any later
database failure ``UNKNOWN`` (``store_failed``), a closed store
``CONFIG_MISSING`` (``store_closed``). The reader treats a failure to add a
document as a logged warning, never as a failed read.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from .._document import Document
from .._errors import ConfigMissing, InvalidInput, UnknownError
from .config import ReadStoreConfig
from .index import SCHEMA, Fts5Index, FullTextIndex, PythonIndex, fts5_available, query_terms, tokens

__all__ = ["MAX_EXCERPT_CHARS", "MAX_QUERY_CHARS", "MAX_STORE_HITS", "ReadStore", "StoredHit"]

MAX_QUERY_CHARS = 400
MAX_STORE_HITS = 20
MAX_EXCERPT_CHARS = 300


@dataclass(frozen=True, slots=True)
class StoredHit:
    """One page from the read store that matches a query. Always untrusted and tainted.

    Attributes:
        url: the page's final URL (cite this one).
        title: the page title ("" when it had none).
        excerpt: up to 300 characters of the page around the first matching term.
        score: the BM25 score (higher is better; comparable within one search only).
        retrieved_at: when the page was read (ISO 8601, UTC).
        content_sha256: the hash of the content that was indexed.
    """

    url: str
    title: str
    excerpt: str
    score: float
    retrieved_at: str
    content_sha256: str
    trust: Literal["untrusted"] = "untrusted"
    tainted: Literal[True] = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "url": self.url,
            "title": self.title,
            "excerpt": self.excerpt,
            "score": round(self.score, 6),
            "retrieved_at": self.retrieved_at,
            "content_sha256": self.content_sha256,
            "trust": self.trust,
            "tainted": self.tainted,
        }


def excerpt(body: str, terms: list[str], limit: int = MAX_EXCERPT_CHARS) -> str:
    """About ``limit`` characters of ``body`` around the first word matching a term, cut at spaces."""
    wanted = set(terms)
    position = 0
    offset = 0
    for word in body.split():
        found = body.find(word, offset)
        offset = found + len(word)
        if wanted.intersection(tokens(word)):
            position = found
            break
    start = max(0, position - limit // 3)
    if start:
        space = body.find(" ", start)
        start = space + 1 if 0 <= space < position else start
    piece = " ".join(body[start : start + limit].split())
    return piece if len(piece) <= limit else piece[: limit - 1] + "…"


class ReadStore:
    """The pages read in a session, searchable offline; see the module docstring.

    Build one with a :class:`ReadStoreConfig` (the reader does, as ``reader.store``).
    """

    def __init__(self, config: ReadStoreConfig | None = None, *, backend: Literal["auto", "python"] = "auto") -> None:
        self.config = config if config is not None else ReadStoreConfig()
        if not isinstance(self.config, ReadStoreConfig):
            raise InvalidInput("config must be a ReadStoreConfig", reason="invalid_store_config")
        target = os.fspath(self.config.path) if self.config.path is not None else ":memory:"
        self._lock = threading.Lock()
        self._closed = False
        try:
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            self._db.execute(SCHEMA)
            index: FullTextIndex
            if backend == "auto" and fts5_available(self._db):
                index = Fts5Index(self._db)
                if self._db.execute("SELECT count(*) FROM pages").fetchone()[0] == 0:
                    for doc_id, title, body in self._db.execute("SELECT id, title, body FROM documents").fetchall():
                        index.add(int(doc_id), str(title), str(body))
            else:
                index = PythonIndex(self._db)
        except sqlite3.Error:
            raise InvalidInput(
                "the read store's database cannot be opened", reason="store_unavailable", stage="store"
            ) from None
        self._index = index

    @contextmanager
    def _using(self) -> Iterator[None]:
        """Hold the lock, refuse a closed store, translate SQLite's exceptions."""
        with self._lock:
            if self._closed:
                raise ConfigMissing("the read store is closed", reason="store_closed", stage="store")
            try:
                yield
            except sqlite3.Error as exc:
                raise UnknownError(
                    f"the read store failed ({type(exc).__name__})", reason="store_failed", stage="store"
                ) from None

    @property
    def backend(self) -> str:
        """``"fts5"`` or ``"python"``: which index answers searches."""
        return self._index.name

    def __len__(self) -> int:
        with self._using():
            return int(self._db.execute("SELECT count(*) FROM documents").fetchone()[0])

    def __repr__(self) -> str:
        return f"ReadStore(backend={self.backend!r})"

    def add(self, document: Document) -> bool:
        """Index ``document`` when the guard allowed it; return whether the store changed."""
        if not isinstance(document, Document):
            raise InvalidInput("only a pagewarden.Document can be stored", reason="invalid_document")
        if not self.config.enabled or document.security.decision.withholds:
            return False
        url = document.final_url
        sha = document.content_sha256
        body = document.markdown[: self.config.max_characters]
        title = document.title or ""
        with self._using():
            row = self._db.execute("SELECT id, sha256 FROM documents WHERE url = ?", (url,)).fetchone()
            if row is not None and row[1] == sha:
                return False
            duplicate = self._db.execute("SELECT 1 FROM documents WHERE sha256 = ? AND url != ?", (sha, url))
            if row is None and duplicate.fetchone() is not None:
                return False
            self._db.execute("BEGIN")
            try:
                if row is not None:
                    self._delete(int(row[0]))
                cursor = self._db.execute(
                    "INSERT INTO documents(url, sha256, title, body, retrieved_at) VALUES (?, ?, ?, ?, ?)",
                    (url, sha, title, body, document.retrieved_at.isoformat()),
                )
                doc_id = int(cursor.lastrowid or 0)
                self._index.add(doc_id, title, body)
                self._evict()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

    def _delete(self, doc_id: int) -> None:
        self._db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
        self._index.remove(doc_id)

    def _evict(self) -> None:
        count = int(self._db.execute("SELECT count(*) FROM documents").fetchone()[0])
        excess = count - self.config.max_documents
        if excess > 0:
            oldest = self._db.execute("SELECT id FROM documents ORDER BY id LIMIT ?", (excess,)).fetchall()
            for (doc_id,) in oldest:
                self._delete(int(doc_id))

    def search(self, query: str, *, limit: int = 5) -> tuple[StoredHit, ...]:
        """The stored pages matching ``query``, best first (BM25); no network.

        Raises:
            InvalidInput: a query that is not 1..400 characters or a limit outside 1..20.
        """
        if not isinstance(query, str) or not 1 <= len(query.strip()) <= MAX_QUERY_CHARS:
            raise InvalidInput(f"query must be 1..{MAX_QUERY_CHARS} characters", reason="invalid_query")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_STORE_HITS:
            raise InvalidInput(f"limit must be in 1..{MAX_STORE_HITS}", reason="invalid_limit")
        terms = query_terms(query)
        with self._using():
            ranked = self._index.search(terms, limit)
            hits: list[StoredHit] = []
            for doc_id, score in ranked:
                row = self._db.execute(
                    "SELECT url, title, body, retrieved_at, sha256 FROM documents WHERE id = ?", (doc_id,)
                ).fetchone()
                if row is None:
                    continue
                url, title, body, retrieved_at, sha = row
                hits.append(
                    StoredHit(
                        url=url,
                        title=title,
                        excerpt=excerpt(body, terms),
                        score=score,
                        retrieved_at=retrieved_at,
                        content_sha256=sha,
                    )
                )
        return tuple(hits)

    def clear(self) -> None:
        """Forget every stored page (in the file too, when there is one)."""
        with self._using():
            for (doc_id,) in self._db.execute("SELECT id FROM documents").fetchall():
                self._delete(int(doc_id))

    def close(self) -> None:
        """Close the database (an in-memory store is gone afterwards); later calls are ``CONFIG_MISSING``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()
