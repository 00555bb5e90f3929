"""Render one page: a fresh context, the request policy, navigation, settle, snapshot.

:func:`render` is what the reader calls for ``render="auto"`` escalations and
``render="always"``. Per read it takes a pool slot (FIFO queue) and a fresh
non-persistent context (:class:`.fresh.FreshContext`, usually pre-warmed by the
pool, never used before) whose traffic goes through the egress proxy under
this read's own proxy credentials, attaches this read's request policy
(:class:`.routing.PageGuard`; the init script is already in place), navigates to the URL *with*
its fragment (client-side routers read it; it never goes over HTTP), waits for
DOMContentLoaded and a short settle, scrolls a page that loads content on
scroll in viewport steps (:func:`.settle.scroll_for_lazy_content`, bounded by
the policy), validates the main-frame response (2xx, HTML), and takes the
isolated-world visibility snapshot. While the page loads, its DOM is probed
for the node bound (the observer of :mod:`.observer` has usually hidden an
oversized document already), so a page that builds a huge DOM before
DOMContentLoaded fails with ``browser_dom_too_large`` rather than at the
navigation timeout. A page past the frame bound has its loading stopped by the
observer, its further frames refused by the init script, and, once the browser
has attached more than :data:`.observer.MAX_FRAMES` frames to it (counted from
CDP ``Page.frameAttached``, so frames made by any means count), its running
script terminated, its scripts disabled and its loading stopped
(:meth:`.fresh.FreshContext.stop_scripts`); the navigation then ends, settle and
scroll are skipped, and what the page holds is read, truncated. The context is closed on every path: success, policy
error, crash, deadline, cancellation; after a failed read, with requests
still in flight, or past the frame bound, its page's renderer is ended first (see
:meth:`.fresh.FreshContext.close`), and a failed or frame-stopped read waits
for the close within its deadline, so that its page's teardown is its own cost
and not the next read's. What the read knows and how its failures are named is
:class:`.read_state.ReadState`.

Deadline: the read runs under the caller's cancel scope (the reader wraps the
read in ``anyio.fail_after``); ``deadline`` (an ``anyio.current_time()``
value) adds one of our own, and the earlier of the two also bounds every
Playwright call and the proxy session's connections. Cancellation interrupts
any Playwright call at once; closing the context afterwards is shielded and
bounded, so a page stuck in an infinite loop cannot hold the read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, TypeVar

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Response

from .._errors import GuardFailed, PagewardenError, UnsafeURL
from .._net.urls import Target, parse_target
from .boundary import crashed
from .fresh import CLOSE_TIMEOUT, ReadHooks
from .observer import MAX_FRAMES
from .pool import BrowserPool, Lease
from .read_state import ReadState, media_type
from .settle import DomProbe, ScrollOutcome, scroll_for_lazy_content, settle
from .visibility import Snapshot, snapshot

__all__ = ["BROWSER_LIMITATIONS", "RenderedPage", "render"]

# Seconds kept back from the snapshot for clean-up when the deadline is near, and the least
# time worth starting a snapshot with.
_CLEANUP_RESERVE: Final = 0.6
_MIN_SNAPSHOT_TIME: Final = 0.05
# Seconds before its deadline at which a read stops waiting for its context's close (see _close): the
# close goes on in the background, and the read's own error is never turned into a deadline error.
_CLOSE_MARGIN: Final = 0.05
# Seconds the last DOM-size check before the snapshot may take.
_DOM_CHECK_TIMEOUT: Final = 1.0
# While the page loads: seconds before the first DOM-size probe, and between probes.
_DOM_WATCH_START: Final = 0.25
_DOM_WATCH_EVERY: Final = 0.15
_DOM_WATCH_PROBE: Final = 1.0
# Seconds a read waits for its page to take the stop at the frame bound.
_STOP_WAIT: Final = 1.0
_T = TypeVar("_T")
BROWSER_LIMITATIONS: Final[tuple[str, ...]] = (
    "The page's JavaScript ran in an isolated, non-persistent browser context.",
    "Request routing and the egress proxy are application-level controls, not an OS sandbox.",
)
_NO_SANDBOX: Final = "Chromium's own sandbox was off (external_sandbox=True): the container must isolate it."
_SCROLL_CUT: Final = (
    "The page kept loading content as it was scrolled; reading stopped at the policy's scroll bound."
)
_FRAMES_CUT: Final = (
    f"The page made more than {MAX_FRAMES} frames, or tried to; it was stopped there, so what came after may be"
    " missing."
)
_REMOTE: Final = (
    "A remote browser rendered the page: its launch flags (WebRTC, DNS, QUIC) are not under pagewarden's control."
)


@dataclass(frozen=True, slots=True)
class RenderedPage:
    """The result of one render.

    Attributes:
        url: the URL asked for, canonical, with its fragment.
        final_url: the main frame's URL when the snapshot was taken.
        status: the HTTP status of the main document.
        content_type: its media type (``text/html`` or ``application/xhtml+xml``).
        html: the snapshot: a serialized DOM copy with hidden content marked
            ``data-pagewarden-hidden="<reason>"``.
        node_count: nodes the snapshot walked.
        truncated: the page was still loading content as it was scrolled when the
            policy's scroll bound stopped it, or its loading was stopped at the frame
            bound (:data:`.observer.MAX_FRAMES`); a snapshot over budget is an error.
        limitations: what this render could not see or guarantee.
        requests_blocked: requests the policy blocked, by reason.
        proxy_refusals: requests the egress proxy refused for this read, by reason.
        requests: requests the policy let through (refused ones are in ``requests_blocked``).
        bytes_received: network bytes the page received.
        timings: milliseconds per step (``queue``, ``context``, ``navigation``,
            ``settle``, ``scroll``, ``snapshot``, ``total``), ``scroll_steps``
            (viewports scrolled), ``launched`` (1 when this
            read started the browser) and ``prewarmed`` (1 when its context
            was ready before the read asked for it).
    """

    url: str
    final_url: str
    status: int
    content_type: str
    html: str
    node_count: int
    truncated: bool
    limitations: tuple[str, ...]
    requests_blocked: Mapping[str, int] = field(default_factory=dict)
    proxy_refusals: Mapping[str, int] = field(default_factory=dict)
    requests: int = 0
    bytes_received: int = 0
    timings: Mapping[str, float] = field(default_factory=dict)


class _Read(ReadState):
    """The steps of one render: context, navigation, settle, scroll, snapshot, close."""

    def __init__(self, pool: BrowserPool, lease: Lease, target: Target, nav_url: str, deadline: float) -> None:
        super().__init__(pool, lease, target, nav_url, deadline)
        self.scrolled = ScrollOutcome(0, False)
        # Frames the page had when its loading was stopped at the frame bound (0: not stopped), and the
        # browser's word that it passed the bound (see _on_frames).
        self.frames_stopped = 0
        self.frames_hit = anyio.Event()
        # Frame insertions the page's init script refused past the bound (see init_script.js, capFrames).
        self.frames_refused = 0

    # -- the read ---------------------------------------------------------------------------
    async def run(self) -> RenderedPage:
        started = anyio.current_time()
        instance = self.lease.instance
        instance.dead_callbacks.add(self._on_browser_dead)
        try:
            with anyio.CancelScope(deadline=self.deadline) as scope:
                self.scope = scope
                try:
                    page = await self._open()
                    result = await self._navigate_and_read(page)
                except PagewardenError as exc:
                    raise (self.stop_error or exc) from None
                except PlaywrightError as exc:
                    raise self._fail(exc) from None
                self.timings["total"] = self._ms(started)
                finished = self._finish(result)
                self.succeeded = True
                return finished
            # Only a stop (budget, crash) or our own deadline gets here.
            if self.stop_error is not None:
                raise self.stop_error
            raise self._deadline_error()
        finally:
            instance.dead_callbacks.discard(self._on_browser_dead)
            await self._close()

    async def _open(self) -> Page:
        begun = anyio.current_time()
        fresh, prewarmed = await self.lease.fresh_context()
        self.fresh = fresh
        hooks = ReadHooks(self.guard, on_crash=self._on_crash, on_request=self._on_request,
                          on_response=self._on_response, on_frames=self._on_frames)
        page = fresh.attach(hooks, deadline=self.deadline)
        fresh.session.on_fault = self._on_proxy_fault
        self.timings["queue"] = round(self.lease.waited * 1000, 1)
        self.timings["context"] = self._ms(begun)
        self.timings["prewarmed"] = 1.0 if prewarmed else 0.0
        if page.is_closed() or fresh.crashed:
            # The renderer went away between the check and the attach.
            raise crashed(renderer=True, url=self.target.url)
        return page

    async def _navigate_and_read(self, page: Page) -> tuple[Response, Snapshot]:
        response = await self._navigate(page)
        # The page has its document: the browser prepares the next read's context while this one
        # settles. (Measured back to back on 2 cores: started at DOMContentLoaded the spare is ready
        # for the next read, ~15 ms faster per read than starting it once the page is quiet; started
        # before navigation it slows this read's own loading by ~35 ms.)
        self.lease.warm_next()
        await self._watching_frames(self._settle_and_scroll)
        # A meta refresh or script navigation may have replaced the document.
        last = self.main_response or response
        if last is not response:
            self._check_response(last)
        snap = await self._watching_frames(lambda: self._snapshot(page))
        if snap is None:
            # Cut at the frame bound: the page is stopped now (its running script terminated, the snapshot's
            # own with it if it was running), so the snapshot is taken again.
            snap = await self._snapshot(page)
        if self.stop_error is not None:
            raise self.stop_error
        try:
            parse_target(snap.final_url, self.pool.reader_config)
        except PagewardenError:
            raise self._proxy_refusal() or UnsafeURL(
                "the page navigated to an address that cannot be read",
                reason="browser_final_url_refused",
                url=self.target.url,
                stage="snapshot",
            ) from None
        return last, snap

    async def _navigate(self, page: Page) -> Response:
        """Go to the URL and wait for DOMContentLoaded, watching the DOM bound meanwhile."""
        self.stage = "navigation"
        begun = anyio.current_time()
        timeout_ms = min(self.policy.navigation_timeout, self._time_left()) * 1000
        failed: PlaywrightError | None = None
        response: Response | None = None
        async with anyio.create_task_group() as watch:
            with anyio.CancelScope() as loading:
                watch.start_soon(self._watch_dom_size, loading)
                watch.start_soon(self._watch_frames, loading)
                try:
                    response = await page.goto(self.nav_url, wait_until="domcontentloaded", timeout=timeout_ms)
                except PlaywrightError as exc:
                    failed = exc  # raised below, outside the task group (which would wrap it in a group)
                finally:
                    watch.cancel_scope.cancel()
        if failed is not None:
            raise failed
        self.timings["navigation"] = self._ms(begun)
        if response is None and self.frames_stopped:
            # The frame bound stopped the document's loading, so DOMContentLoaded will not come: the
            # document's own response is the navigation's.
            response = self.main_response
        if response is None:
            raise self._fail(PlaywrightError("no response for the main document"))
        self._check_response(response)
        return response

    async def _watch_dom_size(self, loading: anyio.CancelScope) -> None:
        """While the page loads: stop the read once a probe counts more elements than allowed.

        The isolated-world observer (:mod:`.observer`) notices the bound as the DOM is built and
        hides the document; this watch reports it even when DOMContentLoaded never comes. It
        starts late enough that an ordinary page has its document before the first probe. When the
        observer stopped the document's loading at the frame bound, the wait for DOMContentLoaded
        (``loading``) ends here and the read goes on with what was parsed.
        """
        await anyio.sleep(_DOM_WATCH_START)
        probe = self._probe()
        while True:
            sample = None
            with anyio.move_on_after(_DOM_WATCH_PROBE):
                sample = await probe.sample()
            if sample is not None and sample.elements > self.policy.max_dom_nodes:
                self._stop(self._dom_error())
                return
            stopped = sample.frames_stopped if sample is not None else 0
            if (stopped or self.frames_hit.is_set()) and self.main_response is not None:
                self.frames_stopped = self.frames_stopped or stopped
                loading.cancel()
                return
            await anyio.sleep(_DOM_WATCH_EVERY)

    def _on_frames(self, count: int) -> None:
        """The browser attached more than :data:`MAX_FRAMES` frames to the page: the read stops it and reads it."""
        self.frames_stopped = self.frames_stopped or count
        self.frames_hit.set()

    async def _stop_scripts(self) -> None:
        """Stop the page's scripts and loading (:meth:`.fresh.FreshContext.stop_scripts`), within the deadline."""
        if self.fresh is not None and not self.fresh.scripts_stopped:
            await self.fresh.stop_scripts(timeout=min(_STOP_WAIT, self._time_left() - _CLEANUP_RESERVE))

    async def _watch_frames(self, loading: anyio.CancelScope) -> None:
        """While the page loads: at the frame bound, stop the page and end the wait for DOMContentLoaded."""
        await self.frames_hit.wait()
        await self._stop_scripts()
        # The stop keeps DOMContentLoaded from coming. The document's own response comes ahead of its frames;
        # should it not be known yet, the DOM watch ends the wait once it is.
        if self.main_response is not None:
            loading.cancel()

    async def _watching_frames(self, step: Callable[[], Awaitable[_T]]) -> _T | None:
        """Run ``step`` while watching the frame bound; at the bound, stop the page and cut the step (``None``).

        A page stopped at the bound runs no script and loads nothing more: settle and scroll have nothing
        left to wait for, and a snapshot that the page's frames were starving is taken again at once.
        """
        if self.frames_hit.is_set():
            await self._stop_scripts()
            return None
        result: list[_T] = []
        failed: Exception | None = None
        async with anyio.create_task_group() as tasks:

            async def watch() -> None:
                await self.frames_hit.wait()
                await self._stop_scripts()
                tasks.cancel_scope.cancel()

            tasks.start_soon(watch)
            try:
                result.append(await step())
            except Exception as exc:
                failed = exc  # raised below, outside the task group (which would wrap it in a group)
            tasks.cancel_scope.cancel()
        if failed is not None:
            raise failed
        return result[0] if result else None

    def _probe(self) -> DomProbe:
        if self.fresh is None:  # pragma: no cover - set by _open
            raise self._fail(PlaywrightError("no browser context"))
        return self.fresh.probe()

    async def _settle_and_scroll(self) -> None:
        """Settle, then scroll content that loads as it scrolls into view (bounded by the policy)."""
        policy, fresh = self.policy, self.fresh
        if fresh is None:  # pragma: no cover - set by _open
            raise self._fail(PlaywrightError("no browser context"))
        self.stage = "settle"
        begun = anyio.current_time()
        probes = [fresh.probe(), fresh.probe()]
        await settle(
            probes[0],
            lambda: fresh.inflight,
            max_time=min(policy.settle_time, self._time_left()),
            quiet=policy.settle_quiet,
            max_nodes=policy.max_dom_nodes,
            network_since=lambda: fresh.network_at,
            idle=policy.settle_idle,
        )
        self.timings["settle"] = self._ms(begun)
        self.stage = "scroll"
        begun = anyio.current_time()
        self.scrolled = await scroll_for_lazy_content(
            probes[1],
            lambda: fresh.inflight,
            max_steps=policy.scroll_steps,
            max_time=min(policy.scroll_time, self._time_left() - _CLEANUP_RESERVE - policy.snapshot_timeout / 2),
            quiet=policy.settle_quiet,
            idle=policy.settle_idle,
            max_nodes=policy.max_dom_nodes,
            network_since=lambda: fresh.network_at,
        )
        self.timings["scroll"] = self._ms(begun)
        self.timings["scroll_steps"] = float(self.scrolled.steps)
        # Frames the init script refused past the bound (read with the page's pending-work count).
        self.frames_refused = max(probe.frames_refused for probe in probes)

    def _snapshot_room(self) -> float:
        # The snapshot's clean-up after a timeout (detaching its CDP session) and our context close
        # still need a moment; leave it, so a stuck page ends the read by its deadline, not after.
        room = self.deadline - anyio.current_time() - _CLEANUP_RESERVE
        if room <= _MIN_SNAPSHOT_TIME:
            raise self._deadline_error()
        return room

    async def _snapshot(self, page: Page) -> Snapshot:
        policy = self.policy
        self.stage = "snapshot"
        begun = anyio.current_time()
        # The DOM bound, checked once more before the snapshot walks the page: settle's probes can all
        # miss on a page busy building a huge DOM, and the walk would then run into its timeout first.
        await self._check_dom_size(min(_DOM_CHECK_TIMEOUT, self._snapshot_room() / 4))
        room = self._snapshot_room()
        try:
            snap = await snapshot(
                page,
                max_nodes=policy.max_dom_nodes,
                max_html_chars=policy.max_html_chars,
                timeout=min(policy.snapshot_timeout, room),
                cdp=self.fresh.cdp if self.fresh is not None else None,
            )
        except GuardFailed as exc:
            # Cut short by the read's deadline rather than by its own timeout: report the deadline.
            if exc.reason == "visibility_timeout" and room < policy.snapshot_timeout:
                raise self._deadline_error() from None
            if exc.reason == "visibility_timeout":
                # A walk that ran out of time over a DOM past the bound is the bound's failure.
                await self._check_dom_size(min(_DOM_CHECK_TIMEOUT, self._time_left() - _CLEANUP_RESERVE))
            raise
        self.timings["snapshot"] = self._ms(begun)
        return snap

    async def _check_dom_size(self, timeout: float) -> None:
        """Raise ``browser_dom_too_large`` when one probe (within ``timeout``) counts more elements than allowed."""
        if self.fresh is None or timeout <= 0:
            return
        with anyio.move_on_after(timeout):
            sample = await self.fresh.probe().sample()
            if sample is not None and sample.elements > self.policy.max_dom_nodes:
                raise self._dom_error()
            if sample is not None and sample.frames_stopped and not self.frames_stopped:
                # Frames made by the page's scripts after DOMContentLoaded: the stop came too late to keep
                # the parser from anything, but the read is marked and its page ended all the same.
                self.frames_stopped = sample.frames_stopped

    def _finish(self, result: tuple[Response, Snapshot]) -> RenderedPage:
        response, snap = result
        limitations = list(BROWSER_LIMITATIONS)
        if self.pool.config.remote:
            limitations.append(_REMOTE)
        elif self.pool.config.external_sandbox:
            limitations.append(_NO_SANDBOX)
        limitations.extend(snap.limitations)
        if self.scrolled.truncated:
            limitations.append(_SCROLL_CUT)
        if self.frames_stopped or self.frames_refused:
            limitations.append(_FRAMES_CUT)
        refusals = self.fresh.session.ledger.by_reason if self.fresh is not None else {}
        self.timings["launched"] = 1.0 if self.lease.launched else 0.0
        return RenderedPage(
            url=self.nav_url,
            final_url=snap.final_url,
            status=response.status,
            content_type=media_type(response),
            html=snap.html,
            node_count=snap.node_count,
            truncated=snap.truncated or self.scrolled.truncated or self.frames_stopped > 0 or self.frames_refused > 0,
            limitations=tuple(dict.fromkeys(limitations)),
            requests_blocked=self.guard.blocked_counts(),
            proxy_refusals=refusals,
            requests=self.guard.requests,
            bytes_received=self.guard.bytes,
            timings=dict(self.timings),
        )

    async def _close(self) -> None:
        """Close the context and revoke the proxy credentials (in the background when possible)."""
        if self.fresh is not None:
            self.fresh.session.on_fault = None
            # A page that failed its read or still has requests in flight may go on loading for
            # seconds: its renderer is ended rather than torn down.
            busy = self.fresh.inflight > 0
            # A page stopped at the frame bound may still be making frames from its scripts.
            stop_page = busy or not self.succeeded or self.frames_stopped > 0
            # A failed read's page, or one stopped at the frame bound, keeps the browser busy for a moment
            # as it is torn down: the read waits for that (within its deadline; a successful read keeps
            # half of what is left for the guard and extraction), so that the next read starts on a
            # browser that is done with this page. An ordinary read's close stays in the background.
            wait = 0.0
            if not self.succeeded or self.frames_stopped:
                room = self.deadline - anyio.current_time() - _CLOSE_MARGIN
                wait = min(CLOSE_TIMEOUT, room if not self.succeeded else room / 2)
            await self.lease.instance.release_context(self.fresh, stop_page=stop_page, wait=wait)


async def render(pool: BrowserPool, url: str, *, deadline: float | None = None) -> RenderedPage:
    """Render ``url`` in a fresh context of ``pool`` and snapshot it with visibility marks.

    Args:
        pool: the browser pool (its config, policy and reader config apply).
        url: an ``http``/``https`` URL; the fragment is kept for the navigation.
        deadline: an ``anyio.current_time()`` value the render must finish by,
            in addition to any cancel scope of the caller.

    Raises:
        UnsafeURL: the URL, a redirect hop or the final URL is refused (by
            intake or by the egress proxy, ``reason`` from the address policy).
        RateLimited: ``browser_queue_full``.
        ConfigMissing: no usable browser (``chromium_not_found``,
            ``sandbox_unavailable_as_root``, ...) or the pool is closed.
        Timeout: ``browser_navigation_timeout`` or ``browser_deadline``.
        NetworkError: ``browser_crashed``, ``browser_renderer_crashed``, ``browser_net_*`` (retryable).
        UpstreamHTTP: a non-2xx main document.
        UnsupportedContentType: not HTML, or a download.
        ResponseTooLarge: ``browser_request_budget``, ``browser_byte_budget``,
            ``browser_dom_too_large``, or a snapshot budget.
        GuardFailed: the visibility snapshot failed.
        ContentInsufficient: the rendered document holds no text at all.
    """
    target = parse_target(url, pool.reader_config)
    nav_url = target.url if target.fragment is None else f"{target.url}#{target.fragment}"
    limit = anyio.current_effective_deadline()
    if deadline is not None:
        limit = min(limit, deadline)
    async with pool.lease() as lease:
        return await _Read(pool, lease, target, nav_url, limit).run()
