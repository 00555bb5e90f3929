"""Scrolling for lazy content, decided on scripted probes (no browser): when it scrolls, when it stops."""

from __future__ import annotations

from typing import cast

import anyio
import pytest

from pagewarden._browser.settle import DomProbe, DomSample, scroll_for_lazy_content

pytestmark = pytest.mark.anyio


class ScrollProbe:
    """A page of ``viewports`` screens (``None``: endless) with ``signals`` lazy-loading hooks."""

    def __init__(self, signals: int | None, viewports: int | None, step_seconds: float = 0.0) -> None:
        self.signals = signals
        self.viewports = viewports
        self.step_seconds = step_seconds
        self.position = 0
        self.moves = 0

    async def lazy_signals(self) -> int | None:
        """The scripted hook count."""
        return self.signals

    async def scroll_step(self, move: bool = True) -> bool | None:
        """One viewport down unless at the bottom; ``move=False`` only says whether more is below."""
        more = self.viewports is None or self.position + 1 < self.viewports
        if not move or not more:
            return more
        await anyio.sleep(self.step_seconds)
        self.position += 1
        self.moves += 1
        return True

    async def sample(self) -> DomSample | None:
        """A page that has been quiet for a second."""
        return DomSample(10, 1.0)

    async def pending(self) -> int | None:
        """Nothing pending."""
        return 0


# (id, lazy hooks, page height in viewports (None: endless), max steps, expected steps, expected truncated)
SCROLL_CASES: list[tuple[str, int | None, int | None, int, int, bool]] = [
    ("no hooks, not scrolled", 0, 6, 8, 0, False),
    ("unknown hooks, not scrolled", None, 6, 8, 0, False),
    ("short page with hooks", 3, 1, 8, 0, False),
    ("scrolled to the bottom", 3, 4, 8, 3, False),
    ("bottom exactly at the bound", 3, 4, 3, 3, False),
    ("taller than the bound", 3, 20, 5, 5, True),
    ("endless page", 1, None, 8, 8, True),
    ("scrolling turned off", 3, 20, 0, 0, False),
]


@pytest.mark.parametrize(("signals", "viewports", "max_steps", "steps", "truncated"), [c[1:] for c in SCROLL_CASES],
                         ids=[c[0] for c in SCROLL_CASES])
async def test_scroll_decisions(signals: int | None, viewports: int | None, max_steps: int, steps: int,
                                truncated: bool) -> None:
    """Only pages with lazy-loading hooks are scrolled; the bound stops an endless page and marks it truncated."""
    probe = ScrollProbe(signals, viewports)
    outcome = await scroll_for_lazy_content(
        cast(DomProbe, probe), lambda: 0, max_steps=max_steps, max_time=5.0, quiet=0.05, idle=0.01, max_nodes=1000,
    )
    assert (outcome.steps, outcome.truncated) == (steps, truncated)
    assert probe.moves == steps


async def test_time_bound_stops_an_endless_page() -> None:
    """The scroll time bounds the whole scrolling, whatever the step count allows."""
    probe = ScrollProbe(1, None, step_seconds=0.05)
    started = anyio.current_time()
    outcome = await scroll_for_lazy_content(
        cast(DomProbe, probe), lambda: 0, max_steps=100, max_time=0.3, quiet=0.05, idle=0.01, max_nodes=1000,
    )
    assert anyio.current_time() - started < 1.0
    assert outcome.truncated
    assert 1 <= outcome.steps < 100
