"""Safe output: Markdown without live syntax, redaction, and the data fence for models.

``safe_markdown`` renders untrusted Markdown so that no image, raw HTML,
comment or link reaches a reader except as text (links are listed once, after
the URL policy); ``rule_block_filter`` and ``redact_lines`` implement the
block-granular redaction of ``on_guard="redact"``; ``fence`` wraps a document
between nonce-carrying data markers for a model.
"""

from .fence import MARKER_STEM, fence
from .markdown import LINKS_HEADING, SafeMarkdown, safe_markdown, safe_units
from .redact import redact_lines, rule_block_filter
from .render import Unit, withheld_marker

__all__ = [
    "LINKS_HEADING",
    "MARKER_STEM",
    "SafeMarkdown",
    "Unit",
    "fence",
    "redact_lines",
    "rule_block_filter",
    "safe_markdown",
    "safe_units",
    "withheld_marker",
]
