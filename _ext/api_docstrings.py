"""Make the package's plain-text docstrings render in the API reference.

The ``lib`` docstrings are written for ``help()`` in a terminal and for Sphinx at once:
they use reST roles, literals and ``.. math::`` directives, numpydoc sections, and, in the
module docstrings, underlined headings and aligned plain-text tables.  This hook
(``autodoc-process-docstring``) turns a module docstring's underlined headings into
rubrics (a docstring may hold no section titles) and its aligned tables and formulas
written in columns into literal blocks, exactly as written; everything else renders as
reStructuredText.  Bare ``|`` outside literals, roles and math is escaped everywhere
(reST would read ``|a|`` as a substitution).
"""
from __future__ import annotations

import re

_PROTECTED = re.compile(r"(``.*?``|:[a-z:]+:`.*?`|`[^`]*?`)")
_UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")
_ALIGNED = re.compile(r"\S {2,}\S")
_LIST = re.compile(r"^\s*([-*+]|\d+[.)]|\(\w\))\s")


def _escape_bars(line: str) -> str:
    parts = _PROTECTED.split(line)
    return "".join(p if i % 2 else p.replace("|", r"\|") for i, p in enumerate(parts))


def _blocks(lines):
    block = []
    for ln in lines:
        if ln.strip():
            block.append(ln)
        elif block:
            yield block
            block = []
    if block:
        yield block


def _is_plain_table(block) -> bool:
    """Lines in columns (two or more spaces between words) or indented without a
    directive: a table or a formula laid out for a terminal."""
    if block[0].lstrip().startswith((".. ", ">>>")):
        return False
    aligned = sum(bool(_ALIGNED.search(ln.strip())) for ln in block)
    return aligned >= max(1, len(block) // 2)


def _module(lines):
    out, in_directive, in_table = [], False, False
    for block in _blocks(lines):
        # headings: "Title" over "-----" become rubrics
        i, rest = 0, []
        while i < len(block):
            if i + 1 < len(block) and _UNDERLINE.match(block[i + 1]) and block[i].strip():
                rest.append(None)
                title = re.sub(r":[a-z:]+:`~?([^`]*)`|``([^`]*)``",
                               lambda m: m.group(1) or m.group(2), block[i].strip())
                out += [f".. rubric:: {title}", ""]
                i += 2
                continue
            rest.append(block[i])
            i += 1
        body = [ln for ln in rest if ln is not None]
        if not body:
            continue
        first = body[0]
        if first.lstrip().startswith(".. ") or first.startswith("    ") and in_directive:
            in_directive = True
            out += ([ln for ln in body] if not first.lstrip().startswith(".. rubric")
                    else body) + [""]
            continue
        in_directive = False
        indent = len(first) - len(first.lstrip())
        ragged = any(len(ln) - len(ln.lstrip()) > indent for ln in body[1:])
        if (first.startswith(" ") or ragged) and not _LIST.match(first) or _is_plain_table(body):
            out += ["::", ""] + ["    " + ln for ln in body] + [""]
        elif body[-1].rstrip().endswith("::"):
            out += [_escape_bars(ln) for ln in body] + [""]
            in_directive = True
        else:
            out += [_escape_bars(ln) for ln in body] + [""]
    return out


def _process(app, what, name, obj, options, lines):
    if what == "module":
        lines[:] = _module(list(lines))
        return
    lines[:] = [_escape_bars(ln) for ln in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
