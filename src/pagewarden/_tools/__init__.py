"""Model-facing tools: definitions for the model APIs, a safe executor, and the MCP server.

``toolset_for(reader)`` builds a :class:`Toolset` (``web_search``,
``fetch_content``, ``fetch_more``); :class:`SyncToolset` is its blocking twin
for :class:`pagewarden.Reader`; :func:`mcp_main` runs ``pagewarden mcp``. The
MCP SDK is imported only when :func:`mcp_main` runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .budget import ToolBudget
from .schemas import TOOL_SPECS, ToolSpec
from .sync import SyncToolset
from .toolset import Toolset, toolset_for

__all__ = ["TOOL_SPECS", "SyncToolset", "ToolBudget", "ToolSpec", "Toolset", "mcp_main", "toolset_for"]


def mcp_main(argv: Sequence[str] | None = None) -> int:
    """Run the stdio MCP server (``pagewarden mcp``); returns the exit code (2 when the MCP SDK is missing)."""
    try:
        from .mcp_server import main
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        sys.stderr.write("pagewarden mcp: the 'mcp' package is not installed (pip install mcp)\n")
        return 2
    return main(argv)
