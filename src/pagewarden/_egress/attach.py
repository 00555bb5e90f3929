"""For callers that launch Chromium themselves: the egress settings for a running proxy.

The settings are defined once, in :mod:`.chromium`; this module only adapts
them to a running :class:`~.server.PinningProxy` (``launch_args``) and to a
per-context :class:`~.sessions.ProxySession` (``context_proxy``). See
``docs/egress.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TypedDict

from .._errors import ConfigMissing
from .chromium import EGRESS_ARGS, LISTEN_HOST, LOOPBACK_ENV, ProxyEndpoint, build_context_proxy, check_environment

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

    from .server import PinningProxy
    from .sessions import ProxySession

__all__ = [
    "LOOPBACK_OPT_OUT_ENV",
    "EgressLaunchSettings",
    "check_loopback_proxied",
    "context_proxy",
    "launch_args",
]

LOOPBACK_OPT_OUT_ENV: Final = LOOPBACK_ENV


class EgressLaunchSettings(TypedDict):
    """The egress keywords of ``chromium.launch``: unpack with ``**`` next to the launcher's own."""

    proxy: ProxySettings
    args: list[str]


def check_loopback_proxied(environ: Mapping[str, str] | None = None) -> None:
    """Raise ``ConfigMissing(reason="proxied_loopback_disabled")`` if Playwright's loopback opt-out is set."""
    check_environment(environ, reason="proxied_loopback_disabled")


def launch_args(proxy: PinningProxy, *, environ: Mapping[str, str] | None = None) -> EgressLaunchSettings:
    """The egress part of ``chromium.launch(**...)``: ``proxy`` (launch-level credentials) and ``args``.

    The launcher merges ``args`` with its own (without another
    ``--disable-features=``). Contexts should still get their own
    :func:`context_proxy` so refusals are attributed per read.

    Raises:
        ConfigMissing: the loopback opt-out variable is set, or the proxy is not running.
    """
    check_loopback_proxied(environ)
    if not proxy.port:
        raise ConfigMissing("the proxy is not running", reason="proxy_not_running", stage="browser")
    endpoint = ProxyEndpoint(LISTEN_HOST, proxy.port, proxy.username, proxy.password)
    return {"proxy": build_context_proxy(endpoint), "args": list(EGRESS_ARGS)}


def context_proxy(session: ProxySession) -> ProxySettings:
    """The ``proxy=`` mapping for ``browser.new_context`` with ``session``'s credentials."""
    return session.proxy_settings()
