"""Render parsed Markdown back to Markdown that cannot reach out or hide anything.

The input is parsed with markdown-it-py (CommonMark plus GFM tables and
strikethrough) and written back from the syntax tree, so nothing the parser
recognizes survives by accident:

* images (inline and reference-style) become ``(image: alt text)``; their
  sources are never written out;
* raw HTML (blocks and inline tags) and HTML comments are dropped; the text
  between inline tags stays as text;
* links become their text; each link's destination and label are recorded for
  the closing links list; autolinks leave no text (their destination is
  recorded too); reference definitions are consumed by the parser and never
  written;
* every text run is escaped so that it cannot form new syntax on re-reading
  (brackets, backticks, emphasis markers, HTML openers, entity references,
  block markers at line starts);
* code is kept verbatim inside fences longer than any backtick run it holds.

The output is a list of :class:`Unit` (top-level blocks, with top-level list
items as separate units) so that the caller can cut at a block boundary. A
``block_filter`` sees the plain text of each leaf block (paragraph, heading,
code block, table) together with its link and image destinations; when it
returns a category the whole block becomes a ``[withheld by pagewarden:
<category>]`` marker and its links are not recorded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

__all__ = ["BlockFilter", "LinkRef", "Unit", "escape_text", "plain_text_markdown", "render_units", "withheld_marker"]

BlockFilter = Callable[[str], "str | None"]

# Every escape is a backslash before the character, so one pattern does all:
# backslash, backtick, emphasis star and brackets always; underscore only where
# it could open or close emphasis (not inside words such as snake_case); "<"
# only where it could open HTML or an autolink; "&" only where it would start
# an entity reference; "~" only in runs that could strike through. Every
# alternative starts with its literal character (lookbehinds after it), so the
# regex engine skips straight to the candidates: ten times faster than
# "[\\`*\[\]]|(?<![A-Za-z0-9])_|...|(?<=~)~", which matches the same characters.
_SPECIAL = re.compile(
    r"\\|`|\*|\[|\]|_(?<![A-Za-z0-9]_)|_(?![A-Za-z0-9])|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]{1,32};)|~(?=~)|~(?<=~~)"
)
_LINE_MARKER = re.compile(r"^([#>+\-=|~])", re.M)
_LINE_ORDINAL = re.compile(r"^(\d{1,9})([.)])", re.M)
_INFO = re.compile(r"^[\w+#.-]{1,32}$")
_CATEGORY = re.compile(r"[^a-z0-9_]")
_BACKTICKS = re.compile(r"`+")
_ALIGN = {"text-align:left": ":--", "text-align:center": ":-:", "text-align:right": "--:"}


def withheld_marker(category: str) -> str:
    """The text that replaces a withheld block."""
    return f"[withheld by pagewarden: {_CATEGORY.sub('_', category.lower())[:64] or 'finding'}]"


def _parser() -> MarkdownIt:
    # html=True so that raw HTML is recognized (and then dropped) rather than
    # shown as text; linkify stays off: bare URLs remain plain text.
    return MarkdownIt("commonmark", {"html": True, "linkify": False, "maxNesting": 20}).enable(
        ["table", "strikethrough"]
    )


_PARSER = _parser()


def escape_text(text: str) -> str:
    """Escape a text run so that it reads back as the same text, never as syntax."""
    return _SPECIAL.sub(r"\\\g<0>", text)


def _escape_line_starts(markdown: str) -> str:
    markdown = _LINE_MARKER.sub(r"\\\1", markdown)
    return _LINE_ORDINAL.sub(r"\1\\\2", markdown)


def plain_text_markdown(text: str) -> str:
    """Markdown that reads back as exactly ``text``: plain text served as ``text/plain`` holds no syntax."""
    # Each line stripped, then escaped all at once: no escape depends on a character across a line end (a
    # line end is neither a letter, a digit nor "~", and the line-start patterns are per line), so three
    # passes over the whole text give what three passes per line gave, for a fraction of the calls.
    return _escape_line_starts(escape_text("\n".join(line.strip() for line in text.split("\n"))))


def _code_span(content: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if content.startswith(("`", " ")) or content.endswith(("`", " ")) else ""
    return f"{fence}{pad}{content}{pad}{fence}"


@dataclass(frozen=True, slots=True)
class LinkRef:
    """A link found in the content: its destination as parsed and its text."""

    href: str
    label: str


@dataclass(frozen=True, slots=True)
class Unit:
    """One top-level piece of the rendered body.

    Attributes:
        text: the safe Markdown of this piece.
        separator: what joins it to the previous piece (a blank line, or a
            newline between items of a tight list).
        links: the links recorded while rendering it, in order.
        cuttable: a paragraph or heading, which may be cut inside.
        withheld: categories of the blocks the filter withheld in it.
    """

    text: str
    separator: str
    links: tuple[LinkRef, ...]
    cuttable: bool
    withheld: tuple[str, ...]


@dataclass(slots=True)
class _Inline:
    markdown: list[str]
    plain: list[str]
    links: list[LinkRef]
    sources: list[str]


class _Renderer:
    def __init__(self, block_filter: BlockFilter | None) -> None:
        self._filter = block_filter
        self.links: list[LinkRef] = []
        self.withheld: list[str] = []

    # -- inline -------------------------------------------------------------

    def _inline(self, nodes: Iterable[SyntaxTreeNode], out: _Inline) -> None:
        for node in nodes:
            kind = node.type
            if kind == "text":
                out.markdown.append(escape_text(node.content))
                out.plain.append(node.content)
            elif kind in ("softbreak", "hardbreak"):
                out.markdown.append("\\\n" if kind == "hardbreak" else "\n")
                out.plain.append("\n")
            elif kind == "code_inline":
                out.markdown.append(_code_span(node.content))
                out.plain.append(node.content)
            elif kind in ("em", "strong", "s"):
                marker = {"em": "*", "strong": "**", "s": "~~"}[kind]
                inner = _Inline([], [], out.links, out.sources)
                self._inline(node.children, inner)
                text = "".join(inner.markdown)
                if text.strip():
                    out.markdown.append(f"{marker}{text}{marker}")
                else:
                    out.markdown.append(text)
                out.plain.extend(inner.plain)
            elif kind == "link":
                self._link(node, out)
            elif kind == "image":
                inner = _Inline([], [], [], out.sources)
                self._inline(node.children, inner)
                out.sources.append(str(node.attrs.get("src", "")))
                alt = " ".join("".join(inner.plain).split())
                if alt:
                    out.markdown.append(f"(image: {escape_text(alt)})")
                    out.plain.append(alt)
            elif kind == "html_inline":
                continue
            else:
                self._inline(node.children, out)

    def _link(self, node: SyntaxTreeNode, out: _Inline) -> None:
        href = str(node.attrs.get("href", ""))
        out.sources.append(href)
        if node.markup == "autolink":
            out.links.append(LinkRef(href, ""))
            return
        inner = _Inline([], [], out.links, out.sources)
        self._inline(node.children, inner)
        label = " ".join("".join(inner.plain).split())
        out.links.append(LinkRef(href, label))
        out.markdown.extend(inner.markdown)
        out.plain.extend(inner.plain)

    # -- leaf blocks --------------------------------------------------------

    def _admit(self, plain: str, sources: list[str], links: list[LinkRef], markdown: str) -> str:
        if self._filter is not None:
            category = self._filter("\n".join([plain, *sources]))
            if category is not None:
                self.withheld.append(category)
                return withheld_marker(category)
        self.links.extend(links)
        return markdown

    def _leaf_inline(self, node: SyntaxTreeNode) -> tuple[str, str, _Inline]:
        out = _Inline([], [], [], [])
        for child in node.children:
            self._inline(child.children if child.type == "inline" else [child], out)
        return "".join(out.markdown), "".join(out.plain), out

    def _paragraph(self, node: SyntaxTreeNode) -> str:
        markdown, plain, out = self._leaf_inline(node)
        markdown = _escape_line_starts(markdown.strip())
        if not markdown:
            self.links.extend(out.links)
            return ""
        return self._admit(plain, out.sources, out.links, markdown)

    def _heading(self, node: SyntaxTreeNode) -> str:
        markdown, plain, out = self._leaf_inline(node)
        markdown = " ".join(markdown.replace("\\\n", " ").split())
        if markdown.endswith("#"):
            markdown = markdown[:-1] + "\\#"
        if not markdown:
            self.links.extend(out.links)
            return ""
        level = max(1, min(6, len(node.markup) if node.markup.startswith("#") else (1 if node.markup == "=" else 2)))
        return "#" * level + " " + self._admit(plain, out.sources, out.links, markdown)

    def _code(self, node: SyntaxTreeNode) -> str:
        content = node.content
        longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
        fence = "`" * max(3, longest + 1)
        words = node.info.split() if node.type == "fence" else []
        info = words[0] if words and _INFO.match(words[0]) else ""
        body = content if not content or content.endswith("\n") else content + "\n"
        return self._admit(content, [], [], f"{fence}{info}\n{body}{fence}")

    def _table(self, node: SyntaxTreeNode) -> str:
        rows: list[list[str]] = []
        aligns: list[str] = []
        plain_parts: list[str] = []
        collected = _Inline([], [], [], [])
        for row in (r for section in node.children for r in section.children):
            cells: list[str] = []
            for cell in row.children:
                markdown, plain, out = self._leaf_inline(cell)
                collected.links.extend(out.links)
                collected.sources.extend(out.sources)
                plain_parts.append(plain)
                cells.append(" ".join(markdown.replace("\\\n", " ").split()).replace("|", "\\|"))
                if len(rows) == 0:
                    aligns.append(_ALIGN.get(str(cell.attrs.get("style", "")), "---"))
            rows.append(cells)
        if not rows:
            return ""
        width = len(aligns)
        lines = ["| " + " | ".join((row + [""] * width)[:width]) + " |" for row in rows]
        lines.insert(1, "| " + " | ".join(aligns) + " |")
        return self._admit("\n".join(plain_parts), collected.sources, collected.links, "\n".join(lines))

    # -- containers ---------------------------------------------------------

    def block(self, node: SyntaxTreeNode, alternate: bool = False) -> str:
        kind = node.type
        if kind == "paragraph":
            return self._paragraph(node)
        if kind == "heading":
            return self._heading(node)
        if kind in ("fence", "code_block"):
            return self._code(node)
        if kind == "table":
            return self._table(node)
        if kind == "hr":
            return "***"
        if kind == "blockquote":
            inner = self.blocks(node.children, tight=False)
            return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n")) if inner else ""
        if kind in ("bullet_list", "ordered_list"):
            separator = "\n" if _is_tight(node) else "\n\n"
            return separator.join(text for text, _, _ in self.list_items(node, alternate))
        if kind == "html_block":
            return ""
        return self.blocks(node.children, tight=False)

    def blocks(self, nodes: Iterable[SyntaxTreeNode], *, tight: bool) -> str:
        parts: list[str] = []
        previous = ""
        alternate = False
        for node in nodes:
            alternate = (not alternate) if node.type == previous and node.type.endswith("_list") else False
            text = self.block(node, alternate)
            if text:
                loose = not tight or node.type in ("table", "fence", "code_block") or (
                    node.type == "ordered_list" and int(node.attrs.get("start", 1) or 1) != 1
                )
                parts.append(("\n\n" if loose else "\n") if parts else "")
                parts.append(text)
            previous = node.type
        return "".join(parts)

    def list_items(
        self, node: SyntaxTreeNode, alternate: bool
    ) -> list[tuple[str, tuple[LinkRef, ...], tuple[str, ...]]]:
        """Each item rendered with its marker, with the links and withheld categories it recorded."""
        tight = _is_tight(node)
        items: list[tuple[str, tuple[LinkRef, ...], tuple[str, ...]]] = []
        if node.type == "ordered_list":
            start = int(node.attrs.get("start", 1) or 1)
            delimiter = ")" if alternate else "."
            markers = [f"{start + i}{delimiter} " for i in range(len(node.children))]
        else:
            markers = ["* " if alternate else "- "] * len(node.children)
        for marker, item in zip(markers, node.children, strict=True):
            mark_links, mark_withheld = len(self.links), len(self.withheld)
            text = _indent(marker, self.blocks(item.children, tight=tight))
            items.append((text, tuple(self.links[mark_links:]), tuple(self.withheld[mark_withheld:])))
        return items


def _is_tight(node: SyntaxTreeNode) -> bool:
    return all(child.hidden for item in node.children for child in item.children if child.type == "paragraph")


def _indent(marker: str, body: str) -> str:
    if not body:
        return marker.rstrip()
    pad = " " * len(marker)
    first, *rest = body.split("\n")
    return marker + first + "".join("\n" + (pad + line if line else "") for line in rest)


def render_units(markdown: str, block_filter: BlockFilter | None = None) -> list[Unit]:
    """Parse ``markdown`` and render it safely, as top-level units (see the module docstring)."""
    renderer = _Renderer(block_filter)
    tree = SyntaxTreeNode(_PARSER.parse(markdown))
    units: list[Unit] = []
    previous = ""
    alternate = False
    for node in tree.children:
        alternate = (not alternate) if node.type == previous and node.type.endswith("_list") else False
        previous = node.type
        if node.type in ("bullet_list", "ordered_list"):
            separator = "\n" if _is_tight(node) else "\n\n"
            for index, (text, links, withheld) in enumerate(renderer.list_items(node, alternate)):
                if text:
                    units.append(Unit(text, separator if index else "\n\n", links, False, withheld))
            continue
        mark_links, mark_withheld = len(renderer.links), len(renderer.withheld)
        text = renderer.block(node)
        if text:
            units.append(Unit(text, "\n\n", tuple(renderer.links[mark_links:]), node.type in ("paragraph", "heading"),
                              tuple(renderer.withheld[mark_withheld:])))
    return units
