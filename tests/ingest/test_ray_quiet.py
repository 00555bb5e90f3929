"""``pagewarden ingest --ray``: Ray's own output stays off the terminal; pagewarden's progress and summary stay."""

from __future__ import annotations

import logging
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

import ray
import ray.data

from pagewarden._apps.ray.runtime import start_ray_quietly
from tests.reader import pages
from tests.support.server import FixtureServer

# Ray warns about its own deprecated settings while it builds its DataContext.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

# Lines Ray writes on a default run of `pagewarden ingest --ray local` (measured with Ray 2.60).
RAY_NOISE = ("INFO", "Started a local Ray instance", "core_worker.cc", "Running Dataset", "Progress bars disabled")


@pytest.fixture
def quiet_state() -> Iterator[None]:
    """Put Ray's logger levels and Ray Data's display flags back after a test changed them."""
    levels = {name: logging.getLogger(name).level for name in ("ray", "ray.data")}
    context = ray.data.DataContext.get_current()
    flags = (context.enable_progress_bars, context.print_on_execution_start)
    try:
        yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        context.enable_progress_bars, context.print_on_execution_start = flags


# Run in a child process: pytest's own capture replaces sys.stderr and descriptor 2.
REDIRECT_SCRIPT = """
import os, sys
from pagewarden._apps.ray.runtime import ray_output_to
try:
    with ray_output_to(sys.argv[1]) as terminal:
        os.write(2, b"[E core_worker.cc] written below Python\\n")
        print("INFO worker.py -- a Python log line", file=sys.stderr)
        terminal.write("pagewarden progress\\n")
        if sys.argv[2] == "raise":
            raise RuntimeError("boom")
except RuntimeError:
    pass
os.write(2, b"after the block\\n")
"""


@pytest.mark.parametrize("ending", ["normal", "raise"])
def test_ray_output_goes_to_the_log_and_progress_to_stderr(tmp_path: Path, ending: str) -> None:
    """Inside the block descriptor 2 and sys.stderr write to the log, the yielded stream to stderr; then 2 is back."""
    log = tmp_path / "out.jsonl.ray.log"
    done = subprocess.run([sys.executable, "-c", REDIRECT_SCRIPT, str(log), ending], capture_output=True, text=True,
                          timeout=60, check=True)
    assert "pagewarden progress" in done.stderr and "after the block" in done.stderr
    assert "core_worker" not in done.stderr and "INFO" not in done.stderr
    text = log.read_text(encoding="utf-8")
    assert "core_worker" in text and "INFO worker.py" in text and "pagewarden progress" not in text


def test_start_ray_quietly_asks_ray_for_quiet(monkeypatch: pytest.MonkeyPatch, quiet_state: None) -> None:
    """ray.init gets ERROR logging, no log forwarding, no dashboard; Ray Data's bars and banners go off."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs))
    assert start_ray_quietly("auto") is True
    assert calls == [{"address": "auto", "logging_level": logging.ERROR, "log_to_driver": False,
                      "include_dashboard": False}]
    assert logging.getLogger("ray").level == logging.ERROR == logging.getLogger("ray.data").level
    context = ray.data.DataContext.get_current()
    assert not context.enable_progress_bars and not context.print_on_execution_start


def test_a_running_runtime_is_joined_not_restarted(monkeypatch: pytest.MonkeyPatch, quiet_state: None) -> None:
    """With Ray already initialised nothing is started (and so the CLI will not shut it down)."""
    monkeypatch.setattr(ray, "is_initialized", lambda: True)
    monkeypatch.setattr(ray, "init", lambda **kwargs: pytest.fail("ray.init called"))
    assert start_ray_quietly(None) is False


def _read_terminal(master: int, process: subprocess.Popen[bytes], seconds: float) -> str:
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65_536)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.timeout(400)
def test_ingest_on_ray_shows_pagewarden_on_a_terminal(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """On a terminal, `pagewarden ingest --ray local` shows live progress and the summary, and none of Ray's lines."""
    fixture_server.add("/article", headers={"Content-Type": "text/html; charset=utf-8"}, body=pages.ARTICLE.encode())
    source = tmp_path / "urls.txt"
    source.write_text(f"{fixture_server.url('/article')}\n{fixture_server.url('/missing')}\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "pagewarden", "ingest", str(source), "--out", str(out), "--ray", "local",
            "--ray-actors", "1", "--render", "never", "--robots", "ignore",
            "--unsafe-allow-destination", fixture_server.host_port]
    master, child = pty.openpty()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=child, cwd=tmp_path)
    os.close(child)
    try:
        shown = _read_terminal(master, process, 360)
        assert process.wait(timeout=60) == 0, shown[-2000:]
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert "pagewarden ingest done: 2 pages" in shown
    assert "remaining" in shown  # the live display's row, drawn while Ray ran
    assert not [noise for noise in RAY_NOISE if noise in shown], shown[-2000:]
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
