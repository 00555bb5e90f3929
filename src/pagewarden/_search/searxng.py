"""``searxng(url)``: a self-hosted SearXNG instance through its JSON API, over the safe transport.

Request: ``GET <url>/search`` with ``q``, ``format=json``, ``pageno=1``,
``categories=general``, ``safesearch`` (``0``/``1``/``2`` for
off/moderate/strict), ``language`` (the query's language, else ``all``),
``time_range`` (``day``/``week``/``month``/``year``) and, when given,
``engines`` (a comma-separated list). The JSON format must be enabled in the
instance's ``settings.yml`` (``search.formats: [html, json]``); most public
instances disable it, which is why there is no default instance. The request
goes through :func:`pagewarden._search.http.api_get`: pinned DNS, address
policy, verified TLS, size caps. A local instance (``http://127.0.0.1:8888``)
must be named in the provider's ``config.unsafe_allow_destinations``, like
any other loopback destination.

Answers:

=====================================  ==========================================
SearXNG                                pagewarden
=====================================  ==========================================
200 with the expected JSON             hits (``results``: ``url``, ``title``, ``content``)
200, no results, engines unresponsive  ``UPSTREAM_HTTP`` ``searxng_engines_unresponsive`` (retryable)
200, not JSON / unexpected shape       ``PARSE_CHANGED`` (retryable)
403                                    ``UPSTREAM_HTTP`` ``searxng_json_disabled`` (not retryable)
429                                    ``RATE_LIMITED`` (``Retry-After`` honoured)
5xx                                    ``UPSTREAM_HTTP`` (retryable)
3xx                                    ``UPSTREAM_HTTP`` ``unexpected_redirect``
any other status                       ``UPSTREAM_HTTP`` (not retryable)
no answer before the deadline          ``TIMEOUT``
=====================================  ==========================================

De-correlation: an instance aggregates other engines (Google, Bing, ...), so
:func:`~pagewarden.fused` cannot know which index it serves; it is a group of
its own unless ``upstream_index=`` says otherwise (``"google"`` for an
instance that only runs Google, for example).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Any

from .._config import ReaderConfig
from .._errors import InvalidInput, UpstreamHTTP
from .._net.upstream import UpstreamProxy
from .brave import _check_endpoint
from .calling import check_name
from .http import ApiResponse
from .json_api import changed, get_json, json_payload
from .normalize import MAX_PROVIDER_ITEMS
from .types import RawHit, SearchQuery

__all__ = ["SearxngProvider", "searxng"]

DEFAULT_TIMEOUT = 8.0
DEFAULT_MAX_BYTES = 2_000_000
MAX_ENGINES = 32
_ENGINE = re.compile(r"^[a-z0-9][a-z0-9 _.-]{0,63}$")
_SAFE_SEARCH = {"off": "0", "moderate": "1", "strict": "2"}


class SearxngProvider:
    """A SearXNG instance's JSON API as a :class:`SearchProvider`; build it with :func:`searxng`."""

    __slots__ = ("_config", "endpoint", "engines", "max_bytes", "name", "timeout", "upstream_index")

    def __init__(
        self,
        endpoint: str,
        *,
        config: ReaderConfig,
        engines: tuple[str, ...],
        timeout: float,
        max_bytes: int,
        name: str,
        upstream_index: str,
    ) -> None:
        self._config = config
        self.endpoint = endpoint
        self.engines = engines
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.name = name
        self.upstream_index = upstream_index

    def __repr__(self) -> str:
        return f"SearxngProvider(name={self.name!r}, endpoint={self.endpoint!r})"

    @property
    def egress_proxy(self) -> UpstreamProxy | None:
        """The upstream proxy its requests go through (its config's ``proxy``)."""
        return self._config.upstream_proxy

    def _url(self, query: SearchQuery) -> str:
        params: list[tuple[str, str]] = [
            ("q", query.text),
            ("format", "json"),
            ("pageno", "1"),
            ("categories", "general"),
            ("safesearch", _SAFE_SEARCH[query.safe_search]),
            ("language", query.language or "all"),
        ]
        if query.time_range:
            params.append(("time_range", query.time_range))
        if self.engines:
            params.append(("engines", ",".join(self.engines)))
        return self.endpoint + "/search?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)

    def _parse(self, response: ApiResponse) -> list[RawHit]:
        data: Any = json_payload(self.name, response)
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list) or len(results) > MAX_PROVIDER_ITEMS:
            raise changed(self.name, "JSON of an unexpected shape")
        hits: list[RawHit] = []
        for item in results:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                raise changed(self.name, "a result without a URL")
            title = item.get("title") if isinstance(item.get("title"), str) else ""
            snippet = item.get("content") if isinstance(item.get("content"), str) else ""
            hits.append(RawHit(url=item["url"], title=str(title), snippet=str(snippet)))
        unresponsive = data.get("unresponsive_engines")
        if not hits and isinstance(unresponsive, list) and unresponsive:
            raise UpstreamHTTP(
                f"search provider {self.name[:60]} got no answer from its engines",
                reason="searxng_engines_unresponsive",
                status=200,
                retryable=True,
                stage="search",
            )
        return hits

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Query the instance; see the module docstring for the failure mapping."""
        response = await get_json(self.name, self._url(query), headers=(("Accept", "application/json"),),
                                  config=self._config, timeout=self.timeout, max_bytes=self.max_bytes,
                                  deadline=deadline, refusals=_REFUSALS)
        return self._parse(response)


# Statuses SearXNG gives a meaning: the JSON format is switched off in the instance's settings.
_REFUSALS = {403: ("refused the JSON format (enable it in settings.yml)", "searxng_json_disabled")}


def _check_engines(engines: object) -> tuple[str, ...]:
    if engines is None:
        return ()
    if isinstance(engines, str | bytes) or not isinstance(engines, Iterable):
        raise InvalidInput("engines must be a list of SearXNG engine names", reason="invalid_engines")
    names = tuple(engines)
    if len(names) > MAX_ENGINES or not all(isinstance(n, str) and _ENGINE.match(n) for n in names):
        raise InvalidInput(
            f"engines must be at most {MAX_ENGINES} lower-case SearXNG engine names", reason="invalid_engines"
        )
    return names


def searxng(
    url: str,
    *,
    config: ReaderConfig | None = None,
    engines: Iterable[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str = "searxng",
    upstream_index: str | None = None,
) -> SearxngProvider:
    """A self-hosted SearXNG instance (JSON API enabled) as a search provider.

    Args:
        url: the instance's base URL (``https://search.example.org``, or a
            local ``http://127.0.0.1:8888`` named in ``config``'s
            ``unsafe_allow_destinations``); plain ``http`` only for such a
            named destination.
        config: transport policy (resolver, ``unsafe_allow_destinations``,
            ``proxy``); a default :class:`ReaderConfig` when ``None``.
        engines: SearXNG engine names to ask (the instance's defaults when ``None``).
        timeout: this provider's own deadline in seconds (SearXNG waits for
            its slowest engine, so allow more than for a single engine).
        max_bytes: the largest response accepted.
        name: the provider's name in hits, errors and cooldowns.
        upstream_index: the correlation group for :func:`~pagewarden.fused`
            (its own name by default).

    Raises:
        InvalidInput, UnsafeURL: a bad option or an endpoint the policy refuses.
    """
    cfg = config if config is not None else ReaderConfig()
    if not isinstance(cfg, ReaderConfig):
        raise InvalidInput("config must be a ReaderConfig", reason="invalid_config")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 300:
        raise InvalidInput("timeout must be in (0, 300] seconds", reason="invalid_timeout")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 1_024 <= max_bytes <= 10_000_000:
        raise InvalidInput("max_bytes must be in 1024..10000000", reason="invalid_max_bytes")
    endpoint = _check_endpoint(url.rstrip("/") if isinstance(url, str) else url, cfg)
    checked_name = check_name(name)
    return SearxngProvider(
        endpoint.rstrip("/"),
        config=cfg,
        engines=_check_engines(engines),
        timeout=float(timeout),
        max_bytes=max_bytes,
        name=checked_name,
        upstream_index=check_name(upstream_index) if upstream_index is not None else checked_name,
    )
