"""The RFC 9309 robots.txt matcher, driven by the vectors in robots_cases.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from pagewarden._ingest.robots import MAX_ROBOTS_BYTES, RobotsRules, parse_robots, robots_path

CASES: list[dict[str, Any]] = tomllib.loads((Path(__file__).with_name("robots_cases.toml")).read_text())["case"]
CHECKS = [
    pytest.param(case["robots"], case.get("agent", "pagewarden"), path, expected, id=f"{case['name']}: {path}")
    for case in CASES
    for path, expected in case["checks"]
]
PATHS = [
    ("http://example.com", "/"),
    ("http://example.com/a/b?x=1&y=2#frag", "/a/b?x=1&y=2"),
    ("https://example.com:8443/p", "/p"),
]


@pytest.mark.parametrize(("robots", "agent", "path", "expected"), CHECKS)
def test_vectors(robots: str, agent: str, path: str, expected: bool) -> None:
    """Each path is allowed or disallowed exactly as RFC 9309 says for the file."""
    assert parse_robots(robots, agent).allowed(path) is expected


@pytest.mark.parametrize(("url", "path"), PATHS)
def test_robots_path(url: str, path: str) -> None:
    """Rules match against the URL's path and query, never the fragment."""
    assert robots_path(url) == path


def test_only_first_500_kib_are_parsed() -> None:
    """A rule beyond the 500 KiB cap is not applied; one inside it is."""
    filler = "# " + "x" * 1000 + "\n"
    head = "User-agent: *\nDisallow: /early\n"
    text = head + filler * (MAX_ROBOTS_BYTES // len(filler) + 1) + "Disallow: /late\n"
    rules = parse_robots(text)
    assert not rules.allowed("/early")
    assert rules.allowed("/late")


def test_no_rules_allow_everything() -> None:
    """An empty rule set (what a 4xx robots.txt gives) allows every URL."""
    assert RobotsRules().allowed_url("http://example.com/anything")
