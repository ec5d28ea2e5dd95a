r"""Rotations in 3-D: quaternions, the exponential and log maps, and the Jacobians of the log.

Shared by every face that moves frames on SO(3) (the 3-D rod, contact); imports nothing
from ``lib``.  Quaternions are ``(w, x, y, z)`` stacks of shape (..., 4), rotation vectors
(..., 3), rotation matrices (..., 3, 3) with the directors d1, d2, d3 as columns.

hat(v)                      skew matrices v^ (..., 3, 3)
cross(a, b)                 cross product along the last axis
quat_mul(p, q), conj(q)     Hamilton product, conjugate
quat_exp(psi), quat_log(q)  exponential and log maps (exact at every angle)
rotmat(Q), quat_from_rotmat(R)   quaternion <-> rotation matrix
log_coeffs(t)               c(t) = 1/t^2 - (1 + cos t)/(2 t sin t) and c'(t)/t
jinv(theta, sigma)          inverse right (+1) / left (-1) Jacobian of the log map
gmat(theta, m, sigma)       second derivative of the log map contracted with m
sym(A)                      symmetric part along the last two axes
log_terms(theta, K, m, order)  gradient and Hessian blocks of f(log(exp(-a^) Q exp(b^)))
"""
from __future__ import annotations

import numpy as np

__all__ = ["hat", "cross", "quat_mul", "conj", "quat_exp", "quat_log", "rotmat",
           "quat_from_rotmat", "log_coeffs", "jinv", "gmat", "sym", "log_terms"]


def hat(v):
    """Skew matrices of a stack of vectors, (..., 3) -> (..., 3, 3)."""
    v = np.asarray(v, dtype=float)
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


_P1, _P2 = [1, 2, 0], [2, 0, 1]


def cross(a, b):
    """Cross product along the last axis (cheaper than ``np.cross`` for small stacks)."""
    return a[..., _P1] * b[..., _P2] - a[..., _P2] * b[..., _P1]


def quat_mul(p, q):
    """Hamilton product of quaternion stacks ``(w, x, y, z)``, shape (..., 4).

    >>> quat_mul([0, 1, 0, 0], [0, 0, 1, 0]).tolist()     # i j = k
    [0.0, 0.0, 0.0, 1.0]
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    v = pw * qv + qw * pv + cross(pv, qv)
    return np.concatenate([w, v], axis=-1)


def conj(q):
    q = np.array(q, dtype=float)
    q[..., 1:] *= -1.0
    return q


def quat_exp(psi):
    """Unit quaternion of the rotation vector ``psi`` (..., 3), exact for every angle.

    >>> np.round(quat_exp([0, 0, np.pi]), 12).tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    psi = np.asarray(psi, dtype=float)
    t = np.linalg.norm(psi, axis=-1, keepdims=True)
    half = 0.5 * t
    # sin(t/2)/t, with its series below 1e-4 (error < 1e-18)
    s = np.where(t < 1e-4, 0.5 - t * t / 48.0, np.sin(half) / np.where(t == 0, 1.0, t))
    return np.concatenate([np.cos(half), s * psi], axis=-1)


def quat_log(q):
    """Rotation vector (angle in [0, pi]) of unit quaternions (..., 4): the log map.

    >>> np.round(quat_log(quat_exp([0.3, -0.2, 1.0])), 12).tolist()
    [0.3, -0.2, 1.0]
    """
    q = np.asarray(q, dtype=float)
    w, v = q[..., :1], q[..., 1:]
    sgn = np.where(w < 0, -1.0, 1.0)                # q and -q are the same rotation
    w, v = w * sgn, v * sgn
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    f = np.where(n < 1e-8, 2.0 / np.where(w == 0, 1.0, w) * (1.0 - n * n / (3.0 * w * w)),
                 2.0 * np.arctan2(n, w) / np.where(n == 0, 1.0, n))
    return f * v


def rotmat(Q):
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4); columns d1, d2, d3.

    >>> rotmat(quat_exp([0, 0, np.pi / 2])).round(12).tolist()[0]
    [0.0, -1.0, 0.0]
    """
    Q = np.asarray(Q, dtype=float)
    w, x, y, z = Q[..., 0], Q[..., 1], Q[..., 2], Q[..., 3]
    R = np.empty(Q.shape[:-1] + (3, 3))
    R[..., 0, 0] = 1 - 2 * (y * y + z * z)
    R[..., 0, 1] = 2 * (x * y - w * z)
    R[..., 0, 2] = 2 * (x * z + w * y)
    R[..., 1, 0] = 2 * (x * y + w * z)
    R[..., 1, 1] = 1 - 2 * (x * x + z * z)
    R[..., 1, 2] = 2 * (y * z - w * x)
    R[..., 2, 0] = 2 * (x * z - w * y)
    R[..., 2, 1] = 2 * (y * z + w * x)
    R[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return R


def log_coeffs(t):
    """c(t) = 1/t^2 - (1 + cos t)/(2 t sin t) and c'(t)/t, with series for small t."""
    t = np.asarray(t, dtype=float)
    small = t < 0.05
    ts = np.where(small, 1.0, t)
    cot = 1.0 / np.tan(0.5 * ts)
    c_dir = 1.0 / ts**2 - cot / (2.0 * ts)
    dc_dir = (-2.0 / ts**3 + cot / (2.0 * ts**2) + 1.0 / (4.0 * ts * np.sin(0.5 * ts) ** 2)) / ts
    t2 = t * t
    c_ser = 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2**3 / 1209600.0
    dc_ser = 1.0 / 360.0 + t2 / 7560.0 + t2 * t2 / 201600.0
    return np.where(small, c_ser, c_dir), np.where(small, dc_ser, dc_dir)


def jinv(theta, sigma):
    """sigma = +1: J_r^{-1}(theta); sigma = -1: J_l^{-1}(theta) = I - hat/2 + c hat^2."""
    t = np.linalg.norm(theta, axis=-1)
    c, _ = log_coeffs(t)
    H = hat(theta)
    return np.eye(3) + 0.5 * sigma * H + c[..., None, None] * (H @ H)


def gmat(theta, m, sigma):
    """Matrix G with m . (D[J_sigma^{-1}](theta)[v] w) = v^T G w (second derivative of log)."""
    t = np.linalg.norm(theta, axis=-1)
    c, dct = log_coeffs(t)
    Hm, Ht = hat(m), hat(theta)
    k = np.cross(m, theta)
    tt_m = np.einsum("...ij,...j->...i", Ht @ Ht, m)
    return (-0.5 * sigma * Hm - c[..., None, None] * (Hm @ Ht + hat(k))
            + dct[..., None, None] * theta[..., :, None] * tt_m[..., None, :])


def sym(A):
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def log_terms(theta, K, m, order):
    """Gradient and Hessian blocks of f(log(exp(-a^) Q exp(b^))) at a = b = 0.

    f has gradient m = df/dtheta and Hessian K in theta.  Returns (ga, gb) and, if
    order == 2, (Haa, Hab, Hbb).
    """
    Jr = jinv(theta, +1.0)
    Jl = jinv(theta, -1.0)
    JrT, JlT = np.swapaxes(Jr, -1, -2), np.swapaxes(Jl, -1, -2)
    gb = np.einsum("...ij,...j->...i", JrT, m)
    ga = -np.einsum("...ij,...j->...i", JlT, m)
    if order == 1:
        return ga, gb
    Gp, Gm = gmat(theta, m, +1.0), gmat(theta, m, -1.0)
    Hbb = JrT @ K @ Jr + sym(JrT @ Gp)
    Haa = JlT @ K @ Jl + sym(JlT @ Gm)
    Hab = -JlT @ K @ Jr - JlT @ Gp
    return ga, gb, Haa, Hab, Hbb



def quat_from_rotmat(R):
    """Unit quaternions of rotation matrices (..., 3, 3) (Shepperd's method via eigh-free branches)."""
    R = np.asarray(R, dtype=float)
    tr = np.trace(R, axis1=-2, axis2=-1)
    cand = np.stack([tr, R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], axis=-1)
    k = cand.argmax(axis=-1)
    q = np.empty(R.shape[:-2] + (4,))
    w = np.sqrt(1 + 2 * cand.max(axis=-1) - tr) / 2          # |component k|
    for i in range(4):   # four branches, each vectorised over the stack
        sel = k == i
        if not np.any(sel):
            continue
        Rs, ws = R[sel], w[sel]
        if i == 0:
            qq = np.column_stack([ws, (Rs[:, 2, 1] - Rs[:, 1, 2]) / (4 * ws),
                                  (Rs[:, 0, 2] - Rs[:, 2, 0]) / (4 * ws),
                                  (Rs[:, 1, 0] - Rs[:, 0, 1]) / (4 * ws)])
        elif i == 1:
            qq = np.column_stack([(Rs[:, 2, 1] - Rs[:, 1, 2]) / (4 * ws), ws,
                                  (Rs[:, 0, 1] + Rs[:, 1, 0]) / (4 * ws),
                                  (Rs[:, 0, 2] + Rs[:, 2, 0]) / (4 * ws)])
        elif i == 2:
            qq = np.column_stack([(Rs[:, 0, 2] - Rs[:, 2, 0]) / (4 * ws),
                                  (Rs[:, 0, 1] + Rs[:, 1, 0]) / (4 * ws), ws,
                                  (Rs[:, 1, 2] + Rs[:, 2, 1]) / (4 * ws)])
        else:
            qq = np.column_stack([(Rs[:, 1, 0] - Rs[:, 0, 1]) / (4 * ws),
                                  (Rs[:, 0, 2] + Rs[:, 2, 0]) / (4 * ws),
                                  (Rs[:, 1, 2] + Rs[:, 2, 1]) / (4 * ws), ws])
        q[sel] = qq
    return q / np.linalg.norm(q, axis=-1, keepdims=True)
