"""incompressible's Newton / load-step loop is the shared floors (see test_integrate.py).

``incompressible.solve`` is :func:`lib.solvers.newton_solve` (per-entry scale and floor,
divergence test) along an adaptive :func:`lib.solvers.load_path` whose cuts do not
re-grow; its old body is kept below, verbatim but for the private helpers it calls
through ``inc.`` (the extra terms now one of them), as the reference it must reproduce
evaluation for evaluation.
"""
import time

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lib import incompressible as inc
from lib.incompressible import ConvergenceError, SolveResult, hessian

from .trace import assert_round_off, assert_same_path, traced


def old_incompressible_solve(body, load, steps=4, tol=1e-10, maxiter=25, x0=None, max_cuts=6,
                             extra=None, extra_scale=None):
    """lib.incompressible.solve before the floors."""
    if not (isinstance(steps, (int, np.integer)) and steps >= 1):
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    load = np.asarray(load, dtype=float)
    if load.shape != (body.n_u,):
        raise ValueError(f"load must have shape ({body.n_u},), got {load.shape}")
    fr = body.free
    nu_free = body.geom.free.size
    x = np.zeros(body.n_u + body.n_p) if x0 is None else np.array(x0, dtype=float)
    if extra is not None and not callable(extra):
        raise ValueError(f"extra must be a callable extra(u, factor) -> (g, H), got {extra!r}")
    fscale = max(float(np.abs(load).max()), 0.0 if extra_scale is None else float(extra_scale))
    if not (np.isfinite(fscale) and fscale > 0):
        raise ValueError("load is zero (give extra_scale when the load comes from extra)")
    ascale = body.area.max()
    eps = np.finfo(float).eps
    barrier = body.material.model != "stable-neo-hookean"
    iters, clock = [], {"asm": 0.0, "sol": 0.0}

    def newton(x, factor):
        """Newton at the load factor: (x, iterations, residual, converged)."""
        fs = load * factor
        knorm, res = 0.0, np.inf
        for it in range(maxiter + 1):
            t0 = time.perf_counter()
            r, scale = inc._residual(body, x, fs)
            if extra is not None:
                g_extra, H_extra = inc._extra_terms(body, extra, x, factor)
                r = r + g_extra
                scale = scale + np.abs(g_extra[:body.n_u])
            clock["asm"] += time.perf_counter() - t0
            rf = r[fr]
            ru, rp = np.abs(rf[:nu_free]), np.abs(rf[nu_free:])
            res = max(ru.max() / fscale, rp.max() / ascale if rp.size else 0.0)
            if not np.isfinite(res) or res > 1e8:
                return x, it, res, False
            floor_u = 64 * eps * np.maximum(scale[body.geom.free], knorm * np.abs(x).max())
            at_floor = np.all(ru <= floor_u) and (rp.size == 0 or rp.max() <= 64 * eps * ascale)
            if res <= tol or at_floor:
                return x, it, res, True
            if it == maxiter:
                return x, it, res, False
            t0 = time.perf_counter()
            K = hessian(body, x)
            if extra is not None and H_extra is not None:
                K = K + H_extra
            K = K[fr][:, fr].tocsc()
            clock["asm"] += time.perf_counter() - t0
            knorm = float(abs(K).sum(axis=1).max())
            t0 = time.perf_counter()
            try:
                dx = spla.splu(K).solve(rf)
            except RuntimeError:              # SuperLU: exactly singular tangent
                return x, it, res, False
            clock["sol"] += time.perf_counter() - t0
            t = 1.0
            for _ in range(30):
                trial = x.copy()
                trial[fr] -= t * dx
                if not barrier or np.all(inc._det(inc._F(body, trial[:body.n_u])) > 0):
                    break
                t *= 0.5
            else:
                return x, it, res, False
            x = trial
        return x, maxiter, res, False

    lam, dlam, cuts, res = 0.0, 1.0 / steps, 0, 0.0
    while lam < 1.0 - 1e-12:
        target = min(1.0, lam + dlam)
        xn, it, res, ok = newton(x.copy(), target)
        iters.append(it)
        if ok:
            x, lam, cuts = xn, target, 0
            continue
        cuts += 1
        if cuts > max_cuts:
            raise ConvergenceError(f"Newton failed at load factor {target:.4g} (converged up to "
                                   f"{lam:.4g}) after {max_cuts} increment cuts: relative "
                                   f"residual {res:.3e} after {it} iterations")
        dlam *= 0.5
    return SolveResult(x, iters, True, float(res), clock["asm"], clock["sol"])


def _cable(body, tau=0.02):
    """A configuration-dependent load through ``extra`` (a follower-like pull with stiffness)."""
    top = np.flatnonzero(np.isclose(body.geom.mesh.nodes[:, 1], 0.5))
    g0 = np.zeros(body.n_u)
    g0[2 * top] = -tau / top.size

    def extra(u, s):
        K = sp.diags(np.full(body.n_u, 1e-3 * s)).tocsr()
        return s * g0 + K @ u, K
    return extra


@pytest.mark.parametrize("form,nu,alpha,steps,extra", [
    ("T6", 0.4999, 1.0, 1, False),   # the full increment fails: cut, cut, ...
    ("Fbar", 0.499, 0.5, 2, False),
    ("P2P1", 0.4999, 0.5, 1, False),  # mixed: a pressure block with its own scale and floor
    ("P2P1", 0.49, 0.3, 2, True),     # an extra load with its own stiffness
])
def test_incompressible_solve_reproduces_its_old_loop(monkeypatch, form, nu, alpha, steps,
                                                      extra):
    b = inc.cantilever(8, 1, form, inc.neo_hookean(1.0, nu))
    load = inc.tip_load(b, alpha)
    kw = dict(extra=_cable(b), extra_scale=0.02) if extra else {}
    with traced(monkeypatch, inc, "_residual") as old:
        res_old = old_incompressible_solve(b, load, steps=steps, **kw)
    with traced(monkeypatch, inc, "_residual") as new:
        res_new = inc.solve(b, load, steps=steps, **kw)
    assert res_new.iterations == res_old.iterations              # failed attempts counted too
    assert_same_path(old, new)
    assert_round_off(res_old.x, res_new.x)
    if form == "T6":
        assert len(res_old.iterations) > steps                     # increments were cut


def test_incompressible_solve_fails_where_its_old_loop_did():
    b = inc.cantilever(10, 1, "T6", inc.neo_hookean(1.0, 0.4999))
    load = inc.tip_load(b, 1.0)
    with pytest.raises(ConvergenceError, match=r"load factor 0.5 .* after 1 increment cuts"):
        old_incompressible_solve(b, load, steps=1, maxiter=2, max_cuts=1)
    with pytest.raises(ConvergenceError, match=r"λ = 0.5.*cut limit") as err:
        inc.solve(b, load, steps=1, maxiter=2, max_cuts=1)
    assert err.value.iteration == 2
