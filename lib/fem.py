r"""Plane-strain neo-Hookean finite elements on T3 and T6 triangles.

A structured rectangle ``[0, length] x [-height/2, height/2]`` of ``nx x ny``
cells, every cell cut along the same diagonal; T6 uses the same triangles with
mid-side nodes.  The material is the compressible neo-Hookean solid in plane
strain (per unit thickness)

.. math::

    W(F) = \tfrac{\mu}{2}\bigl(\operatorname{tr}F^{\top}F - 2 - 2\ln J\bigr)
           + \tfrac{\lambda}{2}(\ln J)^2,\qquad
    P = \mu(F - F^{-\top}) + \lambda \ln J\,F^{-\top},

    A_{iJkL} = \mu\,\delta_{ik}\delta_{JL}
             + (\mu - \lambda\ln J)\,F^{-1}_{Jk}F^{-1}_{Li}
             + \lambda\,F^{-1}_{Ji}F^{-1}_{Lk},

with ``F = I + grad u`` and ``J = det F``.  The energy is the single source of
truth: :func:`energy`, :func:`gradient` (internal force) and :func:`hessian`
(tangent stiffness) integrate ``W``, ``P`` and ``A`` with the same quadrature.
At ``u = 0`` the tangent is the linear-elastic stiffness with the Lame
constants ``mu, lam`` (the ``F -> I`` limit), see :func:`linear_stiffness`.

Array layout (used in every function of this module)
-----------------------------------------------------
``nodes``     (n_nodes, 2)  reference coordinates ``(X, Y)``
``elements``  (n_el, n_en)  node numbers, counter-clockwise corners first, then
              the mid-sides of edges 1-2, 2-3, 3-1 (T6); ``n_en`` = 3 or 6
``u``         (2 n_nodes,)  displacements interleaved: ``u[2a]``, ``u[2a+1]`` are
              ``u_x, u_y`` of node ``a`` (``u.reshape(-1, 2)[a]``)
``free``      indices into ``u`` of the unconstrained dofs; a *condensed* vector
              is ``u[free]``, a condensed matrix ``K[free][:, free]``

Book symbols inside kernels: ``G[e, q, a, J]`` = dN_a/dX_J at quadrature point
``q`` of element ``e``; ``w[e, q]`` = quadrature weight x area factor;
``F[e, q, i, J]`` deformation gradient.

Contents
--------
make_model, cantilever, Model                             the neo-Hookean body on a mesh
neo_hookean, energy, strain_energy, gradient, hessian, linear_stiffness, mass, condensed_force,
internal_force                                            energy and derivatives
tip_deflection                                            the tip readout
solve_linear, static, frequencies, bending_frequencies, highest_frequency
                                                          solvers
mixed_solve, pressure                                     T6/P1 mixed element
cable_row, section_rows                                   constraint rows
plane_strain_modulus, euler_bernoulli_tip, deflection_ratio, timoshenko_tip_ratio,
corner_exponent                                           theory
cantilever_tip_ratio, cantilever_frequencies              the book's public calls

From :mod:`lib.fe` (the finite-element kit, re-exported here): Mesh, rectangle_mesh,
clamped_dofs (meshes); condense, expand (Dirichlet condensation); face_traction_load,
tip_shear_load, face_pressure_load (consistent loads); admissible; DivergenceCount,
divergence_matrix, divergence_free_dimension, inf_sup_constants (locking diagnostics);
ConvergenceError.

References
----------
Armanini et al. (2023), Soft Robots Modeling: A Structured Overview, IEEE T-RO
39(3) (FEM of soft robots, eq. 19 for actuation constraints); Bonet & Wood,
Nonlinear Continuum Mechanics for Finite Element Analysis (neo-Hookean model);
Taylor & Hood (1973) for the T6/P1 pair; Cowper (1966) for the shear coefficient.

Examples
--------
>>> import lib.fem as fem
>>> round(fem.cantilever_tip_ratio(20, 2, "T3", 0.3), 4)
0.5216
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.optimize as sopt
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .beam import euler_bernoulli_omegas
from .core import checks, linalg, quadrature
from .core.errors import SolveError
from .fe import (ConvergenceError, DivergenceCount, Mesh, Space, admissible, assemble_matrix,
                 assemble_vector, check_clamped, check_mesh_args, check_u, clamped_dofs,
                 condense, deformation_gradient, divergence_free_dimension, divergence_matrix,
                 expand, face_nodes, face_pressure_load, face_traction_load, inf_sup_constants,
                 make_space, rectangle_mesh, roundoff_floor, shape_functions, solve_path,
                 taylor_hood_blocks, tip_shear_load)
from .solvers import newton_solve

__all__ = [
    # mesh and model
    "Mesh", "Model", "rectangle_mesh", "make_model", "cantilever", "clamped_dofs",
    # material, energy and its derivatives
    "neo_hookean", "energy", "strain_energy", "gradient", "hessian", "linear_stiffness",
    "mass", "admissible",
    # boundary conditions and loads
    "condense", "expand", "condensed_force", "internal_force", "face_traction_load",
    "tip_shear_load", "face_pressure_load", "tip_deflection", "deflection_ratio",
    # solvers
    "solve_linear", "static", "frequencies", "bending_frequencies", "highest_frequency",
    "pressure", "mixed_solve", "ConvergenceError",
    # locking diagnostics
    "DivergenceCount", "divergence_matrix", "divergence_free_dimension", "inf_sup_constants",
    "corner_exponent", "corner_extrapolation",
    # constraints (actuators, weak clamp)
    "cable_row", "section_rows",
    # theory and the public cantilever calls
    "plane_strain_modulus", "euler_bernoulli_tip", "timoshenko_tip_ratio",
    "cantilever_tip_ratio", "cantilever_frequencies",
]


# --------------------------------------------------------------------------------------
# model: the neo-Hookean body on a mesh
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Model(Space):
    """A meshed plane-strain body: a :class:`lib.fe.Space` with its material.

    Made by :func:`make_model` (or :func:`cantilever`); every array is read-only.

    Attributes
    ----------
    mesh, fixed, free, G, w, Nm, wm, dofs, pattern : those of :class:`lib.fe.Space`
        (quadrature data, clamp, dofs and assembly pattern of the mesh).
    E, nu, rho : Young's modulus, Poisson ratio, density (per unit thickness).
    mu, lam : Lame constants ``E/(2(1+nu))``, ``E nu/((1+nu)(1-2nu))``.
    """

    E: float
    nu: float
    rho: float
    mu: float
    lam: float


def _check_nu(nu):
    return checks.real(nu, "nu", -1.0, 0.5, include_low=False, include_high=False)


def _check_model(model, name="model"):
    return checks.kind(model, name, Model, "a plane-strain neo-Hookean model (lib.fem.Model, "
                                           "made by lib.fem.make_model)")


def _check_load(model, load, name="load"):
    return None if load is None else checks.vector(load, name, model.n_dofs)


def _check_matrix(model, A, name):
    return None if A is None else checks.matrix(A, name, (model.n_dofs, model.n_dofs),
                                                sparse=True)


def make_model(mesh, E=1.0, nu=0.3, rho=1.0, fixed=None):
    r"""Plane-strain model on ``mesh`` with Young's modulus ``E``, Poisson ratio ``nu``.

    Precomputes the quadrature data and the sparsity pattern once
    (:func:`lib.fe.make_space`), so that every assembly is a single vectorised kernel
    plus a ``bincount``.

    Parameters
    ----------
    mesh : Mesh
    E, rho : float > 0
    nu : float in (-1, 0.5)
    fixed : array of dof indices held at zero (default: none)

    Returns
    -------
    Model

    Examples
    --------
    >>> m = make_model(rectangle_mesh(1, 1, "T3"), nu=0.25)
    >>> round(m.mu, 3), round(m.lam, 3)
    (0.4, 0.4)
    """
    nu, E, rho = _check_nu(nu), checks.positive(E, "E"), checks.positive(rho, "rho")
    space = make_space(mesh, fixed)
    mu = E / (2 * (1 + nu))
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    return Model(**vars(space), E=float(E), nu=float(nu), rho=float(rho),
                 mu=float(mu), lam=float(lam))


def cantilever(nx, ny, element="T6", nu=0.3, E=1.0, rho=1.0, slenderness=10.0):
    """The book's cantilever: ``length = slenderness``, ``height = 1``, face X = 0 clamped.

    ``nx x ny`` cells (square when ``nx = slenderness ny``), every cell cut along
    the same diagonal "/".

    Examples
    --------
    >>> m = cantilever(10, 1, "T3")
    >>> m.free.size
    40
    """
    nx, ny, element = check_mesh_args(nx, ny, element)
    nu, E, rho = _check_nu(nu), checks.positive(E, "E"), checks.positive(rho, "rho")
    slenderness = checks.positive(slenderness, "slenderness")
    if nx * ny > _SPACE_CACHE_CELLS:
        mesh = rectangle_mesh(nx, ny, element, length=slenderness, height=1.0)
        return make_model(mesh, E=E, nu=nu, rho=rho, fixed=clamped_dofs(mesh))
    space = _cantilever_space(nx, ny, element, float(slenderness))
    return Model(**vars(space), E=float(E), nu=float(nu), rho=float(rho),
                 mu=float(E / (2 * (1 + nu))), lam=float(E * nu / ((1 + nu) * (1 - 2 * nu))))


_SPACE_CACHE_CELLS = 4096           # meshes up to 160 x 16 (about 10 MB each) are kept


@functools.lru_cache(maxsize=32)
def _cantilever_space(nx, ny, element, slenderness):
    """The clamped cantilever's space (read-only arrays), built once per mesh: the chapters
    build the same meshes for many materials (make_model's values, bit for bit)."""
    mesh = rectangle_mesh(nx, ny, element, length=slenderness, height=1.0)
    return make_space(mesh, clamped_dofs(mesh))


# --------------------------------------------------------------------------------------
# material
# --------------------------------------------------------------------------------------
def neo_hookean(F, mu, lam, order=2):
    r"""Plane-strain neo-Hookean energy density, first Piola stress and tangent.

    .. math::
        W = \tfrac{\mu}{2}(\operatorname{tr}F^{\top}F - 2 - 2\ln J) + \tfrac{\lambda}{2}\ln^2 J,\quad
        P = \mu(F - F^{-\top}) + \lambda\ln J\,F^{-\top},

        A_{iJkL} = \mu\delta_{ik}\delta_{JL} + (\mu - \lambda\ln J)F^{-1}_{Jk}F^{-1}_{Li}
                 + \lambda F^{-1}_{Ji}F^{-1}_{Lk}.

    Parameters
    ----------
    F : (..., 2, 2) deformation gradients ``F[..., i, J]``, ``det F > 0``.
    mu, lam : Lame constants.
    order : 0 returns ``W``; 1 returns ``(W, P)``; 2 returns ``(W, P, A)``.

    Returns
    -------
    W : (...)  P : (..., 2, 2)  A : (..., 2, 2, 2, 2) indexed ``[..., i, J, k, L]``.

    Raises
    ------
    ValueError if some ``det F <= 0`` (the energy is infinite there).

    Examples
    --------
    >>> W, P, A = neo_hookean(np.eye(2), 1.0, 2.0)
    >>> float(W), P.tolist(), float(A[0, 0, 0, 0])
    (0.0, [[0.0, 0.0], [0.0, 0.0]], 4.0)
    """
    F = checks.array(F, "F")
    if F.shape[-2:] != (2, 2):
        raise ValueError(f"F must have shape (..., 2, 2), got shape {F.shape}")
    mu = checks.positive(mu, "mu")
    lam = checks.real(lam, "lam", low=-mu, include_low=False)     # nu > -1
    return _neo_hookean(F, mu, lam, checks.choice(order, "order", (0, 1, 2)))


def _neo_hookean(F, mu, lam, order=2):
    J = F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0]
    if np.any(J <= 0):
        raise ValueError(f"F must have det F > 0 everywhere, min det F = {J.min():.3e}")
    lnJ = np.log(J)
    W = 0.5 * mu * (np.einsum("...iJ,...iJ->...", F, F) - 2 - 2 * lnJ) + 0.5 * lam * lnJ**2
    if order == 0:
        return W
    # F^{-1}[J, i]
    Fi = np.stack([np.stack([F[..., 1, 1], -F[..., 0, 1]], -1),
                   np.stack([-F[..., 1, 0], F[..., 0, 0]], -1)], -2) / J[..., None, None]
    FiT = np.swapaxes(Fi, -1, -2)                     # F^{-T}[i, J]
    P = mu * (F - FiT) + (lam * lnJ)[..., None, None] * FiT
    if order == 1:
        return W, P
    I = np.eye(2)
    A = (mu * np.einsum("ik,JL->iJkL", I, I)
         + (mu - lam * lnJ)[..., None, None, None, None] * np.einsum("...Jk,...Li->...iJkL", Fi, Fi)
         + lam * np.einsum("...Ji,...Lk->...iJkL", Fi, Fi))
    return W, P, A


# --------------------------------------------------------------------------------------
# energy, internal force, tangent, mass
# --------------------------------------------------------------------------------------
def energy(model, u, load=None):
    r"""Potential energy ``Pi(u) = sum_e sum_q w W(F) - load . u``.

    Parameters
    ----------
    model : Model
    u : (2 n_nodes,) displacements (layout in the module docstring).
    load : (2 n_nodes,) dead nodal loads, or None.

    Examples
    --------
    >>> m = cantilever(2, 1, "T3")
    >>> float(energy(m, np.zeros(m.n_dofs)))
    0.0
    """
    _check_model(model)
    return _energy(model, check_u(model, u), _check_load(model, load))


def _energy(model, u, load=None):
    W = _neo_hookean(deformation_gradient(model, u), model.mu, model.lam, order=0)
    Pi = float(np.sum(model.w * W))
    if load is not None:
        Pi -= float(np.dot(load, u))
    return Pi


def strain_energy(model, u):
    """Stored energy ``sum_q w W(F)`` (no load term)."""
    return energy(model, u, None)


def gradient(model, u, load=None):
    r"""Internal force minus load, ``f_a = sum_q w P(F) grad N_a - load`` (the gradient of :func:`energy`).

    Returns a (2 n_nodes,) array in the layout of ``u``.

    Examples
    --------
    >>> m = cantilever(2, 1, "T6")
    >>> float(np.abs(gradient(m, np.zeros(m.n_dofs))).max())
    0.0
    """
    _check_model(model)
    return _gradient(model, check_u(model, u), _check_load(model, load))


def _first_piola(F, mu, lam):
    """P(F) of :func:`neo_hookean` entry by entry: the floating-point operations of
    ``_neo_hookean(F, mu, lam, 1)[1]`` (so the same bits) without W and the 2 x 2 stacking,
    about 3x cheaper on a small mesh (the internal force of an explicit or implicit run)."""
    F00, F01, F10, F11 = F[..., 0, 0], F[..., 0, 1], F[..., 1, 0], F[..., 1, 1]
    J = F00 * F11 - F01 * F10
    if np.any(J <= 0):
        raise ValueError(f"F must have det F > 0 everywhere, min det F = {J.min():.3e}")
    llnJ = lam * np.log(J)
    P = np.empty_like(F)
    for i, j, FiT in ((0, 0, F11 / J), (0, 1, -F10 / J), (1, 0, -F01 / J), (1, 1, F00 / J)):
        P[..., i, j] = mu * (F[..., i, j] - FiT) + llnJ * FiT      # mu (F - F^-T) + lam lnJ F^-T
    return P


def _gradient(model, u, load=None, F=None):
    """``F`` (optional) is the deformation gradient at ``u``, if the caller has it."""
    P = _first_piola(deformation_gradient(model, u) if F is None else F, model.mu, model.lam)
    # f_e[a, i] = sum_q w_q G[q, a, J] P[q, i, J]: a batched matmul, summed over q
    wP = model.w[:, :, None, None] * P
    fe = np.matmul(model.G, np.swapaxes(wP, 2, 3)).sum(axis=1).reshape(len(model.dofs), -1)
    f = assemble_vector(model, fe)
    if load is not None:
        f = f - load
    return f


def hessian(model, u):
    r"""Tangent stiffness ``K_ab = sum_q w grad N_a . A(F) . grad N_b`` as a CSR matrix.

    The Hessian of :func:`energy`, shape (2 n_nodes, 2 n_nodes), symmetric.

    Examples
    --------
    >>> m = cantilever(2, 1, "T3")
    >>> K = hessian(m, np.zeros(m.n_dofs))
    >>> K.shape, bool(abs(K - K.T).max() == 0)
    ((12, 12), True)
    """
    _check_model(model)
    return _hessian(model, check_u(model, u))


_KE = "eq,eqaJ,eqiJkL,eqbL->eaibk"
_KE_PATHS = {}                      # the contraction order of _KE, per array shapes


def _hessian(model, u):
    _, indices, indptr, _ = model.pattern
    n = model.n_dofs
    return sp.csr_matrix((_tangent_data(model, deformation_gradient(model, u)), indices, indptr),
                         shape=(n, n))


def _tangent_data(model, F):
    """The CSR data of the tangent at the deformation gradient ``F`` (``model.pattern``'s
    layout): the element matrices summed by :func:`lib.fe.assemble_matrix`'s bincount."""
    _, _, A = _neo_hookean(F, model.mu, model.lam)
    # optimize=True contracts pairwise with BLAS (about 20x faster on 80 x 8 T6
    # than the plain loop over e q a i b k J L); its rounding breaks exact symmetry,
    # which the element-level average restores. The order it finds depends only on the
    # shapes: found once per shape (searching it cost as much as contracting a small mesh).
    key = (model.w.shape, model.G.shape)
    if key not in _KE_PATHS:
        _KE_PATHS[key] = np.einsum_path(_KE, model.w, model.G, A, model.G, optimize=True)[0]
    Ke = np.einsum(_KE, model.w, model.G, A, model.G, optimize=_KE_PATHS[key])
    n = 2 * model.G.shape[2]
    Ke = Ke.reshape(-1, n, n)
    inv, _, _, nnz = model.pattern
    return np.bincount(inv, weights=(0.5 * (Ke + Ke.transpose(0, 2, 1))).ravel(), minlength=nnz)


def linear_stiffness(model):
    r"""Linear-elastic stiffness: the tangent at ``u = 0`` (``F -> I``).

    There ``P -> mu (grad u + grad u^T) + lam tr(grad u) I``, the plane-strain
    Hooke law with the Lame constants of the model.
    """
    _check_model(model)
    return _hessian(model, np.zeros(model.n_dofs))


def mass(model):
    r"""Consistent mass ``M_ab = rho int N_a N_b dA`` (exact quadrature), CSR.

    Examples
    --------
    >>> m = cantilever(4, 2, "T6", slenderness=2.0)
    >>> M = mass(m)
    >>> round(float(M.sum()) / 2, 12)    # rho x area (each of the two directions)
    2.0
    """
    _check_model(model)
    Me = model.rho * np.einsum("eq,qa,qb->eab", model.wm, model.Nm, model.Nm)
    ne = Me.shape[1]
    Ke = np.zeros((Me.shape[0], ne, 2, ne, 2))
    Ke[:, :, 0, :, 0] = Me
    Ke[:, :, 1, :, 1] = Me
    return assemble_matrix(model, Ke.reshape(-1, 2 * ne, 2 * ne))


def condensed_force(model, load=None):
    """``force(u_free) -> (f, K)`` on the free dofs, for :func:`lib.integrate.newmark_step`.

    ``f = f_int(u) - load`` and ``K`` its tangent, both condensed; the fixed dofs stay zero.
    """
    _check_model(model)
    fr, n = model.free, model.n_dofs
    load = np.zeros(n) if load is None else _check_load(model, load)
    # the free rows and columns of the assembled CSR pattern, found once: K[fr][:, fr]
    # is then a gather of the assembled values (the same numbers, no sparse slicing)
    _, indices, indptr, _ = model.pattern
    at = np.full(n, -1)
    at[fr] = np.arange(fr.size)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    keep = np.flatnonzero((at[rows] >= 0) & (at[indices] >= 0))
    sub_indices = at[indices[keep]].astype(np.int32)
    sub_indptr = np.concatenate([[0], np.cumsum(np.bincount(at[rows[keep]],
                                                            minlength=fr.size))]).astype(np.int32)

    def force(u_free):
        u = expand(model, u_free)
        F = deformation_gradient(model, u)          # shared by the force and the tangent
        Kf = sp.csr_matrix((_tangent_data(model, F)[keep], sub_indices, sub_indptr),
                           shape=(fr.size, fr.size))
        return _gradient(model, u, load, F=F)[fr], Kf

    return force


def internal_force(model, load=None):
    r"""``force(u_free) -> f`` on the free dofs: :func:`gradient` condensed, for many calls.

    ``f = f_int(u) - load`` restricted to the free dofs, the fixed dofs held at zero:
    the right-hand side of an explicit integrator or an ODE solver, which asks for it
    thousands of times on one model.  The displacement gradients at every quadrature
    point are one sparse matrix product with an operator ``B`` built here once
    (``grad u[e, q, i, J] = sum_a u[e, a, i] G[e, q, a, J]``), and the force is its
    transpose applied to ``w P(F)``:
    the same sums as :func:`gradient` in another order (equal to round-off), without
    re-checking the model and state at every call.

    The returned call raises a ValueError naming ``u_free`` if it has the wrong shape,
    is not finite or makes ``det F <= 0`` at a quadrature point.

    Examples
    --------
    >>> m = cantilever(2, 1, "T6")
    >>> f = internal_force(m)
    >>> u = 1e-3 * np.arange(m.free.size)
    >>> g = gradient(m, expand(m, u))[m.free]
    >>> bool(np.abs(f(u) - g).max() < 1e-14 * np.abs(g).max())
    True
    """
    _check_model(model)
    load = None if load is None else _check_load(model, load)[model.free]
    n_el, n_q, n_en, _ = model.G.shape
    # B[(i J, e, q), dof (node a, direction i)] = G[e, q, a, J]: row block k = 2 i + J
    # holds grad u[:, :, i, J], so F's four entries are four contiguous rows
    rows = np.arange(4 * n_el * n_q).reshape(2, 2, n_el, n_q).transpose(2, 3, 0, 1)
    rows = np.broadcast_to(rows[:, :, None], (n_el, n_q, n_en, 2, 2))       # [e, q, a, i, J]
    nodes = model.mesh.elements[:, None, :, None, None]
    cols = np.broadcast_to(2 * nodes + np.arange(2)[:, None], rows.shape)
    vals = np.broadcast_to(model.G[:, :, :, None, :], rows.shape)
    B = sp.csr_matrix((vals.ravel(), (rows.ravel(), cols.ravel())),
                      shape=(4 * n_el * n_q, model.n_dofs))[:, model.free]
    wq = np.tile(model.w.ravel(), 4)
    BwT = sp.csr_matrix(B.multiply(wq[:, None]).T)                          # w folded in
    mu, lam, n_free = model.mu, model.lam, model.free.size
    eye = np.array([1.0, 0.0, 0.0, 1.0])[:, None]                            # I as [i J]
    sign = np.array([1.0, -1.0, -1.0, 1.0])[:, None]

    def force(u_free):
        u_free = np.asarray(u_free, dtype=float)
        if u_free.shape != (n_free,):
            raise ValueError(f"u_free must have shape ({n_free},), got {u_free.shape}")
        F = (B @ u_free).reshape(4, -1) + eye                 # F00, F01, F10, F11 rows
        J = F[0] * F[3] - F[1] * F[2]
        if not (J.min() > 0 and J.max() < np.inf):
            raise ValueError("u_free must be finite and keep det F > 0 everywhere, "
                             f"min det F = {J.min():.3e}")
        # P = mu (F - F^-T) + lam ln J F^-T with F^-T = cof F / J
        P = mu * F + ((lam * np.log(J) - mu) / J) * (F[::-1] * sign)
        f = BwT @ P.ravel()
        return f if load is None else f - load

    return force


def tip_deflection(model, u):
    """Plain mean of ``u_y`` over every node on X = length (T6 mid-side nodes included)."""
    checks.kind(model, "model", Space, "a finite-element space (a lib.fem.Model)")
    idx = face_nodes(model.mesh, "right")
    return float(np.mean(check_u(model, u).reshape(-1, 2)[idx, 1]))


# --------------------------------------------------------------------------------------
# solvers
# --------------------------------------------------------------------------------------
def solve_linear(model, load, K=None):
    """Linear static solution ``K u = load`` with the fixed dofs condensed out.

    Parameters
    ----------
    model : Model
    load : (2 n_nodes,) nodal loads
    K : optional precomputed stiffness (default :func:`linear_stiffness`)
    """
    check_clamped(_check_model(model))
    load, K = checks.vector(load, "load", model.n_dofs), _check_matrix(model, K, "K")
    K = linear_stiffness(model) if K is None else K
    Kf, ff = condense(model, K, load)
    return expand(model, linalg.solve(Kf, ff, where="fem.solve_linear: K (condensed stiffness)"))


def static(model, load, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Nonlinear equilibrium ``f_int(u) = load`` by Newton's method with load increments.

    The load is applied in ``steps`` equal increments; at each, Newton iterates on
    the condensed residual ``r = f_int(u) - load`` until ``|r| <= tol |load|``
    (infinity norms) or ``|r|`` reaches the round-off floor of the internal
    force (:func:`lib.fe.roundoff_floor` with ``2 mu + lam``).  A step that would make
    some ``det F <= 0`` is halved (up to 29 times).  It is :func:`lib.solvers.newton_solve`
    (plain Newton, ``admissible`` det F > 0) along a uniform :func:`lib.solvers.load_path`
    from ``u0`` (default zero).

    Raises
    ------
    ValueError
        naming a bad argument (a NaN in ``u0`` or ``load``, a load with no free
        component).
    ConvergenceError
        (a :class:`~lib.core.errors.SolveError`) naming the load step, the iteration and
        the residual reached; or with ``reason="unstable equilibrium"`` if the equilibrium
        reached is not stable (the condensed tangent is not positive definite: the
        straight cantilever compressed past buckling is an equilibrium, but a saddle).

    Examples
    --------
    A tip load ``alpha = P L^2/(E' I) = 1`` bends the L/h = 10 cantilever by 0.3 L:

    >>> m = cantilever(10, 1, "T6")
    >>> P = 1.0 * plane_strain_modulus(m) / 12 / m.mesh.length**2
    >>> u = static(m, tip_shear_load(m, P), steps=4)
    >>> round(tip_deflection(m, u) / m.mesh.length, 3)
    -0.3
    """
    _check_model(model)
    load = checks.vector(load, "load", model.n_dofs)
    steps, maxiter = checks.integer(steps, "steps", low=1), checks.integer(maxiter, "maxiter", low=0)
    tol = checks.nonnegative(tol, "tol")
    u0 = np.zeros(model.n_dofs) if u0 is None else check_u(model, u0, "u0").copy()
    fr = model.free
    scale = np.abs(load[fr]).max()
    if scale == 0:
        raise ValueError("load has no component on the free dofs")
    floor = roundoff_floor(model, 2 * model.mu + model.lam)

    def solve_at(lam, u):
        fs = load * lam
        return newton_solve(lambda u: (_gradient(model, u, fs), lambda: _hessian(model, u)), u,
                            tol, maxiter, max_backtracks=29, where="fem.static", accept="none",
                            scale=scale, floor=floor, roundoff="residual", free=fr,
                            admissible=lambda u: admissible(model, u), spd=True)

    u = solve_path(solve_at, u0, steps, "fem.static")[0]
    try:                # Newton also converges to saddles: the equilibrium must be stable
        linalg.require_positive_definite(
            _hessian(model, u)[fr][:, fr], where="fem.static",
            hint=linalg.BIFURCATION)
    except SolveError as err:
        raise err.recast(ConvergenceError).located(steps, nsteps=steps, load=1.0) from None
    return u


def _start_vector(n):
    """A fixed pseudo-random Lanczos start vector (results identical from run to run)."""
    return np.random.default_rng(0).standard_normal(n)


def frequencies(model, k=2, return_modes=False, K=None, M=None):
    r"""Lowest ``k`` angular frequencies of ``K phi = omega^2 M phi`` (condensed).

    Shift-invert Lanczos (``scipy.sparse.linalg.eigsh`` with ``sigma = 0``) on the
    linear stiffness and consistent mass.

    Returns
    -------
    omega : (k,) ascending; and with ``return_modes`` the full-length mode shapes
    (2 n_nodes, k), M-normalised.
    """
    check_clamped(_check_model(model))
    k = checks.integer(k, "k", 1, model.free.size - 2)
    return_modes = checks.boolean(return_modes, "return_modes")
    K, M = _check_matrix(model, K, "K"), _check_matrix(model, M, "M")
    K = linear_stiffness(model) if K is None else K
    M = mass(model) if M is None else M
    Kf, Mf = condense(model, K), condense(model, M)
    try:
        lam, vec = spla.eigsh(Kf.tocsc(), k=k, M=Mf.tocsc(), sigma=0.0, which="LM",
                              v0=_start_vector(Kf.shape[0]))
    except spla.ArpackNoConvergence as err:
        raise ConvergenceError(f"shift-invert Lanczos found {len(err.eigenvalues)} of k = {k} "
                               "eigenvalues") from err
    except RuntimeError as err:          # splu of a singular K inside eigsh
        raise SolveError(where="fem.frequencies: K (condensed stiffness)", reason="singular",
                         message=str(err)) from err
    order = np.argsort(lam)
    omega = np.sqrt(lam[order])
    if not return_modes:
        return omega
    modes = np.zeros((model.n_dofs, k))
    modes[model.free] = vec[:, order]
    return omega, modes


def highest_frequency(model, K=None, M=None):
    r"""Largest angular frequency ``omega_max`` of ``K phi = omega^2 M phi`` (condensed).

    Lanczos on the largest algebraic eigenvalue with ``M^{-1}`` applied by a
    sparse LU; ``2/omega_max`` is the stability limit of central differences.
    """
    _check_model(model)
    K, M = _check_matrix(model, K, "K"), _check_matrix(model, M, "M")
    K = linear_stiffness(model) if K is None else K
    M = mass(model) if M is None else M
    Kf, Mf = condense(model, K).tocsc(), condense(model, M).tocsc()
    lu = linalg.factor(Mf, where="fem.highest_frequency: M (condensed mass)")
    Minv = spla.LinearOperator(Kf.shape, matvec=lu.solve, dtype=float)
    try:
        lam = spla.eigsh(Kf, k=1, M=Mf, Minv=Minv, which="LA", tol=1e-12,
                         v0=_start_vector(Kf.shape[0]))[0]
    except spla.ArpackNoConvergence as err:
        raise ConvergenceError("Lanczos did not converge to the largest eigenvalue "
                               f"({len(err.eigenvalues)} converged)") from err
    return float(np.sqrt(lam[0]))


def _transverse_share(model, modes, M):
    """Share of each mode's kinetic energy carried by ``u_y`` (1 = purely transverse)."""
    my = np.zeros(model.n_dofs)
    my[1::2] = 1.0
    total = np.einsum("ik,ik->k", modes, M @ modes)
    trans = np.einsum("ik,ik->k", modes * my[:, None], M @ (modes * my[:, None]))
    return trans / total


def bending_frequencies(model, k=2):
    r"""The ``k`` lowest *bending* angular frequencies of a slender body.

    Eigenpairs come from :func:`frequencies`; a mode counts as bending when the
    transverse displacement ``u_y`` carries more than half of its kinetic energy
    (``phi_y^T M phi_y > phi^T M phi / 2``).  At L/h = 10 the third eigenmode is
    the first axial one, which this skips.

    Raises
    ------
    ConvergenceError if the lowest ``4 k + 4`` eigenmodes hold fewer than ``k`` bending ones.
    """
    _check_model(model)
    k = checks.integer(k, "k", 1, model.free.size - 2)
    K, M = linear_stiffness(model), mass(model)
    want = min(4 * k + 4, model.free.size - 2)
    omega, modes = frequencies(model, want, return_modes=True, K=K, M=M)
    bend = _transverse_share(model, modes, M) > 0.5
    if bend.sum() < k:
        raise ConvergenceError(f"only {int(bend.sum())} bending modes among the lowest "
                               f"{want} eigenmodes; asked for k = {k}")
    return omega[bend][:k]


# --------------------------------------------------------------------------------------
# the T6/P1 mixed element
# --------------------------------------------------------------------------------------
def mixed_solve(model, load):
    r"""Linear Taylor-Hood T6/P1 displacement-pressure solution (locking-free).

    Unknowns: quadratic displacement ``u`` and a continuous linear pressure field
    ``p_m`` on the corner nodes (``sigma = 2 mu eps(u) + p_m I``):

    .. math::
        \int 2\mu\,\varepsilon(u):\varepsilon(v) + \int p_m \operatorname{div} v = \ell(v),\qquad
        \int q\,\operatorname{div} u - \int q\,p_m/\lambda = 0,

    a symmetric saddle-point system solved by sparse LU.  As ``lambda -> infinity``
    the second equation becomes ``div u = 0`` weakly, imposed only at the corner
    nodes' pressure modes, so the quadratic displacement keeps enough freedom to bend.
    The pair is inf-sup stable on the book's cantilever meshes, 10 x 1 included:
    :func:`inf_sup_constants` computes the constant (Boffi, Brezzi & Fortin 2013).
    For ``lambda`` finite it has the
    same continuum limit as the displacement formulation.

    Parameters
    ----------
    model : Model on a T6 mesh
    load : (2 n_nodes,) nodal loads

    Returns
    -------
    u : (2 n_nodes,) displacements
    p : (n_el, 3) pressure ``-p_m`` (compression positive) at each element's corners

    Examples
    --------
    >>> m = cantilever(10, 1, "T6", nu=0.3)
    >>> u, p = mixed_solve(m, tip_shear_load(m))
    >>> round(-tip_deflection(m, u) / euler_bernoulli_tip(m), 4)
    0.9933
    """
    _check_model(model)
    if model.mesh.element != "T6":
        raise ValueError(f"model must be on a T6 mesh for mixed_solve, got {model.mesh.element!r}")
    load = checks.vector(load, "load", model.n_dofs)
    check_clamped(model)
    Kuu, Bup, Mpp, pidx = taylor_hood_blocks(model, model.mu)
    npr = Mpp.shape[0]
    fr = model.free
    Kb = sp.bmat([[Kuu[fr][:, fr], Bup[:, fr].T], [Bup[:, fr], -Mpp / model.lam]], format="csc")
    rhs = np.concatenate([load[fr], np.zeros(npr)])
    x = linalg.solve(Kb, rhs, where="fem.mixed_solve: the saddle-point matrix")
    u = expand(model, x[:fr.size])
    return u, -x[fr.size:][pidx]


def pressure(model, u, points=None):
    r"""Linear-elastic pressure ``p = -lam div u`` at reference points of every element.

    ``points`` are reference coordinates (n_p, 2) (default: the corners), the
    result has shape (n_el, n_p).  For T3 ``div u`` is constant per element.
    """
    _check_model(model)
    u = check_u(model, u)
    xi = (np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) if points is None
          else checks.array(points, "points", shape=(None, 2)))
    _, dN = shape_functions(model.mesh.element, xi)
    Xc = model.mesh.nodes[model.mesh.elements[:, :3]]
    Jinv = np.linalg.inv(np.stack([Xc[:, 1] - Xc[:, 0], Xc[:, 2] - Xc[:, 0]], 2))
    G = np.einsum("qak,ekJ->eqaJ", dN, Jinv)
    ue = u.reshape(-1, 2)[model.mesh.elements]
    div = np.einsum("eai,eqai->eq", ue, G)
    return -model.lam * div


# --------------------------------------------------------------------------------------
# constraint rows: actuators and a weak clamp
# --------------------------------------------------------------------------------------
def cable_row(model, eyelets):
    r"""Linearised shortening of a cable threaded through ``eyelets`` (node numbers, in order).

    The cable is straight between consecutive eyelets (frictionless, sliding), so
    its length is ``l(u) = sum_k |x_{k+1} - x_k|`` with ``x = X + u``.  Returns the
    row ``B = -dl/du`` at ``u = 0`` (2 n_nodes,):

    .. math:: \delta = B u = -\sum_k t_k \cdot (u_{k+1} - u_k),\qquad
              t_k = \frac{X_{k+1} - X_k}{|X_{k+1} - X_k|}.

    With the KKT convention ``K u = f + B^T lambda`` of :mod:`lib.constraints`,
    the multiplier of ``B u = delta*`` is the cable tension.
    """
    checks.kind(model, "model", Space, "a finite-element space (a lib.fem.Model)")
    e = np.asarray(eyelets) if not isinstance(eyelets, (str, bytes)) and eyelets is not None else None
    if e is None or e.dtype.kind not in "iu" or e.ndim != 1 or e.size < 2:
        raise ValueError(f"eyelets must list at least two node numbers, got "
                         f"{checks.show(eyelets)}")
    if e.min() < 0 or e.max() >= len(model.mesh.nodes):
        raise ValueError(f"eyelets must be node numbers in [0, {len(model.mesh.nodes)}), got "
                         f"{checks.show(eyelets)}")
    X = model.mesh.nodes[e]
    d = np.diff(X, axis=0)
    ln = np.linalg.norm(d, axis=1)
    if np.any(ln == 0):
        raise ValueError("eyelets must be distinct points in a row (consecutive repeats)")
    t = d / ln[:, None]
    B = np.zeros((model.n_dofs // 2, 2))
    np.add.at(B, e[1:], -t)
    np.add.at(B, e[:-1], t)
    return B.ravel()


def section_rows(model, x=0.0):
    r"""Resultant rows of the face ``X = x``: ``B u = (int u_x dY, int u_y dY, int Y u_x dY)``.

    Exact integrals of the edge interpolation, shape (3, 2 n_nodes).  ``B u = 0``
    is a *weak* clamp: it fixes the mean axial and transverse displacement and
    the mean section rotation (as Timoshenko beam theory does) but lets the face
    contract (Poisson) and warp, unlike the full clamp of :func:`clamped_dofs`.
    """
    checks.kind(model, "model", Space, "a finite-element space (a lib.fem.Model)")
    mesh, x = model.mesh, checks.real(x, "x")
    on = np.flatnonzero(np.isclose(mesh.nodes[:, 0], x))
    if on.size < 2:
        raise ValueError(f"x must be the X of a face of nodes, got {x!r}")
    idx = on[np.argsort(mesh.nodes[on, 1])]
    y = mesh.nodes[idx, 1]
    p = 1 if mesh.element == "T3" else 2
    s, wg = quadrature.line(3)
    Ne = (np.stack([1 - s, s]) if p == 1 else
          np.stack([(1 - s) * (1 - 2 * s), 4 * s * (1 - s), s * (2 * s - 1)]))
    B = np.zeros((3, model.n_dofs))
    for k in range(0, idx.size - 1, p):           # one face edge per step (short loop)
        a, b = y[k], y[k + p]
        w = wg * (b - a)
        yy = a + (b - a) * s
        nodes = idx[k:k + p + 1]
        B[0, 2 * nodes] += Ne @ w
        B[1, 2 * nodes + 1] += Ne @ w
        B[2, 2 * nodes] += Ne @ (w * yy)
    return B


# --------------------------------------------------------------------------------------
# theory and the public cantilever calls
# --------------------------------------------------------------------------------------
def plane_strain_modulus(model):
    """``E' = E / (1 - nu^2)``."""
    return _check_model(model).E / (1 - model.nu**2)


def euler_bernoulli_tip(model, total=1.0):
    r"""Euler-Bernoulli tip deflection ``P L^3 / (3 E' I)``, ``E' = E/(1-nu^2)``, ``I = h^3/12``."""
    m = _check_model(model).mesh
    total = checks.real(total, "total")
    return total * m.length**3 / (3 * plane_strain_modulus(model) * m.height**3 / 12)


def deflection_ratio(model, u, total=1.0):
    """Tip deflection of ``u`` (load ``total`` down) over ``P L^3/(3 E' I)``; 1 = Euler-Bernoulli.

    ``total`` is the resultant (non-zero; its sign is the load's direction).
    """
    _check_model(model)
    if checks.real(total, "total") == 0:
        raise ValueError("total must be non-zero (the resultant the ratio divides by), got 0")
    return -tip_deflection(model, u) / euler_bernoulli_tip(model, total)


def timoshenko_tip_ratio(nu, slenderness=10.0, ks=None):
    r"""Timoshenko cantilever tip deflection ÷ Euler-Bernoulli, in plane strain.

    .. math:: \frac{\delta}{PL^3/(3E'I)} = 1 + \frac{3E'I}{k_s\,\mu\,h\,L^2}
              = 1 + \frac{E'}{4 k_s \mu}\Bigl(\frac{h}{L}\Bigr)^2,

    ``E' = E/(1 - nu^2)``, ``mu = E/(2(1 + nu))``.  ``ks`` defaults to Cowper's
    rectangular-section coefficient ``10(1 + nu*)/(12 + 11 nu*)`` written with the
    plane-strain Poisson ratio ``nu* = nu/(1 - nu)`` (Cowper 1966).

    >>> round(timoshenko_tip_ratio(0.3), 6)
    1.008357
    """
    nu, slenderness = _check_nu(nu), checks.positive(slenderness, "slenderness")
    if ks is None:
        ns = nu / (1 - nu)
        ks = 10 * (1 + ns) / (12 + 11 * ns)
    ks = checks.positive(ks, "ks")
    Ep, mu = 1 / (1 - nu**2), 1 / (2 * (1 + nu))
    return 1 + Ep / (4 * ks * mu) / slenderness**2


def corner_exponent(nu, angle=np.pi / 2):
    r"""Williams' exponent of a corner with one clamped and one traction-free side (plane strain).

    Near such a corner of opening ``angle`` the displacement behaves as ``r^s``
    with ``s`` the smallest positive root of (Williams 1952)

    .. math:: 4\kappa\sin^2(s\,\alpha) = (1+\kappa)^2 - 4 s^2\sin^2\alpha,
              \qquad \kappa = 3 - 4\nu,

    and the stress as ``r^(s-1)``: singular for ``s < 1``.  An energy quantity
    (such as the compliance, the tip deflection under the tip load) computed on
    a uniform mesh of size ``h`` then converges as ``h^(2s)`` whatever the element
    order.  Only real roots are sought, so ``angle`` is limited to ``(0, pi/2]``
    (towards ``pi`` the leading root turns complex: ``1/2 + i ln(kappa)/(2 pi)`` at ``pi``).

    Parameters
    ----------
    nu : float in (-1, 0.5)
    angle : float in (0, pi/2], the corner's opening (``pi/2`` for the cantilever's root)

    Examples
    --------
    >>> round(corner_exponent(0.3), 4)
    0.7112
    """
    nu = _check_nu(nu)
    angle = checks.real(angle, "angle", 0.0, np.pi / 2 + 1e-15, include_low=False)
    kappa = 3 - 4 * nu

    def g(s):
        return 4 * kappa * np.sin(s * angle) ** 2 - (1 + kappa) ** 2 + 4 * s**2 * np.sin(angle) ** 2

    # g(0) < 0 and g > 0 once 2 s sin(angle) > 1 + kappa: bracket the first sign change
    hi = (1 + kappa) / (2 * np.sin(angle))
    grid = np.linspace(1e-9, hi, 2001)
    change = np.flatnonzero(np.diff(np.sign(g(grid))) > 0)
    if change.size == 0:
        raise ValueError(f"no real corner exponent for angle = {angle!r}, nu = {nu!r}")
    a, b = grid[change[0]], grid[change[0] + 1]
    return float(sopt.brentq(g, a, b, xtol=1e-14))     # g(a) < 0 < g(b): brentq cannot fail


def corner_extrapolation(values, nu, refinement=2.0, angle=np.pi / 2):
    r"""Richardson extrapolation of a mesh sequence with the known corner rate ``h^(2s)``.

    ``values[k]`` is an energy-like quantity (a tip deflection under the tip load) on
    uniform meshes each ``refinement`` times finer than the last.  With the leading
    error ``C h^(2s)``, ``s`` = :func:`corner_exponent` ``(nu, angle)``, each pair of
    neighbours gives the extrapolant

    .. math:: E_k = v_{k+1} + \frac{v_{k+1} - v_k}{r^{2s} - 1},

    and the answer is the last one, with the spread of the last two as its error bar
    (the spread falls from pair to pair as the higher-order terms die out, so it bounds
    the error of the last extrapolant once the sequence is near its asymptotic range).

    Parameters
    ----------
    values : (n,) float, n >= 3, coarse to fine
    nu : float in (-1, 0.5), Poisson's ratio of the corner's material
    refinement : float > 1, the mesh-size ratio between neighbours
    angle : float in (0, pi/2], the corner's opening

    Returns
    -------
    (value, error, extrapolants): the last extrapolant, ``|E_last - E_previous|`` and all
    ``n - 1`` extrapolants.

    Examples
    --------
    >>> s = corner_exponent(0.3)
    >>> h = 0.5 ** np.arange(4)
    >>> v = 1.0 - 0.2 * h ** (2 * s) + 0.05 * h ** (2 * s + 1)
    >>> value, err, _ = corner_extrapolation(v, 0.3)
    >>> abs(value - 1.0) < err < 1e-2
    True
    """
    v = checks.array(values, "values", (None,))
    if v.size < 3:
        raise ValueError(f"values must hold at least 3 meshes (two extrapolants), got {v.size}")
    r = checks.real(refinement, "refinement", 1.0, np.inf, include_low=False)
    factor = r ** (2 * corner_exponent(nu, angle)) - 1
    E = v[1:] + np.diff(v) / factor
    return float(E[-1]), float(abs(E[-1] - E[-2])), E


def cantilever_tip_ratio(nx, ny, element, nu):
    r"""Linear plane-strain cantilever tip deflection / Euler-Bernoulli ``P L^3/(3 E' I)``.

    L/h = 10, ``nx x ny`` cells, face X = 0 clamped, uniform end shear, the
    deflection is the plain mean of ``u_y`` over every node on X = L.

    Parameters
    ----------
    nx, ny : int >= 1
    element : "T3" or "T6"
    nu : float in (-1, 0.5)

    Returns
    -------
    float, a ratio (1 = Euler-Bernoulli).

    Examples
    --------
    >>> round(cantilever_tip_ratio(40, 4, "T6", 0.3), 5)
    1.00407
    """
    model = cantilever(nx, ny, element, nu)
    return deflection_ratio(model, solve_linear(model, tip_shear_load(model, 1.0)))


def cantilever_frequencies(nx, ny, element, nu, k=2):
    r"""First ``k`` bending frequencies of the same cantilever ÷ Euler-Bernoulli ones with ``E'``.

    Consistent mass, ``rho = 1``; Euler-Bernoulli ``omega_n = Omega_n sqrt(E' I/(rho h L^4))``
    with ``Omega_n`` from :func:`lib.beam.euler_bernoulli_omegas`.  Modes are
    picked by :func:`bending_frequencies` (for k = 2 they are the two lowest modes).

    Parameters
    ----------
    nx, ny : int >= 1
    element : "T3" or "T6"
    nu : float in (-1, 0.5)
    k : int >= 1

    Returns
    -------
    (k,) ratios, ascending in mode number.

    Examples
    --------
    >>> np.round(cantilever_frequencies(10, 1, "T6", 0.3), 4).tolist()
    [1.0033, 0.9648]
    """
    model = cantilever(nx, ny, element, nu)
    omega = bending_frequencies(model, checks.integer(k, "k", low=1))
    m = model.mesh
    eb = euler_bernoulli_omegas(k) * np.sqrt(
        plane_strain_modulus(model) * m.height**3 / 12 / (model.rho * m.height * m.length**4))
    return omega / eb
