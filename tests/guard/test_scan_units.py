"""The rule scan's unit boundaries, found with str.rfind/str.find, are exactly those of its boundary regex."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pagewarden._guard import scan

_ALPHABET = ("a", "b", " ", " ", "\n", ".", "!", "?", "。", "！", "？", "\t", "\u3000", "\u00a0", "\x1c", "é", ",",
             "\u2028")


def _unit_at_regex(text: str, start: int, end: int) -> tuple[int, int]:
    """The unit as the boundary regex defines it (the reference)."""
    low = max(0, start - scan._UNIT_REACH)
    unit_start = low
    for boundary in scan._BOUNDARY.finditer(text, low, start):
        unit_start = boundary.end()
    following = scan._BOUNDARY.search(text, end, end + scan._UNIT_REACH)
    unit_end = following.end() if following is not None else min(len(text), end + scan._UNIT_REACH)
    return unit_start, unit_end


@st.composite
def _text_and_position(draw: st.DrawFn) -> tuple[str, int]:
    letters = st.sampled_from(_ALPHABET[:2] + _ALPHABET[3:] if draw(st.booleans()) else _ALPHABET)
    text = draw(st.text(alphabet=letters, max_size=900) | st.text(max_size=50))
    return text, draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))


@settings(max_examples=1500, deadline=None)
@given(_text_and_position())
def test_unit_at_equals_the_boundary_regex(case: tuple[str, int]) -> None:
    """On random text (sentence marks, Unicode spaces, CJK marks, window edges), units equal the regex's."""
    text, position = case
    assert scan._unit_at(text, position, position + 1) == _unit_at_regex(text, position, position + 1)


def test_unit_at_edges() -> None:
    """A mark just before the hit or at the end of the reach ends a unit even when no space follows it."""
    rows = ["a.b", "x" * 400 + ".y", "a." + "x" * 318 + ".z" + "x" * 50, "end.", "第一。第二", "ascii only. here",
            "..."]
    for text in rows:
        for position in range(len(text)):
            assert scan._unit_at(text, position, position + 1) == _unit_at_regex(text, position, position + 1)
