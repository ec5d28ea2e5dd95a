"""The work-precision ladder: wall-clock cost against error for a scheme on a ladder of steps.

Model-independent (the model enters through callables, as in :mod:`lib.integrate`);
shared by the energy chapter's bill and ``benchmarks/energy_bill.py``.

WorkPoint, work_precision(scheme, q0, v0, dts, horizon, fn, reference, ...)
                                    time a scheme on a ladder of steps, error vs a reference
ToleranceStep, step_for_tolerance(points, tol)
                                    the largest step meeting a tolerance, its cost per unit time
DenseReference, dop853_reference(fun, t_span, y0, components, rtol, atol)
                                    solve_ivp's DOP853 dense solution, kept for a few components
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853

from ..core import checks
from ..core.errors import SolveError
from ..integrate import (MAX_STEPS, NewtonFailure, check_mass, discrete_gradient,
                         generalized_alpha, initial_acceleration, leapfrog_damped_step, newmark,
                         observe, verlet_step)

__all__ = ["WorkPoint", "ToleranceStep", "work_precision", "step_for_tolerance",
           "DenseReference", "dop853_reference"]

_SCHEMES = ("verlet", "newmark", "generalized-alpha", "discrete-gradient")


@dataclass(frozen=True)
class WorkPoint:
    """One run of :func:`work_precision`: a scheme at one step over the horizon.

    Attributes
    ----------
    dt : float
        The step.
    steps : int
        Steps taken, ``round(horizon / dt)``.
    seconds : float
        Wall-clock time of the run (``time.perf_counter``; machine-dependent).
    error : float
        max_n |fn(q_n) - reference(t_n)| (Euclidean norm over the observable),
        ``nan`` if the run failed.
    failure : Exception or None
        The :class:`lib.integrate.NewtonFailure` (or ``FloatingPointError``) that stopped the
        run, if any (a NewtonFailure names the step and time).
    """

    dt: float
    steps: int
    seconds: float
    error: float
    failure: Exception | None = None

    @property
    def ok(self):
        """True if the run finished."""
        return self.failure is None


@dataclass(frozen=True)
class ToleranceStep:
    """The step a scheme needs for a tolerance, from :func:`step_for_tolerance`.

    Attributes
    ----------
    dt : float
        Largest step of the ladder at which this and every finer rung meet the
        tolerance; if none does, extrapolated from the two finest rungs.
    measured : bool
        False if ``dt`` was extrapolated.
    cost : float
        Wall-clock seconds per unit of simulated time at ``dt`` (the run's
        own time if measured, else the median cost per step over ``dt``).
    order : float
        Slope p of log(error) against log(dt) between the two finest rungs.
    """

    dt: float
    measured: bool
    cost: float
    order: float


def work_precision(scheme, q0, v0, dts, horizon, fn, reference, *, accel=None, force=None,
                   mass=None, energy=None, gradient=None, params=None, damping=None,
                   tol=1e-10, maxiter=40, stop_below=None, max_steps=MAX_STEPS, progress=None):
    """Time one scheme on a ladder of steps and measure its error against a reference.

    For each step ``dt`` in ``dts`` the scheme runs from (q0, v0) over
    n = round(horizon / dt) steps, recording the observable ``fn(q)`` after
    every step; the error is

        e(dt) = max_{0 <= k <= n, k dt <= horizon} || fn(q_k) - reference(k dt) ||_2 ,

    and the wall-clock time of the run is kept (cost per unit simulated time
    = seconds / (n dt)).  An implicit rung is one call of the run function
    (:func:`lib.integrate.newmark`, :func:`~lib.integrate.generalized_alpha`,
    :func:`~lib.integrate.discrete_gradient`: arguments checked once, not at every step),
    the observable taken by its callback.  A run whose Newton solve fails (:class:`lib.integrate.NewtonFailure`)
    or whose observable overflows is recorded with its failure, not raised, so
    a ladder can reach steps at which a scheme breaks down.  This is the
    work-precision measurement of Hairer and Wanner, *Solving ODEs II* (1996),
    sec. IV.10, for second-order systems M q'' + grad Pi(q) = 0.

    Parameters
    ----------
    scheme : {"verlet", "newmark", "generalized-alpha", "discrete-gradient"}
        :func:`lib.integrate.verlet_step` (needs ``accel``), :func:`lib.integrate.newmark_step`
        (trapezoidal; ``force``, ``mass``), :func:`lib.integrate.generalized_alpha_step`
        (``force``, ``mass``, ``params``) or :func:`lib.integrate.discrete_gradient_step`
        (``energy``, ``force``, ``mass``, optional ``gradient``).
    q0, v0 : ndarray, shape (n,)
        Initial state.
    dts : sequence of float
        The ladder of steps, run in the order given.  A step that does not divide the
        horizon ends the run at n dt within dt/2 of it; only the samples at or before
        the horizon are compared (so a reference computed up to the horizon is never
        extrapolated).  Steps horizon / n keep every rung on the same window.
    horizon : float
        Simulated time of each run.
    fn : callable
        ``fn(q) -> float or ndarray``, the observable (e.g. the tip position).
    reference : callable
        ``reference(t) -> ndarray, shape (len(t), k)`` (or (len(t),)), the
        observable of the exact solution at the times t (e.g. a dense DOP853
        solution).
    accel, force, mass, energy, gradient : callables / arrays
        The model, as for the step functions.
    params : tuple, optional
        Generalised-alpha parameters (:func:`lib.integrate.generalized_alpha_parameters`).
    damping : callable, optional
        ``damping(q, v) -> (f_d, C)``, a viscous force (as for
        :func:`lib.integrate.discrete_gradient_step`, which takes it at the midpoint).
        With ``"verlet"`` (lumped ``mass`` needed) the run is the leapfrog
        :func:`lib.integrate.leapfrog_damped_step` with the damping force lagged half a
        step, a(q_n, v_{n-1/2}) = accel(q_n) - f_d(q_n, v_{n-1/2}) / M, started with
        v_{-1/2} = v0 - dt/2 a(q0, v0); it is first order in the damping term and its
        stability limit is :func:`lib.integrate.damped_critical_step`.  Newmark and
        generalised-alpha take no damping here (a ValueError).
    tol, maxiter : float, int
        Newton tolerance and iteration budget of the implicit schemes.
    stop_below : float, optional
        Stop the ladder after the first finished run with error <= stop_below
        (e.g. halving an explicit step only until it is accurate enough).
    max_steps : int
        Cap on the steps of one rung (:data:`lib.integrate.MAX_STEPS`): a rung with more
        is refused before the ladder starts.
    progress : callable, optional
        ``progress(n, nsteps)`` after every step of every rung.

    Returns
    -------
    list of WorkPoint
        One per run, in the order run.

    Raises
    ------
    ValueError
        Unknown ``scheme``, a non-positive step or horizon, a step longer than
        the horizon, a rung of more than ``max_steps`` steps, or a callable the
        scheme needs left out (each named).

    Examples
    --------
    >>> pts = work_precision("newmark", np.ones(1), np.zeros(1), [0.2, 0.1], 2.0,
    ...                      lambda q: q, lambda t: np.cos(t)[:, None],
    ...                      force=lambda q: (q, np.eye(1)), mass=np.ones(1))
    >>> [p.steps for p in pts], round(pts[0].error / pts[1].error, 1)   # second order
    ([10, 20], 4.0)
    """
    checks.choice(scheme, "scheme", _SCHEMES)
    horizon = checks.positive(horizon, "horizon")
    dts = [float(d) for d in checks.array(np.atleast_1d(dts) if np.ndim(dts) == 0 else dts,
                                          "dts", shape=(None,), nonempty=True)]
    if not all(0 < d <= horizon for d in dts):
        raise ValueError(f"dts must be positive steps no longer than the horizon {horizon:g}, "
                         f"got {checks.show(np.array(dts))}")
    max_steps = checks.integer(max_steps, "max_steps", low=1)
    if max(round(horizon / d) for d in dts) > max_steps:
        raise ValueError(f"dts: the finest step {min(dts):g} takes {round(horizon / min(dts))} "
                         f"steps over the horizon {horizon:g}, more than max_steps = {max_steps}")
    checks.function(fn, "fn")
    checks.function(reference, "reference")
    for name, f in (("accel", accel), ("force", force), ("energy", energy),
                    ("gradient", gradient), ("progress", progress)):
        if f is not None:
            checks.function(f, name)
    checks.nonnegative(tol, "tol")
    checks.integer(maxiter, "maxiter", low=0)
    if stop_below is not None:
        checks.positive(stop_below, "stop_below")
    needs = {"verlet": ("accel",), "newmark": ("force", "mass"),
             "generalized-alpha": ("force", "mass", "params"),
             "discrete-gradient": ("energy", "force", "mass")}[scheme]
    given = dict(accel=accel, force=force, mass=mass, energy=energy, params=params)
    for name in needs:
        if given[name] is None:
            raise ValueError(f"{name} is required for scheme {scheme!r}")
    q0 = checks.vector(q0, "q0", nonempty=True)
    v0 = checks.vector(v0, "v0", q0.size)
    if params is not None:
        params = tuple(checks.vector(params, "params", 4))
    if damping is not None:
        checks.function(damping, "damping")
        if scheme in ("newmark", "generalized-alpha"):
            raise ValueError(f"damping is taken by 'verlet' (lagged leapfrog) and "
                             f"'discrete-gradient' only, not by scheme {scheme!r}")
        if scheme == "verlet" and mass is None:
            raise ValueError("mass is required for scheme 'verlet' with damping")
    if mass is not None:
        mass = check_mass(mass, q0.size, of="q0")
        if damping is not None and scheme == "verlet" and mass.ndim != 1:
            raise ValueError("mass must be lumped (a vector) for scheme 'verlet' with damping")
        if force is not None:          # the model's force at q0, checked before any rung
            initial_acceleration(force, mass, q0, name="mass")
    obs = lambda q, *rest: fn(q)
    import time

    points = []
    for dt in dts:
        n = round(horizon / dt)
        if scheme == "verlet" and damping is not None:
            lagged = lambda q, v: accel(q) - np.asarray(damping(q, v)[0], dtype=float) / mass
            step = lambda q, vh: leapfrog_damped_step(q, vh, dt, lagged)
            state = (q0, v0 - 0.5 * dt * lagged(q0, v0))
        elif scheme == "verlet":
            step, state = (lambda q, v, a: verlet_step(q, v, a, dt, accel)), (q0, v0, accel(q0))
        else:                   # implicit: one checked run, the observable kept per step
            run = {"newmark": lambda **kw: newmark(q0, v0, dt, n, force, mass, **kw),
                   "generalized-alpha": lambda **kw: generalized_alpha(q0, v0, dt, n, force,
                                                                       mass, params, **kw),
                   "discrete-gradient": lambda **kw: discrete_gradient(
                       q0, v0, dt, n, energy, force, mass, damping=damping, gradient=gradient,
                       **kw)}[scheme]
            kept = [np.asarray(fn(q0), dtype=float)]
            keep = lambda k, t, q, v, a: kept.append(np.asarray(fn(q), dtype=float))
            t0 = time.perf_counter()
            try:                # a failure names its step and time (the run locates it)
                run(tol=tol, maxiter=maxiter, callback=keep, max_steps=max_steps,
                    progress=progress)
            except (NewtonFailure, FloatingPointError) as err:
                points.append(WorkPoint(dt, n, time.perf_counter() - t0, float("nan"), err))
                continue
            vals = np.array(kept)
        if scheme == "verlet":
            count = [0]

            def counted(*st, _step=step):
                count[0] += 1
                return _step(*st)

            t0 = time.perf_counter()
            try:
                vals, _ = observe(counted, state, n, obs, max_steps=max_steps, progress=progress)
            except (NewtonFailure, FloatingPointError) as err:
                if isinstance(err, NewtonFailure):        # say at which step and time
                    err = err.located(count[0], count[0] * dt)
                points.append(WorkPoint(dt, n, time.perf_counter() - t0, float("nan"), err))
                continue
        seconds = time.perf_counter() - t0
        # samples past the horizon (n dt > horizon when dt does not divide it) are not
        # compared: a dense reference computed up to the horizon would be extrapolated
        k = int(np.searchsorted(dt * np.arange(n + 1), horizon * (1 + 1e-12), side="right"))
        ref = np.asarray(reference(dt * np.arange(k)), dtype=float).reshape((k,) + vals.shape[1:])
        diff = (vals[:k] - ref).reshape(k, -1)
        err = float(np.sqrt(np.sum(diff * diff, axis=1)).max())
        points.append(WorkPoint(dt, n, seconds, err))
        if stop_below is not None and err <= stop_below:
            break
    return points


def step_for_tolerance(points, tol):
    """The largest step of a ladder meeting a tolerance, and its cost per unit time.

    The located step is the largest rung dt* such that every finished rung
    with dt <= dt* has error <= tol, and the finest rung itself finished (a
    rung that meets the tolerance by accident above a failing one does not
    count; failed rungs count as not meeting it).  If no rung qualifies, the
    step is extrapolated from the two finest finished rungs with the power law
    e = C dt^p through them: dt = dt_1 (tol / e_1)^(1/p).

    Parameters
    ----------
    points : sequence of WorkPoint
        From :func:`work_precision`.
    tol : float
        The requested error.

    Returns
    -------
    ToleranceStep

    Raises
    ------
    ValueError
        If ``tol`` is not positive, or no rung qualifies and fewer than two
        finished rungs with different errors are there to extrapolate from.

    Examples
    --------
    >>> pts = [WorkPoint(d, round(1 / d), 0.01 / d, 3 * d ** 2) for d in (0.1, 0.05, 0.025)]
    >>> s = step_for_tolerance(pts, 0.01)
    >>> s.dt, s.measured, round(s.cost, 6), round(s.order, 6)
    (0.05, True, 0.2, 2.0)
    >>> round(step_for_tolerance(pts, 3e-6).dt, 6), step_for_tolerance(pts, 3e-6).measured
    (0.001, False)
    """
    tol = checks.positive(tol, "tol")
    if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
        raise ValueError(f"points must be a sequence of WorkPoint, got {checks.show(points)}")
    points = list(points)
    if not points or not all(isinstance(p, WorkPoint) for p in points):
        raise ValueError("points must be a non-empty sequence of WorkPoint (from work_precision)")
    pts = sorted(points, key=lambda p: p.dt)
    done = [p for p in pts if p.ok]
    if len(done) >= 2 and done[0].error > 0 and done[1].error > 0 \
            and done[0].error != done[1].error:
        p = np.log(done[1].error / done[0].error) / np.log(done[1].dt / done[0].dt)
    else:
        p = float("nan")
    best = None
    for pt in pts:                      # finest first: stop at the first rung that misses
        if not pt.ok or pt.error > tol:
            break
        best = pt
    if best is not None:
        return ToleranceStep(best.dt, True, best.seconds / (best.steps * best.dt), float(p))
    if not np.isfinite(p) or p <= 0:
        raise ValueError(f"no rung meets tol = {tol:g} and the two finest finished rungs "
                         "do not give a convergence order to extrapolate with")
    dt = done[0].dt * (tol / done[0].error) ** (1.0 / p)
    per_step = float(np.median([q.seconds / q.steps for q in done]))
    return ToleranceStep(float(dt), False, per_step / dt, float(p))


class _Dop853Table:
    """DOP853's piecewise dense output, all steps in arrays, evaluated for many times at once.

    ``sol(t)`` is ``scipy.integrate.OdeSolution(ts, pieces)(t)`` bit for bit: the same
    step chosen for each t (``searchsorted(ts, t, side="left") - 1``, clipped: at a step
    end the earlier step) and the same Horner-like recursion of
    ``Dop853DenseOutput._call_impl``, element by element,

        y = (...((F_6 x + F_5)(1 - x) + F_4) x ...) x + y_old,   x = (t - t_old) / h,

    but done for every t in one pass of array operations instead of one Python call per
    step touched (a DOP853 solution of a stiff rod has tens of thousands of steps).
    """

    __slots__ = ("ts", "t_old", "h", "F", "y_old")

    def __init__(self, ts, t_old, h, F, y_old):
        self.ts, self.t_old, self.h, self.F, self.y_old = ts, t_old, h, F, y_old

    def __call__(self, t):
        t = np.asarray(t)
        if t.ndim > 1:
            raise ValueError(f"t must be a float or a 1-D array, got shape {t.shape}")
        seg = np.searchsorted(self.ts, t, side="left") - 1
        seg = np.clip(seg, 0, self.h.size - 1)
        x = (t - self.t_old[seg]) / self.h[seg]
        F = self.F[seg]                                  # (k,)-pieces: (7, k) or (m, 7, k)
        if t.ndim == 1:
            x = x[:, None]
        y = np.zeros(self.y_old[seg].shape)
        order = F.shape[-2]
        for i in range(order):                           # F reversed, as _call_impl
            y += F[..., order - 1 - i, :]
            if i % 2 == 0:
                y *= x
            else:
                y *= 1 - x
        y += self.y_old[seg]
        return y.T


@dataclass(frozen=True)
class DenseReference:
    """A dense DOP853 solution of a few components, from :func:`dop853_reference`.

    Attributes
    ----------
    sol : callable
        ``sol(t)`` -> shape (k,) or (k, len(t)): the kept components, in the order given
        (``scipy.integrate.OdeSolution``'s call, bit for bit, evaluated for all t at once).
    nfev : int
        Right-hand-side evaluations, those of the dense output included (as
        ``solve_ivp(..., dense_output=True).nfev``).
    nsteps : int
        Accepted steps.
    """

    sol: _Dop853Table
    nfev: int
    nsteps: int


def dop853_reference(fun, t_span, y0, components, rtol=1e-8, atol=1e-10, max_steps=MAX_STEPS):
    """``solve_ivp(fun, t_span, y0, method="DOP853", dense_output=True)`` keeping k components.

    A dense reference of a large system stores the whole state's interpolant at every
    step (eight vectors of length n per step; for the energy chapter's N = 320 rod
    about 1 GB).  This takes the same steps as :func:`scipy.integrate.solve_ivp` (its
    loop over :class:`scipy.integrate.DOP853`, the dense output built at every step, so
    the same ``nfev``) and keeps each step's interpolant only for ``components``.  The
    interpolation is component by component, so ``sol(t)`` equals
    ``solve_ivp(...).sol(t)[components]`` bit for bit (the tests check it).

    Parameters
    ----------
    fun : callable
        ``fun(t, y) -> dy/dt``.
    t_span : (float, float)
        t0 < t1.
    y0 : ndarray, shape (n,)
    components : sequence of int
        Indices into y to keep (each in 0 .. n - 1).
    rtol, atol : float
        DOP853's tolerances (positive).
    max_steps : int
        Cap on accepted steps: a :class:`lib.core.errors.SolveError` beyond it.

    Returns
    -------
    DenseReference

    Raises
    ------
    ValueError
        A bad argument (named).
    SolveError
        If DOP853 fails (its message), or takes more than ``max_steps`` steps.

    Examples
    --------
    >>> ref = dop853_reference(lambda t, y: np.array([y[1], -y[0]]), (0.0, 1.0),
    ...                        np.array([1.0, 0.0]), [0], rtol=1e-10, atol=1e-12)
    >>> bool(abs(ref.sol(0.5)[0] - np.cos(0.5)) < 1e-9), ref.sol(np.array([0.0, 1.0])).shape
    (True, (1, 2))
    """
    checks.function(fun, "fun")
    if np.ndim(t_span) != 1 or len(t_span) != 2:
        raise ValueError(f"t_span must be two times (t0, t1), got {checks.show(t_span)}")
    t0 = checks.real(t_span[0], "t_span[0]")
    t1 = checks.real(t_span[1], "t_span[1]", low=t0, include_low=False)
    y0 = checks.vector(y0, "y0", nonempty=True)
    comp = checks.vector(components, "components", nonempty=True)
    if not np.all(comp == np.round(comp)) or comp.min() < 0 or comp.max() >= y0.size:
        raise ValueError(f"components must be indices 0 .. {y0.size - 1} into y0, "
                         f"got {checks.show(comp)}")
    comp = comp.astype(int)
    checks.positive(rtol, "rtol")
    checks.positive(atol, "atol")
    max_steps = checks.integer(max_steps, "max_steps", low=1)
    solver = DOP853(fun, t0, y0, t1, rtol=rtol, atol=atol)
    ts, t_old, h, F, y_old = [t0], [], [], [], []
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise SolveError(f"DOP853 failed at t = {solver.t:g}: {message}",
                             where="dop853_reference")
        if len(h) >= max_steps:
            raise SolveError(f"DOP853 took more than max_steps = {max_steps} steps",
                             where="dop853_reference")
        piece = solver.dense_output()                       # the whole state's interpolant,
        F.append(piece.F[:, comp])                          # cut down to the components
        y_old.append(piece.y_old[comp])
        t_old.append(piece.t_old)
        h.append(piece.h)
        ts.append(solver.t)
    table = _Dop853Table(np.array(ts), np.array(t_old), np.array(h), np.array(F),
                         np.array(y_old))
    return DenseReference(table, int(solver.nfev), len(h))
