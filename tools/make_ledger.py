"""Write chapters/ledger.md, the appendix page that renders the registry.

Usage: python tools/make_ledger.py [--check]

The page is generated from :data:`lib.published.PUBLISHED`; the book's own values
are not computed here: each row pastes the value the chapter notebook glued under
the registry key (``{glue:text}`rod.ipynb::key```), so the ledger shows exactly
what the chapters computed.  ``--check`` exits 1 when the committed page is stale
(the unit tests run it).
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from lib.published import PUBLISHED, STATUSES, chapter_of

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "chapters" / "ledger.md"
SUMMARY = ROOT / "chapters" / "ledger-summary.md"   # included by intro.md

RESULTS = {
    1: "① Linear frequencies of the discrete rod",
    2: "② Statics: tip load, tip moment, dynamic relaxation",
    3: "③ Time integration",
    4: "④ Piecewise-constant-curvature reduction",
    5: "⑤ Plane-strain FEM",
    6: "⑥ Physical scale",
    7: "⑦ Cross-checks against independent codes",
    0: "Numbers published elsewhere in the chapter",
}
UNITS = {"%": "%", "rel": "rel.", "": "–"}
STATUS_MARK = {"reproduced": "reproduced", "approximate": "approximate", "not-reproducible": "**not reproducible**"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _by_result() -> dict[int, list[str]]:
    by_result: dict[int, list[str]] = {}
    for key, rec in PUBLISHED.items():
        by_result.setdefault(rec.result, []).append(key)
    return by_result


def captioned(caption: str, name: str, table: list[str]) -> list[str]:
    """A MyST ``{table}`` directive: the markdown ``table`` lines, numbered and captioned,
    with the label ``name`` for ``{numref}``."""
    return [f":::{{table}} {caption}", f":name: {name}", "", *table, ":::"]


def _ordered_results(by_result):
    return sorted(by_result, key=lambda r: (r == 0, r))


def summary_table(name: str = "tab-ledger-summary") -> str:
    """Counts of entries per headed result and status, as a captioned markdown table."""
    by_result = _by_result()
    totals = Counter(rec.status for rec in PUBLISHED.values())
    out = ["| result | " + " | ".join(STATUSES) + " | total |",
           "|---|" + "---:|" * (len(STATUSES) + 1)]
    for res in _ordered_results(by_result):
        c = Counter(PUBLISHED[k].status for k in by_result[res])
        out.append(f"| {RESULTS[res]} | " + " | ".join(str(c[s]) for s in STATUSES) + f" | {sum(c.values())} |")
    out.append("| **all** | " + " | ".join(f"**{totals[s]}**" for s in STATUSES) + f" | **{len(PUBLISHED)}** |")
    caption = "The source's published numbers by headed result, and how they fare in this book"
    return "\n".join(captioned(caption, name, out)) + "\n"


def rows() -> list[tuple[str, str]]:
    """``(key, status as printed)`` of every ledger row, in the order of the page.

    tools/check_pdf.py reads it to check that every row reached the PDF.
    """
    by_result = _by_result()
    return [(key, STATUS_MARK[PUBLISHED[key].status].strip("*"))
            for res in _ordered_results(by_result) for key in by_result[res]]


def render() -> str:
    out = [
        "(chap-ledger)=",
        "# Reproduction ledger",
        "",
        "Every number that chapter 3.10 of the source publishes is listed here once, with the",
        "value this book computes for it. The *seed* column is the number as the source prints",
        "it (from the registry `lib/published.py`); the *book* column is pasted from the chapter",
        "that computes it (a glued value, not retyped); *book − seed* is their difference and",
        "*tol* the agreement the chapter asserts when it runs. A bound is marked ≤ or ≥. Statuses:",
        "",
        "reproduced",
        ": the book's value agrees with the printed one within the stated tolerance.",
        "",
        "approximate",
        ": it agrees only loosely; the note says why (an unstated input, a rounding, a window).",
        "",
        "not reproducible",
        ": the source leaves out something the number depends on; the note says what, and the",
        "  chapter shows what it computes instead.",
        "",
        "## Summary",
        "",
        summary_table(),
    ]
    by_result = _by_result()
    for res in _ordered_results(by_result):
        table = ["| quantity and note | seed | book | book − seed | tol | status |",
                 "|---|---:|---:|---:|---:|---|"]
        for key in by_result[res]:
            rec = PUBLISHED[key]
            nb = chapter_of(key)
            bound = {"upper": "≤ ", "lower": "≥ "}.get(rec.kind, "")
            unit = {"": "", "rel": " (rel.)"}.get(rec.unit, f" {rec.unit}")
            # the space before <br>: the PDF drops the HTML line break, not the space
            table.append(
                f"| `{key}` <br><small>{_cell(rec.note)}</small> | {bound}{rec.seed:g}{unit} "
                f"| {{glue:text}}`{nb}.ipynb::{key}:.4g`{unit} | {{glue:text}}`{nb}.ipynb::{key}_dev:.2g` "
                f"| {rec.tol:g} | {STATUS_MARK[rec.status]} |"
            )
        title = RESULTS[res]
        caption = f"{title} — the source's values and the book's"
        out += [f"## {title}", "", *captioned(caption, f"tab-ledger-{res}", table), ""]
    return "\n".join(out)


def main(argv):
    unknown = [a for a in argv if a != "--check"]
    if unknown:
        print(__doc__)
        print(f"unknown argument(s): {' '.join(unknown)}")
        return 2
    pages = {TARGET: render(), SUMMARY: summary_table("tab-intro-reproduces")}
    if "--check" in argv:
        stale = [p for p, text in pages.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"{p.relative_to(ROOT)} is stale: run `python tools/make_ledger.py`")
        return 1 if stale else 0
    for p, text in pages.items():
        p.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)} and {SUMMARY.relative_to(ROOT)} ({len(PUBLISHED)} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
