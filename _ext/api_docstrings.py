"""Make the package's plain-text docstrings safe for the API reference page.

The ``lib`` docstrings are written for ``help()`` in a terminal: module docstrings
hold aligned plain-text tables, and formulas such as ``|a|`` appear in running text.
reStructuredText reads the first as broken indentation and ``|...|`` as a
substitution reference.  This hook (``autodoc-process-docstring``) renders module
docstrings as literal blocks, exactly as written, and escapes bare ``|`` outside
literals and roles in the other docstrings.
"""
from __future__ import annotations

import re

_PROTECTED = re.compile(r"(``.*?``|:[a-z:]+:`.*?`|`[^`]*?`)")


def _escape_bars(line: str) -> str:
    parts = _PROTECTED.split(line)
    return "".join(p if i % 2 else p.replace("|", r"\|") for i, p in enumerate(parts))


def _process(app, what, name, obj, options, lines):
    if what == "module":
        body = [("    " + ln) if ln.strip() else "" for ln in lines]
        lines[:] = ["::", ""] + body + [""]
        return
    lines[:] = [_escape_bars(ln) for ln in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
