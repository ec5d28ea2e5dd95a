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
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
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
