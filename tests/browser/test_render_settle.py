"""The lean settle: quiet measured from the last change, network quiet, budgets, and an observer pages cannot touch."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
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

    def __init__(self, samples: list[DomSample | None]) -> None:
        self.samples = samples
        self.calls = 0

    async def sample(self) -> DomSample | None:
        """The next scripted sample."""
        value = self.samples[min(self.calls, len(self.samples) - 1)]
        self.calls += 1
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


async def test_on_quiet_called_once_when_quiet_begins() -> None:
    """on_quiet runs once, at the first quiet probe, not while the page still changes."""
    calls: list[int] = []
    probe = FakeProbe([DomSample(10, 0.0), DomSample(10, 0.01), DomSample(10, 0.02), DomSample(10, 0.2)])
    record: Callable[[], None] = lambda: calls.append(probe.calls)  # noqa: E731
    await settle(probe, lambda: 0, max_time=1.0, quiet=0.1, max_nodes=100, on_quiet=record)  # type: ignore[arg-type]
    assert calls == [2]


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
