"""The one numba decorator every kernel uses: nopython, cached, no fast-math.

``cache=True`` writes the compiled code to ``lib/kernels/__pycache__`` (see the
docstring of :mod:`lib.kernels`); fast-math stays off so that the kernels do the
NumPy code's IEEE arithmetic, element by element, and agree with it to round-off.
"""
from __future__ import annotations

import numba

__all__ = ["kernel"]


def kernel(fn):
    """``numba.njit(cache=True, nogil=True)`` (a decorator)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)
