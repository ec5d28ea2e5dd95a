"""Tests of lib.constraints: saddle-point solves, constrained dynamics, contact LCP."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from lib import constraints as C


# ---------------------------------------------------------------- helpers
def random_saddle(rng, n, m, sparse=False):
    X = rng.standard_normal((n, n))
    M = X @ X.T + n * np.eye(n)
    B = rng.standard_normal((m, n))
    f = rng.standard_normal(n)
    gamma = rng.standard_normal(m)
    if sparse:
        return sp.csr_array(M), sp.csr_array(B), f, gamma
    return M, B, f, gamma


def kkt_residual(M, B, f, gamma, qdd, lam):
    r1 = M @ qdd - B.T @ lam - f
    r2 = B @ qdd - gamma
    return max(np.abs(r1).max(), np.abs(r2).max())


# ---------------------------------------------------------------- saddle point
@pytest.mark.parametrize("n,m", [(5, 1), (12, 4), (40, 15), (9, 9)])
def test_kkt_and_schur_agree_to_roundoff_dense(n, m):
    rng = np.random.default_rng(n + 100 * m)
    M, B, f, gamma = random_saddle(rng, n, m)
    q1, l1 = C.kkt_solve(M, B, f, gamma)
    q2, l2 = C.schur_solve(M, B, f, gamma)
    eps = np.finfo(float).eps
    scale = np.linalg.cond(C.kkt_matrix(M, B)) * eps * 10
    assert np.abs(q1 - q2).max() <= scale * np.abs(q1).max()
    assert np.abs(l1 - l2).max() <= scale * np.abs(l1).max()
    assert kkt_residual(M, B, f, gamma, q1, l1) < 1e-11 * (1 + np.abs(f).max())


def test_kkt_and_schur_agree_sparse_and_with_dense():
    rng = np.random.default_rng(7)
    n, m = 200, 10
    # banded SPD M (a chain of springs plus masses) and sparse B
    main = 4.0 + rng.random(n)
    M = sp.diags_array([main, -np.ones(n - 1), -np.ones(n - 1)], offsets=[0, 1, -1], format="csr")
    rows = np.repeat(np.arange(m), 3)
    cols = rng.choice(n, size=3 * m, replace=False)
    B = sp.csr_array((rng.standard_normal(3 * m), (rows, cols)), shape=(m, n))
    f = rng.standard_normal(n)
    gamma = rng.standard_normal(m)
    q1, l1 = C.kkt_solve(M, B, f, gamma)
    q2, l2 = C.schur_solve(M, B, f, gamma)
    q3, l3 = C.kkt_solve(M.toarray(), B.toarray(), f, gamma)
    for a, b in ((q1, q2), (q1, q3)):
        assert np.abs(a - b).max() < 1e-12 * np.abs(q1).max()
    for a, b in ((l1, l2), (l1, l3)):
        assert np.abs(a - b).max() < 1e-12 * np.abs(l1).max()
    assert kkt_residual(M, B, f, gamma, q1, l1) < 1e-12


def test_kkt_solves_with_singular_M_positive_on_nullspace_of_B():
    # a free-free chain of springs (singular stiffness) held by one constraint
    n = 6
    K = sp.diags_array([np.r_[1, 2 * np.ones(n - 2), 1], -np.ones(n - 1), -np.ones(n - 1)],
                       offsets=[0, 1, -1]).toarray()
    B = np.zeros((1, n)); B[0, 0] = 1.0
    f = np.zeros(n); f[-1] = 1.0
    u, lam = C.kkt_solve(K, B, f, [0.0])
    # the support takes the whole load, the tip displaces by n - 1 unit springs
    assert lam[0] == pytest.approx(-1.0, abs=1e-12)
    assert u[-1] == pytest.approx(n - 1.0, abs=1e-12)
    with pytest.raises(ValueError, match="singular"):
        C.schur_solve(K, B, f, [0.0])


def test_schur_form_is_the_actuation_formula_of_the_fem_reading():
    # delta* = B K^-1 B^T lam + delta_free, delta_free = B K^-1 f  (seed 3.10.3.6)
    rng = np.random.default_rng(3)
    K, B, f, delta = random_saddle(rng, 15, 3)
    u, lam = C.kkt_solve(K, B, f, delta)
    Kinv = np.linalg.inv(K)
    assert np.allclose(B @ Kinv @ B.T @ lam + B @ Kinv @ f, delta, atol=1e-12)
    assert np.allclose(B @ u, delta, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("solver", [C.kkt_solve, C.schur_solve])
def test_rank_deficient_B_raises(solver, sparse):
    rng = np.random.default_rng(11)
    M, B, f, gamma = random_saddle(rng, 10, 4)
    B[3] = 2.0 * B[0] - B[1]
    if sparse:
        M, B = sp.csr_array(M), sp.csr_array(B)
    with pytest.raises(ValueError, match="rank-deficient"):
        solver(M, B, f, gamma)
    with pytest.raises(ValueError, match="rank-deficient"):
        solver(np.eye(2), np.ones((3, 2)), np.zeros(2), np.zeros(3))


def test_constraint_rank_counts_independent_rows():
    rng = np.random.default_rng(5)
    U = rng.standard_normal((6, 3))
    B = U @ rng.standard_normal((3, 50))
    assert C.constraint_rank(B) == 3
    assert C.constraint_rank(sp.csr_array(B)) == 3
    assert C.constraint_rank(sp.eye(4, 1000)) == 4
    assert C.constraint_rank(np.zeros((2, 3))) == 0


@pytest.mark.parametrize("args,name", [
    ((np.ones((2, 3)), np.ones((1, 3)), np.zeros(3), np.zeros(1)), "M"),
    ((np.eye(3), np.ones((1, 2)), np.zeros(3), np.zeros(1)), "B"),
    ((np.eye(3), np.ones((1, 3)), np.zeros(2), np.zeros(1)), "f"),
    ((np.eye(3), np.ones((1, 3)), np.zeros(3), np.zeros(2)), "gamma"),
])
def test_bad_shapes_raise_naming_the_argument(args, name):
    for solver in (C.kkt_solve, C.schur_solve):
        with pytest.raises(ValueError, match=rf"^{name} "):
            solver(*args)


def test_constraint_force_does_no_work_on_admissible_velocities():
    rng = np.random.default_rng(2)
    for n, m in ((6, 2), (20, 7)):
        M, B, f, gamma = random_saddle(rng, n, m)
        _, lam = C.kkt_solve(M, B, f, gamma)
        # admissible velocities span the null space of B
        _, _, Vt = np.linalg.svd(B)
        Nv = Vt[m:].T @ rng.standard_normal((n - m, 5))
        assert np.abs(B @ Nv).max() < 1e-12
        power = Nv.T @ (B.T @ lam)
        assert np.abs(power).max() < 1e-12 * np.abs(B.T @ lam).max() * np.abs(Nv).max()


def test_symmetric_kkt_matrix_has_saddle_point_inertia():
    rng = np.random.default_rng(4)
    n, m = 12, 5
    M, B, _, _ = random_saddle(rng, n, m)
    ev = np.linalg.eigvalsh(C.kkt_matrix(M, B, symmetric=True))
    assert (np.sum(ev > 0), np.sum(ev < 0)) == (n, m)
    # the seed's sign convention is the same matrix with lambda -> -lambda
    K = C.kkt_matrix(M, B)
    S = C.kkt_matrix(M, B, symmetric=True)
    assert np.array_equal(K, S @ np.diag(np.r_[np.ones(n), -np.ones(m)]))


# ---------------------------------------------------------------- Jacobians by finite differences
def fd_jacobian(fun, q, h=1e-6):
    cols = [(fun(q + h * e) - fun(q - h * e)) / (2 * h) for e in np.eye(q.size)]
    return np.stack(cols, axis=1)


def fd_gamma(jac, q, v, h=1e-6):
    # gamma = -(d/dt B(q)) v = -(dB/dq . v) v
    dB = (jac(q + h * v) - jac(q - h * v)) / (2 * h)
    return -dB @ v


def test_pendulum_and_four_bar_jacobians_match_finite_differences():
    rng = np.random.default_rng(8)
    fb = C.four_bar(a=0.12, b=0.4, c=0.33, d=0.45)
    for s in (C.pendulum(m=0.7, l=1.3), fb.system):
        q = rng.standard_normal(s.n)
        v = rng.standard_normal(s.n)
        assert np.allclose(s.jacobian(q), fd_jacobian(s.phi, q), atol=1e-8)
        assert np.allclose(s.gamma(q, v), fd_gamma(s.jacobian, q, v), atol=1e-7)


def test_unicycle_gamma_matches_finite_differences():
    rng = np.random.default_rng(9)
    s = C.unicycle()
    for _ in range(3):
        q, v = rng.standard_normal(3), rng.standard_normal(3)
        assert np.allclose(s.gamma(q, v), fd_gamma(s.jacobian, q, v), atol=1e-8)


# ---------------------------------------------------------------- pendulum
def test_pendulum_multiplier_is_minus_tension_over_2l():
    from scipy.integrate import solve_ivp
    m, l, g, th0 = 0.7, 1.3, 9.81, 2.0
    s = C.pendulum(m=m, l=l, g=g)
    t = np.linspace(0.0, 3.0, 31)
    tr = C.simulate(s, [l * np.sin(th0), -l * np.cos(th0)], [0.0, 0.0], t, project=True)
    # the same motion in the minimal coordinate theta (from the downward vertical)
    sol = solve_ivp(lambda t, y: [y[1], -g / l * np.sin(y[0])], (0, 3), [th0, 0.0],
                    t_eval=t, method="DOP853", rtol=1e-11, atol=1e-12)
    T = C.pendulum_tension(sol.y[0], sol.y[1], m=m, l=l, g=g)
    assert np.abs(-2 * l * tr.lam[:, 0] - T).max() < 1e-6 * m * g
    # and the energy form T = m g (3 cos th - 2 cos th0)
    assert np.allclose(T, m * g * (3 * np.cos(sol.y[0]) - 2 * np.cos(th0)), atol=1e-8)
    # the string pulls (T > 0 somewhere) and the multiplier then is negative
    assert np.all(np.sign(tr.lam[T > 1e-3, 0]) == -1)


def drift(alpha=0.0, beta=0.0, t_end=40.0):
    s = C.pendulum(m=1.0, l=1.0, g=9.81)
    t = np.linspace(0.0, t_end, 401)
    tr = C.simulate(s, [1.0, 0.0], [0.0, 0.0], t, alpha=alpha, beta=beta,
                    method="RK45", rtol=1e-6, atol=1e-9)
    return t, np.abs(tr.phi[:, 0])


def test_drift_grows_like_t_squared_without_stabilisation():
    t, phi = drift()
    env = np.maximum.accumulate(phi)
    sel = t >= 4.0
    slope = np.polyfit(np.log(t[sel]), np.log(env[sel]), 1)[0]
    assert 1.8 < slope < 2.2


def test_baumgarte_keeps_drift_bounded():
    t, free = drift()
    _, stab = drift(alpha=5.0, beta=5.0)
    first, second = t < 20.0, t >= 20.0
    assert stab[second].max() <= 1.5 * stab[first].max()
    assert stab.max() < 1e-2 * free[-1]


def test_projection_keeps_constraints_and_energy():
    s = C.pendulum(m=1.0, l=0.8, g=9.81)
    t = np.linspace(0.0, 10.0, 101)
    tr = C.simulate(s, [0.8, 0.0], [0.0, 0.0], t, project=True, method="RK45", rtol=1e-6, atol=1e-9)
    assert np.abs(tr.phi).max() <= 1e-12
    assert np.abs(tr.bv).max() <= 1e-12
    E = 0.5 * np.sum(tr.v**2, axis=1) + 9.81 * tr.q[:, 1]
    assert np.abs(E - E[0]).max() < 1e-3 * 9.81 * 0.8
    # the constraint force does no work along the motion
    Q = C.constraint_force(s, tr.q, tr.lam)
    assert np.abs(np.sum(Q * tr.v, axis=1)).max() < 1e-10


def test_project_state_reports_failure():
    s = C.pendulum()
    with pytest.raises(C.ConvergenceError, match="position projection: iteration 1, residual "
                       r"\S+ \(tol 1.0e-12\): iteration limit") as err:
        C.project_state(s, [0.0, -2.0], [0.0, 0.0], max_iter=1)
    assert err.value.iteration == 1 and err.value.reason == "maxiter"


def test_singular_configuration_raises():
    s = C.pendulum()
    with pytest.raises(ValueError, match="singular"):
        C.accelerations(s, 0.0, np.zeros(2), np.zeros(2))


def test_bad_dynamics_inputs_raise():
    with pytest.raises(ValueError, match="beta"):
        C.simulate(C.unicycle(), np.zeros(3), np.zeros(3), [0.0, 1.0], beta=1.0)
    with pytest.raises(ValueError, match="t_eval"):
        C.simulate(C.pendulum(), [1.0, 0.0], [0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="q0"):
        C.simulate(C.pendulum(), [1.0, 0.0, 0.0], [0.0, 0.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="jacobian"):
        C.make_system(np.eye(2), lambda t, q, v: q, lambda q: np.ones(2), lambda q, v: np.zeros(1))
    with pytest.raises(ValueError, match="l must"):
        C.pendulum(l=0.0)


# ---------------------------------------------------------------- wheeled robot
def test_unicycle_side_force_is_m_v2_over_R_on_a_circle():
    m, J, R, v0 = 3.0, 0.2, 0.7, 1.1
    s = C.unicycle(m=m, J=J)
    t = np.linspace(0.0, 2.0, 21)
    tr = C.simulate(s, [0.0, 0.0, 0.0], [v0, 0.0, v0 / R], t, alpha=2.0)
    speed = np.hypot(tr.v[:, 0], tr.v[:, 1])
    assert np.allclose(speed, v0, atol=1e-8)
    assert np.allclose(np.hypot(tr.q[:, 0], tr.q[:, 1] - R), R, atol=1e-8)
    assert np.allclose(tr.lam[:, 0], m * v0**2 / R, rtol=1e-8)


# ---------------------------------------------------------------- four-bar
def newton_euler_four_bar(fb, theta1, omega1):
    """Pin forces and crank torque from free-body diagrams (crank at constant rate)."""
    a, b, c, d = fb.a, fb.b, fb.c, fb.d
    q, v = C.four_bar_state(fb, theta1, omega1)
    th, w = q[2::3], v[2::3]
    u = np.stack([np.cos(th), np.sin(th)], 1)
    up = np.stack([-u[:, 1], u[:, 0]], 1)
    al2, al3 = np.linalg.solve(np.column_stack([b * up[1], -c * up[2]]),
                               a * w[0]**2 * u[0] + b * w[1]**2 * u[1] - c * w[2]**2 * u[2])
    al = np.array([0.0, al2, al3])
    O2, O4 = np.zeros(2), np.array([d, 0.0])
    A = a * u[0]
    Bp = A + b * u[1]
    r = q.reshape(3, 3)[:, :2]
    acc = [a / 2 * (-w[0]**2 * u[0]),
           a * (-w[0]**2 * u[0]) + b / 2 * (al2 * up[1] - w[1]**2 * u[1]),
           c / 2 * (al3 * up[2] - w[2]**2 * u[2])]
    m, Izz, g = fb.masses, fb.inertias, fb.g

    def arm(p, i):  # row giving the moment of a force at p about the centre of body i
        return [-(p - r[i])[1], (p - r[i])[0]]

    E, rhs = np.zeros((9, 9)), np.zeros(9)
    # unknowns: F_O2 (on crank), F_A (on crank, from coupler), F_B (on coupler, from rocker),
    #           F_O4 (on rocker), motor torque on the crank
    E[0:2, 0:2] = E[0:2, 2:4] = np.eye(2)
    E[2, 0:2], E[2, 2:4], E[2, 8] = arm(O2, 0), arm(A, 0), 1.0
    E[3:5, 2:4], E[3:5, 4:6] = -np.eye(2), np.eye(2)
    E[5, 2:4], E[5, 4:6] = -np.array(arm(A, 1)), arm(Bp, 1)
    E[6:8, 4:6], E[6:8, 6:8] = -np.eye(2), np.eye(2)
    E[8, 4:6], E[8, 6:8] = -np.array(arm(Bp, 2)), arm(O4, 2)
    for i in range(3):
        rhs[3 * i:3 * i + 2] = m[i] * acc[i] + np.array([0.0, m[i] * g])
        rhs[3 * i + 2] = Izz[i] * al[i]
    return np.linalg.solve(E, rhs)


def test_four_bar_multipliers_are_the_newton_euler_joint_forces():
    fb = C.four_bar(a=0.15, b=0.5, c=0.45, d=0.55, line_density=3.0)
    for th in np.linspace(0.0, 2 * np.pi, 9)[:-1]:
        q, v = C.four_bar_state(fb, th, 7.0)
        s = fb.system
        B = np.vstack([s.jacobian(q), np.eye(9)[2]])      # + crank driver theta1 = omega t
        qdd, lam = C.kkt_solve(s.mass, B, s.force(0.0, q, v), np.r_[s.gamma(q, v), 0.0])
        ne = newton_euler_four_bar(fb, th, 7.0)
        assert np.abs(lam - ne).max() < 1e-12 * np.abs(ne).max()


# ---------------------------------------------------------------- LCP
def brute_force_lcp(A, b):
    """Every active set S: lam_S = -A_SS^-1 b_S, lam = 0 elsewhere; keep the feasible ones."""
    m = b.size
    sols = []
    for k in range(m + 1):
        for S in itertools.combinations(range(m), k):
            S = list(S)
            lam = np.zeros(m)
            if S:
                lam[S] = np.linalg.solve(A[np.ix_(S, S)], -b[S])
            w = A @ lam + b
            if lam.min() >= -1e-10 and w.min() >= -1e-10:
                sols.append(lam)
    return sols


def test_lcp_matches_brute_force_enumeration_on_random_P_matrices():
    rng = np.random.default_rng(12)
    for trial in range(120):
        m = int(rng.integers(1, 7))
        X = rng.standard_normal((m, m))
        if trial % 2:   # nonsymmetric, strictly diagonally dominant: a P-matrix
            A = X + np.diag(np.abs(X).sum(axis=1) + 0.1)
        else:           # symmetric positive definite
            A = X @ X.T + 0.1 * np.eye(m)
        b = rng.standard_normal(m)
        r = C.solve_lcp(A, b)
        sols = brute_force_lcp(A, b)
        assert len(sols) == 1   # a P-matrix LCP has exactly one solution
        assert np.abs(r.lam - sols[0]).max() < 1e-9 * (1 + np.abs(sols[0]).max())
        assert r.lam.min() >= 0 and r.w.min() >= -1e-12
        assert abs(r.lam @ r.w) < 1e-10 * (1 + np.abs(b).max()) ** 2
        assert r.residual == pytest.approx(np.abs(np.minimum(r.lam, r.w)).max())


def test_lcp_with_spd_matrix_equals_nonnegative_least_squares():
    from scipy.optimize import nnls
    rng = np.random.default_rng(13)
    for _ in range(10):
        m = 8
        X = rng.standard_normal((m, m))
        A = X @ X.T + 0.5 * np.eye(m)
        b = rng.standard_normal(m)
        L = np.linalg.cholesky(A)
        # min 1/2 lam^T A lam + b^T lam, lam >= 0  ==  min |L^T lam + L^-1 b|^2
        lam_nnls, _ = nnls(L.T, -np.linalg.solve(L, b))
        assert np.allclose(C.solve_lcp(A, b).lam, lam_nnls, atol=1e-9)


def test_lcp_degenerate_ties_are_resolved():
    r = C.solve_lcp(np.eye(3), [-1.0, -1.0, -1.0])
    assert np.allclose(r.lam, 1.0) and r.residual < 1e-14
    A = np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]])
    r = C.solve_lcp(A, [-4.0, -4.0, -4.0])
    assert np.allclose(r.lam, 1.0) and r.residual < 1e-14
    assert np.array_equal(C.solve_lcp(A, [0.0, 1.0, 2.0]).lam, np.zeros(3))


def test_lcp_without_solution_raises():
    with pytest.raises(C.ConvergenceError, match="ray termination"):
        C.solve_lcp([[-1.0]], [-1.0])
    with pytest.raises(C.ConvergenceError, match="ray termination"):
        C.solve_lcp([[0.0, -1.0], [-1.0, 0.0]], [-1.0, -1.0])
    with pytest.raises(ValueError, match="^b "):
        C.solve_lcp(np.eye(2), [1.0])


# ---------------------------------------------------------------- contact time stepping
def test_ball_contact_force_is_complementary_through_impact_rest_and_lift_off():
    m, g, h, y0 = 0.4, 9.81, 2e-3, 0.3
    push = lambda t: 2 * m * g * np.clip(t - 1.0, 0.0, 1.0)   # mg reached at t = 1.5
    s = C.make_contact_system(m * np.eye(1), lambda t, q, v: np.array([push(t) - m * g]),
                              lambda q: q.copy(), lambda q: np.ones((1, 1)))
    tr = C.simulate_contact(s, [y0], [0.0], h, 1000)
    lam, gap_next = tr.lam[:-1, 0], tr.gap[1:, 0]
    assert lam.min() >= 0 and tr.gap.min() >= -1e-15
    assert np.abs(lam * gap_next).max() < 1e-12
    assert tr.residual.max() < 1e-10
    # contact begins within one step of the free-fall time; the impact impulse stops the ball
    t_hit = tr.t[np.argmax(lam > 0)]
    assert abs(t_hit - np.sqrt(2 * y0 / g)) <= h
    rest = (tr.t[:-1] > 0.5) & (tr.t[:-1] < 1.0)
    assert np.allclose(lam[rest], m * g, rtol=1e-12)
    pushing = (tr.t[:-1] > 1.0) & (tr.t[:-1] < 1.49)
    assert np.allclose(lam[pushing], m * g - push(tr.t[:-1][pushing]), atol=1e-12)
    t_last = tr.t[np.flatnonzero(lam > 0)[-1]]
    assert 1.5 - h - 1e-9 <= t_last < 1.5 and tr.gap[-1, 0] > 0
    assert np.all(lam[tr.t[:-1] > 1.5 + h] == 0)


def test_mixed_dense_and_sparse_arguments_agree():
    rng = np.random.default_rng(21)
    M, B, f, gamma = random_saddle(rng, 30, 4)
    ref = C.kkt_solve(M, B, f, gamma)
    for Mx, Bx in ((sp.csr_array(M), B), (M, sp.csr_matrix(B)), (sp.csc_matrix(M), sp.coo_array(B))):
        for solver in (C.kkt_solve, C.schur_solve):
            qdd, lam = solver(Mx, Bx, f, gamma)
            assert np.allclose(qdd, ref[0], atol=1e-12) and np.allclose(lam, ref[1], atol=1e-12)


# ---------------------------------------------------------------- SciPy errors never reach the reader bare
@pytest.mark.parametrize("kwargs, name", [
    (dict(method="RK99"), "method"),
    (dict(rtol=0.0), "rtol"),
    (dict(atol=float("inf")), "atol"),
])
def test_simulate_rejects_solver_options_before_scipy_sees_them(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        C.simulate(C.pendulum(), [1.0, 0.0], [0.0, 0.0], [0.0, 1.0], **kwargs)


def test_simulate_reports_when_the_kkt_solve_fails_inside_solve_ivp():
    """A rail that ends at y = 0 (its Jacobian row vanishes below): the falling bead
    reaches the end at t = sqrt(2 / 9.81) = 0.45 s, the KKT matrix turns singular, and
    the error names the time reached instead of surfacing from SciPy's stack."""
    s = C.make_system(np.eye(2), lambda t, q, v: np.array([0.0, -9.81]),
                      lambda q: np.array([[1.0 if q[1] > 0 else 0.0, 0.0]]),
                      lambda q, v: np.zeros(1), q_check=[0.0, 1.0])
    with pytest.raises(C.ConvergenceError, match=r"stopped near t = \S+ of \[0, 2\]") as err:
        C.simulate(s, [0.0, 1.0], [0.0, 0.0], [0.0, 2.0], method="RK45")
    t_stop = float(str(err.value).split("t = ")[1].split()[0])
    assert np.sqrt(2 / 9.81) <= t_stop < 2.0     # a trial stage past the rail's end


# ---------------------------------------------------------------- extreme but legal inputs
@pytest.mark.parametrize("l", [1e-6, 1e6])
def test_project_state_at_extreme_lengths(l):
    """A pendulum a micrometre or a thousand kilometres long projects onto its circle."""
    s = C.pendulum(l=l)
    q, v = C.project_state(s, [0.3 * l, -1.1 * l], [1.0, 2.0], tol=1e-12 * l * l)
    assert abs(np.hypot(*q) - l) <= 1e-12 * l
    assert abs(q @ v) <= 1e-12 * l * np.linalg.norm(v)


def test_pendulum_tension_broadcast_mismatch_names_the_argument():
    with pytest.raises(ValueError, match="omega"):
        C.pendulum_tension(np.zeros(2), np.zeros(3))
