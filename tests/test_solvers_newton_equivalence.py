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
import contextlib

import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

EPS = np.finfo(float).eps


# --------------------------------------------------------------------------------------
# tracing: the points at which a model function is evaluated
# --------------------------------------------------------------------------------------
def _snapshot(x):
    if isinstance(x, tuple):                      # rod3d State (x, Q)
        return np.concatenate([np.ravel(np.asarray(c, dtype=float)) for c in x])
    return np.array(x, dtype=float, copy=True).ravel()


@contextlib.contextmanager
def traced(monkeypatch, module, name, arg=1, keep=None):
    """Record argument ``arg`` of every call of ``module.name`` (a list of arrays)."""
    calls = []
    orig = getattr(module, name)

    def wrapper(*a, **k):
        if keep is None or keep(*a, **k):
            calls.append(_snapshot(a[arg]))
        return orig(*a, **k)

    with monkeypatch.context() as mp:
        mp.setattr(module, name, wrapper)
        yield calls


def assert_same_path(old, new, rtol=0.0):
    """Same number of evaluations, at the same points to round-off."""
    assert len(old) == len(new), f"{len(old)} evaluations in the old loop, {len(new)} now"
    for k, (a, b) in enumerate(zip(old, new)):
        scale = max(1.0, float(np.abs(a).max()))
        assert np.abs(a - b).max() <= rtol * scale, f"evaluation {k} differs"


def assert_round_off(a, b, rtol=0.0):
    a, b = _snapshot(a), _snapshot(b)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= rtol * max(1.0, float(np.abs(a).max()))


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
    x_new, info = newton_solve(new, np.array(x0), **kw)          # the defaults are its policy
    assert (info.iterations, info.backtracks) == (it_old, bt_old)
    assert_same_path(old.calls, new.calls, rtol=0)
    assert np.array_equal(x_old, x_new)
    if fun is stiff_spring:                  # the stop at round-off is what ended it
        assert info.residual > 1e-20
    if not kw:
        assert info.backtracks > 0


# --------------------------------------------------------------------------------------
# rod.static: energy-or-residual line search, banded Cholesky, stop at the correction
# --------------------------------------------------------------------------------------
def rod_static_new(r, load, grav=0.0, steps=10, tol=1e-10, maxiter=50):
    load = np.asarray(load, dtype=float)
    fscale = max(r.EI / r.L, abs(load[0]), abs(load[1]), abs(load[2]) / r.L,
                 abs(grav) * r.rhoA * r.L)
    floor = 64 * EPS * (r.EA + r.kGA)
    infos = []

    def solve_at(lam, q):
        ld, gv = lam * load, lam * grav

        def fun(q):
            return rod.gradient(r, q, ld, gv), lambda: factor(
                lambda: rod.hessian(r, q), banded=rod._banded_upper(r, q))

        q, info = newton_solve(fun, q, tol, maxiter, max_backtracks=33, where="rod.static",
                               accept="energy-or-residual", energy=lambda q: rod.energy(r, q, ld, gv),
                               scale=fscale, floor=floor, roundoff="correction",
                               xtol=1e-14 * r.L, xtol_rel=0.0, record=True)
        infos.append(info)
        return q, info

    q, _ = load_path(solve_at, rod.straight(r), steps=steps, where="rod.static")
    return q, infos, fscale


@pytest.mark.parametrize("N,r_over_L,load,grav,steps", [
    (12, 0.04, (0.5, -6.0, 0.3), 0.0, 1),        # large load in one increment: line search
    (20, 0.002, (0.0, -1e-3, 0.0), 0.0, 10),     # slender rod: stops at the round-off floor
    (8, 0.04, (0.0, 0.0, 0.0), 2.0, 3),          # gravity only
])
def test_rod_static_is_reproduced(monkeypatch, N, r_over_L, load, grav, steps):
    r = rod.make_rod(N, r_over_L)
    with traced(monkeypatch, rod, "gradient") as old:
        q_old = rod.static(r, load, grav, steps=steps)
    with traced(monkeypatch, rod, "gradient") as new:
        q_new, infos, fscale = rod_static_new(r, load, grav, steps)
    assert_same_path(old, new)
    assert_round_off(q_old, q_new)
    if steps == 1:
        assert infos[0].backtracks > 0
    if r_over_L == 0.002:
        assert any(i.residual > 1e-10 * fscale for i in infos)      # the floor stop was used


# --------------------------------------------------------------------------------------
# actuation._newton: the same policy as rod.static with tendons (sparse LU), eyelets kept apart
# --------------------------------------------------------------------------------------
def actuation_newton_new(r, tendons, tau, q, tol=1e-10, maxiter=50):
    fscale = max(r.EI / r.L, float(np.max(tau, initial=0.0)))
    floor = 8 * EPS * (r.EA + r.kGA) * max(64.0, r.N)

    def fun(q):
        return (actuation.gradient(r, q, tendons, tau),
                lambda: actuation.hessian(r, q, tendons, tau))

    def admissible(q):                  # the loop treats a collapsed eyelet pair as a failed trial
        try:
            actuation.gradient(r, q, tendons, tau)
        except ValueError:
            return False
        return True

    return newton_solve(fun, q, tol, maxiter, max_backtracks=33, where="actuation",
                        accept="energy-or-residual", scale=fscale, floor=floor,
                        roundoff="correction", xtol=1e-14 * r.L, xtol_rel=0.0,
                        energy=lambda q: actuation.energy(r, q, tendons, tau),
                        admissible=admissible)


@pytest.mark.parametrize("tau", [[4.0], [40.0, 0.0], [25.0, 5.0]])
def test_actuation_newton_is_reproduced(monkeypatch, tau):
    r = rod.make_rod(12)
    tendons = [actuation.make_tendon(r, 0.03), actuation.make_tendon(r, -0.02, anchor=6)]
    tendons, tau = tendons[:len(tau)], np.array(tau)
    q0 = rod.straight(r)
    keep = lambda *a, **k: True
    with traced(monkeypatch, actuation, "energy", keep=keep) as old_e, \
            traced(monkeypatch, actuation, "hessian") as old:
        q_old, it_old = actuation._newton(r, tendons, tau, q0, None, 0.0, 1e-10, 50, "test")
    with traced(monkeypatch, actuation, "hessian") as new:
        q_new, info = actuation_newton_new(r, tendons, tau, q0)
    assert info.iterations == it_old
    assert_same_path(old, new)                        # the same iterates
    assert_round_off(q_old, q_new)
    if tau[0] >= 25:
        assert info.backtracks > 0
    assert old_e                                     # the energy test was consulted


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


# --------------------------------------------------------------------------------------
# fem.static: plain Newton, det F > 0 admissibility, absolute floor
# --------------------------------------------------------------------------------------
def fem_floor(model):
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    return 64 * EPS * (2 * model.mu + model.lam) * float(node_scale.max())


def fem_static_new(model, load, steps=10, tol=1e-10, maxiter=30):
    fr = model.free
    scale = np.abs(load[fr]).max()
    infos = []

    def solve_at(lam, u):
        fs = load * lam
        u, info = newton_solve(
            lambda u: (fem.gradient(model, u, fs), lambda: fem.hessian(model, u)), u, tol,
            maxiter, max_backtracks=29, where="fem.static", accept="none", scale=scale,
            floor=fem_floor(model), roundoff="residual", free=fr,
            admissible=lambda u: fem.admissible(model, u))
        infos.append(info)
        return u, info

    u, _ = load_path(solve_at, np.zeros(model.n_dofs), steps=steps, where="fem.static")
    return u, infos


@pytest.mark.parametrize("element,alpha,steps,tol", [
    ("T6", 1.0, 4, 1e-10),
    ("T3", 10.0, 1, 1e-10),            # one big increment: trial points invert elements
    ("T6", 0.5, 2, 1e-15),             # below the round-off floor: the floor ends it
])
def test_fem_static_is_reproduced(monkeypatch, element, alpha, steps, tol):
    m = fem.cantilever(8, 1, element, 0.3, slenderness=8.0)
    load = fem.tip_shear_load(m, alpha * fem.plane_strain_modulus(m) / 12 / m.mesh.length**2)
    with traced(monkeypatch, fem, "gradient") as old, \
            traced(monkeypatch, fem, "admissible") as old_adm:
        u_old = fem.static(m, load, steps=steps, tol=tol)
    with traced(monkeypatch, fem, "gradient") as new, \
            traced(monkeypatch, fem, "admissible") as new_adm:
        u_new, infos = fem_static_new(m, load, steps=steps, tol=tol)
    assert_same_path(old, new)
    assert_same_path(old_adm, new_adm)
    assert_round_off(u_old, u_new)
    if steps == 1:
        assert sum(i.backtracks for i in infos) > 0              # inadmissible trials cut
    if tol < 1e-14:
        assert all(i.residual > tol * np.abs(load).max() for i in infos)


# --------------------------------------------------------------------------------------
# actuation._fem_newton (follower pressure) and actuation.cable_static: as fem.static
# --------------------------------------------------------------------------------------
def test_actuation_fem_newton_is_reproduced_with_its_history(monkeypatch):
    m = fem.cantilever(10, 1, "T3")
    ch = actuation.make_chamber(m, "top")
    p, fr = 4e-4, m.free
    scale = float(np.abs(actuation.pressure_force(m, ch, np.zeros(m.n_dofs), p)[fr]).max())
    Kp = actuation.pressure_stiffness(m, ch, p)
    rec_old = []
    with traced(monkeypatch, fem, "admissible") as old:
        u_old, it_old = actuation._fem_newton(m, ch, p, np.zeros(m.n_dofs), 1e-13, 30, True,
                                              "test", rec_old)
    with traced(monkeypatch, fem, "admissible") as new:
        u_new, info = newton_solve(
            lambda u: (actuation.pressure_residual(m, ch, u, p), lambda: fem.hessian(m, u) + Kp),
            np.zeros(m.n_dofs), 1e-13, 30, max_backtracks=29, accept="none", scale=scale,
            floor=fem_floor(m), roundoff="residual", free=fr, record=True,
            admissible=lambda u: fem.admissible(m, u))
    assert info.iterations == it_old
    assert_same_path(old, new)
    assert_round_off(u_old, u_new)
    assert np.allclose(np.array(info.history) / scale, rec_old, rtol=0, atol=0)


def test_actuation_cable_static_is_reproduced(monkeypatch):
    m = fem.cantilever(10, 1, "T3")
    top = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.5))
    tau1, steps = np.array([4e-3]), 2
    with traced(monkeypatch, fem, "gradient") as old:
        _, U = actuation.cable_static(m, [top], tau1, steps=steps)
    scale = float(tau1.max())

    def solve_at(lam, u):
        tau = lam * tau1

        def fun(u):
            r = fem.gradient(m, u) + tau[0] * actuation.cable_gradient(m, top, u)
            return r, lambda: fem.hessian(m, u) + tau[0] * actuation.cable_hessian(m, top, u)

        return newton_solve(fun, u, 1e-10, 30, max_backtracks=29, accept="none", scale=scale,
                            floor=fem_floor(m), roundoff="residual", free=m.free,
                            admissible=lambda u: fem.admissible(m, u))

    with traced(monkeypatch, fem, "gradient") as new:
        u_new, _ = load_path(solve_at, np.zeros(m.n_dofs), steps=steps)
    assert_same_path(old, new)
    assert_round_off(U[-1], u_new)


# --------------------------------------------------------------------------------------
# incompressible.solve: per-entry scale and floor, divergence test, cuts that do not re-grow
# --------------------------------------------------------------------------------------
def incompressible_solve_new(body, load, steps=4, tol=1e-10, maxiter=25, max_cuts=6):
    fr, n_u, eps = body.free, body.n_u, EPS
    fscale, ascale = float(np.abs(load).max()), body.area.max()
    scale = np.concatenate([np.full(n_u, fscale), np.full(body.n_p, ascale)])
    barrier = body.material.model != "stable-neo-hookean"

    def solve_at(lam, x):
        state = {"knorm": 0.0, "scale": None}       # the floor's |K| comes from the last tangent

        def fun(x):
            r, sv = incompressible._residual(body, x, load * lam)
            state["scale"] = sv

            def tangent():
                K = incompressible.hessian(body, x)
                state["knorm"] = float(abs(K[fr][:, fr]).sum(axis=1).max())
                return K
            return r, tangent, scale

        def floor(x):
            fl = np.zeros(n_u + body.n_p)
            g = body.geom.free
            fl[g] = 64 * eps * np.maximum(state["scale"][g], state["knorm"] * np.abs(x).max())
            fl[n_u:] = 64 * eps * ascale
            return fl

        return newton_solve(fun, x, tol, maxiter, max_backtracks=29, accept="none",
                            floor=floor, roundoff="residual", diverge=1e8, free=fr,
                            admissible=(lambda x: bool(np.all(incompressible._det(
                                incompressible._F(body, x[:n_u])) > 0))) if barrier else None)

    return load_path(solve_at, np.zeros(n_u + body.n_p), steps=steps, adaptive=True,
                     max_cuts=max_cuts, regrow=False)


@pytest.mark.parametrize("form,nu,alpha,steps", [
    ("T6", 0.4999, 1.0, 1),          # the full increment fails: cut, cut, ...
    ("Fbar", 0.499, 0.5, 2),
    ("P2P1", 0.4999, 0.5, 1),        # mixed: a pressure block with its own scale and floor
])
def test_incompressible_solve_is_reproduced(monkeypatch, form, nu, alpha, steps):
    b = incompressible.cantilever(8, 1, form, incompressible.neo_hookean(1.0, nu))
    load = incompressible.tip_load(b, alpha)
    with traced(monkeypatch, incompressible, "_residual") as old:
        res = incompressible.solve(b, load, steps=steps)
    with traced(monkeypatch, incompressible, "_residual") as new:
        x_new, path = incompressible_solve_new(b, load, steps=steps)
    assert [t[1] for t in path.tried] == res.iterations          # failed attempts counted too
    assert_same_path(old, new)
    assert_round_off(res.x, x_new)
    if form == "T6":
        assert path.cuts > 0


# --------------------------------------------------------------------------------------
# crosscheck.rigid_clamp_static: plain Newton with phi_0 held, stop after a round-off step
# --------------------------------------------------------------------------------------
def rigid_clamp_new(r, load, steps=1, tol=1e-12, maxiter=30):
    load = np.asarray(load, dtype=float)
    scale = max(r.EI / r.L, np.abs(load[:2]).max(), abs(load[2]) / r.L)
    free = np.arange(1, r.ndof)
    infos = []

    def solve_at(lam, q):
        ld = load * lam
        q, info = newton_solve(lambda q: (rod.gradient(r, q, ld), lambda: rod.hessian(r, q)),
                               q, tol, maxiter, accept="none", scale=scale,
                               floor=64 * EPS * (r.EA + r.kGA), roundoff="step",
                               xtol=1e-14 * r.L, xtol_rel=0.0, free=free)
        infos.append(info)
        return q, info

    q, _ = load_path(solve_at, rod.straight(r), steps=steps)
    return q, infos


@pytest.mark.parametrize("N,r_over_L,load,steps", [
    (10, 0.04, (0.0, -0.3, 0.0), 2),
    (16, 0.002, (0.0, -0.5, 0.1), 1),      # slender: only the round-off step ends it
])
def test_crosscheck_rigid_clamp_static_is_reproduced(monkeypatch, N, r_over_L, load, steps):
    r = rod.make_rod(N, r_over_L)
    with traced(monkeypatch, rod, "gradient") as old:
        q_old = crosscheck.rigid_clamp_static(r, load, steps=steps)
    with traced(monkeypatch, rod, "gradient") as new:
        q_new, infos = rigid_clamp_new(r, load, steps)
    assert_same_path(old, new, rtol=1e-13)          # spsolve there, splu here: same SuperLU
    assert_round_off(q_old, q_new, rtol=1e-13)
    if r_over_L == 0.002:
        scale = max(1.0, np.abs(load).max())
        assert any(i.residual > 1e-12 * scale for i in infos)


# --------------------------------------------------------------------------------------
# crosscheck.skfem_static: updates to round-off, then one more
# --------------------------------------------------------------------------------------
def test_crosscheck_skfem_static_is_reproduced(monkeypatch):
    from skfem import asm
    m = fem.cantilever(4, 1, "T6", 0.3, slenderness=4.0)
    load = fem.tip_shear_load(m, 1.0 * fem.plane_strain_modulus(m) / 12 / m.mesh.length**2)
    steps = 2
    calls = []
    from lib.crosscheck import skfem as cc_skfem
    orig = cc_skfem.newton_step

    def counting(solve, where):
        calls.append(where)
        return orig(solve, where)

    monkeypatch.setattr(cc_skfem, "newton_step", counting)
    u_old = crosscheck.skfem_static(m, load, steps=steps)
    monkeypatch.undo()
    basis, perm = crosscheck.skfem_basis(m)
    _, residual, tangent = cc_skfem._nh_forms(m.mu, m.lam)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    free = np.setdiff1d(np.arange(basis.N), inv[m.fixed])
    fsk = np.asarray(load, dtype=float)[perm]
    iterations = []

    def solve_at(lam, u):
        fs = fsk * lam

        def fun(u):
            w = basis.interpolate(u)
            return asm(residual, basis, u=w) - fs, lambda: asm(tangent, basis, u=w)

        u, info = newton_solve(fun, u, 0.0, 40, accept="none", roundoff="extra", xtol=0.0,
                               xtol_rel=1e-13, free=free)
        iterations.append(info.iterations)
        return u, info

    u_sk, _ = load_path(solve_at, np.zeros(basis.N), steps=steps)
    u_new = np.empty(m.n_dofs)
    u_new[perm] = u_sk
    assert sum(iterations) == len(calls)           # one tangent solve per update, in both
    assert [int(w.split("/")[0].split()[-1]) for w in calls].count(1) == iterations[0]
    assert_round_off(u_old, u_new, rtol=1e-12)
