"""``pagewarden mcp`` driven by the MCP SDK's own stdio client, in a subprocess."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import pagewarden
from pagewarden._tools import toolset_for
from pagewarden._tools.schemas import TOOL_SPECS
from tests.support.server import FixtureServer
from tests.tools import pages
from tests.tools.fakes import FakeSearchProvider

REPO = Path(__file__).resolve().parents[2]
AS_ROOT = os.geteuid() == 0
STARTUP_SECONDS = 20.0


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _descendants(root: int) -> list[int]:
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    parents = {pid: _ppid(pid) for pid in pids}
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _server_pid() -> int:
    matches = [pid for pid in _descendants(os.getpid()) if "tests.tools.mcp_fake_server" in _cmdline(pid)]
    assert len(matches) == 1, matches
    return matches[0]


def _chromium_under(pid: int) -> list[int]:
    return [child for child in _descendants(pid) if "chrom" in _cmdline(child).lower() and _alive(child)]


@asynccontextmanager
async def _session(server: FixtureServer, tmp_path: Path, *flags: str,
                   hits: list[dict[str, str]] | None = None) -> AsyncIterator[ClientSession]:
    env = {
        "PYTHONPATH": str(REPO),
        "PAGEWARDEN_TEST_HITS": json.dumps(hits or []),
        "PAGEWARDEN_TEST_STATUS": str(tmp_path / "status.json"),
        "PAGEWARDEN_PROFILE": "balanced",
    }
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.tools.mcp_fake_server", "--unsafe-allow-destination", server.host_port, *flags],
        env=env,
        cwd=str(REPO),
    )
    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(STARTUP_SECONDS):
                await session.initialize()
            yield session


def _wait_until_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (alive := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def _status(tmp_path: Path) -> dict[str, Any]:
    # The client waits a grace period for a clean exit before killing; the status file proves a clean exit.
    deadline = time.monotonic() + 10
    path = tmp_path / "status.json"
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    result: dict[str, Any] = json.loads(path.read_text())
    return result


@pytest.mark.anyio
async def test_mcp_session(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """list_tools mirrors the toolset's schemas; each tool answers like the toolset; the server exits cleanly."""
    fixture_server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    fixture_server.add("/injection", headers=pages.HTML, body=pages.INJECTION.encode())
    hits = [{"url": fixture_server.url("/long"), "title": "Glaciers", "snippet": "Ice at work."}]
    audit = tmp_path / "audit.jsonl"
    started = time.monotonic()
    async with _session(fixture_server, tmp_path, "--render", "never", "--audit-log", str(audit),
                        "--max-fetches", "3", hits=hits) as session:
        startup = time.monotonic() - started
        listed = (await session.list_tools()).tools
        assert [tool.name for tool in listed] == [spec.name for spec in TOOL_SPECS]
        local = toolset_for(pagewarden.AsyncReader(search=FakeSearchProvider([])))
        assert [tool.input_schema for tool in listed] == [d["input_schema"] for d in local.anthropic_definitions()]
        assert [tool.description for tool in listed] == [spec.description for spec in TOOL_SPECS]

        async def call(name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
            result = await session.call_tool(name, arguments)
            assert result.structured_content == json.loads(result.content[0].text)  # type: ignore[union-attr]
            return result.is_error, result.structured_content

        error, found = await call("web_search", {"query": "glaciers", "limit": None, "language": None,
                                                 "region": None, "time_range": None})
        assert not error and found["hits"][0]["url"] == fixture_server.url("/long")
        error, page = await call("fetch_content", {"url": found["hits"][0]["url"], "max_characters": 1000})
        assert not error and page["characters"]["end"] <= 1000 and page["cursor"]
        assert page["text"].startswith("<<<PAGEWARDEN_UNTRUSTED_CONTENT nonce=")
        error, more = await call("fetch_more", {"cursor": page["cursor"]})
        assert not error and more["characters"]["start"] == page["characters"]["end"]
        error, denied = await call("fetch_content", {"url": fixture_server.url("/injection")})
        assert error and denied["error"]["code"] == "GUARD_DENIED" and "INJECTION_TEXT_MARKER" not in json.dumps(denied)
        error, invalid = await call("fetch_more", {"cursor": 12})
        assert error and invalid["error"]["code"] == "INVALID_INPUT"
        await call("fetch_content", {"url": fixture_server.url("/long")})
        error, spent = await call("fetch_content", {"url": fixture_server.url("/long")})
        assert error and spent["error"]["code"] == "RATE_LIMITED"
    status = _status(tmp_path)
    assert status == {"exit_code": 0, "playwright_imported": False}
    assert startup < STARTUP_SECONDS
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [line["tool"] for line in lines] == ["web_search", "fetch_content", "fetch_more", "fetch_content",
                                                "fetch_more", "fetch_content", "fetch_content"]
    assert {line.get("render") for line in lines if line["tool"] == "fetch_content"} == {"never"}  # --render never
    assert pages.SECRET_WORD not in audit.read_text()


@pytest.mark.anyio
async def test_real_entry_point_starts_fast_with_ddgs(tmp_path: Path) -> None:
    """The real entry point with the default keyless provider offers web_search and answers quickly."""
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "pagewarden._mcp.server", "--search", "ddgs"], cwd=str(REPO)
    )
    started = time.monotonic()
    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(STARTUP_SECONDS):
                await session.initialize()
                tools = (await session.list_tools()).tools
            elapsed = time.monotonic() - started
    assert [tool.name for tool in tools] == ["web_search", "fetch_content", "fetch_more", "search_read_pages"]
    assert elapsed < STARTUP_SECONDS
    assert (tmp_path / "stderr.txt").read_text() == ""


@pytest.mark.anyio
async def test_mcp_without_search(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """With --search none the server offers no web_search, and calling it is an INVALID_INPUT tool error."""
    async with _session(fixture_server, tmp_path, "--search", "none") as session:
        listed = [tool.name for tool in (await session.list_tools()).tools]
        assert listed == ["fetch_content", "fetch_more", "search_read_pages"]
        result = await session.call_tool("web_search", {"query": "q"})
        assert result.is_error and result.structured_content["error"]["reason"] == "unknown_tool"
    assert _status(tmp_path)["exit_code"] == 0


@pytest.mark.anyio
@pytest.mark.browser
async def test_mcp_browser_shut_down_on_disconnect(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """A render="always" read starts Chromium under the server; after the client disconnects none is left."""
    fixture_server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    flags = ["--timeout", "60", *(["--external-sandbox"] if AS_ROOT else [])]
    async with _session(fixture_server, tmp_path, *flags) as session:
        result = await session.call_tool("fetch_content", {"url": fixture_server.url("/long"), "render": "always"})
        assert not result.is_error, result.structured_content
        chromium = _chromium_under(_server_pid())
        assert chromium  # the check below would be empty otherwise
    assert _status(tmp_path) == {"exit_code": 0, "playwright_imported": True}
    assert not _wait_until_gone(chromium, 10.0)
