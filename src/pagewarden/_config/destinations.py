"""Destinations a reader may reach although the address policy refuses them (``unsafe_allow_destinations``)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Literal

from .._errors import InvalidInput
from .._protocols import IPAddress
from .limits import check_int

__all__ = ["AllowedDestination", "parse_allowed_destination"]

_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


@dataclass(frozen=True, slots=True)
class AllowedDestination:
    """One parsed ``unsafe_allow_destinations`` entry.

    ``kind`` is ``"address"`` (an exact IP and port), ``"host"`` (an exact
    host name and port) or ``"network"`` (every address of a CIDR block, any port).
    """

    kind: Literal["address", "host", "network"]
    host: str | None = None
    address: IPAddress | None = None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
    port: int | None = None

    def allows_address(self, address: IPAddress, port: int) -> bool:
        """Whether this entry lets a connection to ``address:port`` through."""
        if self.kind == "network" and self.network is not None:
            return address.version == self.network.version and address in self.network
        if self.kind == "address":
            return address == self.address and port == self.port
        return False

    def allows_host(self, host: str, port: int) -> bool:
        """Whether this entry names exactly ``host:port``."""
        return self.kind == "host" and host == self.host and port == self.port


def parse_allowed_destination(entry: str) -> AllowedDestination:
    """Parse ``ip:port``, ``[v6]:port``, ``host:port`` or a CIDR block."""
    if not isinstance(entry, str) or not 0 < len(entry) <= 300:
        raise InvalidInput("an allowed destination must be a short string", reason="invalid_destination")
    text = entry.strip().lower()
    if "/" in text:
        try:
            network = ipaddress.ip_network(text, strict=True)
        except ValueError:
            raise InvalidInput(
                "an allowed network must be a canonical CIDR block such as 127.0.0.0/8",
                reason="invalid_destination",
            ) from None
        return AllowedDestination(kind="network", network=network)
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit() or not host:
        raise InvalidInput(
            "an allowed destination needs an explicit port: ip:port, [v6]:port or host:port",
            reason="invalid_destination",
        )
    port = check_int("destination_port", int(port_text), 1, 65535)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        labels = host.rstrip(".").split(".")
        if not all(_HOST_LABEL.match(label) for label in labels):
            raise InvalidInput("an allowed host must be a plain DNS name", reason="invalid_destination") from None
        return AllowedDestination(kind="host", host=".".join(labels), port=port)
    return AllowedDestination(kind="address", address=address, port=port)
