"""Tests of lib.rod3d: derivatives on SO(3), the planar reduction, analytic limits, integrators."""
import numpy as np
import pytest

from lib import beam, rod, rod3d as R3
from lib import crosscheck as cc


def _random_state(model, seed=0, scale=0.3):
    rng = np.random.default_rng(seed)
    return R3.retract(model, R3.straight(model), scale * rng.normal(size=model.ndof))


LOAD = np.array([0.3, -0.2, 0.5, 0.4, -0.3, 0.2])


# --------------------------------------------------------------------------------------
# rotations
# --------------------------------------------------------------------------------------
def test_quaternion_exp_log_round_trip_and_orthogonal_frames():
    rng = np.random.default_rng(1)
    psi = rng.normal(size=(50, 3))
    psi *= (np.linspace(1e-9, 3.0, 50) / np.linalg.norm(psi, axis=1))[:, None]
    assert np.allclose(R3.quat_log(R3.quat_exp(psi)), psi, rtol=1e-12, atol=1e-15)
    R = R3.rotmat(R3.quat_exp(psi))
    assert np.allclose(R @ np.swapaxes(R, 1, 2), np.eye(3), atol=1e-14)
    assert np.allclose(np.linalg.det(R), 1.0)


def test_log_map_coefficients_continuous_across_series_switch():
    t = np.array([0.05 - 1e-12, 0.05 + 1e-12])
    c, dc = R3._log_coeffs(t)
    assert abs(c[1] - c[0]) < 1e-12 and abs(dc[1] - dc[0]) < 1e-9


# --------------------------------------------------------------------------------------
# derivatives on SO(3) (perturbation by the exponential map)
# --------------------------------------------------------------------------------------
def test_gradient_matches_central_differences_through_exp_map():
    m = R3.make_rod3d(5, r_over_L=0.2)
    s = _random_state(m)

    def E(d):
        return R3.energy(m, R3.retract(m, s, d), LOAD, grav=0.7)

    g = R3.gradient(m, s, LOAD, grav=0.7)
    h = 1e-6
    gfd = np.array([(E(h * e) - E(-h * e)) / (2 * h) for e in np.eye(m.ndof)])
    assert np.abs(g - gfd).max() <= 1e-8 * np.abs(g).max()


def test_hessian_matches_second_differences_of_energy():
    m = R3.make_rod3d(4, r_over_L=0.2)
    s = _random_state(m, seed=2)

    def E(d):
        return R3.energy(m, R3.retract(m, s, d), LOAD)

    H = R3.hessian(m, s, LOAD).toarray()
    h = 1e-4
    eye = np.eye(m.ndof)
    Hfd = np.array([[(E(h * (a + b)) - E(h * (a - b)) - E(h * (b - a)) + E(-h * (a + b)))
                     / (4 * h * h) for b in eye] for a in eye])
    assert np.abs(H - H.T).max() <= 1e-12 * np.abs(H).max()
    assert np.abs(H - Hfd).max() <= 1e-6 * np.abs(H).max()


def test_hessian_vector_product_is_derivative_of_trivialised_gradient():
    # d/dt g(R exp(t v)) = H v + hat(g_rot) v / 2 (right trivialisation), for every direction
    m = R3.make_rod3d(6, r_over_L=0.1)
    s = _random_state(m, seed=3, scale=0.5)
    H = R3.hessian(m, s, LOAD)
    g = R3.gradient(m, s, LOAD)
    rng = np.random.default_rng(4)
    h = 1e-6
    for _ in range(3):
        v = rng.normal(size=m.ndof)
        dg = (R3.gradient(m, R3.retract(m, s, h * v), LOAD)
              - R3.gradient(m, R3.retract(m, s, -h * v), LOAD)) / (2 * h)
        corr = np.zeros((m.N, 6))
        corr[:, :3] = 0.5 * np.cross(g.reshape(m.N, 6)[:, :3], v.reshape(m.N, 6)[:, :3])
        pred = H @ v + corr.ravel()
        assert np.abs(dg - pred).max() <= 1e-7 * np.abs(pred).max()


@pytest.mark.parametrize("moment", ["dead", "conservative"])
def test_newton_tangent_is_consistent_for_dead_and_conservative_moments(moment):
    m = R3.make_rod3d(5, r_over_L=0.2)
    s = _random_state(m, seed=5, scale=0.2)
    load = np.array([0.1, -0.4, 0.2, 0.3, 0.5, -0.2])
    _, K = R3.residual_tangent(m, s, load, 0.3, moment)
    h = 1e-6
    cols = [(R3.residual_tangent(m, R3.retract(m, s, h * e), load, 0.3, moment, False)
             - R3.residual_tangent(m, R3.retract(m, s, -h * e), load, 0.3, moment, False))
            / (2 * h) for e in np.eye(m.ndof)]
    Kfd = np.column_stack(cols)
    assert np.abs(K.toarray() - Kfd).max() <= 1e-8 * np.abs(Kfd).max()


def test_energy_invariant_under_rigid_rotation_of_all_frames_and_nodes():
    # objectivity: rotating everything about the clamp changes only the clamp joint term
    m = R3.make_rod3d(6)
    s = _random_state(m, seed=6, scale=0.2)
    q = R3.quat_exp([0.0, 0.0, 0.0])
    assert R3.energy(m, R3.State(s.x, R3.quat_mul(q, s.Q))) == pytest.approx(R3.energy(m, s))
    # the stretch-shear and interior joint energies are frame-indifferent
    Rg = R3.rotmat(R3.quat_exp([0.4, -0.7, 0.2]))
    qg = R3.quat_exp([0.4, -0.7, 0.2])
    s2 = R3.State(s.x @ Rg.T, R3.quat_mul(qg, s.Q))
    _, _, G1, n1, th1 = R3._kin(m, *s)
    _, _, G2, n2, th2 = R3._kin(m, *s2)
    assert np.allclose(G1, G2, atol=1e-12) and np.allclose(th1[1:], th2[1:], atol=1e-12)


# --------------------------------------------------------------------------------------
# the planar rod recovered
# --------------------------------------------------------------------------------------
def test_planar_state_reduces_to_lib_rod_energy_gradient_hessian():
    m3 = R3.make_rod3d(7, r_over_L=0.1)
    m2 = m3.planar
    rng = np.random.default_rng(7)
    q = rod.straight(m2) + 0.2 * rng.normal(size=m2.ndof)
    s = R3.from_planar(m3, q)
    load3 = [0.3, -0.2, 0.0, 0.0, 0.0, 0.4]
    load2 = (0.3, -0.2, 0.4)
    idx = R3.planar_dofs(m3)
    assert R3.energy(m3, s, load3, 0.7) == pytest.approx(rod.energy(m2, q, load2, 0.7), rel=1e-13)
    g3 = R3.gradient(m3, s, load3, 0.7)
    g2 = rod.gradient(m2, q, load2, 0.7)
    assert np.abs(g3[idx] - g2).max() <= 1e-12 * np.abs(g2).max()
    other = np.setdiff1d(np.arange(m3.ndof), idx)
    assert np.abs(g3[other]).max() <= 1e-12 * np.abs(g2).max()
    H3 = R3.hessian(m3, s, load3).toarray()
    H2 = rod.hessian(m2, q).toarray()
    assert np.abs(H3[np.ix_(idx, idx)] - H2).max() <= 1e-12 * np.abs(H2).max()
    assert np.abs(H3[np.ix_(idx, other)]).max() <= 1e-12 * np.abs(H2).max()   # decoupled
    assert np.array_equal(R3.mass(m3)[idx], rod.mass(m2))


@pytest.mark.parametrize("r_over_L", [0.04, 0.1])
def test_planar_frequencies_are_in_the_3d_spectrum(r_over_L):
    m3 = R3.make_rod3d(12, r_over_L=r_over_L)
    om3 = R3.frequencies(m3)
    om2 = rod.frequencies(m3.planar)
    gap = np.abs(om3[None, :] - om2[:, None]).min(axis=1) / om2
    assert gap.max() < 1e-9
    # the out-of-plane bending repeats the in-plane values: each bending value twice
    for w in om2[:2]:
        assert np.count_nonzero(np.abs(om3 / w - 1) < 1e-9) == 2


def test_planar_static_solution_recovered():
    m3 = R3.make_rod3d(10)
    q = rod.static(m3.planar, (0.0, -3.0, 0.5))
    s = R3.static(m3, [0.0, -3.0, 0.0, 0.0, 0.0, 0.5])
    s2 = R3.from_planar(m3, q)
    assert np.abs(s.x - s2.x).max() < 1e-10
    assert np.abs(R3.rotmat(s.Q) - R3.rotmat(s2.Q)).max() < 1e-10


# --------------------------------------------------------------------------------------
# analytic limits
# --------------------------------------------------------------------------------------
def _torsion_errors(Ns, k=3):
    out = []
    for N in Ns:
        m = R3.make_rod3d(N)
        om, V = R3.modes(m)
        twist = np.abs(V[0::6]).sum(axis=0) / np.abs(V).sum(axis=0) > 0.99
        ana = R3.torsion_omegas(k, GJ=m.GJ, rhoJ=2 * m.rhoI)
        out.append(np.abs(om[twist][:k] / ana - 1))
    return np.array(out)


def test_torsion_frequencies_converge_at_second_order_to_the_shaft():
    Ns = np.array([10, 20, 40])
    err = _torsion_errors(Ns)
    for j in range(err.shape[1]):
        slope = np.polyfit(np.log(Ns), np.log(err[:, j]), 1)[0]
        assert -2.1 < slope < -1.9


def test_bending_frequencies_of_both_planes_converge_to_timoshenko():
    Ns = np.array([10, 20, 40])
    ref = beam.timoshenko_omegas(2, 0.04)
    err = []
    for N in Ns:
        om = R3.frequencies(R3.make_rod3d(N), 4)
        assert np.allclose(om[0], om[1], rtol=1e-10) and np.allclose(om[2], om[3], rtol=1e-10)
        err.append(np.abs(om[[0, 2]] / ref - 1))
    slope = np.polyfit(np.log(Ns), np.log(np.array(err)), 1)[0]
    assert np.all((slope < -1.9) & (slope > -2.2))


def test_greenhill_critical_twist_converges_at_second_order():
    Ns = np.array([10, 20, 40])
    g = R3.greenhill_twist(0.5)
    err = [abs(R3.critical_twist(R3.make_rod3d(N, r_over_L=0.002)) / g - 1) for N in Ns]
    slope = np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert -2.2 < slope < -1.9 and err[-1] < 1e-3


@pytest.mark.parametrize("L", [0.5, 2.0, 3.0])
def test_critical_twist_is_an_angle_independent_of_length(L):
    # Greenhill's critical angle 8.9868 B/GJ does not depend on L: for the same slenderness
    # the discrete rod of length L is the L = 1 rod rescaled, so its critical end rotation
    # is the same number (the old bracket, scaled by L, raised at L = 0.5 and L = 3)
    base = R3.critical_twist(R3.make_rod3d(20, r_over_L=0.01))
    for EI in (1.0, 2.5):
        c = R3.critical_twist(R3.make_rod3d(20, r_over_L=0.01, L=L, EI=EI))
        assert c == pytest.approx(base, rel=1e-9)
    assert R3.greenhill_twist(0.5, L) == R3.greenhill_twist(0.5)
    assert abs(c / R3.greenhill_twist(0.5) - 1) < 5e-3


def test_greenhill_root_solves_tan_equation():
    k = R3.greenhill_twist(0.0)
    assert np.tan(k / 2) == pytest.approx(k / 2, rel=1e-10)
    assert R3.greenhill_twist(0.3) == pytest.approx(1.3 * k)


def test_helix_wrench_satisfies_both_moment_components():
    m = R3.make_rod3d(4, nu=0.3)
    alpha, a, tw = 0.7, 0.2, 1.5
    F, M = R3.helix_wrench(m, alpha, a, tw)
    kap, tau = np.sin(alpha) ** 2 / a, np.sin(alpha) * np.cos(alpha) / a
    k1 = tau + tw
    # azimuthal moment component equals the moment of the axial force: a F
    assert -m.EI * kap * np.cos(alpha) + m.GJ * k1 * np.sin(alpha) == pytest.approx(a * F)
    assert M == pytest.approx(m.EI * kap * np.sin(alpha) + m.GJ * k1 * np.cos(alpha))


def test_helix_under_love_wrench_converges_at_second_order():
    Ns = np.array([10, 20, 40])
    err = []
    for N in Ns:
        m = R3.make_rod3d(N, r_over_L=0.002)
        s0, load, exact = R3.helix(m, 0.5, 0.15, 0.0)
        s = R3.static(m, load, steps=1, state0=s0, moment="dead")
        err.append(np.abs(s.x - exact[1:]).max())
    slope = np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert -2.1 < slope < -1.9


def test_omega_max_estimate_is_a_tight_upper_bound():
    for rl in (0.01, 0.04, 0.16):
        m = R3.make_rod3d(20, r_over_L=rl)
        measured = R3.frequencies(m)[-1]
        est = R3.omega_max_estimate(m)
        assert measured <= est["max"] <= 1.002 * measured
        assert est["max"] == est["shear_rotation"] > est["stretch"] > est["twist"]


# --------------------------------------------------------------------------------------
# time integration on the group
# --------------------------------------------------------------------------------------
def test_explicit_lie_verlet_stable_below_and_unstable_above_the_limit():
    m = R3.make_rod3d(10)
    dtc = 2.0 / R3.frequencies(m)[-1]
    rng = np.random.default_rng(8)
    v0, w0 = 1e-3 * rng.normal(size=(10, 3)), 1e-3 * rng.normal(size=(10, 3))
    s0 = R3.straight(m)

    def E(s, v, w):
        return R3.energy(m, s) + R3.kinetic_energy(m, v, w)

    *_, rec = R3.lie_verlet(m, s0, v0, w0, 0.95 * dtc, 1500, every=50, observe=E)
    assert max(rec) < 1.5 * rec[0]
    with pytest.raises(FloatingPointError, match="step"):
        R3.lie_verlet(m, s0, v0, w0, 1.05 * dtc, 1500)


def _tip_after(integrator, m, dt, T, **kw):
    s0 = R3.straight(m)
    v0 = np.zeros((m.N, 3))
    w0 = np.zeros((m.N, 3))
    w0[:, 0] = 3.0                                   # spin about the axis: gyroscopic terms act
    s, *_ = integrator(m, s0, v0, w0, dt, int(round(T / dt)), load=(0.0, -2.0, 1.0), **kw)
    return s.x[-1]


def _errors(integrator, **kw):
    m = R3.make_rod3d(4, r_over_L=0.2)
    dt0 = 0.5 / R3.frequencies(m)[-1]
    T = 40 * dt0
    ref = _tip_after(R3.lie_verlet, m, dt0 / 64, T, gyro="midpoint")
    dts = dt0 / np.array([1, 2, 4])
    err = [np.abs(_tip_after(integrator, m, dt, T, **kw) - ref).max() for dt in dts]
    return np.polyfit(np.log(dts), np.log(err), 1)[0]


@pytest.mark.parametrize("integrator, kw", [(R3.lie_verlet, {"gyro": "midpoint"}),
                                            (R3.lie_newmark, {})])
def test_lie_integrators_converge_at_second_order(integrator, kw):
    assert 1.85 < _errors(integrator, **kw) < 2.3


def test_explicit_gyroscopic_update_is_first_order_for_a_spinning_rod():
    # the explicit w x J w of the kick (PyElastica's choice) costs one order; PyElastica
    # itself, with its unsteady-dilatation torque too: tests/test_crosscheck.py
    assert 0.9 < _errors(R3.lie_verlet, gyro="explicit") < 1.3


def test_lie_newmark_is_stable_far_beyond_the_explicit_limit():
    m = R3.make_rod3d(10)
    dt = 20 * 2.0 / R3.frequencies(m)[-1]
    rng = np.random.default_rng(9)
    v0, w0 = 1e-3 * rng.normal(size=(10, 3)), 1e-3 * rng.normal(size=(10, 3))

    def E(s, v, w):
        return R3.energy(m, s) + R3.kinetic_energy(m, v, w)

    *_, rec = R3.lie_newmark(m, R3.straight(m), v0, w0, dt, 100, every=10, observe=E)
    assert np.all(np.abs(np.array(rec) / rec[0] - 1) < 1e-3)


def test_lie_verlet_step_is_model_independent_free_rigid_body():
    # a torque-free asymmetric body: |angular momentum| and energy stay bounded (no drift)
    J = np.array([[1.0, 2.0, 3.0]])

    def forces(x, Q):
        return np.zeros_like(x), np.zeros((1, 3))

    x, Q = np.zeros((1, 3)), np.array([[1.0, 0.0, 0.0, 0.0]])
    v, w = np.zeros((1, 3)), np.array([[0.1, 2.0, 0.05]])
    L0 = R3.rotmat(Q)[0] @ (J[0] * w[0])
    for _ in range(2000):
        x, Q, v, w = R3.lie_verlet_step(x, Q, v, w, 1e-3, forces, J, gyro="midpoint")
    L1 = R3.rotmat(Q)[0] @ (J[0] * w[0])
    assert np.linalg.norm(L1 - L0) < 1e-2 * np.linalg.norm(L0)
    assert abs(np.linalg.norm(Q) - 1) < 1e-14


# --------------------------------------------------------------------------------------
# PyElastica side by side
# --------------------------------------------------------------------------------------
def test_pyelastica_linearisation_shares_stretch_and_converges_to_the_same_bending():
    pytest.importorskip("elastica")
    out = {}
    for N in (10, 20):
        om_e = cc.elastica_frequencies3d(N, 8)
        om_l = R3.frequencies(R3.make_rod3d(N), 8)
        out[N] = (om_e, om_l)
    # the first stretch frequency (mode 8 here) is identical: same EA, same node masses
    assert out[20][0][7] == pytest.approx(out[20][1][7], rel=1e-6)
    # first bending: PyElastica's rigid first element converges at first order
    d10 = out[10][0][0] - out[10][1][0]
    d20 = out[20][0][0] - out[20][1][0]
    assert d10 > 0 and d20 > 0 and 1.7 < d10 / d20 < 2.3


# --------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------
def test_bad_input_raises_value_error_naming_the_argument():
    m = R3.make_rod3d(3)
    with pytest.raises(ValueError, match="N"):
        R3.make_rod3d(0)
    with pytest.raises(ValueError, match="state"):
        R3.energy(m, (np.zeros((2, 3)), np.zeros((3, 4))))
    with pytest.raises(ValueError, match="load"):
        R3.gradient(m, R3.straight(m), load=(1, 2))
    with pytest.raises(ValueError, match="moment"):
        R3.static(m, (0, 1, 0), moment="follower")
    with pytest.raises(ValueError, match="dq"):
        R3.retract(m, R3.straight(m), np.zeros(5))
    with pytest.raises(ValueError, match="k"):
        R3.frequencies(m, 0)
    with pytest.raises(ValueError, match="bracket"):
        R3.critical_twist(m, bracket=(1.0, 2.0))


def test_static_refuses_a_saddle_and_an_imperfection_buckles_it():
    """The straight 3-D rod compressed 1.5 x past buckling is a saddle: refused, with the
    same lowest eigenvalue as the planar rod's; an imperfection out of plane (z) buckles it
    to the planar elastica's tip (rotated into x-z)."""
    m = R3.make_rod3d(20)
    F = 1.5 * np.pi ** 2 / 4
    with pytest.raises(R3.StaticSolveError, match=r"load step 10/10 .*lowest eigenvalue "
                                                  r"-0\.0517") as err:
        R3.static(m, (-F, 0.0, 0.0))
    assert err.value.reason == "unstable equilibrium"
    p, _ = R3.tip(m, R3.static(m, (-F, 0.0, 0.05)))
    r2 = rod.make_rod(20)
    x, y, _ = rod.tip(r2, rod.static(r2, (-F, 0.05, 0.0)))
    assert np.allclose(p, [x, 0.0, y], rtol=0, atol=1e-9)


def test_static_failure_says_how_far_it_got():
    m = R3.make_rod3d(6)
    with pytest.raises(R3.StaticSolveError, match="load step"):
        R3.static(m, (0.0, -50.0, 0.0), steps=1, maxiter=1)


# --------------------------------------------------------------------------------------
# the Explore compute function
# --------------------------------------------------------------------------------------
def test_explore_shape_leaves_the_plane_only_when_twist_meets_bending():
    from lib import explore

    only_torque, _ = explore.rod3d_shape(2.0, 0.0, N=10)
    only_force, _ = explore.rod3d_shape(0.0, 2.0, N=10)
    both, R = explore.rod3d_shape(2.0, 2.0, N=10)
    assert np.abs(only_torque[:, 1:]).max() < 1e-10          # twisted, still straight
    assert np.abs(only_force[:, 2]).max() < 1e-10            # planar bending
    assert both[-1, 2] < -0.05                                # out of the x-y plane
    assert np.allclose(R @ np.swapaxes(R, 1, 2), np.eye(3), atol=1e-12)
    with pytest.raises(ValueError, match="twist"):
        explore.rod3d_shape(np.nan, 1.0)


def test_dynamic_run_matches_pyelastica_once_the_clamp_is_the_same():
    pytest.importorskip("elastica")
    m = R3.make_rod3d(10)
    dt = 1.0 / R3.omega_max_estimate(m)["max"]
    n = int(round(1.0 / dt))
    load = [0.0, -1.0, -0.5]
    z = np.zeros((10, 3))

    def tip(s, v, w):
        return s.x[-1].copy()

    *_, own = R3.lie_verlet(m, R3.straight(m), z, z, dt, n, load=load, every=20, observe=tip)
    *_, rigid = R3.lie_verlet(m, R3.straight(m), z, z, dt, n, load=load, every=20,
                              observe=tip, rigid_clamp=True)
    _, pe = cc.elastica_run(10, load, dt, n, every=20)
    gap_own = np.abs(np.array(own) - pe).max()
    gap_rigid = np.abs(np.array(rigid) - pe).max()
    assert gap_rigid < 0.02 * gap_own and gap_rigid < 1e-3


def test_twisted_clamped_rod_frequencies_converge_to_the_whirling_shaft():
    # twist-bend coupled vibration: clamped-clamped shaft at half Greenhill's moment
    kL = 0.5 * R3.greenhill_twist(0.0)
    ref = R3.twisted_shaft_omegas(kL, 2)
    assert R3.twisted_shaft_omegas(0.0, 1)[0] == pytest.approx(22.3733, abs=1e-4)
    Ns = np.array([20, 40, 80])
    err = []
    for N in Ns:
        m = R3.make_rod3d(N, r_over_L=0.002)
        om = R3.twisted_frequencies(m, kL * m.EI / m.GJ, 4)
        assert om[1] == pytest.approx(om[0], rel=1e-5)          # the two planes: a pair
        err.append(abs(om[0] / ref[0] - 1))
    slope = np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert -2.1 < slope < -1.9


# --------------------------------------------------------------------------------------
# the bad inputs, and extreme but legal ones
# --------------------------------------------------------------------------------------
def test_quaternions_that_are_not_unit_length_are_refused():
    m = R3.make_rod3d(4)
    s = R3.straight(m)
    with pytest.raises(ValueError, match=r"^state\.Q must hold unit quaternions .* row 0"):
        R3.energy(m, R3.State(s.x, 1.5 * s.Q))              # was 178.8 instead of 35.6
    Q0 = s.Q.copy()
    Q0[2] = 0.0
    with pytest.raises(ValueError, match=r"^state\.Q must hold unit quaternions .* row 2"):
        R3.gradient(m, R3.State(s.x, Q0))                   # was a NaN gradient
    off = s.Q * (1 + 0.5 * R3.QUAT_TOL)                      # within the stated tolerance
    assert R3.energy(m, R3.State(s.x, off)) == pytest.approx(0.0, abs=1e-12)


def test_a_planar_rod_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^rod must be a 3-D rod .*, got a Rod$"):
        R3.straight(rod.make_rod(4))
    with pytest.raises(ValueError, match=r"^state must be a State"):
        R3.energy(R3.make_rod3d(4), rod.straight(rod.make_rod(4)))


def test_a_twist_past_pi_per_element_is_refused_not_wrapped():
    m = R3.make_rod3d(10)
    with pytest.raises(ValueError, match=r"^twist must satisfy \|twist\| / N < pi"):
        R3.twisted_frequencies(m, 50.0)                     # was 6.59, the twist wrapped
    with pytest.raises(ValueError, match=r"^twist 20\.0 is beyond the critical twist"):
        R3.twisted_frequencies(m, 20.0)                     # representable, past critical
    assert R3.greenhill_lambda(m, 20.0) < 0                 # as a result: the eigenvalue
    with pytest.raises(ValueError, match=r"^kL must satisfy"):
        R3.twisted_shaft_omegas(9.0)


def test_static_is_linear_down_to_a_tiny_load_and_scales_with_EI():
    # extreme but legal: a load of 1e-12 EI/L^2 and a rod 1e6 times stiffer
    m = R3.make_rod3d(10, r_over_L=0.002)
    p3, _ = R3.tip(m, R3.static(m, (0.0, 0.0, -1e-3), steps=1))
    p12, _ = R3.tip(m, R3.static(m, (0.0, 0.0, -1e-12), steps=1))
    assert p12[2] / 1e-12 == pytest.approx(p3[2] / 1e-3, rel=1e-5)
    stiff = R3.make_rod3d(10, r_over_L=0.002, EI=1e6)
    ps, _ = R3.tip(stiff, R3.static(stiff, (0.0, 0.0, -1e3), steps=1))
    assert ps == pytest.approx(p3, rel=1e-9, abs=1e-12)


def test_shearable_greenhill_root_solves_the_clamped_boundary_problem():
    # the derivation re-done as a linear system: u = w' = A + B e^{iks} + D s,
    # w = a + A s + D s^2/2 + B e^{iks}/(ik), shear force N = i k EI D, section tilt
    # w' - N/kGA = 0 and w = 0 at s = 0, L; its determinant vanishes at the root
    nu, L, EI, kGA = 0.5, 1.0, 1.0, 300.0
    phi = EI / (kGA * L**2)
    Phi = R3.greenhill_twist(nu, L, shear=phi)
    k = Phi / (1 + nu) / L

    def det(kk):
        c = 1j * kk * EI / kGA                  # tilt offset per unit D
        E = np.exp(1j * kk * L)
        M = np.array([[0, 1, 1, -c],                            # u(0) = c D
                      [0, 1, E, L - c],                         # u(L) = c D
                      [1, 0, 1 / (1j * kk), 0],                 # w(0) = 0
                      [1, L, E / (1j * kk), L**2 / 2]])         # w(L) = 0
        return abs(np.linalg.det(M))

    assert det(k) < 1e-9 * det(1.05 * k)
    assert det(k) < 1e-9 * det(0.95 * k)
    # without shear the root moves up to Greenhill's (the determinant no longer vanishes)
    assert det(R3.greenhill_twist(nu) / (1 + nu) / L) > 1e-4 * det(1.05 * k)


def test_shearable_greenhill_falls_as_one_minus_four_phi():
    g0 = R3.greenhill_twist(0.5)
    phis = np.array([1e-6, 1e-5, 1e-4])
    drop = np.array([R3.greenhill_twist(0.5, shear=p) / g0 - 1 for p in phis])
    assert drop / phis == pytest.approx(-4.0, rel=2e-3)
    assert R3.greenhill_twist(0.5, shear=0.0) == g0


def test_discrete_rod_converges_to_shearable_greenhill_at_second_order():
    # the stubby rod (r/L = 0.04) converges to the shearable root, not Greenhill's
    m = R3.make_rod3d(10, r_over_L=0.04)
    ref = R3.greenhill_twist(m.nu, shear=m.EI / (m.kGA * m.L**2))
    Ns = np.array([10, 20, 40])
    err = np.array([R3.critical_twist(R3.make_rod3d(N, r_over_L=0.04)) / ref - 1 for N in Ns])
    slope = np.polyfit(np.log(Ns), np.log(np.abs(err)), 1)[0]
    assert -2.2 < slope < -1.9 and abs(err[-1]) < 1e-3
    assert ref / R3.greenhill_twist(m.nu) - 1 == pytest.approx(-4 * m.EI / (m.kGA), rel=0.02)


# --------------------------------------------------------------------------------------
# lie_newmark on the shared Newton: exact tangent, line search, halving (issue 25)
# --------------------------------------------------------------------------------------
def test_lie_newmark_tangent_is_the_derivative_of_its_residual():
    # the rotational terms (the torque turning with the frame, J_r of the increment, the
    # gyroscopic term) make the iteration matrix the exact Jacobian: central FD check
    rng = np.random.default_rng(0)
    m = R3.make_rod3d(5, r_over_L=0.1)
    N = m.N
    st = R3.retract(m, R3.straight(m), 0.3 * rng.standard_normal(6 * N))
    V, A = rng.standard_normal((N, 6)), rng.standard_normal((N, 6))
    dt, beta, gamma = 0.1, 0.25, 0.5
    M, J = R3.mass(m).reshape(N, 6), R3.inertia(m)
    load = np.array([0.0, -1.0, -0.5, 0.5, 0.2, 0.0])

    def parts(An):
        An = An.reshape(N, 6)
        D = dt * V + dt * dt * ((0.5 - beta) * A + beta * An)
        s1 = R3.retract(m, st, D.ravel())
        V1 = V + dt * ((1 - gamma) * A + gamma * An)
        g = R3.gradient(m, s1, load).reshape(N, 6)
        r = M * An + g
        r[:, :3] += np.cross(V1[:, :3], J * V1[:, :3])
        return r.ravel(), s1, g, D, V1

    An = rng.standard_normal(6 * N)
    _, s1, g, D, V1 = parts(An)
    K = R3._newmark_tangent(m, s1, g, D, V1[:, :3], J, M, dt, beta, gamma, load,
                            dense=False).toarray()
    # the dense assembly (short rods) is the same matrix
    Kd = R3._newmark_tangent(m, s1, g, D, V1[:, :3], J, M, dt, beta, gamma, load, dense=True)
    assert isinstance(Kd, np.ndarray) and np.allclose(Kd, K, rtol=0, atol=1e-13 * np.abs(K).max())
    h = 1e-6
    FD = np.column_stack([(parts(An + h * e)[0] - parts(An - h * e)[0]) / (2 * h)
                          for e in np.eye(6 * N)])
    assert np.abs(K - FD).max() < 1e-6 * np.abs(FD).max()
    # without the rotational terms it is not (the check can fail)
    K0 = (np.diag(M.ravel()) + dt * dt * beta * R3.hessian(m, s1, load).toarray())
    assert np.abs(K0 - FD).max() > 1e-3 * np.abs(FD).max()


def test_lie_newmark_planar_large_step_release_equals_planar_newmark():
    # the integration chapter's alpha = 2 release at dt = 0.05 (the old modified Newton
    # diverged at step 2): the 3-D scheme reduces exactly to lib.integrate's planar
    # Newmark on lib.rod, which completes it
    from lib import integrate
    rd = rod.make_rod(20, 0.04)
    q0 = rod.static(rd, (0.0, -2.0, 0.0))
    dt = 0.05
    n = round(2 * np.pi / rod.modes(rd)[0][0] / dt)            # one first period
    tr = integrate.newmark(q0, np.zeros_like(q0), dt, n,
                           lambda u: (rod.gradient(rd, u), rod.hessian(rd, u)), rod.mass(rd),
                           tol=1e-10)
    m3 = R3.make_rod3d(20, r_over_L=0.04)
    z = np.zeros((20, 3))
    s, v, w, _ = R3.lie_newmark(m3, R3.from_planar(m3, q0), z, z, dt, n)
    planar = tr.q[-1].reshape(20, 3)
    assert np.abs(s.x[:, :2] - planar[:, 1:]).max() < 1e-8
    assert np.abs(s.x[:, 2]).max() == 0.0 and tr.info["halved_steps"] == 0


def test_lie_newmark_completes_3d_release_under_force_and_twist():
    # released from the static 3-D shape under a tip force and a twisting moment (the old
    # loop diverged at step 1 at dt = 0.01); the energy error of the trapezoidal rule
    # falls like dt^2
    m = R3.make_rod3d(20, r_over_L=0.04)
    z = np.zeros((20, 3))
    s0 = R3.static(m, np.array([0.0, -1.0, -0.5, 0.5, 0.0, 0.0]), moment="dead")

    def E(s, v, w):
        return R3.energy(m, s) + R3.kinetic_energy(m, v, w)

    err = []
    for dt in (0.01, 0.005):
        *_, rec = R3.lie_newmark(m, s0, z, z, dt, round(0.5 / dt), observe=E)
        err.append(np.abs(np.array(rec) / rec[0] - 1).max())
    assert err[0] < 2e-3
    assert 1.7 < np.log2(err[0] / err[1]) < 2.5


def test_lie_newmark_halves_a_step_its_newton_cannot_take():
    # with maxiter = 5 the full step fails; halving (on by default) completes it, and
    # max_halvings = 0 reports the failure with its step and time
    m = R3.make_rod3d(6)
    z = np.zeros((6, 3))
    s_h, *_ = R3.lie_newmark(m, R3.straight(m), z, z, 0.5, 1, load=(0.0, -3.0, 0.0), maxiter=5)
    assert s_h.x[-1, 1] < 0 and np.isfinite(s_h.x).all()
    with pytest.raises(R3.StaticSolveError, match=r"step 1 \(t = 0\.5\)"):
        R3.lie_newmark(m, R3.straight(m), z, z, 0.5, 1, load=(0.0, -3.0, 0.0), maxiter=5,
                       max_halvings=0)


def test_banded_eigenvalues_of_the_twisted_rod_equal_the_dense_ones():
    """greenhill_lambda / twisted_frequencies solve the banded problem (eig_banded); the
    dense generalized eigh gives the same values to round-off of the Hessian's norm."""
    import scipy.linalg as sla
    m = R3.make_rod3d(12, r_over_L=0.01)
    for twist in (0.0, 6.0, 13.0):
        H, mm = R3._twisted_clamped(m, twist)
        scale = np.abs(H).max() * H.shape[0] * np.finfo(float).eps
        dense = sla.eigh(H, eigvals_only=True, subset_by_index=[0, 3])
        assert np.allclose(R3._lowest_eigenvalues(H, 4), dense, rtol=0, atol=10 * scale)
        assert abs(R3.greenhill_lambda(m, twist) - dense[0]) < 10 * scale
        lam = sla.eigh(H, np.diag(mm), eigvals_only=True, subset_by_index=[0, 1])
        om = R3.twisted_frequencies(m, twist, 2)
        assert np.allclose(om, np.sqrt(lam), rtol=1e-6)
    # a matrix with a wider band than the rod's is solved as well
    A = np.diag(np.arange(1.0, 9.0)) + np.diag(np.full(5, 0.3), 3) + np.diag(np.full(5, 0.3), -3)
    assert np.allclose(R3._lowest_eigenvalues(A, 3), np.linalg.eigvalsh(A)[:3], atol=1e-13)
