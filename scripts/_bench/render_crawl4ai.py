"""Crawl4AI for the render benchmark, kept out of pagewarden's environment.

Crawl4AI is not a dependency of pagewarden. :func:`crawl4ai_python` finds (or
creates) a separate venv, ``.bench/crawl4ai-venv`` (``python3 -m venv`` then
``pip install crawl4ai``), and the benchmark runs ``render_c4a_driver.py`` in
it as a subprocess. Crawl4AI cannot be pointed at a browser binary, but it
can connect over CDP: :func:`cdp_chromium` starts the same Chromium every other
side uses with ``--remote-debugging-port=0`` and yields its endpoint and pid.
Any failure to install or run gives ``None``/an ``"unavailable"`` result with
the reason, never a crash of the benchmark.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["cdp_chromium", "crawl4ai_python", "run_driver"]

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".bench" / "crawl4ai-venv"
DRIVER = Path(__file__).resolve().parent / "render_c4a_driver.py"
_DEVTOOLS = re.compile(r"DevTools listening on (ws://[^\s]+)")


def _works(python: Path) -> bool:
    try:
        done = subprocess.run([str(python), "-c", "import crawl4ai"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def crawl4ai_python(explicit: str | None = None, *, install: bool = True) -> tuple[Path | None, str]:
    """The Python of a venv where ``import crawl4ai`` works, and how it was found (or why not)."""
    if explicit:
        python = Path(explicit)
        return (python, f"given: {python}") if _works(python) else (None, f"import crawl4ai fails in {python}")
    python = VENV / "bin" / "python"
    if python.exists() and _works(python):
        return python, f"existing venv {VENV.relative_to(ROOT)}"
    if not install:
        return None, "no crawl4ai venv (run without --no-install to create it)"
    base = shutil.which("python3") or sys.executable
    print(f"bench render: creating {VENV.relative_to(ROOT)} and installing crawl4ai (one time)...", file=sys.stderr)
    try:
        subprocess.run([base, "-m", "venv", str(VENV)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "crawl4ai"], check=True, capture_output=True,
                       timeout=1800)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        return None, f"install failed ({type(exc).__name__})"
    return (python, "installed now") if _works(python) else (None, "installed, but import crawl4ai fails")


def _drain(stream: Any) -> None:
    for _line in stream if stream is not None else ():
        pass


@contextmanager
def cdp_chromium(executable: str) -> Iterator[tuple[str, int]]:
    """Start Chromium headless with a DevTools port; yield ``(http endpoint, pid)``; kill it after."""
    profile = tempfile.mkdtemp(prefix="bench-c4a-profile-")
    args = [executable, "--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check", "about:blank"]
    if os.geteuid() == 0:
        args.insert(1, "--no-sandbox")  # Chromium's sandbox cannot start as root
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        endpoint = None
        stderr = process.stderr
        for line in stderr if stderr is not None else ():
            match = _DEVTOOLS.search(line)
            if match:
                ws = match.group(1)
                endpoint = "http://" + ws.removeprefix("ws://").split("/", 1)[0]
                break
        if endpoint is None:
            raise RuntimeError("Chromium did not report a DevTools endpoint")
        # Keep draining stderr so Chromium never blocks on a full pipe.
        threading.Thread(target=_drain, args=(stderr,), daemon=True).start()
        yield endpoint, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)


def run_driver(python: Path, plan: dict[str, Any], timeout: float = 3600) -> dict[str, Any]:
    """Run the driver with ``plan``; its JSON result, or ``{"unavailable": reason}``."""
    with tempfile.TemporaryDirectory(prefix="bench-c4a-") as folder:
        plan_path, result_path = Path(folder) / "plan.json", Path(folder) / "result.json"
        plan_path.write_text(json.dumps(plan))
        try:
            done = subprocess.run([str(python), str(DRIVER), str(plan_path), str(result_path)],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"unavailable": "the Crawl4AI driver timed out"}
        if done.returncode != 0 or not result_path.exists():
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            return {"unavailable": f"the Crawl4AI driver failed: {tail[0][:200]}"}
        result: dict[str, Any] = json.loads(result_path.read_text())
        return result
