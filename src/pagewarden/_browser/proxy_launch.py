"""What Chromium must be launched with so that every connection goes through the pinning proxy.

The proxy only protects what reaches it. These settings close the gaps the
measurements in ``browser-egress-facts.md`` found (see ``docs/egress.md``):

* ``proxy={"server": "http://127.0.0.1:PORT", "bypass": "<-loopback>", ...}``:
  ``<-loopback>`` removes Chromium's implicit bypass of ``localhost``,
  ``127.0.0.0/8``, ``[::1]``, ``169.254.0.0/16`` and ``fe80::/10``, so page
  requests to loopback and to the cloud-metadata address reach the proxy
  (which refuses them). Playwright 1.65 turns an explicit ``bypass`` of
  exactly ``<-loopback>`` into ``--proxy-bypass-list=<-loopback>`` (and
  ``proxyBypassList="<-loopback>"`` for a per-context proxy) whether or not
  ``PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK`` is set; we still
  refuse to start with that variable set, because any other bypass value
  would silently lose the rule.
* ``--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1``: Chromium
  resolves nothing itself (the proxy resolves, once, with the reader's
  resolver); only the proxy's own address, an IP literal, stays reachable.
  That is why :data:`LISTEN_HOST` is the literal ``127.0.0.1``, never ``localhost``.
* both WebRTC IP-handling flags set to ``disable_non_proxied_udp`` (Debian
  Chromium reads one, chrome-headless-shell the other): STUN/UDP goes
  around any HTTP proxy otherwise.
* ``--disable-quic`` and ``--dns-prefetch-disable``: no QUIC, no prefetch
  lookups if the proxy setting were ever lost.

Never add a second ``--disable-features=``: it replaces Playwright's own list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TypedDict

from .._errors import ConfigMissing

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

    from .proxy import PinningProxy
    from .proxy_session import ProxySession

__all__ = [
    "EGRESS_ARGS",
    "LISTEN_HOST",
    "LOOPBACK_BYPASS",
    "LOOPBACK_OPT_OUT_ENV",
    "EgressLaunchSettings",
    "check_loopback_proxied",
    "context_proxy",
    "launch_args",
]

LISTEN_HOST: Final = "127.0.0.1"
LOOPBACK_BYPASS: Final = "<-loopback>"
LOOPBACK_OPT_OUT_ENV: Final = "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK"
EGRESS_ARGS: Final[tuple[str, ...]] = (
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {LISTEN_HOST}",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-quic",
    "--dns-prefetch-disable",
)


class EgressLaunchSettings(TypedDict):
    """The egress keywords of ``chromium.launch``: unpack with ``**`` next to the launcher's own."""

    proxy: ProxySettings
    args: list[str]


def check_loopback_proxied(environ: Mapping[str, str] | None = None) -> None:
    """Raise ``ConfigMissing(reason="proxied_loopback_disabled")`` if Playwright's loopback opt-out is set."""
    env = os.environ if environ is None else environ
    if env.get(LOOPBACK_OPT_OUT_ENV):
        raise ConfigMissing(
            f"{LOOPBACK_OPT_OUT_ENV} is set: loopback and metadata addresses would bypass the egress proxy; "
            "unset it to render pages",
            reason="proxied_loopback_disabled",
            stage="browser",
        )


def launch_args(proxy: PinningProxy, *, environ: Mapping[str, str] | None = None) -> EgressLaunchSettings:
    """The egress part of ``chromium.launch(**...)``: ``proxy`` (launch-level credentials) and ``args``.

    The launcher merges ``args`` with its own (without another
    ``--disable-features=``). Contexts should still get their own
    :func:`context_proxy` so refusals are attributed per read.

    Raises:
        ConfigMissing: the loopback opt-out variable is set, or the proxy is not running.
    """
    check_loopback_proxied(environ)
    return {
        "proxy": {
            "server": proxy.server,
            "bypass": LOOPBACK_BYPASS,
            "username": proxy.username,
            "password": proxy.password,
        },
        "args": list(EGRESS_ARGS),
    }


def context_proxy(session: ProxySession) -> ProxySettings:
    """The ``proxy=`` mapping for ``browser.new_context`` with ``session``'s credentials."""
    return session.proxy_settings()
