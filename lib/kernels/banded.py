"""A symmetric banded matrix that the implicit integrators solve with LAPACK's band solvers.

A model whose Hessian is banded (the planar rod: half-bandwidth 4 in the layout
``[phi_e, x_{e+1}, y_{e+1}]``) can hand :func:`lib.integrate.newmark_step`,
:func:`~lib.integrate.generalized_alpha_step` and
:func:`~lib.integrate.discrete_gradient_step` a :class:`SymmetricBanded` as the
tangent K in ``force(u) -> (f, K)`` (for the rod: :func:`lib.rod.force`).  The
integrators form their iteration matrix K + c M (lumped M: a shift of the diagonal)
and solve it here, by ``scipy.linalg.cholesky_banded`` / ``cho_solve_banded`` when it is
positive definite (the usual case: c = 1/(beta dt^2) is large; LAPACK's ``dpbtrf`` /
``dpbtrs``, which those call) and by
``scipy.linalg.solve_banded`` (LU with partial pivoting) when it is not -- instead of
building a CSR matrix and a fresh sparse LU at every Newton iteration.

Storage is LAPACK's upper form: ``ab[u + i - j, j] = A[i, j]`` for
``max(0, j - u) <= i <= j``, shape (u + 1, n).

:func:`lib.core.linalg.factor` wraps any such self-solving matrix (its failures become
``SolveError``), so the shared Newton of :mod:`lib.solvers.newton` solves it too.

Examples
--------
>>> A = SymmetricBanded(np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0]]))   # u = 1
>>> A.toarray().tolist()
[[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]]
>>> A.solve(A @ np.array([1.0, 2.0, 3.0])).round(12).tolist()
[1.0, 2.0, 3.0]
>>> (2 * A).plus_diagonal(np.ones(3)).toarray()[0].tolist()
[9.0, 2.0, 0.0]
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.linalg.lapack as _lapack
import scipy.sparse as sp

from . import use as _use_kernels

__all__ = ["SymmetricBanded", "BandedRankOne"]

_MATVEC = []


def _compiled_matvec():
    """lib.kernels.bandops.sym_matvec, imported (with numba) on first use."""
    if not _MATVEC:
        from .bandops import sym_matvec

        _MATVEC.append(sym_matvec)
    return _MATVEC[0]


class SymmetricBanded:
    """A symmetric n x n matrix with half-bandwidth u, in LAPACK upper banded storage.

    Parameters
    ----------
    ab : ndarray, shape (u + 1, n)
        ``ab[u + i - j, j] = A[i, j]`` (i <= j); the unused corner
        ``ab[k, j], k < u - j`` is ignored.

    Raises
    ------
    ValueError
        If ``ab`` is not a 2-D float array with at least one row and one column.
    """

    __slots__ = ("ab",)
    __array_ufunc__ = None           # ``np.float64(2) * A`` defers to these methods

    def __init__(self, ab):
        ab = np.asarray(ab, dtype=float)
        if ab.ndim != 2 or ab.shape[0] < 1 or ab.shape[1] < 1:
            raise ValueError(f"ab must be a 2-D array of shape (u + 1, n), got shape {ab.shape}")
        self.ab = ab

    @classmethod
    def wrap(cls, ab):
        """A matrix on a float (u + 1, n) array made by trusted code (no checks, no copy)."""
        out = object.__new__(cls)
        out.ab = ab
        return out

    # ------------------------------------------------------------------ shape
    @property
    def u(self):
        """Half-bandwidth."""
        return self.ab.shape[0] - 1

    @property
    def shape(self):
        """(n, n)."""
        n = self.ab.shape[1]
        return (n, n)

    ndim = 2

    def __repr__(self):
        return f"SymmetricBanded(n={self.shape[0]}, u={self.u})"

    # ------------------------------------------------------------------ conversion
    def diagonal(self):
        """The main diagonal, shape (n,)."""
        return self.ab[self.u].copy()

    def tosparse(self):
        """The full matrix as ``scipy.sparse`` CSR."""
        u, n = self.u, self.shape[0]
        diags, offs = [self.ab[u]], [0]
        for k in range(1, min(u, n - 1) + 1):
            d = self.ab[u - k, k:]          # A[j - k, j], j = k..n-1
            diags += [d, d]
            offs += [k, -k]
        return sp.diags(diags, offs, shape=(n, n), format="csr")

    def toarray(self):
        """The full matrix as a dense ndarray."""
        return self.tosparse().toarray()

    def _full_band(self):
        """General banded storage (l = u) for ``scipy.linalg.solve_banded``."""
        u, n = self.u, self.shape[0]
        full = np.zeros((2 * u + 1, n))
        full[: u + 1] = self.ab
        for k in range(1, min(u, n - 1) + 1):   # row u + k: A[j + k, j] = A[j, j + k]
            full[u + k, : n - k] = self.ab[u - k, k:]
        return full

    # ------------------------------------------------------------------ algebra
    def __mul__(self, s):
        if np.ndim(s) != 0:
            return NotImplemented
        return SymmetricBanded.wrap(float(s) * self.ab)

    __rmul__ = __mul__

    def __truediv__(self, s):
        if np.ndim(s) != 0:
            return NotImplemented
        return SymmetricBanded.wrap(self.ab / float(s))

    def plus_diagonal(self, d):
        """A + diag(d) (d a scalar or shape (n,)), a new matrix."""
        ab = self.ab.copy()
        ab[self.u] += d
        return SymmetricBanded.wrap(ab)

    def __add__(self, other):
        """A + B: banded if B is, else sparse (B sparse) or dense (B an ndarray)."""
        if isinstance(other, SymmetricBanded):
            if other.shape != self.shape:
                raise ValueError(f"shapes differ: {self.shape} and {other.shape}")
            u = max(self.u, other.u)
            ab = np.zeros((u + 1, self.shape[0]))
            ab[u - self.u:] += self.ab
            ab[u - other.u:] += other.ab
            return SymmetricBanded(ab)
        if sp.issparse(other):
            return self.tosparse() + other
        if isinstance(other, np.ndarray) and other.ndim == 2:
            return self.toarray() + other
        return NotImplemented

    __radd__ = __add__

    def __matmul__(self, x):
        """A x for a vector x (n,) (compiled by :func:`lib.kernels.bandops.sym_matvec`
        when the kernels are on)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.shape[0],):
            return NotImplemented
        if _use_kernels():
            return _compiled_matvec()(np.ascontiguousarray(self.ab), np.ascontiguousarray(x))
        u, n, ab = self.u, self.shape[0], self.ab
        y = ab[u] * x
        for k in range(1, min(u, n - 1) + 1):
            d = ab[u - k, k:]
            y[:-k] += d * x[k:]
            y[k:] += d * x[:-k]
        return y

    def plus_outer(self, a, b):
        """A + a b^T as a :class:`BandedRankOne` (kept factored; not symmetric)."""
        return BandedRankOne(self, a, b)

    # ------------------------------------------------------------------ solve
    def solve(self, b):
        """A^{-1} b: banded Cholesky if A is positive definite, else banded LU.

        Raises
        ------
        numpy.linalg.LinAlgError (``scipy.linalg.LinAlgError``)
            If A is singular (or not finite).
        """
        if not np.isfinite(self.ab).all():
            raise sla.LinAlgError("the banded matrix is not finite")
        # LAPACK's dpbtrf / dpbtrs directly: the factor-and-solve of
        # scipy.linalg.cholesky_banded / cho_solve_banded without their checks
        c, info = _lapack.dpbtrf(self.ab, lower=0)
        if info == 0:
            x, info = _lapack.dpbtrs(c, b, lower=0)
            if info == 0:
                return x
        u = self.u                         # not positive definite: banded LU
        return sla.solve_banded((u, u), self._full_band(), b, check_finite=False)


class BandedRankOne:
    """B + a b^T: a :class:`SymmetricBanded` B and a rank-one term, solved by Sherman-Morrison.

        (B + a b^T)^{-1} r = y - z (b . y) / (1 + b . z),   y = B^{-1} r,  z = B^{-1} a,

    one banded factorisation of B for both right-hand sides.  The exact tangent of the
    discrete-gradient step (:func:`lib.integrate.discrete_gradient_step`) has this form.

    Examples
    --------
    >>> B = SymmetricBanded(np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0]]))
    >>> J = B.plus_outer(np.array([1.0, 0.0, 2.0]), np.array([0.5, 1.0, 0.0]))
    >>> x = np.array([1.0, -2.0, 0.5])
    >>> bool(np.allclose(J.solve(J.toarray() @ x), x, rtol=1e-13))
    True
    """

    __slots__ = ("banded", "a", "b")
    __array_ufunc__ = None
    ndim = 2

    def __init__(self, banded, a, b):
        if not isinstance(banded, SymmetricBanded):
            raise ValueError(f"banded must be a SymmetricBanded, got {type(banded).__name__}")
        n = banded.shape[0]
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != (n,) or b.shape != (n,):
            raise ValueError(f"a and b must have shape ({n},), got {a.shape} and {b.shape}")
        self.banded, self.a, self.b = banded, a, b

    @property
    def shape(self):
        """(n, n)."""
        return self.banded.shape

    def __repr__(self):
        return f"BandedRankOne(n={self.shape[0]}, u={self.banded.u})"

    def toarray(self):
        """The full matrix as a dense ndarray."""
        return self.banded.toarray() + np.outer(self.a, self.b)

    def __matmul__(self, x):
        x = np.asarray(x, dtype=float)
        if x.shape != (self.shape[0],):
            return NotImplemented
        return self.banded @ x + self.a * float(self.b @ x)

    def __add__(self, other):
        """Adding a banded matrix keeps the form; anything else gives a dense matrix."""
        if isinstance(other, SymmetricBanded):
            return BandedRankOne(self.banded + other, self.a, self.b)
        if sp.issparse(other):
            return self.toarray() + other.toarray()
        if isinstance(other, np.ndarray) and other.ndim == 2:
            return self.toarray() + other
        return NotImplemented

    __radd__ = __add__

    def solve(self, r):
        """(B + a b^T)^{-1} r.

        Raises
        ------
        numpy.linalg.LinAlgError
            If B is singular or 1 + b . B^{-1} a vanishes (the sum is singular).
        """
        n = self.shape[0]
        rhs = np.empty((n, 2), order="F")
        rhs[:, 0] = r
        rhs[:, 1] = self.a
        Y = self.banded.solve(rhs)
        y, z = Y[:, 0], Y[:, 1]
        den = 1.0 + float(self.b @ z)
        scale = 1.0 + abs(float(self.b @ z))
        if not (np.isfinite(den) and abs(den) > 1e-14 * scale):
            raise sla.LinAlgError("B + a b^T is singular (Sherman-Morrison denominator "
                                  f"{den:.3e})")
        return y - z * (float(self.b @ y) / den)
