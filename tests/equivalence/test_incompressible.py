"""Equivalence of incompressible's Newton / load-step loops with the shared floors (see test_integrate.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import actuation, crosscheck, fem, incompressible, rod, rod3d
from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401

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
