"""Equivalence of crosscheck.skfem's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401

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
