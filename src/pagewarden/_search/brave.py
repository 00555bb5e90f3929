"""``brave(api_key)``: the Brave Search web API over the project's safe transport.

Request: ``GET https://api.search.brave.com/res/v1/web/search`` with the key
in the ``X-Subscription-Token`` header and ``q``, ``count`` (the query's
limit), ``country`` (region), ``search_lang`` (language; ``ja`` -> ``jp``,
``zh`` -> ``zh-hans``, ``pt`` -> ``pt-br`` as Brave spells them),
``safesearch`` (off/moderate/strict) and ``freshness`` (``pd``/``pw``/``pm``/
``py``). Brave also limits queries to 50 words: longer is ``INVALID_INPUT``.
The request goes through :func:`pagewarden._search.http.api_get`: pinned DNS,
address policy, verified TLS, size caps (1 MB by default).

Answers:

=====================================  ==========================================
Brave                                  pagewarden
=====================================  ==========================================
200 with the expected JSON             hits (``web.results``; none is an empty result)
200, not JSON / unexpected shape       ``PARSE_CHANGED`` (retryable)
429                                    ``RATE_LIMITED``, ``retry_after`` from
                                       ``Retry-After`` (seconds or HTTP date, capped at 300 s)
401 / 403                              ``UPSTREAM_HTTP`` ``api_key_rejected`` (not retryable)
5xx                                    ``UPSTREAM_HTTP`` (retryable)
3xx                                    ``UPSTREAM_HTTP`` ``unexpected_redirect`` (redirects are errors)
any other status                       ``UPSTREAM_HTTP`` (not retryable)
no answer before the deadline          ``TIMEOUT``
=====================================  ==========================================

The key lives only in the provider object and the request header. It is not
in ``repr()``, in any error message or ``to_dict()``, nor in the URL. An
endpoint over plain ``http`` (which would send the key in clear text) is
refused unless the config's ``unsafe_allow_destinations`` names it (a local
test server).
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

from .._config import ReaderConfig
from .._errors import (
    ConfigMissing,
    InvalidInput,
    UnsafeURL,
)
from .._net.upstream import UpstreamProxy
from .._net.urls import parse_target
from .calling import check_name
from .http import ApiResponse
from .json_api import changed, get_json, json_payload
from .normalize import MAX_PROVIDER_ITEMS
from .types import RawHit, SearchQuery

__all__ = ["BRAVE_ENDPOINT", "BraveProvider", "brave"]

BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
DEFAULT_TIMEOUT = 5.0
DEFAULT_MAX_BYTES = 1_000_000
MAX_WORDS = 50
_KEY = re.compile(r"^[\x21-\x7e]{1,256}$")
_TAG = re.compile(r"<[^>]{0,200}>")
_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
_LANGUAGES = {"ja": "jp", "zh": "zh-hans", "pt": "pt-br"}


def _plain(value: object) -> str:
    # Brave marks matches with <strong>; the text must reach the guard as text.
    if not isinstance(value, str):
        return ""
    return html.unescape(_TAG.sub("", value))


class BraveProvider:
    """The Brave Search web API as a :class:`SearchProvider`; build it with :func:`brave`."""

    __slots__ = ("_config", "_key", "endpoint", "max_bytes", "name", "timeout")

    def __init__(
        self, key: str, *, endpoint: str, config: ReaderConfig, timeout: float, max_bytes: int, name: str
    ) -> None:
        self._key = key
        self._config = config
        self.endpoint = endpoint
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.name = name

    def __repr__(self) -> str:
        return f"BraveProvider(name={self.name!r}, endpoint={self.endpoint!r})"

    @property
    def egress_proxy(self) -> UpstreamProxy | None:
        """The upstream proxy its requests go through (its config's ``proxy``)."""
        return self._config.upstream_proxy

    @property
    def upstream_index(self) -> str:
        """Brave's own index (shared with ``ddgs("brave")``, for de-correlation in :func:`~pagewarden.fused`)."""
        return "brave"

    def _url(self, query: SearchQuery) -> str:
        if len(query.text.split()) > MAX_WORDS:
            raise InvalidInput(
                f"Brave accepts at most {MAX_WORDS} words per query", reason="query_too_many_words", stage="search"
            )
        params: list[tuple[str, str]] = [("q", query.text), ("count", str(query.limit))]
        if query.region:
            params.append(("country", query.region))
        if query.language:
            params.append(("search_lang", _LANGUAGES.get(query.language, query.language)))
        params.append(("safesearch", query.safe_search))
        if query.time_range:
            params.append(("freshness", _FRESHNESS[query.time_range]))
        return self.endpoint + "?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)

    def _parse(self, response: ApiResponse) -> list[RawHit]:
        data: Any = json_payload(self.name, response)
        if not isinstance(data, dict):
            raise changed(self.name, "JSON of an unexpected shape")
        web = data.get("web")
        if web is None:
            # Brave leaves "web" out when nothing matched.
            if data.get("type") != "search":
                raise changed(self.name, "JSON of an unexpected shape")
            return []
        results = web.get("results", []) if isinstance(web, dict) else None
        if not isinstance(results, list) or len(results) > MAX_PROVIDER_ITEMS:
            raise changed(self.name, "JSON of an unexpected shape")
        hits: list[RawHit] = []
        for item in results:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                raise changed(self.name, "a result without a URL")
            title, snippet = _plain(item.get("title")), _plain(item.get("description"))
            hits.append(RawHit(url=item["url"], title=title, snippet=snippet))
        return hits

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Query Brave; see the module docstring for the failure mapping."""
        headers = (("Accept", "application/json"), ("X-Subscription-Token", self._key))
        response = await get_json(self.name, self._url(query), headers=headers, config=self._config,
                                  timeout=self.timeout, max_bytes=self.max_bytes, deadline=deadline,
                                  refusals=_REFUSALS)
        return self._parse(response)


# Statuses Brave gives a meaning: the key was refused.
_REFUSALS = {status: (f"rejected the API key (HTTP {status})", "api_key_rejected") for status in (401, 403)}


def _check_endpoint(endpoint: object, config: ReaderConfig) -> str:
    if not isinstance(endpoint, str):
        raise InvalidInput("the endpoint must be a URL string", reason="invalid_endpoint")
    target = parse_target(endpoint, config)
    if target.scheme != "https":
        permitted = target.host_allowed or (
            target.ip is not None and any(e.allows_address(target.ip, target.port) for e in config.allowed_destinations)
        )
        if not permitted:
            raise UnsafeURL(
                "the API endpoint must use https (the key would travel in clear text)",
                reason="api_endpoint_not_https",
                url=endpoint,
                stage="intake",
            )
    if target.fragment is not None or "?" in target.url:
        raise InvalidInput("the endpoint must not carry a query or fragment", reason="invalid_endpoint")
    return target.url


def brave(
    api_key: str | None,
    *,
    endpoint: str = BRAVE_ENDPOINT,
    config: ReaderConfig | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str = "brave",
) -> BraveProvider:
    """The Brave Search web API as a search provider.

    Args:
        api_key: a Brave Search API subscription token.
        endpoint: the API URL (tests point it at a local server).
        config: transport policy (resolver, ``unsafe_allow_destinations``);
            a default :class:`ReaderConfig` when ``None``.
        timeout: this provider's own deadline in seconds (the search's
            overall deadline applies too).
        max_bytes: the largest response accepted.
        name: the provider's name in hits, errors and cooldowns.

    Raises:
        ConfigMissing: no key.
        InvalidInput: a malformed key (the message never quotes it) or option.
        UnsafeURL: an endpoint the transport policy refuses.
    """
    if api_key is None or api_key == "":
        raise ConfigMissing("the Brave provider needs an API key", reason="api_key_missing", stage="search")
    if not isinstance(api_key, str) or not _KEY.match(api_key):
        raise InvalidInput(
            "the Brave API key must be 1..256 printable ASCII characters without spaces", reason="invalid_api_key"
        )
    cfg = config if config is not None else ReaderConfig()
    if not isinstance(cfg, ReaderConfig):
        raise InvalidInput("config must be a ReaderConfig", reason="invalid_config")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 300:
        raise InvalidInput("timeout must be in (0, 300] seconds", reason="invalid_timeout")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 1_024 <= max_bytes <= 10_000_000:
        raise InvalidInput("max_bytes must be in 1024..10000000", reason="invalid_max_bytes")
    return BraveProvider(
        api_key,
        endpoint=_check_endpoint(endpoint, cfg),
        config=cfg,
        timeout=float(timeout),
        max_bytes=max_bytes,
        name=check_name(name),
    )
