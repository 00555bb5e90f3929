"""A small robots.txt matcher following RFC 9309.

Why not :mod:`urllib.robotparser`: it applies the first matching rule in file
order instead of the most specific (longest) one, knows no ``*`` or ``$``
wildcards, and lets the first ``*`` group win over later groups, so it answers
differently from the RFC on ordinary files.

What this module does:

* Groups: consecutive ``user-agent`` lines followed by their rules. A
  ``user-agent`` line after a rule starts a new group. Every group whose
  product token equals ours (case-insensitive; the value is cut at the first
  character that is not a letter, ``_`` or ``-``) is merged; without one, the
  ``*`` groups are merged; without those, everything is allowed.
* Rules: ``allow`` / ``disallow`` with a path pattern; ``*`` matches any
  characters, a final ``$`` anchors the end. The longest matching pattern
  wins; on a tie ``allow`` wins. An empty pattern is no rule. ``/robots.txt``
  itself is always allowed.
* Matching is on the URL's path and query, with non-ASCII characters and
  percent escapes normalised the same way in patterns and paths.
* ``crawl-delay`` (not in the RFC, but widely used) is kept per group, like
  the rules: the seconds of the group that applies, capped at
  :data:`MAX_CRAWL_DELAY`; a value that is not a number is ignored.
* ``sitemap`` lines apply to the whole file (they belong to no group): their
  URLs are kept, at most :data:`MAX_SITEMAPS` of them, for the crawler.
* Only the first :data:`MAX_ROBOTS_BYTES` (500 KiB, the RFC's minimum) are
  parsed; other lines are ignored.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field

__all__ = [
    "MAX_CRAWL_DELAY", "MAX_ROBOTS_BYTES", "MAX_SITEMAPS", "PRODUCT_TOKEN",
    "RobotsRules", "parse_robots", "robots_path",
]

MAX_ROBOTS_BYTES = 500 * 1024
MAX_CRAWL_DELAY = 60.0
MAX_SITEMAPS = 50
PRODUCT_TOKEN = "pagewarden"  # noqa: S105 - a robots.txt product token, not a secret

_TOKEN = re.compile(r"[A-Za-z_-]*")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _normalise(text: str) -> str:
    # Percent-encode what is not ASCII and upper-case existing escapes, so
    # "/caf%c3%a9", "/café" and "/caf%C3%A9" compare equal.
    encoded = urllib.parse.quote(text, safe="".join(chr(c) for c in range(0x21, 0x7F)))
    return _ESCAPE.sub(lambda match: match.group(0).upper(), encoded)


@dataclass(frozen=True, slots=True)
class _Rule:
    allow: bool
    pattern: str
    regex: re.Pattern[str]


def _rule(allow: bool, pattern: str) -> _Rule:
    normalised = _normalise(pattern)
    anchored = normalised.endswith("$")
    body = normalised[:-1] if anchored else normalised
    regex = ".*".join(re.escape(part) for part in body.split("*")) + (r"\Z" if anchored else "")
    return _Rule(allow, normalised, re.compile(regex, re.DOTALL))


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """The rules of one robots.txt that apply to our product token.

    ``RobotsRules()`` (no rules) allows everything. ``crawl_delay`` is the
    applicable group's ``Crawl-delay`` in seconds (``None`` when absent);
    ``sitemaps`` the file's ``Sitemap`` URLs, as written.
    """

    rules: tuple[_Rule, ...] = field(default=())
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()

    def allowed(self, path: str) -> bool:
        """Whether ``path`` (path and query, starting with ``/``) may be fetched."""
        target = _normalise(path or "/")
        if target == "/robots.txt":
            return True
        best: _Rule | None = None
        for rule in self.rules:
            if rule.regex.match(target) is None:
                continue
            if best is None or len(rule.pattern) > len(best.pattern) or (
                len(rule.pattern) == len(best.pattern) and rule.allow and not best.allow
            ):
                best = rule
        return best is None or best.allow

    def allowed_url(self, url: str) -> bool:
        """Whether the absolute ``url`` may be fetched (its host is not checked here)."""
        return self.allowed(robots_path(url))


def robots_path(url: str) -> str:
    """The part of ``url`` robots rules match against: path (``/`` if empty) and query."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def _agent_token(value: str) -> str:
    match = _TOKEN.match(value.strip())
    return match.group(0).lower() if match else ""


def parse_robots(text: str, product_token: str = PRODUCT_TOKEN) -> RobotsRules:
    """Parse robots.txt ``text`` into the rules for ``product_token`` (``*`` groups as fallback)."""
    ours: list[_Rule] = []
    star: list[_Rule] = []
    delays: dict[str, float] = {}
    sitemaps: list[str] = []
    matched_ours = False
    agents: list[str] = []
    in_rules = False
    token = product_token.lower()
    encoded = text.encode("utf-8")
    if len(encoded) > MAX_ROBOTS_BYTES:
        text = encoded[:MAX_ROBOTS_BYTES].decode("utf-8", "ignore")
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip().lower()
        value = value.strip()
        if key == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            agents.append(_agent_token(value) if value != "*" else "*")
            if token in agents:
                matched_ours = True
            continue
        if key == "sitemap":
            if value and len(sitemaps) < MAX_SITEMAPS:
                sitemaps.append(value)
            continue
        if key == "crawl-delay":
            in_rules = True
            delay = _delay(value)
            if delay is not None:
                for agent in agents:
                    if agent in (token, "*"):
                        delays.setdefault("ours" if agent == token else "*", delay)
            continue
        if key not in ("allow", "disallow"):
            continue
        in_rules = True
        if not agents or not value:
            continue  # a rule outside any group, or an empty pattern: no rule
        rule = _rule(key == "allow", value)
        if token in agents:
            ours.append(rule)
        if "*" in agents:
            star.append(rule)
    delay = delays.get("ours") if matched_ours else delays.get("*")
    return RobotsRules(tuple(ours) if matched_ours else tuple(star), delay, tuple(sitemaps))


def _delay(value: str) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        return None
    if not seconds >= 0:  # NaN and negatives
        return None
    return min(seconds, MAX_CRAWL_DELAY)
