"""Locking diagnostics of a discretisation: divergence constraints and inf-sup constants.

DivergenceCount, divergence_matrix(space), divergence_free_dimension(nx, ny, element)
                                      the incompressibility constraints a mesh imposes
vector_laplacian(space, mu)           int grad v : grad w (the H1 seminorm), or 2 mu eps : eps
taylor_hood_blocks(space, mu)         blocks of the T6/P1 displacement-pressure pair
inf_sup_constants(space, k, pressure) the discrete inf-sup values of a pair
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core import checks, linalg, quadrature
from ..core.errors import SolveError
from .assembly import (ConvergenceError, assemble_matrix, coo_indices, check_clamped,
                       check_space, make_space)
from .element import shape_functions
from .mesh import check_mesh_args, clamped_dofs, rectangle_mesh

__all__ = ["DivergenceCount", "divergence_matrix", "divergence_free_dimension",
           "vector_laplacian", "taylor_hood_blocks", "inf_sup_constants"]


class DivergenceCount(NamedTuple):
    """Counts of :func:`divergence_free_dimension` for one mesh and element."""

    free: int          #: free displacement components (dofs not clamped)
    constraints: int   #: incompressibility constraints (volumetric quadrature points)
    rank: int          #: rank of the discrete divergence on the free dofs
    dimension: int     #: free - rank, the dimension of the divergence-free subspace
    ratio: float       #: Hughes' constraint ratio free / constraints
    gap: float         #: smallest kept singular value / largest (how clear the rank is)


def divergence_matrix(model):
    r"""Discrete divergence at the volumetric quadrature points, ``D`` (n_el n_q, 2 n_nodes).

    Row ``(e, q)`` is ``sqrt(w_eq) div u`` at quadrature point ``q`` of element
    ``e``, the points the stiffness uses (one for T3, three for T6), so that the
    volumetric part of the linear stiffness is exactly ``lam D^T D``:

    .. math:: \tfrac{\lambda}{2}\sum_{e,q} w_{eq}\,(\operatorname{div}u)_{eq}^2
              = \tfrac{\lambda}{2}\,\lVert D u\rVert^2 .

    As ``lam -> infinity`` a finite-energy displacement must satisfy ``D u = 0``:
    each row is one incompressibility constraint.  (For T6, ``div u`` is linear
    in each element, so vanishing at its three points means vanishing everywhere.)

    Examples
    --------
    >>> divergence_matrix(make_space(rectangle_mesh(2, 1, "T3"))).shape
    (4, 12)
    """
    check_space(model)
    nel, nq = model.w.shape
    ne = 2 * model.G.shape[2]
    De = np.sqrt(model.w)[:, :, None, None] * model.G                   # [e, q, a, i]
    rows = np.repeat(np.arange(nel * nq), ne)
    cols = np.repeat(model.dofs[:, None, :], nq, axis=1).ravel()
    return sp.csr_matrix((De.reshape(-1), (rows, cols)), shape=(nel * nq, model.n_dofs))


def divergence_free_dimension(nx, ny, element, rtol=1e-10):
    r"""Dimension of the discretely divergence-free subspace of the book's cantilever.

    The cantilever of :func:`lib.fem.cantilever` (L/h = 10, face X = 0 clamped) on
    ``nx x ny`` cells; the constraints are the rows of :func:`divergence_matrix`
    restricted to the free dofs, ``D_f``.  The subspace ``{u_f : D_f u_f = 0}``
    holds every displacement a nearly incompressible material can take at finite
    energy; its dimension is ``n_free - rank D_f``.  The rank counts the singular
    values (``scipy.linalg.svdvals``, dense) above ``rtol`` times the largest.
    Hughes' constraint ratio ``r = n_free / n_constraints`` (Hughes 1987/2000,
    ch. 4, constraint counting) compares the count with the continuum's two equations per
    constraint: ``r <= 1`` predicts severe locking, ``r = 2`` is the ideal.

    Parameters
    ----------
    nx, ny : int >= 1
    element : "T3" or "T6"
    rtol : float in (0, 1), relative rank threshold

    Returns
    -------
    DivergenceCount

    Examples
    --------
    >>> divergence_free_dimension(20, 2, "T3")[:4]
    (120, 80, 80, 40)
    """
    nx, ny, element = check_mesh_args(nx, ny, element)
    rtol = checks.real(rtol, "rtol", 0.0, 1.0, include_low=False, include_high=False)
    mesh = rectangle_mesh(nx, ny, element, length=10.0, height=1.0)
    model = make_space(mesh, clamped_dofs(mesh))
    Df = divergence_matrix(model)[:, model.free]
    if min(Df.shape) > 4000:
        raise ValueError(f"nx x ny = {nx} x {ny} is too large for a dense SVD "
                         f"({Df.shape[0]} x {Df.shape[1]})")
    try:
        s = sla.svdvals(Df.toarray())
    except sla.LinAlgError as err:
        raise ConvergenceError(f"SVD of the {Df.shape[0]} x {Df.shape[1]} divergence "
                               f"matrix did not converge ({err})") from err
    rank = int(np.sum(s > rtol * s[0]))
    free = int(model.free.size)
    return DivergenceCount(free, int(Df.shape[0]), rank, free - rank, free / Df.shape[0],
                           float(s[rank - 1] / s[0]))


def vector_laplacian(model, mu=None):
    """Vector Laplacian ``int grad v : grad w`` (the H1 seminorm) on any element, all dofs;
    with ``mu`` the deviatoric stiffness ``int 2 mu eps(v) : eps(w)`` instead."""
    check_space(model)
    return _vector_laplacian(model, None if mu is None else checks.positive(mu, "mu"))


def _vector_laplacian(model, mu=None):
    I = np.eye(2)
    A0 = np.einsum("ik,JL->iJkL", I, I)
    if mu is not None:   # the tangent of a material with lam = 0 at F = I
        A0 = mu * (A0 + np.einsum("iL,Jk->iJkL", I, I))
    Ke = np.einsum("eq,eqaJ,iJkL,eqbL->eaibk", model.w, model.G, A0, model.G, optimize=True)
    ne = 2 * model.G.shape[2]
    return assemble_matrix(model, Ke.reshape(-1, ne, ne))


def taylor_hood_blocks(model, mu=None):
    r"""Blocks of the T6/P1 (Taylor-Hood) pair on ``model``'s T6 mesh, all dofs.

    Returns ``(Kuu, B, Mp, pidx)``: ``Kuu`` the velocity block, the vector Laplacian
    ``grad v : grad v`` (the H1 seminorm) or, given ``mu``, ``2 mu eps:eps``
    (:func:`vector_laplacian`); ``B[p, dof] = int N_p div N_dof``; ``Mp = int N_p N_q``
    the pressure mass; ``pidx`` (n_el, 3) the pressure number of every corner.
    """
    check_space(model)
    if model.mesh.element != "T6":
        raise ValueError(f"model must be on a T6 mesh (Taylor-Hood), got {model.mesh.element!r}")
    return _taylor_hood_blocks(model, None if mu is None else checks.positive(mu, "mu"))


def _taylor_hood_blocks(model, mu=None):
    mesh = model.mesh
    corners = mesh.elements[:, :3]
    cnodes, pidx = np.unique(corners, return_inverse=True)
    pidx = pidx.reshape(corners.shape)
    npr = cnodes.size
    ne = 2 * model.G.shape[2]
    Kuu = _vector_laplacian(model, mu)
    # pressure shape functions (linear, = area coordinates) at the stiffness points
    xq, _ = quadrature.triangle(2)
    Np, _ = shape_functions("T3", xq)                                        # (n_q, 3)
    Be = np.einsum("eq,qc,eqai->ecai", model.w, Np, model.G).reshape(len(corners), 3, ne)
    Bup = sp.csr_matrix((Be.ravel(), coo_indices(pidx, model.dofs)), shape=(npr, model.n_dofs))
    Ce = np.einsum("eq,qc,qd->ecd", model.w, Np, Np)
    Mpp = sp.csr_matrix((Ce.ravel(), coo_indices(pidx, pidx)), shape=(npr, npr))
    return Kuu, Bup, Mpp, pidx


def inf_sup_constants(model, k=1, pressure="taylor-hood"):
    r"""The ``k`` smallest discrete inf-sup values ``beta`` of a displacement-pressure pair.

    .. math:: \beta_h = \min_{q}\max_{v}\frac{\int q\operatorname{div}v}{\lvert v\rvert_1\,\lVert q\rVert_0},
              \qquad \beta_h^2 = \lambda_{\min}\bigl(B A^{-1} B^{\top},\ M_p\bigr),

    the smallest generalised eigenvalue of the Schur complement against the
    pressure mass ``M_p`` (Brezzi & Fortin; Boffi, Brezzi & Fortin 2013, ch. 5),
    with ``A`` the vector Laplacian (``|v|_1^2 = v^T A v``) on the free dofs of
    ``model``.  ``pressure`` selects the pair:

    * ``"taylor-hood"`` (T6 only): continuous linear pressure on the corner nodes,
      the pair of :func:`lib.fem.mixed_solve`;
    * ``"quadrature"``: one pressure value per volumetric quadrature point
      (discontinuous), the pressure that the *displacement* element implies
      (``p = lam div u`` at the points of :func:`divergence_matrix`; ``M_p`` = the weights).

    A pair is uniformly stable when ``beta_h`` stays bounded away from 0 as the mesh is
    refined.  A zero value means a pressure mode that no displacement can see
    (for clamped faces all round, the constant pressure).  Dense generalised
    ``scipy.linalg.eigh``; at most 4000 pressures.  For ``k = 1`` and more than 400
    pressures, Lanczos on the unformed Schur complement instead (the same value to
    about 1e-14; :func:`inf_sup_lanczos`).  Since ``|div v|^2 <= 2|grad v|^2``
    in two dimensions every ``beta <= sqrt(2)``.

    Returns
    -------
    (k,) ascending ndarray

    Examples
    --------
    >>> mesh = rectangle_mesh(10, 1, "T6")
    >>> round(float(inf_sup_constants(make_space(mesh, clamped_dofs(mesh)))[0]), 3)
    0.647
    """
    check_clamped(model)
    checks.choice(pressure, "pressure", ("taylor-hood", "quadrature"))
    fr = model.free
    if pressure == "taylor-hood":
        if model.mesh.element != "T6":
            raise ValueError(f"pressure='taylor-hood' needs a T6 model, got "
                             f"{model.mesh.element!r}")
        A, B, Mp, _ = _taylor_hood_blocks(model)
        Mp = Mp.toarray()
    else:
        A = _vector_laplacian(model)
        B = sp.diags(np.sqrt(model.w.ravel())) @ divergence_matrix(model)
        Mp = np.diag(model.w.ravel())
    npr = Mp.shape[0]
    k = checks.integer(k, "k", 1, npr)
    if npr > 4000:
        raise ValueError(f"model has {npr} pressures, too many for the dense eigenproblem")
    if k == 1 and npr > 400:
        try:                                  # Lanczos without forming the Schur complement
            return np.array([inf_sup_lanczos(A[fr][:, fr], B[:, fr], Mp)])
        except SolveError:                    # singular saddle matrix: the dense path
            pass
    Bf = B[:, fr].toarray()
    AinvBt = linalg.solve(A[fr][:, fr], Bf.T, where="the vector Laplacian on the free dofs")
    S = Bf @ AinvBt
    try:
        ev = sla.eigh(0.5 * (S + S.T), Mp, eigvals_only=True, subset_by_index=[0, k - 1])
    except sla.LinAlgError as err:
        raise ConvergenceError(f"generalised eigenproblem of the {npr} x {npr} Schur "
                               f"complement failed ({err})") from err
    return np.sqrt(np.maximum(ev, 0.0))


def inf_sup_lanczos(K, B, Mp):
    r"""The smallest inf-sup value ``beta_h = sqrt(lambda_min(B K^{-1} B^T, M_p))`` by Lanczos.

    ``K`` (n, n) symmetric positive definite (the vector Laplacian on the free dofs),
    ``B`` (m, n) the divergence-pressure matrix, ``M_p`` (m, m) the pressure mass; dense
    or sparse.  The Schur complement ``S = B K^{-1} B^T`` is never formed: ARPACK's
    generalized mode (:func:`scipy.sparse.linalg.eigsh`) finds the largest
    ``mu = 1/beta_h^2`` of ``M_p q = mu S q`` from ``S q`` (a solve with ``K``) and
    ``S^{-1} q`` (with ``v``, ``y`` solving ``K v + B^T y = 0, B v = -q``, one solve with
    the sparse saddle matrix ``[[K, B^T], [B, 0]]``, so ``S y = q``): the value of the
    dense generalized ``eigh`` of ``S`` to about 1e-14, at a fraction of its cost once
    there are hundreds of pressures (below 8 pressures, the dense ``eigh``).

    Raises
    ------
    ValueError
        naming a bad argument.
    lib.core.errors.SolveError
        ``reason="singular"`` if the saddle matrix is singular (a pressure mode no
        displacement sees, ``beta_h = 0``), or its subclass ``ConvergenceError`` if the
        eigensolve fails: :func:`inf_sup_constants` and
        :func:`lib.incompressible.inf_sup` then take their dense path.

    Examples
    --------
    >>> K = sp.diags([2.0, 2.0, 2.0]).tocsr()
    >>> B = sp.csr_matrix([[1.0, 1.0, 0.0]])
    >>> round(inf_sup_lanczos(K, B, sp.identity(1)), 12)            # sqrt((1 + 1) / 2)
    1.0
    """
    K = sp.csc_matrix(checks.matrix(K, "K", square=True, sparse=True))
    n_u = K.shape[0]
    B = sp.csc_matrix(checks.matrix(B, "B", (None, n_u), sparse=True))
    n_p = B.shape[0]
    Mp = sp.csr_matrix(checks.matrix(Mp, "Mp", (n_p, n_p), sparse=True))
    where = "inf-sup: the saddle matrix [[K, B^T], [B, 0]]"
    saddle = linalg.factor(sp.bmat([[K, B.T], [B, None]], format="csc"), where=where)
    lap = linalg.factor(sp.csr_matrix(K), spd=True, where="inf-sup: the vector Laplacian")
    zeros = np.zeros(n_u)
    S = spla.LinearOperator((n_p, n_p), matvec=lambda q: B @ lap.solve(B.T @ q), dtype=float)
    S_inv = spla.LinearOperator((n_p, n_p), dtype=float,
                                matvec=lambda q: saddle.solve(np.concatenate([zeros, -q]))[n_u:])
    try:
        if n_p < 8:                           # too few for ARPACK: the dense eigenproblem
            S = B @ lap.solve(B.T.toarray())
            ev = sla.eigh(0.5 * (S + S.T), Mp.toarray(), eigvals_only=True)[0]
            return float(np.sqrt(max(ev, 0.0)))
        mu = spla.eigsh(Mp, k=1, M=S, Minv=S_inv, which="LA", v0=np.ones(n_p), tol=1e-14,
                        return_eigenvectors=False)[0]
    except (spla.ArpackError, sla.LinAlgError, RuntimeError) as err:
        raise ConvergenceError(f"inf-sup: the generalised eigenproblem failed ({err})") from err
    if not mu > 0:
        raise ConvergenceError(f"inf-sup: the generalised eigenproblem gave mu = {mu!r}")
    return float(np.sqrt(1.0 / mu))
