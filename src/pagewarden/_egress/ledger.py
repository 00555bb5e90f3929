"""What the pinning proxy refused: a bounded ledger plus exact counters.

Every refusal of :mod:`pagewarden._egress.server` (a 403 policy decision, a
407 with wrong credentials, a 502 upstream failure, a cut connection) is
written here as a :class:`Refusal`. The ledger keeps the last
:data:`LEDGER_SIZE` entries (older ones fall off, so a page that floods the
proxy cannot grow memory) while the per-reason counters stay exact, so a read
can always say "the proxy refused N requests (reasons)".

Entries hold only what is safe to show: the time, the request kind, a
bounded host (no path, no query, no header value, no body), the port, the
reason code and the status sent. A host that is not a valid name is replaced
by ``<invalid>`` rather than echoed.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["LEDGER_SIZE", "Refusal", "RefusalLedger", "RequestKind", "safe_host"]

LEDGER_SIZE: Final = 256
_MAX_HOST_CHARS: Final = 120
# What a host may look like once it reaches the ledger: DNS labels or an IP
# literal (IPv6 without brackets). Anything else is replaced, not echoed.
_HOST_SHAPE: Final = re.compile(r"^[a-z0-9_.:-]{1,255}$")

RequestKind = Literal["connect", "http", "unknown"]


def safe_host(host: str | None) -> str:
    """``host`` lowercased and bounded if it looks like a host name or IP literal, else ``<invalid>``."""
    if not host:
        return "<none>"
    text = host.strip().lower()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if not _HOST_SHAPE.match(text):
        return "<invalid>"
    return text if len(text) <= _MAX_HOST_CHARS else text[: _MAX_HOST_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused request or connection.

    Attributes:
        time: wall-clock seconds since the epoch.
        kind: ``connect`` (an HTTPS tunnel), ``http`` (a plain request) or
            ``unknown`` (the request could not be parsed).
        host: the destination host, bounded (see :func:`safe_host`).
        port: the destination port, if known.
        reason: the snake_case reason code (``address_loopback``,
            ``background_host``, ``method_not_allowed``, ``download_cap``...).
        status: the HTTP status sent (403, 405, 400, 407, 502, ...), or 0 when
            the connection was cut after the response had started.
    """

    time: float
    kind: RequestKind
    host: str
    port: int | None
    reason: str
    status: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "time": self.time,
            "kind": self.kind,
            "host": self.host,
            "port": self.port,
            "reason": self.reason,
            "status": self.status,
        }


class RefusalLedger:
    """The last ``size`` refusals plus exact counters by reason.

    Not thread-safe: the proxy writes it from its event loop only.
    """

    def __init__(self, size: int = LEDGER_SIZE) -> None:
        if size < 1:
            raise ValueError("the ledger needs room for at least one entry")
        self._entries: collections.deque[Refusal] = collections.deque(maxlen=size)
        self._by_reason: collections.Counter[str] = collections.Counter()
        self.total = 0

    def record(self, kind: RequestKind, host: str | None, port: int | None, reason: str, status: int) -> Refusal:
        """Append one refusal (the oldest entry falls off when full) and count it."""
        entry = Refusal(time.time(), kind, safe_host(host), port, reason, status)
        self._entries.append(entry)
        self._by_reason[reason] += 1
        self.total += 1
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Refusal]:
        return iter(tuple(self._entries))

    @property
    def entries(self) -> tuple[Refusal, ...]:
        """The kept entries, oldest first."""
        return tuple(self._entries)

    @property
    def by_reason(self) -> dict[str, int]:
        """Exact refusal counts per reason (never truncated), most frequent first."""
        return dict(self._by_reason.most_common())

    def describe(self) -> str:
        """One line for a read's report, e.g. ``the proxy refused 3 requests (background_host: 2, ...)``."""
        if not self.total:
            return "the proxy refused no requests"
        noun = "request" if self.total == 1 else "requests"
        reasons = ", ".join(f"{reason}: {count}" for reason, count in self._by_reason.most_common(8))
        if len(self._by_reason) > 8:
            reasons += ", …"
        return f"the proxy refused {self.total} {noun} ({reasons})"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary: total, counts by reason and the kept entries."""
        return {
            "total": self.total,
            "by_reason": self.by_reason,
            "entries": [entry.to_dict() for entry in self._entries],
        }
