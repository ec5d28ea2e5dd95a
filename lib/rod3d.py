r"""The discrete Cosserat rod in three dimensions: stretch, shear, bending and twist.

A cantilever of length L, clamped at s = 0 (node 0 at the origin, clamp frame
the identity: tangent +x, section axes +y, +z), is cut into N elements of length
ell = L/N.  It is the planar rod of :mod:`lib.rod` with one rotation per element
instead of one angle, and it reduces to it exactly for motions in the x-y plane.

State and array layout
----------------------
A state is a :class:`State` ``(x, Q)``:

x, shape (N, 3)
    positions of nodes 1..N (node 0 is the clamp at the origin);
Q, shape (N, 4)
    unit quaternions ``(w, x, y, z)`` of the element frames R_e = [d1 d2 d3]
    (columns: d1 the section normal, the tangent when unsheared; d2, d3 the
    section axes).

Rotations are never parameterised globally.  A displacement is a vector of
length 6N in the layout of :mod:`lib.rod` extended to 3-D,

    dq[6e : 6e+3]   = psi_e      rotation increment of element e, in its own frame,
    dq[6e+3 : 6e+6] = dx_{e+1}   displacement of node e+1,

applied by :func:`retract`: R_e <- R_e exp(hat(psi_e)), x <- x + dx.  Gradients
and Hessians are taken with respect to these increments at zero (exponential
coordinates centred on the current state), so there is no singular
parameterisation anywhere.  In the planar state (rotations about z), the dofs
``6e+2, 6e+3, 6e+4`` are lib.rod's ``phi_e, x_{e+1}, y_{e+1}``.

Energy (the construction of :mod:`lib.rod`, in 3-D).  With d_e = x_{e+1} - x_e,
the strain of element e is Gamma_e = R_e^T d_e / ell - e1 (stretch, two shears),
and between elements e-1 and e (R_{-1} = I, the clamp) the rotation vector
theta_e = log(R_{e-1}^T R_e) (twist, two bendings):

    Pi = sum_e ell/2 Gamma_e^T C Gamma_e + sum_e c_e/(2 ell) theta_e^T B theta_e
         + g sum_i m_i y_i - P . x_N - M . log(R_{N-1}),

C = diag(EA, k_sGA, k_sGA), B = diag(GJ, EI, EI), c_0 = 2 (the half element at
the clamp), c_e = 1 otherwise.  GJ = EI/(1 + nu) for the solid circular section
(J = 2I, G = E/(2(1 + nu))).  The end moment term is a *conservative* moment:
for rotations about a fixed axis (planar bending, pure twist) it is the dead
moment M; :func:`static` also accepts a true dead (fixed-direction) moment.  The
logarithm is taken with angle in [0, pi], so this potential is meant for tip
rotations below half a turn (relative rotations between neighbouring elements
are always small).

Lumped mass: rhoA ell on each node (half at the tip), and the rotary inertia
tensor ell diag(rho J, rho I, rho I) = ell rhoI diag(2, 1, 1) on every element,
in its own frame.

Public functions
----------------
make_rod3d, Rod3D, State, straight, retract, from_planar, planar_dofs
                                    the model, its states, the planar embedding
quat_exp, quat_mul, quat_log, quat_from_rotmat, rotmat    rotations
energy, gradient, hessian, mass, inertia, kinetic_energy, check_load
                                    energy and derivatives
static, residual_tangent, tip, StaticSolveError           statics by Newton on the group
                                    (``static(..., extra=)``: an added potential, the
                                    hook of lib.actuation's 3-D tendons)
frequencies, modes, omega_max_estimate, torsion_omegas, twisted_frequencies,
twisted_shaft_omegas                vibration, with and without pre-twist
greenhill_twist, greenhill_lambda, critical_twist, helix, helix_wrench
                                    torsional buckling and Love's helix
accelerations, lie_verlet_step, lie_verlet, lie_newmark   time integration on SO(3)

PyElastica side by side: :mod:`lib.crosscheck` (``elastica_rod3d`` ... ``elastica_run``).

Every public function checks its arguments once, with :mod:`lib.core.checks`: ``rod`` a
:class:`Rod3D` (a planar :class:`lib.rod.Rod` is refused, saying so), a state's x finite
and its quaternions unit to :data:`QUAT_TOL`, a twist below pi per element; a bad one is a
``ValueError`` naming it.  :func:`static` and :func:`lie_newmark` run on
:func:`lib.solvers.newton_solve` (and :func:`lib.solvers.load_path`); their failures are
:class:`StaticSolveError`, an explicit run's blow-up :class:`BlowUpError`, both
:class:`~lib.core.errors.SolveError`.

References
----------
Simo and Vu-Quoc (1986) for the geometrically exact rod; Lang, Linn and Arnold
(2011) for discrete Cosserat rods with quaternions; Gazzola et al. (2018) for
PyElastica's discretisation and time stepper; Love (1927) and Kirchhoff (1859)
for the helix; Greenhill (1883) for torsional buckling.

Examples
--------
>>> rod = make_rod3d(4)
>>> s = straight(rod)
>>> float(abs(gradient(rod, s)).max())
0.0
>>> frequencies(rod, 2).round(3)       # the two bending planes: a degenerate pair
array([3.33, 3.33])
"""
from __future__ import annotations

import functools
import math
from dataclasses import fields, make_dataclass
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.optimize import brentq

from .core import checks, so3 as _so3
from .core.errors import SolveError
from .core.linalg import BIFURCATION, require_positive_definite
from .core.so3 import (conj as _conj, cross as _cross, gmat as _gmat, hat as _hat,  # noqa: F401
                       jinv as _jinv, log_coeffs as _log_coeffs, log_terms as _log_terms,
                       sym as _sym)
from .solvers import halving, load_path, newton_solve
from . import kernels as _kernels
from . import rod as rod2d

__all__ = [
    "Rod3D", "State", "make_rod3d", "straight", "retract", "energy", "gradient", "hessian",
    "mass", "inertia", "frequencies", "modes", "static", "tip", "from_planar", "planar_dofs",
    "quat_exp", "quat_mul", "quat_log", "rotmat", "accelerations", "lie_verlet", "lie_verlet_step",
    "lie_newmark", "kinetic_energy", "torsion_omegas", "greenhill_twist", "greenhill_lambda",
    "critical_twist", "twisted_frequencies", "twisted_shaft_omegas", "helix", "helix_wrench",
    "omega_max_estimate", "StaticSolveError", "quat_from_rotmat", "residual_tangent", "check_load",
]

#: How far from unit length a quaternion of a state may be: ``| |q| - 1 | <= QUAT_TOL``
#: (the states this module makes are unit to round-off; anything further off is an error).
QUAT_TOL = 1e-8
_EPS = np.finfo(float).eps
StaticSolveError = rod2d.StaticSolveError


class BlowUpError(SolveError, FloatingPointError):
    """An explicit run that blew up: a SolveError (step and time reached) and the
    FloatingPointError these runs always raised."""


def _as_static_error(err):
    """A SolveError of the floors as this module's StaticSolveError (same attributes)."""
    return err.recast(StaticSolveError)


class State(NamedTuple):
    """A configuration of the 3-D rod: node positions x (N, 3), element quaternions Q (N, 4)."""

    x: np.ndarray
    Q: np.ndarray


def _planar(self) -> rod2d.Rod:
    """The planar rod of :mod:`lib.rod` with the same parameters."""
    return rod2d.make_rod(self.N, self.r_over_L, self.nu, self.ks, self.L, self.EI, self.rhoA)


#: Parameters of the discrete 3-D Cosserat cantilever (see module docstring): made by
#: :func:`make_rod3d`; the fields of :class:`lib.rod.Rod` (same meaning, same ``ell``)
#: plus the torsional stiffness ``GJ``; ``ndof`` = 6N; ``planar`` the planar rod.
Rod3D = make_dataclass(
    "Rod3D", [(f.name, f.type) for f in fields(rod2d.Rod)] + [("GJ", float)], frozen=True,
    namespace={"__module__": __name__, "ell": rod2d.Rod.ell, "planar": property(_planar),
               "ndof": property(lambda self: 6 * self.N, doc="Displacement unknowns, 6N."),
               "__doc__": "Parameters of the discrete 3-D Cosserat cantilever (make_rod3d)."})


def _check_rod(rod, name="rod"):
    """The 3-D rod (a planar lib.rod.Rod or anything else: a ValueError naming ``name``)."""
    return checks.kind(rod, name, Rod3D, "a 3-D rod (lib.rod3d.Rod3D, made by "
                                         "lib.rod3d.make_rod3d)")


def make_rod3d(N, r_over_L=0.04, nu=0.5, ks=None, L=1.0, EI=1.0, rhoA=1.0):
    """Build a discrete 3-D rod of N elements with a solid circular section.

    Same arguments, validation and section stiffnesses as :func:`lib.rod.make_rod`
    (EA = 4 EI/r^2, k_sGA = ks EA/(2(1+nu)), rhoI = rhoA r^2/4), plus the torsional
    stiffness GJ = EI/(1+nu).

    Raises
    ------
    ValueError naming the offending argument.

    Examples
    --------
    >>> rod = make_rod3d(20)
    >>> rod.EA, round(rod.kGA, 9), round(rod.GJ, 12)
    (2500.0, 750.0, 0.666666666667)
    """
    p = rod2d.make_rod(N, r_over_L, nu, ks, L, EI, rhoA)
    return Rod3D(**{f.name: getattr(p, f.name) for f in fields(p)}, GJ=p.EI / (1.0 + p.nu))


# --------------------------------------------------------------------------------------
# states
# --------------------------------------------------------------------------------------
def straight(rod):
    """The straight, unstressed reference state along +x.

    >>> s = straight(make_rod3d(2))
    >>> s.x.tolist(), s.Q.tolist()
    ([[0.5, 0.0, 0.0], [1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    """
    _check_rod(rod)
    x = np.zeros((rod.N, 3))
    x[:, 0] = rod.ell * np.arange(1, rod.N + 1)
    Q = np.zeros((rod.N, 4))
    Q[:, 0] = 1.0
    return State(x, Q)


def _check_state(rod, state, name="state"):
    """``(x, Q)`` of a state of ``rod``: shapes (N, 3) and (N, 4), finite, Q unit to QUAT_TOL."""
    return checks.poses(state, name, rod.N, rod.N, tol=QUAT_TOL)


def _retract(rod, state, dq):
    """:func:`retract` unchecked (the Newton loops' update)."""
    D = dq.reshape(rod.N, 6)
    Qn = _so3.quat_mul(state[1], _so3.quat_exp(D[:, :3]))
    Qn /= np.linalg.norm(Qn, axis=1, keepdims=True)
    return State(state[0] + D[:, 3:], Qn)


def retract(rod, state, dq):
    """Apply a displacement (layout ``[psi_e, dx_{e+1}]``): R_e exp(hat psi_e), x + dx.

    The quaternions are renormalised (the update is exact; this only removes round-off).

    >>> rod = make_rod3d(1)
    >>> s = retract(rod, straight(rod), [0, 0, np.pi / 2, 0, 0, 0])
    >>> rotmat(s.Q)[0].round(12)[:, 0].tolist()     # d1 now along +y
    [0.0, 1.0, 0.0]
    """
    _check_rod(rod)
    state = _check_state(rod, state)
    return _retract(rod, state, checks.vector(dq, "dq", rod.ndof))


def from_planar(rod, q):
    """The 3-D state of a planar :mod:`lib.rod` state ``q = [phi_e, x_{e+1}, y_{e+1}]``.

    >>> rod = make_rod3d(2)
    >>> s = from_planar(rod, rod2d.straight(rod.planar))
    >>> bool(np.allclose(s.x, straight(rod).x))
    True
    """
    _check_rod(rod)
    Q3 = checks.vector(q, "q", 3 * rod.N).reshape(rod.N, 3)
    x = np.column_stack([Q3[:, 1], Q3[:, 2], np.zeros(rod.N)])
    psi = np.zeros((rod.N, 3))
    psi[:, 2] = Q3[:, 0]
    return State(x, _so3.quat_exp(psi))


def planar_dofs(rod):
    """Indices of lib.rod's dofs ``[phi_e, x_{e+1}, y_{e+1}]`` in the 6N layout.

    >>> planar_dofs(make_rod3d(2)).tolist()
    [2, 3, 4, 8, 9, 10]
    """
    e = np.arange(_check_rod(rod).N)
    return np.column_stack([6 * e + 2, 6 * e + 3, 6 * e + 4]).ravel()


# --------------------------------------------------------------------------------------
# rotations: lib.core.so3's maps, checked (the hot paths call lib.core.so3 directly)
# --------------------------------------------------------------------------------------
def _stack(value, name, last):
    """A finite float array of shape (..., last) (a ValueError naming ``name``)."""
    a = checks.array(value, name)
    if a.ndim < 1 or a.shape[-1] != last:
        raise ValueError(f"{name} must have shape (..., {last}), got shape {a.shape}")
    return a


def _unit(value, name):
    a = _stack(value, name, 4)
    checks.quaternions(a.reshape(-1, 4), name, tol=QUAT_TOL)   # rows (a single one too)
    return a


def quat_exp(psi):
    """Unit quaternion of the rotation vector ``psi`` (..., 3): :func:`lib.core.so3.quat_exp`."""
    return _so3.quat_exp(_stack(psi, "psi", 3))


def quat_mul(p, q):
    """Hamilton product of quaternion stacks (..., 4): :func:`lib.core.so3.quat_mul`."""
    return _so3.quat_mul(_stack(p, "p", 4), _stack(q, "q", 4))


def quat_log(q):
    """Rotation vector (angle in [0, pi]) of unit quaternions (..., 4), to QUAT_TOL.

    >>> quat_log(quat_exp([0.0, 0.0, 1.5])).round(12).tolist()
    [0.0, 0.0, 1.5]
    """
    return _so3.quat_log(_unit(q, "q"))


def rotmat(Q):
    """Rotation matrices (..., 3, 3) (directors as columns) of unit quaternions (..., 4)."""
    return _so3.rotmat(_unit(Q, "Q"))


def quat_from_rotmat(R):
    """Unit quaternions of rotation matrices (..., 3, 3): orthonormal with det +1 to QUAT_TOL."""
    R = checks.array(R, "R")
    if R.ndim < 2 or R.shape[-2:] != (3, 3):
        raise ValueError(f"R must have shape (..., 3, 3), got shape {R.shape}")
    off = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(initial=0.0)
    if off > QUAT_TOL or np.any(np.linalg.det(R) < 0):
        raise ValueError(f"R must hold rotation matrices (R^T R = I to {QUAT_TOL:g}, det R = +1), "
                         f"got |R^T R - I| = {off:.3g}")
    return _so3.quat_from_rotmat(R)


# --------------------------------------------------------------------------------------
# energy, gradient, Hessian
# --------------------------------------------------------------------------------------
def check_load(load, name="load"):
    """The end load as a finite (Px, Py, Pz, Mx, My, Mz) array: a force triple gets zero
    moments, None is all zeros; else a ValueError naming ``name``.

    >>> check_load((0, -1, 0)).tolist()
    [0.0, -1.0, 0.0, 0.0, 0.0, 0.0]
    """
    if load is None:
        return np.zeros(6)
    arr = checks.array(load, name)
    if arr.shape == (3,):
        return np.concatenate([arr, np.zeros(3)])
    if arr.shape != (6,):
        raise ValueError(f"{name} must be (Px, Py, Pz) or (Px, Py, Pz, Mx, My, Mz), got shape "
                         f"{arr.shape}")
    return arr.copy()


def _checked(rod, state, load=None, grav=0.0):
    """The public functions' common checks: ``(x, Q, load, grav)``."""
    _check_rod(rod)
    x, Q = _check_state(rod, state)
    return x, Q, check_load(load), checks.real(grav, "grav")


def _bending_weights(rod):
    w = np.ones(rod.N)
    w[0] = 2.0
    return w


def _kin(rod, x, Q):
    R = _so3.rotmat(Q)
    d = np.diff(np.vstack([np.zeros(3), x]), axis=0)            # (N, 3)
    u = np.einsum("eji,ej->ei", R, d)                             # R^T d
    C = np.array([rod.EA, rod.kGA, rod.kGA])
    Gam = u / rod.ell
    Gam[:, 0] -= 1.0
    n = C * Gam                                                    # body force
    Qprev = np.vstack([[1.0, 0.0, 0.0, 0.0], Q[:-1]])
    theta = _so3.quat_log(_so3.quat_mul(_conj(Qprev), Q))         # (N, 3)
    return R, u, Gam, n, theta


def energy(rod, state, load=None, grav=0.0):
    """Potential energy Pi of a state (equation in the module docstring).

    Parameters
    ----------
    rod : Rod3D
    state : State
    load : array_like (3,) or (6,), optional
        Tip force (Px, Py, Pz) and conservative tip moment (Mx, My, Mz).
    grav : float
        Gravity g in -y on the lumped node masses.

    Returns
    -------
    float

    Examples
    --------
    >>> rod = make_rod3d(3)
    >>> abs(energy(rod, straight(rod), load=(0, -1, 0))) < 1e-20
    True
    """
    x, Q, load, grav = _checked(rod, state, load, grav)
    _, _, Gam, n, theta = _kin(rod, x, Q)
    B = np.array([rod.GJ, rod.EI, rod.EI])
    E = 0.5 * rod.ell * np.sum(Gam * n)
    E += 0.5 / rod.ell * np.sum(_bending_weights(rod)[:, None] * B * theta**2)
    E += grav * (x[:, 1] @ _node_masses(rod))
    E -= load[:3] @ x[-1]
    if np.any(load[3:]):
        E -= load[3:] @ _so3.quat_log(Q[-1])
    return float(E)


def _cross_cf(a, b):
    """Cross product of component-first stacks (3, n)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _grad_cf(rod, x, Q, load, grav, kernels=None):
    """Gradient as an (N, 6) array, component-first arithmetic (the explicit hot path).

    Same result as the general code in :func:`gradient` (the tests compare them), with
    J_r^{-T} m = m - theta x m / 2 + c theta x (theta x m) and
    J_l^{-T} m = m + theta x m / 2 + c theta x (theta x m) written out.  The end
    moment load[3:] is not included (see :func:`gradient`).  With the kernels on
    (``kernels``, None: the switch of :mod:`lib.kernels`) the compiled twin
    :func:`lib.kernels.spatial.gradient` runs instead.
    """
    if _kernels.use(kernels):
        P = np.zeros(6)
        P[:3] = load[:3]
        return _kernels.spatial.gradient(np.ascontiguousarray(x, dtype=float),
                                         np.ascontiguousarray(Q, dtype=float),
                                         *_kernel_args(rod, grav), P)
    N, ell = rod.N, rod.ell
    w = Q[:, 0]
    R = np.ascontiguousarray(np.moveaxis(_so3.rotmat(Q), 0, -1))    # R_ij as (3, 3, N)
    d = np.empty((3, N))
    xt = x.T
    d[:, 0] = xt[:, 0]
    np.subtract(xt[:, 1:], xt[:, :-1], out=d[:, 1:])
    u = np.einsum("jie,je->ie", R, d)                    # R^T d
    n = u / ell
    n[0] -= 1.0
    n *= np.array([rod.EA, rod.kGA, rod.kGA])[:, None]
    f = np.einsum("ije,je->ie", R, n)                    # R n (spatial force)
    # relative rotations conj(Q_{e-1}) Q_e, Q_{-1} = 1
    pw = np.empty(N)
    pv = np.empty((3, N))
    pw[0], pv[:, 0] = 1.0, 0.0
    pw[1:], pv[:, 1:] = w[:-1], -Q[:-1, 1:].T
    qv = Q[:, 1:].T
    rw = pw * w - np.sum(pv * qv, axis=0)
    rv = pw * qv + w * pv + _cross_cf(pv, qv)
    sg = np.where(rw < 0, -1.0, 1.0)
    rw, rv = rw * sg, rv * sg
    nv = np.sqrt(np.sum(rv * rv, axis=0))
    fac = np.where(nv < 1e-8, 2.0 / rw * (1.0 - nv * nv / (3.0 * rw * rw)),
                   2.0 * np.arctan2(nv, rw) / np.where(nv == 0, 1.0, nv))
    th = fac * rv
    wts = np.ones(N)
    wts[0] = 2.0
    m = th * (wts / ell) * np.array([rod.GJ, rod.EI, rod.EI])[:, None]
    c, _ = _log_coeffs(np.sqrt(np.sum(th * th, axis=0)))
    txm = _cross_cf(th, m)
    ttm = c * _cross_cf(th, txm)
    gb = m - 0.5 * txm + ttm
    ga = -(m + 0.5 * txm + ttm)
    G = np.empty((6, N))
    G[:3] = _cross_cf(n, u) + gb
    G[:3, :-1] += ga[:, 1:]
    G[3:] = f
    G[3:, :-1] -= f[:, 1:]
    if grav:
        G[4] += grav * _node_masses(rod)
    G[3:, -1] -= load[:3]
    return G.T


def gradient(rod, state, load=None, grav=0.0, *, kernels=None):
    """Gradient of :func:`energy` with respect to the increments ``[psi_e, dx_{e+1}]``.

    Per element, with the body force n = C Gamma and u = R^T d:
    dPi/dpsi_e = n x u (stretch and shear) + J_r^{-T}(theta_e) m_e
    - J_l^{-T}(theta_{e+1}) m_{e+1} (bending and twist, m = c B theta / ell),
    dPi/dx_{e+1} = R_e n_e - R_{e+1} n_{e+1}.

    ``kernels`` (None: the switch of :mod:`lib.kernels`) selects the compiled twin
    :func:`lib.kernels.spatial.gradient` of the NumPy code.

    Returns
    -------
    ndarray, shape (6N,)

    Examples
    --------
    >>> rod = make_rod3d(2)
    >>> gradient(rod, straight(rod), load=(0, 0, -1)).tolist()[-3:]
    [0.0, 0.0, 1.0]
    """
    x, Q, load, grav = _checked(rod, state, load, grav)
    if kernels is not None:
        checks.boolean(kernels, "kernels")
    return _gradient(rod, x, Q, load, grav, kernels)


def _gradient(rod, x, Q, load, grav, kernels=None):
    """:func:`gradient` unchecked (``load`` a (6,) array)."""
    if _kernels.use(kernels):
        return _kernels.spatial.gradient(np.ascontiguousarray(x), np.ascontiguousarray(Q),
                                         *_kernel_args(rod, grav), load).ravel()
    G = _grad_cf(rod, x, Q, load, grav, kernels=False)
    if np.any(load[3:]):
        th = _so3.quat_log(Q[-1])
        G[-1, :3] -= _jinv(th, +1.0).T @ load[3:]
    return G.ravel()


def _block_parts(rod, x, Q, load):
    """The element and joint blocks of :func:`hessian` (element-vectorised).

    Returns (Hpp, Hpd, Hdd, Haa, Hab, Hbb, Hm): per element e the stretch-shear blocks
    in (psi_e, x_e, x_{e+1}), per joint the bending-twist blocks of elements (e-1, e),
    and the (1, 3, 3) block of the conservative end moment (None without one).
    """
    ell = rod.ell
    R, u, _, n, theta = _kin(rod, x, Q)
    wB = (_bending_weights(rod) / ell)[:, None] * np.array([rod.GJ, rod.EI, rod.EI])
    C = np.array([rod.EA, rod.kGA, rod.kGA])
    U = _hat(u)
    # stretch-shear: local unknowns (psi_e, x_e, x_{e+1})
    Hpp = np.einsum("eki,k,ekj->eij", U, C, U) / ell
    Hpp += _sym(n[:, :, None] * u[:, None, :]) - np.sum(n * u, axis=1)[:, None, None] * np.eye(3)
    Hpd = (_hat(n) - U * C[None, None, :] / ell) @ np.swapaxes(R, 1, 2)
    Hdd = (R * C[None, None, :]) @ np.swapaxes(R, 1, 2) / ell
    # bending and twist: joint e between elements e-1 (a) and e (b)
    _, _, Haa, Hab, Hbb = _log_terms(theta, wB[:, :, None] * np.eye(3), wB * theta, 2)
    Hm = None
    if np.any(load[3:]):                     # conservative end moment -M . log(R_{N-1})
        th = _so3.quat_log(Q[-1])[None]
        *_, Hm = _log_terms(th, np.zeros((1, 3, 3)), -load[3:][None], 2)
    return Hpp, Hpd, Hdd, Haa, Hab, Hbb, Hm


@functools.lru_cache(maxsize=64)
def _block_pattern(N, moment):
    """Rows and columns of :func:`_blocks`'s triplets for N elements (read-only, cached).

    The entries in the order :func:`_block_values` lists them; the clamp's rows and
    columns (x_0) are left out, so every block of element 0 against x_0 is dropped.
    """
    e = np.arange(N)
    ip = 6 * e[:, None] + np.arange(3)            # psi_e
    ixb = 6 * e[:, None] + 3 + np.arange(3)       # x_{e+1}
    ixa = ixb - 6                                  # x_e (negative for e = 0: the clamp)
    rows, cols = [], []

    def add(I, J):
        r = np.broadcast_to(I[:, :, None], (I.shape[0], 3, 3))
        c = np.broadcast_to(J[:, None, :], (I.shape[0], 3, 3))
        keep = (r >= 0) & (c >= 0)
        rows.append(r[keep])
        cols.append(c[keep])

    for I, J in ((ip, ip), (ip, ixb), (ixb, ip), (ip, ixa), (ixa, ip), (ixb, ixb), (ixa, ixa),
                 (ixa, ixb), (ixb, ixa), (ip, ip), (ip[:-1], ip[:-1]), (ip[:-1], ip[1:]),
                 (ip[1:], ip[:-1])):
        add(I, J)
    if moment:
        add(ip[-1:], ip[-1:])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


def _block_values(parts):
    """The values of :func:`_blocks`'s triplets, in :func:`_block_pattern`'s order."""
    Hpp, Hpd, Hdd, Haa, Hab, Hbb, Hm = parts
    HpdT = np.swapaxes(Hpd, 1, 2)
    vals = [Hpp, Hpd, HpdT, -Hpd[1:], -HpdT[1:], Hdd, Hdd[1:], -Hdd[1:], -Hdd[1:],
            Hbb, Haa[1:], Hab[1:], np.swapaxes(Hab[1:], 1, 2)]
    if Hm is not None:
        vals.append(Hm)
    return np.concatenate([v.ravel() for v in vals])


def _blocks(rod, x, Q, load):
    """Element-vectorised Hessian blocks as COO triplets (rows, cols, values).

    Per element e the stretch-shear blocks couple (psi_e, x_e, x_{e+1}) and per joint
    the bending-twist blocks couple (psi_{e-1}, psi_e); the index pattern depends only
    on N (and on an end moment) and is built once (:func:`_block_pattern`).
    """
    parts = _block_parts(rod, x, Q, load)
    rows, cols = _block_pattern(rod.N, parts[-1] is not None)
    return rows, cols, _block_values(parts)


def _hessian_dense(rod, x, Q, load):
    """:func:`hessian` as a dense (6N, 6N) array, the blocks added in place.

    The same blocks as :func:`_blocks`; for a short rod (Lie-Newmark's dense tangent)
    building the sparse matrix costs more than the algebra.  Duplicates are summed in
    another order than scipy's, so the two agree to round-off.
    """
    N = rod.N
    Hpp, Hpd, Hdd, Haa, Hab, Hbb, Hm = _block_parts(rod, x, Q, load)
    H = np.zeros((N, 6, N, 6))
    e = np.arange(N)
    a, b = e[1:], e[:-1]                          # element e >= 1 and the one before it
    HpdT = np.swapaxes(Hpd, 1, 2)
    # rows psi_e = (e, :3), x_{e+1} = (e, 3:); x_e = (e - 1, 3:) (the clamp for e = 0)
    H[e, :3, e, :3] = Hpp + Hbb
    H[b, :3, b, :3] += Haa[1:]
    H[b, :3, a, :3] = Hab[1:]
    H[a, :3, b, :3] = np.swapaxes(Hab[1:], 1, 2)
    H[e, :3, e, 3:] = Hpd
    H[e, 3:, e, :3] = HpdT
    H[a, :3, b, 3:] = -Hpd[1:]
    H[b, 3:, a, :3] = -HpdT[1:]
    H[e, 3:, e, 3:] = Hdd
    H[b, 3:, b, 3:] += Hdd[1:]
    H[b, 3:, a, 3:] = -Hdd[1:]
    H[a, 3:, b, 3:] = -Hdd[1:]
    if Hm is not None:
        H[N - 1, :3, N - 1, :3] += Hm[0]
    return H.reshape(6 * N, 6 * N)


def hessian(rod, state, load=None):
    """Hessian of :func:`energy` in the increments ``[psi_e, dx_{e+1}]``, ``scipy.sparse`` CSR.

    Exponential coordinates centred on the state: H = d^2 Pi(retract(state, dq))/dq^2 at
    dq = 0 (symmetric).  Per element (stretch-shear, u = R^T d, n = C Gamma):

        d2/dpsi2   = hat(u)^T C hat(u)/ell + sym(n u^T) - (n . u) I
        d2/dpsi dx = (hat(n) - hat(u) C/ell) R^T,      d2/dx2 = R C R^T/ell,

    and per joint the second derivative of f(theta) = c theta^T B theta/(2 ell) through
    the log map, with J_r^{-1}, J_l^{-1} and their directional derivatives.  Only the
    conservative end moment (if any) enters; forces and gravity are linear.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (6N, 6N)

    Examples
    --------
    >>> rod = make_rod3d(3)
    >>> H = hessian(rod, straight(rod))
    >>> H.shape, float(abs(H - H.T).max())
    ((18, 18), 0.0)
    """
    x, Q, load, _ = _checked(rod, state, load)
    return _hessian(rod, x, Q, load)


def _hessian(rod, x, Q, load):
    """:func:`hessian` unchecked (``load`` a (6,) array)."""
    r, c, v = _blocks(rod, x, Q, load)
    return sp.coo_matrix((v, (r, c)), shape=(rod.ndof, rod.ndof)).tocsr()


# --------------------------------------------------------------------------------------
# mass, frequencies
# --------------------------------------------------------------------------------------
def _node_masses(rod):
    """Lumped masses (N,) of nodes 1..N: rhoA ell, half of it at the tip (as lib.rod)."""
    m = np.full(rod.N, rod.rhoA * rod.ell)
    m[-1] *= 0.5
    return m


def inertia(rod):
    """Body-frame principal rotary inertia of each element, shape (N, 3): ell rhoI (2, 1, 1).

    >>> inertia(make_rod3d(2, r_over_L=0.2))[0].round(6).tolist()
    [0.01, 0.005, 0.005]
    """
    _check_rod(rod)
    return np.tile(rod.rhoI * rod.ell * np.array([2.0, 1.0, 1.0]), (rod.N, 1))


def mass(rod):
    """Lumped mass as a vector in the 6N layout: inertia on psi_e, node mass on x_{e+1}.

    >>> mass(make_rod3d(1, r_over_L=0.2)).round(6).tolist()
    [0.02, 0.01, 0.01, 0.5, 0.5, 0.5]
    """
    M = np.empty((_check_rod(rod).N, 6))
    M[:, :3] = inertia(rod)
    M[:, 3:] = _node_masses(rod)[:, None]
    return M.ravel()


def modes(rod, k=None, state=None, load=None):
    """Frequencies and M-orthonormal mode shapes of the linearisation about a state.

    K v = omega^2 M v with K = :func:`hessian` (default: the straight state) and the
    lumped M, dense ``scipy.linalg.eigh``.

    Returns
    -------
    omega : (k,) ndarray ascending;  V : (6N, k) ndarray

    Raises
    ------
    ValueError
        Naming the argument; ``state`` when it is not stable (a negative eigenvalue:
        there are no frequencies to return).

    Examples
    --------
    >>> om, V = modes(make_rod3d(4), 3)
    >>> V.shape
    (24, 3)
    """
    k = None if k is None else checks.integer(k, "k", 1, _check_rod(rod).ndof)
    x, Q, load, _ = _checked(rod, straight(rod) if state is None else state, load)
    K = _hessian(rod, x, Q, load).toarray()
    sub = None if k is None else [0, k - 1]
    lam, V = sla.eigh(K, np.diag(mass(rod)), subset_by_index=sub)
    if lam[0] < 0:
        raise ValueError(f"state is not stable: lowest eigenvalue {lam[0]:.3e} < 0")
    return np.sqrt(lam), V


def frequencies(rod, k=None):
    """Angular frequencies of the rod linearised about the straight state, all modes ascending.

    At the straight state twist, the two bending planes and stretch decouple; the
    in-plane bending/shear frequencies equal :func:`lib.rod.frequencies` (each twice).

    Examples
    --------
    >>> frequencies(make_rod3d(40, r_over_L=0.002), 1).round(4)
    array([3.5141])
    """
    return modes(rod, k)[0]


def torsion_omegas(k, L=1.0, GJ=1.0, rhoJ=1.0):
    """Torsional frequencies of the clamped-free shaft: (2n-1) pi/(2L) sqrt(GJ/rhoJ).

    >>> torsion_omegas(2).round(6).tolist()
    [1.570796, 4.712389]
    """
    n = np.arange(1, checks.integer(k, "k", low=1) + 1)
    L, GJ, rhoJ = checks.positive(L, "L"), checks.positive(GJ, "GJ"), checks.positive(rhoJ, "rhoJ")
    return (2 * n - 1) * np.pi / (2 * L) * math.sqrt(GJ / rhoJ)


def omega_max_estimate(rod):
    r"""Highest frequency of the discrete rod from the zig-zag (wavenumber pi) element modes.

    Three branches, each from one element of the infinite chain with every
    neighbour moving in antiphase:

    * twist: rotary inertia ell rho J against springs 4 GJ/ell, omega^2 = 4 GJ/(rho J ell^2);
    * stretch: omega^2 = 4 EA/(rhoA ell^2);
    * shear-rotation (per plane): unknowns (psi, w), stiffness
      [[S ell + 4 EI/ell, 2 S], [2 S, 4 S/ell]], mass diag(rhoI ell, rhoA ell);
      the larger root.

    Returns
    -------
    dict with keys "twist", "stretch", "shear_rotation", "max".

    Examples
    --------
    >>> e = omega_max_estimate(make_rod3d(20))
    >>> e["max"] == e["shear_rotation"]
    True
    """
    ell, S, EI = _check_rod(rod).ell, rod.kGA, rod.EI
    tw = 2.0 * math.sqrt(rod.GJ / (2.0 * rod.rhoI)) / ell
    st = 2.0 * math.sqrt(rod.EA / rod.rhoA) / ell
    K = np.array([[S * ell + 4 * EI / ell, 2 * S], [2 * S, 4 * S / ell]])
    M = np.diag([rod.rhoI * ell, rod.rhoA * ell])
    sr = math.sqrt(sla.eigh(K, M, eigvals_only=True)[-1])
    return {"twist": tw, "stretch": st, "shear_rotation": sr, "max": max(tw, st, sr)}


# --------------------------------------------------------------------------------------
# statics
# --------------------------------------------------------------------------------------
def tip(rod, state):
    """Tip position x_N (3,) and the last element's rotation matrix (3, 3).

    >>> p, R = tip(make_rod3d(2), straight(make_rod3d(2)))
    >>> p.tolist(), bool(np.allclose(R, np.eye(3)))
    ([1.0, 0.0, 0.0], True)
    """
    x, Q = _check_state(_check_rod(rod), state)
    return x[-1].copy(), _so3.rotmat(Q[-1])


def residual_tangent(rod, state, load, grav, moment, tangent=True):
    """Residual and its consistent (right-trivialised) tangent for Newton on the group.

    The residual at R exp(hat psi) taken in its own frame has derivative
    H + hat(g_rot)/2 (H the exponential-coordinate Hessian, g_rot the rotational
    gradient); a dead moment M adds -R^T M to the tip residual and -hat(R^T M) to the
    tangent.  ``load`` is an end load as :func:`check_load` takes it, ``moment``
    "conservative" or "dead"; returns ``(g, K)`` (``g`` alone when not ``tangent``).
    """
    x, Q, load, grav = _checked(rod, state, load, grav)
    checks.choice(moment, "moment", ("conservative", "dead"))
    return _residual_tangent(rod, State(x, Q), load, grav, moment,
                             checks.boolean(tangent, "tangent"))


def _residual_tangent(rod, state, load, grav, moment, tangent=True, extra=None):
    """:func:`residual_tangent` unchecked (the Newton loop's residual and tangent).

    ``extra(state) -> (energy, gradient, hessian)``: an added potential (already at its
    load factor), its gradient and Hessian in the increments (the Hessian may be a
    zero-argument callable, called only for a tangent); it enters before the
    right-trivialising term ``hat(g_psi)/2``, which then carries its torques too."""
    x, Q = state
    dead = moment == "dead" and np.any(load[3:])
    ld = np.concatenate([load[:3], np.zeros(3)]) if dead else load
    g = _gradient(rod, x, Q, ld, grav)
    He = None
    if extra is not None:
        _, ge, He = extra(state)
        g = g + ge
    if not tangent:
        if dead:
            g = g.copy()
            g[-6:-3] -= _so3.rotmat(Q[-1]).T @ load[3:]
        return g
    K = _hessian(rod, x, Q, ld)
    if He is not None:
        K = K + sp.csr_matrix(He() if callable(He) else He)
    blocks = 0.5 * _hat(g.reshape(rod.N, 6)[:, :3])
    if dead:
        mb = _so3.rotmat(Q[-1]).T @ load[3:]         # dead moment in the tip element frame
        g = g.copy()
        g[-6:-3] -= mb
        blocks[-1] -= _hat(mb)
    e = np.arange(rod.N)
    I = 6 * e[:, None] + np.arange(3)
    T = sp.coo_matrix((blocks.ravel(), (np.repeat(I, 3, axis=1).ravel(),
                                        np.tile(I, (1, 3)).ravel())), shape=K.shape)
    return g, (K + T.tocsr()).tocsr()


def _check_fixed(fixed, n):
    """Dof indices in 0..n-1 as an int array (a ValueError naming ``fixed``)."""
    f = checks.vector(fixed, "fixed", low=0, high=n - 1)
    if np.any(f != np.round(f)):
        raise ValueError(f"fixed must be dof indices in 0..{n - 1}, got {checks.show(fixed)}")
    return f.astype(int)


def static(rod, load=None, grav=0.0, steps=10, state0=None, tol=1e-10, maxiter=50,
           moment="conservative", fixed=None, extra=None, extra_scale=0.0, record=False):
    """Equilibrium of the 3-D rod under a tip force and moment and gravity.

    Load-incremented Newton on SO(3)^N x R^3N (:func:`lib.solvers.load_path`, uniform,
    and :func:`lib.solvers.newton_solve`): at each iterate the consistent tangent
    system K dq = -r (sparse LU) is solved and the state is updated by :func:`retract`,
    damped by Deuflhard's natural monotonicity test (``accept="natural"``: the step is
    halved until ||K^{-1} r(new)|| <= (1 - t/4) ||dq||).  Converged when
    ||r||_inf <= tol max(EI/L, |P|, |M|/L, g rhoA L), or when the correction is below
    1e-14 L with the residual at its round-off floor 16 eps (EA + k_sGA) max(N, 4).

    Parameters
    ----------
    rod : Rod3D
    load : (3,) or (6,) array_like
        Tip force and moment.
    grav : float
        Gravity in -y.
    steps, tol, maxiter : load increments, relative tolerance, iterations per increment.
    state0 : State, optional
        Start (default :func:`straight`).
    moment : "conservative" or "dead"
        The tip moment as in :func:`energy`, or a dead moment fixed in space
        (not conservative in 3-D; the tangent is then not symmetric).
    fixed : array_like of int, optional
        Displacement dofs held at their start values (``[0, 1, 2]`` holds R_0: the
        rigid first element of PyElastica's clamp).
    extra : callable, optional
        An added potential, the hook for actuators (:func:`lib.actuation.static3d`'s
        tendons): ``extra(state, lam) -> (energy, gradient, hessian)`` at load factor
        ``lam`` in (0, 1] (it grows with the loads along the load path), the gradient
        (6N,) and the Hessian (6N, 6N; dense, sparse, or a zero-argument callable
        returning one, called only when a tangent is needed) in this module's
        increments ``[psi_e, dx_{e+1}]`` at zero, as :func:`gradient` and
        :func:`hessian`.  The Newton tangent adds ``hat(g_psi)/2`` of the *total*
        rotational gradient (see :func:`residual_tangent`), so the hook supplies only
        the exponential-coordinate Hessian.
    extra_scale : float >= 0
        The force scale of the added potential (e.g. the largest tension), folded into
        the tolerance's force scale.
    record : bool
        Also return the equilibria at every load step: ``(state, [state_1, ...,
        state_steps])``.

    Raises
    ------
    StaticSolveError
        (a :class:`~lib.core.errors.SolveError`) naming the load step, iteration and
        residual; or ``reason="unstable equilibrium"`` if the equilibrium reached is not
        stable (its Hessian on the free dofs is not positive definite, e.g. the straight
        rod compressed past buckling).  Checked for conservative loads without
        ``extra`` (a dead moment is not conservative; an ``extra`` hook's caller judges
        its own total potential, as :func:`lib.actuation.static3d_path` does).

    Examples
    --------
    >>> rod = make_rod3d(20, r_over_L=0.002)
    >>> p, _ = tip(rod, static(rod, (0.0, 0.0, -1e-3)))
    >>> round(float(p[2]) / 1e-3, 4)  # as lib.rod's example, bending in x-z
    -0.3338
    """
    _check_rod(rod)
    load, grav = check_load(load), checks.real(grav, "grav")
    steps = checks.integer(steps, "steps", low=1)
    tol, maxiter = checks.positive(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    checks.choice(moment, "moment", ("conservative", "dead"))
    state = straight(rod) if state0 is None else State(*_check_state(rod, state0, "state0"))
    free = np.ones(rod.ndof, dtype=bool)
    if fixed is not None:
        free[_check_fixed(fixed, rod.ndof)] = False
    if extra is not None:
        checks.function(extra, "extra")
    extra_scale = checks.nonnegative(extra_scale, "extra_scale")
    record = checks.boolean(record, "record")
    fscale = max(rod.EI / rod.L, np.abs(load[:3]).max(), np.abs(load[3:]).max() / rod.L,
                 abs(grav) * rod.rhoA * rod.L, extra_scale)
    floor = 16 * _EPS * (rod.EA + rod.kGA) * max(rod.N, 4)

    def solve_at(lam, s):
        ld, gv = lam * load, lam * grav
        ex = None if extra is None else (lambda s: extra(s, lam))
        return newton_solve(
            lambda s: _residual_tangent(rod, s, ld, gv, moment, extra=ex), s, tol, maxiter,
            max_backtracks=26, where="rod3d.static", accept="natural", scale=fscale,
            floor=floor, roundoff="correction", xtol=1e-14 * rod.L, xtol_rel=0.0, free=free,
            update=lambda s, dq, t: _retract(rod, s, t * dq),
            residual=lambda s: _residual_tangent(rod, s, ld, gv, moment, tangent=False,
                                                 extra=ex))

    try:
        out, path = load_path(solve_at, state, steps=steps, record=record, where="rod3d.static")
    except SolveError as err:
        raise _as_static_error(err) from err
    if moment == "conservative" and extra is None:
        # Newton also converges to saddles: the equilibrium must be stable (at an
        # equilibrium of conservative loads the Hessian is the second variation)
        H = _hessian(rod, out.x, out.Q, load).tocsr()[free][:, free]
        try:
            require_positive_definite(H, where="rod3d.static", hint=BIFURCATION)
        except SolveError as err:
            raise _as_static_error(err).located(steps, nsteps=steps, load=1.0) from None
    return (out, list(path.states)) if record else out


# --------------------------------------------------------------------------------------
# Greenhill: twist-controlled clamped-clamped rod
# --------------------------------------------------------------------------------------
def _check_twist(rod, twist, name="twist"):
    """The end rotation; |twist| / N < pi, else the relative rotations wrap (a ValueError)."""
    twist = checks.real(twist, name)
    if abs(twist) >= math.pi * rod.N:
        raise ValueError(f"{name} must satisfy |{name}| / N < pi (the twist per element; the "
                         f"N = {rod.N} rod cannot carry more), got {name} = {twist:.6g}, "
                         f"{abs(twist) / rod.N:.4g} per element")
    return twist


def _twisted_clamped(rod, twist):
    """Hessian and lumped mass on the free dofs of the twisted clamped-clamped rod."""
    twist = _check_twist(_check_rod(rod), twist)
    N, ell = rod.N, rod.ell
    psi = np.zeros((N, 3))
    psi[:, 0] = twist * (np.arange(N) + 0.5) / N
    H = _hessian(rod, straight(rod).x, _so3.quat_exp(psi), np.zeros(6)).toarray()
    # end joint: a = element N-1, b = the end clamp (fixed); theta = twist/(2N) about x
    th = np.array([[twist / (2 * N), 0.0, 0.0]])
    Kb = (2.0 / ell) * np.diag([rod.GJ, rod.EI, rod.EI])[None]
    _, _, Haa, _, _ = _log_terms(th, Kb, (Kb[0] @ th[0])[None], 2)
    i = 6 * (N - 1)
    H[i:i + 3, i:i + 3] += Haa[0]
    free = np.ones(rod.ndof, dtype=bool)
    free[[6 * N - 2, 6 * N - 1]] = False          # tip y, z held
    return H[np.ix_(free, free)], mass(rod)[free]


def _lowest_eigenvalues(H, k):
    """The ``k`` smallest eigenvalues of the symmetric banded matrix H (dense storage).

    The rod's Hessian couples only neighbouring elements: its band is read off the
    matrix and solved by ``scipy.linalg.eig_banded`` (LAPACK ``dsbevx``, O(n b^2)),
    the same eigenvalues as a dense ``eigh`` to round-off at a fraction of its cost.
    """
    i, j = np.nonzero(np.triu(H))
    b = int((j - i).max()) if i.size else 0
    n = H.shape[0]
    ab = np.zeros((b + 1, n))
    for d in range(b + 1):                       # upper storage: ab[b - d, j] = H[j - d, j]
        ab[b - d, d:] = np.diagonal(H, d)
    return sla.eig_banded(ab, eigvals_only=True, select="i", select_range=(0, k - 1))


def greenhill_lambda(rod, twist):
    r"""Lowest stiffness eigenvalue of the straight rod twisted by ``twist`` between two clamps.

    Both ends clamped: node 0 and the frame at s = 0 fixed (identity), the frame at
    s = L turned by ``twist`` about the axis and the tip's lateral position held; the
    tip may slide axially (no axial force).  The straight, uniformly twisted state
    R_e = exp(twist (e + 1/2)/N hat(e1)) is an equilibrium with the twisting moment
    GJ twist/L; an extra joint of weight 2 couples element N-1 to the end clamp.  The
    returned value is the smallest eigenvalue of the Hessian on the free dofs
    (positive while the straight state is stable, negative past the critical twist: a
    result, see :func:`critical_twist`).  A twist of pi or more per element is a
    ValueError naming ``twist`` (the discrete rod cannot represent it).

    Examples
    --------
    >>> rod = make_rod3d(10)
    >>> bool(greenhill_lambda(rod, 1.0) > 0 > greenhill_lambda(rod, 20.0))
    True
    """
    H, _ = _twisted_clamped(rod, twist)
    return float(_lowest_eigenvalues(H, 1)[0])


def twisted_frequencies(rod, twist, k=2):
    r"""Lowest ``k`` frequencies of the twisted clamped-clamped rod of :func:`greenhill_lambda`.

    K v = omega^2 M v on the free dofs (symmetrised by M^{-1/2} and solved as a banded problem,
    ``scipy.linalg.eig_banded``); bending in the two
    planes is coupled by the twisting moment, and the lowest pair falls to zero at the
    critical twist.  Compare :func:`twisted_shaft_omegas`.

    Raises
    ------
    ValueError
        Naming ``twist`` when it is past the critical twist (no frequencies: the straight
        state is unstable) or beyond pi per element (not representable); ``k``.

    Examples
    --------
    >>> w0 = twisted_frequencies(make_rod3d(20, r_over_L=0.002), 0.0, 1)[0]
    >>> round(float(w0), 2)            # clamped-clamped beam 22.37, less O(1/N^2)
    22.14
    """
    H, m = _twisted_clamped(rod, twist)
    k = checks.integer(k, "k", 1, m.size)
    s = 1.0 / np.sqrt(m)                        # M^{-1/2} H M^{-1/2}: still banded
    lam = _lowest_eigenvalues(H * s[:, None] * s[None, :], k)
    if lam[0] < 0:
        raise ValueError(f"twist {float(twist)!r} is beyond the critical twist (lowest "
                         f"eigenvalue {lam[0]:.3e})")
    return np.sqrt(lam)


def twisted_shaft_omegas(kL, n=2, Omega_max=80.0, grid=1600):
    r"""Bending-whirl frequencies of a clamped-clamped Kirchhoff shaft under a twisting moment.

    With w = y + i z, L = EI = rhoA = 1 and k = T L/EI, the linearised equation
    w'''' - i k w''' + w_tt = 0 with w = W(s) exp(i Omega t) gives
    lambda^4 - i k lambda^3 - Omega^2 = 0, and W = sum_j c_j exp(lambda_j s) with
    W = dW/ds = 0 at s = 0 and 1.  The frequencies are the Omega where that 4 x 4
    boundary matrix (columns normalised) is singular: minima of its smallest singular
    value, bracketed on a grid and refined by ``scipy.optimize.minimize_scalar``.  No
    shear, no rotary inertia (compare a slender rod).  At k = 0 it is the
    clamped-clamped beam, Omega_1 = 22.3733; Omega_1 -> 0 at Greenhill's kL = 8.9868.

    Returns
    -------
    ndarray (n,), each frequency doubly degenerate in the real (y, z) system.

    Raises
    ------
    ValueError
        Naming the argument; ``kL`` at or past Greenhill's 8.9868 (the shaft has buckled).
    SolveError
        When fewer than ``n`` frequencies lie below ``Omega_max`` (or one is not refined).

    Examples
    --------
    >>> twisted_shaft_omegas(0.0, 1).round(4)
    array([22.3733])
    """
    from scipy.optimize import minimize_scalar

    kL = checks.real(kL, "kL")
    if abs(kL) >= 2 * _greenhill_root():
        raise ValueError(f"kL must satisfy |kL| < {2 * _greenhill_root():.4f} (Greenhill's "
                         f"critical twisting moment), got {kL:.6g}")
    n, grid = checks.integer(n, "n", low=1), checks.integer(grid, "grid", low=3)
    Omega_max = checks.real(Omega_max, "Omega_max", low=0.5, include_low=False)

    def smin(Om):
        lam = np.roots([1.0, -1j * kL, 0.0, 0.0, -Om * Om])
        E = np.exp(lam)
        D = np.array([np.ones(4), lam, E, lam * E])
        return sla.svdvals(D / np.linalg.norm(D, axis=0))[-1]

    g = np.linspace(0.5, Omega_max, grid)
    v = np.array([smin(x) for x in g])
    idx = np.flatnonzero((v[1:-1] < v[:-2]) & (v[1:-1] < v[2:])) + 1
    out = []
    for i in idx[:n]:
        r = minimize_scalar(smin, bracket=(g[i - 1], g[i], g[i + 1]), tol=1e-12)
        if r.fun > 1e-8:
            raise SolveError(f"no singular boundary matrix near Omega = {g[i]:.3f} "
                             f"(smallest singular value {r.fun:.2e})",
                             where="twisted_shaft_omegas")
        out.append(r.x)
    if len(out) < n:
        raise SolveError(f"found {len(out)} of {n} frequencies below Omega_max = {Omega_max}",
                         where="twisted_shaft_omegas")
    return np.array(out)


def greenhill_twist(nu=0.5, L=1.0, shear=0.0):
    r"""Greenhill's critical end rotation of a clamped-clamped shaft (no axial force).

    Linearised Kirchhoff equations B w'''' - i T w''' = 0 (w = y + i z) with
    w = w' = 0 at both ends give (kL/2) = tan(kL/2), k = T/B, first root
    kL = 8.9868; with T = GJ Phi/L the critical twist is Phi = 8.9868 B/(GJ) =
    8.9868 (1 + nu).  The critical *angle* depends on neither L nor EI (a longer shaft
    buckles at a smaller moment T = 8.9868 B/L, which the same angle supplies); ``L`` is
    checked and otherwise unused, kept so that a call may name the shaft it means.

    With shear (the shearable Cosserat shaft: section tilt phi, shear force
    k_sGA (w' - phi) constant along the shaft, the sections clamped at both ends) the
    same steps give

        tan x = x / (1 + 4 x^2 shear),   x = kL/2,   shear = EI/(k_s G A L^2),

    whose first root above pi is returned as Phi = 2 x (1 + nu); for small ``shear`` it
    is the unshearable angle times (1 - 4 shear) (chapter rod3d derives both).

    Parameters
    ----------
    nu : float in (-1, 0.5], Poisson's ratio (B/GJ = 1 + nu).
    L : float > 0, the shaft's length (the angle does not depend on it).
    shear : float >= 0, the shear flexibility EI/(k_s G A L^2); 0 is Kirchhoff's rod.

    Examples
    --------
    >>> round(greenhill_twist(0.5), 4)
    13.4802
    >>> greenhill_twist(0.5, L=3.0) == greenhill_twist(0.5)
    True
    >>> round(greenhill_twist(0.5, shear=1e-3) / greenhill_twist(0.5) - 1, 5)
    -0.00397
    """
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    checks.positive(L, "L")
    shear = checks.nonnegative(shear, "shear")
    return 2 * _greenhill_root(shear) * (1.0 + nu)


def _greenhill_root(shear=0.0):
    """The first root x above pi of tan x = x/(1 + 4 x^2 shear) (kL = 2 x; 8.9868 without
    shear).  It lies in (pi, 3 pi/2) for every shear >= 0."""
    return brentq(lambda u: math.tan(u) - u / (1.0 + 4.0 * u * u * shear),
                  math.pi + 1e-9, 1.5 * math.pi - 1e-9, xtol=1e-15)


def critical_twist(rod, bracket=None):
    """The discrete rod's critical twist: the root of :func:`greenhill_lambda` (``brentq``).

    >>> round(critical_twist(make_rod3d(20, r_over_L=0.01)) / greenhill_twist(), 2)
    1.0
    """
    g = greenhill_twist(_check_rod(rod).nu)          # an angle: the same for every L
    if bracket is None:              # within the twist the N elements can carry
        lo, hi = 0.5 * g, min(1.5 * g, 0.999 * math.pi * rod.N)
    else:
        lo, hi = checks.vector(bracket, "bracket", 2)
        lo, hi = _check_twist(rod, lo, "bracket"), _check_twist(rod, hi, "bracket")
    flo, fhi = greenhill_lambda(rod, lo), greenhill_lambda(rod, hi)
    if not (flo > 0 > fhi):
        raise ValueError(f"bracket ({lo:.4g}, {hi:.4g}) does not contain the critical twist "
                         f"(lambda = {flo:.3e}, {fhi:.3e})")
    return brentq(lambda t: greenhill_lambda(rod, t), lo, hi, xtol=1e-12)


# --------------------------------------------------------------------------------------
# the Kirchhoff / Love helix
# --------------------------------------------------------------------------------------
def _helix_local(s, alpha, a, twist_rate):
    """Centre line and material frames of a helix (axis e3) in its own coordinates."""
    sig = math.sin(alpha) / a
    ph = sig * s
    r = np.column_stack([a * np.cos(ph), a * np.sin(ph), math.cos(alpha) * s])
    t = np.column_stack([-math.sin(alpha) * np.sin(ph), math.sin(alpha) * np.cos(ph),
                         np.full_like(s, math.cos(alpha))])
    nrm = np.column_stack([-np.cos(ph), -np.sin(ph), np.zeros_like(s)])
    b = np.cross(t, nrm)
    beta = twist_rate * s                                 # extra material twist
    d2 = np.cos(beta)[:, None] * nrm + np.sin(beta)[:, None] * b
    d3 = -np.sin(beta)[:, None] * nrm + np.cos(beta)[:, None] * b
    return r, np.stack([t, d2, d3], axis=2)               # frames: columns d1 d2 d3


def _check_helix(rod, alpha, a, twist_rate):
    """Pitch angle in (0, pi/2], radius > 0, a finite twist rate; the rod a Rod3D."""
    _check_rod(rod)
    return (checks.real(alpha, "alpha", 0.0, math.pi / 2, include_low=False),
            checks.positive(a, "a"), checks.real(twist_rate, "twist_rate"))


def helix_wrench(rod, alpha, a, twist_rate=0.0):
    r"""The end force and moment (axis frame) that hold a naturally straight rod in a helix.

    A helix of pitch angle alpha (tangent at alpha from the axis) and radius a has
    curvature kappa = sin^2(alpha)/a and torsion tau = sin(alpha) cos(alpha)/a; with
    the twist strain kappa_1 = tau + twist_rate the moment is m = EI kappa b + GJ kappa_1 t.
    The balance n' = 0, m' + t x n = 0 holds with a force F along the axis and, about
    the axis, a moment M (Love's wrench):

        F = kappa (GJ kappa_1 - EI tau)/sin(alpha),
        M = EI kappa sin(alpha) + GJ kappa_1 cos(alpha).

    Returns
    -------
    (F, M) : floats, along the helix axis.

    Examples
    --------
    >>> F, M = helix_wrench(make_rod3d(4, nu=0.0), np.pi / 4, 0.2)
    >>> round(F, 12), round(M, 6)          # GJ = EI, no extra twist: pure torque
    (0.0, 3.535534)
    """
    alpha, a, twist_rate = _check_helix(rod, alpha, a, twist_rate)
    kap = math.sin(alpha) ** 2 / a
    tau = math.sin(alpha) * math.cos(alpha) / a
    k1 = tau + twist_rate
    F = kap * (rod.GJ * k1 - rod.EI * tau) / math.sin(alpha)
    M = rod.EI * kap * math.sin(alpha) + rod.GJ * k1 * math.cos(alpha)
    return float(F), float(M)


def helix(rod, alpha, a, twist_rate=0.0):
    """The exact helix sampled on the discrete rod, clamp-aligned, and its end load.

    The helix is rotated and shifted so that s = 0 sits at the clamp with the clamp
    frame (its tangent +x).  Element frames are the helix's material frames at the
    element centres; the nodes are chained from them, x_{e+1} = x_e + ell d1_e (no
    stretch or shear), so they lie within O(ell^2) of the helix.

    Returns
    -------
    state : State
    load : (6,) ndarray
        The dead tip force F e_axis and moment M e_axis + a F e_theta (about the tip
        node) in global coordinates, for :func:`static` with ``moment="dead"``.
    exact : (N + 1, 3) ndarray
        The exact helix at the nodes (node 0 included).

    Examples
    --------
    >>> st, load, exact = helix(make_rod3d(8), 0.6, 0.3)
    >>> bool(np.abs(st.x - exact[1:]).max() < 0.01)
    True
    """
    alpha, a, twist_rate = _check_helix(rod, alpha, a, twist_rate)
    N, ell = rod.N, rod.ell
    s_nodes = ell * np.arange(N + 1)
    s_mid = ell * (np.arange(N) + 0.5)
    r, _ = _helix_local(s_nodes, alpha, a, twist_rate)
    _, D = _helix_local(s_mid, alpha, a, twist_rate)
    _, D0 = _helix_local(np.zeros(1), alpha, a, twist_rate)
    R0 = D0[0].T                                           # maps the helix frame at 0 to I
    pos = (r - r[0]) @ R0.T
    frames = R0[None] @ D
    Q = _so3.quat_from_rotmat(frames)
    # nodes chained along the element tangents (no stretch or shear): a start
    # from which Newton converges even for very stiff (thin) rods
    x = np.cumsum(ell * frames[:, :, 0], axis=0)
    F, M = helix_wrench(rod, alpha, a, twist_rate)
    e3 = R0 @ np.array([0.0, 0.0, 1.0])
    ph = math.sin(alpha) / a * rod.L
    eth = R0 @ np.array([-math.sin(ph), math.cos(ph), 0.0])
    load = np.concatenate([F * e3, M * e3 + a * F * eth])
    return State(x, Q), load, pos


# --------------------------------------------------------------------------------------
# dynamics on R^3N x SO(3)^N
# --------------------------------------------------------------------------------------
def _velocities(rod, v, w):
    """``v`` and ``w`` as (N, 3) float arrays (copies), finite."""
    return (checks.array(v, "v", shape=(rod.N, 3)).copy(),
            checks.array(w, "w", shape=(rod.N, 3)).copy())


def kinetic_energy(rod, v, w):
    """Kinetic energy 1/2 sum m |v|^2 + 1/2 sum w^T J w (w in body frames).

    >>> kinetic_energy(make_rod3d(1, r_over_L=0.2), np.ones((1, 3)), np.zeros((1, 3)))
    0.75
    """
    v, w = _velocities(_check_rod(rod), v, w)
    return float(0.5 * np.sum(_node_masses(rod)[:, None] * v**2)
                 + 0.5 * np.sum(inertia(rod) * w**2))


def accelerations(rod, state, v, w, load=None, grav=0.0):
    """Node accelerations and body angular accelerations of the lumped rod.

    a = -dPi/dx / m,  J dw/dt = tau - w x (J w),  tau = -dPi/dpsi (body torque);
    ``v``, ``w`` have shape (N, 3), ``w`` in the element frames.

    Returns
    -------
    (a, alpha) : two (N, 3) arrays
    """
    x, Q, load, grav = _checked(rod, state, load, grav)
    _, w = _velocities(rod, v, w)
    return _accel(rod, x, Q, w, load, grav, inertia(rod), _node_masses(rod))


def _accel(rod, x, Q, w, load, grav, J, mn):
    if np.any(load[3:]):
        G = _gradient(rod, x, Q, load, grav).reshape(rod.N, 6)
    else:
        G = _grad_cf(rod, x, Q, load, grav)
    a = -G[:, 3:] / mn[:, None]
    alpha = (-G[:, :3] - _cross(w, J * w)) / J
    return a, alpha


def lie_verlet_step(x, Q, v, w, dt, forces, J, gyro="explicit"):
    r"""One position-Verlet step on R^3n x SO(3)^m (PyElastica's splitting).

    Half drift x += dt/2 v, Q <- Q exp(dt/2 hat w); kick with ``a, tau = forces(x, Q)``
    (node accelerations and body-frame torques): v += dt a and the Euler equation

        J (w+ - w) = dt (tau - w* x J w*),

    with w* = w (``gyro="explicit"``, PyElastica's treatment of the gyroscopic term:
    first order once that term matters) or w* = (w + w+)/2 (``gyro="midpoint"``, solved
    by fixed-point iteration: symmetric, second order); half drift again.  PyElastica's
    own step is not this one: its rod's inertia scales with the dilatation e, which adds
    an unsteady-dilatation torque (J w/e) de/dt / e, also explicit, that makes it first
    order even without spin (:func:`lib.crosscheck.elastica_run`, ``velocity_torques``).
    Model-independent: any particles (n, 3) and rigid bodies (m, 4, unit to QUAT_TOL)
    with principal inertias J (m, 3) > 0.

    Returns
    -------
    (x, Q, v, w) new arrays.

    Examples
    --------
    >>> x, Q, v, w = lie_verlet_step(np.zeros((1, 3)), np.array([[1., 0, 0, 0]]),
    ...                              np.ones((1, 3)), np.array([[0, 0, np.pi]]), 1.0,
    ...                              lambda x, Q: (np.zeros((1, 3)), np.zeros((1, 3))),
    ...                              np.ones((1, 3)))
    >>> x.tolist(), np.round(Q, 12).tolist()
    ([[1.0, 1.0, 1.0]], [[0.0, 0.0, 0.0, 1.0]])
    """
    x = checks.array(x, "x", shape=(None, 3))
    Q = checks.quaternions(Q, "Q", tol=QUAT_TOL)
    v = checks.array(v, "v", shape=(x.shape[0], 3))
    w = checks.array(w, "w", shape=(Q.shape[0], 3))
    J = checks.array(J, "J", shape=(Q.shape[0], 3), low=0.0, include_low=False)
    checks.choice(gyro, "gyro", ("explicit", "midpoint"))
    dt, forces = checks.positive(dt, "dt"), checks.function(forces, "forces")
    return _lie_verlet_step(x, Q, v, w, dt, forces, J, gyro)


def _lie_verlet_step(x, Q, v, w, dt, forces, J, gyro):
    """:func:`lie_verlet_step` unchecked (the time loop's step)."""
    h = 0.5 * dt
    x = x + h * v
    Q = _so3.quat_mul(Q, _so3.quat_exp(h * w))
    a, tau = forces(x, Q)
    v = v + dt * a
    w1 = w + dt * (tau - _cross(w, J * w)) / J
    if gyro == "midpoint":
        for _ in range(50):
            wm = 0.5 * (w + w1)
            w2 = w + dt * (tau - _cross(wm, J * wm)) / J
            done = np.abs(w2 - w1).max() <= 1e-15 * max(1.0, np.abs(w2).max())
            w1 = w2
            if done:
                break
    w = w1
    x = x + h * v
    Q = _so3.quat_mul(Q, _so3.quat_exp(h * w))
    Q /= np.linalg.norm(Q, axis=-1, keepdims=True)
    return x, Q, v, w


def _run_checks(rod, state, v, w, dt, nsteps, every, observe, load, grav):
    """The common checks of the time runs: ``(x, Q, v, w, dt, nsteps, every, load, grav)``."""
    x, Q, load, grav = _checked(rod, state, load, grav)
    v, w = _velocities(rod, v, w)
    if observe is not None:
        checks.function(observe, "observe")
    return (x, Q, v, w, checks.positive(dt, "dt"), checks.integer(nsteps, "nsteps", low=0),
            checks.integer(every, "every", low=1), load, grav)


def lie_verlet(rod, state, v, w, dt, nsteps, load=None, grav=0.0, every=1, observe=None,
               gyro="explicit", rigid_clamp=False, *, kernels=None):
    """Run :func:`lie_verlet_step` on the rod; record ``observe(state, v, w)`` every ``every`` steps.

    ``gyro`` as in :func:`lie_verlet_step` ("explicit": PyElastica's gyroscopic update).
    ``rigid_clamp=True`` holds the frame of element 0 (no torque reaches it and its
    angular velocity stays zero): PyElastica's ``OneEndFixedBC``.  With the kernels
    on (``kernels``, None: the switch of :mod:`lib.kernels`) the steps run in the
    compiled :func:`lib.kernels.spatial.lie_verlet_run`, many per call, and
    ``observe`` is called on the sampled states afterwards, in step order (the same
    records to round-off).

    Returns
    -------
    (state, v, w, record) : the final state and velocities, and a list of the
        observed values (at step 0, every, 2 every, ...).

    Raises
    ------
    BlowUpError
        (a ``FloatingPointError`` and a :class:`~lib.core.errors.SolveError`) with the
        step reached if the motion becomes non-finite.
    """
    x, Q, v, w, dt, nsteps, every, load, grav = _run_checks(rod, state, v, w, dt, nsteps,
                                                            every, observe, load, grav)
    checks.choice(gyro, "gyro", ("explicit", "midpoint"))
    if checks.boolean(rigid_clamp, "rigid_clamp") and np.any(w[0]):
        raise ValueError("w[0] must be zero with rigid_clamp (the first frame is held)")
    if kernels is not None:
        checks.boolean(kernels, "kernels")
    J, mn = inertia(rod), _node_masses(rod)
    if _kernels.use(kernels):
        return _lie_verlet_compiled(rod, x, Q, v, w, dt, nsteps, load, grav, every, observe,
                                    gyro == "midpoint", bool(rigid_clamp))

    def forces(x, Q):
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(Q))):
            raise FloatingPointError
        if np.any(load[3:]):
            G = _gradient(rod, x, Q, load, grav, kernels=False).reshape(rod.N, 6)
        else:
            G = _grad_cf(rod, x, Q, load, grav, kernels=False)
        tau = -G[:, :3]
        if rigid_clamp:
            tau[0] = 0.0
        return -G[:, 3:] / mn[:, None], tau

    rec = [] if observe is None else [observe(State(x, Q), v, w)]
    for n in range(1, nsteps + 1):
        try:
            with np.errstate(all="ignore"):
                x, Q, v, w = _lie_verlet_step(x, Q, v, w, dt, forces, J, gyro)
            if not (np.all(np.isfinite(v)) and np.all(np.isfinite(w))):
                raise FloatingPointError
        except FloatingPointError:
            raise _blow_up(n, dt) from None
        if observe is not None and n % every == 0:
            rec.append(observe(State(x, Q), v, w))
    return State(x, Q), v, w, rec


def _blow_up(n, dt):
    return BlowUpError(where="explicit Lie-Verlet", step=n, time=n * dt, reason="non-finite",
                       message=f"explicit Lie-Verlet blew up at step {n} (t = {n * dt:.4g})")


def _kernel_args(rod, grav):
    """The rod's arguments of the lib.kernels.spatial kernels (before the load)."""
    return (int(rod.N), float(rod.ell), float(rod.EA), float(rod.kGA), float(rod.GJ),
            float(rod.EI), float(rod.rhoA), float(grav))


_SAMPLE_BYTES = 8 * 2**20          # sample buffers of one kernel call (lie_verlet)


def _lie_verlet_compiled(rod, x, Q, v, w, dt, nsteps, load, grav, every, observe, midpoint,
                         rigid_clamp):
    """:func:`lie_verlet` through the many-steps kernel; observe on the sampled states."""
    x, Q = np.array(x, dtype=float, order="C"), np.array(Q, dtype=float, order="C")
    v, w = np.ascontiguousarray(v), np.ascontiguousarray(w)
    N = rod.N
    args = (*_kernel_args(rod, grav), load, inertia(rod), _node_masses(rod), midpoint,
            rigid_clamp)
    rec = [] if observe is None else [observe(State(x.copy(), Q.copy()), v.copy(), w.copy())]
    per_sample = 13 * 8 * N
    chunk = nsteps if observe is None else every * max(1, _SAMPLE_BYTES // per_sample)
    done = 0
    while done < nsteps:
        n = min(chunk, nsteps - done)
        k = n // every if observe is not None else 0
        xs, Qs = np.empty((k, N, 3)), np.empty((k, N, 4))
        vs, ws = np.empty((k, N, 3)), np.empty((k, N, 3))
        fail = _kernels.spatial.lie_verlet_run(x, Q, v, w, float(dt), n, every, xs, Qs, vs, ws, *args)
        if fail:
            raise _blow_up(done + fail, dt)
        for i in range(k):
            rec.append(observe(State(xs[i], Qs[i]), vs[i], ws[i]))
        done += n
    return State(x, Q), v, w, rec


def _right_jacobian(psi):
    """J_r(psi) = I - (1 - cos t)/t^2 hat(psi) + (t - sin t)/t^3 hat(psi)^2, t = |psi|
    (series below t = 1e-3); finite for every psi (its inverse is :func:`lib.core.so3.jinv`)."""
    t = np.linalg.norm(psi, axis=-1)
    small = t < 1e-3
    ts = np.where(small, 1.0, t)
    t2 = t * t
    a = np.where(small, 0.5 - t2 / 24.0, (1.0 - np.cos(ts)) / ts**2)
    b = np.where(small, 1.0 / 6.0 - t2 / 120.0, (ts - np.sin(ts)) / ts**3)
    H = _hat(psi)
    return np.eye(3) - a[..., None, None] * H + b[..., None, None] * (H @ H)


_DENSE_TANGENT_DOFS = 120      # up to N = 20: dense algebra beats the sparse overhead


def _newmark_tangent(rod, s1, g, D, w1, J, M, dt, beta, gamma, load, dense=None):
    r"""The exact derivative of the Lie-Newmark residual with respect to A_{n+1}.

    r = M A + g(s1) + w1 x J w1 with s1 = s_n exp(D), D = dt V + dt^2 (... + beta A):

        dr/dA = M + dt^2 beta (K + G) T + dt gamma Y,

    K = :func:`hessian` at s1, G = hat(g_psi)/2 on each element's rotation block (the
    body-frame torque g_psi = J_r^{-T} d Pi/d psi turning with the frame: K is the
    symmetric Hessian in exponential coordinates centred on s1, and J_r^{-T} =
    I - hat(psi)/2 + ... adds G), T = J_r(D_psi) on
    the rotation blocks (the exponential map's right Jacobian: s_n exp(D + delta) =
    s1 exp(J_r(D) delta) to first order) and Y = hat(w1) J - hat(J w1) (the gyroscopic
    term).  Finite-difference checked in tests/test_rod3d.py.

    ``dense`` (None: for at most ``_DENSE_TANGENT_DOFS`` unknowns) returns the same
    matrix as a dense array: a short rod's run is dominated by the overhead of building
    sparse matrices, not by the algebra.
    """
    N = rod.N
    G, T, Y = np.zeros((N, 6, 6)), np.zeros((N, 6, 6)), np.zeros((N, 6, 6))
    G[:, :3, :3] = 0.5 * _hat(g[:, :3])
    T[:] = np.eye(6)
    T[:, :3, :3] = _right_jacobian(D[:, :3])
    Y[:, :3, :3] = _hat(w1) * J[:, None, :] - _hat(J * w1)
    if dense is None:
        dense = 6 * N <= _DENSE_TANGENT_DOFS
    if dense:
        e6 = 6 * np.arange(N)[:, None, None]
        r, c = e6 + np.arange(6)[None, :, None], e6 + np.arange(6)[None, None, :]

        def blocks(B):
            out = np.zeros((6 * N, 6 * N))
            out[r, c] = B
            return out

        K = _hessian_dense(rod, *s1, load) + blocks(G)
        out = (dt * dt * beta) * (K @ blocks(T)) + (dt * gamma) * blocks(Y)
        out[np.diag_indices(6 * N)] += M.ravel()
        return out
    K = _hessian(rod, *s1, load) + sp.block_diag(G, format="csr")
    return (sp.diags(M.ravel()) + (dt * dt * beta) * (K @ sp.block_diag(T, format="csr"))
            + (dt * gamma) * sp.block_diag(Y, format="csr")).tocsc()


def lie_newmark(rod, state, v, w, dt, nsteps, load=None, grav=0.0, beta=0.25, gamma=0.5,
                every=1, observe=None, tol=1e-10, maxiter=30, max_halvings=4):
    r"""Implicit Newmark on the Lie group R^3N x SO(3)^N (Simo and Vu-Quoc; Bruls and Cardona).

    Unknown: the accelerations A_{n+1} (node accelerations and body angular
    accelerations, 6N layout).  The increment
    Delta = dt V_n + dt^2 ((1/2 - beta) A_n + beta A_{n+1}) is applied by
    :func:`retract`, V_{n+1} = V_n + dt ((1 - gamma) A_n + gamma A_{n+1}), and
    the equations of motion M A + (w x J w) + grad Pi(q_{n+1}) = 0 are solved by
    :func:`lib.solvers.newton_solve` with safeguards:

    * the start is the *constant-configuration* predictor Delta = 0 (as lib.integrate's
      Newmark; the constant-acceleration start overshoots in the stiff stretch and shear
      modes when omega dt >> 1);
    * the iteration matrix is the exact tangent (the
      stiffness with the rotational terms: the torque turning with the frame, the
      exponential map's Jacobian, the gyroscopic term), refactorised every iteration;
    * plain Newton first, then a backtracking line search on the residual
      (``line_search="fallback"``);
    * a step whose solve still fails is split in halves (:func:`lib.solvers.halving`, at
      most ``max_halvings`` deep), each half a Newmark step.  Where that happens the run is
      the same scheme on a locally finer grid.

    Converged when the residual is below tol times the force scale or at the round-off
    floor 16 eps (EA + k_sGA) N of the stiff stretch and shear forces.  beta = 1/4,
    gamma = 1/2 (the trapezoidal rule) is unconditionally stable for the linearised rod
    and second order.

    Returns
    -------
    (state, v, w, record) as :func:`lie_verlet`.

    Raises
    ------
    StaticSolveError
        (a :class:`~lib.core.errors.SolveError`) naming the step, time, iteration and
        residual if Newton fails at the smallest sub-step allowed.

    Examples
    --------
    >>> rod = make_rod3d(6)
    >>> z = np.zeros((6, 3))
    >>> s, v, w, _ = lie_newmark(rod, straight(rod), z, z, 0.05, 4, load=(0, -1, 0))
    >>> bool(s.x[-1, 1] < 0)
    True
    """
    x, Q, v, w, dt, nsteps, every, load, grav = _run_checks(rod, state, v, w, dt, nsteps,
                                                            every, observe, load, grav)
    beta = checks.real(beta, "beta", 0.0, 0.5, include_low=False)
    gamma = checks.real(gamma, "gamma", 0.0, 1.0)
    tol, maxiter = checks.positive(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    max_halvings = checks.integer(max_halvings, "max_halvings", low=0)
    N = rod.N
    M = mass(rod).reshape(N, 6)
    J = inertia(rod)
    st = State(x, Q)
    V = np.empty((N, 6))
    V[:, :3], V[:, 3:] = w, v
    a0, al0 = _accel(rod, x, Q, w, load, grav, J, _node_masses(rod))
    A = np.column_stack([al0, a0])
    scale = max(rod.EI / rod.L, np.abs(M * A).max(), 1e-300)
    # round-off floor of the stiff forces: EA (x_{e+1} - x_e)/ell carries ~ eps |x|/ell
    floor = 16 * _EPS * (rod.EA + rod.kGA) * rod.N

    def one(s, h):
        st, V, A = s

        def fun(An):
            An = An.reshape(N, 6)
            D = h * V + h * h * ((0.5 - beta) * A + beta * An)
            s1 = _retract(rod, st, D.ravel())
            V1 = V + h * ((1 - gamma) * A + gamma * An)
            g = _gradient(rod, s1[0], s1[1], load, grav).reshape(N, 6)
            r = M * An + g
            r[:, :3] += np.cross(V1[:, :3], J * V1[:, :3])
            return r.ravel(), lambda: _newmark_tangent(rod, s1, g, D, V1[:, :3], J, M, h,
                                                       beta, gamma, load)

        start = -(V / h + (0.5 - beta) * A) / beta          # Delta = 0: configuration kept
        An, _ = newton_solve(fun, start.ravel(), tol, maxiter, line_search="fallback",
                             where="Lie-Newmark", accept="residual", scale=scale,
                             floor=floor, roundoff="residual")
        An = An.reshape(N, 6)
        st1 = _retract(rod, st, (h * V + h * h * ((0.5 - beta) * A + beta * An)).ravel())
        return st1, V + h * ((1 - gamma) * A + gamma * An), An

    rec = [] if observe is None else [observe(st, V[:, 3:].copy(), V[:, :3].copy())]
    for n in range(1, nsteps + 1):
        try:
            (st, V, A), _ = halving(one, (st, V, A), dt, max_halvings)
        except SolveError as err:
            raise _as_static_error(err.located(step=n, time=n * dt)) from err
        if observe is not None and n % every == 0:
            rec.append(observe(st, V[:, 3:].copy(), V[:, :3].copy()))
    return st, V[:, 3:].copy(), V[:, :3].copy(), rec
