"""Static CSS hiding: inline ``style`` declarations and the page's own ``<style>`` blocks.

The guard cannot compute layout on the static path, so it recognizes the
declarations that hide text from a human reader while leaving it in the DOM
(``display:none``, ``opacity:0``, off-screen positioning, ...). Each match is
named (the *via*), so a hidden segment can say how it was hidden.

Stylesheet parsing is deliberately small: a linear brace scan (no regex
backtracking over hostile CSS) that keeps rules whose selector is a single
compound of classes and ids (``.sr-only``, ``div.hide``, ``#x.y``). Rules with
combinators or pseudo-classes are skipped: matching them needs the tree, and
over-matching would mark visible article text as hidden. External stylesheets
and computed visibility are not evaluated here (a documented limitation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "FRAMEWORK_HIDDEN_CLASSES",
    "MAX_STYLESHEET_CHARS",
    "HiddenSelectors",
    "hiding_via",
    "parse_hidden_selectors",
]

# Bound on the CSS read per document; beyond it rules are ignored and the
# report says so (text is still scanned, only its location may be wrong).
MAX_STYLESHEET_CHARS = 1_000_000
_MAX_DECLARATIONS = 64

# Class names that popular frameworks (Bootstrap, Tailwind, WordPress, Drupal,
# HTML5 Boilerplate) hide with their external stylesheets, which the static path
# never sees. Treating them as hidden is the fail-closed reading.
FRAMEWORK_HIDDEN_CLASSES: frozenset[str] = frozenset(
    {
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "screen-reader-only",
        "element-invisible",
        "a11y-hidden",
        "d-none",
        "hidden",
        "invisible",
        "is-hidden",
        "u-hidden",
        "hide",
        "u-visually-hidden",
        "visually-hidden-focusable",
        "hidden-visually",
        "screenreader",
        "screenreader-only",
        "sr-text",
        "assistive-text",
        "offscreen",
        "off-screen",
        "hide-text",
        "text-hide",
        "is-visually-hidden",
        "visuallyhidden-focusable",
    }
)

_NUMBER = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(px|em|rem|%|pt|vw|vh|ch|ex)?$")
_RECT_ARGS = re.compile(r"rect\(([^)]*)\)")
_TRANSLATE = re.compile(r"translate(?:x|y|3d)?\(\s*([+-]?[\d.]+)(px|em|rem|%)?")
_SEPARATORS = re.compile(r"[\s,]+")
_INSET = re.compile(r"inset\(\s*(\d+(?:\.\d+)?)%")
_CIRCLE_ZERO = re.compile(r"circle\(\s*0(?:px|%)?\s*[)\s]")
_SCALE_ZERO = re.compile(r"scale[xy]?\(\s*0(?:\.0*)?\s*[,)]")
_SHORT_HEX = re.compile(r"#[0-9a-f]{3}")
_ALPHA_ZERO = re.compile(r"^(?:rgba|hsla)\(.*[,/]\s*0(?:\.0*)?\s*\)$|^transparent$|^#[0-9a-f]{6}00$|^#[0-9a-f]{3}0$")
# Declarations that may hide; used to find candidate blocks in stylesheets and
# to skip inline styles that cannot hide anything.
_OFFSET = r"\s*(?:-\d{3}|-\d{2}(?:\.\d+)?r?em|\d{4})"
# Every branch starts at a ':' and checks the property with a fixed-width
# lookbehind, so sre can skip quickly to the next colon (about 3 ms per MB of CSS).
_MAYBE_HIDING = re.compile(
    ":(?:"
    + "|".join(
        [
            r"(?<=display:)\s*none", r"(?<=visibility:)\s*(?:hidden|collapse)", r"(?<=opacity:)\s*(?:0|\.)",
            r"(?<=font-size:)\s*(?:0|1px|\.)", r"(?<=width:)\s*(?:0|1px)(?![\d.])",
            r"(?<=height:)\s*(?:0|1px)(?![\d.])", r"(?<=clip:)\s*rect", r"(?<=clip-path:)\s*(?:inset|circle)",
            r"(?<=left:)" + _OFFSET, r"(?<=top:)" + _OFFSET, r"(?<=right:)" + _OFFSET, r"(?<=bottom:)" + _OFFSET,
            r"(?<=transform:)[^;{}]{0,80}?(?:translate[a-z0-9]*\(\s*(?:-\d{3}|\d{4})|scale[xy]?\(\s*0[\s,.)])",
            r"(?<=text-indent:)\s*-\d{2}",
            # Same-colour text: transparent or zero-alpha text, or white/black text
            # (the block is then checked for an equal background).
            r"(?<=color:)\s*(?:transparent|rgba\([^)]*[,/]\s*0(?:\.0*)?\s*\)|#[0-9a-f]{6}00\b|#fff\b|#ffffff\b|white\b|#000\b|#000000\b|black\b)",
        ]
    )
    + ")"
)
_COMPOUND_PART = re.compile(r"([.#])([\w-]+)")
_COMPOUND_WHOLE = re.compile(r"^(?:[a-z][a-z0-9-]*)?(?:[.#][\w-]+)+$")


def _length(value: str) -> tuple[float, str] | None:
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    return float(match.group(1)), match.group(2) or "px"


def _is_tiny(value: str) -> bool:
    # 0 or at most one pixel: the classic "1px box with overflow hidden" idiom.
    parsed = _length(value)
    if parsed is None:
        return False
    number, unit = parsed
    return number <= 0 if unit in ("%", "em", "rem", "vw", "vh", "ch", "ex") else number <= 1


def _far_off(value: str) -> bool:
    # Offsets like left:-9999px push content off-screen. Thresholds follow the
    # reference guard: large negative or very large positive offsets.
    parsed = _length(value)
    if parsed is None:
        return False
    number, unit = parsed
    scale = 16.0 if unit in ("em", "rem") else 1.0
    pixels = number * scale
    return pixels <= -100 or pixels >= 5000 if unit != "%" else number <= -100


def _declarations(style: str) -> dict[str, str]:
    # ``style`` is already lower-cased.
    props: dict[str, str] = {}
    for count, declaration in enumerate(style.split(";")):
        if count >= _MAX_DECLARATIONS:
            break
        name, sep, value = declaration.partition(":")
        if not sep:
            continue
        value = value.replace("!important", "").strip()
        props[name.strip()] = value
    return props


def _same_color(props: dict[str, str]) -> bool:
    color = props.get("color")
    if color is None:
        return False
    color = _canonical_color(color)
    if _ALPHA_ZERO.match(color):
        return True
    background = props.get("background-color") or props.get("background")
    return background is not None and _canonical_color(background) == color


_NAMED = {"white": "#ffffff", "black": "#000000", "red": "#ff0000", "blue": "#0000ff"}


def _canonical_color(value: str) -> str:
    value = value.replace(" ", "")
    value = _NAMED.get(value, value)
    if _SHORT_HEX.fullmatch(value):
        value = "#" + "".join(ch * 2 for ch in value[1:])
    return value


def _clipped(props: dict[str, str]) -> bool:
    clip = props.get("clip")
    if clip is not None:
        match = _RECT_ARGS.search(clip)
        if match is not None:
            parts = [p for p in _SEPARATORS.split(match.group(1).strip()) if p]
            if parts and all(_is_tiny(p) for p in parts):
                return True
    clip_path = props.get("clip-path")
    if clip_path is not None:
        inset = _INSET.match(clip_path)
        if inset is not None and float(inset.group(1)) >= 50:
            return True
        if _CIRCLE_ZERO.match(clip_path):
            return True
    return False


def hiding_via(style: str) -> str | None:
    """Name the hiding technique an inline ``style`` value uses, or ``None``.

    The names are stable identifiers (``display_none``, ``offscreen``, ...)
    used in segment diagnostics and tests.
    """
    if ":" not in style:
        return None
    props = _declarations(style.lower())
    display = props.get("display")
    if display == "none":
        return "display_none"
    if props.get("visibility") in ("hidden", "collapse"):
        return "visibility_hidden"
    if props.get("content-visibility") == "hidden":
        return "content_visibility_hidden"
    opacity = props.get("opacity")
    if opacity is not None:
        parsed = _length(opacity)
        if parsed is not None and (parsed[0] <= 0.05 if parsed[1] != "%" else parsed[0] <= 5):
            return "opacity_zero"
    font_size = props.get("font-size")
    if font_size is not None and _is_tiny(font_size):
        return "font_size_zero"
    if props.get("overflow", props.get("overflow-x", props.get("overflow-y"))) in ("hidden", "clip") and any(
        _is_tiny(props[key]) for key in ("width", "height", "max-width", "max-height") if key in props
    ):
        return "zero_size_clipped"
    if _clipped(props):
        return "clip_zero"
    if props.get("position") in ("absolute", "fixed") and any(
        _far_off(props[key]) for key in ("left", "top", "right", "bottom", "inset") if key in props
    ):
        return "offscreen"
    transform = props.get("transform", "")
    if transform:
        if _SCALE_ZERO.search(transform):
            return "scale_zero"
        translate = _TRANSLATE.search(transform)
        if translate is not None and _far_off(translate.group(1) + (translate.group(2) or "px")):
            return "offscreen"
    indent = props.get("text-indent")
    if indent is not None:
        parsed = _length(indent)
        if parsed is not None and parsed[0] * (16.0 if parsed[1] in ("em", "rem") else 1.0) <= -100:
            return "text_indent_offscreen"
    if _same_color(props):
        return "same_color"
    return None


@dataclass(frozen=True, slots=True)
class HiddenSelectors:
    """Classes and ids the page's own stylesheets hide.

    ``by_key`` maps the first class (``.name``) or id (``#name``) of a hidden
    compound selector to the full requirement sets of the compounds that
    start with it; an element matches when it satisfies one of them.
    """

    by_key: dict[str, list[tuple[frozenset[str], str]]] = field(default_factory=dict)
    truncated: bool = False

    def via_for(self, classes: list[str], element_id: str | None) -> str | None:
        """The hiding via for an element with these classes and id, if any."""
        keys = {"." + name.lower() for name in classes}
        if element_id:
            keys.add("#" + element_id.lower())
        for key in keys:
            for required, via in self.by_key.get(key, ()):
                if required <= keys:
                    return via
        return None


def _strip_comments(css: str) -> str:
    # find()-based so an unclosed "/*" costs one linear scan, not a quadratic one.
    if "/*" not in css:
        return css
    parts: list[str] = []
    position = 0
    while True:
        start = css.find("/*", position)
        if start < 0:
            parts.append(css[position:])
            break
        parts.append(css[position:start])
        end = css.find("*/", start + 2)
        if end < 0:
            break
        position = end + 2
    return " ".join(parts)


def parse_hidden_selectors(stylesheets: list[str]) -> HiddenSelectors:
    """Collect hidden class/id compounds from the text of ``<style>`` blocks.

    Rather than walking every rule, one C-speed search finds the declarations
    that can hide (``display:none``, ``clip``, ...) and only their enclosing
    blocks are parsed. Rules inside at-rules (``@media``, ``@supports``) count
    too: a page that hides text on some screens still hides it from some readers.
    Same-colour text is recognized when one block sets both the colour and an
    equal background (or a transparent colour); a colour inherited from a
    parent's background is not (computed styles need the browser).
    """
    budget = MAX_STYLESHEET_CHARS
    truncated = False
    by_key: dict[str, list[tuple[frozenset[str], str]]] = {}
    for sheet in stylesheets:
        if budget <= 0:
            truncated = True
            break
        if len(sheet) > budget:
            sheet, truncated = sheet[:budget], True
        budget -= len(sheet)
        css = _strip_comments(sheet).lower()
        last_block = -1
        for hit in _MAYBE_HIDING.finditer(css):
            position = hit.start()
            opening = css.rfind("{", 0, position)
            if opening <= last_block or css.rfind("}", opening, position) >= 0:
                continue  # same block as the previous hit, or not inside a declaration block
            last_block = opening
            closing = css.find("}", position)
            body = css[opening + 1 : closing if closing >= 0 else len(css)]
            via = hiding_via(body)
            if via is None:
                continue
            prelude_start = max(css.rfind("}", 0, opening), css.rfind("{", 0, opening)) + 1
            _add_selectors(by_key, css[prelude_start:opening], via)
    return HiddenSelectors(by_key=by_key, truncated=truncated)


def _add_selectors(by_key: dict[str, list[tuple[frozenset[str], str]]], prelude: str, via: str) -> None:
    for selector in prelude.split(","):
        selector = selector.strip().lower()
        if not _COMPOUND_WHOLE.match(selector):
            continue
        parts = [kind + name for kind, name in _COMPOUND_PART.findall(selector)]
        if parts:
            by_key.setdefault(parts[0], []).append((frozenset(parts), "stylesheet_" + via))
