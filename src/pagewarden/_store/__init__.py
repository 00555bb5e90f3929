"""The read store: pages already read, searchable offline (SQLite FTS5 / BM25).

Modules:
    config: :class:`ReadStoreConfig` (imported by ``_config``, so this package
        imports nothing else eagerly).
    index: the FTS5 and pure-Python BM25 indexes.
    store: :class:`~pagewarden._store.store.ReadStore` and ``StoredHit``.
"""

from .config import ReadStoreConfig

__all__ = ["ReadStoreConfig"]
