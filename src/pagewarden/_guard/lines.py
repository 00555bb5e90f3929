"""Rewriting only the lines of a text that hold candidate positions.

Several normalization steps find candidate positions with a cheap scan first
and then run their real rewrite only on the lines around them, so a 50 KiB
segment with two suspicious words is not rewritten as a whole.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["around_lines"]


def around_lines(text: str, positions: list[int], transform: Callable[[str], str]) -> str:
    """Apply ``transform`` only to the lines holding ``positions`` (sorted), keeping the rest as is."""
    pieces: list[str] = []
    done = 0
    for position in positions:
        if position < done:
            continue
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        pieces.append(text[done:start])
        pieces.append(transform(text[start:end]))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
