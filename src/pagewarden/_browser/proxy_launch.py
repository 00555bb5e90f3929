"""The proxy's view of Chromium's launch settings: its listen address and ``launch_args``.

The settings themselves (the egress switches, the ``<-loopback>`` bypass, the
environment check) are defined once, in :mod:`.launch`, which the pool
launches with; this module only adapts them to a running
:class:`~.proxy.PinningProxy` for callers that launch Chromium themselves
(see ``docs/egress.md``). Why each setting is there is explained in
:mod:`.launch` and in the measurements of ``browser-egress-facts.md``.

:data:`LISTEN_HOST` is the literal ``127.0.0.1``, never ``localhost``:
``--host-resolver-rules`` maps every name to NOTFOUND except the proxy's own
address, so the proxy must be reachable as an IP literal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TypedDict

from .._errors import ConfigMissing
from .launch import LOOPBACK_BYPASS, LOOPBACK_ENV, ProxyEndpoint, build_context_proxy, check_environment, egress_args

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
LOOPBACK_OPT_OUT_ENV: Final = LOOPBACK_ENV
# The same switches the pool passes (launch.egress_args), for a proxy on LISTEN_HOST.
EGRESS_ARGS: Final[tuple[str, ...]] = tuple(egress_args(LISTEN_HOST))


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
