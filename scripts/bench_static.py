"""Static-read benchmark: pagewarden ``read(render="never")`` against bare httpx + trafilatura.

Both sides read the same pages from one loopback server in the same process:

(a) baseline: ``httpx.get(url)`` then ``trafilatura.extract(response.text)``;
(a') the same through one reused ``httpx.Client`` (shown for context: ``httpx.get``
    builds a new client, TLS context included, on every call);
(b) pagewarden: ``await AsyncReader(unsafe_allow_destinations=("127.0.0.1:<port>",))
    .read(url, render="never", max_characters=100_000)`` on one long-lived reader.

The sides alternate which goes first on every page, after a warm-up. Printed:
per-page median and p90 of both, their ratio, extraction quality against the
corpus ground truth (4-gram shingle F1, see ``_bench/metrics.py``), pages the
reader refused (by error code and reason; never silently dropped) and the
process's peak RSS. Usage: ``scripts/bench static [--json] [--limit N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import trafilatura

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench.corpus import DEFAULT_CORPUS, Page, generated_pages, load_corpus
from _bench.metrics import percentile, quality
from _bench.server import serve

import pagewarden

MAX_CHARACTERS = 100_000
WARMUP_PAGES = 5
RATIO_TARGET = 1.25
F1_TOLERANCE = 0.01


@dataclass
class Side:
    """Timings and outputs of one side of the comparison."""

    seconds: dict[str, float] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)


def _baseline(url: str, client: httpx.Client | None = None) -> str:
    response = client.get(url) if client is not None else httpx.get(url)
    response.raise_for_status()
    return trafilatura.extract(response.text) or ""


@dataclass
class Warden(Side):
    """The pagewarden side, with the reader's own per-stage timings."""

    stages: dict[str, dict[str, float]] = field(default_factory=dict)


def _record(side: Side, page_id: str, elapsed: float, text: str) -> None:
    # With --repeat, the fastest run of a page counts.
    side.seconds[page_id] = min(elapsed, side.seconds.get(page_id, elapsed))
    side.texts[page_id] = text


async def _read(reader: Any, warden: Warden, page_id: str, url: str) -> None:
    started = time.perf_counter()
    try:
        document = await reader.read(url, render="never", max_characters=MAX_CHARACTERS)
    except pagewarden.PagewardenError as error:
        warden.refused[page_id] = f"{error.code} {error.reason or ''}".strip()
        return
    _record(warden, page_id, time.perf_counter() - started, str(document.text))
    warden.stages[page_id] = document.fetch.timings.to_dict()


# The three sides take turns going first, page after page.
_ORDERS = (("a", "r", "b"), ("b", "a", "r"), ("r", "b", "a"))


async def _run(pages: list[Page], port: int, repeat: int, client: httpx.Client) -> tuple[Side, Side, Warden]:
    baseline, reused, warden = Side(), Side(), Warden()
    # No document cache: every timed read must fetch, guard and extract (warm-up reads would be cached).
    reader = pagewarden.AsyncReader(
        unsafe_allow_destinations=(f"127.0.0.1:{port}",), cache=pagewarden.CacheConfig(max_entries=0)
    )
    try:
        for page in pages[:WARMUP_PAGES]:
            url = f"http://127.0.0.1:{port}/{page.id}.html"
            _baseline(url)
            _baseline(url, client)
            await _read(reader, Warden(), page.id, url)
        for index, page in enumerate(pages * repeat):
            url = f"http://127.0.0.1:{port}/{page.id}.html"
            for side in _ORDERS[index % len(_ORDERS)]:
                if side == "b":
                    await _read(reader, warden, page.id, url)
                    continue
                started = time.perf_counter()
                text = _baseline(url, client if side == "r" else None)
                _record(baseline if side == "a" else reused, page.id, time.perf_counter() - started, text)
    finally:
        await reader.aclose()
    return baseline, reused, warden


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def _summary(pages: list[Page], source: str, baseline: Side, reused: Side, warden: Warden) -> dict[str, Any]:
    truth = {page.id: page.truth for page in pages}
    both = [page.id for page in pages if page.id in warden.seconds]
    base_times = [baseline.seconds[i] for i in both]
    reused_times = [reused.seconds[i] for i in both]
    warden_times = [warden.seconds[i] for i in both]
    per_page_ratio = [warden.seconds[i] / baseline.seconds[i] for i in both]
    base_quality = quality((truth[i], baseline.texts.get(i, "")) for i in truth)
    # A refused page counts as an empty extraction: refusals cost quality.
    warden_quality = quality((truth[i], warden.texts.get(i, "")) for i in truth)
    median_ratio = statistics.median(warden_times) / statistics.median(base_times) if both else float("nan")
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "trafilatura": trafilatura.__version__,
            "pagewarden": pagewarden.__version__,
        },
        "source": source,
        "pages": len(pages),
        "timed_pages": len(both),
        "refused": dict(Counter(warden.refused.values())),
        "refused_pages": sorted(warden.refused),
        "baseline_ms": {
            "median": _ms(statistics.median(base_times)),
            "p90": _ms(percentile(base_times, 0.9)),
        },
        "pagewarden_ms": {
            "median": _ms(statistics.median(warden_times)),
            "p90": _ms(percentile(warden_times, 0.9)),
        },
        "ratio_of_medians": round(median_ratio, 3),
        "median_per_page_ratio": round(statistics.median(per_page_ratio), 3),
        "p90_ratio": round(percentile(warden_times, 0.9) / percentile(base_times, 0.9), 3),
        "reused_client_ms": {
            "median": _ms(statistics.median(reused_times)),
            "p90": _ms(percentile(reused_times, 0.9)),
        },
        "ratio_to_reused_client": round(statistics.median(warden_times) / statistics.median(reused_times), 3),
        "pagewarden_stage_median_ms": {
            stage: _ms(statistics.median(warden.stages[i][stage] for i in both))
            for stage in ("dns", "connect", "http", "guard", "extract")
        },
        "quality": {"baseline": base_quality.to_dict(), "pagewarden": warden_quality.to_dict()},
        "f1_delta": round(warden_quality.f1 - base_quality.f1, 4),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "targets": {
            "ratio_le_1_25": median_ratio <= RATIO_TARGET,
            "f1_within_0_01": warden_quality.f1 >= base_quality.f1 - F1_TOLERANCE,
        },
    }


def _markdown(result: dict[str, Any]) -> str:
    base, warden = result["baseline_ms"], result["pagewarden_ms"]
    quality_rows = result["quality"]
    refused = ", ".join(f"{reason}: {count}" for reason, count in result["refused"].items()) or "none"
    lines = [
        f"### static read, {result['source']} ({result['date']}, {result['machine']['cpus']} CPUs)",
        "",
        "| | median ms | p90 ms | F1 | precision | recall |",
        "|---|---:|---:|---:|---:|---:|",
        f"| (a) httpx.get + trafilatura.extract | {base['median']} | {base['p90']} "
        f"| {quality_rows['baseline']['f1']} | {quality_rows['baseline']['precision']} "
        f"| {quality_rows['baseline']['recall']} |",
        f'| (b) pagewarden read(render="never") | {warden["median"]} | {warden["p90"]} '
        f"| {quality_rows['pagewarden']['f1']} | {quality_rows['pagewarden']['precision']} "
        f"| {quality_rows['pagewarden']['recall']} |",
        f"| (a') same, one reused httpx.Client | {result['reused_client_ms']['median']} "
        f"| {result['reused_client_ms']['p90']} | = (a) | | |",
        "",
        f"- ratio (b)/(a) of medians: **{result['ratio_of_medians']}** (target <= {RATIO_TARGET}: "
        f"{'met' if result['targets']['ratio_le_1_25'] else 'NOT met'}); median per-page ratio "
        f"{result['median_per_page_ratio']}; p90 ratio {result['p90_ratio']}",
        f"- ratio (b)/(a') of medians: {result['ratio_to_reused_client']} (informative: (a) pays for a new "
        "client, TLS context included, on every call)",
        "- pagewarden stage medians (ms): "
        + ", ".join(f"{stage} {ms}" for stage, ms in result["pagewarden_stage_median_ms"].items()),
        f"- F1 delta (b)-(a): **{result['f1_delta']:+}** (target within {F1_TOLERANCE}: "
        f"{'met' if result['targets']['f1_within_0_01'] else 'NOT met'})",
        f"- pages: {result['pages']}, timed on both sides: {result['timed_pages']}, "
        f"refused by the reader: {refused}",
        f"- peak RSS of the benchmark process (server, both sides): {result['peak_rss_mib']} MiB",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the static benchmark and print a Markdown table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="article-extraction-benchmark folder"
    )
    parser.add_argument(
        "--generated", action="store_true", help="use generated pages even if the corpus exists"
    )
    parser.add_argument("--limit", type=int, default=0, help="use only the first N pages")
    parser.add_argument("--repeat", type=int, default=1, help="time every page N times, keep the fastest")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    if not args.generated and (args.corpus / "ground-truth.json").is_file():
        pages, source = load_corpus(args.corpus), "article-extraction-benchmark"
    else:
        pages, source = generated_pages(), "generated pages"
    if args.limit > 0:
        pages = pages[: args.limit]
    with serve({f"/{page.id}.html": page.html for page in pages}) as port, httpx.Client() as client:
        baseline, reused, warden = asyncio.run(_run(pages, port, max(1, args.repeat), client))
    result = _summary(pages, source, baseline, reused, warden)
    print(json.dumps(result, indent=2) if args.json else _markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
