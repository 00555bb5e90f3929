"""Extraction: from a parsed page (or a text body) to Markdown, text, links and metadata.

``extract_html`` runs one trafilatura extraction over the tree the guard has
already read; ``extract_plain`` handles text and Markdown bodies;
``is_sufficient`` is the readable-content test behind ``CONTENT_INSUFFICIENT``;
``truncate`` applies ``max_characters``.
"""

from .adapter import extract_html
from .dynamic import ESCALATION_MAX_READABLE_CHARS, client_rendered_sign
from .plain import extract_plain, markdown_to_text
from .result import Extraction, is_sufficient, readable_length
from .truncate import truncate

__all__ = [
    "ESCALATION_MAX_READABLE_CHARS",
    "Extraction",
    "client_rendered_sign",
    "extract_html",
    "extract_plain",
    "is_sufficient",
    "markdown_to_text",
    "readable_length",
    "truncate",
]
