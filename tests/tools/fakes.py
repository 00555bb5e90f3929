"""Test doubles for the tool tests: a search provider and a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pagewarden._search.types import RawHit, SearchQuery


@dataclass
class FakeSearchProvider:
    """A :class:`pagewarden.SearchProvider` answering from a fixed list of hits, recording each query."""

    hits: Sequence[RawHit]
    name: str = "fake"
    queries: list[SearchQuery] = field(default_factory=list)

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Return the fixed hits."""
        self.queries.append(query)
        return list(self.hits)


@dataclass(frozen=True)
class ToolCall:
    """One call the scripted model makes: the tool and its arguments as JSON text (as OpenAI sends them)."""

    name: str
    arguments: str | dict[str, Any]


Step = Callable[[list[dict[str, Any]]], ToolCall | None]


class ScriptedModel:
    """A fake model: each step looks at the tool results so far and returns the next call (or None to stop)."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self._steps = list(steps)
        self.results: list[dict[str, Any]] = []

    def next_call(self) -> ToolCall | None:
        """The model's next tool call, or None when it is done."""
        while self._steps:
            call = self._steps.pop(0)(self.results)
            if call is not None:
                return call
        return None

    def observe(self, result: dict[str, Any]) -> None:
        """Receive a tool result (as a model would: the JSON text, parsed back)."""
        self.results.append(json.loads(json.dumps(result)))


def call(name: str, **arguments: Any) -> ToolCall:
    """A ToolCall with ``arguments`` encoded as JSON."""
    return ToolCall(name, json.dumps(arguments))
