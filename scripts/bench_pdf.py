"""PDF benchmark: pagewarden's PDF path and ``read()`` against the bare library call, and the candidate libraries.

PDFs are generated from the article corpus's ground-truth bodies (or generated
articles when the corpus is missing) with reportlab: a title, then the body in
10 pt Helvetica, alternately one and two columns, so the source text of every
PDF is known exactly. All are served from one loopback server.

Two passes, each comparing two sides per document, alternating which goes
first, best of ``--repeat`` runs after a warm-up:

``path`` (the issue's measure: the PDF path against the bare library call, like with like):
    (a) baseline: pypdfium2 in-process on the bytes (``PdfDocument`` and each
        page's ``get_textpage().get_text_range()``): no worker, no hidden-text
        analysis, no guard;
    (b) pagewarden: ``read_pdf`` on the same bytes, what ``read()`` runs for a
        PDF once it has the body: the worker process (kept between documents),
        per-object hidden-text analysis, layout, guard, safe Markdown.
``read`` (what a caller sees, HTTP on both sides):
    (a) a reused ``httpx.Client`` GET, then the bare call;
    (b) ``AsyncReader(...).read(url, render="never")`` on one long-lived
        reader (document cache off): the SSRF-safe transport, then the PDF path.

Each (b) is also given without the guard: each run's time less the time the
guard took (``PdfRead.guard_seconds``, ``fetch.timings.guard``), so the
guard's share is reported apart from the PDF path's.

Every figure is given twice: wall time, and CPU time (the bench process's,
every thread, plus the PDF worker's from ``/proc/PID/schedstat``; the guard's
CPU time by wrapping its call). On a machine shared with other work, wall
times include waiting for a CPU and swing with the load; CPU times much less.

Then, for the choice of library, each candidate's bare text extraction of the
same bytes in-process (pypdfium2, pypdf, pdfminer.six, pdfplumber; those not
installed are listed as missing), and whether each leaks the hidden-text
carriers of the test suite into its text.

Printed: per pass and clock (wall, CPU), per-page median and p90 of (a), (b)
and (b) without the guard, both ratios against (a); where (b)'s CPU time goes (the worker, the parent
without the guard, the guard: medians per page of each document's best run); text quality against the source (4-gram
shingle F1, ``_bench/metrics.py``), refusals by code and reason, the PDF
worker's peak RSS; the bench process's peak RSS; the load average.
Usage: ``scripts/bench pdf [--json] [--limit N] [--repeat N] [--generated] [--corpus DIR] [--skip-libraries]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import importlib.metadata
import io
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pypdfium2
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen import canvas

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _bench.corpus import DEFAULT_CORPUS, generated_pages, load_corpus
from _bench.metrics import percentile, quality
from _bench.server import serve_routes

import pagewarden
from pagewarden._pdf import PdfWorkers, read_pdf

WARMUP = 3
USE = "answer_with_citation"
RATIO_TARGET = 1.3
FONT, SIZE, LEADING = "Helvetica", 10, 13
WIDTH, HEIGHT = A4


def make_pdf(title: str, paragraphs: list[str], columns: int) -> tuple[bytes, int]:
    """A PDF of ``title`` and ``paragraphs`` in ``columns`` columns; returns the bytes and the page count."""
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=A4)
    c.setTitle(title)
    margin, gutter = 56, 20
    column_width = (WIDTH - 2 * margin - gutter * (columns - 1)) / columns
    pages = 1
    c.setFont("Helvetica-Bold", 16)
    y = HEIGHT - margin
    for line in simpleSplit(title, "Helvetica-Bold", 16, WIDTH - 2 * margin):
        c.drawString(margin, y, line)
        y -= 20
    top = y - 10
    column, y = 0, top
    c.setFont(FONT, SIZE)
    for paragraph in paragraphs:
        for line in simpleSplit(paragraph, FONT, SIZE, column_width):
            if y < margin:
                column += 1
                if column == columns:
                    c.showPage()
                    c.setFont(FONT, SIZE)
                    pages += 1
                    column, top = 0, HEIGHT - margin
                y = top
            c.drawString(margin + column * (column_width + gutter), y, line)
            y -= LEADING
        y -= LEADING / 2
    c.showPage()
    c.save()
    return buffer.getvalue(), pages


def corpus(args: argparse.Namespace) -> list[tuple[str, bytes, int, str]]:
    """(id, pdf, pages, source text) per document."""
    pages = generated_pages(args.limit) if args.generated or not args.corpus.exists() else load_corpus(args.corpus)
    documents = []
    for index, page in enumerate(pages[: args.limit]):
        lines = [line.strip() for line in page.truth.split("\n") if line.strip()]
        if len(lines) < 2:
            continue
        title, paragraphs = lines[0][:120], lines[1:]
        pdf, count = make_pdf(title, paragraphs, 1 + index % 2)
        documents.append((page.id, pdf, count, "\n".join([title, *paragraphs])))
    return documents


def bare_pdfium(data: bytes) -> str:
    """The bare library call: every page's text, nothing else."""
    document = pypdfium2.PdfDocument(data)
    try:
        texts = []
        for page in document:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return "\n".join(texts)
    finally:
        document.close()


def _pypdf(data: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


def _pdfminer(data: bytes) -> str:
    from pdfminer.high_level import extract_text

    return str(extract_text(io.BytesIO(data)))


def _pdfplumber(data: bytes) -> str:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


# name -> (import name, bare extraction); the name is also the distribution's name.
LIBRARIES: dict[str, tuple[str, Callable[[bytes], str]]] = {
    "pypdfium2": ("pypdfium2", bare_pdfium),
    "pypdf": ("pypdf", _pypdf),
    "pdfminer.six": ("pdfminer", _pdfminer),
    "pdfplumber": ("pdfplumber", _pdfplumber),
}


def _version(module: str, distribution: str) -> str | None:
    try:
        __import__(module)
        return importlib.metadata.version(distribution)
    except (ImportError, importlib.metadata.PackageNotFoundError):
        return None


def compare_libraries(documents: list[tuple[str, bytes, int, str]]) -> dict[str, Any]:
    """Per-page time, quality and hidden-text leakage of each candidate's bare extraction."""
    from tests.pdf.documents import CARRIERS, INJECTION, carrier_pdf

    carriers = [(carrier.name, carrier_pdf(carrier, INJECTION)) for carrier in CARRIERS]
    results: dict[str, Any] = {}
    for name, (module, extract) in LIBRARIES.items():
        version = _version(module, name)
        if version is None:
            results[name] = {"missing": True}
            continue
        per_page, pairs = [], []
        for _doc_id, pdf, count, source in documents:
            started = time.perf_counter()
            text = extract(pdf)
            per_page.append((time.perf_counter() - started) / count)
            pairs.append((source, text))
        leaked = [carrier for carrier, pdf in carriers if "previous instructions" in " ".join(extract(pdf).split())]
        results[name] = {
            "version": version,
            "per_page_ms_median": round(statistics.median(per_page) * 1000, 2),
            "quality": quality(pairs).to_dict(),
            "carriers_leaked": f"{len(leaked)}/{len(carriers)}",
        }
    return results


def _worker_peak_mib(workers: PdfWorkers | None) -> float | None:
    # The workers' high-water mark, read through the pool's private list of idle workers.
    peaks = []
    for process in workers._idle if workers is not None else ():
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]))
    return round(max(peaks) / 1024, 1) if peaks else None


# A side of a comparison: (url, pdf bytes) -> (text, seconds of it spent in the guard).
Side = Callable[[str, bytes], Awaitable[tuple[str, float]]]
SERIES = ("baseline", "pagewarden", "without_guard")


def count_guard_cpu() -> list[float]:
    """Wrap the PDF path's call of the built-in guard to add up its CPU time (thread time) in the returned cell."""
    from pagewarden._pdf import read as pdf_read

    spent = [0.0]
    inspect = pdf_read.inspect_segments

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return inspect(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - started

    setattr(pdf_read, "inspect_segments", timed)  # noqa: B010 (a bench-only wrapper)
    return spent


def worker_cpu(workers: PdfWorkers | None) -> float:
    """CPU time the pool's idle workers have run, from /proc/PID/schedstat (nanoseconds on the CPU)."""
    total = 0
    for process in workers._idle if workers is not None else ():
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(Path(f"/proc/{process.pid}/schedstat").read_text().split()[0])
    return total / 1e9


async def compare(documents: list[tuple[str, bytes, int, str]], base: str, baseline: Side, ours: Side,
                  repeat: int, *, ours_cpu: Callable[[], float], guard_cpu: list[float]) -> dict[str, Any]:
    """Per-page wall and CPU times (best of ``repeat``, alternating which side goes first), quality and refusals.

    CPU time is the bench process's (every thread) plus, for pagewarden, its PDF worker's (``ours_cpu``); the
    guard's CPU time comes from ``guard_cpu`` (see :func:`count_guard_cpu`). On a busy machine wall times
    include waiting for a CPU; CPU times do not.
    """
    for doc_id, pdf, *_ in documents[:WARMUP]:
        await baseline(f"{base}/{doc_id}.pdf", pdf)
        with contextlib.suppress(pagewarden.PagewardenError):
            await ours(f"{base}/{doc_id}.pdf", pdf)
    times: dict[str, dict[str, list[float]]] = {clock: {name: [] for name in SERIES} for clock in ("wall", "cpu")}
    # Where pagewarden's CPU time goes (its best run of each document, per page): the worker, the parent
    # (checking the answer, layout, segments, Markdown, thread and pipe), the guard.
    stages: dict[str, list[float]] = {"worker": [], "parent": [], "guard": []}
    pairs: dict[str, list[tuple[str, str]]] = {"baseline": [], "pagewarden": []}
    refused: Counter[str] = Counter()
    for index, (doc_id, pdf, count, source) in enumerate(documents):
        url = f"{base}/{doc_id}.pdf"
        sides = (("baseline", baseline), ("pagewarden", ours))
        for name, side in sides if index % 2 == 0 else sides[::-1]:
            best = {(clock, series): float("inf") for clock in ("wall", "cpu") for series in SERIES}
            split = (0.0, 0.0, 0.0)
            text = ""
            for _ in range(repeat):
                worker_started = ours_cpu() if name == "pagewarden" else 0.0
                cpu_started = time.process_time() + worker_started
                guard_cpu_started = guard_cpu[0]
                started = time.perf_counter()
                try:
                    text, guard_seconds = await side(url, pdf)
                except pagewarden.PagewardenError as error:
                    refused[f"{error.code}:{error.reason}"] += 1
                    break
                wall = time.perf_counter() - started
                worker = (ours_cpu() if name == "pagewarden" else 0.0) - worker_started
                cpu = time.process_time() + worker + worker_started - cpu_started
                if cpu < best[("cpu", name)]:
                    guard = guard_cpu[0] - guard_cpu_started
                    split = (worker, cpu - worker - guard, guard)
                # Without the guard: the same run less the time the guard took.
                for clock, spent, guard in (("wall", wall, guard_seconds),
                                            ("cpu", cpu, guard_cpu[0] - guard_cpu_started)):
                    best[(clock, name)] = min(best[(clock, name)], spent)
                    best[(clock, "without_guard")] = min(best[(clock, "without_guard")], spent - guard)
            if best[("wall", name)] == float("inf"):
                continue
            pairs[name].append((source, text))
            for clock in ("wall", "cpu"):
                times[clock][name].append(best[(clock, name)] / count)
                if name == "pagewarden":
                    times[clock]["without_guard"].append(best[(clock, "without_guard")] / count)
            if name == "pagewarden":
                for stage, spent in zip(stages, split, strict=True):
                    stages[stage].append(spent / count)
    out: dict[str, Any] = {}
    for clock, series in times.items():
        medians = {name: statistics.median(values) for name, values in series.items()}
        out[clock] = {
            name: {"per_page_ms_median": round(medians[name] * 1000, 3),
                   "per_page_ms_p90": round(percentile(values, 0.9) * 1000, 3)}
            for name, values in series.items()
        }
        out[clock]["ratio_median"] = round(medians["pagewarden"] / medians["baseline"], 3)
        out[clock]["ratio_without_guard_median"] = round(medians["without_guard"] / medians["baseline"], 3)
    out["cpu"]["stages_ms_median"] = {stage: round(statistics.median(values) * 1000, 3) if values else None
                                      for stage, values in stages.items()}
    out["quality"] = {name: quality(side_pairs).to_dict() for name, side_pairs in pairs.items()}
    out["refused"] = dict(refused)
    return out


async def run(args: argparse.Namespace, client: httpx.Client) -> dict[str, Any]:
    documents = corpus(args)
    by_path = {f"/{doc_id}.pdf": pdf for doc_id, pdf, _count, _source in documents}

    def route(path: str) -> tuple[str, bytes] | None:
        body = by_path.get(path)
        return None if body is None else ("application/pdf", body)

    results: dict[str, Any] = {"documents": len(documents),
                               "pages": sum(count for _id, _pdf, count, _source in documents)}
    with serve_routes(route, name="bench-pdf") as port:
        base = f"http://127.0.0.1:{port}"
        reader = pagewarden.AsyncReader(
            unsafe_allow_destinations=(f"127.0.0.1:{port}",), cache=pagewarden.CacheConfig(max_entries=0),
        )
        config = reader._config
        workers = PdfWorkers(max_workers=config.limits.pdf_workers, memory_bytes=config.limits.pdf_memory_bytes)
        try:
            async def bare_bytes(_url: str, pdf: bytes) -> tuple[str, float]:
                return bare_pdfium(pdf), 0.0

            async def path_bytes(url: str, pdf: bytes) -> tuple[str, float]:
                # The PDF path alone, on the same bytes: worker, hidden text, layout, guard, safe Markdown.
                outcome = await read_pdf(pdf, url=url, config=config, requested_use=USE, max_characters=100_000,
                                         workers=workers)
                return outcome.rendered.text, outcome.guard_seconds

            async def bare_http(url: str, _pdf: bytes) -> tuple[str, float]:
                # The bare side's own blocking client, as a caller without pagewarden would use it.
                return bare_pdfium(client.get(url).content), 0.0  # noqa: ASYNC212

            async def read_http(url: str, _pdf: bytes) -> tuple[str, float]:
                document = await reader.read(url, render="never", max_characters=100_000, requested_use=USE)
                return document.text, document.fetch.timings.guard

            guard_cpu = count_guard_cpu()
            results["path"] = await compare(documents, base, bare_bytes, path_bytes, args.repeat,
                                            ours_cpu=lambda: worker_cpu(workers), guard_cpu=guard_cpu)
            results["path"]["worker_peak_rss_mib"] = _worker_peak_mib(workers)
            results["read"] = await compare(documents, base, bare_http, read_http, args.repeat,
                                            ours_cpu=lambda: worker_cpu(reader._reads.pdf), guard_cpu=guard_cpu)
            results["read"]["worker_peak_rss_mib"] = _worker_peak_mib(reader._reads.pdf)
        finally:
            await workers.aclose()
            await reader.aclose()
    results["ratio_target"] = RATIO_TARGET
    results["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    results["load_average"] = [round(value, 2) for value in os.getloadavg()]
    results["libraries"] = {} if args.skip_libraries else compare_libraries(documents)
    results["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                          "date": datetime.date.today().isoformat()}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--limit", type=int, default=40, help="documents (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per document and side; the best counts")
    parser.add_argument("--generated", action="store_true", help="generated articles instead of the corpus")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--skip-libraries", action="store_true", help="leave out the candidate libraries' pass")
    args = parser.parse_args()
    with httpx.Client(trust_env=False) as client:
        results = asyncio.run(run(args, client))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"pdf: {results['documents']} documents, {results['pages']} pages;"
          f" load average {results['load_average']}")
    for name, title in (("path", "the PDF path on the same bytes"), ("read", "read() over loopback HTTP")):
        data = results[name]
        print(f"  {title}: F1 baseline {data['quality']['baseline']['f1']:.3f},"
              f" pagewarden {data['quality']['pagewarden']['f1']:.3f}; refused {data['refused']};"
              f" PDF worker peak RSS {data['worker_peak_rss_mib']} MiB")
        for clock in ("wall", "cpu"):
            figures = data[clock]
            cells = ", ".join(f"{side} {figures[side]['per_page_ms_median']:.2f} ms"
                              f" (p90 {figures[side]['per_page_ms_p90']:.2f})" for side in SERIES)
            print(f"    {clock:4} per page median: {cells}")
            print(f"         ratio {figures['ratio_median']:.2f}x, without guard"
                  f" {figures['ratio_without_guard_median']:.2f}x (target <= {RATIO_TARGET}x)")
            if "stages_ms_median" in figures:
                cells = ", ".join(f"{stage} {ms:.2f} ms" for stage, ms in figures["stages_ms_median"].items()
                                  if ms is not None)
                print(f"         pagewarden's CPU per page, median: {cells}")
    print(f"  peak RSS of the bench process: {results['peak_rss_mib']} MiB")
    print("  libraries (bare, in-process):")
    for name, data in results["libraries"].items():
        if data.get("missing"):
            print(f"    {name:13} not installed")
            continue
        print(f"    {name:13} {data['version']:>10}  {data['per_page_ms_median']:7.2f} ms/page"
              f"  F1 {data['quality']['f1']:.3f}  hidden carriers leaked {data['carriers_leaked']}")


if __name__ == "__main__":
    main()
