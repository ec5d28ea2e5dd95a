"""Equivalence of crosscheck.elastica's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401

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
