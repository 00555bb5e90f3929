"""Render benchmark: pooled ``read(render="always")`` against a cold launch, the raw-Playwright floor and Crawl4AI.

Every side reads the same loopback page (``_bench/render_site.py``: an HTML
shell whose script fetches a ~2,000-word article as JSON from its own origin
and builds the DOM), each read with its own URL:

* pagewarden: one ``AsyncReader``, ``read(url, render="always")`` (pooled
  Chromium behind the pinning proxy, a fresh context per read, policy,
  visibility pass, guard, extraction);
* cold: Playwright and Chromium launched and closed for every read;
* raw floor: one browser, a new context per read, nothing else;
* Crawl4AI (its own venv, a subprocess): ``arun`` sequentially and
  ``arun_many`` at 2 and 4, connected over CDP to a Chromium this script starts.

Latency p50/p95 and throughput at concurrency 1, 2 and 4, in ``--rounds``
rounds whose side order rotates (the machine may be shared); then resident
memory (RSS summed over the process tree, PSS alongside) after 50 and after
``--memory-reads`` reads, each side in a fresh process; then ``render="auto"``
over the static article corpus (browser reads and launches; target 0); then the
client-rendered fixture apps (``_bench/render_apps.py``) with ``render="auto"``
against the raw floor waiting for the same text.

Usage: ``scripts/bench render [--reads N] [--rounds N] [--memory-reads N] [--no-crawl4ai] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench.corpus import DEFAULT_CORPUS
from _bench.render_apps import apps_auto_vs_floor
from _bench.render_auto import auto_over_corpus
from _bench.render_crawl4ai import cdp_chromium, crawl4ai_python, run_driver
from _bench.render_memory import tree_memory
from _bench.render_sides import Batch, FloorSide, WardenSide, chromium_path, cold_read, median_split, run_batch
from _bench.render_site import MARKER, WORDS, serve_site

from pagewarden._browser.render import render

CONCURRENCIES = (1, 2, 4)
WARMUP = 3
P50_TARGET = 1.15
MEMORY_GROWTH_TARGET = 0.10
SIDES = ("pagewarden", "raw floor", "crawl4ai")


def _policy(args: argparse.Namespace) -> str:
    """The policy of the pagewarden side: the default, or a copy with another ``settle_quiet``."""
    if args.settle_quiet is None:
        return "default"
    source = (Path(__file__).resolve().parents[1] / "browser_policy" / "default.toml").read_text()
    changed = re.sub(r"(?m)^settle_quiet = .*$", f"settle_quiet = {args.settle_quiet}", source)
    path = Path(tempfile.mkdtemp(prefix="bench-policy-")) / "policy.toml"
    path.write_text(changed)
    return str(path)


def _urls(port: int, side: str, tag: str, count: int) -> list[str]:
    slug = side.replace(" ", "-")
    return [f"http://127.0.0.1:{port}/article?side={slug}&b={tag}&i={i}" for i in range(count)]


def _merge(batches: list[Batch]) -> Batch:
    merged = Batch(batches[0].concurrency)
    for batch in batches:
        merged.seconds.extend(batch.seconds)
        merged.wall += batch.wall
        merged.incomplete += batch.incomplete
        for key, count in batch.errors.items():
            merged.errors[key] = merged.errors.get(key, 0) + count
    return merged


def _from_driver(raw: dict[str, Any]) -> Batch:
    batch = Batch(int(raw["concurrency"]), list(raw["seconds"]), float(raw["wall"]), int(raw["incomplete"]))
    batch.errors = {str(k): int(v) for k, v in raw["errors"].items()}
    return batch


async def _latency(args: argparse.Namespace, executable: str, c4a: Path | None) -> dict[str, Any]:
    """Rounds of c=1, 2, 4 batches on every side, side order rotating."""
    results: dict[str, dict[int, list[Batch]]] = {side: {c: [] for c in CONCURRENCIES} for side in SIDES}
    crawl4ai_note = None
    c1_splits: list[dict[str, float]] = []
    with serve_site() as port:
        pooled = WardenSide(port, max(CONCURRENCIES), executable, _policy(args))
        async with pooled as warden, FloorSide(executable) as floor:
            readers = {"pagewarden": warden.read, "raw floor": floor.read}
            for side, read in readers.items():
                for url in _urls(port, side, "warmup", WARMUP):
                    await read(url)
            with cdp_chromium(executable) if c4a is not None else contextlib.nullcontext() as endpoint:
                for round_index in range(args.rounds):
                    order = SIDES[round_index % len(SIDES):] + SIDES[: round_index % len(SIDES)]
                    for side in order:
                        if side == "crawl4ai":
                            if c4a is None or endpoint is None:
                                continue
                            plan = {
                                "cdp_url": endpoint[0],
                                "marker": MARKER,
                                "warmup": _urls(port, side, f"w{round_index}", WARMUP),
                                "batches": [
                                    {"concurrency": c, "urls": _urls(port, side, f"r{round_index}c{c}", args.reads)}
                                    for c in CONCURRENCIES
                                ],
                            }
                            raw = await asyncio.to_thread(run_driver, c4a, plan)
                            if "unavailable" in raw:
                                crawl4ai_note = raw["unavailable"]
                                c4a = None
                                continue
                            for item in raw["batches"]:
                                results[side][int(item["concurrency"])].append(_from_driver(item))
                            continue
                        for c in CONCURRENCIES:
                            urls = _urls(port, side, f"r{round_index}c{c}", args.reads)
                            warden.read_timings.clear()
                            results[side][c].append(await run_batch(readers[side], urls, c))
                            if side == "pagewarden" and c == 1:
                                c1_splits.extend(warden.read_timings)
            stats = warden.pool_stats()
        cold = await _cold(port, executable, args.cold)
    table: dict[str, Any] = {}
    for side, by_c in results.items():
        if all(by_c[c] for c in CONCURRENCIES):
            table[side] = {str(c): _merge(by_c[c]).summary() for c in CONCURRENCIES}
    table["cold launch"] = {"1": cold.summary()}
    return {
        "sides": table, "crawl4ai_unavailable": crawl4ai_note, "pool_stats": stats,
        "pagewarden_c1_split": median_split(c1_splits),
    }




async def _cold(port: int, executable: str, count: int) -> Batch:
    batch = Batch(1)
    for url in _urls(port, "cold", "c", count):
        one = await run_batch(lambda u: cold_read(u, executable), [url], 1)
        batch.seconds.extend(one.seconds)
        batch.wall += one.wall
        batch.incomplete += one.incomplete
        for key, n in one.errors.items():
            batch.errors[key] = batch.errors.get(key, 0) + n
    return batch


async def _read_vs_render(executable: str, count: int, policy: str) -> dict[str, Any]:
    """``read()`` and ``render()`` alternating on one pool (the pagewarden side's configuration), after warm-up.

    Like with like: the same reader, pool, page and moment for both, so their
    ratio holds on a loaded machine. Each call starts with the pool at rest
    (the last context closed, the spare ready: otherwise whichever call follows
    a bare render() pays for its background close) and the order alternates
    between pairs. Reported with the read's own split (render, guard and
    extraction of the snapshot, the rest) and the direct calls' render steps.
    """
    reads: list[float] = []
    renders: list[float] = []
    steps: list[dict[str, float]] = []
    with serve_site() as port:
        async with WardenSide(port, max(CONCURRENCIES), executable, policy) as warden:
            pool = warden.reader._browser_pool()
            for index, url in enumerate(_urls(port, "stages", "s", count + WARMUP)):
                read_seconds = page = render_seconds = None
                # The order alternates too, so neither side always runs right after the other.
                for side in ("read", "render") if index % 2 == 0 else ("render", "read"):
                    await _at_rest(warden, 0.005)
                    started = time.perf_counter()
                    if side == "read":
                        await warden.read(url + "&via=read")
                        read_seconds = time.perf_counter() - started
                    else:
                        page = await render(pool, url + "&via=render")
                        render_seconds = time.perf_counter() - started
                assert read_seconds is not None and page is not None and render_seconds is not None
                if index < WARMUP:
                    warden.read_timings.clear()
                    continue
                reads.append(read_seconds * 1000)
                renders.append(render_seconds * 1000)
                steps.append(dict(page.timings))
            splits = list(warden.read_timings)
    keys = [k for k in steps[0] if k not in ("launched",)]
    read_p50, render_p50 = statistics.median(reads), statistics.median(renders)
    return {
        "pairs": len(reads),
        "read_p50_ms": round(read_p50, 1),
        "render_p50_ms": round(render_p50, 1),
        "ratio": round(read_p50 / render_p50, 2),
        "read_split": median_split(splits),
        "render_steps": {k: round(statistics.median(t[k] for t in steps), 1) for k in keys},
    }


# -- memory: each side in a fresh process ----------------------------------------------------
# Seconds both sides pause before a memory sample, so processes that are exiting have exited.
MEMORY_PAUSE = 1.0


async def _quiescent(warden: WardenSide) -> None:
    """Wait (bounded) until the last read's context is closed and the next one is prepared, then pause.

    Sampled right after a read, the tree holds one renderer more or less
    depending on whether the background close and the spare have finished;
    the steady state between reads is what the memory figures compare.
    """
    await _at_rest(warden)
    await anyio.sleep(MEMORY_PAUSE)


async def _at_rest(warden: WardenSide, poll: float = 0.05) -> None:
    """Wait (at most 5 s) until the pool has no context closing and its next spare is ready."""
    with anyio.move_on_after(5):
        while True:
            stats = warden.pool_stats()
            if not stats.get("closing") and stats.get("spare", 1) >= 1:
                break
            await anyio.sleep(poll)


async def _memory_child(reads: int, executable: str) -> dict[str, Any]:
    """Run in a child process: ``reads`` sequential pagewarden reads; tree memory after 50 and at the end."""
    out: dict[str, Any] = {}
    with serve_site() as port:
        async with WardenSide(port, 2, executable) as warden:
            for index, url in enumerate(_urls(port, "memory", "m", reads), 1):
                text = await warden.read(url)
                if MARKER not in text:
                    out["incomplete"] = out.get("incomplete", 0) + 1
                if index in (50, reads):
                    await _quiescent(warden)
                    out[str(index)] = tree_memory()
            out["pool_stats"] = warden.pool_stats()
    return out


def _warden_memory(reads: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(reads)], capture_output=True, text=True, timeout=3600
    )
    if done.returncode != 0:
        return {"unavailable": (done.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _crawl4ai_memory(c4a: Path, executable: str, reads: int) -> dict[str, Any]:
    with serve_site() as port, cdp_chromium(executable) as (endpoint, pid):
        plan = {
            "cdp_url": endpoint,
            "marker": MARKER,
            "browser_pid": pid,
            "batches": [{"concurrency": 1, "urls": _urls(port, "c4a-memory", "m", reads), "memory_at": [50, reads]}],
        }
        raw = run_driver(c4a, plan)
    if "unavailable" in raw:
        return raw
    batch = raw["batches"][0]
    out: dict[str, Any] = dict(batch["memory"])
    out["incomplete"] = batch["incomplete"]
    out["errors"] = batch["errors"]
    return out


def _growth(memory: dict[str, Any], reads: int) -> float | None:
    first, last = memory.get("50"), memory.get(str(reads))
    if not first or not last:
        return None
    return round(float(last["rss_mib"]) / float(first["rss_mib"]) - 1, 3)


# -- report -----------------------------------------------------------------------------------
def _cell(summary: dict[str, Any] | None, key: str) -> str:
    if summary is None or summary.get(key) is None:
        return "-"
    return f"{summary[key]:g}"


def _print(report: dict[str, Any]) -> None:
    sides = report["latency"]["sides"]
    print(f"\n## render benchmark ({report['date']}, {report['machine']})\n")
    quiet = report["args"].get("settle_quiet")
    policy = f"policy default with settle_quiet={quiet}" if quiet is not None else "default policy"
    print(f"Page: client-rendered article, {WORDS} words; {report['args']['reads']} reads per batch x "
          f"{report['args']['rounds']} rounds; pagewarden with the {policy}.\n")
    print("| side | c=1 p50 ms | c=1 p95 ms | c=1 pages/s | c=2 p50 ms | c=2 pages/s | c=4 p50 ms | c=4 p95 ms "
          "| c=4 pages/s | incomplete | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for side in ("pagewarden", "raw floor", "crawl4ai", "cold launch"):
        by_c = sides.get(side)
        if by_c is None:
            print(f"| {side} | unavailable: {report['latency'].get('crawl4ai_unavailable') or 'skipped'} "
                  "| | | | | | | | | |")
            continue
        one, two, four = by_c.get("1"), by_c.get("2"), by_c.get("4")
        incomplete = sum(s["incomplete"] for s in by_c.values())
        errors: dict[str, int] = {}
        for s in by_c.values():
            for key, n in s["errors"].items():
                errors[key[:40]] = errors.get(key[:40], 0) + n
        print(f"| {side} | {_cell(one, 'p50_ms')} | {_cell(one, 'p95_ms')} | {_cell(one, 'pages_per_s')} "
              f"| {_cell(two, 'p50_ms')} | {_cell(two, 'pages_per_s')} | {_cell(four, 'p50_ms')} "
              f"| {_cell(four, 'p95_ms')} | {_cell(four, 'pages_per_s')} | {incomplete} | {errors or '-'} |")
    print()
    for line in report["verdicts"]:
        print(f"- {line}")
    split = report["latency"].get("pagewarden_c1_split")
    if split:
        print(f"- pagewarden c=1 reads of the table, their own stage medians (ms): {split}")
    pair = report.get("read_vs_render")
    if pair:
        print(f"- read() vs render() alternating on one pool ({pair['pairs']} pairs): p50 {pair['read_p50_ms']} / "
              f"{pair['render_p50_ms']} ms ({pair['ratio']:.2f}x); inside read() (medians, ms): {pair['read_split']}")
        print(f"- pagewarden render steps (medians, ms, render() directly): {pair['render_steps']}")


def _verdicts(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    sides = report["latency"]["sides"]
    warden, floor, c4a = sides.get("pagewarden"), sides.get("raw floor"), sides.get("crawl4ai")
    if warden and floor:
        ratio = warden["1"]["p50_ms"] / floor["1"]["p50_ms"]
        met = "met" if ratio <= P50_TARGET else "missed"
        lines.append(f"p50 pagewarden / raw floor: {ratio:.2f} (target <= {P50_TARGET}: {met})")
    if warden and c4a:
        ratio = warden["1"]["p50_ms"] / c4a["1"]["p50_ms"]
        met = "met" if ratio < 1 else "missed"
        lines.append(f"p50 pagewarden / Crawl4AI arun: {ratio:.2f} (target < 1: {met})")
        tp = warden["4"]["pages_per_s"] / c4a["4"]["pages_per_s"]
        met = "met" if tp >= 1 else "missed"
        lines.append(f"throughput at 4, pagewarden / Crawl4AI arun_many: {tp:.2f} (target >= 1: {met})")
    memory = report.get("memory") or {}
    reads = report["args"]["memory_reads"]
    for side in ("pagewarden", "crawl4ai"):
        data = memory.get(side)
        if not data:
            continue
        if "unavailable" in data:
            lines.append(f"memory {side}: unavailable ({data['unavailable']})")
            continue
        growth = _growth(data, reads)
        first, last = data.get("50", {}), data.get(str(reads), {})
        target = f" (target <= {MEMORY_GROWTH_TARGET:.0%}: {'met' if growth <= MEMORY_GROWTH_TARGET else 'missed'})" \
            if growth is not None and side == "pagewarden" else ""
        lines.append(
            f"memory {side}: RSS {first.get('rss_mib')} MiB after 50 reads, {last.get('rss_mib')} MiB after {reads} "
            f"(growth {growth:+.1%}){target}; PSS {first.get('pss_mib')} -> {last.get('pss_mib')} MiB"
            if growth is not None else f"memory {side}: {data}"
        )
    auto = report.get("auto")
    if auto:
        lines.append(
            f"render=\"auto\" over {auto['pages']} static corpus pages: {auto['browser_reads']} browser reads, "
            f"{auto['pool_launches']} browser launches (target 0), refused {auto['refused'] or 0}, "
            f"methods {auto['methods']}"
        )
    apps = report.get("apps")
    if apps:
        cells = ", ".join(
            f"{name} {row['auto_p50_ms']:.0f}/{row['floor_p50_ms']:.0f} ms ({row['ratio']:.2f}x"
            + (f", text missing {row['text_missing']}" if row["text_missing"] else "") + ")"
            for name, row in apps["apps"].items()
        )
        lines.append(
            f"fixture apps, render=\"auto\" (static attempt + escalation) vs raw floor waiting for the same text, "
            f"p50 over {apps['reads_per_app']} reads: median ratio {apps['median_ratio']:.2f}x; {cells}"
        )
    return lines


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    executable = chromium_path()
    c4a: Path | None = None
    c4a_how = "skipped (--no-crawl4ai)"
    if not args.no_crawl4ai:
        c4a, c4a_how = crawl4ai_python(args.crawl4ai_python, install=not args.no_install)
    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, load "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}, Python {platform.python_version()}",
        "args": vars(args),
        "chromium": executable,
        "crawl4ai": c4a_how,
    }
    report["latency"] = await _latency(args, executable, c4a)
    if c4a is None and report["latency"]["crawl4ai_unavailable"] is None and not args.no_crawl4ai:
        report["latency"]["crawl4ai_unavailable"] = c4a_how
    report["read_vs_render"] = await _read_vs_render(executable, args.reads, _policy(args))
    if args.memory_reads:
        report["memory"] = {"pagewarden": await asyncio.to_thread(_warden_memory, args.memory_reads)}
        if c4a is not None:
            report["memory"]["crawl4ai"] = await asyncio.to_thread(
                _crawl4ai_memory, c4a, executable, args.memory_reads
            )
    if not args.no_auto and args.corpus.is_dir():
        report["auto"] = await auto_over_corpus(args.corpus, executable)
    if not args.no_apps:
        report["apps"] = await apps_auto_vs_floor(executable, args.app_reads)
    report["load_after"] = os.getloadavg()
    report["verdicts"] = _verdicts(report)
    return report


def main() -> None:
    """Parse arguments, run the benchmark, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reads", type=int, default=30, help="reads per batch (per side, concurrency, round)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; the side order rotates between them")
    parser.add_argument("--cold", type=int, default=8, help="cold launch-per-read reads")
    parser.add_argument("--memory-reads", type=int, default=500, help="reads of the memory run (0: skip)")
    parser.add_argument("--no-crawl4ai", action="store_true", help="leave Crawl4AI out")
    parser.add_argument("--crawl4ai-python", help="a Python where `import crawl4ai` works (default: .bench venv)")
    parser.add_argument("--no-install", action="store_true", help="never create the Crawl4AI venv")
    parser.add_argument("--no-auto", action="store_true", help="skip render=auto over the corpus")
    parser.add_argument("--no-apps", action="store_true", help="skip the client-rendered fixture apps")
    parser.add_argument("--app-reads", type=int, default=5, help="reads per fixture app and side")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--settle-quiet", type=float, help="pagewarden side only: a policy with this settle_quiet")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(json.dumps(asyncio.run(_memory_child(args.memory_child, chromium_path()))))
        return
    report = asyncio.run(_main(args))
    report["args"]["corpus"] = str(args.corpus)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        _print(report)


if __name__ == "__main__":
    main()
