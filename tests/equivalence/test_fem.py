"""Equivalence of fem's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, fem_floor, traced  # noqa: F401

# --------------------------------------------------------------------------------------
# fem.static: plain Newton, det F > 0 admissibility, absolute floor
# --------------------------------------------------------------------------------------
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
