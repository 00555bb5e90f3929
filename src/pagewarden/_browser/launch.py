"""How Chromium is launched: the flags that close the egress gaps routing cannot see.

Routing (:mod:`.routing`) only polices requests Playwright intercepts. The
DNS-pinning proxy is the boundary, and these launch settings make Chromium
use it for everything (measurements in
``../shared/reference/browser-egress-facts.md``):

* ``proxy`` with ``bypass="<-loopback>"``: Chromium's implicit bypass sends
  loopback and link-local destinations direct; ``<-loopback>`` removes it.
  Written explicitly rather than left to Playwright, which only adds it while
  ``PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK`` is unset; that
  variable is refused anyway (:func:`check_environment`).
* ``--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE <proxy host>``: every
  lookup Chromium would make itself fails, so nothing can bypass the proxy's
  resolver (prefetch, preconnect, a lost proxy setting).
* both WebRTC IP-handling switches set to ``disable_non_proxied_udp``
  (Chromium builds read one or the other): no STUN/UDP leaves the browser.
* ``--disable-quic`` and ``--dns-prefetch-disable``; background networking,
  component updates, sync, first-run tasks, pings and domain reliability off.
  Some of these Playwright passes already; repeating a boolean switch is
  harmless and keeps them if Playwright's list changes.

Never a second ``--disable-features``: Playwright passes one, Chromium keeps
only the last, and a second would silently drop Playwright's list. Nothing
here needs a feature disabled (a test reads the real command line of a
launched browser and counts them).

The environment passed to Chromium is reduced to what it needs, so proxy
variables and API keys from the caller's environment never reach it.

This module is the one definition of these settings: the pool launches with
:func:`build_launch_options`, and :mod:`.proxy_launch` (the proxy's own
``launch_args`` helper) builds its answer from :func:`egress_args` and
:func:`build_context_proxy` here.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._errors import ConfigMissing
from .config import BrowserConfig

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

__all__ = [
    "ENV_ALLOWLIST",
    "LOOPBACK_BYPASS",
    "LOOPBACK_ENV",
    "MARKER_PREFIX",
    "ProxyEndpoint",
    "build_chromium_args",
    "build_context_proxy",
    "build_launch_options",
    "check_environment",
    "check_sandbox",
    "egress_args",
    "new_marker",
]

LOOPBACK_ENV: Final = "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK"
# Removes Chromium's implicit proxy bypass of loopback and link-local destinations.
LOOPBACK_BYPASS: Final = "<-loopback>"
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

_EGRESS_SWITCHES: Final = (
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-quic",
    "--dns-prefetch-disable",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-crash-reporter",
    "--no-default-browser-check",
)


@dataclass(frozen=True, slots=True)
class ProxyEndpoint:
    """Where Chromium reaches the egress proxy, and with which credentials."""

    host: str
    port: int
    username: str
    password: str

    @property
    def server(self) -> str:
        """The proxy URL Chromium is given (no credentials in it)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def new_marker() -> str:
    """A fresh process marker switch for one launch."""
    return MARKER_PREFIX + secrets.token_hex(8)


def check_environment(
    environ: Mapping[str, str] | None = None, *, reason: str = "playwright_loopback_bypass_env"
) -> None:
    """Refuse to launch when the environment would weaken the proxy setup.

    ``reason`` lets :mod:`.proxy_launch` keep the reason it documents
    (``proxied_loopback_disabled``) while the check itself lives here only.

    Raises:
        ConfigMissing: ``reason="playwright_loopback_bypass_env"`` (default) when
            ``PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK`` is set.
    """
    env = os.environ if environ is None else environ
    if env.get(LOOPBACK_ENV):
        raise ConfigMissing(
            f"{LOOPBACK_ENV} is set; it lets Chromium reach loopback addresses without the egress proxy. "
            "Unset it to render pages",
            reason=reason,
            stage="browser",
        )


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


def _resolver_rules(proxy_host: str) -> str:
    try:
        address = ipaddress.ip_address(proxy_host)
    except ValueError:
        exclude = proxy_host
    else:
        exclude = f"[{address}]" if address.version == 6 else str(address)
    return f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {exclude}"


def egress_args(proxy_host: str) -> list[str]:
    """The egress switches for a proxy listening on ``proxy_host`` (an IP literal): resolver rules first."""
    return [_resolver_rules(proxy_host), *_EGRESS_SWITCHES]


def build_chromium_args(proxy: ProxyEndpoint, marker: str) -> list[str]:
    """The extra Chromium switches of a local launch (Playwright adds its own before them)."""
    return [*egress_args(proxy.host), marker]


def _browser_env(environ: Mapping[str, str]) -> dict[str, str]:
    env = {name: environ[name] for name in ENV_ALLOWLIST if environ.get(name)}
    env.setdefault("PATH", os.defpath)
    return env


def build_context_proxy(proxy: ProxyEndpoint) -> ProxySettings:
    """The ``proxy=`` option of a context (and of a launch): the egress proxy, loopback not bypassed."""
    return {
        "server": proxy.server,
        "bypass": LOOPBACK_BYPASS,
        "username": proxy.username,
        "password": proxy.password,
    }


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
