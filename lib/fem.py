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
rectangle_mesh, make_model, cantilever, clamped_dofs      meshes and models
neo_hookean, energy, gradient, hessian, linear_stiffness, mass
                                                          energy and derivatives
condense, expand, condensed_force                         Dirichlet condensation
face_traction_load, tip_shear_load, face_pressure_load    consistent loads
solve_linear, static, frequencies, bending_frequencies, highest_frequency
                                                          solvers
mixed_solve, pressure                                     T6/P1 mixed element
divergence_matrix, divergence_free_dimension, inf_sup_constants, corner_exponent
                                                          locking and singularity diagnostics
cable_row, section_rows                                   constraint rows
cantilever_tip_ratio, cantilever_frequencies              the book's public calls
euler_bernoulli_tip, timoshenko_tip_ratio, deflection_ratio  theory

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

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.optimize as sopt
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .beam import euler_bernoulli_omegas

__all__ = [
    # mesh and model
    "Mesh", "Model", "rectangle_mesh", "make_model", "cantilever", "clamped_dofs",
    # material, energy and its derivatives
    "neo_hookean", "energy", "strain_energy", "gradient", "hessian", "linear_stiffness",
    "mass",
    # boundary conditions and loads
    "condense", "expand", "condensed_force", "face_traction_load", "tip_shear_load",
    "face_pressure_load", "tip_deflection", "deflection_ratio",
    # solvers
    "solve_linear", "static", "frequencies", "bending_frequencies", "highest_frequency",
    "pressure", "mixed_solve", "ConvergenceError",
    # locking diagnostics
    "DivergenceCount", "divergence_matrix", "divergence_free_dimension", "inf_sup_constants",
    "corner_exponent",
    # constraints (actuators, weak clamp)
    "cable_row", "section_rows",
    # theory and the public cantilever calls
    "plane_strain_modulus", "euler_bernoulli_tip", "timoshenko_tip_ratio",
    "cantilever_tip_ratio", "cantilever_frequencies",
]

ELEMENTS = ("T3", "T6")


from .core.errors import ConvergenceError  # noqa: E402  (one class with constraints')


# --------------------------------------------------------------------------------------
# reference element: shape functions and quadrature
# --------------------------------------------------------------------------------------
def _rule(degree):
    """Symmetric quadrature on the reference triangle (0,0),(1,0),(0,1), exact to ``degree``.

    Returns points (n_q, 2) and weights (n_q,) summing to the area 1/2.
    """
    if degree <= 1:
        return np.array([[1 / 3, 1 / 3]]), np.array([0.5])
    if degree == 2:
        p = np.array([[1 / 6, 1 / 6], [2 / 3, 1 / 6], [1 / 6, 2 / 3]])
        return p, np.full(3, 1 / 6)
    if degree <= 4:  # Dunavant (1985), 6 points
        a, wa = 0.445948490915965, 0.223381589678011
        b, wb = 0.091576213509771, 0.109951743655322
        p = np.array([[a, a], [1 - 2 * a, a], [a, 1 - 2 * a],
                      [b, b], [1 - 2 * b, b], [b, 1 - 2 * b]])
        return p, 0.5 * np.array([wa, wa, wa, wb, wb, wb])
    raise ValueError(f"degree must be <= 4, got {degree!r}")


def _shape(element, xi):
    """Shape functions N (n_q, n_en) and reference gradients dN (n_q, n_en, 2) at ``xi``."""
    s, t = xi[:, 0], xi[:, 1]
    L1, L2, L3 = 1 - s - t, s, t
    one, zero = np.ones_like(s), np.zeros_like(s)
    if element == "T3":
        N = np.stack([L1, L2, L3], 1)
        dN = np.stack([np.stack([-one, -one], 1), np.stack([one, zero], 1),
                       np.stack([zero, one], 1)], 1)
        return N, dN
    # T6: corners L_i(2L_i - 1), mid-sides 4 L_i L_j; dL/d(s,t) = (-1,-1), (1,0), (0,1)
    dL = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    Ls = np.stack([L1, L2, L3], 1)
    N = np.concatenate([Ls * (2 * Ls - 1),
                        4 * np.stack([L1 * L2, L2 * L3, L3 * L1], 1)], 1)
    dcorner = (4 * Ls - 1)[:, :, None] * dL[None]
    pairs = ((0, 1), (1, 2), (2, 0))
    dmid = np.stack([4 * (Ls[:, i, None] * dL[j] + Ls[:, j, None] * dL[i])
                     for i, j in pairs], 1)
    return N, np.concatenate([dcorner, dmid], 1)


# --------------------------------------------------------------------------------------
# mesh
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Mesh:
    """A structured triangle mesh of the rectangle ``[0, length] x [-height/2, height/2]``.

    Attributes
    ----------
    nodes : (n_nodes, 2) reference coordinates.
    elements : (n_el, 3) for T3 or (n_el, 6) for T6, counter-clockwise.
    element : "T3" or "T6".
    nx, ny : number of cells along x and y.
    length, height : the rectangle's sides.
    diagonal : "/" (every cell cut from lower-left to upper-right) or "\\".
    """

    nodes: np.ndarray
    elements: np.ndarray
    element: str
    nx: int
    ny: int
    length: float
    height: float
    diagonal: str


def _check_mesh_args(nx, ny, element):
    if element not in ELEMENTS:
        raise ValueError(f"element must be one of {ELEMENTS}, got {element!r}")
    for name, n in (("nx", nx), ("ny", ny)):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {n!r}")


def rectangle_mesh(nx, ny, element="T3", length=10.0, height=1.0, diagonal="/"):
    """Structured mesh of ``nx x ny`` cells, each cut along the same diagonal.

    Nodes lie on the grid ``X = i dx/p``, ``Y = -height/2 + j dy/p`` with ``p = 1``
    (T3) or ``p = 2`` (T6) and are numbered ``i (p ny + 1) + j`` (``j`` fastest).
    For T6 with diagonal cuts every grid point is a node: the mid-side node of a
    diagonal is the cell centre.

    Parameters
    ----------
    nx, ny : int >= 1
    element : "T3" or "T6"
    length, height : float > 0
    diagonal : "/" or "\\"

    Returns
    -------
    Mesh

    Examples
    --------
    >>> m = rectangle_mesh(2, 1, "T6")
    >>> m.nodes.shape, m.elements.shape
    ((15, 2), (4, 6))
    """
    _check_mesh_args(nx, ny, element)
    if not (length > 0 and height > 0):
        raise ValueError(f"length and height must be > 0, got {length!r}, {height!r}")
    if diagonal not in ("/", "\\"):
        raise ValueError(f"diagonal must be '/' or '\\\\', got {diagonal!r}")
    p = 1 if element == "T3" else 2
    mx, my = p * nx + 1, p * ny + 1
    X, Y = np.meshgrid(np.linspace(0, length, mx), np.linspace(-height / 2, height / 2, my),
                       indexing="ij")
    nodes = np.column_stack([X.ravel(), Y.ravel()])
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    i, j = p * i.ravel(), p * j.ravel()

    def nid(di, dj):
        return (i + di) * my + (j + dj)

    a, b, c, d = nid(0, 0), nid(p, 0), nid(p, p), nid(0, p)
    if diagonal == "/":
        tri = [(a, b, c), (a, c, d)]
    else:
        tri = [(a, b, d), (b, c, d)]
    corners = np.stack([np.stack(t, 1) for t in tri], 1).reshape(-1, 3)
    if p == 1:
        elements = corners
    else:
        # mid-side node of edge (m, n) on the doubled grid is the average grid index
        ij = np.stack([corners // my, corners % my], -1)
        mids = [(ij[:, m] + ij[:, n]) // 2 for m, n in ((0, 1), (1, 2), (2, 0))]
        mids = np.stack([q[:, 0] * my + q[:, 1] for q in mids], 1)
        elements = np.concatenate([corners, mids], 1)
    nodes.setflags(write=False)
    elements.setflags(write=False)
    return Mesh(nodes, elements, element, int(nx), int(ny), float(length), float(height),
                diagonal)


# --------------------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Model:
    """A meshed plane-strain body with its material, quadrature and assembly pattern.

    Made by :func:`make_model` (or :func:`cantilever`); every array is read-only.

    Attributes
    ----------
    mesh : Mesh
    E, nu, rho : Young's modulus, Poisson ratio, density (per unit thickness).
    mu, lam : Lame constants ``E/(2(1+nu))``, ``E nu/((1+nu)(1-2nu))``.
    fixed : sorted indices of the Dirichlet (zero) dofs; ``free`` the others.
    G : (n_el, n_q, n_en, 2) shape-function gradients at the stiffness points.
    w : (n_el, n_q) stiffness quadrature weights times element area factor.
    Nm, wm : (n_qm, n_en), (n_el, n_qm) shape values and weights of the mass rule.
    dofs : (n_el, 2 n_en) element dofs, node-major (``2 a + i``).
    """

    mesh: Mesh
    E: float
    nu: float
    rho: float
    mu: float
    lam: float
    fixed: np.ndarray
    free: np.ndarray
    G: np.ndarray
    w: np.ndarray
    Nm: np.ndarray
    wm: np.ndarray
    dofs: np.ndarray
    _pattern: tuple = field(repr=False)

    @property
    def n_dofs(self):
        return 2 * self.mesh.nodes.shape[0]


def _check_nu(nu):
    if not (isinstance(nu, (int, float, np.floating)) and -1.0 < nu < 0.5):
        raise ValueError(f"nu must lie in (-1, 0.5), got {nu!r}")


def _pattern(dofs, n):
    """Sparsity pattern of element matrices: (inverse map, CSR indices, indptr, nnz)."""
    ne = dofs.shape[1]
    rows = np.repeat(dofs, ne, axis=1).ravel()
    cols = np.tile(dofs, (1, ne)).ravel()
    key = rows.astype(np.int64) * n + cols
    uniq, inv = np.unique(key, return_inverse=True)
    indices = (uniq % n).astype(np.int32)
    indptr = np.searchsorted(uniq // n, np.arange(n + 1)).astype(np.int32)
    for a in (inv, indices, indptr):
        a.setflags(write=False)
    return inv, indices, indptr, uniq.size


def _assemble_matrix(model, Ke):
    """CSR matrix from element matrices ``Ke`` (n_el, 2 n_en, 2 n_en) (duplicates summed)."""
    inv, indices, indptr, nnz = model._pattern
    data = np.bincount(inv, weights=Ke.ravel(), minlength=nnz)
    n = model.n_dofs
    return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def _assemble_vector(model, fe):
    """Global vector from element vectors ``fe`` (n_el, 2 n_en)."""
    return np.bincount(model.dofs.ravel(), weights=fe.ravel(), minlength=model.n_dofs)


def make_model(mesh, E=1.0, nu=0.3, rho=1.0, fixed=None):
    r"""Plane-strain model on ``mesh`` with Young's modulus ``E``, Poisson ratio ``nu``.

    Precomputes the quadrature data and the sparsity pattern once, so that every
    assembly is a single vectorised kernel plus a ``bincount``.

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
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh must be a Mesh, got {type(mesh).__name__}")
    _check_nu(nu)
    if not (E > 0):
        raise ValueError(f"E must be > 0, got {E!r}")
    if not (rho > 0):
        raise ValueError(f"rho must be > 0, got {rho!r}")
    n = 2 * mesh.nodes.shape[0]
    fixed = np.unique(np.asarray([] if fixed is None else fixed, dtype=np.int64))
    if fixed.size and (fixed[0] < 0 or fixed[-1] >= n):
        raise ValueError(f"fixed dofs must lie in [0, {n}), got range "
                         f"[{fixed[0]}, {fixed[-1]}]")
    free = np.setdiff1d(np.arange(n), fixed)
    p = 1 if mesh.element == "T3" else 2
    # affine map X = X1 + Jac (s, t): Jac[e, I, k] = dX_I/dxi_k from the corner nodes
    Xc = mesh.nodes[mesh.elements[:, :3]]
    Jac = np.stack([Xc[:, 1] - Xc[:, 0], Xc[:, 2] - Xc[:, 0]], 2)
    det = np.linalg.det(Jac)
    if np.any(det <= 0):
        raise ValueError("mesh has inverted or degenerate elements")
    Jinv = np.linalg.inv(Jac)                                   # [e, k, J] = dxi_k/dX_J
    xq, wq = _rule(2 * p - 2)                                   # exact for linear stiffness
    _, dN = _shape(mesh.element, xq)
    G = np.einsum("qak,ekJ->eqaJ", dN, Jinv)
    w = det[:, None] * wq[None, :]
    xm, wmq = _rule(2 * p)                                      # exact for the mass
    Nm, _ = _shape(mesh.element, xm)
    wm = det[:, None] * wmq[None, :]
    dofs = (2 * mesh.elements[:, :, None] + np.arange(2)).reshape(len(mesh.elements), -1)
    mu = E / (2 * (1 + nu))
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    for a in (fixed, free, G, w, Nm, wm, dofs):
        a.setflags(write=False)
    return Model(mesh, float(E), float(nu), float(rho), float(mu), float(lam), fixed, free,
                 G, w, Nm, wm, dofs, _pattern(dofs, n))


def clamped_dofs(mesh, x=0.0):
    """Both dofs of every node on the face ``X = x`` (a full clamp)."""
    on = np.flatnonzero(np.isclose(mesh.nodes[:, 0], x))
    return np.sort(np.concatenate([2 * on, 2 * on + 1]))


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
    _check_mesh_args(nx, ny, element)
    _check_nu(nu)
    if not (slenderness > 0):
        raise ValueError(f"slenderness must be > 0, got {slenderness!r}")
    mesh = rectangle_mesh(nx, ny, element, length=float(slenderness), height=1.0)
    return make_model(mesh, E=E, nu=nu, rho=rho, fixed=clamped_dofs(mesh))


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


def _deformation_gradient(model, u):
    u = np.asarray(u, dtype=float)
    if u.shape != (model.n_dofs,):
        raise ValueError(f"u must have shape ({model.n_dofs},), got {u.shape}")
    ue = u.reshape(-1, 2)[model.mesh.elements]                # [e, a, i]
    # F[e, q] = I + ue[e]^T G[e, q] as one batched matmul (cheaper than einsum on small meshes)
    return np.eye(2) + np.matmul(np.swapaxes(ue, 1, 2)[:, None], model.G)


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
    W = neo_hookean(_deformation_gradient(model, u), model.mu, model.lam, order=0)
    Pi = float(np.sum(model.w * W))
    if load is not None:
        Pi -= float(np.dot(load, u))
    return Pi


def gradient(model, u, load=None):
    r"""Internal force minus load, ``f_a = sum_q w P(F) grad N_a - load`` (the gradient of :func:`energy`).

    Returns a (2 n_nodes,) array in the layout of ``u``.

    Examples
    --------
    >>> m = cantilever(2, 1, "T6")
    >>> float(np.abs(gradient(m, np.zeros(m.n_dofs))).max())
    0.0
    """
    _, P = neo_hookean(_deformation_gradient(model, u), model.mu, model.lam, order=1)
    # f_e[a, i] = sum_q w_q G[q, a, J] P[q, i, J]: a batched matmul, summed over q
    wP = model.w[:, :, None, None] * P
    fe = np.matmul(model.G, np.swapaxes(wP, 2, 3)).sum(axis=1).reshape(len(model.dofs), -1)
    f = _assemble_vector(model, fe)
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
    _, _, A = neo_hookean(_deformation_gradient(model, u), model.mu, model.lam)
    # optimize=True contracts pairwise with BLAS (about 20x faster on 80 x 8 T6
    # than the plain loop over e q a i b k J L); its rounding breaks exact symmetry,
    # which the element-level average restores.
    Ke = np.einsum("eq,eqaJ,eqiJkL,eqbL->eaibk", model.w, model.G, A, model.G, optimize=True)
    n = 2 * model.G.shape[2]
    Ke = Ke.reshape(-1, n, n)
    return _assemble_matrix(model, 0.5 * (Ke + Ke.transpose(0, 2, 1)))


def linear_stiffness(model):
    r"""Linear-elastic stiffness: the tangent at ``u = 0`` (``F -> I``).

    There ``P -> mu (grad u + grad u^T) + lam tr(grad u) I``, the plane-strain
    Hooke law with the Lame constants of the model.
    """
    return hessian(model, np.zeros(model.n_dofs))


def mass(model):
    r"""Consistent mass ``M_ab = rho int N_a N_b dA`` (exact quadrature), CSR.

    Examples
    --------
    >>> m = cantilever(4, 2, "T6", slenderness=2.0)
    >>> M = mass(m)
    >>> round(float(M.sum()) / 2, 12)    # rho x area (each of the two directions)
    2.0
    """
    Me = model.rho * np.einsum("eq,qa,qb->eab", model.wm, model.Nm, model.Nm)
    ne = Me.shape[1]
    Ke = np.zeros((Me.shape[0], ne, 2, ne, 2))
    Ke[:, :, 0, :, 0] = Me
    Ke[:, :, 1, :, 1] = Me
    return _assemble_matrix(model, Ke.reshape(-1, 2 * ne, 2 * ne))


# --------------------------------------------------------------------------------------
# boundary conditions and loads
# --------------------------------------------------------------------------------------
def condense(model, A=None, b=None):
    """Restrict to the free dofs: ``A[free][:, free]`` and/or ``b[free]``.

    Returns the condensed matrix, vector, or the pair (whichever were given).
    """
    fr = model.free
    out = []
    if A is not None:
        out.append(sp.csr_matrix(A)[fr][:, fr])
    if b is not None:
        out.append(np.asarray(b)[fr])
    if not out:
        raise ValueError("give A and/or b")
    return out[0] if len(out) == 1 else tuple(out)


def expand(model, u_free):
    """Full displacement vector with zeros on the fixed dofs."""
    u_free = np.asarray(u_free, dtype=float)
    if u_free.shape != model.free.shape:
        raise ValueError(f"u_free must have shape {model.free.shape}, got {u_free.shape}")
    u = np.zeros(model.n_dofs)
    u[model.free] = u_free
    return u


def _face_nodes(mesh, side):
    X, Y = mesh.nodes[:, 0], mesh.nodes[:, 1]
    sel = {"right": (np.isclose(X, mesh.length), Y), "left": (np.isclose(X, 0.0), Y),
           "top": (np.isclose(Y, mesh.height / 2), X),
           "bottom": (np.isclose(Y, -mesh.height / 2), X)}
    if side not in sel:
        raise ValueError(f"side must be one of {tuple(sel)}, got {side!r}")
    on, coord = sel[side]
    idx = np.flatnonzero(on)
    return idx[np.argsort(coord[idx])]


def _edge_weights(mesh, side, lo=-np.inf, hi=np.inf):
    """Nodes of a face and the consistent weights ``int N_a ds`` over ``[lo, hi]``.

    ``lo, hi`` must fall on element edge ends.  Linear edges give ``(1/2, 1/2) l``,
    quadratic edges ``(1/6, 2/3, 1/6) l``.
    """
    idx = _face_nodes(mesh, side)
    s = mesh.nodes[idx, 1 if side in ("left", "right") else 0]
    p = 1 if mesh.element == "T3" else 2
    wts = np.zeros(idx.size)
    pattern = np.array([0.5, 0.5]) if p == 1 else np.array([1 / 6, 2 / 3, 1 / 6])
    for k in range(0, idx.size - 1, p):           # one face edge per step (short loop)
        a, b = s[k], s[k + p]
        if a >= lo - 1e-12 and b <= hi + 1e-12:
            wts[k:k + p + 1] += pattern * (b - a)
    return idx, wts


def face_traction_load(model, side, traction):
    """Consistent nodal loads of a uniform traction ``(t_x, t_y)`` on a face of the rectangle.

    ``side`` is "left", "right", "top" or "bottom"; the traction is integrated
    exactly against the edge shape functions (linear edges ``(1/2, 1/2) l``,
    quadratic edges ``(1/6, 2/3, 1/6) l``).

    >>> m = make_model(rectangle_mesh(2, 2, "T6", 2.0, 1.0))
    >>> f = face_traction_load(m, "right", (0.0, -3.0))
    >>> round(float(f[1::2].sum()), 12)
    -3.0
    """
    t = np.asarray(traction, dtype=float)
    if t.shape != (2,):
        raise ValueError(f"traction must be a pair (t_x, t_y), got {traction!r}")
    idx, wts = _edge_weights(model.mesh, side)
    f = np.zeros(model.n_dofs)
    f[2 * idx] = t[0] * wts
    f[2 * idx + 1] = t[1] * wts
    return f


def tip_shear_load(model, total=1.0):
    """Uniform shear traction on X = length with resultant ``-total`` in y (consistent loads)."""
    return face_traction_load(model, "right", (0.0, -total / model.mesh.height))


def face_pressure_load(model, side="top", x_range=(-np.inf, np.inf)):
    """Consistent nodal loads of a unit pressure pushing into the body on a face.

    The pressure acts on the part ``x_range`` of the ``side`` face ("top" or
    "bottom"), along the inward normal (a dead load: the reference normal).
    Its transpose ``B = g^T`` maps ``u`` to the volume gained by a chamber
    sitting on that face, so ``p`` is the multiplier of a chamber-volume constraint.
    """
    if side not in ("top", "bottom"):
        raise ValueError(f"side must be 'top' or 'bottom', got {side!r}")
    idx, wts = _edge_weights(model.mesh, side, *x_range)
    f = np.zeros(model.n_dofs)
    f[2 * idx + 1] = -wts if side == "top" else wts
    return f


def tip_deflection(model, u):
    """Plain mean of ``u_y`` over every node on X = length (T6 mid-side nodes included)."""
    idx = _face_nodes(model.mesh, "right")
    return float(np.mean(np.asarray(u).reshape(-1, 2)[idx, 1]))


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
    _check_clamped(model)
    K = linear_stiffness(model) if K is None else K
    Kf, ff = condense(model, K, load)
    return expand(model, _sparse_solve(Kf, ff, "K (condensed stiffness)",
                                       "is the model clamped? (fixed dofs)"))


def _check_clamped(model):
    """A stiffness needs >= 3 fixed dofs to lose the rigid motions; say so instead of a singular LU."""
    if model.fixed.size < 3:
        raise ValueError(f"model.fixed holds {model.fixed.size} dofs: the model is not clamped "
                         "(at least 3 fixed dofs remove the rigid motions), its stiffness is "
                         "singular")


def _sparse_solve(A, b, name, hint=""):
    """``A^{-1} b`` by sparse LU; a singular ``A`` raises ValueError naming it (no bare SciPy error)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            x = spla.splu(sp.csc_matrix(A)).solve(np.asarray(b, dtype=float))
    except (RuntimeError, spla.MatrixRankWarning) as err:
        raise ValueError(f"{name} is singular ({err}); {hint}".rstrip("; ")) from err
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} is numerically singular (non-finite solution); {hint}"
                         .rstrip("; "))
    return x


def static(model, load, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Nonlinear equilibrium ``f_int(u) = load`` by Newton's method with load increments.

    The load is applied in ``steps`` equal increments; at each, Newton iterates on
    the condensed residual ``r = f_int(u) - load`` until ``|r| <= tol |load|``
    (infinity norms) or ``|r|`` reaches the round-off floor of the internal
    force (64 eps x the largest nodal sum of the terms ``(2 mu + lam) w |grad N|``).  A step that would make some ``det F <= 0`` is
    halved (up to 30 times).

    Raises
    ------
    ConvergenceError naming the load step, the iteration and the residual reached.

    Examples
    --------
    A tip load ``alpha = P L^2/(E' I) = 1`` bends the L/h = 10 cantilever by 0.3 L:

    >>> m = cantilever(10, 1, "T6")
    >>> P = 1.0 * plane_strain_modulus(m) / 12 / m.mesh.length**2
    >>> u = static(m, tip_shear_load(m, P), steps=4)
    >>> round(tip_deflection(m, u) / m.mesh.length, 3)
    -0.3
    """
    if not (isinstance(steps, (int, np.integer)) and steps >= 1):
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    load = np.asarray(load, dtype=float)
    if load.shape != (model.n_dofs,):
        raise ValueError(f"load must have shape ({model.n_dofs},), got {load.shape}")
    u = np.zeros(model.n_dofs) if u0 is None else np.array(u0, dtype=float)
    fr = model.free
    scale = np.abs(load[fr]).max()
    if scale == 0:
        raise ValueError("load has no component on the free dofs")
    # round-off floor of the internal force: eps x the size of the terms summed into it
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]          # [e, q, a]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * node_scale.max()
    for step in range(1, steps + 1):
        fs = load * step / steps
        for it in range(maxiter + 1):
            r = gradient(model, u, fs)[fr]
            res = np.abs(r).max() / scale
            if res <= tol or np.abs(r).max() <= floor:
                break
            if it == maxiter:
                raise ConvergenceError(f"Newton did not converge at load step {step}/{steps}: "
                                       f"relative residual {res:.3e} after {maxiter} iterations")
            try:
                du = _sparse_solve(condense(model, hessian(model, u)), r, "tangent stiffness")
            except ValueError as err:
                raise ConvergenceError(f"load step {step}/{steps}, iteration {it}: {err} "
                                       f"(residual {res:.3e})") from err
            t = 1.0
            for _ in range(30):
                trial = u.copy()
                trial[fr] -= t * du
                if _admissible(model, trial):
                    break
                t *= 0.5
            else:
                raise ConvergenceError(f"load step {step}/{steps}, iteration {it}: every "
                                       f"Newton step inverts an element (residual {res:.3e})")
            u = trial
    return u


def _admissible(model, u):
    """Whether every quadrature point has ``det F > 0``."""
    F = _deformation_gradient(model, u)
    return bool(np.all(F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0] > 0))


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
    if not (isinstance(k, (int, np.integer)) and 1 <= k < model.free.size - 1):
        raise ValueError(f"k must be an integer in [1, {model.free.size - 2}], got {k!r}")
    _check_clamped(model)
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
        raise ValueError(f"K (condensed stiffness) is singular: is the model clamped "
                         f"(fixed dofs)? ({err})") from err
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
    K = linear_stiffness(model) if K is None else K
    M = mass(model) if M is None else M
    Kf, Mf = condense(model, K).tocsc(), condense(model, M).tocsc()
    try:
        lu = spla.splu(Mf)
    except RuntimeError as err:
        raise ValueError(f"M (condensed mass) is singular: is rho > 0? ({err})") from err
    Minv = spla.LinearOperator(Kf.shape, matvec=lu.solve, dtype=float)
    try:
        lam = spla.eigsh(Kf, k=1, M=Mf, Minv=Minv, which="LA", tol=1e-12,
                         v0=_start_vector(Kf.shape[0]))[0]
    except spla.ArpackNoConvergence as err:
        raise ConvergenceError("Lanczos did not converge to the largest eigenvalue "
                               f"({len(err.eigenvalues)} converged)") from err
    return float(np.sqrt(lam[0]))


def pressure(model, u, points=None):
    r"""Linear-elastic pressure ``p = -lam div u`` at reference points of every element.

    ``points`` are reference coordinates (n_p, 2) (default: the corners), the
    result has shape (n_el, n_p).  For T3 ``div u`` is constant per element.
    """
    xi = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) if points is None else np.asarray(points)
    _, dN = _shape(model.mesh.element, xi)
    Xc = model.mesh.nodes[model.mesh.elements[:, :3]]
    Jinv = np.linalg.inv(np.stack([Xc[:, 1] - Xc[:, 0], Xc[:, 2] - Xc[:, 0]], 2))
    G = np.einsum("qak,ekJ->eqaJ", dN, Jinv)
    ue = np.asarray(u).reshape(-1, 2)[model.mesh.elements]
    div = np.einsum("eai,eqai->eq", ue, G)
    return -model.lam * div


# --------------------------------------------------------------------------------------
# theory and the public cantilever calls
# --------------------------------------------------------------------------------------
def plane_strain_modulus(model):
    """``E' = E / (1 - nu^2)``."""
    return model.E / (1 - model.nu**2)


def deflection_ratio(model, u, total=1.0):
    """Tip deflection of ``u`` (load ``total`` down) over ``P L^3/(3 E' I)``; 1 = Euler-Bernoulli."""
    return -tip_deflection(model, u) / euler_bernoulli_tip(model, total)


def euler_bernoulli_tip(model, total=1.0):
    r"""Euler-Bernoulli tip deflection ``P L^3 / (3 E' I)``, ``E' = E/(1-nu^2)``, ``I = h^3/12``."""
    m = model.mesh
    return total * m.length**3 / (3 * plane_strain_modulus(model) * m.height**3 / 12)


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
    if not (isinstance(k, (int, np.integer)) and k >= 1):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    K, M = linear_stiffness(model), mass(model)
    want = min(4 * k + 4, model.free.size - 2)
    omega, modes = frequencies(model, want, return_modes=True, K=K, M=M)
    bend = _transverse_share(model, modes, M) > 0.5
    if bend.sum() < k:
        raise ConvergenceError(f"only {int(bend.sum())} bending modes among the lowest "
                               f"{want} eigenmodes; asked for k = {k}")
    return omega[bend][:k]


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
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    model = cantilever(nx, ny, element, nu)
    omega = bending_frequencies(model, k)
    m = model.mesh
    eb = euler_bernoulli_omegas(k) * np.sqrt(
        plane_strain_modulus(model) * m.height**3 / 12 / (model.rho * m.height * m.length**4))
    return omega / eb


# --------------------------------------------------------------------------------------
# a locking-free mixed element and actuation constraints
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
    if model.mesh.element != "T6":
        raise ValueError(f"mixed_solve needs a T6 model, got {model.mesh.element!r}")
    load = np.asarray(load, dtype=float)
    if load.shape != (model.n_dofs,):
        raise ValueError(f"load must have shape ({model.n_dofs},), got {load.shape}")
    _check_clamped(model)
    Kuu, Bup, Mpp, pidx = _taylor_hood_blocks(model, deviatoric=True)
    npr = Mpp.shape[0]
    fr = model.free
    Kb = sp.bmat([[Kuu[fr][:, fr], Bup[:, fr].T], [Bup[:, fr], -Mpp / model.lam]], format="csc")
    rhs = np.concatenate([load[fr], np.zeros(npr)])
    x = _sparse_solve(Kb, rhs, "the mixed saddle-point matrix",
                      "is the model clamped? (fixed dofs)")
    u = expand(model, x[:fr.size])
    return u, -x[fr.size:][pidx]


def _taylor_hood_blocks(model, deviatoric=True):
    r"""Blocks of the T6/P1 (Taylor-Hood) pair on ``model``'s T6 mesh, all dofs.

    Returns ``(Kuu, B, Mp, pidx)``: ``Kuu`` the velocity block, ``2 mu eps:eps``
    (``deviatoric``) or the vector Laplacian ``grad v : grad v`` (the H1
    seminorm, otherwise); ``B[p, dof] = int N_p div N_dof``; ``Mp = int N_p N_q``
    the pressure mass; ``pidx`` (n_el, 3) the pressure number of every corner.
    """
    mesh = model.mesh
    corners = mesh.elements[:, :3]
    cnodes, pidx = np.unique(corners, return_inverse=True)
    pidx = pidx.reshape(corners.shape)
    npr = cnodes.size
    I = np.eye(2)
    if deviatoric:   # the tangent of a material with lam = 0 at F = I
        A0 = model.mu * (np.einsum("ik,JL->iJkL", I, I) + np.einsum("iL,Jk->iJkL", I, I))
    else:
        A0 = np.einsum("ik,JL->iJkL", I, I)
    Ke = np.einsum("eq,eqaJ,iJkL,eqbL->eaibk", model.w, model.G, A0, model.G, optimize=True)
    ne = 2 * model.G.shape[2]
    Kuu = _assemble_matrix(model, Ke.reshape(-1, ne, ne))
    # pressure shape functions (linear, = area coordinates) at the stiffness points
    xq, _ = _rule(2)
    Np, _ = _shape("T3", xq)                                        # (n_q, 3)
    Be = np.einsum("eq,qc,eqai->ecai", model.w, Np, model.G).reshape(len(corners), 3, ne)
    rows = np.repeat(pidx, ne, axis=1).ravel()
    cols = np.tile(model.dofs, (1, 3)).ravel()
    Bup = sp.csr_matrix((Be.ravel(), (rows, cols)), shape=(npr, model.n_dofs))
    Ce = np.einsum("eq,qc,qd->ecd", model.w, Np, Np)
    Mpp = sp.csr_matrix((Ce.ravel(), (np.repeat(pidx, 3, axis=1).ravel(),
                                      np.tile(pidx, (1, 3)).ravel())), shape=(npr, npr))
    return Kuu, Bup, Mpp, pidx


# --------------------------------------------------------------------------------------
# locking diagnostics: divergence-free subspace, inf-sup constant, corner singularity
# --------------------------------------------------------------------------------------
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
    >>> m = cantilever(2, 1, "T3")
    >>> divergence_matrix(m).shape
    (4, 12)
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be a Model, got {type(model).__name__}")
    nel, nq = model.w.shape
    ne = 2 * model.G.shape[2]
    De = np.sqrt(model.w)[:, :, None, None] * model.G                   # [e, q, a, i]
    rows = np.repeat(np.arange(nel * nq), ne)
    cols = np.repeat(model.dofs[:, None, :], nq, axis=1).ravel()
    return sp.csr_matrix((De.reshape(-1), (rows, cols)), shape=(nel * nq, model.n_dofs))


def divergence_free_dimension(nx, ny, element, rtol=1e-10):
    r"""Dimension of the discretely divergence-free subspace of the book's cantilever.

    The cantilever of :func:`cantilever` (L/h = 10, face X = 0 clamped) on
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
    _check_mesh_args(nx, ny, element)
    if not (isinstance(rtol, (int, float, np.floating)) and 0 < rtol < 1):
        raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
    model = cantilever(nx, ny, element)
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


def inf_sup_constants(model, k=1, pressure="taylor-hood"):
    r"""The ``k`` smallest discrete inf-sup values ``beta`` of a displacement-pressure pair.

    .. math:: \beta_h = \min_{q}\max_{v}\frac{\int q\operatorname{div}v}{\lvert v\rvert_1\,\lVert q\rVert_0},
              \qquad \beta_h^2 = \lambda_{\min}\bigl(B A^{-1} B^{\top},\ M_p\bigr),

    the smallest generalised eigenvalue of the Schur complement against the
    pressure mass ``M_p`` (Brezzi & Fortin; Boffi, Brezzi & Fortin 2013, ch. 5),
    with ``A`` the vector Laplacian (``|v|_1^2 = v^T A v``) on the free dofs of
    ``model``.  ``pressure`` selects the pair:

    * ``"taylor-hood"`` (T6 only): continuous linear pressure on the corner nodes,
      the pair of :func:`mixed_solve`;
    * ``"quadrature"``: one pressure value per volumetric quadrature point
      (discontinuous), the pressure that the *displacement* element implies
      (``p = lam div u`` at the points of :func:`divergence_matrix`; ``M_p`` = the weights).

    A pair is uniformly stable when ``beta_h`` stays bounded away from 0 as the mesh is
    refined.  A zero value means a pressure mode that no displacement can see
    (for clamped faces all round, the constant pressure).  Dense generalised
    ``scipy.linalg.eigh``; at most 4000 pressures.  Since ``|div v|^2 <= 2|grad v|^2``
    in two dimensions every ``beta <= sqrt(2)``.

    Returns
    -------
    (k,) ascending ndarray

    Examples
    --------
    >>> m = cantilever(10, 1, "T6")
    >>> round(float(inf_sup_constants(m)[0]), 3)
    0.647
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be a Model, got {type(model).__name__}")
    _check_clamped(model)
    fr = model.free
    if pressure == "taylor-hood":
        if model.mesh.element != "T6":
            raise ValueError(f"pressure='taylor-hood' needs a T6 model, got "
                             f"{model.mesh.element!r}")
        A, B, Mp, _ = _taylor_hood_blocks(model, deviatoric=False)
        Mp = Mp.toarray()
    elif pressure == "quadrature":
        A = _vector_laplacian(model)
        B = sp.diags(np.sqrt(model.w.ravel())) @ divergence_matrix(model)
        Mp = np.diag(model.w.ravel())
    else:
        raise ValueError(f"pressure must be 'taylor-hood' or 'quadrature', got {pressure!r}")
    npr = Mp.shape[0]
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 1 <= k <= npr):
        raise ValueError(f"k must be an integer in [1, {npr}], got {k!r}")
    if npr > 4000:
        raise ValueError(f"model has {npr} pressures, too many for the dense eigenproblem")
    Bf = B[:, fr].toarray()
    AinvBt = _sparse_solve(A[fr][:, fr], Bf.T, "the vector Laplacian on the free dofs",
                           "is the model clamped? (fixed dofs)")
    S = Bf @ AinvBt
    try:
        ev = sla.eigh(0.5 * (S + S.T), Mp, eigvals_only=True, subset_by_index=[0, k - 1])
    except sla.LinAlgError as err:
        raise ConvergenceError(f"generalised eigenproblem of the {npr} x {npr} Schur "
                               f"complement failed ({err})") from err
    return np.sqrt(np.maximum(ev, 0.0))


def _vector_laplacian(model):
    """Vector Laplacian ``int grad v : grad w`` (the H1 seminorm) on any element, all dofs."""
    I = np.eye(2)
    A0 = np.einsum("ik,JL->iJkL", I, I)
    Ke = np.einsum("eq,eqaJ,iJkL,eqbL->eaibk", model.w, model.G, A0, model.G, optimize=True)
    ne = 2 * model.G.shape[2]
    return _assemble_matrix(model, Ke.reshape(-1, ne, ne))


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
    _check_nu(nu)
    if not (isinstance(angle, (int, float, np.floating)) and 0 < angle <= np.pi / 2 + 1e-15):
        raise ValueError(f"angle must lie in (0, pi/2], got {angle!r}")
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
    try:
        return float(sopt.brentq(g, a, b, xtol=1e-14))
    except ValueError as err:     # not expected after the bracket search; never bare
        raise ValueError(f"corner exponent root search failed for angle = {angle!r}, "
                         f"nu = {nu!r}: {err}") from err


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
    e = np.asarray(eyelets, dtype=np.int64)
    if e.ndim != 1 or e.size < 2:
        raise ValueError(f"eyelets must list at least two node numbers, got {eyelets!r}")
    X = model.mesh.nodes[e]
    d = np.diff(X, axis=0)
    ln = np.linalg.norm(d, axis=1)
    if np.any(ln == 0):
        raise ValueError("consecutive eyelets must be distinct points")
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
    mesh = model.mesh
    on = np.flatnonzero(np.isclose(mesh.nodes[:, 0], x))
    if on.size < 2:
        raise ValueError(f"no face of nodes at X = {x!r}")
    idx = on[np.argsort(mesh.nodes[on, 1])]
    y = mesh.nodes[idx, 1]
    p = 1 if mesh.element == "T3" else 2
    g, wg = np.polynomial.legendre.leggauss(3)
    s = (g + 1) / 2
    Ne = (np.stack([1 - s, s]) if p == 1 else
          np.stack([(1 - s) * (1 - 2 * s), 4 * s * (1 - s), s * (2 * s - 1)]))
    B = np.zeros((3, model.n_dofs))
    for k in range(0, idx.size - 1, p):           # one face edge per step (short loop)
        a, b = y[k], y[k + p]
        w = wg / 2 * (b - a)
        yy = a + (b - a) * s
        nodes = idx[k:k + p + 1]
        B[0, 2 * nodes] += Ne @ w
        B[1, 2 * nodes + 1] += Ne @ w
        B[2, 2 * nodes] += Ne @ (w * yy)
    return B


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
    _check_nu(nu)
    if ks is None:
        ns = nu / (1 - nu)
        ks = 10 * (1 + ns) / (12 + 11 * ns)
    Ep, mu = 1 / (1 - nu**2), 1 / (2 * (1 + nu))
    return 1 + Ep / (4 * ks * mu) / slenderness**2


def strain_energy(model, u):
    """Stored energy ``sum_q w W(F)`` (no load term)."""
    return energy(model, u)


def condensed_force(model, load=None):
    """``force(u_free) -> (f, K)`` on the free dofs, for :func:`lib.integrate.newmark_step`.

    ``f = f_int(u) - load`` and ``K`` its tangent, both condensed; the fixed dofs stay zero.
    """
    fr = model.free
    load = np.zeros(model.n_dofs) if load is None else np.asarray(load, dtype=float)

    def force(u_free):
        u = expand(model, u_free)
        return gradient(model, u, load)[fr], condense(model, hessian(model, u))

    return force
