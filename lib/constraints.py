r"""Lagrange multipliers: saddle-point solves, constrained dynamics, contact.

The constrained equations of motion in the sign convention of the source
chapter (15.15) are

.. math::

    \mathbf M\ddot{\mathbf q} - \mathbf B^{\top}\boldsymbol\lambda = \mathbf f,
    \qquad \mathbf B\ddot{\mathbf q} = \boldsymbol\gamma,

i.e. the KKT (saddle-point) system

.. math::

    \begin{bmatrix}\mathbf M & -\mathbf B^{\top}\\ \mathbf B & \mathbf 0\end{bmatrix}
    \begin{bmatrix}\ddot{\mathbf q}\\ \boldsymbol\lambda\end{bmatrix}
    = \begin{bmatrix}\mathbf f\\ \boldsymbol\gamma\end{bmatrix},

with :math:`\mathbf B = \boldsymbol\Phi_{\mathbf q}` the constraint Jacobian and
:math:`\mathbf Q = \mathbf B^{\top}\boldsymbol\lambda` the generalised
constraint force.  The same linear algebra serves the linear FEM statics of
actuation by constraints (seed 3.10.3.6, Armanini et al. eq. (19)):
``M`` = stiffness ``K``, ``f`` = external load, ``gamma`` = prescribed
actuator-constraint value :math:`\delta^*`; the first output is then the
displacement ``u`` and ``lam`` the actuator forces, and the Schur complement
reads :math:`\delta = \mathbf B\mathbf K^{-1}\mathbf B^{\top}\boldsymbol\lambda
+ \delta_{\text{free}}` with :math:`\delta_{\text{free}} = \mathbf B\mathbf K^{-1}\mathbf f`.

Array layout (one layout everywhere in this module)
---------------------------------------------------
=========  =========  ====================================================
symbol     shape      meaning
=========  =========  ====================================================
q, v       (n,)       generalised coordinates and velocities
qdd        (n,)       generalised accelerations (or FEM displacement u)
M          (n, n)     mass matrix (or stiffness K); ndarray or scipy.sparse
B          (m, n)     constraint Jacobian Phi_q, full row rank, m <= n
f          (n,)       applied generalised force (or FEM load)
gamma      (m,)       acceleration-level right-hand side (or delta*)
lam        (m,)       Lagrange multipliers (or actuator forces)
phi        (m,)       position-level constraint values (gap for contact)
histories  (n_t, .)   time runs along axis 0 (``Trajectory`` fields)
=========  =========  ====================================================

Contents
--------
kkt_matrix, kkt_solve, schur_solve, constraint_rank
    the saddle-point system and its two solution routes (defined in
    :mod:`lib.solvers.saddle` with ``solve_lcp``, re-exported here)
make_system, accelerations, project_state, constraint_force, simulate
    index-reduced constrained dynamics with Baumgarte stabilisation and
    projection onto the constraint manifold
solve_lcp, make_contact_system, contact_step, simulate_contact
    unilateral contact as a linear complementarity problem (Lemke)
pendulum, unicycle, four_bar
    the chapter's example systems

References
----------
E. J. Haug, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*,
Allyn and Bacon, 1989.  J. Baumgarte, Stabilization of constraints and
integrals of motion in dynamical systems, *Comput. Methods Appl. Mech. Eng.*
1 (1972) 1-16.  R. W. Cottle, J.-S. Pang, R. E. Stone, *The Linear
Complementarity Problem*, Academic Press, 1992.  D. E. Stewart and
J. C. Trinkle, An implicit time-stepping scheme for rigid body dynamics with
inelastic collisions and Coulomb friction, *Int. J. Numer. Meth. Eng.* 39
(1996) 2673-2691.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.integrate import solve_ivp

from .core import checks
from .core.errors import ConvergenceError, NewtonFailure
from .core.linalg import Factor
from .solvers.newton import newton_solve
from .solvers.saddle import (LCPResult, constraint_rank, kkt_matrix, kkt_solve,
                             kkt_solve_dense, schur_solve, solve_lcp)

__all__ = [
    "ConvergenceError",
    "kkt_matrix",
    "kkt_solve",
    "schur_solve",
    "constraint_rank",
    "ConstrainedSystem",
    "Trajectory",
    "make_system",
    "accelerations",
    "project_state",
    "constraint_force",
    "simulate",
    "LCPResult",
    "solve_lcp",
    "ContactSystem",
    "ContactTrajectory",
    "make_contact_system",
    "contact_step",
    "simulate_contact",
    "pendulum",
    "pendulum_tension",
    "unicycle",
    "FourBar",
    "four_bar",
    "four_bar_state",
]

_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")




# --------------------------------------------------------------------------
# input checks (lib.core.checks; the models' kinds)
# --------------------------------------------------------------------------
def _system(system, cls=None):
    cls = cls or ConstrainedSystem
    what = ("a constrained system (lib.constraints.ConstrainedSystem, made by make_system)"
            if cls is ConstrainedSystem else
            "a contact system (lib.constraints.ContactSystem, made by make_contact_system)")
    return checks.kind(system, "system", cls, what)


def _callables(**fns):
    for name, fn in fns.items():
        checks.function(fn, name)


# --------------------------------------------------------------------------
# constrained dynamics
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ConstrainedSystem:
    r"""A mechanical system with ``m`` constraints on ``n`` coordinates.

    Equations of motion (index-reduced, Baumgarte-stabilised):

    .. math::

        \mathbf M\ddot{\mathbf q} - \mathbf B(\mathbf q)^{\top}\boldsymbol\lambda
        = \mathbf f(t,\mathbf q,\mathbf v),\qquad
        \mathbf B\ddot{\mathbf q} = \boldsymbol\gamma(\mathbf q,\mathbf v)
        - 2\alpha\,\mathbf B\mathbf v - \beta^2\boldsymbol\phi(\mathbf q).

    Attributes
    ----------
    mass : (n, n) ndarray or scipy.sparse
        constant mass matrix
    force : callable
        ``force(t, q, v) -> (n,)``, the applied generalised force
    jacobian : callable
        ``jacobian(q) -> (m, n)``, the dense constraint Jacobian B
    gamma : callable
        ``gamma(q, v) -> (m,)``, the acceleration-level right-hand side
        :math:`-\dot{\mathbf B}\mathbf v` (so that the constraint acceleration is
        :math:`\mathbf B\ddot{\mathbf q}-\boldsymbol\gamma`)
    phi : callable or None
        ``phi(q) -> (m,)``, the position-level constraint, or ``None`` for
        velocity-level (nonholonomic) constraints ``B(q) v = 0``
    n, m : int
        sizes
    """

    mass: object
    force: Callable
    jacobian: Callable
    gamma: Callable
    phi: Callable | None
    n: int
    m: int


def make_system(mass, force, jacobian, gamma, phi=None, q_check=None) -> ConstrainedSystem:
    """Build a :class:`ConstrainedSystem`, checking every callable's output shape.

    The callables are evaluated once at ``q = q_check`` (default zeros),
    ``v = 0``, ``t = 0`` to check shapes; pass a regular configuration as
    ``q_check`` if the constraint is singular at ``q = 0``.

    Examples
    --------
    >>> s = make_system(np.eye(2), lambda t, q, v: np.zeros(2),
    ...                 lambda q: np.array([[1.0, -1.0]]), lambda q, v: np.zeros(1),
    ...                 phi=lambda q: q[:1] - q[1:])
    >>> s.n, s.m
    (2, 1)
    """
    mass = checks.matrix(mass, "mass", square=True, sparse=True)
    n = mass.shape[0]
    _callables(force=force, jacobian=jacobian, gamma=gamma)
    if phi is not None:
        checks.function(phi, "phi")
    z = np.zeros(n)
    qc = z if q_check is None else checks.vector(q_check, "q_check", n)
    fz = np.asarray(force(0.0, qc, z), dtype=float)
    if fz.shape != (n,):
        raise ValueError(f"force must return shape ({n},), got {fz.shape}")
    Bz = np.asarray(jacobian(qc), dtype=float)
    if Bz.ndim != 2 or Bz.shape[1] != n or Bz.shape[0] < 1:
        raise ValueError(f"jacobian must return shape (m, {n}) with m >= 1, got {Bz.shape}")
    m = Bz.shape[0]
    gz = np.asarray(gamma(qc, z), dtype=float)
    if gz.shape != (m,):
        raise ValueError(f"gamma must return shape ({m},), got {gz.shape}")
    if phi is not None:
        pz = np.asarray(phi(qc), dtype=float)
        if pz.shape != (m,):
            raise ValueError(f"phi must return shape ({m},), got {pz.shape}")
    return ConstrainedSystem(mass, force, jacobian, gamma, phi, n, m)


def _stabilised_gamma(system, q, v, B, alpha, beta):
    g = np.asarray(system.gamma(q, v), dtype=float)
    if alpha:
        g = g - 2.0 * alpha * (B @ v)
    if beta:
        g = g - beta**2 * np.asarray(system.phi(q), dtype=float)
    return g


def _check_baumgarte(system, alpha, beta):
    _system(system)
    alpha = checks.nonnegative(alpha, "alpha")
    beta = checks.nonnegative(beta, "beta")
    if beta and system.phi is None:
        raise ValueError("beta > 0 needs a position-level constraint: system.phi is None")
    return alpha, beta


def accelerations(system, t, q, v, alpha=0.0, beta=0.0):
    r"""Accelerations and multipliers ``(qdd, lam)`` at one state.

    Solves the KKT system with the Baumgarte right-hand side
    :math:`\boldsymbol\gamma - 2\alpha\mathbf B\mathbf v - \beta^2\boldsymbol\phi`,
    which makes the constraint obey
    :math:`\ddot\phi + 2\alpha\dot\phi + \beta^2\phi = 0` (Baumgarte 1972).

    Examples
    --------
    Pendulum at rest, hanging: the multiplier carries the weight,
    tension :math:`T=-2l\lambda=mg`:

    >>> s = pendulum(m=1.0, l=1.0, g=9.81)
    >>> qdd, lam = accelerations(s, 0.0, np.array([0.0, -1.0]), np.zeros(2))
    >>> np.round(qdd, 12) + 0.0, float(np.round(-2 * 1.0 * lam[0], 12))
    (array([0., 0.]), 9.81)
    """
    alpha, beta = _check_baumgarte(system, alpha, beta)
    t = checks.real(t, "t")
    q = checks.vector(q, "q", system.n)
    v = checks.vector(v, "v", system.n)
    return _accelerations(system, t, q, v, alpha, beta)


def _accelerations(system, t, q, v, alpha, beta):
    B = np.asarray(system.jacobian(q), dtype=float)
    f = np.asarray(system.force(t, q, v), dtype=float)
    g = _stabilised_gamma(system, q, v, B, alpha, beta)
    if sp.issparse(system.mass):
        return kkt_solve(system.mass, B, f, g)
    return kkt_solve_dense(system.mass, B, f, g)


def project_state(system, q, v, tol=1e-12, max_iter=25):
    r"""Project ``(q, v)`` onto the constraint manifold (position, then velocity).

    Position: Newton iterations with the minimal mass-weighted correction
    :math:`\Delta\mathbf q = \mathbf M^{-1}\mathbf B^{\top}\boldsymbol\mu`,
    :math:`\mathbf B\Delta\mathbf q = -\boldsymbol\phi` (one :func:`kkt_solve`
    each) until :math:`\|\boldsymbol\phi\|_\infty \le` ``tol``.  Velocity: the
    same correction with right-hand side :math:`-\mathbf B\mathbf v`, which
    is exact in one step.  A system without ``phi`` only gets the velocity
    projection.

    The position iteration is :func:`lib.solvers.newton_solve` (plain Newton,
    ``accept="none"``, ``roundoff="residual"``) with the minimal correction as its
    "tangent solve".

    Raises
    ------
    ConvergenceError
        if the position iteration does not reach ``tol`` in ``max_iter``
        steps (a :class:`~lib.core.errors.SolveError`: the message gives the
        iteration and the last residual).

    Examples
    --------
    >>> s = pendulum(l=1.0)
    >>> q, v = project_state(s, np.array([0.0, -1.1]), np.array([0.3, 0.2]))
    >>> np.round(q, 12) + 0.0, np.round(v, 12) + 0.0
    (array([ 0., -1.]), array([0.3, 0. ]))
    """
    _system(system)
    q = checks.vector(q, "q", system.n)
    v = checks.vector(v, "v", system.n)
    tol = checks.nonnegative(tol, "tol")
    max_iter = checks.integer(max_iter, "max_iter", low=0)
    zero = np.zeros(system.n)
    if system.phi is not None:
        def correction(q):       # the Factor's solve(b) = -(minimal correction for -b)
            return Factor(lambda b: -kkt_solve(system.mass, system.jacobian(q), zero, -b)[0],
                          "KKT", system.m, "position projection")

        try:
            q, _ = newton_solve(lambda q: (system.phi(q), lambda: correction(q), 1.0), q,
                                tol=tol, maxiter=max_iter, line_search=False,
                                where="position projection", accept="none",
                                roundoff="residual")
        except NewtonFailure as err:
            raise ConvergenceError(err.detail, where=err.where, reason=err.reason,
                                   iteration=err.iteration, residual=err.residual,
                                   tol=err.tol) from None
    B = np.asarray(system.jacobian(q), dtype=float)
    dv, _ = kkt_solve(system.mass, B, zero, -(B @ v))
    return q, v + dv


def constraint_force(system, q, lam):
    r"""Generalised constraint force :math:`\mathbf Q=\mathbf B(\mathbf q)^{\top}\boldsymbol\lambda`.

    ``q`` (n,) with ``lam`` (m,) gives (n,); histories ``q`` (n_t, n) with
    ``lam`` (n_t, m) give (n_t, n).

    Examples
    --------
    >>> s = pendulum(l=1.0)
    >>> constraint_force(s, np.array([0.0, -1.0]), np.array([-4.905])) + 0.0
    array([0.  , 9.81])
    """
    _system(system)
    q = checks.array(q, "q")
    if q.ndim == 1:
        q = checks.vector(q, "q", system.n)
        lam = checks.vector(lam, "lam", system.m)
        return np.asarray(system.jacobian(q), dtype=float).T @ lam
    q = checks.array(q, "q", shape=(None, system.n))
    lam = checks.array(lam, "lam", shape=(q.shape[0], system.m))
    Bs = np.stack([np.asarray(system.jacobian(qk), dtype=float) for qk in q])
    return np.einsum("kmn,km->kn", Bs, lam)


@dataclass(frozen=True)
class Trajectory:
    """Output of :func:`simulate`; time runs along axis 0.

    Fields: ``t`` (n_t,), ``q``, ``v``, ``qdd`` (n_t, n), ``lam`` (n_t, m),
    ``phi`` (n_t, m) or ``None`` (nonholonomic), ``bv`` (n_t, m) the
    velocity-level violation ``B v``, ``nfev`` right-hand-side evaluations.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    phi: np.ndarray | None
    bv: np.ndarray
    nfev: int


def simulate(system, q0, v0, t_eval, alpha=0.0, beta=0.0, project=False,
             method="DOP853", rtol=1e-9, atol=1e-12):
    r"""Integrate the index-reduced constrained equations with ``solve_ivp``.

    The state ``y = (q, v)`` obeys :math:`\dot{\mathbf q}=\mathbf v`,
    :math:`\dot{\mathbf v}=\ddot{\mathbf q}` from :func:`accelerations`
    (a KKT solve per evaluation).  Only the acceleration-level constraint is
    enforced, so position and velocity violations drift (the constraint
    obeys :math:`\ddot\phi=\epsilon(t)`, a double integrator of the
    integration error) unless ``alpha, beta > 0`` (Baumgarte) or
    ``project=True``, which restarts the integrator at every output time
    after :func:`project_state`.

    Parameters
    ----------
    system : ConstrainedSystem
    q0, v0 : (n,) initial state (should satisfy the constraints)
    t_eval : (n_t,) increasing output times; integration runs from
        ``t_eval[0]`` to ``t_eval[-1]``
    alpha, beta : Baumgarte parameters (>= 0)
    project : bool
    method, rtol, atol : passed to :func:`scipy.integrate.solve_ivp`

    Returns
    -------
    Trajectory

    Raises
    ------
    ValueError
        bad state, ``t_eval``, Baumgarte parameters, ``method``, ``rtol`` or ``atol``.
    ConvergenceError
        if ``solve_ivp`` fails or the KKT solve inside it fails (the message gives
        the time reached).

    Examples
    --------
    >>> s = pendulum(l=1.0, g=9.81)
    >>> tr = simulate(s, [1.0, 0.0], [0.0, 0.0], np.linspace(0.0, 1.0, 5))
    >>> bool(np.abs(tr.phi).max() < 1e-8), tr.q.shape, tr.lam.shape
    (True, (5, 2), (5, 1))
    """
    alpha, beta = _check_baumgarte(system, alpha, beta)
    n = system.n
    q0 = checks.vector(q0, "q0", n)
    v0 = checks.vector(v0, "v0", n)
    t_eval = checks.vector(t_eval, "t_eval")
    if t_eval.size < 2 or np.any(np.diff(t_eval) <= 0):
        raise ValueError("t_eval must be a 1-D increasing array of at least 2 times")
    project = checks.boolean(project, "project")
    if not (isinstance(method, type) or callable(method)):
        checks.choice(method, "method", _IVP_METHODS)
    rtol = checks.positive(rtol, "rtol")
    atol = checks.positive(atol, "atol")
    reached = [t_eval[0]]

    def rhs(t, y):
        reached[0] = t
        qdd, _ = _accelerations(system, t, y[:n], y[n:], alpha, beta)
        return np.concatenate([y[n:], qdd])

    def run(t0, t1, y0, t_out):
        try:
            sol = solve_ivp(rhs, (t0, t1), y0, method=method, t_eval=t_out,
                            rtol=rtol, atol=atol)
        except (ValueError, sla.LinAlgError) as exc:
            # a KKT solve inside the right-hand side failed (singular configuration):
            # say when, instead of letting SciPy's stack reach the reader bare
            raise ConvergenceError(
                f"solve_ivp stopped near t = {reached[0]:.6g} of [{t0:.6g}, {t1:.6g}]: "
                f"the constrained accelerations failed there: {exc}") from None
        if sol.status != 0:
            t_reached = sol.t[-1] if sol.t.size else t0
            raise ConvergenceError(
                f"solve_ivp failed at t = {t_reached:.6g} of [{t0:.6g}, {t1:.6g}]: {sol.message}")
        return sol

    nfev = 0
    if not project:
        sol = run(t_eval[0], t_eval[-1], np.concatenate([q0, v0]), t_eval)
        Y = sol.y.T
        nfev = sol.nfev
    else:
        Y = np.empty((t_eval.size, 2 * n))
        Y[0] = np.concatenate([q0, v0])
        for k in range(t_eval.size - 1):
            sol = run(t_eval[k], t_eval[k + 1], Y[k], None)
            nfev += sol.nfev
            q, v = project_state(system, sol.y[:n, -1], sol.y[n:, -1])
            Y[k + 1] = np.concatenate([q, v])
    Q, V = Y[:, :n], Y[:, n:]
    qdd = np.empty_like(Q)
    lam = np.empty((t_eval.size, system.m))
    bv = np.empty((t_eval.size, system.m))
    for k, t in enumerate(t_eval):
        qdd[k], lam[k] = accelerations(system, t, Q[k], V[k], alpha, beta)
        bv[k] = np.asarray(system.jacobian(Q[k]), dtype=float) @ V[k]
    phi = None
    if system.phi is not None:
        phi = np.stack([np.asarray(system.phi(qk), dtype=float) for qk in Q])
    return Trajectory(t_eval.copy(), Q, V, qdd, lam, phi, bv, int(nfev))


# --------------------------------------------------------------------------
# example systems
# --------------------------------------------------------------------------
def pendulum(m=1.0, l=1.0, g=9.81) -> ConstrainedSystem:
    r"""Planar pendulum in Cartesian coordinates ``q = (x, y)``, pivot at the origin.

    :math:`\phi = x^2+y^2-l^2`, :math:`\mathbf B = [2x,\ 2y]`,
    :math:`\gamma = -2(\dot x^2+\dot y^2)`, gravity :math:`-mg` along ``y``.
    The string tension (positive when pulling) is :math:`T=-2l\lambda`:
    the multiplier's force :math:`2\lambda(x,y)` must equal
    :math:`-T(x,y)/l`.

    Examples
    --------
    >>> s = pendulum(m=2.0, l=0.5)
    >>> s.n, s.m, float(s.phi(np.array([0.3, -0.4]))[0])
    (2, 1, 0.0)
    """
    m, l = checks.positive(m, "m"), checks.positive(l, "l")
    g = checks.real(g, "g")
    weight = np.array([0.0, -m * g])
    return make_system(
        m * np.eye(2),
        lambda t, q, v: weight,
        lambda q: 2.0 * q[None, :],
        lambda q, v: np.array([-2.0 * (v @ v)]),
        phi=lambda q: np.array([q @ q - l * l]),
    )


def pendulum_tension(theta, omega, m=1.0, l=1.0, g=9.81):
    r"""String tension of the minimal-coordinate pendulum.

    Radial balance of the bob at angle :math:`\theta` from the downward
    vertical with angular rate :math:`\omega`:
    :math:`T = m l\omega^2 + m g\cos\theta`.

    >>> float(pendulum_tension(0.0, 0.0, m=1.0, g=9.81))
    9.81
    """
    theta = checks.array(theta, "theta")
    omega = checks.array(omega, "omega")
    try:
        np.broadcast_shapes(theta.shape, omega.shape)
    except ValueError:
        raise ValueError(f"omega of shape {omega.shape} does not broadcast against theta of "
                         f"shape {theta.shape}") from None
    m, l, g = checks.positive(m, "m"), checks.positive(l, "l"), checks.real(g, "g")
    return m * l * omega**2 + m * g * np.cos(theta)


# --------------------------------------------------------------------------
# unilateral contact: the linear complementarity problem
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ContactSystem:
    r"""A mechanical system with ``m`` unilateral contacts :math:`\phi(\mathbf q)\ge 0`.

    Fields: ``mass`` (n, n) constant, symmetric positive definite,
    ``force(t, q, v) -> (n,)``, ``gap(q) -> (m,)`` the signed gaps,
    ``jacobian(q) -> (m, n)`` their gradients, ``n``, ``m``, and
    ``mass_inv`` the inverse mass (computed once, by Cholesky).
    """

    mass: np.ndarray
    force: Callable
    gap: Callable
    jacobian: Callable
    n: int
    m: int
    mass_inv: np.ndarray


def make_contact_system(mass, force, gap, jacobian) -> ContactSystem:
    """Build a :class:`ContactSystem`, checking output shapes at ``q = v = 0``.

    Examples
    --------
    A unit point mass above the floor y = 0:

    >>> s = make_contact_system(np.eye(1), lambda t, q, v: np.array([-9.81]),
    ...                         lambda q: q.copy(), lambda q: np.ones((1, 1)))
    >>> s.n, s.m
    (1, 1)
    """
    mass = checks.matrix(mass, "mass", square=True, sparse=True)
    if sp.issparse(mass):
        mass = mass.toarray()
    n = mass.shape[0]
    _callables(force=force, gap=gap, jacobian=jacobian)
    z = np.zeros(n)
    if np.asarray(force(0.0, z, z)).shape != (n,):
        raise ValueError(f"force must return shape ({n},)")
    g = np.asarray(gap(z), dtype=float)
    if g.ndim != 1 or g.size < 1:
        raise ValueError(f"gap must return shape (m,) with m >= 1, got {g.shape}")
    m = g.size
    if np.asarray(jacobian(z)).shape != (m, n):
        raise ValueError(f"jacobian must return shape ({m}, {n})")
    try:
        mass_inv = sla.cho_solve(sla.cho_factor(mass), np.eye(n))
    except sla.LinAlgError:
        raise ValueError("mass must be symmetric positive definite") from None
    return ContactSystem(mass, force, gap, jacobian, n, m, mass_inv)


def contact_step(system, t, q, v, h):
    r"""One velocity-level time step with unilateral contacts (Stewart & Trinkle 1996).

    .. math::

        \mathbf M(\mathbf v^+-\mathbf v) = h(\mathbf f + \mathbf B^{\top}\boldsymbol\lambda),\quad
        \mathbf q^+ = \mathbf q + h\mathbf v^+,\quad
        0 \le \boldsymbol\lambda \perp \boldsymbol\phi + h\mathbf B\mathbf v^+ \ge 0,

    i.e. the LCP :math:`\mathbf w = \mathbf A\boldsymbol\lambda + \mathbf b` with
    Delassus matrix :math:`\mathbf A = \mathbf B\mathbf M^{-1}\mathbf B^{\top}` and
    :math:`\mathbf b = \mathbf B\mathbf M^{-1}\mathbf f + \mathbf B\mathbf v/h +
    \boldsymbol\phi/h^2`, so :math:`h^2\mathbf w` is the predicted gap at the
    end of the step.  The contact force is complementary to that gap;
    impacts are perfectly inelastic (the normal velocity after a collision is
    zero); :math:`h\boldsymbol\lambda` is the contact impulse of the step.

    Returns
    -------
    q_new, v_new : (n,)
    lcp : LCPResult  (``lcp.lam`` the contact forces, ``lcp.w * h**2`` the
        predicted gaps)

    Examples
    --------
    A unit mass resting on the floor carries its weight:

    >>> s = make_contact_system(np.eye(1), lambda t, q, v: np.array([-9.81]),
    ...                         lambda q: q.copy(), lambda q: np.ones((1, 1)))
    >>> q, v, r = contact_step(s, 0.0, np.zeros(1), np.zeros(1), 1e-3)
    >>> float(r.lam[0]), float(v[0]) + 0.0
    (9.81, 0.0)
    """
    _system(system, ContactSystem)
    t, h = checks.real(t, "t"), checks.positive(h, "h")
    q = checks.vector(q, "q", system.n)
    v = checks.vector(v, "v", system.n)
    return _contact_step(system, t, q, v, h)


def _contact_step(system, t, q, v, h):
    B = np.asarray(system.jacobian(q), dtype=float)
    f = np.asarray(system.force(t, q, v), dtype=float)
    Minv_f = system.mass_inv @ f
    Minv_Bt = system.mass_inv @ B.T
    gap = np.asarray(system.gap(q), dtype=float)
    b = B @ Minv_f + (B @ v) / h + gap / h**2
    lcp = solve_lcp(B @ Minv_Bt, b)
    v_new = v + h * (Minv_f + Minv_Bt @ lcp.lam)
    return q + h * v_new, v_new, lcp


@dataclass(frozen=True)
class ContactTrajectory:
    """Output of :func:`simulate_contact`; time along axis 0.

    ``t`` (n_t,), ``q``, ``v`` (n_t, n), ``gap`` (n_t, m); ``lam`` (n_t, m)
    with ``lam[k]`` the contact force acting over the step from ``t[k]`` to
    ``t[k+1]`` (last row zero); ``residual`` (n_t,) the LCP natural residual
    of each step.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    gap: np.ndarray
    lam: np.ndarray
    residual: np.ndarray


def simulate_contact(system, q0, v0, h, n_steps, t0=0.0) -> ContactTrajectory:
    """Run ``n_steps`` of :func:`contact_step` from ``(q0, v0)``.

    Examples
    --------
    A unit mass dropped from 0.1 comes to rest on the floor:

    >>> s = make_contact_system(np.eye(1), lambda t, q, v: np.array([-9.81]),
    ...                         lambda q: q.copy(), lambda q: np.ones((1, 1)))
    >>> tr = simulate_contact(s, [0.1], [0.0], 1e-3, 500)
    >>> bool(abs(tr.q[-1, 0]) < 1e-12), float(np.round(tr.lam[-2, 0], 9))
    (True, 9.81)
    """
    _system(system, ContactSystem)
    n_steps = checks.integer(n_steps, "n_steps", low=1, allow_float=True)
    h, t0 = checks.positive(h, "h"), checks.real(t0, "t0")
    n, m = system.n, system.m
    Q = np.empty((n_steps + 1, n))
    V = np.empty((n_steps + 1, n))
    lam = np.zeros((n_steps + 1, m))
    res = np.zeros(n_steps + 1)
    Q[0] = checks.vector(q0, "q0", n)
    V[0] = checks.vector(v0, "v0", n)
    t = t0 + h * np.arange(n_steps + 1)
    for k in range(n_steps):
        Q[k + 1], V[k + 1], r = _contact_step(system, t[k], Q[k], V[k], h)
        lam[k], res[k] = r.lam, r.residual
    gap = np.stack([np.asarray(system.gap(qk), dtype=float) for qk in Q])
    return ContactTrajectory(t, Q, V, gap, lam, res)


def unicycle(m=10.0, J=1.0, drive=None, steer=None) -> ConstrainedSystem:
    r"""Planar wheeled robot with a no-side-slip (nonholonomic) constraint.

    Coordinates ``q = (x, y, theta)`` of the axle midpoint (also the centre
    of mass) and the heading; mass matrix ``diag(m, m, J)``.  The wheels
    cannot slide sideways:

    .. math::

        \mathbf B(\mathbf q)\mathbf v = -\sin\theta\,\dot x + \cos\theta\,\dot y = 0,
        \qquad \gamma = \dot\theta\,(\cos\theta\,\dot x + \sin\theta\,\dot y),

    so the multiplier is the lateral (side) force on the robot along the
    left normal :math:`(-\sin\theta, \cos\theta)`; on a left turn of radius
    :math:`R` at speed :math:`v` it is :math:`m v^2/R`.  ``drive(t, q, v)``
    is the forward force and ``steer(t, q, v)`` the yaw torque (default 0).
    No ``phi``: the constraint is not integrable.

    Examples
    --------
    Driving straight at 2 m/s needs no side force:

    >>> s = unicycle(m=10.0)
    >>> _, lam = accelerations(s, 0.0, np.zeros(3), np.array([2.0, 0.0, 0.0]))
    >>> float(lam[0]) + 0.0
    0.0
    """
    m, J = checks.positive(m, "m"), checks.positive(J, "J")
    for name, fn in (("drive", drive), ("steer", steer)):
        if fn is not None:
            checks.function(fn, name)
    drive = drive or (lambda t, q, v: 0.0)
    steer = steer or (lambda t, q, v: 0.0)

    def force(t, q, v):
        F = float(drive(t, q, v))
        return np.array([F * np.cos(q[2]), F * np.sin(q[2]), float(steer(t, q, v))])

    return make_system(
        np.diag([m, m, J]),
        force,
        lambda q: np.array([[-np.sin(q[2]), np.cos(q[2]), 0.0]]),
        lambda q, v: np.array([v[2] * (np.cos(q[2]) * v[0] + np.sin(q[2]) * v[1])]),
    )


@dataclass(frozen=True)
class FourBar:
    r"""Planar four-bar linkage in absolute coordinates.

    Ground pivots :math:`O_2=(0,0)`, :math:`O_4=(d,0)`; crank (length ``a``,
    :math:`O_2\to A`), coupler (``b``, :math:`A\to B`), rocker (``c``,
    :math:`O_4\to B`), uniform slender bars.  ``q`` (9,) holds
    ``(x_i, y_i, theta_i)`` of each bar's centre and direction angle,
    ``i = crank, coupler, rocker``.  ``system`` holds the 8 pin constraints
    in the order :math:`O_2, A, B, O_4` (x then y); the multipliers are the
    pin forces acting on the crank at :math:`O_2` (from the ground), on the
    crank at :math:`A` (from the coupler), on the coupler at :math:`B`
    (from the rocker) and on the rocker at :math:`O_4` (from the ground).
    """

    a: float
    b: float
    c: float
    d: float
    masses: np.ndarray
    inertias: np.ndarray
    g: float
    system: ConstrainedSystem


# pins as (body, end) pairs: end = -1 start of the bar, +1 its end; body None = ground
_FOUR_BAR_PINS = (((0, -1), (None, 0)), ((0, +1), (1, -1)), ((1, +1), (2, +1)), ((2, -1), (None, 1)))


def four_bar(a=0.1, b=0.35, c=0.3, d=0.4, line_density=2.0, g=9.81) -> FourBar:
    r"""A four-bar linkage (see :class:`FourBar`) with gravity ``g`` along ``-y``.

    Bars of mass :math:`\rho\ell` and centroidal inertia :math:`m\ell^2/12`.
    Each pin constraint is :math:`\mathbf p_i(\mathbf q)-\mathbf p_j(\mathbf q)=0`
    with bar end :math:`\mathbf p=\mathbf r+s\tfrac{\ell}{2}(\cos\theta,\sin\theta)`,
    :math:`s=\pm1`, whose acceleration term is
    :math:`\gamma=\sum \pm s\tfrac{\ell}{2}(\cos\theta,\sin\theta)\dot\theta^2`.

    Examples
    --------
    >>> fb = four_bar()
    >>> q, v = four_bar_state(fb, 0.3, 10.0)
    >>> bool(np.abs(fb.system.phi(q)).max() < 1e-14), bool(np.abs(fb.system.jacobian(q) @ v).max() < 1e-12)
    (True, True)
    """
    a, b, c, d = (checks.positive(x, name) for x, name in ((a, "a"), (b, "b"), (c, "c"), (d, "d")))
    L = np.array([a, b, c, d])
    line_density = checks.positive(line_density, "line_density")
    g = checks.real(g, "g")
    ell = L[:3]
    masses = line_density * ell
    inertias = masses * ell**2 / 12.0
    ground = np.array([[0.0, 0.0], [d, 0.0]])
    mass = np.diag(np.stack([masses, masses, inertias], axis=1).ravel())
    weight = np.zeros(9)
    weight[1::3] = -masses * g

    def ends(q):
        Q = q.reshape(3, 3)
        u = np.stack([np.cos(Q[:, 2]), np.sin(Q[:, 2])], axis=1)
        return Q[:, :2], u

    def phi(q):
        r, u = ends(q)
        out = np.empty(8)
        for k, (lhs, rhs) in enumerate(_FOUR_BAR_PINS):
            p = r[lhs[0]] + lhs[1] * ell[lhs[0]] / 2 * u[lhs[0]]
            p2 = ground[rhs[1]] if rhs[0] is None else r[rhs[0]] + rhs[1] * ell[rhs[0]] / 2 * u[rhs[0]]
            out[2 * k:2 * k + 2] = p - p2
        return out

    def jacobian(q):
        _, u = ends(q)
        uperp = np.stack([-u[:, 1], u[:, 0]], axis=1)
        Bm = np.zeros((8, 9))
        for k, pin in enumerate(_FOUR_BAR_PINS):
            for sign, (body, s) in zip((1.0, -1.0), pin):
                if body is None:
                    continue
                Bm[2 * k:2 * k + 2, 3 * body:3 * body + 2] += sign * np.eye(2)
                Bm[2 * k:2 * k + 2, 3 * body + 2] += sign * s * ell[body] / 2 * uperp[body]
        return Bm

    def gamma(q, v):
        _, u = ends(q)
        w2 = v.reshape(3, 3)[:, 2] ** 2
        out = np.zeros(8)
        for k, pin in enumerate(_FOUR_BAR_PINS):
            for sign, (body, s) in zip((1.0, -1.0), pin):
                if body is not None:
                    out[2 * k:2 * k + 2] += sign * s * ell[body] / 2 * u[body] * w2[body]
        return out

    system = make_system(mass, lambda t, q, v: weight, jacobian, gamma, phi=phi)
    return FourBar(a, b, c, d, masses, inertias, g, system)


def four_bar_state(fb, theta1, omega1=0.0, branch=1):
    r"""Closed-form state ``(q, v)`` of a four-bar at crank angle ``theta1`` and rate ``omega1``.

    Position: :math:`B` is the intersection of the circles of radius ``b``
    about :math:`A` and ``c`` about :math:`O_4` (``branch = +1``: :math:`B`
    to the left of :math:`A\to O_4`, the open assembly with :math:`B` above
    the ground line).  Rates: the differentiated loop closure
    :math:`a\omega_1\mathbf u_1^\perp + b\omega_2\mathbf u_2^\perp - c\omega_3\mathbf u_3^\perp = 0`.

    Raises
    ------
    ValueError
        if the linkage cannot be assembled at ``theta1``, or it sits at a
        position where the crank cannot drive it (coupler and rocker in line).
    """
    checks.kind(fb, "fb", FourBar, "a four-bar linkage (lib.constraints.FourBar, made by four_bar)")
    theta1 = checks.real(theta1, "theta1")
    omega1 = checks.real(omega1, "omega1")
    branch = checks.choice(branch, "branch", (1, -1))
    a, b, c, d = fb.a, fb.b, fb.c, fb.d
    A = a * np.array([np.cos(theta1), np.sin(theta1)])
    e = np.array([d, 0.0]) - A
    s = np.hypot(*e)
    cos_psi = (b * b + s * s - c * c) / (2 * b * s)
    if abs(cos_psi) > 1:
        raise ValueError(f"theta1 = {theta1!r}: the linkage cannot be assembled there")
    th2 = np.arctan2(e[1], e[0]) + branch * np.arccos(cos_psi)
    Bp = A + b * np.array([np.cos(th2), np.sin(th2)])
    th3 = np.arctan2(Bp[1], Bp[0] - d)
    th = np.array([theta1, th2, th3])
    u = np.stack([np.cos(th), np.sin(th)], axis=1)
    up = np.stack([-u[:, 1], u[:, 0]], axis=1)
    Jw = np.column_stack([b * up[1], -c * up[2]])
    if abs(np.linalg.det(Jw)) < 1e-12 * b * c:
        raise ValueError(f"theta1 = {theta1!r}: coupler and rocker in line, the crank cannot drive")
    w2, w3 = np.linalg.solve(Jw, -a * omega1 * up[0])
    w = np.array([omega1, w2, w3])
    r = np.stack([a / 2 * u[0], A + b / 2 * u[1], np.array([d, 0.0]) + c / 2 * u[2]])
    vr = np.stack([a / 2 * omega1 * up[0], a * omega1 * up[0] + b / 2 * w2 * up[1], c / 2 * w3 * up[2]])
    q = np.column_stack([r, th]).ravel()
    v = np.column_stack([vr, w]).ravel()
    return q, v
