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
``--producers`` runs only the real-producer pass instead: PDFs made by Chromium's print to PDF, pdfLaTeX,
LibreOffice and groff (those installed; a missing one is named and skipped) from texts whose source is known,
read by ``read_pdf`` and by the bare call: F1 of each against the source, hidden runs by technique (on these
benign documents, false unless the print really hides the text), the guard's decisions, headings and list items.
Usage: ``scripts/bench pdf [--json] [--limit N] [--repeat N] [--generated] [--corpus DIR] [--skip-libraries]
[--producers [--producer-limit N]]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import gzip
import html
import importlib.metadata
import importlib.util
import io
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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


# -- real producers -------------------------------------------------------------------------------------------------
# PDFs made by the producers people use, from texts whose source is known: Chromium's print to PDF (the corpus's
# pages, every request but the page itself refused), pdfLaTeX (two-column papers and reports with a contents page,
# from the corpus's article bodies), LibreOffice (HTML straight to PDF, and HTML to DOCX to PDF), groff (man pages).
# Each is made only when the producer is installed; a missing one is named and skipped.

TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
               "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
FOOTNOTE = "A footnote set in small type, with an official office affliction."
LIST_ITEMS = ("Collect the samples every morning.", "Label each jar with the date.", "Store them in a cool place.")
MAN_PAGES = ("ls", "grep", "tar", "find")
PRODUCER_TIMEOUT = 120


def _tex(text: str) -> str:
    return "".join(TEX_SPECIAL.get(char, char) for char in text)


def _words(text: str, start: int = 0, count: int = 6) -> str:
    return " ".join(text.split()[start : start + count])


def _bodies(args: argparse.Namespace, minimum: int) -> list[tuple[str, list[str]]]:
    """(id, paragraphs) of corpus pages with at least ``minimum`` paragraphs of ASCII text (TeX needs no packages)."""
    pages = generated_pages(args.limit) if args.generated or not args.corpus.exists() else load_corpus(args.corpus)
    bodies = []
    for page in pages:
        paragraphs = [line.strip() for line in page.truth.split("\n") if len(line.strip()) > 40 and line.isascii()]
        if len(paragraphs) >= minimum:
            bodies.append((page.id, paragraphs))
    return bodies


def _latex_sources(bodies: list[tuple[str, list[str]]]) -> list[tuple[str, str, str]]:
    """(name, TeX, source text): two of three are two-column papers (abstract, sections, a footnote, an equation,
    a figure caption, a list, a bibliography, running heads), one a report with a table of contents."""
    made = []
    for index, (page_id, paragraphs) in enumerate(bodies):
        title = _words(paragraphs[0])
        if index % 3:
            truth = [title, "Ada Example", "Abstract", paragraphs[0]]
            body = []
            for number, start in enumerate(range(1, len(paragraphs), 3)):
                heading = _words(paragraphs[start], 1)
                body.append(f"\\section{{{_tex(heading)}}}")
                truth.append(f"{number + 1} {heading}")
                for offset, paragraph in enumerate(paragraphs[start : start + 3]):
                    note = f"\\footnote{{{FOOTNOTE}}}" if offset == 1 else ""
                    body.append(_tex(paragraph) + note + "\n")
                    truth += [paragraph, FOOTNOTE] if note else [paragraph]
                if number == 1:
                    body.append("\\begin{equation} E = m c^2 \\end{equation}")
                    body.append("\\begin{figure}[h]\\centering\\rule{3cm}{1cm}\\caption{Sediment flow.}\\end{figure}")
                    truth.append("Figure 1: Sediment flow.")
                if number == 2:
                    items = "".join(f"\\item {item}" for item in LIST_ITEMS)
                    body.append(f"\\begin{{itemize}}{items}\\end{{itemize}}")
                    truth += LIST_ITEMS
            body.append("\\begin{thebibliography}{9}\\bibitem{a} A. Author. A first reference. Journal, 2019."
                        "\\end{thebibliography}")
            truth += ["References", "[1] A. Author. A first reference. Journal, 2019."]
            tex = ("\\documentclass[twocolumn,10pt]{article}\\usepackage[T1]{fontenc}\\usepackage{fancyhdr}"
                   "\\pagestyle{fancy}\\fancyhead[L]{Running Head}\\fancyhead[R]{\\thepage}"
                   f"\\title{{{_tex(title)}}}\\author{{Ada Example}}\\date{{}}\\begin{{document}}\\maketitle"
                   f"\\begin{{abstract}}{_tex(paragraphs[0])}\\end{{abstract}}" + "\n".join(body) + "\\end{document}\n")
            made.append((f"paper-{page_id[:10]}", tex, "\n".join(truth)))
        else:
            truth, body = [title], []
            for number, start in enumerate(range(0, len(paragraphs), 2)):
                heading = _words(paragraphs[start], 1)
                body.append(f"\\section{{{_tex(heading)}}}")
                truth.append(f"{number + 1} {heading}")
                for paragraph in paragraphs[start : start + 2]:
                    body.append(_tex(paragraph) + "\n")
                    truth.append(paragraph)
            tex = ("\\documentclass[11pt]{article}\\usepackage{mathptmx}"
                   f"\\title{{{_tex(title)}}}\\author{{Ada Example}}\\begin{{document}}\\maketitle\\tableofcontents"
                   "\\newpage" + "\n".join(body) + "\\end{document}\n")
            made.append((f"report-{page_id[:10]}", tex, "\n".join(truth)))
    return made


def _make_latex(bodies: list[tuple[str, list[str]]], folder: Path) -> list[tuple[str, bytes, str]]:
    documents = []
    for name, tex, truth in _latex_sources(bodies):
        (folder / f"{name}.tex").write_text(tex)
        for _ in range(2):  # twice: the contents page and the references need the first run's aux file
            subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=folder,
                           capture_output=True, timeout=PRODUCER_TIMEOUT, check=False)
        pdf = folder / f"{name}.pdf"
        if pdf.exists():
            documents.append((name, pdf.read_bytes(), truth))
    return documents


def _html_report(paragraphs: list[str]) -> tuple[str, str]:
    """An HTML report (headings, both kinds of list, a table, header and footer) and its source text."""
    title = _words(paragraphs[0], 0, 7)
    truth, body = [title], [f'<div title="header"><p>Report header</p></div><h1>{html.escape(title)}</h1>']
    for index, paragraph in enumerate(paragraphs):
        if index % 4 == 1:
            heading = _words(paragraph, 0, 4)
            body.append(f"<h2>{html.escape(heading)}</h2>")
            truth.append(heading)
        body.append(f"<p>{html.escape(paragraph)}</p>")
        truth.append(paragraph)
        if index == 2:
            for tag in ("ul", "ol"):
                body.append(f"<{tag}>" + "".join(f"<li>{item}</li>" for item in LIST_ITEMS) + f"</{tag}>")
            truth += [*LIST_ITEMS, *(f"{number}. {item}" for number, item in enumerate(LIST_ITEMS, 1))]
        if index == 3:
            rows = (("Site", "Depth", "Result"), ("North bank", "2 m", "clear"), ("South bank", "5 m", "murky"))
            body.append("<table border=1>" + "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                                                     for row in rows) + "</table>")
            truth += [" ".join(row) for row in rows]
    body.append('<div title="footer"><p>Report footer</p></div>')
    page = "<html><head><meta charset=utf-8></head><body>" + "\n".join(body) + "</body></html>"
    return page, "\n".join(truth)


def _soffice(folder: Path, *arguments: str) -> None:
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{folder}/profile", *arguments],
                   cwd=folder, capture_output=True, timeout=PRODUCER_TIMEOUT * 3, check=False)


def _make_libreoffice(bodies: list[tuple[str, list[str]]], folder: Path) -> dict[str, list[tuple[str, bytes, str]]]:
    truths = {}
    for page_id, paragraphs in bodies:
        page, truth = _html_report(paragraphs)
        (folder / f"lo-{page_id[:10]}.html").write_text(page)
        truths[f"lo-{page_id[:10]}"] = truth
    names = sorted(truths)
    _soffice(folder, "--convert-to", "pdf:writer_web_pdf_Export", *[f"{name}.html" for name in names])
    direct = [(name, (folder / f"{name}.pdf").read_bytes(), truths[name]) for name in names
              if (folder / f"{name}.pdf").exists()]
    docx = folder / "docx"
    docx.mkdir()
    _soffice(folder, "--infilter=HTML (StarWriter)", "--convert-to", "docx", "--outdir", str(docx),
             *[f"{name}.html" for name in names])
    _soffice(docx, "--convert-to", "pdf", *[f"{name}.docx" for name in names if (docx / f"{name}.docx").exists()])
    via_docx = [(name, (docx / f"{name}.pdf").read_bytes(), truths[name]) for name in names
                if (docx / f"{name}.pdf").exists()]
    return {"libreoffice_html": direct, "libreoffice_docx": via_docx}


def _make_groff(folder: Path) -> list[tuple[str, bytes, str]]:
    documents = []
    for name in MAN_PAGES:
        found = subprocess.run(["man", "-w", name], capture_output=True, text=True, check=False)
        source = Path(found.stdout.strip())
        if found.returncode or not source.is_file():
            continue
        roff = gzip.decompress(source.read_bytes()) if source.suffix == ".gz" else source.read_bytes()
        pdf = subprocess.run(["groff", "-man", "-Tpdf"], input=roff, capture_output=True, check=False,
                             timeout=PRODUCER_TIMEOUT).stdout
        text = subprocess.run(["groff", "-man", "-Tutf8", "-P-cbou"], input=roff, capture_output=True, check=False,
                              timeout=PRODUCER_TIMEOUT).stdout.decode("utf-8", "replace")
        if pdf.startswith(b"%PDF"):
            documents.append((name, pdf, text))
    return documents


def _chromium() -> str | None:
    from pagewarden._browser.discovery import find_chromium

    try:
        return str(find_chromium().path)
    except pagewarden.PagewardenError:
        return None


async def _make_chromium(executable: str, args: argparse.Namespace) -> list[tuple[str, bytes, str]]:
    """The corpus's pages printed by Chromium (A4, backgrounds), scripts off and every request refused."""
    from playwright.async_api import async_playwright

    pages = load_corpus(args.corpus)[: args.producer_limit] if args.corpus.exists() else []
    documents = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable)
        try:
            context = await browser.new_context(java_script_enabled=False)
            await context.route("**/*", lambda route: route.abort())
            for page in pages:
                tab = await context.new_page()
                try:
                    await asyncio.wait_for(tab.set_content(page.html.decode("utf-8", "replace"),
                                                           wait_until="domcontentloaded"), 20)
                    pdf = await asyncio.wait_for(tab.pdf(format="A4", print_background=True), 20)
                    documents.append((page.id, pdf, page.truth))
                except (TimeoutError, playwright_error()):
                    pass  # a page that does not print in time is left out (counted as not made)
                finally:
                    await tab.close()
        finally:
            await browser.close()
    return documents


def playwright_error() -> type[Exception]:
    from playwright.async_api import Error

    return Error


def _structure(markdown: str) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for block in markdown.split("\n"):
        if block.startswith("#"):
            kinds["headings"] += 1
        elif block.startswith("- ") or (block[:1].isdigit() and ". " in block[:5]):
            kinds["items"] += 1
    return kinds


async def measure_producer(documents: list[tuple[str, bytes, str]], config: Any, workers: PdfWorkers
                           ) -> dict[str, Any]:
    """F1 of pagewarden's text and the bare call's against the source, hidden runs, decisions, structure."""
    from pagewarden._pdf.extract import ExtractLimits, extract_pdf

    pairs: dict[str, list[tuple[str, str]]] = {"baseline": [], "pagewarden": []}
    hidden: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    structure: Counter[str] = Counter()
    with_hidden = pages = 0
    for name, pdf, truth in documents:
        facts = extract_pdf(pdf, ExtractLimits(max_pages=300, max_characters=2_000_000))
        runs = [technique for page in facts["pages"] for technique, _text in page["hidden"]]
        hidden.update(runs)
        with_hidden += bool(runs)
        pages += facts["page_count"]
        pairs["baseline"].append((truth, bare_pdfium(pdf)))
        try:
            outcome = await read_pdf(pdf, url=f"http://127.0.0.1/{name}.pdf", config=config, requested_use=USE,
                                     max_characters=1_000_000, workers=workers)
        except pagewarden.PagewardenError as error:
            refused[f"{error.code}:{error.reason}"] += 1
            continue
        decisions[str(outcome.report.decision)] += 1
        structure.update(_structure(outcome.rendered.markdown))
        pairs["pagewarden"].append((truth, outcome.rendered.text))
    return {
        "documents": len(documents), "pages": pages,
        "quality": {side: quality(side_pairs).to_dict() for side, side_pairs in pairs.items()},
        "hidden_runs": sum(hidden.values()), "hidden_by_technique": dict(hidden), "documents_with_hidden": with_hidden,
        "decisions": dict(decisions), "refused": dict(refused), "structure": dict(structure),
    }


async def real_producers(args: argparse.Namespace) -> dict[str, Any]:
    """The real-producer pass: each installed producer's documents, measured; a missing one named as skipped."""
    results: dict[str, Any] = {}
    sets: dict[str, list[tuple[str, bytes, str]]] = {}
    bodies = _bodies(args, 8)[: args.producer_limit]
    with tempfile.TemporaryDirectory(prefix="bench-pdf-producers-") as temporary:
        folder = Path(temporary)
        executable = _chromium()
        if executable is None or importlib.util.find_spec("playwright") is None:
            results["chromium"] = {"skipped": "no Chromium (PAGEWARDEN_CHROMIUM, Playwright's, or the system's)"}
        else:
            sets["chromium"] = await _make_chromium(executable, args)
        for tool, name in (("pdflatex", "pdflatex"), ("soffice", "libreoffice"), ("groff", "groff")):
            if shutil.which(tool) is None:
                results[name] = {"skipped": f"{tool} not installed"}
                continue
            (folder / name).mkdir()
            if name == "pdflatex":
                sets[name] = _make_latex(bodies, folder / name)
            elif name == "libreoffice":
                sets.update(_make_libreoffice(bodies[:16], folder / name))
            else:
                sets[name] = _make_groff(folder / name)
                if not sets[name]:
                    results[name] = {"skipped": "groff cannot write PDF here (gropdf missing)"}
                    del sets[name]
        reader = pagewarden.AsyncReader(cache=pagewarden.CacheConfig(max_entries=0))
        config = reader._config
        workers = PdfWorkers(max_workers=1, memory_bytes=config.limits.pdf_memory_bytes)
        try:
            for name, documents in sets.items():
                results[name] = await measure_producer(documents, config, workers)
        finally:
            await workers.aclose()
            await reader.aclose()
    return results


def print_producers(results: dict[str, Any]) -> None:
    print("  real producers (F1 against the source; pagewarden / bare):")
    for name, data in results.items():
        if "skipped" in data:
            print(f"    {name:17} skipped: {data['skipped']}")
            continue
        ours, bare = data["quality"]["pagewarden"], data["quality"]["baseline"]
        print(f"    {name:17} {data['documents']:3} docs {data['pages']:4} pages"
              f"  F1 {ours['f1']:.3f} / {bare['f1']:.3f}"
              f" (recall {ours['recall']:.3f} / {bare['recall']:.3f}); hidden runs {data['hidden_runs']}"
              f" in {data['documents_with_hidden']} docs {data['hidden_by_technique']}; decisions {data['decisions']}"
              f"; refused {data['refused']}; {data['structure']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--limit", type=int, default=40, help="documents (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per document and side; the best counts")
    parser.add_argument("--generated", action="store_true", help="generated articles instead of the corpus")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--skip-libraries", action="store_true", help="leave out the candidate libraries' pass")
    parser.add_argument("--producers", action="store_true",
                        help="only the real-producer pass (Chromium, pdfLaTeX, LibreOffice, groff: those installed)")
    parser.add_argument("--producer-limit", type=int, default=181, help="documents per producer (default 181)")
    args = parser.parse_args()
    if args.producers:
        producers = asyncio.run(real_producers(args))
        if args.json:
            print(json.dumps({"producers": producers}, indent=2))
        else:
            print_producers(producers)
        return
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
