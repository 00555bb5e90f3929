"""Fault benchmark: how long each hostile page takes to fail, and what it costs the next read, on both paths.

The hostile pages and responses are the test battery's
(``tests/browser/hostile_pages.py``: request, frame and timer floods,
workers, reloads, CPU, DOM and memory bombs, slow, endless, huge, reset and
looping responses), served from one loopback server. One long-lived
``AsyncReader`` reads them:

* clean baseline: ``--clean`` ordinary control reads, ``render="always"``
  and ``render="never"``, after a warm-up; their median is the baseline of
  each path;
* per fault and round: the hostile read (deadline ``--timeout`` seconds),
  then one control read on the same reader. Browser path for every fault,
  static path for the faults a plain fetch can meet.

Printed per fault and path: the outcome (``ok`` or ``CODE reason``), the
hostile read's wall time (median over rounds), and the control read's time
after it as a ratio to the clean baseline of that path (median and worst).
A ratio near 1.0 means the fault cost the next read nothing.
Usage: ``scripts/bench faults [--rounds N] [--clean N] [--timeout S] [--only a,b] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser.hostile_pages import CONTROL, HOSTILE, install
from tests.support.hostile import HostileServer

import pagewarden


class _Bench:
    def __init__(self, reader: pagewarden.AsyncReader, server: HostileServer) -> None:
        self.reader = reader
        self.server = server
        self.count = 0

    def url(self, path: str) -> str:
        self.count += 1
        return self.server.url(f"{path}?n={self.count}")

    async def timed(self, path: str, render: str, timeout: float) -> tuple[float, str]:
        started = time.perf_counter()
        try:
            await self.reader.read(self.url(path), render=render, timeout=timeout)
            outcome = "ok"
        except pagewarden.PagewardenError as exc:
            outcome = f"{exc.code} {exc.reason}"
        return time.perf_counter() - started, outcome


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server = HostileServer()
    server.start()
    install(server)
    cases = [case for case in HOSTILE if not args.only or case.name in args.only]
    as_root = os.geteuid() == 0
    results: list[dict[str, Any]] = []
    try:
        async with pagewarden.AsyncReader(
            unsafe_allow_destinations=(server.host_port,),
            browser=pagewarden.BrowserConfig(external_sandbox=as_root),
        ) as reader:
            bench = _Bench(reader, server)
            for render in ("always", "never", "always"):  # warm-up: launch, pools, caches
                await bench.timed(CONTROL, render, 30.0)
            baseline: dict[str, float] = {}
            for render in ("always", "never"):
                times = [(await bench.timed(CONTROL, render, 30.0))[0] for _ in range(args.clean)]
                baseline[render] = statistics.median(times)
            for case in cases:
                paths = [("browser", "always")] + ([("static", "never")] if case.static else [])
                for label, render in paths:
                    walls: list[float] = []
                    ratios: list[float] = []
                    outcomes: Counter[str] = Counter()
                    control_failures = 0
                    for _ in range(args.rounds):
                        wall, outcome = await bench.timed(f"/{case.name}", render, args.timeout)
                        walls.append(wall)
                        outcomes[outcome] += 1
                        after, control = await bench.timed(CONTROL, render, 30.0)
                        ratios.append(after / baseline[render])
                        control_failures += control != "ok"
                    results.append(
                        {
                            "fault": case.name,
                            "path": label,
                            "outcomes": dict(outcomes),
                            "wall_s": round(statistics.median(walls), 3),
                            "wall_max_s": round(max(walls), 3),
                            "control_ratio": round(statistics.median(ratios), 2),
                            "control_ratio_max": round(max(ratios), 2),
                            "control_failures": control_failures,
                        }
                    )
                    print(_row(results[-1]), file=sys.stderr, flush=True)
    finally:
        server.stop()
    return {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average": os.getloadavg(),
        "rounds": args.rounds,
        "timeout_s": args.timeout,
        "baseline_ms": {key: round(value * 1000, 1) for key, value in baseline.items()},
        "faults": results,
    }


def _row(result: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{name} x{count}" for name, count in result["outcomes"].items())
    return (
        f"| {result['fault']} | {result['path']} | {outcomes} | {result['wall_s']:.2f} ({result['wall_max_s']:.2f}) "
        f"| {result['control_ratio']:.2f} ({result['control_ratio_max']:.2f}) | {result['control_failures']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3, help="hostile reads per fault and path (default 3)")
    parser.add_argument("--clean", type=int, default=9, help="control reads for the clean baseline (default 9)")
    parser.add_argument("--timeout", type=float, default=10.0, help="deadline of a hostile read, seconds")
    parser.add_argument("--only", type=lambda text: set(text.split(",")), default=None, help="faults to run")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['when']} on {report['machine']}; load average {report['load_average']}")
    print(f"clean control read (median): browser {report['baseline_ms']['always']} ms, "
          f"static {report['baseline_ms']['never']} ms; {report['rounds']} rounds, deadline {report['timeout_s']} s")
    print()
    print("| fault | path | outcome | hostile read s, median (max) | next read / clean, median (max) | next failed |")
    print("|---|---|---|---|---|---|")
    for result in report["faults"]:
        print(_row(result))


if __name__ == "__main__":
    main()
