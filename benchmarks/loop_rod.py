"""Per-element Python-loop baseline of the discrete planar Cosserat rod.

The same energy, gradient and Hessian as :mod:`lib.rod`, written the way a
first implementation usually is: one pass over the elements with ``math``
scalars and Python lists, no numpy in the element work.  It exists only to be
timed against the vectorised library (``benchmarks/run.py``) and is checked
against it in ``tests/test_benchmarks_baseline.py``; nothing in the book calls it.

Array layout (as in :mod:`lib.rod`): ``q[3e] = phi_e``, ``q[3e+1] = x_{e+1}``,
``q[3e+2] = y_{e+1}`` for e = 0..N-1; node 0 is clamped at the origin with the
section angle phi_{-1} = 0.  Per element, with d = x_{e+1} - x_e,
a = d . (cos phi_e, sin phi_e), b = d . (-sin phi_e, cos phi_e):

    Pi = sum_e ell/2 [EA (a/ell - 1)^2 + S (b/ell)^2] + EI c_e/(2 ell) (phi_e - phi_{e-1})^2
         + g sum_i m_i y_i - (Px x_N + Py y_N + M phi_{N-1}),       c_0 = 2, c_e = 1.

The Hessian loop fills COO triplet lists element by element and converts them
once to CSR (the same sparse type :func:`lib.rod.hessian` returns), so the
comparison measures the element work, not the choice of container.

>>> import lib.rod as rod
>>> r = rod.make_rod(3)
>>> energy(r, rod.straight(r).tolist())
0.0
"""
from __future__ import annotations

from math import cos, sin

import scipy.sparse as sp


def _params(rod):
    m = [rod.rhoA * rod.ell] * (rod.N + 1)  # m[i]: lumped mass of node i (node 0 unused)
    m[rod.N] *= 0.5
    return rod.N, rod.ell, rod.EA, rod.kGA, rod.EI, m


def energy(rod, q, load=None, grav=0.0):
    """Potential energy, one element at a time (see the module docstring)."""
    N, l, EA, S, EI, m = _params(rod)
    Pi = 0.0
    for e in range(N):
        x0, y0 = (q[3 * e - 2], q[3 * e - 1]) if e else (0.0, 0.0)
        dx, dy = q[3 * e + 1] - x0, q[3 * e + 2] - y0
        c, s = cos(q[3 * e]), sin(q[3 * e])
        a, b = c * dx + s * dy, -s * dx + c * dy
        Pi += 0.5 * l * (EA * (a / l - 1.0) ** 2 + S * (b / l) ** 2)
        dphi = q[3 * e] - (q[3 * e - 3] if e else 0.0)
        Pi += 0.5 * EI * (2.0 if e == 0 else 1.0) * dphi * dphi / l
    for i in range(1, N + 1):
        Pi += grav * m[i] * q[3 * i - 1]
    if load:
        Pi -= load[0] * q[3 * N - 2] + load[1] * q[3 * N - 1] + load[2] * q[3 * N - 3]
    return Pi


def gradient(rod, q, load=None, grav=0.0):
    """Gradient of :func:`energy` as a list of length 3N."""
    N, l, EA, S, EI, m = _params(rod)
    g = [0.0] * (3 * N)
    for e in range(N):
        x0, y0 = (q[3 * e - 2], q[3 * e - 1]) if e else (0.0, 0.0)
        dx, dy = q[3 * e + 1] - x0, q[3 * e + 2] - y0
        c, s = cos(q[3 * e]), sin(q[3 * e])
        a, b = c * dx + s * dy, -s * dx + c * dy
        Fa, Fb = EA * (a / l - 1.0), S * b / l          # axial and shear force
        fx, fy = Fa * c - Fb * s, Fa * s + Fb * c
        g[3 * e] += Fa * b - Fb * a
        g[3 * e + 1] += fx
        g[3 * e + 2] += fy
        if e:
            g[3 * e - 2] -= fx
            g[3 * e - 1] -= fy
    g[0] += 2.0 * EI * q[0] / l                          # clamp half element
    for e in range(1, N):
        mb = EI * (q[3 * e] - q[3 * e - 3]) / l
        g[3 * e] += mb
        g[3 * e - 3] -= mb
    for i in range(1, N + 1):
        g[3 * i - 1] += grav * m[i]
    if load:
        g[3 * N - 2] -= load[0]
        g[3 * N - 1] -= load[1]
        g[3 * N - 3] -= load[2]
    return g


def hessian(rod, q):
    """Hessian of :func:`energy`: element loop into COO triplets, then one CSR conversion."""
    N, l, EA, S, EI, _ = _params(rod)
    rows, cols, vals = [], [], []
    for e in range(N):
        x0, y0 = (q[3 * e - 2], q[3 * e - 1]) if e else (0.0, 0.0)
        dx, dy = q[3 * e + 1] - x0, q[3 * e + 2] - y0
        c, s = cos(q[3 * e]), sin(q[3 * e])
        a, b = c * dx + s * dy, -s * dx + c * dy
        Fa, Fb = EA * (a / l - 1.0), S * b / l
        # local unknowns (phi_e, d_x, d_y) with d = x_{e+1} - x_e
        hpp = (EA * b * b + S * a * a) / l - Fa * a - Fb * b
        ht, hn = EA * b / l - Fb, Fa - S * a / l
        hpx, hpy = ht * c - hn * s, ht * s + hn * c
        kt, kn = EA / l, S / l
        hxx, hyy, hxy = kt * c * c + kn * s * s, kt * s * s + kn * c * c, (kt - kn) * c * s
        # element unknowns (phi_e, x_e, y_e, x_{e+1}, y_{e+1}); d = x_{e+1} - x_e
        dof = [3 * e, 3 * e - 2, 3 * e - 1, 3 * e + 1, 3 * e + 2]
        sign = [1.0, -1.0, -1.0, 1.0, 1.0]
        kind = [0, 1, 2, 1, 2]                             # 0: phi, 1: d_x, 2: d_y
        h = [[hpp, hpx, hpy], [hpx, hxx, hxy], [hpy, hxy, hyy]]
        for i in range(5):
            if dof[i] < 0:                                 # node 0 is clamped
                continue
            for j in range(5):
                if dof[j] < 0:
                    continue
                rows.append(dof[i])
                cols.append(dof[j])
                vals.append(sign[i] * sign[j] * h[kind[i]][kind[j]])
        k = EI * (2.0 if e == 0 else 1.0) / l              # bending spring to phi_{e-1}
        rows.append(3 * e)
        cols.append(3 * e)
        vals.append(k)
        if e:
            rows += [3 * e - 3, 3 * e, 3 * e - 3]
            cols += [3 * e - 3, 3 * e - 3, 3 * e]
            vals += [k, -k, -k]
    n = 3 * N
    return sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
