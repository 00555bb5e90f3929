"""Peak resident memory of a process tree, sampled from /proc (Linux), for the ingest benchmark."""

from __future__ import annotations

import threading
from pathlib import Path

__all__ = ["TreeMemorySampler", "tree_rss"]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (0 for processes that are gone)."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
                    break
        except OSError:
            continue
        stack += _children(current)
    return total


class TreeMemorySampler:
    """Samples :func:`tree_rss` of ``pid`` every ``interval`` seconds in a thread; ``peak`` is the maximum."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-ingest-rss", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, tree_rss(self.pid))

    def __enter__(self) -> TreeMemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
