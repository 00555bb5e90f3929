"""Search benchmark: what fused search costs on top of its slowest member, and what de-correlation changes.

``scripts/bench search [--rounds N] [--json]``

* Overhead. Five fake providers answer with realistic latencies (a seeded
  log-normal spread around 0.35-1.2 s medians, like a Brave API call, three
  ddgs engines and a self-hosted SearXNG) and 20 overlapping hits each. Every
  round runs the full search path (:func:`run_search`: deadline, concurrent
  members, normalization, fusion, guard of the kept hits) on
  ``fused([...])``, and, as the baseline in the same run, on the slowest
  member alone with the same latency. Reported: median and p90 of
  ``fused / slowest-alone`` and of ``fused / slowest member's sleep``.
* De-correlation. The crafted example of docs/search.md: three Bing
  front-ends rank X first, Bing (at rank 40) and Brave agree on Y; the top
  hit with and without grouping by upstream index.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import anyio

from pagewarden import fused
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.types import RawHit, SearchQuery

# name, upstream index, median latency (s)
MEMBERS = (
    ("brave", "brave", 0.35),
    ("ddgs:duckduckgo", "bing", 0.6),
    ("ddgs:mojeek", "mojeek", 0.8),
    ("ddgs:yahoo", "bing", 0.9),
    ("searxng", "searxng", 1.2),
)
HITS_PER_MEMBER = 20
POOL = [f"https://site{i}.example.org/article/{i}" for i in range(60)]


class SleepyProvider:
    """Answers after ``latency`` seconds with a fixed list of hits."""

    def __init__(self, name: str, index: str, latency: float, hits: Sequence[RawHit]) -> None:
        self.name = name
        self.upstream_index = index
        self.latency = latency
        self.hits = list(hits)

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Sleep, then answer."""
        await anyio.sleep(self.latency)
        return self.hits


def _hits(rng: random.Random) -> list[RawHit]:
    urls = rng.sample(POOL, HITS_PER_MEMBER)
    return [RawHit(url=u, title=f"Tide tables and how to read them {i}", snippet="High and low water times.")
            for i, u in enumerate(urls)]


async def _timed(provider: Any) -> float:
    started = time.perf_counter()
    await run_search(provider, validate_query("tide tables", limit=10), timeout=10, cooldowns=Cooldowns())
    return time.perf_counter() - started


async def overhead(rounds: int) -> dict[str, Any]:
    """Fused search against its slowest member alone, same latencies, same run."""
    rng = random.Random(17)
    vs_alone: list[float] = []
    vs_sleep: list[float] = []
    for _ in range(rounds):
        members = [
            SleepyProvider(name, index, median * rng.lognormvariate(0, 0.25), _hits(rng))
            for name, index, median in MEMBERS
        ]
        slowest = max(members, key=lambda m: m.latency)
        alone = SleepyProvider("alone", "alone", slowest.latency, slowest.hits)
        fused_seconds = await _timed(fused(members))
        alone_seconds = await _timed(alone)
        vs_alone.append(fused_seconds / alone_seconds)
        vs_sleep.append(fused_seconds / slowest.latency)

    def summary(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "median": round(statistics.median(ordered), 4),
            "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 4),
        }

    return {
        "rounds": rounds,
        "members": len(MEMBERS),
        "fused_over_slowest_alone": summary(vs_alone),
        "fused_over_slowest_latency": summary(vs_sleep),
    }


async def decorrelation() -> dict[str, Any]:
    """The docs/search.md example: top hit with and without grouping by upstream index."""
    x, y = "https://x.example.org/", "https://y.example.org/"
    bing_list = [RawHit(x, "X")] + [RawHit(f"https://filler{i}.example.org/", "F") for i in range(2, 40)]
    bing_list.append(RawHit(y, "Y"))
    members = [
        SleepyProvider("ddgs:bing", "bing", 0.0, bing_list),
        SleepyProvider("ddgs:yahoo", "bing", 0.0, bing_list),
        SleepyProvider("ddgs:duckduckgo", "bing", 0.0, bing_list),
        SleepyProvider("brave", "brave", 0.0, [RawHit(y, "Y")]),
    ]
    query = validate_query("example", limit=3)
    grouped = await run_search(fused(members), query, cooldowns=Cooldowns())
    naive = await run_search(
        fused(members, upstream_indexes={m.name: m.name for m in members}), query, cooldowns=Cooldowns()
    )
    return {"grouped_top": grouped.hits[0].url, "per_provider_top": naive.hits[0].url}


def main() -> None:
    parser = argparse.ArgumentParser(prog="scripts/bench search")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    async def run() -> dict[str, Any]:
        return {"overhead": await overhead(args.rounds), "decorrelation": await decorrelation()}

    result = anyio.run(run)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    o = result["overhead"]
    print(f"fused search, {o['members']} members, {o['rounds']} rounds")
    a, s = o["fused_over_slowest_alone"], o["fused_over_slowest_latency"]
    print(f"  fused / slowest member alone (run_search):  median {a['median']:.4f}  p90 {a['p90']:.4f}")
    print(f"  fused / slowest member's latency (sleep):   median {s['median']:.4f}  p90 {s['p90']:.4f}")
    d = result["decorrelation"]
    print(f"de-correlation example: grouped top {d['grouped_top']}, per-provider top {d['per_provider_top']}")


if __name__ == "__main__":
    main()
