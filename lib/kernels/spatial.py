"""numba kernels of the 3-D Cosserat rod (:mod:`lib.rod3d`), element by element.

Layout and symbols are :mod:`lib.rod3d`'s: ``x`` (N, 3) positions of nodes 1..N (node 0
clamped at the origin), ``Q`` (N, 4) unit quaternions ``(w, x, y, z)`` of the element
frames (the clamp frame is the identity), ``v`` (N, 3) node velocities, ``w`` (N, 3)
body angular velocities; ``ell`` the element length, ``EA``, ``S`` (= k_sGA), ``GJ``,
``EI`` the section stiffnesses, ``rhoA`` the mass per length, ``g`` gravity in -y,
``P`` (6,) the tip force and conservative tip moment, ``J`` (N, 3) the principal rotary
inertias, ``mn`` (N,) the node masses.  The gradient is taken in the increments
``[psi_e, dx_{e+1}]``, as an (N, 6) array (psi first).

* :func:`gradient`        -- :func:`lib.rod3d.gradient` (``_grad_cf`` and the end moment);
* :func:`lie_verlet_run`  -- :func:`lib.rod3d.lie_verlet`: PyElastica's position Verlet on
  R^3N x SO(3)^N, many steps per call, states sampled every ``every`` steps.

Each follows its NumPy twin formula by formula (the tests compare them to round-off).
Nothing here validates its input: :mod:`lib.rod3d` does, then calls these.

Inside, the state is kept component-first (``X`` (3, N+1) and ``P`` (4, N+1) with the
clamp in column 0, ``V``, ``W`` (3, N)) and every loop over the elements is straight-line
code, so that LLVM vectorises it (AVX: 4 or 8 elements at a time).  The log map and the
exponential use their Taylor series there -- 1 ulp from the library functions where
they are used: relative rotations |theta| < 0.05 (a neighbour's rotation, small on any
resolved rod) and increments |dt w| < 0.02 -- and the few elements beyond are redone
by the exact formulas in a scalar pass.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import inline, kernel

__all__ = ["gradient", "lie_verlet_run"]


@kernel
def _log_coeff2(tt):
    """c(t) = 1/t^2 - (1 + cos t)/(2 t sin t) from tt = t^2 (lib.rod3d._log_coeffs).

    Its series below t = 0.05, as lib.rod3d, in Horner form.
    """
    if tt < 0.0025:
        return 1.0 / 12.0 + tt * (1.0 / 720.0 + tt * (1.0 / 30240.0 + tt * (1.0 / 1209600.0)))
    t = math.sqrt(tt)
    return 1.0 / tt - 1.0 / (2.0 * t * math.tan(0.5 * t))


@kernel
def _log_factor(rw, r1, r2, r3):
    """|theta| / |v| of the log map of a quaternion (rw >= 0), as lib.rod3d.quat_log.

    2 atan2(|v|, rw) / |v|; below |v| = 0.01 rw by the series of atan(z)/z in
    z = |v|/rw, which agrees with the library function to 1 ulp there, and below
    |v| = 1e-8 by lib.rod3d's own two-term series.
    """
    nv2 = r1 * r1 + r2 * r2 + r3 * r3
    if nv2 < 1e-16:
        return 2.0 / rw * (1.0 - nv2 / (3.0 * rw * rw))
    irw = 1.0 / rw
    z2 = nv2 * irw * irw
    if z2 < 1e-4:
        return 2.0 * irw * (1.0 - z2 * (1.0 / 3.0 - z2 * (0.2 - z2 * (1.0 / 7.0
                                                                      - z2 * (1.0 / 9.0)))))
    nv = math.sqrt(nv2)
    return 2.0 * math.atan2(nv, rw) / nv


@inline
def _log_series(rw, r1, r2, r3):
    """(|theta|/|v|, z2) of the log map by the atan series; exact for z2 = (|v|/rw)^2 < 1e-4."""
    irw = 1.0 / rw
    z2 = (r1 * r1 + r2 * r2 + r3 * r3) * irw * irw
    return 2.0 * irw * (1.0 - z2 * (1.0 / 3.0 - z2 * (0.2 - z2 * (1.0 / 7.0
                                                                  - z2 * (1.0 / 9.0))))), z2


@inline
def _c_series(tt):
    """c(t) of lib.rod3d._log_coeffs by its series (used there below t^2 = 0.0025)."""
    return 1.0 / 12.0 + tt * (1.0 / 720.0 + tt * (1.0 / 30240.0 + tt * (1.0 / 1209600.0)))


@inline
def _joint(t0, t1, t2, c, wt, GJ, EI):
    """J_r^{-T} m and -J_l^{-T} m of a joint (m = c B theta / ell, B = diag(GJ, EI, EI))."""
    m0, m1, m2 = t0 * wt * GJ, t1 * wt * EI, t2 * wt * EI
    a0 = t1 * m2 - t2 * m1                          # theta x m
    a1 = t2 * m0 - t0 * m2
    a2 = t0 * m1 - t1 * m0
    b0 = c * (t1 * a2 - t2 * a1)                    # c theta x (theta x m)
    b1 = c * (t2 * a0 - t0 * a2)
    b2 = c * (t0 * a1 - t1 * a0)
    return (m0 - 0.5 * a0 + b0, m1 - 0.5 * a1 + b1, m2 - 0.5 * a2 + b2,
            -(m0 + 0.5 * a0 + b0), -(m1 + 0.5 * a1 + b1), -(m2 + 0.5 * a2 + b2))


@kernel
def _scratch(N):
    """Work arrays of the gradient: F, GA (3, N+1) with a zero last column; GS, NU (3, N);
    RQ (4, N); FL (N,)."""
    F = np.zeros((3, N + 1))
    GA = np.zeros((3, N + 1))
    return F, GA, np.empty((3, N)), np.empty((3, N)), np.empty((4, N)), np.empty(N)


@kernel
def _elements(X, P, N, ell, EA, S, GJ, EI, F, GS, GA, NU, RQ, FL):
    """Per element (vectorised, series): R n into F, the torques on itself (GS) and on its
    predecessor (GA); RQ, NU and the flag FL keep what :func:`_exact_joints` needs."""
    il = 1.0 / ell
    nflag = 0                 # integer reductions only: a float sum would keep LLVM
    for e in range(N):        # from vectorising (it may not reorder the additions)
        j = e + 1
        w, qx, qy, qz = P[0, j], P[1, j], P[2, j], P[3, j]
        xx, yy, zz = qx * qx, qy * qy, qz * qz
        xy, xz, yz = qx * qy, qx * qz, qy * qz
        wx, wy, wz = w * qx, w * qy, w * qz
        R00, R01, R02 = 1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)
        R10, R11, R12 = 2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)
        R20, R21, R22 = 2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)
        d0, d1, d2 = X[0, j] - X[0, e], X[1, j] - X[1, e], X[2, j] - X[2, e]
        u0 = R00 * d0 + R10 * d1 + R20 * d2              # u = R^T d
        u1 = R01 * d0 + R11 * d1 + R21 * d2
        u2 = R02 * d0 + R12 * d1 + R22 * d2
        n0 = (u0 * il - 1.0) * EA                       # body force n = C Gamma
        n1 = (u1 * il) * S
        n2 = (u2 * il) * S
        F[0, e] = R00 * n0 + R01 * n1 + R02 * n2        # spatial force R n
        F[1, e] = R10 * n0 + R11 * n1 + R12 * n2
        F[2, e] = R20 * n0 + R21 * n1 + R22 * n2
        c0, c1, c2 = n1 * u2 - n2 * u1, n2 * u0 - n0 * u2, n0 * u1 - n1 * u0   # n x u
        NU[0, e], NU[1, e], NU[2, e] = c0, c1, c2
        # relative rotation r = conj(Q_{e-1}) Q_e (Q_{-1} = 1), sign so that rw >= 0
        pw, p1, p2, p3 = P[0, e], -P[1, e], -P[2, e], -P[3, e]
        rw = pw * w - (p1 * qx + p2 * qy + p3 * qz)
        r1 = pw * qx + w * p1 + (p2 * qz - p3 * qy)
        r2 = pw * qy + w * p2 + (p3 * qx - p1 * qz)
        r3 = pw * qz + w * p3 + (p1 * qy - p2 * qx)
        sg = -1.0 if rw < 0 else 1.0
        rw, r1, r2, r3 = sg * rw, sg * r1, sg * r2, sg * r3
        RQ[0, e], RQ[1, e], RQ[2, e], RQ[3, e] = rw, r1, r2, r3
        fac, z2 = _log_series(rw, r1, r2, r3)
        t0, t1, t2 = fac * r1, fac * r2, fac * r3        # theta = log(r)
        tt = t0 * t0 + t1 * t1 + t2 * t2
        big = (z2 >= 1e-4) | (tt >= 0.0025) | (z2 != z2)
        FL[e] = 1.0 if big else 0.0
        nflag += 1 if big else 0
        wt = (2.0 if e == 0 else 1.0) * il
        o0, o1, o2, b0, b1, b2 = _joint(t0, t1, t2, _c_series(tt), wt, GJ, EI)
        GS[0, e], GS[1, e], GS[2, e] = c0 + o0, c1 + o1, c2 + o2
        GA[0, e], GA[1, e], GA[2, e] = b0, b1, b2
    return nflag


@kernel
def _exact_joints(N, ell, GJ, EI, GS, GA, NU, RQ, FL):
    """Redo the joints flagged by :func:`_elements` with atan2 and tan (lib.rod3d's formulas)."""
    il = 1.0 / ell
    for e in range(N):
        if FL[e] == 0.0:
            continue
        rw, r1, r2, r3 = RQ[0, e], RQ[1, e], RQ[2, e], RQ[3, e]
        fac = _log_factor(rw, r1, r2, r3)
        t0, t1, t2 = fac * r1, fac * r2, fac * r3
        wt = (2.0 if e == 0 else 1.0) * il
        o0, o1, o2, b0, b1, b2 = _joint(t0, t1, t2, _log_coeff2(t0 * t0 + t1 * t1 + t2 * t2),
                                        wt, GJ, EI)
        GS[0, e], GS[1, e], GS[2, e] = NU[0, e] + o0, NU[1, e] + o1, NU[2, e] + o2
        GA[0, e], GA[1, e], GA[2, e] = b0, b1, b2


@kernel
def _gradient_soa(X, P, N, ell, EA, S, GJ, EI, rhoA, g, L, G, F, GA, GS, NU, RQ, FL):
    """grad Pi into G (6, N) (rows psi, x) from the component-first state."""
    if _elements(X, P, N, ell, EA, S, GJ, EI, F, GS, GA, NU, RQ, FL):
        _exact_joints(N, ell, GJ, EI, GS, GA, NU, RQ, FL)
    for e in range(N):        # element e: its joint and -J_l^{-T} m of the joint e+1;
        G[0, e] = GS[0, e] + GA[0, e + 1]       # node e+1: R n_e - R n_{e+1}
        G[1, e] = GS[1, e] + GA[1, e + 1]
        G[2, e] = GS[2, e] + GA[2, e + 1]
        G[3, e] = F[0, e] - F[0, e + 1]
        G[4, e] = F[1, e] - F[1, e + 1]
        G[5, e] = F[2, e] - F[2, e + 1]
    if g:
        for e in range(N - 1):
            G[4, e] += g * (rhoA * ell)
        G[4, N - 1] += g * (rhoA * ell * 0.5)
    G[3, N - 1] -= L[0]
    G[4, N - 1] -= L[1]
    G[5, N - 1] -= L[2]
    if L[3] != 0.0 or L[4] != 0.0 or L[5] != 0.0:
        # conservative end moment: -J_r^{-T}(log Q_{N-1}) M on the last element
        w, r1, r2, r3 = P[0, N], P[1, N], P[2, N], P[3, N]
        if w < 0:
            w, r1, r2, r3 = -w, -r1, -r2, -r3
        fac = _log_factor(w, r1, r2, r3)
        t0, t1, t2 = fac * r1, fac * r2, fac * r3
        c = _log_coeff2(t0 * t0 + t1 * t1 + t2 * t2)
        M0, M1, M2 = L[3], L[4], L[5]
        a0 = t1 * M2 - t2 * M1
        a1 = t2 * M0 - t0 * M2
        a2 = t0 * M1 - t1 * M0
        G[0, N - 1] -= M0 - 0.5 * a0 + c * (t1 * a2 - t2 * a1)
        G[1, N - 1] -= M1 - 0.5 * a1 + c * (t2 * a0 - t0 * a2)
        G[2, N - 1] -= M2 - 0.5 * a2 + c * (t0 * a1 - t1 * a0)


@kernel
def _pack(x, Q, X, P):
    """Component-first copies with the clamp in column 0."""
    N = x.shape[0]
    X[0, 0], X[1, 0], X[2, 0] = 0.0, 0.0, 0.0
    P[0, 0], P[1, 0], P[2, 0], P[3, 0] = 1.0, 0.0, 0.0, 0.0
    for e in range(N):
        for k in range(3):
            X[k, e + 1] = x[e, k]
        for k in range(4):
            P[k, e + 1] = Q[e, k]


@kernel
def _unpack(X, P, V, W, x, Q, v, w):
    N = x.shape[0]
    for e in range(N):
        for k in range(3):
            x[e, k] = X[k, e + 1]
            v[e, k] = V[k, e]
            w[e, k] = W[k, e]
        for k in range(4):
            Q[e, k] = P[k, e + 1]


@kernel
def gradient(x, Q, N, ell, EA, S, GJ, EI, rhoA, g, L):
    """grad Pi in the increments [psi_e, dx_{e+1}], shape (N, 6) (see :func:`lib.rod3d.gradient`)."""
    X, P = np.empty((3, N + 1)), np.empty((4, N + 1))
    _pack(x, Q, X, P)
    G = np.empty((6, N))
    F, GA, GS, NU, RQ, FL = _scratch(N)
    _gradient_soa(X, P, N, ell, EA, S, GJ, EI, rhoA, g, L, G, F, GA, GS, NU, RQ, FL)
    return G.T.copy()


@kernel
def _drift(X, P, V, W, h, normalise, SF, QW):
    """x += h v, Q <- Q exp(h hat w) (lib.rod3d.quat_exp, quat_mul), then |Q| = 1 if
    ``normalise``.  Returns False if the new x or Q are not finite."""
    N = V.shape[1]
    nbig = 0
    for e in range(N):        # sin(t/2)/t and cos(t/2), t = |h w|, by their series ...
        s0, s1, s2 = h * W[0, e], h * W[1, e], h * W[2, e]
        tt = s0 * s0 + s1 * s1 + s2 * s2
        h2 = 0.25 * tt
        SF[e] = 0.5 * (1.0 - h2 * (1.0 / 6.0 - h2 * (1.0 / 120.0 - h2 * (1.0 / 5040.0
                                                                         - h2 / 362880.0))))
        QW[e] = 1.0 - h2 * (0.5 - h2 * (1.0 / 24.0 - h2 * (1.0 / 720.0 - h2 / 40320.0)))
        nbig += 0 if tt < 4e-4 else 1
    if nbig:                  # ... to 1 ulp below t = 0.02; beyond, by the functions
        for e in range(N):
            s0, s1, s2 = h * W[0, e], h * W[1, e], h * W[2, e]
            tt = s0 * s0 + s1 * s1 + s2 * s2
            if not tt < 4e-4:
                t = math.sqrt(tt)
                SF[e] = math.sin(0.5 * t) / t
                QW[e] = math.cos(0.5 * t)
    bad = 0
    for e in range(N):
        j = e + 1
        x0 = X[0, j] + h * V[0, e]
        x1 = X[1, j] + h * V[1, e]
        x2 = X[2, j] + h * V[2, e]
        X[0, j], X[1, j], X[2, j] = x0, x1, x2
        sf, qw = SF[e], QW[e]
        q1, q2, q3 = sf * (h * W[0, e]), sf * (h * W[1, e]), sf * (h * W[2, e])
        pw, p1, p2, p3 = P[0, j], P[1, j], P[2, j], P[3, j]
        a = pw * qw - (p1 * q1 + p2 * q2 + p3 * q3)
        b = pw * q1 + qw * p1 + (p2 * q3 - p3 * q2)
        c = pw * q2 + qw * p2 + (p3 * q1 - p1 * q3)
        d = pw * q3 + qw * p3 + (p1 * q2 - p2 * q1)
        r = 1.0 / math.sqrt(a * a + b * b + c * c + d * d) if normalise else 1.0
        P[0, j], P[1, j], P[2, j], P[3, j] = a * r, b * r, c * r, d * r
        bad += 0 if abs(x0) + abs(x1) + abs(x2) + abs(a) + abs(b) + abs(c) + abs(d) < np.inf else 1
    return bad == 0


@kernel
def _kick(V, W, G, mn, J, dt, rigid_clamp, Wn):
    """v += dt a (a = -dPi/dx / m); Wn = w + dt (tau - w x J w) / J (tau = -dPi/dpsi,
    zero on element 0 with ``rigid_clamp``).  Returns False if v or Wn are not finite."""
    N = V.shape[1]
    bad = 0
    for e in range(N):
        im = 1.0 / mn[e]
        v0 = V[0, e] - dt * G[3, e] * im
        v1 = V[1, e] - dt * G[4, e] * im
        v2 = V[2, e] - dt * G[5, e] * im
        V[0, e], V[1, e], V[2, e] = v0, v1, v2
        a0, a1, a2 = W[0, e], W[1, e], W[2, e]
        J0, J1, J2 = J[e, 0], J[e, 1], J[e, 2]
        j0, j1, j2 = J0 * a0, J1 * a1, J2 * a2
        held = rigid_clamp and e == 0
        t0 = 0.0 if held else -G[0, e]
        t1 = 0.0 if held else -G[1, e]
        t2 = 0.0 if held else -G[2, e]
        W0 = a0 + dt * (t0 - (a1 * j2 - a2 * j1)) / J0
        W1 = a1 + dt * (t1 - (a2 * j0 - a0 * j2)) / J1
        W2 = a2 + dt * (t2 - (a0 * j1 - a1 * j0)) / J2
        Wn[0, e], Wn[1, e], Wn[2, e] = W0, W1, W2
        bad += 0 if abs(v0) + abs(v1) + abs(v2) + abs(W0) + abs(W1) + abs(W2) < np.inf else 1
    return bad == 0


@kernel
def _euler_midpoint(W, G, J, dt, rigid_clamp, Wn, W2):
    """Fixed-point iteration of the midpoint gyroscopic term (lib.rod3d.lie_verlet_step),
    from the explicit Wn of :func:`_kick`.  Returns False if Wn is not finite."""
    N = W.shape[1]
    for _ in range(50):
        big, diff = 0.0, 0.0
        for e in range(N):
            a0 = 0.5 * (W[0, e] + Wn[0, e])
            a1 = 0.5 * (W[1, e] + Wn[1, e])
            a2 = 0.5 * (W[2, e] + Wn[2, e])
            j0, j1, j2 = J[e, 0] * a0, J[e, 1] * a1, J[e, 2] * a2
            held = rigid_clamp and e == 0
            t0 = 0.0 if held else -G[0, e]
            t1 = 0.0 if held else -G[1, e]
            t2 = 0.0 if held else -G[2, e]
            W2[0, e] = W[0, e] + dt * (t0 - (a1 * j2 - a2 * j1)) / J[e, 0]
            W2[1, e] = W[1, e] + dt * (t1 - (a2 * j0 - a0 * j2)) / J[e, 1]
            W2[2, e] = W[2, e] + dt * (t2 - (a0 * j1 - a1 * j0)) / J[e, 2]
            for k in range(3):
                diff = max(diff, abs(W2[k, e] - Wn[k, e]))
                big = max(big, abs(W2[k, e]))
        Wn[:, :] = W2
        if diff <= 1e-15 * max(1.0, big):
            break
    bad = 0
    for e in range(N):
        bad += 0 if abs(Wn[0, e]) + abs(Wn[1, e]) + abs(Wn[2, e]) < np.inf else 1
    return bad == 0


@kernel
def lie_verlet_run(x, Q, v, w, dt, nsteps, every, xs, Qs, vs, ws,
                   N, ell, EA, S, GJ, EI, rhoA, g, L, J, mn, midpoint, rigid_clamp):
    """``nsteps`` Lie-group position-Verlet steps in place; states sampled into buffers.

    The step of :func:`lib.rod3d.lie_verlet_step` with the rod's forces: half drift
    x += dt/2 v, Q <- Q exp(dt/2 hat w); kick v += dt a (a = -dPi/dx / m), the Euler
    equation J (w+ - w) = dt (tau - w* x J w*) (w* = w, or the midpoint if
    ``midpoint``; ``rigid_clamp`` holds element 0: tau_0 = 0); half drift again and
    renormalise Q.  Between two steps that are not sampled the two half drifts with
    the same velocities are one drift by dt (Q exp(h w) exp(h w) = Q exp(2h w)), as in
    a leapfrog; the state at the end of a sampled step is the split one.  After step n
    (1..nsteps) with n % every == 0 the state is written to ``xs[n // every - 1]``
    (and Qs, vs, ws), for as many rows as the buffers have; (x, Q, v, w) hold the
    state after the last step.

    Returns
    -------
    int : 0, or the first step whose midpoint state (x, Q) or new velocities (v, w)
        are not finite (the run stops there, as :func:`lib.rod3d.lie_verlet` raises).
    """
    if nsteps < 1:
        return 0
    h = 0.5 * dt
    X, P = np.empty((3, N + 1)), np.empty((4, N + 1))
    _pack(x, Q, X, P)
    V, W = v.T.copy(), w.T.copy()
    G = np.empty((6, N))
    F, GA, GS, NU, RQ, FL = _scratch(N)
    Wn, W2 = np.empty((3, N)), np.empty((3, N))
    SF, QW = np.empty(N), np.empty(N)
    nbuf = xs.shape[0]
    fail = 0
    ok = _drift(X, P, V, W, h, False, SF, QW)      # first half drift of step 1
    for step in range(1, nsteps + 1):
        if not ok:
            fail = step
            break
        _gradient_soa(X, P, N, ell, EA, S, GJ, EI, rhoA, g, L, G, F, GA, GS, NU, RQ, FL)
        ok = _kick(V, W, G, mn, J, dt, rigid_clamp, Wn)
        if midpoint and ok:
            ok = _euler_midpoint(W, G, J, dt, rigid_clamp, Wn, W2)
        if not ok:
            fail = step
            break
        W[:, :] = Wn
        sample = step % every == 0 and step // every <= nbuf
        if sample or step == nsteps:
            _drift(X, P, V, W, h, True, SF, QW)             # end of this step ...
            if sample:
                i = step // every - 1
                _unpack(X, P, V, W, xs[i], Qs[i], vs[i], ws[i])
            if step < nsteps:
                ok = _drift(X, P, V, W, h, False, SF, QW)   # ... first half of the next
        else:
            ok = _drift(X, P, V, W, dt, True, SF, QW)       # both half drifts at once
    _unpack(X, P, V, W, x, Q, v, w)
    return fail
