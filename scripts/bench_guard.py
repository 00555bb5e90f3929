"""Guard benchmark: conformance, detection, false positives and speed of the context guard.

Printed in one run (``scripts/bench guard [--json] [--contexts N] [--repeat N] [--speed-only]``):

* conformance with the reference guard's 285 cases (decision agreement, then
  category agreement), every disagreement listed with its justification from
  ``_bench/guard_disagreements.toml`` (or flagged as unexplained);
* detection on BIPIA (train split): every attack inserted at the start, middle
  and end of sampled email/table/code contexts, per attack category;
* false positives: BIPIA clean contexts, NotInject sentences, the 181 article pages;
* speed: median time to guard 50 KiB of text (and 1 and 4 KiB: a call's fixed
  cost), and to segment and guard a 1 MiB HTML page against
  ``trafilatura.extract`` of the same page; per-page guard
  time on the article corpus against trafilatura's. Times are CPU time of this
  process (``time.process_time``), so other work on a shared machine inflates
  them less than wall time; the guard with its learned step stubbed out is
  timed in the same run, alternating with the whole guard, and their ratio is
  the figure to compare across runs (``--speed-only`` runs just this part).

* the learned detector, validated honestly (``--no-learned`` skips it, it
  retrains for several minutes): leave-one-group-out recall per attack source
  and per generated template family at the shipped ``balanced`` thresholds, the
  worst fold, and false alarms per benign source (see ``_train/pipeline.py``);
  the detector's load time and resident memory in a fresh process.

Corpora are read from ``../shared/corpora``; a missing one is reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trafilatura

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench.guard_data import (
    article_pages,
    bipia_documents,
    conformance_cases,
    disagreements,
    notinject_prompts,
    text_of_size,
)

import pagewarden._guard.guard as guard_module
from pagewarden._guard import GuardReport, guard_html, guard_text
from pagewarden._html import parse_html

_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.DOTALL | re.IGNORECASE)


def _categories(report: GuardReport) -> set[str]:
    return {f.category for f in report.findings if f.category != "benign_mention"}


def conformance() -> dict[str, Any]:
    """Decision and category agreement with the reference guard, disagreements justified."""
    cases = conformance_cases()
    if not cases:
        return {"skipped": "llm-fetch-guard corpus not found"}
    table = disagreements()
    agree = categories_agree = 0
    listed: list[dict[str, str]] = []
    for case in cases:
        report = guard_text(case["text"], requested_use=case["requestedUse"])
        expected = case["expected"]
        ours, theirs = str(report.decision), expected["decision"]
        reference_categories = {f["category"] for f in expected["findings"] if f["category"] != "benign_mention"}
        categories_agree += _categories(report) == reference_categories
        if ours == theirs:
            agree += 1
            continue
        row = next((d for d in table if case["name"].startswith(d.prefix) and d.ours == ours
                    and d.reference == theirs), None)
        listed.append({"case": case["name"], "ours": ours, "reference": theirs,
                       "why": row.why if row else "UNEXPLAINED"})
    return {
        "cases": len(cases),
        "decision_agreement": agree / len(cases),
        "category_agreement": categories_agree / len(cases),
        "disagreements": listed,
        "unexplained": sum(1 for d in listed if d["why"] == "UNEXPLAINED"),
    }


def detection(contexts: int) -> dict[str, Any]:
    """BIPIA detection per attack category and position, and false positives on the clean contexts."""
    injected, clean = bipia_documents(contexts_per_task=contexts)
    if not injected:
        return {"skipped": "bipia-train corpus not found"}
    flagged: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in injected:
        report = guard_text(doc.text)
        counts = flagged[doc.category]
        counts["documents"] += 1
        counts["flagged"] += bool(_categories(report))
        counts["withheld"] += report.decision.withholds
        counts[f"flagged_{doc.position}"] += bool(_categories(report))
    clean_reports = [guard_text(doc.text) for doc in clean]
    per_category = {
        category: {
            "documents": c["documents"],
            "flagged": c["flagged"] / c["documents"],
            "withheld": c["withheld"] / c["documents"],
            **{f"flagged_{p}": c[f"flagged_{p}"] / (c["documents"] / 3) for p in ("start", "middle", "end")},
        }
        for category, c in sorted(flagged.items())
    }
    total = sum(c["documents"] for c in flagged.values())
    return {
        "injected_documents": total,
        "overall_flagged": sum(c["flagged"] for c in flagged.values()) / total,
        "overall_withheld": sum(c["withheld"] for c in flagged.values()) / total,
        "per_category": per_category,
        "clean_contexts": len(clean_reports),
        "clean_withheld": sum(r.decision.withholds for r in clean_reports),
        "clean_warned": sum(bool(_categories(r)) and not r.decision.withholds for r in clean_reports),
    }


def false_positives() -> dict[str, Any]:
    """NotInject sentences and article pages: how many are withheld or warned."""
    result: dict[str, Any] = {}
    prompts = notinject_prompts()
    if prompts:
        reports = [guard_text(p) for p in prompts]
        result["notinject"] = {
            "prompts": len(prompts),
            "withheld": sum(r.decision.withholds for r in reports),
            "warned": sum(bool(_categories(r)) and not r.decision.withholds for r in reports),
            "categories": dict(Counter(c for r in reports for c in _categories(r))),
        }
    pages = article_pages()
    if pages:
        from _train.corpus import held_out_article

        withheld, warned, held_withheld, held_warned, held = [], [], 0, 0, 0
        for page_id, html, name in pages:
            report = guard_html(parse_html(html))
            unseen = held_out_article(name)
            held += unseen
            if report.decision.withholds:
                withheld.append(page_id)
                held_withheld += unseen
            elif _categories(report):
                warned.append(page_id)
                held_warned += unseen
        result["articles"] = {"pages": len(pages), "withheld": withheld, "warned": len(warned),
                              "held_out_pages": held, "held_out_withheld": held_withheld,
                              "held_out_warned": held_warned}
    return result


def _median_ms(action: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        # CPU time: on a machine shared with other work, wall time mostly measures the others.
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return statistics.median(times) * 1000


def _alternated_ms(first: Any, second: Any, repeat: int) -> tuple[float, float]:
    """Median CPU ms of two actions run alternately, so a change in the machine's load hits both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, kept in ((first, times[0]), (second, times[1])):
            started = time.process_time()
            action()
            kept.append(time.process_time() - started)
    return statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000


def _big_page(pages: list[tuple[str, str]], size: int) -> str:
    bodies: list[str] = []
    total = 0
    for _, html in pages:
        match = _BODY.search(html)
        if match:
            bodies.append(match.group(1))
            total += len(match.group(1))
        if total >= size:
            break
    if not bodies:
        paragraph = "<p>" + text_of_size(2000) + "</p>"
        bodies = [paragraph] * (size // len(paragraph) + 1)
    body = "".join(bodies)
    while len(body) < size:
        body += body
    return f"<!DOCTYPE html><html><head><title>bench</title></head><body>{body[:size]}</body></html>"


@contextmanager
def _rules_only() -> Iterator[None]:
    """The guard without its learned detector: the same-run baseline for the detector's cost.

    (The detector cannot be switched off in pagewarden; only this benchmark stubs its step out.)
    """
    original = guard_module.learned_findings
    guard_module.learned_findings = lambda *args, **kwargs: []
    try:
        yield
    finally:
        guard_module.learned_findings = original


def _page_times(pages: list[tuple[str, str]]) -> dict[str, float]:
    """Median and mean per-page guard time, and trafilatura's on the same pages, interleaved per page."""
    guard_times, rules_times, extract_times = [], [], []
    for _, html in pages:
        root = parse_html(html)
        guard_times.append(_median_ms(lambda root=root: guard_html(root), 3))
        with _rules_only():
            rules_times.append(_median_ms(lambda root=root: guard_html(root), 3))
        extract_times.append(_median_ms(lambda html=html: trafilatura.extract(html), 1))
    return {
        "guard_median_ms": statistics.median(guard_times),
        "guard_mean_ms": statistics.mean(guard_times),
        "rules_only_median_ms": statistics.median(rules_times),
        "rules_only_mean_ms": statistics.mean(rules_times),
        "ratio_to_rules_only": statistics.median(guard_times) / statistics.median(rules_times),
        "trafilatura_median_ms": statistics.median(extract_times),
        "trafilatura_mean_ms": statistics.mean(extract_times),
    }


def speed(repeat: int) -> dict[str, Any]:
    """Median timings: 50 KiB of text, a 1 MiB page against trafilatura, and per corpus page.

    The guard without its detector (rules only) is timed in the same run, so
    the detector's cost is a ratio that the machine's load does not distort.
    """
    text = text_of_size(50 * 1024)
    guard_text(text)

    def rules_only() -> None:
        with _rules_only():
            guard_text(text)

    full_ms, rules_ms = _alternated_ms(lambda: guard_text(text), rules_only, repeat * 5)
    result: dict[str, Any] = {"text_50kib_ms": full_ms, "text_50kib_rules_only_ms": rules_ms,
                              "model_load": model_load()}
    # A guard call's fixed cost shows on short texts (a search snippet, a PDF page of a few KB).
    for size in (1, 4):
        short = text_of_size(size * 1024)

        def short_rules_only(short: str = short) -> None:
            with _rules_only():
                guard_text(short)

        result[f"text_{size}kib_ms"], result[f"text_{size}kib_rules_only_ms"] = _alternated_ms(
            lambda short=short: guard_text(short), short_rules_only, repeat * 40)
    pages = [(page_id, html) for page_id, html, _ in article_pages()]
    page = _big_page(pages, 1024 * 1024)
    guard_html(page)
    ours = _median_ms(lambda: guard_html(page), repeat)
    theirs = _median_ms(lambda: trafilatura.extract(page), repeat)
    result["html_1mib"] = {"chars": len(page), "guard_ms": ours, "trafilatura_ms": theirs, "ratio": ours / theirs}
    if pages:
        result["corpus_pages"] = _page_times(pages)
    return result


def learned() -> dict[str, Any]:
    """Leave-one-group-out validation of the detector (a full training run, nothing written)."""
    from _train.corpus import CORPORA
    from _train.pipeline import train

    if not (CORPORA / "guard-train").is_dir():
        return {"skipped": "guard-train corpus not found"}
    _, manifest = train()
    validation: dict[str, Any] = manifest["validation"]
    validation["thresholds"] = manifest["thresholds"]
    return validation


_LOAD_PROBE = """
import json, time
def rss():
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:")) / 1024
import pagewarden._guard.learned.model as m
before = rss()
started = time.perf_counter()
m.load_detector()
elapsed = time.perf_counter() - started
print(json.dumps({"load_ms": elapsed * 1000, "rss_added_mib": rss() - before}))
"""


def model_load() -> dict[str, Any]:
    """The detector's load time and the resident memory it adds, in a fresh process (median of 3)."""
    import subprocess

    runs = [json.loads(subprocess.run([sys.executable, "-c", _LOAD_PROBE], check=True, capture_output=True,
                                      text=True).stdout) for _ in range(3)]
    return {key: statistics.median(r[key] for r in runs) for key in ("load_ms", "rss_added_mib")}


def _print_learned(results: dict[str, Any]) -> None:
    if "learned" not in results:
        return
    val = results["learned"]
    print("== guard: learned detector, leave-one-group-out (model only, shipped balanced thresholds) ==")
    if "skipped" in val:
        print("  skipped:", val["skipped"])
        return
    print(f"  thresholds {val['thresholds']}")
    recall = val["attack_recall"]
    for group, row in sorted(recall.items(), key=lambda kv: kv[1]["flagged"]):
        print(f"  attack {group:58s} n={row['documents']:5d} flagged {row['flagged']:6.1%} "
              f"withheld {row['withheld_model']:6.1%}  with the rules: flagged {row['flagged_with_rules']:6.1%}")
    worst = min(recall.items(), key=lambda kv: kv[1]["flagged"])
    worst_guard = min(recall.items(), key=lambda kv: kv[1]["flagged_with_rules"])
    median = statistics.median(row["flagged"] for row in recall.values())
    median_guard = statistics.median(row["flagged_with_rules"] for row in recall.values())
    print(f"  worst attack fold: model {worst[0]} {worst[1]['flagged']:.1%}; with the rules "
          f"{worst_guard[0]} {worst_guard[1]['flagged_with_rules']:.1%}; median fold: model {median:.1%}, "
          f"with the rules {median_guard:.1%}")
    for group, row in sorted(val["benign_false_alarms"].items(), key=lambda kv: -kv[1]["flagged"]):
        print(f"  benign {group:58s} n={row['documents']:5d} flagged {row['flagged']:6.2%} "
              f"withheld {row['withheld_model']:6.2%}  with the rules: flagged {row['flagged_with_rules']:6.2%}")


def _print(results: dict[str, Any]) -> None:
    conf = results["conformance"]
    print("== guard: conformance with the reference (ts-guard-v1) ==")
    if "skipped" in conf:
        print("  skipped:", conf["skipped"])
    else:
        print(f"  decision agreement {conf['decision_agreement']:.1%} of {conf['cases']} (target >= 97%); "
              f"category agreement {conf['category_agreement']:.1%}; unexplained {conf['unexplained']}")
        for row in conf["disagreements"]:
            print(f"  - {row['case']}: ours {row['ours']}, reference {row['reference']}: {row['why']}")
    det = results["detection"]
    print("== guard: BIPIA detection (attack at start/middle/end) ==")
    if "skipped" in det:
        print("  skipped:", det["skipped"])
    else:
        print(f"  {det['injected_documents']} documents: flagged {det['overall_flagged']:.1%}, "
              f"withheld {det['overall_withheld']:.1%}")
        for category, row in det["per_category"].items():
            print(f"  {category:40s} flagged {row['flagged']:6.1%} withheld {row['withheld']:6.1%} "
                  f"(flagged at start {row['flagged_start']:.0%} middle {row['flagged_middle']:.0%} "
                  f"end {row['flagged_end']:.0%})")
        print(f"  clean contexts: {det['clean_contexts']}, withheld {det['clean_withheld']}, "
              f"warned {det['clean_warned']}")
    fps = results["false_positives"]
    print("== guard: false positives ==")
    if "notinject" in fps:
        ni = fps["notinject"]
        print(f"  NotInject: {ni['prompts']} prompts, withheld {ni['withheld']}, warned {ni['warned']} "
              f"{ni['categories']}")
    if "articles" in fps:
        ar = fps["articles"]
        print(f"  articles: {ar['pages']} pages, withheld {len(ar['withheld'])} {ar['withheld']}, "
              f"warned {ar['warned']}; of these, the {ar['held_out_pages']} pages the detector never saw: "
              f"withheld {ar['held_out_withheld']}, warned {ar['held_out_warned']}")
    _print_learned(results)
    _print_speed(results["speed"])


def _print_speed(sp: dict[str, Any]) -> None:
    print("== guard: speed (CPU time) ==")
    if "model_load" in sp:
        print(f"  detector load {sp['model_load']['load_ms']:.0f} ms (target <= 300), resident memory added "
              f"{sp['model_load']['rss_added_mib']:.1f} MiB (target <= 60)")
    print(f"  50 KiB of text: median {sp['text_50kib_ms']:.2f} ms (target <= 10 ms); rules only, same run: "
          f"{sp['text_50kib_rules_only_ms']:.2f} ms")
    for size in (1, 4):
        if f"text_{size}kib_ms" in sp:
            print(f"  {size} KiB of text (a call's fixed cost): median {sp[f'text_{size}kib_ms']:.3f} ms; rules only, "
                  f"same run: {sp[f'text_{size}kib_rules_only_ms']:.3f} ms")
    big = sp["html_1mib"]
    print(f"  1 MiB HTML ({big['chars']} chars): guard_html {big['guard_ms']:.1f} ms, trafilatura.extract "
          f"{big['trafilatura_ms']:.1f} ms, ratio {big['ratio']:.2f} (target <= 1.0)")
    if "corpus_pages" in sp:
        cp = sp["corpus_pages"]
        print(f"  per corpus page: guard median {cp['guard_median_ms']:.2f} ms (mean {cp['guard_mean_ms']:.2f}), "
              f"rules only {cp['rules_only_median_ms']:.2f} ms (mean {cp['rules_only_mean_ms']:.2f}), ratio "
              f"{cp['ratio_to_rules_only']:.2f} (target <= 1.3); trafilatura.extract median "
              f"{cp['trafilatura_median_ms']:.2f} ms (mean {cp['trafilatura_mean_ms']:.2f})")


def main(argv: list[str] | None = None) -> int:
    """Run every part of the guard benchmark and print (or dump as JSON) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--contexts", type=int, default=20, help="BIPIA contexts sampled per task")
    parser.add_argument("--repeat", type=int, default=5, help="timing repetitions (median)")
    parser.add_argument("--no-learned", action="store_true", help="skip the detector's validation (retraining)")
    parser.add_argument("--speed-only", action="store_true", help="time the guard only (no quality figures)")
    # `scripts/bench all` passes the static benchmark's options too; ignore them.
    args, _ = parser.parse_known_args(argv)
    if args.speed_only:
        speed_results = {"speed": speed(max(1, args.repeat))}
        if args.json:
            print(json.dumps(speed_results, indent=2))
        else:
            _print_speed(speed_results["speed"])
        return 0
    results = {
        "conformance": conformance(),
        "detection": detection(args.contexts),
        "false_positives": false_positives(),
        "speed": speed(max(1, args.repeat)),
    }
    if not args.no_learned:
        results["learned"] = learned()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
