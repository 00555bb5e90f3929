"""The detector's token keys (computed on code points, tokens.py) equal those of the token strings."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pagewarden._guard.learned.tokens as tokens_module
from pagewarden._guard.learned import load_detector
from pagewarden._guard.learned.detect import window_logits
from pagewarden._guard.learned.model import artifact_vocabulary
from pagewarden._guard.learned.stream import build_stream, pair_keys
from pagewarden._guard.learned.tokens import spans, tokenize, word_keys

_TRICKY = ("a", "b", "Z", "é", "ß", "0", "9", "²", "日", "で", "g", "å", "e", "'", "’", "_", "\x00", " ", "\n",
           "\u3000", "\u0301", ".", "-", "\U0001f600", "\U000e0069", "\ud800")
_texts = st.one_of(st.text(alphabet=st.sampled_from(_TRICKY), max_size=80), st.text(max_size=80))


@settings(max_examples=1000, deadline=None)
@given(_texts)
def test_span_keys_are_the_keys_of_the_token_strings(text: str) -> None:
    """Each token's key, computed in place on the text, equals word_keys of the token's string."""
    found = spans(text)
    assert np.array_equal(found.keys, word_keys(tokenize(text)))
    assert found.word.tolist() == [token[0].isalnum() for token in tokenize(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(_TRICKY), min_size=1, max_size=6), min_size=1, max_size=30))
def test_keys_are_equal_exactly_for_equal_words(words: list[str]) -> None:
    """Two words have the same key exactly when they are the same string (no collision on tricky text)."""
    keys = word_keys(words).tolist()
    for first, first_key in zip(words, keys, strict=True):
        for second, second_key in zip(words, keys, strict=True):
            assert (first_key == second_key) == (first == second)


def test_keys_do_not_collide_across_string_kinds() -> None:
    """'で' and 'g0' differ: Python's str hash gives them one value (same bytes, UCS-2 and Latin-1) in every process."""
    assert hash("で") == hash("g0")  # the fact that made the old string-hash keys wrong
    assert len(set(word_keys(["で", "g0", "日", "åe", "\U0001f600", "\x00\xf6\x01\x00"]).tolist())) == 6


def test_every_vocabulary_word_gets_its_own_weight() -> None:
    """Looking up every unigram and bigram of the artifact gives its weight (the tables have no colliding key)."""
    data = json.loads(gzip.decompress(resources.files("pagewarden._guard.learned").joinpath(
        "artifact", "detector.json.gz").read_bytes()))
    detector = load_detector()
    words = str(data["unigrams"]).split("\n")
    assert np.array_equal(detector.unigrams.lookup(word_keys(words)), np.array(data["unigram_weights"]))
    halves = [pair.split(" ") for pair in str(data["bigrams"]).split("\n")]
    keys = pair_keys(word_keys([first for first, _ in halves]), word_keys([second for _, second in halves]))
    assert np.array_equal(detector.bigrams.lookup(keys), np.array(data["bigram_weights"]))


def test_a_cjk_word_scores_with_its_own_weight() -> None:
    """A sentence of 'で' alone, or 'g0' alone, has the n-gram logit of that word's own weight."""
    detector = load_detector()
    vocabulary = artifact_vocabulary()
    assert vocabulary["で"] != vocabulary["g0"]
    for word in ("で", "g0"):
        logit = float(window_logits(detector, build_stream([(0, word)]))[0])
        assert abs(logit - (detector.ngram_intercept + vocabulary[word])) < 1e-9


def test_keys_of_a_text_longer_than_the_kept_power_tables() -> None:
    """In a text longer than the power tables kept for the process, a token far in keeps its key."""
    long = "w" * (tokens_module._KEPT + 10) + " tail"
    found = spans(long)
    assert found.keys.tolist() == word_keys(["w" * (tokens_module._KEPT + 10), "tail"]).tolist()
    assert len(tokens_module._tables[0]) <= tokens_module._KEPT


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=5000),
       st.text(alphabet=st.sampled_from(_TRICKY[:13]), min_size=1, max_size=8))
def test_a_key_does_not_depend_on_where_the_token_is(offset: int, word: str) -> None:
    """A word's key is the same at any position of the text (the prefix sums are rescaled by the span's start)."""
    text = "-" * offset + " " + word
    found = spans(text)
    last = tokenize(text)
    assert found.keys[-1] == word_keys([last[-1]])[0]


def test_inverse_of_the_base() -> None:
    """The base times its inverse is 1 modulo 2**64 (the rescaling of prefix sums relies on it)."""
    base = int(tokens_module._BASE)
    assert base % 2 == 1
    assert base * tokens_module._inverse(base) % (1 << 64) == 1


def test_candidate_sentence_tokens_are_sliced_from_the_text() -> None:
    """A stream's sentence tokens (strings cut from the text by span) are the pattern's tokens of the sentence."""
    stream = build_stream([(0, "It’s here, don't go_there. Next a'b'c line\nlast")])
    assert [stream.sentence_tokens(i) for i in range(len(stream))] == [
        ["it’s", "here", ",", "don't", "go", "there", "."], ["next", "a'b", "'", "c", "line"], ["last"]]
