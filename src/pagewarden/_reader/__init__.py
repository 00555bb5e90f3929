"""The reader: :class:`AsyncReader`, the orchestration of reads, searches, crawls and their caches.

Modules:
    reader: :class:`AsyncReader` itself: lifecycle, argument checks, deadlines,
        one thin method per capability.
    read_path: one uncached read (static, escalation to the browser, PDFs) and
        the pools it starts on demand.
    assemble: the Document of a read, from its response, guard report and timings.
    documents: the reader's document cache and its key.
    session: what happens to every document handed out (proxy limitation, read store).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .reader import AsyncReader

if TYPE_CHECKING:
    # A type alias (it names _tools' Writable), so it exists for type checkers only.
    from .reader import AuditLog as AuditLog

__all__ = ["AsyncReader"]
