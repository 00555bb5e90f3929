"""Limits of one read and of the reader's cache, and the number checks every config uses.

:class:`Limits` bounds sizes and counts (``RESPONSE_TOO_LARGE`` when crossed,
``DOCUMENT_UNREADABLE`` for the PDF worker's caps); :class:`CacheConfig`
bounds the in-memory cache. Both are frozen and checked once, when built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._errors import InvalidInput

__all__ = ["MAX_CACHE_ENTRIES", "MAX_CACHE_TTL", "MAX_TIMEOUT", "CacheConfig", "Limits", "check_int", "check_seconds"]

MAX_TIMEOUT = 300.0
MAX_CACHE_ENTRIES = 10_000
MAX_CACHE_TTL = 86_400.0


def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer (not a bool) in ``low..high``; ``INVALID_INPUT`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer in {low}..{high}", reason=f"invalid_{name}")
    return value


def check_seconds(name: str, value: object, high: float = MAX_TIMEOUT) -> float:
    """``value`` as seconds if it is a finite number in ``(0, high]``; ``INVALID_INPUT`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{name} must be a number of seconds", reason=f"invalid_{name}")
    seconds = float(value)
    if not math.isfinite(seconds) or not 0 < seconds <= high:
        raise InvalidInput(f"{name} must be in (0, {high:g}] seconds", reason=f"invalid_{name}")
    return seconds


@dataclass(frozen=True, slots=True)
class Limits:
    """Size and count limits of one read. Exceeding any is ``RESPONSE_TOO_LARGE``.

    PDFs have limits of their own (``max_pdf_*``: the file on the wire and
    decoded, pages, extracted characters) and are parsed in worker processes
    (at most ``pdf_workers`` at once) capped at ``pdf_memory_bytes`` of address
    space and ``pdf_cpu_seconds`` of CPU time per document; crossing those is
    ``DOCUMENT_UNREADABLE``. See docs/pdf.md.
    """

    max_url_chars: int = 2_048
    max_compressed_bytes: int = 2_000_000
    max_decoded_bytes: int = 5_000_000
    max_header_bytes: int = 65_536
    max_header_count: int = 100
    max_redirects: int = 5
    max_dns_answers: int = 64
    min_readable_chars: int = 80
    max_links: int = 500
    max_pdf_compressed_bytes: int = 20_000_000
    max_pdf_decoded_bytes: int = 40_000_000
    max_pdf_pages: int = 300
    max_pdf_characters: int = 2_000_000
    pdf_memory_bytes: int = 1_073_741_824
    pdf_cpu_seconds: int = 30
    pdf_workers: int = 2

    def __post_init__(self) -> None:
        check_int("max_url_chars", self.max_url_chars, 16, 8_192)
        check_int("max_compressed_bytes", self.max_compressed_bytes, 1_024, 50_000_000)
        check_int("max_decoded_bytes", self.max_decoded_bytes, 1_024, 100_000_000)
        if self.max_decoded_bytes < self.max_compressed_bytes:
            raise InvalidInput(
                "max_decoded_bytes must be at least max_compressed_bytes", reason="invalid_limits"
            )
        check_int("max_header_bytes", self.max_header_bytes, 1_024, 1_048_576)
        check_int("max_header_count", self.max_header_count, 8, 1_000)
        check_int("max_redirects", self.max_redirects, 0, 20)
        check_int("max_dns_answers", self.max_dns_answers, 1, 1_024)
        check_int("min_readable_chars", self.min_readable_chars, 0, 100_000)
        check_int("max_links", self.max_links, 0, 10_000)
        check_int("max_pdf_compressed_bytes", self.max_pdf_compressed_bytes, 1_024, 200_000_000)
        check_int("max_pdf_decoded_bytes", self.max_pdf_decoded_bytes, 1_024, 200_000_000)
        if self.max_pdf_decoded_bytes < self.max_pdf_compressed_bytes:
            raise InvalidInput(
                "max_pdf_decoded_bytes must be at least max_pdf_compressed_bytes", reason="invalid_limits"
            )
        check_int("max_pdf_pages", self.max_pdf_pages, 1, 10_000)
        check_int("max_pdf_characters", self.max_pdf_characters, 1_000, 20_000_000)
        check_int("pdf_memory_bytes", self.pdf_memory_bytes, 268_435_456, 17_179_869_184)
        check_int("pdf_cpu_seconds", self.pdf_cpu_seconds, 1, 600)
        check_int("pdf_workers", self.pdf_workers, 1, 16)


def _check_ttl(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{name} must be a number of seconds", reason=f"invalid_{name}")
    seconds = float(value)
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_CACHE_TTL:
        raise InvalidInput(f"{name} must be in [0, {MAX_CACHE_TTL:g}] seconds", reason=f"invalid_{name}")
    return seconds


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """The reader's in-memory cache of search results and documents.

    Attributes:
        max_entries: the most entries kept per kind (search results,
            documents), least recently used evicted first; 0..10,000. ``0``
            turns the cache off, including the sharing of identical
            concurrent requests.
        search_ttl: seconds a search result stays fresh (0 stores none).
        document_ttl: seconds a document stays fresh (0 stores none).
    """

    max_entries: int = 100
    search_ttl: float = 30.0
    document_ttl: float = 60.0

    def __post_init__(self) -> None:
        check_int("max_entries", self.max_entries, 0, MAX_CACHE_ENTRIES)
        object.__setattr__(self, "search_ttl", _check_ttl("search_ttl", self.search_ttl))
        object.__setattr__(self, "document_ttl", _check_ttl("document_ttl", self.document_ttl))
