"""Build the PDF edition of the book: ``_build/latex/book.pdf``.

Usage: python tools/build_pdf.py

Installs Debian's TeX packages when they are missing (with apt-get, as
tools/browser_test.py installs Chromium; it needs root), then runs Jupyter Book's
LaTeX builder (``jupyter-book build . --builder pdflatex``), which writes
``_build/latex/book.tex`` and compiles it with xelatex through latexmk (the engine is
set in ``_config.yml``).  Nothing in it names a chapter: the book's table of contents
decides what goes in.  The PDF is then copied to ``_build/html/continuum-book.pdf``
when the HTML exists, so the link on the book's first page works.

The package set is the minimum the book's LaTeX needs on Debian 12:

* ``texlive-latex-recommended``, ``texlive-latex-extra``, ``texlive-fonts-recommended``
  and ``latexmk``: Sphinx's LaTeX style files (fncychap, tabulary, framed, wrapfig,
  capt-of, needspace, ...) and the build driver;
* ``texlive-xetex`` and ``fonts-freefont-otf``: xelatex with GNU FreeFont, which has
  every Greek letter, mathematical sign and circled result number of the prose;
* ``fonts-noto-cjk`` and ``fonts-dejavu-core``: the glossary's Hangul and the few
  symbols FreeFont lacks in some styles (circled numbers in bold headings, ``ᵀ``,
  ``▶``), switched to by ``ucharclasses`` (``latex_elements`` in ``_config.yml``);
* ``poppler-utils``: pdfinfo, pdfimages and pdftotext for tools/check_pdf.py.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "latex" / "book.pdf"
HTML_COPY = ROOT / "_build" / "html" / "continuum-book.pdf"

PACKAGES = [
    "texlive-latex-recommended", "texlive-latex-extra", "texlive-fonts-recommended",
    "texlive-xetex", "latexmk", "fonts-freefont-otf", "fonts-noto-cjk", "fonts-dejavu-core",
    "poppler-utils",
]


def _installed(pkg: str) -> bool:
    res = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    return res.returncode == 0 and res.stdout.strip().endswith(" installed")


def ensure_tex() -> None:
    """apt-get install those of PACKAGES that are missing (no recommends: TeX's are huge)."""
    want = [pkg for pkg in PACKAGES if not _installed(pkg)]
    if not want:
        return
    print(f"installing Debian's {' '.join(want)} ...", flush=True)
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends",
           "-o", "DPkg::Lock::Timeout=600", *want]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL, check=True, env=env)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)


def build() -> Path:
    if PDF.exists():
        PDF.unlink()               # never check a stale PDF
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--builder", "pdflatex", "--path-output", str(ROOT),
           "--all", "-q"]
    print("building the PDF (jupyter-book, xelatex via latexmk) ...", flush=True)
    res = subprocess.run(cmd, cwd=ROOT)
    if res.returncode != 0 or not PDF.exists():
        log = PDF.with_suffix(".log")
        if log.exists():
            lines = log.read_text(errors="replace").splitlines()
            errs = [i for i, line in enumerate(lines) if line.startswith("!")]
            for i in errs[:3]:
                print("\n".join(lines[i:i + 6]), file=sys.stderr)
        raise SystemExit(f"PDF build failed (exit {res.returncode}); see {log}")
    if HTML_COPY.parent.is_dir():
        shutil.copyfile(PDF, HTML_COPY)
        print(f"copied to {HTML_COPY.relative_to(ROOT)}")
    print(f"PDF: {PDF.relative_to(ROOT)}")
    return PDF


def main() -> int:
    ensure_tex()
    build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
