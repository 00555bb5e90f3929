"""Fetch, cache and apply robots.txt per origin for batch reads.

:class:`RobotsCache` fetches ``/robots.txt`` of each origin (scheme, host,
port) once through the reader's safe transport (:func:`pagewarden._net.fetch`
with the reader's config: same address policy, same limits) and keeps the
parsed rules in a bounded LRU. Concurrent checks of one origin share one fetch.

What a failed fetch means (RFC 9309 section 2.3.1):

====================================  ===================================
outcome                               verdict for the origin
====================================  ===================================
2xx                                   the parsed rules
4xx (except 429)                      allow everything
429, 5xx                              disallow everything
unreachable (DNS, connect, timeout)   disallow everything
refused by the address policy         disallow everything
any other failure                     disallow everything
====================================  ===================================

A disallowed URL raises ``UnsafeURL`` with reason ``robots_disallowed``; an
origin whose robots.txt could not be read raises reason ``robots_unavailable``.
A "disallow everything" verdict from a failure is kept for
:data:`FAILURE_TTL` seconds only, then robots.txt is asked again; rules are
kept for :data:`RULES_TTL` seconds (the RFC asks for at most 24 hours).
"""

from __future__ import annotations

import time
import urllib.parse
from collections import OrderedDict
from dataclasses import dataclass

import anyio

from .._config import ReaderConfig
from .._errors import PagewardenError, UnsafeURL, UpstreamHTTP
from .._net import fetch
from .robots import PRODUCT_TOKEN, RobotsRules, parse_robots, robots_path

__all__ = ["FAILURE_TTL", "MAX_ORIGINS", "RULES_TTL", "RobotsCache", "RobotsVerdict"]

MAX_ORIGINS = 10_000
RULES_TTL = 24 * 3600.0
FAILURE_TTL = 600.0


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """What robots.txt of one origin says: ``rules``, or ``None`` when it was unavailable (disallow all)."""

    rules: RobotsRules | None
    expires: float


def _origin(url: str) -> str | None:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return f"{parts.scheme}://{netloc}"


class RobotsCache:
    """Per-origin robots.txt verdicts for one reader configuration (see the module docstring)."""

    def __init__(
        self,
        config: ReaderConfig,
        *,
        product_token: str = PRODUCT_TOKEN,
        max_origins: int = MAX_ORIGINS,
    ) -> None:
        self._config = config
        self._token = product_token
        self._max = max_origins
        self._verdicts: OrderedDict[str, RobotsVerdict] = OrderedDict()
        self._pending: dict[str, anyio.Event] = {}
        self.fetches = 0

    async def check(self, url: str) -> None:
        """Raise ``UnsafeURL`` unless robots.txt of ``url``'s origin allows it.

        A URL whose origin cannot be formed is left to the reader's own URL
        checks (it will fail there with the proper error).
        """
        origin = _origin(url)
        if origin is None:
            return
        verdict = await self._verdict(origin)
        if verdict.rules is None:
            raise UnsafeURL(
                "robots.txt of this site could not be read, so it is not fetched",
                reason="robots_unavailable", url=url, stage="robots",
            )
        if not verdict.rules.allowed(robots_path(url)):
            raise UnsafeURL("robots.txt of this site disallows this URL", reason="robots_disallowed",
                            url=url, stage="robots")

    async def rules_for(self, url: str) -> RobotsRules | None:
        """The rules of ``url``'s origin (``None``: unavailable, or no origin can be formed).

        Used by the crawler for ``Crawl-delay`` and ``Sitemap`` lines; shares the
        cache and the single in-flight fetch with :meth:`check`.
        """
        origin = _origin(url)
        if origin is None:
            return None
        return (await self._verdict(origin)).rules

    async def _verdict(self, origin: str) -> RobotsVerdict:
        while True:
            verdict = self._verdicts.get(origin)
            if verdict is not None and verdict.expires > time.monotonic():
                self._verdicts.move_to_end(origin)
                return verdict
            pending = self._pending.get(origin)
            if pending is None:
                break
            await pending.wait()  # another task is fetching this origin's robots.txt
        event = self._pending[origin] = anyio.Event()
        try:
            verdict = await self._fetch(origin)
            self._verdicts[origin] = verdict
            self._verdicts.move_to_end(origin)
            while len(self._verdicts) > self._max:
                self._verdicts.popitem(last=False)
            return verdict
        finally:
            del self._pending[origin]
            event.set()

    async def _fetch(self, origin: str) -> RobotsVerdict:
        self.fetches += 1
        now = time.monotonic()
        try:
            response = await fetch(origin + "/robots.txt", self._config)
        except UpstreamHTTP as error:
            status = error.status or 0
            if 400 <= status < 500 and status != 429:
                return RobotsVerdict(RobotsRules(), now + RULES_TTL)
            return RobotsVerdict(None, now + FAILURE_TTL)
        except PagewardenError:
            return RobotsVerdict(None, now + FAILURE_TTL)
        return RobotsVerdict(parse_robots(response.text, self._token), now + RULES_TTL)
