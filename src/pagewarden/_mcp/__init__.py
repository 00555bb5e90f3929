"""``pagewarden mcp``: the toolset served over MCP (stdio), an application above the reader.

Modules:
    options: flags, ``PAGEWARDEN_*`` environment variables, and the reader they build.
    server: the stdio server over the official ``mcp`` SDK.

The MCP SDK is imported only when :func:`mcp_main` runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["mcp_main"]


def mcp_main(argv: Sequence[str] | None = None) -> int:
    """Run the stdio MCP server (``pagewarden mcp``); returns the exit code (2 when the MCP SDK is missing)."""
    try:
        from .server import main
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        sys.stderr.write("pagewarden mcp: the 'mcp' package is not installed (pip install mcp)\n")
        return 2
    return main(argv)
