"""Per-chapter parts of the published-number registry (see :mod:`lib.published`).

Each module defines ``ENTRIES: dict[str, Published]`` for the numbers its chapter
computes; the chapters that have one are listed in :mod:`lib.chapters`, and
:data:`lib.published.PUBLISHED` merges them and refuses duplicates.
"""
from importlib import import_module

from ..chapters import stems

ALL_ENTRIES = [(_name, import_module(f"{__name__}.{_name}").ENTRIES) for _name in stems("registry")]
