"""Per-chapter parts of the published-number registry (see :mod:`lib.published`).

Each module defines ``ENTRIES: dict[str, Published]`` for the numbers its chapter
computes; :data:`lib.published.PUBLISHED` merges them and refuses duplicates.
"""
from importlib import import_module

_CHAPTERS = ("rod", "integration", "pcc", "fem", "constraints", "crosscheck")

ALL_ENTRIES = []
for _name in _CHAPTERS:
    try:
        _mod = import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a chapter not written yet
        if exc.name != f"{__name__}.{_name}":
            raise
        continue
    ALL_ENTRIES.append((_name, _mod.ENTRIES))
