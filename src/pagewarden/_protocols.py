"""Protocols for the pluggable parts of pagewarden.

Each pluggable part is a structural type: any object with the right methods
works, no base class needed. Fakes for tests live in :mod:`pagewarden.testing`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["IPAddress", "Resolver"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@runtime_checkable
class Resolver(Protocol):
    """Turns a host name into IP addresses.

    pagewarden calls it once per hop and connects only to addresses it returned
    and that passed the address policy; nothing re-resolves afterwards. Answers
    may be :mod:`ipaddress` objects or their text form; anything else is refused
    as an invalid answer.
    """

    async def resolve(self, host: str) -> Sequence[IPAddress | str]:
        """Return every address ``host`` resolves to (raise ``OSError`` when it does not resolve)."""
        ...
