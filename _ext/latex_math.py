"""Make MathJax-style math compile in LaTeX (the PDF edition, ``make pdf``).

MathJax accepts a control sequence with its argument as a sub- or superscript
without braces (``\\omega_\\max``, ``f_\\text{int}``, ``x^\\frac{1}{2}``); TeX does not
(``_`` takes one token, and ``\\text`` alone is an error).  For the LaTeX builder
only, this extension braces such scripts in every math node, ``_\\text{int}`` ->
``_{\\text{int}}``, which is what MathJax renders, so the HTML and the PDF show the
same formula.  Nothing changes for the HTML build.
"""
from __future__ import annotations

import re

from docutils import nodes

# commands that take one / two brace arguments
_ONE = ("text|textrm|textit|textbf|textsf|texttt|mbox|mathrm|mathbf|mathit|mathsf|mathtt|"
        "mathcal|mathbb|mathfrak|boldsymbol|bm|operatorname|hat|widehat|bar|tilde|widetilde|"
        "vec|dot|ddot|overline|underline|sqrt")
_TWO = "frac|dfrac|tfrac|binom"
_GROUP = r"\{(?:[^{}]|\{[^{}]*\})*\}"          # a brace group (one level of nesting)
_SCRIPT = re.compile(
    rf"([_^])\s*(\\(?:{_TWO})\b\s*{_GROUP}\s*{_GROUP}"
    rf"|\\(?:{_ONE})\b\s*(?:{_GROUP}|\\[A-Za-z]+|[A-Za-z0-9])"
    rf"|\\[A-Za-z]+)"
)


def brace_scripts(tex: str) -> str:
    r"""Brace control-sequence scripts: ``a_\max`` -> ``a_{\max}``.

    >>> brace_scripts(r"\omega_\max + f_\text{int} + x^\frac{1}{2} + y_{\rm a}")
    '\\omega_{\\max} + f_{\\text{int}} + x^{\\frac{1}{2}} + y_{\\rm a}'
    >>> brace_scripts(r"T^\mathsf T + A^\mathsf{T}")
    'T^{\\mathsf T} + A^{\\mathsf{T}}'
    """
    return _SCRIPT.sub(lambda m: f"{m.group(1)}{{{m.group(2)}}}", tex)


def _fix_math(app, doctree, docname):
    if app.builder.format != "latex":
        return
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        old = node.astext()
        new = brace_scripts(old)
        if new != old:
            node.children = [nodes.Text(new)]
            if "latex" in node:
                node["latex"] = new


def setup(app):
    app.connect("doctree-resolved", _fix_math)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
