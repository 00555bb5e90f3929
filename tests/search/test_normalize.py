"""Hit normalization: URL canonicalization (data table), text bounds, dedupe, provider output shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pagewarden import ParseChanged, ReaderConfig
from pagewarden._search.normalize import (
    MAX_PROVIDER_ITEMS,
    MAX_SNIPPET_CHARS,
    MAX_TITLE_CHARS,
    canonical_hit_url,
    clean_text,
    normalize_hits,
    validate_raw_hits,
)
from pagewarden._search.types import RawHit

URL_CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "hit_urls.json").read_text("utf-8"))

TEXT_CASES: list[tuple[str, str]] = [
    ("plain title", "plain title"),
    ("  spaced\t\tout\r\nlines  ", "spaced out lines"),
    ("nul\x00and bell\x07", "nul and bell"),
    ("zero\u200bwidth\u200d joiners", "zerowidth joiners"),
    ("bidi \u202eoverride\u202c marks", "bidi override marks"),
    ("c1 control\x85next", "c1 control next"),
    ("ｆｕｌｌｗｉｄｔｈ stays", "ｆｕｌｌｗｉｄｔｈ stays"),
]


@pytest.mark.parametrize("case", URL_CASES, ids=[c["why"] for c in URL_CASES])
def test_canonical_hit_url(case: dict[str, Any]) -> None:
    """Each provider URL canonicalizes to the expected URL, or is dropped (None)."""
    assert canonical_hit_url(case["url"]) == case["expected"]


def test_allowed_destination_keeps_a_loopback_hit() -> None:
    """A reader's unsafe_allow_destinations also decides which hit URLs survive (test servers)."""
    config = ReaderConfig(unsafe_allow_destinations=("127.0.0.1:8080",))
    assert canonical_hit_url("http://127.0.0.1:8080/page?utm_source=x") is None
    assert canonical_hit_url("http://127.0.0.1:8080/page?utm_source=x", config) == "http://127.0.0.1:8080/page"


@pytest.mark.parametrize(("raw", "expected"), TEXT_CASES)
def test_clean_text(raw: str, expected: str) -> None:
    """Control characters become spaces, format characters vanish, whitespace collapses."""
    assert clean_text(raw, 1_000) == expected


@pytest.mark.parametrize("limit", [MAX_TITLE_CHARS, MAX_SNIPPET_CHARS])
def test_clean_text_is_bounded(limit: int) -> None:
    """Text longer than the bound is cut to exactly the bound, with an ellipsis."""
    text = clean_text("word " * limit, limit)
    assert len(text) <= limit
    assert text.endswith("…")


def test_dedupe_keeps_first_and_ignores_tracking_fragment_and_trailing_slash() -> None:
    """Hits that canonicalize to the same page count once; the first one (and its text) wins."""
    raw = [
        RawHit("https://example.com/a", "first", "one"),
        RawHit("https://example.com/a/", "second", "two"),
        RawHit("https://example.com/a?utm_source=x#frag", "third", "three"),
        RawHit("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa&rut=1", "fourth", "four"),
        RawHit("https://example.com/b", "other", "five"),
        RawHit("http://10.1.2.3/", "private", "six"),
    ]
    out = normalize_hits(raw)
    assert [(c.url, c.title) for c in out] == [("https://example.com/a", "first"), ("https://example.com/b", "other")]


def test_root_slash_is_not_stripped() -> None:
    """The root path keeps its slash; only non-root trailing slashes are folded for dedupe."""
    out = normalize_hits([RawHit("https://example.com", "t", ""), RawHit("https://example.com/", "u", "")])
    assert [c.url for c in out] == ["https://example.com/"]


BAD_OUTPUTS: list[tuple[str, object]] = [
    ("None", None),
    ("a string", "https://example.com"),
    ("bytes", b"x"),
    ("a mapping", {"url": "https://example.com"}),
    ("a set", {1, 2}),
    ("a dict item", [{"url": "https://example.com", "title": "t"}]),
    ("a non-text field", [RawHit(url=123, title="t")]),  # type: ignore[arg-type]
    ("a huge field", [RawHit(url="https://example.com/", title="t" * 100_001)]),
    ("too many items", [RawHit("https://example.com/", "t")] * (MAX_PROVIDER_ITEMS + 1)),
]


@pytest.mark.parametrize(("why", "raw"), BAD_OUTPUTS, ids=[b[0] for b in BAD_OUTPUTS])
def test_malformed_provider_output_is_parse_changed(why: str, raw: object) -> None:
    """Provider output that is not a bounded sequence of RawHit is PARSE_CHANGED, never an empty result."""
    with pytest.raises(ParseChanged) as caught:
        validate_raw_hits(raw, "fake")
    assert caught.value.reason == "invalid_provider_output"


@pytest.mark.parametrize("raw", [[], (), [RawHit("https://example.com/", "t")] * MAX_PROVIDER_ITEMS])
def test_well_formed_provider_output_passes(raw: Any) -> None:
    """Empty sequences and up to 1,000 RawHit items are accepted as they are."""
    assert len(validate_raw_hits(raw, "fake")) == len(raw)
