"""``pagewarden crawl --ray``: reads on a local Ray runtime with 2 actors, the frontier in the driver."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from pagewarden.cli import main
from tests.crawl.sites import PRIVATE, TOPICS, SiteServer, docs_site
from tests.support.ray_runtime import local_ray

# Ray warns about its own deprecated settings while it starts.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")


@pytest.fixture(scope="module")
def ray_runtime() -> Iterator[None]:
    """A local Ray runtime with 2 CPUs for the module (started before the per-test tripwire); stragglers are killed."""
    with local_ray(strict=False):
        yield


def test_crawl_on_ray_reads_each_page_once_with_robots_in_the_driver(ray_runtime: None, tmp_path: Path) -> None:
    """Two actors read the section's pages once each; robots-disallowed pages are failures never requested."""
    router, _ = docs_site()
    server = SiteServer(router).start()
    try:
        out = tmp_path / "pages.jsonl"
        argv = ["crawl", f"http://127.0.0.1:{server.port}/", "--out", str(out), "--ray", "local",
                "--ray-actors", "2", "--render", "never", "--include", "/docs/s9/*", "--min-delay", "0",
                "--per-host", "4", "--max-pages", "200", "--unsafe-allow-destination", f"127.0.0.1:{server.port}"]
        code = main(argv, out=io.StringIO(), err=io.StringIO())
    finally:
        server.stop()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    paths = {record["url"].split(str(server.port), 1)[1]: record for record in records}
    assert code == 0
    assert len(paths) == len(records)
    expected_ok = {"/", "/docs/s9/"} | {f"/docs/s9/topic-{t}" for t in range(TOPICS)}
    assert {path for path, record in paths.items() if record["ok"]} == expected_ok
    assert {path for path, record in paths.items() if not record["ok"]} == {
        f"/docs/s9/private-{n}" for n in range(PRIVATE)
    }
    assert all(record["depth"] >= 0 and "page_links" in record for record in records if record["ok"])
    assert not any("private" in path for path in server.paths())
