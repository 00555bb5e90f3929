"""Resident memory of a process tree, summed from /proc (stdlib only: the Crawl4AI driver imports it too).

RSS counts pages shared between processes (Chromium's zygote children share
much of their code) once per process, so the sum overstates what the tree
really holds; it is the figure the issue asks for and the same method is
applied to every side. PSS (``smaps_rollup``), which splits shared pages
between their users, is reported next to it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["tree_memory", "tree_pids"]

_PROC = Path("/proc")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    task_dir = _PROC / str(pid) / "task"
    try:
        tasks = list(task_dir.iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            text = (task / "children").read_text()
        except OSError:
            continue
        found.extend(int(child) for child in text.split())
    return found


def tree_pids(root: int | None = None) -> list[int]:
    """``root`` (default: this process) and all its descendants still alive."""
    start = os.getpid() if root is None else root
    seen: list[int] = []
    todo = [start]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo.extend(_children(pid))
    return seen


def _field_kib(path: Path, name: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def tree_memory(*roots: int) -> dict[str, float]:
    """Summed RSS and PSS (MiB) and the process count of the trees under ``roots`` (default: this process)."""
    pids: list[int] = []
    for root in roots or (os.getpid(),):
        pids.extend(pid for pid in tree_pids(root) if pid not in pids)
    rss = sum(_field_kib(_PROC / str(pid) / "status", "VmRSS") for pid in pids)
    pss = sum(_field_kib(_PROC / str(pid) / "smaps_rollup", "Pss") for pid in pids)
    return {"rss_mib": round(rss / 1024, 1), "pss_mib": round(pss / 1024, 1), "processes": len(pids)}
