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
* :func:`first_order`     -- :func:`lib.rod.first_order`: ``(v, -gradient(q) / m)`` for
  ``y = (q, v)`` in one call (the right-hand side SciPy's ``solve_ivp`` takes);
* :func:`hessian_banded`  -- :func:`lib.rod.hessian` written straight into LAPACK upper
  banded storage ``ab[u + i - j, j] = H[i, j]`` (i <= j), half-bandwidth u = 4: element
  e couples phi_e (3e) with nodes e (3e-2, 3e-1) and e+1 (3e+1, 3e+2), so
  |i - j| <= 3e+2 - (3e-2) = 4; the bending spring couples phi_{e-1} and phi_e (3);
* :func:`verlet_run`      -- :func:`lib.integrate.verlet` with
  ``accel(q) = -gradient(q) / m`` (lumped mass ``m``), many steps per call, sampled;
* :func:`newmark_run`     -- :func:`lib.integrate.newmark` with ``force`` =
  :func:`lib.rod.force` and the lumped mass, many steps per call (the Newton of
  :func:`lib.solvers.newton.newton_solve` with its defaults and the line-search fallback,
  the banded tangent by a small banded Cholesky), with an optional energy bound that
  ends the run (:func:`lib.rod.newmark`).

Nothing here validates its input: the faces do, then call these.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import kernel

__all__ = ["BANDWIDTH", "energy", "gradient", "first_order", "force", "hessian_banded", "verlet_run", "n_samples",
           "newmark_run", "NEWTON_REASONS"]

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
def first_order(y, m, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """dy/dt = (v, -grad Pi(q) / m) for y = (q, v), shape (6N,) (see :func:`lib.rod.first_order`)."""
    n = 3 * N
    out = np.empty(2 * n)
    out[:n] = y[n:]
    acc = out[n:]
    _gradient_into(y[:n], N, ell, EA, S, EI, rhoA, g, Px, Py, M, acc)
    for i in range(n):
        acc[i] = -acc[i] / m[i]
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
def _sample_buffers(k, n):
    """Sample times (k,), states q, v, a (k, n) each and step indices (k,), uninitialised."""
    return (np.empty(k), np.empty((k, n)), np.empty((k, n)), np.empty((k, n)),
            np.empty(k, dtype=np.int64))


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
    T, Qs, Vs, As, St = _sample_buffers(n_samples(nsteps, every), n)
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


# --------------------------------------------------------------------------------------
# implicit Newmark over many steps (lib.rod.newmark), with the Newton of lib.integrate
# --------------------------------------------------------------------------------------
#: Failure codes of :func:`newmark_run` (index into ``NEWTON_REASONS``).
NEWTON_REASONS = ("", "maxiter", "line search", "non-finite", "singular")
_MAXITER, _LINE_SEARCH, _NONFINITE, _SINGULAR = 1, 2, 3, 4
#: What ended a :func:`newmark_run`: all steps, the energy bound, a failed Newton solve,
#: a non-finite state.
RUN_DONE, RUN_ENERGY, RUN_NEWTON, RUN_NONFINITE = 0, 1, 2, 3


@kernel
def _band_cholesky(ab, c):
    """U^T U = A for A in upper banded storage ``ab`` (u + 1, n); U into ``c`` (same
    storage).  False if a pivot is not positive (A not positive definite), as LAPACK's
    dpbtrf."""
    u, n = ab.shape[0] - 1, ab.shape[1]
    for j in range(n):
        i0 = max(0, j - u)
        for i in range(i0, j):              # U[i, j] = (A[i, j] - sum_k U[k, i] U[k, j]) / U[i, i]
            s = ab[u + i - j, j]
            for k in range(i0, i):
                s -= c[u + k - i, i] * c[u + k - j, j]
            c[u + i - j, j] = s / c[u, i]
        s = ab[u, j]
        for k in range(i0, j):
            s -= c[u + k - j, j] * c[u + k - j, j]
        if not s > 0.0:
            return False
        c[u, j] = math.sqrt(s)
    return True


@kernel
def _band_cholesky_solve(c, b, x):
    """x = A^{-1} b from the factor U of :func:`_band_cholesky` (U^T y = b, U x = y)."""
    u, n = c.shape[0] - 1, c.shape[1]
    for j in range(n):
        s = b[j]
        for k in range(max(0, j - u), j):
            s -= c[u + k - j, j] * x[k]
        x[j] = s / c[u, j]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, min(n, i + u + 1)):
            s -= c[u + i - j, j] * x[j]
        x[i] = s / c[u, i]


@kernel
def _dense_lu_solve(ab, b, x):
    """x = A^{-1} b by LU with partial pivoting of the full matrix (A symmetric, upper
    banded ``ab``): the indefinite case, where LAPACK's banded LU (dgbsv) is the NumPy
    path's.  False if a pivot is exactly zero (singular)."""
    u, n = ab.shape[0] - 1, ab.shape[1]
    A = np.zeros((n, n))
    for j in range(n):
        for i in range(max(0, j - u), j + 1):
            A[i, j] = ab[u + i - j, j]
            A[j, i] = ab[u + i - j, j]
    for i in range(n):
        x[i] = b[i]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(A[i, k]) > abs(A[p, k]):
                p = i
        if A[p, k] == 0.0:
            return False
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
            x[k], x[p] = x[p], x[k]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
                x[i] -= f * x[k]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return True


@kernel
def _newmark_residual(x, u0, v0, a0, h, m, beta, N, ell, EA, S, EI, rhoA, g, Px, Py, M, R):
    """R = M a_1 + f(x) of the Newmark step into ``R``; returns its force scale
    max(|f|_inf, |M a_1|_inf, tiny) (lib.integrate._newmark_core's ``fun``)."""
    cb = 1.0 / (beta * h * h)
    c0 = 0.5 / beta - 1.0
    _gradient_into(x, N, ell, EA, S, EI, rhoA, g, Px, Py, M, R)
    fmax, mmax = 0.0, 0.0
    for i in range(x.size):
        a1 = cb * (x[i] - u0[i] - h * v0[i]) - c0 * a0[i]
        ma = m[i] * a1
        fmax = max(fmax, abs(R[i]))
        mmax = max(mmax, abs(ma))
        R[i] = ma + R[i]
    return max(fmax, mmax, np.finfo(np.float64).tiny)


@kernel
def _newmark_newton(x0, u0, v0, a0, h, m, beta, tol, maxiter, line_search,
                    N, ell, EA, S, EI, rhoA, g, Px, Py, M, x):
    """Newton on the Newmark residual from ``x0``, into ``x``: the iteration of
    :func:`lib.solvers.newton.newton_solve` with its defaults (accept="residual",
    roundoff="step", floor None, xtol_rel = 8 eps, 30 halvings), plain
    (``line_search`` False) or with the Armijo line search on ||R||^2.

    Returns (reason, iterations, backtracks, ||R||_inf, relative residual); reason 0
    on convergence, else an index into ``NEWTON_REASONS``.
    """
    n = x0.size
    u = BANDWIDTH
    eps = np.finfo(np.float64).eps
    tiny_f = np.finfo(np.float64).tiny
    cb = 1.0 / (beta * h * h)
    R = np.empty(n)
    Rt = np.empty(n)
    xt = np.empty(n)
    dx = np.empty(n)
    ab = np.zeros((u + 1, n))
    cf = np.zeros((u + 1, n))
    for i in range(n):
        x[i] = x0[i]
    sc = _newmark_residual(x, u0, v0, a0, h, m, beta, N, ell, EA, S, EI, rhoA, g, Px, Py, M, R)
    backtracks = 0
    tiny_prev = False
    for it in range(maxiter + 1):
        res, rel = 0.0, 0.0
        finite = True
        conv = True
        for i in range(n):
            ar = abs(R[i])
            if not ar < np.inf:
                finite = False
            res = max(res, ar)
            rel = max(rel, ar / max(sc, tiny_f))
            if not ar <= tol * sc:
                conv = False
        if not finite:
            return _NONFINITE, it, backtracks, np.nan, np.nan
        if conv or tiny_prev:
            return 0, it, backtracks, res, rel
        if it == maxiter:
            return _MAXITER, it, backtracks, res, rel
        # the tangent K + M / (beta h^2) at x, banded; Cholesky, else LU (as SymmetricBanded)
        ab[:, :] = 0.0
        _hessian_into(x, N, ell, EA, S, EI, ab)
        ok = True
        for j in range(n):
            ab[u, j] += cb * m[j]
            for k in range(u + 1):
                if not abs(ab[k, j]) < np.inf:
                    ok = False
        if not ok:
            return _SINGULAR, it, backtracks, res, rel
        for i in range(n):
            Rt[i] = -R[i]
        if _band_cholesky(ab, cf):
            _band_cholesky_solve(cf, Rt, dx)
        elif not _dense_lu_solve(ab, Rt, dx):
            return _SINGULAR, it, backtracks, res, rel
        xmax, dmax = 0.0, 0.0
        for i in range(n):
            if not abs(dx[i]) < np.inf:
                return _SINGULAR, it, backtracks, res, rel
            xmax = max(xmax, abs(x[i]))
            dmax = max(dmax, abs(dx[i]))
        tiny = dmax <= 8.0 * eps * max(xmax, 1e-300)
        plain = (not line_search) or tiny
        phi0 = 0.0
        if not plain:
            for i in range(n):
                phi0 += R[i] * R[i]
        t = 1.0
        st = sc
        for k in range(31):
            for i in range(n):
                xt[i] = x[i] + t * dx[i]
            if plain:
                break
            st = _newmark_residual(xt, u0, v0, a0, h, m, beta, N, ell, EA, S, EI, rhoA, g,
                                   Px, Py, M, Rt)
            phit = 0.0
            met = True
            for i in range(n):
                phit += Rt[i] * Rt[i]
                if not abs(Rt[i]) <= tol * st:
                    met = False
            if (phit < np.inf and phit <= (1.0 - 2.0 * 1e-4 * t) * phi0) or met:
                break
            if k == 30:
                return _LINE_SEARCH, it, backtracks, res, rel
            t *= 0.5
            backtracks += 1
        for i in range(n):
            x[i] = xt[i]
        if plain:
            sc = _newmark_residual(x, u0, v0, a0, h, m, beta, N, ell, EA, S, EI, rhoA, g,
                                   Px, Py, M, R)
        else:
            sc = st
            for i in range(n):
                R[i] = Rt[i]
        tiny_prev = tiny
    return _MAXITER, maxiter, backtracks, np.nan, np.nan    # not reached


@kernel
def newmark_run(q0, v0, a0, dt, nsteps, every, m, beta, gamma, tol, maxiter, predictor,
                stop_energy, N, ell, EA, S, EI, rhoA, g, Px, Py, M):
    """Newmark-beta on M q'' + grad Pi(q) = 0, ``nsteps`` steps in one call.

    The step of :func:`lib.integrate.newmark_step` (lumped mass ``m``, tangent
    K + M/(beta dt^2) in banded storage, factored by banded Cholesky, or by LU with
    partial pivoting where it is not positive definite), each solve by Newton with the
    line-search fallback of :func:`lib.solvers.newton.newton_solve` (plain Newton, then
    again from the predictor with the Armijo line search).  ``predictor`` 0, 1, 2:
    displacement, velocity, acceleration.  ``a0`` is the initial acceleration.
    Samples as :func:`verlet_run`; at every sample the energy Pi(q) + v.M v/2 is
    compared with ``stop_energy`` (``inf``: never) and the run ends at the first sample
    above it.

    Returns
    -------
    (t, q, v, a, steps, status, step, reason, iteration, residual, relative,
     iterations, backtracks) : the samples (as :func:`verlet_run`); ``status`` one of
        RUN_DONE, RUN_ENERGY (the last sample is the first above the bound),
        RUN_NEWTON (the solve of step ``step`` failed: ``reason`` an index into
        ``NEWTON_REASONS``, at ``iteration``, with ``residual`` and ``relative`` of the
        line-search attempt) or RUN_NONFINITE (the state of step ``step`` is not
        finite); the Newton iterations and halvings summed over the accepted solves.
    """
    n = 3 * N
    T, Qs, Vs, As, St = _sample_buffers(n_samples(nsteps, every), n)
    q = q0.copy()
    v = v0.copy()
    a = a0.copy()
    x0 = np.empty(n)
    x = np.empty(n)
    T[0] = 0.0
    Qs[0], Vs[0], As[0], St[0] = q, v, a, 0
    j = 1
    iters, backs = 0, 0
    h = dt
    cb = 1.0 / (beta * h * h)
    c0 = 0.5 / beta - 1.0
    for step in range(1, nsteps + 1):
        for i in range(n):
            if predictor == 0:
                x0[i] = q[i]
            elif predictor == 1:
                x0[i] = q[i] + h * v[i]
            else:
                x0[i] = q[i] + h * v[i] + 0.5 * h * h * a[i]
        reason, it, bt, res, rel = _newmark_newton(x0, q, v, a, h, m, beta, tol, maxiter,
                                                   False, N, ell, EA, S, EI, rhoA, g,
                                                   Px, Py, M, x)
        if reason != 0:                     # plain Newton failed: again with the line search
            reason, it, bt, res, rel = _newmark_newton(x0, q, v, a, h, m, beta, tol, maxiter,
                                                       True, N, ell, EA, S, EI, rhoA, g,
                                                       Px, Py, M, x)
            if reason != 0:
                return (T[:j], Qs[:j], Vs[:j], As[:j], St[:j], RUN_NEWTON, step, reason, it,
                        res, rel, iters, backs)
        iters += it
        backs += bt
        ok = True
        for i in range(n):
            a1 = cb * (x[i] - q[i] - h * v[i]) - c0 * a[i]
            v[i] = v[i] + h * ((1.0 - gamma) * a[i] + gamma * a1)
            q[i] = x[i]
            a[i] = a1
            if not (abs(q[i]) < np.inf and abs(v[i]) < np.inf):
                ok = False
        if not ok:
            return (T[:j], Qs[:j], Vs[:j], As[:j], St[:j], RUN_NONFINITE, step, 0, 0,
                    np.nan, np.nan, iters, backs)
        if step % every == 0 or step == nsteps:
            T[j] = step * dt
            Qs[j], Vs[j], As[j], St[j] = q, v, a, step
            j += 1
            if stop_energy < np.inf:
                kin = 0.0
                for i in range(n):
                    kin += v[i] * (m[i] * v[i])
                if energy(q, N, ell, EA, S, EI, rhoA, g, Px, Py, M) + 0.5 * kin > stop_energy:
                    return (T[:j], Qs[:j], Vs[:j], As[:j], St[:j], RUN_ENERGY, step, 0, 0,
                            np.nan, np.nan, iters, backs)
    return T, Qs, Vs, As, St, RUN_DONE, 0, 0, 0, np.nan, np.nan, iters, backs
