"""``safe_markdown``: Markdown a model can read without being steered by its syntax.

The body is rendered by :mod:`.render` (images neutralized, raw HTML,
comments, autolinks and reference definitions removed, links reduced to their
text). The links then appear once each, in order of first appearance, in a
closing ``Links on this page`` section, after passing the URL policy
(``link_filter``, normally :func:`pagewarden._net.check_link` bound to the
page URL and the reader's config): a refused link is simply not listed, its
text stays in the body.

With ``max_characters`` the result (body and links section together) is cut
at a block boundary; only a paragraph or heading is ever cut inside (at a
sentence or word), so a cut never leaves a code fence open. The links
section then lists only the links of the kept part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._extract.truncate import truncate_one
from .render import BlockFilter, LinkRef, Unit, escape_text, render_units

__all__ = ["LINKS_HEADING", "SafeMarkdown", "safe_markdown", "safe_units"]

LINKS_HEADING = "## Links on this page"
_SECTION_HEAD = "\n\n" + LINKS_HEADING + "\n\n"
MAX_LABEL_CHARS = 120
_MIN_CUT_CHARS = 40

LinkFilter = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class SafeMarkdown:
    """Safe Markdown and what it links to.

    Attributes:
        markdown: the body followed, when there are links, by the links section.
        links: the policy-accepted link destinations listed in that section.
        withheld: categories of the blocks a block filter replaced by a marker.
        truncated: whether ``max_characters`` cut the content.
        all_links: the accepted links of the whole content, before any cut
            (links of withheld blocks excluded).
    """

    markdown: str
    links: tuple[str, ...]
    withheld: tuple[str, ...] = ()
    truncated: bool = False
    all_links: tuple[str, ...] = ()


class _Links:
    """Accepted links in first-seen order, deduplicated, at most ``limit``."""

    def __init__(self, link_filter: LinkFilter, limit: int) -> None:
        self._filter = link_filter
        self._limit = limit
        self._decided: dict[str, str | None] = {}
        self.entries: dict[str, str] = {}

    def _canonical(self, href: str) -> str | None:
        if href not in self._decided:
            try:
                self._decided[href] = self._filter(href) if href else None
            except Exception:
                # A filter that breaks refuses: an unchecked link is never listed.
                self._decided[href] = None
        return self._decided[href]

    def with_added(self, refs: tuple[LinkRef, ...], base: dict[str, str] | None = None) -> dict[str, str]:
        current = self.entries if base is None else base
        fresh = [c for c in (self._canonical(ref.href) for ref in refs) if c is not None and c not in current]
        if not fresh or len(current) >= self._limit:
            return current
        entries = dict(current)
        for ref in refs:
            canonical = self._canonical(ref.href)
            if canonical is not None and canonical not in entries and len(entries) < self._limit:
                entries[canonical] = ref.label
        return entries


def _label(label: str, url: str) -> str:
    text = " ".join(label.split())
    if len(text) > MAX_LABEL_CHARS:
        text = text[: MAX_LABEL_CHARS - 1].rstrip() + "…"
    return "" if not text or text == url else escape_text(text)


def _line(url: str, label: str) -> str:
    shown = _label(label, url)
    return f"- {shown}: {url}" if shown else f"- {url}"


def _section(entries: dict[str, str]) -> str:
    if not entries:
        return ""
    return _SECTION_HEAD + "\n".join(_line(url, label) for url, label in entries.items())


def _section_length(entries: dict[str, str], lines: dict[str, int]) -> int:
    # The section is measured for every unit; line lengths are computed once.
    if not entries:
        return 0
    total = len(_SECTION_HEAD) + len(entries) - 1
    for url, label in entries.items():
        if url not in lines:
            lines[url] = len(_line(url, label))
        total += lines[url]
    return total


def _cut_unit(text: str, room: int) -> str:
    fence = text[: len(text) - len(text.lstrip("`"))]
    if len(fence) < 3:
        return truncate_one(text, room)[0]
    # A code block cut inside must still be closed, or the rest would read as code.
    cut = truncate_one(text, room - len(fence) - 1)[0]
    return cut + "\n" + fence if "\n" in cut else ""


def safe_markdown(
    markdown: str,
    *,
    link_filter: LinkFilter,
    max_links: int = 500,
    max_characters: int | None = None,
    block_filter: BlockFilter | None = None,
) -> SafeMarkdown:
    """Render ``markdown`` safely for a model; see the module docstring.

    Args:
        markdown: untrusted Markdown (an extraction result or a Markdown page).
        link_filter: returns the canonical URL of an acceptable link, or
            ``None`` to refuse it (relative links must be resolved by it).
        max_links: at most this many links are listed.
        max_characters: cap on the whole result, links section included.
        block_filter: optional; returns a category for a block to withhold.
    """
    units = render_units(markdown, block_filter)
    return safe_units(units, link_filter=link_filter, max_links=max_links, max_characters=max_characters)


def safe_units(
    units: list[Unit], *, link_filter: LinkFilter, max_links: int = 500, max_characters: int | None = None
) -> SafeMarkdown:
    """Assemble already safe units (from :func:`.render.render_units`, or built from escaped text by a
    reader that writes its own Markdown, such as the PDF layout) into the body, cut and links section of
    :func:`safe_markdown`."""
    links = _Links(link_filter, max(0, max_links))
    body: list[str] = []
    length = 0
    truncated = False
    withheld: list[str] = []
    line_lengths: dict[str, int] = {}
    for unit in units:
        separator = unit.separator if body else ""
        if max_characters is None:
            links.entries = links.with_added(unit.links) if unit.links else links.entries
            body.append(separator + unit.text)
            withheld.extend(unit.withheld)
            continue
        entries = links.with_added(unit.links) if unit.links else links.entries
        section_chars = _section_length(entries, line_lengths)
        if length + len(separator) + len(unit.text) + section_chars <= max_characters:
            body.append(separator + unit.text)
            length += len(separator) + len(unit.text)
            links.entries = entries
            withheld.extend(unit.withheld)
            continue
        truncated = True
        room = max_characters - length - len(separator) - section_chars
        if (unit.cuttable or not body) and room >= _MIN_CUT_CHARS:
            cut = _cut_unit(unit.text, room)
            if cut:
                body.append(separator + cut)
                links.entries = entries
                withheld.extend(unit.withheld)
        break
    text = "".join(body)
    section = _section(links.entries)
    if max_characters is not None and len(text) + len(section) > max_characters:
        # Only reachable when the section alone is too long: keep the body.
        text, _ = truncate_one(text, max_characters) if len(text) > max_characters else (text, False)
        section = ""
        truncated = True
        links.entries = {}
    everything: dict[str, str] = {}
    for unit in units:
        if unit.links:
            everything = links.with_added(unit.links, everything)
    return SafeMarkdown(text + section, tuple(links.entries), tuple(withheld), truncated, tuple(everything))
