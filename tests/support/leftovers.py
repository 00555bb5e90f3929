"""Processes the test run started and left behind (Linux): browsers, drivers, Ray workers, servers.

At session start the pytest process makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): a process it started, directly or not,
whose parent exits is re-parented to pytest instead of to PID 1. Every
process the run started therefore stays a descendant of pytest, however it
was detached, and at session end :func:`leftover_processes` lists those still
alive. Exited ones (zombies) are reaped and never count.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path
from typing import Final

__all__ = ["become_subreaper", "kill", "leftover_processes", "reap"]

_PR_SET_CHILD_SUBREAPER: Final = 36
_PROC: Final = Path("/proc")


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants; ``False`` where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def reap() -> None:
    """Collect every exited child (re-parented orphans included) so none lingers as a zombie."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _parents() -> dict[int, tuple[int, str]]:
    table: dict[int, tuple[int, str]] = {}
    for name in os.listdir(_PROC):
        if not name.isdigit():
            continue
        try:
            text = (_PROC / name / "stat").read_text()
        except OSError:
            continue
        head, _, rest = text.rpartition(")")
        fields = rest.split()
        if fields and fields[0] not in ("Z", "X"):
            table[int(name)] = (int(fields[1]), head.partition("(")[2][:40])
    return table


def leftover_processes(wait: float = 10.0) -> list[tuple[int, str]]:
    """Live descendants of this process (pid, command name), after waiting up to ``wait`` seconds for them to exit."""
    me = os.getpid()
    deadline = time.monotonic() + wait
    while True:
        reap()
        table = _parents()
        found: list[tuple[int, str]] = []
        for pid, (_parent, name) in table.items():
            ancestor, hops = pid, 0
            while ancestor in table and hops < 64:
                ancestor = table[ancestor][0]
                hops += 1
                if ancestor == me:
                    found.append((pid, name))
                    break
        if not found or time.monotonic() >= deadline:
            return sorted(found)
        time.sleep(0.2)


def kill(pids: list[int]) -> None:
    """SIGKILL ``pids`` (the run's own leftovers) and reap them."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.1)
    reap()
