"""Every Newton / load-step loop of lib is one configured call of the shared floors.

For each loop in the table of :mod:`lib.solvers.newton` this runs the loop as its
module has it today and :func:`lib.solvers.newton_solve` (with
:func:`lib.solvers.load_path` where the loop steps a load) configured as the table
says, on the same problem, and asserts

* the same sequence of residual evaluations: the model function the loop calls for its
  residual is wrapped, and both runs must call it at the same points in the same order
  (so the same iterates, the same line-search trials and the same iteration counts);
* the same solution to round-off.

Each problem is chosen so that the feature the configuration reproduces is exercised
(a backtracking line search, a stop at the round-off floor, an increment cut, an
inadmissible trial), and the test asserts that it was.  The migration phase replaces
each loop by the call written here; these tests say which configuration it needs.
``integrate.newton_solve`` is the floors' own solver now, so its old body is kept
below, verbatim, as the reference.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import integrate
from lib.core.errors import NewtonFailure
from lib.solvers import newton_solve

from .trace import EPS, assert_same_path

# --------------------------------------------------------------------------------------
# integrate.newton_solve: the old body, verbatim (it moved into lib.solvers.newton)
# --------------------------------------------------------------------------------------
def _old_linear_solve(J, R):
    import warnings

    import scipy.linalg as sla
    from scipy.sparse.linalg import splu
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            if sp.issparse(J):
                with np.errstate(all="ignore"):
                    return splu(sp.csc_matrix(J)).solve(R)
            return sla.solve(np.asarray(J, dtype=float), R)
    except (sla.LinAlgError, RuntimeError, ValueError):
        return None


def old_integrate_newton(fun, x0, tol=1e-10, maxiter=40, line_search=True, max_backtracks=30):
    """lib.integrate.newton_solve before the floors; returns (x, iterations, backtracks)."""
    if line_search == "fallback":
        try:
            return old_integrate_newton(fun, x0, tol, maxiter, False, max_backtracks)
        except NewtonFailure:
            return old_integrate_newton(fun, x0, tol, maxiter, True, max_backtracks)
    x = np.array(x0, dtype=float)
    R, J, scale = fun(x)
    R = np.asarray(R, dtype=float)
    backtracks = 0
    for it in range(maxiter + 1):
        res = float(np.abs(R).max())
        if not np.isfinite(res):
            raise NewtonFailure("non-finite", reason="non-finite", iteration=it)
        if res <= tol * scale:
            return x, it, backtracks
        if it == maxiter:
            raise NewtonFailure("maxiter", reason="maxiter", iteration=it)
        dx = _old_linear_solve(J, R)
        if dx is None or not np.all(np.isfinite(dx)):
            raise NewtonFailure("singular", reason="singular", iteration=it)
        dx = -dx
        at_floor = float(np.abs(dx).max()) <= 8 * EPS * max(float(np.abs(x).max()), 1e-300)
        phi0 = float(R @ R)
        t = 1.0
        for k in range(max_backtracks + 1):
            xt = x + t * dx
            Rt, Jt, st = fun(xt)
            Rt = np.asarray(Rt, dtype=float)
            phit = float(Rt @ Rt)
            if (not line_search or at_floor
                    or (np.isfinite(phit) and phit <= (1.0 - 2e-4 * t) * phi0)
                    or float(np.abs(Rt).max()) <= tol * st):
                break
            if k == max_backtracks:
                raise NewtonFailure("line search", reason="line search", iteration=it)
            t *= 0.5
            backtracks += 1
        x, R, J, scale = xt, Rt, Jt, st
        if at_floor and np.all(np.isfinite(R)):
            return x, it + 1, backtracks
    raise AssertionError("unreachable")


class Recorder:
    """A residual function that records where it is evaluated."""

    def __init__(self, fun):
        self.fun, self.calls = fun, []

    def __call__(self, x):
        self.calls.append(np.array(x, dtype=float))
        return self.fun(x)


def arctan_system(x):
    with np.errstate(over="ignore"):
        return np.arctan(x), np.diag(1.0 / (1.0 + x**2)), 1.0


def stiff_spring(x):
    """A residual at its round-off floor: 1e12 (x - 1) carries ~1e-4 of round-off."""
    return 1e12 * (x - 1.0) + 1e-3 * x**3, sp.diags(1e12 + 3e-3 * x**2).tocsr(), 1.0


@pytest.mark.parametrize("fun,x0,kw", [
    (arctan_system, [3.0, -2.0], {}),                               # line search active
    (arctan_system, [1.2, 0.3], dict(line_search=False)),            # plain Newton
    (arctan_system, [3.0], dict(line_search="fallback")),            # plain fails, then LS
    (stiff_spring, [3.0, -7.0, 0.5], dict(tol=1e-20)),               # stops at round-off
])
def test_integrate_newton_solve_is_reproduced(fun, x0, kw):
    old, new = Recorder(fun), Recorder(fun)
    x_old, it_old, bt_old = old_integrate_newton(old, np.array(x0), **kw)
    x_new, info = integrate.newton_solve(new, np.array(x0), **kw)   # the defaults are its policy
    assert (info.iterations, info.backtracks) == (it_old, bt_old)
    assert_same_path(old.calls, new.calls, rtol=0)
    assert np.array_equal(x_old, x_new)
    if fun is stiff_spring:                  # the stop at round-off is what ended it
        assert info.residual > 1e-20
    if not kw:
        assert info.backtracks > 0


def test_integrate_newton_solve_is_the_floors_own():
    """integrate.newton_solve and halving are re-exports of the floors, not copies."""
    from lib.solvers import continuation

    assert integrate.newton_solve is newton_solve
    assert integrate.halving is continuation.halving
