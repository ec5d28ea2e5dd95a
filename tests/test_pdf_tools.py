"""Tests of the PDF edition's tools without TeX: tools/check_pdf.py on canned poppler
output, and the LaTeX math fix of _ext/latex_math.py.

The real PDF is built and checked by ``make pdf`` (CI runs it after ``make test``).
"""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


check_pdf = _load("check_pdf", "tools/check_pdf.py")
latex_math = _load("latex_math", "_ext/latex_math.py")


# ---------------------------------------------------------------- what the book contains
def test_toc_files_lists_every_page_of_the_toc_root_first():
    files = check_pdf.toc_files()
    assert files[0].name == "intro.md"
    assert len(files) == len(set(files))
    toc = (ROOT / "_toc.yml").read_text()
    assert len(files) == 1 + toc.count("- file:")
    assert all(p.exists() for p in files)


def test_every_toc_page_has_a_title_and_every_figure_it_shows_exists():
    for p in check_pdf.toc_files():
        assert check_pdf.title_of(p)
        for fig in check_pdf.figures_of(p):
            assert (ROOT / "figures" / fig).exists(), (p, fig)


def test_figures_of_finds_figure_directives_and_markdown_images(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# T\n```{figure} ../figures/a-b.png\n:name: x\n```\n![alt](../figures/c.png)\n"
                    "`not a figure.png`\n")
    assert check_pdf.figures_of(page) == ["a-b.png", "c.png"]


# ---------------------------------------------------------------- the checks, on canned output
@pytest.fixture
def fake_pdf(tmp_path, monkeypatch):
    """A PDF stand-in: book.tex/book.log beside it, poppler's answers canned."""
    pages = check_pdf.toc_files()
    titles = "\n".join(check_pdf.title_of(p) for p in pages)
    figs = sorted({f for p in pages for f in check_pdf.figures_of(p)})
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.5\n")
    tex = "\n".join(rf"\sphinxincludegraphics[width=0.9\linewidth]{{{{{Path(f).stem}}}.png}}"
                    for f in figs)
    n_tables = sum(check_pdf.tables_of(p) for p in pages)
    tex += "\n" + "\\begin{tabulary}{\\linewidth}{|T|T|}\\end{tabulary}\n" * n_tables
    (tmp_path / "book.tex").write_text(tex)
    (tmp_path / "book.log").write_text("Output written on book.pdf\n")
    answers = {
        "pdftotext": titles + "\nsee Fig. 3.1 and (2.4)\n",
        "pdfinfo": "Title: book\nPages:          200\n",
        "pdfimages": "page num type width height\n------\n"
                     + "".join(f"1 {i} image 10 10\n1 {i} smask 10 10\n" for i in range(len(figs))),
        "bbox": bbox_page(prose_lines(6) + ledger_words(check_pdf.ledger_rows())),
    }
    monkeypatch.setattr(check_pdf, "_run", lambda cmd: answers[
        "bbox" if "-bbox-layout" in cmd else cmd[0]])
    return pdf, answers, len(figs)


def _word(x0, y, text, width=30.0):
    return f'<word xMin="{x0}" yMin="{y}" xMax="{x0 + width}" yMax="{y + 9}">{text}</word>'


def prose_lines(n, left=72.0, right=540.0):
    """Justified prose: n lines from the left to the right edge of the text block."""
    return [f'<line xMin="{left}" yMin="{100 + 12 * i}" xMax="{right}" yMax="{109 + 12 * i}">'
            + _word(left, 100 + 12 * i, "text") + _word(right - 30, 100 + 12 * i, "text") + "</line>"
            for i in range(n)]


def ledger_words(rows, y0=200.0):
    """One line per ledger row: the key on the left, its status as the last word."""
    out = []
    for i, (key, status) in enumerate(rows):
        y = y0 + 12 * i
        words = [_word(80, y, key, 100), _word(200, y, "note")]
        words += [_word(440 + 45 * j, y, w, 40) for j, w in enumerate(status.split())]
        out.append("".join(words))
    return out


def bbox_page(items):
    return '<doc><page width="612" height="9000">' + "".join(items) + "</page></doc>"


def test_a_complete_pdf_passes(fake_pdf):
    pdf, _, _ = fake_pdf
    assert check_pdf.check(pdf) == []


def test_an_unresolved_reference_fails(fake_pdf):
    pdf, answers, _ = fake_pdf
    answers["pdftotext"] += "as shown in Fig. ?? above\n"
    (fail,) = check_pdf.check(pdf)
    assert "unresolved reference" in fail and "Fig. ??" in fail


def test_too_few_pages_fails_with_the_bound(fake_pdf):
    pdf, answers, _ = fake_pdf
    answers["pdfinfo"] = "Pages:          3\n"
    (fail,) = check_pdf.check(pdf)
    assert fail.startswith("3 pages, fewer than the lower bound")


def test_a_missing_image_and_a_missing_chapter_fail(fake_pdf):
    pdf, answers, n_figs = fake_pdf
    lines = answers["pdfimages"].splitlines(keepends=True)
    answers["pdfimages"] = "".join(lines[:-2])          # drop the last image (and its mask)
    first_title = check_pdf.title_of(check_pdf.toc_files()[1])
    answers["pdftotext"] = answers["pdftotext"].replace(first_title, "")
    fails = check_pdf.check(pdf)
    assert any(f"embeds {n_figs - 1} images, fewer than the {n_figs}" in f for f in fails)
    assert any("is not in the PDF" in f and first_title in f for f in fails)


def test_a_figure_missing_from_the_latex_and_a_missing_glyph_fail(fake_pdf):
    pdf, _, _ = fake_pdf
    tex = pdf.with_suffix(".tex")
    first = tex.read_text().splitlines()[0]
    tex.write_text("\n".join(tex.read_text().splitlines()[1:]))
    pdf.with_suffix(".log").write_text(
        "Missing character: There is no ① (U+2460) in font [FreeSansBold.otf]/OT:script=latn;\n")
    fails = check_pdf.check(pdf)
    stem = first.split("{{")[1].split("}")[0]
    assert any(f"figure {stem}.png is not included" in f for f in fails)
    assert any(f.startswith("glyphs missing from the fonts: ①") for f in fails)


def test_a_table_missing_from_the_latex_fails(fake_pdf):
    pdf, _, _ = fake_pdf
    tex = pdf.with_suffix(".tex")
    tex.write_text(tex.read_text().replace("\\begin{tabulary}", "", 1))
    (fail,) = check_pdf.check(pdf)
    assert "tables, fewer than the" in fail


def test_tables_of_counts_prose_tables_and_shown_markdown_outputs_only(tmp_path):
    import json

    table = "| a | b |\n|---|---:|\n| 1 | 2 |\n"
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["# T\n", table], "metadata": {}},
        {"cell_type": "code", "source": [], "metadata": {},
         "outputs": [{"output_type": "display_data", "data": {"text/markdown": [table]}}]},
        {"cell_type": "code", "source": [], "metadata": {"tags": ["remove-output"]},
         "outputs": [{"output_type": "display_data", "data": {"text/markdown": [table]}}]},
    ]}
    path = tmp_path / "c.ipynb"
    path.write_text(json.dumps(nb))
    assert check_pdf.tables_of(path) == 2


def test_a_lost_ledger_row_and_a_wrong_status_fail(fake_pdf):
    pdf, answers, _ = fake_pdf
    rows = check_pdf.ledger_rows()
    (lost, _), (changed, status) = rows[3], rows[5]
    other = "approximate" if status != "approximate" else "reproduced"
    kept = [(k, other if k == changed else s) for k, s in rows if k != lost]
    answers["bbox"] = bbox_page(prose_lines(6) + ledger_words(kept))
    fails = check_pdf.check(pdf)
    assert f"ledger rows missing from the PDF (1 of {len(rows)}): {lost}" in fails
    assert f"ledger row {changed}: status {other}, not {status}" in fails


def test_a_status_column_cut_off_fails(fake_pdf):
    pdf, answers, _ = fake_pdf
    rows = check_pdf.ledger_rows()
    answers["bbox"] = bbox_page(prose_lines(6) + [w.split('<word xMin="440')[0] for w in ledger_words(rows)])
    fails = check_pdf.check(pdf)
    assert sum(f.startswith("ledger row ") and "status note" in f for f in fails) == len(rows)


def test_words_outside_the_text_block_fail(fake_pdf):
    pdf, answers, _ = fake_pdf
    answers["bbox"] = answers["bbox"].replace("</page>", _word(560, 305, "sp") + _word(600, 327, "off") + "</page>")
    (fail,) = check_pdf.check(pdf)
    assert fail == "page 1: 2 words outside the text block: sp off"


def test_tables_wider_than_the_text_and_pages_taller_than_the_page_fail(fake_pdf):
    pdf, _, _ = fake_pdf
    pdf.with_suffix(".log").write_text(
        "Overfull \\hbox (1956.2pt too wide) in alignment at lines 22434--22456\n"
        "Overfull \\hbox (0.5pt too wide) in alignment at lines 1--2\n"
        "Overfull \\vbox (945.07pt too high) has occurred while \\output is active []\n"
        "Overfull \\vbox (0.9pt too high) detected at line 3921\n")
    fails = check_pdf.check(pdf)
    assert fails == ["a table is 1956.2 pt wider than the text (book.tex lines 22434--22456)",
                     "a page is 945.1 pt taller than the page: a table or box that cannot "
                     "break runs off the bottom"]


def test_html_only_wording_and_section_numbered_exercises_fail(fake_pdf):
    pdf, answers, _ = fake_pdf
    answers["pdftotext"] += "Code cells are folded; click to show them.\nExercise 1.10.1\n"
    fails = check_pdf.check(pdf)
    assert "HTML-only wording printed: 'click to show'" in fails
    assert any(f.startswith("exercises numbered within sections") and "1.10.1" in f for f in fails)


def test_text_block_is_the_most_common_line_ends():
    html = bbox_page(prose_lines(5) + prose_lines(2, left=97.0, right=300.0))
    assert check_pdf.text_block(html) == (72.0, 540.0)


# ---------------------------------------------------------------- LaTeX tables (_ext/pdf_edition.py)
pdf_edition = _load("pdf_edition", "_ext/pdf_edition.py")


def test_column_widths_fit_the_line_and_keep_every_word_whole():
    note = "a long note that has to wrap over several lines of its column " * 4
    cells = [["quantity and note", "seed", "book", "status"],
             ["integration_steps_per_period_N20 " + note, "2256", "2255.8", "not reproducible"]]
    widths = pdf_edition.column_widths(cells, line=88, pad=2)
    assert sum(widths) <= 88 - 2 * 4
    longest = [max(len(w) for row in cells for w in row[j].split()) for j in range(4)]
    assert all(w > n for w, n in zip(widths, longest))        # the longest word, plus one
    assert widths[0] == max(widths)                             # the note takes the room


def test_a_table_that_fits_keeps_latexs_layout_and_long_tables_are_counted_in_lines():
    assert pdf_edition.column_widths([["N", "omega"], ["20", "3.52"]]) is None
    rows = [["key", "x " * 60]] * 10
    assert pdf_edition.table_lines(rows, widths=[10, 30]) == 40    # 120 chars at 30: 4 lines
    assert pdf_edition.table_lines(rows[:2], widths=[10, 30]) <= pdf_edition.LONG_LINES


def test_a_missing_pdf_is_reported(tmp_path):
    assert check_pdf.check(tmp_path / "book.pdf") == [f"{tmp_path / 'book.pdf'} does not exist: run make pdf"]


# ---------------------------------------------------------------- MathJax-style scripts for LaTeX
@pytest.mark.parametrize("mathjax, latex", [
    (r"\omega_\max", r"\omega_{\max}"),
    (r"f_\text{int}(q) = f_\text{ext}", r"f_{\text{int}}(q) = f_{\text{ext}}"),
    (r"T^\mathsf T", r"T^{\mathsf T}"),
    (r"x^\frac{1}{2}", r"x^{\frac{1}{2}}"),
    (r"a_{\max} + b_i^2", r"a_{\max} + b_i^2"),                     # already TeX: unchanged
    (r"\mathbf{q}_\mathrm{ref}", r"\mathbf{q}_{\mathrm{ref}}"),
])
def test_brace_scripts_gives_tex_what_mathjax_renders(mathjax, latex):
    assert latex_math.brace_scripts(mathjax) == latex
    assert latex_math.brace_scripts(latex) == latex               # idempotent


# ---------------------------------------------------------------- licence, version, citation
def test_citation_cff_is_cff_1_2_0_with_the_books_version_and_both_licences():
    import tomllib

    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cff["cff-version"] == "1.2.0"
    for field in ("message", "title", "authors", "version", "date-released", "license"):
        assert cff.get(field), field                      # the keys CFF 1.2.0 requires, and more
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert str(cff["version"]) == version
    assert set(cff["license"]) == {"MIT", "CC-BY-4.0"}
    licence = (ROOT / "LICENSE").read_text()
    assert "MIT License" in licence and "Creative Commons Attribution 4.0" in licence


def test_the_version_extension_reads_pyproject_and_writes_the_footer(tmp_path):
    book_version = _load("book_version", "_ext/book_version.py")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2.3.4"\n')
    assert book_version.book_version(tmp_path) == "2.3.4"
    assert "Version 2.3.4" in book_version.footer_html("2.3.4")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ValueError, match="version"):
        book_version.book_version(tmp_path)


def test_titles_match_through_typographic_apostrophes_and_code_marks():
    """A title with ``code`` and an apostrophe is found in the PDF's typeset text."""
    typeset = "16.22 lib.explore.contact: the contact chapter\u2019s widget"
    title = "`lib.explore.contact`: the contact chapter's widget"
    assert check_pdf._normalise(title) in check_pdf._normalise(typeset)
    assert check_pdf._normalise("a chapter's") != check_pdf._normalise("a chapters")
