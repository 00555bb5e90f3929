"""The egress boundary of the browser: a DNS-pinning proxy every Chromium connection goes through.

A part of its own, with its own threat model (``docs/egress.md``): the
browser (:mod:`pagewarden._browser`) uses it only through the names below,
and nothing here knows the browser. Modules, in the order a request meets them:

    chromium: the Chromium settings that make the proxy the only way out
        (launch switches, ``<-loopback>`` bypass, the environment check).
    server: :class:`PinningProxy`: the listener, authentication,
        concurrency, lifecycle, sessions.
    sessions: :class:`ProxySession` (per-context credentials and ledger) and
        ``authenticate()``.
    http1: bounded request heads (h11), hop-by-hop filtering, fixed refusal replies.
    gate: the fixed order of checks for one request, resolve once, dial
        through ``PinnedBackend``, status mapping.
    policy: the proxy-specific rules on top of ``_net`` (request shapes,
        ports, self-connection, background hosts).
    relay: CONNECT tunnels and plain-HTTP forwarding with byte caps and idle timeouts.
    ledger: the bounded refusal ledger.
    attach: ``launch_args`` / ``context_proxy`` for callers that launch
        Chromium themselves.
"""

from __future__ import annotations

from .attach import EgressLaunchSettings, context_proxy, launch_args
from .chromium import (
    LISTEN_HOST,
    LOOPBACK_ENV,
    ProxyEndpoint,
    build_context_proxy,
    check_environment,
    egress_args,
)
from .ledger import Refusal, RefusalLedger
from .server import PinningProxy
from .sessions import ProxyFault, ProxySession

__all__ = [
    "LISTEN_HOST",
    "LOOPBACK_ENV",
    "EgressLaunchSettings",
    "PinningProxy",
    "ProxyEndpoint",
    "ProxyFault",
    "ProxySession",
    "Refusal",
    "RefusalLedger",
    "build_context_proxy",
    "check_environment",
    "context_proxy",
    "egress_args",
    "launch_args",
]
