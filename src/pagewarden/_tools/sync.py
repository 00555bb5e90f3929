"""``SyncToolset``: the blocking twin of :class:`Toolset` for :class:`pagewarden.Reader`.

It runs the async executor through a *runner*, a callable that takes a
zero-argument coroutine function and returns its result; ``Reader`` passes
its private event-loop portal (``Reader._call``), so sync tool calls share
the reader's loop, browser and connection policy, and refuse to run inside a
running event loop exactly like ``Reader.read``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from .._errors import PagewardenError
from .canary import CanaryCheck
from .output import tool_error
from .schemas import ToolSpec
from .toolset import Toolset

__all__ = ["Runner", "SyncToolset"]

T = TypeVar("T")
Runner = Callable[[Callable[[], Awaitable[Any]]], Any]

# Misusing the sync API from async code is the developer's bug, not the
# model's: it must surface as an exception, not as a tool result.
_PROGRAMMING_ERRORS = frozenset({"sync_api_in_event_loop"})


class SyncToolset:
    """The same tools and definitions as :class:`Toolset`, with a blocking :meth:`execute`."""

    def __init__(self, toolset: Toolset, runner: Runner) -> None:
        self._toolset = toolset
        self._runner = runner

    @property
    def toolset(self) -> Toolset:
        """The async toolset underneath."""
        return self._toolset

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """See :attr:`Toolset.specs`."""
        return self._toolset.specs

    @property
    def names(self) -> tuple[str, ...]:
        """See :attr:`Toolset.names`."""
        return self._toolset.names

    def openai_responses_definitions(self) -> list[dict[str, Any]]:
        """See :meth:`Toolset.openai_responses_definitions`."""
        return self._toolset.openai_responses_definitions()

    def openai_chat_completions_definitions(self) -> list[dict[str, Any]]:
        """See :meth:`Toolset.openai_chat_completions_definitions`."""
        return self._toolset.openai_chat_completions_definitions()

    def anthropic_definitions(self) -> list[dict[str, Any]]:
        """See :meth:`Toolset.anthropic_definitions`."""
        return self._toolset.anthropic_definitions()

    def bedrock_definitions(self) -> list[dict[str, Any]]:
        """See :meth:`Toolset.bedrock_definitions`."""
        return self._toolset.bedrock_definitions()

    @property
    def canary(self) -> str:
        """See :attr:`Toolset.canary`."""
        return self._toolset.canary

    def check_output(self, text: str) -> CanaryCheck:
        """See :meth:`Toolset.check_output` (no event loop needed: it is local work)."""
        return self._toolset.check_output(text)

    def execute(self, name: str, arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
        """Like :meth:`Toolset.execute`, blocking; a closed reader is a ``CONFIG_MISSING`` tool error."""
        try:
            result: dict[str, Any] = self._runner(partial(self._toolset.execute, name, arguments))
        except PagewardenError as error:
            if error.reason in _PROGRAMMING_ERRORS:
                raise
            return tool_error(error)
        return result
