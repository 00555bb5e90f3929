"""Cutting Markdown and text to ``max_characters`` at a readable boundary."""

from __future__ import annotations

import re

__all__ = ["truncate", "truncate_one"]

# A boundary is only accepted in the last part of the window, so a single
# early paragraph break does not throw away most of the allowed characters.
_MIN_KEEP_SHARE = 0.5
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)\]]*(?=\s)")


def truncate_one(value: str, max_characters: int) -> tuple[str, bool]:
    """Cut ``value`` to at most ``max_characters``; return it and whether it was cut.

    The cut falls, in order of preference, after a paragraph, after a sentence,
    between words, and only for a single overlong word in the middle of it.
    Trailing whitespace is dropped, so the result never ends mid-word unless
    the window holds no whitespace at all.
    """
    if len(value) <= max_characters:
        return value, False
    if max_characters <= 0:
        return "", True
    window = value[:max_characters]
    floor = int(max_characters * _MIN_KEEP_SHARE)
    paragraph = window.rfind("\n\n")
    if paragraph >= floor:
        return window[:paragraph].rstrip(), True
    # One character of look-ahead lets a sentence ending exactly at the limit count.
    sentence_ends = [
        match.end()
        for match in _SENTENCE_END.finditer(value, floor, max_characters + 1)
        if match.end() <= max_characters
    ]
    if sentence_ends:
        return window[: sentence_ends[-1]].rstrip(), True
    if value[max_characters].isspace():
        return window.rstrip(), True
    space = max((window.rfind(ch) for ch in (" ", "\n", "\t")), default=-1)
    if space > 0:
        return window[:space].rstrip(), True
    return window, True


def truncate(markdown: str, text: str, max_characters: int) -> tuple[str, str, bool]:
    """Cut both renderings to ``max_characters``; the flag says whether either was cut."""
    cut_markdown, markdown_cut = truncate_one(markdown, max_characters)
    cut_text, text_cut = truncate_one(text, max_characters)
    return cut_markdown, cut_text, markdown_cut or text_cut
