"""How the pool launches a local Chromium: sandbox, environment, process marker, egress settings.

The egress settings (proxy with ``<-loopback>``, resolver rules, WebRTC,
QUIC and background-traffic switches) are defined once, in
:mod:`pagewarden._egress.chromium`, with the reasons for each; this module
adds what belongs to a launch by the pool:

* the sandbox check: Chromium's sandbox cannot start as root, and pagewarden
  never turns it off silently (:func:`check_sandbox`);
* the environment passed to Chromium, reduced to what it needs
  (:data:`ENV_ALLOWLIST`), so proxy variables and API keys from the caller's
  environment never reach it;
* an inert marker switch that tags the browser process, so cleanup and tests
  find exactly our processes in ``/proc``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .._egress import ProxyEndpoint, build_context_proxy, egress_args
from .._errors import ConfigMissing
from .config import BrowserConfig

__all__ = [
    "ENV_ALLOWLIST",
    "MARKER_PREFIX",
    "build_chromium_args",
    "build_launch_options",
    "check_sandbox",
    "new_marker",
]

# An inert switch (Chromium ignores switches it does not know) that tags the
# browser process, so cleanup and tests find exactly our processes in /proc.
MARKER_PREFIX: Final = "--pagewarden-pool="
ENV_ALLOWLIST: Final = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TZ",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "FONTCONFIG_PATH",
    "FONTCONFIG_FILE",
)


def new_marker() -> str:
    """A fresh process marker switch for one launch."""
    return MARKER_PREFIX + secrets.token_hex(8)


def check_sandbox(config: BrowserConfig, euid: int | None = None) -> None:
    """Refuse a launch whose Chromium sandbox cannot start.

    Chromium refuses to run its sandbox as root (crbug.com/638180), and
    pagewarden never turns the sandbox off silently.

    Raises:
        ConfigMissing: ``reason="sandbox_unavailable_as_root"``.
    """
    if config.remote or config.external_sandbox:
        return
    uid = os.geteuid() if euid is None else euid
    if uid == 0:
        raise ConfigMissing(
            "Chromium's sandbox cannot start as root. Run pagewarden as an unprivileged user (preferred), "
            "or set external_sandbox=True when a container or VM already isolates the process and its egress",
            reason="sandbox_unavailable_as_root",
            stage="browser",
        )


def build_chromium_args(proxy: ProxyEndpoint, marker: str) -> list[str]:
    """The extra Chromium switches of a local launch (Playwright adds its own before them)."""
    return [*egress_args(proxy.host), marker]


def _browser_env(environ: Mapping[str, str]) -> dict[str, str]:
    env = {name: environ[name] for name in ENV_ALLOWLIST if environ.get(name)}
    env.setdefault("PATH", os.defpath)
    return env


def build_launch_options(
    config: BrowserConfig,
    executable: Path,
    proxy: ProxyEndpoint,
    marker: str,
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``playwright.chromium.launch`` of a local browser."""
    return {
        "executable_path": str(executable),
        "headless": True,
        "chromium_sandbox": not config.external_sandbox,
        "proxy": build_context_proxy(proxy),
        "args": build_chromium_args(proxy, marker),
        "env": _browser_env(os.environ if environ is None else environ),
        "timeout": config.launch_timeout * 1000,
    }
