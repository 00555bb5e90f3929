"""Process cleanup helpers: only provably-ours processes are ever killed."""

from __future__ import annotations

import subprocess
import sys
import time

from pagewarden._browser.launch import new_marker
from pagewarden._browser.processes import find_marked_process, group_members, kill_group

SLEEPER = "import time; time.sleep(60)"


def _spawn(*extra: str) -> subprocess.Popen[bytes]:
    # Own session, so the child leads its own process group like Playwright's Chromium.
    return subprocess.Popen([sys.executable, "-c", SLEEPER, *extra], start_new_session=True)


def _wait_visible(marker: str) -> int | None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pid = find_marked_process(marker)
        if pid is not None:
            return pid
        time.sleep(0.02)
    return None


def test_marked_group_is_killed() -> None:
    """A process group whose leader carries our marker is killed and reported gone."""
    marker = new_marker()
    child = _spawn(marker)
    try:
        assert _wait_visible(marker) == child.pid
        assert kill_group(child.pid, marker, "/nonexistent/chromium")
        assert child.wait(timeout=5) != 0
        assert group_members(child.pid) == []
    finally:
        child.kill()
        child.wait()


def test_unmarked_process_is_left_alone() -> None:
    """A process without the marker and with another executable is never signalled (recycled pid safety)."""
    child = _spawn()
    try:
        # Nothing of ours is there, so the group counts as gone: and the stranger lives on.
        assert kill_group(child.pid, new_marker(), "/nonexistent/chromium", wait=0.2)
        time.sleep(0.1)
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()
