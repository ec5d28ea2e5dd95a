"""Serve MathJax 3 from the built book itself, so math renders with no network.

The MathJax files come from the PyPI package ``django-static-mathjax`` (pinned in
requirements.txt).  ``mathjax_path`` is set to a path relative to ``_static`` and
the ES5 bundle is copied there when the HTML build finishes.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import mathjax

SOURCE = Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"
SKIP = shutil.ignore_patterns("*-full*", "*-speech*", "mml-*", "tex-mml-*", "tex-svg*", "node-main.js")


def _set_path(app, config):
    config.mathjax_path = "mathjax/tex-chtml.js"


def _copy(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    if not (SOURCE / "tex-chtml.js").is_file():
        raise RuntimeError(f"MathJax files not found in {SOURCE}; install django-static-mathjax")
    target = Path(app.outdir) / "_static" / "mathjax"
    shutil.copytree(SOURCE, target, ignore=SKIP, dirs_exist_ok=True)


def _drop_thebe(app, pagename, templatename, context, doctree):
    """The book has no launch or live-code buttons: drop sphinx-thebe's assets.

    sphinx-thebe (pulled in by Jupyter Book) registers its inline script twice, which
    throws a redeclaration error in the browser, and names a CDN URL.
    """
    def keep(asset):
        text = f"{getattr(asset, 'filename', '') or ''} {getattr(asset, 'attributes', {}).get('body', '')}"
        return "thebe" not in text.lower()

    for name in ("script_files", "css_files"):
        if name in context:
            context[name] = [a for a in context[name] if keep(a)]


def setup(app):
    app.connect("config-inited", _set_path, priority=900)
    app.connect("html-page-context", _drop_thebe)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
