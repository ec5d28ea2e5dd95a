"""constraints.project_state's position Newton is one configured newton_solve.

The old loop (git HEAD before the migration) is kept below verbatim as the reference;
the migrated public function must evaluate ``phi`` and the Jacobian at the same points,
in the same order, take the same number of iterations and land on the same ``q`` bit
for bit (the configuration: plain Newton, ``accept="none"``, ``roundoff="residual"``,
the minimal mass-weighted correction as the tangent solve; see lib/constraints.py).
"""
import numpy as np
import pytest

from lib import constraints as C
from lib.constraints import ConvergenceError, kkt_solve

from .trace import assert_round_off, assert_same_path


def old_project_state(system, q, v, tol=1e-12, max_iter=25):
    """lib.constraints.project_state before the floors (the loop body verbatim)."""
    q = np.asarray(q, dtype=float).copy()
    v = np.asarray(v, dtype=float).copy()
    zero = np.zeros(system.n)
    if system.phi is not None:
        for it in range(max_iter + 1):
            phi = np.asarray(system.phi(q), dtype=float)
            res = float(np.abs(phi).max())
            if res <= tol:
                break
            if it == max_iter:
                raise ConvergenceError(
                    f"position projection: |phi| = {res:.3e} > tol = {tol:.1e} "
                    f"after {max_iter} Newton steps")
            dq, _ = kkt_solve(system.mass, system.jacobian(q), zero, -phi)
            q += dq
    B = np.asarray(system.jacobian(q), dtype=float)
    dv, _ = kkt_solve(system.mass, B, zero, -(B @ v))
    return q, v + dv


def _traced(system):
    """The system with its phi and jacobian recording where they are evaluated."""
    calls = []

    def rec(tag, fn):
        def wrapped(q, *a):
            calls.append((tag, np.array(q, dtype=float, copy=True)))
            return fn(q, *a)
        return wrapped

    traced = C.ConstrainedSystem(system.mass, system.force, rec("J", system.jacobian),
                                 system.gamma, rec("phi", system.phi), system.n, system.m)
    return traced, calls


def _problems():
    fb = C.four_bar()
    q, v = C.four_bar_state(fb, 0.7, 3.0)
    rng = np.random.default_rng(3)
    return [
        ("pendulum", C.pendulum(l=1.0), [0.3, -1.4], [0.3, 0.2], {}),
        ("pendulum, already on", C.pendulum(l=1.0), [0.0, -1.0], [1.0, 0.5], {}),
        ("pendulum, loose tol", C.pendulum(l=2.0), [1.0, -2.5], [0.0, 0.0], dict(tol=1e-4)),
        ("four-bar", fb.system, q + 1e-2 * rng.standard_normal(9),
         v + 0.1 * rng.standard_normal(9), dict(tol=1e-13)),
    ]


@pytest.mark.parametrize("name, system, q, v, kw", _problems(), ids=[p[0] for p in _problems()])
def test_project_state_reproduces_the_old_loop(name, system, q, v, kw):
    s_old, old = _traced(system)
    s_new, new = _traced(system)
    q_old, v_old = old_project_state(s_old, q, v, **kw)
    q_new, v_new = C.project_state(s_new, q, v, **kw)
    assert [t for t, _ in old] == [t for t, _ in new]
    assert_same_path([x for _, x in old], [x for _, x in new])
    assert_round_off(q_old, q_new)
    assert_round_off(v_old, v_new)
    if name != "pendulum, already on":
        assert sum(t == "J" for t, _ in old) >= 3        # Newton iterated


def test_project_state_fails_where_the_old_loop_failed():
    """Same iteration budget: both stop after max_iter corrections (SolveError now)."""
    s = C.pendulum()
    with pytest.raises(ConvergenceError, match="after 2 Newton steps"):
        old_project_state(s, [0.0, -2.0], [0.0, 0.0], max_iter=2)
    with pytest.raises(ConvergenceError, match="iteration 2,") as err:
        C.project_state(s, [0.0, -2.0], [0.0, 0.0], max_iter=2)
    assert err.value.reason == "maxiter"
    old_q, _ = old_project_state(s, [0.0, -2.0], [0.0, 0.0], max_iter=6)
    new_q, _ = C.project_state(s, [0.0, -2.0], [0.0, 0.0], max_iter=6)
    assert_round_off(old_q, new_q)
