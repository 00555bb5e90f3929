"""Ingest benchmark: ``pagewarden ingest``'s runner over a loopback site of static and client-rendered pages.

The site (``_bench/ingest_site.py``) serves ``--static`` articles (default 900)
and ``--rendered`` app shells (default 100) that need the browser. For each
concurrency (default 1, 4, 8) three passes run, each in a fresh process so
memory is its own: ``static`` (static pages only), ``rendered`` (rendered
pages only) and ``mix`` (all pages interleaved). Each pass is the runner of
``pagewarden ingest`` (robots.txt respected, ``render="auto"``, per-host limit
= concurrency, no minimum delay since the only host is loopback), timed from
the first input to the last record (browser launch included). Peak memory is
RSS summed over the worker's process tree (Chromium included), sampled every
100 ms.

The ``ray`` pass (once, not per concurrency) reads the ``mix`` URLs through
``pagewarden.integrations.ray.read_dataset`` on a local Ray runtime with
``--ray-actors`` actors (default 2, one CPU each, 4 reads in flight per actor,
``render="auto"``, robots.txt respected), in a fresh process; its time
includes starting Ray's actors and their browsers, its memory is the process
tree's (driver, raylet, workers, Chromium). It is skipped with a note when
the ``ray`` extra is not installed.

Targets on the 2-core reference machine: >= 30 static pages/s and >= 5
rendered pages/s.

Usage: ``scripts/bench ingest [--static N] [--rendered N] [--concurrency 1,4,8]
[--passes static,rendered,mix,ray] [--ray-actors N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench.ingest_measure import TreeMemorySampler
from _bench.ingest_site import IngestSite, serve_ingest_site

PASSES = ("static", "rendered", "mix")
RAY_PASS = "ray"


async def _worker(urls_file: str, host_port: str, concurrency: int) -> dict[str, Any]:
    import pagewarden
    from pagewarden._ingest.files import input_lines
    from pagewarden._ingest.robots_cache import RobotsCache
    from pagewarden._ingest.runner import IngestOptions, ingest

    failures: Counter[str] = Counter()

    def sink(record: dict[str, Any]) -> None:
        json.dumps(record)  # the CLI serialises every record; keep that cost in
        if not record["ok"]:
            failures[f"{record['code']}:{record['reason']}"] += 1

    reader = pagewarden.AsyncReader(
        unsafe_allow_destinations=(host_port,), cache=pagewarden.CacheConfig(document_ttl=0, search_ttl=0),
        browser=pagewarden.BrowserConfig(external_sandbox=os.geteuid() == 0),
    )
    options = IngestOptions(render="auto", concurrency=concurrency, per_host=concurrency, min_delay=0.0)
    async with reader:
        started = time.perf_counter()
        stats = await ingest(reader, input_lines(urls_file), sink, options, robots=RobotsCache(reader.config))
        elapsed = time.perf_counter() - started
    return {"pages": stats.done, "ok": stats.ok, "escalations": stats.escalations, "seconds": elapsed,
            "failures": dict(failures)}


def _run_pass(site: IngestSite, kind: str, concurrency: int, workdir: Path) -> dict[str, Any]:
    urls = {"static": list(site.static), "rendered": list(site.rendered), "mix": site.urls}[kind]
    urls_file = workdir / f"{kind}.txt"
    urls_file.write_text("\n".join(urls) + "\n")
    command = [sys.executable, __file__, "--worker", str(urls_file), site.host_port, str(concurrency)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    with TreeMemorySampler(process.pid) as sampler:
        output, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"bench ingest: worker failed ({kind}, concurrency {concurrency})")
    result: dict[str, Any] = json.loads(output)
    result.update(kind=kind, concurrency=concurrency, peak_rss_mib=round(sampler.peak / 2**20, 1),
                  pages_per_second=round(result["pages"] / result["seconds"], 2))
    return result


def _ray_worker(urls_file: str, host_port: str, actors: int) -> dict[str, Any]:
    from _bench.ingest_ray import bench_ray

    urls = Path(urls_file).read_text().split()
    reader_options = {
        "unsafe_allow_destinations": [host_port],
        "cache": {"document_ttl": 0, "search_ttl": 0},
        "browser": {"external_sandbox": os.geteuid() == 0},
    }
    return bench_ray(urls, reader_options=reader_options, actors=actors)


def _run_ray_pass(site: IngestSite, actors: int, workdir: Path) -> dict[str, Any]:
    urls_file = workdir / "ray.txt"
    urls_file.write_text("\n".join(site.urls) + "\n")
    command = [sys.executable, __file__, "--ray-worker", str(urls_file), site.host_port, str(actors)]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench ingest: the Ray worker failed (exit {done.returncode})")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(kind=RAY_PASS, escalations=result.get("methods", {}).get("browser", 0))
    return result


def _ray_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def main() -> int:
    """Run the benchmark and print a table (or JSON)."""
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        import anyio

        print(json.dumps(anyio.run(_worker, sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--ray-worker":
        print(json.dumps(_ray_worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--static", type=int, default=900)
    parser.add_argument("--rendered", type=int, default=100)
    parser.add_argument("--concurrency", default="1,4,8", help="comma-separated list (default: 1,4,8)")
    parser.add_argument("--passes", default=",".join((*PASSES, RAY_PASS)),
                        help="comma-separated: static, rendered, mix, ray")
    parser.add_argument("--ray-actors", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    passes = args.passes.split(",")
    with serve_ingest_site(args.static, args.rendered) as site, tempfile.TemporaryDirectory() as workdir:
        for concurrency in (int(value) for value in args.concurrency.split(",")):
            for kind in (name for name in passes if name != RAY_PASS):
                result = _run_pass(site, kind, concurrency, Path(workdir))
                results.append(result)
                if not args.json:
                    print(f"{kind:>8}  concurrency {concurrency}:  {result['pages']:5d} pages  "
                          f"{result['seconds']:7.1f} s  {result['pages_per_second']:7.2f} pages/s  "
                          f"ok {result['ok']}  browser {result['escalations']}  "
                          f"peak RSS {result['peak_rss_mib']:.0f} MiB  failures {result['failures'] or '-'}",
                          flush=True)
        if RAY_PASS in passes and not _ray_available():
            print("     ray  skipped: the ray extra is not installed (pip install 'pagewarden[ray]')", flush=True)
        elif RAY_PASS in passes:
            result = _run_ray_pass(site, args.ray_actors, Path(workdir))
            results.append(result)
            if not args.json:
                print(f"     ray  {result['actors']} actors:      {result['pages']:5d} pages  "
                      f"{result['seconds']:7.1f} s  {result['pages_per_s']:7.2f} pages/s  ok {result['ok']}  "
                      f"browser {result['escalations']}  peak RSS {result['peak_rss_mib']:.0f} MiB "
                      f"(PSS {result['peak_pss_mib']:.0f})  first row {result['first_row_seconds']:.1f} s  "
                      f"failures {result['failures'] or '-'}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
