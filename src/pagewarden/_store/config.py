"""The read store's configuration (a frozen value, validated once)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .._errors import InvalidInput

__all__ = ["MAX_STORE_DOCUMENTS", "ReadStoreConfig"]

MAX_STORE_DOCUMENTS = 100_000


@dataclass(frozen=True, slots=True)
class ReadStoreConfig:
    """Where and how much the reader keeps of the pages it read, for ``reader.store.search()``.

    Attributes:
        enabled: index documents as they are read (``True`` by default).
        path: an SQLite file to keep the index in across sessions; ``None``
            (the default) keeps it in memory for the reader's lifetime.
        max_documents: the most documents kept, 1..100,000 (the oldest
            indexed is dropped first). In memory the store holds at most
            ``max_documents * max_characters`` characters plus the index
            (~20 MB of text at the defaults).
        max_characters: the most Markdown characters indexed per document,
            1,000..1,000,000.
    """

    enabled: bool = True
    path: str | os.PathLike[str] | None = None
    max_documents: int = 200
    max_characters: int = 100_000

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise InvalidInput("enabled must be a bool", reason="invalid_store_config")
        if self.path is not None and not isinstance(self.path, str | os.PathLike):
            raise InvalidInput("path must be a file path or None", reason="invalid_store_config")
        for name, value, low, high in (
            ("max_documents", self.max_documents, 1, MAX_STORE_DOCUMENTS),
            ("max_characters", self.max_characters, 1_000, 1_000_000),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidInput(f"{name} must be an integer in {low}..{high}", reason="invalid_store_config")
