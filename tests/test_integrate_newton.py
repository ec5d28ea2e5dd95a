"""The safeguarded Newton solve shared by every implicit step of lib.integrate.

Properties: where plain Newton diverges the line search converges (to the same root
an independent bracketing solver finds); a converged solve is quadratic; the
safeguards do not change a step plain Newton already solves; step halving turns a
step whose solve fails into sub-steps of the same scheme; every failure says why and
how far it got.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq

from lib import integrate as it


def arctan_system(x):
    """R = arctan(x): plain Newton from |x0| > 1.39 overshoots and diverges."""
    with np.errstate(over="ignore"):
        return np.arctan(x), np.diag(1.0 / (1.0 + x**2)), 1.0


def test_plain_newton_diverges_where_the_line_search_converges():
    x0 = np.array([3.0, -2.0])
    with pytest.raises(it.NewtonFailure) as ei:
        it.newton_solve(arctan_system, x0, line_search=False, maxiter=30)
    assert ei.value.reason in ("non-finite", "maxiter", "singular")
    x, info = it.newton_solve(arctan_system, x0)
    assert np.abs(np.arctan(x)).max() <= 1e-10         # the tolerance, relative to scale 1
    assert info.backtracks > 0


def test_newton_converges_quadratically_near_the_root():
    # a coupled nonlinear system with a known root at (1, 2); log every evaluation
    seen = []

    def fun(x):
        seen.append(x.copy())
        r = np.array([x[0] ** 3 + x[1] - 3.0, x[0] + x[1] ** 2 - 5.0])
        J = np.array([[3 * x[0] ** 2, 1.0], [1.0, 2 * x[1]]])
        return r, J, 1.0

    x, info = it.newton_solve(fun, np.array([1.3, 2.4]), tol=1e-14)
    assert np.allclose(x, [1.0, 2.0], rtol=0, atol=1e-13)
    assert info.backtracks == 0                   # full steps: plain Newton's iterates
    errs = np.array([np.abs(y - [1.0, 2.0]).max() for y in seen])
    errs = errs[errs > 1e-12]
    # quadratic: log e_{k+1} / log e_k -> 2
    rates = np.log(errs[1:]) / np.log(errs[:-1])
    assert len(rates) >= 2 and rates[-1] > 1.8


def test_sparse_and_dense_tangents_give_the_same_solution():
    def fun_dense(x):
        return x + x**3 - 1.0, np.diag(1 + 3 * x**2), 1.0

    def fun_sparse(x):
        return x + x**3 - 1.0, sp.diags(1 + 3 * x**2).tocsr(), 1.0

    xd, _ = it.newton_solve(fun_dense, np.zeros(3))
    xs, _ = it.newton_solve(fun_sparse, np.zeros(3))
    root = brentq(lambda y: y + y**3 - 1.0, 0.0, 1.0, xtol=1e-15)
    assert np.allclose(xd, root, rtol=1e-12) and np.allclose(xs, root, rtol=1e-12)


def hard_force(u):
    """A saturating spring f = 20 arctan(5u): stiff near 0, almost flat beyond |u| ~ 1."""
    return 20 * np.arctan(5 * u), np.diag(100 / (1 + 25 * u**2))


STATE = (np.array([1.0]), np.array([0.0]))
DT = 1.0


def test_plain_newton_fails_a_newmark_step_the_safeguarded_one_solves():
    u, v = STATE
    f0, _ = hard_force(u)
    a = -f0
    dt = DT
    with pytest.raises(it.NewtonFailure):
        it.newmark_step(u, v, a, dt, hard_force, np.ones(1), predictor="displacement",
                        line_search=False, maxiter=40)
    u1, v1, a1 = it.newmark_step(u, v, a, dt, hard_force, np.ones(1))
    # the accepted state satisfies the Newmark equations and the balance
    assert np.allclose(u1, u + dt * v + dt * dt * 0.25 * (a + a1), rtol=1e-12)
    assert np.allclose(a1 + hard_force(u1)[0], 0, atol=1e-8 * np.abs(hard_force(u1)[0]).max())
    # an independent scalar root of the same step equation
    cb = 1 / (0.25 * dt * dt)
    g = lambda x: cb * (x - u[0] - dt * v[0]) - a[0] + hard_force(np.array([x]))[0][0]
    assert u1[0] == pytest.approx(brentq(g, -100, 100, xtol=1e-14), rel=1e-10)


def test_safeguards_do_not_change_a_step_plain_newton_solves():
    rng = np.random.default_rng(1)
    u, v = 0.1 * rng.standard_normal(4), 0.1 * rng.standard_normal(4)
    force = lambda x: (x + x**3, np.diag(1 + 3 * x**2))
    a = -force(u)[0]
    plain = it.newmark_step(u, v, a, 0.05, force, np.ones(4), predictor="displacement",
                            line_search=False, tol=1e-13)
    safe = it.newmark_step(u, v, a, 0.05, force, np.ones(4), tol=1e-13)
    for x, y in zip(plain, safe):
        assert np.allclose(x, y, rtol=1e-12, atol=1e-14)


def test_halving_makes_a_failing_step_into_substeps_of_the_same_scheme():
    u, v = STATE
    a = -hard_force(u)[0]
    # with three Newton iterations per solve the full step fails ...
    with pytest.raises(it.NewtonFailure) as ei:
        it.newmark_step(u, v, a, DT, hard_force, np.ones(1), maxiter=3)
    assert ei.value.halvings == 0
    u1, v1, a1 = it.newmark_step(u, v, a, DT, hard_force, np.ones(1), maxiter=3, max_halvings=6)
    # ... and halving splits it; record the sub-steps it accepts
    sizes = []

    def step(state, h):
        out = it.newmark_step(*state, h, hard_force, np.ones(1), maxiter=3)
        sizes.append(h)
        return out

    (u2, v2, a2), nsub = it.halving(step, (u, v, a), DT, max_halvings=6)
    assert nsub == len(sizes) > 1 and sum(sizes) == pytest.approx(DT, rel=1e-15)
    assert min(sizes) >= DT / 2**6 and len(set(sizes)) > 1      # refined only where needed
    # replaying those sub-steps with a fully converged Newmark gives the same state
    s = (u, v, a)
    for h in sizes:
        s = it.newmark_step(*s, h, hard_force, np.ones(1), tol=1e-13)
    for x, y, z in zip((u1, v1, a1), (u2, v2, a2), s):
        assert np.allclose(x, y, rtol=1e-14) and np.allclose(x, z, rtol=1e-8)
    # with too few halvings allowed the failure reports the depth reached
    with pytest.raises(it.NewtonFailure) as ei:
        it.newmark_step(u, v, a, DT, hard_force, np.ones(1), maxiter=1, max_halvings=2)
    assert ei.value.halvings == 2 and ei.value.reason == "maxiter"


def test_run_reports_halved_steps_and_generalised_alpha_shares_the_solver():
    u, v = STATE
    params = it.generalized_alpha_parameters(0.8)
    with pytest.raises(it.NewtonFailure) as ei:
        it.generalized_alpha(u, v, DT, 4, hard_force, np.ones(1), params, maxiter=3)
    assert ei.value.step == 1 and ei.value.time == DT
    assert str(ei.value).startswith("generalised-alpha Newton: step 1 (t = 1), iteration 3, "
                                    "residual ")
    assert str(ei.value).endswith(": iteration limit reached")
    tr = it.generalized_alpha(u, v, DT, 4, hard_force, np.ones(1), params, maxiter=3,
                              max_halvings=6)
    assert tr.info["halved_steps"] >= 1 and tr.info["substeps"] > 4
    tr2 = it.newmark(u, v, DT, 4, hard_force, np.ones(1), maxiter=3, max_halvings=6)
    assert tr2.info["halved_steps"] >= 1 and tr2.info["iterations"] > 0


@pytest.mark.parametrize("reason,fun,kw", [
    ("singular", lambda x: (x - 1.0, np.zeros((1, 1)), 1.0), {}),
    ("singular", lambda x: (x - 1.0, sp.csr_matrix((1, 1)), 1.0), {}),
    ("maxiter", arctan_system, dict(line_search=False, maxiter=2)),
    ("line search", lambda x: (x**2 + 1.0, np.diag(2 * x), 1.0), {}),
])
def test_failure_says_why_at_which_iteration_and_residual(reason, fun, kw):
    with pytest.raises(it.NewtonFailure) as ei:
        it.newton_solve(fun, np.array([3.0]), **kw)
    err = ei.value
    assert err.reason == reason
    from lib.core.errors import REASONS
    assert REASONS[reason] in str(err) and "iteration" in str(err) and "residual" in str(err)
    assert np.isfinite(err.residual) and err.iteration >= 0


def test_bad_arguments_name_themselves():
    f = lambda x: (x, np.eye(1))
    with pytest.raises(ValueError, match="predictor"):
        it.newmark_step(np.ones(1), np.zeros(1), np.zeros(1), 0.1, f, np.ones(1),
                        predictor="linear")
    with pytest.raises(ValueError, match="max_halvings"):
        it.halving(lambda s, h: s, (1.0,), 0.1, max_halvings=-1)
    with pytest.raises(ValueError, match="mass"):
        it.newmark(np.ones(2), np.zeros(2), 0.1, 2, lambda x: (x, np.eye(2)),
                   np.array([[1.0, 2.0], [2.0, 1.0]]))


@pytest.mark.parametrize("predictor", ["displacement", "velocity", "acceleration"])
def test_every_predictor_converges_to_the_same_step(predictor):
    u, v = np.array([0.3, -0.2]), np.array([0.5, 1.0])
    force = lambda x: (x + x**3, np.diag(1 + 3 * x**2))
    a = -force(u)[0]
    ref = it.newmark_step(u, v, a, 0.1, force, np.ones(2), tol=1e-14)
    out = it.newmark_step(u, v, a, 0.1, force, np.ones(2), tol=1e-14, predictor=predictor)
    for x, y in zip(ref, out):
        assert np.allclose(x, y, rtol=1e-12, atol=1e-15)


def test_fallback_line_search_solves_what_either_mode_solves():
    # plain Newton fails from 3 on arctan, the fallback line search does not
    x, info = it.newton_solve(arctan_system, np.array([3.0]), line_search="fallback")
    assert abs(np.arctan(x[0])) <= 1e-10 and info.backtracks > 0
    with pytest.raises(ValueError, match="line_search"):
        it.newton_solve(arctan_system, np.array([3.0]), line_search="maybe")
