"""URL intake: canonical forms, every refusal reason, link filtering, and a property test."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagewarden._config import Limits, ReaderConfig
from pagewarden._errors import InvalidInput, PagewardenError, UnsafeURL
from pagewarden._net.urls import Target, check_link, parse_target

CASES: list[dict[str, Any]] = json.loads(Path(__file__).with_name("urls.json").read_text(encoding="utf-8"))["cases"]


def _config(case: dict[str, Any]) -> ReaderConfig:
    return ReaderConfig(unsafe_allow_destinations=tuple(case.get("allow", ())))


@pytest.mark.parametrize("case", [c for c in CASES if "url" in c], ids=lambda c: c["input"][:60])
def test_accepted_urls_are_canonical(case: dict[str, Any]) -> None:
    """An accepted URL yields exactly the expected canonical wire URL and fields."""
    target = parse_target(case["input"], _config(case))
    assert target.url == case["url"]
    assert target.fragment == case.get("fragment")
    if "ip" in case:
        assert target.ip == ipaddress.ip_address(case["ip"])
    if "needs_port_allowance" in case:
        assert target.needs_port_allowance is case["needs_port_allowance"]
    # The canonical form is a fixed point.
    assert parse_target(target.url, _config(case)).url == target.url


@pytest.mark.parametrize("case", [c for c in CASES if "code" in c], ids=lambda c: c["input"][:60])
def test_refused_urls_name_their_reason(case: dict[str, Any]) -> None:
    """A refused URL raises the expected error class with the expected named reason."""
    with pytest.raises(PagewardenError) as info:
        parse_target(case["input"], _config(case))
    assert str(info.value.code) == case["code"]
    assert info.value.reason == case["reason"]


def test_refusal_messages_do_not_echo_credentials() -> None:
    """A refused URL's message and serialized form never contain its credentials."""
    with pytest.raises(UnsafeURL) as info:
        parse_target("http://alice:hunter2@example.com/", ReaderConfig())
    assert "hunter2" not in str(info.value.to_dict()) and "hunter2" not in str(info.value)


def test_non_string_is_invalid_input() -> None:
    """Non-text input is INVALID_INPUT, not a crash."""
    with pytest.raises(InvalidInput):
        parse_target(b"http://example.com/", ReaderConfig())  # type: ignore[arg-type]


def test_max_url_chars_follows_config() -> None:
    """The length limit comes from config.limits.max_url_chars."""
    config = ReaderConfig(limits=Limits(max_url_chars=30))
    parse_target("https://example.com/" + "a" * 10, config)
    with pytest.raises(UnsafeURL) as info:
        parse_target("https://example.com/" + "a" * 11, config)
    assert info.value.reason == "url_too_long"


def test_target_request_parts() -> None:
    """request_target and host_header are what goes into the request line and Host header."""
    target = parse_target(
        "http://[2606:4700:4700::1111]:8080/a?b#c",
        ReaderConfig(unsafe_allow_destinations=("[2606:4700:4700::1111]:8080",)),
    )
    assert isinstance(target, Target)
    assert target.request_target == "/a?b"
    assert target.host_header == "[2606:4700:4700::1111]:8080"
    assert parse_target("https://example.com/", ReaderConfig()).host_header == "example.com"


LINKS = [
    ("../x#y", "https://example.com/a/b", "https://example.com/x"),
    ("/path?q=1", "https://example.com/a", "https://example.com/path?q=1"),
    ("//other.example/p", "https://example.com/", "https://other.example/p"),
    ("https://example.org", "https://example.com/", "https://example.org/"),
    ("  /spaced  ", "https://example.com/", "https://example.com/spaced"),
    ("javascript:alert(1)", "https://example.com/", None),
    ("java\nscript:alert(1)", "https://example.com/", None),
    ("JavaScript:alert(1)", "https://example.com/", None),
    ("data:text/html,x", "https://example.com/", None),
    ("file:///etc/passwd", "https://example.com/", None),
    ("mailto:a@example.com", "https://example.com/", None),
    ("http://127.0.0.1/admin", "https://example.com/", None),
    ("http://2130706433/", "https://example.com/", None),
    ("http://[::1]/", "https://example.com/", None),
    ("//localhost/", "https://example.com/", None),
    ("http://router.home.arpa/", "https://example.com/", None),
    ("http://user:pw@example.org/", "https://example.com/", None),
    ("https://example.org:8443/", "https://example.com/", None),
    ("http://[::1", "https://example.com/", None),
    ("", "https://example.com/", None),
]


@pytest.mark.parametrize(("href", "base", "expected"), LINKS)
def test_check_link(href: str, base: str, expected: str | None) -> None:
    """Links resolve against the base and are dropped when any DNS-free check refuses them."""
    assert check_link(href, base, ReaderConfig()) == expected


@settings(max_examples=400, database=None, deadline=None)
@given(st.one_of(st.text(max_size=300), st.from_regex(r"\Ahttps?://[^/]{0,40}(/.{0,40})?\Z")))
def test_any_text_yields_target_or_pagewarden_error(text: str) -> None:
    """Any text given to parse_target yields a Target or a PagewardenError, never another exception."""
    try:
        target = parse_target(text, ReaderConfig())
    except PagewardenError:
        return
    assert target.url.isascii() and target.url.startswith(("http://", "https://"))
    link = check_link(text, "https://example.com/", ReaderConfig())
    assert link is None or link.startswith(("http://", "https://"))
