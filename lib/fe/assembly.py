"""The space of a mesh and assembly from element-vectorised COO triplets (scikit-fem's split).

Space, make_space(mesh, fixed)      quadrature data, dofs, clamp and assembly pattern of a mesh
deformation_gradient(model, u), admissible(model, u)    F = I + grad u; whether all det F > 0
pattern(dofs, n), coo_indices(row_dofs, col_dofs)       sparsity pattern; COO rows and columns
assemble_matrix(model, Ke), assemble_vector(model, fe)  global CSR matrix / vector
condense(model, A, b), expand(model, u_free)            restrict to / extend from the free dofs
check_clamped(model), sparse_solve(A, b, name, hint)    a clamp check; a sparse LU naming a
                                                        singular matrix
ConvergenceError                    a nonlinear solve that did not converge

``model`` is a :class:`Space` (a :class:`lib.fem.Model` is one).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core import quadrature
from ..core.errors import ConvergenceError  # one class, shared with constraints
from .element import shape_functions
from .mesh import Mesh

__all__ = ["Space", "make_space", "deformation_gradient", "admissible", "pattern", "coo_indices",
           "assemble_matrix", "assemble_vector", "condense", "expand", "check_clamped",
           "sparse_solve", "ConvergenceError"]


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
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh must be a Mesh, got {type(mesh).__name__}")
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
    return Space(mesh, fixed, free, G, w, Nm, wm, dofs, pattern(dofs, n))


def deformation_gradient(model, u):
    """``F[e, q] = I + grad u`` at every quadrature point, (n_el, n_q, 2, 2)."""
    u = np.asarray(u, dtype=float)
    if u.shape != (model.n_dofs,):
        raise ValueError(f"u must have shape ({model.n_dofs},), got {u.shape}")
    ue = u.reshape(-1, 2)[model.mesh.elements]                # [e, a, i]
    # F[e, q] = I + ue[e]^T G[e, q] as one batched matmul (cheaper than einsum on small meshes)
    return np.eye(2) + np.matmul(np.swapaxes(ue, 1, 2)[:, None], model.G)


def admissible(model, u):
    """Whether every quadrature point has ``det F > 0``."""
    F = deformation_gradient(model, u)
    return bool(np.all(F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0] > 0))




def pattern(dofs, n):
    """Sparsity pattern of element matrices: (inverse map, CSR indices, indptr, nnz)."""
    rows, cols = coo_indices(dofs, dofs)
    key = rows.astype(np.int64) * n + cols
    uniq, inv = np.unique(key, return_inverse=True)
    indices = (uniq % n).astype(np.int32)
    indptr = np.searchsorted(uniq // n, np.arange(n + 1)).astype(np.int32)
    for a in (inv, indices, indptr):
        a.setflags(write=False)
    return inv, indices, indptr, uniq.size


def coo_indices(row_dofs, col_dofs):
    """COO rows and columns of element blocks ``B[e, i, j]`` (row ``row_dofs[e, i]``, column
    ``col_dofs[e, j]``), in the order of ``B.ravel()``.

    >>> [a.tolist() for a in coo_indices(np.array([[0, 1]]), np.array([[5]]))]
    [[0, 1], [5, 5]]
    """
    return (np.repeat(row_dofs, col_dofs.shape[1], axis=1).ravel(),
            np.tile(col_dofs, (1, row_dofs.shape[1])).ravel())


def assemble_matrix(model, Ke):
    """CSR matrix from element matrices ``Ke`` (n_el, 2 n_en, 2 n_en) (duplicates summed)."""
    inv, indices, indptr, nnz = model.pattern
    data = np.bincount(inv, weights=Ke.ravel(), minlength=nnz)
    n = model.n_dofs
    return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def assemble_vector(model, fe):
    """Global vector from element vectors ``fe`` (n_el, 2 n_en)."""
    return np.bincount(model.dofs.ravel(), weights=fe.ravel(), minlength=model.n_dofs)


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


def check_clamped(model):
    """A stiffness needs >= 3 fixed dofs to lose the rigid motions; say so instead of a singular LU."""
    if model.fixed.size < 3:
        raise ValueError(f"model.fixed holds {model.fixed.size} dofs: the model is not clamped "
                         "(at least 3 fixed dofs remove the rigid motions), its stiffness is "
                         "singular")


def sparse_solve(A, b, name, hint=""):
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
