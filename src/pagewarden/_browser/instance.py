"""One pooled browser: its egress proxy, Playwright driver and Chromium, owned by one supervisor task.

A :class:`BrowserInstance`'s resources are entered and exited by its
supervisor task, so anyio's rule that a context manager exits in the task that
entered it holds whichever read triggered the launch and whichever event
(idle timer, crash, recycling, :meth:`~.pool.BrowserPool.aclose`) ends it.
Leaks are closed three ways: the supervisor kills whatever of the process
group is left after closing, a ``weakref.finalize`` (run at interpreter exit
too) kills it if the pool was never closed, and Playwright's driver kills its
browsers when its pipe closes.

Its contexts (spare, hand-out, closing, abandoning) are a
:class:`~.contexts.ContextSupply`. An instance is *retired* (no new reads;
stopped once its in-flight reads are done) after recycling, idle time or too
many abandoned contexts; it is *dead* when Chromium disconnected or crashed,
which fails only the reads still running on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio
from playwright.async_api import Browser, BrowserContext, Error, async_playwright

from .._egress import PinningProxy, ProxyEndpoint
from .._errors import ConfigMissing, PagewardenError
from .boundary import launch_error
from .contexts import ContextSupply
from .discovery import BrowserExecutable, find_chromium
from .fresh import FreshContext
from .launch import build_launch_options, new_marker
from .processes import find_marked_process, kill_group

if TYPE_CHECKING:
    from .._browser_config import BrowserConfig
    from .._config import ReaderConfig
    from .policy import BrowserPolicy

__all__ = ["BrowserInstance", "InstanceOwner"]

_CLOSE_TIMEOUT: Final = 5.0
_NO_IMAGES: Final = "--blink-settings=imagesEnabled=false"


class InstanceOwner(Protocol):
    """What an instance needs from the pool that owns it (a :class:`~.pool.BrowserPool`).

    A protocol rather than an import: the pool creates its instances, and an
    instance must not import the pool back.
    """

    config: BrowserConfig
    reader_config: ReaderConfig
    policy: BrowserPolicy
    environ: Mapping[str, str] | None
    prewarm: bool

    @property
    def closed(self) -> bool:
        """Whether the pool was closed."""
        ...

    def proxy_factory(self, reader_config: ReaderConfig, policy: BrowserPolicy) -> PinningProxy:
        """Build this browser's egress proxy."""
        ...

    def forget(self, instance: BrowserInstance) -> None:
        """Stop giving new reads to ``instance``."""
        ...

    def retire(self, instance: BrowserInstance) -> None:
        """Give new reads a new browser; stop ``instance`` once its reads are done."""
        ...


class BrowserInstance:
    """One browser with its proxy and driver, owned by a supervisor task; see the module docstring."""

    def __init__(self, pool: InstanceOwner, generation: int) -> None:
        self.pool = pool
        self.generation = generation
        self.browser: Browser | None = None
        self.proxy: PinningProxy | None = None
        self.executable: BrowserExecutable | None = None
        self.marker = new_marker()
        self.pid: int | None = None
        self.served = 0
        self.active = 0
        self.dead = False
        self.retiring = False
        self.error: PagewardenError | None = None
        self.ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.done = asyncio.Event()
        self.dead_callbacks: set[Callable[[], None]] = set()
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self.contexts = ContextSupply(
            self._create_context,
            wants_spare=self._wants_spare,
            max_background_closes=pool.config.concurrency,
            on_stuck=lambda: pool.retire(self),
        )
        self.task = asyncio.get_running_loop().create_task(self._supervise(), name=f"pagewarden-browser-{generation}")

    # -- lifecycle, all inside the supervisor task ---------------------------------------
    async def _supervise(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                try:
                    await self._start(stack)
                except Exception as exc:
                    self.error = launch_error(exc, remote=self.pool.config.remote)
                    return
                finally:
                    self.ready.set()
                await self._stop.wait()
        finally:
            self._kill_leftovers()
            self.dead = True
            self.contexts.browser_dead = True
            self.done.set()

    async def _start(self, stack: AsyncExitStack) -> None:
        config = self.pool.config
        proxy = self.pool.proxy_factory(self.pool.reader_config, self.pool.policy)
        self.proxy = await stack.enter_async_context(proxy)
        playwright = await stack.enter_async_context(async_playwright())
        if config.browser_endpoint is not None:
            browser = await playwright.chromium.connect(config.browser_endpoint, timeout=config.launch_timeout * 1000)
        elif config.cdp_endpoint is not None:
            browser = await playwright.chromium.connect_over_cdp(
                config.cdp_endpoint, timeout=config.launch_timeout * 1000
            )
        else:
            self.executable = find_chromium(config.executable, environ=self.pool.environ)
            options = build_launch_options(
                config, self.executable.path, self.launch_endpoint, self.marker, environ=self.pool.environ
            )
            if "image" not in self.pool.policy.resource_types:
                # Refused anyway; with Blink's image loading off, an image flood never reaches the
                # routing (one driver round trip per request, shared by every read of this browser).
                options["args"] = [*options["args"], _NO_IMAGES]
            browser = await playwright.chromium.launch(**options)
        stack.push_async_callback(self._close_browser, browser)
        self.browser = browser
        browser.on("disconnected", lambda _browser: self._on_disconnected())
        if not config.remote:
            self.pid = find_marked_process(self.marker)
            if self.pid is not None and self.executable is not None:
                # Runs at interpreter exit too, if nobody closed the pool.
                self._finalizer = weakref.finalize(self, kill_group, self.pid, self.marker, str(self.executable.path))

    async def _close_browser(self, browser: Browser) -> None:
        with anyio.move_on_after(_CLOSE_TIMEOUT):
            await self.contexts.drain()
            with contextlib.suppress(Error):
                await browser.close()

    def _kill_leftovers(self) -> None:
        if self.pid is not None and self.executable is not None:
            kill_group(self.pid, self.marker, str(self.executable.path))
        if self._finalizer is not None:
            self._finalizer.detach()

    def _on_disconnected(self) -> None:
        self.dead = True
        self.contexts.browser_dead = True
        for callback in list(self.dead_callbacks):
            callback()
        self.pool.forget(self)
        self.stop()

    # -- used by the pool -----------------------------------------------------------------
    @property
    def launch_endpoint(self) -> ProxyEndpoint:
        """The launch-level proxy endpoint (host, port, credentials)."""
        if self.proxy is None:
            raise ConfigMissing("the egress proxy is not running", reason="proxy_not_running", stage="browser")
        return ProxyEndpoint("127.0.0.1", self.proxy.port, self.proxy.username, self.proxy.password)

    def stop(self) -> None:
        """Ask the supervisor to close everything (returns at once)."""
        self._stop.set()

    async def wait_closed(self) -> None:
        """Stop and wait until the browser, driver and proxy are gone."""
        self.stop()
        await self.done.wait()

    # -- contexts ---------------------------------------------------------------------------
    async def _create_context(self, on_context: Callable[[BrowserContext], None]) -> FreshContext:
        if self.browser is None or self.proxy is None:  # pragma: no cover - only called on a started instance
            raise ConfigMissing("the browser is not running", reason="browser_not_running", stage="browser")
        return await FreshContext.create(
            self.browser,
            self.proxy,
            self.pool.policy,
            user_agent=self.pool.reader_config.user_agent,
            on_context=on_context,
        )

    def _wants_spare(self) -> bool:
        # A spare only for a read that can still come to this browser.
        return (
            self.pool.prewarm
            and not self.pool.closed
            and not self.dead
            and not self.retiring
            and self.served < self.pool.config.recycle_after
        )

    def warm(self) -> None:
        """Start preparing the next read's context (see :meth:`.ContextSupply.warm`)."""
        self.contexts.warm()

    async def fresh_context(self) -> tuple[FreshContext, bool]:
        """A never-used context for one read and whether it was pre-warmed (see :class:`.ContextSupply`)."""
        return await self.contexts.fresh_context()

    async def release_context(self, fresh: FreshContext, *, stop_page: bool = False, wait: float = 0.0) -> None:
        """Close a read's context after the read (see :meth:`.ContextSupply.release`)."""
        await self.contexts.release(fresh, stop_page=stop_page, wait=wait)

    @property
    def spare_ready(self) -> FreshContext | None:
        """The ready spare, if there is one (for tests and diagnostics)."""
        return self.contexts.spare_ready
