"""What the toolset needs from a reader: a protocol, so the tools never import the reader.

``AsyncReader.toolset()`` builds a :class:`~.toolset.Toolset` over the reader
itself; if the tools imported :mod:`pagewarden._reader` in turn, the two
packages would import each other. :class:`ToolReader` names exactly what the
tools call, and :class:`pagewarden.AsyncReader` satisfies it (a test pins
that). A capability the tools start to use is added here first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .._config import ReaderConfig
    from .._document import Document
    from .._search_types import SearchResults
    from .._store.store import ReadStore

__all__ = ["ToolReader"]


@runtime_checkable
class ToolReader(Protocol):
    """The part of :class:`pagewarden.AsyncReader` the model-facing tools use."""

    @property
    def config(self) -> ReaderConfig:
        """The reader's validated configuration (search provider, default render mode)."""
        ...

    @property
    def store(self) -> ReadStore:
        """The pages the reader read, searchable offline (``search_read_pages``)."""
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
        """Read one page (``fetch_content``)."""
        ...

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        language: str | None = None,
        region: str | None = None,
        safe_search: str = "moderate",
        time_range: str | None = None,
        timeout: float | None = None,
    ) -> SearchResults:
        """Search the web (``web_search``)."""
        ...
