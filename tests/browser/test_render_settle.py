"""The lean settle: quiet measured from the last change, network quiet, budgets, and an observer pages cannot touch."""

from __future__ import annotations

import anyio
import pytest

from pagewarden._browser.policy import load_policy
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
from pagewarden._browser.routing import init_script
from pagewarden._browser.settle import DomSample, settle
from pagewarden._errors import ResponseTooLarge
from tests.browser.pool_support import HTML, anyio_backend, canary, page, pool, site
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio
__all__ = ["anyio_backend", "canary", "pool", "site"]  # fixtures used by this module

QUIET = 0.05
MAX_TIME = 0.4


class FakeProbe:
    """Answers probes from a script: one entry per probe, the last repeated."""

    def __init__(self, samples: list[DomSample | None], pending: list[int | None] | None = None) -> None:
        self.samples = samples
        self.calls = 0
        self.pending_answers = pending or [None]
        self.pending_calls = 0

    async def sample(self) -> DomSample | None:
        """The next scripted sample."""
        value = self.samples[min(self.calls, len(self.samples) - 1)]
        self.calls += 1
        return value

    async def pending(self) -> int | None:
        """The next scripted pending-work count."""
        value = self.pending_answers[min(self.pending_calls, len(self.pending_answers) - 1)]
        self.pending_calls += 1
        return value


# (id, samples, requests in flight, expected result, most probes allowed)
SETTLE_CASES: list[tuple[str, list[DomSample | None], int, bool, int]] = [
    # Without network_since the network counts as busy until settle started: one more probe.
    ("quiet_at_once", [DomSample(10, 1.0)], 0, True, 2),
    ("quiet_after_change", [DomSample(10, 0.0), DomSample(12, 0.01), DomSample(12, 0.06)], 0, True, 4),
    ("never_readable", [None], 0, False, 60),
    ("always_changing", [DomSample(10, 0.0)], 0, False, 60),
    ("request_in_flight", [DomSample(10, 1.0)], 1, False, 60),
]


@pytest.mark.parametrize(("samples", "inflight", "expected", "most"), [c[1:] for c in SETTLE_CASES],
                         ids=[c[0] for c in SETTLE_CASES])
async def test_settle_decisions(samples: list[DomSample | None], inflight: int, expected: bool, most: int) -> None:
    """settle() returns True once DOM and network are quiet long enough, False when max_time runs out first."""
    probe = FakeProbe(samples)
    started = anyio.current_time()
    settled = await settle(probe, lambda: inflight, max_time=MAX_TIME, quiet=QUIET, max_nodes=100)  # type: ignore[arg-type]
    elapsed = anyio.current_time() - started
    assert settled is expected
    assert probe.calls <= most
    if not expected:
        assert MAX_TIME <= elapsed < MAX_TIME + 0.3


class AgingProbe(FakeProbe):
    """A DOM last changed ``unchanged`` seconds before ``since`` and not since."""

    def __init__(self, unchanged: float, since: float, pending: list[int | None]) -> None:
        super().__init__([None], pending)
        self.changed_at = since - unchanged

    async def sample(self) -> DomSample | None:
        """The DOM's age now."""
        self.calls += 1
        return DomSample(10, anyio.current_time() - self.changed_at)


IDLE = 0.03
# (id, DOM unchanged for (s), pending-work answers, settles before the quiet window)
IDLE_CASES: list[tuple[str, float, list[int | None], bool]] = [
    ("nothing_pending_settles_after_idle", 0.04, [0], True),
    ("timer_pending_waits_for_quiet", 0.04, [1], False),
    ("pending_unknown_waits_for_quiet", 0.04, [None], False),
    ("timer_fires_then_idle", 0.04, [2, 1, 0], True),
]


@pytest.mark.parametrize(("unchanged", "pending", "early"), [c[1:] for c in IDLE_CASES],
                         ids=[c[0] for c in IDLE_CASES])
async def test_idle_window_needs_nothing_pending(unchanged: float, pending: list[int | None], early: bool) -> None:
    """The short idle window settles a quiet page only while it reports no timer or frame pending."""
    quiet = 0.3
    started = anyio.current_time()
    probe = AgingProbe(unchanged, started, pending)
    settled = await settle(
        probe, lambda: 0, max_time=1.0, quiet=quiet, max_nodes=100,  # type: ignore[arg-type]
        network_since=lambda: started - 1, idle=IDLE,
    )
    elapsed = anyio.current_time() - started
    assert settled
    assert (elapsed < quiet / 2) is early
    assert probe.pending_calls >= 1


async def test_settle_counts_quiet_from_the_last_change() -> None:
    """A DOM unchanged for longer than the window settles at the first probe, without waiting a window."""
    probe = FakeProbe([DomSample(10, 0.3)])
    started = anyio.current_time()
    assert await settle(
        probe, lambda: 0, max_time=2.0, quiet=0.2, max_nodes=100, network_since=lambda: started - 1  # type: ignore[arg-type]
    )
    assert anyio.current_time() - started < 0.1
    assert probe.calls == 1


async def test_recent_network_activity_keeps_waiting() -> None:
    """A request that ended just now delays settling until the network has been quiet for the window too."""
    probe = FakeProbe([DomSample(10, 1.0)])
    ended = anyio.current_time()
    started = anyio.current_time()
    settled = await settle(
        probe, lambda: 0, max_time=1.0, quiet=0.15, max_nodes=100, network_since=lambda: ended  # type: ignore[arg-type]
    )
    assert settled
    assert 0.14 <= anyio.current_time() - started < 0.5
    assert probe.calls >= 2


async def test_dom_budget_stops_settling() -> None:
    """An element count over the budget ends the settle with browser_dom_too_large."""
    probe = FakeProbe([DomSample(101, 0.0)])
    with pytest.raises(ResponseTooLarge) as caught:
        await settle(probe, lambda: 0, max_time=1.0, quiet=QUIET, max_nodes=100)  # type: ignore[arg-type]
    assert caught.value.reason == "browser_dom_too_large"


LATE_CONTENT = page(
    "<div id=root></div><script>"
    # The page replaces the main world's observer and clock: the settle observer lives in another world.
    "window.MutationObserver = function () { this.observe = () => {}; this.disconnect = () => {}; };"
    "performance.now = () => 0;"
    "setTimeout(() => { document.getElementById('root').textContent = 'late but settled content'; }, 120);"
    "</script>"
)


@pytest.mark.browser
async def test_late_content_is_waited_for_despite_page_tampering(pool: BrowserPool, site: FixtureServer) -> None:
    """Content added 120 ms after load is in the snapshot though the page replaced MutationObserver and its clock."""
    site.add("/late", headers=HTML, body=LATE_CONTENT)
    rendered = await render(pool, site.url("/late"))
    assert "late but settled content" in rendered.html


@pytest.mark.browser
async def test_settle_observer_invisible_to_the_page(pool: BrowserPool, site: FixtureServer) -> None:
    """The settle observer's state is not visible in the page's own world."""
    site.add(
        "/probe",
        headers=HTML,
        body=page(
            "<p id=out>pending</p><script>setTimeout(() => { document.getElementById('out').textContent ="
            " 'observer state seen by page: ' + (typeof window.__pagewardenSettle); }, 30);</script>"
        ),
    )
    rendered = await render(pool, site.url("/probe"))
    assert "observer state seen by page: undefined" in rendered.html


PENDING_NAME = "__pwPendingUnderTest"
# (id, page script run in the main world, pending count right after it)
PENDING_CASES = [
    ("short_timeout", "setTimeout(() => {}, 100)", 1),
    ("two_timeouts_and_a_frame", "setTimeout(() => {}, 5); setTimeout(() => {}, 50); requestAnimationFrame(() => {})",
     3),
    ("timeout_beyond_settle_time", "setTimeout(() => {}, 100000)", 0),
    ("cleared_timeout", "clearTimeout(setTimeout(() => {}, 100))", 0),
    ("cancelled_frame", "cancelAnimationFrame(requestAnimationFrame(() => {}))", 0),
    ("idle_callback", "requestIdleCallback(() => {})", 1),
    ("cancelled_idle_callback", "cancelIdleCallback(requestIdleCallback(() => {}))", 0),
    ("fetch_in_flight", "fetch('/blank')", 1),
    ("xhr_in_flight", "const x = new XMLHttpRequest(); x.open('GET', '/blank'); x.send()", 1),
    ("refused_fetch_counted_until_settled", "fetch('/blank', {method: 'CONNECT'}).catch(() => {})", 1),
    # Frame and idle-callback ids are separate number spaces that start alike: counted apart.
    ("frame_and_idle_ids_apart", "requestAnimationFrame(() => {}); cancelIdleCallback(requestIdleCallback(() => {}))",
     1),
    ("string_timeout_not_counted", "setTimeout('1 + 1', 10)", 0),
    ("interval_not_counted", "setInterval(() => {}, 10)", 0),
]


@pytest.mark.browser
@pytest.mark.parametrize(("script", "expected"), [c[1:] for c in PENDING_CASES], ids=[c[0] for c in PENDING_CASES])
async def test_init_script_counts_pending_work(
    pool: BrowserPool, site: FixtureServer, script: str, expected: int
) -> None:
    """The init script counts timeouts, frames, idle callbacks and requests until they run, finish or are cancelled."""
    site.add("/blank", headers=HTML, body=page("<p>blank</p>"))
    async with pool.lease() as lease:
        context = await lease.browser.new_context()
        try:
            await context.add_init_script(script=init_script(load_policy("default"), PENDING_NAME))
            tab = await context.new_page()
            await tab.route("**/*", lambda route: route.continue_())
            await tab.goto(site.url("/blank"))
            counted = await tab.evaluate(f"() => {{ {script}; return globalThis.{PENDING_NAME}(); }}")
            # Everything counted runs or finishes; then nothing is pending. Polled for up to 5 s: on a
            # loaded machine a fetch can take longer than a fixed wait, and a leaked count never drains.
            drained = await tab.evaluate(
                f"() => new Promise((done) => {{ const start = Date.now(); const poll = () => {{"
                f" const left = globalThis.{PENDING_NAME}();"
                f" if (left === 0 || Date.now() - start > 5000) done(left); else setTimeout(poll, 50); }};"
                f" setTimeout(() => requestAnimationFrame(() => setTimeout(poll, 150)), 1); }})"
            )
        finally:
            await context.close()
    assert counted == expected
    assert drained == 0  # a running callback no longer counts itself


JSON = {"Content-Type": "application/json"}
# (id, page body) for client-rendered patterns the short idle window must wait for; each ends with "all done".
CLIENT_PATTERNS = [
    (
        "fetch_chain",
        "<div id=root></div><script>"
        "fetch('/a.json').then(r => r.json()).then(a => fetch(a.next)).then(r => r.json())"
        ".then(b => { document.getElementById('root').textContent = b.text; });</script>",
    ),
    (
        "message_channel_scheduler",  # how React's scheduler yields between chunks of work
        "<div id=root></div><script>"
        "const ch = new MessageChannel(); let left = 5;"
        "ch.port1.onmessage = () => { const p = document.createElement('p');"
        " p.textContent = left > 1 ? 'chunk ' + left : 'all done'; document.getElementById('root').append(p);"
        " if (--left > 0) { ch.port2.postMessage(0); } };"
        "fetch('/a.json').then(r => r.json()).then(() => ch.port2.postMessage(0));</script>",
    ),
    (
        "timer_after_fetch",  # a debounce after the data arrives
        "<div id=root></div><script>"
        "fetch('/a.json').then(r => r.json()).then(() => setTimeout(() => {"
        " document.getElementById('root').textContent = 'all done'; }, 60));</script>",
    ),
    (
        "frame_after_fetch",
        "<div id=root></div><script>"
        "fetch('/a.json').then(r => r.json()).then(() => requestAnimationFrame(() => requestAnimationFrame(() => {"
        " document.getElementById('root').textContent = 'all done'; })));</script>",
    ),
]


@pytest.mark.browser
@pytest.mark.parametrize("body", [c[1] for c in CLIENT_PATTERNS], ids=[c[0] for c in CLIENT_PATTERNS])
async def test_idle_window_waits_for_client_rendered_patterns(
    pool: BrowserPool, site: FixtureServer, body: str
) -> None:
    """Fetch chains, MessageChannel scheduling, timers and frames after a fetch all finish before the snapshot."""
    site.add("/a.json", headers=JSON, body=b'{"next": "/b.json"}', delay_before=0.05)
    site.add("/b.json", headers=JSON, body=b'{"text": "all done"}', delay_before=0.05)
    site.add("/app", headers=HTML, body=page(body))
    rendered = await render(pool, site.url("/app"))
    assert "all done" in rendered.html
