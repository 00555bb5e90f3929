"""Nothing pagewarden starts on Ray outlives the run: runtime, reader actors and their browsers (issue 14, item 6).

A ``ray::MapWorker(MapBatches(ReaderActor))`` used to outlive ``ray.shutdown()``
(re-parented to PID 1). An actor process leaves through ``SystemExit``; when its
reader actor was still alive then (referenced, or in a reference cycle not yet
collected) it was closed while the interpreter finalized, waiting on the
reader's loop thread, a daemon thread that can no longer run: the process never
ended (seen with gdb: the main thread in ``Py_FinalizeEx`` -> ``__del__`` -> a
lock). Whether that happened depended on garbage-collection timing and on the
raylet killing its workers first, so the first test reproduces the exit itself,
deterministically; the others run the integration and check that no process
started during them is alive afterwards, with no killing by the tests.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

import ray
import ray.data

from pagewarden.cli import main
from pagewarden.integrations.ray import ingest_with_ray, read_dataset
from tests.crawl.sites import SiteServer, docs_site
from tests.ingest.site import article
from tests.support.ray_runtime import local_ray, nothing_left_behind
from tests.support.server import FixtureServer

# Ray warns about its own deprecated settings while it builds its DataContext.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

ROOT = Path(__file__).resolve().parents[2]


def _pages(server: FixtureServer, count: int, delay: float = 0.0) -> list[str]:
    for n in range(count):
        server.add(f"/page/{n}", headers={"Content-Type": "text/html; charset=utf-8"}, body=article(n),
                   delay_before=delay or None)
    return [server.url(f"/page/{n}") for n in range(count)]


def _options(server: FixtureServer) -> dict[str, Any]:
    return {"unsafe_allow_destinations": [server.host_port], "timeout": 20.0}


# A reader actor still referenced when its process exits (Ray ends an actor this way when its runtime goes,
# through SystemExit); ``itself`` makes it part of a cycle, collected only while the interpreter finalizes.
EXIT_SCRIPT = """
import sys
from pagewarden._apps.ray.actor import ActorSpec, ReaderActor
actor = ReaderActor(ActorSpec({}, robots=False))
actor.itself = actor
sys.exit(0)
"""


def test_an_actor_process_exits_with_its_reader_still_open() -> None:
    """SystemExit with a live ReaderActor ends the process at once (it used to wait for ever while finalizing)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with nothing_left_behind(wait=5.0):
        done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, capture_output=True, text=True,
                              timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_runtime_ended_under_a_referenced_dataset_leaves_nothing(fixture_server: FixtureServer) -> None:
    """ray.shutdown() while a materialized read_dataset still holds its reader actors leaves no process behind."""
    urls = _pages(fixture_server, 6)
    with local_ray():
        ds = read_dataset(ray.data.from_items([{"url": url} for url in urls]), reader_options=_options(fixture_server),
                          actors=2, render="never", robots="ignore", batch_size=1)
        kept = ds.materialize()  # blocks and their actors alive while the runtime ends
        assert kept.count() == 6
        ray.shutdown()


def test_ingest_with_ray_ends_the_runtime_it_started(fixture_server: FixtureServer) -> None:
    """On success, ingest_with_ray("local") shuts down the runtime it started; no Ray process remains."""
    assert not ray.is_initialized()
    urls = _pages(fixture_server, 4)
    records: list[dict[str, Any]] = []
    with nothing_left_behind():
        summary = ingest_with_ray(((url, {}) for url in urls), records.append, address="local",
                                  reader_options=_options(fixture_server), actors=1, robots="ignore", render="never")
        assert not ray.is_initialized()
    assert summary["pages"] == summary["ok"] == 4
    assert sorted(record["url"] for record in records) == sorted(urls)


def test_a_failing_run_still_ends_the_runtime(fixture_server: FixtureServer) -> None:
    """A sink that raises mid-run propagates its error, and the runtime and actors still end."""
    urls = _pages(fixture_server, 6)

    def failing_sink(record: dict[str, Any]) -> None:
        raise RuntimeError("the disk is full")

    with nothing_left_behind():
        with pytest.raises(RuntimeError, match="the disk is full"):
            ingest_with_ray(((url, {}) for url in urls), failing_sink, address="local",
                            reader_options=_options(fixture_server), actors=1, robots="ignore", render="never")
        assert not ray.is_initialized()


@pytest.mark.timeout(300)
def test_ctrl_c_on_the_ray_cli_ends_the_runtime(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """SIGINT to `pagewarden ingest --ray local` mid-run exits 130 and leaves no Ray process behind."""
    urls = _pages(fixture_server, 60, delay=0.3)
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(urls) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "pagewarden._apps.ingest_cli", str(source), "--out", str(out),
               "--ray", "local", "--ray-actors", "1", "--concurrency", "1", "--render", "never",
               "--robots", "ignore", "--unsafe-allow-destination", fixture_server.host_port]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with nothing_left_behind():
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and process.poll() is None and (
                    not out.exists() or out.read_text(encoding="utf-8").count("\n") < 2):
                time.sleep(0.1)
            assert process.poll() is None, "the run ended before it could be interrupted"
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=90)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 130, err[-2000:]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert 2 <= len(lines) < 60


def test_crawl_on_ray_ends_the_runtime_it_started(tmp_path: Path) -> None:
    """`pagewarden crawl --ray local` with no runtime running starts one and ends it, actors included."""
    router, _ = docs_site()
    server = SiteServer(router).start()
    out = tmp_path / "pages.jsonl"
    argv = ["crawl", f"http://127.0.0.1:{server.port}/", "--out", str(out), "--ray", "local", "--ray-actors", "1",
            "--render", "never", "--max-pages", "3", "--min-delay", "0",
            "--unsafe-allow-destination", f"127.0.0.1:{server.port}"]
    assert not ray.is_initialized()
    try:
        with nothing_left_behind():
            assert main(argv, out=io.StringIO(), err=io.StringIO()) == 0
            assert not ray.is_initialized()
    finally:
        server.stop()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
