"""Run the code a reader sees on a chapter page, alone, in a fresh interpreter.

Usage: python tools/visible_code.py [NOTEBOOK ...]   (default: ``READER_EDITION``)

A page shows the code cells that are not tagged ``remove-cell`` or ``remove-input``
(``hide-input`` cells are shown folded, one click away, so they count as shown). A reader
who copies those cells, in order, into a Python session with ``lib`` installed must get
the page's results, not a ``NameError``: imports and set-up are shown, and the book's
plumbing (glue, asserts against the registry, progress lines) sits in removed cells that
the shown code never needs.

Each notebook's shown code is joined in page order and run by ``python -c`` in the
notebook's folder, with the non-interactive Matplotlib backend and ``LIB_FIGURES_DIR``
pointing at a temporary folder (so ``figures/`` is left alone). IPython magics and shell
lines (``%...``, ``!...``) are dropped. Exits 1 naming every page whose shown code fails,
with the failing line of the joined code.

``READER_EDITION`` lists the chapters rewritten for the reader's edition so far (issue 29
does it chapter by chapter); every chapter joins it as it is rewritten.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = {"remove-cell", "remove-input"}
READER_EDITION = ["integration", "constraints", "rod", "pcc", "rod3d", "crosscheck", "performance", "energy", "fem", "actuation", "fem_incompressible", "contact", "levels"]


def shown_code(path: Path) -> str:
    """The code cells a reader sees on the page of ``path``, joined in order."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    blocks = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or HIDDEN & set(cell.get("metadata", {}).get("tags", [])):
            continue
        lines = [("pass  # " + ln) if ln.lstrip().startswith(("%", "!")) else ln
                 for ln in "".join(cell["source"]).splitlines()]
        blocks.append(f"# --- cell {i} ---\n" + "\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def run(path: Path, timeout: float = 600.0) -> tuple[bool, str]:
    """Run the shown code of ``path``; ``(ok, message)``."""
    code = shown_code(path)
    with tempfile.TemporaryDirectory() as figs:
        env = dict(os.environ, MPLBACKEND="Agg", LIB_FIGURES_DIR=figs, PYTHONHASHSEED="0")
        try:
            proc = subprocess.run([sys.executable, "-c", code], cwd=path.parent, env=env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout:.0f} s"
    if proc.returncode == 0:
        return True, ""
    tail = proc.stderr.strip().splitlines()[-12:]
    return False, "\n".join(tail)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or [ROOT / "chapters" / f"{n}.ipynb" for n in READER_EDITION]
    failed = []
    for p in paths:
        ok, msg = run(p)
        print(f"{'ok  ' if ok else 'FAIL'} {p.relative_to(ROOT)}", flush=True)
        if not ok:
            print("     " + msg.replace("\n", "\n     "), flush=True)
            failed.append(p.name)
    if failed:
        print(f"shown code fails on {len(failed)} page(s): {' '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
