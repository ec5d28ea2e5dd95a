r"""Frictional contact of a rod with a plane: regularised penalty and friction-cone complementarity.

A free (unclamped) discrete Cosserat rod in 3-D lies on, rolls on, is dragged across or
slithers over a rigid plane with anisotropic Coulomb friction.  Two formulations of the
contact, side by side:

(a) *regularised penalty*, explicit: a spring-dashpot normal force on every element that
    penetrates, and a smoothed Coulomb law whose friction grows linearly with the slip
    speed up to a regularisation speed ``slip_speed`` (the static peak) and falls to the
    kinetic value above it; integrated by position Verlet on the Lie group
    (:func:`lib.rod3d.lie_verlet_step`, PyElastica's scheme).  The rod always creeps a
    little where it should stick, and the time step is bounded by the stiffness of the
    regularisation (:func:`explicit_limit`).
(b) *complementarity*, implicit: unilateral contact and Coulomb's law with maximal
    dissipation on a pyramidal friction cone, the linear complementarity problem of
    :mod:`lib.solvers.cone` solved by Lemke's method once per step, in a linearly implicit
    (one-Newton-step) Euler scheme on the Lie group.  Sticking is exact; static and
    kinetic coefficients are switched per contact.

Units are SI (metres, kilograms, seconds, newtons); the validation cases use the
parameters of PyElastica's friction validation suite (Gazzola et al. 2018).

The free rod and its array layout
---------------------------------
N elements of rest length ell = L/N; N + 1 nodes, N element frames.

==========  ===============  ====================================================
symbol      shape            meaning
==========  ===============  ====================================================
x           (N+1, 3)         node positions (m)
Q           (N, 4)           unit quaternions (w, x, y, z) of the element frames
                             R_e = [d1 d2 d3]; d1 is the tangent when unsheared
v           (N+1, 3)         node velocities (m/s)
w           (N, 3)           angular velocities in the element frames (rad/s)
dq, V       (6N+3,)          an increment / a velocity: ``[dx_0 .. dx_N, psi_0 .. psi_{N-1}]``
                             (nodes first, 3 each; then element rotations, 3 each)
==========  ===============  ====================================================

A rotation increment acts on the right, R_e <- R_e exp(hat psi_e) (:func:`retract`), as in
:mod:`lib.rod3d`.  The elastic energy is that of :mod:`lib.rod3d` without the clamp: with
d_e = x_{e+1} - x_e, Gamma_e = R_e^T d_e/ell - e1 and theta_j = log(R_{j-1}^T R_j)
(interior joints j = 1 .. N-1),

.. math::

    \Pi = \sum_e \frac{\ell}{2}\Gamma_e^{\top}\mathbf C\Gamma_e
        + \sum_j \frac{1}{2\ell}\theta_j^{\top}\mathbf B\theta_j - \sum_i m_i\,\mathbf g\cdot\mathbf x_i,

C = diag(EA, k_s GA, k_s GA), B = diag(GJ, EI, EI); lumped node masses m_i = rho A ell
(half at the ends) and element rotary inertias ell rho I (2, 1, 1).

Contacts
--------
One contact per element, at the bottom of its midsection: the contact point is
``c_e = (x_e + x_{e+1})/2 - r n`` for a plane with unit normal n through ``origin``, its gap
``g_e = n . ((x_e + x_{e+1})/2 - origin) - r`` and its velocity
``(v_e + v_{e+1})/2 + (R_e w_e) x (-r n)`` (the rotation of the section rolls the contact
point).  The contact frame is (n, t_e, l_e): t_e the element tangent projected on the
plane (the *axial* direction, forward = towards node N), l_e = n x t_e (the *lateral*,
rolling direction).  A force f at c_e acts on the rod as f/2 on each node of the element
and the torque (-r n) x f on the element: exactly the transpose of the velocity map,
:func:`contact_jacobian` (3 rows per element, in the order n, t, l).

Friction coefficients come in three pairs, forward / backward / lateral, static and
kinetic (:func:`make_friction`): forward applies to slip along +t (or a pull towards -t
resisting it), backward to slip along -t, lateral to slip along l either way.

References
----------
M. Gazzola, L. H. Dudte, A. G. McCormick and L. Mahadevan, Forward and inverse problems
in the mechanics of soft filaments, *R. Soc. Open Sci.* 5 (2018) 171628 (the friction
validation suite and the snake); D. E. Stewart and J. C. Trinkle, *Int. J. Numer. Meth.
Eng.* 39 (1996) 2673-2691 and M. Anitescu and F. A. Potra, *Nonlinear Dynamics* 14 (1997)
231-247 (velocity-level complementarity with a polyhedral cone); D. Karnopp, *J. Dyn.
Syst. Meas. Control* 107 (1985) 100-103 and V. Acary and B. Brogliato, *Numerical Methods
for Nonsmooth Dynamical Systems* (Springer, 2008) (regularised versus nonsmooth friction).

Examples
--------
>>> rod = make_free_rod(10)
>>> s = straight(rod)
>>> bool(np.abs(gradient(rod, s)).max() < 1e-9)      # unstressed
True
>>> plane = make_plane([0.0, 1.0, 0.0], origin=[0.0, -rod.radius, 0.0])
>>> float(gap(rod, plane, s).max())
0.0
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.interpolate import BSpline

from .core import checks, so3
from .core.linalg import factor
from .core.errors import SolveError
from .solvers import cone
from . import kernels as _kernels
from . import rod3d as r3

__all__ = [
    "ContactSolveError", "GRAVITY", "VALIDATION",
    "FreeRod", "State", "make_free_rod", "straight", "retract", "energy", "gradient", "hessian",
    "mass", "kinetic_energy",
    "Plane", "make_plane", "Friction", "make_friction", "Penalty", "make_penalty",
    "contact_frames", "gap", "contact_jacobian", "contact_velocity",
    "normal_force", "friction_force", "friction_jacobian", "penalty_force", "penalty_jacobians",
    "explicit_limit", "step_limit", "Run", "simulate_penalty", "simulate_complementarity",
    "facet_coefficients",
    "axial_drag_energy", "rolling_energies", "penalty_creep",
    "validation_rod", "incline_gravity", "validation_suite", "breakaway_force",
    "Gait", "snake_gait", "muscle_torque", "snake_rod", "snake", "snake_speed", "snake_study",
    "SNAKE_RATIOS",
]

#: standard gravity (m/s^2), the value PyElastica's validation cases use
GRAVITY = 9.80665

#: parameters of PyElastica's friction validation suite (Gazzola et al. 2018, sec. 4.1)
VALIDATION = {"mass": 1.0, "length": 1.0, "radius": 0.025, "time": 0.25,
              "static": (0.8, 0.4, 0.4), "kinetic": (0.4, 0.2, 0.2)}


class ContactSolveError(SolveError):
    """A contact time step failed; the message says where: step, time, iteration, residual."""


# --------------------------------------------------------------------------------------
# argument checks (lib.core.checks): the models' kinds and the rod's state
# --------------------------------------------------------------------------------------
def _kind(value, name, cls):
    """``value`` an instance of the model class ``cls`` (ValueError naming ``name``)."""
    return checks.kind(value, name, cls, f"a lib.contact.{cls.__name__}")


def _single(friction, name="friction"):
    """A Friction holding one triple of coefficients (no batch axis): every use but
    :func:`simulate_penalty`'s batch."""
    _kind(friction, name, Friction)
    if np.ndim(friction.static) != 1:
        raise ValueError(f"{name} must hold one triple of coefficients (no batch axis) here, "
                         f"got {np.shape(friction.static)[0]} triples")
    return friction


def _direction(v, name):
    """A nonzero 3-vector, normalised (rescaled first if its norm under- or overflows)."""
    a = checks.vector(v, name, 3)
    if not np.abs(a).max() > 0:
        raise ValueError(f"{name} must be nonzero, got {checks.show(v)}")
    n = np.linalg.norm(a)
    if not 1e-150 < n < 1e150:
        a = a / np.abs(a).max()
        n = np.linalg.norm(a)
    return a / n


# --------------------------------------------------------------------------------------
# the free rod
# --------------------------------------------------------------------------------------
class State(NamedTuple):
    """A configuration: node positions x (N+1, 3), element quaternions Q (N, 4)."""

    x: np.ndarray
    Q: np.ndarray


@dataclass(frozen=True)
class FreeRod:
    """Parameters of a free discrete Cosserat rod with a solid circular section (SI units).

    Made by :func:`make_free_rod`.  ``damping`` is a uniform rate nu (1/s): a force
    -nu m_i v_i on every node and a torque -nu m_e w_e on every element (PyElastica's
    ``AnalyticalLinearDamper`` with its ``damping_constant``).
    """

    N: int
    L: float
    radius: float
    rhoA: float
    EA: float
    kGA: float
    EI: float
    GJ: float
    rhoI: float
    damping: float

    @property
    def ell(self) -> float:
        """Element rest length L / N."""
        return self.L / self.N

    @property
    def ndof(self) -> int:
        """Number of velocity unknowns, 3 (N + 1) + 3 N."""
        return 6 * self.N + 3

    @property
    def mass_total(self) -> float:
        """Total mass rho A L."""
        return self.rhoA * self.L

    @property
    def node_masses(self) -> np.ndarray:
        """Lumped node masses (N + 1,): rho A ell, half at the two ends."""
        m = np.full(self.N + 1, self.rhoA * self.ell)
        m[[0, -1]] *= 0.5
        return m

    @property
    def inertia(self) -> np.ndarray:
        """Element rotary inertias in the element frames (N, 3): ell rho I (2, 1, 1)."""
        return np.tile(self.ell * self.rhoI * np.array([2.0, 1.0, 1.0]), (self.N, 1))


def make_free_rod(N, length=1.0, radius=0.025, mass=1.0, youngs_modulus=1e6,
                  shear_modulus=None, shear_coefficient=27.0 / 28.0, damping=0.0):
    r"""A free rod of ``N`` elements: solid circular section, uniform material (SI units).

    ``A = pi r^2``, ``I = pi r^4/4``, ``rho A = mass/length``; EA = E A, EI = E I,
    k_s GA = shear_coefficient G A (PyElastica's fixed 27/28 by default), GJ = G (2 I),
    rho I = rho A r^2/4.  ``shear_modulus`` defaults to E/3 (incompressible material).

    Raises
    ------
    ValueError naming the offending argument, also when the section's properties
    (EA, EI, rho A, rho I, ...) overflow or underflow to 0 in floating point (a radius
    such as 1e80 or 1e-200 with the other arguments).

    Examples
    --------
    >>> rod = make_free_rod(10)
    >>> rod.N, rod.ndof, round(rod.rhoA, 12), round(rod.EI, 6)
    (10, 63, 1.0, 0.306796)
    """
    N = checks.integer(N, "N", low=2)
    L = checks.positive(length, "length")
    r = checks.positive(radius, "radius")
    m = checks.positive(mass, "mass")
    E = checks.positive(youngs_modulus, "youngs_modulus")
    G = E / 3.0 if shear_modulus is None else checks.positive(shear_modulus, "shear_modulus")
    ks = checks.positive(shear_coefficient, "shear_coefficient")
    nu = checks.nonnegative(damping, "damping")
    A = math.pi * r * r
    I = math.pi * (r * r) * (r * r) / 4.0        # floats: overflow gives inf, not an error
    rhoA = m / L
    props = dict(rhoA=rhoA, EA=E * A, kGA=ks * G * A, EI=E * I, GJ=G * 2.0 * I,
                 rhoI=rhoA * r * r / 4.0)
    bad = [k for k, val in props.items() if not 0.0 < val < math.inf]
    if bad:
        raise ValueError(
            f"radius = {r!r}, length = {L!r}, mass = {m!r}, youngs_modulus = {E!r}, "
            f"shear_modulus = {G!r}, shear_coefficient = {ks!r} give section properties "
            f"outside the floating-point range ({', '.join(f'{k} = {props[k]!r}' for k in bad)})")
    return FreeRod(N=N, L=L, radius=r, damping=nu, **props)


def straight(rod, start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), normal=(0.0, 1.0, 0.0)):
    """The straight, unstressed rod from ``start`` along ``direction``.

    The frames have d1 = direction, d2 = ``normal`` made orthogonal to it, d3 = d1 x d2
    (PyElastica's ``straight_rod`` takes the same two vectors).

    >>> s = straight(make_free_rod(2), direction=(0, 0, 1))
    >>> s.x[:, 2].tolist(), r3.rotmat(s.Q)[0][:, 0].round(12).tolist()
    ([0.0, 0.5, 1.0], [0.0, 0.0, 1.0])
    """
    _kind(rod, "rod", FreeRod)
    start = checks.vector(start, "start", 3)
    d1 = _direction(direction, "direction")
    d2 = _direction(normal, "normal")
    d2 = d2 - (d2 @ d1) * d1
    if not np.linalg.norm(d2) > 1e-12:
        raise ValueError("normal must not be parallel to direction")
    d2 /= np.linalg.norm(d2)
    R = np.column_stack([d1, d2, np.cross(d1, d2)])
    x = start + np.outer(rod.ell * np.arange(rod.N + 1), d1)
    Q = np.tile(so3.quat_from_rotmat(R[None])[0], (rod.N, 1))
    return State(x, Q)


def _check_state(rod, state, batch=False):
    """The rod (a FreeRod) and its state (x, Q) checked: shapes, finite, unit quaternions."""
    _kind(rod, "rod", FreeRod)
    return checks.poses(state, "state", rod.N + 1, rod.N, batch=batch)


def _split(rod, V, name):
    """``V`` (6N+3,) checked and split into node velocities (N+1, 3) and spins (N, 3)."""
    return _unjoin(rod, checks.vector(V, name, rod.ndof))


def _unjoin(rod, V):
    n = 3 * (rod.N + 1)
    return V[:n].reshape(rod.N + 1, 3), V[n:].reshape(rod.N, 3)


def _join(v, w):
    return np.concatenate([np.reshape(v, -1), np.reshape(w, -1)])


def retract(rod, state, dq):
    """Apply an increment ``dq = [dx_i, psi_e]``: x + dx, R_e exp(hat psi_e).

    >>> rod = make_free_rod(2)
    >>> dq = np.zeros(rod.ndof); dq[9:12] = [0, 0, np.pi / 2]
    >>> r3.rotmat(retract(rod, straight(rod), dq).Q)[0][:, 0].round(12).tolist()
    [0.0, 1.0, 0.0]
    """
    x, Q = _check_state(rod, state)
    return _retract(rod, x, Q, checks.vector(dq, "dq", rod.ndof))


def _retract(rod, x, Q, dq):
    dx, psi = _unjoin(rod, dq)
    Qn = so3.quat_mul(Q, so3.quat_exp(psi))
    return State(x + dx, Qn / np.linalg.norm(Qn, axis=-1, keepdims=True))


def _grav(grav, lead=()):
    """Gravity: None (none), a 3-vector, or (with a batch ``lead``) one per member."""
    if grav is None:
        return np.zeros(3)
    if lead and np.ndim(grav) == 2:
        return checks.array(grav, "grav", shape=tuple(lead) + (3,))
    return checks.vector(grav, "grav", 3)


def _strains(rod, x, Q):
    """Batched kinematics: R, u = R^T d, n = C Gamma, theta (..., N-1, 3)."""
    R = so3.rotmat(Q)
    d = x[..., 1:, :] - x[..., :-1, :]
    u = np.einsum("...ji,...j->...i", R, d)
    n = u / rod.ell
    n[..., 0] -= 1.0
    n *= np.array([rod.EA, rod.kGA, rod.kGA])
    Qc = Q[..., :-1, :] * np.array([1.0, -1.0, -1.0, -1.0])
    theta = so3.quat_log(so3.quat_mul(Qc, Q[..., 1:, :]))
    return R, u, n, theta


def _elastic(rod, x, Q):
    """Batched elastic gradient: dPi/dx (..., N+1, 3) and dPi/dpsi (..., N, 3)."""
    R, u, n, theta = _strains(rod, x, Q)
    f = np.einsum("...ij,...j->...i", R, n)
    gx = np.zeros(x.shape)
    gx[..., 1:, :] += f
    gx[..., :-1, :] -= f
    gp = so3.cross(n, u)
    m = theta * (np.array([rod.GJ, rod.EI, rod.EI]) / rod.ell)
    c, _ = so3.log_coeffs(np.linalg.norm(theta, axis=-1))
    txm = so3.cross(theta, m)
    ttm = c[..., None] * so3.cross(theta, txm)
    gp[..., 1:, :] += m - 0.5 * txm + ttm          # J_r^{-T}(theta) m on the later element
    gp[..., :-1, :] -= m + 0.5 * txm + ttm         # -J_l^{-T}(theta) m on the earlier one
    return gx, gp


def energy(rod, state, grav=None):
    """Elastic energy plus the potential of gravity ``grav`` (an acceleration 3-vector, m/s^2).

    >>> rod = make_free_rod(4)
    >>> round(energy(rod, straight(rod), grav=(0, -9.8, 0.0)), 12) + 0.0
    0.0
    """
    x, Q = _check_state(rod, state)
    g = _grav(grav)
    _, _, n, theta = _strains(rod, x, Q)
    E = 0.5 * rod.ell * np.sum(n * n / np.array([rod.EA, rod.kGA, rod.kGA]))
    E += 0.5 / rod.ell * np.sum(np.array([rod.GJ, rod.EI, rod.EI]) * theta**2)
    E -= float(rod.node_masses @ (x @ g))
    return float(E)


def gradient(rod, state, grav=None):
    r"""Gradient of :func:`energy` in the increments ``[dx_i, psi_e]``, shape (6N+3,).

    Stretch and shear of element e (n = C Gamma, u = R^T d): R_e n_e on x_{e+1}, its
    negative on x_e, n_e x u_e on psi_e; bending and twist of joint j (m = B theta/ell):
    J_r^{-T}(theta) m on psi_j and -J_l^{-T}(theta) m on psi_{j-1}; gravity -m_i g on x_i.

    >>> rod = make_free_rod(3)
    >>> gradient(rod, straight(rod), grav=(0, -1, 0))[:3].tolist()
    [0.0, 0.16666666666666666, 0.0]
    """
    x, Q = _check_state(rod, state)
    g = _grav(grav)
    gx, gp = _elastic(rod, x, Q)
    gx = gx - rod.node_masses[:, None] * g
    return _join(gx, gp)


def hessian(rod, state):
    """Hessian of the elastic energy in the increments ``[dx_i, psi_e]``, ``scipy.sparse`` CSR.

    Element-vectorised COO triplets: the stretch-shear block of every element on
    (psi_e, x_e, x_{e+1}) and the bending-twist block of every joint on
    (psi_{j-1}, psi_j), through the second derivative of the log map
    (:mod:`lib.rod3d`).  Symmetric; gravity adds nothing.

    >>> rod = make_free_rod(3)
    >>> H = hessian(rod, straight(rod))
    >>> H.shape, float(abs(H - H.T).max())
    ((21, 21), 0.0)
    """
    return _hessian(rod, *_check_state(rod, state))


def _hessian(rod, x, Q):
    N, ell = rod.N, rod.ell
    R, u, n, theta = _strains(rod, x, Q)
    C = np.array([rod.EA, rod.kGA, rod.kGA])
    U = so3.hat(u)
    Hpp = np.einsum("eki,k,ekj->eij", U, C, U) / ell
    Hpp += so3.sym(n[:, :, None] * u[:, None, :]) - np.sum(n * u, axis=1)[:, None, None] * np.eye(3)
    Hpx = (so3.hat(n) - U * C / ell) @ np.swapaxes(R, 1, 2)
    Hxx = (R * C) @ np.swapaxes(R, 1, 2) / ell
    e = np.arange(N)
    off = 3 * (N + 1)
    ip = off + 3 * e[:, None] + np.arange(3)
    ia = 3 * e[:, None] + np.arange(3)           # x_e
    ib = ia + 3                                  # x_{e+1}
    blocks = [(ip, ip, Hpp), (ip, ib, Hpx), (ip, ia, -Hpx), (ib, ib, Hxx), (ia, ia, Hxx),
              (ia, ib, -Hxx)]
    HpxT = np.swapaxes(Hpx, 1, 2)
    blocks += [(ib, ip, HpxT), (ia, ip, -HpxT), (ib, ia, -Hxx)]
    Bd = np.array([rod.GJ, rod.EI, rod.EI])
    Kb = np.broadcast_to(np.diag(Bd) / ell, (N - 1, 3, 3))
    _, _, Haa, Hab, Hbb = so3.log_terms(theta, Kb, theta * Bd / ell, 2)
    blocks += [(ip[:-1], ip[:-1], Haa), (ip[1:], ip[1:], Hbb), (ip[:-1], ip[1:], Hab),
               (ip[1:], ip[:-1], np.swapaxes(Hab, 1, 2))]
    rows = np.concatenate([np.broadcast_to(I[:, :, None], H.shape).ravel() for I, J, H in blocks])
    cols = np.concatenate([np.broadcast_to(J[:, None, :], H.shape).ravel() for I, J, H in blocks])
    vals = np.concatenate([H.ravel() for _, _, H in blocks])
    return sp.coo_matrix((vals, (rows, cols)), shape=(rod.ndof, rod.ndof)).tocsr()


def mass(rod):
    """Diagonal of the mass matrix in the layout ``[dx_i, psi_e]``, shape (6N+3,).

    >>> float(mass(make_free_rod(4))[:3 * 5].sum() / 3)     # the total mass
    1.0
    """
    _kind(rod, "rod", FreeRod)
    return _join(np.repeat(rod.node_masses, 3), rod.inertia)


def kinetic_energy(rod, v, w):
    """Translational and rotational kinetic energy ``(T_t, T_r)``; leading batch axes allowed.

    >>> rod = make_free_rod(2)
    >>> kinetic_energy(rod, np.ones((3, 3)), np.zeros((2, 3)))
    (1.5, 0.0)
    """
    _kind(rod, "rod", FreeRod)
    v = checks.array(v, "v")
    if v.shape[-2:] != (rod.N + 1, 3):
        raise ValueError(f"v must have shape (..., {rod.N + 1}, 3), got shape {v.shape}")
    w = checks.array(w, "w", shape=v.shape[:-2] + (rod.N, 3))
    Tt = 0.5 * np.sum(rod.node_masses[:, None] * v * v, axis=(-2, -1))
    Tr = 0.5 * np.sum(rod.inertia * w * w, axis=(-2, -1))
    if np.ndim(Tt) == 0:
        return float(Tt), float(Tr)
    return Tt, Tr


# --------------------------------------------------------------------------------------
# plane, friction, penalty parameters
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plane:
    """A rigid plane through ``origin`` with unit ``normal`` (pointing to the free side)."""

    normal: np.ndarray
    origin: np.ndarray


def make_plane(normal, origin=(0.0, 0.0, 0.0)):
    """A plane; ``normal`` is normalised and must be finite and nonzero.

    >>> make_plane([0, 2.0, 0]).normal.tolist()
    [0.0, 1.0, 0.0]
    """
    return Plane(_direction(normal, "normal"), checks.vector(origin, "origin", 3))


@dataclass(frozen=True)
class Friction:
    """Coulomb coefficients, each ``(forward, backward, lateral)``: ``static`` >= ``kinetic`` >= 0."""

    static: np.ndarray
    kinetic: np.ndarray


def make_friction(static, kinetic):
    """Anisotropic static and kinetic coefficients ``(forward, backward, lateral)``.

    Each may also be an array (B, 3), one triple per member of a batch
    (:func:`simulate_penalty` only).  Raises ``ValueError`` for a negative or non-finite coefficient, or a static
    coefficient below the kinetic one (pass equal values for a law without a static peak).

    >>> make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2)).kinetic.tolist()
    [0.4, 0.2, 0.2]
    """
    out = []
    for name, val in (("static", static), ("kinetic", kinetic)):
        a = checks.array(val, name)
        if a.ndim not in (1, 2) or a.shape[-1] != 3 or a.size == 0:
            raise ValueError(f"{name} must be three coefficients (forward, backward, lateral), "
                             f"or one triple per batch member, got shape {a.shape}")
        out.append(checks.array(a, name, low=0.0))
    if out[0].shape != out[1].shape:
        raise ValueError(f"static and kinetic must have the same shape, got {out[0].shape} "
                         f"and {out[1].shape}")
    if np.any(out[0] < out[1]):
        raise ValueError(f"static coefficients {static!r} must be >= kinetic {kinetic!r}")
    return Friction(*out)


@dataclass(frozen=True)
class Penalty:
    """Regularisation of formulation (a), per unit length of rod.

    ``stiffness`` k (N/m^2) and ``damping`` c (N s/m^2) of the normal spring-dashpot,
    ``slip_speed`` epsilon (m/s) of the smoothed Coulomb law.
    """

    stiffness: float
    damping: float
    slip_speed: float


def make_penalty(stiffness=1e5, damping=None, slip_speed=5e-4, line_density=1.0):
    """Penalty parameters; ``damping=None`` is critical for ``line_density`` (kg/m).

    >>> p = make_penalty(1e4, line_density=1.0)
    >>> p.damping
    200.0
    """
    k = checks.positive(stiffness, "stiffness")
    rho = checks.positive(line_density, "line_density")
    c = (2.0 * math.sqrt(k) * math.sqrt(rho) if damping is None     # k rho may overflow
         else checks.nonnegative(damping, "damping"))
    return Penalty(k, c, checks.positive(slip_speed, "slip_speed"))


# --------------------------------------------------------------------------------------
# contact kinematics
# --------------------------------------------------------------------------------------
def _frames(x, n):
    d = x[..., 1:, :] - x[..., :-1, :]
    t = d - (d @ n)[..., None] * n
    nt = np.linalg.norm(t, axis=-1, keepdims=True)
    if np.any(nt <= 1e-12 * np.linalg.norm(d, axis=-1, keepdims=True)):
        raise ValueError("state: an element stands normal to the plane (no axial direction)")
    t = t / nt
    return t, np.cross(n, t)


def contact_frames(rod, plane, state):
    """Axial and lateral unit directions ``(t, l)`` of every element's contact, (N, 3) each.

    >>> rod = make_free_rod(2)
    >>> t, l = contact_frames(rod, make_plane([0, 1, 0]), straight(rod))
    >>> t[0].tolist(), l[0].tolist()
    ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0])
    """
    x, _ = _check_state(rod, state)
    return _frames(x, _kind(plane, "plane", Plane).normal)


def _gap(rod, plane, x):
    xm = 0.5 * (x[..., 1:, :] + x[..., :-1, :])
    return (xm - plane.origin) @ plane.normal - rod.radius


def gap(rod, plane, state):
    """Signed gap of every element's contact point (N,): negative = penetration (m)."""
    x, _ = _check_state(rod, state)
    return _gap(rod, _kind(plane, "plane", Plane), x)


def _roll_arm(rod, n, Q):
    """d1 x (-r n) for every element (..., N, 3): the contact velocity per unit spin."""
    w, qx, qy, qz = np.moveaxis(Q, -1, 0)
    d1 = np.stack([1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + w * qz), 2 * (qx * qz - w * qy)],
                  axis=-1)
    return so3.cross(d1, np.broadcast_to(-rod.radius * n, d1.shape))


def contact_jacobian(rod, plane, state):
    """Contact velocities from a velocity ``V``: ``u = J V``, J sparse (3N, 6N+3).

    Rows per element ``[u_n, u_t, u_l]``: the normal velocity of the midsection, and
    the axial and lateral velocity of the contact point,
    ``(v_e + v_{e+1})/2 + w_e1 d1 x (-r n)``: the section's spin ``w_e1`` about its own
    axis d1 rolls the contact point.  The section's tilt about its other two axes is
    shear strain of the rod and is left out (a slender-rod contact, as in PyElastica),
    so that an axial pull does not pitch the sections and shift the normal forces.
    The transpose maps contact forces to generalised forces.

    >>> rod = make_free_rod(2)
    >>> J = contact_jacobian(rod, make_plane([0, 1, 0]), straight(rod))
    >>> J.shape, J[0].toarray().round(3).tolist()[0][:7]
    ((6, 15), [0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0])
    """
    x, Q = _check_state(rod, state)
    return _contact_jacobian(rod, _kind(plane, "plane", Plane).normal, x, Q)


def _contact_jacobian(rod, n, x, Q):
    N = rod.N
    t, l = _frames(x, n)
    dirs = np.stack([np.broadcast_to(n, t.shape), t, l], axis=1)        # (N, 3, 3)
    roll = np.einsum("eij,ej->ei", dirs, _roll_arm(rod, n, Q))          # (N, 3)
    roll[:, 0] = 0.0
    e = np.arange(N)
    rows = 3 * e[:, None] + np.arange(3)                                # (N, 3)
    r_ = np.broadcast_to(rows[:, :, None], (N, 3, 3))
    cx0 = np.broadcast_to((3 * e)[:, None, None] + np.arange(3), (N, 3, 3))
    cw = np.broadcast_to((3 * (N + 1) + 3 * e)[:, None], (N, 3))
    r_all = np.concatenate([r_.ravel(), r_.ravel(), rows.ravel()])
    c_all = np.concatenate([cx0.ravel(), (cx0 + 3).ravel(), cw.ravel()])
    v_all = np.concatenate([(0.5 * dirs).ravel(), (0.5 * dirs).ravel(), roll.ravel()])
    return sp.csr_matrix((v_all, (r_all, c_all)), shape=(3 * N, rod.ndof))


def _contact_vel(rod, n, t, l, x, Q, v, w):
    vm = 0.5 * (v[..., 1:, :] + v[..., :-1, :])
    vc = vm + w[..., :1] * _roll_arm(rod, n, Q)
    return vm @ n, np.sum(vc * t, axis=-1), np.sum(vc * l, axis=-1)


def contact_velocity(rod, plane, state, V):
    """``(u_n, u_t, u_l)`` of every contact (N, 3): normal, axial and lateral velocity (m/s)."""
    x, Q = _check_state(rod, state)
    v, w = _split(rod, V, "V")
    t, l = _frames(x, _kind(plane, "plane", Plane).normal)
    return np.stack(_contact_vel(rod, plane.normal, t, l, x, Q, v, w), axis=-1)


# --------------------------------------------------------------------------------------
# formulation (a): penalty normal force and smoothed Coulomb friction
# --------------------------------------------------------------------------------------
def normal_force(rod, penalty, g, u_n):
    r"""Penalty normal force of each element contact (N): :math:`\max(0, -k\ell g - c\ell u_n)` where g < 0.

    A spring ``k ell`` and a dashpot ``c ell`` per element (``k, c`` per unit length),
    acting only while the contact point penetrates and never pulling.

    >>> rod = make_free_rod(10)
    >>> normal_force(rod, make_penalty(1e5), np.array([-1e-4, 1e-4]), np.zeros(2)).tolist()
    [1.0, 0.0]
    """
    _kind(rod, "rod", FreeRod), _kind(penalty, "penalty", Penalty)
    return _normal_force(rod, penalty, *_broadcast(g=g, u_n=u_n))


def _normal_force(rod, penalty, g, u_n):
    f = -penalty.stiffness * rod.ell * g - penalty.damping * rod.ell * u_n
    return np.where(g < 0.0, np.maximum(f, 0.0), 0.0)


#: width of the fall from the static to the kinetic coefficient, as a fraction of slip_speed
_DROP = 0.1


def _broadcast(**arrays):
    """The arrays (finite, real) checked and broadcast together; a mismatch names the last."""
    out = []
    for name, a in arrays.items():
        out.append(checks.array(a, name))
        try:
            np.broadcast_shapes(*(o.shape for o in out))
        except ValueError:
            raise ValueError(f"{name} of shape {out[-1].shape} does not broadcast against "
                             f"{', '.join(list(arrays)[:len(out) - 1])}") from None
    return out


def _smoothstep(y):
    y = np.clip(y, 0.0, 1.0)
    return y * y * (3.0 - 2.0 * y)


def _coefficients(friction, eps, u_t, s):
    """Axial and lateral coefficient at slip (u_t, s = |u|): static up to eps, kinetic from (1 + _DROP) eps = 1.1 eps."""
    wgt = 1.0 - _smoothstep((s / eps - 1.0) / _DROP)   # 1 below eps, 0 above (1 + _DROP) eps
    st, kt = _per_direction(friction.static), _per_direction(friction.kinetic)
    fwd = u_t >= 0.0
    mu_t = np.where(fwd, kt[0] + (st[0] - kt[0]) * wgt, kt[1] + (st[1] - kt[1]) * wgt)
    mu_l = kt[2] + (st[2] - kt[2]) * wgt
    return mu_t, mu_l, wgt


def _per_direction(mu):
    """(forward, backward, lateral) of coefficients (3,) or one triple per batch member (B, 3)."""
    mu = np.asarray(mu)
    return (mu[..., 0], mu[..., 1], mu[..., 2]) if mu.ndim == 1 else tuple(mu[:, i, None] for i in range(3))


def friction_force(friction, penalty, f_n, u_t, u_l):
    r"""Smoothed anisotropic Coulomb friction ``(f_t, f_l)`` of each contact.

    .. math::

        (f_t, f_l) = -f_n\,\min(1, s/\varepsilon)\,
        \bigl(\mu_t(s)\,u_t/s,\ \mu_l(s)\,u_l/s\bigr),\qquad s = \sqrt{u_t^2 + u_l^2},

    with each coefficient equal to its static value up to the slip speed
    :math:`\varepsilon`, falling smoothly (cubic, over one tenth of :math:`\varepsilon`) to its
    kinetic value at :math:`1.1\,\varepsilon`; the axial coefficient is the forward one for :math:`u_t \ge 0`
    and the backward one otherwise.  Below :math:`\varepsilon` the law is viscous,
    :math:`f = -f_n\mu_s u/\varepsilon`: its largest force is exactly :math:`\mu_s f_n`,
    reached at :math:`s = \varepsilon`.  Above :math:`1.1\,\varepsilon` it is PyElastica's kinetic
    law :math:`-f_n(\mu_t\hat u_t, \mu_l\hat u_l)`.

    Raises ``ValueError`` for a negative normal force ``f_n`` (a contact never pulls),
    arrays that do not broadcast, or a ``friction`` with a batch axis.

    >>> fr = make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))
    >>> pen = make_penalty(slip_speed=1e-3)
    >>> [np.round(f, 6).tolist() for f in friction_force(fr, pen, 1.0, [5e-4, 1.0], [0.0, 0.0])]
    [[-0.4, -0.4], [-0.0, -0.0]]
    """
    _single(friction), _kind(penalty, "penalty", Penalty)
    checks.array(f_n, "f_n", low=0.0)
    f_n, u_t, u_l = _broadcast(f_n=f_n, u_t=u_t, u_l=u_l)
    u_t, u_l, _ = _shrink(penalty, u_t, u_l)
    return _friction_force(friction, penalty, f_n, u_t, u_l)


def _shrink(penalty, u_t, u_l):
    """Slip velocities whose square would overflow (|u| > 1e150) shrunk by a power of two
    ``k`` (exact) to |u| <= 1e150: ``(k u_t, k u_l, k)``, k = 1 elsewhere.  Far above
    1.1 eps the friction force depends on the slip's direction only, and its derivative
    in u is k times the derivative at k u."""
    big = np.maximum(np.abs(u_t), np.abs(u_l))
    if not (np.any(big > 1e150) and penalty.slip_speed < 1e140):
        return u_t, u_l, 1.0
    k = np.where(big > 1e150, np.exp2(-np.ceil(np.log2(np.maximum(big, 1.0) / 1e150))), 1.0)
    return u_t * k, u_l * k, k


def _friction_force(friction, penalty, f_n, u_t, u_l):
    eps = penalty.slip_speed
    s = np.sqrt(u_t * u_t + u_l * u_l)
    mu_t, mu_l, _ = _coefficients(friction, eps, u_t, s)
    scale = -f_n / np.maximum(s, eps)              # min(1, s/eps)/s
    return scale * mu_t * u_t, scale * mu_l * u_l


def friction_jacobian(friction, penalty, f_n, u_t, u_l):
    """Derivatives of :func:`friction_force`: ``d(f_t, f_l)/d(u_t, u_l)`` (..., 2, 2) and ``d/df_n`` (..., 2).

    >>> fr = make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))
    >>> J, _ = friction_jacobian(fr, make_penalty(slip_speed=1e-3), 1.0, 1e-4, 0.0)
    >>> (J.round(6) + 0.0).tolist()
    [[-800.0, 0.0], [0.0, -400.0]]

    Raises ``ValueError`` as :func:`friction_force` (a negative ``f_n`` among them).
    """
    _single(friction), _kind(penalty, "penalty", Penalty)
    checks.array(f_n, "f_n", low=0.0)
    f_n, u_t, u_l = _broadcast(f_n=f_n, u_t=u_t, u_l=u_l)
    u_t, u_l, shrink = _shrink(penalty, u_t, u_l)      # J(u) = k J(k u) where |u| > 1e150
    eps = penalty.slip_speed
    s = np.sqrt(u_t * u_t + u_l * u_l)
    mu_t, mu_l, _ = _coefficients(friction, eps, u_t, s)
    st, kt = _per_direction(friction.static), _per_direction(friction.kinetic)
    y = np.clip((s / eps - 1.0) / _DROP, 0.0, 1.0)
    dw_ds = -6.0 * y * (1.0 - y) / (_DROP * eps)        # derivative of the weight in s
    dmt = np.where(u_t >= 0.0, st[0] - kt[0], st[1] - kt[1]) * dw_ds
    dml = (st[2] - kt[2]) * dw_ds
    big = s > eps
    sd = np.where(s > 0, s, 1.0)
    ds = np.stack([u_t / sd, u_l / sd], axis=-1)        # ds/du
    inv = np.where(big, 1.0 / np.where(big, s, 1.0), 1.0 / eps)
    dinv = np.where(big, -1.0 / np.where(big, s, 1.0) ** 2, 0.0)   # d(1/max(s, eps))/ds
    J = np.zeros(np.shape(s) + (2, 2))
    for i, (mu, dmu, ui) in enumerate(((mu_t, dmt, u_t), (mu_l, dml, u_l))):
        # f_i = -f_n mu(s) u_i inv(s)
        common = -f_n * ui * (dmu * inv + mu * dinv)
        J[..., i, :] = common[..., None] * ds
        J[..., i, i] += -f_n * mu * inv
    dfn = np.stack([-mu_t * u_t * inv, -mu_l * u_l * inv], axis=-1)
    if np.ndim(shrink):
        J = J * np.asarray(shrink)[..., None, None]
    return J, dfn


def _penalty_forces(rod, plane, friction, penalty, x, Q, v, w):
    """Batched contact forces of (a): node forces (..., N+1, 3), body torques (..., N, 3), f_n."""
    n = plane.normal
    t, l = _frames(x, n)
    g = _gap(rod, plane, x)
    u_n, u_t, u_l = _contact_vel(rod, n, t, l, x, Q, v, w)
    f_n = _normal_force(rod, penalty, g, u_n)
    f_t, f_l = _friction_force(friction, penalty, f_n, u_t, u_l)
    ftan = f_t[..., None] * t + f_l[..., None] * l
    f = f_n[..., None] * n + ftan
    fx = np.zeros(x.shape)
    fx[..., 1:, :] += 0.5 * f
    fx[..., :-1, :] += 0.5 * f
    tau = np.zeros(Q.shape[:-1] + (3,))
    tau[..., 0] = np.sum(_roll_arm(rod, n, Q) * ftan, axis=-1)      # spin about d1 only
    return fx, tau, f_n


def penalty_force(rod, plane, friction, penalty, state, V):
    """Generalised contact force of formulation (a), layout ``[f_i, tau_e]`` (6N+3,).

    Node forces and body-frame torques; equal to ``J^T [f_n, f_t, f_l]`` with J of
    :func:`contact_jacobian`.

    >>> rod = make_free_rod(4)
    >>> pl = make_plane([0, 1, 0], origin=[0, -rod.radius + 1e-4, 0])   # sunk by 0.1 mm
    >>> fr = make_friction((0.5,) * 3, (0.5,) * 3)
    >>> F = penalty_force(rod, pl, fr, make_penalty(1e5), straight(rod), np.zeros(rod.ndof))
    >>> round(float(F[1::3][:5].sum()), 9)                     # k L 1e-4 = 10 N
    10.0
    """
    x, Q, v, w = _penalty_model(rod, plane, friction, penalty, state, V)
    fx, tau, _ = _penalty_forces(rod, plane, friction, penalty, x, Q, v, w)
    return _join(fx, tau)


def _penalty_model(rod, plane, friction, penalty, state, V):
    """The model of formulation (a) checked: ``(x, Q, v, w)``."""
    x, Q = _check_state(rod, state)
    _kind(plane, "plane", Plane), _single(friction)
    _kind(penalty, "penalty", Penalty)
    return (x, Q) + _split(rod, V, "V")


def penalty_jacobians(rod, plane, friction, penalty, state, V):
    r"""Jacobians of :func:`penalty_force`: ``(dF/dq, dF/dV)``, dense (6N+3, 6N+3).

    ``dF/dV = J^T D J`` exactly, D the block-diagonal derivative of the contact forces
    with respect to the contact velocities (normal dashpot, friction).  ``dF/dq`` is
    the derivative along :func:`retract` increments at fixed ``V``, in closed form: per
    element, with :math:`\mathbf d = \mathbf x_{e+1} - \mathbf x_e`,
    :math:`\mathbf P = \mathbf I - \mathbf n\mathbf n^\top` and
    :math:`\tilde{\mathbf t} = \mathbf P\mathbf d`,

    .. math::

        \delta g = \mathbf n\cdot\delta\bar{\mathbf x},\quad
        \delta\mathbf t = \frac{\mathbf P - \mathbf t\mathbf t^\top}{|\tilde{\mathbf t}|}\,\delta\mathbf d,\quad
        \delta\mathbf l = \mathbf n\times\delta\mathbf t,\quad
        \delta\mathbf a = r\,\mathbf n\times\mathbf R_e(\boldsymbol\psi_e\times\mathbf e_1),

    for the gap, the contact frame and the roll arm :math:`\mathbf a = \mathbf d_1\times(-r\mathbf n)`;
    the contact velocities :math:`u_t = \mathbf u_c\cdot\mathbf t`,
    :math:`u_l = \mathbf u_c\cdot\mathbf l` with :math:`\mathbf u_c = \bar{\mathbf v} + \omega_{e,1}\mathbf a`
    vary through the frame and the arm, the normal force through the gap, and the friction
    law through :func:`friction_jacobian`.  Checked against central differences of
    :func:`penalty_force` in ``tests/test_contact.py``.

    Returns
    -------
    (Kq, Cv) with F(retract(q, dq), V + dV) = F + Kq dq + Cv dV + O(|d|^2)
    """
    x, Q, v, w = _penalty_model(rod, plane, friction, penalty, state, V)
    n = plane.normal
    t, l = _frames(x, n)
    g = _gap(rod, plane, x)
    u_n, u_t, u_l = _contact_vel(rod, n, t, l, x, Q, v, w)
    f_n = _normal_force(rod, penalty, g, u_n)
    active = (g < 0) & (f_n > 0)
    dfn_dun = np.where(active, -penalty.damping * rod.ell, 0.0)
    Jf, dfdn = friction_jacobian(friction, penalty, f_n, u_t, u_l)
    D = np.zeros((rod.N, 3, 3))
    D[:, 0, 0] = dfn_dun
    D[:, 1:, 1:] = Jf
    D[:, 1:, 0] = dfdn * dfn_dun[:, None]
    J = _contact_jacobian(rod, n, x, Q)
    Cv = (J.T @ sp.block_diag(list(D)) @ J).toarray()
    return _penalty_stiffness(rod, n, friction, penalty, x, Q, v, w, t, l, u_t, u_l, f_n,
                              active, Jf, dfdn), Cv


def _penalty_stiffness(rod, n, friction, penalty, x, Q, v, w, t, l, u_t, u_l, f_n, active,
                       Jf, dfdn):
    """dF/dq of :func:`penalty_jacobians`; local unknowns per element z = [x_e, x_{e+1}, psi_e]."""
    N, r = rod.N, rod.radius
    P = np.eye(3) - np.outer(n, n)
    nt = np.linalg.norm((x[1:] - x[:-1]) @ P, axis=1)
    A = (P[None] - t[:, :, None] * t[:, None, :]) / nt[:, None, None]      # dt/dd (N, 3, 3)
    nx = so3.hat(n)
    R = so3.rotmat(Q)                                                      # (N, 3, 3)
    arm = _roll_arm(rod, n, Q)
    e1x = so3.hat(np.array([1.0, 0.0, 0.0]))
    Dd = np.zeros((3, 9))
    Dd[:, :3], Dd[:, 3:6] = -np.eye(3), np.eye(3)
    dt = A @ Dd                                                            # (N, 3, 9)
    dl = nx @ dt
    darm = np.zeros((N, 3, 9))
    darm[:, :, 6:] = -r * nx @ R @ e1x                                     # d arm / d psi
    vc = 0.5 * (v[1:] + v[:-1]) + w[:, :1] * arm
    w1 = w[:, 0]
    dg = np.zeros(9)
    dg[:3] = dg[3:6] = 0.5 * n
    dfn = np.where(active, -penalty.stiffness * rod.ell, 0.0)[:, None] * dg[None]     # (N, 9)
    dut = np.einsum("ei,eiz->ez", vc, dt) + w1[:, None] * np.einsum("ei,eiz->ez", t, darm)
    dul = np.einsum("ei,eiz->ez", vc, dl) + w1[:, None] * np.einsum("ei,eiz->ez", l, darm)
    f_t, f_l = _friction_force(friction, penalty, f_n, u_t, u_l)
    dft = Jf[:, 0, :1] * dut + Jf[:, 0, 1:] * dul + dfdn[:, :1] * dfn
    dfl = Jf[:, 1, :1] * dut + Jf[:, 1, 1:] * dul + dfdn[:, 1:] * dfn
    dftan = (t[:, :, None] * dft[:, None, :] + f_t[:, None, None] * dt
             + l[:, :, None] * dfl[:, None, :] + f_l[:, None, None] * dl)
    df = n[None, :, None] * dfn[:, None, :] + dftan                        # (N, 3, 9)
    ftan = f_t[:, None] * t + f_l[:, None] * l
    dtau = np.einsum("ei,eiz->ez", ftan, darm) + np.einsum("ei,eiz->ez", arm, dftan)
    e = np.arange(N)
    cols = np.concatenate([3 * e[:, None] + np.arange(6),                  # x_e, x_{e+1}
                           3 * (N + 1) + 3 * e[:, None] + np.arange(3)], axis=1)   # (N, 9)
    Kq = np.zeros((rod.ndof, rod.ndof))
    for node in (0, 1):
        rows = 3 * (e + node)[:, None] + np.arange(3)                      # (N, 3)
        np.add.at(Kq, (rows[:, :, None], cols[:, None, :]), 0.5 * df)
    np.add.at(Kq, ((3 * (N + 1) + 3 * e)[:, None], cols), dtau)
    return Kq


def step_limit(omega, c):
    r"""Largest stable step of position Verlet for :math:`\ddot x + c\dot x + \omega^2 x = 0`.

    The damping is evaluated with the start-of-step velocity (as every explicit contact
    code does); the amplification matrix has determinant :math:`1 - hc` and trace
    :math:`2 - h^2\omega^2 - hc`, so the scheme is stable iff
    :math:`h^2\omega^2 + 2hc \le 4`:

    .. math:: h_{\max} = \frac{-c + \sqrt{c^2 + 4\omega^2}}{\omega^2}
              = \frac{4}{c + \sqrt{c^2 + 4\omega^2}}
              \quad (= 2/\omega \text{ at } c = 0,\ 2/c \text{ at } \omega = 0).

    Evaluated in the second form (no cancellation for large ``c``), with ``c`` and
    ``omega`` divided by the larger of them first, so that nothing over- or underflows:
    the answer is correct to a few ulps over the whole floating-point range (``inf`` for
    ``omega = c = 0``, and where the step exceeds the largest float).

    >>> step_limit(2.0, 0.0), step_limit(0.0, 4.0)
    (1.0, 0.5)
    """
    omega = checks.nonnegative(omega, "omega")
    c = checks.nonnegative(c, "c")
    s = max(omega, c)
    if s == 0.0:
        return math.inf
    a, b = c / s, omega / s                      # in [0, 1], the larger one is 1
    return 1.0 / (0.25 * a + math.hypot(0.25 * a, 0.5 * b)) / s


def explicit_limit(rod, plane, friction, penalty, grav=None, state=None, parts=False):
    r"""Explicit step limit of formulation (a) for the rod resting on the plane.

    Linearises the rod at ``state`` (default: straight, resting on the plane with the
    static sag of the penalty spring) and combines the largest frequency
    :math:`\omega` of :math:`\mathbf M^{-1}(\mathbf K + \mathbf K_c)` (elasticity plus the
    penalty spring) with the largest rate :math:`c` of :math:`\mathbf M^{-1}\mathbf C`
    (the normal dashpot plus the viscous branch of the friction law, slope
    :math:`\mu_s f_n/\varepsilon`, at the weight's normal force) in :func:`step_limit`.
    The bound is conservative: the stiffest and the most damped mode need not coincide.

    Returns the step (s), or with ``parts=True`` a dict with the step, omega, c and the
    three separate limits (elastic, penalty spring, friction).
    """
    _kind(rod, "rod", FreeRod), _kind(plane, "plane", Plane)
    _single(friction), _kind(penalty, "penalty", Penalty)
    parts = checks.boolean(parts, "parts")
    g = _grav(grav)
    M = mass(rod)
    if state is None:
        wn = max(float(-(g @ plane.normal)), 0.0)
        sag = wn * rod.rhoA / penalty.stiffness
        base = straight(rod, direction=_any_tangent(plane.normal))
        shift = plane.origin - base.x[0] + (rod.radius - sag) * plane.normal
        state = State(base.x + shift, base.Q)
    K = hessian(rod, state).toarray()
    Kq, Cv = penalty_jacobians(rod, plane, friction, penalty, state, np.zeros(rod.ndof))
    # at rest the friction slope is that of the viscous branch (static coefficient / eps)
    f_n = normal_force(rod, penalty, gap(rod, plane, state), np.zeros(rod.N))
    mu = friction.static
    D = np.zeros((rod.N, 3, 3))
    D[:, 0, 0] = -penalty.damping * rod.ell * (f_n > 0)
    D[:, 1, 1] = -f_n * max(mu[0], mu[1]) / penalty.slip_speed
    D[:, 2, 2] = -f_n * mu[2] / penalty.slip_speed
    J = contact_jacobian(rod, plane, state)
    Cv = -(J.T @ sp.block_diag(list(D)) @ J).toarray()
    s = 1.0 / np.sqrt(M)

    def top(A):
        A = 0.5 * (A + A.T)
        return float(sla.eigvalsh(s[:, None] * A * s[None, :], subset_by_index=[rod.ndof - 1] * 2)[0])

    omega2 = top(K - Kq)
    c = top(Cv)
    out = {"step": step_limit(math.sqrt(max(omega2, 0.0)), max(c, 0.0)),
           "omega": math.sqrt(max(omega2, 0.0)), "c": max(c, 0.0),
           "elastic": 2.0 / math.sqrt(max(top(K), 1e-300)),
           "spring": 2.0 / math.sqrt(max(top(-Kq), 1e-300)),
           "friction": 2.0 / max(c, 1e-300)}
    return out if parts else out["step"]


def _any_tangent(n):
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    t = a - (a @ n) * n
    return t / np.linalg.norm(t)


# --------------------------------------------------------------------------------------
# time stepping: common pieces
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """A simulated trajectory (time along axis 0; a batch, if any, on the next axis).

    Fields: ``t`` (n_rec,), ``com`` centre of mass (n_rec, ..., 3), ``kinetic``
    translational and rotational energy (n_rec, ..., 2), ``gap_min`` the smallest contact
    gap (n_rec, ...), ``state``, ``v``, ``w`` at the end, ``normal`` the normal force of
    every contact over the last step (..., N) in N, ``steps``, ``dt``, ``x`` the node
    positions (n_rec, ..., N+1, 3) if recorded, ``pivots`` the Lemke pivots of the whole
    run (complementarity only), ``switches`` how many static-to-kinetic re-solves it made.
    """

    t: np.ndarray
    com: np.ndarray
    kinetic: np.ndarray
    gap_min: np.ndarray
    state: State
    v: np.ndarray
    w: np.ndarray
    normal: np.ndarray
    steps: int
    dt: float
    x: np.ndarray | None = None
    pivots: int = 0
    switches: int = 0


def _load_fn(rod, load, batch_shape):
    """A callable (t, x, Q) -> (node forces, body torques) from None, an array or a callable."""
    if load is None:
        zero = (np.zeros(batch_shape + (rod.N + 1, 3)), np.zeros(batch_shape + (rod.N, 3)))
        return lambda t, x, Q: zero
    if callable(load):
        return load
    f = _broadcast_to(load, "load", batch_shape + (rod.N + 1, 3))
    zt = np.zeros(batch_shape + (rod.N, 3))
    return lambda t, x, Q: (f, zt)


def _moments_at(moments, t, B, N):
    """The joint moments ``moments(t)`` checked (finite, real) and broadcast to (B, N-1, 3)."""
    return _broadcast_to(moments(t), "moments(t)", (B, N - 1, 3))


def _broadcast_to(value, name, shape):
    a = checks.array(value, name)
    try:
        return np.broadcast_to(a, shape).copy()
    except ValueError:
        raise ValueError(f"{name} must broadcast to shape {shape}, got shape {a.shape}") from None


def _initial(rod, plane, state, v, w, tol, batch):
    x, Q = _check_state(rod, state, batch=batch)
    _kind(plane, "plane", Plane)
    lead = x.shape[:-2]
    v = _broadcast_to(v, "v", lead + (rod.N + 1, 3))
    w = _broadcast_to(w, "w", lead + (rod.N, 3))
    gmin = float(_gap(rod, plane, x).min())
    if gmin < -tol:
        raise ValueError(f"state starts below the plane: penetration {-gmin:.3e} m beyond the "
                         f"tolerance {tol:.3e} m")
    return x.copy(), Q.copy(), v, w, lead


def _record(rod, plane, x, v, w):
    m = rod.node_masses
    com = np.einsum("i,...ij->...j", m, x) / m.sum()
    Tt, Tr = kinetic_energy(rod, v, w)
    return com, np.stack(np.broadcast_arrays(Tt, Tr), axis=-1), _gap(rod, plane, x).min(axis=-1)


def _run(rod, plane, recs, x, Q, v, w, fn, steps, dt, xs, **extra):
    t, com, ke, gm = zip(*recs)
    return Run(np.array(t), np.array(com), np.array(ke), np.array(gm), State(x, Q), v, w, fn,
               steps, dt, None if xs is None else np.array(xs), **extra)


# --------------------------------------------------------------------------------------
# formulation (a): explicit position Verlet
# --------------------------------------------------------------------------------------
def _cross_cf(a, b):
    """Cross product of component-first stacks (3, ...)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _dot_cf(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _rotmat_cf(Q):
    """R[i][j] (3, 3, ...) of component-first quaternions (4, ...)."""
    w, x, y, z = Q
    xx, yy, zz, xy, xz, yz = x * x, y * y, z * z, x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    return np.array([[1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)],
                     [2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)],
                     [2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)]])


def _quat_step_cf(Q, psi):
    """Q exp(hat psi) for component-first stacks, Q (4, ...), psi (3, ...)."""
    t = np.sqrt(_dot_cf(psi, psi))
    half = 0.5 * t
    s = np.where(t < 1e-4, 0.5 - t * t / 48.0, np.sin(half) / np.where(t == 0, 1.0, t))
    qw, qv = np.cos(half), s * psi
    pw, pv = Q[0], Q[1:]
    out = np.empty_like(Q)
    out[0] = pw * qw - _dot_cf(pv, qv)
    out[1:] = pw * qv + qw * pv + _cross_cf(pv, qv)
    return out / np.sqrt(np.sum(out * out, axis=0))


def _explicit_forces_cf(rod, plane, friction, penalty, X, Qc, Vv, Ww):
    """Component-first kernel of the explicit path (the hot loop of :func:`simulate_penalty`).

    Arrays (3, B, N+1) for nodes, (4 or 3, B, N) for elements.  Returns the elastic
    gradient (gx, gp), the contact node forces and spin torque, the normal forces and R;
    the same numbers as :func:`gradient` and :func:`penalty_force` (the tests compare).
    """
    ell, r = rod.ell, rod.radius
    n, o = plane.normal, plane.origin
    R = _rotmat_cf(Qc)
    d = X[:, :, 1:] - X[:, :, :-1]
    u = np.einsum("jibn,jbn->ibn", R, d)
    nf = u / ell
    nf[0] -= 1.0
    nf *= np.array([rod.EA, rod.kGA, rod.kGA])[:, None, None]
    f = np.einsum("ijbn,jbn->ibn", R, nf)
    gx = np.zeros(X.shape)
    gx[:, :, 1:] += f
    gx[:, :, :-1] -= f
    gp = _cross_cf(nf, u)
    aw, av = Qc[0, :, :-1], -Qc[1:, :, :-1]
    bw, bv = Qc[0, :, 1:], Qc[1:, :, 1:]
    rw = aw * bw - _dot_cf(av, bv)
    rv = aw * bv + bw * av + _cross_cf(av, bv)
    sg = np.where(rw < 0, -1.0, 1.0)
    rw, rv = rw * sg, rv * sg
    nv = np.sqrt(_dot_cf(rv, rv))
    fac = np.where(nv < 1e-8, 2.0 / rw * (1.0 - nv * nv / (3.0 * rw * rw)),
                   2.0 * np.arctan2(nv, rw) / np.where(nv == 0, 1.0, nv))
    th = fac * rv
    m = th * (np.array([rod.GJ, rod.EI, rod.EI]) / ell)[:, None, None]
    c, _ = so3.log_coeffs(np.sqrt(_dot_cf(th, th)))
    txm = _cross_cf(th, m)
    ttm = c * _cross_cf(th, txm)
    gp[:, :, 1:] += m - 0.5 * txm + ttm
    gp[:, :, :-1] -= m + 0.5 * txm + ttm
    # contact
    nb = n[:, None, None]
    gap_ = _dot_cf(0.5 * (X[:, :, 1:] + X[:, :, :-1]) - o[:, None, None], nb) - r
    tt = d - _dot_cf(d, nb) * nb
    t = tt / np.sqrt(_dot_cf(tt, tt))
    l = _cross_cf(nb, t)
    vm = 0.5 * (Vv[:, :, 1:] + Vv[:, :, :-1])
    arm = _cross_cf(R[:, 0], -r * nb)
    vc = vm + Ww[0] * arm
    f_n = _normal_force(rod, penalty, gap_, _dot_cf(vm, nb))
    f_t, f_l = _friction_force(friction, penalty, f_n, _dot_cf(vc, t), _dot_cf(vc, l))
    ftan = f_t * t + f_l * l
    fvec = f_n * nb + ftan
    fx = np.zeros(X.shape)
    fx[:, :, 1:] += 0.5 * fvec
    fx[:, :, :-1] += 0.5 * fvec
    return gx, gp, fx, _dot_cf(arm, ftan), f_n, R


def _joint_torques_cf(R, moments):
    """Body torques (3, B, N) of lab-frame joint moments (3, B, N-1): +m on element j, -m on j-1."""
    tau = np.zeros(R.shape[1:2] + R.shape[2:])
    mb = np.einsum("jibn,jbn->ibn", R[:, :, :, 1:], moments)      # R_j^T m_j
    ma = np.einsum("jibn,jbn->ibn", R[:, :, :, :-1], moments)     # R_{j-1}^T m_j
    tau[:, :, 1:] += mb
    tau[:, :, :-1] -= ma
    return tau


def simulate_penalty(rod, plane, friction, penalty, state, v=0.0, w=0.0, dt=1e-4, t_end=0.25,
                     grav=None, load=None, moments=None, every=None, keep_x=False,
                     check_limit=True, penetration_tol=None, damping=None, *, kernels=None):
    r"""Formulation (a): penalty contact and smoothed friction, explicit Lie-group Verlet.

    Each step: half drift, forces (elastic, gravity, ``load``, contact at the
    start-of-step velocities), kick (Euler's equations for the rotations, the gyroscopic
    term explicit), the rod's damping applied exactly over the step (v times
    exp(-nu dt), w times exp(-nu dt m_e/J): PyElastica's ``AnalyticalLinearDamper``), half
    drift: the scheme of :func:`lib.rod3d.lie_verlet_step` (PyElastica's), run by a
    component-first kernel.  States may carry a leading batch
    axis (``x`` of shape (B, N+1, 3), ...): independent rods advanced together, e.g. a
    sweep of loads.

    Parameters
    ----------
    rod, plane, friction, penalty : the model (:func:`make_free_rod`, :func:`make_plane`,
        :func:`make_friction`, :func:`make_penalty`)
    state : State, optionally batched; v, w : initial velocities (broadcast)
    dt, t_end : step and duration (a whole number of steps)
    grav : gravity acceleration, a 3-vector or one per batch member ([B,] 3) (m/s^2)
    load : None, or node forces ([B,] N+1, 3) held constant
    moments : None, or a callable ``moments(t) -> ([B,] N-1, 3)``: lab-frame moments at
        the interior joints, +m on element j and -m on element j-1 (muscles); a value of
        another shape, or not finite, is a ``ValueError`` naming ``moments(t)``
    every : record every ``every`` steps (default: start and end only)
    keep_x : also record the node positions
    check_limit : refuse a ``dt`` above :func:`explicit_limit` (``ValueError``)
    penetration_tol : largest initial penetration accepted (default ``1e-2 r``)
    damping : None (the rod's rate) or a rate per batch member ([B]) (1/s)
    kernels : None (the switch of :mod:`lib.kernels`), True or False: with the kernels on,
        the steps between two records run in the compiled twin
        :func:`lib.kernels.contact.penalty_run` of the loop below (the same arithmetic,
        element by element; the moments are evaluated here, at the same times)

    Returns
    -------
    Run

    Raises
    ------
    ValueError for bad input, a start below the plane, a step past the explicit limit, or
    a ``friction`` whose triples (one per batch member) do not match the state's batch;
    ContactSolveError if the motion becomes non-finite (says the step and time).
    """
    _kind(rod, "rod", FreeRod), _kind(friction, "friction", Friction)
    _kind(penalty, "penalty", Penalty)
    dt, nsteps = checks.step_count(dt, t_end)
    tol = 1e-2 * rod.radius if penetration_tol is None else checks.nonnegative(penetration_tol, "penetration_tol")
    x, Q, v, w, lead = _initial(rod, plane, state, v, w, tol, batch=True)
    if np.ndim(friction.static) == 2 and len(friction.static) not in (1,) + tuple(lead):
        raise ValueError(f"friction holds {len(friction.static)} triples of coefficients, one "
                         f"per batch member, but state has "
                         f"{f'a batch of {lead[0]}' if lead else 'no batch axis'}")
    g = _grav(grav, lead)
    keep_x = checks.boolean(keep_x, "keep_x")
    if kernels is not None:
        checks.boolean(kernels, "kernels")
    if moments is not None:
        checks.function(moments, "moments")
    if checks.boolean(check_limit, "check_limit"):
        # the batch's worst: the largest coefficients and the largest normal load (the
        # friction rate grows with the normal force)
        env = Friction(*(np.max(np.atleast_2d(m), axis=0) for m in (friction.static, friction.kinetic)))
        gs = g.reshape(-1, 3)
        lim = explicit_limit(rod, plane, env, penalty, grav=gs[int(np.argmin(gs @ plane.normal))])
        if dt > lim:
            raise ValueError(f"dt = {dt:.3e} s is past the explicit limit {lim:.3e} s of the "
                             "penalty formulation (stiffness, damping or slip_speed)")
    every = nsteps if every is None else checks.integer(every, "every", low=1)
    B = lead[0] if lead else 1
    fe = np.zeros((B, rod.N + 1, 3)) if load is None else _broadcast_to(load, "load", (B, rod.N + 1, 3))
    fe = np.moveaxis(fe, -1, 0)

    def cf(a):
        return np.ascontiguousarray(np.moveaxis(a.reshape((B,) + a.shape[len(lead):]), -1, 0))

    X, Qc, Vv, Ww = cf(x), cf(Q), cf(v), cf(w)
    mn = rod.node_masses[None, None, :]
    Jb = rod.inertia.T[:, None, :]
    me = rod.rhoA * rod.ell
    fg = mn * np.moveaxis(np.broadcast_to(g, (B, 3)), -1, 0)[:, :, None]
    if damping is None:
        nu = np.full(B, rod.damping)
    else:
        nu = _broadcast_to(damping, "damping", lead if lead else (1,)).reshape(B)
        if np.any(nu < 0):
            raise ValueError(f"damping must be >= 0 (one rate per batch member), got {checks.show(damping)}")
    h = 0.5 * dt
    decay_v = np.exp(-nu * dt)[None, :, None]
    decay_w = np.exp(-nu[None, :, None] * dt * me / Jb)
    damped = bool(np.any(nu > 0))

    def back(a):
        out = np.moveaxis(a, 0, -1)
        return out[0] if not lead else out

    def record(t):
        return (t,) + _record(rod, plane, back(X), back(Vv), back(Ww))

    recs = [record(0.0)]
    xs = [back(X).copy()] if keep_x else None
    if _kernels.use(kernels):
        return _penalty_compiled(rod, plane, friction, penalty, X, Qc, Vv, Ww, fe, fg, mn, Jb,
                                 decay_v, decay_w, damped, moments, dt, nsteps, every, lead,
                                 B, recs, xs, back)
    f_n = None
    with np.errstate(all="ignore"):
        X = X + h * Vv                       # the first half drift; later ones are merged
        Qc = _quat_step_cf(Qc, h * Ww)
        for k in range(1, nsteps + 1):
            gx, gp, fx, tau0, f_n, R = _explicit_forces_cf(rod, plane, friction, penalty, X, Qc, Vv, Ww)
            F = fx + fe + fg - gx
            T = -gp
            T[0] += tau0
            if moments is not None:
                mom = _moments_at(moments, (k - 0.5) * dt, B, rod.N)
                T += _joint_torques_cf(R, np.moveaxis(mom, -1, 0))
            Vv = Vv + dt * F / mn
            Ww = Ww + dt * (T - _cross_cf(Ww, Jb * Ww)) / Jb
            if damped:                   # damping over the step, exactly (unconditionally stable)
                Vv *= decay_v
                Ww *= decay_w
            out = k % every == 0 or k == nsteps
            if out or k % 64 == 0:
                if not (np.all(np.isfinite(Vv)) and np.all(np.isfinite(Ww))):
                    raise ContactSolveError(f"penalty (explicit): the motion became non-finite "
                                            f"by step {k} (t = {k * dt:.6g} s), dt = {dt:.3e} s")
            if out:                      # close the step with a half drift, record, reopen
                X = X + h * Vv
                Qc = _quat_step_cf(Qc, h * Ww)
                recs.append(record(k * dt))
                if keep_x:
                    xs.append(back(X).copy())
                if k < nsteps:
                    X = X + h * Vv
                    Qc = _quat_step_cf(Qc, h * Ww)
            else:                        # the half drifts of this step and the next, merged
                X = X + dt * Vv
                Qc = _quat_step_cf(Qc, dt * Ww)
    fn_out = f_n if lead else f_n[0]
    return _run(rod, plane, recs, back(X), back(Qc), back(Vv), back(Ww), fn_out, nsteps, dt, xs)


def _penalty_compiled(rod, plane, friction, penalty, X, Qc, Vv, Ww, fe, fg, mn, Jb, decay_v,
                      decay_w, damped, moments, dt, nsteps, every, lead, B, recs, xs, back):
    """The loop of :func:`simulate_penalty` by :func:`lib.kernels.contact.penalty_run`:
    one call per stretch of steps between two records (the records as there)."""
    from .kernels import contact as kc

    def arr(a, shape=None):                  # a writable C-contiguous float copy: one
        a = np.asarray(a, dtype=float)       # compiled signature (no read-only views)
        return np.array(a if shape is None else np.broadcast_to(a, shape), dtype=float, order="C")

    X, Qc, Vv, Ww = (arr(a) for a in (X, Qc, Vv, Ww))
    st, kt = (arr(m, (B, 3)) for m in (friction.static, friction.kinetic))
    fn = np.zeros((B, rod.N))
    none = np.zeros((0, 3, B, rod.N - 1))
    args = (arr(fe, X.shape), arr(fg, X.shape), arr(mn[0, 0]), arr(Jb[:, 0, :]),
            arr(decay_v, (1, B, 1)).reshape(B), arr(decay_w, (3, B, rod.N)), bool(damped), st, kt,
            float(rod.ell), float(rod.radius), float(rod.EA), float(rod.kGA), float(rod.GJ),
            float(rod.EI), arr(plane.normal), arr(plane.origin), float(-penalty.stiffness * rod.ell),
            float(penalty.damping * rod.ell), float(penalty.slip_speed), float(_DROP), fn)
    k0 = 1
    while k0 <= nsteps:
        k1 = min(nsteps, -(-k0 // every) * every)         # the next recorded step
        if moments is None:
            mom = none
        else:
            mom = np.empty((k1 - k0 + 1, 3, B, rod.N - 1))
            for k in range(k0, k1 + 1):
                mom[k - k0] = np.moveaxis(_moments_at(moments, (k - 0.5) * dt, B, rod.N), -1, 0)
        bad = kc.penalty_run(X, Qc, Vv, Ww, k0, k1, True, float(dt), mom, *args)
        if bad:
            raise ContactSolveError(f"penalty (explicit): the motion became non-finite "
                                    f"by step {bad} (t = {bad * dt:.6g} s), dt = {dt:.3e} s")
        recs.append((k1 * dt,) + _record(rod, plane, back(X), back(Vv), back(Ww)))
        if xs is not None:
            xs.append(back(X).copy())
        k0 = k1 + 1
    fn_out = fn if lead else fn[0]
    return _run(rod, plane, recs, back(X), back(Qc), back(Vv), back(Ww), fn_out, nsteps, dt, xs)


# --------------------------------------------------------------------------------------
# formulation (b): linearly implicit Euler with the friction-cone LCP
# --------------------------------------------------------------------------------------
def facet_coefficients(friction, directions, kind="static"):
    r"""Friction coefficient of each facet direction of the pyramid, shape (k,).

    A facet direction (cos phi, sin phi) in the contact's (t, l) coordinates is the
    direction of the friction *force*; it opposes slip towards -(cos phi, sin phi), so a
    force along +t uses the backward coefficient, along -t the forward one.  Between the
    axes the boundary of the friction set is the ellipse through the axial and lateral
    values, :math:`\mu(\phi) = (\cos^2\phi/\mu_a^2 + \sin^2\phi/\mu_l^2)^{-1/2}`: with four
    facets the pyramid is exact for slip along t or l.  Raises ``ValueError`` for a
    ``friction`` with a batch axis or a zero column of ``directions`` (it has no angle).

    >>> fr = make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))
    >>> facet_coefficients(fr, cone.pyramid(4), "kinetic").round(12).tolist()
    [0.2, 0.2, 0.4, 0.2]
    """
    _single(friction)
    checks.choice(kind, "kind", ("static", "kinetic"))
    mu = friction.static if kind == "static" else friction.kinetic
    c, s = checks.array(directions, "directions", shape=(2, None), nonempty=True)
    if np.any((c == 0) & (s == 0)):
        raise ValueError(f"directions must be nonzero (a zero column has no angle), got "
                         f"{checks.show(np.asarray(directions))}")
    mu_a = np.where(c > 0, mu[1], mu[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(c != 0, (c / mu_a) ** 2, 0.0) + np.where(s != 0, (s / mu[2]) ** 2, 0.0)
    return np.where(inv > 0, 1.0 / np.sqrt(np.where(inv > 0, inv, 1.0)), 0.0)


def simulate_complementarity(rod, plane, friction, state, v=0.0, w=0.0, dt=1e-2, t_end=0.25,
                             grav=None, load=None, every=None, keep_x=False, facets=4,
                             penetration_tol=None, tol=1e-10):
    r"""Formulation (b): unilateral contact and the friction cone, linearly implicit Euler.

    One step (velocity level, Stewart-Trinkle / Anitescu-Potra):

    .. math::

        (\mathbf M + h\mathbf D + h^2\mathbf K)\,\mathbf V^+ = \mathbf M\mathbf V
            + h\,(\mathbf f - \nabla\Pi - \boldsymbol\omega\times\mathbf J\boldsymbol\omega)
            + \mathbf J_c^{\top}\mathbf p, \qquad \mathbf q^+ = \mathbf q \oplus h\mathbf V^+,

    K the Hessian (one Newton step of backward Euler), D the damping, and the contact
    impulses p from :func:`lib.solvers.cone.solve_friction` with Delassus operator
    :math:`\mathbf J_c\mathbf A^{-1}\mathbf J_c^{\top}` and the gap at the end of the step
    :math:`g + h u_n^+ \ge 0` (exact for a plane: the gap is linear in the node positions).
    Contacts that stuck in the previous step get the static coefficients; if one of them
    slides, the step is solved again with the kinetic coefficient for it.

    Parameters as :func:`simulate_penalty` (no batch axes), plus ``facets`` (an even
    number of pyramid directions) and ``tol`` (the LCP tolerance).

    Returns
    -------
    Run

    Raises
    ------
    ValueError for bad input (an odd ``facets``, a ``friction`` with a batch axis) or a
    start below the plane; ContactSolveError naming the
    step, the time, the static/kinetic iteration and the residual when the LCP or the
    linear solve fails.
    """
    _kind(rod, "rod", FreeRod), _single(friction)
    keep_x, tol = checks.boolean(keep_x, "keep_x"), checks.positive(tol, "tol")
    dt, nsteps = checks.step_count(dt, t_end)
    tol_p = 1e-2 * rod.radius if penetration_tol is None else checks.nonnegative(penetration_tol, "penetration_tol")
    x, Q, v, w, lead = _initial(rod, plane, state, v, w, tol_p, batch=False)
    g = _grav(grav)
    every = nsteps if every is None else checks.integer(every, "every", low=1)
    facets = checks.integer(facets, "facets", low=2)
    if facets % 2:
        raise ValueError(f"facets must be even (each direction with its opposite), got {facets}")
    dirs = cone.pyramid(facets)
    mu_s = facet_coefficients(friction, dirs, "static")
    mu_k = facet_coefficients(friction, dirs, "kinetic")
    loadf = _load_fn(rod, load, ())
    M = mass(rod)
    mn = rod.node_masses[:, None]
    Jr = rod.inertia
    me = rod.rhoA * rod.ell
    Dd = rod.damping * _join(np.repeat(rod.node_masses, 3), np.full(3 * rod.N, me))
    n = plane.normal
    stick = np.ones(rod.N, dtype=bool)
    fn = np.zeros(rod.N)
    recs = [(0.0,) + _record(rod, plane, x, v, w)]
    xs = [x.copy()] if keep_x else None
    pivots = switches = 0
    for k in range(1, nsteps + 1):
        t0 = (k - 1) * dt
        gx, gp = _elastic(rod, x, Q)
        fe, te = loadf(t0, x, Q)
        F = _join(fe + mn * g - gx, te - gp - so3.cross(w, Jr * w))
        V = _join(v, w)
        A = sp.diags(M + dt * Dd) + dt * dt * _hessian(rod, x, Q)
        try:
            lu = factor(A, where="the step matrix M + h D + h^2 K")
            Vf = lu.solve(M * V + dt * F)
        except SolveError as exc:
            raise ContactSolveError(f"complementarity: step {k} (t = {t0:.6g} s): {exc}") from None
        gaps = _gap(rod, plane, x)
        Jc = _contact_jacobian(rod, n, x, Q)
        un_free = (Jc @ Vf)[0::3]
        near = gaps + dt * np.minimum(un_free, 0.0) <= 1e-3 * rod.radius + dt * 1e-12
        fn = np.zeros(rod.N)
        if np.any(near):
            rows = (3 * np.flatnonzero(near)[:, None] + np.arange(3)).ravel()
            Jn = Jc[rows]
            Y = lu.solve(Jn.T.toarray())
            G = Jn @ Y
            u = Jn @ Vf
            u[0::3] += gaps[near] / dt
            use_static = stick[near].copy()
            for it in range(2):
                mu = np.where(use_static[:, None], mu_s, mu_k)
                try:
                    res = cone.solve_friction(G, u, mu, dirs, tol=tol)
                except RuntimeError as exc:
                    raise ContactSolveError(
                        f"complementarity: step {k} (t = {t0:.6g} s), static/kinetic "
                        f"iteration {it}: the friction LCP failed ({exc})") from None
                pivots += res.pivots
                redo = use_static & ~res.sticking & (res.impulse[:, 0] > 0)
                if it == 0 and np.any(redo) and np.any(mu_s != mu_k):
                    use_static &= ~redo
                    switches += 1
                    continue
                break
            Vf = Vf + Y @ res.impulse.ravel()
            fn[near] = res.impulse[:, 0] / dt
            stick[near] = res.sticking | (res.impulse[:, 0] <= 0)
        stick[~near] = True
        v, w = _unjoin(rod, Vf)
        x = x + dt * v
        Q = so3.quat_mul(Q, so3.quat_exp(dt * w))
        Q /= np.linalg.norm(Q, axis=-1, keepdims=True)
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(Q))):
            raise ContactSolveError(f"complementarity: step {k} (t = {k * dt:.6g} s): the "
                                    "state became non-finite")
        if k % every == 0 or k == nsteps:
            recs.append((k * dt,) + _record(rod, plane, x, v, w))
            if keep_x:
                xs.append(x.copy())
    return _run(rod, plane, recs, x, Q, v.copy(), w.copy(), fn, nsteps, dt, xs,
                pivots=pivots, switches=switches)


# --------------------------------------------------------------------------------------
# closed forms of the friction validation suite (Gazzola et al. 2018, sec. 4.1 and app. G)
# --------------------------------------------------------------------------------------
def axial_drag_energy(force, time, mass, mu_static, mu_kinetic, g=GRAVITY):
    r"""Kinetic energy after pulling a rod on a plane along its axis: rigid-body Coulomb.

    A uniform axial force F on a rod of mass m lying on a horizontal plane: it sticks
    while :math:`|F| \le \mu_s m g`, otherwise it slides with constant acceleration
    :math:`(|F| - \mu_k m g)/m`, so after a time T

    .. math:: E_k = \frac{T^2 (|F| - \mu_k m g)^2}{2m}.

    ``mu_static`` and ``mu_kinetic`` are the coefficients of the direction of the pull
    (forward for F > 0 along the rod's tangent).  Vectorised in ``force``.

    Raises ``ValueError`` naming the argument for bad input, and for
    ``mu_kinetic > mu_static`` (outside the law's range: a rod that, once sliding,
    would need more force to keep sliding than to start).

    >>> axial_drag_energy([5.0, 10.0], 0.25, 1.0, 0.8, 0.4, g=10.0).tolist()
    [0.0, 1.125]
    """
    F = np.abs(checks.array(force, "force"))
    T, m = checks.nonnegative(time, "time"), checks.positive(mass, "mass")
    ms = checks.nonnegative(mu_static, "mu_static")
    mk = checks.real(mu_kinetic, "mu_kinetic", low=0.0, high=ms)
    g = checks.positive(g, "g")
    out = np.where(F <= ms * m * g, 0.0, T * T * (F - mk * m * g) ** 2 / (2.0 * m))
    return float(out) if out.ndim == 0 else out


def rolling_energies(alpha, time, mass, radius, mu_static, mu_kinetic, g=GRAVITY):
    r"""Translational and rotational energy of a solid cylinder released on an incline.

    Rolling without slip needs the friction :math:`\tfrac13 mg\sin\alpha`, available
    while :math:`\tan\alpha \le 3\mu_s`; then the acceleration is
    :math:`a = \tfrac23 g\sin\alpha` and with :math:`I = \tfrac12 m r^2`,

    .. math:: E_t = \tfrac12 m (aT)^2,\qquad E_r = \tfrac12 I (aT/r)^2 = \tfrac12 E_t .

    Above it the cylinder slides with kinetic friction
    :math:`\mu_k mg\cos\alpha`: :math:`a = g(\sin\alpha - \mu_k\cos\alpha)` and the spin
    grows at :math:`\dot\omega = \mu_k m g r\cos\alpha/I`.

    Returns
    -------
    (E_t, E_r, rolling) : floats (arrays if ``alpha`` is) and whether it rolls

    Raises
    ------
    ValueError naming the argument for bad input, and for ``mu_kinetic > mu_static``
    (outside the range of Coulomb's law with a static peak).

    >>> Et, Er, rolls = rolling_energies(0.3, 0.5, 1.0, 0.025, 0.4, 0.2, g=10.0)
    >>> round(Et / Er, 12), bool(rolls)
    (2.0, True)
    """
    a = _incline(alpha)
    T, m = checks.nonnegative(time, "time"), checks.positive(mass, "mass")
    r = checks.positive(radius, "radius")
    ms = checks.nonnegative(mu_static, "mu_static")
    mk = checks.real(mu_kinetic, "mu_kinetic", low=0.0, high=ms)
    g = checks.positive(g, "g")
    I = 0.5 * m * r * r
    rolling = np.tan(a) <= 3.0 * ms
    acc = np.where(rolling, 2.0 / 3.0 * g * np.sin(a), g * (np.sin(a) - mk * np.cos(a)))
    spin = np.where(rolling, acc / r, mk * m * g * r * np.cos(a) / I)
    Et, Er = 0.5 * m * (acc * T) ** 2, 0.5 * I * (spin * T) ** 2
    if a.ndim == 0:
        return float(Et), float(Er), bool(rolling)
    return Et, Er, rolling


def penalty_creep(force, time, mass, mu_static, slip_speed, g=GRAVITY):
    r"""Creep of formulation (a) under a sub-threshold axial pull: the viscous branch.

    Below the static peak the smoothed law is viscous, :math:`f = \mu_s m g\,u/\varepsilon`
    (summed over the rod), so a pull :math:`F < \mu_s m g` drives a steady slip
    :math:`u = \varepsilon F/(\mu_s m g)`, reached after the time constant
    :math:`\tau = \varepsilon/(\mu_s g)`; the distance crept in a time T is

    .. math:: \delta = \frac{\varepsilon F}{\mu_s m g}\,\bigl(T - \tau(1 - e^{-T/\tau})\bigr).

    Where the complementarity form sticks exactly, this is what (a) gives instead.

    Raises ``ValueError`` naming the argument for bad input, and for a pull
    :math:`|F| > \mu_s m g` (``force`` outside the creep regime: the rod slides).

    >>> round(penalty_creep(4.0, 0.25, 1.0, 0.8, 1e-3, g=10.0) * 1e3, 6)     # mm
    0.124938
    """
    checks.array(force, "force")
    T, m = checks.nonnegative(time, "time"), checks.positive(mass, "mass")
    ms = checks.positive(mu_static, "mu_static")
    eps = checks.positive(slip_speed, "slip_speed")
    g = checks.positive(g, "g")
    limit = ms * m * g                            # the sticking threshold mu_s m g
    F = checks.array(force, "force", low=-limit, high=limit)
    tau = eps / (ms * g)
    out = eps * np.abs(F) / (ms * m * g) * (T - tau * (1.0 - np.exp(-T / tau)))
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------
# the validation cases (PyElastica's set-up: rod along +z, plane normal +y, gravity -y)
# --------------------------------------------------------------------------------------
_AXIS = np.array([0.0, 0.0, 1.0])
_UP = np.array([0.0, 1.0, 0.0])


def validation_rod(N, youngs_modulus=1e6):
    """The rod of the validation suite: m = 1 kg, L = 1 m, r = 0.025 m, E (default 1 MPa)."""
    V = VALIDATION
    return make_free_rod(N, V["length"], V["radius"], V["mass"], youngs_modulus)


def _validation_friction():
    return make_friction(VALIDATION["static"], VALIDATION["kinetic"])


def _resting(rod, plane, penalty, grav):
    """The straight rod along +z on ``plane``, sunk by the static sag of the penalty spring."""
    base = straight(rod, direction=_AXIS, normal=_UP)
    wn = max(float(-(np.asarray(grav) @ plane.normal)), 0.0)
    sag = 0.0 if penalty is None else wn * rod.rhoA / penalty.stiffness
    shift = plane.origin + (rod.radius - sag) * plane.normal
    return State(base.x + shift, base.Q)


def _incline(alpha, name="alpha"):
    """Incline angles in [0, pi/2) (radians), a number or an array."""
    return checks.array(alpha, name, low=0.0, high=math.pi / 2, include_high=False)


def incline_gravity(alpha, g=GRAVITY):
    r"""Gravity in the frame of an incline of angle ``alpha``: ``g (sin a, -cos a, 0)``.

    The plane stays horizontal (normal +y) and gravity is tilted instead, about the
    rod's axis +z: the same motion as a tilted plane (PyElastica's set-up, rotated by
    alpha).  Downhill is +x, the rod's lateral (rolling) direction.  Vectorised.

    >>> incline_gravity(0.0, g=1.0).tolist()
    [0.0, -1.0, 0.0]
    """
    a, g = _incline(alpha), checks.positive(g, "g")
    return g * np.stack([np.sin(a), -np.cos(a), np.zeros_like(a)], axis=-1)


def _members(rod, plane, penalty, forces, alphas):
    """(kind, state, node load, gravity) of every drag and rolling member of the suite."""
    down = np.array([0.0, -GRAVITY, 0.0])
    share = rod.node_masses / rod.mass_total
    zero = np.zeros((rod.N + 1, 3))
    out = []
    for F in forces:
        out.append(("drag", _resting(rod, plane, penalty, down), F * share[:, None] * _AXIS, down))
    for gb in incline_gravity(alphas).reshape(-1, 3):
        out.append(("rolling", _resting(rod, plane, penalty, gb), zero, gb))
    return out


def _drop_state(rod, plane, height, tilt):
    s0 = straight(rod, direction=np.array([0.0, math.sin(tilt), math.cos(tilt)]), normal=_UP)
    lift = plane.origin + (rod.radius + height) * _UP
    return State(s0.x + lift, s0.Q)


def _drop_result(rod, normal, gap_min, v, run, dt):
    return {"normal": np.asarray(normal), "weight": rod.rhoA * rod.ell * GRAVITY,
            "penetration": max(0.0, float(-np.min(gap_min))),
            "speed": float(np.sqrt(np.sum(v**2, axis=-1)).max()), "run": run, "dt": dt}


def _drop(N, fr, youngs_modulus, height, tilt, damping, T, dt):
    """The rest case of formulation (b), on its own damped rod."""
    rod = validation_rod(N, youngs_modulus)
    rod = FreeRod(**{**rod.__dict__, "damping": damping})
    plane = make_plane(_UP, origin=[0.0, -rod.radius, 0.0])
    run = simulate_complementarity(rod, plane, fr, _drop_state(rod, plane, height, tilt), dt=dt,
                                   t_end=T, grav=[0.0, -GRAVITY, 0.0], every=1)
    return _drop_result(rod, run.normal, run.gap_min, run.v, run, dt)


def validation_suite(formulation="complementarity", forces=(), alphas=(), drop=False, N=10,
                     dt=None, time=None, penalty=None, friction=None, youngs_modulus=1e6,
                     drop_height=0.01, drop_tilt=0.02, drop_damping=2.0, drop_dt=None, **kw):
    r"""The friction validation suite of Gazzola et al. (2018) with PyElastica's parameters.

    Three cases on the rod of :func:`validation_rod` (along +z, plane normal +y):

    * **axial drag**: a uniform axial pull ``F`` (each of ``forces``, N; positive =
      forward, along +z), spread over the nodes in proportion to their masses
      (PyElastica's ``UniformForces``), for the time T; against :func:`axial_drag_energy`;
    * **rolling**: released from rest on an incline of angle ``alpha`` (each of
      ``alphas``, radians; gravity tilted, :func:`incline_gravity`); against
      :func:`rolling_energies`;
    * **drop** (``drop=True``): the rod, inclined by ``drop_tilt``, its lower end
      ``drop_height`` above the plane (``0 <= drop_tilt < pi/2``), falls and comes to rest; at rest every element's
      contact force is its weight rho A ell g.  The dropped rod alone is damped, at the
      rate ``drop_damping`` (1/s; the undamped shear modes of an elastic rod ring for
      long after the impact); in (a) it rides in the batch, in (b) it runs with the step
      ``drop_dt`` (default T/10).

    Drag and rolling: the penalty formulation advances every member as one batch
    (defaults: the :func:`make_penalty` regularisation, dt = 4e-5 s); the complementarity
    formulation runs them in turn (default dt = T/10).  ``time`` must be a whole number
    of steps ``dt`` (and of ``drop_dt``).  Further keywords ``kw`` go to
    :func:`simulate_penalty` or :func:`simulate_complementarity` (``every``, ``keep_x``,
    ``penetration_tol``, ``check_limit`` and ``kernels``, or ``facets`` and ``tol``);
    the arguments the suite sets itself (the model, state, ``dt``, ``t_end``, ``grav``,
    ``load``, ``v``, ``w``, ``moments``, ``damping``) are not among them.

    Returns
    -------
    dict with ``"drag"``: arrays over ``forces`` (``force``, ``energy`` translational
    kinetic energy at T (J), ``rotational``, ``exact``, ``displacement`` of the centre of
    mass along +z (m), ``creep`` its displacement over the second half of the run (m),
    ``speed`` (m/s)); ``"rolling"``: arrays over ``alphas`` (``alpha``,
    ``translational``, ``rotational``, ``exact_translational``, ``exact_rotational``,
    ``rolls``, ``slip`` the largest final lateral slip speed, m/s); ``"drop"`` if asked
    (``normal`` final contact forces (N), ``weight``, ``penetration`` deepest over the
    run (m), ``speed`` largest final node speed (m/s), ``run``, ``dt``); ``"runs"`` the
    :class:`Run` (penalty) or the list of runs of drag and rolling.

    Raises
    ------
    ValueError naming the argument for bad input, a ``time`` that is not a whole number
    of steps, or a keyword in ``kw`` that the formulation's simulation does not take.
    """
    V = VALIDATION
    T = V["time"] if time is None else checks.positive(time, "time")
    F = np.atleast_1d(checks.array(forces, "forces")).ravel()
    al = np.atleast_1d(_incline(alphas, "alphas")).ravel()
    checks.choice(formulation, "formulation", ("penalty", "complementarity"))
    target = simulate_penalty if formulation == "penalty" else simulate_complementarity
    passed_on = set(inspect.signature(target).parameters) - {
        "rod", "plane", "friction", "penalty", "state", "v", "w", "dt", "t_end", "grav", "load",
        "moments", "damping"}
    for name in kw:
        if name not in passed_on:
            raise ValueError(f"{name} is not an argument of validation_suite, nor one it passes "
                             f"on to {target.__name__} (those are {', '.join(sorted(passed_on))})")
    drop = checks.boolean(drop, "drop")
    for name, value in (("dt", dt), ("drop_dt", drop_dt)):
        if value is not None:
            checks.step_count(value, T, dt_name=name, t_name="time")
    drop_height = checks.nonnegative(drop_height, "drop_height")
    # the rod rises from its lower end: 0 <= tilt < pi/2 (a negative tilt starts it below
    # the plane, pi/2 stands it on end)
    drop_tilt = checks.real(drop_tilt, "drop_tilt", 0.0, math.pi / 2, include_high=False)
    drop_damping = checks.nonnegative(drop_damping, "drop_damping")
    if penalty is not None:
        _kind(penalty, "penalty", Penalty)
    rod = validation_rod(N, youngs_modulus)
    fr = _validation_friction() if friction is None else _single(friction)
    plane = make_plane(_UP, origin=[0.0, -rod.radius, 0.0])
    out = {"runs": None}
    if F.size + al.size == 0 and not drop:
        raise ValueError("nothing to run: give forces, alphas or drop=True")
    if formulation == "penalty":
        pen = make_penalty(line_density=rod.rhoA) if penalty is None else penalty
        dt = 4e-5 if dt is None else dt
    else:
        pen, dt = None, (T / 10 if dt is None else dt)
        if drop:
            out["drop"] = _drop(N, fr, youngs_modulus, drop_height, drop_tilt, drop_damping,
                                T, T / 10 if drop_dt is None else drop_dt)
        if F.size + al.size == 0:
            return out
    members = _members(rod, plane, pen, F, al)
    _, nsteps = checks.step_count(dt, T, t_name="time")
    every = kw.pop("every", max(1, nsteps // 2))
    if formulation == "penalty":
        if drop:                       # the drop rides in the batch, with its own damping
            members.append(("drop", _drop_state(rod, plane, drop_height, drop_tilt), np.zeros((rod.N + 1, 3)),
                            np.array([0.0, -GRAVITY, 0.0])))
            every = max(1, nsteps // 100)
        kinds = np.array([m[0] for m in members])
        nu = np.where(kinds == "drop", drop_damping, 0.0)
        st = State(np.stack([m[1].x for m in members]), np.stack([m[1].Q for m in members]))
        run = simulate_penalty(rod, plane, fr, pen, st, dt=dt, t_end=T,
                               grav=np.stack([m[3] for m in members]),
                               load=np.stack([m[2] for m in members]), every=every, damping=nu, **kw)
        com, ke, runs = run.com, run.kinetic, run
        finals = [(State(run.state.x[i], run.state.Q[i]), run.v[i], run.w[i]) for i in range(len(members))]
        t = run.t
        if drop:
            i = len(members) - 1
            out["drop"] = _drop_result(rod, run.normal[i], run.gap_min[:, i], run.v[i], run, dt)
    else:
        kinds = np.array([m[0] for m in members])
        runs = [simulate_complementarity(rod, plane, fr, m[1], dt=dt, t_end=T, grav=m[3],
                                         load=m[2], every=every, **kw) for m in members]
        com = np.stack([r.com for r in runs], axis=1)
        ke = np.stack([r.kinetic for r in runs], axis=1)
        finals = [(r.state, r.v, r.w) for r in runs]
        t = runs[0].t
    out["runs"] = runs
    half = int(np.argmin(np.abs(t - 0.5 * T)))
    sel = kinds == "drag"
    fwd = F >= 0
    exact = np.where(fwd, axial_drag_energy(F, T, rod.mass_total, fr.static[0], fr.kinetic[0]),
                     axial_drag_energy(F, T, rod.mass_total, fr.static[1], fr.kinetic[1]))
    out["drag"] = {"force": F, "energy": ke[-1, sel, 0], "rotational": ke[-1, sel, 1],
                   "exact": exact, "displacement": (com[-1, sel] - com[0, sel]) @ _AXIS,
                   "creep": (com[-1, sel] - com[half, sel]) @ _AXIS,
                   "speed": np.sqrt(2 * ke[-1, sel, 0] / rod.mass_total)}
    sel = kinds == "rolling"
    Et, Er, rolls = rolling_energies(al, T, rod.mass_total, rod.radius, fr.static[2], fr.kinetic[2])
    slip = [np.abs(contact_velocity(rod, plane, f[0], _join(f[1], f[2]))[:, 2]).max()
            for f, k in zip(finals, kinds) if k == "rolling"]
    out["rolling"] = {"alpha": al, "translational": ke[-1, sel, 0], "rotational": ke[-1, sel, 1],
                      "exact_translational": np.atleast_1d(Et), "exact_rotational": np.atleast_1d(Er),
                      "rolls": np.atleast_1d(rolls), "slip": np.array(slip)}
    return out


# --------------------------------------------------------------------------------------
# the slithering snake (PyElastica's continuum-snake example; Gazzola et al. 2018, sec. 5)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Gait:
    """A travelling wave of muscle moments (PyElastica's ``MuscleTorques`` with a spline).

    The moment at a point s in [0, 1] of the body is
    ``beta(s) sin(2 pi t/period - 2 pi s/wave_length) * min(1, t/ramp_up)`` about
    ``direction`` (lab frame), beta the clamped cubic B-spline through ``coefficients``
    (N m).  ``froude`` fixes the friction: mu = L/(period^2 g Fr).
    """

    period: float
    wave_length: float
    coefficients: tuple
    ramp_up: float
    direction: tuple
    froude: float
    ratios: tuple


def snake_gait(period=2.0, wave_length=1.0, ratios=(1.0, 1.5, 2.0), froude=0.1):
    """PyElastica's continuum-snake gait: period 2 s, wavelength one body length, its six
    spline coefficients, a ramp over one period, moments about +y; friction
    forward : backward : lateral = ``ratios`` at Froude number ``froude``.  A negative
    ``wave_length`` sends the wave the other way along the body.

    >>> g = snake_gait()
    >>> g.period, g.coefficients[:2], g.ratios
    (2.0, (0.0034, 0.0033), (1.0, 1.5, 2.0))
    """
    r = tuple(float(x) for x in checks.vector(ratios, "ratios", 3, low=0.0))
    T = checks.positive(period, "period")
    lam = checks.real(wave_length, "wave_length")
    if lam == 0.0:
        raise ValueError("wave_length must be nonzero")
    return Gait(T, lam, (3.4e-3, 3.3e-3, 4.2e-3, 2.6e-3, 3.6e-3, 3.5e-3), T, (0.0, 1.0, 0.0),
                checks.positive(froude, "froude"), r)


def snake_rod(N=20, inertia_scale=1.0):
    """The snake's rod (PyElastica's example): L = 0.35 m, r = 0.011 L, rho = 1000 kg/m^3,
    E = 1 MPa, shear modulus E/1.5 with PyElastica's 27/28, damping 2e-3 1/s.

    ``inertia_scale`` multiplies the rotary inertia rho I (a numerical device: the
    section's rotary inertia is negligible in the slow gait, and scaling it lifts the
    explicit step limit of the shear-rotation mode, ~ sqrt(k_s G A / rho I))."""
    L, r, rho, E = 0.35, 0.011 * 0.35, 1000.0, 1e6
    rod = make_free_rod(N, L, r, rho * math.pi * r * r * L, E, shear_modulus=E / 1.5,
                        damping=2e-3)
    k = checks.positive(inertia_scale, "inertia_scale")
    return FreeRod(**{**rod.__dict__, "rhoI": rod.rhoI * k})


def _spline(gait):
    c = np.asarray(gait.coefficients, dtype=float)
    knots = np.concatenate([[0.0] * 3, np.linspace(0.0, 1.0, c.size - 2), [1.0] * 3])
    return BSpline(knots, c, 3, extrapolate=False)


def _muscle_profile(rod, gait):
    """beta and s of every element, counted from the far end (see :func:`muscle_torque`)."""
    s_el = np.arange(1, rod.N + 1) / rod.N
    return np.nan_to_num(_spline(gait)(s_el)), s_el


def muscle_torque(rod, gait, t, profile=None):
    r"""Lab-frame muscle moments at the N - 1 interior joints at time ``t``, shape (N-1, 3).

    Joint j (between elements j-1 and j) carries the moment of the point
    s = (N - j)/N counted from the far end (node N: PyElastica's numbering runs the
    wave from the end of the rod towards its start); +m acts on element j, -m on j-1.

    >>> rod = snake_rod(10)
    >>> muscle_torque(rod, snake_gait(), 0.0).shape, float(abs(muscle_torque(rod, snake_gait(), 0.0)).max())
    ((9, 3), 0.0)
    """
    _kind(rod, "rod", FreeRod), _kind(gait, "gait", Gait)
    t = checks.nonnegative(t, "t")          # the gait starts at t = 0 (ramp t/ramp_up)
    if profile is not None:
        if not (isinstance(profile, tuple) and len(profile) == 2):
            raise ValueError(f"profile must be (beta, s) of the elements, got {checks.show(profile)}")
        profile = tuple(checks.vector(p, "profile", rod.N) for p in profile)
    return _muscle(rod, gait, t, profile)


def _muscle(rod, gait, t, profile=None):
    beta, s_el = _muscle_profile(rod, gait) if profile is None else profile
    mag = beta * np.sin(2 * np.pi * t / gait.period - 2 * np.pi * s_el / gait.wave_length)
    mag *= min(1.0, t / gait.ramp_up)
    return mag[::-1][1:, None] * np.asarray(gait.direction)


def _snake_friction(rod, gaits):
    mu = np.array([rod.L / (g.period**2 * GRAVITY * g.froude) * np.asarray(g.ratios) for g in gaits])
    return make_friction(mu[0], mu[0]) if len(gaits) == 1 else make_friction(mu, mu)


def snake(N=10, gaits=None, periods=2.0, dt=8e-4, slip_speed=2.5e-3, inertia_scale=100.0,
          stiffness=None, every=None, keep_x=False):
    r"""Slithering snakes, formulation (a): PyElastica's gait on the book's rod and contact.

    The rod of :func:`snake_rod` lies straight along +z on the plane y = -r (gravity -y),
    driven by :func:`muscle_torque`; friction has no static peak (static = kinetic, as
    PyElastica's example with zero static coefficients), regularised at ``slip_speed``.
    ``gaits`` is a :class:`Gait` or a list of them (default: :func:`snake_gait`): one snake
    each (its moments and its friction ratios), all in one batch, sharing the period.
    The penalty spring defaults to a sag of 2 % of the radius.

    Returns
    -------
    (run, speeds) : the :class:`Run` (batch axis 1) and the speed of each snake
        (:func:`snake_speed`, m/s), an array over ``gaits``.
    """
    gaits = [snake_gait()] if gaits is None else (list(gaits) if isinstance(gaits, (list, tuple)) else [gaits])
    if not gaits or not all(isinstance(g, Gait) for g in gaits):
        raise ValueError(f"gaits must be a Gait or a list of Gait, got {checks.show(gaits)}")
    if len({g.period for g in gaits}) != 1:
        raise ValueError("the gaits of one batch must share the period")
    rod = snake_rod(N, inertia_scale)
    fr = _snake_friction(rod, gaits)
    w = rod.rhoA * GRAVITY
    k = w / (0.02 * rod.radius) if stiffness is None else checks.positive(stiffness, "stiffness")
    pen = make_penalty(k, slip_speed=slip_speed, line_density=rod.rhoA)
    plane = make_plane(_UP, origin=[0.0, -rod.radius, 0.0])
    s0 = _resting(rod, plane, pen, [0.0, -GRAVITY, 0.0])
    B = len(gaits)
    st = State(np.broadcast_to(s0.x, (B,) + s0.x.shape).copy(), np.broadcast_to(s0.Q, (B,) + s0.Q.shape).copy())
    period = gaits[0].period
    T = checks.positive(periods, "periods") * period
    _, nsteps = checks.step_count(dt, T, t_name="periods x period")
    every = max(1, int(round(0.01 / dt))) if every is None else checks.integer(every, "every", low=1)
    # the moments of every snake at once: _muscle's arithmetic, element by element, on
    # (B, N) arrays (the same numbers as stacking _muscle of each gait)
    profiles = [_muscle_profile(rod, g) for g in gaits]
    beta = np.array([p[0] for p in profiles])
    s_el = np.array([p[1] for p in profiles])
    wave = np.array([[g.wave_length] for g in gaits])
    ramp = [g.ramp_up for g in gaits]
    axis = np.array([np.asarray(g.direction, dtype=float) for g in gaits])[:, None, :]
    phase = 2 * np.pi * s_el / wave

    def moments(t):
        mag = beta * np.sin(2 * np.pi * t / period - phase)
        mag *= np.array([[min(1.0, t / r)] for r in ramp])
        return mag[:, ::-1][:, 1:, None] * axis

    run = simulate_penalty(rod, plane, fr, pen, st, dt=dt, t_end=T, grav=[0.0, -GRAVITY, 0.0],
                           moments=moments, every=every, keep_x=keep_x,
                           penetration_tol=0.05 * rod.radius)
    return run, np.atleast_1d(snake_speed(run.t, run.com, period))


def snake_speed(t, com, period):
    """Average speed over the last period: |com(t_end) - com(t_end - period)| / period (m/s).

    ``com`` (n_t, [B,] 3) sampled at the increasing times ``t``; returns a float or (B,).
    Raises ``ValueError`` naming the argument for bad input (``t`` not increasing, a run
    shorter than one ``period``).

    >>> t = np.linspace(0, 4, 401); com = np.stack([0 * t, 0 * t, 0.01 * t], axis=1)
    >>> round(snake_speed(t, com, 2.0), 12)
    0.01
    """
    t = checks.vector(t, "t", nonempty=True)
    if np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be increasing (the sample times of com), got {checks.show(t)}")
    com = checks.array(com, "com")
    if com.ndim not in (2, 3) or com.shape[0] != t.size or com.shape[-1] != 3:
        raise ValueError(f"com must have shape ({t.size}, [B,] 3), one row per entry of t, got "
                         f"shape {com.shape}")
    period = checks.positive(period, "period")
    if t[-1] - t[0] < period - 1e-9:
        raise ValueError(f"the run ({t[-1] - t[0]:.3g} s) is shorter than one period {period!r}")
    i = int(np.argmin(np.abs(t - (t[-1] - period))))
    v = np.linalg.norm(com[-1] - com[i], axis=-1) / (t[-1] - t[i])
    return float(v) if np.ndim(v) == 0 else v


#: the snakes of the chapter: PyElastica's gait with friction ratios (forward, backward,
#: lateral), and the reference ratios with the wave sent the other way
SNAKE_RATIOS = ((1.0, 1.5, 2.0), (1.0, 1.0, 1.0), (1.0, 1.5, 1.0), (1.0, 1.5, 1.5),
                (1.0, 1.0, 2.0), (1.5, 1.0, 2.0))


def snake_study(N=10, periods=2.0, dt=8e-4):
    """The chapter's batch of snakes (cached): every ratio of ``SNAKE_RATIOS`` with
    PyElastica's gait, then the reference ratios with the wave reversed.

    Returns
    -------
    dict: ``ratios`` (n, 3), ``reversed`` (n,) bool, ``speed`` (n,) m/s, ``displacement``
    (n, 3) of the centre of mass over the last period (m), ``run``.
    """
    return _snake_study(checks.integer(N, "N", low=2), checks.positive(periods, "periods"),
                        checks.positive(dt, "dt"))


@lru_cache(maxsize=2)
def _snake_study(N, periods, dt):
    gaits = [snake_gait(ratios=r) for r in SNAKE_RATIOS] + [snake_gait(wave_length=-1.0)]
    run, v = snake(N, gaits, periods=periods, dt=dt)
    i = int(np.argmin(np.abs(run.t - (run.t[-1] - gaits[0].period))))
    return {"ratios": np.array([g.ratios for g in gaits]),
            "reversed": np.array([g.wave_length < 0 for g in gaits]), "speed": v,
            "displacement": run.com[-1] - run.com[i], "run": run}


def breakaway_force(direction="forward", N=10, rtol=1e-4, dt=None, bracket=(0.9, 1.1)):
    r"""The smallest axial pull that makes the rod slide, located on formulation (b) (cached).

    Bisection on the pull F (in units of ``mu_s m g`` of ``direction``, within
    ``bracket``): a pull counts as sliding when the rod's speed at T exceeds a tenth of
    the kinetic closed form's jump :math:`T(\mu_s - \mu_k)g` (the complementarity form
    sticks exactly, so the test is sharp).  The default step is T/2: whether the rod
    breaks free is decided on the first step, and the form is exact at any step for
    this case.  Returns the force in N.

    >>> round(breakaway_force("backward", rtol=1e-3) / (0.4 * GRAVITY), 2)
    1.0
    """
    checks.choice(direction, "direction", ("forward", "backward"))
    lo, hi = checks.vector(bracket, "bracket", 2, low=0.0, include_low=False)
    if not lo < hi:
        raise ValueError(f"bracket must be (low, high) with low < high, got {checks.show(bracket)}")
    return _breakaway(direction, checks.integer(N, "N", low=2), checks.positive(rtol, "rtol"),
                      None if dt is None else checks.positive(dt, "dt"), float(lo), float(hi))


@lru_cache(maxsize=8)
def _breakaway(direction, N, rtol, dt, lo, hi):
    i = 0 if direction == "forward" else 1
    sign = 1.0 if i == 0 else -1.0
    V = VALIDATION
    Fs = V["static"][i] * V["mass"] * GRAVITY
    jump = V["time"] * (V["static"][i] - V["kinetic"][i]) * GRAVITY

    h = V["time"] / 2 if dt is None else dt

    def slides(f):
        d = validation_suite("complementarity", [sign * f * Fs], N=N, dt=h)["drag"]
        return float(d["speed"][0]) > 0.1 * jump

    if slides(lo) or not slides(hi):
        raise ValueError(f"bracket {(lo, hi)!r} does not contain the breakaway force")
    while hi - lo > rtol * lo:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if slides(mid) else (mid, hi)
    return 0.5 * (lo + hi) * Fs
