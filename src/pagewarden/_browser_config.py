"""Frozen configuration of the browser pool.

:class:`BrowserConfig` says *how* pagewarden runs Chromium (which executable,
how many pages at once, when to recycle, sandboxing, remote browsers); the
request policy (:mod:`pagewarden._browser.policy`) says *what a page may do*.
Both are validated once, when built; nothing reads the environment later
except browser discovery (``PAGEWARDEN_CHROMIUM``), which runs at launch.

It lives in the foundation beside :mod:`._config`, because ``ReaderConfig``
holds one; :mod:`._browser.config` re-exports it for browser code.
"""

from __future__ import annotations

import dataclasses
import math
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import InvalidInput

__all__ = ["BrowserConfig"]

_MAX_SECONDS = 3_600.0


def _int_in(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer in {low}..{high}", reason=f"invalid_{name}")
    return value


def _seconds(name: str, value: object, low: float, high: float, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{name} must be a number of seconds", reason=f"invalid_{name}")
    seconds = float(value)
    ok = math.isfinite(seconds) and (low <= seconds <= high) and (seconds > 0 or allow_zero)
    if not ok:
        raise InvalidInput(f"{name} must be in [{low:g}, {high:g}] seconds", reason=f"invalid_{name}")
    return seconds


def _endpoint(name: str, value: object, schemes: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= 2_048 or not value.isprintable():
        raise InvalidInput(f"{name} must be a URL string", reason=f"invalid_{name}")
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in schemes or not parts.hostname:
        raise InvalidInput(f"{name} must be a {' or '.join(schemes)} URL", reason=f"invalid_{name}")
    return value


@dataclass(frozen=True, slots=True)
class BrowserConfig:
    """How the browser pool runs Chromium.

    Attributes:
        executable: the Chromium to launch (a path or a command name). ``None``
            follows the discovery order of :mod:`pagewarden._browser.discovery`
            (``PAGEWARDEN_CHROMIUM``, a Playwright-managed build, the system's).
        policy: the request policy: ``"default"``, ``"strict"`` or the path of
            a TOML policy file (see ``browser_policy/default.toml``).
        concurrency: pages rendered at the same time (1..8).
        max_queue: reads allowed to wait for a slot (0..1000); one more is
            ``RATE_LIMITED`` (``reason="browser_queue_full"``).
        recycle_after: contexts served by one Chromium before it is replaced
            (bounds slow leaks inside the browser).
        idle_timeout: seconds without a read after which Chromium, the
            Playwright driver and the proxy are shut down (relaunched lazily).
        launch_timeout: seconds allowed for Chromium to start.
        external_sandbox: run Chromium with ``--no-sandbox`` because the
            process is already isolated (a container with its own seccomp
            profile and locked-down egress). Required when running as root,
            where Chromium's own sandbox cannot start. Recorded as a limitation
            on every rendered page.
        browser_endpoint: a Playwright browser server to connect to
            (``ws://`` / ``wss://``) instead of launching Chromium.
        cdp_endpoint: a Chromium DevTools endpoint (``http(s)://`` or
            ``ws(s)://``) to connect to instead of launching Chromium.
        navigation_timeout: overrides the policy's ``navigation_timeout``.
        settle_time: overrides the policy's ``settle_time``.
    """

    executable: str | None = None
    policy: str = "default"
    concurrency: int = 2
    max_queue: int = 32
    recycle_after: int = 200
    idle_timeout: float = 60.0
    launch_timeout: float = 30.0
    external_sandbox: bool = False
    browser_endpoint: str | None = None
    cdp_endpoint: str | None = None
    navigation_timeout: float | None = None
    settle_time: float | None = None

    def __post_init__(self) -> None:
        if self.executable is not None and (
            not isinstance(self.executable, str) or not 0 < len(self.executable) <= 4_096
        ):
            raise InvalidInput("executable must be a path or command name", reason="invalid_executable")
        policy: Any = self.policy
        if isinstance(policy, Path):
            object.__setattr__(self, "policy", str(policy))
        elif not isinstance(policy, str) or not 0 < len(policy) <= 4_096:
            raise InvalidInput("policy must be 'default', 'strict' or a file path", reason="invalid_policy")
        _int_in("concurrency", self.concurrency, 1, 8)
        _int_in("max_queue", self.max_queue, 0, 1_000)
        _int_in("recycle_after", self.recycle_after, 1, 100_000)
        object.__setattr__(self, "idle_timeout", _seconds("idle_timeout", self.idle_timeout, 0.05, _MAX_SECONDS))
        object.__setattr__(self, "launch_timeout", _seconds("launch_timeout", self.launch_timeout, 1.0, 300.0))
        if not isinstance(self.external_sandbox, bool):
            raise InvalidInput("external_sandbox must be a bool", reason="invalid_external_sandbox")
        _endpoint("browser_endpoint", self.browser_endpoint, ("ws", "wss"))
        _endpoint("cdp_endpoint", self.cdp_endpoint, ("http", "https", "ws", "wss"))
        if self.browser_endpoint is not None and self.cdp_endpoint is not None:
            raise InvalidInput("set browser_endpoint or cdp_endpoint, not both", reason="invalid_browser_endpoint")
        if self.navigation_timeout is not None:
            value = _seconds("navigation_timeout", self.navigation_timeout, 0.1, 60.0)
            object.__setattr__(self, "navigation_timeout", value)
        if self.settle_time is not None:
            value = _seconds("settle_time", self.settle_time, 0.0, 5.0, allow_zero=True)
            object.__setattr__(self, "settle_time", value)

    @property
    def remote(self) -> bool:
        """Whether pagewarden connects to a browser it did not launch."""
        return self.browser_endpoint is not None or self.cdp_endpoint is not None

    def replace(self, **changes: Any) -> BrowserConfig:
        """A copy with ``changes`` applied and validated; unknown names are ``INVALID_INPUT``."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InvalidInput("unknown browser option: " + ", ".join(unknown)[:200], reason="unknown_option")
        return dataclasses.replace(self, **changes)
