"""Faster drop-in kernels proposed for ``lib`` (measured by ``run.py``, not used by the book).

Each function returns exactly what the ``lib`` function of the same name
returns (checked in ``tests/test_benchmarks_baseline.py``); only the numpy
call pattern differs.  They exist so that ``make bench`` shows what a change
to ``lib`` would buy before anyone makes it.

* :func:`rod_gradient` -- :func:`lib.rod.gradient` with about half the numpy
  calls: the state is viewed as a (3, N) array instead of being rebuilt from
  strided slices with ``concatenate``/``column_stack``/``diff``, the results are
  written into one preallocated (3, N) array, the clamp weight is a scalar
  instead of a freshly allocated weight vector, and the load is unpacked as
  three floats instead of going through ``asarray``/``isfinite``.
* :func:`rod_hessian` -- :func:`lib.rod.hessian` with the one three-operand
  ``einsum`` of its element kernel replaced by ``T.T @ h @ T``.
* :func:`fem_force_tangent` -- :func:`lib.fem.gradient` + :func:`lib.fem.hessian`
  with ``optimize=True`` in their ``einsum`` contractions: numpy then contracts
  pairwise with BLAS instead of looping over the full index space
  (e q a i b k J L for the tangent).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import lib.fem as fem
import lib.rod as rod_mod


def rod_gradient(rod, q, load=None, grav=0.0):
    """Same result as :func:`lib.rod.gradient` (layout ``[phi_e, x_{e+1}, y_{e+1}]``)."""
    q = rod_mod._check_q(rod, q)
    N, ell, EA, S, EI = rod.N, rod.ell, rod.EA, rod.kGA, rod.EI
    Q = q.reshape(N, 3).T                       # rows phi, x, y (views)
    phi = Q[0]
    d = np.empty((2, N))                        # d_e = x_{e+1} - x_e
    d[:, 0] = Q[1:, 0]
    np.subtract(Q[1:, 1:], Q[1:, :-1], out=d[:, 1:])
    c, s = np.cos(phi), np.sin(phi)
    dx, dy = d
    a = c * dx
    a += s * dy
    b = c * dy
    b -= s * dx
    Fa = a * (EA / ell)
    Fa -= EA                                    # axial force EA (a/ell - 1)
    Fb = b * (S / ell)                          # shear force S b/ell
    G = np.empty((3, N))
    g0, g1, g2 = G
    np.multiply(Fa, b, out=g0)
    g0 -= Fb * a
    np.multiply(Fa, c, out=g1)
    g1 -= Fb * s
    np.multiply(Fa, s, out=g2)
    g2 += Fb * c
    G[1:, :-1] -= G[1:, 1:]                     # node e+1 is the start of element e+1
    mb = np.subtract(phi[1:], phi[:-1])
    mb *= EI / ell                              # bending moments between elements
    g0[1:] += mb
    g0[:-1] -= mb
    g0[0] += 2.0 * EI / ell * phi[0]            # clamp half element (c_0 = 2)
    if grav:
        g2 += grav * rod.rhoA * ell
        g2[-1] -= 0.5 * grav * rod.rhoA * ell
    if load is not None:
        Px, Py, M = (float(x) for x in load)
        g0[-1] -= M
        g1[-1] -= Px
        g2[-1] -= Py
    return G.T.ravel()


def fem_force_tangent(model, u):
    """``(lib.fem.gradient(model, u), lib.fem.hessian(model, u))`` with optimised einsums."""
    F = fem._deformation_gradient(model, u)
    _, P, A = fem.neo_hookean(F, model.mu, model.lam)
    fe = np.einsum("eq,eqiJ,eqaJ->eai", model.w, P, model.G, optimize=True)
    f = fem._assemble_vector(model, fe.reshape(len(model.dofs), -1))
    Ke = np.einsum("eq,eqaJ,eqiJkL,eqbL->eaibk", model.w, model.G, A, model.G, optimize=True)
    n = 2 * model.G.shape[2]
    return f, fem._assemble_matrix(model, Ke.reshape(-1, n, n))


def rod_hessian(rod, q):
    """Same result as :func:`lib.rod.hessian`, with a stacked matmul in the element kernel.

    lib.rod's ``_triplets`` maps the 3 x 3 local blocks to the 5 x 5 element
    matrices with ``np.einsum("ia,eij,jb->eab", T, h, T)``; without
    ``optimize`` numpy loops over all of (e, i, a, j, b) at once, which is
    most of the Hessian's time at large N.  ``T.T @ h @ T`` does the same in
    two batched products (``optimize=True`` would too, but its path search
    costs tens of microseconds per call, which shows at small N).
    Everything else is unchanged.
    """
    q = rod_mod._check_q(rod, q)
    N, ell = rod.N, rod.ell
    EA, S = rod.EA, rod.kGA
    _, _, _, c, s, a, b = rod_mod._kinematics(rod, q)
    Fa = EA * (a / ell - 1.0)
    Fb = S * b / ell
    h = np.empty((N, 3, 3))
    h[:, 0, 0] = (EA * b * b + S * a * a) / ell - Fa * a - Fb * b
    hdp_t = EA * b / ell - Fb
    hdp_n = Fa - S * a / ell
    h[:, 0, 1] = h[:, 1, 0] = hdp_t * c - hdp_n * s
    h[:, 0, 2] = h[:, 2, 0] = hdp_t * s + hdp_n * c
    kt, kn = EA / ell, S / ell
    h[:, 1, 1] = kt * c * c + kn * s * s
    h[:, 2, 2] = kt * s * s + kn * c * c
    h[:, 1, 2] = h[:, 2, 1] = (kt - kn) * c * s
    T = np.array([[1, 0, 0, 0, 0], [0, -1, 0, 1, 0], [0, 0, -1, 0, 1]], dtype=float)
    H = T.T @ h @ T                                             # the one change
    e = np.arange(N)
    idx = np.column_stack([3 * e, 3 * e - 2, 3 * e - 1, 3 * e + 1, 3 * e + 2])
    rows = np.broadcast_to(idx[:, :, None], H.shape)
    cols = np.broadcast_to(idx[:, None, :], H.shape)
    keep = (rows >= 0) & (cols >= 0)
    kb = rod.EI / ell * rod_mod._bending_weights(rod)
    i, j, k = 3 * e[1:], 3 * e[1:] - 3, kb[1:]
    rr = np.concatenate([rows[keep], 3 * e, j, i, j])
    cc = np.concatenate([cols[keep], 3 * e, j, j, i])
    vv = np.concatenate([H[keep], kb, k, -k, -k])
    n = rod.ndof
    return sp.coo_matrix((vv, (rr, cc)), shape=(n, n)).tocsr()
