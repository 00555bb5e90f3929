"""Extra guards: the :class:`~pagewarden.ContentGuard` runner, the async twins and the LLM classifier.

``run_extra_guards`` runs configured guards under their deadlines and merges
them stricter-only into the built-in report; ``aguard_html``/``aguard_text``
are the public async twins of the built-in entry points; ``llm_classifier_guard``
is the one shipped extra guard.
"""

from .api import Inspection, aguard_html, aguard_text, inspect_html_source, inspect_text_source
from .classifier import (
    CLASSIFIER_CATEGORY,
    REFERENCE_CLASSIFIER_PROMPT,
    chunk_text,
    llm_classifier_guard,
    parse_classifier_verdict,
)
from .run import collect_extra_reports, implied_decision, merge_reports, run_extra_guards
from .validate import validate_report

__all__ = [
    "CLASSIFIER_CATEGORY",
    "REFERENCE_CLASSIFIER_PROMPT",
    "Inspection",
    "aguard_html",
    "aguard_text",
    "chunk_text",
    "collect_extra_reports",
    "implied_decision",
    "inspect_html_source",
    "inspect_text_source",
    "llm_classifier_guard",
    "merge_reports",
    "parse_classifier_verdict",
    "run_extra_guards",
    "validate_report",
]
