"""numba kernel of the explicit penalty-contact step of :mod:`lib.contact`, many steps per call.

* :func:`penalty_run` -- the steps of :func:`lib.contact.simulate_penalty` (formulation
  (a)): a free 3-D rod (Cosserat strains, the joints' log map), plane contact by a
  penalty spring-dashpot per element, the smoothed anisotropic Coulomb law of
  :func:`lib.contact.friction_force`, gravity, constant node loads, lab-frame joint
  moments (the snake's muscles), the exact damping decay, and PyElastica's position
  Verlet on R^3N x SO(3)^N, for a batch of independent rods.

The state is kept component-first as in :mod:`lib.contact` (``X`` (3, B, N+1),
``Q`` (4, B, N), ``V`` (3, B, N+1), ``W`` (3, B, N)).  Each formula is the NumPy
code's, element by element and in the same order of operations, so the two agree to
round-off (``tests/test_contact_kernel.py``; the transcendental functions may differ in
the last bit).  Nothing here validates its input: :mod:`lib.contact` does, then calls it.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import inline, kernel

__all__ = ["penalty_run"]


@inline
def _quat_step(Q, b, e, p0, p1, p2):
    """Q[:, b, e] <- Q exp(hat psi), normalised (lib.contact._quat_step_cf)."""
    t = math.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    half = 0.5 * t
    if t < 1e-4:
        s = 0.5 - t * t / 48.0
    else:
        s = math.sin(half) / (1.0 if t == 0 else t)
    qw = math.cos(half)
    q1, q2, q3 = s * p0, s * p1, s * p2
    pw, v1, v2, v3 = Q[0, b, e], Q[1, b, e], Q[2, b, e], Q[3, b, e]
    o0 = pw * qw - (v1 * q1 + v2 * q2 + v3 * q3)
    o1 = pw * q1 + qw * v1 + (v2 * q3 - v3 * q2)
    o2 = pw * q2 + qw * v2 + (v3 * q1 - v1 * q3)
    o3 = pw * q3 + qw * v3 + (v1 * q2 - v2 * q1)
    nrm = math.sqrt(o0 * o0 + o1 * o1 + o2 * o2 + o3 * o3)
    Q[0, b, e], Q[1, b, e], Q[2, b, e], Q[3, b, e] = o0 / nrm, o1 / nrm, o2 / nrm, o3 / nrm


@inline
def _drift(X, Q, V, W, b, a):
    """x += a v, Q <- Q exp(a hat w) for member b."""
    for i in range(X.shape[2]):
        for c in range(3):
            X[c, b, i] = X[c, b, i] + a * V[c, b, i]
    for e in range(Q.shape[2]):
        _quat_step(Q, b, e, a * W[0, b, e], a * W[1, b, e], a * W[2, b, e])


@inline
def _log_c(t):
    """c(t) of lib.core.so3.log_coeffs."""
    if t < 0.05:
        t2 = t * t
        return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2 ** 3 / 1209600.0
    cot = 1.0 / math.tan(0.5 * t)
    return 1.0 / (t * t) - cot / (2.0 * t)


@kernel
def penalty_run(X, Q, V, W, k0, k1, open_first, dt, moments, fe, fg, mn, J, decay_v, decay_w,
                damped, st, kt, ell, r, EA, kGA, GJ, EI, n, o, kl, cl, eps, drop, fn_out):
    """Steps ``k0..k1`` (1-based) of :func:`lib.contact.simulate_penalty`, in place.

    On entry the state is the one after the first half drift of step ``k0`` if
    ``open_first`` is False; if True the kernel does that half drift first.  Between
    two steps the two half drifts are one drift by dt; step ``k1`` is closed with its
    half drift (the state (X, Q, V, W) on return is the state at time ``k1 dt``).

    Arguments: ``moments`` (k1 - k0 + 1, 3, B, N-1) lab-frame joint moments at the
    steps' midpoints (shape (0, 3, B, N-1) for none); ``fe``, ``fg`` (3, B, N+1) node
    loads and weights; ``mn`` (N+1) node masses; ``J`` (3, N) inertias; ``decay_v`` (B),
    ``decay_w`` (3, B, N) the damping factors over one step (``damped``: apply them);
    ``st``, ``kt`` (B, 3) static and kinetic coefficients; the rod's ``ell, r, EA, kGA,
    GJ, EI``; the plane's unit normal ``n`` and ``o``; ``kl = -k ell``, ``cl = c ell`` of
    the penalty, ``eps`` its slip speed, ``drop`` the static-to-kinetic fall (fraction of
    eps); ``fn_out`` (B, N) receives the normal forces of step ``k1``.

    Returns
    -------
    int : 0, or the first checked step (k % 64 == 0 or k == k1, as the NumPy loop
        checks) whose velocities are not finite.
    """
    B = X.shape[1]
    N = Q.shape[2]
    h = 0.5 * dt
    has_m = moments.shape[0] > 0
    n0, n1, n2 = n[0], n[1], n[2]
    rn0, rn1, rn2 = -r * n0, -r * n1, -r * n2
    gx = np.empty((3, N + 1))
    fx = np.empty((3, N + 1))
    gp = np.empty((3, N))
    tq = np.empty((3, N))
    R = np.empty((3, 3, N))
    arm = np.empty((3, N))
    ftn = np.empty((3, N))
    fail = 0
    for b in range(B):
        if open_first:
            _drift(X, Q, V, W, b, h)
        bad = 0
        for k in range(k0, k1 + 1):
            # ---- forces at (X, Q) and the start-of-step velocities (V, W)
            for i in range(N + 1):
                for c in range(3):
                    gx[c, i] = 0.0
                    fx[c, i] = 0.0
            for e in range(N):
                w_, x_, y_, z_ = Q[0, b, e], Q[1, b, e], Q[2, b, e], Q[3, b, e]
                xx, yy, zz, xy, xz, yz = x_ * x_, y_ * y_, z_ * z_, x_ * y_, x_ * z_, y_ * z_
                wx, wy, wz = w_ * x_, w_ * y_, w_ * z_
                R[0, 0, e], R[0, 1, e], R[0, 2, e] = 1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)
                R[1, 0, e], R[1, 1, e], R[1, 2, e] = 2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)
                R[2, 0, e], R[2, 1, e], R[2, 2, e] = 2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)
                d0 = X[0, b, e + 1] - X[0, b, e]
                d1 = X[1, b, e + 1] - X[1, b, e]
                d2 = X[2, b, e + 1] - X[2, b, e]
                u0 = R[0, 0, e] * d0 + R[1, 0, e] * d1 + R[2, 0, e] * d2
                u1 = R[0, 1, e] * d0 + R[1, 1, e] * d1 + R[2, 1, e] * d2
                u2 = R[0, 2, e] * d0 + R[1, 2, e] * d1 + R[2, 2, e] * d2
                a0 = (u0 / ell - 1.0) * EA
                a1 = (u1 / ell) * kGA
                a2 = (u2 / ell) * kGA
                for c in range(3):
                    f = R[c, 0, e] * a0 + R[c, 1, e] * a1 + R[c, 2, e] * a2
                    gx[c, e + 1] += f
                    gx[c, e] -= f
                gp[0, e] = a1 * u2 - a2 * u1
                gp[1, e] = a2 * u0 - a0 * u2
                gp[2, e] = a0 * u1 - a1 * u0
                # contact of element e
                gap = ((0.5 * (X[0, b, e + 1] + X[0, b, e]) - o[0]) * n0
                       + (0.5 * (X[1, b, e + 1] + X[1, b, e]) - o[1]) * n1
                       + (0.5 * (X[2, b, e + 1] + X[2, b, e]) - o[2]) * n2) - r
                dn = d0 * n0 + d1 * n1 + d2 * n2
                t0, t1, t2 = d0 - dn * n0, d1 - dn * n1, d2 - dn * n2
                tn = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
                t0, t1, t2 = t0 / tn, t1 / tn, t2 / tn
                l0 = n1 * t2 - n2 * t1
                l1 = n2 * t0 - n0 * t2
                l2 = n0 * t1 - n1 * t0
                vm0 = 0.5 * (V[0, b, e + 1] + V[0, b, e])
                vm1 = 0.5 * (V[1, b, e + 1] + V[1, b, e])
                vm2 = 0.5 * (V[2, b, e + 1] + V[2, b, e])
                c0, c1, c2 = R[0, 0, e], R[1, 0, e], R[2, 0, e]
                r0 = c1 * rn2 - c2 * rn1
                r1 = c2 * rn0 - c0 * rn2
                r2 = c0 * rn1 - c1 * rn0
                arm[0, e], arm[1, e], arm[2, e] = r0, r1, r2
                w0 = W[0, b, e]
                vc0, vc1, vc2 = vm0 + w0 * r0, vm1 + w0 * r1, vm2 + w0 * r2
                un = vm0 * n0 + vm1 * n1 + vm2 * n2
                fn = kl * gap - cl * un
                if gap < 0.0:
                    fn = max(fn, 0.0)
                else:
                    fn = 0.0
                fn_out[b, e] = fn
                ut = vc0 * t0 + vc1 * t1 + vc2 * t2
                ul = vc0 * l0 + vc1 * l1 + vc2 * l2
                s = math.sqrt(ut * ut + ul * ul)
                y = min(max((s / eps - 1.0) / drop, 0.0), 1.0)
                wgt = 1.0 - y * y * (3.0 - 2.0 * y)
                if ut >= 0.0:
                    mu_t = kt[b, 0] + (st[b, 0] - kt[b, 0]) * wgt
                else:
                    mu_t = kt[b, 1] + (st[b, 1] - kt[b, 1]) * wgt
                mu_l = kt[b, 2] + (st[b, 2] - kt[b, 2]) * wgt
                scale = -fn / max(s, eps)
                f_t = scale * mu_t * ut
                f_l = scale * mu_l * ul
                ft0, ft1, ft2 = f_t * t0 + f_l * l0, f_t * t1 + f_l * l1, f_t * t2 + f_l * l2
                ftn[0, e], ftn[1, e], ftn[2, e] = ft0, ft1, ft2
                fv0, fv1, fv2 = fn * n0 + ft0, fn * n1 + ft1, fn * n2 + ft2
                fx[0, e + 1] += 0.5 * fv0
                fx[1, e + 1] += 0.5 * fv1
                fx[2, e + 1] += 0.5 * fv2
                fx[0, e] += 0.5 * fv0             # after half of element e - 1, as NumPy
                fx[1, e] += 0.5 * fv1
                fx[2, e] += 0.5 * fv2
            # joints e | e+1: the log map of the relative rotation conj(Q_e) Q_{e+1}
            for e in range(N - 1):
                aw, av0, av1, av2 = Q[0, b, e], -Q[1, b, e], -Q[2, b, e], -Q[3, b, e]
                bw, bv0, bv1, bv2 = Q[0, b, e + 1], Q[1, b, e + 1], Q[2, b, e + 1], Q[3, b, e + 1]
                rw = aw * bw - (av0 * bv0 + av1 * bv1 + av2 * bv2)
                rv0 = aw * bv0 + bw * av0 + (av1 * bv2 - av2 * bv1)
                rv1 = aw * bv1 + bw * av1 + (av2 * bv0 - av0 * bv2)
                rv2 = aw * bv2 + bw * av2 + (av0 * bv1 - av1 * bv0)
                if rw < 0:
                    rw, rv0, rv1, rv2 = -rw, -rv0, -rv1, -rv2
                nv = math.sqrt(rv0 * rv0 + rv1 * rv1 + rv2 * rv2)
                if nv < 1e-8:
                    fac = 2.0 / rw * (1.0 - nv * nv / (3.0 * rw * rw))
                else:
                    fac = 2.0 * math.atan2(nv, rw) / nv
                h0, h1, h2 = fac * rv0, fac * rv1, fac * rv2
                m0, m1, m2 = h0 * (GJ / ell), h1 * (EI / ell), h2 * (EI / ell)
                c = _log_c(math.sqrt(h0 * h0 + h1 * h1 + h2 * h2))
                x0 = h1 * m2 - h2 * m1
                x1 = h2 * m0 - h0 * m2
                x2 = h0 * m1 - h1 * m0
                y0 = c * (h1 * x2 - h2 * x1)
                y1 = c * (h2 * x0 - h0 * x2)
                y2 = c * (h0 * x1 - h1 * x0)
                gp[0, e + 1] += m0 - 0.5 * x0 + y0
                gp[1, e + 1] += m1 - 0.5 * x1 + y1
                gp[2, e + 1] += m2 - 0.5 * x2 + y2
                gp[0, e] -= m0 + 0.5 * x0 + y0
                gp[1, e] -= m1 + 0.5 * x1 + y1
                gp[2, e] -= m2 + 0.5 * x2 + y2
            # ---- torques: -gp, the spin torque of friction about d1, the moments
            for e in range(N):
                for c in range(3):
                    tq[c, e] = -gp[c, e]
                tq[0, e] += arm[0, e] * ftn[0, e] + arm[1, e] * ftn[1, e] + arm[2, e] * ftn[2, e]
            if has_m:
                kk = k - k0
                for e in range(N):
                    for i in range(3):
                        tau = 0.0
                        if e > 0:
                            j = e - 1               # +R_e^T m_{e-1}
                            tau += (R[0, i, e] * moments[kk, 0, b, j] + R[1, i, e] * moments[kk, 1, b, j]
                                    + R[2, i, e] * moments[kk, 2, b, j])
                        if e < N - 1:               # -R_e^T m_e
                            tau -= (R[0, i, e] * moments[kk, 0, b, e] + R[1, i, e] * moments[kk, 1, b, e]
                                    + R[2, i, e] * moments[kk, 2, b, e])
                        tq[i, e] += tau
            # ---- kick
            for i in range(N + 1):
                for c in range(3):
                    F = fx[c, i] + fe[c, b, i] + fg[c, b, i] - gx[c, i]
                    V[c, b, i] = V[c, b, i] + dt * F / mn[i]
            for e in range(N):
                w0, w1, w2 = W[0, b, e], W[1, b, e], W[2, b, e]
                j0, j1, j2 = J[0, e] * w0, J[1, e] * w1, J[2, e] * w2
                W[0, b, e] = w0 + dt * (tq[0, e] - (w1 * j2 - w2 * j1)) / J[0, e]
                W[1, b, e] = w1 + dt * (tq[1, e] - (w2 * j0 - w0 * j2)) / J[1, e]
                W[2, b, e] = w2 + dt * (tq[2, e] - (w0 * j1 - w1 * j0)) / J[2, e]
            if damped:
                for i in range(N + 1):
                    for c in range(3):
                        V[c, b, i] *= decay_v[b]
                for e in range(N):
                    for c in range(3):
                        W[c, b, e] *= decay_w[c, b, e]
            if bad == 0 and (k % 64 == 0 or k == k1):
                ok = True
                for i in range(N + 1):
                    for c in range(3):
                        if not math.isfinite(V[c, b, i]):
                            ok = False
                for e in range(N):
                    for c in range(3):
                        if not math.isfinite(W[c, b, e]):
                            ok = False
                if not ok:
                    bad = k
            # ---- drift: half of this step and half of the next, merged; the last closed
            _drift(X, Q, V, W, b, h if k == k1 else dt)
        if bad > 0 and (fail == 0 or bad < fail):
            fail = bad
    return fail
