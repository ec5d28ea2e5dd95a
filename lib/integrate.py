"""Model-independent time integrators for M u'' + f(u) = 0.

Every function works on flat state arrays and knows nothing about the model:
the model enters through a callable.

* explicit:  ``accel(u) -> a``  (a = -M^{-1} grad Pi(u) + external, any shape
  matching ``u``)
* implicit:  ``force(u) -> (f, K)`` with f = internal - external force
  (``grad Pi``) and K its tangent (``scipy.sparse`` matrix, ndarray, or a
  :class:`lib.kernels.banded.SymmetricBanded` -- e.g. :func:`lib.rod.force` --
  which the Newton solve factors by LAPACK's band Cholesky); the residual is
  R = M a + f.

Every implicit step solves its balance with the same model-independent
:func:`newton_solve` (a predictor, a backtracking line search on the residual
norm) and can halve a step whose solve fails (:func:`halving`); a solve that
still fails raises :class:`NewtonFailure`, which says why, at which step and
time, after how many iterations and with which residual.  ``newton_solve``,
``NewtonInfo``, ``halving``, ``NewtonError`` and ``NewtonFailure`` live in the
shared floors (:mod:`lib.solvers.newton`, :mod:`lib.solvers.continuation`,
:mod:`lib.core.errors`) and are re-exported here under their old names.

Public functions
----------------
Newton and its failures
newton_solve(fun, x0, tol, maxiter, line_search)   Newton with a backtracking line search on ||R||
halving(step, state, dt, max_halvings)             sub-step a failing implicit step by halving
NewtonError, NewtonFailure, NewtonInfo, RelaxationError, Trajectory

Explicit steps, runs and observation
verlet_step(q, v, a, dt, accel)                    one velocity-Verlet step
central_difference_step(u, v, a, dt, accel)        explicit central difference
verlet(q0, v0, dt, nsteps, accel, every, callback)  a run, sampled every ``every`` steps
damped_verlet_step(q, v, a, dt, accel, c)          Verlet with viscous damping -c v
relax(q0, accel, dt, c, ...)                        damped dynamic relaxation to rest
leapfrog_damped_step(q, vh, dt, accel)              central difference with a lagged damping force
observe(step, state, nsteps, fn, stop)              march a step, record fn(state) every step
kinetic_energy(mass, v)                             v^T M v / 2 (lumped, dense or sparse mass)

Implicit steps and runs (Newton)
check_mass(mass, n), initial_acceleration(force, M, u0)   the mass and a_0 of M a_0 = -f(u_0)
newmark_step(u, v, a, dt, force, mass, ...)         one implicit Newmark-beta step
newmark(u0, v0, dt, nsteps, force, mass, ...)       a Newmark run, sampled like ``verlet``
generalized_alpha_parameters(rho_inf)               Chung-Hulbert (alpha_m, alpha_f, beta, gamma)
hht_parameters(alpha)                               HHT-alpha in the same notation
generalized_alpha_step(u, v, a, f, dt, force, ...)  one generalised-alpha step
generalized_alpha(u0, v0, dt, nsteps, force, ...)   a generalised-alpha run
discrete_gradient_correction(E0, E1, g_mid, dq, M)  Gonzalez's midpoint discrete-gradient term
discrete_gradient_step(q, v, dt, energy, force, ...) one energy-conserving implicit step
discrete_gradient(q0, v0, dt, nsteps, energy, ...)   a discrete-gradient run

Stability and accuracy
critical_step(omega_max)                            Verlet / central-difference limit 2/omega_max
damped_critical_step(omega, zeta)                   explicit limit with damping (2/w)(sqrt(1+z^2)-z)
verlet_amplification(omega, dt)                     Verlet's 2x2 amplification matrix
damped_leapfrog_amplification(omega, dt, zeta)      that of leapfrog_damped_step
newmark_amplification(omega, dt, beta, gamma)       Newmark's 2x2 amplification matrix
newmark_frequency(omega, dt, beta, gamma)           numerical frequency of Newmark
newmark_period_error(omega, dt)                     leading relative period error (omega dt)^2/12
generalized_alpha_amplification(omega, dt, params)  the 3x3 amplification matrix of generalised-alpha

The work-precision ladder built on these steps is :mod:`lib.studies`.

References: Newmark (1959); Hairer, Lubich and Wanner, *Geometric numerical
integration* (2006) for the Verlet method.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .core.errors import NewtonError, NewtonFailure, SolveError
from .solvers.continuation import halving
from .solvers.newton import NewtonInfo, newton_solve

from .kernels.banded import BandedRankOne, SymmetricBanded

_EPS = np.finfo(float).eps

__all__ = [
    # Newton and its failures
    "newton_solve", "halving", "NewtonError", "NewtonFailure", "NewtonInfo", "RelaxationError",
    "Trajectory",
    # explicit steps, runs and observation
    "verlet_step", "central_difference_step", "verlet", "damped_verlet_step", "relax",
    "leapfrog_damped_step", "observe", "kinetic_energy",
    # implicit steps and runs
    "check_mass", "initial_acceleration", "newmark_step", "newmark",
    "generalized_alpha_parameters", "hht_parameters", "generalized_alpha_step",
    "generalized_alpha", "discrete_gradient_correction", "discrete_gradient_step",
    "discrete_gradient",
    # stability and accuracy
    "critical_step", "damped_critical_step", "verlet_amplification",
    "damped_leapfrog_amplification", "newmark_amplification", "newmark_frequency",
    "newmark_period_error", "generalized_alpha_amplification",
]


_PREDICTORS = ("displacement", "velocity", "acceleration")


def _check_predictor(predictor):
    if predictor not in _PREDICTORS:
        raise ValueError(f"predictor must be one of {_PREDICTORS}, got {predictor!r}")
    return predictor


def _predict(predictor, u, v, a, h):
    """Newton's start for u_1: constant displacement, velocity or acceleration."""
    if predictor == "displacement":
        return u.copy()
    if predictor == "velocity":
        return u + h * v
    return u + h * v + 0.5 * h * h * a


class RelaxationError(SolveError):
    """Dynamic relaxation did not come to rest within its step budget."""


@dataclass(frozen=True)
class Trajectory:
    """States of a run, sampled every ``every`` steps (the first and the last included).

    Attributes
    ----------
    t : ndarray, shape (m,)
        Sample times.
    q, v, a : ndarray, shape (m, n)
        Positions, velocities, accelerations at those times.
    steps : ndarray of int, shape (m,)
        Step index of each sample (0 = initial state).
    info : dict
        Solver statistics of implicit runs (:func:`newmark`,
        :func:`generalized_alpha`): ``iterations`` and ``backtracks`` (Newton
        iterations and line-search halvings, summed), ``halved_steps`` (steps
        that had to be split) and ``substeps`` (sub-steps taken in all).
        Empty for explicit runs.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    steps: np.ndarray
    info: dict = field(default_factory=dict)


def _check_dt(dt):
    dt = float(dt)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number, got {dt!r}")
    return dt


def _check_int(n, name, low=0):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {n!r}")
    return int(n)


# ---------------------------------------------------------------------------
# explicit steps, runs and observation
# ---------------------------------------------------------------------------
def verlet_step(q, v, a, dt, accel):
    """One step of velocity Verlet (second order, symplectic).

        v_{1/2} = v + dt/2 a,   q_1 = q + dt v_{1/2},   a_1 = accel(q_1),
        v_1 = v_{1/2} + dt/2 a_1.

    Linearly stable for omega_max dt <= 2 (:func:`critical_step`).

    Parameters
    ----------
    q, v, a : ndarray
        Position, velocity and acceleration at the start of the step.
    dt : float
        Step size.
    accel : callable
        ``accel(q) -> a``.

    Returns
    -------
    (q, v, a) : tuple of ndarray
        The state after the step (new arrays).

    Examples
    --------
    >>> acc = lambda q: -q                      # u'' + u = 0
    >>> q, v, a = verlet_step(np.array([1.0]), np.array([0.0]), np.array([-1.0]), 0.1, acc)
    >>> q.round(6).tolist(), v.round(6).tolist()
    ([0.995], [-0.09975])
    """
    vh = v + 0.5 * dt * a
    q1 = q + dt * vh
    a1 = np.asarray(accel(q1), dtype=float)
    return q1, vh + 0.5 * dt * a1, a1


def central_difference_step(u, v, a, dt, accel):
    """One step of the explicit central-difference method in velocity form.

        u_1 = u + dt v + dt^2/2 a,   a_1 = accel(u_1),   v_1 = v + dt/2 (a + a_1).

    Algebraically the same update as :func:`verlet_step`; with a consistent
    (non-diagonal) mass, ``accel`` does the mass solve.  Stable for
    omega_max dt <= 2.

    Examples
    --------
    >>> acc = lambda u: -4.0 * u
    >>> u, v, a = central_difference_step(np.ones(1), np.zeros(1), -4.0 * np.ones(1), 0.1, acc)
    >>> u.round(6).tolist()
    [0.98]
    """
    u1 = u + dt * v + 0.5 * dt * dt * a
    a1 = np.asarray(accel(u1), dtype=float)
    return u1, v + 0.5 * dt * (a + a1), a1


def _run(step, q0, v0, dt, nsteps, every, callback, a0, info=None):
    dt = _check_dt(dt)
    nsteps = _check_int(nsteps, "nsteps")
    every = _check_int(every, "every", 1)
    q = np.array(q0, dtype=float)
    v = np.array(v0, dtype=float)
    if v.shape != q.shape:
        raise ValueError(f"v0 must have the shape of q0 {q.shape}, got {v.shape}")
    a = np.asarray(a0, dtype=float)
    ts, qs, vs, as_, ks = [0.0], [q.copy()], [v.copy()], [a.copy()], [0]
    for n in range(1, nsteps + 1):
        q, v, a = step(q, v, a)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise FloatingPointError(f"state became non-finite at step {n} (t = {n * dt:.6g})")
        if n % every == 0 or n == nsteps:
            ts.append(n * dt)
            qs.append(q.copy())
            vs.append(v.copy())
            as_.append(a.copy())
            ks.append(n)
            if callback is not None and callback(n, n * dt, q, v, a) is False:
                break
    return Trajectory(np.array(ts), np.array(qs), np.array(vs), np.array(as_), np.array(ks),
                      {} if info is None else info)


def verlet(q0, v0, dt, nsteps, accel, every=1, callback=None):
    """Run velocity Verlet for ``nsteps`` steps.

    Parameters
    ----------
    q0, v0 : ndarray
        Initial state.
    dt : float
        Step size.
    nsteps : int
        Number of steps.
    accel : callable
        ``accel(q) -> a``.
    every : int
        Keep every ``every``-th state (the initial and final ones always).
    callback : callable, optional
        ``callback(n, t, q, v, a)`` at each kept sample; returning ``False``
        stops the run there.

    Returns
    -------
    Trajectory

    Raises
    ------
    FloatingPointError
        If the state becomes non-finite (names the step and time).

    Examples
    --------
    >>> tr = verlet(np.array([1.0]), np.array([0.0]), 0.01, 628, lambda q: -q, every=314)
    >>> tr.steps.tolist(), tr.q[:, 0].round(3).tolist()
    ([0, 314, 628], [1.0, -1.0, 1.0])
    """
    q0 = np.asarray(q0, dtype=float)
    return _run(lambda q, v, a: verlet_step(q, v, a, dt, accel), q0, v0, dt, nsteps,
                every, callback, accel(q0))


def damped_verlet_step(q, v, a, dt, accel, c):
    """Velocity Verlet with a viscous, mass-proportional damping force -c M v.

    ``a`` and ``accel`` are the undamped accelerations; the damping is taken
    by the trapezoidal rule so the step stays second order and explicit:

        v_{1/2} = v + dt/2 (a - c v),   q_1 = q + dt v_{1/2},   a_1 = accel(q_1),
        v_1 = (v_{1/2} + dt/2 a_1) / (1 + c dt/2).

    Examples
    --------
    >>> q, v, a = damped_verlet_step(np.ones(1), np.ones(1), -np.ones(1), 0.1, lambda q: -q, 0.0)
    >>> np.allclose([q, v], verlet_step(np.ones(1), np.ones(1), -np.ones(1), 0.1, lambda q: -q)[:2])
    True
    """
    c = float(c)
    vh = v + 0.5 * dt * (a - c * v)
    q1 = q + dt * vh
    a1 = np.asarray(accel(q1), dtype=float)
    return q1, (vh + 0.5 * dt * a1) / (1.0 + 0.5 * dt * c), a1


def relax(q0, accel, dt, c, vtol=1e-9, check_every=1000, max_steps=10**6, v0=None,
          callback=None, callback_every=1):
    """Damped dynamic relaxation: march :func:`damped_verlet_step` to rest.

    Starting from ``q0`` (at rest unless ``v0``), every ``check_every`` steps
    the largest velocity component max|v| is compared with ``vtol``; the run
    stops at the first check where it is below.  The state at rest is a
    static equilibrium accel(q) = 0.  Choose c near 2 omega_1 (critical
    damping of the first mode) and dt below 2/omega_max.  ``callback(n, q, v)``,
    if given, is called every ``callback_every`` steps (for histories).

    Returns
    -------
    q : ndarray
        The final state.
    nsteps : int
        Steps taken (a multiple of ``check_every``).
    vmax : float
        max|v| at the stop.

    Raises
    ------
    RelaxationError
        If max|v| is still above ``vtol`` after ``max_steps`` (names the
        steps, time and velocity reached).

    Examples
    --------
    >>> q, n, vmax = relax(np.ones(1), lambda q: 1.0 - q, 0.1, 2.0, vtol=1e-9, check_every=100)
    >>> round(float(q[0]), 8), n
    (1.0, 100)
    """
    dt = _check_dt(dt)
    check_every = _check_int(check_every, "check_every", 1)
    q = np.array(q0, dtype=float)
    v = np.zeros_like(q) if v0 is None else np.array(v0, dtype=float)
    a = np.asarray(accel(q), dtype=float)
    callback_every = _check_int(callback_every, "callback_every", 1)
    n = 0
    while True:
        for _ in range(check_every):
            q, v, a = damped_verlet_step(q, v, a, dt, accel, c)
            n += 1
            if callback is not None and n % callback_every == 0:
                callback(n, q, v)
        vmax = float(np.abs(v).max())
        if not np.isfinite(vmax):
            raise RelaxationError(f"dynamic relaxation diverged by step {n} (t = {n * dt:.6g})")
        if vmax <= vtol:
            return q, n, vmax
        if n >= max_steps:
            raise RelaxationError(
                f"dynamic relaxation not at rest after {n} steps (t = {n * dt:.6g}): "
                f"max|v| = {vmax:.3e} > vtol = {vtol:.1e}"
            )


def leapfrog_damped_step(q, vh, dt, accel):
    """One leapfrog (central-difference) step with a velocity-dependent force.

        v_{n+1/2} = v_{n-1/2} + dt accel(q_n, v_{n-1/2}),   q_{n+1} = q_n + dt v_{n+1/2}.

    The damping force sees the lagged half-step velocity, which keeps the step
    explicit for any damping (a non-diagonal C included).  On one mode
    u'' + 2 zeta omega u' + omega^2 u = 0 its stability limit is
    :func:`damped_critical_step`.

    Parameters
    ----------
    q : ndarray
        Position q_n.
    vh : ndarray
        Half-step velocity v_{n-1/2}.
    dt : float
    accel : callable
        ``accel(q, v) -> a`` (elastic and damping force over the mass).

    Returns
    -------
    (q, vh) : tuple of ndarray
        q_{n+1} and v_{n+1/2}.

    Examples
    --------
    >>> acc = lambda q, v: -q - 0.2 * v
    >>> q, vh = leapfrog_damped_step(np.ones(1), np.zeros(1), 0.1, acc)
    >>> q.round(6).tolist(), vh.round(6).tolist()
    ([0.99], [-0.1])
    """
    vh1 = vh + dt * np.asarray(accel(q, vh), dtype=float)
    return q + dt * vh1, vh1


def observe(step, state, nsteps, fn, stop=None):
    """March ``state = step(*state)`` and record ``fn(*state)`` after every step.

    A lean alternative to storing whole trajectories when a long run is only
    needed through a few numbers (an energy, a tip coordinate).

    Parameters
    ----------
    step : callable
        ``step(*state) -> state`` (a tuple of arrays), e.g.
        ``lambda q, v, a: verlet_step(q, v, a, dt, accel)``.
    state : tuple of ndarray
        Initial state.
    nsteps : int
        Number of steps.
    fn : callable
        ``fn(*state) -> float or ndarray``, recorded at step 0 and after each step.
    stop : callable, optional
        ``stop(value) -> bool``; the run ends after the first step at which it
        is true (that value is kept).

    Returns
    -------
    values : ndarray, shape (n + 1, ...)
        ``fn`` at steps 0..n, with n = nsteps unless ``stop`` ended the run.
    state : tuple
        The state after step n.

    Raises
    ------
    FloatingPointError
        If a recorded value is not finite (names the step).

    Examples
    --------
    >>> acc = lambda q: -q
    >>> st = (np.ones(1), np.zeros(1), -np.ones(1))
    >>> vals, st = observe(lambda q, v, a: verlet_step(q, v, a, 0.1, acc), st, 5,
    ...                    lambda q, v, a: q[0], stop=lambda x: x < 0.96)
    >>> len(vals), round(float(vals[-1]), 6)        # stopped after step 3
    (4, 0.955299)
    """
    nsteps = _check_int(nsteps, "nsteps")
    state = tuple(state)
    vals = [np.asarray(fn(*state), dtype=float)]
    for n in range(1, nsteps + 1):
        state = tuple(step(*state))
        val = np.asarray(fn(*state), dtype=float)
        if not np.all(np.isfinite(val)):
            raise FloatingPointError(f"observed value became non-finite at step {n}")
        vals.append(val)
        if stop is not None and stop(val):
            break
    return np.array(vals), state


def kinetic_energy(mass, v):
    """Kinetic energy T = v^T M v / 2 of one velocity or a stack of them.

    Parameters
    ----------
    mass : ndarray (n,) lumped, ndarray (n, n) or sparse (n, n)
    v : ndarray, shape (n,) or (m, n)

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> kinetic_energy(np.array([2.0, 4.0]), np.array([[1.0, 0.5], [0.0, 1.0]])).tolist()
    [1.5, 2.0]
    """
    v = np.asarray(v, dtype=float)
    n = v.shape[-1]
    M = check_mass(mass, n)
    Mv = M * v if M.ndim == 1 else (M @ v.T).T
    T = 0.5 * np.sum(v * Mv, axis=-1)
    return float(T) if v.ndim == 1 else T


# ---------------------------------------------------------------------------
# implicit steps and runs: Newmark, the generalised-alpha family (HHT-alpha,
# Chung-Hulbert; Newmark is alpha_m = alpha_f = 0) and Gonzalez's discrete gradient
# ---------------------------------------------------------------------------
def _mass_apply(mass, x):
    if mass.ndim == 1:
        return mass * x
    return mass @ x


def check_mass(mass, n):
    """``mass`` as a lumped (n,) array, a dense (n, n) array or a CSR matrix, else a ValueError."""
    if sp.issparse(mass):
        if mass.shape != (n, n):
            raise ValueError(f"mass must be ({n},) or ({n}, {n}), got {mass.shape}")
        return mass.tocsr()
    m = np.asarray(mass, dtype=float)
    if m.shape not in ((n,), (n, n)):
        raise ValueError(f"mass must be ({n},) or ({n}, {n}), got {m.shape}")
    return m


def _tangent(K, M, c):
    """K + c M as the Newton tangent: banded or sparse if K is, dense otherwise."""
    if isinstance(K, SymmetricBanded):
        return K.plus_diagonal(c * M) if M.ndim == 1 else K + c * M
    if sp.issparse(K):
        Mm = sp.diags(M) if M.ndim == 1 else sp.csr_matrix(M)
        return (K + c * Mm).tocsc()
    Md = np.diag(M) if M.ndim == 1 else (M.toarray() if sp.issparse(M) else M)
    return np.asarray(K, dtype=float) + c * Md


def _scaled(s, K):
    """s K for a sparse, banded or dense tangent (keeping its kind)."""
    if sp.issparse(K) or isinstance(K, SymmetricBanded):
        return s * K
    return s * np.asarray(K, dtype=float)


def newmark_step(u, v, a, dt, force, mass, beta=0.25, gamma=0.5, tol=1e-10, maxiter=40,
                 predictor="displacement", line_search="fallback", max_halvings=0):
    """One implicit Newmark-beta step, solved by a safeguarded Newton method.

        u_1 = u + dt v + dt^2 [(1/2 - beta) a + beta a_1],
        v_1 = v + dt [(1 - gamma) a + gamma a_1],

    with a_1 fixed by the residual R(u_1) = M a_1 + f(u_1) = 0, solved for u_1
    by :func:`newton_solve` on the tangent K + M/(beta dt^2) (sparse LU when K is
    sparse, a dense solve otherwise): from a predictor, with a backtracking line
    search on ||R||, to ||R||_inf <= tol max(||f||_inf, ||M a_1||_inf) or a
    correction at round-off.  If the solve still fails and ``max_halvings`` > 0,
    the step is split into halves (:func:`halving`), each a Newmark step.

    Parameters
    ----------
    u, v, a : ndarray, shape (n,)
        State at the start of the step.
    dt : float
    force : callable
        ``force(u) -> (f, K)``: f = internal - external force, K = df/du.
    mass : ndarray (n,) or (n, n), or sparse (n, n)
        Lumped (vector) or consistent mass.
    beta, gamma : float
        Newmark parameters (1/4, 1/2: the trapezoidal rule).
    tol : float
        Relative residual tolerance.
    maxiter : int
        Newton iterations allowed per solve.
    predictor : {"displacement", "velocity", "acceleration"}
        Newton's start: constant displacement u_1 = u (default), constant
        velocity u_1 = u + dt v, or constant acceleration a_1 = a, i.e.
        u_1 = u + dt v + dt^2/2 a.  The extrapolating predictors are better
        for resolved motion and worse for stiff modes with omega dt >> 1,
        whose extrapolated accelerations overshoot (the integration chapter
        measures this on the rod).
    line_search : bool or "fallback"
        As in :func:`newton_solve`; the default ``"fallback"`` tries plain
        Newton first, then the line search.
    max_halvings : int
        How often a failing step may be halved (0: never; the step stays the
        fixed-step scheme).

    Returns
    -------
    (u, v, a) : tuple of ndarray

    Raises
    ------
    NewtonFailure
        When the solve fails at the smallest sub-step allowed: the reason, the
        iterations and the residual reached.

    References
    ----------
    Newmark (1959).

    Examples
    --------
    >>> force = lambda u: (4.0 * u, np.array([[4.0]]))    # u'' + 4 u = 0
    >>> u, v, a = newmark_step(np.ones(1), np.zeros(1), -4.0 * np.ones(1), 0.1, force, np.ones(1))
    >>> u.round(8).tolist()
    [0.98019802]
    """
    return _newmark_core(u, v, a, dt, force, mass, beta, gamma, tol, maxiter, predictor,
                         line_search, max_halvings)[0]


def _newmark_core(u, v, a, dt, force, mass, beta, gamma, tol, maxiter, predictor,
                  line_search, max_halvings):
    dt = _check_dt(dt)
    if not (beta > 0):
        raise ValueError(f"beta must be > 0 for the implicit step, got {beta!r}")
    _check_predictor(predictor)
    u = np.asarray(u, dtype=float)
    M = check_mass(mass, u.size)
    tiny = np.finfo(float).tiny
    stats = {"iterations": 0, "backtracks": 0}

    def one(state, h):
        u0, v0, a0 = state
        cb = 1.0 / (beta * h * h)

        def fun(x):
            a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
            f, K = force(x)
            f = np.asarray(f, dtype=float)
            Ma = _mass_apply(M, a1)
            scale = max(float(np.abs(f).max()), float(np.abs(Ma).max()), tiny)
            return Ma + f, _tangent(K, M, cb), scale

        x0 = _predict(predictor, u0, v0, a0, h)
        x, info = newton_solve(fun, x0, tol, maxiter, line_search, where="Newmark Newton")
        stats["iterations"] += info.iterations
        stats["backtracks"] += info.backtracks
        a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
        return x, v0 + h * ((1.0 - gamma) * a0 + gamma * a1), a1

    state, nsub = halving(one, (u, np.asarray(v, dtype=float), np.asarray(a, dtype=float)),
                          dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def initial_acceleration(force, M, u0):
    """a_0 solving M a_0 = -f(u_0) (lumped or consistent M), and f(u_0)."""
    f0 = np.asarray(force(u0)[0], dtype=float)
    if M.ndim == 1:
        return -f0 / M, f0
    Md = M.toarray() if sp.issparse(M) else M
    try:
        return -sla.solve(Md, f0, assume_a="pos"), f0
    except sla.LinAlgError:
        raise ValueError("mass must be symmetric positive definite (its Cholesky "
                         "factorisation failed)") from None


def newmark(u0, v0, dt, nsteps, force, mass, beta=0.25, gamma=0.5, every=1, callback=None,
            tol=1e-10, maxiter=40, predictor="displacement", line_search="fallback", max_halvings=0):
    """Run :func:`newmark_step` for ``nsteps`` steps (sampling as in :func:`verlet`).

    The initial acceleration solves M a_0 = -f(u_0).  ``predictor``,
    ``line_search`` and ``max_halvings`` are those of :func:`newmark_step`;
    the returned trajectory's ``info`` counts the Newton iterations,
    line-search halvings and halved steps.  A failed step raises
    :class:`NewtonFailure` naming the step and time.

    Examples
    --------
    >>> force = lambda u: (u, np.eye(1))
    >>> tr = newmark(np.ones(1), np.zeros(1), 0.01, 10, force, np.ones(1), every=5)
    >>> tr.t.round(2).tolist(), tr.info["halved_steps"]
    ([0.0, 0.05, 0.1], 0)
    """
    u0 = np.asarray(u0, dtype=float)
    M = check_mass(mass, u0.size)
    a0, f0 = initial_acceleration(force, M, u0)
    state = {"n": 0}
    info = {"iterations": 0, "backtracks": 0, "halved_steps": 0, "substeps": 0}

    def step(u, v, a):
        state["n"] += 1
        try:
            s, st = _newmark_core(u, v, a, dt, force, M, beta, gamma, tol, maxiter, predictor,
                                  line_search, max_halvings)
        except NewtonFailure as err:
            n = state["n"]
            raise err.located(n, n * dt) from None
        _tally(info, st)
        return s

    return _run(step, u0, v0, dt, nsteps, every, callback, a0, info)


def _tally(info, st):
    info["iterations"] += st["iterations"]
    info["backtracks"] += st["backtracks"]
    info["substeps"] += st["substeps"]
    info["halved_steps"] += int(st["substeps"] > 1)


def generalized_alpha_parameters(rho_inf):
    """Chung-Hulbert parameters (alpha_m, alpha_f, beta, gamma) for a chosen rho_inf.

    The generalised-alpha method with

        alpha_m = (2 rho - 1)/(rho + 1),  alpha_f = rho/(rho + 1),
        gamma = 1/2 - alpha_m + alpha_f,  beta = (1 - alpha_m + alpha_f)^2 / 4

    is second order, unconditionally stable for linear problems, and its
    spectral radius tends to rho = rho_inf as omega dt -> infinity, with the
    least low-frequency dissipation for that high-frequency damping
    (Chung and Hulbert 1993).  rho_inf = 1: no dissipation (on linear
    problems the trapezoidal rule); rho_inf = 0: annihilation of the highest
    modes in one step.

    Examples
    --------
    >>> [round(p, 6) for p in generalized_alpha_parameters(0.8)]
    [0.333333, 0.444444, 0.308642, 0.611111]
    """
    try:
        r = float(rho_inf)
    except (TypeError, ValueError):
        raise ValueError(f"rho_inf must be a number in [0, 1], got {rho_inf!r}") from None
    if not 0.0 <= r <= 1.0:
        raise ValueError(f"rho_inf must lie in [0, 1], got {rho_inf!r}")
    am = (2.0 * r - 1.0) / (r + 1.0)
    af = r / (r + 1.0)
    return am, af, 0.25 * (1.0 - am + af) ** 2, 0.5 - am + af


def hht_parameters(alpha):
    """HHT-alpha parameters (alpha_m, alpha_f, beta, gamma), alpha in [-1/3, 0].

    Hilber, Hughes and Taylor (1977) write the balance at the shifted time,
    M a_{n+1} + (1 + alpha) f_{n+1} - alpha f_n = 0, with gamma = 1/2 - alpha
    and beta = (1 - alpha)^2 / 4.  In the generalised-alpha notation that is
    alpha_m = 0, alpha_f = -alpha.  alpha = 0 is the trapezoidal rule; the
    spectral radius at infinity is (1 + alpha)/(1 - alpha).

    Examples
    --------
    >>> [round(p, 6) for p in hht_parameters(-0.1)]
    [0.0, 0.1, 0.3025, 0.6]
    """
    try:
        al = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number in [-1/3, 0], got {alpha!r}") from None
    if not -1.0 / 3.0 - 1e-15 <= al <= 0.0:
        raise ValueError(f"alpha must lie in [-1/3, 0], got {alpha!r}")
    return 0.0, -al, 0.25 * (1.0 - al) ** 2, 0.5 - al


def _check_params(params):
    try:
        am, af, beta, gamma = (float(p) for p in params)
    except (TypeError, ValueError):
        raise ValueError(f"params must be (alpha_m, alpha_f, beta, gamma), got {params!r}") from None
    if not (beta > 0 and am < 1 and af < 1):
        raise ValueError(f"params need beta > 0, alpha_m < 1, alpha_f < 1, got {params!r}")
    return am, af, beta, gamma


def generalized_alpha_step(u, v, a, f, dt, force, mass, params, tol=1e-10, maxiter=40,
                           predictor="displacement", line_search="fallback", max_halvings=0):
    """One generalised-alpha step for M u'' + f(u) = 0, solved by a safeguarded Newton method.

    Newmark's kinematics

        u_1 = u + dt v + dt^2 [(1/2 - beta) a + beta a_1],
        v_1 = v + dt [(1 - gamma) a + gamma a_1],

    with the balance imposed between the two time levels,

        M [(1 - alpha_m) a_1 + alpha_m a] + (1 - alpha_f) f(u_1) + alpha_f f = 0,

    where f = f(u) is the force at the start of the step (carried in the
    state; the force interpolation of Hilber et al. 1977).  The balance is
    solved for u_1 by :func:`newton_solve` on the effective tangent
    (1 - alpha_f) K(u_1) + (1 - alpha_m) M / (beta dt^2), from a predictor and
    with a backtracking line search; converged when
    ||R||_inf <= tol max(||f_alpha||_inf, ||M a_alpha||_inf) or when a
    correction has fallen to round-off.  With alpha_m = alpha_f = 0 this is
    :func:`newmark_step`.  ``max_halvings`` > 0 lets a failing step be split
    into halves (:func:`halving`).

    Parameters
    ----------
    u, v, a, f : ndarray, shape (n,)
        Displacement, velocity, acceleration and force f(u) at the start.
    dt : float
    force : callable
        ``force(u) -> (f, K)`` as in :func:`newmark_step`.
    mass : ndarray (n,) or (n, n), or sparse (n, n)
    params : (alpha_m, alpha_f, beta, gamma)
        From :func:`generalized_alpha_parameters`, :func:`hht_parameters`,
        or ``(0, 0, beta, gamma)`` for Newmark.
    tol, maxiter : float, int
        Relative residual tolerance and Newton iteration budget.
    predictor, line_search, max_halvings
        As in :func:`newmark_step`.

    Returns
    -------
    (u, v, a, f) : tuple of ndarray

    Raises
    ------
    NewtonFailure
        Names the reason, the iterations and the residual reached.

    References
    ----------
    Chung and Hulbert (1993); Hilber, Hughes and Taylor (1977).

    Examples
    --------
    >>> force = lambda u: (4.0 * u, np.array([[4.0]]))
    >>> s = generalized_alpha_step(np.ones(1), np.zeros(1), -4 * np.ones(1), 4 * np.ones(1),
    ...                            0.1, force, np.ones(1), (0.0, 0.0, 0.25, 0.5))
    >>> s[0].round(8).tolist()                  # = newmark_step
    [0.98019802]
    """
    return _ga_core(u, v, a, f, dt, force, mass, params, tol, maxiter, predictor,
                    line_search, max_halvings)[0]


def _ga_core(u, v, a, f, dt, force, mass, params, tol, maxiter, predictor, line_search,
             max_halvings):
    dt = _check_dt(dt)
    am, af, beta, gamma = _check_params(params)
    _check_predictor(predictor)
    u = np.asarray(u, dtype=float)
    M = check_mass(mass, u.size)
    tiny = np.finfo(float).tiny
    stats = {"iterations": 0, "backtracks": 0}

    def one(state, h):
        u0, v0, a0, f0 = state
        cb = 1.0 / (beta * h * h)
        out = {}

        def fun(x):
            a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
            f1, K = force(x)
            f1 = np.asarray(f1, dtype=float)
            out["x"], out["f"] = x, f1
            Ma = _mass_apply(M, (1.0 - am) * a1 + am * a0)
            fa = (1.0 - af) * f1 + af * f0
            scale = max(float(np.abs(fa).max()), float(np.abs(Ma).max()), tiny)
            K = _scaled(1.0 - af, K)
            return Ma + fa, _tangent(K, M, (1.0 - am) * cb), scale

        x0 = _predict(predictor, u0, v0, a0, h)
        x, info = newton_solve(fun, x0, tol, maxiter, line_search,
                               where="generalised-alpha Newton")
        stats["iterations"] += info.iterations
        stats["backtracks"] += info.backtracks
        f1 = out["f"]
        if out["x"] is not x:                  # the last evaluation was elsewhere
            f1 = np.asarray(force(x)[0], dtype=float)
        a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
        return x, v0 + h * ((1.0 - gamma) * a0 + gamma * a1), a1, f1

    state, nsub = halving(one, (u, np.asarray(v, dtype=float), np.asarray(a, dtype=float),
                                np.asarray(f, dtype=float)), dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def generalized_alpha(u0, v0, dt, nsteps, force, mass, params, every=1, callback=None,
                      tol=1e-10, maxiter=40, predictor="displacement", line_search="fallback",
                      max_halvings=0):
    """Run :func:`generalized_alpha_step` for ``nsteps`` steps (sampling as in :func:`verlet`).

    The initial acceleration solves M a_0 = -f(u_0).  ``predictor``,
    ``line_search`` and ``max_halvings`` are those of :func:`newmark_step`;
    the trajectory's ``info`` counts iterations, halvings and halved steps.  A
    failed step raises :class:`NewtonFailure` naming the step and time.

    Examples
    --------
    >>> force = lambda u: (u, np.eye(1))
    >>> tr = generalized_alpha(np.ones(1), np.zeros(1), 0.1, 63, force, np.ones(1),
    ...                        generalized_alpha_parameters(1.0), every=63)
    >>> round(float(tr.q[-1, 0]), 3)          # cos(6.3), with the trapezoidal phase lag
    1.0
    """
    u0 = np.asarray(u0, dtype=float)
    params = _check_params(params)
    M = check_mass(mass, u0.size)
    a0, f0 = initial_acceleration(force, M, u0)
    state = {"n": 0, "f": f0}
    info = {"iterations": 0, "backtracks": 0, "halved_steps": 0, "substeps": 0}

    def step(u, v, a):
        state["n"] += 1
        try:
            (u1, v1, a1, state["f"]), st = _ga_core(u, v, a, state["f"], dt, force, M, params,
                                                    tol, maxiter, predictor, line_search,
                                                    max_halvings)
        except NewtonFailure as err:
            n = state["n"]
            raise err.located(n, n * dt) from None
        _tally(info, st)
        return u1, v1, a1

    return _run(step, u0, v0, dt, nsteps, every, callback, a0, info)


def discrete_gradient_correction(energy0, energy1, g_mid, dq, mass=None):
    """Coefficient c of Gonzalez's midpoint discrete gradient in the metric of ``mass``.

    The discrete gradient of Pi between q0 and q1 = q0 + dq is

        grad_bar Pi = grad Pi(q_m) + c M dq,   q_m = (q0 + q1)/2,
        c = [Pi(q1) - Pi(q0) - grad Pi(q_m) . dq] / (dq^T M dq),

    so that grad_bar Pi . dq = Pi(q1) - Pi(q0) exactly (the discrete chain
    rule) and grad_bar Pi = grad Pi(q_m) + O(|dq|^2).  Where the numerator is
    at the round-off level of the energies (or dq = 0) c is set to 0: the
    midpoint gradient then satisfies the chain rule to that round-off.

    Parameters
    ----------
    energy0, energy1 : float
        Pi(q0), Pi(q1).
    g_mid : ndarray, shape (n,)
        grad Pi(q_m).
    dq : ndarray, shape (n,)
        q1 - q0.
    mass : ndarray (n,) or (n, n), sparse (n, n), or None
        Metric (None: the identity).

    Returns
    -------
    c : float
    Mdq : ndarray, shape (n,)
        M dq, the direction of the correction.

    References
    ----------
    Gonzalez (1996); McLachlan, Quispel and Robidoux (1999).

    Examples
    --------
    >>> Pi = lambda q: float(np.sum(q**4))         # quartic: the midpoint gradient is not exact
    >>> q0, q1 = np.array([1.0, 0.5]), np.array([0.7, 0.9])
    >>> c, Mdq = discrete_gradient_correction(Pi(q0), Pi(q1), 4 * ((q0 + q1) / 2)**3, q1 - q0)
    >>> gbar = 4 * ((q0 + q1) / 2)**3 + c * Mdq
    >>> bool(np.isclose(gbar @ (q1 - q0), Pi(q1) - Pi(q0), rtol=1e-14))
    True
    """
    dq = np.asarray(dq, dtype=float)
    if mass is None:
        Mdq = dq.copy()
    else:
        Mdq = _mass_apply(check_mass(mass, dq.size), dq)
    d = float(dq @ Mdq)
    gd = float(np.asarray(g_mid, dtype=float) @ dq)
    num = (float(energy1) - float(energy0)) - gd
    noise = 64.0 * _EPS * (abs(float(energy0)) + abs(float(energy1)) + abs(gd))
    if not (d > 0.0) or abs(num) <= noise:
        return 0.0, Mdq
    return num / d, Mdq


def discrete_gradient_step(q, v, dt, energy, force, mass, damping=None, tol=1e-10, maxiter=40,
                           predictor="displacement", line_search="fallback", max_halvings=0,
                           gradient=None):
    """One energy-conserving step for M q'' + grad Pi(q) = 0 (Gonzalez discrete gradient).

    The scheme (Gonzalez 1996; Simo and Tarnow 1992 for its energy-momentum
    ancestor) is

        q_1 - q_0 = dt v_m,   v_m = (v_0 + v_1)/2,
        M (v_1 - v_0) = -dt [grad_bar Pi(q_0, q_1) + f_d(q_m, v_m)],

    with grad_bar the midpoint discrete gradient of
    :func:`discrete_gradient_correction` (metric M) and f_d an optional
    damping force.  Eliminating v_1 = 2 (q_1 - q_0)/dt - v_0 leaves

        R(q_1) = (2/dt^2) M (q_1 - q_0 - dt v_0) + grad_bar Pi(q_0, q_1) + f_d = 0,

    solved by :func:`newton_solve` on the tangent (2/dt^2 + c) M + K(q_m)/2
    (+ C/dt with damping), sparse when K is.  The exact tangent adds the
    rank-one term M dq (dc/dq_1)^T, with

        dc/dq_1 = [grad Pi(q_1) - grad Pi(q_m) - K(q_m) dq / 2 - 2 c M dq] / (dq^T M dq),

    and the q-derivative of f_d.  The rank-one term is dense: it is added
    only when K is dense, or banded (:class:`lib.kernels.banded.SymmetricBanded`,
    solved with the term by Sherman-Morrison), and ``gradient`` is given (one more
    gradient per iteration); otherwise it is left out, Newton converges linearly, fast
    while the term is small against the inertia term (the chapter counts the
    iterations), and the tangent keeps Newmark's sparsity.  The residual
    itself is exact either way, so:

    * energy: H_1 - H_0 = -dt v_m . f_d(q_m, v_m) + dq . R exactly, i.e. without
      damping the energy H = v^T M v / 2 + Pi(q) is conserved to the Newton
      tolerance for *any* energy (not only polynomial ones, unlike the
      average-vector-field method with a fixed quadrature), and with a
      Rayleigh dissipation D (f_d = dD/dv, D quadratic in v) it falls by
      exactly dt * 2 D(q_m, v_m) per step;
    * second order and symmetric (time-reversible);
    * linear momentum and, for the Euclidean metric and a rotation-invariant
      Pi, angular momentum are conserved too (Gonzalez 1996) — not used here.

    Parameters
    ----------
    q, v : ndarray, shape (n,)
        State at the start of the step.
    dt : float
    energy : callable
        ``energy(q) -> float``, the potential Pi (loads and gravity included).
    force : callable
        ``force(q) -> (grad Pi, K)``, K sparse or dense, as for :func:`newmark_step`.
    mass : ndarray (n,) or (n, n), or sparse (n, n)
    damping : callable, optional
        ``damping(q, v) -> (f_d, C)``, C = df_d/dv (sparse or dense).
    gradient : callable, optional
        ``gradient(q) -> grad Pi``; with a dense K it makes the tangent exact
        (the rank-one term above), so Newton converges quadratically.
    tol, maxiter, predictor, line_search, max_halvings
        As in :func:`newmark_step` ("acceleration" needs no stored
        acceleration: it uses a = -M^{-1} grad Pi(q_0), lumped mass only).

    Returns
    -------
    (q, v) : tuple of ndarray

    Raises
    ------
    NewtonFailure
        Names the reason, iterations and residual reached.

    References
    ----------
    Gonzalez (1996); Simo and Tarnow (1992); McLachlan, Quispel and Robidoux (1999).

    Examples
    --------
    >>> energy = lambda q: float(1 - np.cos(q[0]))             # pendulum
    >>> force = lambda q: (np.sin(q), np.array([[np.cos(q[0])]]))
    >>> q, v = discrete_gradient_step(np.array([2.5]), np.zeros(1), 0.5, energy, force, np.ones(1))
    >>> bool(abs(energy(q) + 0.5 * v[0]**2 - energy(np.array([2.5]))) < 1e-10)   # tol 1e-10
    True
    """
    return _dg_core(q, v, dt, energy, force, mass, damping, tol, maxiter, predictor,
                    line_search, max_halvings, gradient)[0]


def _dg_core(q, v, dt, energy, force, mass, damping, tol, maxiter, predictor, line_search,
             max_halvings, gradient=None):
    dt = _check_dt(dt)
    _check_predictor(predictor)
    q = np.asarray(q, dtype=float)
    M = check_mass(mass, q.size)
    if predictor == "acceleration" and M.ndim != 1:
        raise ValueError("predictor='acceleration' needs a lumped (vector) mass")
    tiny = np.finfo(float).tiny
    stats = {"iterations": 0, "backtracks": 0}

    def one(state, h):
        q0, v0 = state
        E0 = float(energy(q0))
        cb = 2.0 / (h * h)

        def fun(x):
            dq = x - q0
            qm = q0 + 0.5 * dq
            g, K = force(qm)
            g = np.asarray(g, dtype=float)
            c, Mdq = discrete_gradient_correction(E0, energy(x), g, dq, M)
            inertia = _mass_apply(M, cb * (dq - h * v0))
            gbar = g + c * Mdq
            R = inertia + gbar
            K = _scaled(0.5, K)
            J = _tangent(K, M, cb + c)
            if gradient is not None and c != 0.0 and isinstance(J, (np.ndarray, SymmetricBanded)):
                g1 = np.asarray(gradient(x), dtype=float)
                dc = (g1 - g - K @ dq - 2.0 * c * Mdq) / float(dq @ Mdq)
                # banded: kept as banded + rank one, solved by Sherman-Morrison
                J = J.plus_outer(Mdq, dc) if isinstance(J, SymmetricBanded) else J + np.outer(Mdq, dc)
            if damping is not None:
                fd, C = damping(qm, dq / h)
                R = R + np.asarray(fd, dtype=float)
                J = J + (C / h if sp.issparse(C) else np.asarray(C, dtype=float) / h)
                if sp.issparse(J):
                    J = J.tocsc()
            scale = max(float(np.abs(gbar).max()), float(np.abs(inertia).max()), tiny)
            return R, J, scale

        if predictor == "acceleration":
            a0 = -np.asarray(force(q0)[0], dtype=float) / M
            x0 = q0 + h * v0 + 0.5 * h * h * a0
        else:
            x0 = _predict(predictor, q0, v0, None, h)
        x, info = newton_solve(fun, x0, tol, maxiter, line_search,
                               where="discrete-gradient Newton")
        stats["iterations"] += info.iterations
        stats["backtracks"] += info.backtracks
        return x, 2.0 * (x - q0) / h - v0

    state, nsub = halving(one, (q, np.asarray(v, dtype=float)), dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def discrete_gradient(q0, v0, dt, nsteps, energy, force, mass, damping=None, every=1,
                      callback=None, tol=1e-10, maxiter=40, predictor="displacement",
                      line_search="fallback", max_halvings=0, gradient=None):
    """Run :func:`discrete_gradient_step` for ``nsteps`` steps (sampling as in :func:`verlet`).

    The trajectory's ``a`` holds the mean acceleration of the step that ended
    at each sample, (v_1 - v_0)/dt (zero at t = 0): the scheme needs no
    acceleration state.  ``info`` counts Newton iterations, line-search
    halvings and halved steps; a failed step raises :class:`NewtonFailure`
    naming the step and time.

    Examples
    --------
    >>> energy = lambda q: float(1 - np.cos(q[0]))
    >>> force = lambda q: (np.sin(q), np.array([[np.cos(q[0])]]))
    >>> tr = discrete_gradient(np.array([3.0]), np.zeros(1), 0.4, 200, energy, force,
    ...                        np.ones(1), every=200, tol=1e-12)
    >>> E = [energy(q) + 0.5 * v[0]**2 for q, v in zip(tr.q, tr.v)]
    >>> bool(abs(E[1] - E[0]) < 1e-11)                       # 200 large steps near the top
    True
    """
    q0 = np.asarray(q0, dtype=float)
    M = check_mass(mass, q0.size)
    state = {"n": 0}
    info = {"iterations": 0, "backtracks": 0, "halved_steps": 0, "substeps": 0}

    def step(q, v, a):
        state["n"] += 1
        try:
            (q1, v1), st = _dg_core(q, v, dt, energy, force, M, damping, tol, maxiter,
                                    predictor, line_search, max_halvings, gradient)
        except NewtonFailure as err:
            n = state["n"]
            raise err.located(n, n * dt) from None
        _tally(info, st)
        return q1, v1, (v1 - v) / dt

    return _run(step, q0, v0, dt, nsteps, every, callback, np.zeros_like(q0), info)


# ---------------------------------------------------------------------------
# stability and accuracy: step limits, amplification matrices, period errors
# ---------------------------------------------------------------------------
def critical_step(omega_max):
    """Stability limit 2 / omega_max of Verlet and central differences.

    >>> critical_step(4.0)
    0.5
    """
    w = float(omega_max)
    if not (np.isfinite(w) and w > 0):
        raise ValueError(f"omega_max must be positive, got {omega_max!r}")
    return 2.0 / w


def damped_critical_step(omega, zeta):
    """Explicit stability limit with damping: min over modes of (2/omega)(sqrt(1 + zeta^2) - zeta).

    The eigenvalues of :func:`damped_leapfrog_amplification` lie in the unit
    disc iff |det A| <= 1 and 1 + tr A + det A >= 0 (the Jury conditions;
    1 - tr A + det A = W^2 > 0 always).  The second, W^2 + 4 zeta W - 4 <= 0,
    gives

        omega dt <= 2 (sqrt(1 + zeta^2) - zeta)   (about 2 (1 - zeta) for small zeta),

    and implies the first (2 zeta W <= 2).  Damping *shrinks* the explicit
    limit: Belytschko, Liu and Moran, *Nonlinear finite elements* (2000), sec. 6.2.
    For stiffness-proportional damping (Kelvin-Voigt, zeta = tau omega / 2)
    the top mode has the largest zeta and sets the limit; for mass-proportional
    damping zeta falls as 1/omega and the limit barely moves.

    Parameters
    ----------
    omega : float or array_like
        Angular frequencies of the undamped modes.
    zeta : float or array_like
        Their damping ratios (broadcast against ``omega``).

    Returns
    -------
    float

    Examples
    --------
    >>> round(damped_critical_step(1.0, 0.0), 12), round(damped_critical_step(1.0, 0.75), 12)
    (2.0, 1.0)
    """
    w, z = np.broadcast_arrays(np.asarray(omega, dtype=float), np.asarray(zeta, dtype=float))
    if w.size == 0 or not np.all(np.isfinite(w) & (w > 0)):
        raise ValueError(f"omega must be positive and finite, got {omega!r}")
    if not np.all(np.isfinite(z) & (z >= 0)):
        raise ValueError(f"zeta must be non-negative and finite, got {zeta!r}")
    return float(np.min(2.0 / w * (np.sqrt(1.0 + z * z) - z)))


def verlet_amplification(omega, dt):
    """Amplification matrix of velocity Verlet on u'' + omega^2 u = 0, state (u, dt v).

    With W = omega dt,

        A = [[1 - W^2/2, 1], [-W^2 (1 - W^2/4), 1 - W^2/2]],   det A = 1,

    so the eigenvalues lie on the unit circle for W <= 2 and one of them is
    real with modulus > 1 for W > 2: the limit dt_c = 2/omega.

    Examples
    --------
    >>> A = verlet_amplification(1.0, 2.2)
    >>> round(float(np.linalg.det(A)), 12), round(float(abs(np.linalg.eigvals(A)).max()), 4)
    (1.0, 2.4282)
    """
    W2 = (float(omega) * _check_dt(dt)) ** 2
    return np.array([[1.0 - W2 / 2, 1.0], [-W2 * (1.0 - W2 / 4), 1.0 - W2 / 2]])


def damped_leapfrog_amplification(omega, dt, zeta):
    """Amplification matrix of :func:`leapfrog_damped_step` on one damped mode.

    For u'' + 2 zeta omega u' + omega^2 u = 0 with W = omega dt and the state
    (u_n, dt v_{n-1/2}),

        A = [[1 - W^2, 1 - 2 zeta W], [-W^2, 1 - 2 zeta W]],
        det A = 1 - 2 zeta W,   tr A = 2 - W^2 - 2 zeta W.

    Examples
    --------
    >>> A = damped_leapfrog_amplification(1.0, 0.1, 0.0)
    >>> round(float(np.linalg.det(A)), 12)
    1.0
    """
    W = float(omega) * _check_dt(dt)
    z = float(zeta)
    return np.array([[1.0 - W * W, 1.0 - 2.0 * z * W], [-W * W, 1.0 - 2.0 * z * W]])


def newmark_amplification(omega, dt, beta=0.25, gamma=0.5):
    """Amplification matrix A of Newmark on u'' + omega^2 u = 0, state (u, dt v).

    From (1 + beta W^2) u_1 = (1 - (1/2 - beta) W^2) u + dt v and
    dt v_1 = dt v - W^2 [(1 - gamma) u + gamma u_1], W = omega dt.

    >>> A = newmark_amplification(1.0, 0.1)
    >>> round(float(abs(np.linalg.eigvals(A)).max()), 12)   # trapezoidal rule: |lambda| = 1
    1.0
    """
    W2 = (float(omega) * _check_dt(dt)) ** 2
    d = 1.0 + beta * W2
    uu = (1.0 - (0.5 - beta) * W2) / d
    uv = 1.0 / d
    return np.array([[uu, uv],
                     [-W2 * ((1.0 - gamma) + gamma * uu), 1.0 - W2 * gamma * uv]])


def newmark_frequency(omega, dt, beta=0.25, gamma=0.5):
    """Numerical angular frequency of Newmark-beta on u'' + omega^2 u = 0.

    omega_bar = |arg lambda| / dt with lambda an eigenvalue of
    :func:`newmark_amplification`.  For beta = 1/4, gamma = 1/2 this is the
    closed form tan(omega_bar dt / 2) = omega dt / 2.  Returns ``nan`` when
    the eigenvalues are real (no oscillation).

    Examples
    --------
    >>> w, dt = 2.0, 0.3
    >>> bool(np.isclose(newmark_frequency(w, dt), 2 / dt * np.arctan(w * dt / 2), rtol=1e-14))
    True
    """
    lam = np.linalg.eigvals(newmark_amplification(omega, dt, beta, gamma))
    if np.all(np.abs(lam.imag) == 0):
        return float("nan")
    return float(np.abs(np.angle(lam)).max() / dt)


def newmark_period_error(omega, dt):
    """Leading relative period elongation of the trapezoidal rule, (omega dt)^2 / 12.

    >>> newmark_period_error(1.0, 0.6)
    0.03
    """
    return (float(omega) * _check_dt(dt)) ** 2 / 12.0


def generalized_alpha_amplification(omega, dt, params):
    """Amplification matrix of the generalised-alpha method on u'' + omega^2 u = 0.

    State (u, dt v, dt^2 a).  From the step equations with W = omega dt,
    the new scaled acceleration is

        A_1 = -[W^2 u + W^2 (1 - alpha_f)(dt v + (1/2 - beta) A) + alpha_m A]
              / [(1 - alpha_m) + beta W^2 (1 - alpha_f)],

    and u_1, dt v_1 follow from Newmark's kinematics.  Its spectral radius
    is the amplitude decay per step of a mode of frequency omega.

    Examples
    --------
    >>> A = generalized_alpha_amplification(1.0, 1e9, generalized_alpha_parameters(0.5))
    >>> round(float(abs(np.linalg.eigvals(A)).max()), 6)
    0.5
    """
    am, af, beta, gamma = _check_params(params)
    W2 = (float(omega) * _check_dt(dt)) ** 2
    D = (1.0 - am) + beta * W2 * (1.0 - af)
    c = -np.array([W2, W2 * (1.0 - af), am + W2 * (1.0 - af) * (0.5 - beta)]) / D
    return np.array([
        np.array([1.0, 1.0, 0.5 - beta]) + beta * c,
        np.array([0.0, 1.0, 1.0 - gamma]) + gamma * c,
        c,
    ])
