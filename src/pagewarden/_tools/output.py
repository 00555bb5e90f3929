"""Shaping tool results: what a model may see of a document, a search and an error.

Only bounded, model-safe fields leave here: the citation URL, a bounded
title, the safe Markdown fenced between nonce markers, times, flags, a
cursor, and compact security facts. Never HTML, scripts, styles, hidden
content, headers, findings' details or guard diagnostics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from .._document import Document
from .._errors import PagewardenError
from .._report import top_findings
from .._safe.fence import fence
from .._search.types import SearchHit
from .._store.store import StoredHit

__all__ = [
    "FENCE_OVERHEAD",
    "MAX_SNIPPET_CHARS",
    "MAX_TITLE_CHARS",
    "bounded",
    "compact_security",
    "next_boundary",
    "page_result",
    "search_result",
    "stored_result",
    "tool_error",
]

MAX_TITLE_CHARS = 200
MAX_SNIPPET_CHARS = 500
MAX_PROVIDER_CHARS = 100
# What fence() adds around a page slice besides the source URL: both nonce
# markers, the notice, the labels, the retrieval time and a title of at most
# MAX_TITLE_CHARS. ``len(text) <= max_characters + FENCE_OVERHEAD + len(url)``.
FENCE_OVERHEAD = 550


def bounded(text: object, limit: int) -> str:
    """``text`` as a single-line string of at most ``limit`` characters (plain truncation)."""
    value = " ".join(str(text or "").split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def tool_error(error: PagewardenError) -> dict[str, Any]:
    """The structured tool error: ``{"error": {"code", "message", "retryable", ...}}``."""
    return {"error": error.to_dict()}


def compact_security(document: Document) -> dict[str, Any]:
    """Trust, taint, decision, warning categories and the strongest findings' one-line summaries.

    A summary names category, severity, location and confidence; never page text.
    """
    security = document.security
    return {
        "trust": security.trust,
        "tainted": security.tainted,
        "decision": str(security.decision),
        "warning_categories": list(security.warning_categories),
        **({"warnings": list(top_findings(security.findings, 3))} if security.warning_categories else {}),
    }


def next_boundary(text: str, start: int, size: int) -> int:
    """Where a page of at most ``size`` characters starting at ``start`` should end.

    Prefers the last paragraph break, then line break, then space in the
    second half of the window, so pages rarely split a word or a Markdown
    block; falls back to a hard cut.
    """
    end = start + size
    if end >= len(text):
        return len(text)
    window = text[start:end]
    for separator in ("\n\n", "\n", " "):
        cut = window.rfind(separator)
        if cut >= size // 2:
            return start + cut + len(separator)
    return end


def page_result(document: Document, start: int, end: int, cursor: str | None) -> dict[str, Any]:
    """The ``fetch_content`` / ``fetch_more`` result for ``document.markdown[start:end]``."""
    title = bounded(document.title, MAX_TITLE_CHARS) if document.title else None
    # fence() reads the title and Markdown from the document: hand it the
    # page slice and the bounded title, keep everything else as read.
    piece = dataclasses.replace(document, markdown=document.markdown[start:end], title=title)
    total = len(document.markdown)
    return {
        "url": document.final_url,
        "title": title,
        "text": fence(piece),
        "retrieved_at": document.retrieved_at.isoformat(),
        "truncated": end < total or document.truncated,
        "cursor": cursor,
        "characters": {"start": start, "end": end, "total": total},
        "security": compact_security(document),
    }


def search_result(hits: Iterable[SearchHit], *, withheld: int, provider: str | None) -> dict[str, Any]:
    """The ``web_search`` result: bounded hits, the withheld count and untrusted-data markers."""
    shaped = [
        {
            "rank": hit.rank,
            "title": bounded(hit.title, MAX_TITLE_CHARS),
            "url": hit.url,
            "snippet": bounded(hit.snippet, MAX_SNIPPET_CHARS),
        }
        for hit in hits
    ]
    return {
        "provider": bounded(provider, MAX_PROVIDER_CHARS) if provider else None,
        "hits": shaped,
        "withheld": int(withheld),
        "security": {"trust": "untrusted", "tainted": True},
    }


def stored_result(hits: Iterable[StoredHit]) -> dict[str, Any]:
    """The ``search_read_pages`` result: bounded pages from the read store, marked untrusted."""
    shaped = [
        {
            "rank": rank,
            "title": bounded(hit.title, MAX_TITLE_CHARS),
            "url": hit.url,
            "excerpt": bounded(hit.excerpt, MAX_SNIPPET_CHARS),
            "retrieved_at": hit.retrieved_at,
        }
        for rank, hit in enumerate(hits, 1)
    ]
    return {"hits": shaped, "security": {"trust": "untrusted", "tainted": True}}
