"""The registry of published numbers.

Every number the source chapters publish lives here exactly once.  ``PUBLISHED``
maps a key to a frozen :class:`Published` record.  The chapter notebooks compute
their own value, glue it under the same key (see :func:`lib.book.record`) and
assert it against the record, so a drift from a published number fails the
notebook tests.  The appendix page *Reproduction ledger* renders every entry.

Keys are ``<notebook>_<name>`` where ``<notebook>`` is the stem of the chapter
notebook in ``chapters/`` that computes and glues the value, one of :data:`CHAPTERS` (the
chapters :mod:`lib.chapters` marks as having a registry file).

Fields
------
seed    the number as the seed chapter prints it (a range is two entries, a
        bound stores the bound)
unit    ``"%"`` (percent), ``"rel"`` (a relative difference), ``""`` (plain
        nondimensional number), ``"steps"``, ``"Hz"``, ``"ms"``, ...
result  1-7 for the headed results of section 3.10.5 (1 frequencies,
        2 statics, 3 time integration, 4 PCC, 5 FEM, 6 physical scale,
        7 library cross-check); 0 for a number published elsewhere
tol     the agreement asked of the book's value: |book - seed| <= tol, in the
        unit of ``seed``.  For a bound (``kind="upper"``) the book value must
        be <= seed.
status  ``"reproduced"``, ``"approximate"`` or ``"not-reproducible"``
note    the inputs used; for anything not reproduced, why
kind    ``"value"`` (default), ``"upper"`` (the seed states an upper bound)
        or ``"lower"`` (a lower bound)
"""
from __future__ import annotations

from .chapters import stems
from .registry import ALL_ENTRIES
from .registry.entry import KINDS, STATUSES, Published

__all__ = ["Published", "PUBLISHED", "STATUSES", "KINDS", "CHAPTERS", "chapter_of"]

CHAPTERS = stems("registry")


def _collect() -> dict[str, Published]:
    out: dict[str, Published] = {}
    for chapter, entries in ALL_ENTRIES:
        for key, rec in entries.items():
            if not key.startswith(chapter + "_"):
                raise ValueError(f"registry key {key!r} must start with {chapter + '_'!r}")
            if key in out:
                raise ValueError(f"registry key {key!r} defined twice")
            out[key] = rec
    return out


PUBLISHED: dict[str, Published] = _collect()


def chapter_of(key: str) -> str:
    """The chapter notebook stem that computes ``key`` (a key of :data:`PUBLISHED`).

    >>> chapter_of("rod_eb_omega1")
    'rod'
    """
    if not (isinstance(key, str) and key in PUBLISHED):
        raise ValueError(f"key must be a key of PUBLISHED ('<chapter>_<name>'), got {key!r}")
    return key.split("_", 1)[0]
