"""numba twin of :meth:`lib.kernels.banded.SymmetricBanded.__matmul__` (y = A x).

``ab`` is LAPACK's upper banded storage ``ab[u + i - j, j] = A[i, j]`` (i <= j) of a
symmetric matrix; the NumPy code in :mod:`lib.kernels.banded` is the reference (the
tests compare them).
"""
from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["sym_matvec"]


@kernel
def sym_matvec(ab, x):
    """A x for the symmetric banded A stored in ``ab`` (u + 1, n)."""
    u, n = ab.shape[0] - 1, ab.shape[1]
    y = np.empty(n)
    for i in range(n):
        y[i] = ab[u, i] * x[i]
    for k in range(1, min(u, n - 1) + 1):
        for j in range(k, n):              # A[j - k, j] = A[j, j - k] = ab[u - k, j]
            d = ab[u - k, j]
            y[j - k] += d * x[j]
            y[j] += d * x[j - k]
    return y
