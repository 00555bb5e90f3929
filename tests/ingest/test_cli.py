"""The ingest command: options, OUT handling, resume, progress lines, and Ctrl-C in a real process."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pagewarden._apps.ingest_cli import add_ingest_parser, run_ingest
from tests.ingest.site import article, build_site
from tests.support.server import FixtureServer

ROOT = Path(__file__).resolve().parents[2]


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_ingest_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["ingest", *argv])


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run_ingest(_args(*argv), io.StringIO(), err)
    return code, err.getvalue()


def _urls(path: Path) -> list[str]:
    return [json.loads(line)["url"] for line in path.read_text().splitlines()]


def _common(server: FixtureServer) -> list[str]:
    return ["--render", "never", "--min-delay", "0", "--per-host", "4", "--unsafe-allow-destination", server.host_port]


def test_run_writes_one_line_per_input_and_a_summary(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """A JSONL input with pass-through fields gives one line per input, the fields kept, and a summary."""
    site = build_site(fixture_server, 20, private=3, missing=2)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"url": url, "row": n}) + "\n" for n, url in enumerate(site.all)))
    out = tmp_path / "out.jsonl"
    code, err = _run(str(source), "--out", str(out), *_common(fixture_server))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0
    assert sorted(record["row"] for record in records) == list(range(25))
    assert sum(not record["ok"] for record in records) == 5
    assert "ingest done: 25 pages" in err
    assert "UNSAFE_URL: 3" in err


def test_existing_out_needs_resume(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """An existing, non-empty OUT is never overwritten: exit 2 and the file unchanged."""
    source = tmp_path / "in.txt"
    source.write_text(fixture_server.url("/page/0") + "\n")
    out = tmp_path / "out.jsonl"
    out.write_text('{"url": "x"}\n')
    code, err = _run(str(source), "--out", str(out), *_common(fixture_server))
    assert code == 2
    assert "--resume" in err
    assert out.read_text() == '{"url": "x"}\n'


def test_missing_input_is_usage_error(tmp_path: Path) -> None:
    """A missing INPUT file exits 2 before anything is written."""
    code, _ = _run(str(tmp_path / "nope.txt"), "--out", str(tmp_path / "out.jsonl"))
    assert code == 2
    assert not (tmp_path / "out.jsonl").exists()


def test_max_pages_then_resume_covers_everything(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """--max-pages 10, then --resume (after a line cut mid-way) finishes with no duplicates and no gaps."""
    site = build_site(fixture_server, 30, missing=5)
    source = tmp_path / "in.txt"
    source.write_text("\n".join(site.all) + "\n")
    out = tmp_path / "out.jsonl"
    assert _run(str(source), "--out", str(out), "--max-pages", "10", *_common(fixture_server))[0] == 0
    assert len(_urls(out)) == 10
    with out.open("a") as handle:
        handle.write('{"url": "http://cut')  # a run killed mid-line
    code, err = _run(str(source), "--out", str(out), "--resume", *_common(fixture_server))
    urls = _urls(out)
    assert code == 0
    assert "skipped (resume) 10" in err
    assert len(urls) == len(set(urls))
    assert sorted(urls) == sorted(site.all)


def test_plain_progress_lines_when_not_a_terminal(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """Without a terminal, progress is plain lines with done/total, pages/s and failures by code."""
    site = build_site(fixture_server, 6, missing=2)
    for n in range(6):
        fixture_server.add(f"/page/{n}", headers={"Content-Type": "text/html"}, body=article(n), delay_before=0.1)
    source = tmp_path / "in.txt"
    source.write_text("\n".join(site.all) + "\n")
    code, err = _run(str(source), "--out", str(tmp_path / "o.jsonl"), "--progress-interval", "0.05",
                     "--concurrency", "1", *_common(fixture_server))
    assert code == 0
    lines = [line for line in err.splitlines() if line.startswith("pagewarden ingest: ")]
    assert lines
    assert "/8 pages" in lines[-1]
    assert "pages/s" in lines[-1]


def test_sigint_stops_cleanly_and_resume_completes(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """SIGINT mid-run exits 130 with only complete lines in OUT; --resume then completes without duplicates."""
    site = build_site(fixture_server, 60)
    for n in range(60):
        fixture_server.add(f"/page/{n}", headers={"Content-Type": "text/html"}, body=article(n), delay_before=0.2)
    source = tmp_path / "in.txt"
    source.write_text("\n".join(site.pages) + "\n")
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "pagewarden._apps.ingest_cli", str(source), "--out", str(out),
               "--concurrency", "2", *_common(fixture_server)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 4):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "interrupted" in err
    text = out.read_text()
    assert text.endswith("\n")
    first = [json.loads(line)["url"] for line in text.splitlines()]
    assert 4 <= len(first) < 60
    resumed = subprocess.run([*command, "--resume"], capture_output=True, env=env, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    urls = _urls(out)
    assert len(urls) == len(set(urls))
    assert sorted(urls) == sorted(site.pages)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_live_display_on_a_terminal(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """On a terminal the rich display shows pages, pages/s and failures by code while the run goes."""
    site = build_site(fixture_server, 4, missing=2)
    for n in range(4):
        fixture_server.add(f"/page/{n}", headers={"Content-Type": "text/html"}, body=article(n), delay_before=0.1)
    source = tmp_path / "in.txt"
    source.write_text("\n".join(site.all) + "\n")
    err = _Terminal()
    args = _args(str(source), "--out", str(tmp_path / "o.jsonl"), "--progress-interval", "0.05",
                 "--concurrency", "1", *_common(fixture_server))
    assert run_ingest(args, io.StringIO(), err) == 0
    shown = err.getvalue()
    assert "/6 pages" in shown
    assert "pages/s" in shown
    assert "UPSTREAM_HTTP" in shown
