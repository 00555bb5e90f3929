"""Input and output files of ``pagewarden ingest``: lazy input lines, the JSONL sink, resume state.

* Input is read lazily in small batches in a worker thread, so a huge file or
  an endless stdin never sits in memory.
* Output is one JSON object per line, each written with a single ``write``
  and flushed at once: a killed run loses at most the pages in flight, and
  every line in the file is complete (a line cut by a power loss is removed
  by :func:`load_done_urls` before appending).
* ``--resume`` keeps the ``url`` of every record already in the output in a
  set, so its memory grows with the output file (about 100 bytes per URL).
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from itertools import islice
from typing import IO, Any

import anyio

from .records import parse_input_line

__all__ = ["COUNT_LIMIT_BYTES", "JsonlSink", "count_inputs", "input_lines", "load_done_urls"]

COUNT_LIMIT_BYTES = 64 * 1024 * 1024
_BATCH = 256


def _open_input(path: str) -> IO[str]:
    if path == "-":
        if isinstance(sys.stdin, io.TextIOWrapper):
            # Like the file case: a stray invalid byte must not end the run.
            sys.stdin.reconfigure(errors="replace")
        return sys.stdin
    return open(path, encoding="utf-8", errors="replace")


async def input_lines(path: str) -> AsyncIterator[str]:
    """The lines of ``path`` (``-`` for stdin), read lazily in batches off the event loop."""
    handle = _open_input(path)
    lines: Iterator[str] = iter(handle)
    try:
        while True:
            # Abandoned on cancel: a read blocked on an idle stdin must not hold up Ctrl-C.
            batch = await anyio.to_thread.run_sync(lambda: list(islice(lines, _BATCH)), abandon_on_cancel=True)
            if not batch:
                return
            for line in batch:
                yield line
    finally:
        if handle is not sys.stdin:
            handle.close()


def count_inputs(path: str, limit_bytes: int = COUNT_LIMIT_BYTES) -> int | None:
    """How many input records ``path`` holds, or ``None`` when it is not a small regular file."""
    if path == "-":
        return None
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > limit_bytes:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return sum(1 for line in handle if parse_input_line(line) is not None)
    except OSError:
        return None


def load_done_urls(path: str) -> set[str]:
    """The ``url`` of every complete record in ``path``; cuts off an incomplete last line.

    A missing file gives an empty set.
    """
    done: set[str] = set()
    try:
        handle = open(path, "rb+")  # noqa: SIM115 - closed below; opened once to read and cut
    except FileNotFoundError:
        return done
    with handle:
        good_end = 0
        for raw in handle:
            if not raw.endswith(b"\n"):
                break  # only the last line can lack its newline
            good_end += len(raw)
            try:
                record = json.loads(raw)
            except ValueError:
                continue  # not ours; left in place, never rewritten
            if isinstance(record, dict) and isinstance(record.get("url"), str):
                done.add(record["url"])
        if good_end != handle.seek(0, os.SEEK_END):
            # A run killed mid-line (power loss, disk full): drop the fragment so
            # the appended lines stay parseable.
            handle.truncate(good_end)
    return done


class JsonlSink:
    """Appends records to a JSONL file, one complete, flushed line per record."""

    def __init__(self, path: str, *, append: bool) -> None:
        self._handle = open(path, "a" if append else "x", encoding="utf-8")  # noqa: SIM115 - see close()
        self.written = 0

    def write(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line and flush it."""
        # One write call per line: cancellation cannot land between two halves.
        self._handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._handle.flush()
        self.written += 1

    def close(self) -> None:
        """Close the file (idempotent)."""
        self._handle.close()
