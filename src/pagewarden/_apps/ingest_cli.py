"""The ``pagewarden ingest`` command: read a file of URLs into a JSONL file, politely and resumably.

Wiring (in ``pagewarden/cli.py``): ``add_ingest_parser(commands)`` registers the
subcommand and its options; ``run_ingest(args, out, err)`` runs it and returns
the exit code:

====  ================================================================
code  meaning
====  ================================================================
0     the run finished (pages that failed are failure records in OUT)
2     invalid usage: OUT exists without ``--resume``, INPUT missing, a
      bad option value or reader configuration
130   interrupted (Ctrl-C or SIGTERM): in-flight reads cancelled, the
      browser closed, every line of OUT complete; ``--resume`` continues
====  ================================================================

Progress goes to ``err`` (a live display on a terminal, a line a minute
otherwise), then a summary. ``out`` is not used: records go to OUT only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from .._cli_options import add_browser_options, add_guard_options, add_unsafe_options, browser_config, proxy_options
from .._config import RENDER_MODES, CacheConfig
from .._errors import PagewardenError
from .._ingest.files import JsonlSink, _open_input, count_inputs, input_lines, load_done_urls
from .._ingest.progress import run_interruptible, run_progress, summary_text
from .._ingest.records import parse_input_line
from .._ingest.robots_cache import RobotsCache
from .._ingest.runner import IngestOptions, IngestStats, ingest
from .._reader import AsyncReader
from .._store import ReadStoreConfig

__all__ = ["add_ingest_parser", "main", "run_ingest"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# How long an interrupted Ray read may take to reach its next record before its runtime is ended anyway.
_RAY_STOP_SECONDS = 30.0

_EPILOG = """Each input line (a URL, or a JSON object with a "url" field and pass-through fields) yields
exactly one output line: the document, or a failure record (url, code, reason, retryable,
message). URLs disallowed by robots.txt are failures with code UNSAFE_URL and reason
robots_disallowed (robots_unavailable when robots.txt could not be read: unreachable, 429 or
5xx). exit codes: 0 finished; 2 invalid usage; 130 interrupted (resume with --resume)."""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError("must be a number of seconds, 0 or more")
    return value


def add_ingest_parser(commands: Any) -> None:
    """Register the ``ingest`` subcommand with all its options on argparse ``commands``."""
    parser = commands.add_parser(
        "ingest", help="read a file of URLs into a JSONL file (politely, resumably)", epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="text file of URLs or JSONL with a url field; - for stdin")
    parser.add_argument("--out", required=True, metavar="OUT.jsonl", help="output file, one JSON object per line")
    parser.add_argument("--resume", action="store_true",
                        help="skip URLs already in OUT and append (OUT's URLs are kept in memory)")
    parser.add_argument("--render", choices=RENDER_MODES, default="auto", help="rendering mode (default: auto)")
    parser.add_argument("--concurrency", type=_positive, default=8, metavar="N",
                        help="reads at a time (default: 8)")
    parser.add_argument("--per-host", type=_positive, default=2, metavar="N",
                        help="reads at a time per host (default: 2)")
    parser.add_argument("--min-delay", type=_seconds, default=0.5, metavar="SECONDS",
                        help="minimum time between two request starts on one host (default: 0.5)")
    parser.add_argument("--robots", choices=("respect", "ignore"), default="respect",
                        help="obey robots.txt (default: respect)")
    parser.add_argument("--max-pages", type=_positive, default=None, metavar="N",
                        help="stop after N inputs (resumed ones not counted)")
    parser.add_argument("--max-characters", type=int, default=20_000, metavar="N",
                        help="cap on characters per document, 200..100000 (default: 20000)")
    parser.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                        help="deadline of each read (default: 15)")
    add_guard_options(parser)
    add_unsafe_options(parser)
    add_browser_options(parser)
    parser.add_argument("--browser-concurrency", type=_positive, default=2, metavar="N",
                        help="pages rendered at a time by the browser (default: 2)")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="read on a Ray cluster (an address for ray.init such as 'auto' or "
                             "'ray://head:10001', or 'local' for a local runtime); needs pagewarden[ray]")
    parser.add_argument("--ray-actors", type=_positive, default=2, metavar="N",
                        help="reader actors on the cluster, each with one browser (default: 2)")
    parser.add_argument("--progress-interval", type=float, default=None, metavar="SECONDS",
                        help=argparse.SUPPRESS)  # for tests: the plain progress line's period


def _reader_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "guard_profile": args.profile,
        "unsafe_allow_destinations": tuple(args.unsafe_allow_destination),
        "unsafe_allow_sensitive_query": args.unsafe_allow_sensitive_query,
        **proxy_options(args),
        "browser": browser_config(args, concurrency=args.browser_concurrency),
        # A batch reads each URL once: caching documents would only hold memory,
        # and nobody searches a batch's read store (the records are the output).
        "cache": CacheConfig(document_ttl=0, search_ttl=0),
        "read_store": ReadStoreConfig(enabled=False),
    }


def _usage(err: TextIO, message: str) -> int:
    err.write(f"pagewarden ingest: {message}\n")
    return EXIT_USAGE


def run_ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``pagewarden ingest`` from parsed ``args``; returns the exit code (see the module docstring)."""
    if args.input != "-" and not os.path.isfile(args.input):
        return _usage(err, "INPUT is not a readable file")
    if not args.resume and os.path.exists(args.out) and os.path.getsize(args.out) > 0:
        return _usage(err, "OUT already exists; use --resume to continue it, or remove it")
    try:
        options = IngestOptions(
            render=args.render, concurrency=args.concurrency, per_host=args.per_host,
            min_delay=args.min_delay, max_pages=args.max_pages, max_characters=args.max_characters,
            timeout=args.timeout, requested_use=args.requested_use,
        )
        reader = AsyncReader(**_reader_options(args))
    except (PagewardenError, ValueError) as error:
        detail = f" [{error.reason}]" if isinstance(error, PagewardenError) and error.reason else ""
        return _usage(err, f"invalid options{detail}: {error}")
    skip = load_done_urls(args.out) if args.resume else set()
    stats = IngestStats(total=_total(args, len(skip)))
    try:
        sink = JsonlSink(args.out, append=True)
    except OSError as error:
        return _usage(err, f"cannot open OUT ({error.strerror})")
    if args.ray:
        try:
            return _run_on_ray(args, skip, sink, stats, err)
        finally:
            sink.close()
    try:
        anyio.run(_run, reader, args, options, sink, skip, stats, err)
    except KeyboardInterrupt:
        # Ctrl-C before the signal handler was installed (or off the main thread).
        stats.interrupted = True
    finally:
        sink.close()
    err.write(summary_text(stats, args.out))
    return EXIT_INTERRUPTED if stats.interrupted else EXIT_OK


def _ray_items(args: argparse.Namespace, skip: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The inputs still to read, lazily, in the order given (resumed and over-limit ones left out)."""
    taken = 0
    with contextlib.ExitStack() as stack:
        handle = _open_input(args.input)
        if handle is not sys.stdin:
            stack.enter_context(handle)
        for line in handle:
            parsed = parse_input_line(line)
            if parsed is None or parsed[0] in skip:
                continue
            if args.max_pages is not None and taken >= args.max_pages:
                return
            taken += 1
            yield parsed


def _run_on_ray(args: argparse.Namespace, skip: set[str], sink: JsonlSink, stats: IngestStats, err: TextIO) -> int:
    try:
        from .ray.runtime import ray_output_to, ray_runtime
    except ImportError:
        return _usage(err, "--ray needs the ray extra: pip install 'pagewarden[ray]'")
    # Ray's own output (its loggers, its C++ core, the processes it spawns) goes to a log beside OUT,
    # so that the terminal shows pagewarden's progress and summary only.
    log_path = f"{args.out}.ray.log"
    try:
        # The runtime started here ends here, on success, failure and Ctrl-C (its actors with it).
        with ray_output_to(log_path) as terminal, ray_runtime(args.ray, quiet=True):
            progress = terminal if err is sys.stderr else err
            anyio.run(_read_on_ray, args, skip, sink, stats, progress)
    except KeyboardInterrupt:
        stats.interrupted = True
    err.write(summary_text(stats, args.out))
    if os.path.exists(log_path) and os.path.getsize(log_path) > 0:
        err.write(f"  Ray's own log lines: {log_path}\n")
    return EXIT_INTERRUPTED if stats.interrupted else EXIT_OK


class _Stopped(Exception):
    """Raised in the thread that drives Ray, at its next record after an interrupt, to end the read."""


async def _read_on_ray(
    args: argparse.Namespace, skip: set[str], sink: JsonlSink, stats: IngestStats, progress: TextIO
) -> None:
    from .ray.engine import ingest_with_ray

    token = anyio.lowlevel.current_token()
    stop = threading.Event()
    finished = anyio.Event()
    failures: list[BaseException] = []

    def take(record: dict[str, Any]) -> None:
        sink.write(record)
        stats.count(record)

    def write(record: dict[str, Any]) -> None:
        if stop.is_set():
            raise _Stopped
        # Records and counters are handled on the event loop, where the progress display reads them.
        anyio.from_thread.run_sync(take, record, token=token)

    def drive() -> None:
        try:
            ingest_with_ray(
                _ray_items(args, skip), write, address=None,
                reader_options={**_reader_options(args), "max_characters": args.max_characters,
                                "timeout": args.timeout},
                actors=args.ray_actors, concurrency_per_actor=args.concurrency, per_host=args.per_host,
                min_delay=args.min_delay, render=args.render, requested_use=args.requested_use, robots=args.robots,
            )
        except _Stopped:
            pass
        except BaseException as error:  # raised again on the event loop
            failures.append(error)
        finally:
            with contextlib.suppress(RuntimeError):  # the event loop is gone
                anyio.from_thread.run_sync(finished.set, token=token)

    # Ray is driven from a daemon thread of its own: on Ctrl-C the read stops at its next record and is waited
    # for (bounded), so that the runtime is not ended under it; one that does not stop cannot hold the process.
    driver = threading.Thread(target=drive, name="pagewarden-ray-driver", daemon=True)
    driver.start()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: run_progress(stats, progress, interval=args.progress_interval))
            await finished.wait()
            group.cancel_scope.cancel()
    finally:
        stop.set()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(driver.join, _RAY_STOP_SECONDS)
    if failures:
        raise failures[0]
    stats.finished = time.monotonic()


def _total(args: argparse.Namespace, already: int) -> int | None:
    counted = count_inputs(args.input)
    if counted is None:
        return args.max_pages if args.max_pages is not None and args.input == "-" else None
    left = max(counted - already, 0)  # approximate when the input repeats URLs
    return min(left, args.max_pages) if args.max_pages is not None else left


async def _run(
    reader: AsyncReader, args: argparse.Namespace, options: IngestOptions, sink: JsonlSink,
    skip: set[str], stats: IngestStats, err: TextIO,
) -> None:
    robots = RobotsCache(reader.config) if args.robots == "respect" else None

    async def work() -> None:
        await ingest(reader, input_lines(args.input), sink.write, options, robots=robots, skip=skip, stats=stats)

    await run_interruptible(work, reader, stats, err, interval=args.progress_interval)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ingest`` alone (``python -m pagewarden._apps.ingest_cli INPUT --out OUT ...``); returns the exit code."""
    parser = argparse.ArgumentParser(prog="pagewarden")
    commands = parser.add_subparsers(dest="command", required=True)
    add_ingest_parser(commands)
    args = parser.parse_args(["ingest", *(sys.argv[1:] if argv is None else argv)])
    return run_ingest(args, sys.stdout, sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
