"""numba kernel of the PCC equations of motion (:mod:`lib.pcc`), point by point.

Symbols are :mod:`lib.pcc`'s: ``q`` the segment curvature angles, ``qd`` their rates,
``seg``, ``u`` and ``w`` the segment, local coordinate and weight of each quadrature
point, ``ell = L/n``, ``EI``, ``rhoA``, ``L`` and ``grav`` (g in -y).  The moments
``E_m(x) = int_0^1 v^m e^{ixv} dv`` (m = 0..3) use the Taylor series below
``threshold`` (its coefficients ``coef[k, m] = i^k/(k + m + 1)`` and ``1/k`` passed in
from :mod:`lib.pcc`) and the upward recursion above it, as :func:`lib.pcc._moments`
does.

* :func:`accel` -- :func:`lib.pcc.accel`: the mass matrix ``M = rhoA int J^H J``, the
  force ``rhoA int J^H C - (EI/ell) q`` (and gravity), and ``M^{-1} f`` by Cholesky.

It does the NumPy code's arithmetic point by point, so it agrees with it to round-off
(``tests/test_kernels.py``), not bit for bit (sums are taken in another order).
Nothing here validates its input: :mod:`lib.pcc` does, then calls it.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import inline, kernel

__all__ = ["accel"]


@inline
def _moments(x, coef, inv_k, threshold, out):
    """out[0..3] = E_0..E_3(x) (complex)."""
    if abs(x) < threshold:
        nt = coef.shape[0]
        for m in range(4):
            out[m] = 0.0
        t = 1.0                               # x^k / k!, by a running product
        for k in range(nt):
            if k > 0:
                t = t * (x * inv_k[k - 1])
            for m in range(4):
                out[m] += t * coef[k, m]
    else:
        e = complex(math.cos(x), math.sin(x))
        ix = complex(0.0, x)
        em = (e - 1.0) / ix
        out[0] = em
        for m in range(1, 4):
            em = (e - m * em) / ix
            out[m] = em


@kernel
def accel(q, qd, seg, u, w, ell, EI, rhoA, L, grav, coef, inv_k, threshold):
    """Accelerations ``M(q)^{-1} f(q, qd)`` of the PCC model (see the module docstring).

    Returns ``(qdd, info)``: ``info`` is 0, or ``k + 1`` if Cholesky met a non-positive
    pivot at row ``k`` (the mass matrix is not positive definite).
    """
    n = q.shape[0]
    G = seg.shape[0]
    Ek = np.empty((n, 4), dtype=np.complex128)
    tmp = np.empty(4, dtype=np.complex128)
    for k in range(n):
        _moments(q[k], coef, inv_k, threshold, tmp)
        for m in range(4):
            Ek[k, m] = tmp[m]
    eT = np.empty(n, dtype=np.complex128)     # ell e^{i Theta_k}, Theta_k = sum_{j<k} q_j
    P = np.zeros(n + 1, dtype=np.complex128)  # segment start points
    Om = np.empty(n)                          # Omega_k = sum_{j<k} qd_j
    start = np.zeros(n + 1, dtype=np.complex128)  # C at the segment starts
    th, om = 0.0, 0.0
    for k in range(n):
        eT[k] = ell * complex(math.cos(th), math.sin(th))
        Om[k] = om
        P[k + 1] = P[k] + eT[k] * Ek[k, 0]
        start[k + 1] = start[k] + eT[k] * (om * om * Ek[k, 0] + 2.0 * om * qd[k] * Ek[k, 1]
                                          + qd[k] * qd[k] * Ek[k, 2])
        th += q[k]
        om += qd[k]
    M = np.zeros((n, n))
    f = np.zeros(n)
    Jg = np.empty(n, dtype=np.complex128)
    for g in range(G):
        s = seg[g]
        ug = u[g]
        _moments(q[s] * ug, coef, inv_k, threshold, tmp)
        eTs = eT[s]
        p = P[s] + ug * eTs * tmp[0]
        for i in range(n):
            if i < s:
                Jg[i] = 1j * (eT[i] * Ek[i, 1] - P[i + 1] + p)
            else:
                Jg[i] = 0.0
        Jg[s] = 1j * ug * ug * eTs * tmp[1]
        Ok, wk = Om[s], qd[s]
        C = start[s] + ug * eTs * (Ok * Ok * tmp[0] + ug * (2.0 * Ok * wk * tmp[1]
                                                             + wk * wk * ug * tmp[2]))
        wg = w[g]
        for i in range(s + 1):                # J_g vanishes beyond its own segment
            a = Jg[i].conjugate() * wg
            f[i] += (a * C).real
            for j in range(s + 1):
                M[i, j] += (a * Jg[j]).real
    for i in range(n):
        f[i] = rhoA * f[i] - EI / ell * q[i]
        for j in range(n):
            M[i, j] *= rhoA
    if grav != 0.0:
        R = 0.0 + 0.0j                        # sum over the later segments of A_0
        for k in range(n - 1, -1, -1):
            lever = L - ell * k
            A0 = eT[k] * (lever * Ek[k, 0] - ell * Ek[k, 1])
            A1 = eT[k] * (lever * Ek[k, 1] - ell * Ek[k, 2])
            f[k] -= rhoA * grav * (A1 + R).real
            R += A0
    # Cholesky M = C C^T (lower) and the two triangular solves
    for j in range(n):
        d = M[j, j]
        for k in range(j):
            d -= M[j, k] * M[j, k]
        if not d > 0.0:
            return f, j + 1
        d = math.sqrt(d)
        M[j, j] = d
        for i in range(j + 1, n):
            s_ = M[i, j]
            for k in range(j):
                s_ -= M[i, k] * M[j, k]
            M[i, j] = s_ / d
    x = f.copy()
    for i in range(n):
        s_ = x[i]
        for k in range(i):
            s_ -= M[i, k] * x[k]
        x[i] = s_ / M[i, i]
    for i in range(n - 1, -1, -1):
        s_ = x[i]
        for k in range(i + 1, n):
            s_ -= M[k, i] * x[k]
        x[i] = s_ / M[i, i]
    return x, 0
