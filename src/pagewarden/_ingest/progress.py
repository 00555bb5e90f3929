"""Progress of an ingest run: a live rich display on a terminal, plain lines otherwise, and the summary.

The display is redrawn from the event loop (not from rich's refresh thread),
so it never reads the counters while a worker changes them. Without a terminal
(a log file, CI) one plain line is written every ``interval`` seconds.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TextIO

import anyio

from .runner import IngestStats

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["format_duration", "run_interruptible", "run_progress", "status_line", "summary_text"]

LIVE_INTERVAL = 0.25
PLAIN_INTERVAL = 60.0


def format_duration(seconds: float | None) -> str:
    """``h:mm:ss`` (or ``?`` when unknown)."""
    if seconds is None:
        return "?"
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _failures(stats: IngestStats) -> str:
    return ", ".join(f"{code} {count}" for code, count in stats.failures.most_common()) or "none"


def status_line(stats: IngestStats) -> str:
    """One line: done/total, pages/s, failures by code, browser escalations, elapsed and remaining."""
    total = "?" if stats.total is None else str(stats.total)
    return (
        f"pagewarden {stats.command}: {stats.done}/{total} pages · {stats.rate:.1f} pages/s · ok {stats.ok} · "
        f"failed {stats.failed} ({_failures(stats)}) · browser {stats.escalations} · "
        f"elapsed {format_duration(stats.elapsed)} · remaining {format_duration(stats.remaining)}"
    )


def summary_text(stats: IngestStats, out_path: str) -> str:
    """The end-of-run summary (also after Ctrl-C)."""
    head = "interrupted" if stats.interrupted else "done"
    lines = [
        f"pagewarden {stats.command} {head}: {stats.done} pages in {format_duration(stats.elapsed)} "
        f"({stats.rate:.1f} pages/s) -> {out_path}",
        f"  ok {stats.ok} · failed {stats.failed} · browser escalations {stats.escalations}"
        + (f" · skipped (resume) {stats.skipped}" if stats.skipped else ""),
    ]
    for code, count in stats.failures.most_common():
        lines.append(f"  {code}: {count}")
    lines.extend(stats.detail_lines())
    if stats.interrupted:
        lines.append("  run again with --resume to continue")
    return "\n".join(lines) + "\n"


def _live_renderable(stats: IngestStats) -> Table:
    from rich.progress_bar import ProgressBar
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    total = "?" if stats.total is None else str(stats.total)
    bar = ProgressBar(total=float(stats.total) if stats.total else None, completed=float(stats.done), width=30)
    table.add_row(bar, f"{stats.done}/{total} pages", f"{stats.rate:.1f} pages/s",
                  f"elapsed {format_duration(stats.elapsed)}", f"remaining {format_duration(stats.remaining)}")
    table.add_row("", f"ok {stats.ok}", f"failed {stats.failed}", f"browser {stats.escalations}",
                  f"failures: {_failures(stats)}")
    return table


async def run_progress(stats: IngestStats, stream: TextIO, *, interval: float | None = None) -> None:
    """Show progress on ``stream`` until cancelled: live on a terminal, a plain line per interval otherwise."""
    if stream.isatty():
        from rich.console import Console
        from rich.live import Live

        console = Console(file=stream)
        with Live(_live_renderable(stats), console=console, auto_refresh=False, transient=True) as live:
            while True:
                await anyio.sleep(interval or LIVE_INTERVAL)
                live.update(_live_renderable(stats), refresh=True)
    while True:
        await anyio.sleep(interval or PLAIN_INTERVAL)
        stream.write(status_line(stats) + "\n")
        stream.flush()


class _Closable(Protocol):
    async def aclose(self) -> None: ...


async def run_interruptible(
    work: Callable[[], Awaitable[object]], reader: _Closable, stats: IngestStats, err: TextIO, *,
    interval: float | None,
) -> None:
    """Run ``work`` beside the progress display until it ends or SIGINT/SIGTERM arrives.

    A signal (watched only on the main thread, where handlers can be set) marks
    ``stats`` interrupted and cancels the work; the reader is closed whatever
    happens, shielded, so Ctrl-C never leaves a browser behind.
    """
    try:
        async with anyio.create_task_group() as group:

            async def watch_signals() -> None:
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        stats.interrupted = True
                        group.cancel_scope.cancel()
                        return

            if threading.current_thread() is threading.main_thread():
                group.start_soon(watch_signals)
            group.start_soon(lambda: run_progress(stats, err, interval=interval))
            await work()
            group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await reader.aclose()
