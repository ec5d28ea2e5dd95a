"""Properties of the generalised-alpha family and the helpers added to lib.integrate
by the integration chapter (observe, kinetic_energy, verlet_amplification)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from lib import integrate as it

W_GRID = np.logspace(-3, 8, 60)  # omega dt


def spectral_radius(A):
    return float(np.abs(np.linalg.eigvals(A)).max())


def duffing(u):
    """A coupled nonlinear test force: f = K0 u + u^3 (dense tangent)."""
    K0 = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]])
    return K0 @ u + u**3, K0 + np.diag(3 * u**2)


M3 = np.array([1.0, 2.0, 0.5])
U0 = np.array([0.8, -0.3, 1.2])
V0 = np.array([0.1, 0.0, -0.4])


# ------------------------------------------------------------ reduction to Newmark

def test_zero_alphas_reproduce_newmark_on_a_nonlinear_problem():
    ref = it.newmark(U0, V0, 0.05, 40, duffing, M3, beta=0.3025, gamma=0.6, tol=1e-13)
    ga = it.generalized_alpha(U0, V0, 0.05, 40, duffing, M3, (0.0, 0.0, 0.3025, 0.6), tol=1e-13)
    assert np.abs(ga.q - ref.q).max() < 1e-13
    assert np.abs(ga.v - ref.v).max() < 1e-12


def test_rho_inf_one_is_the_trapezoidal_rule_even_for_nonlinear_forces():
    # alpha_m = alpha_f = 1/2: averaging M a + f = 0 at two levels keeps it at every level
    ref = it.newmark(U0, V0, 0.05, 40, duffing, M3, tol=1e-13)
    ga = it.generalized_alpha(U0, V0, 0.05, 40, duffing, M3,
                              it.generalized_alpha_parameters(1.0), tol=1e-13)
    assert np.abs(ga.q - ref.q).max() < 1e-11


def test_balance_holds_between_the_time_levels():
    p = it.generalized_alpha_parameters(0.6)
    am, af, beta, gamma = p
    f0, _ = duffing(U0)
    a0 = -f0 / M3
    u1, v1, a1, f1 = it.generalized_alpha_step(U0, V0, a0, f0, 0.1, duffing, M3, p, tol=1e-14)
    assert np.allclose(f1, duffing(u1)[0], rtol=1e-15)
    assert np.abs(M3 * ((1 - am) * a1 + am * a0) + (1 - af) * f1 + af * f0).max() < 1e-12
    assert np.allclose(u1, U0 + 0.1 * V0 + 0.01 * ((0.5 - beta) * a0 + beta * a1), rtol=1e-13)
    assert np.allclose(v1, V0 + 0.1 * ((1 - gamma) * a0 + gamma * a1), rtol=1e-13)


def test_sparse_and_dense_tangents_give_the_same_step():
    dense = duffing
    sparse = lambda u: (duffing(u)[0], sp.csr_matrix(duffing(u)[1]))
    p = it.generalized_alpha_parameters(0.8)
    f0 = duffing(U0)[0]
    s1 = it.generalized_alpha_step(U0, V0, -f0 / M3, f0, 0.2, dense, M3, p, tol=1e-14)
    s2 = it.generalized_alpha_step(U0, V0, -f0 / M3, f0, 0.2, sparse, np.diag(M3), p, tol=1e-14)
    for x, y in zip(s1, s2):
        assert np.allclose(x, y, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------ linear theory

@pytest.mark.parametrize("rho", [0.0, 0.3, 0.5, 0.8, 1.0])
def test_spectral_radius_tends_to_rho_inf_and_never_exceeds_one(rho):
    p = it.generalized_alpha_parameters(rho)
    radii = np.array([spectral_radius(it.generalized_alpha_amplification(w, 1.0, p))
                      for w in W_GRID])
    assert radii.max() <= 1 + 1e-12                       # unconditionally stable
    # rho_inf at omega dt -> infinity.  Chung-Hulbert make the three eigenvalues
    # coincide there, so the radius approaches rho_inf only like (omega dt)^(-2/3).
    dev = [spectral_radius(it.generalized_alpha_amplification(w, 1.0, p)) - rho
           for w in (1e4, 1e6, 1e8)]
    assert all(0 <= d < 3e-3 for d in dev) and dev[0] >= dev[1] >= dev[2]
    assert dev[2] < 1e-5


@pytest.mark.parametrize("alpha", [-0.05, -0.1, -0.3, -1 / 3])
def test_hht_spectral_radius_at_infinity(alpha):
    A = it.generalized_alpha_amplification(1e9, 1.0, it.hht_parameters(alpha))
    assert math.isclose(spectral_radius(A), (1 + alpha) / (1 - alpha), rel_tol=1e-6)


def test_low_frequency_dissipation_is_fourth_order_for_alpha_methods_second_for_newmark():
    W = np.array([0.02, 0.04, 0.08])
    slope = {}
    for name, p in [("ga", it.generalized_alpha_parameters(0.8)),
                    ("hht", it.hht_parameters(-0.1)),
                    ("newmark", (0.0, 0.0, 0.3025, 0.6))]:
        d = [1 - spectral_radius(it.generalized_alpha_amplification(w, 1.0, p)) for w in W]
        slope[name] = np.polyfit(np.log(W), np.log(d), 1)[0]
    assert abs(slope["ga"] - 4) < 0.05 and abs(slope["hht"] - 4) < 0.05
    assert abs(slope["newmark"] - 2) < 0.05


def test_chung_hulbert_dissipates_less_at_low_frequency_than_hht_with_the_same_rho_inf():
    rho = 0.8
    ga, hht = it.generalized_alpha_parameters(rho), it.hht_parameters((rho - 1) / (rho + 1))
    for w in (0.1, 0.3, 1.0):
        d_ga = 1 - spectral_radius(it.generalized_alpha_amplification(w, 1.0, ga))
        d_hht = 1 - spectral_radius(it.generalized_alpha_amplification(w, 1.0, hht))
        assert 0 < d_ga < d_hht


def test_amplification_matrix_reproduces_a_linear_step():
    w, dt = 3.0, 0.4
    K = np.array([[w * w]])
    force = lambda u: (K @ u, K)
    for p in (it.generalized_alpha_parameters(0.7), it.hht_parameters(-0.2)):
        u, v, a = np.array([0.7]), np.array([-0.2]), np.array([0.5])  # a need not be consistent
        u1, v1, a1, _ = it.generalized_alpha_step(u, v, a, w * w * u, dt, force, np.ones(1), p,
                                                  tol=1e-14)
        x1 = it.generalized_alpha_amplification(w, dt, p) @ np.array([u[0], dt * v[0], dt**2 * a[0]])
        assert np.allclose(x1, [u1[0], dt * v1[0], dt**2 * a1[0]], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("params,order", [
    (it.generalized_alpha_parameters(0.5), 2),
    (it.generalized_alpha_parameters(0.9), 2),
    (it.hht_parameters(-0.2), 2),
    ((0.0, 0.0, 0.3025, 0.6), 1),          # Newmark with gamma > 1/2: first order
])
def test_convergence_order_on_an_exact_oscillator(params, order):
    w, T = 2.0, 3.0
    K = np.array([[w * w]])
    force = lambda u: (K @ u, K)
    dts = np.array([0.04, 0.02, 0.01, 0.005])
    err = []
    for dt in dts:
        n = round(T / dt)
        tr = it.generalized_alpha(np.ones(1), np.zeros(1), dt, n, force, np.ones(1), params,
                                  every=n)
        err.append(abs(tr.q[-1, 0] - math.cos(w * T)))
    assert abs(np.polyfit(np.log(dts), np.log(err), 1)[0] - order) < 0.1


def test_verlet_amplification_reproduces_a_step_and_the_limit_two():
    w, dt = 5.0, 0.3
    q, v = np.array([0.4]), np.array([1.1])
    q1, v1, _ = it.verlet_step(q, v, -w * w * q, dt, lambda x: -w * w * x)
    x1 = it.verlet_amplification(w, dt) @ np.array([q[0], dt * v[0]])
    assert np.allclose(x1, [q1[0], dt * v1[0]], rtol=1e-13)
    radii = np.array([spectral_radius(it.verlet_amplification(1.0, W)) for W in (1.0, 1.99, 2.01, 3.0)])
    assert np.allclose(radii[:2], 1.0, rtol=1e-12) and np.all(radii[2:] > 1)


# ------------------------------------------------------------ helpers

def test_observe_records_every_step_and_stops_where_asked():
    acc = lambda q: -4.0 * q
    step = lambda q, v, a: it.verlet_step(q, v, a, 0.05, acc)
    st = (np.ones(1), np.zeros(1), acc(np.ones(1)))
    vals, final = it.observe(step, st, 100, lambda q, v, a: q[0])
    tr = it.verlet(np.ones(1), np.zeros(1), 0.05, 100, acc)
    assert np.array_equal(vals, tr.q[:, 0]) and np.array_equal(final[0], tr.q[-1])
    vals, _ = it.observe(step, st, 100, lambda q, v, a: q[0], stop=lambda x: x < 0)
    assert len(vals) - 1 == np.argmax(tr.q[:, 0] < 0)


def test_observe_reports_a_non_finite_value():
    with pytest.raises(FloatingPointError, match="step"), np.errstate(over="ignore", invalid="ignore"):
        it.observe(lambda x: (x * 1e200,), (np.ones(1),), 5, lambda x: x[0])


def test_kinetic_energy_agrees_for_lumped_dense_and_sparse_mass():
    rng = np.random.default_rng(0)
    m = rng.uniform(1, 2, 4)
    V = rng.standard_normal((3, 4))
    T = it.kinetic_energy(m, V)
    assert np.allclose(T, [0.5 * np.sum(m * x * x) for x in V], rtol=1e-14)
    assert np.allclose(it.kinetic_energy(np.diag(m), V), T, rtol=1e-14)
    assert np.allclose(it.kinetic_energy(sp.diags(m).tocsr(), V), T, rtol=1e-14)
    assert math.isclose(it.kinetic_energy(m, V[0]), T[0], rel_tol=1e-14)


def test_newton_failure_names_the_step_and_time():
    with pytest.raises(it.NewtonFailure, match=r"^generalised-alpha Newton: step 1 \(t = 1\), iteration"):
        it.generalized_alpha(np.array([3.0]), np.zeros(1), 1.0, 3,
                             lambda u: (u + u**3, np.diag(1 + 3 * u**2)), np.ones(1),
                             it.generalized_alpha_parameters(0.8), maxiter=1)


@pytest.mark.parametrize("call,name", [
    (lambda: it.generalized_alpha_parameters(1.5), "rho_inf"),
    (lambda: it.generalized_alpha_parameters("x"), "rho_inf"),
    (lambda: it.hht_parameters(0.1), "alpha"),
    (lambda: it.hht_parameters(-0.5), "alpha"),
    (lambda: it.generalized_alpha_amplification(1.0, 0.1, (0.0, 0.0, 0.0, 0.5)), "params"),
    (lambda: it.generalized_alpha_amplification(1.0, 0.1, (1.0, 0.0, 0.25, 0.5)), "params"),
    (lambda: it.generalized_alpha_step(U0, V0, U0, U0, -0.1, duffing, M3, (0, 0, .25, .5)), "dt"),
    (lambda: it.kinetic_energy(np.ones(3), np.ones(4)), "mass"),
    (lambda: it.observe(lambda x: (x,), (np.ones(1),), -1, lambda x: x), "nsteps"),
])
def test_bad_input_raises_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_small_motion_of_a_stiff_offset_spring_converges_at_the_round_off_floor():
    # f = k (u - 1): at u - 1 ~ 1e-9 the force carries a round-off of k eps, far above
    # 1e-10 |f|, so a purely relative residual test could never be met.
    k = 1e6
    force = lambda u: (k * (u - 1.0), np.array([[k]]))
    u0 = np.array([1.0 + 1e-9])
    tr = it.generalized_alpha(u0, np.zeros(1), 1e-3, 20, force, np.ones(1),
                              it.generalized_alpha_parameters(1.0))
    w = math.sqrt(k)
    wbar = 2 / 1e-3 * math.atan(w * 1e-3 / 2)      # trapezoidal: exact discrete solution
    assert np.allclose(tr.q[:, 0] - 1.0, 1e-9 * np.cos(wbar * tr.t), rtol=0, atol=1e-14)
