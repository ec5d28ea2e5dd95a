"""Equivalence of rod3d's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401

# --------------------------------------------------------------------------------------
# rod3d.static: natural monotonicity, SO(3) retraction, fixed dofs
# --------------------------------------------------------------------------------------
def rod3d_static_new(m, load, steps=10, tol=1e-10, maxiter=50, moment="conservative",
                     fixed=None, state0=None):
    load = rod3d.check_load(load)
    free = np.ones(m.ndof, dtype=bool)
    if fixed is not None:
        free[np.asarray(fixed)] = False
    fscale = max(m.EI / m.L, np.abs(load[:3]).max(), np.abs(load[3:]).max() / m.L)
    floor = 16 * EPS * (m.EA + m.kGA) * max(m.N, 4)
    infos = []

    def solve_at(lam, s):
        ld = lam * load
        s, info = newton_solve(
            lambda s: rod3d.residual_tangent(m, s, ld, 0.0, moment), s, tol, maxiter,
            max_backtracks=26, where="rod3d.static", accept="natural", scale=fscale,
            floor=floor, roundoff="correction", xtol=1e-14 * m.L, xtol_rel=0.0, free=free,
            update=lambda s, dq, t: rod3d.retract(m, s, t * dq),
            residual=lambda s: rod3d.residual_tangent(m, s, ld, 0.0, moment, tangent=False))
        infos.append(info)
        return s, info

    s0 = rod3d.straight(m) if state0 is None else state0
    s, _ = load_path(solve_at, s0, steps=steps, where="rod3d.static")
    return s, infos


@pytest.mark.parametrize("N,load,steps,moment,fixed", [
    (10, [0.0, -4.0, 2.0, 0.5, 0.0, 1.0], 2, "conservative", None),
    (8, [0.0, 0.0, -3.0, 0.0, 2.0, 0.0], 1, "dead", None),
    (8, [1.0, -2.0, 0.0], 3, "conservative", [0, 1, 2]),
])
def test_rod3d_static_is_reproduced(monkeypatch, N, load, steps, moment, fixed):
    m = rod3d.make_rod3d(N)
    with traced(monkeypatch, rod3d, "residual_tangent") as old:
        s_old = rod3d.static(m, load, steps=steps, moment=moment, fixed=fixed)
    with traced(monkeypatch, rod3d, "residual_tangent") as new:
        s_new, infos = rod3d_static_new(m, load, steps=steps, moment=moment, fixed=fixed)
    assert_same_path(old, new)
    assert_round_off(s_old, s_new)
    if steps == 1:
        assert infos[0].backtracks > 0


def test_rod3d_static_floor_stop_is_reproduced(monkeypatch):
    # a slender rod in the helix of the Love wrench: the residual ends at its floor
    m = rod3d.make_rod3d(20, r_over_L=0.002)
    s0, load, _ = rod3d.helix(m, 0.5, 0.15, 0.0)
    with traced(monkeypatch, rod3d, "residual_tangent") as old:
        s_old = rod3d.static(m, load, steps=1, state0=s0, moment="dead")
    with traced(monkeypatch, rod3d, "residual_tangent") as new:
        s_new, infos = rod3d_static_new(m, load, steps=1, moment="dead", state0=s0)
    assert_same_path(old, new)
    assert_round_off(s_old, s_new)
    fscale = max(m.EI / m.L, np.abs(load[:3]).max(), np.abs(load[3:]).max() / m.L)
    assert infos[0].residual > 1e-10 * fscale


# --------------------------------------------------------------------------------------
# rod3d.lie_newmark: modified Newton (tangent every 4th iteration), floor on the residual
# --------------------------------------------------------------------------------------
def lie_newmark_new(m, state, v, w, dt, nsteps, beta=0.25, gamma=0.5, tol=1e-10, maxiter=30):
    """rod3d.lie_newmark's time loop with its Newton as one newton_solve call."""
    N = m.N
    M, J = rod3d.mass(m), rod3d.inertia(m)
    st = rod3d.State(*state)
    V = np.empty((N, 6))
    V[:, :3], V[:, 3:] = w, v
    a0, al0 = rod3d.accelerations(m, st, v, w)
    A = np.column_stack([al0, a0])
    scale = max(m.EI / m.L, np.abs(M.reshape(N, 6) * A).max(), 1e-300)
    floor = 16 * EPS * (m.EA + m.kGA) * m.N
    iterations = []
    for n in range(1, nsteps + 1):
        def fun(An, A=A, V=V, st=st):
            An = An.reshape(N, 6)
            s1 = rod3d.retract(m, st, (dt * V + dt * dt * ((0.5 - beta) * A + beta * An)).ravel())
            V1 = V + dt * ((1 - gamma) * A + gamma * An)
            g = rod3d.gradient(m, s1, None, 0.0).reshape(N, 6)
            r = M.reshape(N, 6) * An + g
            r[:, :3] += np.cross(V1[:, :3], J * V1[:, :3])
            return r.ravel(), lambda: sp.diags(M) + (dt * dt * beta) * rod3d.hessian(m, s1)

        An, info = newton_solve(fun, A.ravel(), tol, maxiter, max_backtracks=0,
                                where="Lie-Newmark", accept="none", scale=scale, floor=floor,
                                roundoff="residual", reuse=4)
        iterations.append(info.iterations)
        An = An.reshape(N, 6)
        st = rod3d.retract(m, st, (dt * V + dt * dt * ((0.5 - beta) * A + beta * An)).ravel())
        V, A = V + dt * ((1 - gamma) * A + gamma * An), An
    return st, V[:, 3:], V[:, :3], iterations


def test_rod3d_lie_newmark_is_reproduced(monkeypatch):
    m = rod3d.make_rod3d(6)
    rng = np.random.default_rng(9)
    v0, w0 = 1e-2 * rng.standard_normal((6, 3)), 1e-2 * rng.standard_normal((6, 3))
    dt = 10 * 2.0 / rod3d.frequencies(m)[-1]          # far beyond the explicit limit
    with traced(monkeypatch, rod3d, "gradient") as old:
        out_old = rod3d.lie_newmark(m, rod3d.straight(m), v0, w0, dt, 4)
    with traced(monkeypatch, rod3d, "gradient") as new:
        *out_new, iterations = lie_newmark_new(m, rod3d.straight(m), v0, w0, dt, 4)
    assert_same_path(old, new)
    for a, b in zip(out_old[:3], out_new):
        assert_round_off(a, b)
    assert max(iterations) > 4                     # the tangent was refreshed at least once
