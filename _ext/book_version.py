"""The book's version, from ``pyproject.toml``, on every page of both editions.

``[project] version`` in ``pyproject.toml`` is the one place the version is written.
This extension reads it when the build starts and

* sets Sphinx's ``version`` and ``release``, so the PDF's title page reads
  "Version X" (``latex_elements['releasename']``);
* adds a footer to every HTML page: the version, the licences (code MIT, text and
  figures CC BY 4.0, see ``LICENSE``) and where the citation is (``CITATION.cff``);
* defines the MyST substitution ``{{ version }}`` for the prose (the intro uses it).
"""
from __future__ import annotations

import html
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def book_version(root: Path = ROOT) -> str:
    """``[project] version`` of ``pyproject.toml`` (raises ValueError when absent).

    >>> import re
    >>> bool(re.fullmatch(r"\\d+\\.\\d+\\.\\d+.*", book_version()))
    True
    """
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    version = data.get("project", {}).get("version")
    if not isinstance(version, str) or not version:
        raise ValueError(f"{root / 'pyproject.toml'} has no [project] version")
    return version


def footer_html(version: str) -> str:
    """The HTML footer line: version, licences, citation."""
    v = html.escape(version)
    return (f'<p class="book-version">Version {v}. Code under the MIT licence; text and '
            'figures under CC BY 4.0 (see <code>LICENSE</code>). To cite the book, see '
            '<code>CITATION.cff</code>.</p>')


def _set_version(app, config):
    version = book_version()
    config.version = config.release = version
    config.latex_elements = {**(config.latex_elements or {}), "releasename": "Version"}
    options = dict(config.html_theme_options or {})
    options["extra_footer"] = (options.get("extra_footer") or "") + footer_html(version)
    config.html_theme_options = options
    config.myst_substitutions = {**(config.myst_substitutions or {}), "version": version}


def setup(app):
    app.connect("config-inited", _set_version)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
