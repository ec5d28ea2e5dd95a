"""Execute chapter notebooks in place so their stored outputs are current.

Usage: python tools/execute.py [NOTEBOOK ...]   (default: every chapters/*.ipynb)

Runs each notebook in its own directory with the book's kernel, without timing
metadata, so that re-executing an unchanged notebook changes nothing but what
its code computes.  Prints the wall time of each notebook.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _strip_volatile(nb) -> None:
    """Drop what changes on every run without changing what the notebook computes.

    Widgets need a live kernel anyway, so their random model ids and saved state are
    dropped (the cell keeps its plain-text fallback); so are the interpreter's patch
    version and per-cell timing metadata.
    """
    nb.metadata.pop("widgets", None)
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET_VIEW, None)


def execute(path: Path, timeout: int = 900) -> float:
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    t0 = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - t0
    _strip_volatile(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "chapters").glob("*.ipynb"))
    total = 0.0
    for p in paths:
        dt = execute(p)
        total += dt
        print(f"executed {p.relative_to(ROOT)} in {dt:.1f} s", flush=True)
    print(f"all notebooks: {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
