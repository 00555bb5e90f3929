"""The browser pool: one Chromium, launched lazily, reused, recycled, and never leaked.

A :class:`BrowserPool` owns at most one *current* browser (a
:class:`~.instance.BrowserInstance`: egress proxy, Playwright driver and
Chromium under one supervisor task) plus, for a while, retired ones that
still finish their reads.

Reads take a slot first: ``concurrency`` slots, FIFO, with at most
``max_queue`` reads waiting; one more is ``RATE_LIMITED``
(``reason="browser_queue_full"``). A browser is retired after
``recycle_after`` contexts, after ``idle_timeout`` seconds without a read,
and when contexts it could not close pile up (:mod:`.contexts`). Retiring
never stops a browser under a read: the next read gets a new browser and the
retired one stops when its last in-flight read ends (on its own deadline at
the latest). Only a browser that disconnects or crashes fails the reads on it.

Isolation: a hostile page costs its own read and nothing else. Its context
is closed after it, or abandoned and counted when it will not close in time
(:class:`~.contexts.ContextSupply`); its proxy session is revoked with it;
the browser and its other reads carry on.

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
import functools
import itertools
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
from playwright.async_api import Browser

from .._config import ReaderConfig
from .._egress import PinningProxy, check_environment
from .._errors import ConfigMissing, NetworkError, RateLimited
from .config import BrowserConfig
from .fresh import FreshContext
from .instance import BrowserInstance
from .launch import check_sandbox
from .policy import BrowserPolicy, load_policy

__all__ = ["BrowserPool", "Lease", "ProxyFactory"]


class ProxyFactory(Protocol):
    """Builds the egress proxy of one browser (tests substitute stand-ins)."""

    def __call__(self, reader_config: ReaderConfig, policy: BrowserPolicy) -> PinningProxy: ...


def _default_proxy(reader_config: ReaderConfig, policy: BrowserPolicy) -> PinningProxy:
    # A little above the page budget, so the page's own byte accounting (which
    # names the budget) trips before the proxy cuts a single connection.
    return PinningProxy(reader_config, max_download_bytes=policy.max_bytes + 65_536)


@dataclass(frozen=True, slots=True)
class Lease:
    """A slot in the pool and the browser it runs on, for one read."""

    instance: BrowserInstance
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
        """Let the browser prepare the next read's context now (see :meth:`BrowserInstance.warm`)."""
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
        self._current: BrowserInstance | None = None
        self._instances: set[BrowserInstance] = set()
        self._slots: anyio.Semaphore | None = None
        self._launch_lock: anyio.Lock | None = None
        self._waiting = 0
        self._idle_handle: asyncio.TimerHandle | None = None
        self._closed = False
        self.launches = 0
        self._abandoned = 0  # contexts abandoned by browsers already gone

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
        still being closed; ``stuck`` abandoned ones Chromium has not closed
        yet. Together they are every context of every live browser.
        ``abandoned`` counts every context that would not close in time
        (for the pool's life, retired browsers included); ``retiring`` the
        retired browsers still finishing their reads.
        """
        live = [i for i in self._instances if i.browser is not None and not i.dead]
        every = [(i, set(i.browser.contexts)) for i in live if i.browser is not None]
        spare = sum(len(contexts & i.contexts.unleased) for i, contexts in every)
        closing = sum(len(contexts & i.contexts.closing) for i, contexts in every)
        stuck = sum(len(contexts & i.contexts.stuck - i.contexts.closing) for i, contexts in every)
        return {
            "launches": self.launches,
            "browsers": len(live),
            "contexts": sum(len(contexts) for _, contexts in every) - spare - closing - stuck,
            "spare": spare,
            "closing": closing,
            "stuck": stuck,
            "abandoned": self._abandoned + sum(i.contexts.abandoned for i in self._instances),
            "retiring": sum(1 for i in live if i.retiring),
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
                self.retire(instance)
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

    async def _instance(self) -> tuple[BrowserInstance, bool]:
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
                instance = BrowserInstance(self, next(self._generations))
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
                self.forget(instance)
                raise instance.error
            if instance.dead:
                self.forget(instance)
                raise NetworkError("the browser exited while starting", reason="browser_crashed", stage="browser")
            return instance, launched

    def _dropped(self, instance: BrowserInstance, _task: asyncio.Task[None]) -> None:
        self._abandoned += instance.contexts.abandoned
        self._instances.discard(instance)

    def forget(self, instance: BrowserInstance) -> None:
        """Stop giving new reads to ``instance`` (it died or is retiring)."""
        if self._current is instance:
            self._current = None

    def retire(self, instance: BrowserInstance) -> None:
        """Give new reads a new browser; stop ``instance`` once its in-flight reads are done."""
        instance.retiring = True
        self.forget(instance)
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

    def _on_idle(self, instance: BrowserInstance) -> None:
        self._idle_handle = None
        if instance is self._current and instance.active == 0 and self._waiting == 0:
            self.retire(instance)

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
