"""rod3d's Newton loops are the shared floors' now: each is checked against its old body.

``old_static`` and ``old_lie_newmark`` are the loops of ``lib.rod3d`` before the
migration, verbatim (names qualified with their modules; the lines marked
``# (recorded)`` only count what the test asserts was exercised).  ``static`` must
evaluate the residual at the same points in the same order (so the same iterates,
line-search trials and iteration counts) and end at the same state to round-off (see
test_integrate.py).

``lie_newmark`` has since changed its *solver* (issue 25: the exact tangent with the
rotational terms, the constant-configuration start, a line search and step halving), not
its scheme: where the old modified Newton converges, both solve the same Newmark
equations, so they must end at the same state to the solver's tolerance.  The new
solver's own properties (FD-exact tangent, order 2, large-step releases the old loop
could not take) are tested in tests/test_rod3d.py.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from lib import rod3d
from lib.rod3d import State, StaticSolveError

from .trace import assert_round_off, assert_same_path, traced


# --------------------------------------------------------------------------------------
# rod3d.static before the floors: natural monotonicity, SO(3) retraction, fixed dofs
# --------------------------------------------------------------------------------------
def old_static(rod, load=None, grav=0.0, steps=10, state0=None, tol=1e-10, maxiter=50,
               moment="conservative", fixed=None, stats=None):
    load, grav = rod3d.check_load(load), float(grav)            # rod.check_grav(grav)
    if moment not in ("conservative", "dead"):
        raise ValueError(f"moment must be 'conservative' or 'dead', got {moment!r}")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    state = rod3d.straight(rod) if state0 is None else State(*rod3d._check_state(rod, state0))
    free = np.ones(rod.ndof, dtype=bool)
    if fixed is not None:
        fixed = np.asarray(fixed, dtype=int)
        if fixed.ndim != 1 or np.any((fixed < 0) | (fixed >= rod.ndof)):
            raise ValueError(f"fixed must be dof indices in 0..{rod.ndof - 1}, got {fixed!r}")
        free[fixed] = False
    fscale = max(rod.EI / rod.L, np.abs(load[:3]).max(), np.abs(load[3:]).max() / rod.L,
                 abs(grav) * rod.rhoA * rod.L)
    floor = 16 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(rod.N, 4)
    for j in range(1, steps + 1):
        lam = j / steps
        ld, gv = lam * load, lam * grav
        g, K = rod3d.residual_tangent(rod, state, ld, gv, moment)
        g, K = g[free], K[free][:, free]
        res = np.abs(g).max()
        for it in range(maxiter + 1):
            if res <= tol * fscale:
                break
            try:
                lu = splu(K.tocsc())
            except RuntimeError as exc:
                raise StaticSolveError(f"singular tangent at load step {j}/{steps}, iteration "
                                       f"{it}: residual {res:.3e} ({exc})") from None
            dq = np.zeros(rod.ndof)
            dq[free] = lu.solve(-g)
            ndq = np.linalg.norm(dq)
            if np.abs(dq).max() <= 1e-14 * rod.L and res <= max(tol * fscale, floor):
                break
            if it == maxiter:
                raise StaticSolveError(
                    f"Newton did not converge at load step {j}/{steps} (load factor {lam:.3g}): "
                    f"{maxiter} iterations, residual {res:.3e} (target {tol * fscale:.3e})")
            # damped Newton with Deuflhard's natural monotonicity test: the simplified
            # Newton correction K^{-1} r(new) must shrink (affine invariant, so the stiff
            # stretch and shear terms do not stall the line search)
            t = 1.0
            while True:
                st = rod3d.retract(rod, state, t * dq)
                gt = rod3d.residual_tangent(rod, st, ld, gv, moment, tangent=False)[free]
                rt = np.abs(gt).max()
                if (rt <= tol * fscale or np.linalg.norm(lu.solve(-gt)) <= (1 - 0.25 * t) * ndq
                        or rt <= floor):
                    break
                t *= 0.5
                stats["backtracks"] += 1                                      # (recorded)
                if t < 1e-8:
                    raise StaticSolveError(f"line search failed at load step {j}/{steps}, "
                                           f"iteration {it}: residual {res:.3e}")
            state, res = st, rt
            g, K = rod3d.residual_tangent(rod, state, ld, gv, moment)
            g, K = g[free], K[free][:, free]
        stats["residual"].append(res / fscale)                                # (recorded)
    return state


def _stats():
    return {"backtracks": 0, "residual": [], "iterations": []}


@pytest.mark.parametrize("N,load,steps,moment,fixed", [
    (10, [0.0, -4.0, 2.0, 0.5, 0.0, 1.0], 2, "conservative", None),
    (8, [0.0, 0.0, -3.0, 0.0, 2.0, 0.0], 1, "dead", None),
    (8, [1.0, -2.0, 0.0], 3, "conservative", [0, 1, 2]),
])
def test_rod3d_static_is_reproduced(monkeypatch, N, load, steps, moment, fixed):
    m = rod3d.make_rod3d(N)
    stats = _stats()
    with traced(monkeypatch, rod3d, "_residual_tangent") as old:
        s_old = old_static(m, load, steps=steps, moment=moment, fixed=fixed, stats=stats)
    with traced(monkeypatch, rod3d, "_residual_tangent") as new:
        s_new = rod3d.static(m, load, steps=steps, moment=moment, fixed=fixed)
    assert_same_path(old, new)
    assert_round_off(s_old, s_new)
    if steps == 1:
        assert stats["backtracks"] > 0                 # the natural-monotonicity cut acted


def test_rod3d_static_floor_stop_is_reproduced(monkeypatch):
    # a slender rod in the helix of the Love wrench: the residual ends at its floor
    m = rod3d.make_rod3d(20, r_over_L=0.002)
    s0, load, _ = rod3d.helix(m, 0.5, 0.15, 0.0)
    stats = _stats()
    with traced(monkeypatch, rod3d, "_residual_tangent") as old:
        s_old = old_static(m, load, steps=1, state0=s0, moment="dead", stats=stats)
    with traced(monkeypatch, rod3d, "_residual_tangent") as new:
        s_new = rod3d.static(m, load, steps=1, state0=s0, moment="dead")
    assert_same_path(old, new)
    assert_round_off(s_old, s_new)
    assert stats["residual"][0] > 1e-10                # the stop at round-off ended it


# --------------------------------------------------------------------------------------
# rod3d.lie_newmark before the floors: modified Newton (tangent every 4th iteration)
# --------------------------------------------------------------------------------------
def old_lie_newmark(rod, state, v, w, dt, nsteps, load=None, grav=0.0, beta=0.25, gamma=0.5,
                    every=1, observe=None, tol=1e-10, maxiter=30, stats=None):
    x, Q = rod3d._check_state(rod, state)
    N = rod.N
    M = rod3d.mass(rod)
    J = rod3d.inertia(rod)
    st = State(x, Q)
    V = np.empty((N, 6))
    V[:, :3], V[:, 3:] = w, v

    def eom(s, Vn, A):
        g = rod3d.gradient(rod, s, load, grav).reshape(N, 6)
        wn = Vn[:, :3]
        r = M.reshape(N, 6) * A + g
        r[:, :3] += np.cross(wn, J * wn)
        return r.ravel()

    a0, al0 = rod3d.accelerations(rod, st, v, w, load, grav)
    A = np.column_stack([al0, a0])
    scale = max(rod.EI / rod.L, np.abs(M.reshape(N, 6) * A).max(), 1e-300)
    # round-off floor of the stiff forces: EA (x_{e+1} - x_e)/ell carries ~ eps |x|/ell
    floor = 16 * np.finfo(float).eps * (rod.EA + rod.kGA) * rod.N
    rec = [] if observe is None else [observe(st, V[:, 3:].copy(), V[:, :3].copy())]
    for n in range(1, nsteps + 1):
        An = A.copy()
        lu = None
        for it in range(maxiter + 1):
            Delta = dt * V + dt * dt * ((0.5 - beta) * A + beta * An)
            s1 = rod3d.retract(rod, st, Delta.ravel())
            V1 = V + dt * ((1 - gamma) * A + gamma * An)
            r = eom(s1, V1, An)
            res = np.abs(r).max()
            if res <= max(tol * scale, floor):
                break
            if it == maxiter:
                raise StaticSolveError(f"Lie-Newmark: step {n} (t = {n * dt:.4g}), "
                                       f"{maxiter} iterations, residual {res:.3e}")
            if lu is None or it % 4 == 0:
                S = sp.diags(M) + (dt * dt * beta) * rod3d.hessian(rod, s1, load)
                lu = splu(S.tocsc())
            An = An - lu.solve(r).reshape(N, 6)
        stats["iterations"].append(it)                                        # (recorded)
        st, V, A = s1, V1, An
        if observe is not None and n % every == 0:
            rec.append(observe(st, V[:, 3:].copy(), V[:, :3].copy()))
    return st, V[:, 3:].copy(), V[:, :3].copy(), rec


@pytest.mark.parametrize("load,grav", [(None, 0.0), ((0.0, -1.0, 0.5, 0.2, 0.0, 0.1), 0.3)])
def test_rod3d_lie_newmark_solves_the_old_loops_equations(load, grav):
    m = rod3d.make_rod3d(6)
    rng = np.random.default_rng(9)
    v0, w0 = 1e-2 * rng.standard_normal((6, 3)), 1e-2 * rng.standard_normal((6, 3))
    dt = 10 * 2.0 / rod3d.frequencies(m)[-1]          # far beyond the explicit limit
    stats = _stats()
    out_old = old_lie_newmark(m, rod3d.straight(m), v0, w0, dt, 4, load, grav, stats=stats)
    out_new = rod3d.lie_newmark(m, rod3d.straight(m), v0, w0, dt, 4, load, grav,
                                max_halvings=0)
    for a, b in zip((*out_old[0], *out_old[1:3]), (*out_new[0], *out_new[1:3])):
        assert np.abs(a - b).max() <= 1e-9 * max(np.abs(a).max(), 1.0)
    assert max(stats["iterations"]) > 4              # the old tangent was refreshed


def test_rod3d_lie_newmark_failure_says_the_step_and_iteration():
    m = rod3d.make_rod3d(6)
    z = np.zeros((6, 3))
    with pytest.raises(StaticSolveError, match=r"Lie-Newmark: step 1 \(t = 0\.5\), iteration 1, "
                                               r"residual .*iteration limit reached"):
        rod3d.lie_newmark(m, rod3d.straight(m), z, z, 0.5, 2, load=(0.0, -30.0, 0.0), maxiter=1)
