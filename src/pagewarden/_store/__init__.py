"""The read store: pages already read, searchable offline (SQLite FTS5 / BM25)."""

from .config import ReadStoreConfig
from .store import ReadStore, StoredHit

__all__ = ["ReadStore", "ReadStoreConfig", "StoredHit"]
