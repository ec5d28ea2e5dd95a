"""Tests of the energy chapter's integrators (lib.integrate, issue 16).

Each test is named for the property it proves: the discrete chain rule,
energy conservation to the Newton tolerance, second order by a log-log fit,
reduction to the trapezoidal rule on linear problems, time reversibility, the
damped explicit limit against the amplification matrix.
"""
import numpy as np
import pytest

from lib import integrate, rod


def pendulum():
    energy = lambda q: float(1.0 - np.cos(q[0]))
    force = lambda q: (np.sin(q), np.array([[np.cos(q[0])]]))
    return energy, force


@pytest.fixture(scope="module")
def bent_rod():
    rd = rod.make_rod(6, 0.04)
    q0 = rod.static(rd, (0.0, -2.0, 0.0))
    return rd, q0


def rod_kernels(rd):
    return (lambda q: rod.energy(rd, q),
            lambda q: (rod.gradient(rd, q), rod.hessian(rd, q)))


def test_correction_satisfies_discrete_chain_rule_for_nonpolynomial_energy(bent_rod):
    rd, q0 = bent_rod
    rng = np.random.default_rng(1)
    M = rod.mass(rd)
    for scale in (1e-1, 1e-2):
        q1 = q0 + scale * rng.standard_normal(q0.size)
        g = rod.gradient(rd, 0.5 * (q0 + q1))
        c, Mdq = integrate.discrete_gradient_correction(rod.energy(rd, q0), rod.energy(rd, q1),
                                                        g, q1 - q0, M)
        dE = rod.energy(rd, q1) - rod.energy(rd, q0)
        assert c != 0.0
        assert abs((g + c * Mdq) @ (q1 - q0) - dE) <= 1e-12 * abs(dE)


def test_correction_is_zero_for_quadratic_energy():
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    Pi = lambda q: 0.5 * q @ A @ q
    q0, q1 = np.array([0.4, -0.2]), np.array([-0.1, 0.5])
    c, _ = integrate.discrete_gradient_correction(Pi(q0), Pi(q1), A @ (0.5 * (q0 + q1)), q1 - q0)
    assert c == 0.0


@pytest.mark.parametrize("dt", [0.05, 0.1])
def test_rod_release_conserves_energy_to_newton_tolerance(bent_rod, dt):
    rd, q0 = bent_rod
    energy, force = rod_kernels(rd)
    M = rod.mass(rd)
    tol = 1e-10
    tr = integrate.discrete_gradient(q0, np.zeros(q0.size), dt, 40, energy, force, M, tol=tol)
    H = rod.energy(rd, tr.q) + integrate.kinetic_energy(M, tr.v)
    # per step |H_1 - H_0| <= |R . dq| <= tol * scale * ||dq||_1; scale <= max force
    gmax = max(float(np.abs(rod.gradient(rd, q)).max()) for q in tr.q)
    dqsum = np.abs(np.diff(tr.q, axis=0)).sum()
    assert np.abs(H - H[0]).max() <= 10 * tol * gmax * dqsum
    assert np.abs(H - H[0]).max() / H[0] < 1e-8
    # and the motion is large: the tip swings through more than half its deflection
    assert np.ptp(tr.q[:, -1]) > 0.3


def test_energy_error_follows_newton_tolerance():
    energy, force = pendulum()
    errs = []
    for tol in (1e-6, 1e-9, 1e-12):
        tr = integrate.discrete_gradient(np.array([2.8]), np.zeros(1), 0.3, 100, energy, force,
                                         np.ones(1), tol=tol)
        H = np.array([energy(q) for q in tr.q]) + 0.5 * tr.v[:, 0] ** 2
        errs.append(np.abs(H - H[0]).max())
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-10


def test_second_order_by_loglog_fit():
    energy, force = pendulum()
    T = 2.0
    q0, v0 = np.array([2.0]), np.array([0.3])
    from scipy.integrate import solve_ivp
    ref = solve_ivp(lambda t, y: [y[1], -np.sin(y[0])], (0, T), [q0[0], v0[0]],
                    method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    dts = np.array([0.1, 0.05, 0.025, 0.0125])
    errs = []
    for dt in dts:
        tr = integrate.discrete_gradient(q0, v0, dt, round(T / dt), energy, force, np.ones(1),
                                         every=round(T / dt), tol=1e-13)
        errs.append(np.hypot(tr.q[-1, 0] - ref[0], tr.v[-1, 0] - ref[1]))
    slope = np.polyfit(np.log(dts), np.log(errs), 1)[0]
    assert 1.9 < slope < 2.1


def test_second_order_on_the_rod_by_loglog_fit(bent_rod):
    # steps that resolve the stiffest mode (omega_max dt <= 0.3), against DOP853
    from scipy.integrate import solve_ivp
    rd, q0 = bent_rod
    energy = lambda q: rod.energy(rd, q)
    force = lambda q: (rod.gradient(rd, q), rod.hessian(rd, q).toarray())   # dense: 18 dofs
    M = rod.mass(rd)
    v0 = 0.5 * np.cos(np.arange(q0.size))
    T = 0.01
    ref = solve_ivp(lambda t, y: np.r_[y[q0.size:], -rod.gradient(rd, y[:q0.size]) / M],
                    (0, T), np.r_[q0, v0], method="DOP853", rtol=1e-13, atol=1e-13).y[:q0.size, -1]
    dts = np.array([2e-4, 1e-4, 5e-5])
    errs = []
    for dt in dts:
        tr = integrate.discrete_gradient(q0, v0, dt, round(T / dt), energy, force, M,
                                         every=round(T / dt), tol=1e-13)
        errs.append(np.abs(tr.q[-1] - ref).max())
    slope = np.polyfit(np.log(dts), np.log(errs), 1)[0]
    assert 1.9 < slope < 2.2


def test_linear_problem_reduces_to_trapezoidal_newmark():
    K = np.array([[4.0, -1.0], [-1.0, 3.0]])
    M = np.array([1.0, 2.0])
    energy = lambda q: 0.5 * q @ K @ q
    force = lambda q: (K @ q, K)
    q0, v0 = np.array([1.0, -0.5]), np.array([0.2, 0.1])
    dg = integrate.discrete_gradient(q0, v0, 0.3, 30, energy, force, M, tol=1e-14)
    nm = integrate.newmark(q0, v0, 0.3, 30, force, M, tol=1e-14)
    assert np.abs(dg.q - nm.q).max() < 1e-12
    assert np.abs(dg.v - nm.v).max() < 1e-12


def test_step_is_time_reversible(bent_rod):
    rd, q0 = bent_rod
    energy, force = rod_kernels(rd)
    M = rod.mass(rd)
    v0 = 0.3 * np.sin(np.arange(q0.size))
    q1, v1 = integrate.discrete_gradient_step(q0, v0, 0.05, energy, force, M, tol=1e-13)
    q2, v2 = integrate.discrete_gradient_step(q1, -v1, 0.05, energy, force, M, tol=1e-13)
    assert np.abs(q2 - q0).max() < 1e-10
    assert np.abs(-v2 - v0).max() < 1e-8


def test_halving_rescues_a_step_and_failure_names_step(bent_rod):
    rd, q0 = bent_rod
    energy, force = rod_kernels(rd)
    M = rod.mass(rd)
    with pytest.raises(integrate.NewtonFailure) as err:
        integrate.discrete_gradient(q0, np.zeros(q0.size), 0.5, 4, energy, force, M, maxiter=6)
    assert err.value.step == 1 and ": step 1 (t = 0.5), " in str(err.value)
    tr = integrate.discrete_gradient(q0, np.zeros(q0.size), 0.5, 1, energy, force, M, maxiter=6,
                                     max_halvings=6)
    assert tr.info["halved_steps"] == 1 and tr.info["substeps"] > 1


def test_bad_input_raises_valueerror_naming_argument():
    energy, force = pendulum()
    with pytest.raises(ValueError, match="dt"):
        integrate.discrete_gradient_step(np.ones(1), np.zeros(1), -0.1, energy, force, np.ones(1))
    with pytest.raises(ValueError, match="predictor"):
        integrate.discrete_gradient_step(np.ones(1), np.zeros(1), 0.1, energy, force, np.ones(1),
                                         predictor="cubic")
    with pytest.raises(ValueError, match="mass"):
        integrate.discrete_gradient_step(np.ones(1), np.zeros(1), 0.1, energy, force, np.ones(3))
    with pytest.raises(ValueError, match="omega"):
        integrate.damped_critical_step(-1.0, 0.1)
    with pytest.raises(ValueError, match="zeta"):
        integrate.damped_critical_step(1.0, -0.1)


@pytest.mark.parametrize("zeta", [0.0, 0.05, 0.3, 1.0, 3.0])
def test_damped_limit_is_where_the_spectral_radius_leaves_one(zeta):
    dtc = integrate.damped_critical_step(1.0, zeta)
    rho = lambda dt: abs(np.linalg.eigvals(integrate.damped_leapfrog_amplification(1.0, dt, zeta))).max()
    assert rho(dtc * (1 - 1e-6)) <= 1 + 1e-9
    assert rho(dtc * (1 + 1e-3)) > 1


def test_damped_limit_small_zeta_expansion():
    for z in (1e-3, 1e-2):
        assert abs(integrate.damped_critical_step(1.0, z) - 2 * (1 - z)) < 2 * z * z


def test_leapfrog_damped_is_verlet_without_damping():
    acc = lambda q: -np.array([4.0]) * q
    q, v, a = np.ones(1), np.zeros(1), acc(np.ones(1))
    qv, vh = np.ones(1), 0.5 * 0.1 * a          # v_{1/2} after the first half kick
    qv, vh = qv + 0.1 * vh, vh
    for _ in range(20):
        q, v, a = integrate.verlet_step(q, v, a, 0.1, acc)
    # leapfrog from (q_1, v_{1/2}) reproduces Verlet's positions
    ql, vl = qv, vh
    for _ in range(19):
        ql, vl = integrate.leapfrog_damped_step(ql, vl, 0.1, lambda q, v: acc(q))
    assert abs(ql - q).max() < 1e-13


def test_model_independent_fem_arm_conserves_energy_with_consistent_mass():
    # the neo-Hookean FEM arm (sparse consistent mass) through the same integrator
    from lib import fem
    m = fem.cantilever(4, 1, "T3", nu=0.3, slenderness=4.0)
    fr = m.free
    M = fem.condense(m, fem.mass(m))
    energy = lambda u: fem.energy(m, fem.expand(m, u))
    force = lambda u: (fem.gradient(m, fem.expand(m, u))[fr],
                       fem.condense(m, fem.hessian(m, fem.expand(m, u))))
    # start: the tip pushed up by a large velocity (large strains, a nonquadratic energy)
    v0 = np.zeros(fr.size)
    v0[1::2] = 0.4 * (m.mesh.nodes[:, 0].repeat(2)[fr][1::2] / 4.0) ** 2
    tr = integrate.discrete_gradient(np.zeros(fr.size), v0, 0.5, 30, energy, force, M, tol=1e-12)
    H = np.array([energy(u) for u in tr.q]) + 0.5 * np.einsum("ij,ij->i", tr.v, (M @ tr.v.T).T)
    nm = integrate.newmark(np.zeros(fr.size), v0, 0.5, 30, force, M, tol=1e-12)
    Hn = np.array([energy(u) for u in nm.q]) + 0.5 * np.einsum("ij,ij->i", nm.v, (M @ nm.v.T).T)
    assert np.abs(tr.q).max() > 0.3                       # large motion
    assert np.abs(H / H[0] - 1).max() < 1e-9
    assert np.abs(Hn / Hn[0] - 1).max() > 1e3 * np.abs(H / H[0] - 1).max()


def test_exact_dense_tangent_converges_faster_to_the_same_step(bent_rod):
    rd, q0 = bent_rod
    energy = lambda q: rod.energy(rd, q)
    force = lambda q: (rod.gradient(rd, q), rod.hessian(rd, q).toarray())
    M = rod.mass(rd)
    v0 = 0.5 * np.cos(np.arange(q0.size))
    runs = {}
    for exact in (False, True):
        (q1, v1), st = integrate._dg_core(q0, v0, 0.1, energy, force, M, None, 1e-13, 80,
                                          "displacement", "fallback", 0,
                                          (lambda q: rod.gradient(rd, q)) if exact else None)
        runs[exact] = (q1, st["iterations"])
    assert np.abs(runs[True][0] - runs[False][0]).max() < 1e-9
    assert runs[True][1] < runs[False][1]
    # and through the public run: energy conserved with the exact tangent too
    tr = integrate.discrete_gradient(q0, v0, 0.1, 20, energy, force, M, tol=1e-12,
                                     gradient=lambda q: rod.gradient(rd, q))
    H = rod.energy(rd, tr.q) + integrate.kinetic_energy(M, tr.v)
    assert np.abs(H / H[0] - 1).max() < 1e-10


def kepler():
    energy = lambda q: float(-1.0 / np.linalg.norm(q))

    def force(q):
        r = np.linalg.norm(q)
        return q / r ** 3, np.eye(2) / r ** 3 - 3.0 * np.outer(q, q) / r ** 5
    return energy, force


def test_mass_metric_discrete_gradient_conserves_energy_but_not_angular_momentum():
    # the docstring's claim (issue 25): the correction c M dq is not perpendicular to
    # the rotation, so a rotation-invariant Pi does not keep q x p, Euclidean metric too
    energy, force = kepler()
    tr = integrate.discrete_gradient(np.array([1.0, 0.0]), np.array([0.0, 1.2]), 0.1, 300,
                                     energy, force, np.ones(2), tol=1e-13,
                                     gradient=lambda q: force(q)[0])
    H = np.array([energy(q) for q in tr.q]) + 0.5 * (tr.v ** 2).sum(axis=1)
    L = tr.q[:, 0] * tr.v[:, 1] - tr.q[:, 1] * tr.v[:, 0]
    assert np.abs(H / H[0] - 1).max() < 1e-11
    assert np.abs(L / L[0] - 1).max() > 1e-4          # drifts (about 1e-3 here)


def test_mass_metric_discrete_gradient_does_not_conserve_linear_momentum():
    # two unequal masses joined by a nonlinear (geometrically exact) spring, in the plane
    m = np.array([1.0, 1.0, 3.0, 3.0])

    def parts(q):
        d = q[2:] - q[:2]
        r = np.linalg.norm(d)
        return d, r, d / r
    energy = lambda q: float(50.0 * (parts(q)[1] - 1.0) ** 2)

    def force(q):
        d, r, n = parts(q)
        Kd = 100.0 * ((1.0 - 1.0 / r) * np.eye(2) + np.outer(n, n) / r)
        g = 100.0 * (r - 1.0) * n
        return np.r_[-g, g], np.block([[Kd, -Kd], [-Kd, Kd]])
    tr = integrate.discrete_gradient(np.array([0.0, 0.0, 1.5, 0.0]), np.array([0, 0, 0, 1.0]),
                                     0.1, 300, energy, force, m, tol=1e-13,
                                     gradient=lambda q: force(q)[0])
    P = (tr.v * m).reshape(-1, 2, 2).sum(axis=1)
    H = np.array([energy(q) for q in tr.q]) + 0.5 * (m * tr.v ** 2).sum(axis=1)
    assert np.abs(H / H[0] - 1).max() < 1e-11
    assert np.abs(P - P[0]).max() / np.linalg.norm(P[0]) > 1e-2   # about 5 % here


def test_energy_is_conserved_for_a_wrong_gradient_so_conservation_is_not_correctness():
    # a gradient scaled by 0.7 is inconsistent with the energy: the discrete chain rule
    # still makes H exact (to the Newton tolerance) while the orbit goes wrong.  (In one
    # dimension the discrete gradient is unique, dPi/dq, and a wrong gradient would not
    # show: hence the plane.)
    energy, force = kepler()
    wrong = lambda q: tuple(0.7 * x for x in force(q))
    run = lambda f: integrate.discrete_gradient(np.array([1.0, 0.0]), np.array([0.0, 1.2]), 0.05,
                                                200, energy, f, np.ones(2), tol=1e-12)
    ok, bad = run(force), run(wrong)
    H = np.array([energy(q) for q in bad.q]) + 0.5 * (bad.v ** 2).sum(axis=1)
    assert np.abs(H / H[0] - 1).max() < 1e-10
    assert np.abs(bad.q - ok.q).max() > 1.0             # the motion goes wrong
