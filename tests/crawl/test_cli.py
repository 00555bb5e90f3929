"""The crawl and map commands: records with depth and found_on, and a resume after a crash that misses nothing."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pagewarden._apps import crawl_cli
from pagewarden._apps.crawl_cli import add_crawl_parsers, run_crawl, run_map
from pagewarden._ingest.files import JsonlSink
from tests.crawl.sites import SiteServer, docs_site

# The names docs.test resolve through a resolver only; the CLI has none, so the fixtures use 127.0.0.1.


@pytest.fixture
def docs() -> Iterator[tuple[SiteServer, set[str]]]:
    """The documentation site on loopback."""
    router, expected = docs_site()
    server = SiteServer(router).start()
    try:
        yield server, expected
    finally:
        server.stop()


def _args(command: str, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_crawl_parsers(parser.add_subparsers(dest="command"))
    return parser.parse_args([command, *argv])


def _common(server: SiteServer) -> list[str]:
    return ["--min-delay", "0", "--per-host", "4", "--concurrency", "4", "--max-pages", "1000",
            "--unsafe-allow-destination", f"127.0.0.1:{server.port}"]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_crawl_writes_records_with_depth_and_found_on(docs: tuple[SiteServer, set[str]], tmp_path: Path) -> None:
    """Each page read is one ingest-style record with depth and found_on; the summary lists discovery counts."""
    server, expected = docs
    out = tmp_path / "pages.jsonl"
    err = io.StringIO()
    code = run_crawl(_args("crawl", f"http://127.0.0.1:{server.port}/", "--out", str(out), "--render", "never",
                           *_common(server)), io.StringIO(), err)
    records = _records(out)
    assert code == 0
    assert len({record["url"] for record in records}) == len(records) == len(expected) + 4  # + robots failures
    start = next(record for record in records if record["depth"] == 0)
    assert start["found_on"] is None and start["ok"] and start["page_links"]["links"]
    assert "crawl done" in err.getvalue() and "discovered" in err.getvalue()


def test_resume_after_a_crash_reads_nothing_twice_and_misses_nothing(
    docs: tuple[SiteServer, set[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crawl killed after 60 pages and resumed gives the same pages as an uninterrupted crawl, each once."""
    server, _ = docs
    start = f"http://127.0.0.1:{server.port}/"
    reference = tmp_path / "reference.jsonl"
    assert run_crawl(_args("crawl", start, "--out", str(reference), "--render", "never", *_common(server)),
                     io.StringIO(), io.StringIO()) == 0

    class CrashingSink(JsonlSink):
        written = 0

        def write(self, record: dict[str, Any]) -> None:
            if CrashingSink.written == 60:
                raise KeyboardInterrupt
            CrashingSink.written += 1
            super().write(record)

    monkeypatch.setattr(crawl_cli, "JsonlSink", CrashingSink)
    out = tmp_path / "pages.jsonl"
    first = run_crawl(_args("crawl", start, "--out", str(out), "--render", "never", *_common(server)),
                      io.StringIO(), io.StringIO())
    assert first == 130 and len(_records(out)) == 60
    monkeypatch.setattr(crawl_cli, "JsonlSink", JsonlSink)
    refused = run_crawl(_args("crawl", start, "--out", str(out), "--render", "never", *_common(server)),
                        io.StringIO(), io.StringIO())
    assert refused == 2  # OUT exists: --resume is required
    second = run_crawl(_args("crawl", start, "--out", str(out), "--render", "never", "--resume", *_common(server)),
                       io.StringIO(), io.StringIO())
    urls = [record["url"] for record in _records(out)]
    assert second == 0
    assert len(urls) == len(set(urls))
    assert set(urls) == {record["url"] for record in _records(reference)}


def test_map_lists_urls_without_reading_content(docs: tuple[SiteServer, set[str]]) -> None:
    """map prints in-scope URLs from the sitemaps and the links of a few pages, never the disallowed ones."""
    server, _ = docs
    out = io.StringIO()
    code = run_map(_args("map", f"http://127.0.0.1:{server.port}/", "--max-pages", "11", "--min-delay", "0",
                         "--unsafe-allow-destination", f"127.0.0.1:{server.port}"), out, io.StringIO())
    urls = out.getvalue().split()
    assert code == 0
    assert f"http://127.0.0.1:{server.port}/docs/s3/orphan-4" in urls
    assert f"http://127.0.0.1:{server.port}/docs/s9/" in urls  # a link of the start page
    assert f"http://127.0.0.1:{server.port}/docs/s0/topic-1" in urls  # a link of a sitemap page
    assert not any("private" in url for url in urls)
    assert len(urls) == len(set(urls))


ROOT = Path(__file__).resolve().parents[2]

KILLS = [
    # (signal, exit code of the killed run)
    (signal.SIGKILL, -signal.SIGKILL),
    (signal.SIGINT, 130),
]


@pytest.mark.parametrize(("sent", "exit_code"), KILLS)
def test_killed_crawl_resumes_to_the_same_pages(
    docs: tuple[SiteServer, set[str]], tmp_path: Path, sent: signal.Signals, exit_code: int
) -> None:
    """A crawl process killed half-way (SIGKILL) or interrupted (SIGINT) and resumed reads every page exactly once."""
    server, expected = docs
    out = tmp_path / "pages.jsonl"
    command = [sys.executable, "-m", "pagewarden", "crawl", f"http://127.0.0.1:{server.port}/", "--out", str(out),
               "--render", "never", "--min-delay", "0.01", "--per-host", "2", "--concurrency", "2",
               "--max-pages", "1000", "--unsafe-allow-destination", f"127.0.0.1:{server.port}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 80):
        time.sleep(0.02)
    process.send_signal(sent)
    _, err = process.communicate(timeout=60)
    assert process.returncode == exit_code, err
    first = len(out.read_text().splitlines())
    assert 80 <= first < len(expected)
    resumed = subprocess.run([*command, "--resume"], capture_output=True, env=env, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    urls = [record["url"] for record in _records(out)]
    assert len(urls) == len(set(urls))
    paths = {url.split(str(server.port), 1)[1] for url in urls}
    assert paths == expected | {f"/docs/s9/private-{n}" for n in range(4)}


def test_progress_total_follows_discovery(docs: tuple[SiteServer, set[str]], tmp_path: Path) -> None:
    """The plain progress line's total grows with discovery and ends at the pages read."""
    server, expected = docs
    err = io.StringIO()
    code = run_crawl(_args("crawl", f"http://127.0.0.1:{server.port}/", "--out", str(tmp_path / "o.jsonl"),
                           "--render", "never", "--progress-interval", "0.05", *_common(server)), io.StringIO(), err)
    lines = [line for line in err.getvalue().splitlines() if line.startswith("pagewarden crawl: ")]
    assert code == 0 and lines
    totals = [int(line.split("/", 1)[1].split(" ", 1)[0]) for line in lines if "/?" not in line]
    assert totals == sorted(totals)
    assert f"crawl done: {len(expected) + 4} pages" in err.getvalue()
