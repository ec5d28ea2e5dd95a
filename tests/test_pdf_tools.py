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
    }
    monkeypatch.setattr(check_pdf, "_run", lambda cmd: answers[cmd[0]])
    return pdf, answers, len(figs)


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
