"""The Ray runtime of a pagewarden run: started quietly on a terminal, and ended with the run.

:func:`ray_runtime` uses a runtime that is already initialised as it is (its
owner ends it); otherwise it starts one (or connects to ``address``) for the
block and ends it after, on success, on an exception and on Ctrl-C.
``ray.shutdown()`` ends the runtime's processes, the reader actors included:
an actor whose runtime ends while its dataset is still referenced leaves
through ``SystemExit``, and its reader closes without waiting on a thread
that can no longer run (:mod:`.actor`, issue 14).

On a terminal (``pagewarden ingest --ray``) Ray's own output would bury
pagewarden's progress: :func:`start_ray_quietly` raises Ray's log level and
turns off its log forwarding, dashboard and progress bars, and
:func:`ray_output_to` sends whatever Ray still writes to the process's stderr
(its C++ core logs there directly) to a log file for the run.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

import ray
import ray.data

__all__ = ["ray_output_to", "ray_runtime", "start_ray_quietly"]

# Ray's Python loggers; ray.init configures them, so their level is set before and after it.
_RAY_LOGGERS = ("ray", "ray.data")


@contextmanager
def ray_runtime(address: str | None, *, quiet: bool = False) -> Iterator[bool]:
    """Ray for the block: yields ``True`` if the block started the runtime, which then ends with the block.

    ``address`` is what ``ray.init`` takes (``"local"`` for a fresh local
    runtime, ``"auto"``, ``ray://host:10001``, ``None`` for Ray's default);
    it is not used when Ray is already initialised. ``quiet`` starts Ray as
    :func:`start_ray_quietly` does.
    """
    if quiet:
        started = start_ray_quietly(address)
    elif ray.is_initialized():
        started = False
    else:
        ray.init(address=address)
        started = True
    try:
        yield started
    finally:
        if started:
            ray.shutdown()


def start_ray_quietly(address: str | None) -> bool:
    """Start (or join) Ray for a command-line run with its own output quiet; ``True`` if this call started it.

    Ray's Python loggers go to ERROR (before ``ray.init``, which logs while it
    starts, and after, since it configures them), the workers' output is not
    forwarded to the driver (``log_to_driver=False``; it stays in Ray's
    session logs), no dashboard is started, and Ray Data's progress bars and
    execution banners are off: pagewarden shows its own progress. An already
    initialised runtime is used as it is.
    """
    for name in _RAY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    started = False
    if not ray.is_initialized():
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False, include_dashboard=False)
        started = True
    for name in _RAY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    return started


@contextmanager
def ray_output_to(log_path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """Send this process's stderr (file descriptor 2) to ``log_path`` for the block; yield the real stderr.

    Ray's C++ core and the processes it spawns write to descriptor 2
    directly, below Python's logging, so only moving the descriptor keeps
    them off the terminal. The yielded stream writes to the original stderr
    (a terminal stays a terminal for :func:`~pagewarden._ingest.progress.run_progress`); the
    descriptor is restored when the block ends, also on an exception.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(log_path, "ab") as log:
            os.dup2(log.fileno(), 2)
        with os.fdopen(os.dup(saved), "w", encoding="utf-8", errors="replace", buffering=1) as terminal:
            yield terminal
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
