"""Properties of lib.actuation: derivatives, the constant-curvature limit and its order,
follower-pressure stiffness, Newton rates, the inverse QP's optimality, bad input."""
import numpy as np
import pytest

import lib.actuation as ac
import lib.fem as fem
import lib.rod as rd


def fd4(fun, x, i, h):
    """Fourth-order central difference of ``fun`` along component ``i``."""
    e = np.zeros_like(x)
    e[i] = h
    return (-fun(x + 2 * e) + 8 * fun(x + e) - 8 * fun(x - e) + fun(x - 2 * e)) / (12 * h)


def bent_state(rod, seed=0):
    """A curled, stretched and sheared state (not an equilibrium)."""
    rng = np.random.default_rng(seed)
    s = (np.arange(rod.N) + 0.5) * rod.ell
    phi = 1.5 * s + 0.05 * rng.standard_normal(rod.N)
    q = np.zeros(rod.ndof)
    q[0::3] = phi
    step = rod.ell * (1 + 0.02 * rng.standard_normal((rod.N, 2)))
    q[1::3] = np.cumsum(step[:, 0] * np.cos(phi) - 0.03 * step[:, 1] * np.sin(phi))
    q[2::3] = np.cumsum(step[:, 0] * np.sin(phi) + 0.03 * step[:, 1] * np.cos(phi))
    return q


TENDONS = {
    "straight, tip": dict(offset=0.03),
    "straight, interior anchor": dict(offset=-0.02, anchor=4),
    "tapered, tip": dict(offset=0.04, offset_end=0.01),
    "tapered through zero, interior": dict(offset=0.03, offset_end=-0.03, anchor=6),
    # eyelets at any arc length (disks; one in the clamp's half element, one on a node,
    # one past the last centre below an interior anchor)
    "disks, tapered, interior": dict(offset=0.03, offset_end=0.01, anchor=7,
                                     eyelets=[0.05, 0.25, 0.5, 0.61, 0.85]),
    "disks, tip": dict(offset=-0.02, eyelets=[0.3, 0.7]),
    "sheath, tip": dict(offset=0.03, sheath=True),
    "sheath, tapered through zero, interior": dict(offset=0.03, offset_end=-0.03, anchor=6,
                                                  sheath=True),
}


# -------------------------------------------------------------------------------- derivatives
@pytest.mark.parametrize("name", TENDONS)
def test_tendon_gradient_is_the_derivative_of_the_tendon_length(name):
    rod = rd.make_rod(8)
    t = ac.make_tendon(rod, **TENDONS[name])
    q = bent_state(rod)
    g = ac.tendon_gradient(rod, t, q)
    fd = np.array([fd4(lambda x: ac.tendon_length(rod, t, x), q, i, 2e-4) for i in range(q.size)])
    assert np.abs(fd - g).max() <= 1e-10 * np.abs(g).max()


@pytest.mark.parametrize("name", TENDONS)
def test_tendon_hessian_is_the_jacobian_of_the_tendon_gradient(name):
    rod = rd.make_rod(8)
    t = ac.make_tendon(rod, **TENDONS[name])
    q = bent_state(rod, seed=1)
    H = ac.tendon_hessian(rod, t, q).toarray()
    fd = np.column_stack([fd4(lambda x: ac.tendon_gradient(rod, t, x), q, i, 2e-4)
                          for i in range(q.size)])
    assert np.abs(fd - H).max() <= 1e-8 * np.abs(H).max()
    # conservative load: the FD Hessian is symmetric, and so is the assembly *before* the
    # code symmetrises it (tendon_hessian returns (H + H^T)/2, whose symmetry proves nothing)
    assert np.abs(fd - fd.T).max() <= 1e-8 * np.abs(H).max()
    Hu = ac.tendon_hessian(rod, t, q, symmetrise=False).toarray()
    assert np.abs(Hu - Hu.T).max() <= 1e-14 * np.abs(H).max()
    assert np.abs(Hu - H).max() <= 1e-14 * np.abs(H).max()


def test_banded_tangent_is_the_sparse_hessian():
    """The Newton tangent assembled straight into band storage (_tangent) is hessian()
    entry for entry: every routing at once, an unloaded tendon skipped, per-segment
    tensions of a friction solve; sparse where a tendon's band would be too wide."""
    from lib.kernels.banded import SymmetricBanded
    rod = rd.make_rod(16)
    q = bent_state(rod, seed=2)
    narrow = [ac.make_tendon(rod, **kw) for kw in (  # TENDONS' routings on a longer rod
        dict(offset=0.03), dict(offset=-0.02, anchor=8), dict(offset=0.04, offset_end=0.01),
        dict(offset=0.03, offset_end=-0.03, anchor=12), dict(offset=0.03, sheath=True),
        dict(offset=0.03, offset_end=-0.03, anchor=12, sheath=True),
        dict(offset=0.03, offset_end=0.01, anchor=14,
             eyelets=[0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.61, 0.7, 0.75, 0.85]))]
    # two disks 0.4 L apart: a chord couples nodes 6 elements apart, too wide for a band
    wide = ac.make_tendon(rod, -0.02, eyelets=[0.3, 0.7])
    for ts in (narrow, narrow + [wide]):
        tau = np.linspace(3.0, 10.0, len(ts))
        tau[2] = 0.0
        K = ac.hessian(rod, q, ts, tau).toarray()
        T = ac._tangent(rod, ts, tau, q)
        assert isinstance(T, SymmetricBanded) == (wide not in ts)
        assert np.abs(T.toarray() - K).max() <= 1e-14 * np.abs(K).max()
    ts = narrow
    t = ts[0]
    seg = np.linspace(1.0, 2.0, t.n_eyelets - 1)
    Ks = (rd.hessian(rod, q) + ac._tendon_hessian(rod, t, q, seg=seg)).toarray()
    assert np.abs(ac._tangent(rod, [t], [1.0], q, seg=seg).toarray() - Ks).max() <= 1e-14 * np.abs(Ks).max()


def test_total_gradient_and_tangent_include_every_tendon():
    rod = rd.make_rod(6)
    ts = [ac.make_tendon(rod, 0.03), ac.make_tendon(rod, -0.02, anchor=3, offset_end=0.0)]
    tau = [4.0, 7.0]
    q = bent_state(rod, seed=2)
    g = ac.gradient(rod, q, ts, tau, load=(0.1, -0.2, 0.3), grav=0.5)
    fd = np.array([fd4(lambda x: ac.energy(rod, x, ts, tau, (0.1, -0.2, 0.3), 0.5), q, i, 1e-4)
                   for i in range(q.size)])
    assert np.abs(fd - g).max() <= 1e-8 * np.abs(g).max()
    K = ac.hessian(rod, q, ts, tau).toarray()
    fdK = np.column_stack([fd4(lambda x: ac.gradient(rod, x, ts, tau), q, i, 1e-5)
                           for i in range(q.size)])
    assert np.abs(fdK - K).max() <= 1e-7 * np.abs(K).max()


def test_tendon_length_is_arc_length_when_straight_and_shortens_by_offset_times_angle():
    rod = rd.make_rod(20)
    t = ac.make_tendon(rod, 0.03)
    assert ac.tendon_length(rod, t, rd.straight(rod)) == pytest.approx(1.0, abs=1e-14)
    # a small uniform bend by angle theta: the tendon side shortens by d theta
    theta = 1e-4
    q = rd.straight(rod)
    s = (np.arange(rod.N) + 0.5) * rod.ell
    q[0::3] = theta * s
    x = np.cumsum(rod.ell * np.cos(theta * s))
    y = np.cumsum(rod.ell * np.sin(theta * s))
    q[1::3], q[2::3] = x, y
    short = 1.0 - ac.tendon_length(rod, t, q)
    assert short == pytest.approx(0.03 * theta * (1 - 0.5 / rod.N), rel=1e-3)


# -------------------------------------------------------------------------------- statics
def curvature_error(N, tau=40.0, d=0.03, r_over_L=0.04):
    rod = rd.make_rod(N, r_over_L=r_over_L)
    q = ac.static(rod, [ac.make_tendon(rod, d)], [tau], steps=4)
    kappa = np.diff(q[0::3]) / rod.ell              # the N - 1 interior curvatures
    return np.abs(kappa / (tau * d / rod.EI) - 1).max()


# r/L = 0.004: near the inextensible limit, with a tendon ten times closer to the axis,
# so ten times the tension and an error constant ~ 1/(4d) ten times larger (finer meshes;
# below N ~ L sqrt(tau/(4 EI)) the chords make the discrete rod unstable)
@pytest.mark.parametrize("r_over_L, Ns", [(0.04, (10, 20, 40, 80)), (0.004, (40, 80, 160, 320))])
def test_constant_offset_gives_constant_curvature_tau_d_over_EI_to_second_order(r_over_L, Ns):
    Ns = np.array(Ns)
    d = 0.75 * r_over_L
    err = np.array([curvature_error(N, tau=1.2 / d, d=d, r_over_L=r_over_L) for N in Ns])
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert 1.9 <= order <= 2.1
    # the chord estimate l^2 kappa (1/(4d) - kappa/8) of the chapter, kappa = 1.2
    assert err[-1] * Ns[-1] ** 2 == pytest.approx(1.2 * (1 / (4 * d) - 1.2 / 8), rel=0.05)


@pytest.mark.parametrize("r_over_L", [0.04, 0.004])
@pytest.mark.parametrize("N", [2, 3, 7, 20, 64])
def test_sheath_gives_the_curvature_tau_d_over_EI_at_any_N(N, r_over_L):
    # the sheath's length is the integral of |p'| over the rod's own strains: no chords,
    # so the constant curvature holds to round-off on the coarsest mesh, anchor anywhere;
    # the joint at an interior anchor spans half an element on either side of it and
    # carries half the moment, so the tip angle is tau d k ell / EI exactly
    rod = rd.make_rod(N, r_over_L=r_over_L)
    d = 0.75 * r_over_L
    tau = 1.2 / d
    k = max(N // 2, 1) if N > 2 else N
    q = ac.static(rod, [ac.make_tendon(rod, d, anchor=k, sheath=True)], [tau], steps=4, tol=1e-13)
    phi = q[0::3]
    kappa = np.concatenate([[2 * phi[0] / rod.ell], np.diff(phi[:k]) / rod.ell])
    k0 = tau * d / rod.EI
    assert np.abs(kappa / k0 - 1).max() <= 1e-11
    if k < N:
        assert (phi[k] - phi[k - 1]) / rod.ell / k0 == pytest.approx(0.5, abs=1e-11)
    assert np.abs(np.diff(phi[k:])).max(initial=0.0) <= 1e-11         # straight past the anchor
    # the angle at the last centre: the continuum's at (N - 1/2) ell, or k ell past the anchor
    assert phi[-1] / (k0 * rod.ell * (k if k < N else N - 0.5)) == pytest.approx(1.0, abs=1e-11)


def test_default_eyelets_are_the_element_centres_given_explicitly():
    rod = rd.make_rod(6)
    q = bent_state(rod, seed=3)
    a = ac.make_tendon(rod, 0.03, offset_end=0.01, anchor=5)
    b = ac.make_tendon(rod, 0.03, offset_end=0.01, anchor=5, eyelets=(np.arange(5) + 0.5) * rod.ell)
    assert ac.tendon_length(rod, a, q) == ac.tendon_length(rod, b, q)
    assert np.array_equal(ac.tendon_gradient(rod, a, q), ac.tendon_gradient(rod, b, q))


DISKS = np.arange(1, 8) / 8           # a disk-type robot: 8 disks, the last at the tip


def test_disk_robot_converges_at_second_order_to_a_mesh_independent_shape():
    # with the eyelets fixed on the rod, refining the mesh converges to one shape (the
    # chords are the disks' physics, not the mesh's); successive differences, no reference
    tips = []
    for N in (16, 32, 64, 128):
        rod = rd.make_rod(N)
        q = ac.static(rod, [ac.make_tendon(rod, 0.03, eyelets=DISKS)], [40.0], steps=4)
        tips.append(rd.tip(rod, q)[:2])
    diff = np.hypot(*np.diff(np.array(tips), axis=0).T)
    assert np.all(1.9 <= np.log2(diff[:-1] / diff[1:])) and np.all(np.log2(diff[:-1] / diff[1:]) <= 2.1)


def test_disk_robot_curvature_rises_between_disks_by_the_chord_sagitta():
    # between two disks the tendon is a chord; the lever arm grows by the sagitta
    # kappa s (l - s) / 2, so kappa(s) ~ kappa0 (1 + kappa0 s (l - s) / (2 d)): the peak
    # excess is kappa0 l^2 / (8 d) at mid-span, the mean kappa0 l^2 / (12 d) (small kappa0)
    d, kap0, l = 0.03, 0.3, 1 / 8
    rod = rd.make_rod(320)
    q = ac.static(rod, [ac.make_tendon(rod, d, eyelets=DISKS)], [kap0 / d], steps=2)
    kappa = np.diff(q[0::3]) / rod.ell / kap0
    s_c = (np.arange(rod.N) + 0.5) * rod.ell
    phi7 = np.interp(7 * l, s_c, q[0::3])                  # angle at the 7th disk
    assert (kappa.max() - 1) == pytest.approx(kap0 * l**2 / (8 * d), rel=0.03)
    assert (phi7 / (7 * l) / kap0 - 1) == pytest.approx(kap0 * l**2 / (12 * d), rel=0.03)
    at_disks = np.interp(DISKS[:-1], s_c[:-1] + 0.5 * rod.ell, kappa)
    assert np.all(np.abs(at_disks - 1) < 0.2 * kap0 * l**2 / (8 * d))   # no sag at a disk


def test_tip_converges_to_the_compressed_circular_arc_at_second_order():
    Ns = np.array([10, 20, 40, 80])
    err = []
    for N in Ns:
        rod = rd.make_rod(N)
        tau = 0.8 * np.pi / 0.03
        x, y, _ = rd.tip(rod, ac.static(rod, [ac.make_tendon(rod, 0.03)], [tau], steps=4))
        xa, ya, _ = ac.arc_tip(rod, tau, 0.03)
        err.append(np.hypot(x - xa, y - ya))
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert 1.9 <= order <= 2.1


def test_interior_anchor_leaves_the_distal_part_straight():
    # the joint at the anchor node spans half an element on either side: half the moment
    rod = rd.make_rod(12)
    q = ac.static(rod, [ac.make_tendon(rod, 0.03, anchor=6)], [30.0], steps=3)
    phi = q[0::3]
    assert np.abs(np.diff(phi[6:])).max() <= 1e-9          # no bending beyond the anchor
    assert np.diff(phi[:6]).min() > 0.8 * 30.0 * 0.03 * rod.ell
    assert (phi[6] - phi[5]) / np.diff(phi[:6]).mean() == pytest.approx(0.5, abs=0.05)   # 0.474


def test_large_stroke_reaches_more_than_half_a_turn():
    rod = rd.make_rod(40)
    tau = 1.3 * np.pi / 0.03
    taus, Q = ac.static_path(rod, [ac.make_tendon(rod, 0.03)], [tau], steps=8)
    angles = [rd.tip(rod, q)[2] for q in Q]
    assert angles[-1] > np.pi
    assert np.all(np.diff(angles) > 0)
    for q, t in zip(Q, taus[:, 0]):
        assert np.abs(ac.gradient(rod, q, [ac.make_tendon(rod, 0.03)], [t])).max() <= 1e-8 * max(1, t)


def test_tension_jacobian_matches_finite_differences_of_the_equilibrium():
    rod = rd.make_rod(10)
    ts = [ac.make_tendon(rod, 0.03), ac.make_tendon(rod, -0.02, anchor=5)]
    tau = np.array([20.0, 10.0])
    q = ac.static(rod, ts, tau, steps=4)
    W = ac.tension_jacobian(rod, ts, tau, q, angle=True)
    h = 1e-3
    for i in range(2):
        e = np.zeros(2)
        e[i] = h
        qp = ac.static(rod, ts, tau + e, steps=1, q0=q, tensions0=tau)
        qm = ac.static(rod, ts, tau - e, steps=1, q0=q, tensions0=tau)
        fd = (np.array(rd.tip(rod, qp)) - np.array(rd.tip(rod, qm)))[[0, 1, 2]] / (2 * h)
        assert np.abs(fd - W[:, i]).max() <= 1e-6 * np.abs(W[:, i]).max()


# -------------------------------------------------------------------------------- pressure
@pytest.mark.parametrize("element", ["T3", "T6"])
def test_follower_pressure_equals_the_dead_pressure_load_in_the_reference_state(element):
    m = fem.cantilever(10, 2, element)
    ch = ac.make_chamber(m, "top", (2.0, 8.0))
    f = ac.pressure_force(m, ch, np.zeros(m.n_dofs), 1.0)
    assert np.abs(f - fem.face_pressure_load(m, "top", (2.0, 8.0))).max() <= 1e-14


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_pressure_stiffness_is_minus_the_jacobian_of_the_follower_load(element):
    m = fem.cantilever(4, 2, element, slenderness=4.0)
    ch = ac.make_chamber(m, "bottom", (1.0, 4.0))
    rng = np.random.default_rng(3)
    u = 0.1 * rng.standard_normal(m.n_dofs)
    Kp = ac.pressure_stiffness(m, ch, 0.7).toarray()
    fd = np.column_stack([fd4(lambda x: -ac.pressure_force(m, ch, x, 0.7), u, i, 1e-3)
                          for i in range(u.size)])
    assert np.abs(fd - Kp).max() <= 1e-12 * np.abs(Kp).max()


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_pressure_stiffness_is_unsymmetric_only_at_the_ends_of_the_loaded_run(element):
    m = fem.cantilever(10, 2, element)
    ch = ac.make_chamber(m, "top", (2.0, 8.0))
    A = ac.pressure_stiffness(m, ch, 1.0).toarray()
    skew = np.abs(A - A.T).reshape(m.n_dofs // 2, 2, -1).max(axis=(1, 2))
    assert set(np.flatnonzero(skew > 1e-13)) == set(ch.ends.tolist())
    assert np.abs(A).max() > 0


def test_pressure_force_does_no_net_work_round_a_rigid_rotation():
    # a rigid rotation turns the follower load with the body: its resultant rotates too
    m = fem.cantilever(10, 2, "T6")
    ch = ac.make_chamber(m, "top")
    X = m.mesh.nodes
    a = 0.7
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    u = (X @ R.T - X).ravel()
    f0 = ac.pressure_force(m, ch, np.zeros(m.n_dofs), 1.0).reshape(-1, 2).sum(0)
    f1 = ac.pressure_force(m, ch, u, 1.0).reshape(-1, 2).sum(0)
    assert np.abs(f1 - R @ f0).max() <= 1e-13 * np.abs(f0).max()


def newton_errors(load_stiffness, symmetric=False):
    """Errors e_k = |u_k - u*|_inf / |u*|_inf of Newton on one pressure increment."""
    m = fem.cantilever(20, 2, "T6")
    ch = ac.make_chamber(m, "top")
    ps, U = ac.pressure_static(m, ch, 4e-4, steps=4)
    ustar = ac.pressure_static(m, ch, 4.05e-4, steps=1, u0=U[-1], tol=1e-13)[1][-1]
    h, states = ac.newton_history(m, ch, 4.05e-4, U[-1], load_stiffness=load_stiffness,
                                  maxiter=40, return_states=True, symmetric=symmetric)
    e = np.abs(states - ustar).max(axis=1) / np.abs(ustar).max()
    return e[e > 1e-13]


def test_newton_with_the_load_stiffness_converges_quadratically_without_it_linearly():
    full = newton_errors(True)
    dead = newton_errors(False)
    # quadratic: e_{k+1} <= C e_k^2 with a moderate C, and a tiny last ratio
    assert full[-1] <= 10 * full[-2] ** 2 and full[-1] / full[-2] < 1e-5
    assert full.size <= 5
    # linear: a constant contraction factor, the same over the last five iterations
    ratio = dead[-5:] / dead[-6:-1]
    assert 0.05 < ratio.min() and ratio.max() < 0.5
    assert ratio.max() / ratio.min() < 1.1
    assert dead.size > 2 * full.size


def test_the_symmetrised_load_stiffness_converges_linearly_between_full_and_none():
    # (K_p + K_p^T)/2 drops the skew part on the run's ends: better than no K_p, not Newton
    full, dead, sym = newton_errors(True), newton_errors(False), newton_errors(True, True)
    assert full.size < sym.size < dead.size
    # linear, not quadratic: a constant contraction over two iterations (they alternate)
    two = sym[-4:] / sym[-6:-2]
    assert two.max() < 0.1 and two.max() / two.min() < 2


def test_pressure_path_is_in_equilibrium_and_bends_away_from_the_chamber():
    m = fem.cantilever(20, 2, "T6")
    ch = ac.make_chamber(m, "top")
    ps, U = ac.pressure_static(m, ch, 6e-4, steps=6)
    tip = [fem.tip_deflection(m, u) for u in U]
    assert np.all(np.diff(tip) < 0)
    for p, u in zip(ps[1:], U[1:]):
        r = ac.pressure_residual(m, ch, u, p)[m.free]
        assert np.abs(r).max() <= 1e-9 * p


# -------------------------------------------------------------------------------- inverse
def test_qp_solve_satisfies_the_kkt_conditions():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((5, 5))
    H = A @ A.T + 0.1 * np.eye(5)
    f = 3 * rng.standard_normal(5)
    lo, hi = -0.2 * np.ones(5), 0.3 * np.ones(5)
    x, lam, _ = ac.qp_solve(H, f, lo, hi)
    assert np.abs(H @ x + f + lam).max() <= 1e-12 * np.abs(f).max()
    assert np.all((x >= lo - 1e-15) & (x <= hi + 1e-15))
    assert np.all(lam[lam > 0] > 0) and np.all(np.isclose(x[lam > 0], hi[lam > 0], atol=1e-15))
    assert np.all(np.isclose(x[lam < 0], lo[lam < 0], atol=1e-15))
    assert np.any(lam != 0)


@pytest.fixture(scope="module")
def arm():
    rod = rd.make_rod(16)
    ts = [ac.make_tendon(rod, 0.03), ac.make_tendon(rod, -0.03), ac.make_tendon(rod, 0.03, anchor=8)]
    return rod, ts


def test_inverse_reaches_a_reachable_target_to_1e_8(arm):
    rod, ts = arm
    tau_true = np.array([25.0, 0.0, 15.0])
    target = rd.tip(rod, ac.static(rod, ts, tau_true))
    res = ac.inverse(rod, ts, target, tau_max=60.0)
    assert res.reachable and res.distance <= 1e-8
    assert np.abs(res.tensions - tau_true).max() <= 1e-6
    assert res.active == ("", "lower", "")
    assert np.abs(res.multipliers).max() <= 1e-9       # reached: nothing pulls on a bound


def test_inverse_projects_an_unreachable_target_with_the_bound_active(arm):
    rod, ts = arm
    target = rd.tip(rod, ac.static(rod, ts[:1], [50.0]))[:2]
    res = ac.inverse(rod, ts[:1], target, tau_max=30.0)
    assert not res.reachable and res.distance > 0.05
    assert res.active == ("upper",) and res.tensions[0] == 30.0
    assert res.multipliers[0] > 0
    # complementarity / sensitivity: d(dist^2/2)/d tau_max = -lambda
    h = 0.05
    d2 = [ac.inverse(rod, ts[:1], target, tau_max=30.0 + s).distance ** 2 / 2 for s in (-h, h)]
    assert (d2[1] - d2[0]) / (2 * h) == pytest.approx(-res.multipliers[0], rel=1e-3)
    assert "unreachable" in res.message and f"{res.distance:.6g}" in res.message


def test_redundant_tendons_are_resolved_by_minimum_effort(arm):
    rod, ts = arm
    # a second cable in the channel of tendon 0: any split of its tension gives the same
    # shape; the least |tau|^2 splits it evenly
    both = [ts[0], ts[0], ts[2]]
    target = rd.tip(rod, ac.static(rod, [ts[0], ts[2]], [20.0, 30.0]))[:2]
    res = ac.inverse(rod, both, target, tau_max=60.0)
    assert res.reachable and res.distance <= 1e-8
    assert np.abs(res.tensions - [10.0, 10.0, 30.0]).max() <= 1e-6
    # with the antagonist available too, least effort leaves it slack (lower bound active)
    res = ac.inverse(rod, [ts[0], ts[1], ts[0], ts[2]], target, tau_max=60.0)
    assert res.reachable and res.active[1] == "lower" and res.multipliers[1] <= 0
    assert np.abs(res.tensions - [10.0, 0.0, 10.0, 30.0]).max() <= 1e-6
    # the updates fall to tol; asked for far less, they stop at a round-off floor and the
    # rounds do not settle (the floor is what InverseResult.updates shows)
    assert res.settled and res.updates[-1] <= 1e-10 and res.updates.size == res.iterations
    low = ac.inverse(rod, both, target, tau_max=60.0, tol=1e-15, maxiter=25, sweep=0)
    assert not low.settled and np.all(low.updates[-3:] > 1e-15)


def _brute_nearest(rod, tendon, target, tau_max, n=600):
    """The nearest tip over 0 <= tau <= tau_max by an n-step scan of the tension range
    (continuation with static_path; inverse is not called)."""
    taus, Q = ac.static_path(rod, [tendon], [tau_max], steps=n)
    d = np.array([np.hypot(*(np.array(rd.tip(rod, q)[:2]) - target)) for q in Q])
    return float(d.min()), float(taus[d.argmin(), 0]), d


# the referee's cases (issue 23): a local minimum at an interior tension (case 1) and a
# non-minimal fixed point of Gauss-Newton (case 2); the nearest tip is at the bound in both
@pytest.mark.parametrize("tau_max, target", [(150.0, (0.3, 0.0)), (240.0, (0.0, 0.3))])
def test_inverse_finds_the_global_nearest_tip_of_one_tendon(tau_max, target):
    rod = rd.make_rod(20)
    t = ac.make_tendon(rod, 0.03)
    d_brute, tau_brute, d = _brute_nearest(rod, t, np.array(target), tau_max)
    assert tau_brute == tau_max                    # the scan's nearest point is the bound
    res = ac.inverse(rod, [t], target, tau_max=tau_max)      # maxiter 100: must not raise
    assert not res.reachable and res.settled and res.active == ("upper",)
    assert res.tensions[0] == tau_max and abs(res.distance - d_brute) <= 1e-9
    assert res.distance <= d.min() + 1e-12 and "global" in res.message
    assert res.multipliers[0] > 0


def test_local_inverse_settles_on_a_stationary_point_and_says_local():
    rod = rd.make_rod(20)
    t = ac.make_tendon(rod, 0.03)
    res = ac.inverse(rod, [t], (0.3, 0.0), tau_max=150.0, sweep=0)
    assert res.settled and not res.reachable and "local" in res.message
    assert res.active == ("",) and res.distance > 0.6          # an interior local minimum
    # stationarity and a minimum, by central differences of the distance along tau
    h = 0.05
    dd = [np.hypot(*(np.array(rd.tip(rod, ac.static(rod, [t], res.tensions + s))[:2])
                     - (0.3, 0.0))) for s in (-h, 0.0, h)]
    assert abs(dd[2] - dd[0]) / (2 * h) <= 1e-6 and dd[0] > dd[1] < dd[2]
    # stopped early, the rounds return their nearest iterate instead of raising
    res2 = ac.inverse(rod, [t], (0.3, 0.0), tau_max=150.0, sweep=0, maxiter=2)
    assert not res2.settled and res2.distance == res2.history.min()
    assert "did not settle" in res2.message


# -------------------------------------------------------------------------------- dynamics
def test_slow_ramp_follows_the_quasi_static_path_fast_ramp_overshoots():
    rod = rd.make_rod(10)
    t = ac.make_tendon(rod, 0.03)
    tau = 30.0
    T1 = 2 * np.pi / rd.frequencies(rod, 1)[0]
    lags = []
    for ramp in (0.25 * T1, 4 * T1):
        ts, Q, taus = ac.ramp_response(rod, [t], [tau], ramp, ramp + T1, T1 / 40, every=4)
        qs = ac.static_path(rod, [t], [tau], steps=8)[1]
        dyn = np.array([rd.tip(rod, q)[2] for q in Q])
        # quasi-static tip angle at the same tension (interpolated along the static path)
        ang = np.array([rd.tip(rod, q)[2] for q in qs])
        qsa = np.interp(taus[:, 0], np.linspace(0, tau, 9), ang)
        lags.append(np.abs(dyn - qsa).max() / ang[-1])
    assert lags[1] < 0.25 * lags[0]
    assert lags[0] > 0.3          # a sudden pull overshoots by tens of percent


# -------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw, name", [
    (dict(offset=0.05), "offset"),
    (dict(offset=0.01, offset_end=-0.041), "offset_end"),
    (dict(offset=float("nan")), "offset"),
    (dict(offset=0.01, anchor=0), "anchor"),
    (dict(offset=0.01, anchor=11), "anchor"),
])
def test_make_tendon_rejects_a_tendon_outside_the_section_or_rod(kw, name):
    with pytest.raises(ValueError, match=name):
        ac.make_tendon(rd.make_rod(10), **kw)


@pytest.mark.parametrize("kw, name", [
    (dict(tau_max=-1.0), "tau_max"),
    (dict(tau_max=float("inf")), "tau_max"),
    (dict(tau_max=float("nan")), "tau_max"),
    (dict(tau_max=10.0, tau_min=-0.5), "tau_min"),
    (dict(tau_max=10.0, tau_min=20.0), "tau_max"),
    (dict(tau_max=[1.0, 2.0]), "tau_max"),
])
def test_inverse_rejects_bad_tension_bounds(kw, name):
    rod = rd.make_rod(6)
    with pytest.raises(ValueError, match=name):
        ac.inverse(rod, [ac.make_tendon(rod, 0.02)], (0.9, 0.3), **kw)


def test_inverse_rejects_a_non_finite_target_and_static_a_negative_tension():
    rod = rd.make_rod(6)
    t = ac.make_tendon(rod, 0.02)
    with pytest.raises(ValueError, match="target"):
        ac.inverse(rod, [t], (np.nan, 0.3), tau_max=5.0)
    with pytest.raises(ValueError, match="tensions"):
        ac.static(rod, [t], [-1.0])
    with pytest.raises(ValueError, match="pressure"):
        m = fem.cantilever(4, 1, "T3")
        ac.pressure_force(m, ac.make_chamber(m), np.zeros(m.n_dofs), np.inf)


def test_inverse_refuses_an_unstable_equilibrium_as_static_does():
    """tau_min = 80 > 4 EI/ell^2 = 64 forces a centred eyelet tendon past the chords' buckling
    load: the straight rod is an equilibrium there, but not a stable one."""
    rod = rd.make_rod(4)
    t = ac.make_tendon(rod, 0.0)
    with pytest.raises(ac.ActuationSolveError, match="not positive definite") as err:
        ac.inverse(rod, [t], (1.0, 0.0), tau_min=80.0, tau_max=100.0)
    assert err.value.reason == "unstable equilibrium" and err.value.where == "actuation.inverse"
    with pytest.raises(ac.ActuationSolveError, match="not positive definite"):
        ac.static(rod, [t], [80.0])
    res = ac.inverse(rod, [t], (1.0, 0.0), tau_min=50.0, tau_max=60.0)    # below: stable
    assert res.tensions[0] == 50.0 and res.active == ("lower",)


# -------------------------------------------------------------------------------- explore
def test_explore_tendon_arm_is_the_static_equilibrium_and_rejects_a_negative_tension():
    from lib import explore

    xy, paths, tip = explore.tendon_arm_shape(0.0, 40.0, 90.0, N=12)
    rod = rd.make_rod(12)
    ts = [ac.make_tendon(rod, 0.03), ac.make_tendon(rod, -0.03), ac.make_tendon(rod, 0.03, anchor=6)]
    q = ac.static(rod, ts, [0.0, 40.0, 90.0], steps=6)
    assert np.abs(xy[1:] - np.column_stack([q[1::3], q[2::3]])).max() <= 1e-12
    assert np.abs(ac.gradient(rod, q, ts, [0.0, 40.0, 90.0])).max() <= 1e-8 * 90
    assert len(paths) == 3 and paths[2].shape == (6 + 2, 2)
    with pytest.raises(ValueError, match="tau_tip"):
        explore.tendon_arm_shape(-1.0, 0.0, 0.0)


# -------------------------------------------------------------------------------- FEM cable
def test_fem_cable_derivatives_match_finite_differences_and_the_linear_cable_row():
    m = fem.cantilever(6, 2, "T6", slenderness=3.0)
    eyelets = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.25))     # a row inside the arm
    eyelets = eyelets[np.argsort(m.mesh.nodes[eyelets, 0])]
    rng = np.random.default_rng(5)
    u = 0.05 * rng.standard_normal(m.n_dofs)
    g = ac.cable_gradient(m, eyelets, u)
    fd = np.array([fd4(lambda x: ac.cable_length(m, eyelets, x), u, i, 1e-4) for i in range(u.size)])
    assert np.abs(fd - g).max() <= 1e-10 * np.abs(g).max()
    H = ac.cable_hessian(m, eyelets, u).toarray()
    fdH = np.column_stack([fd4(lambda x: ac.cable_gradient(m, eyelets, x), u, i, 1e-4)
                           for i in range(u.size)])
    assert np.abs(fdH - H).max() <= 1e-8 * np.abs(H).max()
    assert np.abs(H - H.T).max() == 0
    g0 = ac.cable_gradient(m, eyelets, np.zeros(m.n_dofs))
    assert np.abs(g0 + fem.cable_row(m, eyelets)).max() <= 1e-15


def test_fem_cable_pull_is_in_equilibrium_and_linear_at_small_tension():
    m = fem.cantilever(20, 2, "T6")
    top = np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.25))
    top = top[np.argsort(m.mesh.nodes[top, 0])]
    dev = []
    for tau in (1e-4, 1e-5):      # nonlinear / linear - 1 vanishes in proportion to tau
        taus, U = ac.cable_static(m, [top], [tau], steps=1)
        lin = fem.solve_linear(m, -tau * ac.cable_gradient(m, top, np.zeros(m.n_dofs)))
        dev.append(fem.tip_deflection(m, U[-1]) / fem.tip_deflection(m, lin) - 1)
    assert abs(dev[1]) < 1e-4 and 0.09 < dev[1] / dev[0] < 0.11
    taus, U = ac.cable_static(m, [top], [3e-3], steps=4)
    for tau, u in zip(taus[1:, 0], U[1:]):
        r = fem.gradient(m, u) + tau * ac.cable_gradient(m, top, u)
        assert np.abs(r[m.free]).max() <= 1e-9 * tau
    assert np.all(np.diff([fem.tip_deflection(m, u) for u in U]) > 0)


# ------------------------------------------------------------- results, failures, extremes
def test_ramp_response_ends_exactly_at_t_end_or_says_why_not():
    r = rd.make_rod(4)
    t = ac.make_tendon(r, 0.03)
    ts, Q, taus = ac.ramp_response(r, [t], [2.0], 0.1, 0.05, 0.01, every=2)
    assert ts[-1] == pytest.approx(0.05, abs=1e-15) and len(ts) == len(Q) == len(taus) == 4
    with pytest.raises(ValueError, match="t_end = 0.25 .*dt = 0.1"):   # it used to stop at 0.2
        ac.ramp_response(r, [t], [2.0], 0.1, 0.25, 0.1)


def test_a_failed_solve_is_a_solve_error_saying_how_far_it_got():
    from lib.core.errors import SolveError

    r = rd.make_rod(8)
    with pytest.raises(ac.ActuationSolveError, match=r"load step 1/2 \(λ = 0.5\), iteration 1") as err:
        ac.static(r, [ac.make_tendon(r, 0.04)], [80.0], steps=2, maxiter=1)
    assert isinstance(err.value, SolveError) and err.value.iteration == 1


@pytest.mark.parametrize("call", [
    lambda r, t, q: ac.static(r, [t], [1.0], q0=q),
    lambda r, t, q: ac.inverse(r, [t], (0.9, 0.1), 10.0, q0=q),
])
def test_a_nan_start_state_is_bad_input_not_a_solver_failure(call):
    r = rd.make_rod(4)
    q = rd.straight(r)
    q[4] = np.nan
    with pytest.raises(ValueError, match="q0 must be finite"):
        call(r, ac.make_tendon(r, 0.03), q)


def test_tiny_and_huge_tensions_give_the_exact_constant_curvature():
    """Extreme but legal: tau d / EI = 3e-11 (one Newton step) and 6 (almost a full turn,
    where the discrete curvature converges to it at second order)."""
    r = rd.make_rod(20, r_over_L=0.03)
    q = ac.static(r, [ac.make_tendon(r, 0.03)], [1e-9], steps=1)
    assert np.allclose(np.diff(q[0::3]) / r.ell, 1e-9 * 0.03 / r.EI, rtol=1e-6, atol=0)
    err = []
    for N in (20, 40):
        r = rd.make_rod(N, r_over_L=0.03)
        q = ac.static(r, [ac.make_tendon(r, 0.03)], [200.0], steps=20)
        kappa = np.diff(q[0::3]) / r.ell
        assert kappa.std() <= 2e-3 * kappa.mean()
        err.append(abs(kappa.mean() - 200.0 * 0.03 / r.EI))
    assert 3.5 <= err[0] / err[1] <= 5


# ------------------------------------------------------------ interior anchors (issue 36)
def interior_anchor_error(N, sheath):
    """Relative error of the angle past an anchor at L/2 against tau d (L/2)/EI (planar,
    r_over_L = 0.01, d = 0.008, tau = 20: kappa = 0.16)."""
    rod = rd.make_rod(N, r_over_L=0.01)
    q = ac.static(rod, [ac.make_tendon(rod, 0.008, anchor=N // 2, sheath=sheath)], [20.0], steps=4)
    exact = 20.0 * 0.008 * rod.L / 2 / rod.EI
    return abs(q[-3] - exact) / exact


def test_interior_anchor_through_eyelets_converges_at_second_order():
    # the anchor takes the angle halfway between elements k-1 and k (its joint spans half
    # an element on either side); holding phi_{k-1} gave 5.8, 3.9, 2.2, 1.2, 0.6 %
    Ns = np.array([10, 20, 40, 80, 160])
    err = np.array([interior_anchor_error(N, False) for N in Ns])
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert order > 1.8                                 # measured 1.94 (4.2 % ... 0.019 %)
    assert err[-1] < 3e-4


def test_interior_anchor_in_a_sheath_is_exact_at_every_N():
    # the sheath's half element before the anchor node carries joint k's curvature, the
    # one after it no tendon: half the moment at joint k, so the angle past the anchor is
    # tau d s_k / EI to round-off (stronger than any order; it was 1/N: 10, 5, 2.5 ... %)
    err = np.array([interior_anchor_error(N, True) for N in (10, 20, 40, 80, 160)])
    assert err.max() <= 1e-12


def test_static_refuses_an_equilibrium_the_chords_have_buckled():
    # a tendon on the centreline leaves the rod straight; its chords soften each joint by
    # tau ell/4, and past about 4 EI/ell^2 (400 at N = 10; 313 with this section's shear)
    # the straight state is unstable: refused, while more elements or a sheath hold it
    r = rd.make_rod(10)
    with pytest.raises(ac.ActuationSolveError, match=r"lowest eigenvalue -[0-9.]+.*4 EI/ell\^2 = 400"
                       r".*sum tau = 450.*more elements.*sheath") as err:
        ac.static(r, [ac.make_tendon(r, 0.0)], [450.0])
    assert err.value.reason == "unstable equilibrium"
    with pytest.raises(ac.ActuationSolveError, match=r"load step 7/10"):
        ac.static_path(r, [ac.make_tendon(r, 0.0)], [450.0])       # the first unstable step
    q = ac.static(r, [ac.make_tendon(r, 0.0, sheath=True)], [450.0])
    assert np.abs(q[0::3]).max() == 0.0
    r20 = rd.make_rod(20)
    assert np.abs(ac.static(r20, [ac.make_tendon(r20, 0.0)], [450.0])[0::3]).max() == 0.0
    ac.static(r, [ac.make_tendon(r, 0.0)], [300.0])                 # below the limit: stable


def test_a_stalled_newton_suggests_more_steps_or_iterations():
    r = rd.make_rod(40, r_over_L=0.002)
    t = ac.make_tendon(r, 0.0015)
    with pytest.raises(ac.ActuationSolveError, match=r"iteration limit.*raise steps.*maxiter"):
        ac.static(r, [t], [2400.0])
    q = ac.static(r, [t], [2400.0], steps=40)                       # as the hint says
    assert q[-3] > 5.0


def test_a_tendon_made_for_another_rod_of_the_same_N_is_refused():
    r = rd.make_rod(6)
    for other in (rd.make_rod(6, L=2.0), rd.make_rod(6, r_over_L=0.02)):
        t = ac.make_tendon(other, 0.01)
        with pytest.raises(ValueError, match=r"\btendon\b.*L = .*radius"):
            ac.tendon_length(r, t, rd.straight(r))
        with pytest.raises(ValueError, match=r"\btendons\b"):
            ac.static(r, [t], [1.0])


def test_inverse_refuses_pressure_bounds_without_chambers():
    r = rd.make_rod(6)
    t = ac.make_tendon(r, 0.02)
    for kw in (dict(pressure_min=-1.0), dict(pressure_min=0.0), dict(pressure_max=1.0)):
        with pytest.raises(ValueError, match=rf"\b{next(iter(kw))}\b.*without chambers"):
            ac.inverse(r, [t], (0.9, 0.2), tau_max=10.0, **kw)


def test_ramp_response_names_dt_when_the_step_count_overflows():
    # t_end / dt = 1e300 / 1e-300 is inf: int(round(inf)) raised OverflowError
    r = rd.make_rod(6)
    with pytest.raises(ValueError, match=r"^dt must give a countable number of steps"):
        ac.ramp_response(r, [ac.make_tendon(r, 0.04)], [5.0], 1.0, 1e300, 1e-300)


def test_inverse_names_a_target_too_far_for_its_rounds():
    # a target 1e15 L away failed inside DAQP ('qp_solve (DAQP): infeasible', not saying
    # how far the search got); within 1e9 L the nearest reachable tip is found
    r = rd.make_rod(6)
    up, down = ac.make_tendon(r, 0.04), ac.make_tendon(r, -0.04)
    with pytest.raises(ValueError, match=r"^target must lie within 1e\+09 L"):
        ac.inverse(r, [up], [0.5, 1e15], 10.0)
    with pytest.raises(ValueError, match=r"^target must lie within 1e\+09 L"):
        ac.inverse(r, [up, down], [0.5, 0.1, 1e300], 10.0)
    far = ac.inverse(r, [up, down], [0.5, 1e9], 10.0)             # legal, extreme
    assert far.tensions.tolist() == [10.0, 0.0] and not far.reachable
    assert far.distance == pytest.approx(1e9 - far.tip[1], rel=1e-12)


def test_cable_eyelets_repeating_a_node_are_named():
    # a node twice in a row is a zero-length segment: the length passed (1.0) and its
    # gradient blamed u ('u makes two consecutive eyelets coincide')
    m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    u = np.zeros(m.n_dofs)
    for f in (ac.cable_length, ac.cable_gradient, ac.cable_hessian):
        with pytest.raises(ValueError, match="^eyelets must not repeat a node in consecutive"):
            f(m, [1, 3, 3, 5], u)
    with pytest.raises(ValueError, match="^cables must not repeat a node in consecutive"):
        ac.cable_static(m, [[1, 3, 3, 5]], [0.1])
    assert ac.cable_length(m, [1, 3, 1], u) == pytest.approx(2.0)    # back and forth: legal
