"""Equivalence of actuation's Newton / load-step loops with the shared floors (see test_integrate.py).

actuation's three loops (``_newton`` at fixed tensions inside ``static_path``, ``_fem_newton``
under a follower pressure, the loop of ``cable_static``) are configured calls of
:func:`lib.solvers.newton_solve` and :func:`lib.solvers.load_path` now; their old bodies are
kept below, verbatim but for the module prefix of the model functions they call, as the
reference the public functions must reproduce evaluation for evaluation.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from lib import actuation, fem, rod
from lib.actuation import ActuationSolveError, energy, gradient, hessian

from .trace import EPS, assert_round_off, assert_same_path, traced  # noqa: F401


# --------------------------------------------------------------------------------------
# actuation._newton and static_path: the old bodies, verbatim
# --------------------------------------------------------------------------------------
def _solve(K, b, what):
    """Sparse LU solve of K x = b (b may have several columns), errors wrapped."""
    try:
        lu = splu(sp.csc_matrix(K))
        x = lu.solve(np.asarray(b, dtype=float))
    except RuntimeError as err:      # SuperLU: "Factor is exactly singular"
        raise ActuationSolveError(f"{what}: the tangent stiffness is singular ({err})") from None
    if not np.all(np.isfinite(x)):
        raise ActuationSolveError(f"{what}: the tangent solve produced non-finite values")
    return x


def old_newton(rod, tendons, tau, q, load, grav, tol, maxiter, where):
    """Newton with an energy/residual line search at fixed tensions; returns (q, iterations)."""
    fscale = max(rod.EI / rod.L, float(np.max(tau, initial=0.0)),
                 0.0 if load is None else float(np.abs(load).max()), abs(grav) * rod.rhoA * rod.L)
    # forces carry round-off ~ eps (EA + S) |x| / ell: node differences lose log10(N) digits
    floor = 8 * np.finfo(float).eps * (rod.EA + rod.kGA) * max(64.0, rod.N)
    g = gradient(rod, q, tendons, tau, load, grav)
    res = float(np.abs(g).max())
    for it in range(maxiter + 1):
        if res <= tol * fscale:
            return q, it
        dq = -_solve(hessian(rod, q, tendons, tau), g, where)
        if np.abs(dq).max() <= 1e-14 * rod.L and res <= max(tol * fscale, floor):
            return q, it
        if it == maxiter:
            break
        E0 = energy(rod, q, tendons, tau, load, grav)
        slope = float(g @ dq)
        step = 1.0
        while True:
            qt = q + step * dq
            try:
                gt = gradient(rod, qt, tendons, tau, load, grav)
                Et = energy(rod, qt, tendons, tau, load, grav)
                rt = float(np.abs(gt).max())
            except ValueError:          # eyelets collapsed: too long a step
                rt, Et = np.inf, np.inf
            if Et <= E0 + 1e-4 * step * min(slope, 0.0) or rt <= (1 - 1e-4 * step) * res:
                break
            step *= 0.5
            if step < 1e-10:
                raise ActuationSolveError(f"{where}: line search failed at iteration {it}, "
                                          f"residual {res:.3e}")
        q, g, res = qt, gt, rt
    raise ActuationSolveError(f"{where}: Newton did not converge in {maxiter} iterations, "
                              f"residual {res:.3e} (target {tol * fscale:.3e})")


def old_static_path(rod_, tendons, tau1, steps=10, load=None, grav=0.0, q0=None, tau0=None,
                    tol=1e-10, maxiter=50):
    """The old body of static_path after its checks (``rod_``: the rod)."""
    q = rod.straight(rod_) if q0 is None else np.array(q0, dtype=float)
    load = None if load is None else np.asarray(load, dtype=float)
    lam0 = 0.0 if tau0 is None and q0 is None else 1.0
    tau0 = np.zeros_like(tau1) if tau0 is None else tau0
    taus = tau0 + np.linspace(0.0, 1.0, steps + 1)[:, None] * (tau1 - tau0)
    Q = np.empty((steps + 1, rod_.ndof))
    if lam0:            # the straight, unloaded start needs no solve
        q, _ = old_newton(rod_, tendons, taus[0], q, None if load is None else load, grav,
                          tol, maxiter, "start state")
    Q[0] = q
    for j in range(1, steps + 1):
        lam = j / steps if lam0 == 0.0 else 1.0
        q, _ = old_newton(rod_, tendons, taus[j], q, None if load is None else lam * load, lam * grav,
                          tol, maxiter, f"load step {j}/{steps} (tensions {np.round(taus[j], 6).tolist()})")
        Q[j] = q
    return taus, Q


def _arm(tau):
    r = rod.make_rod(12)
    tendons = [actuation.make_tendon(r, 0.03), actuation.make_tendon(r, -0.02, anchor=6)]
    return r, tendons[:len(tau)], np.array(tau)


@pytest.mark.parametrize("tau", [[4.0], [40.0, 0.0], [25.0, 5.0]])
def test_actuation_newton_is_reproduced(monkeypatch, tau):
    r, tendons, tau = _arm(tau)
    q0 = rod.straight(r)
    with traced(monkeypatch, rod, "gradient") as old_g, traced(monkeypatch, rod, "hessian") as old:
        q_old, it_old = old_newton(r, tendons, tau, q0, None, 0.0, 1e-10, 50, "test")
    # the tangent is assembled in banded storage now (rod.banded_hessian, the same matrix)
    with traced(monkeypatch, rod, "gradient") as new_g, \
            traced(monkeypatch, rod, "banded_hessian") as new:
        q_new, info = actuation._equilibrium(r, tendons, tau, q0, None, 0.0, 1e-10, 50)
    assert info.iterations == it_old
    # banded Cholesky now, SuperLU in the old loop: the same iterates to round-off (the
    # tangent's condition number is about 7e5: the two solves may differ by cond * eps ~ 1.6e-10)
    assert_same_path(old, new, rtol=1e-10)            # the same iterates
    assert_same_path(old_g, new_g, rtol=1e-10)        # and the same line-search trials
    assert_round_off(q_old, q_new, rtol=1e-10)
    if tau[0] >= 25:
        assert info.backtracks > 0


@pytest.mark.parametrize("kw", [dict(steps=3), dict(steps=2, load=(0.1, -0.3, 0.05), grav=0.4),
                                dict(steps=2, tau0=np.array([5.0, 1.0]), grav=0.2)])
def test_actuation_static_path_is_reproduced(monkeypatch, kw):
    r, tendons, tau = _arm([25.0, 5.0])
    kw = dict(kw)
    if "tau0" in kw:
        kw["q0"] = rod.straight(r)
    with traced(monkeypatch, rod, "gradient") as old:
        taus_old, Q_old = old_static_path(r, tendons, tau, **kw)
    kw["tensions0"] = kw.pop("tau0", None)
    with traced(monkeypatch, rod, "gradient") as new:
        taus_new, Q_new = actuation.static_path(r, tendons, tau, **kw)
    assert_same_path(old, new, rtol=1e-10)            # banded Cholesky vs SuperLU: round-off
    assert np.array_equal(taus_old, taus_new)
    assert_round_off(Q_old, Q_new, rtol=1e-10)


# --------------------------------------------------------------------------------------
# actuation._fem_newton (follower pressure) and the cable_static loop: the old bodies
# --------------------------------------------------------------------------------------
def _admissible_step(model, u, fr, du, where, status):
    """``u`` with ``t du`` taken off its free dofs ``fr``, ``t = 1, 1/2, ...`` halved until no
    element inverts (at most 30 halvings); ``ActuationSolveError`` naming ``where`` and
    ``status`` when every step inverts an element."""
    t = 1.0
    for _ in range(30):
        trial = u.copy()
        trial[fr] -= t * du
        if fem.admissible(model, trial):
            return trial
        t *= 0.5
    raise ActuationSolveError(f"{where}: every Newton step inverts an element ({status})")


def old_fem_newton(model, chamber, p, u, tol, maxiter, load_stiffness, where, record=None,
                   states=None):
    fr = model.free
    scale = max(float(np.abs(actuation.pressure_force(model, chamber, np.zeros(model.n_dofs), p)[fr]).max()),
                np.finfo(float).tiny)
    Kp = actuation.pressure_stiffness(model, chamber, p)
    # round-off floor of the internal force (as in lib.fem.static): eps x the terms summed
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * float(node_scale.max())
    res = np.inf
    for it in range(maxiter + 1):
        r = actuation.pressure_residual(model, chamber, u, p)[fr]
        res = float(np.abs(r).max())
        if record is not None:
            record.append(res / scale)
        if states is not None:
            states.append(u.copy())
        if res <= max(tol * scale, floor):
            return u, it
        if it == maxiter:
            break
        K = fem.hessian(model, u)
        if load_stiffness:
            K = K + Kp
        try:
            du = splu(sp.csc_matrix(K[fr][:, fr])).solve(r)
        except RuntimeError as err:
            raise ActuationSolveError(f"{where}: singular tangent at iteration {it} ({err})") from None
        u = _admissible_step(model, u, fr, du, f"{where}, iteration {it}",
                             f"relative residual {res / scale:.3e}")
    raise ActuationSolveError(f"{where}: Newton did not converge in {maxiter} iterations, "
                              f"relative residual {res / scale:.3e} (target {tol:.1e})")


def old_pressure_static(model, chamber, p1, steps, tol=1e-10, maxiter=30, load_stiffness=True):
    """The old body of pressure_static after its checks."""
    u = np.zeros(model.n_dofs)
    ps = np.linspace(0.0, p1, steps + 1)
    U = np.empty((steps + 1, model.n_dofs))
    U[0] = u
    for j in range(1, steps + 1):
        u, _ = old_fem_newton(model, chamber, ps[j], u, tol, maxiter, load_stiffness,
                              f"pressure step {j}/{steps} (p = {ps[j]:.4g})")
        U[j] = u
    return ps, U


@pytest.mark.parametrize("load_stiffness", [True, False])
def test_actuation_fem_newton_is_reproduced_with_its_history(monkeypatch, load_stiffness):
    m = fem.cantilever(10, 1, "T3")
    ch = actuation.make_chamber(m, "top")
    p = 4e-4
    rec_old, states_old = [], []
    with traced(monkeypatch, fem, "admissible") as old:
        old_fem_newton(m, ch, p, np.zeros(m.n_dofs), 1e-13, 30, load_stiffness, "test", rec_old,
                       states_old)
    with traced(monkeypatch, fem, "admissible") as new:
        rec_new, states_new = actuation.newton_history(m, ch, p, np.zeros(m.n_dofs), load_stiffness,
                                                       return_states=True)
    assert_same_path(old, new)
    assert np.array_equal(rec_old, rec_new)
    assert_round_off(np.array(states_old), states_new)


def test_actuation_pressure_static_is_reproduced(monkeypatch):
    m = fem.cantilever(10, 1, "T3")
    ch = actuation.make_chamber(m, "top")
    with traced(monkeypatch, fem, "admissible") as old:
        ps_old, U_old = old_pressure_static(m, ch, 3e-3, 3)
    with traced(monkeypatch, fem, "admissible") as new:
        ps_new, U_new = actuation.pressure_static(m, ch, 3e-3, steps=3)
    assert len(old) > 3 * 3
    assert_same_path(old, new)
    assert np.array_equal(ps_old, ps_new)
    assert_round_off(U_old, U_new)


def old_cable_static(model, cables, tau1, steps=10, tol=1e-10, maxiter=30):
    """The old body of cable_static after its checks."""
    fr = model.free
    u = np.zeros(model.n_dofs)
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * float(node_scale.max())
    scale = max(float(tau1.max(initial=0.0)), np.finfo(float).tiny)
    taus = np.linspace(0.0, 1.0, steps + 1)[:, None] * tau1
    U = np.empty((steps + 1, model.n_dofs))
    U[0] = u
    for j in range(1, steps + 1):
        tau = taus[j]
        res = np.inf
        for it in range(maxiter + 1):
            r = fem.gradient(model, u) + sum(ti * actuation.cable_gradient(model, c, u) for c, ti in zip(cables, tau))
            res = float(np.abs(r[fr]).max())
            if res <= max(tol * scale, floor):
                break
            if it == maxiter:
                raise ActuationSolveError(f"cable step {j}/{steps}: Newton did not converge in {maxiter} "
                                          f"iterations, residual {res:.3e} (target {tol * scale:.3e})")
            K = fem.hessian(model, u)
            for c, ti in zip(cables, tau):
                if ti:
                    K = K + ti * actuation.cable_hessian(model, c, u)
            try:
                du = splu(sp.csc_matrix(K[fr][:, fr])).solve(r[fr])
            except RuntimeError as err:
                raise ActuationSolveError(f"cable step {j}/{steps}: singular tangent ({err})") from None
            u = _admissible_step(model, u, fr, du, f"cable step {j}/{steps}, iteration {it}",
                                 f"residual {res:.3e}")
        U[j] = u
    return taus, U


def test_actuation_cable_static_is_reproduced(monkeypatch):
    m = fem.cantilever(10, 1, "T3")
    top = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.5))
    bottom = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], -0.5))[:6]
    tau1, steps = np.array([4e-3, 1e-3]), 3
    with traced(monkeypatch, fem, "gradient") as old:
        taus_old, U_old = old_cable_static(m, [top, bottom], tau1, steps=steps)
    with traced(monkeypatch, fem, "gradient") as new:
        taus_new, U_new = actuation.cable_static(m, [top, bottom], tau1, steps=steps)
    assert len(old) > 2 * steps
    assert_same_path(old, new)
    assert np.array_equal(taus_old, taus_new)
    assert_round_off(U_old, U_new)
