r"""Actuation of soft arms: tendons on the rod, follower pressure on the FEM arm, inverse models.

Three actuators and the two questions asked of them ("what shape does this input
give?" and "what input gives this shape?").

Tendons on the discrete planar Cosserat rod (:mod:`lib.rod`, state and energy unchanged)
------------------------------------------------------------------------------------------
A frictionless tendon runs inside the rod at a signed offset ``d(s)`` along the section
normal ``n = (-sin phi, cos phi)`` (``d > 0``: the side the rod bends towards, counter-
clockwise).  It is threaded through eyelets fixed to the sections where the rod's angles
live: the clamp section (angle 0) at s = 0, the centre of every element e (angle
``phi_e``) up to the anchor, and the anchor section, the end of element ``k - 1`` at
node ``k`` (``k = N``: the tip).  Between eyelets the tendon is straight, so its length is

.. math::

    \ell_t(q) = \sum_{j} \lvert p_{j+1}(q) - p_j(q) \rvert,\qquad
    p_j = c_j(q) + d(s_j)\, n(\varphi_{e_j}),

with ``c_j`` the centreline point of eyelet j (the origin, an element centre
``(x_e + x_{e+1})/2`` or the anchor node).  A motor that holds the tension ``tau`` and
reels the tendon in does work ``-tau d(ell_t)`` on the rod, so for a constant (or
prescribed) tension the tendon adds the potential ``tau ell_t(q)`` and the generalised
force ``-tau d ell_t / dq``:

.. math::

    \Pi_{\text{tot}}(q) = \Pi_{\text{rod}}(q) + \sum_i \tau_i\, \ell_i(q),\qquad
    \nabla\Pi_{\text{tot}} = \nabla\Pi_{\text{rod}} + \sum_i \tau_i \frac{\partial\ell_i}{\partial q},\qquad
    K = \nabla^2\Pi_{\text{rod}} + \sum_i \tau_i \frac{\partial^2\ell_i}{\partial q^2}.

The load's direction moves with the rod (it looks like a follower load) yet it is
conservative: it is the gradient of ``tau ell_t``, and its stiffness is symmetric.
With constant offset ``d`` every section carries the moment ``tau d`` and the
compression ``tau``, so the curvature is ``tau d / EI`` everywhere (Rucker and Webster
2011, Armanini et al. 2023); the discrete rod reproduces it to second order in 1/N.

Follower pressure on the plane-strain FEM arm (:mod:`lib.fem`)
----------------------------------------------------------------
A pressure ``p`` on a run of boundary edges pushes along the *current* inward normal.
With the boundary traversed counter-clockwise (body on the left), ``n ds = S dx`` with
``S = [[0, 1], [-1, 0]]``, and on an edge with nodes b and shape functions ``N_b(xi)``

.. math::

    f^{\text{ext}}_a(u) = -p \sum_b c_{ab}\, S\,(X_b + u_b),\qquad
    c_{ab} = \int_0^1 N_a N_b'\,d\xi,\qquad
    K_p = -\frac{\partial f^{\text{ext}}}{\partial u} = p\, C .

``K_p`` is constant and *unsymmetric*: ``c_ab + c_ba = [N_a N_b]`` at the ends of the
loaded run, so the unsymmetric part sits on the two end nodes of an open run (a closed
cavity has none: there the load is the gradient of ``-p`` times the cavity area).

Inverse model (SoftRobots.Inverse style: Duriez 2013, Coevoet et al. 2017)
--------------------------------------------------------------------------
Given a target tip ``y*`` (position, optionally angle), find tensions with
``tau_min <= tau <= tau_max``.  At the equilibrium ``q(tau_k)`` the tip responds to a
change of tension through ``W = J_tip dq/dtau = -J_tip K^{-1} [d ell_1/dq ... d ell_m/dq]``;
each iteration solves, with a QP solver (DAQP, a dual active-set method),

1. ``min 1/2 |y_k + W (tau - tau_k) - y*|^2`` over the box (closest reachable point), then
2. ``min 1/2 |tau|^2`` over the box with ``W tau`` held at the value of step 1
   (minimum effort among redundant tendons),

re-solves the equilibrium at the new tensions and repeats until the tension update
vanishes.  At the fixed point the box multipliers of step 1 are those of the nonlinear
problem ``min 1/2 |y(tau) - y*|^2`` over the box: ``lambda_i > 0`` only on an active
bound (complementarity) and ``d(dist^2/2)/d tau_max,i = -lambda_i``.

Array layouts
-------------
rod state ``q``: (3N,) ``[phi_e, x_{e+1}, y_{e+1}]`` as in :mod:`lib.rod`.
tensions: (m,) one per tendon, in the order of the ``tendons`` sequence.
FEM displacement ``u``: (2 n_nodes,) interleaved ``u_x, u_y`` as in :mod:`lib.fem`.

References
----------
Rucker and Webster (2011), IEEE T-RO 27(6) (tendon routing on Cosserat rods);
Duriez (2013), ICRA (real-time FEM control of soft robots);
Coevoet et al. (2017), Advanced Robotics 31(22) (SOFA SoftRobots, inverse QP);
Armanini et al. (2023), IEEE T-RO 39(3); Arnold and Brüls (2007) / Chung and Hulbert
(1993) for the generalised-alpha integrator used in :func:`ramp_response`.

Examples
--------
>>> from lib import rod as rd
>>> r = rd.make_rod(20)
>>> t = make_tendon(r, 0.03)
>>> q = static(r, [t], [1.0])
>>> kappa = np.diff(q[0::3]) / r.ell             # element curvatures
>>> float(kappa.min().round(4)), float(kappa.max().round(4))     # tau d / EI = 0.03
(0.03, 0.03)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.linalg import null_space
from scipy.sparse.linalg import splu

from . import fem as _fem
from . import integrate as _integrate
from . import rod as _rod
from .core.errors import SolveError
from .solvers.saddle import qp_solve

__all__ = [
    # tendons on the rod
    "Tendon", "make_tendon", "eyelets", "tendon_length", "tendon_gradient", "tendon_hessian",
    "energy", "gradient", "hessian", "static", "static_path", "arc_tip",
    "tension_jacobian", "ActuationSolveError",
    # inverse model
    "InverseResult", "inverse", "qp_solve",
    # follower pressure on the FEM arm
    "Chamber", "make_chamber", "pressure_force", "pressure_stiffness", "pressure_residual",
    "pressure_static", "newton_history",
    # dynamics
    "ramp_response",
    # the same tendon on the FEM arm
    "cable_length", "cable_gradient", "cable_hessian", "cable_static",
]


class ActuationSolveError(SolveError):
    """A Newton or inverse iteration did not converge; the message says where it stopped."""


def _finite_number(value, name):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


def _count(value, name, low=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


# --------------------------------------------------------------------------------------
# tendons on the rod
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Tendon:
    """A frictionless tendon routed through a discrete rod (made by :func:`make_tendon`).

    Attributes
    ----------
    N : int
        Element count of the rod it belongs to.
    offset, offset_end : float
        Signed offset d at s = 0 and at s = L (linear taper in between).
    anchor : int
        Node k where the tendon ends (1..N; N is the tip).
    s : (M,) arc length of the eyelets, M = k + 2 (clamp, k element centres, anchor).
    d : (M,) offset at the eyelets.
    elem : (M,) element whose angle orients each eyelet (-1: the clamp, angle 0).
    nodes : (M, 2) the one or two nodes whose mean (``weights``) is the eyelet's
        centreline point (node 0 is the clamp at the origin).
    weights : (M, 2) their weights.
    """

    N: int
    offset: float
    offset_end: float
    anchor: int
    s: np.ndarray
    d: np.ndarray
    elem: np.ndarray
    nodes: np.ndarray
    weights: np.ndarray
    _cols: tuple = field(repr=False)

    @property
    def n_eyelets(self) -> int:
        return self.s.size


def make_tendon(rod, offset, anchor=None, offset_end=None):
    r"""A tendon at offset ``d(s)`` from the centreline of ``rod``, anchored at node ``anchor``.

    .. math:: d(s) = d_0 + (d_1 - d_0)\, s / L ,

    ``d_0 = offset``, ``d_1 = offset_end`` (default: ``offset``, a straight tendon).
    Eyelets sit at s = 0 (clamp), at every element centre ``(e + 1/2) ell`` below the
    anchor and at the anchor ``s = k ell`` (see the module docstring).

    Parameters
    ----------
    rod : lib.rod.Rod
    offset : float
        d at the clamp; must satisfy |d| <= r = r_over_L L (inside the section).
    anchor : int, optional
        Node 1..N where the tendon is tied (default N, the tip).
    offset_end : float, optional
        d at s = L (the taper is evaluated up to the anchor only); |d| <= r.

    Returns
    -------
    Tendon

    Raises
    ------
    ValueError
        ``offset`` / ``offset_end`` not finite or outside the section, ``anchor`` not a
        node in 1..N.

    Examples
    --------
    >>> from lib import rod as rd
    >>> t = make_tendon(rd.make_rod(4), 0.02, anchor=2)
    >>> t.s.tolist(), t.elem.tolist()
    ([0.0, 0.125, 0.375, 0.5], [-1, 0, 1, 1])
    """
    if not isinstance(rod, _rod.Rod):
        raise ValueError(f"rod must be a lib.rod.Rod, got {type(rod).__name__}")
    N, L = rod.N, rod.L
    r = rod.r_over_L * L
    d0 = _finite_number(offset, "offset")
    d1 = d0 if offset_end is None else _finite_number(offset_end, "offset_end")
    for name, v in (("offset", d0), ("offset_end", d1)):
        if abs(v) > r * (1 + 1e-12):
            raise ValueError(f"{name} = {v!r} puts the tendon outside the section "
                             f"(|d| must be <= r = {r:.6g})")
    k = N if anchor is None else _count(anchor, "anchor")
    if k > N:
        raise ValueError(f"anchor must be a node in 1..{N}, got {anchor!r}")
    ell = rod.ell
    e = np.arange(k)
    s = np.concatenate([[0.0], (e + 0.5) * ell, [k * ell]])
    d = d0 + (d1 - d0) * s / L
    elem = np.concatenate([[-1], e, [k - 1]])
    nodes = np.concatenate([[[0, 0]], np.column_stack([e, e + 1]), [[k, k]]]).astype(np.int64)
    weights = np.concatenate([[[0.0, 0.0]], np.full((k, 2), 0.5), [[0.5, 0.5]]])
    # sparse pattern of the eyelet Jacobian dp_j/dq: rows 2j, 2j+1; columns x, y of the
    # nodes (node i >= 1 -> 3(i-1)+1, 3(i-1)+2) and the angle column 3 e_j
    M = s.size
    rows, cols, kind = [], [], []
    for c in range(2):          # the two node slots
        for comp in range(2):
            ok = nodes[:, c] >= 1
            j = np.flatnonzero(ok)
            rows.append(2 * j + comp)
            cols.append(3 * (nodes[j, c] - 1) + 1 + comp)
            kind.append(np.full(j.size, c))
    ok = elem >= 0
    j = np.flatnonzero(ok)
    for comp in range(2):
        rows.append(2 * j + comp)
        cols.append(3 * elem[j])
        kind.append(np.full(j.size, 2 + comp))
    rows, cols, kind = (np.concatenate(a) for a in (rows, cols, kind))
    for a in (s, d, elem, nodes, weights, rows, cols, kind):
        a.setflags(write=False)
    return Tendon(N=N, offset=d0, offset_end=d1, anchor=k, s=s, d=d, elem=elem, nodes=nodes,
                  weights=weights, _cols=(rows, cols, kind, M))


def _check_tendon(rod, tendon):
    if not isinstance(tendon, Tendon):
        raise ValueError(f"tendon must be a Tendon (make_tendon), got {type(tendon).__name__}")
    if tendon.N != rod.N:
        raise ValueError(f"tendon was made for N = {tendon.N}, the rod has N = {rod.N}")


def _check_q(rod, q):
    q = np.asarray(q, dtype=float)
    if q.shape != (rod.ndof,):
        raise ValueError(f"q must have shape ({rod.ndof},) for N = {rod.N}, got {q.shape}")
    return q


def _frames(rod, tendon, q):
    """Eyelet positions p (M, 2), their section tangents t (M, 2) and normals n (M, 2)."""
    X = np.zeros((rod.N + 1, 2))
    X[1:, 0] = q[1::3]
    X[1:, 1] = q[2::3]
    phi = np.concatenate([[0.0], q[0::3]])[tendon.elem + 1]
    c, s = np.cos(phi), np.sin(phi)
    t = np.column_stack([c, s])
    n = np.column_stack([-s, c])
    w = tendon.weights
    p = w[:, :1] * X[tendon.nodes[:, 0]] + w[:, 1:] * X[tendon.nodes[:, 1]] + tendon.d[:, None] * n
    return p, t, n


def eyelets(rod, tendon, q):
    """Eyelet positions of ``tendon`` in state ``q``, shape (M, 2), clamp first.

    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> eyelets(r, make_tendon(r, 0.01), rd.straight(r)).round(3).tolist()
    [[0.0, 0.01], [0.25, 0.01], [0.75, 0.01], [1.0, 0.01]]
    """
    _check_tendon(rod, tendon)
    return _frames(rod, tendon, _check_q(rod, q))[0]


def _segments(rod, tendon, q):
    p, t, n = _frames(rod, tendon, q)
    v = np.diff(p, axis=0)
    ln = np.hypot(v[:, 0], v[:, 1])
    if np.any(ln <= 0):
        raise ValueError("q makes two consecutive eyelets coincide (tendon length not differentiable)")
    return p, t, n, v, ln, v / ln[:, None]


def tendon_length(rod, tendon, q):
    r"""Tendon length ``ell_t(q) = sum_j |p_{j+1} - p_j|`` (module docstring).

    For a straight rod and a straight tendon it is the anchor's arc length; bending
    towards the tendon shortens it by about ``d`` times the angle turned.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> round(tendon_length(r, make_tendon(r, 0.02, anchor=5), rd.straight(r)), 12)
    0.5
    """
    _check_tendon(rod, tendon)
    q = _check_q(rod, q)
    return float(_segments(rod, tendon, q)[4].sum())


def _eyelet_jacobian_values(tendon, t):
    """Values of the sparse dp/dq in the pattern of ``tendon._cols``."""
    rows, cols, kind, M = tendon._cols
    j = rows // 2
    comp = rows % 2
    val = np.empty(rows.size)
    node = kind < 2
    val[node] = tendon.weights[j[node], kind[node]]
    ang = ~node
    val[ang] = -tendon.d[j[ang]] * t[j[ang], comp[ang]]        # dp/dphi = d dn/dphi = -d t
    return val


def tendon_gradient(rod, tendon, q):
    r"""``d ell_t / dq``, shape (3N,), in closed form.

    With unit segment directions ``u_j``, the eyelet "force" ``F_j = u_{j-1} - u_j``
    (``dl/dp_j``) is scattered through ``dp_j/dx_node = w I`` and
    ``dp_j/dphi = -d_j t(phi)``.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> tendon_gradient(r, make_tendon(r, 0.01), rd.straight(r)).round(6).tolist()
    [0.0, 0.0, 0.0, -0.01, 1.0, 0.0]
    """
    _check_tendon(rod, tendon)
    q = _check_q(rod, q)
    p, t, n, v, ln, u = _segments(rod, tendon, q)
    F = np.zeros_like(p)
    F[1:] += u
    F[:-1] -= u
    rows, cols, kind, M = tendon._cols
    val = _eyelet_jacobian_values(tendon, t)
    return np.bincount(cols, weights=val * F.ravel()[rows], minlength=rod.ndof)


def tendon_hessian(rod, tendon, q):
    r"""``d^2 ell_t / dq^2`` as a symmetric CSR matrix, in closed form.

    .. math::
        \frac{\partial^2\ell_t}{\partial q^2} = \sum_j G_j^{\top}\,
        \frac{I - u_j u_j^{\top}}{l_j}\, G_j
        + \sum_j \bigl(F_j\cdot(-d_j\, n_j)\bigr)\, e_{\varphi(j)} e_{\varphi(j)}^{\top},

    ``G_j = dp_{j+1}/dq - dp_j/dq`` (segment Jacobian), ``F_j`` as in
    :func:`tendon_gradient`, ``d^2 p_j / dphi^2 = -d_j n``.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(3)
    >>> H = tendon_hessian(r, make_tendon(r, 0.01), rd.straight(r))
    >>> H.shape, float(abs(H - H.T).max())
    ((9, 9), 0.0)
    """
    _check_tendon(rod, tendon)
    q = _check_q(rod, q)
    p, t, n, v, ln, u = _segments(rod, tendon, q)
    M = tendon.n_eyelets
    # local Jacobian of each eyelet over its 5 candidate columns (x, y of two nodes, angle)
    nd = tendon.nodes
    col = np.column_stack([3 * (nd[:, 0] - 1) + 1, 3 * (nd[:, 0] - 1) + 2,
                           3 * (nd[:, 1] - 1) + 1, 3 * (nd[:, 1] - 1) + 2, 3 * tendon.elem])
    col[nd[:, 0] < 1, 0:2] = -1
    col[nd[:, 1] < 1, 2:4] = -1
    col[tendon.elem < 0, 4] = -1
    Jp = np.zeros((M, 2, 5))
    w = tendon.weights
    Jp[:, 0, 0] = Jp[:, 1, 1] = w[:, 0]
    Jp[:, 0, 2] = Jp[:, 1, 3] = w[:, 1]
    Jp[:, :, 4] = -tendon.d[:, None] * t                      # dp/dphi = -d t
    Js = np.concatenate([-Jp[:-1], Jp[1:]], axis=2)            # (M-1, 2, 10) segment Jacobians
    cs = np.concatenate([col[:-1], col[1:]], axis=1)           # (M-1, 10) their columns
    Hb = (np.eye(2)[None] - u[:, :, None] * u[:, None, :]) / ln[:, None, None]
    He = np.einsum("jai,jab,jbk->jik", Js, Hb, Js)              # (M-1, 10, 10)
    rr = np.broadcast_to(cs[:, :, None], He.shape)
    cc = np.broadcast_to(cs[:, None, :], He.shape)
    keep = (rr >= 0) & (cc >= 0)
    F = np.zeros_like(p)
    F[1:] += u
    F[:-1] -= u
    ok = tendon.elem >= 0
    diag = -tendon.d[ok] * np.einsum("ij,ij->i", F[ok], n[ok])   # F . d2p/dphi2, d2p/dphi2 = -d n
    ia = 3 * tendon.elem[ok]
    nn = rod.ndof
    H = sp.coo_matrix((np.concatenate([He[keep], diag]),
                       (np.concatenate([rr[keep], ia]), np.concatenate([cc[keep], ia]))),
                      shape=(nn, nn)).tocsr()
    return (0.5 * (H + H.T)).tocsr()      # duplicates summed in different orders: resymmetrise


def _check_tendons(rod, tendons, tensions):
    tendons = list(tendons) if not isinstance(tendons, Tendon) else [tendons]
    if not tendons:
        raise ValueError("tendons must list at least one Tendon")
    for t in tendons:
        _check_tendon(rod, t)
    tau = np.atleast_1d(np.asarray(tensions, dtype=float))
    if tau.shape != (len(tendons),):
        raise ValueError(f"tensions must have one entry per tendon ({len(tendons)}), got shape {tau.shape}")
    if not np.all(np.isfinite(tau)):
        raise ValueError(f"tensions must be finite, got {tau.tolist()}")
    if np.any(tau < 0):
        raise ValueError(f"tensions must be >= 0 (a cable can only pull), got {tau.tolist()}")
    return tendons, tau


def energy(rod, q, tendons, tensions, load=None, grav=0.0):
    r"""Total potential ``Pi_rod(q) + sum_i tau_i ell_i(q)`` (module docstring).

    Parameters
    ----------
    rod : lib.rod.Rod
    q : (3N,) state
    tendons : sequence of Tendon (or one Tendon)
    tensions : (m,) tensions >= 0
    load, grav : dead tip load and gravity as in :func:`lib.rod.energy`

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(4)
    >>> energy(r, rd.straight(r), [make_tendon(r, 0.02)], [2.0])    # 2 x length 1
    2.0
    """
    tendons, tau = _check_tendons(rod, tendons, tensions)
    q = _check_q(rod, q)
    return _rod.energy(rod, q, load, grav) + float(sum(ti * tendon_length(rod, t, q)
                                                      for t, ti in zip(tendons, tau)))


def gradient(rod, q, tendons, tensions, load=None, grav=0.0):
    r"""``grad Pi_rod + sum_i tau_i d ell_i/dq``, shape (3N,).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> gradient(r, rd.straight(r), [make_tendon(r, 0.01)], [1.0]).round(6).tolist()
    [0.0, 0.0, 0.0, -0.01, 1.0, 0.0]
    """
    tendons, tau = _check_tendons(rod, tendons, tensions)
    q = _check_q(rod, q)
    g = _rod.gradient(rod, q, load, grav)
    for t, ti in zip(tendons, tau):
        if ti:
            g = g + ti * tendon_gradient(rod, t, q)
    return g


def hessian(rod, q, tendons, tensions):
    r"""``K = hess Pi_rod + sum_i tau_i d^2 ell_i/dq^2`` (CSR, symmetric).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(3)
    >>> K = hessian(r, rd.straight(r), [make_tendon(r, 0.01)], [5.0])
    >>> float(abs(K - K.T).max())
    0.0
    """
    tendons, tau = _check_tendons(rod, tendons, tensions)
    q = _check_q(rod, q)
    H = _rod.hessian(rod, q)
    for t, ti in zip(tendons, tau):
        if ti:
            H = H + ti * tendon_hessian(rod, t, q)
    return H.tocsr()


def _solve(K, b, what):
    """Sparse LU solve of K x = b (b may have several columns), errors wrapped."""
    try:
        lu = splu(sp.csc_matrix(K))
        x = lu.solve(np.asarray(b, dtype=float))
    except RuntimeError as err:      # SuperLU: "Factor is exactly singular"
        raise ActuationSolveError(f"{what}: the tangent stiffness is singular ({err})") from None
    if not np.all(np.isfinite(x)):
        raise ActuationSolveError(f"{what}: the tangent solve produced non-finite values")
    return x


def _newton(rod, tendons, tau, q, load, grav, tol, maxiter, where):
    """Newton with an energy/residual line search at fixed tensions; returns (q, iterations)."""
    fscale = max(rod.EI / rod.L, float(np.max(tau, initial=0.0)),
                 0.0 if load is None else float(np.abs(load).max()), abs(grav) * rod.rhoA * rod.L)
    # forces carry round-off ~ eps (EA + S) |x| / ell: node differences lose log10(N) digits
    floor = 8 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(64.0, rod.N)
    g = gradient(rod, q, tendons, tau, load, grav)
    res = float(np.abs(g).max())
    for it in range(maxiter + 1):
        if res <= tol * fscale:
            return q, it
        dq = -_solve(hessian(rod, q, tendons, tau), g, where)
        if np.abs(dq).max() <= 1e-14 * rod.L and res <= max(tol * fscale, floor):
            return q, it
        if it == maxiter:
            break
        E0 = energy(rod, q, tendons, tau, load, grav)
        slope = float(g @ dq)
        step = 1.0
        while True:
            qt = q + step * dq
            try:
                gt = gradient(rod, qt, tendons, tau, load, grav)
                Et = energy(rod, qt, tendons, tau, load, grav)
                rt = float(np.abs(gt).max())
            except ValueError:          # eyelets collapsed: too long a step
                rt, Et = np.inf, np.inf
            if Et <= E0 + 1e-4 * step * min(slope, 0.0) or rt <= (1 - 1e-4 * step) * res:
                break
            step *= 0.5
            if step < 1e-10:
                raise ActuationSolveError(f"{where}: line search failed at iteration {it}, "
                                          f"residual {res:.3e}")
        q, g, res = qt, gt, rt
    raise ActuationSolveError(f"{where}: Newton did not converge in {maxiter} iterations, "
                              f"residual {res:.3e} (target {tol * fscale:.3e})")


def static_path(rod, tendons, tensions, steps=10, load=None, grav=0.0, q0=None, tensions0=None,
                tol=1e-10, maxiter=50):
    r"""Equilibria along a straight tension path, by load-incremented Newton.

    The tensions go from ``tensions0`` (default 0, state ``q0``, default straight) to
    ``tensions`` in ``steps`` equal increments; each increment is solved by Newton's
    method on ``grad Pi_tot = 0`` with the full tangent (rod plus tendon stiffness,
    sparse LU) and a backtracking line search (energy or residual decrease).
    Converged when ``|grad Pi_tot|_inf <= tol max(EI/L, max tau, |load|, g rhoA L)``
    or at the round-off floor of the stiff stretch and shear terms,
    ``8 eps (EA + S) max(64, N)``.

    Returns
    -------
    taus : (steps + 1, m) the tensions of each equilibrium (row 0: the start)
    Q : (steps + 1, 3N) the equilibria

    Raises
    ------
    ActuationSolveError
        Naming the load step, the iteration and the residual reached.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> taus, Q = static_path(r, [make_tendon(r, 0.04)], [10.0], steps=2)
    >>> taus[:, 0].tolist(), round(float(np.diff(Q[-1, 0::3]).mean() / r.ell), 2)   # tau d/EI
    ([0.0, 5.0, 10.0], 0.41)
    """
    steps = _count(steps, "steps")
    tendons, tau1 = _check_tendons(rod, tendons, tensions)
    tau0 = np.zeros_like(tau1) if tensions0 is None else _check_tendons(rod, tendons, tensions0)[1]
    if load is not None:
        load = _rod.check_load(load)
    grav = _finite_number(grav, "grav")
    q = _rod.straight(rod) if q0 is None else _check_q(rod, q0).copy()
    taus = tau0 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (tau1 - tau0)
    Q = np.empty((steps + 1, rod.ndof))
    lam0 = 0.0 if tensions0 is None and q0 is None else 1.0
    if lam0:            # the straight, unloaded start needs no solve
        q, _ = _newton(rod, tendons, taus[0], q, None if load is None else load, grav,
                       tol, maxiter, "start state")
    Q[0] = q
    for j in range(1, steps + 1):
        lam = j / steps if lam0 == 0.0 else 1.0
        q, _ = _newton(rod, tendons, taus[j], q, None if load is None else lam * load, lam * grav,
                       tol, maxiter, f"load step {j}/{steps} (tensions {np.round(taus[j], 6).tolist()})")
        Q[j] = q
    return taus, Q


def static(rod, tendons, tensions, steps=10, load=None, grav=0.0, q0=None, tensions0=None,
           tol=1e-10, maxiter=50):
    """Equilibrium under the given tensions: the last state of :func:`static_path`.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(8)
    >>> q = static(r, [make_tendon(r, -0.02)], [5.0], steps=1)
    >>> round(float(np.diff(q[0::3]).mean() / r.ell), 3)    # tau d/EI = -0.1, less O(1/N^2)
    -0.102
    """
    return static_path(rod, tendons, tensions, steps, load, grav, q0, tensions0, tol, maxiter)[1][-1]


def arc_tip(rod, tension, offset):
    r"""Tip ``(x, y, theta)`` of the continuum rod under one straight tendon at the tip.

    Every section carries the moment ``tau d`` and the compression ``tau``: curvature
    ``kappa = tau d / EI`` (per reference length) and axial strain ``-tau/EA``, so

    .. math::
        \theta = \kappa L,\quad
        x = (1 - \tau/EA)\,\frac{\sin\kappa L}{\kappa},\quad
        y = (1 - \tau/EA)\,\frac{1 - \cos\kappa L}{\kappa}.

    Examples
    --------
    >>> from lib import rod as rd
    >>> x, y, th = arc_tip(rd.make_rod(4), 0.0, 0.01)
    >>> (x, y, th)
    (1.0, 0.0, 0.0)
    """
    tau = _finite_number(tension, "tension")
    d = _finite_number(offset, "offset")
    kappa = tau * d / rod.EI
    L = rod.L
    stretch = 1.0 - tau / rod.EA
    th = kappa * L
    if abs(th) < 1e-8:
        x, y = L * (1 - th**2 / 6), L * th / 2
    else:
        x, y = math.sin(th) / kappa, (1 - math.cos(th)) / kappa
    return stretch * x, stretch * y, th


def tension_jacobian(rod, tendons, tensions, q, angle=False):
    r"""Sensitivity of the equilibrium tip to the tensions, ``W = J_tip dq/dtau``.

    Differentiating ``grad Pi_rod(q) + sum_i tau_i d ell_i/dq = 0`` gives
    ``K dq/dtau_i = -d ell_i/dq``, so

    .. math:: W = -J_{\text{tip}}\, K^{-1} \Bigl[\frac{\partial\ell_1}{\partial q}\;\cdots\;
              \frac{\partial\ell_m}{\partial q}\Bigr],

    ``J_tip`` selects ``(x_N, y_N)`` (and ``phi_{N-1}`` when ``angle``).

    Returns
    -------
    ndarray, shape (2, m) or (3, m)

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(20, r_over_L=0.002)
    >>> t = make_tendon(r, 0.002)
    >>> W = tension_jacobian(r, [t], [0.0], rd.straight(r), angle=True)
    >>> W[:, 0].round(4).tolist()                  # (0, d L^2/(2EI), d L/EI)
    [-0.0, 0.001, 0.002]
    """
    tendons, tau = _check_tendons(rod, tendons, tensions)
    q = _check_q(rod, q)
    B = np.column_stack([tendon_gradient(rod, t, q) for t in tendons])
    dq = -_solve(hessian(rod, q, tendons, tau), B, "tension_jacobian")
    dq = dq.reshape(rod.ndof, -1)
    rows = [rod.ndof - 2, rod.ndof - 1] + ([rod.ndof - 3] if angle else [])
    return dq[rows]


# --------------------------------------------------------------------------------------
# QP and the inverse model
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class InverseResult:
    """Outcome of :func:`inverse`.

    Attributes
    ----------
    tensions : (m,) the tensions found
    q : (3N,) the equilibrium they give
    tip : (2,) or (3,) its tip ``(x, y[, theta])``
    target : same shape, the target asked for
    distance : float, ``|tip - target|`` (the angle scaled by L): 0 for a reached target,
        else how far the nearest reachable tip is
    reachable : bool, ``distance <= reach_tol``
    multipliers : (m,) bound multipliers of the final QP: ``>= 0`` on an upper bound,
        ``<= 0`` on a lower bound, 0 off the bounds (complementarity); ``-multipliers`` is
        the gradient of ``distance^2 / 2`` with respect to the tensions, so
        ``d(distance^2/2)/d tau_max_i = -multipliers_i``.  A reached target has
        (numerically) zero multipliers even on a bound it sits on.
    active : tuple of "upper" / "lower" / "" per tendon: the bound the tension sits on
        (within 1e-9 max(tau_max))
    iterations : int, linearise-QP-solve rounds
    history : (iterations + 1,) distance after each round
    message : str
    """

    tensions: np.ndarray
    q: np.ndarray
    tip: np.ndarray
    target: np.ndarray
    distance: float
    reachable: bool
    multipliers: np.ndarray
    active: tuple
    iterations: int
    history: np.ndarray
    message: str


def _bounds(value, name, m, allow_zero):
    arr = np.asarray(value, dtype=float)
    try:
        arr = np.broadcast_to(arr, (m,)).astype(float)
    except ValueError:
        raise ValueError(f"{name} must be a number or one per tendon ({m}), got shape {arr.shape}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr.tolist()}")
    if np.any(arr < 0) or (not allow_zero and np.any(arr <= 0)):
        raise ValueError(f"{name} must be {'>=' if allow_zero else '>'} 0 (a cable can only pull), "
                         f"got {arr.tolist()}")
    return arr


def _move(rod, tendons, q, tau_from, tau_to):
    """Equilibrium at ``tau_to`` starting from the one at ``tau_from`` (more steps if needed)."""
    last = None
    for steps in (1, 4, 16):
        try:
            return static_path(rod, tendons, tau_to, steps=steps, q0=q, tensions0=tau_from)[1][-1]
        except ActuationSolveError as err:
            last = err
    raise last


def inverse(rod, tendons, target, tau_max, tau_min=0.0, tol=1e-10, reach_tol=1e-8, maxiter=100,
            q0=None, tensions0=None):
    r"""Tensions that put the tip on ``target``, within ``tau_min <= tau <= tau_max``.

    The SoftRobots.Inverse scheme (Duriez 2013; Coevoet et al. 2017) on the rod: at the
    equilibrium of the current tensions linearise the tip, ``y ~ y_k + W (tau - tau_k)``
    (:func:`tension_jacobian`), and solve two QPs with :func:`qp_solve`:

    1. ``min 1/2 |y_k + W delta - y*|^2 + mu/2 |delta|^2`` over the box
       (``delta = tau - tau_k``; a Levenberg-Marquardt damping
       ``mu = |W^T W| max(1e-10, min(1, |y_k - y*|^2 / L^2))`` keeps the step inside the
       range where the linearisation holds while the tip is far away, fades as it
       closes in (Gauss-Newton speed on a reachable target), keeps the QP strictly
       convex when tendons are redundant, and does not move the fixed point ``delta = 0``);
    2. when tendons are redundant (``W`` has a null space ``Z``: singular values below
       1e-4 of the largest), ``min 1/2 |tau|^2`` over
       ``tau = tau_1 + Z z`` within the box: the least effort giving the same linearised tip.

    Then re-solve the equilibrium and repeat until ``|delta|_inf <= tol max(tau_max)``.
    At the fixed point the multipliers of QP 1 are those of the nonlinear problem
    ``min 1/2 |y(tau) - y*|^2`` over the box (``W`` is its exact Jacobian).

    Parameters
    ----------
    rod : lib.rod.Rod
    tendons : sequence of Tendon
    target : (x, y) or (x, y, theta)
        Tip position, optionally angle (its error is weighted by L).
    tau_max : float or (m,)
        Largest tension of each tendon (> 0, finite).
    tau_min : float or (m,)
        Smallest tension (>= 0: a cable can only pull; default 0).
    tol : float
        Relative tension-update tolerance of the outer iteration.
    reach_tol : float
        A final ``distance <= reach_tol L`` counts as reached.
    maxiter : int
        Outer iterations.
    q0, tensions0 : optional start equilibrium and its tensions (default straight, 0).

    Returns
    -------
    InverseResult
        Never raises for an unreachable target: ``reachable`` is False and ``distance``
        says by how much it is missed.

    Raises
    ------
    ValueError
        Negative / non-finite ``tau_min`` or ``tau_max``, ``tau_max < tau_min``, a
        non-finite ``target`` or one of the wrong length.
    ActuationSolveError
        If the outer iteration does not settle in ``maxiter`` rounds (says how far it got).

    Examples
    --------
    >>> from lib.rod import make_rod, tip
    >>> r = make_rod(10)
    >>> t = make_tendon(r, 0.04)
    >>> x, y, _ = tip(r, static(r, [t], [12.0]))               # a tip the tendon can reach
    >>> res = inverse(r, [t], (x, y), tau_max=20.0)
    >>> res.reachable, res.tensions.round(9).tolist(), bool(res.distance < 1e-10)
    (True, [12.0], True)
    >>> res = inverse(r, [t], (x, y), tau_max=10.0)                # not with tau <= 10
    >>> res.reachable, res.active, round(res.distance, 4), bool(res.multipliers[0] > 0)
    (False, ('upper',), 0.0417, True)
    """
    tendons = list(tendons) if not isinstance(tendons, Tendon) else [tendons]
    for t in tendons:
        _check_tendon(rod, t)
    m = len(tendons)
    lo = _bounds(tau_min, "tau_min", m, allow_zero=True)
    hi = _bounds(tau_max, "tau_max", m, allow_zero=False)
    if np.any(hi < lo):
        raise ValueError(f"tau_max must be >= tau_min, got {hi.tolist()} < {lo.tolist()}")
    ystar = np.asarray(target, dtype=float).ravel()
    if ystar.shape not in ((2,), (3,)) or not np.all(np.isfinite(ystar)):
        raise ValueError(f"target must be a finite (x, y) or (x, y, theta), got {target!r}")
    angle = ystar.size == 3
    wts = np.array([1.0, 1.0, rod.L])[: ystar.size]
    tau = np.clip(np.zeros(m) if tensions0 is None else _check_tendons(rod, tendons, tensions0)[1], lo, hi)
    if q0 is None:
        q = static_path(rod, tendons, tau, steps=4)[1][-1] if np.any(tau) else _rod.straight(rod)
    else:
        q = _check_q(rod, q0).copy()

    def tip_of(q):
        x, y, th = _rod.tip(rod, q)
        return np.array([x, y, th][: ystar.size])

    y = tip_of(q)
    hist = [float(np.linalg.norm(wts * (y - ystar)))]
    lam = np.zeros(m)
    step = np.inf
    for it in range(1, maxiter + 1):
        W = wts[:, None] * tension_jacobian(rod, tendons, tau, q, angle=angle)
        r = wts * (y - ystar)
        H = W.T @ W
        hmax = max(float(np.abs(H).max()), np.finfo(float).tiny)
        mu = hmax * max(1e-10, min(1.0, (float(np.linalg.norm(r)) / rod.L) ** 2))
        delta, lam, _ = qp_solve(H + mu * np.eye(m), W.T @ r, lo - tau, hi - tau)
        tau1 = np.clip(tau + delta, lo, hi)
        Z = null_space(W, rcond=1e-4)
        if Z.shape[1]:
            z, _, _ = qp_solve(Z.T @ Z, Z.T @ tau1, np.full(Z.shape[1], -np.inf),
                               np.full(Z.shape[1], np.inf), A=Z, a_lower=lo - tau1, a_upper=hi - tau1)
            tau1 = np.clip(tau1 + Z @ z, lo, hi)
        step = float(np.abs(tau1 - tau).max())
        if step > 0:
            q = _move(rod, tendons, q, tau, tau1)
            tau = tau1
        y = tip_of(q)
        hist.append(float(np.linalg.norm(wts * (y - ystar))))
        if step <= tol * float(hi.max()):
            break
    else:
        raise ActuationSolveError(
            f"inverse: not settled after {maxiter} rounds: last tension update {step:.3e}, "
            f"distance to target {hist[-1]:.3e}")
    dist = hist[-1]
    at = 1e-9 * float(hi.max())
    active = tuple("upper" if tk >= hk - at else "lower" if tk <= lk_ + at else ""
                   for tk, hk, lk_ in zip(tau, hi, lo))
    tau = np.where(np.array(active) == "upper", hi, np.where(np.array(active) == "lower", lo, tau))
    reachable = dist <= reach_tol * rod.L
    if reachable:
        msg = f"target reached: distance {dist:.3e} after {it} rounds"
    else:
        on = [f"tendon {i} at its {a} bound (multiplier {lam[i]:.3g})"
              for i, a in enumerate(active) if a]
        msg = (f"target unreachable: the nearest reachable tip is {dist:.6g} away"
               + (f"; {', '.join(on)}" if on else "; no bound active (a stationary point of the distance)"))
    return InverseResult(tensions=tau, q=q, tip=y, target=ystar, distance=dist, reachable=reachable,
                         multipliers=lam, active=active, iterations=it, history=np.array(hist),
                         message=msg)


# --------------------------------------------------------------------------------------
# follower pressure on the FEM arm
# --------------------------------------------------------------------------------------
_S = np.array([[0.0, 1.0], [-1.0, 0.0]])      # n ds = S dx on a counter-clockwise boundary


def _edge_c(p):
    """c_ab = int_0^1 N_a N_b' dxi for a linear (p = 1) or quadratic (p = 2) edge."""
    g, w = np.polynomial.legendre.leggauss(3)
    xi, w = (g + 1) / 2, w / 2
    if p == 1:
        N = np.stack([1 - xi, xi])
        dN = np.stack([-np.ones_like(xi), np.ones_like(xi)])
    else:   # nodes at xi = 0, 1/2, 1
        N = np.stack([(1 - xi) * (1 - 2 * xi), 4 * xi * (1 - xi), xi * (2 * xi - 1)])
        dN = np.stack([4 * xi - 3, 4 - 8 * xi, 4 * xi - 1])
    return np.einsum("aq,bq,q->ab", N, dN, w)


@dataclass(frozen=True, eq=False)
class Chamber:
    """A pressurised run of boundary edges of an FEM model (made by :func:`make_chamber`).

    Attributes
    ----------
    side : "top", "bottom", "left" or "right"
    edges : (n_edges, p + 1) node numbers of each edge in counter-clockwise order
        (along the boundary with the body on the left).
    C : (2 n_nodes, 2 n_nodes) CSR, blocks ``c_ab S`` (module docstring), so that the
        follower load is ``-p C x`` and its stiffness ``p C``.
    ends : (2,) the first and last node of the run (where ``C`` is unsymmetric).
    """

    side: str
    edges: np.ndarray
    C: sp.csr_matrix
    ends: np.ndarray


def make_chamber(model, side="top", x_range=(-np.inf, np.inf)):
    r"""A pressurised face: the edges of ``side`` whose ends lie in ``x_range`` (``y`` range for
    "left"/"right").

    Assembles ``C = sum_edges sum_ab c_ab (e_a e_b^T) kron S`` once (it does not depend on
    ``u``), ``c_ab = int_0^1 N_a N_b' dxi``.

    Parameters
    ----------
    model : lib.fem.Model
    side : "top", "bottom", "left" or "right"
    x_range : (lo, hi), the part of the face under pressure (must contain an edge)

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    >>> ch = make_chamber(m, "top", (1.0, 3.0))
    >>> ch.edges.tolist()                      # right to left along the top face
    [[7, 5], [5, 3]]
    """
    if not isinstance(model, _fem.Model):
        raise ValueError(f"model must be a lib.fem.Model, got {type(model).__name__}")
    mesh = model.mesh
    X, Y = mesh.nodes[:, 0], mesh.nodes[:, 1]
    faces = {"right": (np.isclose(X, mesh.length), Y, False),
             "left": (np.isclose(X, 0.0), Y, True),
             "top": (np.isclose(Y, mesh.height / 2), X, True),
             "bottom": (np.isclose(Y, -mesh.height / 2), X, False)}
    if side not in faces:
        raise ValueError(f"side must be one of {tuple(faces)}, got {side!r}")
    try:
        lo, hi = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise ValueError(f"x_range must be a pair (lo, hi), got {x_range!r}") from None
    on, coord, reverse = faces[side]
    idx = np.flatnonzero(on)
    idx = idx[np.argsort(coord[idx])]
    p = 1 if mesh.element == "T3" else 2
    starts = np.arange(0, idx.size - 1, p)
    edges = np.stack([idx[starts + k] for k in range(p + 1)], 1)
    c = coord[edges]
    keep = (c[:, 0] >= lo - 1e-12) & (c[:, -1] <= hi + 1e-12)
    edges = edges[keep]
    if edges.shape[0] == 0:
        raise ValueError(f"x_range {x_range!r} contains no edge of the {side} face")
    if reverse:                       # counter-clockwise traversal of the boundary
        edges = edges[::-1, ::-1]
    cab = _edge_c(p)
    ne, nen = edges.shape
    a = np.repeat(edges, nen, axis=1).ravel()
    b = np.tile(edges, (1, nen)).ravel()
    v = np.tile(cab.ravel(), ne)
    rows = np.concatenate([2 * a, 2 * a + 1])
    cols = np.concatenate([2 * b + 1, 2 * b])
    vals = np.concatenate([v, -v])            # S = [[0, 1], [-1, 0]]
    n = model.n_dofs
    C = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    edges.setflags(write=False)
    ends = np.array([edges[0, 0], edges[-1, -1]])
    return Chamber(side=side, edges=edges, C=C, ends=ends)


def _check_u(model, u):
    u = np.asarray(u, dtype=float)
    if u.shape != (model.n_dofs,):
        raise ValueError(f"u must have shape ({model.n_dofs},), got {u.shape}")
    return u


def pressure_force(model, chamber, u, pressure):
    r"""Follower load of ``pressure`` on the chamber's face in the deformed state ``u``.

    .. math:: f^{\text{ext}}(u) = -p\, C\, (X + u),

    consistent with the edge interpolation: exact for straight T3 edges and for curved
    T6 edges.  At ``u = 0`` it equals ``p`` times :func:`lib.fem.face_pressure_load`.

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 1, "T6", slenderness=4.0)
    >>> ch = make_chamber(m, "top")
    >>> f = pressure_force(m, ch, np.zeros(m.n_dofs), 2.0)
    >>> round(float(f[1::2].sum()), 12)       # -p x face length
    -8.0
    """
    u = _check_u(model, u)
    p = _finite_number(pressure, "pressure")
    x = model.mesh.nodes.ravel() + u
    return -p * (chamber.C @ x)


def pressure_stiffness(model, chamber, pressure):
    r"""Load stiffness ``K_p = -d f^ext / du = p C`` (CSR, unsymmetric, constant in ``u``).

    The tangent of the residual ``f_int(u) - f_ext(u)`` is ``K(u) + K_p``.  Its
    unsymmetric part lives on the two end nodes of an open run:
    ``C + C^T = sum_edges [N_a N_b]_0^1 S``-terms that cancel at every interior node.

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    >>> Kp = pressure_stiffness(m, make_chamber(m, "top", (1.0, 3.0)), 1.0)
    >>> A = (Kp - Kp.T).tocoo()
    >>> sorted(set((A.row[abs(A.data) > 1e-12] // 2).tolist()))     # the two run ends
    [3, 7]
    """
    p = _finite_number(pressure, "pressure")
    return (p * chamber.C).tocsr()


def pressure_residual(model, chamber, u, pressure):
    """Residual ``f_int(u) - f_ext(u)`` on all dofs (the fixed ones included)."""
    return _fem.gradient(model, _check_u(model, u)) - pressure_force(model, chamber, u, pressure)


def _admissible_step(model, u, fr, du, where, status):
    """``u`` with ``t du`` taken off its free dofs ``fr``, ``t = 1, 1/2, ...`` halved until no
    element inverts (at most 30 halvings); ``ActuationSolveError`` naming ``where`` and
    ``status`` when every step inverts an element."""
    t = 1.0
    for _ in range(30):
        trial = u.copy()
        trial[fr] -= t * du
        if _fem.admissible(model, trial):
            return trial
        t *= 0.5
    raise ActuationSolveError(f"{where}: every Newton step inverts an element ({status})")


def _fem_newton(model, chamber, p, u, tol, maxiter, load_stiffness, where, record=None,
                states=None):
    fr = model.free
    scale = max(float(np.abs(pressure_force(model, chamber, np.zeros(model.n_dofs), p)[fr]).max()),
                np.finfo(float).tiny)
    Kp = pressure_stiffness(model, chamber, p)
    # round-off floor of the internal force (as in lib.fem.static): eps x the terms summed
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * float(node_scale.max())
    res = np.inf
    for it in range(maxiter + 1):
        r = pressure_residual(model, chamber, u, p)[fr]
        res = float(np.abs(r).max())
        if record is not None:
            record.append(res / scale)
        if states is not None:
            states.append(u.copy())
        if res <= max(tol * scale, floor):
            return u, it
        if it == maxiter:
            break
        K = _fem.hessian(model, u)
        if load_stiffness:
            K = K + Kp
        try:
            du = splu(sp.csc_matrix(K[fr][:, fr])).solve(r)
        except RuntimeError as err:
            raise ActuationSolveError(f"{where}: singular tangent at iteration {it} ({err})") from None
        u = _admissible_step(model, u, fr, du, f"{where}, iteration {it}",
                             f"relative residual {res / scale:.3e}")
    raise ActuationSolveError(f"{where}: Newton did not converge in {maxiter} iterations, "
                              f"relative residual {res / scale:.3e} (target {tol:.1e})")


def pressure_static(model, chamber, pressure, steps=10, tol=1e-10, maxiter=30, u0=None,
                    load_stiffness=True):
    r"""Equilibria ``f_int(u) = f_ext(u)`` under a follower pressure growing to ``pressure``.

    Load-incremented Newton: ``p_j = j p / steps``; each increment iterates
    ``(K(u) + K_p) du = -(f_int - f_ext)`` on the free dofs (sparse LU; the tangent is
    unsymmetric) until ``|r|_inf <= tol |f_ext(0)|_inf``, halving a step that would
    invert an element.  ``load_stiffness=False`` drops ``K_p`` (a "dead-load" tangent):
    the iteration still converges for moderate pressures, but only linearly.

    Returns
    -------
    ps : (steps + 1,) the pressures; U : (steps + 1, 2 n_nodes) the equilibria

    Raises
    ------
    ActuationSolveError
        Naming the load step, the iteration and the residual reached.

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(10, 1, "T3")
    >>> ps, U = pressure_static(m, make_chamber(m, "top"), 1e-4, steps=2)
    >>> bool(fem.tip_deflection(m, U[-1]) < 0)          # pushed down
    True
    """
    steps = _count(steps, "steps")
    p1 = _finite_number(pressure, "pressure")
    u = np.zeros(model.n_dofs) if u0 is None else _check_u(model, u0).copy()
    ps = np.linspace(0.0, p1, steps + 1)
    U = np.empty((steps + 1, model.n_dofs))
    U[0] = u
    for j in range(1, steps + 1):
        u, _ = _fem_newton(model, chamber, ps[j], u, tol, maxiter, load_stiffness,
                           f"pressure step {j}/{steps} (p = {ps[j]:.4g})")
        U[j] = u
    return ps, U


def newton_history(model, chamber, pressure, u0, load_stiffness=True, maxiter=30, tol=1e-13,
                   return_states=False):
    """Relative residuals ``|r_k|_inf / |f_ext(0)|_inf`` of Newton at ``pressure`` from ``u0``.

    For comparing the convergence with and without the load stiffness.  Stops at
    ``tol``, at the round-off floor of the internal force, or after ``maxiter``
    iterations (no error: the history is the answer).  With ``return_states`` also
    returns the iterates, shape (iterations + 1, 2 n_nodes), for measuring the error
    ``|u_k - u*|`` (whose ratio ``e_{k+1} / e_k^2`` stays bounded for Newton's method).

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(10, 1, "T3")
    >>> h = newton_history(m, make_chamber(m, "top"), 1e-5, np.zeros(m.n_dofs))
    >>> len(h), bool(h[-1] < 1e-9)
    (4, True)
    """
    rec, states = [], []
    try:
        _fem_newton(model, chamber, _finite_number(pressure, "pressure"), _check_u(model, u0).copy(),
                    tol, maxiter, load_stiffness, "newton_history", rec, states)
    except ActuationSolveError:
        pass
    return (np.array(rec), np.array(states)) if return_states else np.array(rec)


# --------------------------------------------------------------------------------------
# dynamics: a tendon pulled in a ramp
# --------------------------------------------------------------------------------------
def ramp_response(rod, tendons, tensions, ramp_time, t_end, dt, rho_inf=0.8, every=1):
    r"""Tip motion of the rod when the tensions ramp from 0 to ``tensions`` over ``ramp_time``.

    ``M q'' + grad Pi_tot(q, tau(t)) = 0`` with ``tau(t) = min(t / ramp_time, 1) tensions``,
    integrated from rest by the generalised-alpha method
    (:func:`lib.integrate.generalized_alpha_step`, implicit, with the full tangent
    ``K = hess Pi_rod + sum tau_i hess ell_i`` and the lumped mass of :func:`lib.rod.mass`)
    at the tensions of the end of each step.

    Parameters
    ----------
    rod, tendons, tensions : as in :func:`static`
    ramp_time : float > 0
    t_end, dt : float > 0
    rho_inf : float in [0, 1], high-frequency spectral radius (0.8: mild damping of the
        stiff axial / shear modes, second order)
    every : int, keep every ``every``-th step

    Returns
    -------
    t : (n,) times; Q : (n, 3N) states; taus : (n, m) tensions at those times

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(6)
    >>> t, Q, taus = ramp_response(r, [make_tendon(r, 0.04)], [5.0], 1.0, 0.2, 0.1)
    >>> t.round(2).tolist(), taus[:, 0].round(2).tolist()
    ([0.0, 0.1, 0.2], [0.0, 0.5, 1.0])
    """
    tendons, tau_f = _check_tendons(rod, tendons, tensions)
    Tr = _finite_number(ramp_time, "ramp_time")
    if Tr <= 0:
        raise ValueError(f"ramp_time must be > 0, got {ramp_time!r}")
    dt = _finite_number(dt, "dt")
    t_end = _finite_number(t_end, "t_end")
    if dt <= 0 or t_end <= 0:
        raise ValueError(f"dt and t_end must be > 0, got {dt!r}, {t_end!r}")
    every = _count(every, "every")
    params = _integrate.generalized_alpha_parameters(rho_inf)
    M = _rod.mass(rod)
    nsteps = int(round(t_end / dt))

    def tau_at(t):
        return min(t / Tr, 1.0) * tau_f

    def force_at(tau):
        return lambda u: (gradient(rod, u, tendons, tau), hessian(rod, u, tendons, tau))

    u = _rod.straight(rod)
    v = np.zeros_like(u)
    f = gradient(rod, u, tendons, tau_at(0.0))
    a = -f / M
    ts, Q, taus = [0.0], [u.copy()], [tau_at(0.0)]
    for n in range(1, nsteps + 1):
        tn = n * dt
        try:
            u, v, a, f = _integrate.generalized_alpha_step(u, v, a, f, dt, force_at(tau_at(tn)), M, params)
        except _integrate.NewtonError as err:
            raise ActuationSolveError(f"ramp_response at step {n} (t = {tn:.6g}): {err}") from None
        if n % every == 0:
            ts.append(tn)
            Q.append(u.copy())
            taus.append(tau_at(tn))
    return np.array(ts), np.array(Q), np.array(taus)


# --------------------------------------------------------------------------------------
# the same tendon on the FEM arm: a cable through mesh nodes
# --------------------------------------------------------------------------------------
def _check_eyelets(model, eyelets):
    e = np.asarray(eyelets)
    if e.ndim != 1 or e.size < 2 or not np.issubdtype(e.dtype, np.integer):
        raise ValueError(f"eyelets must list at least two node numbers, got {eyelets!r}")
    n_nodes = model.mesh.nodes.shape[0]
    if e.min() < 0 or e.max() >= n_nodes:
        raise ValueError(f"eyelets must be node numbers in 0..{n_nodes - 1}, got {eyelets!r}")
    return e.astype(np.int64)


def cable_length(model, eyelets, u):
    r"""Length ``ell(u) = sum_k |x_{k+1} - x_k|`` of a cable threaded through mesh nodes.

    ``x = X + u`` at the eyelet nodes (frictionless, straight between them): the FEM
    counterpart of :func:`tendon_length`.  At ``u = 0`` its gradient is minus
    :func:`lib.fem.cable_row`.

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 2, "T3", slenderness=4.0)
    >>> top = [2, 5, 8, 11, 14]                      # nodes on y = +0.5, x = 0..4
    >>> cable_length(m, top, np.zeros(m.n_dofs))
    4.0
    """
    e = _check_eyelets(model, eyelets)
    x = model.mesh.nodes[e] + _check_u(model, u).reshape(-1, 2)[e]
    return float(np.hypot(*np.diff(x, axis=0).T).sum())


def _cable_segments(model, e, u):
    x = model.mesh.nodes[e] + u.reshape(-1, 2)[e]
    v = np.diff(x, axis=0)
    ln = np.hypot(v[:, 0], v[:, 1])
    if np.any(ln <= 0):
        raise ValueError("u makes two consecutive eyelets coincide")
    return v / ln[:, None], ln


def cable_gradient(model, eyelets, u):
    r"""``d ell / du`` (2 n_nodes,): ``u_{k-1} - u_k`` on eyelet k (unit segment directions).

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 2, "T3", slenderness=4.0)
    >>> g = cable_gradient(m, [2, 5, 8, 11, 14], np.zeros(m.n_dofs))
    >>> np.allclose(g, -fem.cable_row(m, [2, 5, 8, 11, 14]))
    True
    """
    e = _check_eyelets(model, eyelets)
    t, _ = _cable_segments(model, e, _check_u(model, u))
    F = np.zeros((e.size, 2))
    F[1:] += t
    F[:-1] -= t
    g = np.zeros((model.n_dofs // 2, 2))
    np.add.at(g, e, F)
    return g.ravel()


def cable_hessian(model, eyelets, u):
    r"""``d^2 ell / du^2`` (CSR, symmetric): blocks ``(I - t t^T) / l`` of each segment.

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(2, 1, "T3", slenderness=2.0)
    >>> H = cable_hessian(m, [1, 3, 5], np.zeros(m.n_dofs))
    >>> float(H[7, 7]), float(H[6, 6])     # transverse stiffness 1/l + 1/l; none along
    (2.0, 0.0)
    """
    e = _check_eyelets(model, eyelets)
    t, ln = _cable_segments(model, e, _check_u(model, u))
    Hb = (np.eye(2)[None] - t[:, :, None] * t[:, None, :]) / ln[:, None, None]
    blocks = np.concatenate([np.concatenate([Hb, -Hb], 2), np.concatenate([-Hb, Hb], 2)], 1)
    dof = np.concatenate([2 * e[:-1, None] + np.arange(2), 2 * e[1:, None] + np.arange(2)], 1)
    rr = np.broadcast_to(dof[:, :, None], blocks.shape).ravel()
    cc = np.broadcast_to(dof[:, None, :], blocks.shape).ravel()
    n = model.n_dofs
    H = sp.coo_matrix((blocks.ravel(), (rr, cc)), shape=(n, n)).tocsr()
    return (0.5 * (H + H.T)).tocsr()


def cable_static(model, cables, tensions, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Equilibria ``f_int(u) + sum_i tau_i d ell_i/du = 0`` of the FEM arm pulled by cables.

    The FEM counterpart of :func:`static_path`: the cables' potential
    ``sum_i tau_i ell_i(u)`` is added to the neo-Hookean energy, the tensions are raised in
    ``steps`` equal increments, and each increment is solved by Newton's method with the
    symmetric tangent ``K(u) + sum_i tau_i d^2 ell_i / du^2`` (sparse LU), halving a step that
    would invert an element.  Converged when ``|r|_inf <= tol max(tau)`` or at the
    round-off floor of the internal force.

    Parameters
    ----------
    model : lib.fem.Model
    cables : sequence of eyelet node lists (each ordered from the fixed end to the anchor)
    tensions : (m,) tensions >= 0

    Returns
    -------
    taus : (steps + 1, m); U : (steps + 1, 2 n_nodes)

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(10, 1, "T3")
    >>> top = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.5))     # y = +h/2, x = 0..L
    >>> taus, U = cable_static(m, [top], [1e-3], steps=2)
    >>> bool(fem.tip_deflection(m, U[-1]) > 0)       # a cable on top bends the arm up
    True
    """
    if not isinstance(model, _fem.Model):
        raise ValueError(f"model must be a lib.fem.Model, got {type(model).__name__}")
    cables = [_check_eyelets(model, c) for c in cables]
    tau1 = np.atleast_1d(np.asarray(tensions, dtype=float))
    if tau1.shape != (len(cables),) or not np.all(np.isfinite(tau1)) or np.any(tau1 < 0):
        raise ValueError(f"tensions must be one finite value >= 0 per cable, got {tensions!r}")
    steps = _count(steps, "steps")
    fr = model.free
    u = np.zeros(model.n_dofs) if u0 is None else _check_u(model, u0).copy()
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * float(node_scale.max())
    scale = max(float(tau1.max(initial=0.0)), np.finfo(float).tiny)
    taus = np.linspace(0.0, 1.0, steps + 1)[:, None] * tau1
    U = np.empty((steps + 1, model.n_dofs))
    U[0] = u
    for j in range(1, steps + 1):
        tau = taus[j]
        res = np.inf
        for it in range(maxiter + 1):
            r = _fem.gradient(model, u) + sum(ti * cable_gradient(model, c, u) for c, ti in zip(cables, tau))
            res = float(np.abs(r[fr]).max())
            if res <= max(tol * scale, floor):
                break
            if it == maxiter:
                raise ActuationSolveError(f"cable step {j}/{steps}: Newton did not converge in {maxiter} "
                                          f"iterations, residual {res:.3e} (target {tol * scale:.3e})")
            K = _fem.hessian(model, u)
            for c, ti in zip(cables, tau):
                if ti:
                    K = K + ti * cable_hessian(model, c, u)
            try:
                du = splu(sp.csc_matrix(K[fr][:, fr])).solve(r[fr])
            except RuntimeError as err:
                raise ActuationSolveError(f"cable step {j}/{steps}: singular tangent ({err})") from None
            u = _admissible_step(model, u, fr, du, f"cable step {j}/{steps}, iteration {it}",
                                 f"residual {res:.3e}")
        U[j] = u
    return taus, U
