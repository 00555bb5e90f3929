"""A generated manual drawn the way typesetters draw (TeX, DocBook/FOP): what is neither hidden nor broken.

Each feature is drawn as those producers draw it, as its own text object:
dot leaders in a table of contents, a rule of dashes between words (glyphs
that are flat at any font size), a bullet beside its item on the same
baseline (its box sits above the baseline, the item's descenders hang below),
a numbered heading set large ("1. Introduction"), and a word hyphenated
across two lines (which PDFium's text page marks with U+FFFE).
"""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

__all__ = ["CONTENTS", "typeset_pdf"]

# (entry, page): drawn as three text objects, the entry, its dot leader and its page number.
CONTENTS = (("1. Introduction", "2"), ("2. Field work", "3"), ("2.1 Sampling", "3"), ("Index", "9"))
BULLETS = ("Keep jars upright during transport.", "Log every sample, its place and its depth.")


def typeset_pdf() -> bytes:
    """Two pages: a table of contents, then a chapter with a dash rule, bullets and a hyphenated word."""
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=A4)
    c.setTitle("A Field Manual")
    c.setFont("Helvetica-Bold", 20)
    c.drawString(72, 760, "A Field Manual")
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, 720, "Contents")
    y = 696.0
    for entry, page in CONTENTS:
        c.setFont("Helvetica", 10)
        c.drawString(72, y, entry)
        c.drawString(170, y, ". " * 40)
        c.drawString(520, y, page)
        y -= 14
    c.setFont("Helvetica", 10)
    c.drawString(72, y - 20, "The chapters below describe how samples are taken and kept in the field.")
    c.showPage()
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "1. Introduction")
    c.setFont("Helvetica", 10)
    lines = ("This manual covers sampling in rivers and lakes, and the careful manip-",
             "ulation of samples until they reach the laboratory for analysis.")
    y = 730.0
    for line in lines:
        c.drawString(72, y, line)
        y -= 13
    # "Comments begin with -- and end at the line end.", the dashes drawn on their own.
    c.drawString(72, y, "Comments begin with")
    c.drawString(72 + c.stringWidth("Comments begin with ", "Helvetica", 10), y, "--")
    c.drawString(72 + c.stringWidth("Comments begin with -- ", "Helvetica", 10), y, "and end at the line end.")
    y -= 26
    c.drawString(72, y, "Before leaving, check the list below.")
    y -= 20
    for item in BULLETS:
        c.drawString(80, y, "\u2022")
        c.drawString(92, y, item)
        y -= 14
    c.drawString(72, y - 14, "Samples that were not logged are discarded at the end of the day.")
    c.showPage()
    c.save()
    return buffer.getvalue()
