"""Model-facing tools: definitions for the model APIs and a safe executor.

``toolset_for(reader)`` builds a :class:`Toolset` (``web_search``,
``fetch_content``, ``fetch_more``); :class:`SyncToolset` is its blocking twin
for :class:`pagewarden.Reader`. The MCP server that serves them is
:mod:`pagewarden._mcp`.
"""

from __future__ import annotations

from .budget import ToolBudget
from .schemas import TOOL_SPECS, ToolSpec
from .sync import SyncToolset
from .toolset import Toolset, toolset_for

__all__ = ["TOOL_SPECS", "SyncToolset", "ToolBudget", "ToolSpec", "Toolset", "toolset_for"]
