"""The worker's answer, checked: typed, bounded facts about one PDF.

The worker parses hostile input, so its JSON is treated as untrusted too:
every field is type-checked here and anything unexpected is
``DOCUMENT_UNREADABLE`` (``pdf_worker_invalid``), never a crash in the parent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .._errors import DocumentUnreadable
from .hidden import TECHNIQUES

__all__ = ["Line", "PageFacts", "PdfFacts", "parse_facts"]

_ANNOTATION_VIAS = frozenset(
    {"pdf_annotation_contents", "pdf_annotation_author", "pdf_annotation_subject", "pdf_annotation_rich_text",
     "pdf_form_field_value", "pdf_form_field_tooltip", "pdf_form_field_name"}
)


_JOINS = frozenset({0, 1, 2})


class Line(NamedTuple):
    """A visible run of text: its text, effective size, box and baseline (page space, points).

    A named tuple rather than a dataclass: a page has hundreds, built straight from the worker's numbers.
    """

    text: str
    size: float
    x0: float
    x1: float
    y0: float
    y1: float
    base: float | None = None  # where its baseline starts (its box's bottom when unknown)
    join: int = 0  # how the text page joins it to the text before it (0 unknown, 1 a space, 2 nothing)


@dataclass(frozen=True, slots=True)
class PageFacts:
    """One page: visible runs in drawing order, hidden runs, annotation and form texts, link URIs."""

    number: int
    lines: tuple[Line, ...]
    hidden: tuple[tuple[str, str], ...]
    annotations: tuple[tuple[str, str], ...]
    links: tuple[str, ...]
    covers_truncated: bool = False


@dataclass(frozen=True, slots=True)
class PdfFacts:
    """Everything the worker found in one PDF."""

    page_count: int
    encrypted: bool
    pages: tuple[PageFacts, ...]
    metadata: dict[str, str]
    outline: tuple[str, ...]
    attachments: tuple[str, ...]
    javascript: tuple[tuple[str, str], ...]
    actions: tuple[str, ...] = ()  # JavaScript of link, annotation and open actions


class _Invalid(Exception):
    pass


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise _Invalid
    return value


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid
    return float(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Invalid
    return value


def _pair(value: Any, allowed: frozenset[str] | None) -> tuple[str, str]:
    items = _list(value)
    if len(items) != 2:
        raise _Invalid
    first, second = _str(items[0]), _str(items[1])
    if allowed is not None and first not in allowed:
        raise _Invalid
    return first, second


def _lines(texts: Any, numbers: Any) -> tuple[Line, ...]:
    # Seven whole numbers per text: the size in hundredths of a point, x0, x1, y0, y1 and the baseline in tenths,
    # and the join (0, 1 or 2). type() is exact, so a bool is not taken for a number.
    if type(texts) is not list or type(numbers) is not list or len(numbers) != 7 * len(texts):
        raise _Invalid
    # The set of the values' exact types, built in C: every value a str (an int) exactly, as a loop would check.
    if not set(map(type, texts)) <= {str} or not set(map(type, numbers)) <= {int}:
        raise _Invalid
    joins = numbers[6::7]
    if joins and not set(joins) <= _JOINS:
        raise _Invalid
    # Column by column: a list comprehension per field is cheaper than arithmetic per line.
    return tuple(map(Line, texts, [v / 100 for v in numbers[0::7]], [v / 10 for v in numbers[1::7]],
                     [v / 10 for v in numbers[2::7]], [v / 10 for v in numbers[3::7]], [v / 10 for v in numbers[4::7]],
                     [v / 10 for v in numbers[5::7]], joins))


def _page(number: int, value: Any) -> PageFacts:
    if not isinstance(value, dict):
        raise _Invalid
    techniques = frozenset(TECHNIQUES)
    return PageFacts(
        number=number,
        lines=_lines(value["texts"], value["numbers"]),
        hidden=tuple(_pair(item, techniques) for item in _list(value["hidden"])),
        annotations=tuple(_pair(item, _ANNOTATION_VIAS) for item in _list(value["annotations"])),
        links=tuple(_str(item) for item in _list(value["links"])),
        covers_truncated=value.get("covers_truncated") is True,
    )


def parse_facts(raw: dict[str, Any], *, url: str | None = None) -> PdfFacts:
    """Check the worker's ``raw`` facts and type them.

    Raises:
        DocumentUnreadable: ``pdf_worker_invalid`` when anything is off.
    """
    try:
        metadata = raw["metadata"]
        if not isinstance(metadata, dict):
            raise _Invalid
        return PdfFacts(
            page_count=int(_num(raw["page_count"])),
            encrypted=bool(raw["encrypted"]),
            pages=tuple(_page(index + 1, page) for index, page in enumerate(_list(raw["pages"]))),
            metadata={_str(key): _str(value) for key, value in metadata.items()},
            outline=tuple(_str(item) for item in _list(raw["outline"])),
            attachments=tuple(_str(item) for item in _list(raw["attachments"])),
            javascript=tuple(_pair(item, None) for item in _list(raw["javascript"])),
            actions=tuple(_str(item) for item in _list(raw.get("actions", []))),
        )
    except (_Invalid, KeyError, TypeError, ValueError, OverflowError):
        raise DocumentUnreadable("the PDF worker answered invalidly", reason="pdf_worker_invalid", url=url,
                                 stage="pdf") from None
