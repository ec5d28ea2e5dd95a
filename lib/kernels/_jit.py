"""The one numba decorator every kernel uses: nopython, cached, no fast-math.

``cache=True`` writes the compiled code to ``lib/kernels/__pycache__`` (see the
docstring of :mod:`lib.kernels`); fast-math stays off so that the kernels do the
NumPy code's IEEE arithmetic, element by element, and agree with it to round-off.
"""
from __future__ import annotations

import llvmlite.binding as llvm
import numba

__all__ = ["kernel", "inline"]

# LLVM vectorises a loop over several arrays only after run-time checks that they do
# not overlap; numba's array accesses need many, more than LLVM's default budget (128),
# and the element loops of lib.kernels.spatial then stay scalar.  A larger budget lets
# them run on SIMD lanes (about 6x faster); the checks cost nanoseconds per loop.  The
# option is process-wide and only lets LLVM vectorise more; results are unchanged
# (no fast-math: the vector lanes do the scalar IEEE operations).
llvm.set_option("lib.kernels", "-vectorize-memory-check-threshold=2048")


def kernel(fn):
    """``numba.njit(cache=True, nogil=True, error_model="numpy")`` (a decorator)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


def inline(fn):
    """A helper inlined into the calling kernel (numba IR level), so loops stay straight."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")(fn)
