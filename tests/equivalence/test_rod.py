"""rod.static is one configured call of the shared floors (see test_integrate.py).

``old_static`` below is the loop ``lib.rod.static`` had before it moved onto
:func:`lib.solvers.newton_solve` and :func:`lib.solvers.load_path`, verbatim but for its
docstring (with its ``_newton_direction``, and ``_check_q`` as it was then).  The migrated ``rod.static`` must
evaluate the gradient at the same points in the same order (the same iterates, line-search
trials and iteration counts), return the same state to round-off, and fail where the old
loop failed.
"""
import contextlib

import numpy as np
import pytest
from scipy.linalg import LinAlgError, cho_solve_banded, cholesky_banded
from scipy.sparse.linalg import splu

from lib import kernels, rod
from lib.rod import (StaticSolveError, _banded_upper, check_grav, check_load, energy,
                     gradient, hessian, straight)
from lib.solvers import newton_solve

from .trace import assert_round_off, assert_same_path, traced


# --------------------------------------------------------------------------------------
# the old loop, verbatim
# --------------------------------------------------------------------------------------
def _check_q(rod, q):
    q = np.asarray(q, dtype=float)
    if q.shape != (rod.ndof,):
        raise ValueError(f"q must have shape ({rod.ndof},) for N={rod.N}, got {q.shape}")
    return q


def _newton_direction(rod, q, g):
    """Solve H dq = -g: banded Cholesky, sparse LU if H is not positive definite."""
    ab = _banded_upper(rod, q)
    try:
        cb = cholesky_banded(ab, lower=False)
        return cho_solve_banded((cb, False), -g), True
    except LinAlgError:
        try:
            lu = splu(hessian(rod, q).tocsc())
        except RuntimeError as err:                # SciPy: "Factor is exactly singular"
            raise StaticSolveError(
                f"the Hessian is singular at this state (sparse LU: {err})") from None
        return lu.solve(-g), False


def old_static(rod, load=None, grav=0.0, steps=10, q0=None, tol=1e-10, maxiter=50):
    load = check_load(load)
    grav = check_grav(grav)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    q = straight(rod) if q0 is None else _check_q(rod, q0).copy()
    fscale = max(rod.EI / rod.L, abs(load[0]), abs(load[1]), abs(load[2]) / rod.L,
                 abs(grav) * rod.rhoA * rod.L)
    # forces carry round-off ~ eps * (EA + S) from the stiff stretch and shear terms
    floor = 64 * np.finfo(float).eps * (rod.EA + rod.kGA)
    for j in range(1, steps + 1):
        lam = j / steps
        ld, gv = lam * load, lam * grav
        g = gradient(rod, q, ld, gv)
        res = np.abs(g).max()
        for it in range(maxiter + 1):
            if res <= tol * fscale:
                break
            try:
                dq, _ = _newton_direction(rod, q, g)
            except StaticSolveError as err:
                raise StaticSolveError(
                    f"Newton failed at load step {j}/{steps} (load factor {lam:.3g}), "
                    f"iteration {it}: {err}; residual {res:.3e}") from None
            small_step = np.abs(dq).max() <= 1e-14 * rod.L
            if small_step and res <= max(tol * fscale, floor):
                break
            if it == maxiter:
                raise StaticSolveError(
                    f"Newton did not converge at load step {j}/{steps} (load factor {lam:.3g}): "
                    f"{maxiter} iterations, residual {res:.3e} (target {tol * fscale:.3e})"
                )
            E0 = energy(rod, q, ld, gv)
            slope = float(g @ dq)
            t = 1.0
            while True:
                qt = q + t * dq
                gt = gradient(rod, qt, ld, gv)
                rt = np.abs(gt).max()
                Et = energy(rod, qt, ld, gv)
                if Et <= E0 + 1e-4 * t * min(slope, 0.0) or rt <= (1 - 1e-4 * t) * res:
                    break
                t *= 0.5
                if t < 1e-10:
                    raise StaticSolveError(
                        f"line search failed at load step {j}/{steps} (load factor {lam:.3g}), "
                        f"iteration {it}: residual {res:.3e}"
                    )
            q, g, res = qt, gt, rt
    return q


# --------------------------------------------------------------------------------------
# the migrated rod.static reproduces it
# --------------------------------------------------------------------------------------
def _keep(infos, out):
    infos.append(out[1])
    return out


def _run(monkeypatch, static, r, *args, **kw):
    """(state or the error raised, the points where the gradient was evaluated)."""
    with traced(monkeypatch, rod, "_gradient") as calls:
        try:
            out = static(r, *args, **kw)
        except StaticSolveError as err:
            out = err
    return out, calls


@pytest.mark.parametrize("N,r_over_L,load,grav,steps,numpy", [
    (12, 0.04, (0.5, -6.0, 0.3), 0.0, 1, False),   # large load in one increment: line search
    (12, 0.04, (0.5, -6.0, 0.3), 0.0, 1, True),    # the same with the NumPy code (no kernels)
    (20, 0.002, (0.0, -1e-3, 0.0), 0.0, 10, False),  # slender rod: stops at the round-off floor
    (8, 0.04, (0.0, 0.0, 0.0), 2.0, 3, False),     # gravity only
    (10, 0.03, (0.0, 0.0, 4.0), 0.5, 2, False),    # tip moment and gravity
])
def test_rod_static_is_reproduced(monkeypatch, N, r_over_L, load, grav, steps, numpy):
    r = rod.make_rod(N, r_over_L)
    infos = []
    with kernels.disabled() if numpy else contextlib.nullcontext():
        q_old, old = _run(monkeypatch, old_static, r, load, grav, steps=steps)
        with monkeypatch.context() as mp:
            mp.setattr(rod, "newton_solve", lambda *a, **k: _keep(infos, newton_solve(*a, **k)))
            q_new, new = _run(monkeypatch, rod.static, r, load, grav, steps=steps)
    assert_same_path(old, new)
    assert_round_off(q_old, q_new)
    assert len(infos) == steps
    if steps == 1:                              # the line search was used
        assert infos[0].backtracks > 0
    if r_over_L == 0.002:                       # the floor stop was used
        assert any(i.residual > 1e-10 * max(r.EI / r.L, 1e-3) for i in infos)


def test_rod_static_from_a_start_state_is_reproduced(monkeypatch):
    r = rod.make_rod(9, 0.05, nu=0.3)
    q0 = rod.static(r, (0.0, -1.0, 0.0), steps=2)
    q_old, old = _run(monkeypatch, old_static, r, (0.3, -2.0, 0.0), steps=2, q0=q0)
    q_new, new = _run(monkeypatch, rod.static, r, (0.3, -2.0, 0.0), steps=2, q0=q0)
    assert_same_path(old, new)
    assert_round_off(q_old, q_new)


@pytest.mark.parametrize("maxiter", [0, 1, 2])
def test_rod_static_fails_where_the_old_loop_failed(monkeypatch, maxiter):
    r = rod.make_rod(10, 0.04)
    err_old, old = _run(monkeypatch, old_static, r, (0.0, -8.0, 0.0), steps=2, maxiter=maxiter)
    err_new, new = _run(monkeypatch, rod.static, r, (0.0, -8.0, 0.0), steps=2, maxiter=maxiter)
    assert isinstance(err_old, StaticSolveError) and isinstance(err_new, StaticSolveError)
    assert_same_path(old, new)
    assert f"load step {err_new.step}/2" in str(err_old)
    assert f"{err_new.iteration} iterations" in str(err_old)
    assert (err_new.where, err_new.nsteps, err_new.reason) == ("rod.static", 2, "maxiter")
