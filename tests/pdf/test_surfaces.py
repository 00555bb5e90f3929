"""PDFs wherever reading works: the CLI, ingest, and a browser navigation that turns out to be a PDF."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import pagewarden
from pagewarden._apps.ingest_cli import add_ingest_parser, run_ingest
from pagewarden.cli import main
from tests.browser.pool_support import AS_ROOT, chromium_available
from tests.pdf.documents import CARRIERS, INJECTION, carrier_pdf, paper_pdf
from tests.support.server import FixtureServer

PDF = {"Content-Type": "application/pdf"}
REPO = Path(__file__).resolve().parents[2]


def _pdf_workers() -> set[int]:
    """Live PDF worker processes descending from this test process (the MCP server's, here)."""
    table: dict[int, tuple[int, str, bytes]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            table[int(entry.name)] = (int(fields[1]), fields[0], (entry / "cmdline").read_bytes())
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = set(), [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state, cmdline) in table.items():
            if ppid == parent:
                frontier.append(pid)
                if b"_pagewarden_pdf_worker" in cmdline and state != "Z":
                    found.add(pid)
    return found


def test_cli_read_prints_the_pdf(fixture_server: FixtureServer) -> None:
    """`pagewarden read` on a PDF prints its Markdown with page anchors; an injected one exits 4 (withheld)."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    fixture_server.add("/hidden.pdf", headers=PDF, body=carrier_pdf(CARRIERS[0], INJECTION))
    out, err = io.StringIO(), io.StringIO()
    code = main(["read", fixture_server.url("/paper.pdf"), "--render", "never",
                 "--unsafe-allow-destination", fixture_server.host_port], out=out, err=err)
    assert code == 0
    assert "On River Deltas" in out.getvalue()
    assert f"{fixture_server.url('/paper.pdf')}#page=2" in out.getvalue()
    code = main(["read", fixture_server.url("/hidden.pdf"), "--render", "never",
                 "--unsafe-allow-destination", fixture_server.host_port], out=io.StringIO(), err=io.StringIO())
    assert code == 4


def test_ingest_reads_pdfs(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """`pagewarden ingest` writes a record for a PDF like for a page, and a withheld PDF as a guard failure."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    fixture_server.add("/hidden.pdf", headers=PDF, body=carrier_pdf(CARRIERS[0], INJECTION))
    source = tmp_path / "in.txt"
    source.write_text(fixture_server.url("/paper.pdf") + "\n" + fixture_server.url("/hidden.pdf") + "\n")
    out = tmp_path / "out.jsonl"
    parser = argparse.ArgumentParser()
    add_ingest_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["ingest", str(source), "--out", str(out), "--render", "never", "--min-delay", "0",
                              "--unsafe-allow-destination", fixture_server.host_port])
    assert run_ingest(args, io.StringIO(), io.StringIO()) == 0
    records = {record["url"]: record for record in map(json.loads, out.read_text().splitlines())}
    paper = records[fixture_server.url("/paper.pdf")]
    hidden = records[fixture_server.url("/hidden.pdf")]
    assert paper["ok"] is True
    assert "On River Deltas" in json.dumps(paper)
    assert hidden["ok"] is False
    assert "GUARD_DENIED" in json.dumps(hidden)
    assert "previous instructions" not in json.dumps(hidden)


@pytest.mark.browser
@pytest.mark.anyio
async def test_render_always_on_a_pdf_reads_it_statically(fixture_server: FixtureServer) -> None:
    """render="always" on a PDF: the browser refuses the non-HTML navigation and the PDF path reads it."""
    chromium_available()
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(fixture_server.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
    ) as reader:
        document = await reader.read(fixture_server.url("/paper.pdf"), render="always")
    assert document.fetch.content_type == "application/pdf"
    assert document.fetch.method == "http"
    assert "On River Deltas" in document.markdown


@pytest.mark.anyio
async def test_mcp_fetch_content_pages_through_a_pdf(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """Over MCP, fetch_content and fetch_more read a PDF; when the server exits, its PDF worker is gone too."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.tools.mcp_fake_server", "--unsafe-allow-destination", fixture_server.host_port,
              "--render", "never"],
        env={"PYTHONPATH": str(REPO), "PAGEWARDEN_TEST_HITS": "[]",
             "PAGEWARDEN_TEST_STATUS": str(tmp_path / "status.json"), "PAGEWARDEN_PROFILE": "balanced"},
        cwd=str(REPO),
    )
    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(20):
                await session.initialize()
            first = await session.call_tool("fetch_content", {"url": fixture_server.url("/paper.pdf"),
                                                              "max_characters": 200})
            assert not first.is_error
            page = first.structured_content
            assert page is not None and page["cursor"]
            assert "#page=1" in page["text"]
            texts, cursor = [page["text"]], page["cursor"]
            while cursor:
                more = await session.call_tool("fetch_more", {"cursor": cursor, "max_characters": 200})
                assert not more.is_error and more.structured_content is not None
                texts.append(more.structured_content["text"])
                cursor = more.structured_content["cursor"]
            assert len(texts) > 2
            assert "References" in "".join(texts)
            assert f"{fixture_server.url('/paper.pdf')}#page=2" in "".join(texts)
            assert _pdf_workers()
    for _ in range(100):  # up to 10 s for the workers to see their input close
        if not _pdf_workers():
            break
        await anyio.sleep(0.1)
    assert not _pdf_workers()
