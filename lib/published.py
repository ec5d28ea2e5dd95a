"""The registry of published numbers.

Every number the source chapters publish lives here exactly once.  ``PUBLISHED``
maps a key to a frozen :class:`Published` record.  The chapter notebooks compute
their own value, glue it under the same key (see :func:`lib.book.record`) and
assert it against the record, so a drift from a published number fails the
notebook tests.  The appendix page *Reproduction ledger* renders every entry.

Keys are ``<notebook>_<name>`` where ``<notebook>`` is the stem of the chapter
notebook in ``chapters/`` that computes and glues the value (``rod``,
``integration``, ``pcc``, ``fem``, ``constraints``, ``crosscheck``).

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

from dataclasses import dataclass

STATUSES = ("reproduced", "approximate", "not-reproducible")
KINDS = ("value", "upper", "lower")
CHAPTERS = ("rod", "integration", "pcc", "fem", "constraints", "crosscheck")


@dataclass(frozen=True)
class Published:
    seed: float
    unit: str
    result: int
    tol: float
    status: str
    note: str
    kind: str = "value"

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not 0 <= self.result <= 7:
            raise ValueError(f"result must be 0..7, got {self.result!r}")
        if not self.tol >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")

    def agrees(self, value: float) -> bool:
        """Whether a computed value agrees with the published one."""
        if self.kind == "upper":
            return value <= self.seed + self.tol
        if self.kind == "lower":
            return value >= self.seed - self.tol
        return abs(value - self.seed) <= self.tol


def _collect() -> dict[str, Published]:
    from .registry import ALL_ENTRIES

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
    """The chapter notebook stem that computes ``key``."""
    return key.split("_", 1)[0]
