"""The Chromium settings that make the pinning proxy the browser's only way out.

The proxy (:mod:`.server`) is the boundary only if Chromium cannot reach
anything without it. These settings close the gaps (measurements in
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

:data:`LISTEN_HOST` is the literal ``127.0.0.1``, never ``localhost``: the
resolver rules map every name to NOTFOUND except the proxy's own address, so
the proxy must be reachable as an IP literal.

This module is the one definition of these settings: the browser pool
launches with them (``pagewarden._browser.launch``), and
:func:`~.attach.launch_args` hands them to callers that launch Chromium
themselves. It imports nothing else of the package, so both ends use it.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .._errors import ConfigMissing

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

__all__ = [
    "EGRESS_ARGS",
    "LISTEN_HOST",
    "LOOPBACK_BYPASS",
    "LOOPBACK_ENV",
    "ProxyEndpoint",
    "build_context_proxy",
    "check_environment",
    "egress_args",
]

LISTEN_HOST: Final = "127.0.0.1"
LOOPBACK_ENV: Final = "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK"
# Removes Chromium's implicit proxy bypass of loopback and link-local destinations.
LOOPBACK_BYPASS: Final = "<-loopback>"

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


def check_environment(
    environ: Mapping[str, str] | None = None, *, reason: str = "playwright_loopback_bypass_env"
) -> None:
    """Refuse to launch when the environment would weaken the proxy setup.

    ``reason`` lets :func:`~.attach.check_loopback_proxied` keep the reason it
    documents (``proxied_loopback_disabled``) while the check itself lives here only.

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


# The switches for a proxy on LISTEN_HOST, as the pool passes them.
EGRESS_ARGS: Final[tuple[str, ...]] = tuple(egress_args(LISTEN_HOST))


def build_context_proxy(proxy: ProxyEndpoint) -> ProxySettings:
    """The ``proxy=`` option of a context (and of a launch): the egress proxy, loopback not bypassed."""
    return {
        "server": proxy.server,
        "bypass": LOOPBACK_BYPASS,
        "username": proxy.username,
        "password": proxy.password,
    }
