"""The detector's fast tokenizer gives exactly the tokens of its regular expression."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from pagewarden._guard.learned.features import WORD_PATTERN
from pagewarden._guard.learned.tokens import tokenize

_TOKEN = re.compile(WORD_PATTERN)

# Characters where the shapes of tokenize meet: apostrophes, underscores, the NUL boundary,
# Unicode spaces, combining marks, non-Latin letters and digits, marks next to words.
_TRICKY = ("a", "b", "Z", "é", "ß", "ı", "İ", "0", "9", "²", "Ⅻ", "٣", "日", "한", "'", "’", "‘", "_", "\x00",
           " ", "\t", "\n", "\r", "\x0b", "\x1c", "\x1f", "\x85", "\u00a0", "\u2028", "\u3000", "\u200b",
           "\u0301", "\ufe0f", ".", ",", "!", "?", ";", "-", "“", "”", "—", "…", "@", "#", "$", "%",
           "\U0001f600", "\U000e0069", "\ud800")
_texts = st.one_of(
    st.text(alphabet=st.sampled_from(_TRICKY), max_size=80),
    st.text(max_size=80),
    st.lists(st.one_of(st.text(alphabet=st.sampled_from(_TRICKY), max_size=4),
                       st.sampled_from(["don't", "it’s", "a'b'c", "'quoted'", "word.", "(word", "x_y", "_x", "x_",
                                        "end.\x00next", "\x00", "a\x00b"])),
             max_size=20).map(" ".join),
)


@settings(max_examples=2000, deadline=None)
@given(_texts)
def test_tokenize_equals_the_pattern(text: str) -> None:
    """On random Unicode text (tricky characters favoured), tokenize gives re.findall's tokens."""
    assert tokenize(text) == _TOKEN.findall(text)


def test_tokenize_equals_the_pattern_on_prose() -> None:
    """On prose with contractions, quotes, underscores and sentence boundaries, tokenize gives re.findall's tokens."""
    text = ("“It’s here,” she said. Don't go_there; (really) — 3.5% of x's.\x00Next line...\x00'\x00_\x00"
            "a'b'c dogs' 'tis _lead trail_ ﬁne ½ Ⅻ\u0301 ")
    assert tokenize(text * 3) == _TOKEN.findall(text * 3)


def test_character_tests_agree_on_every_code_point() -> None:
    """str.isalnum is [^\\W_] and str.isspace is \\s for every code point: the facts tokenize relies on."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(r"[^\W_]", every) == [ch for ch in every if ch.isalnum()]
    assert re.findall(r"\s", every) == [ch for ch in every if ch.isspace()]
    assert "".join(every.split()) == "".join(ch for ch in every if not ch.isspace())
