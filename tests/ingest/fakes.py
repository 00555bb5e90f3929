"""A fake AsyncReader for runner tests: no network, records timing and concurrency per host."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any

import anyio

from pagewarden._ingest.hosts import host_key

__all__ = ["FakeDocument", "FakeReader"]


class FakeDocument:
    """Just enough of a Document for document_record: ``to_dict``."""

    def __init__(self, url: str, method: str = "http") -> None:
        self.url = url
        self.method = method

    def to_dict(self) -> dict[str, Any]:
        """A small JSON-ready dict shaped like Document.to_dict."""
        return {"url": self.url, "markdown": "tiny page", "fetch": {"method": self.method}}


class FakeReader:
    """Reads succeed after ``delay`` seconds unless ``errors`` maps the URL to an exception."""

    def __init__(self, delay: float = 0.0, errors: dict[str, BaseException] | None = None,
                 browser: frozenset[str] = frozenset()) -> None:
        self.delay = delay
        self.errors = errors or {}
        self.browser = browser
        self.calls: list[str] = []
        self.starts: dict[str, list[float]] = defaultdict(list)
        self.active: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.peak_total = 0
        self.closed = False

    async def read(self, url: str, **options: Any) -> FakeDocument:
        """Pretend to read ``url``."""
        host = host_key(url)
        self.calls.append(url)
        self.starts[host].append(time.monotonic())
        self.active[host] += 1
        self.peak[host] = max(self.peak[host], self.active[host])
        self.peak_total = max(self.peak_total, sum(self.active.values()))
        try:
            await anyio.sleep(self.delay)
            error = self.errors.get(url)
            if error is not None:
                raise error
            return FakeDocument(url, "browser" if url in self.browser else "http")
        finally:
            self.active[host] -= 1

    async def aclose(self) -> None:
        """Mark closed."""
        self.closed = True

