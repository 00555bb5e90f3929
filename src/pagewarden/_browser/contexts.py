"""The contexts of one browser: the pre-warmed spare, hand-out to reads, closing after them.

A :class:`ContextSupply` belongs to one browser instance (:mod:`.instance`).
It prepares at most one spare :class:`~.fresh.FreshContext` ahead of time,
hands each read a never-used context (the spare when its renderer answers,
a new one otherwise) and closes the read's context afterwards, off the read's
path when it can.

Isolation: a read's context is that read's alone, and so is its failure. A
context that does not close within :data:`~.fresh.CLOSE_TIMEOUT` (a page
that flooded its browser with requests, a renderer stuck in a loop) is
*abandoned*: its proxy credentials are revoked, it is counted
(``abandoned``), and Chromium is left to finish closing it on its own time,
while the browser keeps serving other reads. Only when abandoned contexts
pile up (:data:`MAX_STUCK` still open at once) is the browser retired, and a
retired browser stops only after its in-flight reads are done (see
:meth:`~.pool.BrowserPool.lease`).

Every task started here is kept in a set and awaited (or cancelled and
awaited) before the browser closes: none is left pending.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Final

from playwright.async_api import BrowserContext

from .fresh import FreshContext

__all__ = ["MAX_STUCK", "ContextSupply"]

# Abandoned contexts still open at once after which the browser is retired (gracefully).
MAX_STUCK: Final = 2
# Seconds the browser's close waits for a spare still being prepared.
_SPARE_CANCEL_TIMEOUT: Final = 5.0


def _consume_error(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


class ContextSupply:
    """Spare, hand-out and close of one browser's contexts; see the module docstring.

    Args:
        create: makes a new :class:`FreshContext` in this browser (calls
            ``on_context`` with the context as soon as it exists).
        wants_spare: whether a read can still come to this browser (no spare otherwise).
        max_background_closes: closes allowed to run off the reads' path at once.
        on_stuck: called when :data:`MAX_STUCK` abandoned contexts are open at once.
    """

    def __init__(
        self,
        create: Callable[[Callable[[BrowserContext], None]], Awaitable[FreshContext]],
        *,
        wants_spare: Callable[[], bool],
        max_background_closes: int,
        on_stuck: Callable[[], None],
    ) -> None:
        self._create = create
        self._wants_spare = wants_spare
        self._max_background = max_background_closes
        self._on_stuck = on_stuck
        self._spare: asyncio.Task[FreshContext] | None = None
        # Contexts no read owns yet (a spare being prepared or ready), those of finished reads being
        # closed, and abandoned ones Chromium has not closed yet.
        self.unleased: set[BrowserContext] = set()
        self.closing: set[BrowserContext] = set()
        self.stuck: set[BrowserContext] = set()
        self.abandoned = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self.browser_dead = False

    # -- spares ------------------------------------------------------------------------
    async def _new(self) -> FreshContext:
        return await self._create(self.unleased.add)

    def warm(self) -> None:
        """Start preparing the next read's context, unless a spare exists or no read can use it.

        Called by a read once its document has loaded (DOMContentLoaded: the
        page's own loading no longer competes with the spare for the CPU, and
        the spare is ready when the next read starts) and when a lease ends.
        """
        if self._spare is None and self._wants_spare():
            task = asyncio.get_running_loop().create_task(self._new(), name="pagewarden-prewarm")
            # A spare that fails (browser gone) is simply not used; its error is consumed here.
            task.add_done_callback(_consume_error)
            self._spare = task

    @property
    def spare_ready(self) -> FreshContext | None:
        """The ready spare, if there is one (for tests and diagnostics)."""
        task = self._spare
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    async def fresh_context(self) -> tuple[FreshContext, bool]:
        """A fresh context for one read: the spare if one is usable, else a new one; and whether it was warm.

        The caller owns the context and must give it back with :meth:`release`.
        The next spare is not started here: preparing it costs CPU that this
        read's navigation needs (see :meth:`warm`).
        """
        task, self._spare = self._spare, None
        fresh: FreshContext | None = None
        if task is not None:
            try:
                # Shielded: a read cancelled while its context is still being prepared must not
                # cancel Playwright half-way; the orphan is closed once ready.
                fresh = await asyncio.shield(task)
            except asyncio.CancelledError:
                task.add_done_callback(self._close_orphan)
                raise
            except Exception:
                fresh = None  # failed to warm up (the browser may be gone): make one now, which reports why
            if fresh is not None:
                try:
                    usable = await fresh.responsive()
                except BaseException:  # cancelled while checking: nobody will use this spare
                    self._close_later(fresh)
                    raise
                if not usable:
                    self._close_later(fresh)
                    fresh = None
        warm = fresh is not None
        if fresh is None:
            fresh = await self._new()
        self.unleased.discard(fresh.context)
        return fresh, warm

    # -- closing -------------------------------------------------------------------------
    async def release(self, fresh: FreshContext, *, stop_page: bool = False, wait: float = 0.0) -> None:
        """Close a read's context after the read, off the read's path when possible.

        The read's proxy session is revoked at once (its credentials stop
        working and its connections are cut: nothing of the read goes on in
        the proxy). Closing the context takes a browser round trip (~10 ms)
        that the read's caller need not wait for: the snapshot is taken, and
        until it is closed the context stays under the same routing. Closes
        run in the background up to ``max_background_closes``; past that
        (closes falling behind) the read waits for its own, so the number of
        closing contexts stays bounded. A context that will not
        close is abandoned (see the module docstring), never the browser.

        ``wait``: seconds the read waits for its close all the same (it goes on in the background
        after that). A hostile page's teardown (a renderer ended mid-flood, hundreds of frames, the
        page's events still on the driver pipe ahead of the close's answer) keeps the browser busy
        for 0.1-1 s; the read that brought it pays for it, not the read that comes next.
        """
        fresh.session.revoke()
        self.closing.add(fresh.context)
        if self.browser_dead or len(self._tasks) >= self._max_background:
            await self._close_read_context(fresh, stop_page)
            return
        task = self._spawn(self._close_read_context(fresh, stop_page), "pagewarden-close-context")
        if wait > 0:
            # asyncio.wait never cancels the close: past ``wait`` (or if the read is cancelled) it runs on.
            await asyncio.wait({task}, timeout=wait)

    async def _close_read_context(self, fresh: FreshContext, stop_page: bool) -> None:
        try:
            if not await fresh.close(stop_page=stop_page) and not self.browser_dead:
                self._abandon(fresh.context)
        finally:
            self.closing.discard(fresh.context)

    def _abandon(self, context: BrowserContext) -> None:
        self.abandoned += 1
        self.stuck.add(context)
        # Chromium usually finishes the close it was asked for; then it no longer counts as stuck.
        context.on("close", lambda _context: self.stuck.discard(context))
        if len(self.stuck) >= MAX_STUCK:
            self._on_stuck()

    def _spawn(self, coroutine: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_consume_error)
        return task

    def _close_orphan(self, task: asyncio.Task[FreshContext]) -> None:
        if not task.cancelled() and task.exception() is None:
            self._close_later(task.result())

    def _close_later(self, fresh: FreshContext) -> None:
        self.unleased.discard(fresh.context)
        self._spawn(fresh.close(), "pagewarden-close-spare")

    async def drain(self) -> None:
        """Close the spare (ready or being prepared) and wait for pending closes; used before the browser closes."""
        task, self._spare = self._spare, None
        if task is not None:
            if task.done():
                self._close_orphan(task)
            else:
                # The browser is about to close, which ends any half-made context with it.
                task.cancel()
                await asyncio.wait({task}, timeout=_SPARE_CANCEL_TIMEOUT)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self.unleased.clear()
