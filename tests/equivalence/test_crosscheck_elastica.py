"""crosscheck.elastica's Newton loop is the shared floors' now: checked against its old body.

``old_rigid_clamp_static`` is ``lib.crosscheck.rigid_clamp_static`` before the migration,
verbatim (names qualified; the line marked ``# (recorded)`` only keeps the final
residuals the test asserts on).  The public function must evaluate the gradient at the
same points in the same order and end at the same state to round-off (see
test_integrate.py).
"""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

from lib import crosscheck, rod

from .trace import assert_round_off, assert_same_path, check_count, newton_step, traced


# --------------------------------------------------------------------------------------
# crosscheck.rigid_clamp_static before the floors: plain Newton with phi_0 held, stop
# after a round-off step
# --------------------------------------------------------------------------------------
def old_rigid_clamp_static(model, load, steps=1, tol=1e-12, maxiter=30, residuals=None):
    load = np.asarray(load, dtype=float)
    if load.shape != (3,) or not np.all(np.isfinite(load)):
        raise ValueError(f"load must be a finite (Px, Py, M), got {load!r}")
    steps = check_count(steps, "steps")
    q = rod.straight(model).astype(float)
    # force scale as in rod.static, and the round-off floor of the stiff (axial, shear) terms
    scale = max(model.EI / model.L, np.abs(load[:2]).max(), abs(load[2]) / model.L)
    floor = 64 * np.finfo(float).eps * (model.EA + model.kGA)
    for step in range(1, steps + 1):
        ld = load * step / steps
        dq = np.inf
        for it in range(maxiter + 1):
            g = rod.gradient(model, q, ld)[1:]
            res = np.abs(g).max()
            if res <= tol * scale or (dq <= 1e-14 * model.L and res <= floor):
                break
            if it == maxiter:
                raise RuntimeError(f"rigid-clamp Newton: load step {step}/{steps}, "
                                   f"{maxiter} iterations, residual {res:.3e}")
            step_q = newton_step(lambda: spla.spsolve(rod.hessian(model, q)[1:, 1:].tocsc(), g),
                                 f"rigid-clamp Newton: load step {step}/{steps}, iteration {it}")
            q[1:] -= step_q
            dq = np.abs(step_q).max()
        residuals.append(res / scale)                                         # (recorded)
    return q


@pytest.mark.parametrize("N,r_over_L,load,steps", [
    (10, 0.04, (0.0, -0.3, 0.0), 2),
    (16, 0.002, (0.0, -0.5, 0.1), 1),      # slender: only the round-off step ends it
])
def test_crosscheck_rigid_clamp_static_is_reproduced(monkeypatch, N, r_over_L, load, steps):
    r = rod.make_rod(N, r_over_L)
    residuals = []
    with traced(monkeypatch, rod, "gradient") as old:
        q_old = old_rigid_clamp_static(r, load, steps=steps, residuals=residuals)
    with traced(monkeypatch, rod, "gradient") as new:
        q_new = crosscheck.rigid_clamp_static(r, load, steps=steps)
    assert_same_path(old, new, rtol=1e-13)          # spsolve there, splu here: same SuperLU
    assert_round_off(q_old, q_new, rtol=1e-13)
    if r_over_L == 0.002:
        assert max(residuals) > 1e-12               # the stop at round-off ended it
