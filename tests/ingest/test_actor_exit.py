"""The Ray reader actor's process-exit bound (issue 14: a Ray worker hung in native clean-up after Python exited)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from pagewarden._apps.ray import actor

_HANG = """
import time
from pagewarden._apps.ray.actor import bound_process_exit
bound_process_exit(1)
time.sleep(30)
"""


def test_bound_process_exit_ends_a_process_that_would_hang() -> None:
    """Once armed, the kernel ends the process at the bound even while it waits (SIGALRM, default action)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _HANG], timeout=20, check=False)
    assert done.returncode == -signal.SIGALRM
    assert time.monotonic() - started < 10


def test_the_bound_is_armed_only_in_a_ray_worker() -> None:
    """Outside a Ray worker (a unit test building the actor in-process) no exit bound is registered."""
    assert not actor._in_ray_worker()
    assert actor._EXIT_SECONDS > actor._CLOSE_SECONDS
