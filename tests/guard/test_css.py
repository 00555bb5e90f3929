"""Static CSS hiding detection: values, stylesheets, and linear time on hostile CSS."""

from __future__ import annotations

import time

import pytest

from pagewarden._guard.css import hiding_via, parse_hidden_selectors

VISIBLE_STYLES = [
    "display:block", "color:#333;background:#fff", "opacity:0.9", "font-size:14px", "width:0;overflow:visible",
    "position:absolute;left:10px", "position:relative;left:-9999px", "text-indent:2em", "transform:scale(1.2)",
    "clip-path:inset(10%)", "overflow:hidden;height:300px", "", "not a style",
]


@pytest.mark.parametrize("style", VISIBLE_STYLES)
def test_ordinary_styles_are_not_hiding(style: str) -> None:
    """Ordinary declarations (including near misses of hiding idioms) are not hiding."""
    assert hiding_via(style) is None


def test_stylesheet_rule_inside_media_and_selector_list() -> None:
    """Hidden compounds inside at-rules and selector lists are collected; pseudo-class selectors are not."""
    selectors = parse_hidden_selectors(["@media print{.a,.b{display:none}} .c:hover{display:none} #d{opacity:0}"])
    assert selectors.via_for(["a"], None) == "stylesheet_display_none"
    assert selectors.via_for(["b"], None) == "stylesheet_display_none"
    assert selectors.via_for(["c"], None) is None
    assert selectors.via_for([], "d") == "stylesheet_opacity_zero"


def test_compound_needs_every_part() -> None:
    """A compound selector hides only elements carrying all its classes."""
    selectors = parse_hidden_selectors([".x.y{visibility:hidden}"])
    assert selectors.via_for(["x"], None) is None
    assert selectors.via_for(["y", "x"], None) == "stylesheet_visibility_hidden"


@pytest.mark.parametrize(
    "css",
    ["a" * 400_000, "/*" * 200_000, "{" * 200_000, ":" * 200_000, "display:" * 50_000, ".a{" * 100_000],
    ids=["no-braces", "unclosed-comments", "open-braces", "colons", "declarations", "nested-blocks"],
)
def test_hostile_stylesheets_are_linear(css: str) -> None:
    """Pathological CSS is scanned in bounded time (no quadratic backtracking)."""
    started = time.perf_counter()
    parse_hidden_selectors([css])
    assert time.perf_counter() - started < 1.0


def test_oversized_stylesheets_are_reported() -> None:
    """CSS beyond the stylesheet budget is flagged so the report can list the limitation."""
    assert parse_hidden_selectors(["p{color:red}" * 100_000]).truncated
    assert not parse_hidden_selectors(["p{color:red}"]).truncated
