"""The tool audit log: one JSON line per tool call, never any page content.

A line holds the time (UTC, ISO 8601), the tool, the URL (reduced by
:func:`pagewarden._errors.redact_url`: no credentials, query values or
fragment) or the query (bounded, control characters removed), the outcome,
the guard decision and categories, the error code and reason, counts, and
durations in milliseconds. It never holds page text, titles, snippets,
headers, cookies or keys.

The log is a path (opened in append mode for each line, so no handle stays
open and concurrent writers never interleave partial lines) or a text file
object the caller owns (written and flushed, never closed here).
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from typing import Any, Protocol

from .._errors import InvalidInput, redact_url

__all__ = ["MAX_QUERY_CHARS_LOGGED", "AuditLog", "AuditRecord", "Writable"]

MAX_QUERY_CHARS_LOGGED = 200


class Writable(Protocol):
    """A text stream the audit log can write to."""

    def write(self, text: str, /) -> int:
        """Write ``text``."""
        ...

    def flush(self) -> None:
        """Flush buffered text."""
        ...


def _bounded(text: str, limit: int) -> str:
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


class AuditRecord:
    """The fields of one line, filled in while a tool call runs."""

    def __init__(self, tool: str) -> None:
        self.fields: dict[str, Any] = {"time": datetime.now(UTC).isoformat(), "tool": _bounded(tool, 64)}

    def url(self, url: object) -> None:
        """Record the URL the call concerns, redacted."""
        if isinstance(url, str):
            self.fields["url"] = redact_url(url)

    def query(self, query: object) -> None:
        """Record the search query, bounded."""
        if isinstance(query, str):
            self.fields["query"] = _bounded(query.strip(), MAX_QUERY_CHARS_LOGGED)

    def set(self, **values: Any) -> None:
        """Record other bounded, non-content values (counts, decisions, codes, durations)."""
        self.fields.update(values)


class AuditLog:
    """Writes :class:`AuditRecord` lines to a path or a text stream."""

    def __init__(self, target: str | os.PathLike[str] | Writable) -> None:
        if isinstance(target, str | os.PathLike):
            self._path: str | None = os.fspath(target)
            self._stream: Writable | None = None
        elif callable(getattr(target, "write", None)):
            self._path, self._stream = None, target
        else:
            raise InvalidInput("audit_log must be a path or a writable text file", reason="invalid_audit_log")
        self._lock = threading.Lock()

    def write(self, record: AuditRecord) -> None:
        """Append one JSON line."""
        line = json.dumps(record.fields, ensure_ascii=True, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            if self._path is not None:
                with open(self._path, "a", encoding="utf-8") as handle:
                    handle.write(line)
            elif self._stream is not None:
                self._stream.write(line)
                self._stream.flush()
