"""The reader: :class:`AsyncReader`, the orchestration of reads, searches and their caches.

Modules:
    reader: :class:`AsyncReader` itself (lifecycle, ``read``, ``search``,
        ``search_and_read``, ``toolset``).
    documents: the reader's document cache and its key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .reader import AsyncReader

if TYPE_CHECKING:
    from .reader import AuditLog

__all__ = ["AsyncReader", "AuditLog"]
