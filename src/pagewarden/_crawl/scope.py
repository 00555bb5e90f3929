"""Which discovered URLs a crawl may read: scope, include/exclude globs, and trap limits.

Scope (``CrawlOptions.scope``), always on the start URL's port (another port is
another origin; ``http`` and ``https`` on their default ports count as one):

* ``host``: the start URL's host only.
* ``site``: the start host's registrable domain and every subdomain of it
  (``docs.example.com`` -> ``example.com``, ``www.example.com``,
  ``api.example.com``...), from the public suffix list; for a name the list
  does not know (``docs.test``) or an IP address, the host itself with a
  leading ``www.`` removed, and its subdomains.
* ``prefix``: the start URL's host, and paths under the start URL's
  directory (``/docs/guide/intro`` -> ``/docs/guide/``).

``include`` and ``exclude`` are shell globs (``fnmatch``, case-sensitive)
matched against the URL's path and query (``/blog/*``); a glob containing
``://`` is matched against the whole URL. A URL must match one ``include``
(when any is given) and no ``exclude``. The start URL is exempt from both.

Traps (:func:`trap_reason`), each a named reason counted in the crawl's
statistics: over-long URLs, too many query parameters or a parameter
repeated, over-long queries, too many path segments, a path segment repeated
(``/a/b/a/b/a/b``), and too many pages of one URL *shape* (the path with
every number replaced, plus the query's parameter names): endless
calendars (``/cal/2031/07``) and pagination (``?page=812``) share a shape.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass

__all__ = ["SCOPES", "Scope", "TrapLimits", "trap_reason", "url_shape"]

SCOPES = ("site", "host", "prefix")
_NUMBER = re.compile(r"\d+")
_HEXISH = re.compile(r"\b[0-9a-fA-F-]{16,}\b")


def _site_domain(host: str) -> str:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    from tld import get_fld  # imported lazily: its suffix list loads on first use

    found = get_fld(host, fix_protocol=True, fail_silently=True)
    if isinstance(found, str) and found:
        return found.lower()
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True, slots=True)
class Scope:
    """The crawl's boundary, built from the start URL (see the module docstring)."""

    kind: str
    host: str
    port: int | None
    domain: str
    prefix: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def from_start(cls, start_url: str, kind: str, include: tuple[str, ...] = (),
                   exclude: tuple[str, ...] = ()) -> Scope:
        """The scope of a crawl starting at the (accepted, canonical) ``start_url``."""
        parts = urllib.parse.urlsplit(start_url)
        host = (parts.hostname or "").lower()
        directory = parts.path.rpartition("/")[0] + "/" if parts.path else "/"
        return cls(kind, host, _port(parts), _site_domain(host), directory, tuple(include), tuple(exclude))

    def reason(self, url: str) -> str | None:
        """``None`` when ``url`` is in scope, else ``out_of_scope``, ``excluded`` or ``not_included``."""
        parts = urllib.parse.urlsplit(url)
        host = (parts.hostname or "").lower()
        if _port(parts) != self.port:
            return "out_of_scope"
        if self.kind == "site":
            if host != self.domain and not host.endswith("." + self.domain) and host != self.host:
                return "out_of_scope"
        elif host != self.host or (self.kind == "prefix" and not (parts.path or "/").startswith(self.prefix)):
            return "out_of_scope"
        target = parts.path + ("?" + parts.query if parts.query else "")
        if self.include and not any(_match(url, target, glob) for glob in self.include):
            return "not_included"
        if any(_match(url, target, glob) for glob in self.exclude):
            return "excluded"
        return None


def _port(parts: urllib.parse.SplitResult) -> int | None:
    # A scheme's default port is no port: http://host/ and https://host/ are one site.
    try:
        port = parts.port
    except ValueError:
        return -1
    return None if port == {"http": 80, "https": 443}.get(parts.scheme) else port


def _match(url: str, target: str, glob: str) -> bool:
    return fnmatch.fnmatchcase(url if "://" in glob else target, glob)


@dataclass(frozen=True, slots=True)
class TrapLimits:
    """Limits on discovered URLs (see :func:`trap_reason`)."""

    max_url_chars: int = 1_024
    max_query_chars: int = 256
    max_query_params: int = 12
    max_path_segments: int = 16
    max_segment_repeats: int = 2
    max_pages_per_shape: int = 1_000


def url_shape(url: str) -> str:
    """The URL's shape: host, the path with numbers and long hex runs replaced, the sorted parameter names."""
    parts = urllib.parse.urlsplit(url)
    path = _NUMBER.sub("N", _HEXISH.sub("H", parts.path))
    names = sorted({pair.partition("=")[0] for pair in parts.query.split("&") if pair})
    route = _NUMBER.sub("N", parts.fragment)
    return f"{parts.netloc}{path}?{'&'.join(names)}#{route}"


def trap_reason(url: str, limits: TrapLimits, shapes: Counter[str]) -> str | None:
    """The trap reason refusing ``url``, or ``None``; counts its shape in ``shapes`` when accepted."""
    if len(url) > limits.max_url_chars:
        return "url_too_long"
    parts = urllib.parse.urlsplit(url)
    if len(parts.query) > limits.max_query_chars:
        return "query_too_long"
    names = [pair.partition("=")[0] for pair in parts.query.split("&") if pair]
    if len(names) > limits.max_query_params:
        return "too_many_query_params"
    if len(names) != len(set(names)):
        return "repeated_query_param"
    segments = [segment for segment in f"{parts.path}/{parts.fragment}".split("/") if segment]
    if len(segments) > limits.max_path_segments:
        return "too_many_path_segments"
    if segments and max(Counter(segments).values()) > limits.max_segment_repeats:
        return "repeated_path_segment"
    shape = url_shape(url)
    if shapes[shape] >= limits.max_pages_per_shape:
        return "shape_limit"
    shapes[shape] += 1
    return None
