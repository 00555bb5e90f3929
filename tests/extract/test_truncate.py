"""Truncation to ``max_characters`` at readable boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pagewarden._extract import truncate
from pagewarden._extract.truncate import truncate_one

PARAGRAPHS = "First paragraph is here.\n\nSecond paragraph follows it.\n\nThird one ends."
SENTENCES = "One sentence here. Another sentence there. A third sentence now."

CASES = [
    ("fits", "short text", 200, "short text", False),
    ("exact fit", "abcde", 5, "abcde", False),
    ("paragraph boundary", PARAGRAPHS, 60, "First paragraph is here.\n\nSecond paragraph follows it.", True),
    ("sentence boundary", SENTENCES, 50, "One sentence here. Another sentence there.", True),
    ("sentence ending at the limit", SENTENCES, 42, "One sentence here. Another sentence there.", True),
    ("word boundary", "alpha beta gamma delta epsilon", 20, "alpha beta gamma", True),
    ("limit on a space", "alpha beta gamma", 10, "alpha beta", True),
    ("one long word", "abcdefghijklmnopqrstuvwxyz", 10, "abcdefghij", True),
    ("zero", "anything", 0, "", True),
]


@pytest.mark.parametrize(("name", "value", "limit", "expected", "cut"), CASES, ids=[row[0] for row in CASES])
def test_truncate_one(name: str, value: str, limit: int, expected: str, cut: bool) -> None:
    """Text is cut at the best boundary in the window, or left alone when it fits."""
    assert truncate_one(value, limit) == (expected, cut)


def test_truncate_flags_when_either_rendering_is_cut() -> None:
    """The flag is set when the Markdown or the text had to be cut."""
    assert truncate("# T\n\nshort", "T short", 200) == ("# T\n\nshort", "T short", False)
    assert truncate("x " * 200, "x", 200)[2] is True
    assert truncate("x", "x " * 200, 200)[2] is True


@given(st.text(alphabet=st.sampled_from("ab .!?\n\t"), max_size=400), st.integers(min_value=0, max_value=300))
def test_truncate_never_exceeds_the_limit(value: str, limit: int) -> None:
    """The result is a prefix within the limit, flagged exactly when the input was longer."""
    result, cut = truncate_one(value, limit)
    assert len(result) <= limit
    assert value.startswith(result)
    assert cut is (len(value) > limit)
    if not cut:
        assert result == value


@given(
    st.text(alphabet=st.sampled_from("abc \n"), min_size=1, max_size=400),
    st.integers(min_value=1, max_value=300),
)
def test_truncate_never_cuts_mid_word(value: str, limit: int) -> None:
    """When the window holds a word break, the cut falls on whitespace, never inside a word."""
    result, cut = truncate_one(value, limit)
    if cut and result and any(ch.isspace() for ch in value[1 : limit + 1]):
        assert value[len(result)].isspace()
