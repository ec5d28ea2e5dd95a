"""Independent references: Timoshenko by the exact transfer matrix, PCC Ritz in closed form."""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla
from scipy.optimize import brentq

from .. import beam, rod
from ..core import checks
from ..core.errors import SolveError

__all__ = ["timoshenko_omegas_transfer", "pcc_ritz_exact"]


def _timoshenko_det(Omega2, rhoI, kGA):
    """det of the free-end block of the transfer matrix expm(A(Omega^2)) (L = EI = rhoA = 1)."""
    # y = [w, psi, M, V]:  w' = psi + V/kGA, psi' = M, M' = -V - rhoI W psi, V' = -W w
    A = np.array([[0.0, 1.0, 0.0, 1.0 / kGA],
                  [0.0, 0.0, 1.0, 0.0],
                  [0.0, -rhoI * Omega2, 0.0, -1.0],
                  [-Omega2, 0.0, 0.0, 0.0]])
    T = sla.expm(A)
    return T[2, 2] * T[3, 3] - T[2, 3] * T[3, 2]


def timoshenko_omegas_transfer(k, r_over_L, nu=0.5, ks=None):
    r"""Clamped-free Timoshenko frequencies from the exact transfer matrix (no ``solve_bvp``).

    With L = EI = rhoA = 1, state ``y = [w, psi, M, V]`` obeys the constant-
    coefficient system

    .. math:: w' = \psi + V/k_sGA,\quad \psi' = M,\quad
              M' = -V - \rho I\,\Omega^2\psi,\quad V' = -\Omega^2 w,

    so ``y(1) = expm(A) y(0)``.  The clamp gives ``w(0) = psi(0) = 0``, the free
    end ``M(1) = V(1) = 0``: the frequency equation is the determinant of the
    (M, V) block of ``expm(A)``.  Roots by ``brentq`` in brackets seeded from
    the Euler-Bernoulli values (the Timoshenko ones lie a little below).

    Examples
    --------
    >>> np.round(timoshenko_omegas_transfer(2, 1e-4), 4).tolist()   # Euler-Bernoulli limit
    [3.516, 22.0345]
    """
    k = checks.integer(k, "k", low=1)
    r = checks.positive(r_over_L, "r_over_L")
    m = rod.make_rod(1, r_over_L=r, nu=nu, ks=ks)
    rhoI, kGA = m.rhoI, m.kGA
    eb = beam.euler_bernoulli_omegas(k)
    out = []
    for Om in eb:
        # scan downwards from just above the EB root for the first sign change
        grid = np.linspace(1.001 * Om, 0.8 * Om, 41) ** 2
        vals = np.array([_timoshenko_det(g, rhoI, kGA) for g in grid])
        idx = np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))
        if idx.size == 0:
            raise SolveError(
                f"no Timoshenko root found between 0.8 and 1.001 times the Euler-Bernoulli "
                f"Omega = {Om:.4f} (mode {len(out) + 1}); r_over_L = {r} may be too thick "
                "for this bracket")
        i = idx[0]
        try:
            root, info = brentq(_timoshenko_det, grid[i + 1], grid[i], args=(rhoI, kGA),
                                xtol=1e-15, rtol=4 * np.finfo(float).eps, full_output=True,
                                disp=False)
        except ValueError as exc:      # SciPy's bracket check: say which mode and input
            raise SolveError(f"Timoshenko root of mode {len(out) + 1} (r_over_L = {r}): "
                             f"the bracket [{grid[i + 1]:.6g}, {grid[i]:.6g}] on Omega^2 "
                             f"failed: {exc}") from None
        if not info.converged:
            raise SolveError(f"Timoshenko root of mode {len(out) + 1} (r_over_L = {r}): "
                             f"brentq stopped after {info.iterations} iterations: {info.flag}")
        out.append(math.sqrt(root))
    return np.array(out)


def pcc_ritz_exact(n, EI=1.0, rhoA=1.0, L=1.0):
    r"""PCC Rayleigh-Ritz mass and stiffness by closed-form integrals (no quadrature).

    On segment ``k`` (local ``t`` in ``[0, ell]``) the ramp integral ``psi_i`` is
    ``t + (k - i - 1/2) ell`` for ``i < k``, ``t^2/(2 ell)`` for ``i = k`` and 0
    for ``i > k``, so each entry of ``M_ij = rhoA int psi_i psi_j`` is a sum of

    .. math:: \int_0^\ell (t+a)(t+b) = \tfrac{\ell^3}{3} + (a+b)\tfrac{\ell^2}{2} + ab\,\ell,\quad
              \int_0^\ell \tfrac{t^2}{2\ell}(t+a) = \tfrac{\ell^3}{8} + a\tfrac{\ell^2}{6},\quad
              \int_0^\ell \tfrac{t^4}{4\ell^2} = \tfrac{\ell^3}{20}.

    Returns ``(M, K)`` with ``K = diag(EI / ell)``.

    Examples
    --------
    >>> M, K = pcc_ritz_exact(1)
    >>> float(M[0, 0]), float(K[0, 0])
    (0.05, 1.0)
    """
    n = checks.integer(n, "n", low=1)
    ell = checks.positive(L, "L") / n
    i = np.arange(n)
    kk = i[:, None, None]                         # segment index
    a = (kk - i[None, :, None] - 0.5) * ell       # offset of psi_i on segment k (i < k)
    b = (kk - i[None, None, :] - 0.5) * ell
    lin_i = i[None, :, None] < kk
    lin_j = i[None, None, :] < kk
    quad_i = i[None, :, None] == kk
    quad_j = i[None, None, :] == kk
    both_lin = ell**3 / 3 + (a + b) * ell**2 / 2 + a * b * ell
    qi_lj = ell**3 / 8 + b * ell**2 / 6
    li_qj = ell**3 / 8 + a * ell**2 / 6
    seg = (np.where(lin_i & lin_j, both_lin, 0.0) + np.where(quad_i & lin_j, qi_lj, 0.0)
           + np.where(lin_i & quad_j, li_qj, 0.0) + np.where(quad_i & quad_j, ell**3 / 20, 0.0))
    M = checks.positive(rhoA, "rhoA") * seg.sum(axis=0)
    K = np.diag(np.full(n, checks.positive(EI, "EI") / ell))
    return M, K
