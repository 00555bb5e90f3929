"""A fake link filter shared by the extraction tests."""

from __future__ import annotations

import urllib.parse

REFUSED_HOSTS = frozenset({"blocked.example", "10.0.0.1"})


class FakeLinkFilter:
    """Refuses a fixed set of hosts, drops fragments, and records every URL it was asked about."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, url: str) -> str | None:
        """Return ``url`` without its fragment, or ``None`` for a refused host."""
        self.calls.append(url)
        parts = urllib.parse.urlsplit(url)
        if parts.hostname in REFUSED_HOSTS:
            return None
        return urllib.parse.urlunsplit(parts._replace(fragment=""))
