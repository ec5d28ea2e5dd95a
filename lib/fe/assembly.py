"""The space of a mesh and assembly from element-vectorised COO triplets (scikit-fem's split).

Space, make_space(mesh, fixed)      quadrature data, dofs, clamp and assembly pattern of a mesh
deformation_gradient(model, u), admissible(model, u)    F = I + grad u; whether all det F > 0
pattern(dofs, n), coo_indices(row_dofs, col_dofs)       sparsity pattern; COO rows and columns
assemble_matrix(model, Ke), assemble_vector(model, fe)  global CSR matrix / vector
condense(model, A, b), expand(model, u_free)            restrict to / extend from the free dofs
check_clamped(model), check_space(model), check_u(model, u)
                                    the argument checks of the kit (ValueError naming them)
solve_path(solve_at, x0, steps, where, ...)             a load path whose failure is a
                                    ConvergenceError (lib.fem.static and its kin)
roundoff_floor(model, modulus)      the round-off floor of an internal force
ConvergenceError                    a nonlinear solve that did not converge

``model`` is a :class:`Space` (a :class:`lib.fem.Model` is one).  The public functions
check their arguments.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..core import checks, quadrature
from ..core.errors import ConvergenceError, SolveError  # one class, shared with constraints
from ..solvers import load_path
from .element import shape_functions
from .mesh import check_mesh

__all__ = ["Space", "make_space", "deformation_gradient", "admissible", "pattern", "coo_indices",
           "assemble_matrix", "assemble_vector", "condense", "expand", "check_clamped",
           "check_space", "check_u", "solve_path", "roundoff_floor", "ConvergenceError"]


@dataclass(frozen=True, eq=False)
class Space:
    """A mesh with its quadrature data, dof numbering, clamp and assembly pattern.

    Made by :func:`make_space` (a :class:`lib.fem.Model` is a Space with a material);
    every array is read-only.

    Attributes
    ----------
    mesh : Mesh
    fixed : sorted indices of the Dirichlet (zero) dofs; ``free`` the others.
    G : (n_el, n_q, n_en, 2) shape-function gradients at the stiffness points.
    w : (n_el, n_q) stiffness quadrature weights times element area factor.
    Nm, wm : (n_qm, n_en), (n_el, n_qm) shape values and weights of the mass rule.
    dofs : (n_el, 2 n_en) element dofs, node-major (``2 a + i``).
    pattern : the sparsity pattern of element matrices (:func:`lib.fe.pattern`).
    """

    mesh: Mesh
    fixed: np.ndarray
    free: np.ndarray
    G: np.ndarray
    w: np.ndarray
    Nm: np.ndarray
    wm: np.ndarray
    dofs: np.ndarray
    pattern: tuple = field(repr=False)

    @property
    def n_dofs(self):
        return 2 * self.mesh.nodes.shape[0]


def make_space(mesh, fixed=None):
    """The quadrature data (exact for the linear stiffness and the mass) and the assembly
    pattern of ``mesh``, computed once; ``fixed`` are the dofs held at zero (default: none).

    >>> from lib.fe import rectangle_mesh
    >>> s = make_space(rectangle_mesh(1, 1, "T6"))
    >>> s.G.shape, s.free.size
    ((2, 3, 6, 2), 18)
    """
    check_mesh(mesh)
    n = 2 * mesh.nodes.shape[0]
    fixed = np.unique(_indices([] if fixed is None else fixed, "fixed", n))
    free = np.setdiff1d(np.arange(n), fixed)
    p = 1 if mesh.element == "T3" else 2
    # affine map X = X1 + Jac (s, t): Jac[e, I, k] = dX_I/dxi_k from the corner nodes
    Xc = mesh.nodes[mesh.elements[:, :3]]
    Jac = np.stack([Xc[:, 1] - Xc[:, 0], Xc[:, 2] - Xc[:, 0]], 2)
    det = np.linalg.det(Jac)
    if not np.all(det > 0):
        raise ValueError("mesh has inverted or degenerate elements")
    Jinv = np.linalg.inv(Jac)                                   # [e, k, J] = dxi_k/dX_J
    xq, wq = quadrature.triangle(2 * p - 2)                     # exact for linear stiffness
    _, dN = shape_functions(mesh.element, xq)
    G = np.einsum("qak,ekJ->eqaJ", dN, Jinv)
    w = det[:, None] * wq[None, :]
    xm, wmq = quadrature.triangle(2 * p)                        # exact for the mass
    Nm, _ = shape_functions(mesh.element, xm)
    wm = det[:, None] * wmq[None, :]
    dofs = (2 * mesh.elements[:, :, None] + np.arange(2)).reshape(len(mesh.elements), -1)
    for a in (fixed, free, G, w, Nm, wm, dofs):
        a.setflags(write=False)
    return Space(mesh, fixed, free, G, w, Nm, wm, dofs, _pattern(dofs, n))


def _indices(x, name, n=None, ndim=1):
    """An integer array of dof (or node) numbers in [0, n), else a ValueError naming it."""
    a = np.asarray([] if x is None else x) if not isinstance(x, (str, bytes)) else np.array(0.5)
    a = a.astype(np.int64) if a.size == 0 else a
    if x is None or a.dtype.kind not in "iu" or a.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array of integer indices, got "
                         f"{checks.show(x)}")
    if a.size and (a.min() < 0 or (n is not None and a.max() >= n)):
        raise ValueError(f"{name} must lie in [0, {n}), got range [{a.min()}, {a.max()}]")
    return a.astype(np.int64, copy=False)


def check_space(model, name="model"):
    """``model`` as a :class:`Space` (a :class:`lib.fem.Model` is one), else a ValueError."""
    return checks.kind(model, name, Space, "a finite-element space (lib.fem.Model, made by "
                                           "lib.fem.make_model)")


def check_u(model, u, name="u"):
    """``u`` as a finite float vector of ``model.n_dofs`` entries, else a ValueError naming it."""
    return checks.vector(u, name, check_space(model).n_dofs)


def deformation_gradient(model, u):
    """``F[e, q] = I + grad u`` at every quadrature point, (n_el, n_q, 2, 2)."""
    return _deformation_gradient(model, check_u(model, u))


def _deformation_gradient(model, u):
    ue = u.reshape(-1, 2)[model.mesh.elements]                # [e, a, i]
    # F[e, q] = I + ue[e]^T G[e, q] as one batched matmul (cheaper than einsum on small meshes)
    return np.eye(2) + np.matmul(np.swapaxes(ue, 1, 2)[:, None], model.G)


def admissible(model, u):
    """Whether every quadrature point has ``det F > 0``."""
    F = _deformation_gradient(model, check_u(model, u))
    return bool(np.all(F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0] > 0))


def pattern(dofs, n):
    """Sparsity pattern of element matrices: (inverse map, CSR indices, indptr, nnz).

    ``dofs`` (n_el, n_ed) the element dofs, numbers in [0, n).

    >>> pattern(np.array([[0, 2]]), 3)[3]
    4
    """
    n = checks.integer(n, "n", low=1)
    return _pattern(_indices(dofs, "dofs", n, ndim=2), n)


_PATTERNS = {}          # (n, shape, bytes of dofs) -> pattern: the same mesh is meshed again
_PATTERNS_MAX = 64      # and again (a study builds its arm per load case); the arrays are read-only


def _pattern(dofs, n):
    key = (n, dofs.shape, dofs.tobytes())
    hit = _PATTERNS.get(key)
    if hit is None:
        if len(_PATTERNS) >= _PATTERNS_MAX:
            _PATTERNS.pop(next(iter(_PATTERNS)))
        hit = _PATTERNS[key] = _build_pattern(dofs, n)
    return hit


def _build_pattern(dofs, n):
    # the pattern is that of E^T E, E the element-dof incidence: SciPy's sparse product
    # finds its sorted entries in linear time, and each element entry's place among them
    # is a binary search (the result of np.unique(key, return_inverse=True), 5x sooner
    # on a 320 x 32 T6 mesh than sorting its 3 million keys)
    n_el, n_ed = dofs.shape
    E = sp.csr_matrix((np.ones(dofs.size), (np.repeat(np.arange(n_el), n_ed), dofs.ravel())),
                      shape=(n_el, n))
    P = (E.T @ E).tocsr()
    P.sort_indices()
    indices, indptr = P.indices.astype(np.int32), P.indptr.astype(np.int32)
    uniq = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)) * n + indices
    rows, cols = _coo_indices(dofs, dofs)
    inv = np.searchsorted(uniq, rows.astype(np.int64) * n + cols)
    for a in (inv, indices, indptr):
        a.setflags(write=False)
    return inv, indices, indptr, uniq.size


def coo_indices(row_dofs, col_dofs):
    """COO rows and columns of element blocks ``B[e, i, j]`` (row ``row_dofs[e, i]``, column
    ``col_dofs[e, j]``), in the order of ``B.ravel()``.

    >>> [a.tolist() for a in coo_indices(np.array([[0, 1]]), np.array([[5]]))]
    [[0, 1], [5, 5]]
    """
    row_dofs = _indices(row_dofs, "row_dofs", ndim=2)
    col_dofs = _indices(col_dofs, "col_dofs", ndim=2)
    if row_dofs.shape[0] != col_dofs.shape[0]:
        raise ValueError(f"col_dofs must have one row per element ({row_dofs.shape[0]}), got "
                         f"shape {col_dofs.shape}")
    return _coo_indices(row_dofs, col_dofs)


def _coo_indices(row_dofs, col_dofs):
    return (np.repeat(row_dofs, col_dofs.shape[1], axis=1).ravel(),
            np.tile(col_dofs, (1, row_dofs.shape[1])).ravel())


def assemble_matrix(model, Ke):
    """CSR matrix from element matrices ``Ke`` (n_el, 2 n_en, 2 n_en) (duplicates summed)."""
    Ke = checks.array(Ke, "Ke", shape=check_space(model).dofs.shape + (model.dofs.shape[1],))
    inv, indices, indptr, nnz = model.pattern
    data = np.bincount(inv, weights=Ke.ravel(), minlength=nnz)
    n = model.n_dofs
    return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def assemble_vector(model, fe):
    """Global vector from element vectors ``fe`` (n_el, 2 n_en)."""
    fe = checks.array(fe, "fe", shape=check_space(model).dofs.shape)
    return np.bincount(model.dofs.ravel(), weights=fe.ravel(), minlength=model.n_dofs)


def condense(model, A=None, b=None):
    """Restrict to the free dofs: ``A[free][:, free]`` and/or ``b[free]``.

    Returns the condensed matrix, vector, or the pair (whichever were given).
    """
    check_space(model)
    n, out = model.n_dofs, []
    if A is None and b is None:
        raise ValueError("A and/or b must be given (a matrix and/or a vector to condense)")
    if A is not None:
        out.append(sp.csr_matrix(checks.matrix(A, "A", (n, n), sparse=True))[model.free][:, model.free])
    if b is not None:
        out.append(checks.vector(b, "b", n)[model.free])
    return out[0] if len(out) == 1 else tuple(out)


def expand(model, u_free):
    """Full displacement vector with zeros on the fixed dofs."""
    check_space(model)
    u_free = checks.vector(u_free, "u_free", model.free.size)
    u = np.zeros(model.n_dofs)
    u[model.free] = u_free
    return u


def check_clamped(model):
    """A stiffness needs >= 3 fixed dofs to lose the rigid motions; say so instead of a singular LU."""
    check_space(model)
    if model.fixed.size < 3:
        raise ValueError(f"model.fixed holds {model.fixed.size} dofs: the model is not clamped "
                         "(at least 3 fixed dofs remove the rigid motions), its stiffness is "
                         "singular")
    return model


def solve_path(solve_at, x0, steps, where, **kw):
    """:func:`lib.solvers.load_path` whose failure is a :class:`ConvergenceError`.

    The floors raise a :class:`~lib.core.errors.SolveError` (a ``NewtonFailure`` at a
    load step, say); the FEM statics have always raised ``ConvergenceError``, so it is
    re-raised as one with the same attributes and message.
    """
    try:
        return load_path(solve_at, x0, steps=steps, where=where, **kw)
    except SolveError as err:
        if isinstance(err, ConvergenceError):
            raise
        new = ConvergenceError(err.detail, **{k: getattr(err, k) for k in (
            "where", "step", "nsteps", "load", "time", "iteration", "residual", "relative",
            "tol", "reason", "halvings", "history")})
        raise new from err


def roundoff_floor(model, modulus):
    r"""Round-off floor of an internal force: ``64 eps modulus max_a sum w |grad N_a|``.

    The largest nodal sum of the terms ``modulus w |grad N|`` added into a force
    component, times 64 machine epsilons: a residual below it is as converged as
    floating point allows (``modulus`` the stiffness scale, ``2 mu + lam`` for the
    neo-Hookean solid).

    >>> from lib.fe import rectangle_mesh
    >>> round(roundoff_floor(make_space(rectangle_mesh(2, 1, "T3")), 1.0) / 2.0**-52, 9)
    384.0
    """
    check_space(model)
    modulus = checks.positive(modulus, "modulus")
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]          # [e, q, a]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    return float(64 * np.finfo(float).eps * modulus * node_scale.max())
