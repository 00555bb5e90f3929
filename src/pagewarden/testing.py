"""Fakes for testing code that uses pagewarden, without touching the network.

Example::

    resolver = StaticResolver({"docs.example": ["127.0.0.1"]})
    reader = AsyncReader(resolver=resolver, unsafe_allow_destinations=["127.0.0.1:8080"])
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence

from ._protocols import IPAddress

__all__ = ["StaticResolver"]


class StaticResolver:
    """A :class:`pagewarden.Resolver` answering from a fixed table.

    Unknown names raise ``OSError`` like a failed lookup. ``calls`` records
    every host asked for, in order, so tests can check nothing re-resolves.
    """

    def __init__(self, table: Mapping[str, Iterable[str | IPAddress]]) -> None:
        self._table: dict[str, tuple[IPAddress, ...]] = {
            host.lower().rstrip("."): tuple(ipaddress.ip_address(a) for a in answers)
            for host, answers in table.items()
        }
        self.calls: list[str] = []

    async def resolve(self, host: str) -> Sequence[IPAddress]:
        """Return the table's answers for ``host`` or raise ``OSError``."""
        self.calls.append(host)
        try:
            return self._table[host.lower().rstrip(".")]
        except KeyError:
            raise OSError(f"no such host in the static table: {host[:100]}") from None
