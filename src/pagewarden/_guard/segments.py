"""Split a page into located text segments for the guard, within budgets.

One read-only pass over the parsed tree (``lxml.etree.iterwalk``) sorts every
piece of text by where it came from: ``visible`` text, ``hidden`` content
(inline-style and attribute hiding, closed ``<details>``, classes hidden by the
page's own ``<style>``), ``comment``, ``metadata`` (title, meta content,
JSON-LD), ``template`` (``<template>``, ``<noscript>``, template scripts) and
``attribute`` (alt, title, aria-label, placeholder, data-*...). Only the
outermost hidden element opens a hidden piece, and its text is not also counted
as visible. Script and style text is never visible text.

Pieces of one location are then merged into segments of at most
``max_segment_chars``, joined by newlines so that a rule never matches across
two pieces (rules match within one line or sentence). A piece longer than a
segment is cut into overlapping windows, so nothing is dropped for length
alone; only the document-wide character and segment budgets can truncate, and
truncation is reported so that the decision fails closed.

The tree is never modified: the extractor reads the same tree afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

import lxml.html
from lxml import etree

from .css import FRAMEWORK_HIDDEN_CLASSES, HiddenSelectors, hiding_via, parse_hidden_selectors
from .normalize import collapse_whitespace
from .report import Location

__all__ = [
    "BROWSER_HIDDEN_ATTRIBUTE",
    "MAX_EXTRA_SEGMENTS",
    "InspectionLimits",
    "Segment",
    "SegmentSet",
    "browser_via",
    "collect_html_segments",
    "collect_pieces",
    "collect_text_segments",
]

# Set by the browser path's isolated-world visibility pass on elements it
# computed as invisible; its value names why (bounded and sanitized here).
BROWSER_HIDDEN_ATTRIBUTE = "data-pagewarden-hidden"
MAX_BROWSER_REASON_CHARS = 48
_UNSAFE_REASON = re.compile(r"[^a-z0-9_]+")
# Attributes whose values are text a model may read (accessible names, tooltips,
# placeholders, framework data). ``data-*`` is matched by prefix.
_TEXT_ATTRIBUTES = frozenset(
    {"alt", "title", "aria-label", "aria-description", "aria-roledescription", "aria-placeholder",
     "placeholder", "label", "srcdoc", "summary"}
)
_BUTTON_INPUTS = frozenset({"submit", "button", "reset", "text", "search"})
# Values shorter than this cannot hold any rule's phrase; skipping them keeps
# pages with thousands of short data-* ids cheap.
_MIN_ATTRIBUTE_CHARS = 6
_TEMPLATE_SCRIPT_TYPES = frozenset(
    {"text/template", "text/x-template", "text/html", "text/plain", "text/markdown",
     "text/x-handlebars-template", "text/x-mustache", "text/ng-template"}
)
# Elements that start a new line of rendered text; a line is a rule-matching unit.
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "details", "dialog", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hr", "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary", "table", "tbody", "td",
        "tfoot", "th", "thead", "tr", "ul", "caption", "body", "head", "html", "noscript", "template",
    }
)
_TEXT_FREE_TAGS = frozenset({"script", "style", "title"})
# Pieces a caller may add through ``extra_segments``.
MAX_EXTRA_SEGMENTS = 1024
_LOCATION_ORDER = (
    Location.VISIBLE, Location.HIDDEN, Location.TEMPLATE, Location.COMMENT, Location.METADATA,
    Location.ATTRIBUTE,
)


@dataclass(frozen=True, slots=True)
class InspectionLimits:
    """Budgets for one inspection; exceeding one makes the inspection truncated.

    Attributes:
        max_segments: segments scanned per document.
        max_segment_chars: size of one segment; longer pieces are split into
            overlapping windows (not cut), so this never truncates.
        max_total_chars: characters scanned per document, all locations together.
        window_overlap: characters shared by consecutive windows of one long piece,
            so a phrase on a window edge is still seen whole.
    """

    max_segments: int = 4096
    max_segment_chars: int = 64_000
    # The transport's decoded-size limit (Limits.max_decoded_bytes): a page the
    # transport accepts never has more text than this, so size alone never
    # truncates the inspection of a page read through pagewarden.
    max_total_chars: int = 5_000_000
    window_overlap: int = 512


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text from one location.

    Attributes:
        location: where the text came from.
        text: whitespace-collapsed text; newlines separate pieces and lines.
        vias: for hidden content, how it was hidden (``display_none``,
            ``aria_hidden``, ``stylesheet_display_none``...); for other
            locations, the element or attribute kind (``meta``, ``alt``...).
    """

    location: Location
    text: str
    vias: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SegmentSet:
    """The segments of one document and what the budgets left out.

    Attributes:
        segments: in location order (visible first), then document order.
        truncated: some text was not inspected.
        truncation_reasons: snake_case names of the budgets that were hit.
        notes: further limitations to report (e.g. stylesheet not fully read).
    """

    segments: tuple[Segment, ...]
    truncated: bool = False
    truncation_reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(slots=True)
class _Sink:
    location: Location
    via: str
    parts: list[str] = field(default_factory=list)


class _Pieces:
    """Collected pieces per location, deduplicated outside visible text."""

    def __init__(self) -> None:
        self.by_location: dict[Location, list[tuple[str, str]]] = {loc: [] for loc in _LOCATION_ORDER}
        self._seen: set[tuple[Location, str]] = set()

    def add(self, location: Location, text: str, via: str) -> None:
        text = collapse_whitespace(text)
        if not text:
            return
        if location is not Location.VISIBLE:
            # Boilerplate repeats (WordPress block comments, tracking data-*):
            # one copy is enough to judge it.
            key = (location, text)
            if key in self._seen:
                return
            self._seen.add(key)
        self.by_location[location].append((text, via))


def browser_via(value: str) -> str:
    """The via for an element the browser's visibility pass marked hidden, from its bounded reason.

    The reason is reduced to ``[a-z0-9_]`` and at most ``MAX_BROWSER_REASON_CHARS``
    characters (it comes from a serialized DOM, i.e. from the page), so the via
    is always a short identifier such as ``browser_display_none``.
    """
    reason = _UNSAFE_REASON.sub("_", value.strip().lower()[:MAX_BROWSER_REASON_CHARS]).strip("_")
    return "browser_" + (reason or "hidden")


def _hidden_via(tag: str, attrib: dict[str, str], selectors: HiddenSelectors) -> str | None:
    marker = attrib.get(BROWSER_HIDDEN_ATTRIBUTE)
    if marker is not None:
        return browser_via(marker)
    if "hidden" in attrib:
        return "hidden_attribute"
    if "aria-hidden" in attrib and attrib["aria-hidden"].strip().lower() == "true":
        return "aria_hidden"
    if "inert" in attrib:
        return "inert"
    if tag == "dialog" and "open" not in attrib:
        return "dialog_closed"
    style = attrib.get("style")
    if style:
        via = hiding_via(style)
        if via is not None:
            return via
    class_value = attrib.get("class")
    classes = class_value.lower().split() if class_value else []
    if classes and not FRAMEWORK_HIDDEN_CLASSES.isdisjoint(classes):
        return "framework_class"
    if selectors.by_key and (classes or "id" in attrib):
        return selectors.via_for(classes, attrib.get("id"))
    return None


def _collect_attributes(tag: str, items: list[tuple[str, str]], pieces: _Pieces) -> None:
    for name, value in items:
        if len(value) < _MIN_ATTRIBUTE_CHARS or name == BROWSER_HIDDEN_ATTRIBUTE:
            continue
        if name in _TEXT_ATTRIBUTES:
            pieces.add(Location.ATTRIBUTE, value, name)
        elif name.startswith("data-"):
            pieces.add(Location.ATTRIBUTE, value, "data")
        elif name == "content" and tag == "meta":
            pieces.add(Location.METADATA, value, "meta")
        elif name == "value" and tag == "input":
            input_type = next((v for k, v in items if k == "type"), "text").strip().lower()
            if input_type == "hidden":
                pieces.add(Location.HIDDEN, value, "input_hidden")
            elif input_type in _BUTTON_INPUTS:
                pieces.add(Location.ATTRIBUTE, value, "value")


# Frame fields (a tuple: this loop runs once per element, so no object setup).
_SINK: Final = 0
_OUTER: Final = 1
_OPENED: Final = 2
_BLOCK: Final = 3
_SUMMARY: Final = 4
_Frame = tuple[_Sink, _Sink, bool, bool, _Sink | None]


def _walk(root: lxml.html.HtmlElement, pieces: _Pieces, selectors: HiddenSelectors) -> None:
    visible = _Sink(Location.VISIBLE, "")
    stack: list[_Frame] = []
    block_tags = _BLOCK_TAGS
    for event, el in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event == "start":
            tag = el.tag
            if stack:
                parent = stack[-1]
                outer = parent[_SINK]
                if parent[_SUMMARY] is not None and tag == "summary":
                    outer = parent[_SUMMARY]
            else:
                outer = visible
            items = el.items()
            if items:
                _collect_attributes(tag, items, pieces)
            if tag in _TEXT_FREE_TAGS:
                # Never visible text; a few kinds are read under their own location.
                stack.append((outer, outer, False, False, None))
                _read_special(tag, el.text or "", items, pieces)
                continue
            block = tag in block_tags
            if block:
                outer.parts.append("\n")
            sink = outer
            summary: _Sink | None = None
            # Only the outermost non-visible element opens a piece.
            if outer is visible:
                if tag == "template" or tag == "noscript":
                    sink = _Sink(Location.TEMPLATE, tag)
                elif items:
                    via = _hidden_via(tag, dict(items), selectors)
                    if via is not None:
                        sink = _Sink(Location.HIDDEN, via)
                    elif tag == "details" and not any(k == "open" for k, _ in items):
                        summary = outer
                        sink = _Sink(Location.HIDDEN, "details_closed")
                elif tag == "details" or tag == "dialog":
                    # No attributes at all: a closed <details> or <dialog>.
                    summary = outer if tag == "details" else None
                    sink = _Sink(Location.HIDDEN, "details_closed" if tag == "details" else "dialog_closed")
            text = el.text
            if text:
                sink.parts.append(text)
            stack.append((sink, outer, sink is not outer, block, summary))
        elif event == "end":
            frame = stack.pop()
            if frame[_OPENED]:
                sink = frame[_SINK]
                pieces.add(sink.location, "".join(sink.parts), sink.via)
            if frame[_BLOCK]:
                frame[_OUTER].parts.append("\n")
            tail = el.tail
            if tail:
                # The tail belongs to the parent's flow (e.g. visible text after a hidden span).
                (stack[-1][_SINK] if stack else visible).parts.append(tail)
        else:
            if event == "comment" and el.text:
                pieces.add(Location.COMMENT, el.text, "comment")
            tail = el.tail
            if tail:
                (stack[-1][_SINK] if stack else visible).parts.append(tail)
    pieces.add(Location.VISIBLE, "".join(visible.parts), "")


def _read_special(tag: str, text: str, items: list[tuple[str, str]], pieces: _Pieces) -> None:
    if tag == "title":
        pieces.add(Location.METADATA, text, "title")
    elif tag == "script" and text:
        kind = next((v for k, v in items if k == "type"), "").split(";")[0].strip().lower()
        if kind == "application/ld+json":
            pieces.add(Location.METADATA, text, "json_ld")
        elif kind in _TEMPLATE_SCRIPT_TYPES:
            pieces.add(Location.TEMPLATE, text, "script_template")


def _windows(text: str, size: int, overlap: int) -> Iterable[str]:
    step = max(1, size - overlap)
    start = 0
    while True:
        yield text[start : start + size]
        if start + size >= len(text):
            return
        start += step


def _assemble(pieces: _Pieces, limits: InspectionLimits, notes: tuple[str, ...]) -> SegmentSet:
    segments: list[Segment] = []
    reasons: list[str] = []
    budget = limits.max_total_chars
    size = limits.max_segment_chars

    def emit(location: Location, text: str, vias: Iterable[str]) -> bool:
        nonlocal budget
        if len(segments) >= limits.max_segments:
            reasons.append("segment_count")
            return False
        if len(text) > budget:
            if budget > 0:
                segments.append(Segment(location, text[:budget], tuple(dict.fromkeys(vias))))
            budget = 0
            reasons.append("character_budget")
            return False
        budget -= len(text)
        segments.append(Segment(location, text, tuple(dict.fromkeys(vias))))
        return True

    for location in _LOCATION_ORDER:
        parts: list[str] = []
        vias: list[str] = []
        length = 0
        for text, via in pieces.by_location[location]:
            if len(text) > size:
                if parts and not emit(location, "\n".join(parts), vias):
                    return SegmentSet(tuple(segments), True, tuple(reasons), notes)
                parts, vias, length = [], [], 0
                for window in _windows(text, size, limits.window_overlap):
                    if not emit(location, window, (via,) if via else ()):
                        return SegmentSet(tuple(segments), True, tuple(reasons), notes)
                continue
            if parts and length + 1 + len(text) > size:
                if not emit(location, "\n".join(parts), vias):
                    return SegmentSet(tuple(segments), True, tuple(reasons), notes)
                parts, vias, length = [], [], 0
            parts.append(text)
            if via:
                vias.append(via)
            length += len(text) + 1
        if parts and not emit(location, "\n".join(parts), vias):
            return SegmentSet(tuple(segments), True, tuple(reasons), notes)
    return SegmentSet(tuple(segments), False, (), notes)


def collect_html_segments(
    root: lxml.html.HtmlElement,
    limits: InspectionLimits,
    extra: Iterable[tuple[Location, str]] = (),
) -> SegmentSet:
    """Segment a parsed page without modifying it.

    Args:
        root: a tree from :func:`pagewarden._html.parse_html` (or any element of one).
        limits: the inspection budgets.
        extra: further ``(location, text)`` pieces the caller got elsewhere
            (a browser's computed text, a URL, a search snippet); they are
            merged into the segments of their location (via ``extra``).
    """
    sheets = [el.text for el in root.iter("style") if el.text]
    selectors = parse_hidden_selectors(sheets) if sheets else HiddenSelectors()
    notes: tuple[str, ...] = ()
    if selectors.truncated:
        notes = ("The page's style blocks exceed the stylesheet budget; later rules were not evaluated.",)
    pieces = _Pieces()
    _walk(root, pieces, selectors)
    for location, text in extra:
        pieces.add(location, text, "extra")
    return _assemble(pieces, limits, notes)


def collect_text_segments(text: str, location: Location, limits: InspectionLimits) -> SegmentSet:
    """Segment a plain-text or Markdown document read as a whole from ``location``."""
    pieces = _Pieces()
    pieces.add(location, text, "")
    return _assemble(pieces, limits, ())


def collect_pieces(pieces_in: Iterable[tuple[Location, str]], limits: InspectionLimits) -> SegmentSet:
    """Segment loose ``(location, text)`` pieces (a text document plus caller-supplied extras)."""
    pieces = _Pieces()
    for location, text in pieces_in:
        pieces.add(location, text, "")
    return _assemble(pieces, limits, ())
