"""What batch reading and crawling need from a reader: a protocol, so neither imports the reader.

``AsyncReader.crawl()`` and ``map()`` hand the reader itself to the crawler,
which reads pages through :mod:`.records`; if those modules imported
:mod:`pagewarden._reader` in turn, reader and crawler would import each other.
:class:`PageReader` names exactly what they call, and
:class:`pagewarden.AsyncReader` satisfies it (mypy checks every call site).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._config import ReaderConfig
    from .._document import Document

__all__ = ["PageReader"]


class PageReader(Protocol):
    """The part of :class:`pagewarden.AsyncReader` that ingestion and crawling use."""

    @property
    def config(self) -> ReaderConfig:
        """The reader's validated configuration (policy, limits, timeouts)."""
        ...

    async def read(
        self,
        url: str,
        *,
        render: str | None = None,
        max_characters: int | None = None,
        requested_use: str = "answer_with_citation",
        timeout: float | None = None,
    ) -> Document:
        """Read one page."""
        ...
