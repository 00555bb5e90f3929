"""The ``pagewarden crawl`` and ``pagewarden map`` commands.

Wiring (in ``pagewarden/cli.py``): ``add_crawl_parsers(commands)`` registers
both subcommands; ``run_crawl(args, out, err)`` and ``run_map(args, out, err)``
run them and return the exit code (the codes of ``ingest``: 0 finished, 2
invalid usage, 130 interrupted). ``crawl`` writes the records of ``ingest``
plus ``depth`` and ``found_on`` to OUT and keeps its frontier journal in
``OUT.frontier`` for ``--resume``; ``map`` prints one URL per line on ``out``.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

import anyio

from .._cli_options import add_browser_options, add_guard_options, add_unsafe_options, proxy_options
from .._config import RENDER_MODES
from .._crawl.api import map_read, page_record
from .._crawl.api import run_map as map_urls
from .._crawl.crawler import Crawler, CrawlOptions, CrawlStats, Outcome, ReadFunction, local_read
from .._crawl.frontier import QueuedPage, journal_path
from .._crawl.scope import SCOPES
from .._errors import PagewardenError
from .._ingest.files import JsonlSink, load_done_urls
from .._ingest.progress import run_interruptible, summary_text
from .._ingest.robots_cache import RobotsCache
from .._reader import AsyncReader
from .ingest_cli import _positive, _reader_options, _seconds

__all__ = ["add_crawl_parsers", "run_crawl", "run_map"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

_EPILOG = """Every page read yields one line in OUT: the document (as `pagewarden ingest` writes it) or a
failure record, each with "depth" and "found_on". Links of failed or withheld pages are not followed.
The frontier is journaled in OUT.frontier: after Ctrl-C or a crash, run the same command with --resume.
exit codes: 0 finished; 2 invalid usage; 130 interrupted (resume with --resume)."""


def _common(parser: argparse.ArgumentParser, *, max_pages: int) -> None:
    parser.add_argument("url", metavar="URL", help="the start URL")
    parser.add_argument("--max-pages", type=_positive, default=max_pages, metavar="N",
                        help=f"pages read at most (default: {max_pages})")
    parser.add_argument("--max-depth", type=int, default=5, metavar="N", help="link hops from URL (default: 5)")
    parser.add_argument("--scope", choices=SCOPES, default="site", help="which URLs to follow (default: site)")
    parser.add_argument("--include", action="append", default=[], metavar="GLOB",
                        help="only URLs whose path matches (repeatable)")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="skip URLs whose path matches (repeatable)")
    parser.add_argument("--no-sitemaps", action="store_true", help="do not read sitemaps")
    parser.add_argument("--concurrency", type=_positive, default=4, metavar="N", help="reads at a time (default: 4)")
    parser.add_argument("--per-host", type=_positive, default=2, metavar="N",
                        help="reads at a time per host (default: 2)")
    parser.add_argument("--min-delay", type=_seconds, default=0.5, metavar="SECONDS",
                        help="minimum time between two request starts on one host; robots.txt Crawl-delay "
                             "raises it (default: 0.5)")
    parser.add_argument("--robots", choices=("respect", "ignore"), default="respect",
                        help="obey robots.txt (default: respect)")
    parser.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                        help="deadline of each read (default: 15)")
    add_guard_options(parser)
    add_unsafe_options(parser)


def add_crawl_parsers(commands: Any) -> None:
    """Register the ``crawl`` and ``map`` subcommands on argparse ``commands``."""
    crawl = commands.add_parser(
        "crawl", help="read a site from one start URL into a JSONL file (politely, resumably)", epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(crawl, max_pages=100)
    crawl.add_argument("--out", required=True, metavar="OUT.jsonl", help="output file, one JSON object per page")
    crawl.add_argument("--resume", action="store_true", help="continue an interrupted crawl of the same OUT")
    crawl.add_argument("--render", choices=RENDER_MODES, default="auto", help="rendering mode (default: auto)")
    crawl.add_argument("--max-characters", type=int, default=20_000, metavar="N",
                       help="cap on characters per document, 200..100000 (default: 20000)")
    add_browser_options(crawl)
    crawl.add_argument("--browser-concurrency", type=_positive, default=2, metavar="N",
                       help="pages rendered at a time by the browser (default: 2)")
    crawl.add_argument("--ray", metavar="ADDRESS",
                       help="read on a Ray actor pool ('local' for a local runtime); the frontier stays here")
    crawl.add_argument("--ray-actors", type=_positive, default=2, metavar="N",
                       help="reader actors on the cluster (default: 2)")
    crawl.add_argument("--progress-interval", type=float, default=None, help=argparse.SUPPRESS)
    mapping = commands.add_parser(
        "map", help="list a site's in-scope URLs from sitemaps and links, without reading page content",
    )
    _common(mapping, max_pages=50)


def _usage(err: TextIO, command: str, message: str) -> int:
    err.write(f"pagewarden {command}: {message}\n")
    return EXIT_USAGE


def _options(args: argparse.Namespace, **extra: Any) -> CrawlOptions:
    return CrawlOptions(
        max_pages=args.max_pages, max_depth=args.max_depth, scope=args.scope, include=tuple(args.include),
        exclude=tuple(args.exclude), sitemaps=not args.no_sitemaps, robots=args.robots == "respect",
        concurrency=args.concurrency, per_host=args.per_host, min_delay=args.min_delay, timeout=args.timeout,
        requested_use=args.requested_use, **extra,
    )


def _map_reader_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "guard_profile": args.profile,
        "unsafe_allow_destinations": tuple(args.unsafe_allow_destination),
        "unsafe_allow_sensitive_query": args.unsafe_allow_sensitive_query,
        "timeout": args.timeout,
        **proxy_options(args),
    }


def run_crawl(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``pagewarden crawl`` from parsed ``args``; returns the exit code."""
    if not args.resume and os.path.exists(args.out) and os.path.getsize(args.out) > 0:
        return _usage(err, "crawl", "OUT already exists; use --resume to continue it, or remove it")
    try:
        options = _options(args, render=args.render, max_characters=args.max_characters)
        reader = AsyncReader(**_reader_options(args))
        crawler_config = reader.config
    except (PagewardenError, ValueError) as error:
        detail = f" [{error.reason}]" if isinstance(error, PagewardenError) and error.reason else ""
        return _usage(err, "crawl", f"invalid options{detail}: {error}")
    done = load_done_urls(args.out) if args.resume else set()
    journal = journal_path(args.out)
    if not args.resume and os.path.exists(journal):
        os.remove(journal)  # a stale journal of an OUT that was removed
    stats = CrawlStats()
    try:
        sink = JsonlSink(args.out, append=True)
    except OSError as error:
        return _usage(err, "crawl", f"cannot open OUT ({error.strerror})")
    closer: Any = None
    try:
        read: ReadFunction
        if args.ray:
            try:
                from .ray.crawl import ray_read
            except ImportError:
                return _usage(err, "crawl", "--ray needs the ray extra: pip install 'pagewarden[ray]'")
            read, closer = ray_read(args.ray, {**_reader_options(args), "max_characters": args.max_characters,
                                               "timeout": args.timeout},
                                    actors=args.ray_actors, concurrency_per_actor=args.concurrency,
                                    render=args.render, requested_use=args.requested_use)
        else:
            read = local_read(reader, options)
        try:
            crawler = Crawler(crawler_config, args.url, options, read, robots=None, stats=stats, journal=journal)
        except PagewardenError as error:
            return _usage(err, "crawl", f"the start URL is refused [{error.reason}]: {error.message}")
        except OSError as error:
            return _usage(err, "crawl", f"cannot open the frontier journal ({error.strerror})")
        if args.resume:
            crawler.restore(journal, done)
        try:
            anyio.run(_run, reader, crawler, args, sink, stats, err)
        except KeyboardInterrupt:
            stats.interrupted = True
        finally:
            crawler.close()
    finally:
        sink.close()
        if closer is not None:
            closer()
    err.write(summary_text(stats, args.out))
    return EXIT_INTERRUPTED if stats.interrupted else EXIT_OK


async def _run(reader: AsyncReader, crawler: Crawler, args: argparse.Namespace, sink: JsonlSink,
               stats: CrawlStats, err: TextIO) -> None:
    if args.robots == "respect":
        crawler.set_robots(RobotsCache(reader.config))

    async def emit(page: QueuedPage, outcome: Outcome) -> None:
        sink.write(page_record(page, outcome))

    await run_interruptible(lambda: crawler.run(emit), reader, stats, err, interval=args.progress_interval)


def run_map(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``pagewarden map`` from parsed ``args``: one in-scope URL per line on ``out``."""
    try:
        options = _options(args, render="never")
        reader = AsyncReader(**_map_reader_options(args))
        crawler = Crawler(reader.config, args.url, options, map_read(reader.config), robots=None)
    except (PagewardenError, ValueError) as error:
        detail = f" [{error.reason}]" if isinstance(error, PagewardenError) and error.reason else ""
        return _usage(err, "map", f"invalid options or start URL{detail}: {error}")

    async def main() -> list[str]:
        robots = RobotsCache(reader.config) if args.robots == "respect" else None
        crawler.set_robots(robots)
        try:
            return await map_urls(crawler, robots)
        finally:
            await reader.aclose()

    try:
        urls = anyio.run(main)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    for url in urls:
        out.write(url + "\n")
    stats = crawler.stats
    err.write(f"pagewarden map: {len(urls)} URLs ({stats.done} pages fetched for links, "
              f"{stats.sitemap_pages} listed by sitemaps, {stats.refused_links} links refused by the URL policy)\n")
    return EXIT_OK
