"""Hit normalization: validate provider output, canonicalize URLs, bound text, deduplicate.

Everything a provider returns is untrusted. This module is DNS-free and
socket-free.

Provider output (:func:`validate_raw_hits`): a sequence (not a string or a
mapping) of at most :data:`MAX_PROVIDER_ITEMS` :class:`RawHit` whose fields
are strings; anything else is ``PARSE_CHANGED`` (``invalid_provider_output``).

URLs (:func:`canonical_hit_url`), in order:

1. protocol-relative links (``//host/...``, as DuckDuckGo's HTML page writes
   them) get ``https:``;
2. search-engine redirect wrappers are unwrapped (up to three nested):
   DuckDuckGo ``/l/?uddg=``, Google ``/url?q=`` (or ``url=``), Bing
   ``/ck/a?...&u=a1<base64url>``, Yahoo ``/RU=<url>/RK=``;
3. only http/https; the fragment is dropped; ``utm_*`` and click-id query
   parameters (:data:`TRACKING_PARAMETERS`, case-insensitive) are dropped,
   every other parameter is kept in order and byte for byte;
4. the result must pass :func:`pagewarden._net.check_link` under the
   reader's config: no credentials, ports 80/443, no local names, no refused
   IP literals (private, loopback, metadata...). Refused hits are dropped,
   not errors: a search result pointing at ``http://169.254.169.254/`` is
   never offered to a model.

Deduplication uses the canonical URL with a trailing slash removed from a
non-root path, so ``/a`` and ``/a/`` count once (the first spelling wins).

Titles and snippets: control characters become spaces, invisible format
characters (zero-width, bidi overrides) are removed, whitespace collapses,
and they are bounded to :data:`MAX_TITLE_CHARS` / :data:`MAX_SNIPPET_CHARS`.
"""

from __future__ import annotations

import base64
import binascii
import unicodedata
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from .._config import ReaderConfig
from .._errors import ParseChanged
from .._net import check_link
from .types import RawHit

__all__ = [
    "MAX_PROVIDER_ITEMS",
    "MAX_SNIPPET_CHARS",
    "MAX_TITLE_CHARS",
    "TRACKING_PARAMETERS",
    "CandidateHit",
    "canonical_hit_url",
    "clean_text",
    "dedupe_key",
    "normalize_hits",
    "validate_raw_hits",
]

MAX_PROVIDER_ITEMS = 1_000
MAX_TITLE_CHARS = 1_000
MAX_SNIPPET_CHARS = 10_000
# Provider fields longer than this are not hits but garbage; refuse before any work.
_MAX_RAW_FIELD_CHARS = 100_000
_MAX_UNWRAP = 3

TRACKING_PARAMETERS: Final = frozenset(
    {
        "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "mc_cid", "mc_eid", "ref_src",
        "yclid", "igshid", "twclid", "ttclid", "li_fat_id", "_hsenc", "_hsmi", "mkt_tok", "srsltid", "vero_id",
        "oly_anon_id", "oly_enc_id", "rb_clickid", "s_cid", "ef_id", "_openstat", "wickedid",
    }
)

_DEFAULT_CONFIG: ReaderConfig | None = None


def _default_config() -> ReaderConfig:
    # Built lazily (ReaderConfig imports the browser config) and never mutated: frozen.
    global _DEFAULT_CONFIG
    if _DEFAULT_CONFIG is None:
        _DEFAULT_CONFIG = ReaderConfig()
    return _DEFAULT_CONFIG


class CandidateHit:
    """A hit after URL and text normalization, before the guard and ranking."""

    __slots__ = ("key", "snippet", "title", "url")

    def __init__(self, url: str, title: str, snippet: str, key: str) -> None:
        self.url = url
        self.title = title
        self.snippet = snippet
        self.key = key

    def __repr__(self) -> str:
        return f"CandidateHit(url={self.url!r})"


def validate_raw_hits(raw: object, provider: str) -> tuple[RawHit, ...]:
    """Check the shape of a provider's answer; ``PARSE_CHANGED`` when it is not a bounded sequence of RawHit."""

    def bad(message: str) -> ParseChanged:
        return ParseChanged(
            f"search provider {provider[:60]} returned {message}", reason="invalid_provider_output", stage="search"
        )

    if isinstance(raw, str | bytes | bytearray | Mapping) or not isinstance(raw, Sequence):
        raise bad("something that is not a list of hits")
    if len(raw) > MAX_PROVIDER_ITEMS:
        raise bad(f"more than {MAX_PROVIDER_ITEMS} hits")
    hits: list[RawHit] = []
    for item in raw:
        if not isinstance(item, RawHit):
            raise bad("an item that is not a RawHit")
        for value in (item.url, item.title, item.snippet):
            if not isinstance(value, str):
                raise bad("a hit field that is not text")
            if len(value) > _MAX_RAW_FIELD_CHARS:
                raise bad("a hit field that is far too long")
        hits.append(item)
    return tuple(hits)


def clean_text(text: str, limit: int) -> str:
    """Control characters to spaces, format characters removed, whitespace collapsed, bounded to ``limit``."""
    out: list[str] = []
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc":
            out.append(" ")
        elif category in ("Cf", "Cs", "Co", "Cn"):
            # Zero-width and bidi controls hide or reorder text for a human
            # reader; surrogates and unassigned code points have no business here.
            continue
        else:
            out.append(ch)
    cleaned = " ".join("".join(out).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1].rstrip() + "…"


def _query_value(query: str, *names: str) -> str | None:
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=False):
        if key in names and value:
            return value
    return None


def _unwrap_duckduckgo(parts: urllib.parse.SplitResult) -> str | None:
    query = parts.query
    if "uddg=" not in query:
        return None
    value = query.split("uddg=", 1)[1]
    if value.lower().startswith(("http://", "https://")):
        # Already percent-decoded upstream (ddgs unquotes hrefs): the target's
        # own "&" survive, so cut only at DuckDuckGo's trailing "&rut=".
        cut = value.rfind("&rut=")
        return value[:cut] if cut >= 0 else value
    return _query_value(query, "uddg")


def _unwrap_bing(parts: urllib.parse.SplitResult) -> str | None:
    value = _query_value(parts.query, "u")
    if value is None or not value.startswith("a1"):
        return None
    encoded = value[2:]
    try:
        decoded = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return decoded


def _unwrap_yahoo(parts: urllib.parse.SplitResult) -> str | None:
    if "/RU=" not in parts.path:
        return None
    value = parts.path.split("/RU=", 1)[1]
    for end in ("/RK=", "/RS="):
        value = value.split(end, 1)[0]
    return urllib.parse.unquote(value)


def _is_google(labels: list[str]) -> bool:
    # google.com, www.google.de, google.co.uk, www.google.com.au
    if len(labels) >= 2 and labels[-2] == "google":
        return True
    return len(labels) >= 3 and labels[-3] == "google" and labels[-2] in ("co", "com")


def _unwrap_once(url: str) -> str | None:
    """The wrapped target if ``url`` is a known search-engine redirect wrapper, else ``None``."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    labels = host.split(".")
    if (host == "duckduckgo.com" or host.endswith(".duckduckgo.com")) and parts.path in ("/l/", "/l"):
        return _unwrap_duckduckgo(parts)
    if parts.path == "/url" and (host == "" or _is_google(labels)):
        return _query_value(parts.query, "q", "url")
    if host in ("bing.com", "www.bing.com") and parts.path == "/ck/a":
        return _unwrap_bing(parts)
    if host.endswith("search.yahoo.com"):
        return _unwrap_yahoo(parts)
    return None


def _drop_tracking(query: str) -> str:
    kept: list[str] = []
    for pair in query.split("&"):
        if not pair:
            continue
        key = urllib.parse.unquote_plus(pair.split("=", 1)[0]).strip().lower()
        if key.startswith("utm_") or key in TRACKING_PARAMETERS:
            continue
        kept.append(pair)
    return "&".join(kept)


def canonical_hit_url(url: str, config: ReaderConfig | None = None) -> str | None:
    """The canonical URL of a hit, or ``None`` when it must be dropped (see the module docstring)."""
    if not isinstance(url, str):
        return None
    current = url.strip()
    for _ in range(_MAX_UNWRAP + 1):
        if current.startswith("//"):
            current = "https:" + current
        inner = _unwrap_once(current)
        if inner is None:
            break
        current = inner.strip()
    else:
        return None  # wrapped deeper than any real engine does: refuse rather than guess
    try:
        parts = urllib.parse.urlsplit(current)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    rebuilt = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, _drop_tracking(parts.query), ""))
    cfg = config if config is not None else _default_config()
    return check_link(rebuilt, rebuilt, cfg)


def dedupe_key(canonical_url: str) -> str:
    """The deduplication key: the canonical URL without a trailing slash on a non-root path."""
    parts = urllib.parse.urlsplit(canonical_url)
    path = parts.path
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def normalize_hits(raw: Iterable[RawHit], config: ReaderConfig | None = None) -> list[CandidateHit]:
    """Canonicalize, clean and deduplicate ``raw`` (already shape-checked), keeping provider order."""
    seen: set[str] = set()
    out: list[CandidateHit] = []
    for hit in raw:
        url = canonical_hit_url(hit.url, config)
        if url is None:
            continue
        key = dedupe_key(url)
        if key in seen:
            continue
        seen.add(key)
        out.append(
            CandidateHit(
                url=url,
                title=clean_text(hit.title, MAX_TITLE_CHARS),
                snippet=clean_text(hit.snippet, MAX_SNIPPET_CHARS),
                key=key,
            )
        )
    return out
