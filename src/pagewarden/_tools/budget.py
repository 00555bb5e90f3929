"""Per-session tool budgets, so a looping agent cannot run away.

A :class:`ToolBudget` caps how many calls one toolset (one MCP session) may
make: network fetches (``fetch_content``), searches (``web_search``) and
continuations (``fetch_more``, which never touches the network and so has
its own, larger cap). A call is counted once its arguments are valid, whether
it then succeeds or fails: retrying a failing URL in a loop spends budget too.
Over budget is a ``RATE_LIMITED`` tool error with ``retryable=false``: the
session's budget does not refill.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import InvalidInput, RateLimited

__all__ = ["BudgetCounter", "ToolBudget"]

_MAX = 1_000_000


def _check(name: str, value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX:
        raise InvalidInput(f"{name} must be None or an integer in 0..{_MAX}", reason=f"invalid_{name}")


@dataclass(frozen=True, slots=True)
class ToolBudget:
    """How many tool calls one session may make; ``None`` means no cap.

    Attributes:
        max_fetches: ``fetch_content`` calls (each one reads the network).
        max_searches: ``web_search`` calls.
        max_continuations: ``fetch_more`` calls (served from memory).
    """

    max_fetches: int | None = 50
    max_searches: int | None = 20
    max_continuations: int | None = 200

    def __post_init__(self) -> None:
        _check("max_fetches", self.max_fetches)
        _check("max_searches", self.max_searches)
        _check("max_continuations", self.max_continuations)

    def limit_for(self, tool: str) -> int | None:
        """The cap that applies to ``tool``."""
        return {
            "fetch_content": self.max_fetches,
            "web_search": self.max_searches,
            "fetch_more": self.max_continuations,
        }.get(tool)


class BudgetCounter:
    """Counts a session's calls against a :class:`ToolBudget`."""

    def __init__(self, budget: ToolBudget) -> None:
        self.budget = budget
        self.used: dict[str, int] = {}

    def spend(self, tool: str) -> None:
        """Count one call of ``tool``.

        Raises:
            RateLimited: the session's cap for ``tool`` is reached
                (``reason="tool_budget_exhausted"``, not retryable).
        """
        limit = self.budget.limit_for(tool)
        used = self.used.get(tool, 0)
        if limit is not None and used >= limit:
            raise RateLimited(
                f"the session budget of {limit} {tool} calls is spent", reason="tool_budget_exhausted", retryable=False
            )
        self.used[tool] = used + 1
