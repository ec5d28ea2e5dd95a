"""The PDF edition: tables that fit the page, the HTML's exercise numbers, and the PDF
next to the HTML book.

* **Tables** (LaTeX builder only).  Sphinx typesets a table of up to 30 rows with
  ``tabulary``, which cannot break across pages, so a long table runs off the bottom of
  the page; a longer one becomes a ``longtable`` of unbreakable ``l`` columns, which
  runs off the right edge.  Here every table that sits directly in the text (not in a
  box such as an exercise, an admonition or another table) and takes more than
  ``LONG_LINES`` lines (:func:`table_lines`) becomes a ``longtable``, which breaks
  across pages and repeats its header row, and every table whose content is wider
  than the text gets explicit column widths (:func:`column_widths`, ``p`` columns that
  wrap) so it fits the text width.
* **Exercise numbers.**  sphinx-jupyterbook-latex raises ``numfig_secnum_depth`` to
  2 for a book with parts, so the PDF numbered exercises within sections (1.10.1)
  where the HTML numbers them within chapters (1.1).  The LaTeX build is set back to
  the book's own depth (``_config.yml``), so both editions say "Exercise 1.1".
* **The PDF beside the HTML.**  When ``_build/latex/book.pdf`` exists (``make pdf``
  writes it), every HTML build copies it to ``_build/html/continuum-book.pdf``, the
  target of the link on the book's first page; tools/build_pdf.py copies it there too
  when the HTML is already built.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes

NAME = "continuum-book.pdf"
LINE_CHARS = 88        # characters of table text on one line of the PDF's text width
CELL_PAD = 2           # characters' worth of padding (\tabcolsep) per column
LONG_LINES = 30        # a table of more lines than this may not fit on what is left of a
                       # page: it becomes a longtable (shorter ones keep tabulary, which
                       # LaTeX moves to the next page whole)
# a table may be a longtable only inside these (a list or the text, which can break
# across pages; not a box such as an exercise, an admonition or another table);
# CellOutput is sphinx-jupyterbook-latex's wrapper of a cell's outputs (an adjustwidth)
_CONTAINERS = (nodes.section, nodes.document, nodes.container, nodes.compound)
_CONTAINER_NAMES = {"CellOutput"}


def column_widths(cells: list[list[str]], line: int = LINE_CHARS, pad: int = CELL_PAD):
    """Column widths (in characters) for a table whose text is wider than ``line``.

    ``cells`` is the table as rows of cell texts.  Each column gets at least its
    longest word (which cannot wrap), and the rest of the line is shared out in
    proportion to how much more each column would take unwrapped.  Returns ``None``
    when the table fits unwrapped (its natural widths, plus ``pad`` per column,
    within ``line``): such a table keeps LaTeX's own layout.

    >>> column_widths([["a", "b"], ["1", "2"]]) is None
    True
    >>> w = column_widths([["note " * 40, "1.5"], ["x", "2.25"]], line=60)
    >>> w[1] >= 4 and sum(w) <= 60 - 2 * 2
    True
    """
    ncol = max((len(r) for r in cells), default=0)
    if ncol == 0:
        return None
    natural = [0] * ncol
    longest = [1] * ncol
    for row in cells:
        for j, text in enumerate(row):
            natural[j] = max(natural[j], len(text))
            # + 1: a word in a bold header or in digits is wider than an average character
            longest[j] = max(longest[j], 1 + max((len(w) for w in text.split()), default=0))
    room = line - pad * ncol
    if sum(natural) <= room:
        return None
    widths = [float(w) for w in longest]
    spare = room - sum(widths)
    want = [max(0.0, n - w) for n, w in zip(natural, widths)]
    while spare > 0.5 and sum(want) > 0.5:
        total = sum(want)
        give = [spare * w / total for w in want]
        give = [min(g, w) for g, w in zip(give, want)]
        widths = [w + g for w, g in zip(widths, give)]
        want = [w - g for w, g in zip(want, give)]
        spare -= sum(give)
    return [max(1, round(w)) for w in widths]


def table_lines(cells: list[list[str]], widths=None, line: int = LINE_CHARS) -> int:
    """Lines a table takes when typeset: per row, its tallest cell wrapped at ``widths``
    (characters per column; unwrapped natural widths shared out on ``line`` if None).

    >>> table_lines([["a", "b"], ["1", "2"]])
    2
    >>> table_lines([["x" * 30 + " " + "y" * 30, "1"]], widths=[31, 3])
    2
    """
    ncol = max((len(r) for r in cells), default=0)
    if widths is None:
        widths = [max(1, line // max(ncol, 1))] * ncol
    total = 0
    for row in cells:
        tallest = 1
        for text, w in zip(row, widths):
            lines, used = 1, 0
            for word in text.split():
                if used and used + 1 + len(word) > w:
                    lines, used = lines + 1, len(word)
                else:
                    used += len(word) + (1 if used else 0)
            tallest = max(tallest, lines)
        total += tallest
    return total


def _cells(table: nodes.table) -> list[list[str]]:
    return [[" ".join(entry.astext().split()) for entry in row.findall(nodes.entry)]
            for row in table.findall(nodes.row)]


def _in_text(table: nodes.table) -> bool:
    parent = table.parent
    while parent is not None:
        if not (isinstance(parent, _CONTAINERS) or type(parent).__name__ in _CONTAINER_NAMES):
            return False
        parent = parent.parent
    return True


def _fit_tables(app, doctree, docname):
    if app.builder.format != "latex":
        return
    for table in list(doctree.findall(nodes.table)):
        if any(isinstance(t, nodes.table) for t in table.findall(nodes.table) if t is not table):
            continue                       # nested tables: leave to Sphinx
        cells = _cells(table)
        widths = column_widths(cells)
        natural = [max((len(r[j]) for r in cells if j < len(r)), default=1)
                   for j in range(max((len(r) for r in cells), default=0))]
        long = table_lines(cells, widths or natural) > LONG_LINES
        if long and _in_text(table) and "longtable" not in table["classes"]:
            table["classes"].append("longtable")
        colspecs = list(table.findall(nodes.colspec))
        if widths is None or len(colspecs) != len(widths):
            continue
        for spec, w in zip(colspecs, widths):
            spec["colwidth"] = w + CELL_PAD    # \X takes the padding off each column's share
        if "colwidths-given" not in table["classes"]:
            table["classes"].append("colwidths-given")


def _remember_depth(app, config):
    app._book_secnum_depth = config.numfig_secnum_depth


def _same_numbers_as_html(app):
    """Undo sphinx-jupyterbook-latex's ``numfig_secnum_depth = 2`` for the PDF."""
    if app.builder.format == "latex":
        app.config.numfig_secnum_depth = app._book_secnum_depth


def _copy(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    pdf = Path(app.outdir).parent / "latex" / "book.pdf"
    if pdf.is_file():
        shutil.copyfile(pdf, Path(app.outdir) / NAME)


def setup(app):
    app.connect("config-inited", _remember_depth)
    app.connect("builder-inited", _same_numbers_as_html, priority=900)  # after jblatex (500)
    app.connect("doctree-resolved", _fit_tables)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
