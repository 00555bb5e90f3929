"""PDF benchmark: pagewarden ``read()`` of PDFs against the bare library call, and the candidate libraries.

PDFs are generated from the article corpus's ground-truth bodies (or generated
articles when the corpus is missing) with reportlab: a title, then the body in
10 pt Helvetica, alternately one and two columns, so the source text of every
PDF is known exactly. All are served from one loopback server.

Sides, per document, alternating which goes first, after a warm-up:

(a) baseline: a reused ``httpx.Client`` GET, then pypdfium2 in-process
    (``PdfDocument`` and each page's ``get_textpage().get_text_range()``):
    the bare library call, no worker, no hidden-text analysis, no guard;
(b) pagewarden: ``AsyncReader(...).read(url, render="never")`` on one
    long-lived reader (document cache off): the worker process, hidden-text
    analysis, guard, layout and safe Markdown.

Then, for the choice of library, each candidate's bare text extraction of the
same bytes in-process (pypdfium2, pypdf, pdfminer.six, pdfplumber; those not
installed are listed as missing), and whether each leaks the hidden-text
carriers of the test suite into its text.

Printed: per-page median and p90 of (a) and (b), their ratio, text quality
against the source (4-gram shingle F1, ``_bench/metrics.py``), refusals by
code and reason, the process's peak RSS and the PDF worker's peak RSS.
Usage: ``scripts/bench pdf [--json] [--limit N] [--generated] [--corpus DIR]``.
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
from collections.abc import Callable
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

WARMUP = 3
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


def _worker_peak_kib(reader: pagewarden.AsyncReader) -> int | None:
    # The bench reads the worker's high-water mark through the reader's private read path.
    workers = reader._reads.pdf
    if workers is None:
        return None
    peaks = []
    for process in workers._idle:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]))
    return max(peaks) if peaks else None


async def run(args: argparse.Namespace, client: httpx.Client) -> dict[str, Any]:
    documents = corpus(args)
    by_path = {f"/{doc_id}.pdf": pdf for doc_id, pdf, _count, _source in documents}

    def route(path: str) -> tuple[str, bytes] | None:
        body = by_path.get(path)
        return None if body is None else ("application/pdf", body)

    results: dict[str, Any] = {}
    with serve_routes(route, name="bench-pdf") as port:
        base = f"http://127.0.0.1:{port}"
        reader = pagewarden.AsyncReader(
            unsafe_allow_destinations=(f"127.0.0.1:{port}",), cache=pagewarden.CacheConfig(max_entries=0),
        )
        try:
            async def ours(url: str) -> str:
                document = await reader.read(url, render="never", max_characters=100_000)
                return document.text

            def theirs(url: str) -> str:
                response = client.get(url)
                return bare_pdfium(response.content)

            for doc_id, *_ in documents[:WARMUP]:
                theirs(f"{base}/{doc_id}.pdf")
                with contextlib.suppress(pagewarden.PagewardenError):
                    await ours(f"{base}/{doc_id}.pdf")
            base_times: list[float] = []
            our_times: list[float] = []
            base_pairs, our_pairs = [], []
            refused: Counter[str] = Counter()
            for index, (doc_id, _pdf, count, source) in enumerate(documents):
                url = f"{base}/{doc_id}.pdf"
                order = (0, 1) if index % 2 == 0 else (1, 0)
                for side in order:
                    best_base, best_ours = float("inf"), float("inf")
                    for _ in range(args.repeat):
                        started = time.perf_counter()
                        if side == 0:
                            text = theirs(url)
                            best_base = min(best_base, time.perf_counter() - started)
                        else:
                            try:
                                text = await ours(url)
                            except pagewarden.PagewardenError as error:
                                refused[f"{error.code}:{error.reason}"] += 1
                                text = ""
                                break
                            best_ours = min(best_ours, time.perf_counter() - started)
                    if side == 0:
                        base_times.append(best_base / count)
                        base_pairs.append((source, text))
                    elif best_ours != float("inf"):
                        our_times.append(best_ours / count)
                        our_pairs.append((source, text))
            worker_peak = _worker_peak_kib(reader)
        finally:
            await reader.aclose()
    base_median, our_median = statistics.median(base_times), statistics.median(our_times)
    results["documents"] = len(documents)
    results["pages"] = sum(count for _id, _pdf, count, _source in documents)
    results["baseline"] = {
        "per_page_ms_median": round(base_median * 1000, 3),
        "per_page_ms_p90": round(percentile(base_times, 0.9) * 1000, 3),
        "quality": quality(base_pairs).to_dict(),
    }
    results["pagewarden"] = {
        "per_page_ms_median": round(our_median * 1000, 3),
        "per_page_ms_p90": round(percentile(our_times, 0.9) * 1000, 3),
        "quality": quality(our_pairs).to_dict(),
        "refused": dict(refused),
    }
    results["ratio_median"] = round(our_median / base_median, 3)
    results["ratio_target"] = RATIO_TARGET
    results["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    results["worker_peak_rss_mib"] = None if worker_peak is None else round(worker_peak / 1024, 1)
    results["libraries"] = compare_libraries(documents)
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
    args = parser.parse_args()
    with httpx.Client(trust_env=False) as client:
        results = asyncio.run(run(args, client))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"pdf: {results['documents']} documents, {results['pages']} pages")
    for side in ("baseline", "pagewarden"):
        data = results[side]
        print(f"  {side:11} per page median {data['per_page_ms_median']:.2f} ms, p90 {data['per_page_ms_p90']:.2f} ms,"
              f" F1 {data['quality']['f1']:.3f}")
    print(f"  ratio {results['ratio_median']:.2f}x (target <= {RATIO_TARGET}x);"
          f" refused {results['pagewarden']['refused']}")
    print(f"  peak RSS: bench process {results['peak_rss_mib']} MiB, PDF worker {results['worker_peak_rss_mib']} MiB")
    print("  libraries (bare, in-process):")
    for name, data in results["libraries"].items():
        if data.get("missing"):
            print(f"    {name:13} not installed")
            continue
        print(f"    {name:13} {data['version']:>10}  {data['per_page_ms_median']:7.2f} ms/page"
              f"  F1 {data['quality']['f1']:.3f}  hidden carriers leaked {data['carriers_leaked']}")


if __name__ == "__main__":
    main()
