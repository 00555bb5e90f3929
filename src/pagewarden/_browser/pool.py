"""The browser pool: one Chromium, launched lazily, reused, recycled, and never leaked.

A :class:`BrowserPool` owns at most one *current* browser (plus, for a moment,
one being retired). Each browser lives in an :class:`_Instance` whose
resources (the egress proxy, the Playwright driver, Chromium) are entered and
exited by one supervisor task, so anyio's rule that a context manager exits
in the task that entered it holds whichever read triggered the launch and
whichever event (idle timer, crash, recycling, :meth:`BrowserPool.aclose`)
ends it.

Reads take a slot first: ``concurrency`` slots, FIFO, with at most
``max_queue`` reads waiting; one more is ``RATE_LIMITED``
(``reason="browser_queue_full"``). A browser is retired after
``recycle_after`` contexts, when it disconnects or crashes, and after
``idle_timeout`` seconds without a read. Leaks are closed three ways: the
supervisor kills whatever of the process group is left after closing, a
``weakref.finalize`` (run at interpreter exit too) kills it if the pool was
never closed, and Playwright's driver kills its browsers when its pipe closes.

Pre-warming (``prewarm=True``, the default): once a read's document has
loaded (:meth:`Lease.warm_next`), the browser starts preparing the next context
(:class:`~.fresh.FreshContext`: context, routes, init script, page, CDP
session) so that it is ready when the next read arrives. At most one spare
exists per browser; each context still serves exactly one read and is closed
after it. The spare is closed with its browser (recycling, idle shutdown,
crash, :meth:`BrowserPool.aclose`); :meth:`BrowserPool.stats` counts it
apart from the contexts of reads (``spare``).

Playwright's async API runs on asyncio only; so does this pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
from playwright.async_api import Browser, BrowserContext, Error, async_playwright

from .._config import ReaderConfig
from .._egress import PinningProxy, ProxyEndpoint, check_environment
from .._errors import ConfigMissing, NetworkError, PagewardenError, RateLimited
from .boundary import launch_error
from .config import BrowserConfig
from .discovery import BrowserExecutable, find_chromium
from .fresh import FreshContext
from .launch import build_launch_options, check_sandbox, new_marker
from .policy import BrowserPolicy, load_policy
from .processes import find_marked_process, kill_group

__all__ = ["BrowserPool", "Lease", "ProxyFactory"]

_CLOSE_TIMEOUT = 5.0


class ProxyFactory(Protocol):
    """Builds the egress proxy of one browser (tests substitute stand-ins)."""

    def __call__(self, reader_config: ReaderConfig, policy: BrowserPolicy) -> PinningProxy: ...


def _default_proxy(reader_config: ReaderConfig, policy: BrowserPolicy) -> PinningProxy:
    # A little above the page budget, so the page's own byte accounting (which
    # names the budget) trips before the proxy cuts a single connection.
    return PinningProxy(reader_config, max_download_bytes=policy.max_bytes + 65_536)


class _Instance:
    """One browser with its proxy and driver, owned by a supervisor task."""

    def __init__(self, pool: BrowserPool, generation: int) -> None:
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
        # The pre-warmed context being prepared or ready, the contexts it made that no read
        # owns yet, and the tasks closing spares nobody will use.
        self._spare: asyncio.Task[FreshContext] | None = None
        self.unleased: set[BrowserContext] = set()
        # Contexts of finished reads still being closed (see release_context).
        self.closing: set[BrowserContext] = set()
        self._closers: set[asyncio.Task[None]] = set()
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
            await self._drop_spare()
            with contextlib.suppress(Error):
                await browser.close()

    def _kill_leftovers(self) -> None:
        if self.pid is not None and self.executable is not None:
            kill_group(self.pid, self.marker, str(self.executable.path))
        if self._finalizer is not None:
            self._finalizer.detach()

    def _on_disconnected(self) -> None:
        self.dead = True
        for callback in list(self.dead_callbacks):
            callback()
        self.pool._forget(self)
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

    # -- fresh contexts -------------------------------------------------------------------
    async def _create_context(self) -> FreshContext:
        if self.browser is None or self.proxy is None:  # pragma: no cover - only called on a started instance
            raise ConfigMissing("the browser is not running", reason="browser_not_running", stage="browser")
        return await FreshContext.create(
            self.browser,
            self.proxy,
            self.pool.policy,
            user_agent=self.pool.reader_config.user_agent,
            on_context=self.unleased.add,
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
        """Start preparing the next read's context, unless a spare exists or no read can use it.

        Called by a read once its document has loaded (DOMContentLoaded: the
        page's own loading no longer competes with the spare for the CPU, and
        the spare is ready when the next read starts) and when a lease ends.
        """
        if self._spare is None and self._wants_spare():
            task = asyncio.get_running_loop().create_task(self._create_context(), name="pagewarden-prewarm")
            # A spare that fails (browser gone) is simply not used; its error is consumed here.
            task.add_done_callback(_consume_error)
            self._spare = task

    async def fresh_context(self) -> tuple[FreshContext, bool]:
        """A fresh context for one read: the spare if one is usable, else a new one; and whether it was warm.

        The caller owns the context and must close it. The next spare is not
        started here: preparing it costs CPU that this read's navigation needs
        (see :meth:`warm`).
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
            fresh = await self._create_context()
        self.unleased.discard(fresh.context)
        return fresh, warm

    async def release_context(self, fresh: FreshContext) -> None:
        """Close a read's context after the read, off the read's path when possible.

        Closing takes a browser round trip (~10 ms) that the read's caller
        need not wait for: the snapshot is taken, and until it is closed the
        context stays under the same routing and proxy session as during the
        read. Closes run in the background up to the pool's concurrency; past
        that (closes falling behind) the read waits for its own, so the number
        of closing contexts stays bounded. A context that will not close means
        a wedged browser, which is replaced either way.
        """
        self.closing.add(fresh.context)
        if self.dead or len(self._closers) >= self.pool.config.concurrency:
            await self._close_read_context(fresh)
            return
        closer = asyncio.get_running_loop().create_task(
            self._close_read_context(fresh), name="pagewarden-close-context"
        )
        self._closers.add(closer)
        closer.add_done_callback(self._closers.discard)

    async def _close_read_context(self, fresh: FreshContext) -> None:
        try:
            if not await fresh.close():
                self.pool.discard(self)
        finally:
            self.closing.discard(fresh.context)

    def _close_orphan(self, task: asyncio.Task[FreshContext]) -> None:
        if not task.cancelled() and task.exception() is None:
            self._close_later(task.result())

    def _close_later(self, fresh: FreshContext) -> None:
        self.unleased.discard(fresh.context)
        closer = asyncio.get_running_loop().create_task(_close_quietly(fresh), name="pagewarden-close-spare")
        self._closers.add(closer)
        closer.add_done_callback(self._closers.discard)

    async def _drop_spare(self) -> None:
        """Close the spare (ready or being prepared) and wait for pending closes; used before the browser closes."""
        task, self._spare = self._spare, None
        if task is not None:
            if task.done():
                self._close_orphan(task)
            else:
                # The browser is about to close, which ends any half-made context with it.
                task.cancel()
                await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT)
        if self._closers:
            await asyncio.gather(*self._closers, return_exceptions=True)
        self.unleased.clear()

    @property
    def spare_ready(self) -> FreshContext | None:
        """The ready spare, if there is one (for tests and diagnostics)."""
        task = self._spare
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    async def wait_closed(self) -> None:
        """Stop and wait until the browser, driver and proxy are gone."""
        self.stop()
        await self.done.wait()


def _consume_error(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _close_quietly(fresh: FreshContext) -> None:
    await fresh.close()


@dataclass(frozen=True, slots=True)
class Lease:
    """A slot in the pool and the browser it runs on, for one read."""

    instance: _Instance
    waited: float
    launched: bool

    @property
    def browser(self) -> Browser:
        """The browser to open this read's context in."""
        if self.instance.browser is None:  # pragma: no cover - a lease is only given for a started instance
            raise ConfigMissing("the browser is not running", reason="browser_not_running", stage="browser")
        return self.instance.browser

    @property
    def proxy(self) -> PinningProxy:
        """The egress proxy of this browser."""
        if self.instance.proxy is None:  # pragma: no cover
            raise ConfigMissing("the egress proxy is not running", reason="proxy_not_running", stage="browser")
        return self.instance.proxy

    async def fresh_context(self) -> tuple[FreshContext, bool]:
        """A never-used context for this read (pre-warmed when available) and whether it was pre-warmed."""
        return await self.instance.fresh_context()

    def warm_next(self) -> None:
        """Let the browser prepare the next read's context now (see :meth:`_Instance.warm`)."""
        self.instance.warm()


class BrowserPool:
    """Pooled Chromium for rendering reads; see the module docstring.

    Args:
        config: how to run the browser.
        reader_config: the reader's config; the proxy and the routing policy
            apply its address policy and ``unsafe_allow_destinations``.
        proxy_factory: builds each browser's egress proxy (default: the
            DNS-pinning :class:`~pagewarden._egress.PinningProxy`).
        environ: the environment for discovery and Chromium (default ``os.environ``).
        prewarm: keep the next read's fresh context ready ahead of time
            (one spare per browser; each context still serves one read).

    Raises:
        InvalidInput: the request policy does not load.
    """

    def __init__(
        self,
        config: BrowserConfig,
        reader_config: ReaderConfig,
        *,
        proxy_factory: ProxyFactory | None = None,
        environ: Mapping[str, str] | None = None,
        prewarm: bool = True,
    ) -> None:
        self.config = config
        self.prewarm = prewarm
        self.reader_config = reader_config
        self.policy = load_policy(config.policy).with_timings(config.navigation_timeout, config.settle_time)
        self.proxy_factory: ProxyFactory = proxy_factory or _default_proxy
        self.environ = environ
        self._generations = itertools.count(1)
        self._current: _Instance | None = None
        self._instances: set[_Instance] = set()
        self._slots: anyio.Semaphore | None = None
        self._launch_lock: anyio.Lock | None = None
        self._waiting = 0
        self._idle_handle: asyncio.TimerHandle | None = None
        self._closed = False
        self.launches = 0

    async def __aenter__(self) -> BrowserPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- introspection ------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._closed

    @property
    def browser_version(self) -> str | None:
        """The running browser's version, if one is running."""
        instance = self._current
        if instance is None or instance.browser is None or instance.dead:
            return None
        return instance.browser.version

    def stats(self) -> dict[str, Any]:
        """Counters for tests and diagnostics: launches, live browsers, contexts, spares, queue.

        ``contexts`` counts the live contexts of reads; ``spare`` the
        pre-warmed ones no read owns yet; ``closing`` those of finished reads
        still being closed. Together they are every context of every live browser.
        """
        live = [i for i in self._instances if i.browser is not None and not i.dead]
        every = [(i, set(i.browser.contexts)) for i in live if i.browser is not None]
        spare = sum(len(contexts & i.unleased) for i, contexts in every)
        closing = sum(len(contexts & i.closing) for i, contexts in every)
        return {
            "launches": self.launches,
            "browsers": len(live),
            "contexts": sum(len(contexts) for _, contexts in every) - spare - closing,
            "spare": spare,
            "closing": closing,
            "active": sum(i.active for i in self._instances),
            "waiting": self._waiting,
            "pids": [i.pid for i in live if i.pid is not None],
        }

    # -- leasing --------------------------------------------------------------------------
    @asynccontextmanager
    async def lease(self) -> AsyncIterator[Lease]:
        """A slot and a running browser for one read; released (and maybe recycled) on exit.

        Raises:
            ConfigMissing: the pool is closed, or the browser cannot start
                (``sandbox_unavailable_as_root``, ``chromium_not_found``, ...).
            RateLimited: ``reason="browser_queue_full"``.
        """
        self._check_open()
        check_environment(self.environ)
        check_sandbox(self.config)
        if self._slots is None:
            self._slots = anyio.Semaphore(self.config.concurrency)
        slots = self._slots
        started = anyio.current_time()
        if slots.value == 0 and self._waiting >= self.config.max_queue:
            raise RateLimited(
                f"the browser queue is full ({self.config.max_queue} reads waiting)",
                reason="browser_queue_full",
                stage="browser",
                retry_after=1.0,
            )
        self._waiting += 1
        try:
            await slots.acquire()
        finally:
            self._waiting -= 1
        try:
            self._cancel_idle()
            instance, launched = await self._instance()
            instance.active += 1
            instance.served += 1
            if instance.served >= self.config.recycle_after:
                self._retire(instance)
            try:
                yield Lease(instance, anyio.current_time() - started, launched)
            finally:
                instance.active -= 1
                if instance.retiring and instance.active == 0:
                    instance.stop()
                else:
                    instance.warm()
        finally:
            slots.release()
            self._schedule_idle()

    async def _instance(self) -> tuple[_Instance, bool]:
        if self._launch_lock is None:
            self._launch_lock = anyio.Lock()
        async with self._launch_lock:
            self._check_open()
            instance = self._current
            if instance is not None and instance.task.get_loop() is not asyncio.get_running_loop():
                # Playwright objects are bound to the loop that created them.
                raise ConfigMissing(
                    "a browser pool serves one event loop; create one pool per loop",
                    reason="browser_pool_wrong_loop",
                    stage="browser",
                )
            launched = instance is None or instance.dead or instance.retiring
            if instance is None or launched:
                instance = _Instance(self, next(self._generations))
                self._current = instance
                self._instances.add(instance)
                instance.task.add_done_callback(functools.partial(self._dropped, instance))
                self.launches += 1
            if instance is None:  # pragma: no cover - set just above
                raise ConfigMissing("no browser instance", reason="browser_not_running", stage="browser")
            # Shielded: a read cancelled while the browser starts must not
            # leave the launch half done; the supervisor finishes it either way.
            with anyio.CancelScope(shield=True):
                await instance.ready.wait()
            if instance.error is not None:
                self._forget(instance)
                raise instance.error
            if instance.dead:
                self._forget(instance)
                raise NetworkError("the browser exited while starting", reason="browser_crashed", stage="browser")
            return instance, launched

    def _dropped(self, instance: _Instance, _task: asyncio.Task[None]) -> None:
        self._instances.discard(instance)

    def _forget(self, instance: _Instance) -> None:
        if self._current is instance:
            self._current = None

    def discard(self, instance: _Instance) -> None:
        """Replace a browser that misbehaves (a context that would not close): stop it now."""
        self._forget(instance)
        instance.retiring = True
        instance.stop()

    def _retire(self, instance: _Instance) -> None:
        instance.retiring = True
        self._forget(instance)
        if instance.active == 0:
            instance.stop()

    # -- idle shutdown ------------------------------------------------------------------
    def _cancel_idle(self) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None

    def _schedule_idle(self) -> None:
        self._cancel_idle()
        if self._closed or self._current is None or self._current.active or self._waiting:
            return
        loop = asyncio.get_running_loop()
        self._idle_handle = loop.call_later(self.config.idle_timeout, self._on_idle, self._current)

    def _on_idle(self, instance: _Instance) -> None:
        self._idle_handle = None
        if instance is self._current and instance.active == 0 and self._waiting == 0:
            self._retire(instance)

    # -- closing --------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise ConfigMissing("the browser pool is closed", reason="browser_pool_closed", stage="browser")

    async def aclose(self) -> None:
        """Close every browser, driver and proxy and wait until they are gone (idempotent)."""
        self._closed = True
        self._cancel_idle()
        self._current = None
        instances = list(self._instances)
        with anyio.CancelScope(shield=True):
            for instance in instances:
                instance.stop()
            for instance in instances:
                await instance.done.wait()
        self._instances.clear()
