"""The sync facade: :class:`Reader` and the module-level :func:`read`.

The core is async. ``Reader`` runs it on a private event loop in a worker
thread (an anyio blocking portal), started lazily and stopped by
:meth:`Reader.close`. Called from inside a running event loop it refuses:
blocking there would freeze the caller's loop, and ``AsyncReader`` is the
right tool.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal

from ._config import ReaderConfig
from ._document import Document
from ._errors import ConfigMissing, InvalidInput
from ._reader import AsyncReader
from ._search.search_and_read import SearchAndReadResult
from ._search.types import SearchResults

if TYPE_CHECKING:
    from ._crawl.api import CrawlPage, CrawlRun
    from ._reader import AuditLog
    from ._store.store import ReadStore
    from ._tools import SyncToolset, ToolBudget

__all__ = ["Reader", "read"]

T = TypeVar("T")
_READ_ARGUMENTS = frozenset({"max_characters", "requested_use", "timeout"})


def _running_event_loop() -> str | None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        return "asyncio"
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            return None
        return "trio"
    return None


def _refuse_inside_event_loop() -> None:
    library = _running_event_loop()
    if library is None:
        return
    raise InvalidInput(
        f"the sync pagewarden API cannot run inside a running {library} event loop; "
        "use pagewarden.AsyncReader and await its methods",
        reason="sync_api_in_event_loop",
    )


class Reader:
    """The synchronous twin of :class:`AsyncReader` (same options, same results).

    Use it as a context manager or call :meth:`close`. Safe to share between
    threads: calls are serialized onto one private event loop.
    """

    def __init__(self, config: ReaderConfig | None = None, **options: Any) -> None:
        self._reader = AsyncReader(config, **options)
        self._lock = threading.Lock()
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._closed = False

    @property
    def config(self) -> ReaderConfig:
        """The validated configuration of this reader."""
        return self._reader.config

    @property
    def store(self) -> ReadStore:
        """See :attr:`AsyncReader.store` (searching it is local work: no event loop needed)."""
        return self._reader.store

    def __enter__(self) -> Reader:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, func: Callable[[], Awaitable[T]]) -> T:
        _refuse_inside_event_loop()
        with self._lock:
            if self._closed:
                raise ConfigMissing("the reader is closed", reason="reader_closed")
            if self._portal is None:
                self._portal_cm = start_blocking_portal()
                self._portal = self._portal_cm.__enter__()
            portal = self._portal
        return portal.call(func)

    def read(self, url: str, **kwargs: Any) -> Document:
        """Like :meth:`AsyncReader.read`, blocking until the Document is ready."""
        return self._call(partial(self._reader.read, url, **kwargs))

    def search(self, query: str, **kwargs: Any) -> SearchResults:
        """Like :meth:`AsyncReader.search`, blocking until the results are ready."""
        return self._call(partial(self._reader.search, query, **kwargs))

    def search_and_read(self, query: str, **kwargs: Any) -> SearchAndReadResult:
        """Like :meth:`AsyncReader.search_and_read`, blocking until every read finished or the deadline fired."""
        return self._call(partial(self._reader.search_and_read, query, **kwargs))

    def crawl(self, start_url: str, **kwargs: Any) -> Iterator[CrawlPage]:
        """Like :meth:`AsyncReader.crawl`: yields each :class:`CrawlPage` as it is read.

        Options are checked at once; leaving the loop early (``break``, an
        exception) stops the crawl and cancels the reads in flight.
        """

        async def start() -> CrawlRun:
            return self._reader.crawl(start_url, **kwargs)

        run = self._call(start)
        return self._pages(run)

    def _pages(self, run: CrawlRun) -> Iterator[CrawlPage]:
        portal = self._portal
        if portal is None:
            raise ConfigMissing("the reader is closed", reason="reader_closed")
        with portal.wrap_async_context_manager(run):
            pages = run.__aiter__()
            while True:
                try:
                    page = portal.call(pages.__anext__)
                except StopAsyncIteration:
                    return
                try:
                    yield page
                except GeneratorExit:
                    # Left early: leave the block normally, so the crawl is
                    # cancelled inside the portal rather than GeneratorExit
                    # being thrown into (and stopping) the reader's loop.
                    return

    def map(self, start_url: str, **kwargs: Any) -> list[str]:
        """Like :meth:`AsyncReader.map`, blocking until the URL list is ready."""
        return self._call(partial(self._reader.map, start_url, **kwargs))

    def toolset(self, *, budget: ToolBudget | None = None, audit_log: AuditLog | None = None) -> SyncToolset:
        """Like :meth:`AsyncReader.toolset`, with a blocking ``execute``."""
        from ._tools import SyncToolset, toolset_for

        return SyncToolset(toolset_for(self._reader, budget=budget, audit_log=audit_log), self._call)

    def close(self) -> None:
        """Release resources and stop the private event loop. Idempotent."""
        _refuse_inside_event_loop()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            portal, portal_cm = self._portal, self._portal_cm
            self._portal = self._portal_cm = None
        if portal is not None and portal_cm is not None:
            try:
                portal.call(self._reader.aclose)
            finally:
                portal_cm.__exit__(None, None, None)


def read(url: str, render: str = "auto", **kwargs: Any) -> Document:
    """Read one URL with a short-lived :class:`Reader` (for scripts).

    ``kwargs`` may mix read arguments (``max_characters``, ``requested_use``,
    ``timeout``) and reader options (any :class:`ReaderConfig` field).
    """
    read_kwargs = {key: value for key, value in kwargs.items() if key in _READ_ARGUMENTS}
    options = {key: value for key, value in kwargs.items() if key not in _READ_ARGUMENTS}
    _refuse_inside_event_loop()
    with Reader(**options) as reader:
        return reader.read(url, render=render, **read_kwargs)
