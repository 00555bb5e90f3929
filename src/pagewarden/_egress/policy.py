"""Destination policy of the pinning proxy: the static path's rules, applied to proxy requests.

Nothing here is a second policy. A proxy request becomes a URL that goes
through the same intake as a static read
(:func:`~pagewarden._net.urls.parse_target`: strict parsing, IP-literal
rules, local names, ``unsafe_allow_destinations``), the same sensitive-query
check for plain HTTP (:func:`~pagewarden._net.sensitive.check_sensitive`) and
the same single resolution with the address deny table
(:func:`~pagewarden._net.resolve.resolve_and_check`). What this module adds is
only what is specific to a proxy:

* the request shapes: ``CONNECT host:port`` (authority-form, no ``@ / ? #``,
  validated as ``https://host:port/``) and absolute-form ``http://`` URLs;
* one port per shape: 443 for CONNECT, 80 for plain HTTP, anything else only
  with an ``unsafe_allow_destinations`` entry covering every resolved address
  (the static path allows both 80 and 443 for either scheme; a tunnel to port
  80 would carry an unreadable ``ws://`` or plain-text protocol, and plain
  HTTP to 443 is never a real page);
* the proxy's own listening address, refused even when an allowance covers
  loopback (a page could otherwise make the proxy talk to itself);
* Chromium's own background hosts (:data:`DEFAULT_BACKGROUND_HOSTS`), refused
  before any lookup.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Collection
from typing import Final

from .._config import ReaderConfig
from .._errors import InvalidInput, UnsafeURL
from .._net.resolve import resolve_and_check
from .._net.sensitive import check_sensitive
from .._net.urls import Target, parse_target
from .._protocols import IPAddress

__all__ = [
    "CONNECT_PORT",
    "DEFAULT_BACKGROUND_HOSTS",
    "HTTP_PORT",
    "check_refused_host_patterns",
    "is_refused_host",
    "parse_absolute_http",
    "parse_connect_authority",
    "resolve_destination",
]

CONNECT_PORT: Final = 443
HTTP_PORT: Final = 80

# Hosts Chromium talks to on its own (component updater, Safe Browsing,
# optimization hints, sign-in, push, variations). Measured on Debian Chromium
# 156 under Playwright: `CONNECT update.googleapis.com:443` and
# `POST http://update.googleapis.com/service/update2/json` in every run,
# despite --disable-background-networking and --disable-component-update.
# The rest are the endpoints of the same background services. Deliberately
# NOT listed: *.googleapis.com and *.google.com as a whole, because pages
# load scripts from ajax.googleapis.com, styles from fonts.googleapis.com and
# are themselves on www.google.com.
DEFAULT_BACKGROUND_HOSTS: Final[tuple[str, ...]] = (
    "update.googleapis.com",  # component updater (measured)
    "clients1.google.com",
    "clients2.google.com",  # component and extension updates
    "clients3.google.com",
    "clients4.google.com",
    "clients5.google.com",
    "clients6.google.com",
    "clientservices.googleapis.com",  # variations seed
    "safebrowsing.googleapis.com",
    "safebrowsingohttpgateway.googleapis.com",
    "safebrowsing.google.com",
    "sb-ssl.google.com",
    "*-pa.googleapis.com",  # Chrome's private service APIs (optimizationguide-pa, ...)
    "optimizationguide-pa.googleapis.com",
    "content-autofill.googleapis.com",
    "accounts.google.com",  # browser sign-in
    "android.clients.google.com",
    "mtalk.google.com",  # push messaging (GCM)
    "dl.google.com",  # component downloads
    "gvt1.com",
    "*.gvt1.com",
    "redirector.gvt1.com",
    "edgedl.me.gvt1.com",
    "translate.googleapis.com",  # built-in page translation
)

_PATTERN: Final = re.compile(r"^(?:\*[.-])?[a-z0-9.-]{1,253}$")
_AUTHORITY_FORBIDDEN: Final = frozenset("@/?#\\%")


def check_refused_host_patterns(patterns: Collection[str]) -> tuple[str, ...]:
    """Validate and normalise refused-host patterns: ``host``, ``*.suffix`` or ``*-suffix``."""
    if isinstance(patterns, str):
        raise InvalidInput("refused_hosts must be a collection of host patterns", reason="invalid_refused_hosts")
    out: list[str] = []
    for pattern in patterns:
        text = str(pattern).strip().lower().rstrip(".")
        if not _PATTERN.match(text):
            raise InvalidInput(
                "a refused host must be a host name, *.suffix or *-suffix", reason="invalid_refused_hosts"
            )
        out.append(text)
    return tuple(dict.fromkeys(out))


def is_refused_host(host: str, patterns: Collection[str]) -> bool:
    """Whether ``host`` (canonical, lowercase) matches one of the refused-host ``patterns``."""
    name = host.lower().rstrip(".")
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def parse_connect_authority(authority: str, config: ReaderConfig) -> Target:
    """Check a CONNECT authority (``host:port``) and return it as an ``https://`` target (DNS-free).

    Raises:
        InvalidInput: the authority is malformed (``reason="invalid_connect_authority"``).
        UnsafeURL: the destination is refused by the static intake rules.
    """
    if (
        not authority
        or len(authority) > 300
        or any(ch in _AUTHORITY_FORBIDDEN for ch in authority)
        or not authority.isascii()
        or not authority.isprintable()
        or " " in authority
    ):
        raise InvalidInput("the CONNECT authority must be host:port", reason="invalid_connect_authority")
    host, sep, port = authority.rpartition(":")
    if not sep or not host or not port.isdigit() or (":" in host and not host.startswith("[")):
        raise InvalidInput("the CONNECT authority must be host:port", reason="invalid_connect_authority")
    return parse_target(f"https://{authority}/", config)


def parse_absolute_http(url: str, config: ReaderConfig) -> Target:
    """Check an absolute-form ``http://`` request target (DNS-free) and return it.

    Raises:
        InvalidInput: origin-form, ``https://`` absolute-form or a malformed URL.
        UnsafeURL: the URL is refused by the static intake rules or the
            sensitive-query check.
    """
    if not url.lower().startswith("http://"):
        raise InvalidInput("only absolute http:// request targets are proxied", reason="request_target_not_absolute")
    target = parse_target(url, config)
    if target.scheme != "http" or target.fragment is not None:
        raise InvalidInput("only absolute http:// request targets are proxied", reason="request_target_not_absolute")
    check_sensitive(target, config)
    return target


def _permitted(target: Target, address: IPAddress, config: ReaderConfig) -> bool:
    return target.host_allowed or any(
        entry.allows_address(address, target.port) for entry in config.allowed_destinations
    )


def _could_be_permitted(target: Target, config: ReaderConfig) -> bool:
    # Before DNS: only an address or network entry for this port could still
    # let a name through on a port other than the shape's own.
    if target.host_allowed:
        return True
    if target.ip is not None:
        return _permitted(target, target.ip, config)
    return any(
        entry.kind == "network" or (entry.kind == "address" and entry.port == target.port)
        for entry in config.allowed_destinations
    )


async def resolve_destination(
    target: Target,
    config: ReaderConfig,
    *,
    standard_port: int,
    proxy_endpoint: tuple[IPAddress, int],
) -> tuple[IPAddress, ...]:
    """Resolve ``target`` once and return the addresses the proxy may dial.

    ``standard_port`` is the one port this request shape may use without an
    allowance (443 for CONNECT, 80 for plain HTTP). ``proxy_endpoint`` is the
    proxy's own listening address, never dialled.

    Raises:
        UnsafeURL: a refused port, address, or the proxy itself.
        NetworkError: the name does not resolve.
    """
    if target.port != standard_port and not _could_be_permitted(target, config):
        raise UnsafeURL(
            f"only port {standard_port} is allowed here", reason="port_not_allowed", url=target.url, stage="intake"
        )
    addresses = await resolve_and_check(target, config)
    if target.port != standard_port and not all(_permitted(target, address, config) for address in addresses):
        raise UnsafeURL(
            f"only port {standard_port} is allowed here", reason="port_not_allowed", url=target.url, stage="dns"
        )
    own_address, own_port = proxy_endpoint
    for address in addresses:
        # Compare what the address would reach, not its spelling: any loopback
        # or unspecified address (also IPv4-mapped) on our port may be us.
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        reach = mapped if mapped is not None else address
        if target.port == own_port and (reach == own_address or reach.is_loopback or reach.is_unspecified):
            raise UnsafeURL("the proxy never connects to itself", reason="proxy_self", url=target.url, stage="dns")
    return addresses
