"""The address policy: which IP addresses pagewarden may connect to.

:func:`classify` gives every address a named :class:`AddressVerdict`. Only
``public`` may be dialled (unless the caller allowed the destination with
``unsafe_allow_destinations``). The decision is an explicit deny table
(:data:`DENY_TABLE`, checked top to bottom, first match wins, so the narrow
rows such as cloud metadata come before the ranges that contain them), then
two structural rules, and ``ipaddress.is_global`` only as the final catch-all:
``is_global`` alone misses CGNAT, NAT64 and the IPv6 forms that embed IPv4.

IPv6 forms that carry an IPv4 address (IPv4-mapped ``::ffff:0:0/96``,
IPv4-compatible ``::/96``, SIIT ``::ffff:0:0:0/96``, NAT64, 6to4 ``2002::/16``
and Teredo ``2001::/32``) are refused *entirely*, whatever they embed: they
are tunnels or translation forms that reach the embedded IPv4 host by another
route, and a real public site is reachable on its plain address anyway. The
embedded IPv4 is still unwrapped and classified so the refusal reason says
what it pointed at (``address_sixtofour_embeds_loopback``).
"""

from __future__ import annotations

import enum
import ipaddress
from typing import Final

from .._protocols import IPAddress

__all__ = [
    "DENY_TABLE",
    "AddressVerdict",
    "address_refusal_reason",
    "classify",
    "embedded_ipv4",
]


class AddressVerdict(enum.StrEnum):
    """The named outcome of :func:`classify`. Only ``PUBLIC`` is dialable by default."""

    PUBLIC = "public"
    UNSPECIFIED = "unspecified"
    THIS_NETWORK = "this_network"
    LOOPBACK = "loopback"
    PRIVATE_10 = "private_10"
    PRIVATE_172_16 = "private_172_16"
    PRIVATE_192_168 = "private_192_168"
    CGNAT = "cgnat"
    LINK_LOCAL = "link_local"
    CLOUD_METADATA = "cloud_metadata"
    IETF_PROTOCOL_ASSIGNMENTS = "ietf_protocol_assignments"
    DOCUMENTATION = "documentation"
    SIXTOFOUR_RELAY = "sixtofour_relay"
    BENCHMARKING = "benchmarking"
    MULTICAST = "multicast"
    RESERVED = "reserved"
    BROADCAST = "broadcast"
    IPV4_MAPPED = "ipv4_mapped"
    IPV4_COMPATIBLE = "ipv4_compatible"
    IPV4_TRANSLATED = "ipv4_translated"
    NAT64 = "nat64"
    DISCARD = "discard"
    TEREDO = "teredo"
    SIXTOFOUR = "sixtofour"
    ULA = "ula"
    SITE_LOCAL = "site_local"
    NOT_GLOBAL = "not_global"


_V = AddressVerdict
_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _rows(*rows: tuple[str, AddressVerdict]) -> tuple[tuple[_Network, AddressVerdict], ...]:
    return tuple((ipaddress.ip_network(cidr), verdict) for cidr, verdict in rows)


# The deny table. Order matters: first match wins.
DENY_TABLE: Final[tuple[tuple[_Network, AddressVerdict], ...]] = _rows(
    # Cloud metadata endpoints sit inside larger ranges; name them precisely.
    ("169.254.169.254/32", _V.CLOUD_METADATA),  # AWS, GCP, Azure, OpenStack, ...
    ("169.254.170.2/32", _V.CLOUD_METADATA),  # AWS ECS task metadata
    ("100.100.100.200/32", _V.CLOUD_METADATA),  # Alibaba Cloud
    ("fd00:ec2::254/128", _V.CLOUD_METADATA),  # AWS IMDS over IPv6
    # IPv4
    ("0.0.0.0/8", _V.THIS_NETWORK),
    ("10.0.0.0/8", _V.PRIVATE_10),
    ("100.64.0.0/10", _V.CGNAT),
    ("127.0.0.0/8", _V.LOOPBACK),
    ("169.254.0.0/16", _V.LINK_LOCAL),
    ("172.16.0.0/12", _V.PRIVATE_172_16),
    ("192.0.0.0/24", _V.IETF_PROTOCOL_ASSIGNMENTS),
    ("192.0.2.0/24", _V.DOCUMENTATION),
    ("192.88.99.0/24", _V.SIXTOFOUR_RELAY),
    ("192.168.0.0/16", _V.PRIVATE_192_168),
    ("198.18.0.0/15", _V.BENCHMARKING),
    ("198.51.100.0/24", _V.DOCUMENTATION),
    ("203.0.113.0/24", _V.DOCUMENTATION),
    ("224.0.0.0/4", _V.MULTICAST),
    ("255.255.255.255/32", _V.BROADCAST),
    ("240.0.0.0/4", _V.RESERVED),
    # IPv6
    ("::/128", _V.UNSPECIFIED),
    ("::1/128", _V.LOOPBACK),
    ("::ffff:0:0/96", _V.IPV4_MAPPED),
    ("::ffff:0:0:0/96", _V.IPV4_TRANSLATED),
    ("::/96", _V.IPV4_COMPATIBLE),
    ("64:ff9b::/96", _V.NAT64),
    ("64:ff9b:1::/48", _V.NAT64),
    ("100::/64", _V.DISCARD),
    ("2001::/32", _V.TEREDO),
    ("2001:2::/48", _V.BENCHMARKING),
    ("2001:db8::/32", _V.DOCUMENTATION),
    ("3fff::/20", _V.DOCUMENTATION),
    ("2002::/16", _V.SIXTOFOUR),
    ("fc00::/7", _V.ULA),
    ("fe80::/10", _V.LINK_LOCAL),
    ("fec0::/10", _V.SITE_LOCAL),
    ("ff00::/8", _V.MULTICAST),
)

# Global unicast IPv6 lives in 2000::/3; everything outside it that the table
# did not name is unassigned or special, never a web server.
_IPV6_GLOBAL_UNICAST: Final = ipaddress.IPv6Network("2000::/3")

# Verdicts whose address carries an IPv4 address we can unwrap for the reason.
_EMBEDDING: Final = frozenset(
    {_V.IPV4_MAPPED, _V.IPV4_COMPATIBLE, _V.IPV4_TRANSLATED, _V.NAT64, _V.SIXTOFOUR, _V.TEREDO}
)


def _plain(address: IPAddress) -> IPAddress:
    # A scope id (fe80::1%eth0) does not change which range an address is in,
    # but it makes comparisons with table rows unreliable; drop it.
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        return ipaddress.IPv6Address(int(address))
    return address


def classify(address: IPAddress) -> AddressVerdict:
    """Return the named verdict for ``address`` (``PUBLIC`` only when no rule refuses it)."""
    address = _plain(address)
    for network, verdict in DENY_TABLE:
        if address.version == network.version and address in network:
            return verdict
    if isinstance(address, ipaddress.IPv6Address) and address not in _IPV6_GLOBAL_UNICAST:
        return _V.RESERVED
    if not address.is_global:
        return _V.NOT_GLOBAL
    return _V.PUBLIC


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried by an IPv6 tunnel or translation form, if any.

    Handles IPv4-mapped, IPv4-compatible, SIIT, NAT64 ``64:ff9b::/96`` (last
    32 bits), 6to4 (bits 16..48) and Teredo (the obfuscated client address).
    NAT64 ``64:ff9b:1::/48`` embeds at a prefix-dependent offset and is not
    unwrapped. Plain ``::`` and ``::1`` carry nothing.
    """
    address = _plain(address)
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    verdict = classify(address)
    if verdict is _V.SIXTOFOUR:
        return address.sixtofour
    if verdict is _V.TEREDO:
        teredo = address.teredo
        return teredo[1] if teredo else None
    if verdict in {_V.IPV4_MAPPED, _V.IPV4_COMPATIBLE, _V.IPV4_TRANSLATED}:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if verdict is _V.NAT64 and address in ipaddress.IPv6Network("64:ff9b::/96"):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal_reason(address: IPAddress) -> str | None:
    """``None`` for a public address, else the snake_case refusal reason.

    The reason is ``address_<verdict>``; for the embedding forms it also names
    what the embedded IPv4 is, e.g. ``address_nat64_embeds_private_10``.
    """
    verdict = classify(address)
    if verdict is _V.PUBLIC:
        return None
    reason = f"address_{verdict}"
    if verdict in _EMBEDDING:
        inner = embedded_ipv4(address)
        if inner is not None:
            reason += f"_embeds_{classify(inner)}"
    return reason
