"""``ddgs(backend="duckduckgo")``: keyless search through the ``ddgs`` metasearch library.

How it runs. ``ddgs.DDGS().text()`` cannot tell failures apart: its engines
return nothing for any non-200 status, and it then raises a bare "No results
found." for a rate limit, a challenge, a changed layout and a genuinely empty
answer alike (and ``RatelimitException`` is never raised by 9.x). So this
provider drives one ddgs *engine* (``ddgs.engines.ENGINES["text"][backend]``)
step by step, with the library's own request building and parsing, and looks
at the HTTP status and the page in between. The whole blocking call runs in
a worker thread (``anyio.to_thread.run_sync(..., abandon_on_cancel=True)``)
under the search deadline; the library's own socket timeout is set to the
time left.

Failure mapping, at one boundary (:func:`translate_ddgs_error` for library
exceptions, :func:`classify_answer` for answers):

=================================================  =============================================
what happened                                      pagewarden
=================================================  =============================================
``RatelimitException``                             ``RATE_LIMITED``
``TimeoutException``                               ``TIMEOUT``
any other ``DDGSException`` (connection failures)  ``NETWORK_ERROR``
HTTP 429                                           ``RATE_LIMITED`` (``http_429``)
HTTP 202 (DuckDuckGo's challenge) or 403           ``BOT_CHALLENGE``
HTTP 5xx                                           ``UPSTREAM_HTTP`` (retryable)
another non-200 status                             ``UPSTREAM_HTTP`` (not retryable)
200, parser raised                                 ``PARSE_CHANGED`` (``markup_changed``)
200, empty body                                    ``PARSE_CHANGED`` (``empty_page``)
200, no hits, challenge markers in the page        ``BOT_CHALLENGE`` (``challenge_page``)
200, no hits, a "no results" marker in the page    an empty result (the only empty success)
200, no hits, neither                              ``PARSE_CHANGED`` (``no_results_parsed``)
=================================================  =============================================

JSON backends (``wikipedia``, ``grokipedia``) parse structured data, so a
successful parse with no items is a genuine empty result for them.

Egress. ddgs talks to the network with its own HTTP client (``primp``), not
through pagewarden's SSRF-safe transport: it reaches only the fixed search
engine hosts its engines name (``html.duckduckgo.com``,
``search.brave.com``, ``www.mojeek.com``, ...), never a page URL, and every
hit it returns is normalized and checked like any other provider's. Anything
it fetches is not read into a document. pagewarden passes only the proxy
given to :func:`ddgs` (``proxy=``) and keeps certificate verification on, but
``primp`` may honour the process's proxy environment variables, which
pagewarden's own transport never does. Use
:func:`brave` (or a custom provider) where every socket must go through the
pinned transport.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import anyio
import anyio.to_thread

from .._errors import (
    BotChallenge,
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    Timeout,
    UnknownError,
    UpstreamHTTP,
)
from .._net.upstream import parse_proxy
from .calling import check_name
from .fused import DDGS_UPSTREAM_INDEX
from .normalize import MAX_PROVIDER_ITEMS
from .types import RawHit, SearchQuery

__all__ = ["DdgsProvider", "classify_answer", "ddgs", "ddgs_region", "translate_ddgs_error"]

DEFAULT_TIMEOUT = 5.0
# Lower-case substrings of challenge and block pages (DuckDuckGo's anomaly
# modal, Google's /sorry page, Cloudflare and generic captcha walls). Only
# consulted when a page yielded no hits, so a result *about* captchas is fine.
CHALLENGE_MARKERS: Final = (
    "anomaly-modal",
    "bots use duckduckgo too",
    "challenge-form",
    "captcha",
    "/sorry/index",
    "unusual traffic",
    "are you a robot",
    "cf-challenge",
    "verify you are human",
)
# Lower-case substrings of a genuine "nothing matched" page.
NO_RESULTS_MARKERS: Final = (
    "no-results",
    "no results",
    "did not match any",
    "did not find results",
    "no pages found",
    "not many great matches",
)
_SAFE_SEARCH = {"off": "off", "moderate": "moderate", "strict": "on"}
_TIME_LIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
# Defaults used when only one of language / region is given.
_REGION_LANGUAGE = {
    "US": "en", "GB": "en", "AU": "en", "CA": "en", "IE": "en", "NZ": "en", "IN": "en", "ZA": "en", "SG": "en",
    "DE": "de", "AT": "de", "CH": "de", "FR": "fr", "BE": "fr", "ES": "es", "MX": "es", "AR": "es", "CL": "es",
    "CO": "es", "IT": "it", "NL": "nl", "PT": "pt", "BR": "pt", "JP": "ja", "KR": "ko", "CN": "zh", "TW": "zh",
    "RU": "ru", "PL": "pl", "SE": "sv", "NO": "no", "DK": "da", "FI": "fi", "TR": "tr", "UA": "uk", "GR": "el",
}
_LANGUAGE_REGION = {
    "en": "US", "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "nl": "NL", "pt": "BR", "ja": "JP", "ko": "KR",
    "zh": "CN", "ru": "RU", "pl": "PL", "sv": "SE", "da": "DK", "fi": "FI", "tr": "TR", "uk": "UA", "el": "GR",
}
_SCAN_CHARS = 300_000


def ddgs_region(query: SearchQuery, backend: str) -> str:
    """The ddgs ``region`` (``country-language``, e.g. ``us-en``) for ``query`` on ``backend``.

    No language and no region: ``wt-wt`` (DuckDuckGo's "no region") for
    DuckDuckGo, the library default ``us-en`` elsewhere. One of them: the
    other from a small table (``en``/``US`` when unknown). DuckDuckGo spells
    Great Britain ``uk`` and Japanese/Korean ``jp``/``kr``.
    """
    language, region = query.language, query.region
    if language is None and region is None:
        return "wt-wt" if backend == "duckduckgo" else "us-en"
    if language is None:
        language = _REGION_LANGUAGE.get(region or "", "en")
    if region is None:
        region = _LANGUAGE_REGION.get(language, "US")
    country, lang = region.lower(), language.lower()
    if backend == "duckduckgo":
        country = {"gb": "uk"}.get(country, country)
        lang = {"ja": "jp", "ko": "kr"}.get(lang, lang)
    return f"{country}-{lang}"


def translate_ddgs_error(exc: Exception, name: str) -> PagewardenError:
    """The :class:`PagewardenError` for an exception raised inside the ddgs library."""
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    label = name[:60]
    if isinstance(exc, PagewardenError):
        return exc
    if isinstance(exc, RatelimitException):
        return RateLimited(f"search provider {label} is rate limiting", reason="ddgs_ratelimit", stage="search")
    if isinstance(exc, TimeoutException):
        return Timeout(f"search provider {label} timed out", reason="provider_timeout", stage="search")
    if isinstance(exc, DDGSException):
        return NetworkError(f"search provider {label} could not be reached", reason="ddgs_transport", stage="search")
    return UnknownError(
        f"search provider {label} failed ({type(exc).__name__})", reason="ddgs_internal", stage="search"
    )


def classify_answer(status: int, text: str, name: str) -> None:
    """Raise the typed failure for a non-200 answer (see the module table); return for a 200."""
    label = name[:60]
    if status == 200:
        return
    if status == 429:
        raise RateLimited(f"search provider {label} is rate limiting", reason="http_429", status=status, stage="search")
    if status in (202, 403):
        raise BotChallenge(
            f"search provider {label} answered with a challenge (HTTP {status})",
            reason=f"http_{status}_challenge",
            status=status,
            stage="search",
        )
    raise UpstreamHTTP(
        f"search provider {label} answered HTTP {status}",
        reason=f"http_{status}",
        status=status,
        retryable=status >= 500,
        stage="search",
    )


def _empty_answer(text: str, name: str, structured: bool) -> list[RawHit]:
    """Decide what a parse with no hits means: a genuine empty result or a failure."""
    label = name[:60]
    if structured:
        return []
    lowered = text[:_SCAN_CHARS].lower()
    if any(marker in lowered for marker in CHALLENGE_MARKERS):
        raise BotChallenge(
            f"search provider {label} answered a challenge page", reason="challenge_page", stage="search"
        )
    if any(marker in lowered for marker in NO_RESULTS_MARKERS):
        return []
    raise ParseChanged(
        f"search provider {label} answered a page its parser found no results in",
        reason="no_results_parsed",
        stage="search",
    )


class DdgsProvider:
    """One ddgs text engine as a :class:`SearchProvider`; build it with :func:`ddgs`."""

    def __init__(
        self, backend: str, engine_class: type[Any], *, name: str, timeout: float, proxy: str | None = None
    ) -> None:
        self.backend = backend
        self._engine_class = engine_class
        self.name = name
        self.timeout = timeout
        self._proxy = proxy
        self.egress_proxy = parse_proxy(proxy, unsafe_remote_dns=True) if proxy is not None else None

    def __repr__(self) -> str:
        return f"DdgsProvider(name={self.name!r}, backend={self.backend!r})"

    @property
    def upstream_index(self) -> str:
        """The index this backend serves (for de-correlation in :func:`~pagewarden.fused`)."""
        return DDGS_UPSTREAM_INDEX.get(self.backend, f"ddgs:{self.backend}")

    def _run(self, text: str, region: str, safesearch: str, timelimit: str | None, seconds: int) -> list[RawHit]:
        """The blocking part, run in a worker thread; raises only PagewardenError."""
        try:
            engine = self._engine_class(proxy=self._proxy, timeout=seconds, verify=True)
            payload = engine.build_payload(
                query=text, region=region, safesearch=safesearch, timelimit=timelimit, page=1
            )
            method = engine.search_method
            body_key = "params" if method == "GET" else "data"
            response = engine.http_client.request(method, engine.search_url, **{body_key: payload})
            status, page = response.status_code, response.text
        except Exception as exc:
            raise translate_ddgs_error(exc, self.name) from None
        if not isinstance(status, int) or not isinstance(page, str):
            raise ParseChanged("the ddgs library returned an unexpected response", reason="ddgs_changed")
        classify_answer(status, page, self.name)
        if not page.strip():
            raise ParseChanged(
                f"search provider {self.name[:60]} answered an empty page", reason="empty_page", stage="search"
            )
        structured = not hasattr(engine, "items_xpath")
        try:
            results = engine.post_extract_results(engine.extract_results(page))
        except PagewardenError:
            raise
        except Exception as exc:
            from ddgs.exceptions import DDGSException

            if isinstance(exc, DDGSException):
                # A JSON engine's follow-up request (wikipedia) failed.
                raise translate_ddgs_error(exc, self.name) from None
            raise ParseChanged(
                f"search provider {self.name[:60]} answered a page its parser could not read",
                reason="markup_changed",
                stage="search",
            ) from None
        hits: list[RawHit] = []
        for result in list(results or ())[:MAX_PROVIDER_ITEMS]:
            url, title, body = (getattr(result, key, None) for key in ("href", "title", "body"))
            if not isinstance(url, str) or not isinstance(title, str) or not isinstance(body, str):
                raise ParseChanged("the ddgs library returned results of an unexpected type", reason="ddgs_changed")
            if url:
                hits.append(RawHit(url=url, title=title, snippet=body))
        if not hits:
            return _empty_answer(page, self.name, structured)
        return hits

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Search ``backend`` in a worker thread; see the module docstring for the failure mapping."""
        left = min(self.timeout, deadline - anyio.current_time())
        if left <= 0:
            raise Timeout("no time left for the search", reason="provider_timeout", stage="search")
        region = ddgs_region(query, self.backend)
        timelimit = _TIME_LIMIT.get(query.time_range) if query.time_range else None
        try:
            with anyio.fail_after(left):
                return await anyio.to_thread.run_sync(
                    self._run,
                    query.text,
                    region,
                    _SAFE_SEARCH[query.safe_search],
                    timelimit,
                    max(1, math.ceil(left)),
                    abandon_on_cancel=True,
                )
        except TimeoutError:
            raise Timeout(
                f"search provider {self.name[:60]} timed out", reason="provider_timeout", stage="search"
            ) from None


def ddgs(
    backend: str = "duckduckgo", *, name: str | None = None, timeout: float = DEFAULT_TIMEOUT, proxy: str | None = None
) -> DdgsProvider:
    """Keyless search through one ``ddgs`` text backend.

    Args:
        backend: a ddgs text engine: ``duckduckgo`` (default), ``brave``,
            ``mojeek``, ``yahoo``, ``startpage``, ``wikipedia``,
            ``grokipedia`` (whatever the installed ddgs enables). Chain
            several with :func:`fallback`.
        name: the provider's name; ``ddgs:<backend>`` by default.
        timeout: this provider's own deadline in seconds (the search's
            overall deadline applies too).
        proxy: the upstream proxy the ddgs library sends its requests
            through (the same URL as ``ReaderConfig(proxy=...)``; a reader
            with a proxy refuses a ddgs provider without the same one).

    Raises:
        InvalidInput: an unknown or disabled backend, or a bad option.
        ConfigMissing: the ddgs library is not installed.
    """
    if not isinstance(backend, str):
        raise InvalidInput("backend must be a ddgs text engine name", reason="invalid_backend")
    try:
        from ddgs.engines import ENGINES
    except ImportError:
        from .._errors import ConfigMissing

        raise ConfigMissing("the ddgs library is not installed", reason="ddgs_missing") from None
    engines = ENGINES.get("text", {})
    engine_class = engines.get(backend)
    if engine_class is None:
        raise InvalidInput(
            "unknown ddgs backend; available: " + ", ".join(sorted(engines)), reason="invalid_backend"
        )
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 300:
        raise InvalidInput("timeout must be in (0, 300] seconds", reason="invalid_timeout")
    if proxy is not None:
        parse_proxy(proxy, unsafe_remote_dns=True)  # validated here; never quoted in errors
    return DdgsProvider(
        backend,
        engine_class,
        name=check_name(name if name is not None else f"ddgs:{backend}"),
        timeout=float(timeout),
        proxy=proxy,
    )
