"""Run ``pagewarden mcp`` with a fake search provider, for the MCP subprocess tests.

Usage: ``python -m tests.tools.mcp_fake_server [pagewarden mcp flags...]``. The
fake provider's hits come from ``PAGEWARDEN_TEST_HITS`` (a JSON list of
``{"url", "title", "snippet"}``). On a clean exit the server writes
``{"exit_code", "playwright_imported"}`` to ``PAGEWARDEN_TEST_STATUS``; a
killed server writes nothing.
"""

from __future__ import annotations

import json
import os
import sys

from pagewarden._mcp.options import McpOptions
from pagewarden._mcp.server import main
from pagewarden._search.types import RawHit
from tests.tools.fakes import FakeSearchProvider


def _factory(options: McpOptions) -> FakeSearchProvider | None:
    if options.search == "none":
        return None
    hits = json.loads(os.environ.get("PAGEWARDEN_TEST_HITS", "[]"))
    return FakeSearchProvider([RawHit(**hit) for hit in hits])


if __name__ == "__main__":
    code = main(sys.argv[1:], search_factory=_factory)
    status = os.environ.get("PAGEWARDEN_TEST_STATUS")
    if status:
        with open(status, "w", encoding="utf-8") as handle:
            json.dump({"exit_code": code, "playwright_imported": "playwright" in sys.modules}, handle)
    sys.exit(code)
