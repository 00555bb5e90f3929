"""Visible runs to structure: lines, paragraphs, headings and list items, page by page.

PDFs carry positions, not structure. Runs are taken in drawing order (the
order the producer wrote them, which for generated papers and reports is the
reading order, column by column); consecutive runs on one baseline join into
a line; a vertical gap, a jump back up the page (the next column), a change
of size or a list marker starts a new block. A short block set clearly larger
than the body text is a heading (three levels by size ratio). Markdown is
built here from escaped text only: nothing in a PDF becomes Markdown syntax.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from .._safe.render import BlockFilter, Unit, escape_text, plain_text_markdown, withheld_marker
from .facts import Line, PageFacts

__all__ = [
    "Block", "PageBlocks", "body_size", "join_units", "markdown_units", "page_blocks", "render_markdown", "render_text",
]

_BULLET = re.compile(r"^\s*([•◦▪‣●○■□–\-*])\s+")
_ORDINAL = re.compile(r"^\s*(\d{1,3}|[a-z])[.)]\s+")
# A bibliography entry ("[12] A. Author. Title.") starts a paragraph of its own.
_REFERENCE = re.compile(r"^\s*\[\d{1,4}\]\s")
_HEADING_RATIO = 1.2
_MAX_HEADING_CHARS = 150
_SAME_LINE = 0.35
_PARAGRAPH_GAP = 0.8
_SIZE_CHANGE = 0.15


@dataclass(frozen=True, slots=True)
class Block:
    """One paragraph, heading or list item."""

    kind: str  # "paragraph", "heading", "item"
    text: str
    level: int = 0
    ordinal: str | None = None


@dataclass(frozen=True, slots=True)
class PageBlocks:
    """The blocks of one page."""

    number: int
    blocks: tuple[Block, ...]


@dataclass(slots=True)
class _Row:
    text: str
    size: float
    x0: float
    x1: float
    y0: float
    y1: float


def _rows(lines: tuple[Line, ...]) -> list[_Row]:
    rows: list[_Row] = []
    for line in lines:
        text = " ".join(line.text.split())
        if not text:
            continue
        if rows:
            last = rows[-1]
            size = max(line.size, last.size, 1.0)
            if abs(line.y0 - last.y0) <= _SAME_LINE * size and line.x0 >= last.x1 - 0.5 * size:
                gap = line.x0 - last.x1
                joiner = " " if gap > 0.12 * size and not last.text.endswith(" ") else ""
                last.text += joiner + text
                last.x1 = max(last.x1, line.x1)
                last.y1 = max(last.y1, line.y1)
                last.size = max(last.size, line.size)
                continue
        rows.append(_Row(text, line.size, line.x0, line.x1, line.y0, line.y1))
    return rows


def body_size(pages: tuple[PageFacts, ...]) -> float:
    """The size most of the text is set in (median over characters, a line counting at most 200)."""
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            weights[round(line.size, 1)] += min(len(line.text), 200)
    total = sum(weights.values())
    if total == 0:
        return 10.0
    # The median of the sizes repeated by their weights, without repeating them.
    lower: float | None = None
    seen = 0
    for size in sorted(weights):
        seen += weights[size]
        if lower is None and seen > (total - 1) // 2:
            lower = size
        if seen > total // 2:
            return (lower + size) / 2 if lower is not None else size
    return 10.0  # unreachable: the loop passes total // 2


def _heading_level(size: float, body: float) -> int:
    ratio = size / body if body > 0 else 1.0
    if ratio >= 1.7:
        return 1
    if ratio >= 1.4:
        return 2
    if ratio >= _HEADING_RATIO:
        return 3
    return 0


def _join(parts: list[str]) -> str:
    text = ""
    for part in parts:
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and part[:1].islower():
            text = text[:-1] + part
        else:
            text = f"{text} {part}" if text else part
    return text


def page_blocks(page: PageFacts, body: float) -> PageBlocks:
    """Group one page's visible runs into blocks."""
    blocks: list[Block] = []
    parts: list[str] = []
    kind, level, ordinal = "paragraph", 0, None
    previous: _Row | None = None

    def flush() -> None:
        nonlocal parts
        if parts:
            blocks.append(Block(kind, _join(parts), level, ordinal))
        parts = []

    for row in _rows(page.lines):
        marker = _BULLET.match(row.text) or _ORDINAL.match(row.text)
        row_level = _heading_level(row.size, body) if len(row.text) <= _MAX_HEADING_CHARS else 0
        new_block = (previous is None or marker is not None or row_level > 0 or kind == "heading"
                     or _REFERENCE.match(row.text) is not None)
        if previous is not None and not new_block:
            size = max(row.size, previous.size, 1.0)
            gap = previous.y0 - row.y1
            moved_up = row.y1 > previous.y1 + size
            resized = abs(row.size - previous.size) > _SIZE_CHANGE * size
            new_block = gap > _PARAGRAPH_GAP * size or moved_up or resized
        if new_block:
            flush()
            if marker is not None:
                kind, level = "item", 0
                ordinal = marker.group(1) if marker.re is _ORDINAL else None
                parts.append(row.text[marker.end():])
            elif row_level > 0:
                kind, level, ordinal = "heading", row_level, None
                parts.append(row.text)
            else:
                kind, level, ordinal = "paragraph", 0, None
                parts.append(row.text)
        else:
            parts.append(row.text)
        previous = row
    flush()
    return PageBlocks(page.number, tuple(blocks))


def _page_marker(number: int, final_url: str) -> str:
    anchor = f"{final_url}#page={number}"
    fence = "``" if "`" in anchor else "`"
    return f"*Page {number}* · {fence}{anchor}{fence}"


@dataclass(frozen=True, slots=True)
class _Piece:
    prefix: str  # a heading's or list item's marker (ours)
    body: str  # escaped text
    plain: str  # what a block filter judges
    separator: str
    cuttable: bool


def _pieces(pages: list[PageBlocks], final_url: str) -> Iterator[_Piece]:
    for page in pages:
        yield _Piece("", _page_marker(page.number, final_url), f"Page {page.number} · {final_url}#page={page.number}",
                     "\n\n", True)
        list_kind, number = "", 0
        for block in page.blocks:
            if block.kind != "item":
                list_kind = ""
            if block.kind == "heading":
                yield _Piece("#" * block.level + " ", escape_text(block.text), block.text, "\n\n", True)
            elif block.kind == "item":
                ordered = bool(block.ordinal and block.ordinal.isdigit())
                kind = "ordered" if ordered else "bullet"
                # Consecutive items of one kind make one tight list, numbered on from its first item.
                separator = "\n" if kind == list_kind else "\n\n"
                number = number + 1 if kind == list_kind else int(block.ordinal or 0) if ordered else 0
                list_kind = kind
                yield _Piece(f"{number}. " if ordered else "- ", escape_text(block.text), block.text, separator, False)
            else:
                yield _Piece("", plain_text_markdown(block.text), block.text, "\n\n", True)


def render_markdown(pages: list[PageBlocks], final_url: str) -> str:
    """Markdown of every page, each opened by a citable anchor ``final_url#page=N``."""
    return join_units(markdown_units(pages, final_url))


def join_units(units: list[Unit]) -> str:
    """The Markdown of ``units``, whole."""
    return "".join((unit.separator if index else "") + unit.text for index, unit in enumerate(units))


def markdown_units(pages: list[PageBlocks], final_url: str, block_filter: BlockFilter | None = None) -> list[Unit]:
    """The same Markdown as safe units (:func:`pagewarden._safe.safe_units`), without parsing it again.

    Every piece is written here from escaped text (headings, list markers and
    page anchors are ours; nothing in the PDF becomes syntax), so it is already
    what the safe renderer would write; a block the filter objects to becomes
    its withheld marker.
    """
    units: list[Unit] = []
    for piece in _pieces(pages, final_url):
        category = block_filter(piece.plain) if block_filter is not None else None
        if category is None:
            units.append(Unit(piece.prefix + piece.body, piece.separator, (), piece.cuttable, ()))
        else:
            units.append(Unit(piece.prefix + withheld_marker(category), piece.separator, (), piece.cuttable,
                              (category,)))
    return units


def render_text(pages: list[PageBlocks]) -> str:
    """The plain text: blocks separated by blank lines."""
    return "\n\n".join(block.text for page in pages for block in page.blocks)
