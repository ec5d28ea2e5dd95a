"""Check the PDF edition built by tools/build_pdf.py (``make pdf`` runs both).

Usage: python tools/check_pdf.py [PDF]          (default _build/latex/book.pdf)

Everything it expects is read from the book's own sources, so a new chapter is
checked without editing this file:

* every page of the table of contents (``_toc.yml``) is in the PDF: its title (the
  first ``#`` heading of the notebook or page) appears in the text;
* the page count is at least a lower bound computed from the table of contents
  (``PAGES_PER_CHAPTER`` per chapter notebook, ``PAGES_PER_PAGE`` per other page);
* every figure the book shows is embedded: each image file named by a ``{figure}``
  directive or a Markdown image is included by the LaTeX source, and the PDF holds
  at least as many images (``pdfimages -list``) as the LaTeX source includes;
* every table is typeset: the LaTeX source has at least as many tables as the pages
  show (Markdown tables in the prose and in the shown outputs of notebook cells);
* no unresolved reference: no ``??`` in the text (``pdftotext``) and no
  "undefined references" warning in the LaTeX log;
* no character was dropped for want of a glyph ("Missing character" in the log), so
  Greek, mathematical signs and the glossary's Korean are all printed.

Exits 1 listing every failure.  Needs poppler-utils (installed by build_pdf.py).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES_PER_CHAPTER = 8      # a chapter notebook: prose, figures, tables, exercises
PAGES_PER_PAGE = 1         # intro, appendix pages

FIGURE = re.compile(r"```\{figure\}\s+(\S+)|!\[[^\]]*\]\(([^)\s]+\.(?:png|jpg|jpeg|svg|pdf))\)")
INCLUDE = re.compile(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{?([^}]+?)\}?\}")


def toc_files(root: Path = ROOT) -> list[Path]:
    """Source files of every page in ``_toc.yml`` (root first), in order."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                names.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    out = []
    for name in names:
        for ext in (".ipynb", ".md"):
            if (root / (name + ext)).exists():
                out.append(root / (name + ext))
                break
        else:
            raise FileNotFoundError(f"_toc.yml names {name!r}, which has no .ipynb or .md")
    return out


def markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def title_of(path: Path) -> str:
    for line in markdown_of(path).splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ValueError(f"{path} has no '# ' title")


def figures_of(path: Path) -> list[str]:
    """File names of the figures a page shows (``{figure}`` and Markdown images)."""
    return [Path(a or b).name for a, b in FIGURE.findall(markdown_of(path))]


TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", re.M)
LATEX_TABLE = re.compile(r"\\begin\{(?:tabulary|tabular|longtable)\}")
HIDDEN = {"remove-cell", "remove-output"}


def tables_of(path: Path) -> int:
    """Markdown tables a page shows: in its prose and in its notebook's shown outputs."""
    n = len(TABLE_RULE.findall(markdown_of(path)))
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        for c in nb["cells"]:
            if c["cell_type"] != "code" or HIDDEN & set(c.get("metadata", {}).get("tags", [])):
                continue
            for out in c.get("outputs", []):
                md = out.get("data", {}).get("text/markdown", "")
                n += len(TABLE_RULE.findall("".join(md)))
    return n


def _normalise(text: str) -> str:
    """Collapse whitespace, hyphenation and typographic variants for matching titles."""
    text = text.replace("\u00ad", "").replace("-\n", "").replace("\u2010", "-")
    text = re.sub(r"[\u2013\u2014\u2212]", "-", text)
    text = re.sub(r"[`*_$\\]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def check(pdf: Path) -> list[str]:
    failures: list[str] = []
    if not pdf.exists():
        return [f"{pdf} does not exist: run make pdf"]
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    log_path = pdf.with_suffix(".log")
    log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
    text = _run(["pdftotext", "-layout", str(pdf), "-"])
    flat = _normalise(text)

    pages = toc_files()
    n_ch = sum(p.suffix == ".ipynb" for p in pages)
    bound = PAGES_PER_CHAPTER * n_ch + PAGES_PER_PAGE * (len(pages) - n_ch)
    info = _run(["pdfinfo", str(pdf)])
    n_pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    if n_pages < bound:
        failures.append(f"{n_pages} pages, fewer than the lower bound {bound} "
                        f"({n_ch} chapter notebooks, {len(pages) - n_ch} other pages)")

    for p in pages:
        title = title_of(p)
        if _normalise(title) not in flat:
            failures.append(f"{p.relative_to(ROOT)}: its title {title!r} is not in the PDF")

    included = {Path(m).name for m in INCLUDE.findall(tex)}
    wanted = {f: p for p in pages for f in figures_of(p)}
    for fig, p in sorted(wanted.items()):
        stem = Path(fig).stem
        if not any(Path(inc).stem == stem for inc in included):
            failures.append(f"{p.relative_to(ROOT)}: figure {fig} is not included in the LaTeX")
    n_tables = sum(tables_of(p) for p in pages)
    n_latex_tables = len(LATEX_TABLE.findall(tex))
    if n_latex_tables < n_tables:
        failures.append(f"the LaTeX has {n_latex_tables} tables, fewer than the {n_tables} "
                        "the pages show")
    rows = [line.split() for line in _run(["pdfimages", "-list", str(pdf)]).splitlines()[2:]]
    n_images = sum(1 for r in rows if len(r) > 2 and r[2] == "image")
    if n_images < len(included):
        failures.append(f"the PDF embeds {n_images} images, fewer than the {len(included)} "
                        "the LaTeX source includes")

    if "??" in text:
        where = [line.strip() for line in text.splitlines() if "??" in line][:5]
        failures.append("unresolved reference(s) '??' in the text: " + " | ".join(where))
    if re.search(r"There were undefined references|Reference `[^']*' on page \d+ undefined", log):
        failures.append("the LaTeX log reports undefined references")
    missing = sorted(set(re.findall(r"Missing character: There is no (.) ", log)))
    if missing:
        failures.append("glyphs missing from the fonts: " + " ".join(missing))

    print(f"PDF {pdf.relative_to(ROOT) if pdf.is_relative_to(ROOT) else pdf}: {n_pages} pages "
          f"(bound {bound}), {len(pages)} toc pages found, {len(wanted)} book figures and "
          f"{len(included)} LaTeX images included, {n_images} images embedded, "
          f"{n_latex_tables} tables for {n_tables} in the sources")
    return failures


def main(argv: list[str]) -> int:
    pdf = Path(argv[0]).resolve() if argv else ROOT / "_build" / "latex" / "book.pdf"
    failures = check(pdf)
    if failures:
        print("\n".join(["PDF check failures:"] + failures))
        return 1
    print("PDF check: every page, figure and reference present")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
