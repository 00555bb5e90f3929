"""Waiting for a rendered page to settle after DOMContentLoaded.

Client-rendered pages fetch their content and build the DOM after
DOMContentLoaded. :func:`settle` waits until the page is quiet (no request in
flight and no change to the DOM's nodes or text for ``quiet`` seconds) or
``max_time`` has passed, whichever comes first, and stops the read early when
the DOM grows beyond the node budget.

The DOM signal comes from the isolated-world observer of :mod:`.observer`
(installed as each document is created, see :mod:`.fresh`; where it is
missing, the first probe installs it), which also holds the node bound. Each
probe is one ``Runtime.evaluate`` returning the element count and the
milliseconds since the last change, so the quiet window is measured from the
last change itself rather than from a coarse poll, and the next probe is
timed for the moment the window would close. Network quiet is measured the
same way, from the time the last request started or ended. A probe that cannot run (the main thread is
busy, the document was replaced) counts as "not quiet".

Two windows. ``quiet`` (the policy's ``settle_quiet``) settles a page whatever
it has scheduled. The shorter ``idle`` (``settle_idle``) settles it once the
page also has nothing pending: no timeout up to the settle time, animation
frame or idle callback scheduled and not yet run, and no fetch or
XMLHttpRequest of the page's script unfinished (counted in the page, where the
call happens, because the browser's request event reaches pagewarden a moment
later). The count comes from the init
script's wrappers in the page's own world (:meth:`DomProbe.pending`), read
only when the DOM and network have been quiet for ``idle``. It is the page's
word: a page that fakes it only ends its own settle earlier (with less of its
own content) or later (up to ``max_time``); the observer, the budgets and the
snapshot do not depend on it. Most client-rendered pages build their content
from a fetch response and then schedule nothing, so they settle ``idle``
after their last change instead of ``quiet``.

Lazy content (:func:`scroll_for_lazy_content`): after settling, a page that
set up lazy-loading hooks (the init script counts IntersectionObserver
targets and scroll/wheel listeners on the window and document, read like the
pending count) is scrolled one viewport at a time from the isolated world;
each step lets two animation frames pass so the page's observer callbacks
run, then settles again. Scrolling stops at the bottom of the page or at the
policy's bounds (``scroll_steps``, ``scroll_time``); stopped by a bound with
more page below, the render is truncated. A page without hooks is not
scrolled, so a static page pays one probe.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import anyio
from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from .._errors import ResponseTooLarge
from .observer import probe_expression

__all__ = ["DomProbe", "DomSample", "ScrollOutcome", "scroll_for_lazy_content", "settle"]

# Longest and shortest pause between probes: the node budget is checked at least every _MAX_POLL.
_MAX_POLL: Final = 0.1
_MIN_POLL: Final = 0.01
# Pause between probes while the page is quiet but has work pending (a timer may fire any moment).
_PENDING_POLL: Final = 0.02
_PROBE_TIMEOUT: Final = 0.5
# One scroll step, in the isolated world. It first lets two animation frames and a task pass, so the page's
# IntersectionObserver and scroll callbacks for the current position have run (content that appeared during
# the last settle gets its reveal), then answers [0, height] when the viewport shows the bottom of the
# document, or scrolls one viewport down, lets frames pass again and answers [1, height]. With move false it
# stops after the first wait and answers whether there is more page below ([1, height]) or not.
_SCROLL_STEP: Final = """(async (move) => {
  const frames = () => new Promise(
    (done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))));
  await frames();
  const se = document.scrollingElement || document.documentElement;
  if (!se) return [0, 0];
  const height = Math.max(se.scrollHeight, document.body ? document.body.scrollHeight : 0);
  if (window.scrollY + window.innerHeight >= height - 2) return [0, height];
  if (!move) return [1, height];
  window.scrollBy(0, window.innerHeight);
  await frames();
  return [1, height];
})(%s)"""
# Longest wait for one scroll step's frames (a page busy in a long task delays them).
_SCROLL_STEP_TIMEOUT: Final = 0.4
@dataclass(frozen=True, slots=True)
class DomSample:
    """One probe: the element count, the seconds since the DOM last changed, and the frames at a stop.

    ``frames_stopped`` is 0 unless the observer stopped the document's loading at the frame bound
    (:data:`.observer.MAX_FRAMES`); then it is the number of frames the document had at that moment.
    """

    elements: int
    unchanged_for: float
    frames_stopped: int = 0


class DomProbe:
    """Watches the main frame's DOM for changes from an isolated world (see the module docstring).

    Args:
        cdp: a CDP session of the page.
        world_name: the world :func:`.observer.observer_source` was registered in, so
            probes read the observer installed at document creation; ``None``
            makes a new world whose observer starts at the first probe.
        pending_name: the page-world global of the init script's pending-work
            count; ``None``: unknown, :meth:`pending` answers ``None``.
        max_nodes: the node bound of an observer the probe installs itself (the
            registered one carries its own); ``None``: none.
    """

    def __init__(
        self,
        cdp: CDPSession,
        world_name: str | None = None,
        pending_name: str | None = None,
        max_nodes: int | None = None,
    ) -> None:
        self._cdp = cdp
        self._expression = probe_expression(max_nodes)
        self._world_name = world_name
        self._pending_name = pending_name
        # The lazy-loading hook count read along with the last pending count (one round trip for both).
        self._lazy: int | None = None
        # Frame insertions the init script refused past the frame bound, as of the last main-world read.
        self.frames_refused = 0
        self._frame_id: str | None = None
        self._context_id: int | None = None

    async def _world(self) -> int:
        if self._context_id is None:
            if self._frame_id is None:
                tree = await self._cdp.send("Page.getFrameTree")
                self._frame_id = str(tree["frameTree"]["frame"]["id"])
            world = await self._cdp.send(
                "Page.createIsolatedWorld",
                {
                    "frameId": self._frame_id,
                    # The same name gives the same world (Chromium keeps one per name and frame).
                    "worldName": self._world_name or f"pagewarden-settle-{secrets.token_hex(4)}",
                    # "Univeral" is CDP's own spelling.
                    "grantUniveralAccess": False,
                },
            )
            self._context_id = int(world["executionContextId"])
        return self._context_id

    async def sample(self) -> DomSample | None:
        """The current sample, or ``None`` when it cannot be read right now."""
        try:
            context_id = await self._world()
            result: dict[str, Any] = await self._cdp.send(
                "Runtime.evaluate",
                {
                    "expression": self._expression,
                    "contextId": context_id,
                    "returnByValue": True,
                    "timeout": int(_PROBE_TIMEOUT * 1000),
                },
            )
        except PlaywrightError:
            # A new document destroyed the world (or, rarely, the main frame changed): start over.
            self._context_id = None
            self._frame_id = None
            return None
        value = result.get("result", {}).get("value")
        if (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        ):
            return DomSample(value[0], value[1] / 1000, value[2])
        return None

    async def lazy_signals(self) -> int | None:
        """How many lazy-loading hooks the page set up (observed elements, scroll listeners); ``None``: unknown.

        Read from the init script's count in the page's main world, like
        :meth:`pending`; the count read along with the last :meth:`pending`
        call is used when there is one (settling has just ended with it).
        """
        if self._pending_name is None:
            return None
        if self._lazy is not None:
            return self._lazy
        lazy, refused = await self._main_world_counts(self._pending_name + "Lazy", self._pending_name + "Frames")
        self.frames_refused = max(self.frames_refused, refused or 0)
        return lazy

    async def scroll_step(self, move: bool = True) -> bool | None:
        """Scroll one viewport down and let the page react; ``False`` at the bottom, ``None`` when it could not run.

        With ``move=False``, only whether there is more page below the viewport.
        """
        try:
            context_id = await self._world()
            result: dict[str, Any] = await self._cdp.send(
                "Runtime.evaluate",
                {
                    "expression": _SCROLL_STEP % ("true" if move else "false"),
                    "contextId": context_id,
                    "returnByValue": True,
                    "awaitPromise": True,
                    "timeout": int(_SCROLL_STEP_TIMEOUT * 1000),
                },
            )
        except PlaywrightError:
            self._context_id = None
            self._frame_id = None
            return None
        value = result.get("result", {}).get("value")
        if isinstance(value, list) and len(value) == 2 and value[0] in (0, 1):
            return bool(value[0])
        return None

    async def pending(self) -> int | None:
        """Work the page has scheduled or started and not finished (see the module docstring); ``None``: unknown.

        Evaluated in the page's main world (where the init script's wrappers
        live), as a plain call of a non-configurable global; anything but a
        non-negative integer (the page replaced the world, a probe timed out)
        is ``None``, which never counts as idle.
        """
        self._lazy = None
        if self._pending_name is None:
            return None
        pending, self._lazy, refused = await self._main_world_counts(
            self._pending_name, self._pending_name + "Lazy", self._pending_name + "Frames"
        )
        self.frames_refused = max(self.frames_refused, refused or 0)
        return pending

    async def _main_world_counts(self, *global_names: str) -> list[int | None]:
        """Call each named global of the init script in the page's main world (``None``: no usable answer)."""
        unknown: list[int | None] = [None] * len(global_names)
        calls = ", ".join(
            f"(() => {{ try {{ return globalThis[{json.dumps(name)}](); }} catch (e) {{ return -1; }} }})()"
            for name in global_names
        )
        try:
            result: dict[str, Any] = await self._cdp.send(
                "Runtime.evaluate",
                {"expression": f"[{calls}]", "returnByValue": True, "timeout": int(_PROBE_TIMEOUT * 1000)},
            )
        except PlaywrightError:
            return unknown
        values = result.get("result", {}).get("value")
        if not isinstance(values, list) or len(values) != len(global_names):
            return unknown
        return [v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None for v in values]


async def settle(
    probe: DomProbe,
    inflight: Callable[[], int],
    *,
    max_time: float,
    quiet: float,
    max_nodes: int,
    network_since: Callable[[], float] | None = None,
    idle: float | None = None,
) -> bool:
    """Wait for the page to settle; return whether it did (``False``: ``max_time`` ran out).

    Settled means: the DOM unchanged and no request in flight, both for at
    least ``quiet`` seconds, or for at least ``idle`` seconds (when given,
    below ``quiet``) while the page reports nothing pending
    (:meth:`DomProbe.pending` is 0). ``network_since`` gives the ``anyio.current_time()``
    of the last request start or end; without it, network activity is
    sampled at every probe (and counted busy until the first).

    Raises:
        ResponseTooLarge: ``reason="browser_dom_too_large"`` once the element
            count exceeds ``max_nodes``.
    """
    start = anyio.current_time()
    deadline = start + max_time
    network_busy_at = start
    while True:
        sample = None
        with anyio.move_on_after(min(_PROBE_TIMEOUT, max(0.01, deadline - anyio.current_time()))):
            sample = await probe.sample()
        now = anyio.current_time()
        if sample is not None and sample.elements > max_nodes:
            raise ResponseTooLarge(
                f"the rendered page has more than {max_nodes} elements",
                reason="browser_dom_too_large",
                stage="settle",
            )
        if inflight() > 0:
            network_busy_at = now
        elif network_since is not None:
            network_busy_at = network_since()
        if sample is None:
            quiet_for = 0.0
        else:
            quiet_for = min(sample.unchanged_for, now - network_busy_at)
            if quiet_for >= quiet:
                return True
        # Probe again when the window would close if nothing changes meanwhile.
        window = quiet
        if idle is not None and idle < quiet:
            if quiet_for < idle:
                window = idle
            elif await _nothing_pending(probe, deadline):
                return True
            else:
                window = min(quiet, quiet_for + _PENDING_POLL)
        now = anyio.current_time()
        if now >= deadline:
            return False
        pause = min(_MAX_POLL, max(_MIN_POLL, window - quiet_for))
        await anyio.sleep(min(pause, max(0.0, deadline - now)))


async def _nothing_pending(probe: DomProbe, deadline: float) -> bool:
    pending = None
    with anyio.move_on_after(min(_PROBE_TIMEOUT, max(0.01, deadline - anyio.current_time()))):
        pending = await probe.pending()
    return pending == 0


@dataclass(frozen=True, slots=True)
class ScrollOutcome:
    """What :func:`scroll_for_lazy_content` did.

    Attributes:
        steps: viewport steps scrolled.
        truncated: a bound (steps or time) stopped it before the bottom of the page.
    """

    steps: int
    truncated: bool


async def scroll_for_lazy_content(
    probe: DomProbe,
    inflight: Callable[[], int],
    *,
    max_steps: int,
    max_time: float,
    quiet: float,
    idle: float | None,
    max_nodes: int,
    network_since: Callable[[], float] | None = None,
) -> ScrollOutcome:
    """Scroll a page that loads content on scroll, one viewport at a time, settling after each step.

    Only a page with lazy-loading hooks (:meth:`DomProbe.lazy_signals` above
    0) is scrolled. Each step scrolls one viewport down, lets two animation
    frames run (the page's IntersectionObserver callbacks), and settles again
    (:func:`settle`, within what is left of ``max_time``). It stops at the
    bottom of the page, after ``max_steps`` steps or when ``max_time`` is
    spent; stopped by a bound with more page below, the outcome is truncated
    (a page that keeps growing forever ends there).

    Raises:
        ResponseTooLarge: ``browser_dom_too_large``, from :func:`settle`.
    """
    if max_steps <= 0 or max_time <= 0:
        return ScrollOutcome(0, False)
    deadline = anyio.current_time() + max_time
    signals = None
    with anyio.move_on_after(min(_PROBE_TIMEOUT, max_time)):
        for _ in range(3):
            # Unknown (a probe that could not run) is asked again a moment later.
            signals = await probe.lazy_signals()
            if signals is not None:
                break
            await anyio.sleep(0.03)
    if not signals:
        return ScrollOutcome(0, False)
    steps = 0
    while True:
        left = deadline - anyio.current_time()
        if steps >= max_steps or left <= 0:
            return ScrollOutcome(steps, await _more_below(probe))
        moved = None
        with anyio.move_on_after(min(_SCROLL_STEP_TIMEOUT + 0.1, left)):
            moved = await probe.scroll_step()
        if moved is None:
            if anyio.current_time() >= deadline:
                # The time bound cut the step short.
                return ScrollOutcome(steps, await _more_below(probe))
            # The step could not run (a busy page, a new document): what was rendered is read as it is.
            return ScrollOutcome(steps, False)
        if not moved:
            return ScrollOutcome(steps, False)
        steps += 1
        left = deadline - anyio.current_time()
        if left <= 0:
            return ScrollOutcome(steps, await _more_below(probe))
        await settle(
            probe, inflight, max_time=left, quiet=quiet, max_nodes=max_nodes, network_since=network_since,
            idle=idle,
        )


async def _more_below(probe: DomProbe) -> bool:
    more = None
    with anyio.move_on_after(_PROBE_TIMEOUT):
        more = await probe.scroll_step(move=False)
    return more is True
