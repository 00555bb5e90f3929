"""Protocols for the pluggable parts of pagewarden, and the values they exchange.

Each pluggable part is a structural type: any object with the right methods
works, no base class needed. Fakes for tests live in :mod:`pagewarden.testing`.

* :class:`Resolver` turns host names into addresses for the transport.
* :class:`ContentGuard` is an extra guard (organization rules, an LLM
  classifier...) that runs after the built-in guard on the same segments. It
  receives a :class:`GuardRequest` and answers with a
  :class:`pagewarden.GuardReport`. Extra guards can only make a decision
  stricter; a guard that raises, overruns its deadline or answers with
  anything invalid fails the read with ``GUARD_FAILED``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ._report import GuardReport, Location

__all__ = ["ContentGuard", "GuardRequest", "GuardSegment", "IPAddress", "Resolver"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@runtime_checkable
class Resolver(Protocol):
    """Turns a host name into IP addresses.

    pagewarden calls it once per hop and connects only to addresses it returned
    and that passed the address policy; nothing re-resolves afterwards. Answers
    may be :mod:`ipaddress` objects or their text form; anything else is refused
    as an invalid answer.
    """

    async def resolve(self, host: str) -> Sequence[IPAddress | str]:
        """Return every address ``host`` resolves to (raise ``OSError`` when it does not resolve)."""
        ...


@dataclass(frozen=True, slots=True)
class GuardSegment:
    """One located run of page text, as the built-in guard segmented it.

    Attributes:
        location: where the text came from (``visible``, ``hidden``,
            ``comment``, ``metadata``, ``template``, ``attribute``).
        text: the text (untrusted page content: treat it as data).
        vias: how hidden content was hidden, or which element/attribute kind
            the text came from (``display_none``, ``alt``, ``meta``...).
        segment_hash: first 16 hex digits of SHA-256 over ``text``; a
            :class:`pagewarden.Finding` about this segment should carry it.
    """

    location: Location
    text: str
    vias: tuple[str, ...] = ()
    segment_hash: str = ""


@dataclass(frozen=True, slots=True)
class GuardRequest:
    """What an extra guard is asked to judge: one document, already segmented.

    Attributes:
        segments: every inspected segment, visible text first.
        url: the document's (final) URL, when known.
        content_type: the media type, when known.
        requested_use: what the caller will do with the content
            (``answer_with_citation``, ``search_more``...); tool-chaining uses
            deserve stricter answers.
        profile: the guard profile, ``balanced`` or ``strict``.
        truncated: the built-in segmentation hit a budget, so ``segments``
            does not hold the whole document.
    """

    segments: tuple[GuardSegment, ...]
    url: str | None = None
    content_type: str | None = None
    requested_use: str = "answer_with_citation"
    profile: str = "balanced"
    truncated: bool = False


@runtime_checkable
class ContentGuard(Protocol):
    """An extra guard run after the built-in one, on the same segments.

    ``name`` (1..64 characters of ``A-Z a-z 0-9 _ . -``, unique among the
    configured guards) identifies it in reasons and errors.

    Its answer is a :class:`pagewarden.GuardReport`. pagewarden merges it with
    the built-in report and can only make the decision stricter: the merged
    decision is the strictest of the built-in decision, the guard's own
    decision, and the decision its findings imply under the built-in mapping.
    Each call runs under the guard's deadline (``guard_timeout``, 5 s by
    default) and the read's deadline. Raising, timing out, or answering with
    anything else than a well-formed, bounded report (at most 256 findings,
    32 reasons and 32 limitations of at most 1,000 characters each, short
    snake_case categories) fails the read with ``GUARD_FAILED``: never a
    silent allow.

    The guard must not block the event loop (run blocking work with
    ``anyio.to_thread.run_sync``): a deadline cannot interrupt code that
    never yields.
    """

    name: str

    async def inspect(self, request: GuardRequest) -> GuardReport:
        """Judge ``request`` and return a report (``decision`` ``allow`` when nothing was found)."""
        ...
