"""Inside the worker: read one PDF with pypdfium2 into plain, JSON-ready facts.

This module and the ones it uses run only in the worker process
(:mod:`.worker`); the parent never loads PDFium. Per page, :mod:`.page` judges
every text object with the rules of :mod:`.hidden` and returns the visible
lines and the hidden runs; :mod:`.parts` reads the document's low-trust parts
(metadata, outline titles, annotations, form fields, link URIs, attachment
names, document JavaScript); :mod:`.scripts` finds the JavaScript of actions
PDFium does not expose (links, annotations' additional actions, open actions).

Everything it returns is bounded by the job's limits; crossing one raises
:class:`LimitExceeded`, which the worker reports by name.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from .native import Box
from .page import Budget, LimitExceeded, read_page_text
from .parts import document_parts, page_annotations
from .scripts import action_scripts

__all__ = ["ExtractLimits", "LimitExceeded", "PdfOpenError", "extract_pdf"]


class PdfOpenError(Exception):
    """PDFium refused the file; ``args[0]`` is ``encrypted`` or ``malformed``."""


@dataclass(frozen=True, slots=True)
class ExtractLimits:
    """What one job may produce."""

    max_pages: int
    max_characters: int


def _visible_box(page: Any) -> Box:
    media = page.get_mediabox()
    crop = page.get_cropbox()
    return (max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]), min(media[3], crop[3]))


def _direction(doc: Any) -> bytes:
    """The viewer preferences' reading direction (``L2R``, ``R2L``), which PDFium's text page follows."""
    buffer = ctypes.create_string_buffer(16)
    written = raw.FPDF_VIEWERREF_GetName(doc, b"Direction", buffer, len(buffer))
    return buffer.raw[: max(written - 1, 0)] if 0 < written <= len(buffer) else b""


def _open(data: bytes) -> Any:
    try:
        # No password: PDFium then tries the empty user password itself.
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (raw.FPDF_ERR_PASSWORD, raw.FPDF_ERR_SECURITY):
            raise PdfOpenError("encrypted") from None
        raise PdfOpenError("malformed") from None


def extract_pdf(data: bytes, limits: ExtractLimits) -> dict[str, Any]:
    """Read ``data`` into facts: ``pages`` (``texts`` and ``numbers``, the visible lines; ``hidden``,
    ``annotations``, ``links``) and the document parts.

    Raises:
        PdfOpenError: PDFium refused the file (``encrypted`` or ``malformed``).
        LimitExceeded: pages, characters or objects over the limits.
    """
    doc = _open(data)
    try:
        count = len(doc)
        if count > limits.max_pages:
            raise LimitExceeded("pages")
        budget = Budget(limits.max_characters)
        encrypted = raw.FPDF_GetSecurityHandlerRevision(doc) != -1
        right_to_left = _direction(doc) == b"R2L"
        pages: list[dict[str, Any]] = []
        for number in range(count):
            page = doc[number]
            try:
                textpage = page.get_textpage()
                try:
                    facts = read_page_text(page, textpage, _visible_box(page), budget, right_to_left=right_to_left)
                finally:
                    textpage.close()
                annotations, links = page_annotations(doc, page, budget)
            finally:
                page.close()
            pages.append({"texts": facts.texts, "numbers": facts.numbers, "hidden": facts.hidden,
                          "annotations": annotations, "links": links, "covers_truncated": facts.truncated_covers})
        parts = document_parts(doc, budget)
    finally:
        doc.close()
    # Action scripts PDFium does not expose (links, annotations' /AA, /OpenAction); not in an encrypted file.
    known = {script for _name, script in parts["javascript"]}
    actions = [] if encrypted else [budget.take(script) for script in action_scripts(data) if script not in known]
    return {"page_count": count, "encrypted": encrypted, "pages": pages, "actions": actions, **parts}
