"""The extraction result and the readable-content measure.

:class:`Extraction` is what the reader turns into a :class:`~pagewarden.Document`;
``readable_chars`` is the one number the reader (and later the auto controller)
uses to decide that a page has too little content and must escalate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._document import Metadata
from .._errors import ContentInsufficient

__all__ = [
    "MAX_FIELD_CHARS",
    "Extraction",
    "clean_field",
    "extraction_failed",
    "is_sufficient",
    "readable_length",
    "strip_controls",
]

MAX_FIELD_CHARS = 500
# C0 and C1 controls except tab and newline: they can forge terminal escapes or
# log lines when the Markdown is printed, and carry no readable content.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CRLF = re.compile("\r\n?")


@dataclass(frozen=True, slots=True)
class Extraction:
    """The readable content of one page.

    Attributes:
        title: the page title, if any (bounded, single line).
        markdown: the content as Markdown; links point only to allowed destinations.
        text: the same content as plain text, without Markdown syntax.
        metadata: author, date, site name, language, description (bounded).
        links: absolute, policy-filtered, deduplicated links found in the content.
        readable_chars: length of ``text`` with whitespace runs collapsed.
    """

    title: str | None
    markdown: str
    text: str
    metadata: Metadata
    links: tuple[str, ...]
    readable_chars: int


def strip_controls(text: str) -> str:
    """Normalise line ends to ``\\n`` and drop control characters other than tab and newline."""
    return _CONTROLS.sub("", _CRLF.sub("\n", text))


def clean_field(value: object, limit: int = MAX_FIELD_CHARS) -> str | None:
    """A metadata value as one bounded line, or ``None`` when empty or not a string."""
    if not isinstance(value, str):
        return None
    # Every control (newlines included) becomes a space: a field is one line.
    single = " ".join(_CONTROLS.sub(" ", value).split())
    if not single:
        return None
    return single if len(single) <= limit else single[: limit - 1].rstrip() + "…"


def readable_length(text: str) -> int:
    """Characters of ``text`` once every whitespace run counts as one space."""
    return len(" ".join(text.split()))


def is_sufficient(extraction: Extraction, *, min_chars: int) -> bool:
    """Whether the page has at least ``min_chars`` readable characters."""
    return extraction.readable_chars >= min_chars


def extraction_failed(final_url: str) -> ContentInsufficient:
    """The one error every third-party extraction failure becomes."""
    return ContentInsufficient(
        "the page content could not be extracted", reason="extraction_failed", url=final_url, stage="extract"
    )
