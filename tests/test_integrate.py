"""Properties of lib.integrate on problems with exact solutions."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from lib import integrate as it

OMEGA = np.array([1.0, 3.0])  # two uncoupled oscillators u'' + omega^2 u = 0


def accel(q):
    return -(OMEGA**2) * q


def exact(t, q0, v0):
    return q0 * np.cos(OMEGA * t) + v0 / OMEGA * np.sin(OMEGA * t)


def energy(q, v):
    return 0.5 * np.sum(v**2 + (OMEGA * q) ** 2, axis=-1)


Q0, V0 = np.array([1.0, 0.5]), np.array([0.0, 1.0])


def test_verlet_is_second_order():
    T = 5.0
    dts = np.array([0.04, 0.02, 0.01, 0.005])
    err = []
    for dt in dts:
        n = round(T / dt)
        tr = it.verlet(Q0, V0, dt, n, accel, every=n)
        err.append(np.abs(tr.q[-1] - exact(T, Q0, V0)).max())
    order = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert abs(order - 2.0) < 0.05


def test_verlet_energy_stays_bounded_without_drift():
    dt = 0.05
    tr = it.verlet(Q0, V0, dt, 20000, accel)
    E = energy(tr.q, tr.v)
    dev = np.abs(E / E[0] - 1)
    assert dev.max() < (OMEGA.max() * dt) ** 2          # O(dt^2), bounded
    half = len(E) // 2
    assert abs(dev[half:].max() - dev[:half].max()) < 0.1 * dev.max()  # no secular growth


def test_verlet_trajectory_sampling_and_callback_stop():
    seen = []
    tr = it.verlet(Q0, V0, 0.1, 10, accel, every=3,
                   callback=lambda n, t, q, v, a: seen.append(n) or n < 6)
    assert tr.steps.tolist() == [0, 3, 6] and seen == [3, 6]
    assert np.allclose(tr.t, 0.1 * tr.steps)
    assert tr.q.shape == (3, 2)


def test_central_difference_equals_verlet_step():
    a0 = accel(Q0)
    s1 = it.verlet_step(Q0, V0, a0, 0.07, accel)
    s2 = it.central_difference_step(Q0, V0, a0, 0.07, accel)
    for x, y in zip(s1, s2):
        assert np.allclose(x, y, rtol=1e-14, atol=1e-15)


def test_bisected_stability_limit_is_two_over_omega_max():
    omega = np.array([1.0, 40.0])

    def acc(q):
        return -(omega**2) * q

    def stable(dt):
        q, v = np.ones(2), np.zeros(2)
        a = acc(q)
        for _ in range(4000):
            q, v, a = it.verlet_step(q, v, a, dt, acc)
            if np.abs(q).max() > 10:
                return False
        return True

    lo, hi = 0.5 * it.critical_step(40.0), 1.5 * it.critical_step(40.0)
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    assert abs(lo / it.critical_step(40.0) - 1) < 1e-5


def test_verlet_reports_non_finite_state():
    with pytest.raises(FloatingPointError, match="step"), np.errstate(over="ignore"):
        it.verlet(np.ones(1), np.zeros(1), 1.0, 5000, lambda q: -100.0 * q)


# ---------------------------------------------------------------- Newmark

def linear_force(K):
    return lambda u: (K @ u, K)


def test_newmark_trapezoidal_conserves_linear_energy_and_matches_closed_form_frequency():
    w, dt, n = 2.0, 0.3, 200
    K = np.array([[w * w]])
    tr = it.newmark(np.ones(1), np.zeros(1), dt, n, linear_force(K), np.ones(1))
    E = 0.5 * (tr.v[:, 0] ** 2 + w * w * tr.q[:, 0] ** 2)
    assert np.abs(E / E[0] - 1).max() < 1e-12
    wbar = 2 / dt * math.atan(w * dt / 2)
    assert np.allclose(tr.q[:, 0], np.cos(wbar * tr.t), atol=1e-10)
    assert math.isclose(it.newmark_frequency(w, dt), wbar, rel_tol=1e-13)


def test_newmark_frequency_general_beta_matches_a_simulated_run():
    # beta = 0, gamma = 1/2 is the central-difference method: cos(wbar dt) = 1 - (w dt)^2/2
    w, dt = 1.5, 0.4
    assert math.isclose(it.newmark_frequency(w, dt, beta=0.0 + 1e-300, gamma=0.5),
                        math.acos(1 - (w * dt) ** 2 / 2) / dt, rel_tol=1e-9)
    # dissipative variant: spectral radius below 1, trapezoidal exactly 1
    A = it.newmark_amplification(w, dt, beta=0.3025, gamma=0.6)
    assert np.abs(np.linalg.eigvals(A)).max() < 1
    A = it.newmark_amplification(w, dt)
    assert math.isclose(np.abs(np.linalg.eigvals(A)).max(), 1.0, rel_tol=1e-14)


def test_newmark_period_error_is_the_leading_term():
    w = 1.0
    ratios = []
    for dt in (0.2, 0.1, 0.05):
        T, Tbar = 2 * np.pi / w, 2 * np.pi / it.newmark_frequency(w, dt)
        ratios.append((Tbar / T - 1) / it.newmark_period_error(w, dt))
    assert all(abs(r - 1) < 0.5 * (w * 0.2) ** 2 for r in ratios)
    assert abs(ratios[-1] - 1) < abs(ratios[0] - 1) / 10


def duffing_force(u):
    f = u + u**3
    K = sp.diags(1 + 3 * u**2).tocsr()
    return f, K


def test_newmark_nonlinear_step_satisfies_residual_and_mass_forms_agree():
    u = np.array([0.8, -0.3, 1.2])
    v = np.array([0.1, 0.0, -0.4])
    m = np.array([1.0, 2.0, 0.5])
    a = -(u + u**3) / m
    dt = 0.1
    u1, v1, a1 = it.newmark_step(u, v, a, dt, duffing_force, m, tol=1e-13)
    f1, _ = duffing_force(u1)
    assert np.abs(m * a1 + f1).max() < 1e-12
    # Newmark kinematics
    assert np.allclose(u1, u + dt * v + dt**2 * (0.25 * a + 0.25 * a1), rtol=1e-13)
    assert np.allclose(v1, v + dt * 0.5 * (a + a1), rtol=1e-13)
    # dense tangent and matrix mass give the same step
    dense = lambda uu: (uu + uu**3, np.diag(1 + 3 * uu**2))
    u2, v2, a2 = it.newmark_step(u, v, a, dt, dense, np.diag(m), tol=1e-13)
    assert np.allclose(u1, u2, rtol=1e-12) and np.allclose(v1, v2, rtol=1e-12)


def test_newmark_newton_failure_says_how_far_it_got():
    cubic = lambda u: (u + u**3, np.diag(1 + 3 * u**2))
    with pytest.raises(it.NewtonFailure, match=r"^Newmark Newton: iteration 1, residual .*: iteration limit reached$") as ei:
        it.newmark_step(np.array([3.0]), np.zeros(1), np.array([-30.0]), 1.0, cubic,
                        np.ones(1), maxiter=1)
    assert ei.value.reason == "maxiter" and ei.value.iteration == 1
    assert ei.value.residual > 0 and ei.value.step is None
    with pytest.raises(it.NewtonError, match=r"^Newmark Newton: step 1 \(t = 1\), iteration 1, residual") as ei:
        it.newmark(np.array([3.0]), np.zeros(1), 1.0, 3, cubic, np.ones(1), maxiter=1)
    assert isinstance(ei.value, it.NewtonFailure) and isinstance(ei.value, RuntimeError)
    assert (ei.value.step, ei.value.time) == (1, 1.0)


# ---------------------------------------------------------------- relaxation

def test_damped_relaxation_reaches_the_static_solution():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 5))
    K = A @ A.T + 5 * np.eye(5)
    m = np.linspace(1, 2, 5)
    f = rng.standard_normal(5)
    acc = lambda q: (f - K @ q) / m
    w = np.sqrt(np.linalg.eigvals(K / m[:, None]).real)  # omega of M^{-1} K
    dt = 0.9 * it.critical_step(w.max())
    seen = []
    q, n, vmax = it.relax(np.zeros(5), acc, dt, 2 * w.min(), vtol=1e-11, check_every=50,
                          callback=lambda k, q, v: seen.append(k), callback_every=7)
    assert vmax <= 1e-11 and n % 50 == 0
    assert seen == list(range(7, n + 1, 7))
    assert np.allclose(q, np.linalg.solve(K, f), rtol=1e-9, atol=1e-11)


def test_relaxation_budget_exhausted_raises():
    with pytest.raises(it.RelaxationError, match=r"after 10 steps"):
        it.relax(np.ones(1), lambda q: -q, 0.1, 0.0, check_every=10, max_steps=10)


@pytest.mark.parametrize("call,name", [
    (lambda: it.verlet(Q0, V0, 0.0, 3, accel), "dt"),
    (lambda: it.verlet(Q0, V0, 0.1, -1, accel), "nsteps"),
    (lambda: it.verlet(Q0, V0, 0.1, 3, accel, every=0), "every"),
    (lambda: it.verlet(Q0, V0[:1], 0.1, 3, accel), "v0"),
    (lambda: it.critical_step(0.0), "omega_max"),
    (lambda: it.newmark_step(Q0, V0, Q0, 0.1, linear_force(np.eye(2)), np.ones(3)), "mass"),
])
def test_bad_input_raises_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_newmark_accepts_a_round_off_correction_on_a_stiff_rod_in_small_motion():
    """Released from a small static shape, the stiff rod's residual stalls at
    round-off just above a purely relative tolerance; the step must still return."""
    from lib import rod as rodmod

    rd = rodmod.make_rod(20, r_over_L=0.04)
    u0 = rodmod.static(rd, (0.0, -0.2, 0.0))
    force = lambda u: (rodmod.gradient(rd, u), rodmod.hessian(rd, u))
    m = rodmod.mass(rd)
    v0 = np.zeros_like(u0)
    a0 = -rodmod.gradient(rd, u0) / m
    u, v, a = u0, v0, a0
    for _ in range(20):
        u, v, a = it.newmark_step(u, v, a, 0.01, force, m)
    e0 = rodmod.energy(rd, u0)
    e = rodmod.energy(rd, u) + 0.5 * v @ (m * v)
    assert abs(e - e0) <= 1e-3 * abs(e0)


def test_a_run_past_the_step_cap_is_refused_up_front_and_progress_is_reported():
    calls = []
    with pytest.raises(ValueError, match=r"nsteps = 11 .*dt = 0\.1 .*t_end = 1\.1.*max_steps = 10"):
        it.verlet(Q0, V0, 0.1, 11, lambda q: calls.append(1) or -q, max_steps=10)
    assert calls == []                       # not even the start was evaluated
    seen = []
    tr = it.newmark(Q0, V0, 0.1, 10, linear_force(np.eye(2)), np.ones(2), every=5,
                    max_steps=10, progress=lambda n, total: seen.append((n, total)))
    assert seen == [(n, 10) for n in range(1, 11)] and tr.t[-1] == pytest.approx(1.0)


def test_a_blown_up_run_is_a_solve_error_and_a_floating_point_error():
    from lib.core.errors import SolveError

    with pytest.raises(SolveError, match=r"verlet: step \d+ \(t = .*\): diverged") as ei, \
            np.errstate(over="ignore", invalid="ignore"):
        it.verlet(Q0, V0, 3.0, 2000, lambda q: -q)         # omega dt = 3 > 2
    assert isinstance(ei.value, FloatingPointError) and ei.value.step > 1


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_extreme_but_legal_amplitudes_give_the_scaled_answer(scale):
    """The linear oscillator is linear: a tiny or huge start gives the scaled unit run."""
    force = linear_force(np.diag([4.0, 1.0]))
    unit = it.newmark(Q0, V0, 0.05, 40, force, np.ones(2))
    big = it.newmark(scale * Q0, scale * V0, 0.05, 40, force, np.ones(2))
    assert np.allclose(big.q / scale, unit.q, rtol=1e-12, atol=1e-14)
    assert it.critical_step(1e300) == 2e-300 and it.newmark_frequency(1e-8, 1e-8) > 0
