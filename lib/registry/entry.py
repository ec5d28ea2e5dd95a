"""The record of one published number (its fields are described in :mod:`lib.published`).

Imports nothing from lib, so the registry files and :mod:`lib.published` both import it.
"""
from __future__ import annotations

from dataclasses import dataclass

STATUSES = ("reproduced", "approximate", "not-reproducible")
KINDS = ("value", "upper", "lower")


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
