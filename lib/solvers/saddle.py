r"""Saddle-point and complementarity solvers: KKT, Schur complement, LCP, QP.

Moved here from :mod:`lib.constraints` (KKT, Schur, Lemke's LCP) and
:mod:`lib.actuation` (the bound-constrained QP); both modules re-export them under
their old names.

The saddle-point (KKT) system, in the sign convention of the constraints chapter,

.. math::

    \begin{bmatrix}\mathbf M & -\mathbf B^{\top}\\ \mathbf B & \mathbf 0\end{bmatrix}
    \begin{bmatrix}\mathbf x\\ \boldsymbol\lambda\end{bmatrix}
    = \begin{bmatrix}\mathbf f\\ \boldsymbol\gamma\end{bmatrix},

is solved in one factorisation (:func:`kkt_solve`, any ``M`` nonsingular on the null
space of ``B``) or by the Schur complement ``B M^{-1} B^T`` (:func:`schur_solve`,
invertible ``M``); :func:`kkt_solve_dense` is the dense solve without the rank test,
for integrator inner loops.  The linear complementarity problem LCP(A, b) --
``lam >= 0``, ``w = A lam + b >= 0``, ``lam . w = 0`` -- is solved by Lemke's
method (:func:`solve_lcp`; general ``A``, unique for a P-matrix); the
bound-constrained convex QP ``min x^T H x / 2 + f^T x``, ``lower <= x <= upper``,
``a_lower <= A x <= a_upper`` by DAQP (:func:`qp_solve`).

Array layout: ``M`` (n, n) dense or ``scipy.sparse``; ``B`` (m, n) of full row rank;
``f`` (n,); ``gamma`` (m,).  Bad input raises ``ValueError`` naming the argument (a
NaN, a shape that does not match, a QP that is not convex); a solver that fails
raises :class:`~lib.core.errors.SolveError` (:class:`~lib.core.errors.ConvergenceError`
for Lemke) saying how far it got.

References
----------
Benzi, Golub and Liesen, Numerical solution of saddle point problems, *Acta
Numerica* 14 (2005) 1-137.  Cottle, Pang and Stone, *The Linear Complementarity
Problem* (1992).  Arnström, Bemporad and Axehill, A dual active-set solver for
embedded quadratic programming using recursive LDL^T updates, *IEEE TAC* 67 (2022).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..core import checks
from ..core.errors import ConvergenceError, SolveError
from ..core.linalg import factor

__all__ = ["kkt_matrix", "kkt_solve", "schur_solve", "constraint_rank", "LCPResult",
           "solve_lcp", "qp_solve"]
# kkt_solve_dense is public within lib but not in __all__: the unchecked kernel of
# lib.constraints' inner loops (its caller checks the input)

# backward error above which a computed solution of the KKT system is rejected
_BACKWARD_ERROR_LIMIT = 1e-9


def _checked(M, B, f, gamma):
    M = checks.matrix(M, "M", square=True, sparse=True)
    n = M.shape[0]
    B = checks.matrix(B, "B", sparse=True)
    if B.shape[1] != n:
        raise ValueError(f"B must have {n} columns (one per coordinate of M), got shape {B.shape}")
    m = B.shape[0]
    if m == 0:
        raise ValueError("B has no rows: there is no constraint to solve for")
    f = checks.vector(f, "f", n)
    gamma = checks.vector(gamma, "gamma", m)
    return M, B, f, gamma


def constraint_rank(B, rtol=None) -> int:
    r"""Numerical rank of a constraint Jacobian ``B`` (dense or sparse).

    The rank is the number of singular values above ``rtol * sigma_max``
    (default ``rtol = max(m, k) * eps``, NumPy's ``matrix_rank`` rule).  For
    sparse ``B`` only the columns holding a nonzero are kept, so the dense
    SVD costs :math:`O(m^2 k)` with ``k <= nnz(B)`` -- cheap when each
    constraint touches a few coordinates.

    Examples
    --------
    >>> constraint_rank(np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]]))
    1
    >>> constraint_rank(sp.eye(3, 5))
    3
    """
    B = checks.matrix(B, "B", sparse=True)
    if rtol is not None:
        rtol = checks.positive(rtol, "rtol")
    if sp.issparse(B):
        B = sp.csc_array(B)
        B.eliminate_zeros()
        cols = np.flatnonzero(np.diff(B.indptr))
        B = B[:, cols].toarray()
    if B.size == 0:
        return 0
    s = sla.svdvals(B)
    if rtol is None:
        rtol = max(B.shape) * np.finfo(float).eps
    if s[0] == 0.0:
        return 0
    return int(np.count_nonzero(s > rtol * s[0]))


def _require_full_row_rank(B, rtol):
    if rtol is not None:
        rtol = checks.positive(rtol, "rtol")
    m = B.shape[0]
    if m > B.shape[1]:
        raise ValueError(
            f"B is rank-deficient: {m} constraints on {B.shape[1]} coordinates "
            "(more rows than columns); remove redundant constraints")
    r = constraint_rank(B, rtol)
    if r < m:
        raise ValueError(
            f"B is rank-deficient: rank {r} < {m} rows (redundant or conflicting "
            "constraints); the multipliers are not unique")


def _backward_error(A, x, rhs):
    r = A @ x - rhs
    if sp.issparse(A):
        normA = abs(A).sum(axis=1).max()
    else:
        normA = np.abs(A).sum(axis=1).max()
    scale = normA * np.abs(x).max() + np.abs(rhs).max()
    return 0.0 if scale == 0.0 else float(np.abs(r).max() / scale)


def kkt_matrix(M, B, symmetric=False):
    r"""The KKT matrix :math:`[\mathbf M,\ -\mathbf B^{\top};\ \mathbf B,\ \mathbf 0]`.

    With ``symmetric=True`` the second block column is negated (the unknown
    is :math:`-\boldsymbol\lambda`): :math:`[\mathbf M,\ \mathbf B^{\top};\
    \mathbf B,\ \mathbf 0]`, the symmetric saddle-point form whose inertia
    for SPD ``M`` and full-rank ``B`` is ``(n positive, m negative, 0 zero)``.
    Dense in, dense out; any sparse input gives a CSC array of shape
    ``(n + m, n + m)``.

    Examples
    --------
    >>> kkt_matrix(np.eye(2), [[1.0, 1.0]])
    array([[ 1.,  0., -1.],
           [ 0.,  1., -1.],
           [ 1.,  1.,  0.]])
    """
    M = checks.matrix(M, "M", square=True, sparse=True)
    B = checks.matrix(B, "B", sparse=True)
    symmetric = checks.boolean(symmetric, "symmetric")
    n = M.shape[0]
    if B.shape[1] != n:
        raise ValueError(f"B must have {n} columns, got shape {B.shape}")
    s = 1.0 if symmetric else -1.0
    if sp.issparse(M) or sp.issparse(B):
        return sp.block_array([[M, s * sp.csr_array(B).T], [B, None]], format="csc")
    m = B.shape[0]
    return np.block([[M, s * B.T], [B, np.zeros((m, m))]])


def kkt_solve(M, B, f, gamma, rtol=None):
    r"""Solve the KKT system for ``(qdd, lam)`` in one factorisation.

    .. math::

        \begin{bmatrix}\mathbf M & -\mathbf B^{\top}\\ \mathbf B & \mathbf 0\end{bmatrix}
        \begin{bmatrix}\ddot{\mathbf q}\\ \boldsymbol\lambda\end{bmatrix}
        = \begin{bmatrix}\mathbf f\\ \boldsymbol\gamma\end{bmatrix}

    Dynamics reading: ``M`` mass, ``f`` applied force, ``gamma`` the
    acceleration-level constraint right-hand side; returns the accelerations
    and the multipliers (constraint force ``B.T @ lam``).  FEM-actuation
    reading: ``M`` = stiffness ``K``, ``f`` = load, ``gamma`` = prescribed
    constraint value :math:`\delta^*`; returns the displacement ``u`` and the
    actuator forces.  Works for a singular ``M`` as long as ``M`` is
    nonsingular on the null space of ``B``.

    Parameters
    ----------
    M : (n, n) ndarray or scipy.sparse
    B : (m, n) ndarray or scipy.sparse, full row rank
    f : (n,) array_like
    gamma : (m,) array_like
    rtol : float, optional
        relative singular-value threshold of the rank check of ``B``
        (see :func:`constraint_rank`).

    Returns
    -------
    qdd : (n,) ndarray
    lam : (m,) ndarray

    Raises
    ------
    ValueError
        bad shapes (naming the argument), rank-deficient ``B``, or a singular
        KKT matrix (``M`` singular on the null space of ``B``).

    Examples
    --------
    A unit mass on the line x1 = x2 pulled by f = (1, 0):

    >>> qdd, lam = kkt_solve(np.eye(2), [[1.0, -1.0]], [1.0, 0.0], [0.0])
    >>> np.round(qdd, 12), np.round(lam, 12)
    (array([0.5, 0.5]), array([-0.5]))
    """
    M, B, f, gamma = _checked(M, B, f, gamma)
    _require_full_row_rank(B, rtol)
    n = M.shape[0]
    A = kkt_matrix(M, B)
    rhs = np.concatenate([f, gamma])
    try:
        x = factor(A, where="kkt_solve").solve(rhs)
    except SolveError as exc:
        raise ValueError(
            "the KKT matrix is singular: M is singular on the null space of B "
            f"({exc.detail})") from None
    eta = _backward_error(A, x, rhs)
    if not np.all(np.isfinite(x)) or eta > _BACKWARD_ERROR_LIMIT:
        raise ValueError(
            f"the KKT matrix is numerically singular (backward error {eta:.2e}): "
            "M is singular on the null space of B")
    return x[:n], x[n:]


def schur_solve(M, B, f, gamma, rtol=None):
    r"""Solve the KKT system by the Schur complement :math:`\mathbf S=\mathbf B\mathbf M^{-1}\mathbf B^{\top}`.

    .. math::

        \mathbf S\boldsymbol\lambda = \boldsymbol\gamma - \mathbf B\mathbf M^{-1}\mathbf f,
        \qquad \ddot{\mathbf q} = \mathbf M^{-1}(\mathbf f + \mathbf B^{\top}\boldsymbol\lambda).

    In the FEM-actuation reading (``M`` = stiffness ``K``) this is
    :math:`\delta^* = \mathbf B\mathbf K^{-1}\mathbf B^{\top}\boldsymbol\lambda
    + \delta_{\text{free}}` solved for the actuator forces.  Needs an
    invertible ``M`` (one LU of ``M``: ``splu`` for sparse, LAPACK for dense);
    the returned pair is the same as :func:`kkt_solve` returns.

    Parameters and returns as in :func:`kkt_solve`.

    Raises
    ------
    ValueError
        bad shapes, rank-deficient ``B``, singular ``M`` or singular ``S``.

    Examples
    --------
    >>> qdd, lam = schur_solve(np.eye(2), [[1.0, -1.0]], [1.0, 0.0], [0.0])
    >>> np.round(qdd, 12), np.round(lam, 12)
    (array([0.5, 0.5]), array([-0.5]))
    """
    M, B, f, gamma = _checked(M, B, f, gamma)
    _require_full_row_rank(B, rtol)
    Bt = B.T.toarray() if sp.issparse(B) else B.T
    rhs = np.column_stack([f, Bt])
    try:
        X = factor(M, where="schur_solve: M").solve(rhs)
    except SolveError as exc:
        raise ValueError(f"M is singular; schur_solve needs an invertible M "
                         f"(kkt_solve does not): {exc.detail}") from None
    Minv_f, Minv_Bt = X[:, 0], X[:, 1:]
    S = B @ Minv_Bt
    try:
        lam = factor(np.asarray(S), where="schur_solve: S").solve(gamma - B @ Minv_f)
    except SolveError as exc:
        raise ValueError(f"the Schur complement B M^-1 B^T is singular: {exc.detail}") from None
    qdd = Minv_f + Minv_Bt @ lam
    A = kkt_matrix(M, B)
    x = np.concatenate([qdd, lam])
    eta = _backward_error(A, x, np.concatenate([f, gamma]))
    if not np.all(np.isfinite(x)) or eta > _BACKWARD_ERROR_LIMIT:
        raise ValueError(f"schur_solve is numerically unreliable here (backward error "
                         f"{eta:.2e}): M or B M^-1 B^T is near singular; try kkt_solve")
    return qdd, lam


def kkt_solve_dense(M, B, f, gamma):
    """Dense KKT solve without the SVD rank test and the input checks, for inner loops.

    ``M`` (n, n), ``B`` (m, n), ``f`` (n,), ``gamma`` (m,) as float ndarrays (the
    caller has checked them: :func:`lib.constraints.accelerations` does).  A
    rank-deficient ``B`` makes the KKT matrix singular, which the LU
    (``LinAlgError``) or the backward-error check catches, as a ``ValueError``.

    >>> qdd, lam = kkt_solve_dense(np.eye(2), np.array([[1.0, -1.0]]), np.array([1.0, 0.0]),
    ...                            np.zeros(1))
    >>> qdd.round(12).tolist(), lam.round(12).tolist()
    ([0.5, 0.5], [-0.5])
    """
    n, m = M.shape[0], B.shape[0]
    A = np.zeros((n + m, n + m))
    A[:n, :n] = M
    A[:n, n:] = -B.T
    A[n:, :n] = B
    rhs = np.concatenate([f, gamma])
    try:
        x = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        raise ValueError("the KKT matrix is singular (B rank-deficient or M singular "
                         "on the null space of B)") from None
    eta = _backward_error(A, x, rhs)
    if not np.all(np.isfinite(x)) or eta > _BACKWARD_ERROR_LIMIT:
        raise ValueError(f"the KKT matrix is numerically singular (backward error {eta:.2e})")
    return x[:n], x[n:]


@dataclass(frozen=True)
class LCPResult:
    """Solution of an LCP by :func:`solve_lcp`.

    Fields: ``lam`` (m,) >= 0, ``w = A lam + b`` (m,) >= 0, ``residual`` the
    natural residual :math:`\\|\\min(\\lambda, w)\\|_\\infty` (zero exactly
    at a solution), ``complementarity`` :math:`\\lambda^{\\top}w`,
    ``pivots`` the number of Lemke pivots.
    """

    lam: np.ndarray
    w: np.ndarray
    residual: float
    complementarity: float
    pivots: int


def solve_lcp(A, b, tol=1e-10, max_pivots=None) -> LCPResult:
    r"""Solve the linear complementarity problem LCP(A, b) by Lemke's algorithm.

    Find :math:`\boldsymbol\lambda` with

    .. math::

        \boldsymbol\lambda \ge 0,\qquad \mathbf w = \mathbf A\boldsymbol\lambda + \mathbf b \ge 0,
        \qquad \boldsymbol\lambda^{\top}\mathbf w = 0 .

    Complementary pivoting on the tableau of
    :math:`\mathbf w - \mathbf A\boldsymbol\lambda - \mathbf e z_0 = \mathbf b`
    with covering vector :math:`\mathbf e = (1,\dots,1)`, the
    lexicographic minimum-ratio rule against degenerate cycling
    (Cottle, Pang & Stone 1992, sec. 4.4).  Lemke finds the unique solution
    whenever ``A`` is a P-matrix (e.g. the symmetric positive definite
    Delassus matrix :math:`\mathbf B\mathbf M^{-1}\mathbf B^{\top}` of independent
    contacts).  SciPy has no LCP solver; for symmetric positive definite
    ``A`` the problem is also a bound-constrained QP.

    Parameters
    ----------
    A : (m, m) array_like
    b : (m,) array_like
    tol : float
        accepted natural residual, relative to ``1 + max|b|``.
    max_pivots : int, optional
        default ``50 * (m + 1)``.

    Returns
    -------
    LCPResult

    Raises
    ------
    lib.core.errors.ConvergenceError
        on ray termination (no solution reachable: ``A`` is not a P-matrix
        or the LCP is infeasible), on exceeding ``max_pivots``, or if the
        final residual exceeds the tolerance; the message gives the pivots
        made and the residual.

    Examples
    --------
    >>> r = solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, 6.0])
    >>> r.lam, r.w, r.residual
    (array([2.5, 0. ]), array([0. , 8.5]), 0.0)
    """
    A = checks.matrix(A, "A", square=True)
    if A.shape[0] == 0:
        raise ValueError("A must be a non-empty square matrix, got shape (0, 0)")
    b = checks.vector(b, "b", A.shape[0])
    tol = checks.positive(tol, "tol")
    max_pivots = (50 * (A.shape[0] + 1) if max_pivots is None
                  else checks.integer(max_pivots, "max_pivots", low=1))
    return _lemke(A, b, tol, max_pivots)


def _lemke(A, b, tol, max_pivots):
    m = A.shape[0]
    scale = 1.0 + float(np.abs(b).max())
    pivots = 0
    if np.all(b >= 0):
        lam = np.zeros(m)
    else:
        # columns: w (0..m-1), lam (m..2m-1), z0 (2m), rhs (2m+1)
        T = np.hstack([np.eye(m), -A, -np.ones((m, 1)), b[:, None]])
        basis = np.arange(m)
        z0 = 2 * m

        def pivot(r, c):
            T[r] /= T[r, c]
            col = T[:, c].copy()
            col[r] = 0.0
            T[:] -= np.outer(col, T[r])

        r = int(np.argmin(b))
        entering = z0
        while True:
            if pivots >= max_pivots:
                raise ConvergenceError(
                    f"no solution after {pivots} pivots (max_pivots = {max_pivots})",
                    where="Lemke", reason="maxiter")
            if pivots > 0:
                col = T[:, entering]
                cand = np.flatnonzero(col > 1e-12 * max(1.0, np.abs(col).max()))
                if cand.size == 0:
                    raise ConvergenceError(
                        f"after {pivots} pivots (A is not a P-matrix or the LCP has no "
                        "solution)", where="Lemke", reason="ray termination")
                ratios = T[cand, -1] / col[cand]
                rmin = ratios.min()
                tied = cand[ratios <= rmin + 1e-12 * max(1.0, abs(rmin))]
                if np.any(basis[tied] == z0):
                    r = int(tied[basis[tied] == z0][0])
                elif tied.size == 1:
                    r = int(tied[0])
                else:  # lexicographic rule on the rows of the current basis inverse
                    keys = T[tied][:, :m] / col[tied][:, None]
                    r = int(tied[np.lexsort(keys.T[::-1])[0]])
            pivot(r, entering)
            pivots += 1
            leaving = basis[r]
            basis[r] = entering
            if leaving == z0:
                break
            entering = leaving + m if leaving < m else leaving - m
        x = np.zeros(2 * m + 1)
        x[basis] = T[:, -1]
        lam = np.maximum(x[m:2 * m], 0.0)
    w = A @ lam + b
    residual = float(np.abs(np.minimum(lam, w)).max())
    if residual > tol * scale:
        raise ConvergenceError(
            f"stopped after {pivots} pivots with natural residual {residual:.3e} > "
            f"{tol * scale:.3e}", where="Lemke", reason="not settled")
    return LCPResult(lam, w, residual, float(lam @ w), pivots)


def qp_solve(H, f, lower, upper, A=None, a_lower=None, a_upper=None):
    r"""``min 1/2 x^T H x + f^T x`` s.t. ``lower <= x <= upper`` (and ``a_lower <= A x <= a_upper``).

    Solved by DAQP (Arnström, Bemporad and Axehill 2022), a dual active-set method:
    it ends on the exact active set, so an active bound holds to round-off, and it
    returns the multipliers, signed so that ``H x + f + lam_box + A^T lam_A = 0``
    (``lam_i > 0``: upper bound active; ``lam_i < 0``: lower bound active; 0: inactive,
    the complementarity of the KKT conditions).  ``H`` must be symmetric positive
    definite (DAQP's automatic regularisation of singular ``H`` is switched off
    here: it would bias the answer at the 1e-6 level).

    Returns
    -------
    x : (n,) minimiser
    lam : (n,) bound multipliers
    lam_A : (k,) multipliers of the rows of ``A`` (empty without ``A``)

    Raises
    ------
    ValueError
        Naming the argument: a NaN anywhere (bounds may be ±inf: no bound), shapes
        that do not match ``f`` (``H`` (n, n), bounds (n,) or one number, ``A``
        (k, n), ``a_lower`` / ``a_upper`` (k,)), ``lower > upper``, an ``H`` that is
        not symmetric or not positive definite (the QP is then not strictly convex).
    SolveError
        If DAQP reports anything but an optimal solution (``reason`` names its exit
        flag: infeasible, cycling, unbounded, iteration limit).

    Examples
    --------
    >>> x, lam, _ = qp_solve(np.eye(2), np.array([-2.0, 1.0]), np.zeros(2), np.ones(2))
    >>> x.tolist(), lam.tolist()
    ([1.0, 0.0], [1.0, -1.0])
    >>> qp_solve(np.eye(2), [np.nan, 1.0], 0.0, 1.0)
    Traceback (most recent call last):
        ...
    ValueError: f must be finite, got nan at index 0
    >>> qp_solve(-np.eye(2), [1.0, 1.0], 0.0, 1.0)
    Traceback (most recent call last):
        ...
    ValueError: H must be positive definite (the QP is not strictly convex): smallest eigenvalue -1
    """
    import daqp
    from ctypes import c_int

    f = checks.vector(f, "f")
    n = f.size
    H = checks.matrix(H, "H")
    if H.shape != (n, n):
        raise ValueError(f"H must have shape ({n}, {n}) to match f (length {n}), got shape "
                         f"{H.shape}")
    sc = float(np.abs(H).max()) if n else 0.0
    if not sc > 0:
        raise ValueError("H must be a nonzero positive definite matrix, got max|H| = 0")
    if np.abs(H - H.T).max() > 1e-12 * sc:
        raise ValueError(f"H must be symmetric, got max|H - H^T| = {np.abs(H - H.T).max():.3e}")
    try:
        sla.cholesky(H / sc)
    except sla.LinAlgError:
        raise ValueError(f"H must be positive definite (the QP is not strictly convex): smallest "
                         f"eigenvalue {np.linalg.eigvalsh(H)[0]:.3g}") from None
    lower = checks.array(lower, "lower", shape=(n,), broadcast=True, finite=False)
    upper = checks.array(upper, "upper", shape=(n,), broadcast=True, finite=False)
    if A is None:
        if a_lower is not None or a_upper is not None:
            raise ValueError("A must be given with a_lower / a_upper (the rows they bound), "
                             "got None")
        A, a_lower, a_upper = np.zeros((0, n)), np.zeros(0), np.zeros(0)
    A = checks.matrix(A, "A", shape=(None, n))
    k = A.shape[0]
    a_lower = checks.array(-np.inf if a_lower is None else a_lower, "a_lower", shape=(k,),
                           broadcast=True, finite=False)
    a_upper = checks.array(np.inf if a_upper is None else a_upper, "a_upper", shape=(k,),
                           broadcast=True, finite=False)
    for lo_name, lo, hi_name, hi in (("lower", lower, "upper", upper),
                                     ("a_lower", a_lower, "a_upper", a_upper)):
        if np.any(lo > hi):
            i = int(np.flatnonzero(lo > hi)[0])
            raise ValueError(f"{lo_name} must be <= {hi_name}, got {lo[i]:g} > {hi[i]:g} "
                             f"at index {i}")
    hi = np.ascontiguousarray(np.concatenate([upper, a_upper]))
    lo = np.ascontiguousarray(np.concatenate([lower, a_lower]))
    sense = np.zeros(n + k, dtype=c_int)
    # DAQP's singularity test is absolute (sing_tol ~ 4e-11): solve the problem scaled
    # to max|H| = 1 and scale the multipliers back
    Hs, fs = np.ascontiguousarray(H / sc), np.ascontiguousarray(f / sc)
    try:
        x, _, flag, info = daqp.solve(Hs, fs, np.ascontiguousarray(A), hi, lo, sense,
                                      eps_prox=0.0, primal_tol=1e-12)
    except Exception as err:   # noqa: BLE001  (DAQP raises plain errors on bad input)
        raise SolveError(f"DAQP raised: {err}", where="qp_solve (DAQP)",
                         reason="failed") from None
    if flag < 1:
        why = {-1: "infeasible", -2: "cycling", -3: "unbounded", -4: "iteration limit",
               -5: "not convex", -6: "invalid problem"}.get(int(flag), f"exit flag {flag}")
        raise SolveError(f"exit flag {flag}, no optimal solution", where="qp_solve (DAQP)",
                         reason=why)
    lam = sc * np.asarray(info["lam"], dtype=float)
    return np.asarray(x, dtype=float), lam[:n], lam[n:]
