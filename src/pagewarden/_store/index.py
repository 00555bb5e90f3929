"""The full-text index behind the read store: SQLite FTS5 with BM25, or a pure-Python BM25.

Both backends keep the documents themselves in one ordinary SQLite table
(``documents``: url, content hash, title, body, retrieval time), so a file
path persists them either way. :class:`Fts5Index` adds an FTS5 table
(``unicode61`` tokenizer, ``bm25()`` with the title weighted twice);
:class:`PythonIndex` builds an in-memory inverted index from the table when
it opens and scores with Okapi BM25 (``k1 = 1.2``, ``b = 0.75``, title
tokens counted twice), for SQLite builds without FTS5.

Queries never reach FTS5 as syntax: :func:`query_terms` keeps at most 32
word tokens, and each is quoted, so ``NEAR``, ``*``, ``:`` or quotes in a
query are just text.
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata
from collections import Counter
from typing import Protocol

__all__ = ["Fts5Index", "FullTextIndex", "PythonIndex", "fts5_available", "query_terms", "tokens"]

MAX_QUERY_TERMS = 32
_WORD = re.compile(r"\w+")
_K1 = 1.2
_B = 0.75
_TITLE_WEIGHT = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    retrieved_at TEXT NOT NULL
)
"""


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens with diacritics removed (what FTS5's ``unicode61`` does)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _WORD.findall(stripped)


def query_terms(query: str) -> list[str]:
    """The distinct search terms of ``query``, in order, at most 32."""
    return list(dict.fromkeys(tokens(query)))[:MAX_QUERY_TERMS]


def fts5_available(connection: sqlite3.Connection) -> bool:
    """Whether this SQLite build has FTS5."""
    try:
        connection.execute("CREATE VIRTUAL TABLE temp.pagewarden_fts5_probe USING fts5(x)")
        connection.execute("DROP TABLE temp.pagewarden_fts5_probe")
    except sqlite3.OperationalError:
        return False
    return True


class FullTextIndex(Protocol):
    """What the store needs from an index (the ``documents`` table is the store's)."""

    name: str

    def add(self, doc_id: int, title: str, body: str) -> None:
        """Index one document."""
        ...

    def remove(self, doc_id: int) -> None:
        """Forget one document."""
        ...

    def search(self, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """``(doc_id, score)`` best first; a higher score is a better match."""
        ...


class Fts5Index:
    """FTS5 with BM25 in the store's own SQLite database."""

    name = "fts5"

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS pages USING fts5(title, body, tokenize='unicode61')")

    def add(self, doc_id: int, title: str, body: str) -> None:
        """Index one document under the documents table's id."""
        self._db.execute("INSERT INTO pages(rowid, title, body) VALUES (?, ?, ?)", (doc_id, title, body))

    def remove(self, doc_id: int) -> None:
        """Forget one document."""
        self._db.execute("DELETE FROM pages WHERE rowid = ?", (doc_id,))

    def search(self, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """BM25 over title (weight 2) and body; any term may match."""
        if not terms:
            return []
        expression = " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
        rows = self._db.execute(
            "SELECT rowid, bm25(pages, 2.0, 1.0) AS rank FROM pages WHERE pages MATCH ? ORDER BY rank LIMIT ?",
            (expression, limit),
        ).fetchall()
        # bm25() is lower-is-better and negative; report higher-is-better.
        return [(int(rowid), -float(rank)) for rowid, rank in rows]


class PythonIndex:
    """Okapi BM25 over an in-memory inverted index, loaded from the documents table."""

    name = "python"

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._postings: dict[str, dict[int, int]] = {}
        self._lengths: dict[int, int] = {}
        self._terms: dict[int, tuple[str, ...]] = {}
        self._total = 0
        for doc_id, title, body in connection.execute("SELECT id, title, body FROM documents"):
            self.add(int(doc_id), str(title), str(body))

    def add(self, doc_id: int, title: str, body: str) -> None:
        """Index one document."""
        counts = Counter(tokens(body))
        for token in tokens(title):
            counts[token] += _TITLE_WEIGHT
        for token, count in counts.items():
            self._postings.setdefault(token, {})[doc_id] = count
        length = sum(counts.values())
        self._terms[doc_id] = tuple(counts)
        self._lengths[doc_id] = length
        self._total += length

    def remove(self, doc_id: int) -> None:
        """Forget one document."""
        length = self._lengths.pop(doc_id, None)
        if length is None:
            return
        self._total -= length
        for token in self._terms.pop(doc_id, ()):
            docs = self._postings.get(token, {})
            if docs.pop(doc_id, None) is not None and not docs:
                del self._postings[token]

    def search(self, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """BM25; documents matching no term are not returned."""
        count = len(self._lengths)
        if not count or not terms:
            return []
        average = self._total / count or 1.0
        scores: dict[int, float] = {}
        for term in terms:
            docs = self._postings.get(term)
            if not docs:
                continue
            idf = math.log(1 + (count - len(docs) + 0.5) / (len(docs) + 0.5))
            for doc_id, frequency in docs.items():
                norm = frequency * (_K1 + 1) / (frequency + _K1 * (1 - _B + _B * self._lengths[doc_id] / average))
                scores[doc_id] = scores.get(doc_id, 0.0) + idf * norm
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:limit]
