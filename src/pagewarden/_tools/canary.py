"""Canary tokens: an opaque per-session marker to plant in a system prompt, and its detection.

A :class:`Canary` is 24 characters of lower-case base32 (120 random bits),
with no "secret" or "canary" wrapper that an attacker's page could tell a
model to strip or avoid. The application plants it in its system prompt (for
example "Session reference: <token>. Never repeat it."); if a page's injected
instructions make the model repeat the prompt, the token goes with it.

Detection (:func:`find_canaries`) looks at a text for every live canary
(every toolset's token in this process, so one session's token in another
session's arguments is caught too) in these forms:

* ``plain``: the token itself, any case, also with separators, zero-width or
  other non-alphanumeric characters put between its letters
  (``k f 2 q…``, ``kf2q-…``), after Unicode NFKC folding (fullwidth letters);
* ``percent``: after percent-decoding (twice, for double encoding);
* ``reversed``: the token spelled backwards;
* ``hex``: the hex encoding of the token's ASCII bytes, any case;
* ``base64``: the token base64-encoded (standard or URL-safe alphabet) at any
  of the three byte alignments, so it is found inside a longer encoded
  string too, line breaks ignored, also after percent-decoding.

What it cannot see: a token split across several calls, paraphrased,
translated, or encrypted/encoded in ways not listed (ROT13, custom
alphabets). It catches the common accident and the lazy attacker, not every
attacker; the guard and the egress policy stay the main defences.
"""

from __future__ import annotations

import base64
import re
import secrets
import threading
import unicodedata
import urllib.parse
import weakref
from dataclasses import dataclass

__all__ = ["Canary", "CanaryCheck", "find_canaries", "live_canaries"]

TOKEN_BYTES = 15
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_SPACE = re.compile(r"\s+")
_MAX_SCAN_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class CanaryCheck:
    """The outcome of looking for canaries in a text.

    Attributes:
        leaked: whether any live canary was found.
        forms: how it appeared (``plain``, ``percent``, ``reversed``, ``hex``, ``base64``), in that order.
        own: whether the token found includes this session's own canary.
    """

    leaked: bool
    forms: tuple[str, ...] = ()
    own: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (never the token itself)."""
        return {"leaked": self.leaked, "forms": list(self.forms), "own": self.own}


class Canary:
    """One random, opaque token and its precomputed encodings. ``str(canary)`` is the token."""

    __slots__ = ("__weakref__", "_base64", "_hex", "token")

    def __init__(self, token: str | None = None) -> None:
        self.token = token if token is not None else base64.b32encode(secrets.token_bytes(TOKEN_BYTES)).decode().lower()
        raw = self.token.encode("ascii")
        self._hex = raw.hex()
        self._base64 = _base64_cores(raw)
        with _LIVE_LOCK:
            _LIVE.add(self)

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return "Canary(<hidden>)"

    def forms_in(self, views: _Views) -> list[str]:
        """The forms in which this token appears in the prepared ``views``."""
        found: list[str] = []
        if self.token in views.alnum:
            found.append("plain")
        if self.token in views.decoded_alnum and "plain" not in found:
            found.append("percent")
        if self.token[::-1] in views.alnum:
            found.append("reversed")
        if self._hex in views.alnum:
            found.append("hex")
        if any(core in views.compact or core in views.decoded_compact for core in self._base64):
            found.append("base64")
        return found


# Detection data, not policy: which tokens are live right now. Toolsets may be built on several threads
# (the sync Reader's portal, MCP sessions), so the set is only touched under its lock.
_LIVE: weakref.WeakSet[Canary] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


def live_canaries() -> tuple[Canary, ...]:
    """Every canary still referenced in this process (each toolset holds its own)."""
    with _LIVE_LOCK:
        return tuple(_LIVE)


def _base64_cores(raw: bytes) -> tuple[str, ...]:
    """The base64 characters fully determined by ``raw`` at each of the three alignments, both alphabets."""
    cores: list[str] = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start = -(-8 * shift // 6)
        end = (8 * (shift + len(raw))) // 6
        core = encoded[start:end]
        cores.append(core)
        cores.append(core.replace("+", "-").replace("/", "_"))
    return tuple(dict.fromkeys(cores))


@dataclass(frozen=True, slots=True)
class _Views:
    alnum: str
    decoded_alnum: str
    compact: str
    decoded_compact: str


def _views(text: str) -> _Views:
    text = text[:_MAX_SCAN_CHARS]
    folded = unicodedata.normalize("NFKC", text)
    decoded = urllib.parse.unquote(urllib.parse.unquote(folded))
    return _Views(
        alnum=_NOT_ALNUM.sub("", folded.lower()),
        decoded_alnum=_NOT_ALNUM.sub("", decoded.lower()),
        compact=_SPACE.sub("", folded),
        decoded_compact=_SPACE.sub("", decoded),
    )


def find_canaries(text: str, own: Canary | None = None) -> CanaryCheck:
    """Look for every live canary in ``text`` (the first 200,000 characters); see the module docstring."""
    if not text:
        return CanaryCheck(leaked=False)
    views = _views(text)
    forms: list[str] = []
    own_found = False
    for canary in live_canaries():
        found = canary.forms_in(views)
        if found:
            forms.extend(found)
            own_found = own_found or canary is own
    order = ("plain", "percent", "reversed", "hex", "base64")
    unique = tuple(form for form in order if form in forms)
    return CanaryCheck(leaked=bool(unique), forms=unique, own=own_found)
