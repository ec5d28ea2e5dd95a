"""The one list of the book's chapters, in book order (a test compares it with ``_toc.yml``).

Each chapter is named by the stem of its page in ``chapters/`` and says whether that page
is a notebook and whether the chapter has a published-number registry
(``lib/registry/<stem>.py``), self-checking exercises (``lib/exercises/<stem>.py``) and
an explore file (``lib/explore/<stem>.py``).  Those files are discovered from here: a new
chapter adds one line.

>>> CHAPTERS[0].stem, CHAPTERS[0].title
('rod', 'The planar Cosserat rod: frequencies and equilibria')
>>> stems("registry")
('rod', 'integration', 'pcc', 'fem', 'constraints', 'crosscheck')
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["Chapter", "CHAPTERS", "stems"]


class Chapter(NamedTuple):
    """One chapter: page stem, title (its first heading), and which per-chapter files it has."""

    stem: str
    title: str
    notebook: bool = True
    registry: bool = False
    exercises: bool = True
    explore: bool = True


CHAPTERS = (
    Chapter("rod", "The planar Cosserat rod: frequencies and equilibria", registry=True),
    Chapter("rod3d", "The Cosserat rod in three dimensions: twist, torsional buckling, PyElastica"),
    Chapter("integration", "Time integration: the explicit limit, Newmark, and what goes wrong",
            registry=True),
    Chapter("energy", "Large steps without blow-up: energy, damping and the bill"),
    Chapter("pcc", "Constant curvature as a Rayleigh–Ritz reduction", registry=True),
    Chapter("fem", "Plane-strain finite elements: hyperelasticity, locking and actuation",
            registry=True),
    Chapter("fem_incompressible", "Near-incompressible soft materials at finite strain"),
    Chapter("actuation",
            "Actuation and inverse models: tendons, pressure, and cables that can only pull"),
    Chapter("constraints", "Constraint forces from Lagrange multipliers", registry=True),
    Chapter("contact", "Frictional contact for rods: stick, slip, roll, slither"),
    Chapter("crosscheck", "Cross-checks against independent codes", registry=True),
    Chapter("levels", "One soft arm, three model levels"),
    Chapter("choosing", "Choosing a model level", notebook=False, exercises=False, explore=False),
)


def stems(kind=None):
    """Stems of the chapters in book order; ``kind`` ("notebook", "registry", "exercises",
    "explore") keeps those that have one."""
    if kind not in (None, "notebook", "registry", "exercises", "explore"):
        raise ValueError(f"kind must be None, 'notebook', 'registry', 'exercises' or 'explore', "
                         f"got {kind!r}")
    return tuple(c.stem for c in CHAPTERS if kind is None or getattr(c, kind))
