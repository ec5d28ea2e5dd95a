"""One load path for every load-incremented solve, and time-step halving.

:func:`load_path` raises a load factor λ from 0 to 1 and solves at each increment,
starting from the previous equilibrium:

* uniform: ``λ_j = j / steps``, j = 1..steps (every static solve of ``lib`` so far);
* adaptive: the increment starts at ``1 / steps``; a failed increment is retried with
  half the increment, up to ``max_cuts`` times in a row, and after a success the
  increment grows back (doubles) toward the nominal ``1 / steps`` (``regrow=True``;
  ``regrow=False`` keeps the cut increment, as ``incompressible.solve`` did).

The solve at one λ is the caller's: ``solve_at(lam, x_start) -> (x, info)`` (``info``
with an ``iterations`` attribute such as a :class:`~lib.solvers.newton.NewtonInfo`, or
an int), raising a :class:`~lib.core.errors.SolveError` when it fails.  A failure is
reported in one wording, ``where: load step j/n (λ = …), iteration i, residual r``,
and when the cuts run out with ``reason="cut limit"``.

:func:`halving` is the same idea for one time step: a step whose solve fails is split
into two halves, recursively.

Examples
--------
>>> solve_at = lambda lam, x: (x + (lam - x) / 2, 1)      # any solver of "x = lam"
>>> x, info = load_path(solve_at, 0.0, steps=4)
>>> info.lam.tolist(), info.attempts
([0.25, 0.5, 0.75, 1.0], 4)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import checks
from ..core.errors import SolveError

__all__ = ["load_path", "LoadPath", "halving"]


@dataclass(frozen=True)
class LoadPath:
    """What :func:`load_path` did.

    Attributes
    ----------
    lam : ndarray
        The load factors reached, one per accepted increment (the last is 1).
    iterations : ndarray of int
        Iterations of each accepted increment.
    tried : tuple of (float, int, bool)
        Every attempt in order, failed ones included: (λ tried, iterations, converged).
    cuts : int
        Increment cuts made in all.
    states : list or None
        The state at each accepted λ (with ``record=True``).
    """

    lam: np.ndarray
    iterations: np.ndarray
    tried: tuple
    cuts: int
    states: list | None = None

    @property
    def attempts(self):
        """Number of solves tried (failed ones included)."""
        return len(self.tried)

    @property
    def newton_total(self):
        """Iterations summed over every attempt (the cost of the path)."""
        return int(sum(t[1] for t in self.tried))


def _iterations(info):
    it = getattr(info, "iterations", info)
    return int(it) if it is not None else 0


def _copy(x):
    return x.copy() if isinstance(x, np.ndarray) else x


def load_path(solve_at, x0, *, steps, adaptive=False, max_cuts=6, regrow=True, record=False,
              where="load path"):
    """Solve along λ = 0 -> 1 from ``x0`` (see the module docstring).

    Parameters
    ----------
    solve_at : callable
        ``solve_at(lam, x_start) -> (x, info)``; raises ``SolveError`` on failure.
        It must not modify ``x_start`` (arrays are passed as copies anyway).
    x0 : ndarray or state
        The equilibrium at λ = 0.
    steps : int
        Number of increments (uniform), or the nominal one ``1 / steps`` (adaptive).
    adaptive : bool
        Cut a failed increment in half and retry.
    max_cuts : int
        Cuts allowed in a row before the path gives up (adaptive).
    regrow : bool
        After a success, double the increment back toward ``1 / steps`` (adaptive).
    record : bool
        Keep the state at every accepted λ in ``info.states``.
    where : str
        What is being solved, for the error message.

    Returns
    -------
    x : the state at λ = 1
    info : LoadPath

    Raises
    ------
    SolveError
        Uniform: the solve's own error, located at ``load step j/n (λ = …)``.
        Adaptive: ``reason="cut limit"`` once ``max_cuts`` cuts in a row failed,
        with the λ tried, the iteration and residual of the last attempt, and the
        last error as its cause.

    Examples
    --------
    A solve that fails for increments above 0.3 gets there by cuts that re-grow:

    >>> def solve_at(lam, x):
    ...     if lam - x > 0.3 + 1e-12:
    ...         raise SolveError(where="toy", reason="maxiter", iteration=5)
    ...     return lam, 2
    >>> x, info = load_path(solve_at, 0.0, steps=2, adaptive=True)
    >>> info.lam.round(3).tolist(), info.cuts
    ([0.25, 0.5, 0.75, 1.0], 3)
    >>> load_path(solve_at, 0.0, steps=2)
    Traceback (most recent call last):
        ...
    lib.core.errors.SolveError: toy: load step 1/2 (λ = 0.5), iteration 5: iteration limit reached
    """
    checks.function(solve_at, "solve_at")
    steps = checks.integer(steps, "steps", low=1)
    adaptive = checks.boolean(adaptive, "adaptive")
    max_cuts = checks.integer(max_cuts, "max_cuts", low=0)
    regrow = checks.boolean(regrow, "regrow")
    record = checks.boolean(record, "record")
    x = x0
    lams, iters, tried = [], [], []
    states = [] if record else None
    cuts = 0

    def accept(lam, xn, info):
        n = _iterations(info)
        lams.append(lam)
        iters.append(n)
        tried.append((lam, n, True))
        if states is not None:
            states.append(_copy(xn))

    if not adaptive:
        for j in range(1, steps + 1):
            lam = j / steps
            try:
                xn, info = solve_at(lam, _copy(x))
            except SolveError as err:
                raise err.located(step=j, nsteps=steps, load=lam, where=where) from err
            accept(lam, xn, info)
            x = xn
    else:
        lam, nominal, in_row = 0.0, 1.0 / steps, 0
        dlam = nominal
        while lam < 1.0 - 1e-12:
            target = min(1.0, lam + dlam)
            try:
                xn, info = solve_at(target, _copy(x))
            except SolveError as err:
                tried.append((target, err.iteration or 0, False))
                in_row += 1
                cuts += 1
                if in_row > max_cuts:
                    raise SolveError(
                        f"converged up to λ = {lam:.4g}; last attempt: {err}",
                        where=where, step=len(lams) + 1, load=target, iteration=err.iteration,
                        residual=err.residual, relative=err.relative, tol=err.tol,
                        reason="cut limit", halvings=max_cuts) from err
                dlam *= 0.5
                continue
            accept(target, xn, info)
            x, lam, in_row = xn, target, 0
            if regrow:
                dlam = min(nominal, 2.0 * dlam)
    return x, LoadPath(np.array(lams), np.array(iters, dtype=int), tuple(tried), cuts, states)


def halving(step, state, dt, max_halvings=4):
    """Advance ``state`` by ``dt``, halving the step where its solve fails.

    Model- and scheme-independent sub-stepping: ``step(state, h) -> state`` is one
    implicit step of size h that raises :class:`~lib.core.errors.SolveError` (a
    ``NewtonFailure``, say) when its solve fails.  On failure the interval is split
    into two halves, each advanced the same way, down to ``dt / 2**max_halvings``.
    The result is no longer the fixed-step scheme where a split happened (it is the
    same scheme on a locally finer grid), so the number of sub-steps is returned.

    Parameters
    ----------
    step : callable
        ``step(state, h) -> state``.
    state : tuple
        The state at the start of the interval.
    dt : float
        Interval to advance (> 0).
    max_halvings : int
        Depth of halving allowed (0: no halving).

    Returns
    -------
    state : tuple
        The state at the end of the interval.
    nsub : int
        Sub-steps taken (1 if no halving was needed).

    Raises
    ------
    SolveError
        From the last attempt, with ``halvings`` set to the depth reached.

    Examples
    --------
    >>> from lib.core.errors import NewtonFailure
    >>> def step(s, h):                       # "fails" for steps above 0.3
    ...     if h > 0.3:
    ...         raise NewtonFailure("too big")
    ...     return (s[0] + h,)
    >>> halving(step, (0.0,), 1.0)
    ((1.0,), 4)
    """
    checks.function(step, "step")
    dt = checks.positive(dt, "dt")
    max_halvings = checks.integer(max_halvings, "max_halvings", low=0)

    def advance(s, h, depth):
        try:
            return step(s, h), 1
        except SolveError as err:
            if depth >= max_halvings:
                err.halvings = depth
                raise
        s1, n1 = advance(s, 0.5 * h, depth + 1)
        s2, n2 = advance(s1, 0.5 * h, depth + 1)
        return s2, n1 + n2

    return advance(tuple(state), dt, 0)
