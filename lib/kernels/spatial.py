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

Each follows its NumPy twin operation by operation (the tests compare them to
round-off).  Nothing here validates its input: :mod:`lib.rod3d` does, then calls these.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import kernel

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


@kernel
def _gradient_into(x, Q, N, ell, EA, S, GJ, EI, rhoA, g, P, G, F):
    """grad Pi as (N, 6) into ``G`` (``F`` (N, 3) scratch: the spatial forces R n)."""
    il = 1.0 / ell
    xp0, xp1, xp2 = 0.0, 0.0, 0.0
    pw, p1, p2, p3 = 1.0, 0.0, 0.0, 0.0          # conj(Q_{e-1}), Q_{-1} = identity
    for e in range(N):
        w, qx, qy, qz = Q[e, 0], Q[e, 1], Q[e, 2], Q[e, 3]
        xx, yy, zz = qx * qx, qy * qy, qz * qz
        xy, xz, yz = qx * qy, qx * qz, qy * qz
        wx, wy, wz = w * qx, w * qy, w * qz
        R00, R01, R02 = 1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)
        R10, R11, R12 = 2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)
        R20, R21, R22 = 2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)
        X0, X1, X2 = x[e, 0], x[e, 1], x[e, 2]
        d0, d1, d2 = X0 - xp0, X1 - xp1, X2 - xp2
        xp0, xp1, xp2 = X0, X1, X2
        u0 = R00 * d0 + R10 * d1 + R20 * d2              # u = R^T d
        u1 = R01 * d0 + R11 * d1 + R21 * d2
        u2 = R02 * d0 + R12 * d1 + R22 * d2
        n0 = (u0 * il - 1.0) * EA                       # body force n = C Gamma
        n1 = (u1 * il) * S
        n2 = (u2 * il) * S
        f0 = R00 * n0 + R01 * n1 + R02 * n2             # spatial force R n
        f1 = R10 * n0 + R11 * n1 + R12 * n2
        f2 = R20 * n0 + R21 * n1 + R22 * n2
        F[e, 0], F[e, 1], F[e, 2] = f0, f1, f2
        # relative rotation r = conj(Q_{e-1}) Q_e and its log theta
        rw = pw * w - (p1 * qx + p2 * qy + p3 * qz)
        r1 = pw * qx + w * p1 + (p2 * qz - p3 * qy)
        r2 = pw * qy + w * p2 + (p3 * qx - p1 * qz)
        r3 = pw * qz + w * p3 + (p1 * qy - p2 * qx)
        pw, p1, p2, p3 = w, -qx, -qy, -qz
        if rw < 0:
            rw, r1, r2, r3 = -rw, -r1, -r2, -r3
        fac = _log_factor(rw, r1, r2, r3)
        t0, t1, t2 = fac * r1, fac * r2, fac * r3
        wt = (2.0 if e == 0 else 1.0) * il
        m0, m1, m2 = t0 * wt * GJ, t1 * wt * EI, t2 * wt * EI   # joint moments c B theta/ell
        c = _log_coeff2(t0 * t0 + t1 * t1 + t2 * t2)
        a0 = t1 * m2 - t2 * m1                          # theta x m
        a1 = t2 * m0 - t0 * m2
        a2 = t0 * m1 - t1 * m0
        b0 = c * (t1 * a2 - t2 * a1)                    # c theta x (theta x m)
        b1 = c * (t2 * a0 - t0 * a2)
        b2 = c * (t0 * a1 - t1 * a0)
        # stretch-shear n x u, plus J_r^{-T} m on element e ...
        G[e, 0] = (n1 * u2 - n2 * u1) + (m0 - 0.5 * a0 + b0)
        G[e, 1] = (n2 * u0 - n0 * u2) + (m1 - 0.5 * a1 + b1)
        G[e, 2] = (n0 * u1 - n1 * u0) + (m2 - 0.5 * a2 + b2)
        if e > 0:                   # ... -J_l^{-T} m on element e-1; node e: R n_{e-1} - R n_e
            G[e - 1, 0] -= m0 + 0.5 * a0 + b0
            G[e - 1, 1] -= m1 + 0.5 * a1 + b1
            G[e - 1, 2] -= m2 + 0.5 * a2 + b2
            G[e - 1, 3] = F[e - 1, 0] - f0
            G[e - 1, 4] = F[e - 1, 1] - f1
            G[e - 1, 5] = F[e - 1, 2] - f2
    G[N - 1, 3], G[N - 1, 4], G[N - 1, 5] = F[N - 1, 0], F[N - 1, 1], F[N - 1, 2]
    if g:
        for e in range(N - 1):
            G[e, 4] += g * (rhoA * ell)
        G[N - 1, 4] += g * (rhoA * ell * 0.5)
    G[N - 1, 3] -= P[0]
    G[N - 1, 4] -= P[1]
    G[N - 1, 5] -= P[2]
    if P[3] != 0.0 or P[4] != 0.0 or P[5] != 0.0:
        # conservative end moment: -J_r^{-T}(log Q_{N-1}) M on the last element
        w, r1, r2, r3 = Q[N - 1, 0], Q[N - 1, 1], Q[N - 1, 2], Q[N - 1, 3]
        if w < 0:
            w, r1, r2, r3 = -w, -r1, -r2, -r3
        fac = _log_factor(w, r1, r2, r3)
        t0, t1, t2 = fac * r1, fac * r2, fac * r3
        c = _log_coeff2(t0 * t0 + t1 * t1 + t2 * t2)
        M0, M1, M2 = P[3], P[4], P[5]
        a0 = t1 * M2 - t2 * M1
        a1 = t2 * M0 - t0 * M2
        a2 = t0 * M1 - t1 * M0
        G[N - 1, 0] -= M0 - 0.5 * a0 + c * (t1 * a2 - t2 * a1)
        G[N - 1, 1] -= M1 - 0.5 * a1 + c * (t2 * a0 - t0 * a2)
        G[N - 1, 2] -= M2 - 0.5 * a2 + c * (t0 * a1 - t1 * a0)


@kernel
def gradient(x, Q, N, ell, EA, S, GJ, EI, rhoA, g, P):
    """grad Pi in the increments [psi_e, dx_{e+1}], shape (N, 6) (see :func:`lib.rod3d.gradient`)."""
    G = np.empty((N, 6))
    F = np.empty((N, 3))
    _gradient_into(x, Q, N, ell, EA, S, GJ, EI, rhoA, g, P, G, F)
    return G


@kernel
def _drift(x, Q, v, w, h, normalise):
    """x += h v, Q <- Q exp(h hat w) (lib.rod3d.quat_exp and quat_mul), then |Q| = 1 if
    ``normalise``.  Returns False if the new x or Q are not finite."""
    N = x.shape[0]
    ok = True
    for e in range(N):
        x0 = x[e, 0] + h * v[e, 0]
        x1 = x[e, 1] + h * v[e, 1]
        x2 = x[e, 2] + h * v[e, 2]
        x[e, 0], x[e, 1], x[e, 2] = x0, x1, x2
        s0, s1, s2 = h * w[e, 0], h * w[e, 1], h * w[e, 2]
        tt = s0 * s0 + s1 * s1 + s2 * s2
        if tt < 4e-4:      # |h w| < 0.02: Taylor series of sin(t/2)/t and cos(t/2), to 1 ulp
            h2 = 0.25 * tt
            sf = 0.5 * (1.0 - h2 * (1.0 / 6.0 - h2 * (1.0 / 120.0 - h2 * (1.0 / 5040.0
                                                                          - h2 / 362880.0))))
            qw = 1.0 - h2 * (0.5 - h2 * (1.0 / 24.0 - h2 * (1.0 / 720.0 - h2 / 40320.0)))
        else:
            t = math.sqrt(tt)
            sf = math.sin(0.5 * t) / t
            qw = math.cos(0.5 * t)
        q1, q2, q3 = sf * s0, sf * s1, sf * s2
        pw, p1, p2, p3 = Q[e, 0], Q[e, 1], Q[e, 2], Q[e, 3]
        a = pw * qw - (p1 * q1 + p2 * q2 + p3 * q3)
        b = pw * q1 + qw * p1 + (p2 * q3 - p3 * q2)
        c = pw * q2 + qw * p2 + (p3 * q1 - p1 * q3)
        d = pw * q3 + qw * p3 + (p1 * q2 - p2 * q1)
        if normalise:
            r = 1.0 / math.sqrt(a * a + b * b + c * c + d * d)
            a, b, c, d = a * r, b * r, c * r, d * r
        Q[e, 0], Q[e, 1], Q[e, 2], Q[e, 3] = a, b, c, d
        if not (abs(x0) + abs(x1) + abs(x2) + abs(a) + abs(b) + abs(c) + abs(d) < np.inf):
            ok = False
    return ok


@kernel
def _kick(v, w, G, mn, J, dt, rigid_clamp, W):
    """v += dt a (a = -dPi/dx / m); W = w + dt (tau - w x J w) / J (tau = -dPi/dpsi,
    zero on element 0 with ``rigid_clamp``).  Returns False if v or W are not finite."""
    N = v.shape[0]
    ok = True
    for e in range(N):
        im = 1.0 / mn[e]
        v0 = v[e, 0] - dt * G[e, 3] * im
        v1 = v[e, 1] - dt * G[e, 4] * im
        v2 = v[e, 2] - dt * G[e, 5] * im
        v[e, 0], v[e, 1], v[e, 2] = v0, v1, v2
        a0, a1, a2 = w[e, 0], w[e, 1], w[e, 2]
        J0, J1, J2 = J[e, 0], J[e, 1], J[e, 2]
        j0, j1, j2 = J0 * a0, J1 * a1, J2 * a2
        if rigid_clamp and e == 0:
            t0, t1, t2 = 0.0, 0.0, 0.0
        else:
            t0, t1, t2 = -G[e, 0], -G[e, 1], -G[e, 2]
        W0 = a0 + dt * (t0 - (a1 * j2 - a2 * j1)) / J0
        W1 = a1 + dt * (t1 - (a2 * j0 - a0 * j2)) / J1
        W2 = a2 + dt * (t2 - (a0 * j1 - a1 * j0)) / J2
        W[e, 0], W[e, 1], W[e, 2] = W0, W1, W2
        if not (abs(v0) + abs(v1) + abs(v2) + abs(W0) + abs(W1) + abs(W2) < np.inf):
            ok = False
    return ok


@kernel
def _euler_midpoint(w, G, J, dt, rigid_clamp, W, W2):
    """Fixed-point iteration of the midpoint gyroscopic term (lib.rod3d.lie_verlet_step),
    from the explicit W of :func:`_kick`.  Returns False if W is not finite."""
    N = w.shape[0]
    for _ in range(50):
        big, diff = 0.0, 0.0
        for e in range(N):
            a0 = 0.5 * (w[e, 0] + W[e, 0])
            a1 = 0.5 * (w[e, 1] + W[e, 1])
            a2 = 0.5 * (w[e, 2] + W[e, 2])
            j0, j1, j2 = J[e, 0] * a0, J[e, 1] * a1, J[e, 2] * a2
            if rigid_clamp and e == 0:
                t0, t1, t2 = 0.0, 0.0, 0.0
            else:
                t0, t1, t2 = -G[e, 0], -G[e, 1], -G[e, 2]
            W2[e, 0] = w[e, 0] + dt * (t0 - (a1 * j2 - a2 * j1)) / J[e, 0]
            W2[e, 1] = w[e, 1] + dt * (t1 - (a2 * j0 - a0 * j2)) / J[e, 1]
            W2[e, 2] = w[e, 2] + dt * (t2 - (a0 * j1 - a1 * j0)) / J[e, 2]
            for k in range(3):
                diff = max(diff, abs(W2[e, k] - W[e, k]))
                big = max(big, abs(W2[e, k]))
        W[:, :] = W2
        if diff <= 1e-15 * max(1.0, big):
            break
    for e in range(N):
        if not (abs(W[e, 0]) + abs(W[e, 1]) + abs(W[e, 2]) < np.inf):
            return False
    return True


@kernel
def lie_verlet_run(x, Q, v, w, dt, nsteps, every, xs, Qs, vs, ws,
                   N, ell, EA, S, GJ, EI, rhoA, g, P, J, mn, midpoint, rigid_clamp):
    """``nsteps`` Lie-group position-Verlet steps in place; states sampled into buffers.

    The step of :func:`lib.rod3d.lie_verlet_step` with the rod's forces: half drift
    x += dt/2 v, Q <- Q exp(dt/2 hat w); kick v += dt a (a = -dPi/dx / m), the Euler
    equation J (w+ - w) = dt (tau - w* x J w*) (w* = w, or the midpoint if
    ``midpoint``; ``rigid_clamp`` holds element 0: tau_0 = 0); half drift again and
    renormalise Q.  Between two steps that are not sampled the two half drifts with
    the same velocities are one drift by dt (Q exp(h w) exp(h w) = Q exp(2h w)), as in
    a leapfrog; the state at the end of a sampled step is the split one.  After step n
    (1..nsteps) with n % every == 0 the state is written to ``xs[n // every - 1]``
    (and Qs, vs, ws), for as many rows as the buffers have.

    Returns
    -------
    int : 0, or the first step whose midpoint state (x, Q) or new velocities (v, w)
        are not finite (the run stops there, as :func:`lib.rod3d.lie_verlet` raises).
    """
    h = 0.5 * dt
    G = np.empty((N, 6))
    F = np.empty((N, 3))
    W = np.empty((N, 3))
    W2 = np.empty((N, 3))
    nbuf = xs.shape[0]
    if nsteps < 1:
        return 0
    ok = _drift(x, Q, v, w, h, False)              # first half drift of step 1
    for step in range(1, nsteps + 1):
        if not ok:
            return step
        _gradient_into(x, Q, N, ell, EA, S, GJ, EI, rhoA, g, P, G, F)
        ok = _kick(v, w, G, mn, J, dt, rigid_clamp, W)
        if midpoint and ok:
            ok = _euler_midpoint(w, G, J, dt, rigid_clamp, W, W2)
        if not ok:
            return step
        w[:, :] = W
        sample = step % every == 0 and step // every <= nbuf
        if sample or step == nsteps:
            _drift(x, Q, v, w, h, True)             # end of this step ...
            if sample:
                i = step // every - 1
                xs[i], Qs[i], vs[i], ws[i] = x, Q, v, w
            if step < nsteps:
                ok = _drift(x, Q, v, w, h, False)   # ... and the first half of the next
        else:
            ok = _drift(x, Q, v, w, dt, True)       # both half drifts at once
    return 0
