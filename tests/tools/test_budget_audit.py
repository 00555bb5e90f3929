"""Session budgets and the JSONL audit log of the toolset."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import pagewarden
from pagewarden import InvalidInput
from pagewarden._search.types import RawHit
from pagewarden._tools import ToolBudget, toolset_for
from tests.support.server import FixtureServer
from tests.tools import pages
from tests.tools.fakes import FakeSearchProvider

# (budget, tool, calls that succeed before RATE_LIMITED)
BUDGET_CASES = [
    (ToolBudget(max_fetches=2), "fetch_content", 2),
    (ToolBudget(max_fetches=0), "fetch_content", 0),
    (ToolBudget(max_searches=1), "web_search", 1),
    (ToolBudget(max_continuations=3), "fetch_more", 3),
]


def _reader(server: FixtureServer) -> pagewarden.AsyncReader:
    server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    server.add("/injection", headers=pages.HTML, body=pages.INJECTION.encode())
    hits = [RawHit(url="https://example.org/a", title="Glaciers", snippet="How ice moves")]
    return pagewarden.AsyncReader(
        unsafe_allow_destinations=(server.host_port,), default_render="never", search=FakeSearchProvider(hits)
    )


@pytest.mark.anyio
@pytest.mark.parametrize(("budget", "tool", "allowed"), BUDGET_CASES)
async def test_budget_exhausted_is_rate_limited(fixture_server: FixtureServer, budget: ToolBudget, tool: str,
                                                allowed: int) -> None:
    """After its cap a tool answers RATE_LIMITED with retryable false, counting only that tool's calls."""
    async with _reader(fixture_server) as reader:
        toolset = toolset_for(reader, budget=budget)
        cursor = None
        if tool == "fetch_more":
            page = await toolset.execute("fetch_content", {"url": fixture_server.url("/long"), "max_characters": 200})
            cursor = page["cursor"]
        choices: dict[str, dict[str, Any]] = {
            "fetch_content": {"url": fixture_server.url("/long")},
            "web_search": {"query": "glaciers"},
            "fetch_more": {"cursor": cursor},
        }
        arguments = choices[tool]
        for _ in range(allowed):
            assert "error" not in await toolset.execute(tool, arguments)
        refused = await toolset.execute(tool, arguments)
        assert refused["error"]["code"] == "RATE_LIMITED"
        assert refused["error"]["reason"] == "tool_budget_exhausted"
        assert refused["error"]["retryable"] is False
        assert toolset.budget_used.get(tool, 0) == allowed


@pytest.mark.anyio
async def test_failed_calls_spend_budget_invalid_ones_do_not(fixture_server: FixtureServer) -> None:
    """A fetch that fails still counts; a call refused for its arguments does not."""
    async with _reader(fixture_server) as reader:
        toolset = toolset_for(reader, budget=ToolBudget(max_fetches=1))
        assert (await toolset.execute("fetch_content", {"url": 3}))["error"]["code"] == "INVALID_INPUT"
        failed = await toolset.execute("fetch_content", {"url": fixture_server.url("/missing")})
        assert failed["error"]["code"] == "UPSTREAM_HTTP"
        again = await toolset.execute("fetch_content", {"url": fixture_server.url("/long")})
        assert again["error"]["code"] == "RATE_LIMITED"


@pytest.mark.parametrize("field", ["max_fetches", "max_searches", "max_continuations"])
@pytest.mark.parametrize("value", [-1, True, 1.5, "3"])
def test_budget_rejects_bad_values(field: str, value: object) -> None:
    """Budget caps must be None or non-negative integers."""
    with pytest.raises(InvalidInput):
        ToolBudget(**{field: value})  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize("target", ["path", "stream"])
async def test_audit_log_lines_hold_no_page_text(fixture_server: FixtureServer, tmp_path: Path, target: str) -> None:
    """One JSON line per call with tool, redacted URL or query, decision, error code and durations; no page text."""
    stream = io.StringIO()
    log_path = tmp_path / "audit.jsonl"
    async with _reader(fixture_server) as reader:
        toolset = toolset_for(reader, audit_log=str(log_path) if target == "path" else stream)
        page = await toolset.execute(
            "fetch_content", {"url": fixture_server.url("/long") + "?topic=hunter2#frag", "max_characters": 500}
        )
        await toolset.execute("fetch_more", {"cursor": page["cursor"]})
        await toolset.execute("fetch_content", {"url": fixture_server.url("/injection")})
        await toolset.execute("web_search", {"query": "glaciers\nforged line"})
        await toolset.execute("nope", {})
    text = log_path.read_text() if target == "path" else stream.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["tool"] for line in lines] == ["fetch_content", "fetch_more", "fetch_content", "web_search", "nope"]
    fetch, more, denied, search, unknown = lines
    assert fetch["outcome"] == "ok" and fetch["decision"] == "allow" and fetch["characters"] > 0
    assert fetch["render"] == "never"  # null render: the reader's default_render
    assert fetch["url"].endswith("/long?topic=…")
    assert more["outcome"] == "ok" and more["url"] == fetch["url"]
    assert denied["error_code"] == "GUARD_DENIED" and "instruction_override" in denied["categories"]
    assert search["query"] == "glaciers forged line" and search["hits"] == 1
    assert unknown["error_code"] == "INVALID_INPUT"
    for line in lines:
        assert line["duration_ms"] >= 0 and line["time"].endswith("+00:00")
    for forbidden in (pages.SECRET_WORD, "hunter2", "frag", "INJECTION_TEXT_MARKER", "glaciers advance",
                      "How glaciers shape valleys"):
        assert forbidden not in text


def test_audit_log_rejects_non_writable() -> None:
    """An audit_log that is neither a path nor writable is INVALID_INPUT."""
    with pytest.raises(InvalidInput):
        toolset_for(pagewarden.AsyncReader(), audit_log=42)  # type: ignore[arg-type]
