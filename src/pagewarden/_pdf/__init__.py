"""PDF reading: parse in a worker process, find hidden text, guard, render citable Markdown.

The flow of one PDF (see docs/pdf.md):

    bytes -> worker process (pypdfium2 under memory/CPU limits: :mod:`.worker`,
    :mod:`.extract`; per page :mod:`.page` with :mod:`.textmap`, :mod:`.hidden`
    and :mod:`.layers`; :mod:`.parts` and :mod:`.scripts` for the low-trust
    parts; :mod:`.native` for PDFium calls) -> checked facts (:mod:`.facts`)
    -> blocks (:mod:`.layout`) -> guard segments (:mod:`.segments`) -> guard
    -> Markdown

:func:`read_pdf` is what the reader calls; :class:`PdfWorkers` is the pool of
worker processes a reader owns.
"""

from .pool import PdfJob, PdfWorkers
from .read import PDF_TYPES, PdfRead, read_pdf

__all__ = ["PDF_TYPES", "PdfJob", "PdfRead", "PdfWorkers", "read_pdf"]
