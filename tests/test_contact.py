"""Tests of lib.contact and lib.cone: derivatives by finite differences, the kernel against
the readable path, the friction LCP against enumeration, the closed-form validation cases
at two resolutions, bad input."""
import math

import numpy as np
import pytest

from lib.solvers import cone
from lib import contact as C
from lib import rod3d as r3

G = C.GRAVITY
FR = C.make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))


def _random_state(rod, seed=0, scale=0.2):
    rng = np.random.default_rng(seed)
    return C.retract(rod, C.straight(rod, direction=(0.3, 0.1, 1.0)), scale * rng.normal(size=rod.ndof))


# --------------------------------------------------------------------------------------
# the free rod: energy is the source of truth (the model contract)
# --------------------------------------------------------------------------------------
def test_gradient_matches_central_differences_of_the_energy():
    rod = C.make_free_rod(5, radius=0.1, youngs_modulus=1e3)
    s = _random_state(rod)
    grav = np.array([0.1, -9.8, 0.3])

    def E(d):
        return C.energy(rod, C.retract(rod, s, d), grav)

    g = C.gradient(rod, s, grav)
    h = 1e-6
    gfd = np.array([(E(h * e) - E(-h * e)) / (2 * h) for e in np.eye(rod.ndof)])
    assert np.abs(g - gfd).max() <= 1e-8 * np.abs(g).max()


def test_hessian_matches_central_differences_of_the_gradient():
    rod = C.make_free_rod(4, radius=0.1, youngs_modulus=1e3)
    s = _random_state(rod, seed=3)
    H = C.hessian(rod, s).toarray()
    h = 1e-6
    Hfd = np.array([(C.gradient(rod, C.retract(rod, s, h * e)) -
                     C.gradient(rod, C.retract(rod, s, -h * e))) / (2 * h)
                    for e in np.eye(rod.ndof)]).T
    # the gradient is not symmetric in a retraction (a Lie-group connection term);
    # the Hessian at zero increment is the symmetric part of its derivative
    assert np.abs(H - 0.5 * (Hfd + Hfd.T)).max() <= 1e-6 * np.abs(H).max()
    assert np.abs(H - H.T).max() <= 1e-12 * np.abs(H).max()


def test_rigid_motions_cost_no_energy_and_the_straight_rod_is_unstressed():
    rod = C.make_free_rod(6)
    s = C.straight(rod, start=(0.1, 0.2, 0.3), direction=(1.0, 2.0, -0.5), normal=(0, 0, 1))
    assert abs(C.energy(rod, s)) < 1e-14
    psi = np.array([0.4, -0.3, 0.9])                     # one rotation of the whole rod
    R = r3.rotmat(r3.quat_exp(psi))
    x = s.x @ R.T + np.array([3.0, -1.0, 2.0])
    Q = r3.quat_mul(np.broadcast_to(r3.quat_exp(psi), s.Q.shape), s.Q)
    assert abs(C.energy(rod, C.State(x, Q))) < 1e-9 * rod.EA * rod.ell


def test_free_rod_masses_and_inertia_add_up():
    rod = C.make_free_rod(8, radius=0.02, mass=2.0)
    assert math.isclose(rod.node_masses.sum(), 2.0)
    assert np.allclose(rod.inertia.sum(axis=0), [2.0 * 0.02**2 / 2, 2.0 * 0.02**2 / 4,
                                                 2.0 * 0.02**2 / 4])


# --------------------------------------------------------------------------------------
# contact kinematics and forces
# --------------------------------------------------------------------------------------
def test_gap_rows_of_the_contact_jacobian_are_its_gradient():
    rod = C.make_free_rod(5, radius=0.1)
    s = _random_state(rod, seed=1)
    pl = C.make_plane([0.2, 1.0, -0.1], origin=[0, -0.5, 0])
    J = C.contact_jacobian(rod, pl, s).toarray()
    h = 1e-6
    Jg = np.array([(C.gap(rod, pl, C.retract(rod, s, h * e)) - C.gap(rod, pl, C.retract(rod, s, -h * e)))
                   / (2 * h) for e in np.eye(rod.ndof)]).T
    assert np.abs(Jg - J[0::3]).max() < 1e-9


def test_tangent_rows_are_the_velocity_of_the_material_point_at_the_bottom_under_spin():
    rod = C.make_free_rod(5, radius=0.1)
    s = _random_state(rod, seed=2)
    pl = C.make_plane([0.2, 1.0, -0.1], origin=[0, -0.5, 0])
    rng = np.random.default_rng(5)
    V = rng.normal(size=rod.ndof)
    V[3 * (rod.N + 1):].reshape(rod.N, 3)[:, 1:] = 0.0   # spin about d1 only
    n = pl.normal
    b = np.einsum("eji,j->ei", r3.rotmat(s.Q), -rod.radius * n)   # body-frame arm

    def point(st):
        return 0.5 * (st.x[1:] + st.x[:-1]) + np.einsum("eij,ej->ei", r3.rotmat(st.Q), b)

    h = 1e-6
    dp = (point(C.retract(rod, s, h * V)) - point(C.retract(rod, s, -h * V))) / (2 * h)
    t, l = C.contact_frames(rod, pl, s)
    u = C.contact_velocity(rod, pl, s, V)
    assert np.allclose(u, (C.contact_jacobian(rod, pl, s) @ V).reshape(-1, 3), atol=1e-14)
    assert np.abs(u[:, 1] - np.sum(dp * t, 1)).max() < 1e-9
    assert np.abs(u[:, 2] - np.sum(dp * l, 1)).max() < 1e-9


def test_friction_jacobian_matches_central_differences_on_every_branch():
    pen = C.make_penalty(slip_speed=1e-3)
    rng = np.random.default_rng(4)
    fn = 2.0
    # viscous branch, the static-to-kinetic drop, kinetic branch; forward and backward
    for s in (0.3e-3, 1.05e-3, 5e-3):
        for _ in range(4):
            a = rng.uniform(0, 2 * np.pi)
            ut, ul = s * np.cos(a), s * np.sin(a)
            J, dfn = C.friction_jacobian(FR, pen, fn, ut, ul)
            h = 1e-9
            fp = np.array(C.friction_force(FR, pen, fn, ut + h, ul))
            fm = np.array(C.friction_force(FR, pen, fn, ut - h, ul))
            gp = np.array(C.friction_force(FR, pen, fn, ut, ul + h))
            gm = np.array(C.friction_force(FR, pen, fn, ut, ul - h))
            Jfd = np.column_stack([(fp - fm) / (2 * h), (gp - gm) / (2 * h)])
            assert np.abs(J - Jfd).max() <= 1e-5 * np.abs(J).max()
            np.testing.assert_allclose(dfn, np.array(C.friction_force(FR, pen, 1.0, ut, ul)), rtol=1e-12)


def test_friction_force_peaks_at_the_static_coefficient_and_is_kinetic_beyond():
    pen = C.make_penalty(slip_speed=1e-3)
    s = np.sort(np.append(np.linspace(1e-6, 5e-3, 4001), 1e-3))
    ft, _ = C.friction_force(FR, pen, 1.0, s, 0 * s)
    assert math.isclose(-ft.min(), 0.8, rel_tol=1e-9)            # mu_s f_n, forward
    assert np.allclose(ft[s > 1.1e-3], -0.4)                      # mu_k f_n
    fb, _ = C.friction_force(FR, pen, 1.0, -s, 0 * s)
    assert math.isclose(fb.max(), 0.4, rel_tol=1e-9)              # backward static


def test_normal_force_jacobian_and_the_penalty_jacobians():
    rod = C.make_free_rod(4, radius=0.05)
    pl = C.make_plane([0, 1, 0], origin=[0, -rod.radius + 2e-4, 0])  # sunk by 0.2 mm
    s = C.straight(rod)
    pen = C.make_penalty(1e5, line_density=rod.rhoA)
    rng = np.random.default_rng(7)
    V = 1e-4 * rng.normal(size=rod.ndof)
    Kq, Cv = C.penalty_jacobians(rod, pl, FR, pen, s, V)
    h = 1e-9
    Cfd = np.array([(C.penalty_force(rod, pl, FR, pen, s, V + h * e) -
                     C.penalty_force(rod, pl, FR, pen, s, V - h * e)) / (2 * h)
                    for e in np.eye(rod.ndof)]).T
    assert np.abs(Cv - Cfd).max() <= 1e-5 * np.abs(Cv).max()
    # frictionless and at rest, the stiffness is the springs': -k ell n n^T / 4 per node pair
    fr0 = C.make_friction((0.0,) * 3, (0.0,) * 3)
    Kq0, _ = C.penalty_jacobians(rod, pl, fr0, pen, s, np.zeros(rod.ndof))
    k = pen.stiffness * rod.ell
    yy = Kq0[1:3 * (rod.N + 1):3, 1:3 * (rod.N + 1):3]
    ref = np.zeros((rod.N + 1, rod.N + 1))
    for e in range(rod.N):
        ref[e:e + 2, e:e + 2] -= k / 4
    assert np.abs(yy - ref).max() <= 1e-6 * k


@pytest.mark.parametrize("slip", [3e-4, 1.05e-3, 1.0])    # m/s: viscous, the fall, kinetic
def test_penalty_position_jacobian_matches_central_differences(slip):
    """dF/dq in closed form (gap, contact frame, roll arm, friction law) against central
    differences of penalty_force along retract; a weak spring so that friction and the
    spin terms are not swamped by the normal stiffness."""
    rod = C.make_free_rod(5, radius=0.05)
    rng = np.random.default_rng(3)
    s = C.retract(rod, C.straight(rod, direction=(0.3, 0.1, 1.0)), 0.05 * rng.normal(size=rod.ndof))
    pl = C.make_plane([0.1, 1.0, 0.2], origin=[0, 0.2, 0])
    assert (C.gap(rod, pl, s) < 0).any() and (C.gap(rod, pl, s) > 0).any()   # some in contact
    n3 = 3 * (rod.N + 1)
    for k, (stiffness, damping) in enumerate(((1e4, None), (10.0, 0.0))):
        pen = C.make_penalty(stiffness, damping=damping, slip_speed=1e-3)
        V = slip * np.random.default_rng(k).normal(size=rod.ndof)
        Kq, _ = C.penalty_jacobians(rod, pl, FR, pen, s, V)
        h = 1e-7
        Kfd = np.array([(C.penalty_force(rod, pl, FR, pen, C.retract(rod, s, h * e), V) -
                         C.penalty_force(rod, pl, FR, pen, C.retract(rod, s, -h * e), V)) / (2 * h)
                        for e in np.eye(rod.ndof)]).T
        assert np.abs(Kq - Kfd).max() <= 1e-6 * np.abs(Kfd).max()
        if stiffness > 100:
            continue              # the spring's round-off in the differences swamps the rest
        # the rotation columns (roll arm) and the spin-torque rows on their own scale
        for block in (Kfd[:, n3:], Kfd[n3:]):
            assert np.abs(block).max() > 1e-4 * np.abs(Kfd).max()  # not trivially zero
        assert np.abs(Kq - Kfd)[:, n3:].max() <= 1e-5 * np.abs(Kfd[:, n3:]).max()
        assert np.abs(Kq - Kfd)[n3:].max() <= 1e-5 * np.abs(Kfd[n3:]).max()


def test_penalty_force_is_the_transpose_of_the_contact_jacobian():
    rod = C.make_free_rod(5, radius=0.05)
    s = _random_state(rod, seed=9, scale=0.05)
    pl = C.make_plane([0.1, 1.0, 0.0], origin=[0, 0.3, 0])          # everything penetrates
    pen = C.make_penalty(1e4, slip_speed=1e-3)
    V = np.random.default_rng(1).normal(size=rod.ndof)
    F = C.penalty_force(rod, pl, FR, pen, s, V)
    u = C.contact_velocity(rod, pl, s, V)
    fn = C.normal_force(rod, pen, C.gap(rod, pl, s), u[:, 0])
    ft, fl = C.friction_force(FR, pen, fn, u[:, 1], u[:, 2])
    f = np.column_stack([fn, ft, fl]).ravel()
    assert np.allclose(F, C.contact_jacobian(rod, pl, s).T @ f, rtol=1e-12, atol=1e-12)


def test_kernel_forces_equal_the_readable_path():
    rod = C.make_free_rod(6, radius=0.05, youngs_modulus=1e4)
    pl = C.make_plane([0.1, 1.0, 0.2], origin=[0, 0.2, 0])
    pen = C.make_penalty(1e4, slip_speed=1e-3)
    states = [_random_state(rod, seed=k, scale=0.1) for k in range(3)]
    rng = np.random.default_rng(2)
    Vs = [rng.normal(size=rod.ndof) for _ in states]
    X = np.stack([s.x for s in states]).transpose(2, 0, 1)
    Qc = np.stack([s.Q for s in states]).transpose(2, 0, 1)
    v = np.stack([C._split(rod, V, "V")[0] for V in Vs]).transpose(2, 0, 1)
    w = np.stack([C._split(rod, V, "V")[1] for V in Vs]).transpose(2, 0, 1)
    gx, gp, fx, tau0, fn, _ = C._explicit_forces_cf(rod, pl, FR, pen, X, Qc, v, w)
    for b, (s, V) in enumerate(zip(states, Vs)):
        g = C.gradient(rod, s)
        F = C.penalty_force(rod, pl, FR, pen, s, V)
        n = 3 * (rod.N + 1)
        assert np.allclose(gx[:, b].T.ravel(), g[:n], rtol=1e-12, atol=1e-9)
        assert np.allclose(gp[:, b].T.ravel(), g[n:], rtol=1e-12, atol=1e-9)
        assert np.allclose(fx[:, b].T.ravel(), F[:n], rtol=1e-12, atol=1e-12)
        assert np.allclose(tau0[b], F[n::3], rtol=1e-12, atol=1e-12)
        assert np.allclose(F[n + 1::3], 0) and np.allclose(F[n + 2::3], 0)


def test_explicit_kernel_step_equals_lie_verlet_on_the_readable_forces():
    rod = C.make_free_rod(4, radius=0.05, youngs_modulus=1e4)
    pl = C.make_plane([0, 1, 0], origin=[0, -0.06, 0])
    pen = C.make_penalty(1e4, slip_speed=1e-3)
    s = _random_state(rod, seed=4, scale=0.05)
    rng = np.random.default_rng(3)
    v, w = 0.1 * rng.normal(size=(rod.N + 1, 3)), 0.1 * rng.normal(size=(rod.N, 3))
    grav = np.array([0.0, -G, 0.0])
    dt = 1e-5
    run = C.simulate_penalty(rod, pl, FR, pen, s, v, w, dt=dt, t_end=3 * dt, grav=grav,
                             check_limit=False, penetration_tol=1.0)
    mn = rod.node_masses[:, None]
    cur = {"v": v, "w": w}

    def forces(x, Q):
        st = C.State(x, Q)
        g = C.gradient(rod, st, grav)
        F = C.penalty_force(rod, pl, FR, pen, st, C._join(cur["v"], cur["w"]))
        f = F - g
        fx, tau = C._split(rod, f, "f")
        return fx / mn, tau

    x, Q = s
    for _ in range(3):
        x, Q, v2, w2 = r3.lie_verlet_step(x, Q, cur["v"], cur["w"], dt, forces, rod.inertia)
        cur.update(v=v2, w=w2)
    assert np.allclose(run.state.x, x, rtol=0, atol=1e-13)
    assert np.allclose(run.v, cur["v"], rtol=1e-10, atol=1e-12)
    assert np.allclose(run.w, cur["w"], rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------
# explicit step limit
# --------------------------------------------------------------------------------------
def test_step_limit_is_the_stability_boundary_of_damped_position_verlet():
    for omega, c in ((3.0, 0.0), (0.0, 5.0), (4.0, 2.5)):
        h = C.step_limit(omega, c)

        def growth(dt):
            A = np.array([[1 - 0.5 * (dt * omega) ** 2, 0.5 * dt * (2 - dt * c - 0.5 * (dt * omega) ** 2)],
                          [-dt * omega**2, 1 - dt * c - 0.5 * (dt * omega) ** 2]])
            return np.abs(np.linalg.eigvals(A)).max()

        assert growth(0.999 * h) <= 1 + 1e-9 and growth(1.001 * h) > 1


def _step_limit_exact(omega, c):
    """The docstring's first form, (-c + sqrt(c^2 + 4 omega^2))/omega^2, in 1400-digit
    decimals (enough to survive its cancellation at c = 1e308, omega = 5e-324)."""
    import decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 1400
        w, cc = decimal.Decimal(omega), decimal.Decimal(c)
        if w == 0:
            return float(2 / cc)
        return float((-cc + (cc * cc + 4 * w * w).sqrt()) / (w * w))   # rounded once


def test_step_limit_is_accurate_to_a_few_ulps_over_the_whole_float_range():
    """audit F7: the cancelling form lost all digits for large c (1.49e-8 for 1e-8 at
    omega = 1, c = 1e8) and gave inf, nan or ZeroDivisionError at extreme legal inputs."""
    values = [0.0, 5e-324, 1e-310, 1e-300, 1e-150, 1e-8, 0.5, 1.0, 3.0, 1e8, 1e150, 1e300,
              1.7976931348623157e308]
    for omega in values:
        for c in values:
            if omega == c == 0.0:
                continue
            ref, h = _step_limit_exact(omega, c), C.step_limit(omega, c)
            if ref == math.inf:                       # a step beyond the largest float
                assert h == math.inf, (omega, c, h)
            else:
                assert abs(h - ref) <= 4 * math.ulp(ref), (omega, c, h, ref)


def test_a_step_past_the_explicit_limit_is_refused_and_a_blow_up_is_reported():
    rod = C.validation_rod(4)
    pl = C.make_plane([0, 1, 0], origin=[0, -rod.radius, 0])
    pen = C.make_penalty(line_density=rod.rhoA)
    lim = C.explicit_limit(rod, pl, FR, pen, grav=[0, -G, 0])
    s = C._resting(rod, pl, pen, [0, -G, 0])
    with pytest.raises(ValueError, match="dt"):
        C.simulate_penalty(rod, pl, FR, pen, s, dt=1.1 * lim, t_end=110 * lim, grav=[0, -G, 0])
    # past the friction limit the saturation keeps the motion bounded (it chatters); past
    # the elastic limit it blows up, and the error says where
    el = C.explicit_limit(rod, pl, FR, pen, grav=[0, -G, 0], parts=True)["elastic"]
    assert el > 5 * lim
    with pytest.raises(C.ContactSolveError, match="step"):
        C.simulate_penalty(rod, pl, FR, pen, s, dt=1.5 * el, t_end=1500 * el, grav=[0, -G, 0],
                           check_limit=False)


# --------------------------------------------------------------------------------------
# the friction cone LCP
# --------------------------------------------------------------------------------------
def test_one_contact_sticks_below_and_slides_above_mu_times_the_normal_impulse():
    h, g = 0.01, G
    d = cone.pyramid(2, tangent_dims=1)
    for push, sticks in ((0.49 * g, True), (0.51 * g, False)):
        r = cone.solve_friction(np.eye(2), [-g * h, push * h], [[0.5, 0.5]], d)
        assert bool(r.sticking[0]) is sticks
        assert math.isclose(r.impulse[0, 0], g * h, rel_tol=1e-12)
        if sticks:
            assert math.isclose(r.impulse[0, 1], -push * h, rel_tol=1e-12) and abs(r.velocity[0, 1]) < 1e-15
        else:
            assert math.isclose(r.impulse[0, 1], -0.5 * g * h, rel_tol=1e-12)


def test_sliding_impulse_is_maximally_dissipative_over_the_friction_polygon():
    rng = np.random.default_rng(11)
    dirs = cone.pyramid(8)
    mu = np.array([[0.3, 0.5, 0.6, 0.5, 0.3, 0.4, 0.6, 0.4]])
    for _ in range(20):
        A = rng.normal(size=(3, 3))
        Gm = A @ A.T + 0.5 * np.eye(3)
        u = np.concatenate([[-1.0], 3 * rng.normal(size=2)])
        r = cone.solve_friction(Gm, u, mu, dirs)
        p, w = r.impulse[0], r.velocity[0]
        assert p[0] >= 0 and w[0] >= -1e-10 and abs(p[0] * w[0]) < 1e-9
        verts = p[0] * mu[0] * dirs                         # polygon of admissible impulses
        assert p[1:] @ w[1:] <= (verts.T @ w[1:]).min() + 1e-9
        z_ok = np.all((mu[0] * dirs).T @ p[1:] / np.maximum(p[0], 1e-300) <= 1 + 1e-9) or p[0] == 0
        assert z_ok


def test_friction_lcp_answer_scales_with_the_problem():
    # audit F4: the LCP is nondimensionalised, so masses (G / s) or velocities (s u) scaled
    # by 1e-12 .. 1e12 give s times the impulses (and s times the velocities and slip
    # multipliers for s u); before, G / 1e12 ended in a ray termination and 1e-12 u slid
    # with the wrong impulse (-0.6 instead of -mu p_n = -0.4905) because the absolute
    # tolerances swallowed the problem
    h, g = 0.1, 9.81
    cases = [(np.eye(2), np.array([-g * h, 6.0 * h]), [[0.5, 0.5]], cone.pyramid(2, 1)),
             (np.eye(3), np.array([-g * h, 3.0 * h, 1.0 * h]), [[0.5] * 4], cone.pyramid(4)),
             (np.eye(3), np.array([-g * h, 0.3 * h, 0.1 * h]), [[0.5] * 4], cone.pyramid(4))]
    for G, u, mu, d in cases:
        r = cone.solve_friction(G, u, mu, d)
        for s in (1e-12, 1e-6, 1e6, 1e12, 2.0 ** -40, 2.0 ** 40):
            for rs, ps, vs in ((cone.solve_friction(G / s, u, mu, d), s, 1.0),
                               (cone.solve_friction(G, s * u, mu, d), s, s)):
                assert np.allclose(rs.impulse, ps * r.impulse, rtol=1e-12, atol=0.0), (s, rs)
                assert np.allclose(rs.velocity, vs * r.velocity, rtol=1e-12, atol=1e-15 * vs)
                assert np.allclose(rs.slip, vs * r.slip, rtol=1e-12, atol=0.0)
                assert np.array_equal(rs.sticking, r.sticking)


def test_friction_directions_must_be_nonzero_and_paired():
    # audit F5: a zero direction or one without its opposite gave a friction force
    # silently (a planar contact free to slip one way)
    G, u, mu = np.eye(2), [-1.0, 0.6], [[0.5, 0.5]]
    for bad in ([[1.0, 0.0]], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match=r"\bdirections\b"):
            cone.solve_friction(G, u, mu, bad)
    with pytest.raises(ValueError, match=r"\bdirections\b"):
        cone.solve_friction(np.eye(3), [-1.0, 0.6, 0.0], [[0.5] * 3], cone.pyramid(6)[:, :3])
    # legal: opposite directions of unequal lengths (a stronger backward coefficient)
    r = cone.solve_friction(G, u, mu, [[2.0, -1.0]])
    assert np.allclose(r.impulse, [[1.0, -0.5]], rtol=1e-12, atol=0.0)


def test_facet_coefficients_follow_the_anisotropic_ellipse():
    d = cone.pyramid(8)
    mu = C.facet_coefficients(FR, d, "static")
    assert np.allclose(mu[[0, 2, 4, 6]], [0.4, 0.4, 0.8, 0.4])
    c, s = d
    a = np.where(c > 0, 0.4, 0.8)
    assert np.allclose((mu * c / a) ** 2 + (mu * s / 0.4) ** 2, 1.0)


def test_cone_rejects_bad_input():
    d = cone.pyramid(4)
    with pytest.raises(ValueError, match="mu"):
        cone.solve_friction(np.eye(3), np.zeros(3), [[-0.1] * 4], d)
    with pytest.raises(ValueError, match="G"):
        cone.solve_friction(np.eye(2), np.zeros(3), [[0.1] * 4], d)
    with pytest.raises(ValueError, match="k"):
        cone.pyramid(3)


# --------------------------------------------------------------------------------------
# the closed-form validation cases (both formulations, two resolutions)
# --------------------------------------------------------------------------------------
FORCES = np.array([0.5, 0.95, 1.1, 2.0, -0.5, -1.1, -2.0])


def _forces():
    mu_s = np.where(FORCES > 0, 0.8, 0.4)
    return FORCES * mu_s * G


@pytest.mark.parametrize("N", [10, 20])
def test_complementarity_meets_every_target_at_a_tenth_of_the_time_span(N):
    alphas = np.array([0.1, 0.25, 0.3, 0.4]) * np.pi
    r = C.validation_suite("complementarity", _forces(), alphas, N=N)
    d = r["drag"]
    slide = np.abs(FORCES) >= 1.1
    assert np.all(np.abs(d["energy"][slide] / d["exact"][slide] - 1) < 1e-8)
    assert np.all(d["energy"][~slide] < 1e-20) and np.all(np.abs(d["creep"][~slide]) < 1e-12)
    ro = r["rolling"]
    assert np.all(np.abs(ro["translational"] / ro["exact_translational"] - 1) < 1e-8)
    assert np.all(np.abs(ro["rotational"] / ro["exact_rotational"] - 1) < 1e-8)
    assert list(ro["rolls"]) == [True, True, False, False]
    assert np.array_equal(ro["slip"] < 1e-12, ro["rolls"])     # computed: it rolls exactly
    dr = C.validation_suite("complementarity", drop=True, N=N)["drop"]
    assert np.abs(dr["normal"] / dr["weight"] - 1).max() < 1e-3
    assert dr["penetration"] < 1e-12


@pytest.mark.parametrize("N", [10, 20])
def test_penalty_meets_the_energy_targets_and_creeps_as_its_closed_form(N):
    r = C.validation_suite("penalty", _forces(), [0.25 * np.pi, 0.3 * np.pi], N=N)
    d = r["drag"]
    err = np.abs(d["energy"] / np.where(d["exact"] > 0, d["exact"], 1) - 1)
    assert np.all(err[np.abs(FORCES) >= 1.1] < 1e-2)
    assert np.all(err[np.abs(FORCES) >= 2.0] < 2e-3)
    pen = C.make_penalty()
    stick = np.abs(FORCES) < 1
    T = C.VALIDATION["time"]
    for F, c in zip(_forces()[stick], d["creep"][stick]):
        mu = 0.8 if F > 0 else 0.4
        expected = pen.slip_speed * abs(F) / (mu * G) * 0.5 * T       # steady slip, second half
        assert abs(abs(c) / expected - 1) < 0.02
    ro = r["rolling"]
    assert np.all(np.abs(ro["translational"] / ro["exact_translational"] - 1) < 1e-3)
    assert np.all(np.abs(ro["rotational"] / ro["exact_rotational"] - 1) < 1e-3)
    # 45 deg rolls (the contact creeps at ~eps), 54 deg slides (~1 m/s at T)
    assert list(ro["rolls"]) == [True, False]
    assert ro["slip"][0] < 2 * pen.slip_speed and ro["slip"][1] > 0.5


@pytest.mark.parametrize("N", [10, 20])
def test_penalty_drop_comes_to_rest_on_its_weight(N):
    dr = C.validation_suite("penalty", drop=True, N=N)["drop"]
    assert np.abs(dr["normal"] / dr["weight"] - 1).max() < 1e-2
    assert dr["penetration"] < 0.05 * C.VALIDATION["radius"]


def test_breakaway_force_is_the_static_threshold():
    assert abs(C.breakaway_force("forward", rtol=1e-3) / (0.8 * G) - 1) < 2e-3


def test_closed_forms_are_consistent_with_newtons_law():
    T, m, r = 0.3, 2.0, 0.05
    # rolling: the rotational energy is half the translational (I = m r^2 / 2)
    Et, Er, rolls = C.rolling_energies(0.2, T, m, r, 0.4, 0.2, g=10.0)
    assert rolls and math.isclose(Er, 0.5 * Et)
    a = math.sqrt(2 * Et / m) / T
    assert math.isclose(a, 2 / 3 * 10 * math.sin(0.2))
    # sliding: translation and spin from the kinetic friction force
    Et, Er, rolls = C.rolling_energies(1.3, T, m, r, 0.4, 0.2, g=10.0)
    assert not rolls
    assert math.isclose(math.sqrt(2 * Et / m), 10 * T * (math.sin(1.3) - 0.2 * math.cos(1.3)))
    assert math.isclose(math.sqrt(2 * Er / (0.5 * m * r * r)), 0.2 * m * 10 * math.cos(1.3) * r * T / (0.5 * m * r * r))
    # drag: at the threshold it still sticks
    assert C.axial_drag_energy(0.8 * m * 10, T, m, 0.8, 0.4, g=10.0) == 0.0


# --------------------------------------------------------------------------------------
# the snake
# --------------------------------------------------------------------------------------
def test_the_snake_goes_forward_reversed_wave_backward_and_isotropic_friction_barely():
    gaits = [C.snake_gait(), C.snake_gait(wave_length=-1.0), C.snake_gait(ratios=(1, 1, 1))]
    run, v = C.snake(8, gaits, periods=1.5, dt=8e-4)
    i = int(np.argmin(np.abs(run.t - (run.t[-1] - 2.0))))
    dz = run.com[-1, :, 2] - run.com[i, :, 2]
    assert dz[0] > 0 and dz[1] < 0
    assert v[2] < 0.3 * v[0]


def test_muscle_moments_are_a_travelling_wave_along_the_body():
    rod = C.snake_rod(20)
    g = C.snake_gait()
    m1 = C.muscle_torque(rod, g, 2.5)[:, 1]
    m2 = C.muscle_torque(rod, g, 2.5 + 0.01)[:, 1]
    assert np.abs(C.muscle_torque(rod, g, 2.5)[:, [0, 2]]).max() == 0
    assert np.abs(m1).max() > 1e-3 and not np.allclose(m1, m2)
    assert np.allclose(C.muscle_torque(rod, g, 1.0), 0.5 * C.muscle_torque(rod, g, 1.0 + g.period))  # ramp


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------
def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="static"):
        C.make_friction((-0.1, 0.4, 0.4), (0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="kinetic"):
        C.make_friction((0.8, 0.4, 0.4), (0.4, -0.2, 0.2))
    with pytest.raises(ValueError, match="static"):
        C.make_friction((0.1, 0.1, 0.1), (0.4, 0.2, 0.2))
    for bad in ([0, 0, 0], [np.nan, 1, 0], [np.inf, 0, 0]):
        with pytest.raises(ValueError, match="normal"):
            C.make_plane(bad)
    with pytest.raises(ValueError, match="slip_speed"):
        C.make_penalty(slip_speed=0.0)
    with pytest.raises(ValueError, match="stiffness"):
        C.make_penalty(stiffness=0.0)
    with pytest.raises(ValueError, match="N"):
        C.make_free_rod(1)
    with pytest.raises(ValueError, match="radius"):
        C.make_free_rod(4, radius=-1.0)
    rod = C.validation_rod(4)
    pl = C.make_plane([0, 1, 0], origin=[0, -rod.radius, 0])
    sunk = C.State(C.straight(rod).x - [0.0, 0.01, 0.0], C.straight(rod).Q)
    with pytest.raises(ValueError, match="below the plane"):
        C.simulate_complementarity(rod, pl, FR, sunk, dt=0.01, t_end=0.02)
    with pytest.raises(ValueError, match="below the plane"):
        C.simulate_penalty(rod, pl, FR, C.make_penalty(), sunk, dt=1e-5, t_end=2e-5)
    with pytest.raises(ValueError, match="Q"):
        C.gradient(rod, C.State(C.straight(rod).x, 2 * C.straight(rod).Q))
    with pytest.raises(ValueError, match="t_end"):
        C.simulate_complementarity(rod, pl, FR, C.straight(rod), dt=0.03, t_end=0.1)
    with pytest.raises(ValueError, match="formulation"):
        C.validation_suite("magic", [1.0])
    with pytest.raises(ValueError, match="alpha"):
        C.incline_gravity(2.0)


# --------------------------------------------------------------------------------------
# the widget's compute function and the peer adapters (short runs of the real codes)
# --------------------------------------------------------------------------------------
def test_push_sticks_below_the_threshold_and_follows_the_parabola_above():
    from lib.explore import contact as X

    t, x, xe, sliding = X.push(0.95, 0.6)
    assert not sliding and np.abs(x).max() == 0.0
    t, x, xe, sliding = X.push(1.5, 0.6)
    # x_n = h^2 a n (n + 1)/2 (velocity first, then position): the parabola times (n + 1)/n
    n = np.arange(1, t.size)
    assert sliding and np.allclose(x[1:] / xe[1:], (n + 1) / n, rtol=1e-9)


def test_pyelastica_and_mujoco_run_the_drag_case_against_the_closed_form():
    from lib.crosscheck import contact as P

    F = 2 * 0.8 * G
    pe = P.elastica_drag(F, n_elem=6, dt=1e-4, time=0.05)
    assert pe["finite"] and abs(pe["energy"] / pe["exact"] - 1) < 0.05
    stick = P.elastica_drag(0.75 * 0.8 * G, n_elem=6, dt=1e-4, time=0.05)
    assert stick["energy"] < 1e-20                   # its force-capped static friction
    late = P.elastica_drag(0.75 * 0.8 * G, n_elem=6, dt=1e-4, time=0.05, pull_first=False)
    assert late["energy"] > 1e-3                     # ... sees only forces registered before it
    mj = P.mujoco_drag(F, 0.4, segments=6, dt=1e-4, time=0.05)
    assert mj["finite"] and abs(mj["energy"] / mj["exact"] - 1) < 0.05


def test_largest_step_stops_at_the_first_failure():
    from lib.crosscheck import contact as P

    def run(dt):
        if dt > 3:
            raise FloatingPointError("blew up")
        return dt

    best, out = P.largest_step(run, [1, 2, 4, 8], lambda r: True)
    assert best == 2 and out[-1][0] == 4 and "blew up" in out[-1][1]


def test_mujoco_capsule_axial_inertia_is_the_cylinder_plus_two_hemispheres():
    """The ratio the chapter glues, against the solid capsule: a cylinder of length l and
    radius r (axial inertia m_c r^2/2) with two hemispherical caps (a sphere, 2 m_s r^2/5)."""
    from lib.crosscheck import contact as P

    r, seg = C.VALIDATION["radius"], 10
    ell = C.VALIDATION["length"] / seg
    Vc, Vs = math.pi * r * r * ell, 4 / 3 * math.pi * r**3
    expected = (Vc / 2 + 2 * Vs / 5) / ((Vc + Vs) / 2)
    out = P.mujoco_rolling(0.3, 0.4, segments=seg, dt=1e-3, time=0.01)
    assert math.isclose(out["inertia_ratio"], expected, rel_tol=1e-9)
    assert out["inertia_ratio"] < 1


def test_a_step_the_case_refuses_is_a_bad_ladder_not_a_stability_limit():
    """0.25 s is not a whole number of 0.8 ms steps: the ladder is wrong, and it must say so
    (it once passed for the largest stable step of both other codes)."""
    from lib.crosscheck import contact as P

    with pytest.raises(ValueError, match="whole number of steps"):
        P.largest_step(lambda h: P.mujoco_drag(1.0, 0.4, segments=3, dt=h),
                       [5e-4, 8e-4], lambda r: True)


def test_extreme_but_legal_inputs():
    """A pull a trillion times the weight, an incline a hair below vertical, a plane with an
    unnormalised normal of 1e-200: the closed forms and the factory stay exact."""
    F = 1e12
    assert math.isclose(C.axial_drag_energy(F, 0.25, 1.0, 0.8, 0.4),
                        0.25**2 * (F - 0.4 * C.GRAVITY) ** 2 / 2, rel_tol=1e-12)
    g = C.incline_gravity(math.pi / 2 - 1e-9)
    assert math.isclose(g[0], C.GRAVITY, rel_tol=1e-12) and abs(g[1]) < 1e-8
    assert C.make_plane([0.0, 1e-200, 0.0]).normal.tolist() == [0.0, 1.0, 0.0]
    assert C.step_limit(0.0, 0.0) == math.inf
    # critical damping 2 sqrt(k rho) where k rho overflows (sweep): was inf
    assert math.isclose(C.make_penalty(1e300, line_density=1e10).damping, 2e155, rel_tol=1e-14)
    # kinetic friction at a slip speed whose square overflows (sweep): was (-0, -0)
    pen = C.make_penalty(slip_speed=1e-3)
    for u in (1e200, -1e300, 1.7e308):
        f_t, f_l = C.friction_force(FR, pen, 2.0, [u, u, 0.0], [0.0, u, u])
        mu_t = 0.4 if u > 0 else 0.2                     # kinetic forward / backward
        assert np.allclose(f_t, [-2 * mu_t * np.sign(u), -2 * mu_t * np.sign(u) / np.sqrt(2), 0.0],
                           rtol=1e-14, atol=0.0)
        assert np.allclose(f_l, [0.0, -2 * 0.2 * np.sign(u) / np.sqrt(2), -2 * 0.2 * np.sign(u)],
                           rtol=1e-14, atol=0.0)
        # and its derivatives: d f / d f_n is -mu u/|u|, d f_t / d u_l = f_n mu u_t u_l/|u|^3
        J, dfn = C.friction_jacobian(FR, pen, 2.0, [u, u], [0.0, u])
        assert np.allclose(dfn[0], [-mu_t * np.sign(u), 0.0], rtol=1e-14, atol=0.0)
        assert np.allclose(dfn[1], [-mu_t * np.sign(u) / np.sqrt(2), -0.2 * np.sign(u) / np.sqrt(2)],
                           rtol=1e-14, atol=0.0)
        # u_t = u_l = u: f_n mu u^2 / (2 sqrt 2 |u|)^3 ... = f_n mu / (2 sqrt 2 |u|), written so
        # that 2 sqrt 2 |u| is not formed (it overflows at u = 1.7e308)
        assert math.isclose(J[1, 0, 1], 2.0 * mu_t / (2.0 * math.sqrt(2.0)) / abs(u), rel_tol=1e-13)


@pytest.mark.parametrize("kernels", [False, True])
def test_batch_friction_that_does_not_match_the_batch_names_friction(kernels):
    """audit F9: three triples of coefficients for a batch of two rods gave NumPy's
    broadcast error (in either path); one triple per member, or a single one, is legal."""
    rod = C.validation_rod(2)
    pl = C.make_plane([0, 1, 0], origin=[0, -rod.radius, 0])
    pen = C.make_penalty(1e5, line_density=rod.rhoA)
    s = C.straight(rod, direction=(0, 0, 1), normal=(0, 1, 0))
    batch = C.State(np.stack([s.x] * 2), np.stack([s.Q] * 2))
    run = dict(dt=5e-5, t_end=2.5e-4, grav=[0, -G, 0], kernels=kernels)
    for n in (1, 2):
        fr = C.make_friction(np.tile([0.8, 0.4, 0.4], (n, 1)), np.tile([0.4, 0.2, 0.2], (n, 1)))
        assert C.simulate_penalty(rod, pl, fr, pen, batch, **run).com.shape == (2, 2, 3)
    fr3 = C.make_friction(np.tile([0.8, 0.4, 0.4], (3, 1)), np.tile([0.4, 0.2, 0.2], (3, 1)))
    with pytest.raises(ValueError, match=r"^friction holds 3 triples .* a batch of 2"):
        C.simulate_penalty(rod, pl, fr3, pen, batch, **run)


def test_bad_models_and_states_name_the_argument():
    rod = C.make_free_rod(3)
    s = C.straight(rod)
    with pytest.raises(ValueError, match="rod must be a lib.contact.FreeRod, got a Rod3D"):
        C.energy(r3.make_rod3d(3), s)
    with pytest.raises(ValueError, match=r"state\.Q must hold unit quaternions"):
        C.gradient(rod, C.State(s.x, 0 * s.Q))
    with pytest.raises(ValueError, match="bracket"):
        C.breakaway_force(bracket=[1.1, 0.9])            # a list: no TypeError from the cache
