"""_ext/api_docstrings.py: module docstrings render as reST, with headings as rubrics and
terminal-aligned tables kept as literal blocks."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
import api_docstrings  # noqa: E402

DOC = """The rod.

Symbols (see :class:`Rod`)
--------------------------
ell     element length      ``ell``
EA      axial stiffness     ``EA``

Prose with a role :mod:`lib.rod` and |a| bars.

.. math::

    |x| = 1

    * a list item
      continued
"""


def _run(text, what="module"):
    lines = text.splitlines()
    api_docstrings._process(None, what, "m", None, {}, lines)
    return lines


def test_heading_becomes_a_plain_rubric():
    assert ".. rubric:: Symbols (see Rod)" in _run(DOC)


def test_aligned_table_is_a_literal_block_and_prose_is_rest():
    out = _run(DOC)
    i = out.index("::")
    assert out[i + 2].startswith("    ell     element length")
    assert "Prose with a role :mod:`lib.rod` and \\|a\\| bars." in out


def test_math_directive_is_left_alone():
    out = _run(DOC)
    assert "    |x| = 1" in out


def test_other_docstrings_only_escape_bars():
    assert _run("norm |v| of ``|w|``", what="function") == ["norm \\|v\\| of ``|w|``"]
