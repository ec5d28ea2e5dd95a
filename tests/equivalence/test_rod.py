"""Equivalence of rod's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401

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
