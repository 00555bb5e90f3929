"""Resolving and filtering the links found in a page's content.

Every link is resolved against the page's base URL, must be ``http`` or
``https``, and must be accepted by the reader's link filter (the transport's
DNS-free URL policy), which also returns its canonical form. Refused links are
not merely left out of :attr:`Extraction.links`: the adapters also remove their
destinations from the Markdown (the link text stays), so a reader of the
Markdown can never follow a link the policy refused.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable

from .._errors import PagewardenError

__all__ = ["LinkFilter", "LinkPolicy"]

LinkFilter = Callable[[str], "str | None"]

_ALLOWED_SCHEMES = frozenset({"http", "https"})
# What browsers do to an href before using it (WHATWG URL parsing): strip
# leading/trailing C0 controls and spaces, and remove every tab and newline,
# so that "java\nscript:" is still recognised as javascript:.
_EDGE = "".join(chr(code) for code in range(0x21))
_TAB_NEWLINE = re.compile("[\t\n\r]")
MAX_HREF_CHARS = 2_048


class LinkPolicy:
    """Decides, once per distinct href, whether a link is kept and in which form.

    One instance serves one page: it remembers decisions (a page repeats its
    links) and collects the accepted links in order, deduplicated, at most
    ``max_links`` of them. It is not shared between threads.
    """

    def __init__(self, base_url: str, link_filter: LinkFilter, max_links: int) -> None:
        self._base_url = base_url
        self._filter = link_filter
        self._max_links = max(0, max_links)
        self._decisions: dict[str, str | None] = {}
        self._accepted: dict[str, None] = {}

    @property
    def links(self) -> tuple[str, ...]:
        """The accepted links, in order of first appearance."""
        return tuple(self._accepted)

    def rebase(self, href: str | None) -> None:
        """Use a page's ``<base href>`` (resolved, http/https only) for relative links."""
        resolved = self._resolve(href) if href else None
        if resolved is not None:
            self._base_url = resolved

    def decide(self, href: str | None) -> str | None:
        """The canonical absolute URL to link to, or ``None`` when the link is refused."""
        if href is None:
            return None
        if href in self._decisions:
            decision = self._decisions[href]
        else:
            decision = self._decide(href)
            self._decisions[href] = decision
        if decision is not None and len(self._accepted) < self._max_links:
            self._accepted.setdefault(decision, None)
        return decision

    def _resolve(self, href: str) -> str | None:
        cleaned = _TAB_NEWLINE.sub("", href.strip(_EDGE))
        # A bare fragment points inside the page just read: useless out of it.
        if not cleaned or cleaned.startswith("#") or len(cleaned) > MAX_HREF_CHARS:
            return None
        try:
            absolute = urllib.parse.urljoin(self._base_url, cleaned)
            scheme = urllib.parse.urlsplit(absolute).scheme.lower()
        except ValueError:
            return None
        return absolute if scheme in _ALLOWED_SCHEMES else None

    def _decide(self, href: str) -> str | None:
        absolute = self._resolve(href)
        if absolute is None:
            return None
        try:
            canonical = self._filter(absolute)
            if canonical is None or urllib.parse.urlsplit(canonical).scheme.lower() not in _ALLOWED_SCHEMES:
                return None
        except (PagewardenError, ValueError):
            # A filter that signals refusal by raising is still a refusal.
            return None
        return canonical
