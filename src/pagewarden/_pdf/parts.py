"""Inside the worker: the low-trust parts of a PDF that are not page text.

Per page: annotation texts (contents, author, subject, rich text), form field
values, names and tooltips, and link URIs. Per document: the document
information, outline titles, attachment names and document-level JavaScript.
Every string counts against the job's character budget.
"""

from __future__ import annotations

import ctypes
from typing import Any

import pypdfium2.raw as raw

from .native import MAX_STRING_BYTES, address, metadata_values, wide_string
from .page import Budget

__all__ = ["MAX_ANNOTATIONS_PER_PAGE", "MAX_LIST_ITEMS", "document_parts", "page_annotations"]

MAX_ANNOTATIONS_PER_PAGE = 500
MAX_LIST_ITEMS = 1_000
MAX_OUTLINE_DEPTH = 16
_METADATA_KEYS = ("Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate")
_ANNOTATION_KEYS = (("Contents", "pdf_annotation_contents"), ("T", "pdf_annotation_author"),
                    ("Subj", "pdf_annotation_subject"), ("RC", "pdf_annotation_rich_text"))
_FIELD_KEYS = (("V", "pdf_form_field_value"), ("TU", "pdf_form_field_tooltip"), ("T", "pdf_form_field_name"))
_WIDGET = raw.FPDF_ANNOT_WIDGET
_LINK = raw.FPDF_ANNOT_LINK
_POPUP = raw.FPDF_ANNOT_POPUP


def page_annotations(doc: Any, page: Any, budget: Budget) -> tuple[list[list[str]], list[str]]:
    """The page's annotation and form texts as ``[via, text]``, and its link URIs."""
    pieces: list[list[str]] = []
    links: list[str] = []
    count = min(raw.FPDFPage_GetAnnotCount(page), MAX_ANNOTATIONS_PER_PAGE)
    for index in range(count):
        annot = raw.FPDFPage_GetAnnot(page, index)
        if not annot:
            continue
        try:
            subtype = raw.FPDFAnnot_GetSubtype(annot)
            keys = _FIELD_KEYS if subtype == _WIDGET else _ANNOTATION_KEYS
            for key, via in keys:
                value = wide_string(raw.FPDFAnnot_GetStringValue, annot, key.encode("ascii"))
                if value.strip() and subtype != _POPUP:
                    pieces.append([via, budget.take(value)])
            if subtype == _LINK:
                uri = _link_uri(doc, raw.FPDFAnnot_GetLink(annot))
                if uri:
                    links.append(budget.take(uri))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return pieces, links


def _link_uri(doc: Any, link: Any) -> str:
    if not link:
        return ""
    action = raw.FPDFLink_GetAction(link)
    if not action or raw.FPDFAction_GetType(action) != raw.PDFACTION_URI:
        return ""
    needed = raw.FPDFAction_GetURIPath(doc, action, None, 0)
    if needed <= 1 or needed > MAX_STRING_BYTES:
        return ""
    buffer = ctypes.create_string_buffer(needed)
    raw.FPDFAction_GetURIPath(doc, action, buffer, needed)
    return buffer.raw[: needed - 1].decode("latin-1")


def document_parts(doc: Any, budget: Budget) -> dict[str, Any]:
    """Document information, outline titles, attachment names and document JavaScript (``[name, script]``)."""
    metadata = {}
    for key, value in zip(_METADATA_KEYS, metadata_values(address(doc), _METADATA_KEYS), strict=True):
        if value.strip():
            metadata[key] = budget.take(value)
    outline: list[str] = []
    for mark in doc.get_toc(max_depth=MAX_OUTLINE_DEPTH):
        if len(outline) >= MAX_LIST_ITEMS:
            break
        title = mark.get_title()
        if title and title.strip():
            outline.append(budget.take(title))
    attachments: list[str] = []
    for index in range(min(raw.FPDFDoc_GetAttachmentCount(doc), MAX_LIST_ITEMS)):
        attachment = raw.FPDFDoc_GetAttachment(doc, index)
        if attachment:
            name = wide_string(raw.FPDFAttachment_GetName, attachment)
            if name.strip():
                attachments.append(budget.take(name))
    scripts: list[list[str]] = []
    for index in range(min(raw.FPDFDoc_GetJavaScriptActionCount(doc), MAX_LIST_ITEMS)):
        action = raw.FPDFDoc_GetJavaScriptAction(doc, index)
        if not action:
            continue
        try:
            name = wide_string(raw.FPDFJavaScriptAction_GetName, action)
            script = wide_string(raw.FPDFJavaScriptAction_GetScript, action)
            scripts.append([budget.take(name), budget.take(script)])
        finally:
            raw.FPDFDoc_CloseJavaScriptAction(action)
    return {"metadata": metadata, "outline": outline, "attachments": attachments, "javascript": scripts}
