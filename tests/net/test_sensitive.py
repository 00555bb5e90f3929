"""Request-side check: URLs carrying secrets or personal data are refused before sending."""

from __future__ import annotations

import pytest

from pagewarden._config import ReaderConfig
from pagewarden._errors import UnsafeURL
from pagewarden._net.sensitive import check_sensitive, find_sensitive
from pagewarden._net.urls import parse_target

SECRET = "sensitive_query_secret"
PERSONAL = "sensitive_query_personal_data"
PATH = "sensitive_path_secret"

# Fake credentials assembled at run time so secret scanners do not flag this file.
OPENAI = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
GITHUB = "ghp_" + "a" * 36
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SLACK = "xoxb-" + "1234567890-abcdefghij"
JWT = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
GOOGLE = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"

CASES = [
    ("https://example.com/?q=" + OPENAI, SECRET),
    ("https://example.com/?token=" + GITHUB, SECRET),
    ("https://example.com/?id=" + AWS, SECRET),
    ("https://example.com/?t=" + SLACK, SECRET),
    ("https://example.com/?session=" + JWT, SECRET),
    ("https://example.com/?key=" + GOOGLE, SECRET),
    ("https://example.com/?password=hunter2", SECRET),
    ("https://example.com/?PassWord=hunter2", SECRET),
    ("https://example.com/?api_key=abc", SECRET),
    ("https://example.com/?access_token=abc", SECRET),
    ("https://example.com/?q=" + OPENAI.replace("-", "%2D"), SECRET),
    ("https://example.com/?email=alice%40example.com", PERSONAL),
    ("https://example.com/?to=alice@example.com", PERSONAL),
    ("https://example.com/?cc=4111111111111111", PERSONAL),
    ("https://example.com/?cc=4111-1111-1111-1111", PERSONAL),
    ("https://example.com/?cc=4111+1111+1111+1111", PERSONAL),
    ("https://example.com/?amex=378282246310005", PERSONAL),
    ("https://hooks.example.com/bot/" + GITHUB + "/send", PATH),
    # Not sensitive:
    ("https://example.com/?q=python+tutorial", None),
    ("https://example.com/?password=", None),
    ("https://example.com/?token=", None),
    ("https://example.com/?id=4111111111111112", None),  # fails Luhn
    ("https://example.com/?status=1234567890123456789", None),  # 19 digits, no card prefix
    ("https://example.com/?task=skip-the-intro", None),
    ("https://example.com/users/alice@example.com", None),  # e-mail in a path is not checked
    ("https://example.com/?page=2&sort=desc", None),
]


@pytest.mark.parametrize(("url", "reason"), CASES)
def test_find_sensitive(url: str, reason: str | None) -> None:
    """Each URL is classified with the expected reason (or as harmless)."""
    found = find_sensitive(parse_target(url, ReaderConfig()))
    assert (found[0] if found else None) == reason


def test_check_sensitive_raises_without_echoing_the_value() -> None:
    """A refused URL is UNSAFE_URL with a named reason and no secret in its message or dict."""
    url = "https://example.com/?q=" + OPENAI
    with pytest.raises(UnsafeURL) as info:
        check_sensitive(parse_target(url, ReaderConfig()), ReaderConfig())
    assert info.value.reason == SECRET
    assert OPENAI not in str(info.value) and OPENAI not in str(info.value.to_dict())


def test_unsafe_allow_sensitive_query_relaxes_the_check() -> None:
    """unsafe_allow_sensitive_query=True lets the same URL through."""
    config = ReaderConfig(unsafe_allow_sensitive_query=True)
    check_sensitive(parse_target("https://example.com/?password=x", config), config)
