r"""Actuation of soft arms: tendons on the rod, an open-face pressure on the FEM arm, inverse models.

Three actuators and the two questions asked of them ("what shape does this input
give?" and "what input gives this shape?").

Tendons on the discrete planar Cosserat rod (:mod:`lib.rod`, state and energy unchanged)
------------------------------------------------------------------------------------------
A frictionless tendon runs inside the rod at a signed offset ``d(s)`` along the section
normal ``n = (-sin phi, cos phi)`` (``d > 0``: the side the rod bends towards, counter-
clockwise).  It is threaded through eyelets fixed to the rod: the clamp section (angle 0)
at s = 0, by default the centre of every element e (angle ``phi_e``) up to the anchor, and
the anchor section at node ``k`` (``k = N``: the tip).  An eyelet may also sit at any
arc length s (the spacer disks of a disk-type robot): its centreline point is
interpolated along its element and its section angle linearly between element centres
(0 at the clamp, ``phi_{N-1}`` past the rod's last centre).  An interior anchor
(``k < N``) thus takes ``(phi_{k-1} + phi_k)/2``: the joint at node k spans half an
element on either side and carries half the tendon's moment, which keeps the anchor's
angle second order (holding ``phi_{k-1}`` there was first order).  Between eyelets the
tendon is straight, so its length is

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
2011, Armanini et al. 2023).  Through eyelets at the element centres the discrete rod
reproduces it to second order in 1/N; the leading error is the chords' lever arm about
each joint (a chord from centre to centre shortens by ``ell theta^2/8`` more as the
joint turns by theta, a softening ``tau ell/4`` of the joint), so
``kappa_N ~ (tau d/EI)/(1 - sum tau ell^2/(4 EI))``, independent of d, plus the sagitta
term ``-ell^2 kappa^2/8``: the relative error ``ell^2 kappa (1/(4d) - kappa/8)``.  The
same softening buckles the discrete rod at ``sum tau ~ 4 EI/ell^2`` (earlier on a shear-
soft section), which the continuum never does: :func:`static_path` and
:func:`static3d_path` refuse an equilibrium whose tangent is not positive definite.
Through fixed eyelets (disks) it converges, at second order, to the disk robot's own
shape.

A tendon in a continuous sheath (``make_tendon(..., sheath=True)``) has no chords: its
path is ``p(s) = c(s) + d(s) n(phi(s))``, ``p' = (nu_1 - d kappa) t + (nu_2 + d') n``
with the rod's stretch-shear ``(nu_1, nu_2)`` and curvature ``kappa``, and its length is

.. math::

    \ell_t = \int_0^{s_k} \sqrt{(\nu_1 - d\,\kappa)^2 + (\nu_2 + d')^2}\; ds ,

integrated over the discrete rod's own strain field: ``nu`` of element e on its two
halves, on each half element the curvature of the joint it lies in,
``kappa = (phi_e - phi_{e-1})/ell`` around node e (``2 phi_0 / ell`` in the clamp's half
element, 0 in the tip's half element, where no joint is), three Gauss points per half
element.  For constant ``d`` it gives the moment ``tau d`` at every joint below the
anchor and half of it at an interior anchor's joint (whose other half element carries
no tendon), so the curvature is ``tau d / EI`` and the angle past the anchor
``tau d s_k / EI`` at any N (to round-off).

An open-face follower pressure on the plane-strain FEM arm (:mod:`lib.fem`)
------------------------------------------------------------------------------
A pressure ``p`` on a run of boundary edges pushes along the *current* inward normal.
This is an external load on an open face, not a pneumatic chamber: a closed cavity is
self-equilibrated and has a symmetric load stiffness (see below); it is not modelled here.
With the boundary traversed counter-clockwise (body on the left), ``n ds = S dx`` with
``S = [[0, 1], [-1, 0]]``, and on an edge with nodes b and shape functions ``N_b(xi)``

.. math::

    f^{\text{ext}}_a(u) = -p \sum_b c_{ab}\, S\,(X_b + u_b),\qquad
    c_{ab} = \int_0^1 N_a N_b'\,d\xi,\qquad
    K_p = -\frac{\partial f^{\text{ext}}}{\partial u} = p\, C .

``K_p`` is constant in the plane (``n ds = S dx`` is linear in the positions; in 3-D the
area vector is a cross product and ``K_p`` depends on ``u``; linear and quadratic edges are
implemented) and *unsymmetric*: ``c_ab + c_ba = [N_a N_b]`` at the ends of the
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

Tendons as they are: capstan friction at the eyelets (stick-slip)
------------------------------------------------------------------
A tendon through eyelets (``sheath=False``) with Coulomb friction ``mu`` where it turns:
each segment j between eyelets j and j+1 carries its own tension ``tau_j`` (segment 0
leaves the clamp eyelet: ``tau_0 = tau_m``, the motor's), and the rod takes the
generalised force ``sum_j tau_j d l_j / dq`` (eyelet forces ``tau_{j-1} u_{j-1} - tau_j
u_j``).  At eyelet j the tendon turns by ``alpha_j`` (:func:`wrap_angles`) and friction
allows, by the Euler-Eytelwein (capstan) law applied to that turn,

.. math:: \tau_{j-1} e^{-\mu\alpha_j} \le \tau_j \le \tau_{j-1} e^{\mu\alpha_j},

with equality where the cable slides (pulled in by the motor: lower edge, so the
tension decays as ``tau_m e^{-mu theta}`` over the accumulated wrap ``theta``; paid
out: upper edge).  Assumptions of the model: a rigid (inextensible) cable, so a segment
inside the band does not move and keeps its tension (stick); quasi-static steps of the
motor tension; the friction acts at the eyelets only (no distributed sheath contact
between them; the turning angles converge to the continuous wrap as the eyelets get
dense); no friction where the tendon leaves the base (a straight sheath there); the
tension at a motor tension of zero is zero everywhere (no pre-tension).  Each step is
the fixed point of "rod at frozen segment tensions" (Newton on the conservative
``Pi_rod + sum_j tau_j l_j``) and "tensions clipped into the band at the new wrap
angles" (:func:`friction_static`, :func:`friction_sweep`).  The tendon-sheath
literature models the same band with the cable's elasticity added (Wang, Sun and Phee
2013); here the cable is rigid.

3-D routing: tendons on the 3-D rod (:mod:`lib.rod3d`)
-----------------------------------------------------
A tendon on the 3-D rod (:func:`make_tendon3d`) runs through eyelets at arc lengths
``s_j`` with offsets ``r_j = (0, d2_j, d3_j)`` in the section frame (straight, turning
about the centreline at a rate ``omega`` -- a helix of pitch ``2 pi / omega`` -- or
given eyelet by eyelet):

.. math::

    \ell_t = \sum_j \lvert p_{j+1} - p_j\rvert,\qquad p_j = c(s_j) + R(s_j)\, r_j,\qquad
    R(s_j) = R_a \exp\bigl(\eta_j\, \widehat{\log(R_a^{\top} R_b)}\bigr),

the section frame interpolated along the geodesic between the element centres around
``s_j`` (the planar eyelets' linear angle interpolation, so an in-plane tendon on a
planar state is :func:`make_tendon`'s).  Its gradient and Hessian are taken, as in
:mod:`lib.rod3d`, with respect to the increments ``[psi_e, dx_{e+1}]`` at zero
(``R_e exp(hat psi_e)``, ``x + dx``), in closed form through Rodrigues' formula and the
log map's Jacobians (:func:`tendon3d_gradient`, :func:`tendon3d_hessian`).  The
equilibrium (:func:`static3d`, :func:`static3d_path`) is :func:`lib.rod3d.static` with
``sum_i tau_i ell_i`` in its ``extra`` hook (Rucker and Webster 2011 for general
routing on Cosserat rods).

Pneumatic chambers on the rod: a sheath tendon under ``-p A_c``
---------------------------------------------------------------
A chamber of area ``A_c`` at the section offset ``d_c`` between the sections at nodes a
and b (:func:`make_rod_chamber`), with walls inextensible across the rod, is a prism on
its offset line: ``V_c(q) = A_c (l_b(q) - l_a(q))`` with ``l_k`` the sheath length to
node k.  A gauge pressure p adds the potential ``-p V_c``, which is
``(-p A_c) l_b + (p A_c) l_a``: the chamber *is* the sheath tendon under the (compressive)
tension ``-p A_c``, and its force, stiffness, statics (:func:`chamber_static`) and tip
sensitivity (:func:`pressure_jacobian`) are the tendons'.  A uniform chamber gives
``kappa = -p A_c d_c / EI`` (it bends away from the chamber) and the extension
``p A_c / EA``; a negative p is a vacuum.  The chamber's walls are in the section's EI
and EA.  :func:`calibrate_chamber_rod` takes EI, EA and the moment arm from the FEM arm of
:mod:`lib.pneumatic`; :func:`chamber_rod_stroke_error` and
:func:`chamber_rod_slenderness_error` say where the rod stops agreeing with it.
In :func:`inverse`, ``chambers=`` adds their pressures (box ``[pressure_min,
pressure_max]``, vacuum allowed) to the tensions as decision variables.

Array layouts
-------------
rod state ``q``: (3N,) ``[phi_e, x_{e+1}, y_{e+1}]`` as in :mod:`lib.rod`.
3-D rod state: :class:`lib.rod3d.State` ``(x (N, 3), Q (N, 4))``; its gradients (6N,) in
the layout ``[psi_e, dx_{e+1}]`` per element.
tensions: (m,) one per tendon, in the order of the ``tendons`` sequence.
pressures: (n_c,) one per chamber (any sign), in the order of the ``chambers`` sequence.
FEM displacement ``u``: (2 n_nodes,) interleaved ``u_x, u_y`` as in :mod:`lib.fem`.

References
----------
Rucker and Webster (2011), IEEE T-RO 27(6) (tendon routing on Cosserat rods);
Duriez (2013), ICRA (real-time FEM control of soft robots);
Coevoet et al. (2017), Advanced Robotics 31(22) (SOFA SoftRobots, inverse QP);
Armanini et al. (2023), IEEE T-RO 39(3);
Eytelwein (1808), Handbuch der Statik fester Körper (the capstan / belt-friction law
``T_1 = T_0 e^{mu theta}``, after Euler);
Wang, Sun and Phee (2013), Robotica, doi:10.1017/S0263574713000386 (tendon-sheath
friction and hysteresis for robot control); Arnold and Brüls (2007) / Chung and Hulbert
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

import functools
import math
import weakref
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.linalg import null_space

from . import fem as _fem
from . import integrate as _integrate
from . import rod as _rod
from . import rod3d as _rod3d
from .core import checks
from .core import so3 as _so3
from .core.errors import SolveError
from .core.linalg import factor, require_positive_definite
from .kernels.banded import SymmetricBanded
from .fe import cavity as _cavity
from .fe import roundoff_floor
from .solvers import load_path, newton_solve
from .solvers.saddle import qp_solve

__all__ = [
    # tendons on the rod
    "Tendon", "make_tendon", "eyelets", "tendon_length", "tendon_gradient", "tendon_hessian",
    "energy", "gradient", "hessian", "static", "static_path", "arc_tip",
    "tension_jacobian", "ActuationSolveError",
    # inverse model
    "InverseResult", "inverse", "qp_solve",
    # an open-face follower pressure on the FEM arm
    "Chamber", "make_chamber", "pressure_force", "pressure_stiffness", "pressure_residual",
    "pressure_static", "newton_history",
    # dynamics
    "ramp_response",
    # the same tendon on the FEM arm
    "cable_length", "cable_gradient", "cable_hessian", "cable_static",
    # tendons as they are: capstan friction with stick-slip
    "wrap_angles", "capstan_tensions", "friction_static", "friction_sweep",
    # displacement-controlled cables: slack complementarity, series spring
    "CableResult", "cable_stroke_static",
    # 3-D routing on the 3-D rod
    "Tendon3D", "make_tendon3d", "eyelets3d", "tendon3d_length", "tendon3d_gradient",
    "tendon3d_hessian", "static3d", "static3d_path",
    # rod-level pneumatic chambers (a sheath tendon under -p A_c), calibrated on the FEM arm
    "RodChamber", "make_rod_chamber", "chamber_volume", "chamber_energy", "chamber_gradient",
    "chamber_hessian", "chamber_static", "chamber_static_path", "pressure_jacobian",
    "ChamberFit", "calibrate_chamber_rod", "ChamberRodError", "chamber_rod_stroke_error",
    "pneunet_cavities", "chamber_rod_slenderness_error",
]

_TINY = np.finfo(float).tiny
_MIN_GAP = 1e-9             # smallest eyelet gap / ell (eyelets are snapped within 5e-10 ell)
_MAX_CAPSTAN = 700.0        # largest mu theta with e^(mu theta) finite (709.78), rounded down
_MAX_TARGET = 1e9           # largest |target entry| / L of inverse (1e15 failed in DAQP)
_MAX_BOUND = 1e100          # largest |pressure bound| of inverse (its rounds square the box)


class ActuationSolveError(SolveError):
    """A Newton or inverse iteration did not converge; the message says where it stopped."""


def _solve_errors(func):
    """``func`` raising the floors' SolveError as an ActuationSolveError (same attributes)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except SolveError as err:
            raise err.recast(ActuationSolveError) from err
    return wrapper


#: reasons of a Newton that stalled on a load increment (not a bad model or input)
_STALLED = ("maxiter", "line search", "diverged", "inadmissible")


def _stall_hint(func):
    """``func`` (raising ActuationSolveError) with a hint added where Newton stalled on an
    increment: smaller increments (``steps``) or more iterations (``maxiter``) usually get
    through (a slender rod, ``r_over_L = 0.002``, at a large curvature needs them)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ActuationSolveError as err:
            if err.reason in _STALLED and "raise steps" not in (err.detail or ""):
                hint = ("Newton stalled on a load increment: raise steps (smaller increments) "
                        "or maxiter (more iterations per increment)")
                err.detail = f"{err.detail}; {hint}" if err.detail else hint
            raise
    return wrapper


def _check_rod(rod):
    return checks.kind(rod, "rod", _rod.Rod, "a planar rod (lib.rod.Rod, made by lib.rod.make_rod)")


def _check_model(model):
    return checks.kind(model, "model", _fem.Model,
                       "an FEM model (lib.fem.Model, made by lib.fem.make_model or cantilever)")


def _check_q(rod, q, name="q"):
    return checks.vector(q, name, rod.ndof)


def _check_u(model, u, name="u"):
    return checks.vector(u, name, model.n_dofs)


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
    s : (M,) arc length of the eyelets, clamp first and anchor last (M = k + 2 for the
        default eyelets at the element centres).  For a sheath these are the points
        ``s = 0, ell/2, ell, ..., k ell`` on its path, for drawing only.
    d : (M,) offset at the eyelets.
    elem : (M,) first element whose angle orients each eyelet (-1: the clamp, angle 0).
    elem_b : (M,) second element (-1: none); the eyelet's section angle is
        ``angle_weights[:, 0] phi_elem + angle_weights[:, 1] phi_elem_b``.
    angle_weights : (M, 2) those weights, ``(1 - eta, eta)`` with ``eta = 2 s/ell`` below
        the first centre (``elem`` the clamp), ``s/ell - (i + 1/2)`` between the centres
        of elements i and i + 1 (1/2 at an interior anchor node), ``(1, 0)`` at an element
        centre and past the rod's last centre (``phi_{N-1}``); an eyelet within
        ``5e-10 ell`` of a centre or a node is moved onto it.
    nodes : (M, 2) the one or two nodes whose weighted sum (``weights``) is the eyelet's
        centreline point (node 0 is the clamp at the origin).
    weights : (M, 2) their weights.
    sheath : bool
        False: straight between eyelets (chords).  True: a continuous sheath, the length
        the integral of the module docstring's sheath integrand.
    L, radius : float
        Length and section radius ``r = r_over_L L`` of the rod it was made for (the
        eyelets' arc lengths and offsets are only valid on such a rod).
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
    _cols: np.ndarray = field(repr=False)
    elem_b: np.ndarray = None
    angle_weights: np.ndarray = None
    sheath: bool = False
    _half: dict = field(default=None, repr=False)
    L: float = None
    radius: float = None

    @property
    def n_eyelets(self) -> int:
        return self.s.size


def _offset(rod, value, name):
    """A tendon offset inside the section, ``|d| <= r = r_over_L L``."""
    r = rod.r_over_L * rod.L
    return checks.real(value, name, -r * (1 + 1e-12), r * (1 + 1e-12))


def _eyelet_arrays(ell, k, s_inner, N):
    """Centreline nodes/weights and section angles/weights of eyelets at the clamp, at the
    arc lengths ``s_inner`` (strictly inside (0, k ell)) and at the anchor node k of a rod
    of N elements.

    The centreline point is interpolated along the element (nodes e, e+1); the section
    angle linearly between element centres, ``eta = 2 s/ell`` from the clamp (angle 0) to
    centre 0, ``eta = s/ell - (i + 1/2)`` between centres i and i + 1, held at
    ``phi_{N-1}`` past the rod's last centre.  An interior anchor (k < N) therefore takes
    the mean ``(phi_{k-1} + phi_k)/2``, the section at node k whose joint spans half an
    element on either side of the anchor and so carries half the tendon's moment (the
    continuum's moment jumps there); a tip anchor takes ``phi_{N-1}`` (no joint at the
    tip).  At an element centre this is that element's node mean and angle; an eyelet
    within ``5e-10 ell`` of a centre or a node is moved onto it."""
    s_inner = np.asarray(s_inner, dtype=float)
    x = s_inner / ell
    x = np.where(np.abs(2 * x - np.round(2 * x)) < 1e-9, np.round(2 * x) / 2, x)   # snap to
    e = np.minimum(np.floor(x), k - 1).astype(np.int64)       # nodes and centres exactly
    xi = x - e
    xa = np.concatenate([x, [float(k)]])                       # the angles: inner and anchor
    i = np.floor(xa - 0.5).astype(np.int64)                    # centre i <= s < centre i + 1
    eta = np.where(i < 0, 2 * xa, xa - 0.5 - i)
    beyond = i >= N - 1
    ea = np.where(beyond, N - 1, i)
    eb = np.where(beyond, -1, i + 1)
    wa = np.where(beyond, 1.0, 1.0 - eta)
    wb = np.where(beyond, 0.0, eta)
    at_centre = ~beyond & (eta == 0.0)
    eb = np.where(at_centre, -1, eb)
    ea = np.where(ea < 0, -1, ea)
    s = np.concatenate([[0.0], s_inner, [k * ell]])
    nodes = np.concatenate([[[0, 0]], np.column_stack([e, e + 1]), [[k, k]]]).astype(np.int64)
    weights = np.concatenate([[[0.0, 0.0]], np.column_stack([1.0 - xi, xi]), [[0.5, 0.5]]])
    elem = np.concatenate([[-1], ea]).astype(np.int64)
    elem_b = np.concatenate([[-1], eb]).astype(np.int64)
    aw = np.concatenate([[[1.0, 0.0]], np.column_stack([wa, wb])])
    return s, nodes, weights, elem, elem_b, aw


def _sheath_halves(ell, k, N):
    """The 2k half elements of a sheath to node k of a rod of N elements: element, start s,
    the two angles of the curvature ``kappa = kf (phi_hi - phi_lo)`` that acts on it (-1:
    the clamp angle 0).

    Each half element takes the curvature of the joint it lies in (joint j at node j spans
    half an element on either side), so the half before an interior anchor (k < N) carries
    joint k's curvature and the joint gets half the tendon's moment (the half after it
    carries no tendon); only the tip's half element, where no joint is, has none."""
    h = np.arange(2 * k)
    e = h // 2
    first = h % 2 == 0
    lo = np.where(first, e - 1, e)                 # first half: joint e-1 | e (clamp: -1 | 0)
    hi = np.where(first, e, e + 1)
    kf = np.where(first & (e == 0), 2.0 / ell, 1.0 / ell)
    last = ~first & (e == N - 1)                   # past the rod's last centre: no joint
    lo, hi, kf = np.where(last, -1, lo), np.where(last, -1, hi), np.where(last, 0.0, kf)
    # columns of the local variables (x_e, y_e, x_e+1, y_e+1, phi_e, phi_lo, phi_hi); -1: none
    cols = np.column_stack([3 * e - 2, 3 * e - 1, 3 * e + 1, 3 * e + 2, 3 * e, 3 * lo, 3 * hi])
    cols[:, :2][e == 0] = -1
    cols[:, 5][lo < 0] = -1
    cols[:, 6][hi < 0] = -1
    g, w = np.polynomial.legendre.leggauss(3)
    sg = (h * 0.5 * ell)[:, None] + 0.25 * ell * (1 + g)[None, :]      # (2k, 3) Gauss points
    half = dict(e=e, lo=lo, hi=hi, kf=kf, cols=cols, sg=sg, wg=0.25 * ell * w)
    for a in half.values():
        a.setflags(write=False)
    return half


def _inner_eyelets(eyelets, k, ell):
    """The eyelets' arc lengths strictly inside ``(0, k ell)``, strictly increasing
    (default None: the element centres, ``(e + 1/2) ell`` for e < k)."""
    if eyelets is None:
        return (np.arange(k) + 0.5) * ell
    s_inner = checks.vector(eyelets, "eyelets", low=0.0, high=k * ell,
                            include_low=False, include_high=False)
    if s_inner.size and np.any(np.diff(s_inner) <= 0):
        raise ValueError(f"eyelets must be strictly increasing arc lengths, got "
                         f"{checks.show(eyelets)}")
    # an eyelet within 5e-10 ell of a centre or a node is moved onto it: two closer than
    # 1e-9 ell (or one that close to the clamp or the anchor) can land on one point
    gaps = np.diff(np.concatenate([[0.0], s_inner, [k * ell]]))
    if s_inner.size and np.any(gaps <= _MIN_GAP * ell):
        i = int(np.argmax(gaps <= _MIN_GAP * ell))
        raise ValueError(f"eyelets must be more than {_MIN_GAP:g} ell = {_MIN_GAP * ell:.3g} "
                         f"apart and from the clamp and the anchor (closer ones coincide), got "
                         f"a gap of {gaps[i]:.3g} in {checks.show(eyelets)}")
    return s_inner


def make_tendon(rod, offset, anchor=None, offset_end=None, eyelets=None, sheath=False):
    r"""A tendon at offset ``d(s)`` from the centreline of ``rod``, anchored at node ``anchor``.

    .. math:: d(s) = d_0 + (d_1 - d_0)\, s / L ,

    ``d_0 = offset``, ``d_1 = offset_end`` (default: ``offset``, a straight tendon).
    By default eyelets sit at s = 0 (clamp), at every element centre ``(e + 1/2) ell``
    below the anchor and at the anchor ``s = k ell`` (see the module docstring), so the
    chords between them shrink with the mesh.  ``eyelets`` puts them at any arc lengths
    instead (spacer disks of a disk-type robot, independent of the mesh), and
    ``sheath=True`` makes the tendon run in a continuous sheath (no chords), whose length
    gives the curvature ``tau d / EI`` at any N.

    Parameters
    ----------
    rod : lib.rod.Rod
    offset : float
        d at the clamp; must satisfy |d| <= r = r_over_L L (inside the section).
    anchor : int, optional
        Node 1..N where the tendon is tied (default N, the tip).
    offset_end : float, optional
        d at s = L (the taper is evaluated up to the anchor only); |d| <= r.
    eyelets : sequence of float, optional
        Arc lengths of the eyelets between the clamp and the anchor, strictly increasing
        and strictly inside ``(0, anchor ell)`` (the clamp and anchor eyelets are always
        there).  Default: the element centres.  An eyelet takes the centreline point at
        its arc length and the section angle interpolated between element centres.
    sheath : bool
        A continuous sheath instead of eyelets (then ``eyelets`` must be None).

    Returns
    -------
    Tendon

    Raises
    ------
    ValueError
        ``offset`` / ``offset_end`` not finite or outside the section, ``anchor`` not a
        node in 1..N, ``eyelets`` not increasing (gaps above ``1e-9 ell``) or outside
        ``(0, anchor ell)``, or given with ``sheath``.

    Examples
    --------
    >>> from lib import rod as rd
    >>> t = make_tendon(rd.make_rod(4), 0.02, anchor=2)
    >>> t.s.tolist(), t.elem.tolist()
    ([0.0, 0.125, 0.375, 0.5], [-1, 0, 1, 1])
    >>> make_tendon(rd.make_rod(4), 0.02, eyelets=[0.5]).s.tolist()      # one disk, mid-span
    [0.0, 0.5, 1.0]
    """
    N, L = _check_rod(rod).N, rod.L
    d0 = _offset(rod, offset, "offset")
    d1 = d0 if offset_end is None else _offset(rod, offset_end, "offset_end")
    k = N if anchor is None else checks.integer(anchor, "anchor", 1, N)
    sheath = checks.boolean(sheath, "sheath")
    ell = rod.ell
    half = None
    if sheath:
        if eyelets is not None:
            raise ValueError("eyelets must be None for a sheath (it has no eyelets), got "
                             f"{checks.show(eyelets)}")
        half = _sheath_halves(ell, k, N)
        s_inner = 0.5 * ell * np.arange(1, 2 * k)
    else:
        s_inner = _inner_eyelets(eyelets, k, ell)
    s, nodes, weights, elem, elem_b, aw = _eyelet_arrays(ell, k, s_inner, N)
    if not sheath and eyelets is None:
        s[1:-1] = s_inner                   # the centres' arc lengths as computed above
    d = d0 + (d1 - d0) * s / L
    # columns of dp_j/dq: x, y of the two nodes (node i >= 1 -> 3(i-1)+1, 3(i-1)+2), the
    # first angle twice (for the x and y parts of dp/dphi), the second angle twice; -1: none
    cols = np.column_stack([3 * nodes[:, :1] - 2, 3 * nodes[:, :1] - 1, 3 * nodes[:, 1:] - 2,
                            3 * nodes[:, 1:] - 1, 3 * elem, 3 * elem, 3 * elem_b, 3 * elem_b])
    cols[np.column_stack([np.repeat(nodes < 1, 2, axis=1), elem < 0, elem < 0,
                          elem_b < 0, elem_b < 0])] = -1
    for a in (s, d, elem, elem_b, aw, nodes, weights, cols):
        a.setflags(write=False)
    return Tendon(N=N, offset=d0, offset_end=d1, anchor=k, s=s, d=d, elem=elem, nodes=nodes,
                  weights=weights, _cols=cols, elem_b=elem_b, angle_weights=aw, sheath=sheath,
                  _half=half, L=float(L), radius=float(rod.r_over_L * L))


def _check_tendon(rod, tendon, name="tendon"):
    """The rod and a tendon made for it; returns ``rod``."""
    checks.kind(tendon, name, Tendon, "a Tendon (made by make_tendon)")
    if tendon.N != _check_rod(rod).N:
        raise ValueError(f"{name} was made for a rod of N = {tendon.N} elements, rod has "
                         f"N = {rod.N}")
    _same_geometry(tendon, rod.L, rod.r_over_L * rod.L, name)
    return rod


def _same_geometry(tendon, L, radius, name):
    """A tendon made for a rod of this length and section radius (its eyelets' arc
    lengths, helix phases and offsets are those of the rod it was made for)."""
    if not (math.isclose(tendon.L, L, rel_tol=1e-12)
            and math.isclose(tendon.radius, radius, rel_tol=1e-12)):
        raise ValueError(f"{name} was made for a rod of L = {tendon.L:.6g}, radius "
                         f"{tendon.radius:.6g}; rod has L = {L:.6g}, radius {radius:.6g} (its "
                         "eyelets' arc lengths and offsets would not fit): make it on this rod")


def _frames(rod, tendon, q):
    """Eyelet positions p (M, 2), their section tangents t (M, 2) and normals n (M, 2)."""
    X = np.zeros((rod.N + 1, 2))
    X[1:] = q.reshape(-1, 3)[:, 1:]
    ph = np.concatenate([[0.0], q[0::3]])
    aw = tendon.angle_weights
    phi = ph[tendon.elem + 1]
    if np.any(aw[:, 1]):
        phi = aw[:, 0] * phi + aw[:, 1] * ph[tendon.elem_b + 1]
    c, s = np.cos(phi), np.sin(phi)
    t = np.empty((phi.size, 2))
    t[:, 0], t[:, 1] = c, s
    n = np.empty_like(t)
    n[:, 0], n[:, 1] = -s, c
    w = tendon.weights
    p = w[:, :1] * X[tendon.nodes[:, 0]] + w[:, 1:] * X[tendon.nodes[:, 1]] + tendon.d[:, None] * n
    return p, t, n


def eyelets(rod, tendon, q):
    """Eyelet positions of ``tendon`` in state ``q``, shape (M, 2), clamp first (for a
    sheath: points of its path at every half element).

    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> eyelets(r, make_tendon(r, 0.01), rd.straight(r)).round(3).tolist()
    [[0.0, 0.01], [0.25, 0.01], [0.75, 0.01], [1.0, 0.01]]
    """
    return _frames(rod, tendon, _check_q(_check_tendon(rod, tendon), q))[0]


_SEGMENTS = weakref.WeakKeyDictionary()


def _segments(rod, tendon, q):
    """``(p, t, n, v, ln, u)``: eyelets, their frames, the segments, their lengths and unit
    directions (read-only; the last state's are kept per tendon, since the length, its
    gradient and its Hessian are asked for at the same state in turn)."""
    key = q.tobytes()
    last = _SEGMENTS.get(tendon)
    if last is not None and last[0] == key:
        return last[1]
    p, t, n = _frames(rod, tendon, q)
    v = np.diff(p, axis=0)
    ln = np.hypot(v[:, 0], v[:, 1])
    if np.any(ln <= 0):
        raise ValueError("q makes two consecutive eyelets coincide (tendon length not differentiable)")
    out = (p, t, n, v, ln, v / ln[:, None])
    for a in out:
        a.setflags(write=False)
    _SEGMENTS[tendon] = (key, out)
    return out


def _sheath(rod, tendon, q):
    """The sheath integrand at its Gauss points: ``(half, t, n, nu1, nu2, dg, dp, v1, v2, g)``
    (module docstring: ``v = (nu1 - d kappa, nu2 + d')``, ``g = |v|``; read-only, the last
    state's kept per tendon as in :func:`_segments`)."""
    key = q.tobytes()
    last = _SEGMENTS.get(tendon)
    if last is not None and last[0] == key:
        return last[1]
    out = _sheath_eval(rod, tendon, q)
    for a in out[1:]:
        if a.flags.writeable:
            a.setflags(write=False)
    _SEGMENTS[tendon] = (key, out)
    return out


def _sheath_eval(rod, tendon, q):
    hf = tendon._half
    X = np.zeros((rod.N + 1, 2))
    X[1:, 0] = q[1::3]
    X[1:, 1] = q[2::3]
    ph = np.concatenate([[0.0], q[0::3]])
    e = hf["e"]
    a = (X[e + 1] - X[e]) / rod.ell                          # (2k, 2) stretched tangent
    phi = ph[e + 1]
    t = np.column_stack([np.cos(phi), np.sin(phi)])
    n = np.column_stack([-t[:, 1], t[:, 0]])
    nu1, nu2 = np.einsum("ij,ij->i", a, t), np.einsum("ij,ij->i", a, n)
    kappa = hf["kf"] * (ph[hf["hi"] + 1] - ph[hf["lo"] + 1])
    dp = (tendon.offset_end - tendon.offset) / rod.L
    dg = tendon.offset + dp * hf["sg"]                        # (2k, 3) offsets at the Gauss points
    v1 = nu1[:, None] - dg * kappa[:, None]
    v2 = np.broadcast_to((nu2 + dp)[:, None], v1.shape)
    g = np.hypot(v1, v2)
    if np.any(g <= 0):
        raise ValueError("q folds the sheath onto itself (tendon length not differentiable)")
    return hf, t, n, nu1, nu2, dg, v1, v2, g


def _sheath_B(rod, hf):
    """(2k, 4, 7): the local variables (a_x, a_y, phi_e, kappa) from the columns of ``_half``."""
    H = hf["e"].size
    B = np.zeros((H, 4, 7))
    B[:, 0, 0], B[:, 0, 2] = -1.0 / rod.ell, 1.0 / rod.ell
    B[:, 1, 1], B[:, 1, 3] = -1.0 / rod.ell, 1.0 / rod.ell
    B[:, 2, 4] = 1.0
    B[:, 3, 5], B[:, 3, 6] = -hf["kf"], hf["kf"]
    return B


def _sheath_gradient(rod, tendon, q):
    hf, t, n, nu1, nu2, dg, v1, v2, g = _sheath(rod, tendon, q)
    u1, u2 = v1 / g, v2 / g
    w = hf["wg"]
    Gz = np.column_stack([(u1 @ w)[:, None] * t + (u2 @ w)[:, None] * n,   # d/da
                          (u1 * nu2[:, None] - u2 * nu1[:, None]) @ w,       # d/dphi_e
                          -(dg * u1) @ w])                                   # d/dkappa
    val = np.einsum("hz,hzc->hc", Gz, _sheath_B(rod, hf))
    cols = hf["cols"]
    keep = cols >= 0
    return np.bincount(cols[keep], weights=val[keep], minlength=rod.ndof)


def _sheath_hessian(rod, tendon, q, symmetrise=True):
    hf, t, n, nu1, nu2, dg, v1, v2, g = _sheath(rod, tendon, q)
    u1, u2 = v1 / g, v2 / g
    H, G = v1.shape
    J = np.zeros((H, G, 2, 4))                    # dv/dz, z = (a_x, a_y, phi_e, kappa)
    J[:, :, 0, :2] = t[:, None, :]
    J[:, :, 0, 2] = nu2[:, None]
    J[:, :, 0, 3] = -dg
    J[:, :, 1, :2] = n[:, None, :]
    J[:, :, 1, 2] = -nu1[:, None]
    u = np.stack([u1, u2], axis=-1)
    P = (np.eye(2) - u[..., :, None] * u[..., None, :]) / g[..., None, None]
    Hz = np.swapaxes(J, -1, -2) @ (P @ J)        # J^T P J per Gauss point
    cross = u1[..., None] * n[:, None, :] - u2[..., None] * t[:, None, :]    # d2g/da dphi
    Hz[:, :, :2, 2] += cross
    Hz[:, :, 2, :2] += cross
    Hz[:, :, 2, 2] -= u1 * nu1[:, None] + u2 * nu2[:, None]
    Hz = (hf["wg"] @ Hz.reshape(H, G, 16)).reshape(H, 4, 4)
    B = _sheath_B(rod, hf)
    He = np.swapaxes(B, 1, 2) @ (Hz @ B)         # (2k, 7, 7)
    pat = _sheath_pattern(rod, tendon)
    raw = np.bincount(pat["slot"], weights=He[pat["keep"]], minlength=pat["indices"].size)
    return _pattern_matrix(rod, pat, raw, symmetrise)


def _pattern_matrix(rod, pat, raw, symmetrise):
    """The CSR matrix on a tendon's pattern from the triplets summed into its slots
    (``symmetrise``: each entry averaged with its transpose)."""
    data = 0.5 * (raw + raw[pat["tperm"]]) if symmetrise else raw
    nn = rod.ndof
    return sp.csr_matrix((data, pat["indices"], pat["indptr"]), shape=(nn, nn))


def _csr_pattern(rows, cols, nn):
    """The CSR pattern of the triplets ``(rows, cols)`` united with their transposes: each
    triplet's slot in it, each slot's transposed slot, ``indices`` and ``indptr``."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    key = rows * nn + cols
    union = np.unique(np.concatenate([key, cols * nn + rows]))
    ur, uc = union // nn, union % nn
    return {"slot": np.searchsorted(union, key), "tperm": np.searchsorted(union, uc * nn + ur),
            "indices": uc.astype(np.int32),
            "indptr": np.searchsorted(ur, np.arange(nn + 1)).astype(np.int32)}


def _sheath_pattern(rod, tendon):
    """The fixed sparsity of a sheath's Hessian (cached per tendon), as :func:`_csr_pattern`."""
    pat = _PATTERNS.get(tendon)
    if pat is None:
        cols = tendon._half["cols"]
        rr = np.broadcast_to(cols[:, :, None], cols.shape + (cols.shape[1],))
        cc = np.broadcast_to(cols[:, None, :], rr.shape)
        keep = (rr >= 0) & (cc >= 0)
        pat = dict(_csr_pattern(rr[keep], cc[keep], rod.ndof), keep=keep)
        _PATTERNS[tendon] = pat
    return pat


def tendon_length(rod, tendon, q):
    r"""Tendon length: ``sum_j |p_{j+1} - p_j|`` through eyelets, or the sheath integral
    (module docstring).

    For a straight rod and a straight tendon it is the anchor's arc length; bending
    towards the tendon shortens it by about ``d`` times the angle turned.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> round(tendon_length(r, make_tendon(r, 0.02, anchor=5), rd.straight(r)), 12)
    0.5
    >>> round(tendon_length(r, make_tendon(r, 0.02, anchor=5, sheath=True), rd.straight(r)), 12)
    0.5
    """
    return _length(rod, tendon, _check_q(_check_tendon(rod, tendon), q))


def _length(rod, tendon, q):
    if tendon.sheath:
        _, _, _, _, _, _, _, _, g = _sheath(rod, tendon, q)
        return float((g @ tendon._half["wg"]).sum())
    return float(_segments(rod, tendon, q)[4].sum())


def tendon_gradient(rod, tendon, q):
    r"""``d ell_t / dq``, shape (3N,), in closed form.

    Through eyelets: with unit segment directions ``u_j``, the eyelet "force"
    ``F_j = u_{j-1} - u_j`` (``dl/dp_j``) is scattered through ``dp_j/dx_node = w I``
    and ``dp_j/dphi = -d_j w_phi t(phi)``.  In a sheath: ``dg/dz`` of the integrand at
    each Gauss point, ``z = (a, phi_e, kappa)``, pulled back to the nodes and angles.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> tendon_gradient(r, make_tendon(r, 0.01), rd.straight(r)).round(6).tolist()
    [0.0, 0.0, 0.0, -0.01, 1.0, 0.0]
    >>> tendon_gradient(r, make_tendon(r, 0.01, sheath=True), rd.straight(r)).round(6).tolist()
    [0.0, 0.0, 0.0, -0.01, 1.0, 0.0]
    """
    return _tendon_gradient(rod, tendon, _check_q(_check_tendon(rod, tendon), q))


def _tendon_gradient(rod, tendon, q, seg=None):
    """``seg``: per-segment tensions (M-1,), the gradient of ``sum_j seg_j l_j`` (eyelets only)."""
    if tendon.sheath:
        return _sheath_gradient(rod, tendon, q)
    p, t, n, v, ln, u = _segments(rod, tendon, q)
    if seg is not None:
        u = seg[:, None] * u
    F = np.zeros_like(p)
    F[1:] += u
    F[:-1] -= u
    w = tendon.weights           # dp/dx_node = w I, dp/dphi = -d w_phi t: the terms of (dp/dq)^T F
    aw = tendon.angle_weights
    dtF = -tendon.d[:, None] * t * F
    val = np.concatenate([w[:, :1] * F, w[:, 1:] * F, aw[:, :1] * dtF, aw[:, 1:] * dtF], axis=1).T
    keep = tendon._cols.T >= 0
    return np.bincount(tendon._cols.T[keep], weights=val[keep], minlength=rod.ndof)


def tendon_hessian(rod, tendon, q, symmetrise=True):
    r"""``d^2 ell_t / dq^2`` as a symmetric CSR matrix, in closed form.

    The element blocks are symmetric, but their duplicates are summed in different
    orders, so the result is returned as ``(H + H^T)/2``; ``symmetrise=False`` returns
    the assembly as it is, whose symmetry (to round-off) is then a check that can fail.

    Through eyelets:

    .. math::
        \frac{\partial^2\ell_t}{\partial q^2} = \sum_j G_j^{\top}\,
        \frac{I - u_j u_j^{\top}}{l_j}\, G_j
        + \sum_j \bigl(F_j\cdot(-d_j\, n_j)\bigr)\, w_j w_j^{\top},

    ``G_j = dp_{j+1}/dq - dp_j/dq`` (segment Jacobian), ``F_j`` as in
    :func:`tendon_gradient`, ``d^2 p_j / dphi^2 = -d_j n`` and ``w_j`` the angle weights
    of eyelet j on the angle columns.  In a sheath:
    ``J^T (I - u u^T) J / g + u . d^2 v/dz^2`` per Gauss point, pulled back.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(3)
    >>> H = tendon_hessian(r, make_tendon(r, 0.01), rd.straight(r))
    >>> H.shape, float(abs(H - H.T).max())
    ((9, 9), 0.0)
    """
    return _tendon_hessian(rod, tendon, _check_q(_check_tendon(rod, tendon), q),
                           checks.boolean(symmetrise, "symmetrise"))


def _tendon_hessian(rod, tendon, q, symmetrise=True, seg=None):
    """The Hessian of :func:`tendon_hessian`; ``symmetrise=False`` returns the assembly as
    it is (element blocks summed in COO order), for testing its symmetry.  ``seg``:
    per-segment tensions (M-1,), the Hessian of ``sum_j seg_j l_j`` (eyelets only)."""
    if tendon.sheath:
        return _sheath_hessian(rod, tendon, q, symmetrise)
    p, t, n, v, ln, u = _segments(rod, tendon, q)
    pat = _eyelet_pattern(rod, tendon)
    M = tendon.n_eyelets
    aw = tendon.angle_weights
    two = pat["two"]
    # local Jacobian of each eyelet over its candidate columns (x, y of two nodes, the angles)
    Jp = np.zeros((M, 2, pat["nc"]))
    w = tendon.weights
    Jp[:, 0, 0] = Jp[:, 1, 1] = w[:, 0]
    Jp[:, 0, 2] = Jp[:, 1, 3] = w[:, 1]
    if two:
        Jp[:, :, 4] = -(tendon.d * aw[:, 0])[:, None] * t      # dp/dphi_a = -d w_a t
        Jp[:, :, 5] = -(tendon.d * aw[:, 1])[:, None] * t
    else:
        Jp[:, :, 4] = -tendon.d[:, None] * t                   # dp/dphi = -d t
    Js = np.concatenate([-Jp[:-1], Jp[1:]], axis=2)            # (M-1, 2, 2 nc) segment Jacobians
    Hb = (np.eye(2)[None] - u[:, :, None] * u[:, None, :]) / ln[:, None, None]
    He = np.swapaxes(Js, 1, 2) @ (Hb @ Js)                     # (M-1, 2 nc, 2 nc)
    if seg is not None:
        He = He * seg[:, None, None]
        u = seg[:, None] * u
    F = np.zeros_like(p)
    F[1:] += u
    F[:-1] -= u
    # F . d2p/dphi_a dphi_b = -d w_a w_b F . n
    curv = -tendon.d * np.einsum("ij,ij->i", F, n)
    vals = np.concatenate([He[pat["keep"]]] + [curv[m] * f for m, f in pat["curv"]])
    # the triplets summed into the fixed pattern in their order (element blocks, then
    # the angle terms); the symmetric result averages each entry with its transpose
    raw = np.bincount(pat["slot"], weights=vals, minlength=pat["indices"].size)
    return _pattern_matrix(rod, pat, raw, symmetrise)


_PATTERNS = weakref.WeakKeyDictionary()


def _eyelet_pattern(rod, tendon):
    """The fixed sparsity of an eyelet tendon's Hessian (cached per tendon): which
    triplets of the element blocks and angle terms are kept, the CSR pattern of their
    union with its transpose, each triplet's slot in it and each slot's transpose."""
    pat = _PATTERNS.get(tendon)
    if pat is not None:
        return pat
    aw = tendon.angle_weights
    two = bool(np.any(aw[:, 1]))
    col = tendon._cols[:, [0, 1, 2, 3, 4, 6] if two else [0, 1, 2, 3, 4]]
    nc = col.shape[1]
    cs = np.concatenate([col[:-1], col[1:]], axis=1)           # (M-1, 2 nc) segment columns
    shape = (cs.shape[0], 2 * nc, 2 * nc)
    rr = np.broadcast_to(cs[:, :, None], shape)
    cc = np.broadcast_to(cs[:, None, :], shape)
    keep = (rr >= 0) & (cc >= 0)
    ok = tendon.elem >= 0
    masks = [(ok, aw[:, 0] ** 2)]
    ia, ib = [3 * tendon.elem[ok]], [3 * tendon.elem[ok]]
    if two:
        okb = (tendon.elem_b >= 0) & (aw[:, 1] != 0)
        both = okb & ok
        masks += [(okb, aw[okb, 1] ** 2), (both, aw[both, 0] * aw[both, 1]),
                  (both, aw[both, 0] * aw[both, 1])]
        ia += [3 * tendon.elem_b[okb], 3 * tendon.elem[both], 3 * tendon.elem_b[both]]
        ib += [3 * tendon.elem_b[okb], 3 * tendon.elem_b[both], 3 * tendon.elem[both]]
    masks[0] = (ok, masks[0][1][ok])
    pat = dict(_csr_pattern(np.concatenate([rr[keep]] + ia), np.concatenate([cc[keep]] + ib),
                            rod.ndof), two=two, nc=nc, keep=keep, curv=masks)
    _PATTERNS[tendon] = pat
    return pat


def _tendon_list(rod, tendons, cls=None, check=None):
    """The tendons as a list, each made for ``rod`` (planar :class:`Tendon` checked by
    :func:`_check_tendon`, or ``cls`` checked by ``check``)."""
    cls, check = (Tendon, _check_tendon) if cls is None else (cls, check)
    tendons = [tendons] if isinstance(tendons, cls) else tendons
    if not isinstance(tendons, (list, tuple)) or not tendons:
        raise ValueError(f"tendons must be a {cls.__name__} or a non-empty sequence of them, "
                         f"got {checks.show(tendons)}")
    for t in tendons:
        check(rod, t, "tendons")
    return list(tendons)


def _check_tendons(rod, tendons, tensions, name="tensions"):
    """The tendons and the tensions, one per tendon (a number stands for all), finite and
    >= 0: a cable can only pull (a slack one has 0)."""
    tendons = _tendon_list(rod, tendons)
    return tendons, checks.array(tensions, name, shape=(len(tendons),), broadcast=True, low=0.0)


def _check_loads(load, grav):
    """The dead tip load (None or (Px, Py, M)) and gravity, as :func:`lib.rod.energy` takes them."""
    return (None if load is None else checks.vector(load, "load", 3)), checks.real(grav, "grav")


def _checked(rod, q, tendons, tensions, load=None, grav=0.0):
    """Every argument of :func:`energy` checked: (tendons, tau, q, load, grav)."""
    tendons, tau = _check_tendons(_check_rod(rod), tendons, tensions)
    return (tendons, tau, _check_q(rod, q)) + _check_loads(load, grav)


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
    return _energy(rod, *_checked(rod, q, tendons, tensions, load, grav))


def _energy(rod, tendons, tau, q, load=None, grav=0.0):
    return _rod.energy(rod, q, load, grav) + float(sum(ti * _length(rod, t, q)
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
    return _gradient(rod, *_checked(rod, q, tendons, tensions, load, grav))


def _gradient(rod, tendons, tau, q, load=None, grav=0.0):
    g = _rod.gradient(rod, q, load, grav)
    for t, ti in zip(tendons, tau):
        if ti:
            g = g + ti * _tendon_gradient(rod, t, q)
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
    return _hessian(rod, *_checked(rod, q, tendons, tensions)[:3])


def _hessian(rod, tendons, tau, q):
    H = _rod.hessian(rod, q)
    for t, ti in zip(tendons, tau):
        if ti:
            Ht = _tendon_hessian(rod, t, q)
            Ht.data *= ti                          # a fresh CSR: scale its data in place
            H = H + Ht
    return H.tocsr()


def _band_map(rod, tendon):
    """Where a tendon's Hessian pattern sits in upper banded storage (cached with the
    pattern): its half-bandwidth, the upper entries' slots and their flat positions in
    an ``(u + 1, ndof)`` array of that half-bandwidth (``ab[u + i - j, j]``)."""
    pat = (_sheath_pattern if tendon.sheath else _eyelet_pattern)(rod, tendon)
    band = pat.get("band")
    if band is None:
        n = rod.ndof
        rows = np.repeat(np.arange(n), np.diff(pat["indptr"]))
        cols = pat["indices"].astype(np.int64)
        up = np.flatnonzero(cols >= rows)
        u = int((cols - rows).max(initial=0))
        band = pat["band"] = (u, up, rows[up], cols[up])
    return band


def _tangent(rod, tendons, tau, q, seg=None):
    """The matrix of :func:`_hessian` as a :class:`lib.kernels.banded.SymmetricBanded`
    (the rod's banded Hessian plus each tendon's pattern scattered into the band), or the
    sparse :func:`_hessian` where a tendon spans more than a quarter of the rod's dofs
    (a band that wide costs more than a sparse LU).  ``seg``: one eyelet tendon with
    per-segment tensions (``tau`` = [1]), as :func:`_tendon_hessian`."""
    active = [(t, ti) for t, ti in zip(tendons, tau) if ti]
    maps = [_band_map(rod, t) for t, _ in active]
    u = max([_rod.BANDWIDTH] + [m[0] for m in maps])
    n = rod.ndof
    if 4 * u > n:
        if seg is not None:
            return (_rod.hessian(rod, q) + _tendon_hessian(rod, tendons[0], q, seg=seg)).tocsr()
        return _hessian(rod, tendons, tau, q)
    ab = np.zeros((u + 1, n))
    ab[u - _rod.BANDWIDTH:] = _rod.banded_hessian(rod, q).ab
    for (t, ti), (_, up, r, c) in zip(active, maps):
        data = _tendon_hessian(rod, t, q, seg=seg).data     # in the pattern's slot order
        ab[u + r - c, c] += ti * data[up]
    return SymmetricBanded.wrap(ab)


def _apart(rod, tendons, q):
    """Whether consecutive eyelets of every tendon stay apart and no sheath folds onto
    itself (their length is smooth)."""
    for t in tendons:
        try:
            _sheath(rod, t, q) if t.sheath else _segments(rod, t, q)
        except ValueError:
            return False
    return True


def _equilibrium(rod, tendons, tau, q, load, grav, tol, maxiter, where="actuation.static_path"):
    """Newton at fixed tensions, the policy of :func:`lib.rod.static` (table of
    :mod:`lib.solvers.newton`): energy-or-residual line search, a stop at the round-off
    floor of the stiff stretch and shear terms, trial points with collapsed eyelets cut back."""
    fscale = max(rod.EI / rod.L, float(np.max(np.abs(tau), initial=0.0)),
                 0.0 if load is None else float(np.abs(load).max()), abs(grav) * rod.rhoA * rod.L)
    # forces carry round-off ~ eps (EA + S) |x| / ell: node differences lose log10(N) digits
    floor = 8 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(64.0, rod.N)
    return newton_solve(
        lambda q: (_gradient(rod, tendons, tau, q, load, grav),
                   lambda: _tangent(rod, tendons, tau, q)),
        q, tol, maxiter, max_backtracks=33, where=where,
        accept="energy-or-residual", scale=fscale, floor=floor, roundoff="correction",
        xtol=1e-14 * rod.L, xtol_rel=0.0, energy=lambda q: _energy(rod, tendons, tau, q, load, grav),
        admissible=lambda q: _apart(rod, tendons, q), spd=True)


def _check_stable(K, tendons, tau, rod, where, step, nsteps, lam, remedy):
    """Refuse an equilibrium whose tangent ``K`` (all dofs are free: the clamp is not a
    dof) is not positive definite (:func:`lib.core.linalg.require_positive_definite`),
    naming the chords' buckling where eyelet tendons pull."""
    chords = float(sum(max(float(ti), 0.0) for t, ti in zip(tendons, tau)
                       if not getattr(t, "sheath", False)))
    hint = None
    if chords > 0.0:
        hint = (f"straight chords between eyelets at the element centres buckle the discrete "
                f"rod once the eyelet tendons' tensions sum to about 4 EI/ell^2 = "
                f"{4.0 * rod.EI / rod.ell**2:.4g} (earlier when that is not small against the "
                f"shear stiffness kGA = {rod.kGA:.4g}; here sum tau = {chords:.4g}; the "
                f"continuum rod does not buckle): {remedy}")
    try:
        require_positive_definite(K, where=where, hint=hint)
    except SolveError as err:
        raise err.recast(ActuationSolveError).located(step, nsteps=nsteps, load=lam) from None


@_stall_hint
@_solve_errors
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

    Parameters
    ----------
    rod, tendons, tensions, load, grav : as in :func:`energy` (tensions >= 0)
    steps : int >= 1
    q0, tensions0 : optional start state (finite) and its tensions; then ``load`` and
        ``grav`` act in full from the start (solved first), else they grow with the
        tensions from the straight state
    tol : float >= 0; maxiter : int >= 0, Newton iterations per increment

    Returns
    -------
    taus : (steps + 1, m) the tensions of each equilibrium (row 0: the start)
    Q : (steps + 1, 3N) the equilibria

    Raises
    ------
    ValueError
        Naming a bad argument (a NaN start state, a 3-D rod, a negative tension).
    ActuationSolveError
        A :class:`~lib.core.errors.SolveError`: the load step, iteration and residual
        reached (:func:`lib.solvers.load_path` wording), with a hint (raise ``steps`` or
        ``maxiter``) where Newton stalled; or ``reason="unstable equilibrium"`` when an
        equilibrium's tangent is not positive definite (one banded Cholesky per step:
        chords through eyelets at the element centres buckle the discrete rod near
        ``sum tau = 4 EI/ell^2``; the message gives the lowest eigenvalue).  :func:`static`
        checks its last equilibrium only.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> taus, Q = static_path(r, [make_tendon(r, 0.04)], [10.0], steps=2)
    >>> taus[:, 0].tolist(), round(float(np.diff(Q[-1, 0::3]).mean() / r.ell), 2)   # tau d/EI
    ([0.0, 5.0, 10.0], 0.41)
    """
    return _static_path(rod, tendons, tensions, steps, load, grav, q0, tensions0, tol, maxiter,
                        "all")


def _static_path(rod, tendons, tensions, steps, load, grav, q0, tensions0, tol, maxiter, stable):
    """:func:`static_path`, the stability of ``"all"`` its equilibria or the ``"last"`` checked."""
    tendons, tau1 = _check_tendons(_check_rod(rod), tendons, tensions)
    tau0 = np.zeros_like(tau1) if tensions0 is None else _check_tendons(rod, tendons, tensions0,
                                                                        "tensions0")[1]
    steps = checks.integer(steps, "steps", low=1)
    load, grav = _check_loads(load, grav)
    q = _rod.straight(rod) if q0 is None else _check_q(rod, q0, "q0")
    tol, maxiter = checks.nonnegative(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    return _path(rod, tendons, tau0, tau1, steps, q, q0 is None and tensions0 is None, load, grav,
                 tol, maxiter, stable=stable)


_REMEDY2 = ("use more elements (the limit grows as N^2) or a sheath (make_tendon(..., "
            "sheath=True))")


def _path(rod, tendons, tau0, tau1, steps, q, ramp, load=None, grav=0.0, tol=1e-10, maxiter=50,
          stable=False, where="actuation.static_path"):
    """:func:`static_path` on checked arguments (``ramp``: the loads grow with the tensions
    from the straight, unloaded start; else they act in full from the start state ``q``;
    ``stable``: refuse an equilibrium whose tangent is not positive definite, at ``"all"``
    steps or the ``"last"``; False: none)."""
    taus = tau0 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (tau1 - tau0)
    if not ramp:            # the straight, unloaded start needs no solve
        try:
            q, _ = _equilibrium(rod, tendons, taus[0], q, load, grav, tol, maxiter, where)
        except SolveError as err:
            raise err.located(load=0.0) from err

    def solve_at(lam, q):
        f = lam if ramp else 1.0
        return _equilibrium(rod, tendons, taus[int(round(lam * steps))], q,
                            None if load is None else f * load, f * grav, tol, maxiter, where)

    _, path = load_path(solve_at, q, steps=steps, record=True, where=where)
    if stable:                  # the loads' potential is linear: the tangent is the tendons'
        for j, qj in enumerate(path.states, start=1):
            if stable == "last" and j < steps:
                continue
            _check_stable(_tangent(rod, tendons, taus[j], qj), tendons, taus[j], rod, where,
                          j, steps, j / steps, _REMEDY2)
    return taus, np.array([q] + path.states)


@_stall_hint
@_solve_errors
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
    return _static_path(rod, tendons, tensions, steps, load, grav, q0, tensions0, tol, maxiter,
                        "last")[1][-1]


def arc_tip(rod, tension, offset):
    r"""Tip ``(x, y, theta)`` of the continuum rod under one straight tendon at the tip.

    Every section carries the moment ``tau d`` and the compression ``tau``: curvature
    ``kappa = tau d / EI`` (per reference length) and axial strain ``-tau/EA``, so

    .. math::
        \theta = \kappa L,\quad
        x = (1 - \tau/EA)\,\frac{\sin\kappa L}{\kappa},\quad
        y = (1 - \tau/EA)\,\frac{1 - \cos\kappa L}{\kappa}.

    ``tension >= 0`` (a cable can only pull) and ``|offset| <= r`` (inside the section),
    else a ValueError naming it.

    Examples
    --------
    >>> from lib import rod as rd
    >>> x, y, th = arc_tip(rd.make_rod(4), 0.0, 0.01)
    >>> (x, y, th)
    (1.0, 0.0, 0.0)
    """
    tau = checks.nonnegative(tension, "tension")
    d = _offset(_check_rod(rod), offset, "offset")
    kappa = tau * d / rod.EI
    L = rod.L
    stretch = 1.0 - tau / rod.EA
    th = kappa * L
    if abs(th) < 1e-8:
        x, y = L * (1 - th**2 / 6), L * th / 2
    else:
        x, y = math.sin(th) / kappa, (1 - math.cos(th)) / kappa
    return stretch * x, stretch * y, th


@_solve_errors
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
    >>> W[:, 0].round(5).tolist()    # (0, d L^2/2EI, d s/EI at the last centre s = L - ell/2)
    [-0.0, 0.001, 0.00195]
    """
    tendons, tau, q = _checked(rod, q, tendons, tensions)[:3]
    return _tension_jacobian(rod, tendons, tau, q, checks.boolean(angle, "angle"))


def _tension_jacobian(rod, tendons, tau, q, angle):
    B = np.column_stack([_tendon_gradient(rod, t, q) for t in tendons])
    dq = -factor(_tangent(rod, tendons, tau, q), where="actuation.tension_jacobian").solve(B)
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
    multipliers : (m,) bound multipliers of the final QP (with chambers (m + n_c,), the
        pressures' after the tensions, per unit of each variable): ``>= 0`` on an upper bound,
        ``<= 0`` on a lower bound, 0 off the bounds (complementarity); ``-multipliers`` is
        the gradient of ``distance^2 / 2`` with respect to the tensions, so
        ``d(distance^2/2)/d tau_max_i = -multipliers_i``.  A reached target has
        (numerically) zero multipliers even on a bound it sits on.
    active : tuple of "upper" / "lower" / "fixed" / "" per tendon (and chamber): the bound the
        variable sits on (within 1e-9 max(tau_max)); "fixed" where its box is a point
        (``tau_max = 0``, ``pressure_min = pressure_max``), whose multiplier may have
        either sign
    iterations : int, linearise-QP-solve rounds
    history : (iterations + 1,) distance after each round (of the run that found the result)
    message : str, says whether the search was local or global over the tension box
    settled : bool, whether those rounds settled (else the nearest iterate is returned)
    starts : int, runs of rounds (1: the given start only; more: restarts from a sweep)
    updates : (iterations,) the tension update ``|delta|_inf / max(tau_max)`` of each round
        (of that run): the quantity ``tol`` is compared with, so its round-off floor shows
    pressures : (n_c,) the chambers' pressures found (None: no chambers were given)
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
    settled: bool = True
    starts: int = 1
    updates: np.ndarray = None
    pressures: np.ndarray = None


def _move(rod, tendons, q, tau_from, tau_to):
    """Equilibrium at ``tau_to`` starting from the one at ``tau_from`` (more steps if needed)."""
    for steps in (1, 4, 16):
        try:
            return _path(rod, tendons, tau_from, tau_to, steps, q, False,
                         where="actuation.inverse")[1][-1]
        except SolveError:
            if steps == 16:
                raise


_SWEEP = {1: 17, 2: 9, 3: 5}      # default grid points per tendon of the tension-box sweep


def _box_scale(lo, hi):
    """The size of the actuator box, ``max |bound|`` (``max tau_max`` for tendons alone)."""
    return float(np.abs(np.concatenate([lo, hi])).max(initial=0.0)) or 1.0


def _snake(n, m):
    """Grid indices of an n^m grid in an order where consecutive points are neighbours."""
    if m == 1:
        return [(i,) for i in range(n)]
    sub = _snake(n, m - 1)
    return [(i,) + s for i in range(n) for s in (sub if i % 2 == 0 else sub[::-1])]


def _local_inverse(rod, tendons, ystar, wts, lo, hi, tau, q, tol, maxiter, M=None):
    """The linearise-QP-solve rounds from ``(tau, q)``: a dict with the best iterate
    (``tau, q, y, lam``), ``hist``, ``it`` and ``settled``.

    Gauss-Newton with the Levenberg-Marquardt term of :func:`inverse`; once the rounds
    stall (an update more than half the previous one after three rounds: the linear
    convergence of Gauss-Newton at a large residual), the QP uses the full Hessian of
    ``1/2 |y(tau) - y*|^2``, ``W^T W + sum_i r_i d^2 y_i / d tau^2`` (the second term by a
    finite difference of ``W``; Gauss-Newton again where it is not positive definite),
    and a step that increases the distance is halved.  With chambers the decision
    variables ``u`` (tensions, then pressures) give the sheath tendons' tensions ``M u``."""
    m = lo.size
    angle = ystar.size == 3
    hmax_tau = _box_scale(lo, hi)
    ex = (lambda u: u) if M is None else (lambda u: M @ u)

    def tip_of(q):
        x, y, th = _rod.tip(rod, q)
        return np.array([x, y, th][: ystar.size])

    def jac(tau, q):
        W = _tension_jacobian(rod, tendons, ex(tau), q, angle)
        return wts[:, None] * (W if M is None else W @ M)

    y = tip_of(q)
    upd = []
    hist = [float(np.linalg.norm(wts * (y - ystar)))]
    lam = np.zeros(m)
    best = dict(tau=tau.copy(), q=q, y=y, lam=lam, dist=hist[0])
    step, prev, newton, settled = np.inf, np.inf, False, False
    for it in range(1, maxiter + 1):
        W = jac(tau, q)
        r = wts * (y - ystar)
        H = W.T @ W
        hmax = max(float(np.abs(H).max()), np.finfo(float).tiny)
        mu = hmax * max(1e-10, min(1.0, (float(np.linalg.norm(r)) / rod.L) ** 2))
        Hq = H + mu * np.eye(m)
        if newton:
            h = 1e-5 * hmax_tau
            S = np.zeros((m, m))
            for j in range(m):
                tj = tau.copy()
                tj[j] += h if tau[j] + h <= hi[j] else -h
                qj = _move(rod, tendons, q, ex(tau), ex(tj))
                S[:, j] = (jac(tj, qj) - W).T @ r / (tj[j] - tau[j])
            Hf = H + 0.5 * (S + S.T)
            if np.linalg.eigvalsh(Hf)[0] > 1e-8 * hmax:
                Hq = Hf + 1e-12 * hmax * np.eye(m)
        delta, lam, _ = qp_solve(Hq, W.T @ r, lo - tau, hi - tau)
        tau1 = np.clip(tau + delta, lo, hi)
        Z = null_space(W, rcond=1e-4)
        if Z.shape[1]:
            z, _, _ = qp_solve(Z.T @ Z, Z.T @ tau1, np.full(Z.shape[1], -np.inf),
                               np.full(Z.shape[1], np.inf), A=Z, a_lower=lo - tau1, a_upper=hi - tau1)
            tau1 = np.clip(tau1 + Z @ z, lo, hi)
        step = float(np.abs(tau1 - tau).max())
        if step > 0:
            q1 = _move(rod, tendons, q, ex(tau), ex(tau1))
            y1 = tip_of(q1)
            if newton:          # halve a step that moves away from the target
                for _ in range(20):
                    if np.linalg.norm(wts * (y1 - ystar)) <= hist[-1]:
                        break
                    tau1 = tau + 0.5 * (tau1 - tau)
                    q1 = _move(rod, tendons, q, ex(tau), ex(tau1))
                    y1 = tip_of(q1)
                step = float(np.abs(tau1 - tau).max())
            q, tau, y = q1, tau1, y1
        upd.append(step / hmax_tau)
        hist.append(float(np.linalg.norm(wts * (y - ystar))))
        if hist[-1] <= best["dist"]:
            best = dict(tau=tau.copy(), q=q, y=y, lam=lam, dist=hist[-1])
        if step <= tol * hmax_tau:
            best = dict(tau=tau.copy(), q=q, y=y, lam=lam, dist=hist[-1])
            settled = True
            break
        if it >= 3 and step > 0.5 * prev:
            newton = True
        prev = step
    return dict(best, hist=np.array(hist), it=it, settled=settled, upd=np.array(upd))


def _sweep(rod, tendons, ystar, wts, lo, hi, n, M=None):
    """Equilibria on an ``n``-point-per-tendon grid of the tension box (continuation along
    a path through neighbouring grid points); returns the grid's local minima of the
    distance as ``(distance, tau, q)``, nearest first (``M``: as in :func:`_local_inverse`)."""
    m = lo.size
    ex = (lambda u: u) if M is None else (lambda u: M @ u)
    axes = [np.linspace(lo[i], hi[i], n) for i in range(m)]
    order = _snake(n, m)
    taus = np.array([[axes[i][k[i]] for i in range(m)] for k in order])
    q = _path(rod, tendons, ex(np.zeros(m)), ex(taus[0]), 4, _rod.straight(rod), True,
              where="actuation.inverse")[1][-1]
    dist, states = np.empty(n ** m), [None] * n ** m
    for j, (k, tk) in enumerate(zip(order, taus)):
        if j:
            q = _move(rod, tendons, q, ex(taus[j - 1]), ex(tk))
        x, yy, th = _rod.tip(rod, q)
        flat = np.ravel_multi_index(k, (n,) * m)
        dist[flat] = np.linalg.norm(wts * (np.array([x, yy, th][: ystar.size]) - ystar))
        states[flat] = (tk, q)
    grid = dist.reshape((n,) * m)
    minima = []
    for k in np.ndindex(*grid.shape):
        nb = [grid[k[:i] + (k[i] + s,) + k[i + 1:]] for i in range(m) for s in (-1, 1)
              if 0 <= k[i] + s < n]
        if grid[k] <= min(nb):
            flat = np.ravel_multi_index(k, grid.shape)
            minima.append((float(grid[k]), *states[flat]))
    return sorted(minima, key=lambda c: c[0])


@_solve_errors
def inverse(rod, tendons, target, tau_max, tau_min=0.0, tol=1e-10, reach_tol=1e-8, maxiter=100,
            q0=None, tensions0=None, sweep=None, chambers=None, pressure_max=None,
            pressure_min=None):
    r"""Tensions that put the tip on ``target``, within ``tau_min <= tau <= tau_max``.

    The SoftRobots.Inverse scheme (Duriez 2013; Coevoet et al. 2017) on the rod: at the
    equilibrium of the current tensions linearise the tip, ``y ~ y_k + W (tau - tau_k)``
    (:func:`tension_jacobian`), and solve two QPs with :func:`qp_solve`:

    1. ``min 1/2 |y_k + W delta - y*|^2 + mu/2 |delta|^2`` over the box
       (``delta = tau - tau_k``; a Levenberg-Marquardt damping
       ``mu = |W^T W| max(1e-10, min(1, |y_k - y*|^2 / L^2))`` keeps the step inside the
       range where the linearisation holds while the tip is far away, fades as it
       closes in (Gauss-Newton speed on a reachable target), keeps the QP strictly
       convex when tendons are redundant, and does not move the fixed point ``delta = 0``;
       it is capped at ``|W^T W|`` and does not vanish at an unreachable target);
    2. when tendons are redundant (``W`` has a null space ``Z``: singular values below
       1e-4 of the largest), ``min 1/2 |tau|^2`` over
       ``tau = tau_1 + Z z`` within the box: the least effort giving the same linearised tip.

    Then re-solve the equilibrium and repeat until ``|delta|_inf <= tol max(tau_max)``
    (round-off puts a floor under this update, which ``InverseResult.updates`` shows; it
    grows with the conditioning of ``W``: about 2e-12 for the chapter's redundant tendons,
    near 1e-9 on others, and a ``tol`` below it never settles).  When the rounds stall (Gauss-Newton converges only linearly at a large
    residual) the QP takes the full Hessian of ``1/2 |y(tau) - y*|^2`` (second-order
    term by a finite difference of ``W``) with step halving.
    At the fixed point the multipliers of QP 1 are those of the nonlinear problem
    ``min 1/2 |y(tau) - y*|^2`` over the box (``W`` is its exact Jacobian).

    These rounds are **local**: far from the target the distance has other stationary
    points.  A target the rounds do not reach is therefore searched globally for few
    tendons: the equilibria on a grid of ``sweep`` points per tendon over the tension
    box (faces and vertices included) are computed by continuation, the rounds are
    restarted from the grid's local minima of the distance (the three nearest), and the
    nearest result is returned.  With more than three tendons (default ``sweep = 0``)
    the answer is the local one, and the message says so.

    Parameters
    ----------
    rod : lib.rod.Rod
    tendons : sequence of Tendon
    target : (x, y) or (x, y, theta)
        Tip position, optionally angle (its error is weighted by L); each entry (the angle
        times L) at most ``1e9 L`` in magnitude.
    tau_max : float or (m,)
        Largest tension of each tendon (> 0, finite).
    tau_min : float or (m,)
        Smallest tension (>= 0: a cable can only pull; default 0).
    tol : float
        Relative tension-update tolerance of the outer iteration.
    reach_tol : float
        A final ``distance <= reach_tol L`` counts as reached.
    maxiter : int
        Outer iterations of each run of rounds.
    q0, tensions0 : optional start equilibrium and its tensions (default straight, 0).
    sweep : int >= 0 or None
        Grid points per tendon of the global search for an unreached target (None:
        17, 9, 5 for one, two, three tendons, 0 beyond; 0 or 1: local only).
    chambers : RodChamber or sequence of them, optional
        Pressure actuators beside the tendons (:func:`make_rod_chamber`): each chamber's
        pressure is a decision variable, its column of ``W`` the tip's response per unit
        pressure (:func:`pressure_jacobian`: the chamber's generalised force ``dV_c/dq``
        through ``K^{-1}``).  The variables are ``u = [tau_1..tau_m, p_1..p_nc]``; the
        sweep, tolerances and Levenberg-Marquardt term treat them alike (``tol`` and
        the active-bound test are relative to ``max |bound|`` over all of them).  With
        chambers, ``tendons`` may be None or empty (pressures only).
    pressure_max : float or (n_c,), required with ``chambers``; ``|pressure_max| <= 1e100``
        Largest pressure of each chamber (any finite number >= ``pressure_min``).
    pressure_min : float or (n_c,)
        Smallest pressure (default None: 0; negative: vacuum); only with ``chambers``.  ``pressure_min = pressure_max``
        holds the pressure fixed (0, 0: the tendons alone).

    Returns
    -------
    InverseResult
        ``tensions`` the tendons' part, ``pressures`` the chambers' (None without
        chambers); ``multipliers`` and ``active`` over all the variables, tendons first.
        Never raises for an unreachable target: ``reachable`` is False and ``distance``
        says how far the nearest tip found is; ``settled`` is False if the rounds that
        found it did not settle in ``maxiter`` (then the nearest iterate is returned).

    Raises
    ------
    ValueError
        Negative / non-finite ``tau_min`` or ``tau_max``, ``tau_max < tau_min``, a
        non-finite ``target``, one of the wrong length or beyond ``1e9 L``, a NaN start state ``q0``;
        non-finite ``pressure_min`` / ``pressure_max`` or one beyond ``1e100`` in magnitude
        (the rounds scale by the box and square it), ``pressure_max < pressure_min``,
        ``pressure_max`` missing with chambers, ``pressure_max`` or ``pressure_min``
        given without them.
    ActuationSolveError
        If an equilibrium solve itself fails (says how far it got), or with
        ``reason="unstable equilibrium"`` if the equilibrium found is not stable (its
        tangent is not positive definite, as :func:`static_path` refuses: eyelet tendons
        whose tensions sum past about ``4 EI/ell^2``, e.g. forced there by ``tau_min``).

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
    >>> c = make_rod_chamber(r, 0.01, -0.04, start=5)      # a chamber below, distal half
    >>> tip3 = tip(r, chamber_static(r, c, 300.0, tendons=[t], tensions=[8.0]))   # x, y, theta
    >>> res = inverse(r, [t], tip3, tau_max=10.0, chambers=c, pressure_max=500.0)
    >>> res.reachable, res.tensions.round(6).tolist(), res.pressures.round(4).tolist()
    (True, [8.0], [300.0])
    """
    _check_rod(rod)
    if chambers is None:
        for name, value in (("pressure_max", pressure_max), ("pressure_min", pressure_min)):
            if value is not None:
                raise ValueError(f"{name} must be None without chambers (there is no pressure "
                                 f"to bound), got {checks.show(value)}")
        tendons, chambers = _tendon_list(rod, tendons), []
    else:
        chambers = _chamber_list(rod, chambers)
        tendons = [] if tendons is None or (isinstance(tendons, (list, tuple)) and not tendons) \
            else _tendon_list(rod, tendons)
    m, nc = len(tendons), len(chambers)
    lo = checks.array(tau_min, "tau_min", shape=(m,), broadcast=True, low=0.0)
    hi = checks.array(tau_max, "tau_max", shape=(m,), broadcast=True, low=0.0, include_low=False)
    if np.any(hi < lo):
        raise ValueError(f"tau_max must be >= tau_min, got {hi.tolist()} < {lo.tolist()}")
    M, sheaths = None, tendons
    if nc:
        if pressure_max is None:
            raise ValueError("pressure_max must be given with chambers (the largest pressure "
                             "of each), got None")
        p_hi = checks.array(pressure_max, "pressure_max", shape=(nc,), broadcast=True,
                            low=-_MAX_BOUND, high=_MAX_BOUND)
        p_lo = checks.array(0.0 if pressure_min is None else pressure_min, "pressure_min",
                            shape=(nc,), broadcast=True, low=-_MAX_BOUND, high=_MAX_BOUND)
        if np.any(p_hi < p_lo):
            raise ValueError(f"pressure_max must be >= pressure_min, got {p_hi.tolist()} < "
                             f"{p_lo.tolist()}" + ("" if pressure_min is not None else
                             " (pressure_min defaults to 0: give it, negative, for a vacuum)"))
        lo, hi = np.concatenate([lo, p_lo]), np.concatenate([hi, p_hi])
        sheaths, M = _expansion(tendons, chambers)
        # tensions and pressures differ in units by orders of magnitude: the rounds work
        # in the variables scaled by their box, v = u / S (the fixed point is the same)
        S = np.abs(np.column_stack([lo, hi])).max(1)
        S = np.where(S > 0, S, 1.0)
        M, lo, hi = M * S, lo / S, hi / S
    ystar = checks.array(target, "target")
    if ystar.shape not in ((2,), (3,)):
        raise ValueError(f"target must be (x, y) or (x, y, theta), got shape {ystar.shape}")
    tol, reach_tol = checks.nonnegative(tol, "tol"), checks.nonnegative(reach_tol, "reach_tol")
    maxiter = checks.integer(maxiter, "maxiter", low=1)
    n_sweep = _SWEEP.get(m + nc, 0) if sweep is None else checks.integer(sweep, "sweep", low=0)
    wts = np.array([1.0, 1.0, rod.L])[: ystar.size]
    far = np.abs(wts * ystar) > _MAX_TARGET * rod.L
    if np.any(far):
        i = int(np.argmax(far))
        raise ValueError(f"target must lie within {_MAX_TARGET:g} L = {_MAX_TARGET * rod.L:.3g} "
                         f"of the clamp (the angle scaled by L; beyond it the rounds' QP fails "
                         f"on the scale), got {float(ystar[i])!r} at index {i}")
    tau0 = np.zeros(m) if tensions0 is None else (
        _check_tendons(rod, tendons, tensions0, "tensions0")[1] if m else
        checks.array(tensions0, "tensions0", shape=(0,)))
    tau = np.clip(np.concatenate([tau0, np.zeros(nc)]) / (S if nc else 1.0), lo, hi)
    ex = (lambda u: u) if M is None else (lambda u: M @ u)
    q = _rod.straight(rod) if q0 is None else _check_q(rod, q0, "q0").copy()
    if q0 is None and any(tau):
        q = _path(rod, sheaths, ex(0 * tau), ex(tau), 4, q, True, where="actuation.inverse")[1][-1]

    res = _local_inverse(rod, sheaths, ystar, wts, lo, hi, tau, q, tol, maxiter, M)
    starts, scope = 1, "local"
    if res["dist"] > reach_tol * rod.L and n_sweep >= 2:
        n_var = m + nc
        scope = ("global: restarts from a " + ("x".join([str(n_sweep)] * n_var) if n_var > 1 else
                                                f"{n_sweep}-point") + " sweep of the tension box")
        for d0, t0, q0_ in _sweep(rod, sheaths, ystar, wts, lo, hi, n_sweep, M)[:3]:
            cand = _local_inverse(rod, sheaths, ystar, wts, lo, hi, t0, q0_, tol, maxiter, M)
            starts += 1
            if cand["dist"] < res["dist"] - 1e-12 * rod.L:
                res = cand
    tau, q, y, lam, it, dist = res["tau"], res["q"], res["y"], res["lam"], res["it"], res["dist"]
    # the equilibrium returned must be stable, as static_path's are (one banded Cholesky)
    _check_stable(_tangent(rod, sheaths, ex(tau), q), sheaths, ex(tau), rod, "actuation.inverse",
                  None, None, None, _REMEDY2 + " or lower tau_min")
    at = 1e-9 * _box_scale(lo, hi)
    # a variable whose box is a point (pressure_min = pressure_max, tau_max = 0) is "fixed":
    # it sits on both bounds and its multiplier may have either sign
    active = tuple("fixed" if hk - lk_ <= at else "upper" if tk >= hk - at
                   else "lower" if tk <= lk_ + at else "" for tk, hk, lk_ in zip(tau, hi, lo))
    on_hi = np.isin(np.array(active), ("upper", "fixed"))
    tau = np.where(on_hi, hi, np.where(np.array(active) == "lower", lo, tau))
    if nc:                          # back to tensions and pressures
        tau, lam = tau * S, lam / S
        tau = np.where(on_hi, hi * S, np.where(np.array(active) == "lower", lo * S, tau))
    reachable = dist <= reach_tol * rod.L
    if reachable:
        msg = f"target reached: distance {dist:.3e} after {it} rounds"
    else:
        on = [(f"tendon {i}" if i < m else f"chamber {i - m}") +
              (" held fixed" if a == "fixed" else f" at its {a} bound") +
              f" (multiplier {lam[i]:.3g})" for i, a in enumerate(active) if a]
        msg = (f"target unreachable: the nearest reachable tip is {dist:.6g} away"
               + (f"; {', '.join(on)}" if on else "; no bound active (a stationary point of the distance)")
               + f" ({scope}, {starts} start{'s' if starts > 1 else ''})")
        if not res["settled"]:
            msg += f"; the rounds did not settle in {maxiter} (nearest iterate returned)"
    return InverseResult(tensions=tau[:m], q=q, tip=y, target=ystar, distance=dist,
                         reachable=reachable, multipliers=lam, active=active, iterations=it,
                         history=res["hist"], message=msg, settled=res["settled"], starts=starts,
                         updates=res["upd"], pressures=tau[m:] if nc else None)


# --------------------------------------------------------------------------------------
# follower pressure on the FEM arm
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Chamber:
    """A pressurised run of boundary edges of an FEM model (made by :func:`make_chamber`).

    An open face under an external follower pressure, despite the name: not a closed
    pneumatic chamber (whose load is self-equilibrated, with a symmetric stiffness).

    Attributes
    ----------
    side : "top", "bottom", "left" or "right"
    edges : (n_edges, p + 1) node numbers of each edge in counter-clockwise order
        (along the boundary with the body on the left).
    C : (2 n_nodes, 2 n_nodes) CSR, blocks ``c_ab S`` (module docstring), so that the
        follower load is ``-p C x`` and its stiffness ``p C``.
    ends : (2,) the first and last node of the run (where ``C`` is unsymmetric).
    X : (n_edges, p + 1, 2) reference coordinates of the edge nodes (a chamber is used
        only with a model of the same mesh: these must match).
    """

    side: str
    edges: np.ndarray
    C: sp.csr_matrix
    ends: np.ndarray
    X: np.ndarray = field(default=None, repr=False)


def _check_chamber(model, chamber):
    """The model and a chamber made on its mesh (ValueError naming ``chamber`` otherwise)."""
    n = _check_model(model).n_dofs
    checks.kind(chamber, "chamber", Chamber, "a Chamber (made by make_chamber)")
    if chamber.C.shape != (n, n) or not np.array_equal(model.mesh.nodes[chamber.edges], chamber.X):
        raise ValueError("chamber was made on another mesh than model's (make it with "
                         "make_chamber(model, ...))")
    return chamber


def make_chamber(model, side="top", x_range=(-np.inf, np.inf)):
    r"""A pressurised face: the edges of ``side`` whose ends lie in ``x_range`` (``y`` range for
    "left"/"right"), loaded by an external follower pressure (an open face, not a closed
    pneumatic chamber; the name is kept for the API).

    Assembles ``C = sum_edges sum_ab c_ab (e_a e_b^T) kron S`` once (it does not depend on
    ``u``), ``c_ab = int_0^1 N_a N_b' dxi``.

    Parameters
    ----------
    model : lib.fem.Model
    side : "top", "bottom", "left" or "right"
    x_range : (lo, hi), the part of the face under pressure (must contain an edge;
        ``-inf`` / ``inf``: no bound)

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    >>> ch = make_chamber(m, "top", (1.0, 3.0))
    >>> ch.edges.tolist()                      # right to left along the top face
    [[7, 5], [5, 3]]
    """
    mesh = _check_model(model).mesh
    X, Y = mesh.nodes[:, 0], mesh.nodes[:, 1]
    faces = {"right": (np.isclose(X, mesh.length), Y, False),
             "left": (np.isclose(X, 0.0), Y, True),
             "top": (np.isclose(Y, mesh.height / 2), X, True),
             "bottom": (np.isclose(Y, -mesh.height / 2), X, False)}
    lo, hi = checks.array(x_range, "x_range", shape=(2,), finite=False)   # inf: no bound
    on, coord, reverse = faces[checks.choice(side, "side", tuple(faces))]
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
    C = _cavity.edge_matrix(edges, model.n_dofs, p)   # C = sum c_ab (e_a e_b^T) kron S
    edges.setflags(write=False)
    ends = np.array([edges[0, 0], edges[-1, -1]])
    Xe = mesh.nodes[edges]
    Xe.setflags(write=False)
    return Chamber(side=side, edges=edges, C=C, ends=ends, X=Xe)


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
    _check_chamber(model, chamber)
    return _pressure_force(model, chamber, _check_u(model, u), checks.real(pressure, "pressure"))


def _pressure_force(model, chamber, u, p):
    return -p * (chamber.C @ (model.mesh.nodes.ravel() + u))


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
    _check_chamber(model, chamber)
    return (checks.real(pressure, "pressure") * chamber.C).tocsr()


def pressure_residual(model, chamber, u, pressure):
    """Residual ``f_int(u) - f_ext(u)`` on all dofs (the fixed ones included).

    >>> from lib import fem
    >>> m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    >>> r = pressure_residual(m, make_chamber(m, "top"), np.zeros(m.n_dofs), 1.0)
    >>> round(float(r[1::2].sum()), 12)        # minus the load, p x face length
    4.0
    """
    _check_chamber(model, chamber)
    u, p = _check_u(model, u), checks.real(pressure, "pressure")
    return _fem.gradient(model, u) - _pressure_force(model, chamber, u, p)


def _fem_newton(model, residual, tangent, u, scale, tol, maxiter, where, callback=None,
                spd=True):
    """Newton on the free dofs of the FEM arm, the policy of :func:`lib.fem.static` (table of
    :mod:`lib.solvers.newton`): full steps halved (up to 29 times) while an element inverts,
    converged at ``tol scale`` or at the round-off floor of the internal force
    (:func:`lib.fe.roundoff_floor`); returns ``(u, NewtonInfo)``.  ``spd``: the tangent is
    symmetric (banded Cholesky where it is positive definite, else sparse LU)."""
    return newton_solve(lambda u: (residual(u), lambda: tangent(u)), u, tol, maxiter,
                        max_backtracks=29, where=where, accept="none",
                        scale=max(scale, _TINY), floor=roundoff_floor(model, 2 * model.mu + model.lam),
                        roundoff="residual",
                        free=model.free, admissible=lambda u: _fem.admissible(model, u),
                        callback=callback, spd=spd)


def _pressure_newton(model, chamber, p, u, tol, maxiter, load_stiffness, where, record=None,
                     symmetric=False):
    """:func:`_fem_newton` under the follower pressure ``p`` (tangent ``K(u) + K_p``, or
    ``K(u) + (K_p + K_p^T)/2`` with ``symmetric``); ``record`` gets
    ``(|r|_inf / |f_ext(0)|_inf, u)`` at every iterate."""
    scale = max(float(np.abs(_pressure_force(model, chamber, np.zeros(model.n_dofs), p)
                             [model.free]).max()), _TINY)
    Kp = (p * chamber.C).tocsr()
    if symmetric:
        Kp = (0.5 * (Kp + Kp.T)).tocsr()
    return _fem_newton(
        model, lambda u: _fem.gradient(model, u) - _pressure_force(model, chamber, u, p),
        lambda u: _fem.hessian(model, u) + Kp if load_stiffness else _fem.hessian(model, u),
        u, scale, tol, maxiter, where, None if record is None else
        lambda it, u, r: record.append((float(np.abs(r).max()) / scale, u.copy())),
        spd=symmetric or not load_stiffness)


@_solve_errors
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
    ps : (steps + 1,) the pressures; U : (steps + 1, 2 n_nodes) the equilibria (row 0:
    ``u0``, default 0)

    Raises
    ------
    ValueError
        Naming a bad argument (a NaN ``u0``, a chamber made on another mesh).
    ActuationSolveError
        (a :class:`~lib.core.errors.SolveError`) the load step ``j/steps``, iteration and
        residual reached, or every step inverting an element (``reason="inadmissible"``).

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(10, 1, "T3")
    >>> ps, U = pressure_static(m, make_chamber(m, "top"), 1e-4, steps=2)
    >>> bool(fem.tip_deflection(m, U[-1]) < 0)          # pushed down
    True
    """
    _check_chamber(model, chamber)
    ps = np.linspace(0.0, checks.real(pressure, "pressure"), checks.integer(steps, "steps", low=1) + 1)
    tol, maxiter = checks.nonnegative(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    u = np.zeros(model.n_dofs) if u0 is None else _check_u(model, u0, "u0")
    load_stiffness = checks.boolean(load_stiffness, "load_stiffness")
    _, path = load_path(lambda lam, u: _pressure_newton(
        model, chamber, ps[int(round(lam * steps))], u, tol, maxiter, load_stiffness,
        "actuation.pressure_static"), u, steps=steps, record=True)
    return ps, np.array([u] + path.states)


def newton_history(model, chamber, pressure, u0, load_stiffness=True, maxiter=30, tol=1e-13,
                   return_states=False, symmetric=False):
    """Relative residuals ``|r_k|_inf / |f_ext(0)|_inf`` of Newton at ``pressure`` from ``u0``.

    For comparing the convergence with and without the load stiffness, or with only its
    symmetric part ``(K_p + K_p^T)/2`` (``symmetric=True``: the tangent a solver that
    needs symmetry would take; it converges linearly, as the skew part is missing).  Stops at
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
    _check_chamber(model, chamber)
    p, u0 = checks.real(pressure, "pressure"), _check_u(model, u0, "u0")
    load_stiffness = checks.boolean(load_stiffness, "load_stiffness")
    maxiter, tol = checks.integer(maxiter, "maxiter", low=0), checks.nonnegative(tol, "tol")
    return_states = checks.boolean(return_states, "return_states")
    symmetric = checks.boolean(symmetric, "symmetric")
    rec = []
    try:
        _pressure_newton(model, chamber, p, u0, tol, maxiter, load_stiffness,
                         "actuation.newton_history", rec, symmetric=symmetric)
    except SolveError:
        pass
    rec, states = [np.array(a) for a in zip(*rec)]
    return (rec, states) if return_states else rec


# --------------------------------------------------------------------------------------
# dynamics: a tendon pulled in a ramp
# --------------------------------------------------------------------------------------
@_solve_errors
def ramp_response(rod, tendons, tensions, ramp_time, t_end, dt, rho_inf=0.8, every=1):
    r"""Tip motion of the rod when the tensions ramp from 0 to ``tensions`` over ``ramp_time``.

    ``M q'' + grad Pi_tot(q, tau(t)) = 0`` with ``tau(t) = min(t / ramp_time, 1) tensions``,
    integrated from rest by the generalised-alpha method
    (:func:`lib.integrate.generalized_alpha_step`, implicit, with the full tangent
    ``K = hess Pi_rod + sum tau_i hess ell_i`` and the lumped mass of :func:`lib.rod.mass`)
    at the tensions of the end of each step.  Each step's Newton iteration starts from the
    constant-acceleration predictor ``u + dt v + dt^2 a / 2`` (the converged step is the
    same to the Newton tolerance; it needs about half the iterations of a constant
    displacement start).

    Parameters
    ----------
    rod, tendons, tensions : as in :func:`static`
    ramp_time : float > 0
    t_end, dt : float > 0; ``t_end`` must be a whole number of steps ``dt`` (to 1e-9,
        :func:`lib.core.checks.step_count`), else a ValueError says so: the run ends
        exactly at ``t_end``, with the fixed step of the scheme
    rho_inf : float in [0, 1], high-frequency spectral radius (0.8: mild damping of the
        stiff axial / shear modes, second order)
    every : int >= 1, keep every ``every``-th step (and the last, at ``t_end``)

    Returns
    -------
    t : (n,) times; Q : (n, 3N) states; taus : (n, m) tensions at those times

    Raises
    ------
    ValueError
        Naming the argument: ``tensions``, ``ramp_time``, ``rho_inf``, ``every``; ``t_end``
        not a whole number of steps, or ``dt`` so small that ``t_end / dt`` overflows.
    ActuationSolveError
        (a :class:`~lib.core.errors.SolveError`) naming the step and time of a failed solve.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(6)
    >>> t, Q, taus = ramp_response(r, [make_tendon(r, 0.04)], [5.0], 1.0, 0.2, 0.1)
    >>> t.round(2).tolist(), taus[:, 0].round(2).tolist()
    ([0.0, 0.1, 0.2], [0.0, 0.5, 1.0])
    """
    tendons, tau_f = _check_tendons(_check_rod(rod), tendons, tensions)
    Tr = checks.positive(ramp_time, "ramp_time")
    dt, nsteps = checks.step_count(dt, t_end)
    params = _integrate.generalized_alpha_parameters(checks.real(rho_inf, "rho_inf", 0.0, 1.0))
    every = checks.integer(every, "every", low=1)
    M = _rod.mass(rod)

    def tau_at(t):
        return min(t / Tr, 1.0) * tau_f

    def force_at(tau):
        return lambda u: (_gradient(rod, tendons, tau, u), _tangent(rod, tendons, tau, u))

    u = _rod.straight(rod)
    v = np.zeros_like(u)
    f = _gradient(rod, tendons, tau_at(0.0), u)
    a = -f / M
    ts, Q, taus = [0.0], [u.copy()], [tau_at(0.0)]
    for n in range(1, nsteps + 1):
        tn = n * dt
        try:
            u, v, a, f = _integrate.generalized_alpha_step(u, v, a, f, dt, force_at(tau_at(tn)), M, params,
                                                           predictor="acceleration")
        except SolveError as err:
            raise err.located(n, tn, nsteps=nsteps, where="actuation.ramp_response") from err
        if n % every == 0 or n == nsteps:
            ts.append(tn)
            Q.append(u.copy())
            taus.append(tau_at(tn))
    return np.array(ts), np.array(Q), np.array(taus)


# --------------------------------------------------------------------------------------
# the same tendon on the FEM arm: a cable through mesh nodes
# --------------------------------------------------------------------------------------
def _check_eyelets(model, eyelets, name="eyelets"):
    """At least two node numbers of ``model``'s mesh, as an int array."""
    n_nodes = model.mesh.nodes.shape[0]
    e = checks.vector(eyelets, name, low=0, high=n_nodes - 1)
    if e.size < 2 or np.any(e != np.round(e)):
        raise ValueError(f"{name} must list at least two node numbers (integers in "
                         f"0..{n_nodes - 1}), got {checks.show(eyelets)}")
    e = e.astype(np.int64)
    if np.any(e[1:] == e[:-1]):                 # a zero-length segment: no direction
        i = int(np.flatnonzero(e[1:] == e[:-1])[0])
        raise ValueError(f"{name} must not repeat a node in consecutive places (the segment "
                         f"between them has no length), got node {e[i]} at {i} and {i + 1} in "
                         f"{checks.show(eyelets)}")
    return e


def _cable_args(model, eyelets, u):
    return _check_eyelets(_check_model(model), eyelets), _check_u(model, u)


def cable_length(model, eyelets, u):
    r"""Length ``ell(u) = sum_k |x_{k+1} - x_k|`` of a cable threaded through mesh nodes.

    ``x = X + u`` at the eyelet nodes (frictionless, straight between them): the FEM
    counterpart of :func:`tendon_length`.  At ``u = 0`` its gradient is minus
    :func:`lib.fem.cable_row`.

    Raises
    ------
    ValueError
        Naming ``eyelets`` (fewer than two node numbers, one not a node, or a node repeated
        in consecutive places), ``model`` or ``u`` (wrong length, NaN, or one that makes
        two consecutive eyelets coincide).

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(4, 2, "T3", slenderness=4.0)
    >>> top = [2, 5, 8, 11, 14]                      # nodes on y = +0.5, x = 0..4
    >>> cable_length(m, top, np.zeros(m.n_dofs))
    4.0
    """
    e, u = _cable_args(model, eyelets, u)
    x = model.mesh.nodes[e] + u.reshape(-1, 2)[e]
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
    return _cable_gradient(model, *_cable_args(model, eyelets, u))


def _cable_gradient(model, e, u):
    t, _ = _cable_segments(model, e, u)
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
    return _cable_hessian(model, *_cable_args(model, eyelets, u))


def _cable_hessian(model, e, u):
    t, ln = _cable_segments(model, e, u)
    Hb = (np.eye(2)[None] - t[:, :, None] * t[:, None, :]) / ln[:, None, None]
    blocks = np.concatenate([np.concatenate([Hb, -Hb], 2), np.concatenate([-Hb, Hb], 2)], 1)
    dof = np.concatenate([2 * e[:-1, None] + np.arange(2), 2 * e[1:, None] + np.arange(2)], 1)
    rr = np.broadcast_to(dof[:, :, None], blocks.shape).ravel()
    cc = np.broadcast_to(dof[:, None, :], blocks.shape).ravel()
    n = model.n_dofs
    H = sp.coo_matrix((blocks.ravel(), (rr, cc)), shape=(n, n)).tocsr()
    return (0.5 * (H + H.T)).tocsr()


@_solve_errors
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

    steps : int >= 1; tol : float >= 0; maxiter : int >= 0; u0 : optional finite start

    Returns
    -------
    taus : (steps + 1, m); U : (steps + 1, 2 n_nodes)

    Raises
    ------
    ValueError
        Naming a bad argument (a negative tension: a cable can only pull).
    ActuationSolveError
        (a :class:`~lib.core.errors.SolveError`) the load step, iteration and residual
        reached (:func:`lib.solvers.load_path` wording).

    Examples
    --------
    >>> from lib import fem
    >>> m = fem.cantilever(10, 1, "T3")
    >>> top = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.5))     # y = +h/2, x = 0..L
    >>> taus, U = cable_static(m, [top], [1e-3], steps=2)
    >>> bool(fem.tip_deflection(m, U[-1]) > 0)       # a cable on top bends the arm up
    True
    """
    _check_model(model)
    if not isinstance(cables, (list, tuple)) or not cables:
        raise ValueError(f"cables must be a non-empty sequence of eyelet node lists, got "
                         f"{checks.show(cables)}")
    cables = [_check_eyelets(model, c, "cables") for c in cables]
    tau1 = checks.array(tensions, "tensions", shape=(len(cables),), broadcast=True, low=0.0)
    steps = checks.integer(steps, "steps", low=1)
    tol, maxiter = checks.nonnegative(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    u = np.zeros(model.n_dofs) if u0 is None else _check_u(model, u0, "u0")
    taus = np.linspace(0.0, 1.0, steps + 1)[:, None] * tau1

    def solve_at(lam, u):
        tau = taus[int(round(lam * steps))]
        return _fem_newton(model, lambda u: _fem.gradient(model, u) + sum(
            ti * _cable_gradient(model, c, u) for c, ti in zip(cables, tau)),
            lambda u: sum((ti * _cable_hessian(model, c, u) for c, ti in zip(cables, tau) if ti),
                          _fem.hessian(model, u)),
            u, float(tau1.max(initial=0.0)), tol, maxiter, "actuation.cable_static")

    _, path = load_path(solve_at, u, steps=steps, record=True)
    return taus, np.array([u] + path.states)


# --------------------------------------------------------------------------------------
# tendons as they are: capstan friction at the eyelets (stick-slip), displacement control
# --------------------------------------------------------------------------------------
def _eyelet_tendon(rod, tendon, name="tendon"):
    _check_tendon(rod, tendon, name)
    if tendon.sheath:
        raise ValueError(f"{name} must run through eyelets (sheath=False): friction and the "
                         "segment tensions are defined per segment between eyelets")
    return tendon


def _wrap(rod, tendon, q):
    """Unsigned turning angles of the tendon at its interior eyelets, (M-2,)."""
    u = _segments(rod, tendon, q)[5]
    a, b = u[:-1], u[1:]
    return np.abs(np.arctan2(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0], np.einsum("ij,ij->i", a, b)))


def wrap_angles(rod, tendon, q):
    r"""Turning angles ``alpha_j >= 0`` of an eyelet tendon at its interior eyelets, (M-2,).

    ``alpha_j = |angle(u_{j-1}, u_j)|`` between the unit directions of the segments that
    meet at eyelet j; ``theta_j = alpha_1 + ... + alpha_j`` is the wrap angle accumulated
    from the motor (the clamp eyelet, where the tendon leaves the base along the rod
    axis; no turning is counted there) to segment j.  On a circular arc of angle
    ``Phi`` with eyelets at the element centres the total wrap is about
    ``Phi (1 - 1/N)`` (2.695 of 3 at N = 10, 2.962 at N = 80): it converges to ``Phi`` at
    first order in 1/N (the turning over the first and the last half element is not
    counted: the tendon leaves the clamp and reaches the anchor along chords).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(4)
    >>> wrap_angles(r, make_tendon(r, 0.02), rd.straight(r)).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    _eyelet_tendon(_check_rod(rod), tendon)
    return _wrap(rod, tendon, _check_q(rod, q))


_DIRECTIONS = ("loading", "unloading")


def _chain(tau_m, mu, alpha, old):
    """Segment tensions by the capstan band, motor first: ``tau_0 = tau_m``,
    ``tau_j = clip(old_j, tau_{j-1} e^{-mu alpha_j}, tau_{j-1} e^{mu alpha_j})``."""
    tau = np.empty(alpha.size + 1)
    tau[0] = tau_m
    with np.errstate(over="ignore"):                  # an overflow is refused below
        lo, hi = np.exp(-mu * alpha), np.exp(mu * alpha)
        for j in range(alpha.size):
            # a slack segment (tau_j = 0) bounds the next to 0, not to 0 e^(mu alpha) = 0 inf
            up = tau[j] * hi[j] if tau[j] > 0.0 else 0.0
            tau[j + 1] = min(max(old[j + 1], tau[j] * lo[j]), up)
    if not np.all(np.isfinite(tau)):
        raise ValueError(f"mu must keep the tensions tau_m e^(mu theta) finite, got mu = "
                         f"{mu!r}: they overflow at a total wrap of "
                         f"{float(np.sum(alpha)):.6g} rad")
    return tau


def capstan_tensions(rod, tendon, q, motor_tension, mu, direction="loading"):
    r"""Segment tensions of a slipping tendon: ``tau_j = tau_m exp(-+ mu theta_j)``, (M-1,).

    The Euler-Eytelwein (capstan) law ``|d ln tau| <= mu d theta`` holds with equality
    where the cable slides: pulled in by the motor ("loading": it slides towards the
    motor and friction opposes, so the tension decays away from the motor,
    ``tau_j = tau_m e^{-mu theta_j}``), or paid out ("unloading": ``e^{+mu theta_j}``).
    ``theta_j`` is the wrap accumulated over the eyelets between the motor and segment
    j (:func:`wrap_angles`).

    Parameters
    ----------
    rod, tendon : an eyelet tendon (``sheath=False``) of ``rod``
    q : (3N,) state
    motor_tension : float >= 0
    mu : float >= 0, friction coefficient; ``mu theta_total <= 700`` when "unloading"
        (beyond it ``e^{mu theta}`` overflows a float)
    direction : {"loading", "unloading"}

    Raises
    ------
    ValueError
        Naming ``mu`` (negative, NaN, inf, or ``mu theta_total > 700`` when unloading),
        ``motor_tension``, ``direction``, ``tendon`` (a sheath tendon), ``rod`` or ``q``.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(4)
    >>> capstan_tensions(r, make_tendon(r, 0.02), rd.straight(r), 2.0, 0.2).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0]
    """
    _eyelet_tendon(_check_rod(rod), tendon)
    q = _check_q(rod, q)
    tau_m = checks.nonnegative(motor_tension, "motor_tension")
    mu = checks.nonnegative(mu, "mu")
    sgn = -1.0 if checks.choice(direction, "direction", _DIRECTIONS) == "loading" else 1.0
    theta = np.concatenate([[0.0], np.cumsum(_wrap(rod, tendon, q))])
    if sgn > 0 and mu * theta[-1] > _MAX_CAPSTAN:
        raise ValueError(f"mu must keep mu theta_total <= {_MAX_CAPSTAN:g} when unloading "
                         f"(e^(mu theta) overflows beyond it), got mu = {mu!r} with a total wrap "
                         f"theta_total = {theta[-1]:.6g} rad")
    return tau_m * np.exp(sgn * mu * theta)


def _seg_equilibrium(rod, tendon, seg, q, load, grav, tol, maxiter, where):
    """Newton at frozen segment tensions: the potential ``Pi_rod + sum_j seg_j l_j``."""
    fscale = max(rod.EI / rod.L, float(np.max(seg, initial=0.0)),
                 0.0 if load is None else float(np.abs(load).max()), abs(grav) * rod.rhoA * rod.L)
    floor = 8 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(64.0, rod.N)

    def energy(q):
        return _rod.energy(rod, q, load, grav) + float(seg @ _segments(rod, tendon, q)[4])

    def fun(q):
        g = _rod.gradient(rod, q, load, grav) + _tendon_gradient(rod, tendon, q, seg)
        return g, lambda: _tangent(rod, [tendon], [1.0], q, seg=seg)

    return newton_solve(fun, q, tol, maxiter, max_backtracks=33, where=where,
                        accept="energy-or-residual", scale=fscale, floor=floor,
                        roundoff="correction", xtol=1e-14 * rod.L, xtol_rel=0.0, energy=energy,
                        admissible=lambda q: _apart(rod, [tendon], q), spd=True)


def _friction_step(rod, tendon, tau_m, mu, old, q, load, grav, tol, maxiter, fp_tol, fp_maxiter,
                   where):
    """One quasi-static step: the fixed point of q -> equilibrium at the band-clipped
    tensions ``_chain(tau_m, mu, wrap(q), old)``.  Returns (q, segment tensions, iterations)."""
    seg = _chain(tau_m, mu, _wrap(rod, tendon, q), old)
    for it in range(1, fp_maxiter + 1):
        q, _ = _seg_equilibrium(rod, tendon, seg, q, load, grav, tol, maxiter, where)
        new = _chain(tau_m, mu, _wrap(rod, tendon, q), old)
        change = float(np.abs(new - seg).max(initial=0.0))
        seg = new
        if change <= fp_tol * max(tau_m, _TINY):
            q, _ = _seg_equilibrium(rod, tendon, seg, q, load, grav, tol, maxiter, where)
            # stable at the frozen tensions, as static_path's equilibria must be
            _check_stable(_tangent(rod, [tendon], [1.0], q, seg=seg), [tendon],
                          [float(seg.max(initial=0.0))], rod, where, None, None, None, _REMEDY2)
            return q, seg, it
    raise ActuationSolveError(where=where, iteration=fp_maxiter, residual=change,
                              tol=fp_tol * tau_m, reason="maxiter",
                              message="the tension / wrap-angle fixed point did not settle")


def _friction_args(rod, tendon, mu, load, grav, q0, tol, maxiter, fp_tol, fp_maxiter):
    _eyelet_tendon(_check_rod(rod), tendon)
    mu = checks.nonnegative(mu, "mu")
    load, grav = _check_loads(load, grav)
    q = _rod.straight(rod) if q0 is None else _check_q(rod, q0, "q0")
    return (mu, load, grav, q, checks.nonnegative(tol, "tol"),
            checks.integer(maxiter, "maxiter", low=0), checks.nonnegative(fp_tol, "fp_tol"),
            checks.integer(fp_maxiter, "fp_maxiter", low=1))


@_solve_errors
def friction_static(rod, tendon, motor_tension, mu, direction="loading", steps=10, load=None,
                    grav=0.0, q0=None, tol=1e-10, maxiter=50, fp_tol=1e-12, fp_maxiter=200):
    r"""Equilibrium under a tendon slipping through its eyelets with capstan friction.

    Each segment j between eyelets carries its own tension ``tau_j`` and the eyelets
    take the forces ``tau_{j-1} u_{j-1} - tau_j u_j`` (the anchor ``tau_last u_last``):
    the generalised force is ``sum_j tau_j d l_j / dq``.  With the cable sliding in
    ``direction`` everywhere, ``tau_j = tau_m e^{-+ mu theta_j(q)}``
    (:func:`capstan_tensions`); the equilibrium is the fixed point of
    "solve the rod at frozen segment tensions (Newton, symmetric tangent of
    ``Pi_rod + sum_j tau_j l_j``)" and "re-evaluate the tensions from the wrap angles",
    reached along ``steps`` equal motor-tension increments.  ``mu = 0`` is
    :func:`static` with one tendon (to round-off).

    Parameters
    ----------
    rod, tendon : an eyelet tendon (``sheath=False``) of ``rod``
    motor_tension : float >= 0
    mu : float >= 0
    direction : {"loading", "unloading"}
    steps : int >= 1; load, grav : as in :func:`static`; q0 : optional start state
    tol, maxiter : Newton per frozen-tension solve (as in :func:`static`)
    fp_tol, fp_maxiter : the fixed point stops when no segment tension moves by more
        than ``fp_tol * motor_tension``

    Returns
    -------
    q : (3N,) equilibrium; tensions : (M-1,) segment tensions, motor first

    Raises
    ------
    ValueError
        Naming a bad argument (``mu < 0``, a sheath tendon, NaN; ``mu`` so large that the
        tensions ``e^(mu theta)`` overflow along the path, unloading).
    ActuationSolveError
        Newton or the fixed point did not converge; or ``reason="unstable equilibrium"``
        if a step's equilibrium is not stable at its frozen segment tensions (as
        :func:`static_path` refuses).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> q, tau = friction_static(r, make_tendon(r, 0.04), 10.0, 0.2, steps=2)
    >>> round(float(tau[-1] / tau[0]), 3), round(float(np.exp(-0.2 * wrap_angles(r, make_tendon(r, 0.04), q).sum())), 3)
    (0.931, 0.931)
    """
    mu, load, grav, q, tol, maxiter, fp_tol, fp_maxiter = _friction_args(
        rod, tendon, mu, load, grav, q0, tol, maxiter, fp_tol, fp_maxiter)
    tau1 = checks.nonnegative(motor_tension, "motor_tension")
    loading = checks.choice(direction, "direction", _DIRECTIONS) == "loading"
    steps = checks.integer(steps, "steps", low=1)
    old = np.full(tendon.n_eyelets - 1, 0.0 if loading else np.inf)
    where = "actuation.friction_static"
    seg = None
    for i, tm in enumerate(np.linspace(0.0, tau1, steps + 1)[1:], 1):
        try:
            q, seg, _ = _friction_step(rod, tendon, tm, mu, old, q, load, grav, tol, maxiter,
                                       fp_tol, fp_maxiter, where)
        except SolveError as err:
            raise err.located(step=i, nsteps=steps) from err
    return q, seg


@_solve_errors
def friction_sweep(rod, tendon, motor_tensions, mu, load=None, grav=0.0, q0=None, tensions0=None,
                   tol=1e-10, maxiter=50, fp_tol=1e-12, fp_maxiter=200, max_cuts=4):
    r"""Quasi-static sweep of the motor tension with capstan stick-slip at the eyelets.

    Model (a rigid cable, Coulomb friction at each eyelet, quasi-static): between two
    motor tensions a segment's tension can move only within the band of the capstan
    inequality ``|d ln tau| <= mu d theta``; going from the motor to the anchor,

    .. math:: \tau_0 = \tau_m,\qquad
              \tau_j = \operatorname{clip}\bigl(\tau_j^{\text{old}},\;
              \tau_{j-1} e^{-\mu\alpha_j},\; \tau_{j-1} e^{\mu\alpha_j}\bigr),

    so a segment whose old tension lies inside the band sticks (its tension frozen) and
    one pushed to an edge slides (loading: lower edge, unloading: upper edge).  The turning
    angles ``alpha_j`` are those of the new state: each step is the fixed point of
    :func:`friction_static`'s two stages with the clip in place of the slipping law.
    The result depends (weakly) on the motor-tension steps, since the band moves with
    the shape within a step: the loop area of a 20-element rod curled to 1.3 pi at
    mu = 0.2 is 0.45 % larger with 40 steps per branch than with 10.  Large steps at high
    ``mu`` x wrap can defeat the frozen-tension Newton: a step that fails is split in two
    (not recorded), up to ``max_cuts`` times in a row, before the error names the step.

    Parameters
    ----------
    rod, tendon : an eyelet tendon (``sheath=False``) of ``rod``
    motor_tensions : (n,) motor tensions >= 0, in order (e.g. up then down)
    mu : float >= 0
    load, grav, q0, tol, maxiter, fp_tol, fp_maxiter : as in :func:`friction_static`
    tensions0 : (M-1,) optional segment tensions at ``q0`` (default 0: a slack start)
    max_cuts : int >= 0, halvings of a failed step (0: none)

    Returns
    -------
    Q : (n, 3N) equilibria; T : (n, M-1) segment tensions, motor first

    Raises
    ------
    ValueError
        Naming a bad argument.
    ActuationSolveError
        Newton or the fixed point did not converge at a step (it is named), or a step's
        equilibrium is not stable (``reason="unstable equilibrium"``, as in
        :func:`friction_static`).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> t = make_tendon(r, 0.04)
    >>> Q, T = friction_sweep(r, t, [5.0, 10.0, 5.0], 0.3)
    >>> [round(float(Q[i, -3]), 3) for i in range(3)]      # tip angle: up, top, down (higher)
    [0.187, 0.37, 0.198]
    """
    mu, load, grav, q, tol, maxiter, fp_tol, fp_maxiter = _friction_args(
        rod, tendon, mu, load, grav, q0, tol, maxiter, fp_tol, fp_maxiter)
    tm = checks.vector(motor_tensions, "motor_tensions", low=0.0)
    if tm.size == 0:
        raise ValueError("motor_tensions must hold at least one motor tension, got none")
    old = (np.zeros(tendon.n_eyelets - 1) if tensions0 is None else
           checks.vector(tensions0, "tensions0", tendon.n_eyelets - 1, low=0.0))
    max_cuts = checks.integer(max_cuts, "max_cuts", low=0)
    where = "actuation.friction_sweep"

    def advance(t0, t1, q, old, cuts):
        """From motor tension t0 to t1; a failed step is split in two (``cuts`` left)."""
        try:
            return _friction_step(rod, tendon, t1, mu, old, q, load, grav, tol, maxiter,
                                  fp_tol, fp_maxiter, where)[:2]
        except SolveError:
            if cuts == 0:
                raise
        mid = 0.5 * (t0 + t1)
        q, old = advance(t0, mid, q, old, cuts - 1)
        return advance(mid, t1, q, old, cuts - 1)

    Q, T = [], []
    t_prev = float(tm[0])
    for i, t in enumerate(tm):
        try:
            q, old = advance(t_prev, float(t), q, old, max_cuts)
        except SolveError as err:
            raise err.located(step=i + 1, nsteps=tm.size) from err   # counted from 1
        t_prev = float(t)
        Q.append(q)
        T.append(old)
    return np.array(Q), np.array(T)


@dataclass(frozen=True)
class CableResult:
    """Equilibrium of a displacement-controlled cable (:func:`cable_stroke_static`).

    Attributes
    ----------
    q : (3N,) equilibrium
    tension : float, >= 0 (0 when slack)
    slack : bool, the cable is longer than its path (``tension == 0``)
    switch_stroke : float, the stroke at which the cable becomes taut (its path length
        in the tension-free equilibrium, ``l_ref - l_t(q_free)``)
    """

    q: np.ndarray
    tension: float
    slack: bool
    switch_stroke: float


def _stroke_system(rod, tendon, free_length, compliance, load, grav):
    """``fun(x) -> (R, J)`` of the taut cable on ``x = [q, tau]``:
    ``R = [grad Pi_rod + tau dl/dq, l(q) - free_length - compliance tau]``."""
    n = rod.ndof

    def fun(x):
        q, tau = x[:n], x[n]
        g = _tendon_gradient(rod, tendon, q)
        R = np.concatenate([_rod.gradient(rod, q, load, grav) + tau * g,
                            [_length(rod, tendon, q) - free_length - compliance * tau]])

        def jac():
            H = _tendon_hessian(rod, tendon, q)
            return sp.bmat([[_rod.hessian(rod, q) + tau * H, g[:, None]],
                            [g[None, :], [[-compliance]]]], format="csc")
        return R, jac
    return fun


@_solve_errors
def cable_stroke_static(rod, tendon, stroke, stiffness=None, steps=10, load=None, grav=0.0,
                        q0=None, tol=1e-10, maxiter=50):
    r"""Equilibrium of the rod under a displacement-controlled (length-controlled) cable.

    The motor reels in ``stroke`` of cable from its length ``l_ref`` along the straight
    rod, so ``L_c = l_ref - stroke`` of unstretched cable lies between motor and anchor;
    with a series spring of stiffness ``k_t`` (tendon elasticity) it stretches by
    ``tau / k_t``.  The tension is the Lagrange multiplier of the length constraint,
    with the complementarity of a cable that can only pull:

    .. math::
        \nabla\Pi_{\text{rod}}(q) + \tau\,\frac{\partial\ell_t}{\partial q} = 0,\qquad
        \ell_t(q) - L_c - \tau / k_t \le 0,\quad \tau \ge 0,\quad
        \tau\,\bigl(\ell_t(q) - L_c - \tau/k_t\bigr) = 0 .

    The tension-free equilibrium ``q_free`` (loads only) is solved first; if its path
    is no longer than ``L_c`` the cable is slack (``tension = 0``, ``slack = True``: a
    result, not an error).  Else the taut system in ``(q, tau)`` (symmetric indefinite
    tangent ``[[K + tau d2l, dl], [dl^T, -1/k_t]]``) is solved by Newton along the
    stroke from the switch stroke ``l_ref - l_t(q_free)`` to ``stroke`` in ``steps``
    increments (plain Newton, the line search as a fallback: the residual mixes forces
    and a length, so its norm need not fall on the way to the solution).

    Parameters
    ----------
    rod, tendon : a tendon of ``rod`` (eyelets or sheath; frictionless)
    stroke : float, reeled-in length (may be negative: paid out)
    stiffness : float > 0 or None (default: an inextensible cable)
    steps : int >= 1; load, grav : as in :func:`static`; q0 : optional start state
    tol, maxiter : Newton (per increment)

    Returns
    -------
    CableResult

    Raises
    ------
    ValueError
        Naming a bad argument (NaN stroke, a stroke of the whole cable ``>= l_ref``,
        ``stiffness <= 0``).
    ActuationSolveError
        Newton did not converge, or the taut solution needs a compressive cable.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> t = make_tendon(r, 0.04)
    >>> res = cable_stroke_static(r, t, 0.01)
    >>> res.slack, round(res.tension, 3), cable_stroke_static(r, t, -0.01).slack
    (False, 5.133, True)
    """
    _check_tendon(_check_rod(rod), tendon)
    stroke = checks.real(stroke, "stroke")
    k = None if stiffness is None else checks.positive(stiffness, "stiffness")
    steps = checks.integer(steps, "steps", low=1)
    load, grav = _check_loads(load, grav)
    q = _rod.straight(rod) if q0 is None else _check_q(rod, q0, "q0")
    tol, maxiter = checks.nonnegative(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    compliance = 0.0 if k is None else 1.0 / k
    where = "actuation.cable_stroke_static"
    l_ref = _length(rod, tendon, _rod.straight(rod))
    if stroke >= l_ref:
        raise ValueError(f"stroke must be shorter than the cable's path along the straight rod, "
                         f"l_ref = {l_ref:.6g}, got {stroke!r} (no cable would be left)")
    zero = np.zeros(1)
    if load is None and grav == 0.0 and q0 is None:
        q_free = q
    else:
        q_free = _path(rod, [tendon], zero, zero, steps, q, q0 is None, load, grav, tol,
                       maxiter, where="actuation.cable_stroke_static")[1][-1]
    switch = l_ref - _length(rod, tendon, q_free)
    if stroke <= switch:
        return CableResult(q_free, 0.0, True, float(switch))
    fscale = max(rod.EI / rod.L, 0.0 if load is None else float(np.abs(load).max()),
                 abs(grav) * rod.rhoA * rod.L)
    floor = 8 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(64.0, rod.N)
    n = rod.ndof
    scale = np.full(n + 1, fscale)
    scale[n] = rod.L
    floors = np.full(n + 1, floor)
    floors[n] = 64 * np.finfo(float).eps * rod.L

    def solve_at(lam, x):
        s = switch + lam * (stroke - switch)
        fun = _stroke_system(rod, tendon, l_ref - s, compliance, load, grav)
        sc = scale.copy()
        sc[:n] = max(fscale, abs(x[n]))
        return newton_solve(fun, x, tol, maxiter, line_search="fallback", max_backtracks=33,
                            where=where, accept="residual", scale=sc,
                            floor=floors, roundoff="correction", xtol=1e-14 * rod.L,
                            xtol_rel=0.0, admissible=lambda x: _apart(rod, [tendon], x[:n]))

    x, _ = load_path(solve_at, np.concatenate([q_free, [0.0]]), steps=steps, where=where)
    if x[n] < 0:
        raise ActuationSolveError(where=where, reason="compressive cable",
                                  message=f"the taut solution needs tension {x[n]:.3e} < 0")
    return CableResult(x[:n], float(x[n]), False, float(switch))


# --------------------------------------------------------------------------------------
# 3-D routing: tendons on the 3-D rod (lib.rod3d)
# --------------------------------------------------------------------------------------
# Eyelet j sits at arc length s_j with the offset r_j = (0, d2_j, d3_j) in its section
# frame: p_j = c_j + R_j r_j, c_j the centreline point interpolated along its element
# (as the planar eyelets), R_j the section frame interpolated between element centres
# along the geodesic, R_j = R_a exp(eta_j hat(theta_j)), theta_j = log(R_a^T R_b) (the
# clamp frame, the identity, below the first centre; R_{N-1} past the rod's last centre;
# halfway between R_{k-1} and R_k at an interior anchor node k; at a centre, that
# element's frame).  In the plane this is the planar eyelets' linear angle
# interpolation, so a straight in-plane tendon on the 3-D rod is the planar tendon.
@dataclass(frozen=True, eq=False)
class Tendon3D:
    """A frictionless tendon routed through eyelets on a 3-D rod (made by :func:`make_tendon3d`).

    Attributes
    ----------
    N : int
        Element count of the :class:`lib.rod3d.Rod3D` it belongs to.
    anchor : int
        Node k where the tendon ends (1..N; N is the tip).
    s : (M,) arc lengths of the eyelets, clamp first and anchor last.
    r : (M, 3) offsets in the section frames, ``(0, d2, d3)`` (the components along the
        section axes d2, d3 of :mod:`lib.rod3d`).
    turn_rate : float
        The rate (rad per unit arc length) at which the offset of :func:`make_tendon3d`
        turns about the centreline (0: straight routing; a helix of pitch
        ``2 pi / turn_rate``).
    nodes, weights : (M, 2) the nodes (0: the clamp) whose weighted sum is each eyelet's
        centreline point.
    elem, elem_b : (M,) the elements ``a`` and ``b`` whose frames the section frame
        interpolates (-1: the clamp frame for ``a``, none for ``b``).
    eta : (M,) the interpolation weight of the section frame,
        ``R_a exp(eta log(R_a^T R_b))``: ``2 s/ell`` below the first centre (``a`` the
        clamp, ``b`` element 0), ``s/ell - (i + 1/2)`` between the centres of elements
        ``a = i`` and ``b = i + 1`` (1/2 at an interior anchor node), 0 at a centre and
        past the rod's last centre (frame ``a``).
    L, radius : float
        Length and section radius of the rod it was made for.
    """

    N: int
    anchor: int
    s: np.ndarray
    r: np.ndarray
    turn_rate: float
    nodes: np.ndarray
    weights: np.ndarray
    elem: np.ndarray
    elem_b: np.ndarray
    eta: np.ndarray
    _cols: np.ndarray = field(repr=False)
    L: float = None
    radius: float = None

    @property
    def n_eyelets(self) -> int:
        return self.s.size


def _check_rod3d(rod):
    return checks.kind(rod, "rod", _rod3d.Rod3D,
                       "a 3-D rod (lib.rod3d.Rod3D, made by lib.rod3d.make_rod3d)")


#: the largest turn of a helical offset between consecutive eyelets (make_tendon3d)
_MAX_TURN = 0.5 * np.pi


def make_tendon3d(rod, offset, anchor=None, eyelets=None, turn_rate=0.0):
    r"""A tendon on the 3-D rod through eyelets with offsets in the section frame.

    Eyelet j at arc length ``s_j`` holds the tendon at

    .. math::
        p_j = c(s_j) + R(s_j)\, r_j,\qquad r_j = \bigl(0,\ d_2(s_j),\ d_3(s_j)\bigr),

    with ``c`` the centreline interpolated along the element and ``R`` the section frame
    interpolated between element centres along the geodesic (module section "3-D
    routing"), ``R = R_a exp(eta log(R_a^T R_b))`` with the weight ``eta`` (attribute
    :attr:`Tendon3D.eta`): ``2 s/ell`` below the first centre (from the clamp frame to
    element 0's), ``s/ell - (i + 1/2)`` between the centres of elements i and i + 1 (so
    an interior anchor node k takes the frame halfway between ``R_{k-1}`` and ``R_k``);
    an eyelet past the rod's last centre (only below a tip anchor) takes ``R_{N-1}``, the
    last element's frame.  An eyelet within ``5e-10 ell`` of an element centre or a node
    is moved onto it.  Between eyelets the tendon is straight.  The offset may turn about the
    centreline (helical routing):

    .. math:: (d_2, d_3)(s) = \operatorname{Rot}(\omega s)\,(d_2, d_3)(0),\qquad
              \omega = \texttt{turn\_rate} = 2\pi / \text{pitch},

    or be given eyelet by eyelet (``offset`` of shape (M, 2)).  A straight tendon with
    ``d3 = 0`` on a planar state is the planar :func:`make_tendon` with ``d = d2``.  A
    helix may turn by at most pi/2 between consecutive eyelets (beyond it the chords
    cut through the section, and past pi the helix aliases): add eyelets for a tighter
    pitch.  Equal tensions on tendons spaced evenly round the section give no bending
    only for straight routing: on helices of one hand they twist the rod (the section
    moment ``3 tau d^2 omega / sqrt(1 + d^2 omega^2)`` for three).

    Parameters
    ----------
    rod : lib.rod3d.Rod3D
    offset : (2,) or (M, 2) array_like
        ``(d2, d3)`` at the clamp (turned by ``turn_rate``), or one row per eyelet
        (clamp, the ``eyelets``, anchor; ``turn_rate`` must then be 0); every
        ``|(d2, d3)| <= r`` (inside the section).
    anchor : int, optional
        Node 1..N where the tendon is tied (default N, the tip).
    eyelets : sequence of float, optional
        Arc lengths strictly inside ``(0, anchor ell)``, strictly increasing (default:
        the element centres); the clamp and anchor eyelets are always there.
    turn_rate : float
        Turning rate of the offset about the centreline, rad per unit arc length; at
        most ``pi/2`` over the widest gap between consecutive eyelets.

    Returns
    -------
    Tendon3D

    Raises
    ------
    ValueError
        Naming the argument: a planar rod, an offset outside the section or of the wrong
        shape, NaN, a bool or a string, ``anchor`` not a node, ``eyelets`` not
        increasing (gaps above ``1e-9 ell``) or outside ``(0, anchor ell)``, ``turn_rate``
        turning more than pi/2 between consecutive eyelets.

    Examples
    --------
    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(4)
    >>> t = make_tendon3d(rod, (0.0, 0.02), turn_rate=np.pi)       # half a turn over L
    >>> t.s.tolist()
    [0.0, 0.125, 0.375, 0.625, 0.875, 1.0]
    >>> (t.r[-1].round(12) + 0.0).tolist()                          # d3 = 0.02 -> -0.02
    [0.0, 0.0, -0.02]
    """
    N = _check_rod3d(rod).N
    k = N if anchor is None else checks.integer(anchor, "anchor", 1, N)
    ell = rod.ell
    omega = checks.real(turn_rate, "turn_rate")
    s_inner = _inner_eyelets(eyelets, k, ell)
    s, nodes, weights, elem, elem_b, aw = _eyelet_arrays(ell, k, s_inner, N)
    if eyelets is None:
        s[1:-1] = s_inner
    M = s.size
    turn = abs(omega) * float(np.diff(s).max())
    if turn > _MAX_TURN:
        raise ValueError(f"turn_rate must turn the offset by at most pi/2 between consecutive "
                         f"eyelets (a chord between eyelets further round the section cuts "
                         f"through it, and beyond pi the helix aliases to one turning the other "
                         f"way), got {omega!r}: {turn:.4g} rad over the widest eyelet gap "
                         f"{float(np.diff(s).max()):.4g}; add eyelets or use more elements")
    off = checks.array(offset, "offset")
    if off.shape == (2,):
        c, sn = np.cos(omega * s), np.sin(omega * s)
        d = np.column_stack([c * off[0] - sn * off[1], sn * off[0] + c * off[1]])
    elif off.shape == (M, 2):
        if omega != 0.0:
            raise ValueError(f"turn_rate must be 0 when offset gives every eyelet's offset, "
                             f"got {omega!r}")
        d = off
    else:
        raise ValueError(f"offset must have shape (2,) or ({M}, 2) (one row per eyelet), got "
                         f"shape {off.shape}")
    radius = rod.r_over_L * rod.L
    far = np.hypot(d[:, 0], d[:, 1]).max()
    if far > radius * (1 + 1e-12):
        raise ValueError(f"offset must stay inside the section, |(d2, d3)| <= r = {radius:.6g}, "
                         f"got {far:.6g}")
    r = np.column_stack([np.zeros(M), d])
    eta = np.where(elem_b >= 0, aw[:, 1], 0.0)
    # columns of the local unknowns: x of the two nodes, psi_a, psi_b (-1: none)
    col3 = lambda base: base[:, None] + np.arange(3)[None, :]
    cols = np.concatenate([col3(6 * nodes[:, 0] - 3), col3(6 * nodes[:, 1] - 3),
                           col3(6 * elem), col3(6 * elem_b)], axis=1)
    none = np.column_stack([np.repeat(nodes < 1, 3, axis=1), np.repeat(elem[:, None] < 0, 3, axis=1),
                            np.repeat((elem_b[:, None] < 0) | (eta[:, None] == 0), 3, axis=1)])
    cols[none] = -1
    for a in (s, r, nodes, weights, elem, elem_b, eta, cols):
        a.setflags(write=False)
    return Tendon3D(N=N, anchor=k, s=s, r=r, turn_rate=float(omega), nodes=nodes,
                    weights=weights, elem=elem, elem_b=elem_b, eta=eta, _cols=cols,
                    L=float(rod.L), radius=float(radius))


def _check_tendon3d(rod, tendon, name="tendon"):
    checks.kind(tendon, name, Tendon3D, "a Tendon3D (made by make_tendon3d; a planar Tendon "
                                        "belongs to lib.rod)")
    if tendon.N != _check_rod3d(rod).N:
        raise ValueError(f"{name} was made for a rod of N = {tendon.N} elements, rod has "
                         f"N = {rod.N}")
    _same_geometry(tendon, rod.L, rod.r_over_L * rod.L, name)
    return rod


def _state3d(rod, state, name="state"):
    """A state ``(x, Q)`` of the 3-D rod, checked as :mod:`lib.rod3d` checks its states."""
    return _rod3d.State(*checks.poses(state, name, rod.N, rod.N, tol=_rod3d.QUAT_TOL))


def _rodrigues(t):
    """``A = sin t / t``, ``B = (1 - cos t) / t^2`` and ``a1 = A'/t``, ``a2 = a1'/t``,
    ``b1 = B'/t``, ``b2 = b1'/t`` (series below t = 1, 10 terms: error < 1e-17)."""
    t = np.asarray(t, dtype=float)
    small = t < 1.0
    ts = np.where(small, 1.0, t)
    sn, cs = np.sin(ts), np.cos(ts)
    A = sn / ts
    B = (1 - cs) / ts**2
    a1 = (ts * cs - sn) / ts**3
    a2 = (3 * sn - 3 * ts * cs - ts**2 * sn) / ts**5
    b1 = (ts * sn - 2 * (1 - cs)) / ts**4
    b2 = (ts**2 * cs - 5 * ts * sn + 8 * (1 - cs)) / ts**6
    t2 = t * t
    out = [np.zeros_like(t) for _ in range(6)]
    fact = [math.factorial(i) for i in range(25)]
    for n in range(10):
        sg, p = (-1) ** n, t2**n
        out[0] += sg * p / fact[2 * n + 1]
        out[1] += sg * p / fact[2 * n + 2]
        m = n + 1                          # a1, b1: sum_{m>=1} (-1)^m 2m t^{2m-2}/(2m+1)!
        out[2] += (-1) ** m * 2 * m * p / fact[2 * m + 1]
        out[3] += (-1) ** m * 2 * m * p / fact[2 * m + 2]
        m = n + 2                          # a2, b2: sum_{m>=2} (-1)^m 2m(2m-2) t^{2m-4}/...
        out[4] += (-1) ** m * 2 * m * (2 * m - 2) * p / fact[2 * m + 1]
        out[5] += (-1) ** m * 2 * m * (2 * m - 2) * p / fact[2 * m + 2]
    sA, sB, sa1, sb1, sa2, sb2 = out
    return (np.where(small, sA, A), np.where(small, sB, B), np.where(small, sa1, a1),
            np.where(small, sa2, a2), np.where(small, sb1, b1), np.where(small, sb2, b2))


_SEGMENTS3 = weakref.WeakKeyDictionary()


def _frames3d(rod, tendon, state):
    """Per eyelet: p (M, 3), R_a (M, 3, 3), v = exp(w) r (M, 3), w = eta theta, theta,
    the Rodrigues coefficients and Vw = d(exp(w) r)/dw (M, 3, 3).  Cached per tendon for
    the last state (length, gradient and Hessian are asked for in turn)."""
    x, Q = state
    key = (x.tobytes(), Q.tobytes())
    last = _SEGMENTS3.get(tendon)
    if last is not None and last[0] == key:
        return last[1]
    X = np.vstack([np.zeros(3), x])
    Qa = np.vstack([[1.0, 0.0, 0.0, 0.0], Q])
    qa = Qa[tendon.elem + 1]
    qb = Qa[tendon.elem_b + 1]
    theta = _so3.quat_log(_so3.quat_mul(_so3.conj(qa), qb))
    theta[tendon.eta == 0] = 0.0
    w = tendon.eta[:, None] * theta
    t = np.linalg.norm(w, axis=1)
    A, B, a1, a2, b1, b2 = _rodrigues(t)
    r = tendon.r
    wr = _so3.cross(w, r)
    wwr = _so3.cross(w, wr)
    v = r + A[:, None] * wr + B[:, None] * wwr
    Ra = _so3.rotmat(qa)
    wd = tendon.weights
    c = wd[:, :1] * X[tendon.nodes[:, 0]] + wd[:, 1:] * X[tendon.nodes[:, 1]]
    p = c + np.einsum("mij,mj->mi", Ra, v)
    I3 = np.eye(3)
    Vw = (a1[:, None, None] * wr[:, :, None] * w[:, None, :] - A[:, None, None] * _so3.hat(r)
          + b1[:, None, None] * wwr[:, :, None] * w[:, None, :]
          + B[:, None, None] * (w[:, :, None] * r[:, None, :]
                                + np.einsum("mi,mi->m", w, r)[:, None, None] * I3
                                - 2 * r[:, :, None] * w[:, None, :]))
    out = dict(p=p, Ra=Ra, v=v, w=w, theta=theta, coef=(A, B, a1, a2, b1, b2), Vw=Vw)
    _SEGMENTS3[tendon] = (key, out)
    return out


def _chords3d(fr):
    """Segments between eyelets: lengths (M-1,) and unit directions (M-1, 3); NaN
    directions where two eyelets coincide (the length is not differentiable there)."""
    dv = np.diff(fr["p"], axis=0)
    ln = np.linalg.norm(dv, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = dv / ln[:, None]
    return ln, u


def _jacobians3d(tendon, fr):
    """dp_j / d(local unknowns), (M, 3, 12): x of the two nodes, psi_a, psi_b."""
    M = tendon.n_eyelets
    Jp = np.zeros((M, 3, 12))
    wd = tendon.weights
    I3 = np.eye(3)
    Jp[:, :, 0:3] = wd[:, 0, None, None] * I3
    Jp[:, :, 3:6] = wd[:, 1, None, None] * I3
    eta = tendon.eta[:, None, None]
    Jl, Jr = np.broadcast_to(np.eye(3), (M, 3, 3)).copy(), np.zeros((M, 3, 3))
    mid = tendon.eta > 0                          # interpolated frames only (log map)
    if np.any(mid):
        Jl[mid], Jr[mid] = _so3.jinv(fr["theta"][mid], -1.0), _so3.jinv(fr["theta"][mid], +1.0)
    Ra, Vw = fr["Ra"], fr["Vw"]
    Jp[:, :, 6:9] = Ra @ (-_so3.hat(fr["v"]) - eta * (Vw @ Jl))
    Jp[:, :, 9:12] = Ra @ (eta * (Vw @ Jr))
    return Jp, Jl, Jr


def _length3d(rod, tendon, state):
    return float(_chords3d(_frames3d(rod, tendon, state))[0].sum())


def _forces3d(fr, u, seg=None):
    """``F_j = dl/dp_j = u_{j-1} - u_j`` (M, 3) (``seg``: per-segment weights)."""
    if seg is not None:
        u = seg[:, None] * u
    F = np.zeros_like(fr["p"])
    F[1:] += u
    F[:-1] -= u
    return F


def _tendon3d_gradient(rod, tendon, state):
    fr = _frames3d(rod, tendon, state)
    _, u = _chords3d(fr)
    F = _forces3d(fr, u)
    Jp, _, _ = _jacobians3d(tendon, fr)
    val = np.einsum("mij,mi->mj", Jp, F)
    cols = tendon._cols
    keep = cols >= 0
    return np.bincount(cols[keep], weights=val[keep], minlength=rod.ndof)


def _pattern3d(rod, tendon):
    """The fixed sparsity of a 3-D tendon's Hessian (cached per tendon)."""
    pat = _PATTERNS.get(tendon)
    if pat is None:
        cols = tendon._cols
        cs = np.concatenate([cols[:-1], cols[1:]], axis=1)        # (M-1, 24)
        rr = np.broadcast_to(cs[:, :, None], cs.shape + (24,))
        cc = np.broadcast_to(cs[:, None, :], rr.shape)
        keep = (rr >= 0) & (cc >= 0)
        re = np.broadcast_to(cols[:, :, None], cols.shape + (12,))
        ce = np.broadcast_to(cols[:, None, :], re.shape)
        keep_e = (re >= 0) & (ce >= 0)
        pat = dict(_csr_pattern(np.concatenate([rr[keep], re[keep_e]]),
                                np.concatenate([cc[keep], ce[keep_e]]), rod.ndof),
                   keep=keep, keep_e=keep_e)
        _PATTERNS[tendon] = pat
    return pat


def _tendon3d_hessian(rod, tendon, state, symmetrise=True):
    fr = _frames3d(rod, tendon, state)
    ln, u = _chords3d(fr)
    F = _forces3d(fr, u)
    Jp, Jl, Jr = _jacobians3d(tendon, fr)
    M = tendon.n_eyelets
    # chords: G^T (I - u u^T) G / l with G the segment Jacobian
    Js = np.concatenate([-Jp[:-1], Jp[1:]], axis=2)                # (M-1, 3, 24)
    P = (np.eye(3)[None] - u[:, :, None] * u[:, None, :]) / ln[:, None, None]
    He = np.swapaxes(Js, 1, 2) @ (P @ Js)
    # eyelets: F_j . d2 p_j / dz2 over (psi_a, psi_b), h = f . exp(a) exp(eta theta(a, b)) r
    Ra, v, w, Vw, r = fr["Ra"], fr["v"], fr["w"], fr["Vw"], tendon.r
    A, B, a1, a2, b1, b2 = fr["coef"]
    eta = tendon.eta
    f = np.einsum("mji,mj->mi", Ra, F)                              # R_a^T F
    I3 = np.eye(3)
    fv = np.einsum("mi,mi->m", f, v)
    direct = _so3.sym(f[:, :, None] * v[:, None, :]) - fv[:, None, None] * I3
    k = _so3.cross(r, f)
    wk, wf, wr_, fr_ = (np.einsum("mi,mi->m", w, k), np.einsum("mi,mi->m", w, f),
                        np.einsum("mi,mi->m", w, r), np.einsum("mi,mi->m", f, r))
    ww = np.einsum("mi,mi->m", w, w)
    c2 = wf * wr_ - fr_ * ww
    gc2 = f * wr_[:, None] + r * wf[:, None] - 2 * fr_[:, None] * w
    Hc2 = f[:, :, None] * r[:, None, :] + r[:, :, None] * f[:, None, :] - 2 * fr_[:, None, None] * I3
    outer = lambda a, b: a[:, :, None] * b[:, None, :]
    Hg = (wk[:, None, None] * (a1[:, None, None] * I3 + a2[:, None, None] * outer(w, w))
          + a1[:, None, None] * (outer(w, k) + outer(k, w))
          + c2[:, None, None] * (b1[:, None, None] * I3 + b2[:, None, None] * outer(w, w))
          + b1[:, None, None] * (outer(w, gc2) + outer(gc2, w)) + B[:, None, None] * Hc2)
    m = eta[:, None] * np.einsum("mji,mj->mi", Vw, f)               # dG/dtheta
    K = (eta**2)[:, None, None] * Hg                                 # d2G/dtheta2
    Haa, Hab, Hbb = np.zeros((M, 3, 3)), np.zeros((M, 3, 3)), np.zeros((M, 3, 3))
    mid = eta > 0                                  # G depends on theta only there
    if np.any(mid):
        _, _, Haa[mid], Hab[mid], Hbb[mid] = _so3.log_terms(fr["theta"][mid], K[mid], m[mid], 2)
    D = -eta[:, None, None] * (_so3.hat(f) @ Vw)                     # d2h / da dtheta
    DJa = -(D @ Jl)
    Haa = Haa + direct + DJa + np.swapaxes(DJa, 1, 2)
    Hab = Hab + D @ Jr
    Hz = np.zeros((M, 12, 12))
    Hz[:, 6:9, 6:9] = Haa
    Hz[:, 6:9, 9:12] = Hab
    Hz[:, 9:12, 6:9] = np.swapaxes(Hab, 1, 2)
    Hz[:, 9:12, 9:12] = Hbb
    pat = _pattern3d(rod, tendon)
    vals = np.concatenate([He[pat["keep"]], Hz[pat["keep_e"]]])
    raw = np.bincount(pat["slot"], weights=vals, minlength=pat["indices"].size)
    return _pattern_matrix(rod, pat, raw, symmetrise)


def _strict3d(rod, tendon, state):
    """The checked state, with the eyelets apart (else the length is not differentiable)."""
    st = _state3d(_check_tendon3d(rod, tendon), state)
    ln, _ = _chords3d(_frames3d(rod, tendon, st))
    if np.any(ln <= 0):
        raise ValueError("state makes two consecutive eyelets coincide (tendon length not "
                         "differentiable)")
    return st


def eyelets3d(rod, tendon, state):
    """Eyelet positions ``p_j = c(s_j) + R(s_j) r_j`` of a 3-D tendon, shape (M, 3), clamp first.

    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(2)
    >>> eyelets3d(rod, make_tendon3d(rod, (0.01, 0.0)), r3.straight(rod)).round(3).tolist()
    [[0.0, 0.01, 0.0], [0.25, 0.01, 0.0], [0.75, 0.01, 0.0], [1.0, 0.01, 0.0]]
    """
    st = _state3d(_check_tendon3d(rod, tendon), state)
    return _frames3d(rod, tendon, st)["p"].copy()


def tendon3d_length(rod, tendon, state):
    r"""Length of a 3-D tendon, the chords between its eyelets: ``sum_j |p_{j+1} - p_j|``.

    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(10)
    >>> round(tendon3d_length(rod, make_tendon3d(rod, (0.02, 0.0), anchor=5), r3.straight(rod)), 12)
    0.5
    """
    return _length3d(rod, tendon, _strict3d(rod, tendon, state))


def tendon3d_gradient(rod, tendon, state):
    r"""``d ell_t / dq`` in the increments ``[psi_e, dx_{e+1}]`` of :mod:`lib.rod3d`, (6N,).

    Exponential coordinates centred on the state (``retract``): ``R_e -> R_e exp(hat psi_e)``,
    ``x -> x + dx``.  With ``F_j = u_{j-1} - u_j`` (unit chord directions) the gradient is
    ``sum_j (dp_j/dq)^T F_j``, where ``dp_j/dx_node = w I`` and, with
    ``v_j = exp(eta hat theta) r_j`` and ``V = d(exp(hat w) r)/dw`` at ``w = eta theta``,

    .. math::
        \frac{\partial p_j}{\partial\psi_a} = R_a\bigl(-\hat v_j - \eta V J_l^{-1}(\theta)\bigr),
        \qquad
        \frac{\partial p_j}{\partial\psi_b} = R_a\,\eta V J_r^{-1}(\theta)

    (``d theta / d psi_a = -J_l^{-1}``, ``d theta / d psi_b = J_r^{-1}``: the log map's
    Jacobians).  At an element centre (``eta = 0``) this is ``r_j x R_a^T F_j`` on ``psi_a``.

    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(2)
    >>> g = tendon3d_gradient(rod, make_tendon3d(rod, (0.01, 0.0)), r3.straight(rod))
    >>> g.reshape(2, 6).round(6).tolist()                 # lib.rod's [0, 0, 0, -0.01, 1, 0]
    [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, -0.01, 1.0, 0.0, 0.0]]
    """
    return _tendon3d_gradient(rod, tendon, _strict3d(rod, tendon, state))


def tendon3d_hessian(rod, tendon, state, symmetrise=True):
    r"""``d^2 ell_t / dq^2`` in the increments at zero (CSR, symmetric), in closed form.

    .. math::
        \frac{\partial^2\ell_t}{\partial q^2} = \sum_j G_j^{\top}\,\frac{I - u_j u_j^{\top}}{l_j}\,G_j
        + \sum_j \frac{\partial^2 (F_j\cdot p_j)}{\partial q^2}\Big|_{F_j\ \text{fixed}},

    ``G_j`` the chord's Jacobian.  The second term, with ``f = R_a^T F_j``,
    ``h(a, b) = f . exp(hat a) exp(eta hat theta(a, b)) r_j``: the rotation ``a`` directly
    (``sym(f v^T) - (f . v) I``), through the log map (:func:`lib.core.so3.log_terms`
    with ``d G/d theta`` and ``d^2 G/d theta^2`` of ``G = f . exp(eta hat theta) r``, from
    Rodrigues' formula ``exp(hat w) r = r + A w x r + B w x (w x r)``) and the mixed term
    ``-eta hat(f) V d theta``.  Note: the Newton tangent on the group is this plus
    ``hat(g_psi)/2`` (:func:`lib.rod3d.residual_tangent`); a difference of gradients
    along :func:`lib.rod3d.retract` measures that sum.  ``symmetrise=False`` returns the
    assembly as it is (its symmetry is then a check that can fail).

    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(3)
    >>> H = tendon3d_hessian(rod, make_tendon3d(rod, (0.01, 0.005)), r3.straight(rod))
    >>> H.shape, float(abs(H - H.T).max())
    ((18, 18), 0.0)
    """
    return _tendon3d_hessian(rod, tendon, _strict3d(rod, tendon, state),
                             checks.boolean(symmetrise, "symmetrise"))


def _tendon3d_list(rod, tendons, tensions, name="tensions"):
    tendons = _tendon_list(rod, tendons, Tendon3D, _check_tendon3d)
    return tendons, checks.array(tensions, name, shape=(len(tendons),), broadcast=True, low=0.0)


def _tendon3d_extra(rod, tendons, tau0, tau1):
    """rod3d.static's ``extra`` hook: ``sum_i tau_i(lam) ell_i`` with
    ``tau(lam) = tau0 + lam (tau1 - tau0)``; NaN where eyelets coincide (a failed trial)."""
    def extra(state, lam):
        tau = tau0 + lam * (tau1 - tau0)
        E, g = 0.0, np.zeros(rod.ndof)
        for t, ti in zip(tendons, tau):
            if ti:
                E += ti * _length3d(rod, t, state)
                g += ti * _tendon3d_gradient(rod, t, state)

        def hess():
            H = sp.csr_matrix((rod.ndof, rod.ndof))
            for t, ti in zip(tendons, tau):
                if ti:
                    Ht = _tendon3d_hessian(rod, t, state)
                    Ht.data *= ti
                    H = H + Ht
            return H
        return E, g, hess
    return extra


_REMEDY3 = ("use more elements (the limit grows as N^2), or a sheath (the planar "
            "make_tendon(..., sheath=True); no 3-D sheath is modelled)")


@_stall_hint
@_solve_errors
def static3d_path(rod, tendons, tensions, steps=10, load=None, grav=0.0, state0=None, tol=1e-10,
                  maxiter=50, tensions0=None):
    r"""Equilibria of the 3-D rod along a straight tension path, ``tensions0`` (default 0)
    to ``tensions``.

    :func:`lib.rod3d.static` with the tendons' potential ``sum_i tau_i ell_i`` in its
    ``extra`` hook: the same load path (:func:`lib.solvers.load_path`, uniform), Newton on
    the group (:func:`lib.solvers.newton_solve`, natural monotonicity test, right-
    trivialised tangent) and stopping rule, the force scale raised to the largest
    tension.  A separate function rather than a 3-D branch of :func:`static`: the planar
    functions take and return ``q`` (3N,) and refuse a 3-D rod, the 3-D ones a
    :class:`lib.rod3d.State` and refuse a planar rod (as :mod:`lib.rod` and
    :mod:`lib.rod3d` do).

    Parameters
    ----------
    rod : lib.rod3d.Rod3D
    tendons : Tendon3D or a sequence of them
    tensions : (m,) tensions >= 0 (a number stands for all)
    steps : int >= 1
    load, grav : tip load (3,) or (6,) and gravity, as in :func:`lib.rod3d.static`;
        they grow with the tensions
    state0 : optional start (default straight), the equilibrium under ``tensions0`` with
        no load (the loads grow from zero, as in :func:`lib.rod3d.static`)
    tol, maxiter : as in :func:`lib.rod3d.static`
    tensions0 : (m,) tensions >= 0 at ``state0`` (default None: 0), e.g. from a path
        that came before (:func:`static_path`'s ``tensions0`` for the planar rod)

    Returns
    -------
    taus : (steps + 1, m) tensions, row 0 the start
    states : list of steps + 1 :class:`lib.rod3d.State`

    Raises
    ------
    ValueError
        Naming a bad argument (a planar rod or tendon, a negative tension, NaN).
    ActuationSolveError
        A :class:`~lib.core.errors.SolveError` naming the load step, iteration, residual
        (with a hint, raise ``steps`` or ``maxiter``, where Newton stalled); or
        ``reason="unstable equilibrium"`` when an equilibrium's tangent is not positive
        definite (as :func:`static_path`; :func:`static3d` checks its last one only).

    Examples
    --------
    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(10)
    >>> taus, S = static3d_path(rod, [make_tendon3d(rod, (0.0, 0.04))], [5.0], steps=2)
    >>> taus[:, 0].tolist(), [round(float(s.x[-1, 2]), 4) for s in S]   # bends towards +d3
    ([0.0, 2.5, 5.0], [0.0, 0.0502, 0.1006])
    """
    return _static3d_path(rod, tendons, tensions, steps, load, grav, state0, tol, maxiter, True,
                          tensions0)


def _static3d_path(rod, tendons, tensions, steps, load, grav, state0, tol, maxiter, check_all,
                   tensions0=None):
    """:func:`static3d_path`, the stability of all its equilibria or only the last checked."""
    tendons, tau1 = _tendon3d_list(_check_rod3d(rod), tendons, tensions)
    tau0 = np.zeros_like(tau1) if tensions0 is None else _tendon3d_list(
        rod, tendons, tensions0, "tensions0")[1]
    steps = checks.integer(steps, "steps", low=1)
    state = _rod3d.straight(rod) if state0 is None else _state3d(rod, state0, "state0")
    load = _rod3d.check_load(load)
    grav = checks.real(grav, "grav")
    tol, maxiter = checks.positive(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    extra = _tendon3d_extra(rod, tendons, tau0, tau1)
    _, states = _rod3d.static(rod, load, grav, steps=steps, state0=state, tol=tol,
                              maxiter=maxiter, extra=extra,
                              extra_scale=float(max(tau1.max(initial=0.0), tau0.max(initial=0.0))),
                              record=True)
    taus = tau0[None, :] + np.linspace(0.0, 1.0, steps + 1)[:, None] * (tau1 - tau0)[None, :]
    for j, st in enumerate(states, start=1):     # at an equilibrium the tangent is symmetric
        if j < steps and not check_all:
            continue
        lam = j / steps
        K = _rod3d.hessian(rod, st, lam * load) + extra(st, lam)[2]()
        _check_stable(K, tendons, taus[j], rod, "actuation.static3d_path", j, steps, lam,
                      _REMEDY3)
    return taus, [state] + states


@_stall_hint
@_solve_errors
def static3d(rod, tendons, tensions, steps=10, load=None, grav=0.0, state0=None, tol=1e-10,
             maxiter=50, tensions0=None):
    """Equilibrium of the 3-D rod under tendon tensions: the last state of :func:`static3d_path`
    (the same arguments).

    Examples
    --------
    >>> from lib import rod3d as r3
    >>> rod = r3.make_rod3d(8)
    >>> s = static3d(rod, [make_tendon3d(rod, (0.03, 0.0))], [4.0], steps=1)
    >>> th = r3.quat_log(s.Q)[:, 2]                    # in-plane: angles about z
    >>> round(float(np.diff(th).mean() / rod.ell), 3)   # tau d2/EI = 0.12, plus O(1/N^2)
    0.122
    """
    return _static3d_path(rod, tendons, tensions, steps, load, grav, state0, tol, maxiter,
                          False, tensions0)[1][-1]


# ======================================================================================
# rod-level pneumatic chambers (issue 27): a chamber as a sheath tendon under -p A_c,
# its calibration from the FEM chamber, and where it stops agreeing
# ======================================================================================
# Derivation.  A chamber of cross-section area A_c (per unit thickness in the plane) runs
# along the rod at the section offset d_c, between the sections at nodes a and b.  Idealise
# its walls as inextensible across the rod (no bulging): the chamber is a prism on its
# offset line, so its volume is V_c(q) = A_c (l_b(q) - l_a(q)), where l_k is the length of
# a sheath path at offset d_c from the clamp to node k (module docstring, "A tendon in a
# continuous sheath").  A gauge pressure p does work p dV_c, so it adds the potential
#     -p V_c(q) = (-p A_c) l_b(q) + (p A_c) l_a(q):
# exactly the potential of sheath tendons with tensions tau = -p A_c (to b) and +p A_c (to
# a).  The generalised force, the tangent stiffness and every solver of the tendons are
# therefore the chamber's, with no new derivative to write: per unit pressure the chamber
# pushes with -A_c dV/dq / A_c = -(d l_b/dq - d l_a/dq) A_c.  Statically, a cut through the
# chamber shows the end cap pushed by p A_c at d_c: the rest of the section carries the
# tension p A_c (extension p A_c / EA) and the moment -p A_c d_c (curvature
# kappa = -p A_c d_c / EI: a chamber above the centreline bends the rod *away* from it,
# the opposite of a tendon pulling on that side).  The chamber's own walls are part of
# the section: their stiffness is in the rod's EI and EA (the calibrated rod takes both
# from the FEM arm, walls and holes included).  Discretely, the joint at an end cap's node
# spans half an element on either side of the cap and carries half the chamber's moment
# (the sheath's rule at an interior anchor), so the bending acts on nodes a..b, centred
# on the chamber, and the tip angle is -p A_c d_c (b - a) ell / EI exactly; the volume
# slope is then A_c^2 ell ((b - a)/EA + (b - a - 1/2) d_c^2/EI) for 0 < a, b < N (each
# half-loaded joint stores a quarter of the energy), first order in ell against the
# continuum's (b - a) ell (1/EA + d_c^2/EI).
@dataclass(frozen=True, eq=False)
class RodChamber:
    """A pressurised chamber along a planar rod (made by :func:`make_rod_chamber`).

    Attributes
    ----------
    N : int, element count of the rod it belongs to
    area : float, chamber cross-section area A_c (>= 0)
    offset : float, signed section offset d_c of its centroid (the tendons' convention)
    start, end : int, the nodes a < b where its end caps sit (0: the clamp, N: the tip)
    tendons : tuple of Tendon, the sheath tendon to ``end`` and (if ``start > 0``) the
        one to ``start``
    per_pressure : (len(tendons),) their tension per unit pressure, ``(-A_c, +A_c)``
    """

    N: int
    area: float
    offset: float
    start: int
    end: int
    tendons: tuple
    per_pressure: np.ndarray

    @property
    def length(self):
        """Number of elements the chamber spans (``end - start``)."""
        return self.end - self.start


def make_rod_chamber(rod, area, offset, start=0, end=None):
    r"""A chamber of area ``area`` at section offset ``offset`` between nodes ``start`` and ``end``.

    Under a gauge pressure ``p`` it is the sheath tendon(s) of tension ``-p A_c`` (see the
    section comment in the source, and the module docstring's sheath): the potential
    ``-p V_c(q)``, ``V_c = A_c (l_end - l_start)`` for walls inextensible across the rod.
    A uniform chamber along the whole rod gives

    .. math:: \kappa = -\frac{p A_c d_c}{EI},\qquad \varepsilon = \frac{p A_c}{EA}.

    A negative pressure is a vacuum (it bends the other way); it is allowed everywhere a
    pressure is asked for.  The chamber's wall stiffness is not added here: it is part
    of the rod's section (its EI and EA; :func:`calibrate_chamber_rod` takes them from
    the FEM arm).

    Parameters
    ----------
    rod : lib.rod.Rod
    area : float >= 0, chamber cross-section area A_c (0: an inert chamber)
    offset : float, d_c with ``|d_c| <= r = r_over_L L`` (inside the section)
    start : int in 0..N-1, node of the proximal end cap (default 0, the clamp)
    end : int in start+1..N, node of the distal end cap (default N, the tip)

    Raises
    ------
    ValueError
        Naming ``area`` (negative, NaN, inf), ``offset`` (outside the section, NaN),
        ``start`` / ``end`` (not nodes, or ``end <= start``), ``rod`` (not a planar rod).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10)
    >>> c = make_rod_chamber(r, 0.01, 0.03, start=4)
    >>> c.length, len(c.tendons), c.per_pressure.tolist()
    (6, 2, [-0.01, 0.01])
    """
    N = _check_rod(rod).N
    area = checks.nonnegative(area, "area")
    d = _offset(rod, offset, "offset")
    a = checks.integer(start, "start", 0, N - 1)
    b = N if end is None else checks.integer(end, "end", a + 1, N)
    tendons = (make_tendon(rod, d, anchor=b, sheath=True),)
    per = [-area]
    if a > 0:
        tendons += (make_tendon(rod, d, anchor=a, sheath=True),)
        per.append(area)
    per = np.array(per)
    per.setflags(write=False)
    return RodChamber(N=N, area=area, offset=d, start=a, end=b, tendons=tendons, per_pressure=per)


def _chamber_list(rod, chambers, name="chambers"):
    chambers = [chambers] if isinstance(chambers, RodChamber) else chambers
    if not isinstance(chambers, (list, tuple)) or not chambers:
        raise ValueError(f"{name} must be a RodChamber or a non-empty sequence of them, got "
                         f"{checks.show(chambers)}")
    for c in chambers:
        checks.kind(c, name, RodChamber, "a RodChamber (made by make_rod_chamber)")
        if c.N != _check_rod(rod).N:
            raise ValueError(f"{name} was made for a rod of N = {c.N} elements, rod has "
                             f"N = {rod.N}")
        _same_geometry(c.tendons[0], rod.L, rod.r_over_L * rod.L, name)
    return list(chambers)


def _expansion(tendons, chambers):
    """The sheath tendons of ``tendons + chambers`` and the matrix M with
    ``tensions_of_all = M [tau_tendons, p_chambers]``."""
    allt = list(tendons)
    cols = []
    for c in chambers:
        cols.append((len(allt), c.per_pressure))
        allt.extend(c.tendons)
    m = len(tendons)
    M = np.zeros((len(allt), m + len(chambers)))
    M[np.arange(m), np.arange(m)] = 1.0
    for j, (i0, per) in enumerate(cols):
        M[i0:i0 + per.size, m + j] = per
    return allt, M


def _mixed(rod, chambers, pressures, tendons, tensions, pname="pressures"):
    """Checked chambers, pressures (any finite sign: vacuum allowed), tendons and tensions
    (>= 0), expanded: (all tendons, their tensions, chambers, p)."""
    chambers = _chamber_list(_check_rod(rod), chambers)
    p = checks.array(pressures, pname, shape=(len(chambers),), broadcast=True)
    if tendons is None:
        if tensions is not None:
            raise ValueError(f"tensions must be None without tendons, got {checks.show(tensions)}")
        tendons, tau = [], np.zeros(0)
    else:
        tendons, tau = _check_tendons(rod, tendons, 0.0 if tensions is None else tensions)
    allt, M = _expansion(tendons, chambers)
    return allt, M @ np.concatenate([tau, p]), chambers, p


def chamber_volume(rod, chamber, q):
    r"""Chamber volume (area per unit thickness) ``V_c = A_c (l_end(q) - l_start(q))``.

    Raises
    ------
    ValueError
        Naming ``chamber`` (not one RodChamber -- a list is not --, or made for a rod of
        another N, length or radius), ``rod`` or ``q``.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(8)
    >>> round(chamber_volume(r, make_rod_chamber(r, 0.01, 0.02, start=2), rd.straight(r)), 12)
    0.0075
    """
    checks.kind(chamber, "chamber", RodChamber, "a RodChamber (made by make_rod_chamber)")
    c = _chamber_list(rod, chamber, "chamber")[0]
    q = _check_q(rod, q)
    return -float(sum(k * _length(rod, t, q) for t, k in zip(c.tendons, c.per_pressure))) + 0.0


def chamber_energy(rod, q, chambers, pressures, tendons=None, tensions=None, load=None, grav=0.0):
    r"""``Pi_rod(q) - sum_c p_c V_c(q) + sum_i tau_i l_i(q)`` (chambers beside tendons).

    Parameters
    ----------
    rod, q : as in :func:`energy`
    chambers : RodChamber or a non-empty sequence of them
    pressures : float or (n_c,), any finite sign (negative: vacuum)
    tendons, tensions : optional tendons and their tensions (>= 0)
    load, grav : as in :func:`lib.rod.energy`

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(4)
    >>> round(chamber_energy(r, rd.straight(r), [make_rod_chamber(r, 0.01, 0.02)], 2.0), 12)
    -0.02
    """
    allt, tau, _, _ = _mixed(rod, chambers, pressures, tendons, tensions)
    q = _check_q(rod, q)
    return _energy(rod, allt, tau, q, *_check_loads(load, grav))


def chamber_gradient(rod, q, chambers, pressures, tendons=None, tensions=None, load=None,
                     grav=0.0):
    r"""Gradient of :func:`chamber_energy`, shape (3N,).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(2)
    >>> c = make_rod_chamber(r, 0.5, 0.01)
    >>> g = chamber_gradient(r, rd.straight(r), c, 2.0)      # the sheath's under tau = -pA = -1
    >>> g.round(6).tolist() == (-tendon_gradient(r, c.tendons[0], rd.straight(r))).round(6).tolist()
    True
    """
    allt, tau, _, _ = _mixed(rod, chambers, pressures, tendons, tensions)
    q = _check_q(rod, q)
    return _gradient(rod, allt, tau, q, *_check_loads(load, grav))


def chamber_hessian(rod, q, chambers, pressures, tendons=None, tensions=None):
    r"""Hessian of :func:`chamber_energy` (CSR, symmetric: the pressure is conservative).

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(3)
    >>> K = chamber_hessian(r, rd.straight(r), make_rod_chamber(r, 0.1, 0.02), 5.0)
    >>> float(abs(K - K.T).max())
    0.0
    """
    allt, tau, _, _ = _mixed(rod, chambers, pressures, tendons, tensions)
    return _hessian(rod, allt, tau, _check_q(rod, q))


@_stall_hint
@_solve_errors
def chamber_static_path(rod, chambers, pressures, tendons=None, tensions=None, steps=10,
                        load=None, grav=0.0, tol=1e-10, maxiter=50):
    r"""Equilibria as the pressures (and tensions, loads) grow together from the straight rod.

    :func:`static_path` on the chambers' sheath tendons (tension ``-p A_c``) beside the
    tendons: ``steps`` equal increments of ``lambda`` from 0 to 1, every pressure, tension
    and load scaled by ``lambda``.

    Returns
    -------
    P : (steps + 1, n_c) the pressures of each equilibrium (row 0: zero)
    Q : (steps + 1, 3N) the equilibria

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(10, r_over_L=0.05)
    >>> P, Q = chamber_static_path(r, make_rod_chamber(r, 0.02, 0.05), 4.0, steps=2)
    >>> P[:, 0].tolist(), round(float(np.diff(Q[-1, 0::3]).mean() / r.ell), 6)  # -p A d/EI
    ([0.0, 2.0, 4.0], -0.004)
    """
    allt, tau, chambers, p = _mixed(rod, chambers, pressures, tendons, tensions)
    steps = checks.integer(steps, "steps", low=1)
    load, grav = _check_loads(load, grav)
    tol, maxiter = checks.nonnegative(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    _, Q = _path(rod, allt, np.zeros_like(tau), tau, steps, _rod.straight(rod), True, load, grav,
                 tol, maxiter, stable="all", where="actuation.chamber_static_path")
    return np.linspace(0.0, 1.0, steps + 1)[:, None] * p, Q


@_stall_hint
@_solve_errors
def chamber_static(rod, chambers, pressures, tendons=None, tensions=None, steps=10, load=None,
                   grav=0.0, tol=1e-10, maxiter=50):
    """Equilibrium under the given pressures (and tensions): the last state of
    :func:`chamber_static_path`.

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(20, r_over_L=0.05)
    >>> q = chamber_static(r, make_rod_chamber(r, 0.02, 0.05), -3.0, steps=1)   # vacuum
    >>> kappa = np.diff(q[0::3]) / r.ell       # -p A d / EI = 0.003: bends towards it
    >>> float(kappa.min().round(9)), float(kappa.max().round(9))
    (0.003, 0.003)
    """
    return chamber_static_path(rod, chambers, pressures, tendons, tensions, steps, load, grav,
                               tol, maxiter)[1][-1]


def pressure_jacobian(rod, chambers, pressures, q, tendons=None, tensions=None, angle=False):
    r"""Sensitivity of the equilibrium tip to the chamber pressures, ``J_tip dq/dp``.

    ``K dq/dp_c = A_c (d l_end/dq - d l_start/dq) = dV_c/dq`` (the chamber's generalised
    force per unit pressure), ``K`` the tangent of :func:`chamber_hessian` at ``q``.

    Returns
    -------
    ndarray, shape (2, n_c) or (3, n_c) (rows x, y[, theta])

    Examples
    --------
    >>> from lib import rod as rd
    >>> r = rd.make_rod(20, r_over_L=0.05)
    >>> W = pressure_jacobian(r, make_rod_chamber(r, 0.02, 0.05), 0.0, rd.straight(r), angle=True)
    >>> W[:, 0].round(7).tolist()    # (A/EA, -A d L^2/(2EI), -A d (L - ell/2)/EI)
    [1.25e-05, -0.0005, -0.000975]
    """
    allt, tau, chambers, _ = _mixed(rod, chambers, pressures, tendons, tensions)
    q = _check_q(rod, q)
    angle = checks.boolean(angle, "angle")
    _, M = _expansion([], chambers)
    return _tension_jacobian(rod, allt, tau, q, angle)[:, len(allt) - M.shape[0]:] @ M


# --------------------------------------------------------------------------------------
# the rod chamber calibrated on the FEM arm (lib.pneumatic), and where it stops agreeing
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ChamberFit:
    """A rod-level chamber fitted to a FEM pneumatic arm (made by :func:`calibrate_chamber_rod`).

    Attributes
    ----------
    rod : lib.rod.Rod with the arm's length and the FEM arm's effective ``EI`` and ``EA``
        (walls and holes included; ``r_over_L = 2 sqrt(EI/EA) / L`` so that
        ``EA = 4 EI / r^2`` holds; rectangle shear coefficient)
    chamber : RodChamber over the cavities' span, area ``area``, offset ``offset``
    EI, EA : float, from the linear tip-moment and tip-force tests on the FEM arm
    area : float, the smeared chamber area: total cavity volume / span (so the rod's
        chamber volume at rest is the FEM's)
    offset : float, the fitted moment arm d_eff (the rod's dtheta/dp equals the FEM's)
    offset_geometric : float, the cavities' area-weighted centroid height (section
        centroid at y = 0)
    span : (x0, x1) the cavities' extent along the arm (rod nodes ``start``, ``end``)
    angle_per_pressure : float, the FEM's dtheta/dp (fitted)
    volume_per_pressure : float, the FEM's d(sum V)/dp (not fitted)
    rod_volume_per_pressure : float, the rod's A_c dl/dp (a check that can fail)
    EI_full, EI_holed : float, plane-strain ``E' I`` (``E' = E / (1 - nu^2)``) of the full
        section and of the section through the cavities (about its own centroid): the
        walls' share of the bending stiffness, between which the arm's ``EI`` lies
    E, nu : float, the arm's material (a neo-Hookean arm)
    """

    rod: _rod.Rod
    chamber: RodChamber
    EI: float
    EA: float
    area: float
    offset: float
    offset_geometric: float
    span: tuple
    angle_per_pressure: float
    volume_per_pressure: float
    rod_volume_per_pressure: float
    EI_full: float = math.nan
    EI_holed: float = math.nan
    E: float = 1.0
    nu: float = 0.3


def _check_arm(arm):
    from . import pneumatic as _pn                  # a face; imported when first needed
    return checks.kind(arm, "arm", _pn.Arm, "a pneumatic arm (lib.pneumatic.Arm, made by "
                       "lib.pneumatic.make_arm)")


def _fem_section(arm):
    """Effective ``EI`` and ``EA`` of the FEM arm: linear tests at rest, a tip moment
    (traction ``t_x = -M y / I``) read by the tip-face chord angle ``theta = M L / EI``, and
    a uniform tip pull read by the face-averaged ``u_x = P L / EA``."""
    from . import pneumatic as _pn
    from .fe import edge_weights
    mesh = arm.model.mesh
    L, h = mesh.length, mesh.height
    idx, w = edge_weights(mesh, "right")
    y = mesh.nodes[idx, 1]
    F = np.zeros((arm.n_dofs, 2))
    F[2 * idx, 0] = -w * y / (h**3 / 12)             # the moment M = sum -y f_x
    F[2 * idx, 1] = w / h                            # the pull P = sum f_x
    M, P = float(-(y * F[2 * idx, 0]).sum()), float(F[2 * idx, 1].sum())
    fr = arm.free
    K = _pn.hessian(arm, np.zeros(arm.n_dofs), 0.0)[fr][:, fr]
    U = np.zeros_like(F)
    U[fr] = factor(K.tocsc(), where="actuation.calibrate_chamber_rod: K_0").solve(F[fr])
    eps = 1e-7
    theta = _pn.tip_angle(arm, eps * U[:, 0]) / eps
    ux = float(w @ U[2 * idx, 1]) / float(w.sum())
    return M * L / theta, P * L / ux


def _section_EI(arm):
    """Plane-strain E'I of the full section and of the section through the (deepest)
    cavity band, each about its own centroid."""
    mesh = arm.model.mesh
    E, nu = arm.model.E, arm.model.nu
    Ep, h = E / (1 - nu * nu), mesh.height
    box = np.asarray(mesh.cavities, dtype=float)
    y0, y1 = float(box[:, 2].min()), float(box[:, 3].max())
    parts = np.array([(-h / 2, y0), (y1, h / 2)])
    a = parts[:, 1] - parts[:, 0]
    c = parts.mean(axis=1)
    yb = float(a @ c / a.sum())
    return Ep * h**3 / 12, Ep * float(np.sum(a**3 / 12 + a * (c - yb) ** 2))


def _chamber_geometry(arm):
    """(x0, x1, area, d): the cavities' span, smeared area and centroid height."""
    box = np.asarray(arm.model.mesh.cavities, dtype=float)
    vol = (box[:, 1] - box[:, 0]) * (box[:, 3] - box[:, 2])
    x0, x1 = float(box[:, 0].min()), float(box[:, 1].max())
    centroid = float(vol @ (0.5 * (box[:, 2] + box[:, 3])) / vol.sum())
    return x0, x1, float(vol.sum()) / (x1 - x0), centroid


def _fit_rod(arm, EI, EA, N, offset=None):
    """The rod and the chamber geometry of ``arm`` (EI, EA given; offset default the
    geometric one): (rod, chamber, x0, x1, area, d_geo)."""
    L = arm.model.mesh.length
    nu = arm.model.nu if arm.body is None else 0.5
    r = _rod.make_rod(N, r_over_L=2.0 * math.sqrt(EI / EA) / L, nu=nu,
                      ks=10 * (1 + nu) / (12 + 11 * nu), L=L, EI=EI)
    x0, x1, area, dg = _chamber_geometry(arm)
    a, b = int(round(x0 / r.ell)), int(round(x1 / r.ell))
    if not (abs(a * r.ell - x0) < 1e-9 * L and abs(b * r.ell - x1) < 1e-9 * L):
        raise ValueError(f"N = {N} puts no rod node at the cavities' ends x = {x0}, {x1} "
                         f"(element length {r.ell}); take N a multiple of the arm's grid nx")
    c = make_rod_chamber(r, area, dg if offset is None else offset, start=a, end=b)
    return r, c, x0, x1, area, dg


def _rod_slopes(r, c):
    """(dtheta/dp, dV/dp) of the rod chamber at rest."""
    allt, M = _expansion([], [c])
    q = _rod.straight(r)
    gV = -np.column_stack([_tendon_gradient(r, t, q) for t in allt]) @ M[:, 0]   # dV/dq
    dq = factor(_hessian(r, allt, np.zeros(len(allt)), q),
                where="actuation.calibrate_chamber_rod: rod K").solve(gV)          # K dq/dp = dV/dq
    return float(dq[r.ndof - 3]), float(gV @ dq)


def calibrate_chamber_rod(arm, N=None):
    r"""The rod-level chamber that reproduces the FEM arm's small-pressure bending.

    1. ``EI``, ``EA``: linear tip-moment and tip-pull tests on the FEM arm at rest (the
       section with its walls and holes, averaged along the arm; the tip angle read as
       :func:`lib.pneumatic.tip_angle` reads it).
    2. The chamber spans the cavities' extent ``[x0, x1]`` with the smeared area
       ``A_c = sum V_k / (x1 - x0)`` (the rod's chamber volume at rest is the FEM's).
    3. The moment arm: ``d_eff`` such that the rod's ``dtheta/dp`` equals the FEM's
       (:func:`lib.pneumatic.bending_slopes`); the rod's slope is linear in ``d`` at rest,
       so one rod solve at the geometric offset scales to it.

    The fitted quantity is reproduced by construction; the rod's ``dV/dp = A_c dl/dp``
    against the FEM's is a second quantity, not fitted (the rod has no wall bulging).

    Measured on :func:`lib.pneumatic.make_arm` (6 x 1, five PneuNet cavities, E = 1,
    nu = 0.3), T6 at 48 x 8 / 96 x 16 / 192 x 32 cells: EI = 0.0871 / 0.0869 / 0.0869
    (between the holed section's plane-strain 0.0844 and the full one's 0.0916),
    EA = 0.892 / 0.888 / 0.887, A_c = 0.1389, d_eff = 0.165 / 0.173 / 0.177 against the
    geometric 0.125 (the holes weaken the section where they are and lower its neutral
    axis), from dtheta/dp = -1.184 / -1.244 / -1.276: the chapter's 48 x 8 mesh is 7 %
    below the 192 x 32 one (first order: re-entrant cavity corners; the calibration on
    it is consistent with the FEM on the same mesh).  The rod's dV/dp is 3 % of the
    FEM's (0.124 against 3.76 at 48 x 8): the rod chamber is a force model, its volume
    change is not the FEM's (that is wall bulging).  About 0.03 s at 48 x 8.

    Parameters
    ----------
    arm : lib.pneumatic.Arm
    N : int, rod elements (default the arm's grid ``nx``: a rod node at every grid line)

    Returns
    -------
    ChamberFit

    Raises
    ------
    ValueError
        Naming ``arm`` (not a neo-Hookean :class:`lib.pneumatic.Arm`, or its cavities
        centred on the centreline: no moment arm to fit) or ``N`` (not a positive integer,
        or no rod node at the cavities' ends).

    Examples
    --------
    >>> from lib import pneumatic as pn
    >>> fit = calibrate_chamber_rod(pn.make_arm(24, 4, "T3"))
    >>> round(fit.offset_geometric, 4), round(fit.area, 4), fit.span
    (0.125, 0.1389, (0.75, 5.25))
    >>> round(fit.EI, 4), round(fit.EI_full, 4)      # the coarse T3 arm locks: too stiff
    (0.1064, 0.0916)
    """
    _check_arm(arm)
    from . import pneumatic as _pn
    if arm.body is not None:
        raise ValueError("arm must be a neo-Hookean arm (lib.pneumatic.make_arm without "
                         "material=), got one on a mixed u-p body")
    mesh = arm.model.mesh
    N = mesh.nx if N is None else checks.integer(N, "N", low=1)
    EI, EA = _fem_section(arm)
    r, c, x0, x1, area, dg = _fit_rod(arm, EI, EA, N)
    if dg == 0.0:
        raise ValueError("arm's cavities must lie off its centreline (their area-weighted "
                         "centroid is at y = 0: the rod chamber has no moment arm to fit)")
    s = _pn.bending_slopes(arm)
    dth_geo, _ = _rod_slopes(r, c)
    d_eff = dg * s.angle_per_pressure / dth_geo
    r, c, *_ = _fit_rod(arm, EI, EA, N, d_eff)
    _, dV = _rod_slopes(r, c)
    EI_full, EI_holed = _section_EI(arm)
    return ChamberFit(rod=r, chamber=c, EI=EI, EA=EA, area=area, offset=d_eff,
                      offset_geometric=dg, span=(x0, x1), angle_per_pressure=s.angle_per_pressure,
                      volume_per_pressure=s.volume_per_pressure, rod_volume_per_pressure=dV,
                      EI_full=EI_full, EI_holed=EI_holed, E=arm.model.E, nu=arm.model.nu)


@dataclass(frozen=True, eq=False)
class ChamberRodError:
    """Where the calibrated rod chamber stops agreeing with the FEM arm (made by
    :func:`chamber_rod_stroke_error` and :func:`chamber_rod_slenderness_error`).

    Attributes
    ----------
    x : (n,) the swept quantity: pressures, or slenderness ``length / height``
    fem, rod : (n,) the FEM's and the rod's tip angle (stroke) or dtheta/dp (slenderness)
    error : (n,) ``|rod - fem| / |fem|`` (0 where fem is 0)
    limit : float, the x where ``error`` first crosses ``level`` (linear interpolation;
        stroke: the smallest pressure; slenderness: the largest slenderness below which
        the error exceeds it), NaN if it never does in the range
    limit_angle : float, the FEM tip angle at that pressure (stroke; NaN otherwise)
    level : float, the error level (0.05)
    """

    x: np.ndarray
    fem: np.ndarray
    rod: np.ndarray
    error: np.ndarray
    limit: float
    limit_angle: float
    level: float


def _rel_error(fem, rod):
    fem, rod = np.asarray(fem, float), np.asarray(rod, float)
    return np.where(fem == 0, 0.0, np.abs(rod - fem) / np.where(fem == 0, 1.0, np.abs(fem)))


def _crossing(x, err, level):
    """First x (in the order given) where err goes above ``level``, interpolated; NaN if never."""
    above = np.flatnonzero(err > level)
    if not above.size:
        return math.nan
    i = int(above[0])
    if i == 0:
        return float(x[0])
    return float(np.interp(level, [err[i - 1], err[i]], [x[i - 1], x[i]]))


def chamber_rod_stroke_error(arm, pressure_max, steps=8, fit=None, level=0.05):
    r"""The calibrated rod against the FEM arm along a pressure ramp: tip angle vs pressure.

    The FEM path is :func:`lib.pneumatic.pressure_static` (every cavity at ``p``), the
    rod's :func:`chamber_static_path` on ``fit`` (default :func:`calibrate_chamber_rod`
    of ``arm``), both at ``p_j = j pressure_max / steps``.  The rod is calibrated at
    ``p -> 0``, so the error starts at 0 and grows with the stroke: the FEM arm
    softens as the thin walls balloon (neo-Hookean, large strains), the rod's chamber
    (inextensible walls, linear section) does not.  On the default PneuNet arm the error
    grows linearly in p from the start and passes 5 % at a tip angle of a few degrees;
    that limit is not mesh-converged on coarse meshes (it rises as the mesh is refined,
    with the FEM slope).

    Parameters
    ----------
    arm : lib.pneumatic.Arm
    pressure_max : float, the last pressure (nonzero, finite; negative: vacuum)
    steps : int >= 1
    fit : ChamberFit or None
    level : float in (0, 1), the error level of ``limit`` (default 5 %)

    Returns
    -------
    ChamberRodError (``x`` the pressures)

    Raises
    ------
    ValueError
        A bad argument (named).
    SolveError
        The FEM path's, if the arm does not carry ``pressure_max``
        (:func:`lib.pneumatic.pressure_static`).

    Examples
    --------
    >>> from lib import pneumatic as pn
    >>> e = chamber_rod_stroke_error(pn.make_arm(24, 4, "T3"), 0.1, steps=2)
    >>> e.x.tolist(), e.error.round(3).tolist()     # the FEM arm softens as its walls balloon
    ([0.0, 0.05, 0.1], [0.0, 0.162, 0.293])
    """
    _check_arm(arm)
    from . import pneumatic as _pn
    pmax = checks.real(pressure_max, "pressure_max")
    if pmax == 0.0:
        raise ValueError("pressure_max must be nonzero, got 0.0")
    steps = checks.integer(steps, "steps", low=1)
    level = checks.real(level, "level", 0.0, 1.0, include_low=False, include_high=False)
    fit = calibrate_chamber_rod(arm) if fit is None else checks.kind(
        fit, "fit", ChamberFit, "a ChamberFit (made by calibrate_chamber_rod)")
    path = _pn.pressure_static(arm, pmax, steps=steps)
    fem = np.array([_pn.tip_angle(arm, u) for u in path.states])
    P, Q = chamber_static_path(fit.rod, fit.chamber, pmax, steps=steps)
    rod = Q[:, -3]
    p = P[:, 0]
    err = _rel_error(fem, rod)
    lim = _crossing(np.abs(p), err, level)
    ang = math.nan if math.isnan(lim) else float(np.interp(lim, np.abs(p), fem))
    return ChamberRodError(x=p, fem=fem, rod=rod, error=err, limit=math.copysign(lim, pmax),
                           limit_angle=ang, level=level)


#: The most chambers :func:`pneunet_cavities` lays out (a longer arm is refused, not built).
_MAX_CHAMBERS = 10000


def pneunet_cavities(length, height=1.0, width=0.5, gap=0.5, margin=0.75, depth=0.25):
    """Boxes ``(x0, x1, 0, depth height)`` of PneuNet chambers along an arm of ``length``:
    ``width`` wide, ``gap`` apart, from ``margin`` to at most ``length - margin`` (the
    pattern of :data:`lib.pneumatic.PNEUNET`, which is ``pneunet_cavities(6.0)``).

    At most :data:`_MAX_CHAMBERS` (10000) chambers.

    Raises
    ------
    ValueError
        Naming ``length`` (no room for a chamber, or room for more than 10000), ``width``
        (too narrow to give boxes of nonzero width at this length), ``depth`` (not below
        0.5) or any argument that is not a positive finite number.

    >>> pneunet_cavities(4.0)
    ((0.75, 1.25, 0.0, 0.25), (1.75, 2.25, 0.0, 0.25), (2.75, 3.25, 0.0, 0.25))
    """
    length, height, width, gap, margin, depth = (checks.positive(v, n) for v, n in (
        (length, "length"), (height, "height"), (width, "width"), (gap, "gap"),
        (margin, "margin"), (depth, "depth")))
    if depth >= 0.5:
        raise ValueError(f"depth must be below 0.5 (a fraction of the height above the "
                         f"centreline), got {depth}")
    n = math.floor((length - 2 * margin + gap) / (width + gap) + 1e-9)
    if n < 1:
        raise ValueError(f"length = {length} leaves no room for a chamber of width {width} "
                         f"between margins of {margin}")
    if n > _MAX_CHAMBERS:
        raise ValueError(f"length must leave room for at most {_MAX_CHAMBERS} chambers, got "
                         f"{length!r}: {n:.4g} chambers of width {width} and gap {gap}")
    boxes = tuple((margin + k * (width + gap), margin + k * (width + gap) + width, 0.0,
                   depth * height) for k in range(int(n)))
    if any(b[1] <= b[0] for b in boxes):
        raise ValueError(f"width must give boxes of nonzero width at this length, got "
                         f"{width!r} (the box at x = {boxes[-1][0]:.6g} has width "
                         f"{boxes[-1][1] - boxes[-1][0]:.3g})")
    return boxes


def chamber_rod_slenderness_error(lengths=(2.0, 3.0, 4.0, 6.0, 10.0, 16.0), ny=8, element="T6",
                                  fit=None, level=0.05):
    r"""The calibrated rod against FEM arms of other slenderness: small-pressure dtheta/dp.

    Arms of height 1 and the given lengths, chambers spaced as on the calibration arm
    (:func:`pneunet_cavities`), the same cell size (``nx = ny length``); the rod keeps the
    fit's ``EI``, ``EA``, ``A_c`` and ``d_eff`` per unit length (calibrated once, on the
    6 x 1 arm by default) with its chamber over each arm's cavities.  With the chambers
    spaced as on the calibration arm, a shorter arm has fewer chambers, and the error
    follows the number of chambers rather than the slenderness: the FEM's slope is close
    to a fixed deficit plus a constant share per chamber, which a rod calibrated on five
    chambers carries over to four or nine but not to one or two (an independent check
    found the one-chamber error the same at every length).  Read the
    "limit" as a chamber count for this spacing, not as a slenderness of the section.

    Parameters
    ----------
    lengths : sequence of float > 0 (height 1), increasing
    ny : int, cells across the height (the calibration arm is built with the same)
    element : "T3" or "T6"
    fit : ChamberFit or None (default: the 6 x 1 arm at this resolution)
    level : float in (0, 1)

    Returns
    -------
    ChamberRodError (``x`` the slenderness; ``limit`` the largest slenderness with an
    error above ``level`` -- below it the rod is off by more -- NaN if none)

    Raises
    ------
    ValueError
        Naming ``lengths`` (not positive, not increasing, not whole numbers of cells, or
        leaving no room for a chamber), ``ny`` (not a positive integer, or too coarse to
        put the chambers on grid lines), ``element``, ``fit`` or ``level``.

    Examples
    --------
    >>> e = chamber_rod_slenderness_error((4.0, 6.0), ny=4, element="T3")
    >>> e.x.tolist(), e.error.round(3).tolist(), e.limit      # the coarse T3 arm: within 5 %
    ([4.0, 6.0], [0.001, 0.0], nan)
    """
    from . import pneumatic as _pn
    L = checks.vector(lengths, "lengths", low=0.0, include_low=False, nonempty=True)
    if np.any(np.diff(L) <= 0):
        raise ValueError(f"lengths must be increasing, got {checks.show(lengths)}")
    ny = checks.integer(ny, "ny", low=1)
    checks.choice(element, "element", ("T3", "T6"))
    level = checks.real(level, "level", 0.0, 1.0, include_low=False, include_high=False)
    if fit is None:
        try:
            calibration_arm = _pn.make_arm(6 * ny, ny, element)
        except ValueError as e:
            raise ValueError(f"ny must resolve the chambers on its grid (cells 1/ny: a multiple "
                             f"of 4 for this pattern), got {ny}: {e}") from None
        fit = calibrate_chamber_rod(calibration_arm)
    else:
        checks.kind(fit, "fit", ChamberFit, "a ChamberFit (made by calibrate_chamber_rod)")
    boxes = []
    for length in L:
        nx = round(ny * length)
        if abs(nx - ny * length) > 1e-9:
            raise ValueError(f"lengths must be whole numbers of cells (ny length an integer), "
                             f"got {length}")
        try:
            boxes.append((int(nx), pneunet_cavities(length)))
        except ValueError as e:
            raise ValueError(f"lengths must each leave room for one to {_MAX_CHAMBERS} "
                             f"chambers, got {float(length)!r}: {e}") from None
    fem, rod = [], []
    for length, (nx, cavities) in zip(L, boxes):
        try:
            arm = _pn.make_arm(nx, ny, element, cavities=cavities, length=length, E=fit.E,
                               nu=fit.nu)
        except ValueError as e:
            raise ValueError(f"ny must resolve the chambers on its grid (cells 1/ny: a multiple "
                             f"of 4 for this pattern), got {ny}: {e}") from None
        fem.append(_pn.bending_slopes(arm).angle_per_pressure)
        r, c, *_ = _fit_rod(arm, fit.EI, fit.EA, nx, fit.offset)
        rod.append(_rod_slopes(r, c)[0])
    fem, rod = np.array(fem), np.array(rod)
    err = _rel_error(fem, rod)
    above = np.flatnonzero(err > level)
    if not above.size:
        lim = math.nan
    else:
        i = int(above[-1])
        lim = float(L[i]) if i == L.size - 1 else float(
            np.interp(level, [err[i + 1], err[i]], [L[i + 1], L[i]]))
    return ChamberRodError(x=L, fem=fem, rod=rod, error=err, limit=lim, limit_angle=math.nan,
                           level=level)
