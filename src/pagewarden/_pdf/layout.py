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

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .._safe.render import BlockFilter, Unit, escape_text, plain_text_markdown, withheld_marker
from .facts import Line, PageFacts

__all__ = [
    "Block", "PageBlocks", "body_size", "join_units", "markdown_units", "page_blocks", "render_markdown", "render_text",
]

_BULLET_CHARS = "•◦▪‣●○■□–-*"
# A bullet is one of these, or a private-use character (Word's Symbol and Wingdings bullets, U+F0B7...) or a C1
# control (TeX's bullet in a font without a Unicode map): glyphs that carry no letter, alone before the item.
_BULLET = re.compile("^\\s*([•◦▪‣●○■□–\\-*\ue000-\uf8ff\x80-\x9f])\\s+")
_ORDINAL = re.compile(r"^\s*(\d{1,3}|[a-z])[.)]\s+")
# A bibliography entry ("[12] A. Author. Title.") starts a paragraph of its own.
_REFERENCE = re.compile(r"^\s*\[\d{1,4}\]\s")
# A table of contents entry ("2.1 Syntax . . . . . 12"): a paragraph of its own, never a heading.
_CONTENTS_ENTRY = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,5}|[ivxlc]{1,8})$", re.IGNORECASE)
# Ligatures as one character: the presentation forms (U+FB00-U+FB06) and, in a TeX font without a Unicode map
# (Type 3 bitmap fonts), the font's own codes, which land on control characters (Cork/T1 0x1B-0x1F, OT1 0x0B-0x0F
# but 0x0D, a line end): the letters they stand for.
# Any other control character (a glyph without a Unicode value reads as NUL) is a space.
_LIGATURE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufb00-\ufb06]")
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st", "\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl", "\x0b": "ff",
              "\x0c": "fi", "\x0e": "ffi", "\x0f": "ffl"}
# PDFium's text page marks a hyphen that ends a line inside a word with U+FFFE.
_LINE_END_HYPHEN = "\ufffe"
_JOIN_SPACE = 1  # Line.join: the text page puts a space before the run (2: nothing, 0: not known)
_SCRIPT_SIZE = 0.85  # a superscript or subscript is set at most this share of its line's size
_SUPERSCRIPT_RISE = 0.6  # ... its baseline at most this share of that size above the line's baseline
_SUBSCRIPT_DROP = 0.4  # ... or this share below
# A line indented by 0.8 to 4 times the size under the line before it starts a paragraph.
_INDENT_MIN, _INDENT_MAX = 0.8, 4.0
# A step down this much longer than the usual line step (seen on at least this many rows) starts a paragraph.
_STEP_RATIO, _USUAL_STEP_COUNT = 1.3, 4
_USUAL_STEP_SAMPLE = 64  # the usual step is read from the page's first rows
_HEADING_RATIO = 1.2
_MAX_HEADING_CHARS = 150
_STOPS = ".!?:;\"”’)]"
_SAME_LINE = 0.35
_CELL_GAP = 1.0  # runs on a line further apart than this many times the size (a word space is 0.25-0.35) are cells
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
    base: float
    cells: int = 1  # runs set apart by more than a word space (a table's cells)


def _ligature(match: re.Match[str]) -> str:
    char, text, at = match.group(), match.string, match.start()
    if char >= "\ufb00":
        return _LIGATURES[char]
    # A control character is a ligature only inside or at the edge of a word (beside a letter); else a space.
    if char not in _LIGATURES:
        return " "
    beside = text[at - 1 : at] + text[at + 1 : at + 2]
    return _LIGATURES[char] if any(other.isalpha() for other in beside) else " "


def _letters(text: str) -> str:
    """``text`` with its ligatures written out as letters (``_LIGATURE``), so words read and match as typed, and
    other control characters as spaces."""
    return _LIGATURE.sub(_ligature, text) if _LIGATURE.search(text) is not None else text


def _rows(lines: tuple[Line, ...]) -> list[_Row]:
    rows: list[_Row] = []
    last: _Row | None = None
    spaced = False  # whether the last run ended with a space
    # Runs every visible line of a document: the line's fields unpacked once (a named tuple's attributes cost a
    # call each), the tolerance computed once.
    for raw_text, line_size, x0, x1, y0, y1, line_base, join in lines:
        # Most runs have nothing to write out (see _letters): tested here, without the call.
        text = " ".join((raw_text if raw_text.isascii() and raw_text.isprintable() else _letters(raw_text)).split())
        if not text:
            continue
        # A space drawn at a run's end or start separates it from its neighbour on the line, whatever the gap
        # between their boxes (a space glyph may fill that gap).
        space_before = spaced or raw_text[0].isspace()
        spaced = raw_text[-1].isspace()
        base = y0 if line_base is None else line_base
        if last is not None:
            size = max(line_size, last.size, 1.0)
            # One line: the same baseline, or boxes with the same bottom (the box alone cannot tell a bullet,
            # which sits above the baseline, from the text beside it, which hangs below it).
            tolerance = _SAME_LINE * size
            same_line = abs(base - last.base) <= tolerance or abs(y0 - last.y0) <= tolerance
            scripted = opened = False
            if same_line:
                pass
            elif line_size < _SCRIPT_SIZE * last.size:
                # A superscript or subscript (a footnote mark, an exponent): set smaller, its baseline raised or
                # lowered within the line, right after it; it belongs to the line.
                scripted = (x0 - last.x1 <= last.size and last.base - _SUBSCRIPT_DROP * last.size <= base
                            <= last.base + _SUPERSCRIPT_RISE * last.size)
            elif last.size < _SCRIPT_SIZE * line_size and len(last.text) <= 3:
                # ... or the line after such a mark that opens it (a footnote's number).
                opened = (x0 - last.x1 <= line_size and base - _SUBSCRIPT_DROP * line_size <= last.base
                          <= base + _SUPERSCRIPT_RISE * line_size)
            if (same_line or scripted or opened) and x0 >= last.x1 - 0.5 * size:
                if opened:
                    last.base = base  # the line's baseline, not the mark's
                gap = x0 - last.x1
                # The text page's own join where it knows it (it judges advances, not ink boxes), else the gap.
                spaced_out = opened or (join == _JOIN_SPACE if join else gap > 0.12 * size)
                joiner = " " if space_before or spaced_out else ""
                if gap > _CELL_GAP * size:
                    last.cells += 1
                last.text += joiner + text
                last.x1 = max(last.x1, x1)
                last.y0 = min(last.y0, y0)
                last.y1 = max(last.y1, y1)
                last.size = max(last.size, line_size)
                continue
        last = _Row(text, line_size, x0, x1, y0, y1, base)
        rows.append(last)
    # A bullet with no item beside it on its line says nothing.
    return [row for row in rows if row.text != "\u2022"]


def body_size(pages: tuple[PageFacts, ...]) -> float:
    """The size most of the text is set in (median over characters, a line counting at most 200)."""
    # A plain dict and the line's fields by index: a Counter's += and a named tuple's attributes cost calls.
    weights: dict[float, int] = {}
    for page in pages:
        for line in page.lines:
            key = round(line[1], 1)  # the size
            weights[key] = weights.get(key, 0) + min(len(line[0]), 200)  # the text
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


def _may_be_marked(text: str) -> bool:
    """Whether ``text`` (a row: no leading space) may start with a list marker (see _BULLET and _ORDINAL)."""
    first = text[0]
    return (first in _BULLET_CHARS or first.isdigit() or (first.islower() and text[1:2] in (".", ")"))
            or "\ue000" <= first <= "\uf8ff" or "\x80" <= first <= "\x9f")


def _join(parts: list[str]) -> str:
    text = ""
    for part in parts:
        if text.endswith(_LINE_END_HYPHEN):
            text = text[:-1] + part  # a word hyphenated across lines, whole again
        elif text.endswith("-") and len(text) > 1 and text[-2].isalpha() and part[:1].islower():
            text = text[:-1] + part
        else:
            text = f"{text} {part}" if text else part
    # One left inside a block (rows joined on a line) or at its end (the word goes on in the next block) is a hyphen.
    return text.replace(_LINE_END_HYPHEN, "-")


def _usual_step(rows: list[_Row]) -> float:
    """The page's usual line step: the shortest common distance between the baselines of consecutive rows of one
    size among its first rows (to half a point; 0.0 when no step is common enough to tell)."""
    counts: dict[int, int] = {}  # steps in half points
    for above, below in itertools.islice(itertools.pairwise(rows), _USUAL_STEP_SAMPLE):
        step, size = above.base - below.base, above.size
        if 0 < step < 3 * size and abs(size - below.size) <= _SIZE_CHANGE * size:
            key = int(step * 2 + 0.5)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return 0.0
    # The shortest common step: where paragraphs are spaced (man pages' tags and descriptions), the longer steps
    # between them may be as common as the line step itself.
    enough = max(_USUAL_STEP_COUNT, max(counts.values()) // 4)
    return min((key for key, count in counts.items() if count >= enough), default=0) / 2


def page_blocks(page: PageFacts, body: float) -> PageBlocks:
    """Group one page's visible runs into blocks."""
    blocks: list[Block] = []
    parts: list[str] = []
    kind, level, ordinal = "paragraph", 0, None
    previous: _Row | None = None
    after_entry = False

    def flush() -> None:
        nonlocal parts
        if parts:
            text = _join(parts)
            if kind == "heading" and len(text) > _MAX_HEADING_CHARS:
                # A long run of large text (a lead paragraph, a pull quote) is a paragraph, not a heading.
                blocks.append(Block("paragraph", text))
            else:
                blocks.append(Block(kind, text, level, ordinal))
        parts = []

    rows = _rows(page.lines)
    usual: float | None = None  # the page's usual line step, measured when a step first needs it
    for row in rows:
        text = row.text
        # The patterns run only on rows that could match them (most rows of a page cannot).
        entry = ("...." in text or ". . ." in text) and _CONTENTS_ENTRY.search(text) is not None
        # Rows set clearly larger than the body make a heading, numbered ("1. Introduction") or not, when the
        # block they make is short (see flush); a contents entry is a paragraph, numbered or not.
        row_level = 0 if entry else _heading_level(row.size, body)
        marked = not row_level and not entry and _may_be_marked(text)
        marker = _BULLET.match(text) or _ORDINAL.match(text) if marked else None
        # A heading set on several lines is one heading: the next row of its size continues it (unless a gap,
        # a jump up or a size change below ends it), as a body row continues a paragraph.
        new_block = (previous is None or marker is not None or row_level != (level if kind == "heading" else 0)
                     or entry or after_entry or (text[0] == "[" and _REFERENCE.match(text) is not None))
        # A contents entry, or a table's row (cells set apart on one line), is a paragraph of its own.
        after_entry = entry or row.cells > 1
        new_block = new_block or row.cells > 1
        if previous is not None and not new_block:
            size = max(row.size, previous.size, 1.0)
            gap = previous.y0 - row.y1
            # The next column: a new block, unless a sentence goes on in it (the line before ends without a stop,
            # this one starts in lower case).
            moved_up = row.y1 > previous.y1 + size and not (text[0].islower() and previous.text[-1] not in _STOPS)
            resized = abs(row.size - previous.size) > _SIZE_CHANGE * size
            step = previous.base - row.base
            # A first line indented (TeX, most books) or a step down clearly longer than the
            # page's usual line step (space between paragraphs smaller than a blank line, as man pages set it).
            indent = row.x0 - previous.x0
            prose = kind == "paragraph"  # a heading's or an item's lines may hang indented
            indented = prose and _INDENT_MIN * size <= indent <= _INDENT_MAX * size
            spaced = False
            if prose and step > _STEP_RATIO * size:  # a line step is at least about the size
                if usual is None:
                    usual = _usual_step(rows)
                spaced = usual > 0 and step > _STEP_RATIO * usual
            new_block = gap > _PARAGRAPH_GAP * size or moved_up or resized or indented or spaced
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


def _escaped(texts: list[str], escape: Callable[[str], str]) -> Iterator[str]:
    """``escape`` of each text, in one call over all of them joined by newlines: the escapes are decided per
    character or per line start and never across a line end, so this is what one call per text gives. Block
    texts hold no newline (and no space at either end, which a paragraph's escape strips): otherwise one by one."""
    if not texts:
        return iter(())
    escaped = escape("\n".join(texts)).split("\n")
    if len(escaped) != len(texts) or any(text != text.strip() for text in texts):
        return (escape(text) for text in texts)
    return iter(escaped)


def _pieces(pages: list[PageBlocks], final_url: str) -> Iterator[_Piece]:
    blocks = [block for page in pages for block in page.blocks]
    paragraphs = _escaped([b.text for b in blocks if b.kind not in ("heading", "item")], plain_text_markdown)
    marked = _escaped([b.text for b in blocks if b.kind in ("heading", "item")], escape_text)
    for page in pages:
        yield _Piece("", _page_marker(page.number, final_url), f"Page {page.number} · {final_url}#page={page.number}",
                     "\n\n", True)
        list_kind, number = "", 0
        for block in page.blocks:
            if block.kind != "item":
                list_kind = ""
            if block.kind == "heading":
                yield _Piece("#" * block.level + " ", next(marked), block.text, "\n\n", True)
            elif block.kind == "item":
                ordered = bool(block.ordinal and block.ordinal.isdigit())
                kind = "ordered" if ordered else "bullet"
                # Consecutive items of one kind make one tight list, numbered on from its first item.
                separator = "\n" if kind == list_kind else "\n\n"
                number = number + 1 if kind == list_kind else int(block.ordinal or 0) if ordered else 0
                list_kind = kind
                yield _Piece(f"{number}. " if ordered else "- ", next(marked), block.text, separator, False)
            else:
                yield _Piece("", next(paragraphs), block.text, "\n\n", True)


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
    """The plain text: blocks separated by blank lines, a numbered item with its number (``3. ...``)."""
    return "\n\n".join(f"{block.ordinal}. {block.text}" if block.ordinal else block.text
                         for page in pages for block in page.blocks)
