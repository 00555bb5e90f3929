"""Finding and killing the Chromium processes of one launch (Linux ``/proc``).

Playwright starts Chromium in its own process group (``detached`` spawn), and
the renderer, GPU, utility and zygote processes stay in that group. Each
launch also carries an inert marker switch (:data:`.launch.MARKER_PREFIX`),
so the browser process can be found without Playwright internals and a
recycled pid is never mistaken for ours. Crashpad handlers re-parent to init
in their own group; they exit by themselves once the browser is gone.

Used by the pool's cleanup (after a crash, a stuck close, and at interpreter
exit through a ``weakref.finalize``) and by the leak tests.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Final

__all__ = ["find_marked_process", "group_members", "kill_group", "live_processes"]

_PROC: Final = Path("/proc")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces and ")".
    return text.rsplit(")", 1)[1].split()


def _is_alive(fields: list[str] | None) -> bool:
    # A zombie has exited already; only its parent's wait() is missing.
    return fields is not None and fields[0] not in ("Z", "X")


def _cmdline(pid: int) -> list[bytes]:
    try:
        return (_PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def live_processes() -> list[int]:
    """Every live (non-zombie) pid visible in ``/proc``; empty where there is no ``/proc``."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit() and _is_alive(_stat_fields(int(name)))]


def find_marked_process(marker: str) -> int | None:
    """The live process whose command line holds ``marker`` exactly, if any."""
    wanted = marker.encode()
    for pid in live_processes():
        if wanted in _cmdline(pid):
            return pid
    return None


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid``."""
    members = []
    for pid in live_processes():
        fields = _stat_fields(pid)
        if fields is not None and _is_alive(fields) and int(fields[2]) == pgid:
            members.append(pid)
    return members


def _ours(pid: int, marker: bytes, executable: bytes) -> bool:
    command = _cmdline(pid)
    return bool(command) and (marker in command or command[0] == executable)


def kill_group(pid: int, marker: str, executable: str, *, wait: float = 2.0) -> bool:
    """SIGKILL what is left of the browser group led by ``pid``.

    Only processes that are provably ours are signalled: the group leader
    while its command line holds ``marker``, and members of group ``pid``
    running ``executable`` (the browser's children, which outlive it for a
    moment). A recycled pid is never touched. Returns whether nothing of ours
    is left within ``wait`` seconds. Safe at interpreter exit: no event loop.
    """
    wanted, binary = marker.encode(), executable.encode()
    deadline = time.monotonic() + wait
    while True:
        members = [member for member in group_members(pid) if _ours(member, wanted, binary)]
        if not members:
            return True
        if time.monotonic() >= deadline:
            return False
        for member in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(member, signal.SIGKILL)
        time.sleep(0.02)
