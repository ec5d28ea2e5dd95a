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
* every row of the reproduction ledger is printed: each registry key
  (``tools/make_ledger.py rows()``) is a word of the PDF, and the last word on its
  line (the status column: cells are top-aligned) is a word of its status;
* everything is on the page and inside the text block: no word of ``pdftotext
  -bbox-layout`` lies left or right of the text block (its edges are the most common
  left and right ends of the text lines) by more than ``MARGIN_TOL`` points, the
  LaTeX log reports no table wider than the text ("Overfull \\hbox ... in alignment")
  and no page whose content is taller than the page (an "Overfull \\vbox" while the
  output routine is active: a table or box that could not break runs off the bottom,
  and pdftotext never sees the words below the page);
* no HTML-only wording (``HTML_ONLY``, such as "click to show") is printed;
* exercises are numbered within chapters, as in the HTML ("Exercise 3.2", never
  "Exercise 3.10.2");
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
MARGIN_TOL = 3.0           # points a word may stick out of the text block (a kern, a glyph)
TABLE_TOL = 2.0            # points a table may be wider than the text (LaTeX's hbox rounding)
PAGE_TOL = 5.0             # points a page's content may be taller than the page
HTML_ONLY = ("click to show", "click to hide", "top right")

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
    text = re.sub(r"[\u2018\u2019]", "'", text)   # typographic apostrophes and quotes
    text = re.sub(r"[`*_$\\]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def ledger_rows() -> list[tuple[str, str]]:
    """``(key, status)`` of every ledger row, in the order of the ledger page."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tools"))
    import make_ledger

    return make_ledger.rows()


def page_words(bbox_html: str) -> list[list[tuple[float, float, float, float, str]]]:
    """Per page, the words of ``pdftotext -bbox-layout`` as (x0, y0, x1, y1, text)."""
    return [[(*map(float, m[:4]), m[4]) for m in _WORD.findall(page)]
            for page in bbox_html.split("<page ")[1:]]


def check_ledger(pages: list[list[tuple]], rows: list[tuple[str, str]]) -> list[str]:
    """Every ledger row printed with its status.

    A row is its key (a word of its own) and, as the last word on the key's line (the
    status column is the last, its cells top-aligned), a word of its status.
    ``pages`` is :func:`page_words`.  Returns the failures: keys not found and rows
    whose last word is not their status.

    >>> row = lambda y, *w: [(10.0 * i, y, 10.0 * i + 8, y + 9, t) for i, t in enumerate(w)]
    >>> page = row(100, "a_x", "note", "1", "reproduced") + row(112, "b_y", "2", "not") + row(124, "reproducible")
    >>> check_ledger([page], [("a_x", "reproduced"), ("b_y", "not reproducible")])
    []
    >>> check_ledger([page[:4]], [("a_x", "approximate"), ("b_y", "not reproducible")])
    ['ledger row a_x: status reproduced, not approximate', 'ledger rows missing from the PDF (1 of 2): b_y']
    """
    # a status cell may wrap ("not" / "reproducible"): any of its words names it
    first = {w: s for s in {status for _, status in rows} for w in s.split()}
    seen: dict[str, list[str]] = {}
    rows_of = dict(rows)
    keys = sorted(rows_of, key=len, reverse=True)
    for words in pages:
        for x0, y0, x1, y1, text in words:
            # a key, or a key glued to the next word (no key is a prefix of another)
            if "_" not in text:
                continue
            key = text if text in rows_of else next((k for k in keys if text.startswith(k)), None)
            if key is None:
                continue
            line = [w for w in words if abs(w[1] - y0) < 1.5 and w[0] >= x0]
            last = max(line, key=lambda w: w[0])[4]
            seen.setdefault(key, []).append(first.get(last, last))
    failures, missing = [], []
    for key, status in rows:
        if key not in seen:
            missing.append(key)
        elif status not in seen[key]:
            failures.append(f"ledger row {key}: status {seen[key][-1]}, not {status}")
    if missing:
        failures.append(f"ledger rows missing from the PDF ({len(missing)} of {len(rows)}): "
                        + " ".join(missing))
    return failures


_WORD = re.compile(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>')
_LINE = re.compile(r'<line xMin="([-\d.]+)" yMin="[-\d.]+" xMax="([-\d.]+)"')


def text_block(bbox_html: str) -> tuple[float, float]:
    """Left and right edges of the text block: the most common left and right ends of
    the text lines of ``pdftotext -bbox-layout`` (justified prose ends on both)."""
    from collections import Counter

    left, right = Counter(), Counter()
    for x0, x1 in _LINE.findall(bbox_html):
        left[round(float(x0))] += 1
        right[round(float(x1))] += 1
    if not left:
        raise ValueError("no text lines in the pdftotext -bbox-layout output")
    return float(left.most_common(1)[0][0]), float(right.most_common(1)[0][0])


def words_outside(bbox_html: str, tol: float = MARGIN_TOL) -> dict[int, list[str]]:
    """Per page (1-based), the words further than ``tol`` points left or right of the
    text block, or off the page."""
    x_left, x_right = text_block(bbox_html)
    out: dict[int, list[str]] = {}
    for number, page in enumerate(bbox_html.split("<page ")[1:], start=1):
        size = re.search(r'width="([\d.]+)" height="([\d.]+)"', page)
        width, height = (float(v) for v in size.groups()) if size else (1e9, 1e9)
        for x0, y0, x1, y1, word in _WORD.findall(page):
            x0, y0, x1, y1 = (float(v) for v in (x0, y0, x1, y1))
            if (x0 < x_left - tol or x1 > x_right + tol or x0 < 0 or y0 < 0
                    or x1 > width or y1 > height):
                out.setdefault(number, []).append(word)
    return out


def check_log(log: str) -> list[str]:
    r"""Tables wider than the text and pages taller than the page, from the LaTeX log.

    >>> check_log("Overfull \\hbox (40.5pt too wide) in alignment at lines 10--20")
    ['a table is 40.5 pt wider than the text (book.tex lines 10--20)']
    >>> check_log("Overfull \\vbox (945.1pt too high) has occurred while \\output is active []")
    ['a page is 945.1 pt taller than the page: a table or box that cannot break runs off the bottom']
    >>> check_log("Overfull \\hbox (1.0pt too wide) in alignment at lines 1--2")
    []
    """
    failures = []
    for pt, lines in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\) in alignment at lines (\S+)", log):
        if float(pt) > TABLE_TOL:
            failures.append(f"a table is {float(pt):.1f} pt wider than the text (book.tex lines {lines})")
    for pt in re.findall(r"Overfull \\vbox \(([\d.]+)pt too high\) has occurred while \\output is active", log):
        if float(pt) > PAGE_TOL:
            failures.append(f"a page is {float(pt):.1f} pt taller than the page: a table or box "
                            "that cannot break runs off the bottom")
    return failures


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

    rows = ledger_rows()
    bbox = _run(["pdftotext", "-bbox-layout", str(pdf), "-"])
    failures += check_ledger(page_words(bbox), rows)
    outside = words_outside(bbox)
    for number, words in sorted(outside.items()):
        failures.append(f"page {number}: {len(words)} words outside the text block: "
                        + " ".join(words[:8]))
    failures += check_log(log)
    for phrase in HTML_ONLY:
        if phrase in flat:
            failures.append(f"HTML-only wording printed: {phrase!r}")
    deep = sorted(set(re.findall(r"Exercise (\d+\.\d+\.\d+)", text)))
    if deep:
        failures.append("exercises numbered within sections, not chapters as in the HTML: "
                        + ", ".join(deep[:5]))

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
          f"{n_latex_tables} tables for {n_tables} in the sources, {len(rows)} ledger rows, "
          f"{sum(map(len, outside.values()))} words outside the text block")
    return failures


def main(argv: list[str]) -> int:
    pdf = Path(argv[0]).resolve() if argv else ROOT / "_build" / "latex" / "book.pdf"
    failures = check(pdf)
    if failures:
        print("\n".join(["PDF check failures:"] + failures))
        return 1
    print("PDF check: every page, figure, table, ledger row and reference present, "
          "everything inside the text block")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
