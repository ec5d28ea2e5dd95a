"""Model-independent time integrators for M u'' + f(u) = 0.

Every function works on flat state arrays and knows nothing about the model:
the model enters through a callable.

* explicit:  ``accel(u) -> a``  (a = -M^{-1} grad Pi(u) + external, any shape
  matching ``u``)
* implicit:  ``force(u) -> (f, K)`` with f = internal - external force
  (``grad Pi``) and K its tangent (``scipy.sparse`` matrix or ndarray); the
  residual is R = M a + f.

Public functions
----------------
verlet_step(q, v, a, dt, accel)                    one velocity-Verlet step
verlet(q0, v0, dt, nsteps, accel, every, callback)  a run, sampled every ``every`` steps
central_difference_step(u, v, a, dt, accel)        explicit central difference
damped_verlet_step(q, v, a, dt, accel, c)          Verlet with viscous damping -c v
relax(q0, accel, dt, c, ...)                        damped dynamic relaxation to rest
newmark_step(u, v, a, dt, force, mass, ...)         one implicit Newmark-beta step (Newton)
newmark(u0, v0, dt, nsteps, force, mass, ...)       a Newmark run, sampled like ``verlet``
critical_step(omega_max)                            Verlet / central-difference limit 2/omega_max
newmark_amplification(omega, dt, beta, gamma)       the 2x2 amplification matrix
newmark_frequency(omega, dt, beta, gamma)           numerical frequency of Newmark
newmark_period_error(omega, dt)                     leading relative period error (omega dt)^2/12

Added by the integration chapter:

observe(step, state, nsteps, fn, stop)              march a step, record fn(state) every step
kinetic_energy(mass, v)                             v^T M v / 2 (lumped, dense or sparse mass)
verlet_amplification(omega, dt)                     Verlet's 2x2 amplification matrix
generalized_alpha_parameters(rho_inf)               Chung-Hulbert (alpha_m, alpha_f, beta, gamma)
hht_parameters(alpha)                               HHT-alpha in the same notation
generalized_alpha_step(u, v, a, f, dt, force, ...)  one generalised-alpha step (Newton)
generalized_alpha(u0, v0, dt, nsteps, force, ...)   a generalised-alpha run
generalized_alpha_amplification(omega, dt, params)  its 3x3 amplification matrix

References: Newmark (1959); Hairer, Lubich and Wanner, *Geometric numerical
integration* (2006) for the Verlet method.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import splu

__all__ = [
    "Trajectory",
    "NewtonError",
    "RelaxationError",
    "verlet_step",
    "verlet",
    "central_difference_step",
    "damped_verlet_step",
    "relax",
    "newmark_step",
    "newmark",
    "critical_step",
    "newmark_amplification",
    "newmark_frequency",
    "newmark_period_error",
]


class NewtonError(RuntimeError):
    """Newton's method inside an implicit step did not converge."""


class RelaxationError(RuntimeError):
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
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    steps: np.ndarray


def _check_dt(dt):
    dt = float(dt)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number, got {dt!r}")
    return dt


def _check_int(n, name, low=0):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {n!r}")
    return int(n)


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


def _run(step, q0, v0, dt, nsteps, every, callback, a0):
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
    return Trajectory(np.array(ts), np.array(qs), np.array(vs), np.array(as_), np.array(ks))


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


def _mass_apply(mass, x):
    if mass.ndim == 1:
        return mass * x
    return mass @ x


def _check_mass(mass, n):
    if sp.issparse(mass):
        if mass.shape != (n, n):
            raise ValueError(f"mass must be ({n},) or ({n}, {n}), got {mass.shape}")
        return mass.tocsr()
    m = np.asarray(mass, dtype=float)
    if m.shape not in ((n,), (n, n)):
        raise ValueError(f"mass must be ({n},) or ({n}, {n}), got {m.shape}")
    return m


def newmark_step(u, v, a, dt, force, mass, beta=0.25, gamma=0.5, tol=1e-10, maxiter=40):
    """One implicit Newmark-beta step, solved by Newton's method.

        u_1 = u + dt v + dt^2 [(1/2 - beta) a + beta a_1],
        v_1 = v + dt [(1 - gamma) a + gamma a_1],

    with a_1 fixed by the residual R(u_1) = M a_1 + f(u_1) = 0.  Newton
    starts from u_1 = u and iterates u_1 <- u_1 - (K + M/(beta dt^2))^{-1} R
    (sparse LU when K is sparse, a dense solve otherwise) until
    ||R||_inf <= tol max(||f||_inf, ||M a_1||_inf), or until the Newton correction
    is at round-off in u (8 eps ||u_1||_inf), where no further iteration can help.

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
        Newton iterations allowed.

    Returns
    -------
    (u, v, a) : tuple of ndarray

    Raises
    ------
    NewtonError
        After ``maxiter`` iterations without convergence, or a non-finite
        residual (names the iterations and the residual reached).

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
    dt = _check_dt(dt)
    if not (beta > 0):
        raise ValueError(f"beta must be > 0 for the implicit step, got {beta!r}")
    u = np.asarray(u, dtype=float)
    n = u.size
    M = _check_mass(mass, n)
    cb = 1.0 / (beta * dt * dt)
    u1 = u.copy()
    res = np.inf
    for it in range(maxiter + 1):
        a1 = cb * (u1 - u - dt * v) - (0.5 / beta - 1.0) * a
        f, K = force(u1)
        f = np.asarray(f, dtype=float)
        Ma = _mass_apply(M, a1)
        R = Ma + f
        res = float(np.abs(R).max())
        scale = max(float(np.abs(f).max()), float(np.abs(Ma).max()), np.finfo(float).tiny)
        if not np.isfinite(res):
            raise NewtonError(f"Newmark Newton: non-finite residual after {it} iterations")
        if res <= tol * scale:
            return u1, v + dt * ((1.0 - gamma) * a + gamma * a1), a1
        if it == maxiter:
            break
        if sp.issparse(K):
            Mm = sp.diags(M) if M.ndim == 1 else sp.csr_matrix(M)
            du = splu((K + cb * Mm).tocsc()).solve(R)
        else:
            Kd = np.asarray(K, dtype=float)
            Keff = Kd + cb * (np.diag(M) if M.ndim == 1 else np.asarray(
                M.toarray() if sp.issparse(M) else M))
            du = sla.solve(Keff, R)
        u1 = u1 - du
        if np.abs(du).max() <= 8 * np.finfo(float).eps * max(float(np.abs(u1).max()), 1e-300):
            # The correction is at round-off in u: no further iteration can reduce the
            # residual (a stiff model in small motion can stall just above tol).
            a1 = cb * (u1 - u - dt * v) - (0.5 / beta - 1.0) * a
            return u1, v + dt * ((1.0 - gamma) * a + gamma * a1), a1
    raise NewtonError(
        f"Newmark Newton did not converge: {maxiter} iterations, residual {res:.3e} "
        f"(relative {res / scale:.3e} > tol {tol:.1e})"
    )


def _initial_acceleration(force, M, u0):
    """a_0 solving M a_0 = -f(u_0) (lumped or consistent M), and f(u_0)."""
    f0 = np.asarray(force(u0)[0], dtype=float)
    if M.ndim == 1:
        return -f0 / M, f0
    Md = M.toarray() if sp.issparse(M) else M
    return -sla.solve(Md, f0, assume_a="pos"), f0


def newmark(u0, v0, dt, nsteps, force, mass, beta=0.25, gamma=0.5, every=1, callback=None,
            tol=1e-10, maxiter=40):
    """Run :func:`newmark_step` for ``nsteps`` steps (sampling as in :func:`verlet`).

    The initial acceleration solves M a_0 = -f(u_0).  A Newton failure is
    re-raised as :class:`NewtonError` naming the step and time.

    Examples
    --------
    >>> force = lambda u: (u, np.eye(1))
    >>> tr = newmark(np.ones(1), np.zeros(1), 0.01, 10, force, np.ones(1), every=5)
    >>> tr.t.round(2).tolist()
    [0.0, 0.05, 0.1]
    """
    u0 = np.asarray(u0, dtype=float)
    M = _check_mass(mass, u0.size)
    a0, f0 = _initial_acceleration(force, M, u0)
    state = {"n": 0}

    def step(u, v, a):
        state["n"] += 1
        try:
            return newmark_step(u, v, a, dt, force, M, beta, gamma, tol, maxiter)
        except NewtonError as err:
            n = state["n"]
            raise NewtonError(f"at step {n} (t = {n * dt:.6g}): {err}") from None

    return _run(step, u0, v0, dt, nsteps, every, callback, a0)


def critical_step(omega_max):
    """Stability limit 2 / omega_max of Verlet and central differences.

    >>> critical_step(4.0)
    0.5
    """
    w = float(omega_max)
    if not (np.isfinite(w) and w > 0):
        raise ValueError(f"omega_max must be positive, got {omega_max!r}")
    return 2.0 / w


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


# ---------------------------------------------------------------------------
# Additions of the integration chapter: run-and-observe, kinetic energy, the
# Verlet amplification matrix, and the generalised-alpha family (HHT-alpha,
# Chung-Hulbert), which contains Newmark as alpha_m = alpha_f = 0.
# ---------------------------------------------------------------------------

_EPS = np.finfo(float).eps

__all__ += [
    "observe",
    "kinetic_energy",
    "verlet_amplification",
    "generalized_alpha_parameters",
    "hht_parameters",
    "generalized_alpha_step",
    "generalized_alpha",
    "generalized_alpha_amplification",
]


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
    M = _check_mass(mass, n)
    Mv = M * v if M.ndim == 1 else (M @ v.T).T
    T = 0.5 * np.sum(v * Mv, axis=-1)
    return float(T) if v.ndim == 1 else T


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


def generalized_alpha_step(u, v, a, f, dt, force, mass, params, tol=1e-10, maxiter=40):
    """One generalised-alpha step for M u'' + f(u) = 0, solved by Newton's method.

    Newmark's kinematics

        u_1 = u + dt v + dt^2 [(1/2 - beta) a + beta a_1],
        v_1 = v + dt [(1 - gamma) a + gamma a_1],

    with the balance imposed between the two time levels,

        M [(1 - alpha_m) a_1 + alpha_m a] + (1 - alpha_f) f(u_1) + alpha_f f = 0,

    where f = f(u) is the force at the start of the step (carried in the
    state; the force interpolation of Hilber et al. 1977).  Newton starts
    from u_1 = u on the effective tangent
    (1 - alpha_f) K(u_1) + (1 - alpha_m) M / (beta dt^2).  With
    alpha_m = alpha_f = 0 this is :func:`newmark_step`.  Converged when
    ||R||_inf <= tol max(||f_alpha||_inf, ||M a_alpha||_inf), or when a Newton
    correction has fallen to round-off (|du| <= 8 eps |u_1|): small motions of a
    stiff model cannot reach a relative residual below the round-off of its
    large internal forces.

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

    Returns
    -------
    (u, v, a, f) : tuple of ndarray

    Raises
    ------
    NewtonError
        Names the iterations and the residual reached.

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
    dt = _check_dt(dt)
    am, af, beta, gamma = _check_params(params)
    u = np.asarray(u, dtype=float)
    n = u.size
    M = _check_mass(mass, n)
    f0 = np.asarray(f, dtype=float)
    cb = 1.0 / (beta * dt * dt)
    u1 = u.copy()
    res, scale, at_floor = np.inf, 1.0, False
    for it in range(maxiter + 1):
        a1 = cb * (u1 - u - dt * v) - (0.5 / beta - 1.0) * a
        f1, K = force(u1)
        f1 = np.asarray(f1, dtype=float)
        Ma = _mass_apply(M, (1.0 - am) * a1 + am * a)
        fa = (1.0 - af) * f1 + af * f0
        R = Ma + fa
        res = float(np.abs(R).max())
        scale = max(float(np.abs(fa).max()), float(np.abs(Ma).max()), np.finfo(float).tiny)
        if not np.isfinite(res):
            raise NewtonError(f"generalised-alpha Newton: non-finite residual after {it} iterations")
        if res <= tol * scale or at_floor:
            return u1, v + dt * ((1.0 - gamma) * a + gamma * a1), a1, f1
        if it == maxiter:
            break
        cm = (1.0 - am) * cb
        if sp.issparse(K):
            Mm = sp.diags(M) if M.ndim == 1 else sp.csr_matrix(M)
            du = splu(((1.0 - af) * K + cm * Mm).tocsc()).solve(R)
        else:
            Md = np.diag(M) if M.ndim == 1 else (M.toarray() if sp.issparse(M) else M)
            du = sla.solve((1.0 - af) * np.asarray(K, dtype=float) + cm * Md, R)
        u1 = u1 - du
        # a correction at round-off level: the residual sits at its floor (forces that
        # are differences of large stiff terms cannot meet a relative tol when small)
        at_floor = float(np.abs(du).max()) <= 8 * _EPS * max(float(np.abs(u1).max()), 1e-300)
    raise NewtonError(
        f"generalised-alpha Newton did not converge: {maxiter} iterations, residual {res:.3e} "
        f"(relative {res / scale:.3e} > tol {tol:.1e})"
    )


def generalized_alpha(u0, v0, dt, nsteps, force, mass, params, every=1, callback=None,
                      tol=1e-10, maxiter=40):
    """Run :func:`generalized_alpha_step` for ``nsteps`` steps (sampling as in :func:`verlet`).

    The initial acceleration solves M a_0 = -f(u_0).  A Newton failure is
    re-raised as :class:`NewtonError` naming the step and time.

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
    M = _check_mass(mass, u0.size)
    a0, f0 = _initial_acceleration(force, M, u0)
    state = {"n": 0, "f": f0}

    def step(u, v, a):
        state["n"] += 1
        try:
            u1, v1, a1, state["f"] = generalized_alpha_step(u, v, a, state["f"], dt, force, M,
                                                            params, tol, maxiter)
        except NewtonError as err:
            n = state["n"]
            raise NewtonError(f"at step {n} (t = {n * dt:.6g}): {err}") from None
        return u1, v1, a1

    return _run(step, u0, v0, dt, nsteps, every, callback, a0)


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
