"""Equivalence of actuation's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, fem_floor, traced  # noqa: F401

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
