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

Every run (:func:`verlet`, :func:`newmark`, :func:`generalized_alpha`,
:func:`discrete_gradient`, :func:`observe`, :func:`relax`) ends exactly at ``nsteps dt``,
is refused up front past ``max_steps`` (:data:`MAX_STEPS` = 10^6) and reports
``progress(n, nsteps)`` after every step if asked to.

Public functions
----------------
newton_solve, halving, NewtonError, NewtonFailure, NewtonInfo    Newton and its failures (floors)
RelaxationError, NonFiniteState, Trajectory, MAX_STEPS         a run's failures, result and cap
verlet_step, central_difference_step, damped_verlet_step, leapfrog_damped_step    explicit steps
verlet, relax, observe, kinetic_energy                         explicit runs and observation
check_mass, initial_acceleration                               the mass; a_0 of M a_0 = -f(u_0)
newmark_step, newmark                                          implicit Newmark-beta
generalized_alpha_parameters, hht_parameters, generalized_alpha_step, generalized_alpha
                                                               the generalised-alpha family
discrete_gradient_correction, discrete_gradient_step, discrete_gradient
                                                               the midpoint discrete gradient
critical_step, damped_critical_step                            explicit stability limits
verlet_amplification, damped_leapfrog_amplification, newmark_amplification,
generalized_alpha_amplification, newmark_frequency, newmark_period_error
                                                               amplification and period errors

The work-precision ladder built on these steps is :mod:`lib.studies`.

References: Newmark (1959); Hairer, Lubich and Wanner, *Geometric numerical
integration* (2006) for the Verlet method.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .core import checks
from .core.errors import NewtonError, NewtonFailure, SolveError
from .solvers.continuation import halving
from .solvers.newton import NewtonInfo, newton_solve

from .kernels.banded import BandedRankOne, SymmetricBanded

_EPS = np.finfo(float).eps

__all__ = [
    # Newton and its failures
    "newton_solve", "halving", "NewtonError", "NewtonFailure", "NewtonInfo", "RelaxationError",
    "NonFiniteState", "Trajectory", "MAX_STEPS",
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
#: Default cap on the steps of one run (:func:`verlet`, :func:`newmark`,
#: :func:`generalized_alpha`, :func:`discrete_gradient`, :func:`observe`, :func:`relax`):
#: a longer run is refused up front (ValueError naming ``nsteps``, ``dt`` and the end
#: time) unless ``max_steps`` is raised; follow a long run with ``progress``.
MAX_STEPS = 10**6


def _states(vector=False, **named):
    """Finite float arrays of one shape (fast when they already are), each checked by name."""
    out, first = [], None
    for name, x in named.items():
        if not (type(x) is np.ndarray and x.dtype == np.float64 and np.isfinite(x).all()):
            x = checks.array(x, name)
        if first is None:
            first = (name, x.shape)
            if vector and x.ndim != 1:
                raise ValueError(f"{name} must be a 1-D array (n,), got shape {x.shape}")
        elif x.shape != first[1]:
            raise ValueError(f"{name} must have the shape of {first[0]} {first[1]}, got "
                             f"{x.shape}")
        out.append(x)
    return out


def _force_value(f, x):
    """force(x)[0] as an array of the shape of x (a ValueError naming force otherwise)."""
    f = np.asarray(f, dtype=float)
    if f.shape != x.shape:
        raise ValueError(f"force(u) must return f of the shape of u {x.shape}, got shape "
                         f"{f.shape}")
    return f


def _newton_options(tol, maxiter, predictor, line_search, max_halvings):
    """The options every implicit step passes to :func:`newton_solve` (ValueError naming one)."""
    checks.nonnegative(tol, "tol")
    checks.integer(maxiter, "maxiter", low=0)
    checks.choice(predictor, "predictor", _PREDICTORS)
    if not (isinstance(line_search, (bool, np.bool_)) or (isinstance(line_search, str)
                                                          and line_search == "fallback")):
        raise ValueError(f"line_search must be True, False or 'fallback', got "
                         f"{checks.show(line_search)}")
    checks.integer(max_halvings, "max_halvings", low=0)


def _optional(**functions):
    """Each given (not None) argument is a callable (ValueError naming it)."""
    for name, f in functions.items():
        if f is not None:
            checks.function(f, name)


def _step_cap(nsteps, max_steps, dt=None):
    """nsteps, refused up front past ``max_steps`` (naming dt and the end time if given)."""
    nsteps = checks.integer(nsteps, "nsteps", low=0)
    max_steps = checks.integer(max_steps, "max_steps", low=1)
    if nsteps > max_steps:
        span = "" if dt is None else f" steps of dt = {dt:g} (to t_end = {nsteps * dt:g})"
        raise ValueError(f"nsteps = {nsteps}{span} exceed max_steps = {max_steps}: pass a "
                         f"larger max_steps to run them (and progress= to follow the run)")
    return nsteps


def _run_options(dt, nsteps, every, callback, max_steps, progress):
    """dt, nsteps, every of a run, refused up front past ``max_steps``."""
    dt = checks.positive(dt, "dt")
    _optional(callback=callback, progress=progress)
    return dt, _step_cap(nsteps, max_steps, dt), checks.integer(every, "every", low=1)


def _predict(predictor, u, v, a, h):
    """Newton's start for u_1: constant displacement, velocity or acceleration."""
    if predictor == "displacement":
        return u.copy()
    if predictor == "velocity":
        return u + h * v
    return u + h * v + 0.5 * h * h * a


class RelaxationError(SolveError):
    """Dynamic relaxation did not come to rest within its step budget."""


class NonFiniteState(SolveError, FloatingPointError):
    """A run's state (or an observed value) became non-finite: names the step and time.

    A :class:`~lib.core.errors.SolveError` (``reason="diverged"``) and, as before, a
    ``FloatingPointError``, so either ``except`` catches it.
    """


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
    q, v, a = _states(q=q, v=v, a=a)
    return _verlet_step(q, v, a, checks.positive(dt, "dt"), checks.function(accel, "accel"))


def _verlet_step(q, v, a, dt, accel):
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
    u, v, a = _states(u=u, v=v, a=a)
    dt = checks.positive(dt, "dt")
    checks.function(accel, "accel")
    u1 = u + dt * v + 0.5 * dt * dt * a
    a1 = np.asarray(accel(u1), dtype=float)
    return u1, v + 0.5 * dt * (a + a1), a1


def _run(step, q, v, a, dt, nsteps, every, callback, info=None, progress=None, where="run"):
    """March ``step`` from a checked start, sampling every ``every`` steps (see :func:`verlet`)."""
    ts, qs, vs, as_, ks = [0.0], [q.copy()], [v.copy()], [a.copy()], [0]
    for n in range(1, nsteps + 1):
        q, v, a = step(q, v, a)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise NonFiniteState("the state became non-finite (is dt above the stable step?)",
                                 where=where, reason="diverged", step=n, time=n * dt)
        if progress is not None:
            progress(n, nsteps)
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


def verlet(q0, v0, dt, nsteps, accel, every=1, callback=None, max_steps=MAX_STEPS,
           progress=None):
    """Run velocity Verlet for ``nsteps`` steps, to ``t_end = nsteps dt`` exactly.

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
    max_steps : int
        Cap on ``nsteps`` (default :data:`MAX_STEPS` = 10^6): a longer run is a
        ValueError before the first step, naming ``nsteps``, ``dt`` and the end time.
    progress : callable, optional
        ``progress(n, nsteps)`` after every step (a progress bar for a long run).

    Returns
    -------
    Trajectory

    Raises
    ------
    NonFiniteState
        A :class:`~lib.core.errors.SolveError` and ``FloatingPointError``: the state
        became non-finite (names the step and time).
    ValueError
        Bad input (named), or ``nsteps > max_steps``.

    Examples
    --------
    >>> tr = verlet(np.array([1.0]), np.array([0.0]), 0.01, 628, lambda q: -q, every=314)
    >>> tr.steps.tolist(), tr.q[:, 0].round(3).tolist()
    ([0, 314, 628], [1.0, -1.0, 1.0])
    """
    dt, nsteps, every = _run_options(dt, nsteps, every, callback, max_steps, progress)
    q0, v0 = _states(q0=q0, v0=v0)
    a0 = _accel0(checks.function(accel, "accel"), q0)
    return _run(lambda q, v, a: _verlet_step(q, v, a, dt, accel), q0, v0, a0, dt, nsteps,
                every, callback, progress=progress, where="verlet")


def _accel0(accel, q0, name="accel"):
    """accel(q0), which must be finite and of the shape of q0 (ValueError naming accel)."""
    a0 = np.asarray(accel(q0), dtype=float)
    if a0.shape != q0.shape or not np.all(np.isfinite(a0)):
        raise ValueError(f"{name}(q0) must be a finite array of the shape of q0 {q0.shape}, got "
                         f"{checks.show(a0)}")
    return a0


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
    q, v, a = _states(q=q, v=v, a=a)
    return _damped_verlet_step(q, v, a, checks.positive(dt, "dt"),
                               checks.function(accel, "accel"), checks.nonnegative(c, "c"))


def _damped_verlet_step(q, v, a, dt, accel, c):
    vh = v + 0.5 * dt * (a - c * v)
    q1 = q + dt * vh
    a1 = np.asarray(accel(q1), dtype=float)
    return q1, (vh + 0.5 * dt * a1) / (1.0 + 0.5 * dt * c), a1


def relax(q0, accel, dt, c, vtol=1e-9, check_every=1000, max_steps=MAX_STEPS, v0=None,
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
    dt, c = checks.positive(dt, "dt"), checks.nonnegative(c, "c")
    vtol = checks.positive(vtol, "vtol")
    check_every = checks.integer(check_every, "check_every", low=1)
    max_steps = checks.integer(max_steps, "max_steps", low=1)
    callback_every = checks.integer(callback_every, "callback_every", low=1)
    _optional(callback=callback)
    (q,) = _states(q0=q0)
    v = np.zeros_like(q) if v0 is None else _states(q0=q, v0=v0)[1]
    q, v = q.copy(), v.copy()
    a = _accel0(checks.function(accel, "accel"), q)
    n = 0
    while True:
        for _ in range(check_every):
            q, v, a = _damped_verlet_step(q, v, a, dt, accel, c)
            n += 1
            if callback is not None and n % callback_every == 0:
                callback(n, q, v)
        vmax = float(np.abs(v).max())
        if not np.isfinite(vmax):
            raise RelaxationError("dynamic relaxation diverged", where="relax",
                                  reason="diverged", step=n, time=n * dt)
        if vmax <= vtol:
            return q, n, vmax
        if n >= max_steps:
            raise RelaxationError(f"dynamic relaxation not at rest after {n} steps: max|v| = "
                                  f"{vmax:.3e} > vtol = {vtol:.1e}", where="relax",
                                  reason="not settled", step=n, time=n * dt)


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
    q, vh = _states(q=q, vh=vh)
    dt = checks.positive(dt, "dt")
    checks.function(accel, "accel")
    vh1 = vh + dt * np.asarray(accel(q, vh), dtype=float)
    return q + dt * vh1, vh1


def observe(step, state, nsteps, fn, stop=None, max_steps=MAX_STEPS, progress=None):
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
    max_steps : int
        Cap on ``nsteps`` (:data:`MAX_STEPS`): more is a ValueError up front.
    progress : callable, optional
        ``progress(n, nsteps)`` after every step.

    Returns
    -------
    values : ndarray, shape (n + 1, ...)
        ``fn`` at steps 0..n, with n = nsteps unless ``stop`` ended the run.
    state : tuple
        The state after step n.

    Raises
    ------
    NonFiniteState
        (a ``SolveError`` and ``FloatingPointError``) if a recorded value is not
        finite (names the step).

    Examples
    --------
    >>> acc = lambda q: -q
    >>> st = (np.ones(1), np.zeros(1), -np.ones(1))
    >>> vals, st = observe(lambda q, v, a: verlet_step(q, v, a, 0.1, acc), st, 5,
    ...                    lambda q, v, a: q[0], stop=lambda x: x < 0.96)
    >>> len(vals), round(float(vals[-1]), 6)        # stopped after step 3
    (4, 0.955299)
    """
    checks.function(step, "step")
    checks.function(fn, "fn")
    _optional(stop=stop, progress=progress)
    nsteps = _step_cap(nsteps, max_steps)
    if isinstance(state, (str, bytes)) or not isinstance(state, (tuple, list)):
        raise ValueError(f"state must be a tuple of arrays, got {checks.show(state)}")
    state = tuple(checks.array(x, f"state[{i}]") for i, x in enumerate(state))
    vals = [np.asarray(fn(*state), dtype=float)]
    for n in range(1, nsteps + 1):
        state = tuple(step(*state))
        val = np.asarray(fn(*state), dtype=float)
        if not np.all(np.isfinite(val)):
            raise NonFiniteState("the observed value became non-finite", where="observe",
                                 reason="diverged", step=n)
        if progress is not None:
            progress(n, nsteps)
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
    if not (type(v) is np.ndarray and v.dtype == np.float64 and np.isfinite(v).all()):
        v = checks.array(v, "v")                 # the cheap test first (a hot path)
    if v.ndim not in (1, 2) or v.shape[-1] == 0:
        raise ValueError(f"v must have shape (n,) or (m, n), got shape {v.shape}")
    n = v.shape[-1]
    if (type(mass) is np.ndarray and mass.dtype == np.float64 and mass.shape == (n,)
            and np.isfinite(mass).all() and (mass > 0.0).all()):
        M = mass                                 # a valid lumped mass as it is
    else:
        M = check_mass(mass, n, of="v")
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


def check_mass(mass, n, name="mass", of="the state"):
    """``mass`` as a lumped (n,) array, a dense (n, n) array or a CSR matrix, else a ValueError.

    Entries must be finite; a lumped mass must be positive entry by entry (a dense or
    sparse one is not checked for definiteness here: :func:`initial_acceleration` is).
    ``of`` names what has the n entries, for the message.

    >>> check_mass([1.0, 0.0], 2)
    Traceback (most recent call last):
        ...
    ValueError: mass must be > 0 entry by entry, got 0.0 at index 1
    """
    n = checks.integer(n, "n", low=1)
    if sp.issparse(mass):
        if mass.shape != (n, n):
            raise ValueError(f"{name} must have shape ({n}, {n}) (n from {of}), got shape "
                             f"{mass.shape}")
        checks.matrix(mass, name, sparse=True)
        return mass.tocsr()
    m = checks.array(mass, name)
    if m.shape not in ((n,), (n, n)):
        raise ValueError(f"{name} must have shape ({n},) or ({n}, {n}) (n from {of}), got "
                         f"shape {m.shape}")
    if m.ndim == 1:
        checks.array(m, name, low=0.0, include_low=False)
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
    (u, v, a), dt, M = _implicit_args(dict(u=u, v=v, a=a), dt, force, mass, tol, maxiter,
                                      predictor, line_search, max_halvings)
    beta, gamma = _newmark_parameters(beta, gamma)
    return _newmark_core(u, v, a, dt, force, M, beta, gamma, tol, maxiter, predictor,
                         line_search, max_halvings)[0]


def _implicit_args(states, dt, force, mass, tol, maxiter, predictor, line_search, max_halvings):
    """The checked 1-D states (one length), dt and mass of an implicit step or run."""
    arrays = _states(vector=True, **states)
    checks.function(force, "force")
    _newton_options(tol, maxiter, predictor, line_search, max_halvings)
    return arrays, checks.positive(dt, "dt"), check_mass(mass, arrays[0].size,
                                                          of=next(iter(states)))


def _newmark_parameters(beta, gamma):
    return checks.positive(beta, "beta"), checks.real(gamma, "gamma")


def _implicit_run(advance, u0, v0, a0, dt, nsteps, every, callback, progress, where):
    """:func:`_run` of an implicit ``advance(u, v, a) -> ((u, v, a), stats)``.

    The Newton statistics are summed into the trajectory's ``info`` and a failed
    step's :class:`NewtonFailure` is located at its step and time.
    """
    info = {"iterations": 0, "backtracks": 0, "halved_steps": 0, "substeps": 0}
    count = [0]

    def step(u, v, a):
        count[0] += 1
        try:
            out, st = advance(u, v, a)
        except NewtonFailure as err:
            raise err.located(count[0], count[0] * dt) from None
        info["iterations"] += st["iterations"]
        info["backtracks"] += st["backtracks"]
        info["substeps"] += st["substeps"]
        info["halved_steps"] += int(st["substeps"] > 1)
        return out

    return _run(step, u0, v0, a0, dt, nsteps, every, callback, info, progress, where)


def _newmark_core(u, v, a, dt, force, M, beta, gamma, tol, maxiter, predictor,
                  line_search, max_halvings):
    tiny = np.finfo(float).tiny
    stats = {"iterations": 0, "backtracks": 0}

    def one(state, h):
        u0, v0, a0 = state
        cb = 1.0 / (beta * h * h)

        def fun(x):
            a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
            f, K = force(x)
            f = _force_value(f, x)
            Ma = _mass_apply(M, a1)
            scale = max(float(np.abs(f).max()), float(np.abs(Ma).max()), tiny)
            # the tangent is built only when Newton takes a step from x (lazily)
            return Ma + f, lambda: _tangent(K, M, cb), scale

        x0 = _predict(predictor, u0, v0, a0, h)
        x, info = newton_solve(fun, x0, tol, maxiter, line_search, where="Newmark Newton")
        stats["iterations"] += info.iterations
        stats["backtracks"] += info.backtracks
        a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
        return x, v0 + h * ((1.0 - gamma) * a0 + gamma * a1), a1

    state, nsub = halving(one, (u, v, a), dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def initial_acceleration(force, M, u0, name="M"):
    """a_0 solving M a_0 = -f(u_0) (lumped or consistent M), and f(u_0).

    ``force(u0)`` must give a finite f of the length of ``u0`` and a dense or sparse
    ``M`` must be symmetric positive definite (a ValueError naming ``force`` / ``M``).

    >>> initial_acceleration(lambda u: (2 * u, None), np.array([2.0]), np.ones(1))
    (array([-1.]), array([2.]))
    """
    checks.function(force, "force")
    (u0,) = _states(vector=True, u0=u0)
    return _initial_acceleration(force, check_mass(M, u0.size, name, "u0"), u0, name)


def _initial_acceleration(force, M, u0, name="mass"):
    f0 = np.asarray(force(u0)[0], dtype=float)
    if f0.shape != u0.shape or not np.all(np.isfinite(f0)):
        raise ValueError(f"force(u0) must give a finite f of shape {u0.shape}, got "
                         f"{checks.show(f0)}")
    if M.ndim == 1:
        return -f0 / M, f0
    Md = M.toarray() if sp.issparse(M) else M
    try:
        return -sla.solve(Md, f0, assume_a="pos"), f0
    except (sla.LinAlgError, ValueError):
        raise ValueError(f"{name} must be symmetric positive definite (its Cholesky "
                         "factorisation failed)") from None


def newmark(u0, v0, dt, nsteps, force, mass, beta=0.25, gamma=0.5, every=1, callback=None,
            tol=1e-10, maxiter=40, predictor="displacement", line_search="fallback", max_halvings=0,
            max_steps=MAX_STEPS, progress=None):
    """Run :func:`newmark_step` for ``nsteps`` steps (sampling, ``max_steps`` and ``progress``
    as in :func:`verlet`).

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
    dt, nsteps, every = _run_options(dt, nsteps, every, callback, max_steps, progress)
    (u0, v0), dt, M = _implicit_args(dict(u0=u0, v0=v0), dt, force, mass, tol, maxiter,
                                     predictor, line_search, max_halvings)
    beta, gamma = _newmark_parameters(beta, gamma)
    a0 = _initial_acceleration(force, M, u0)[0]
    return _implicit_run(lambda u, v, a: _newmark_core(u, v, a, dt, force, M, beta, gamma, tol,
                                                       maxiter, predictor, line_search,
                                                       max_halvings),
                         u0, v0, a0, dt, nsteps, every, callback, progress, "newmark")


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
    r = checks.real(rho_inf, "rho_inf", 0.0, 1.0)
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
    al = checks.real(alpha, "alpha", -1.0 / 3.0 - 1e-15, 0.0)
    return 0.0, -al, 0.25 * (1.0 - al) ** 2, 0.5 - al


def _check_params(params):
    """(alpha_m, alpha_f, beta, gamma) with beta > 0, alpha_m < 1, alpha_f < 1."""
    am, af, beta, gamma = (float(p) for p in checks.vector(params, "params", 4))
    if not (beta > 0 and am < 1 and af < 1):
        raise ValueError(f"params = (alpha_m, alpha_f, beta, gamma) need beta > 0, alpha_m < 1 "
                         f"and alpha_f < 1, got {checks.show(np.array([am, af, beta, gamma]))}")
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
    (u, v, a, f), dt, M = _implicit_args(dict(u=u, v=v, a=a, f=f), dt, force, mass, tol,
                                         maxiter, predictor, line_search, max_halvings)
    return _ga_core(u, v, a, f, dt, force, M, _check_params(params), tol, maxiter, predictor,
                    line_search, max_halvings)[0]


def _ga_core(u, v, a, f, dt, force, M, params, tol, maxiter, predictor, line_search,
             max_halvings):
    am, af, beta, gamma = params
    tiny = np.finfo(float).tiny
    stats = {"iterations": 0, "backtracks": 0}

    def one(state, h):
        u0, v0, a0, f0 = state
        cb = 1.0 / (beta * h * h)
        out = {}

        def fun(x):
            a1 = cb * (x - u0 - h * v0) - (0.5 / beta - 1.0) * a0
            f1, K = force(x)
            f1 = _force_value(f1, x)
            out["x"], out["f"] = x, f1
            Ma = _mass_apply(M, (1.0 - am) * a1 + am * a0)
            fa = (1.0 - af) * f1 + af * f0
            scale = max(float(np.abs(fa).max()), float(np.abs(Ma).max()), tiny)
            # the tangent is built only when Newton takes a step from x (lazily)
            return Ma + fa, lambda: _tangent(_scaled(1.0 - af, K), M, (1.0 - am) * cb), scale

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

    state, nsub = halving(one, (u, v, a, f), dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def generalized_alpha(u0, v0, dt, nsteps, force, mass, params, every=1, callback=None,
                      tol=1e-10, maxiter=40, predictor="displacement", line_search="fallback",
                      max_halvings=0, max_steps=MAX_STEPS, progress=None):
    """Run :func:`generalized_alpha_step` for ``nsteps`` steps (sampling, ``max_steps`` and
    ``progress`` as in :func:`verlet`).

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
    dt, nsteps, every = _run_options(dt, nsteps, every, callback, max_steps, progress)
    (u0, v0), dt, M = _implicit_args(dict(u0=u0, v0=v0), dt, force, mass, tol, maxiter,
                                     predictor, line_search, max_halvings)
    params = _check_params(params)
    a0, f0 = _initial_acceleration(force, M, u0)
    state = {"f": f0}

    def advance(u, v, a):
        (u1, v1, a1, state["f"]), st = _ga_core(u, v, a, state["f"], dt, force, M, params, tol,
                                                maxiter, predictor, line_search, max_halvings)
        return (u1, v1, a1), st

    return _implicit_run(advance, u0, v0, a0, dt, nsteps, every, callback, progress,
                         "generalized_alpha")


def discrete_gradient_correction(energy0, energy1, g_mid, dq, mass=None):
    """Coefficient c of the midpoint discrete gradient in the metric ``mass`` (Gonzalez: identity).

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
    energy0, energy1 = checks.real(energy0, "energy0"), checks.real(energy1, "energy1")
    g_mid, dq = _states(vector=True, g_mid=g_mid, dq=dq)
    return _dg_correction(energy0, energy1, g_mid, dq, None if mass is None
                          else check_mass(mass, dq.size, of="dq"))


def _dg_correction(energy0, energy1, g_mid, dq, M):
    Mdq = dq.copy() if M is None else _mass_apply(M, dq)
    d = float(dq @ Mdq)
    gd = float(g_mid @ dq)
    num = (float(energy1) - float(energy0)) - gd
    noise = 64.0 * _EPS * (abs(float(energy0)) + abs(float(energy1)) + abs(gd))
    if not (d > 0.0) or abs(num) <= noise:
        return 0.0, Mdq
    return num / d, Mdq


def discrete_gradient_step(q, v, dt, energy, force, mass, damping=None, tol=1e-10, maxiter=40,
                           predictor="displacement", line_search="fallback", max_halvings=0,
                           gradient=None):
    """One energy-conserving step for M q'' + grad Pi(q) = 0 (midpoint discrete gradient, metric M).

    The scheme (Gonzalez 1996 in the metric M, McLachlan, Quispel and Robidoux
    1999; Simo and Tarnow 1992 for its energy-momentum ancestor) is

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
    * momentum is *not* conserved: the correction c M dq has a component along
      a rigid translation or rotation, so linear and angular momentum drift even
      for a translation- or rotation-invariant Pi, in this metric and in the
      Euclidean one (the tests measure the drift on a free two-body spring and a
      Kepler orbit).  Conserving them as well needs the discrete gradient taken
      in invariant coordinates (distances, stretches), as in Simo and Tarnow's
      energy-momentum method and Gonzalez (1996).

    Gonzalez's midpoint discrete gradient is Euclidean; taking the correction in the
    metric M is the generalisation to an arbitrary symmetric positive definite
    metric in the discrete-gradient family of McLachlan, Quispel and Robidoux (1999).
    The energy balance above holds by construction for *any* ``energy``/``force``
    pair, even an inconsistent one (a wrong gradient conserves H just as well while
    the motion goes wrong): conservation checks the Newton solve, not the model.

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
        ``damping(q, v) -> (f_d, C)``, C = df_d/dv (sparse, dense, or a
        :class:`lib.kernels.banded.SymmetricBanded`, which keeps a banded tangent banded:
        :func:`lib.damping.banded_damping_matrix`).
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
    (q, v), dt, M = _dg_args(dict(q=q, v=v), dt, energy, force, mass, damping, tol, maxiter,
                             predictor, line_search, max_halvings, gradient)
    return _dg_core(q, v, dt, energy, force, M, damping, tol, maxiter, predictor,
                    line_search, max_halvings, gradient)[0]


def _dg_args(states, dt, energy, force, mass, damping, tol, maxiter, predictor, line_search,
             max_halvings, gradient):
    arrays, dt, M = _implicit_args(states, dt, force, mass, tol, maxiter, predictor,
                                   line_search, max_halvings)
    checks.function(energy, "energy")
    _optional(damping=damping, gradient=gradient)
    if predictor == "acceleration" and M.ndim != 1:
        raise ValueError("predictor='acceleration' needs a lumped (vector) mass")
    return arrays, dt, M


def _dg_core(q, v, dt, energy, force, M, damping, tol, maxiter, predictor, line_search,
             max_halvings, gradient=None):
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
            g = _force_value(g, qm)
            c, Mdq = _dg_correction(E0, float(energy(x)), g, dq, M)
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
                # a banded C joins a banded tangent (and its rank-one term) unexpanded
                J = J + (C / h if sp.issparse(C) or isinstance(C, SymmetricBanded)
                         else np.asarray(C, dtype=float) / h)
                if sp.issparse(J):
                    J = J.tocsc()
            scale = max(float(np.abs(gbar).max()), float(np.abs(inertia).max()), tiny)
            return R, J, scale

        if predictor == "acceleration":
            a0 = -np.asarray(force(q0)[0], dtype=float) / M
            x0 = q0 + h * v0 + 0.5 * h * h * a0
        else:
            x0 = _predict(predictor, q0, v0, None, h)
        with np.errstate(over="ignore", invalid="ignore"):    # a trial that overflows is a
            x, info = newton_solve(fun, x0, tol, maxiter, line_search,   # failed trial (Newton)
                                   where="discrete-gradient Newton")
        stats["iterations"] += info.iterations
        stats["backtracks"] += info.backtracks
        return x, 2.0 * (x - q0) / h - v0

    state, nsub = halving(one, (q, v), dt, max_halvings)
    stats["substeps"] = nsub
    return state, stats


def discrete_gradient(q0, v0, dt, nsteps, energy, force, mass, damping=None, every=1,
                      callback=None, tol=1e-10, maxiter=40, predictor="displacement",
                      line_search="fallback", max_halvings=0, gradient=None,
                      max_steps=MAX_STEPS, progress=None):
    """Run :func:`discrete_gradient_step` for ``nsteps`` steps (sampling, ``max_steps`` and
    ``progress`` as in :func:`verlet`).

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
    dt, nsteps, every = _run_options(dt, nsteps, every, callback, max_steps, progress)
    (q0, v0), dt, M = _dg_args(dict(q0=q0, v0=v0), dt, energy, force, mass, damping, tol,
                               maxiter, predictor, line_search, max_halvings, gradient)

    def advance(q, v, a):
        (q1, v1), st = _dg_core(q, v, dt, energy, force, M, damping, tol, maxiter, predictor,
                                line_search, max_halvings, gradient)
        return (q1, v1, (v1 - v) / dt), st

    return _implicit_run(advance, q0, v0, np.zeros_like(q0), dt, nsteps, every, callback,
                         progress, "discrete_gradient")


# ---------------------------------------------------------------------------
# stability and accuracy: step limits, amplification matrices, period errors
# ---------------------------------------------------------------------------
def critical_step(omega_max):
    """Stability limit 2 / omega_max of Verlet and central differences.

    >>> critical_step(4.0)
    0.5
    """
    return 2.0 / checks.positive(omega_max, "omega_max")


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
    # a number or an array each (checks.array's range check trips on 0-d arrays)
    w = (np.asarray(checks.positive(omega, "omega")) if np.ndim(omega) == 0 else
         checks.array(omega, "omega", low=0.0, include_low=False, nonempty=True))
    z = (np.asarray(checks.nonnegative(zeta, "zeta")) if np.ndim(zeta) == 0 else
         checks.array(zeta, "zeta", low=0.0))
    try:
        w, z = np.broadcast_arrays(w, z)
    except ValueError:
        raise ValueError(f"zeta must be a number or broadcast against omega {w.shape}, got "
                         f"shape {z.shape}") from None
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
    W2 = _scaled_frequency(omega, dt) ** 2
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
    W = _scaled_frequency(omega, dt)
    z = checks.nonnegative(zeta, "zeta")
    return np.array([[1.0 - W * W, 1.0 - 2.0 * z * W], [-W * W, 1.0 - 2.0 * z * W]])


def newmark_amplification(omega, dt, beta=0.25, gamma=0.5):
    """Amplification matrix A of Newmark on u'' + omega^2 u = 0, state (u, dt v).

    From (1 + beta W^2) u_1 = (1 - (1/2 - beta) W^2) u + dt v and
    dt v_1 = dt v - W^2 [(1 - gamma) u + gamma u_1], W = omega dt.

    >>> A = newmark_amplification(1.0, 0.1)
    >>> round(float(abs(np.linalg.eigvals(A)).max()), 12)   # trapezoidal rule: |lambda| = 1
    1.0
    """
    W2 = _scaled_frequency(omega, dt) ** 2
    beta, gamma = checks.nonnegative(beta, "beta"), checks.real(gamma, "gamma")
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
    return float(np.abs(np.angle(lam)).max() / float(dt))


def newmark_period_error(omega, dt):
    """Leading relative period elongation of the trapezoidal rule, (omega dt)^2 / 12.

    >>> newmark_period_error(1.0, 0.6)
    0.03
    """
    return _scaled_frequency(omega, dt) ** 2 / 12.0


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
    W2 = _scaled_frequency(omega, dt) ** 2
    D = (1.0 - am) + beta * W2 * (1.0 - af)
    c = -np.array([W2, W2 * (1.0 - af), am + W2 * (1.0 - af) * (0.5 - beta)]) / D
    return np.array([
        np.array([1.0, 1.0, 0.5 - beta]) + beta * c,
        np.array([0.0, 1.0, 1.0 - gamma]) + gamma * c,
        c,
    ])


def _scaled_frequency(omega, dt):
    """W = omega dt of one mode (omega >= 0, dt > 0; ValueError naming them)."""
    return checks.nonnegative(omega, "omega") * checks.positive(dt, "dt")
