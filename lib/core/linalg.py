"""Factorise and solve: one wrapper that turns a failed linear solve into a SolveError.

Every Newton iteration, eigen-solve and saddle-point solve in ``lib`` factorises a
matrix.  :func:`factor` does it once, whatever the storage:

==========================  =============================================  ==============
matrix                      method                                         ``Factor.kind``
==========================  =============================================  ==============
``scipy.sparse``            SuperLU (:func:`scipy.sparse.linalg.splu`)     ``"sparse LU"``
dense ``ndarray``           :func:`scipy.linalg.solve` at each solve       ``"dense LU"``
``banded=ab`` (symmetric)   banded Cholesky (:func:`scipy.linalg.           ``"banded Cholesky"``
                            cholesky_banded`); if not positive definite
                            LU of ``A`` (or banded LU of ``ab``)
sparse with ``spd=True``    banded Cholesky of ``A`` in its own numbering   ``"banded Cholesky"``
                            when it is symmetric, narrow-banded and
                            positive definite; else SuperLU
==========================  =============================================  ==============

and the returned :class:`Factor` solves ``A x = b`` for one or several right-hand
sides.  :func:`require_positive_definite` is the stability test of an equilibrium: it
refuses a tangent stiffness that is not positive definite.  An exactly singular matrix,
a non-finite entry or a non-finite solution
raises :class:`~lib.core.errors.SolveError` with ``reason="singular"`` or
``"non-finite"`` and ``where`` naming what was being solved; SciPy's own errors and
its ill-conditioning warnings (``LinAlgWarning``, ``MatrixRankWarning``) never reach
the reader: an ill-conditioned but regular tangent is judged by the residual that
follows, as Newton's method needs.

Banded storage is LAPACK's upper form, ``ab[u + i - j, j] = A[i, j]`` for ``i <= j``
(``u`` the half-bandwidth), as :func:`scipy.linalg.cholesky_banded` takes it.

Examples
--------
>>> f = factor(np.array([[4.0, 1.0], [1.0, 3.0]]), where="a 2x2 system")
>>> f.kind, f.solve([1.0, 2.0]).round(6).tolist()
('dense LU', [0.090909, 0.636364])
>>> solve(np.zeros((2, 2)), [1.0, 1.0], where="K u = f")
Traceback (most recent call last):
    ...
lib.core.errors.SolveError: K u = f: tangent singular; the matrix is exactly singular (dense LU)
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from . import checks
from .errors import SolveError

__all__ = ["Factor", "factor", "solve", "cholesky_banded", "solve_banded",
           "require_positive_definite", "BIFURCATION"]

#: The usual reason a static solver's equilibrium is not stable, and the remedy (the
#: ``hint`` of :func:`require_positive_definite` for rod, rod3d, pcc and fem statics).
BIFURCATION = ("a symmetric state past a bifurcation, e.g. a straight rod or cantilever "
               "compressed past buckling (pi^2 EI / (4 L^2) for the cantilever) or twisted "
               "past Greenhill's load, where the gradient vanishes by symmetry; a small "
               "transverse load picks the branch, and enough load steps follow it")


class _quiet:
    """SciPy's conditioning warnings and floating-point noise silenced (a context)."""

    def __enter__(self):
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        warnings.simplefilter("ignore", spla.MatrixRankWarning)
        self._e = np.errstate(all="ignore")
        self._e.__enter__()

    def __exit__(self, *exc):
        self._e.__exit__(*exc)
        self._w.__exit__(*exc)


class Factor:
    """A factorised square matrix; :meth:`solve` gives ``A^{-1} b``.

    Attributes
    ----------
    kind : str
        ``"sparse LU"``, ``"dense LU"``, ``"banded Cholesky"`` or ``"banded LU"``.
    n : int
        Order of the matrix.
    where : str
        What is being solved (for the error message).
    """

    def __init__(self, apply, kind, n, where):
        self._apply = apply
        self.kind = kind
        self.n = int(n)
        self.where = where

    def __repr__(self):
        return f"Factor({self.kind}, n={self.n}, where={self.where!r})"

    def solve(self, b):
        """``A^{-1} b`` for ``b`` of shape (n,) or (n, k).

        Raises
        ------
        ValueError
            If ``b`` is not an array of numbers of the right length.
        SolveError
            ``reason="non-finite"`` for a NaN or inf in ``b``; ``reason="singular"`` if
            the solution is not finite (a numerically singular matrix).
        """
        if not (isinstance(b, np.ndarray) and b.dtype == float):
            b = checks.array(b, "b", finite=None)
        if b.ndim not in (1, 2) or b.shape[0] != self.n:
            raise ValueError(f"b must have shape ({self.n},) or ({self.n}, k) to solve "
                             f"{self.where}, got shape {b.shape}")
        if not np.isfinite(b).all():
            raise SolveError(where=self.where, reason="non-finite",
                             message="the right-hand side is not finite")
        with _quiet():
            x = self._apply(b)
        if not np.isfinite(x).all():
            raise SolveError(where=self.where, reason="singular",
                             message=f"the solution is not finite (numerically singular, "
                                     f"{self.kind})")
        return x


def _singular(where, kind, detail="the matrix is exactly singular"):
    return SolveError(where=where, reason="singular", message=f"{detail} ({kind})")


def _check_square(A, where):
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix (to solve {where}), got shape {A.shape}")
    return A.shape[0]


def _sparse_factor(A, where):
    if A.dtype.kind not in "iuf":
        raise ValueError(f"A must hold real numbers (to solve {where}), got dtype {A.dtype}")
    A = sp.csc_matrix(A, dtype=float)
    n = _check_square(A, where)
    if not np.all(np.isfinite(A.data)):
        raise SolveError(where=where, reason="non-finite",
                         message="the matrix has non-finite entries (sparse LU)")
    try:
        with _quiet():
            lu = spla.splu(A)
    except RuntimeError:                      # SuperLU: "Factor is exactly singular"
        raise _singular(where, "sparse LU") from None
    return Factor(lu.solve, "sparse LU", n, where)


def _dense_factor(A, where):
    if not (isinstance(A, np.ndarray) and A.dtype == float):
        A = checks.array(A, "A", finite=None)
    n = _check_square(A, where)
    if not np.isfinite(A).all():
        raise SolveError(where=where, reason="non-finite",
                         message="the matrix has non-finite entries (dense LU)")

    def apply(b):
        # scipy.linalg.solve at each solve: LAPACK picks the structure it finds
        # (diagonal, triangular, general LU), so the result is exactly its
        try:
            return sla.solve(A, b, check_finite=False)
        except sla.LinAlgError:
            raise _singular(where, "dense LU") from None

    return Factor(apply, "dense LU", n, where)


def _is_operator(A):
    """A matrix object that solves itself (``A.solve(b)``, ``A.shape``), not an array."""
    return (not isinstance(A, (np.ndarray, Factor)) and not sp.issparse(A)
            and callable(getattr(A, "solve", None)) and hasattr(A, "shape"))


def _operator_factor(A, where):
    """Wrap a self-solving matrix (e.g. :class:`lib.kernels.banded.SymmetricBanded`)."""
    n = int(A.shape[0])
    kind = type(A).__name__

    def apply(b):
        try:
            return A.solve(b)
        except (sla.LinAlgError, ValueError):
            raise _singular(where, kind) from None

    return Factor(apply, kind, n, where)


def _banded_lu_from_upper(ab, where):
    """Banded LU of the symmetric matrix held in upper storage ``ab``."""
    u, n = ab.shape[0] - 1, ab.shape[1]
    full = np.zeros((2 * u + 1, n))
    full[: u + 1] = ab
    for k in range(1, u + 1):                 # A[i + k, i] = A[i, i + k] = ab[u - k, i + k]
        full[u + k, : n - k] = ab[u - k, k:]

    def apply(b):
        return sla.solve_banded((u, u), full, b, check_finite=False)

    return Factor(apply, "banded LU", n, where)


def cholesky_banded(ab, *, where="linear solve"):
    """Banded Cholesky of a symmetric positive definite matrix in upper storage.

    Raises
    ------
    SolveError
        ``reason="not positive definite"`` when LAPACK finds a non-positive pivot,
        ``"non-finite"`` for a non-finite entry.

    >>> ab = np.array([[0.0, 1.0], [4.0, 3.0]])          # [[4, 1], [1, 3]]
    >>> cholesky_banded(ab).solve([1.0, 2.0]).round(6).tolist()
    [0.090909, 0.636364]
    """
    ab = checks.array(ab, "ab", shape=(None, None), finite=None)
    if not np.all(np.isfinite(ab)):
        raise SolveError(where=where, reason="non-finite",
                         message="the matrix has non-finite entries (banded Cholesky)")
    try:
        cb = sla.cholesky_banded(ab, lower=False, check_finite=False)
    except sla.LinAlgError:
        raise SolveError(where=where, reason="not positive definite",
                         message="banded Cholesky found a non-positive pivot") from None
    return Factor(lambda b: sla.cho_solve_banded((cb, False), b, check_finite=False),
                  "banded Cholesky", ab.shape[1], where)


# spd=True packs a sparse matrix into band storage only while the band holds at most this
# many times the stored entries (a mesh numbered across its short side: 3.4 for the T6
# cantilever 80 x 8); a wider band costs more than SuperLU's fill
_BAND_FILL = 10.0


def _upper_band(A):
    """Upper band storage of a sparse ``A`` if it is symmetric and narrow-banded, else None.

    The symmetry test compares every stored entry with its mirror (relative 1e-13 of
    the largest entry); unsymmetric matrices (a follower-load tangent) go to LU.
    """
    A = A.tocsr()
    A.sum_duplicates()
    n = A.shape[0]
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    cols, data = A.indices, A.data
    off = cols - rows
    u = int(off.max(initial=0))
    if (u + 1) * n > _BAND_FILL * max(A.nnz, 1) or int(-off.min(initial=0)) != u:
        return None
    ab = np.zeros((u + 1, n))
    up = off >= 0
    ab[u - off[up], cols[up]] = data[up]
    lo = ~up                                        # A[i, j], i > j, is A[j, i] at (u + j - i, i)
    if (np.count_nonzero(lo) != np.count_nonzero(off > 0)
            or np.abs(ab[u + off[lo], rows[lo]] - data[lo]).max(initial=0.0)
            > 1e-13 * np.abs(data).max(initial=0.0)):
        return None
    return ab


def factor(A, *, where="linear solve", banded=None, spd=False):
    """Factorise ``A`` once for repeated solves (see the module docstring).

    Parameters
    ----------
    A : ndarray, scipy.sparse matrix, self-solving matrix, callable or None
        The matrix.  A matrix object with ``shape`` and ``solve(b)`` that is not an
        array (the banded rod tangent :class:`lib.kernels.banded.SymmetricBanded`)
        solves itself; its failures become ``SolveError``.  With ``banded``, it is only used if the banded Cholesky fails
        (``A`` may then be a callable returning the matrix, built only then, or
        None for a banded LU of ``banded`` itself).
    where : str
        What is being solved, for the error message (``"rod.static tangent"``).
    banded : ndarray, optional
        Upper banded storage of a symmetric ``A``: tried first by banded Cholesky.
    spd : bool
        ``A`` (sparse) is expected to be symmetric positive definite (a displacement
        finite-element tangent near a stable equilibrium): it is packed into band
        storage in its own numbering and factorised by banded Cholesky (LAPACK
        ``pbtrf``, 3-4 times faster than SuperLU on the book's T6 cantilevers), unless
        it is not symmetric, its band is too wide or a pivot is not positive; then
        SuperLU as without it.  The two agree to round-off.

    Returns
    -------
    Factor

    Raises
    ------
    SolveError
        ``reason="singular"`` (exactly singular) or ``"non-finite"`` (a NaN or inf
        entry), with ``where``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> factor(sp.diags([2.0, 4.0]).tocsr(), where="M a = f").solve([1.0, 1.0]).tolist()
    [0.5, 0.25]
    >>> ab = np.array([[0.0, 2.0], [1.0, 1.0]])            # [[1, 2], [2, 1]]: indefinite
    >>> f = factor(None, banded=ab); f.kind, f.solve([3.0, 3.0]).round(12).tolist()
    ('banded LU', [1.0, 1.0])
    >>> K = sp.diags([[-1.0, -1.0], [2.0, 2.0, 2.0], [-1.0, -1.0]], [-1, 0, 1]).tocsr()
    >>> f = factor(K, spd=True); f.kind, f.solve([1.0, 0.0, 1.0]).round(12).tolist()
    ('banded Cholesky', [1.0, 1.0, 1.0])
    >>> factor(-K, spd=True).kind                         # not positive definite: LU
    'sparse LU'
    """
    if spd and banded is None and sp.issparse(A) and A.shape[0] == A.shape[1]:
        if A.dtype.kind in "iuf" and np.all(np.isfinite(A.data)):
            ab = _upper_band(A)
            if ab is not None:
                try:
                    return cholesky_banded(ab, where=where)
                except SolveError as err:
                    if err.reason != "not positive definite":
                        raise
    if banded is not None:
        try:
            return cholesky_banded(banded, where=where)
        except SolveError as err:
            if err.reason != "not positive definite":
                raise
        if A is None:
            return _banded_lu_from_upper(np.asarray(banded, dtype=float), where)
        if callable(A):
            A = A()
    if A is None or callable(A):
        raise ValueError(f"A must be a matrix to factorise for {where}, got {checks.show(A)}")
    if _is_operator(A):
        return _operator_factor(A, where)
    if sp.issparse(A):
        return _sparse_factor(A, where)
    return _dense_factor(A, where)


def solve(A, b, *, where="linear solve"):
    """``A^{-1} b`` in one call (:func:`factor` then :meth:`Factor.solve`).

    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), [1.0, 1.0]).tolist()
    [0.5, 0.25]
    """
    return factor(A, where=where).solve(b)


def solve_banded(l_and_u, ab, b, *, where="linear solve"):
    """``A^{-1} b`` for a general banded ``A`` (:func:`scipy.linalg.solve_banded` storage).

    ``l_and_u = (l, u)`` the lower and upper bandwidths, ``ab[u + i - j, j] = A[i, j]``.

    >>> solve_banded((1, 1), [[0, 1, 1], [2, 2, 2], [1, 1, 0]], [3, 4, 3]).round(12).tolist()
    [1.0, 1.0, 1.0]
    >>> solve_banded((0, 0), [[0.0, 1.0]], [1.0, 1.0], where="D x = b")
    Traceback (most recent call last):
        ...
    lib.core.errors.SolveError: D x = b: tangent singular; the matrix is exactly singular (banded LU)
    """
    try:
        low, up = l_and_u
    except (TypeError, ValueError):
        raise ValueError(f"l_and_u must be a pair (l, u), got {checks.show(l_and_u)}") from None
    l_and_u = (checks.integer(low, "l_and_u", low=0), checks.integer(up, "l_and_u", low=0))
    ab = checks.array(ab, "ab", shape=(l_and_u[0] + l_and_u[1] + 1, None), finite=None)
    b = checks.array(b, "b", finite=None)
    if b.ndim not in (1, 2) or b.shape[0] != ab.shape[1]:
        raise ValueError(f"b must have shape ({ab.shape[1]},) or ({ab.shape[1]}, k), got "
                         f"shape {b.shape}")
    if not (np.all(np.isfinite(ab)) and np.all(np.isfinite(b))):
        raise SolveError(where=where, reason="non-finite",
                         message="the matrix or right-hand side has non-finite entries (banded LU)")
    try:
        with _quiet():
            x = sla.solve_banded(l_and_u, ab, b, check_finite=False)
    except sla.LinAlgError:
        raise _singular(where, "banded LU") from None
    if not np.all(np.isfinite(x)):
        raise _singular(where, "banded LU", "the solution is not finite")
    return x


def require_positive_definite(A, *, where="stability check", hint=None):
    """Refuse an equilibrium whose symmetric tangent stiffness ``A`` is not positive definite.

    One Cholesky decides: banded for a matrix with upper band storage ``A.ab`` (the rod
    tangent :class:`lib.kernels.banded.SymmetricBanded`) or a narrow-banded sparse one,
    dense otherwise.  Only when it fails (or the band is too wide for it) is the lowest
    eigenvalue computed, for the message (dense ``eigh`` up to 3000 unknowns, else
    ARPACK); a matrix whose lowest eigenvalue is positive passes.

    Parameters
    ----------
    A : ndarray, scipy.sparse matrix or a matrix with ``ab`` and ``tosparse()``
        Symmetric (the mean of ``A`` and its transpose is tested).
    where : str
        What is being solved (``"rod.static"``), for the message.
    hint : str, optional
        Appended to the message (what instability this usually is, and the remedy).

    Raises
    ------
    SolveError
        ``reason="unstable equilibrium"`` with the lowest eigenvalue; ``"non-finite"``
        for a NaN or inf entry.

    Examples
    --------
    >>> require_positive_definite(np.array([[2.0, -1.0], [-1.0, 2.0]]))      # passes
    >>> require_positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]), where="a saddle")
    Traceback (most recent call last):
        ...
    lib.core.errors.SolveError: a saddle: unstable equilibrium; the tangent stiffness is not positive definite (lowest eigenvalue -1)
    """
    ab = getattr(A, "ab", None)
    if ab is not None and hasattr(A, "tosparse"):
        try:
            cholesky_banded(ab, where=where)
            return
        except SolveError as err:
            if err.reason != "not positive definite":
                raise
        A = A.tosparse()
    if sp.issparse(A):
        A = A.tocsr()
        A = 0.5 * (A + A.T)
        if not np.all(np.isfinite(A.data)):
            raise SolveError(where=where, reason="non-finite",
                             message="the tangent stiffness has non-finite entries")
        if factor(A, where=where, spd=True).kind == "banded Cholesky":
            return
    else:
        A = checks.array(A, "A", shape=(None, None), finite=None)
        A = 0.5 * (A + A.T)
        if not np.all(np.isfinite(A)):
            raise SolveError(where=where, reason="non-finite",
                             message="the tangent stiffness has non-finite entries")
        try:
            np.linalg.cholesky(A)
            return
        except np.linalg.LinAlgError:
            pass
    n = A.shape[0]
    if n <= 3000:
        dense = A.toarray() if sp.issparse(A) else A
        low = float(sla.eigh(dense, eigvals_only=True, subset_by_index=[0, 0])[0])
    else:
        low = float(spla.eigsh(A, k=1, which="SA", return_eigenvectors=False)[0])
    if low > 0.0:                       # positive definite; the band was too wide to tell
        return
    raise SolveError(where=where, reason="unstable equilibrium",
                     message=f"the tangent stiffness is not positive definite (lowest "
                             f"eigenvalue {low:.4g})" + (f"; {hint}" if hint else ""))
