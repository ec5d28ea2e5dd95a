"""numba kernels of the planar Cosserat rod (:mod:`lib.rod`), element by element.

Layout and symbols are :mod:`lib.rod`'s: ``q[3e] = phi_e, q[3e+1] = x_{e+1},
q[3e+2] = y_{e+1}`` (node 0 clamped at the origin, phi_{-1} = 0); ``ell`` the element
length, ``EA``, ``S`` (= k_sGA), ``EI`` the section stiffnesses, ``rhoA`` the mass per
length, ``g`` gravity in -y, ``(Px, Py, M)`` the dead tip load.  Each kernel does the
arithmetic of its NumPy twin in the same order (tested to round-off in
``tests/test_kernels.py``):

* :func:`energy`          -- :func:`lib.rod.energy` (one state);
* :func:`gradient`        -- :func:`lib.rod.gradient`;
* :func:`force`           -- both of the next two in one call (:func:`lib.rod.force`);
* :func:`hessian_banded`  -- :func:`lib.rod.hessian` written straight into LAPACK upper
  banded storage ``ab[u + i - j, j] = H[i, j]`` (i <= j), half-bandwidth u = 4: element
  e couples phi_e (3e) with nodes e (3e-2, 3e-1) and e+1 (3e+1, 3e+2), so
  |i - j| <= 3e+2 - (3e-2) = 4; the bending spring couples phi_{e-1} and phi_e (3);
* :func:`verlet_run`      -- :func:`lib.integrate.verlet` with
  ``accel(q) = -gradient(q) / m`` (lumped mass ``m``), many steps per call, sampled.

Nothing here validates its input: the faces do, then call these.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import kernel

__all__ = ["BANDWIDTH", "energy", "gradient", "force", "hessian_banded", "verlet_run", "n_samples"]

BANDWIDTH = 4


@kernel
def _element(q, e, xp, yp):
    """(phi, cos phi, sin phi, a, b) of element e; (xp, yp) is node e."""
    phi = q[3 * e]
    dx, dy = q[3 * e + 1] - xp, q[3 * e + 2] - yp
    c, s = math.cos(phi), math.sin(phi)
    return phi, c, s, c * dx + s * dy, c * dy - s * dx


@kernel
def energy(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """Pi(q) (see :func:`lib.rod.energy`); sums run element by element."""
    xp, yp = 0.0, 0.0
    stretch, bend, weight = 0.0, 0.0, 0.0
    phi_prev = 0.0
    for e in range(N):
        phi, c, s, a, b = _element(q, e, xp, yp)
        xp, yp = q[3 * e + 1], q[3 * e + 2]
        stretch += 0.5 * ell * (EA * (a / ell - 1.0) ** 2 + S * (b / ell) ** 2)
        w = 2.0 if e == 0 else 1.0
        bend += 0.5 * EI / ell * w * (phi - phi_prev) ** 2
        phi_prev = phi
        weight += yp * (rhoA * ell * (0.5 if e == N - 1 else 1.0))
    ext = Px * q[3 * N - 2] + Py * q[3 * N - 1] + M * q[3 * N - 3]
    return stretch + bend + g * weight - ext


@kernel
def _gradient_into(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M, out):
    """Write grad Pi(q) into ``out`` (3N,); the operations of lib.rod.gradient."""
    kA, kS = EA / ell, S / ell
    kB = EI / ell
    xp, yp = 0.0, 0.0
    for e in range(N):
        phi, c, s, a, b = _element(q, e, xp, yp)
        xp, yp = q[3 * e + 1], q[3 * e + 2]
        Fa = a * kA - EA
        Fb = b * kS
        out[3 * e] = Fa * b - Fb * a
        out[3 * e + 1] = Fa * c - Fb * s
        out[3 * e + 2] = Fa * s + Fb * c
    # node e+1 also starts element e+1: subtract its force (original values, as NumPy)
    for e in range(N - 1):
        out[3 * e + 1] -= out[3 * e + 4]
        out[3 * e + 2] -= out[3 * e + 5]
    for e in range(N - 1):          # bending moments between elements (g0[1:] += mb first)
        out[3 * e + 3] += (q[3 * e + 3] - q[3 * e]) * kB
    for e in range(N - 1):
        out[3 * e] -= (q[3 * e + 3] - q[3 * e]) * kB
    out[0] += 2.0 * EI / ell * q[0]  # clamp half element (c_0 = 2)
    if g != 0.0:
        wg = g * rhoA * ell
        for e in range(N):
            out[3 * e + 2] += wg
        out[3 * N - 1] -= 0.5 * g * rhoA * ell
    out[3 * N - 2] -= Px
    out[3 * N - 1] -= Py
    out[3 * N - 3] -= M


@kernel
def gradient(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """grad Pi(q), shape (3N,) (see :func:`lib.rod.gradient`)."""
    out = np.empty(3 * N)
    _gradient_into(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M, out)
    return out


@kernel
def hessian_banded(q, N, ell, EA, S, EI):
    """Hessian of Pi at q in upper banded storage, shape (5, 3N) (see :func:`lib.rod.hessian`)."""
    ab = np.zeros((BANDWIDTH + 1, 3 * N))
    _hessian_into(q, N, ell, EA, S, EI, ab)
    return ab


@kernel
def force(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """(grad Pi(q), its Hessian in upper banded storage): both in one call (lib.rod.force)."""
    out = np.empty(3 * N)
    _gradient_into(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M, out)
    ab = np.zeros((BANDWIDTH + 1, 3 * N))
    _hessian_into(q, N, ell, EA, S, EI, ab)
    return out, ab


@kernel
def _hessian_into(q, N, ell, EA, S, EI, ab):
    """Add the Hessian of Pi at q into the upper banded ``ab`` (5, 3N)."""
    u = 4
    kt, kn = EA / ell, S / ell
    kB = EI / ell
    idx = np.empty(5, dtype=np.int64)
    sg = np.array([1.0, -1.0, -1.0, 1.0, 1.0])
    loc = np.array([0, 1, 2, 1, 2])
    h = np.empty((3, 3))
    xp, yp = 0.0, 0.0
    for e in range(N):
        phi, c, s, a, b = _element(q, e, xp, yp)
        xp, yp = q[3 * e + 1], q[3 * e + 2]
        Fa = EA * (a / ell - 1.0)
        Fb = S * b / ell
        h[0, 0] = (EA * b * b + S * a * a) / ell - Fa * a - Fb * b
        hdp_t = EA * b / ell - Fb
        hdp_n = Fa - S * a / ell
        h[0, 1] = h[1, 0] = hdp_t * c - hdp_n * s
        h[0, 2] = h[2, 0] = hdp_t * s + hdp_n * c
        h[1, 1] = kt * c * c + kn * s * s
        h[2, 2] = kt * s * s + kn * c * c
        h[1, 2] = h[2, 1] = (kt - kn) * c * s
        idx[0], idx[1], idx[2] = 3 * e, 3 * e - 2, 3 * e - 1
        idx[3], idx[4] = 3 * e + 1, 3 * e + 2
        for p in range(5):
            i = idx[p]
            if i < 0:
                continue                     # node 0 (the clamp) is not an unknown
            for r in range(5):
                j = idx[r]
                if j < i:
                    continue
                ab[u + i - j, j] += sg[p] * sg[r] * h[loc[p], loc[r]]
        kb = kB * (2.0 if e == 0 else 1.0)   # bending spring between elements e-1 and e
        ab[u, 3 * e] += kb
        if e > 0:
            ab[u, 3 * e - 3] += kb
            ab[u - 3, 3 * e] -= kb


@kernel
def n_samples(nsteps, every):
    """Samples of a run: step 0, every ``every``-th step and the last."""
    return 1 + nsteps // every + (1 if nsteps % every else 0)


@kernel
def verlet_run(q0, v0, dt, nsteps, every, m, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """Velocity Verlet on M q'' = -grad Pi(q), ``nsteps`` steps in one call.

    The step of :func:`lib.integrate.verlet_step`: v_{1/2} = v + dt/2 a,
    q_1 = q + dt v_{1/2}, a_1 = -grad Pi(q_1) / m, v_1 = v_{1/2} + dt/2 a_1.
    Samples (as :func:`lib.integrate.verlet`): step 0, every ``every``-th step, the last.

    Returns
    -------
    (t, q, v, a, steps, fail) : sample times (k,), states (k, 3N) each, step indices
        (k,), and the first step whose q or v is not finite (0 if none; the samples
        then stop before it).
    """
    n = 3 * N
    k = n_samples(nsteps, every)
    T = np.empty(k)
    Qs = np.empty((k, n))
    Vs = np.empty((k, n))
    As = np.empty((k, n))
    St = np.empty(k, dtype=np.int64)
    q = q0.copy()
    v = v0.copy()
    a = np.empty(n)
    _gradient_into(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M, a)
    for i in range(n):
        a[i] = -a[i] / m[i]
    T[0] = 0.0
    Qs[0], Vs[0], As[0], St[0] = q, v, a, 0
    j = 1
    hdt = 0.5 * dt
    for step in range(1, nsteps + 1):
        for i in range(n):
            v[i] = v[i] + hdt * a[i]
            q[i] = q[i] + dt * v[i]
        _gradient_into(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M, a)
        ok = True
        for i in range(n):
            a[i] = -a[i] / m[i]
            v[i] = v[i] + hdt * a[i]
            if not (abs(q[i]) < np.inf and abs(v[i]) < np.inf):
                ok = False
        if not ok:
            return T[:j], Qs[:j], Vs[:j], As[:j], St[:j], step
        if step % every == 0 or step == nsteps:
            T[j] = step * dt
            Qs[j], Vs[j], As[j], St[j] = q, v, a, step
            j += 1
    return T, Qs, Vs, As, St, 0
