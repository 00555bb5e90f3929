"""Canonical form of a crawled URL: what makes two URLs the same page.

:func:`canonicalize` takes a URL the URL policy already accepted (so scheme
and host are lower-cased, default ports dropped and the path percent-encoded
by :func:`pagewarden._net.parse_target`) and returns the URL to fetch and the
key the crawl deduplicates on:

==============================  =============================================
rule                            example (fetch URL -> key)
==============================  =============================================
in-page anchor removed          ``/a#install`` -> ``/a``
fragment route kept             ``/#/guide/intro`` stays a page of its own
                                (``/#/`` is ``/``: the root route)
tracking parameters dropped     ``utm_*``, ``gclid``, ``fbclid``, ``msclkid``,
                                ``mc_cid``, ``mc_eid``, ``_ga``, ``yclid``...
session ids dropped             ``sid``, ``sessionid``, ``phpsessid``,
                                ``jsessionid`` (query or ``;jsessionid=``)
query parameters sorted (key)   ``?b=1&a=2`` and ``?a=2&b=1`` are one page
trailing slash (key)            ``/docs/`` and ``/docs`` are one page
index documents (key)           ``/docs/index.html`` is ``/docs/``
scheme (key)                    ``http://a/x`` and ``https://a/x`` are one page
==============================  =============================================

Rows marked *(key)* change only the key: the URL fetched keeps the spelling
the site used first, since a server may treat ``/docs`` and ``/docs/``
differently (a redirect, or a different relative base).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

from .._extract.outlinks import is_route_fragment

__all__ = ["SESSION_PARAMS", "TRACKING_PARAMS", "Canonical", "canonicalize"]

TRACKING_PARAMS = frozenset({
    "gclid", "gclsrc", "dclid", "fbclid", "msclkid", "yclid", "twclid", "igshid", "mc_cid", "mc_eid",
    "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "wickedid", "ref_src",
})
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_")
SESSION_PARAMS = frozenset({
    "sid", "sessionid", "session_id", "sessid", "phpsessid", "jsessionid", "aspsessionid", "cfid", "cftoken",
    "zenid", "osc_sid",
})
INDEX_DOCUMENTS = frozenset({"index.html", "index.htm", "index.php", "index.shtml", "default.htm",
                             "default.html", "default.aspx"})
_ROOT_ROUTES = frozenset({"/", "!/", "!"})
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid|sid|sessionid)=[^/?#]*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Canonical:
    """A crawled URL's canonical forms.

    Attributes:
        url: the URL to fetch (fragment route kept; tracking parameters and
            session ids removed).
        key: the deduplication key (also: sorted query, no trailing slash,
            no index document).
        session_id: whether a session id was removed (a trap sign, counted).
    """

    url: str
    key: str
    session_id: bool


def _kept(name: str) -> tuple[bool, bool]:
    """``(keep, is_session)`` for a query parameter name."""
    lowered = name.lower()
    if lowered in SESSION_PARAMS:
        return False, True
    if lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES):
        return False, False
    return True, False


def canonicalize(url: str) -> Canonical:
    """The canonical fetch URL and dedup key of an accepted absolute ``url`` (see the module docstring)."""
    parts = urllib.parse.urlsplit(url)
    path, session = parts.path, False
    if ";" in path:
        stripped = _PATH_SESSION.sub("", path)
        session = stripped != path
        path = stripped
    pairs: list[tuple[str, str]] = []
    if parts.query:
        for pair in parts.query.split("&"):
            if not pair:
                continue
            name = urllib.parse.unquote_plus(pair.partition("=")[0])
            keep, is_session = _kept(name)
            session = session or is_session
            if keep:
                pairs.append((name, pair))
    query = "&".join(pair for _, pair in pairs)
    # The root route (``#/``, ``#!/``) is the document itself.
    fragment = parts.fragment if is_route_fragment(parts.fragment) and parts.fragment not in _ROOT_ROUTES else ""
    fetch = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path or "/", query, fragment))
    key_path = path or "/"
    head, _, last = key_path.rpartition("/")
    if last.lower() in INDEX_DOCUMENTS:
        key_path = head + "/"
    key_path = key_path.rstrip("/") or "/"
    key_query = "&".join(pair for _, pair in sorted(pairs))
    # No scheme in the key: http:// and https:// of one page on default ports are one page (the URL
    # policy has already dropped default ports, so another port still makes another key).
    key = urllib.parse.urlunsplit(("", parts.netloc, key_path, key_query, fragment))
    return Canonical(fetch, key, session)
