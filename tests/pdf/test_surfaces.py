"""PDFs wherever reading works: the CLI, ingest, and a browser navigation that turns out to be a PDF."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

import pagewarden
from pagewarden._ingest.cli import add_ingest_parser, run_ingest
from pagewarden.cli import main
from tests.browser.pool_support import AS_ROOT, chromium_available
from tests.pdf.documents import CARRIERS, INJECTION, carrier_pdf, paper_pdf
from tests.support.server import FixtureServer

PDF = {"Content-Type": "application/pdf"}


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
