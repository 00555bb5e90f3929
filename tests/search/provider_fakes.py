"""Scripted search providers for the search tests (no network).

``ScriptedProvider`` answers each call with the next scripted step: a list of
``RawHit`` (returned), an exception instance (raised) or a number (sleep that
many seconds, then return no hits). The last step repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio

from pagewarden._search.types import RawHit, SearchQuery

__all__ = ["ScriptedProvider", "hits"]

Step = Sequence[RawHit] | BaseException | float | object


def hits(*urls: str) -> list[RawHit]:
    """Plain hits for ``urls`` with generic titles and snippets."""
    return [RawHit(url=url, title=f"Title {i}", snippet=f"Snippet {i}") for i, url in enumerate(urls, 1)]


class ScriptedProvider:
    """A provider that replays ``steps``; ``calls`` counts the calls, ``deadlines`` records them."""

    def __init__(self, name: str, *steps: Step) -> None:
        self.name = name
        self.steps = list(steps) or [[]]
        self.calls = 0
        self.deadlines: list[float] = []
        self.queries: list[SearchQuery] = []

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Replay the next step."""
        self.queries.append(query)
        self.deadlines.append(deadline)
        index = min(self.calls, len(self.steps) - 1)
        self.calls += 1
        step = self.steps[index]
        if isinstance(step, int | float) and not isinstance(step, bool):
            await anyio.sleep(step)
            return []
        if isinstance(step, BaseException):
            raise step
        return step  # type: ignore[return-value]
