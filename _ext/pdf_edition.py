"""Put the PDF edition next to the HTML book.

When ``_build/latex/book.pdf`` exists (``make pdf`` writes it), every HTML build copies
it to ``_build/html/continuum-book.pdf``, the target of the link on the book's first
page; tools/build_pdf.py copies it there too when the HTML is already built.
"""
from __future__ import annotations

import shutil
from pathlib import Path

NAME = "continuum-book.pdf"


def _copy(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    pdf = Path(app.outdir).parent / "latex" / "book.pdf"
    if pdf.is_file():
        shutil.copyfile(pdf, Path(app.outdir) / NAME)


def setup(app):
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
