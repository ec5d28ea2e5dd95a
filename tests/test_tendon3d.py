"""Tendons routed on the 3-D rod (lib.actuation, section "3-D routing"): derivatives in
rod3d's increments, equality with the planar tendon, helical routing, three tendons at
120 degrees, the extra-potential hook of rod3d.static, bad input."""
import numpy as np
import pytest

import lib.actuation as ac
import lib.rod as rd
import lib.rod3d as r3
from lib.core.errors import SolveError


def hat(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def generic_state(rod, seed, size=0.3):
    """A non-planar, stretched and sheared state (random rotations and displacements)."""
    rng = np.random.default_rng(seed)
    dq = size * rng.standard_normal(rod.ndof)
    dq.reshape(rod.N, 6)[:, 3:] *= rod.ell
    return r3.retract(rod, r3.straight(rod), dq)


def twist(state):
    """Total twist: the sum of the axial components of the relative rotations
    log(R_{e-1}^T R_e) (R_{-1} = I), from the quaternions by our own formula."""
    Q = np.asarray(state.Q)
    P = np.vstack([[1.0, 0.0, 0.0, 0.0], Q[:-1]])
    # conj(P) Q, the vector part's first component and the scalar part
    w = np.sum(P * Q, axis=1)
    vx = P[:, 0] * Q[:, 1] - Q[:, 0] * P[:, 1] - (P[:, 2] * Q[:, 3] - P[:, 3] * Q[:, 2])
    vy = P[:, 0] * Q[:, 2] - Q[:, 0] * P[:, 2] - (P[:, 3] * Q[:, 1] - P[:, 1] * Q[:, 3])
    vz = P[:, 0] * Q[:, 3] - Q[:, 0] * P[:, 3] - (P[:, 1] * Q[:, 2] - P[:, 2] * Q[:, 1])
    n = np.sqrt(vx**2 + vy**2 + vz**2)
    ang = 2 * np.arctan2(n, np.abs(w))
    return float(np.sum(np.sign(w) * vx * ang / np.where(n == 0, 1.0, n)))


ROUTINGS = {
    "straight, element centres": dict(offset=(0.06, -0.05)),
    "straight, disks": dict(offset=(0.06, -0.05), eyelets=[0.05, 0.15, 0.33, 0.5, 0.71, 0.95]),
    "helix, disks on nodes and past the last centre": dict(offset=(0.07, 0.02), turn_rate=3.5,
                                                         eyelets=[0.05, 0.2, 0.62, 0.95]),
    "helix, interior anchor": dict(offset=(0.0, 0.08), turn_rate=-3.0, anchor=3),
    "per-eyelet offsets": dict(offset=[[0.0, 0.09], [0.05, 0.0], [0.0, -0.04], [-0.03, 0.03]],
                               eyelets=[0.3, 0.55], anchor=4),
}


@pytest.fixture(scope="module")
def rod5():
    return r3.make_rod3d(5, r_over_L=0.1, nu=0.3)


@pytest.mark.parametrize("name", ROUTINGS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_is_the_derivative_of_the_length_along_the_retraction(rod5, name, seed):
    t = ac.make_tendon3d(rod5, **ROUTINGS[name])
    s = generic_state(rod5, seed)
    g = ac.tendon3d_gradient(rod5, t, s)
    rng = np.random.default_rng(10 + seed)
    h = 1e-5
    for _ in range(4):
        v = rng.standard_normal(rod5.ndof)
        fd = (ac.tendon3d_length(rod5, t, r3.retract(rod5, s, h * v))
              - ac.tendon3d_length(rod5, t, r3.retract(rod5, s, -h * v))) / (2 * h)
        assert abs(fd - g @ v) <= 1e-6 * np.abs(g).max() * np.abs(v).max()


@pytest.mark.parametrize("name", ROUTINGS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hessian_is_the_derivative_of_the_gradient_along_the_retraction(rod5, name, seed):
    """The gradient at s exp(h v) is taken in that state's own frame, so its difference
    measures H + hat(g_psi)/2 per element (rod3d's right-trivialised tangent); the second
    difference of the length itself measures v^T H v alone (no frame change)."""
    t = ac.make_tendon3d(rod5, **ROUTINGS[name])
    s = generic_state(rod5, seed)
    g = ac.tendon3d_gradient(rod5, t, s)
    H = ac.tendon3d_hessian(rod5, t, s, symmetrise=False)
    assert abs(H - H.T).max() <= 1e-13 * abs(H).max()
    T = np.zeros((rod5.ndof, rod5.ndof))
    for e, ge in enumerate(g.reshape(rod5.N, 6)[:, :3]):
        T[6 * e:6 * e + 3, 6 * e:6 * e + 3] = 0.5 * hat(ge)
    rng = np.random.default_rng(20 + seed)
    L0 = ac.tendon3d_length(rod5, t, s)
    for _ in range(4):
        v = rng.standard_normal(rod5.ndof)
        h = 1e-5
        fd = (ac.tendon3d_gradient(rod5, t, r3.retract(rod5, s, h * v))
              - ac.tendon3d_gradient(rod5, t, r3.retract(rod5, s, -h * v))) / (2 * h)
        Hv = H @ v + T @ v
        assert np.abs(fd - Hv).max() <= 1e-6 * np.abs(Hv).max()
        h2 = 1e-4
        sec = (ac.tendon3d_length(rod5, t, r3.retract(rod5, s, h2 * v)) - 2 * L0
               + ac.tendon3d_length(rod5, t, r3.retract(rod5, s, -h2 * v))) / h2**2
        assert abs(sec - v @ (H @ v)) <= 1e-5 * abs(v @ (H @ v))


def test_rotation_interpolation_handles_small_and_large_relative_angles():
    """The Rodrigues coefficients switch from series to closed form at |w| = 1: derivatives
    at an eyelet with an interpolated frame on both sides of the switch (eta = 0.9 between
    elements 1 and 2, turned by 0.9 and 1.5 rad relative to each other: |w| = 0.81, 1.35)."""
    rod = r3.make_rod3d(3, r_over_L=0.1)
    t = ac.make_tendon3d(rod, (0.05, 0.05), eyelets=[0.3, 0.8])
    assert abs(t.eta[2] - 0.9) < 1e-12
    for rel in (0.9, 1.5):
        Q = r3.quat_exp(np.array([[0.0, 0.0, 0.0], [0.1, -0.2, 0.1], [0.1, -0.2, 0.1]]))
        Q[2] = r3.quat_mul(Q[1], r3.quat_exp(rel * np.array([0.6, 0.0, 0.8])))
        s = r3.State(r3.straight(rod).x + 0.01, Q)
        g = ac.tendon3d_gradient(rod, t, s)
        H = ac.tendon3d_hessian(rod, t, s)
        v = np.random.default_rng(3).standard_normal(rod.ndof)
        h = 1e-4
        sec = (ac.tendon3d_length(rod, t, r3.retract(rod, s, h * v))
               - 2 * ac.tendon3d_length(rod, t, s)
               + ac.tendon3d_length(rod, t, r3.retract(rod, s, -h * v))) / h**2
        fd = (ac.tendon3d_length(rod, t, r3.retract(rod, s, 1e-6 * v))
              - ac.tendon3d_length(rod, t, r3.retract(rod, s, -1e-6 * v))) / 2e-6
        assert abs(fd - g @ v) <= 1e-7 * np.abs(g).max() * np.abs(v).max()
        assert abs(sec - v @ (H @ v)) <= 1e-5 * abs(v @ (H @ v))


# --------------------------------------------------------------- equality with the plane
PLANAR = {"element centres": {}, "disks": dict(eyelets=[0.07, 0.2, 0.33, 0.5, 0.71, 0.93]),
          "interior anchor": dict(anchor=12)}


@pytest.mark.parametrize("name", PLANAR)
def test_a_straight_in_plane_tendon_on_the_3d_rod_is_the_planar_tendon(name):
    """Same rod, same eyelets, d2 = d, d3 = 0: equilibrium tip position and angle of
    rod3d + static3d equal lib.rod + actuation.static to 1e-10 (different code: the
    planar tendon's angles and 2-D chords, the 3-D one's rotations and log maps)."""
    N, tau = 20, 8.0
    p, R = rd.make_rod(N), r3.make_rod3d(N)
    tp = ac.make_tendon(p, 0.03, **PLANAR[name])
    t3 = ac.make_tendon3d(R, (0.03, 0.0), **PLANAR[name])
    q = ac.static(p, [tp], [tau], steps=4, tol=1e-12)
    s = ac.static3d(R, [t3], [tau], steps=4, tol=1e-12)
    tip, Rt = r3.tip(R, s)
    assert np.abs(tip - [q[-2], q[-1], 0.0]).max() <= 1e-10
    assert abs(np.arctan2(Rt[1, 0], Rt[0, 0]) - q[-3]) <= 1e-10
    assert np.abs(s.x - r3.from_planar(R, q).x).max() <= 1e-10
    assert q[-1] > 0.05                     # a real bend, not the straight state


@pytest.mark.parametrize("name", PLANAR)
def test_length_and_gradient_at_an_embedded_planar_state_are_the_planar_ones(name):
    p, R = rd.make_rod(20), r3.make_rod3d(20)
    q = ac.static(p, [ac.make_tendon(p, 0.02)], [5.0], steps=2)
    q = q + 0.01 * np.random.default_rng(0).standard_normal(q.size) * p.ell
    tp = ac.make_tendon(p, -0.03, **PLANAR[name])
    t3 = ac.make_tendon3d(R, (-0.03, 0.0), **PLANAR[name])
    s = r3.from_planar(R, q)
    assert abs(ac.tendon3d_length(R, t3, s) - ac.tendon_length(p, tp, q)) <= 1e-14
    g3 = ac.tendon3d_gradient(R, t3, s)
    idx = r3.planar_dofs(R)
    assert np.abs(g3[idx] - ac.tendon_gradient(p, tp, q)).max() <= 1e-13
    assert np.abs(np.delete(g3, idx)).max() <= 1e-14       # no out-of-plane force
    H3 = ac.tendon3d_hessian(R, t3, s).toarray()[np.ix_(idx, idx)]
    assert np.abs(H3 - ac.tendon_hessian(p, tp, q).toarray()).max() <= 1e-11


# ---------------------------------------------------------------------- helical routing
@pytest.mark.parametrize("omega", [np.pi / 2, -np.pi / 2])
def test_a_quarter_turn_helix_bends_out_of_plane_and_twists_against_its_turn(omega):
    """The offset starts on +d2 and turns a quarter turn towards +-d3: the rod bends
    towards the tendon's side along its length, so the tip leaves the x-y plane on the
    side the helix turns to (z of the sign of omega) and stays on +y; the tension
    shortens the tendon by unwinding it, a twist of the opposite sign."""
    R = r3.make_rod3d(20)
    s = ac.static3d(R, [ac.make_tendon3d(R, (0.03, 0.0), turn_rate=omega)], [10.0], steps=3)
    tip = s.x[-1]
    assert tip[1] > 0.05 and np.sign(tip[2]) == np.sign(omega) and abs(tip[2]) > 0.03
    assert np.sign(twist(s)) == -np.sign(omega) and abs(twist(s)) > 0.01


def test_helix_twist_approaches_the_cut_section_moment_as_the_eyelets_get_dense():
    """Cutting the rod and tendon at s: the distal part is free, so the rod carries the
    moment tau r x t_t of the tendon's pull; its axial part is tau d^2 omega / sqrt(1 +
    d^2 omega^2), a uniform twist rate.  For a full turn at a small tension (bending
    small) the discrete twist approaches it (the chords cut the helix's corners)."""
    d, omega, tau = 0.03, 2 * np.pi, 1.0
    exact = tau * d * d * omega / np.sqrt(1 + (d * omega) ** 2)          # GJ-scaled moment
    errs = []
    for N in (20, 40):
        R = r3.make_rod3d(N)
        s = ac.static3d(R, [ac.make_tendon3d(R, (d, 0.0), turn_rate=omega)], [tau], steps=1)
        errs.append(abs(-twist(s) * R.GJ / R.L - exact) / exact)
    assert errs[1] < errs[0] < 0.06 and errs[1] < 0.025


# --------------------------------------------------------------- three tendons at 120 deg
def three(R, d=0.03):
    return [ac.make_tendon3d(R, (d * np.cos(a), d * np.sin(a))) for a in np.radians([0, 120, 240])]


@pytest.mark.parametrize("i", [0, 1, 2])
def test_pulling_one_of_three_tendons_bends_towards_its_side(i):
    R = r3.make_rod3d(16)
    tau = np.zeros(3)
    tau[i] = 6.0
    tip = ac.static3d(R, three(R), tau, steps=2).x[-1]
    a = np.radians(120 * i)
    assert np.hypot(tip[1], tip[2]) > 0.05
    # the tip's lateral displacement points along the pulled tendon's offset
    assert abs(tip[1] * np.sin(a) - tip[2] * np.cos(a)) <= 1e-10
    assert tip[1] * np.cos(a) + tip[2] * np.sin(a) > 0


def test_equal_tensions_on_three_straight_tendons_only_shorten_the_rod():
    """Straight routing: no bending (to round-off), the axial strain -3 tau / EA on every
    element (on helices of one hand they also twist it: see below)."""
    R = r3.make_rod3d(16)
    tau = 5.0
    s = ac.static3d(R, three(R), [tau] * 3, steps=1)
    assert np.abs(s.x[:, 1:]).max() <= 1e-14
    assert np.abs(r3.quat_log(s.Q)).max() <= 1e-14
    assert abs(s.x[-1, 0] - (1 - 3 * tau / R.EA)) <= 1e-14


def test_two_adjacent_tendons_bend_between_them():
    R = r3.make_rod3d(16)
    tip = ac.static3d(R, three(R), [4.0, 4.0, 0.0], steps=2).x[-1]
    ang = np.degrees(np.arctan2(tip[2], tip[1]))
    assert abs(ang - 60.0) <= 1e-8


# ------------------------------------------------------------------------- the hook
def test_rod3d_static_extra_hook_equals_a_tip_force_given_as_a_potential():
    """The hook with the potential -P . x_N is the tip force P (same Newton path)."""
    R = r3.make_rod3d(8)
    P = np.array([0.0, -0.4, 0.3])

    def extra(state, lam):
        g = np.zeros(R.ndof)
        g[-3:] = -lam * P
        return -lam * P @ state.x[-1], g, np.zeros((R.ndof, R.ndof))

    a = r3.static(R, extra=extra, extra_scale=0.5, steps=2)
    b = r3.static(R, P, steps=2)
    assert np.abs(a.x - b.x).max() <= 1e-12


def test_static3d_path_records_each_step_and_starts_straight():
    R = r3.make_rod3d(6)
    taus, S = ac.static3d_path(R, ac.make_tendon3d(R, (0.0, 0.03)), 3.0, steps=3)
    assert taus[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0] and len(S) == 4
    z = [s.x[-1, 2] for s in S]
    assert z[0] == 0.0 and np.all(np.diff(z) > 0)


def test_static3d_path_continues_from_tensions0():
    """A path from (state0, tensions0) -- the end of an earlier path -- reaches the
    equilibrium of one path from zero, with its tension rows starting at tensions0; two
    tendons, one tension raised and one lowered, so the path is not a scaling."""
    R = r3.make_rod3d(8)
    ts = [ac.make_tendon3d(R, (0.0, 0.03)), ac.make_tendon3d(R, (0.03, 0.0), anchor=4)]
    direct = ac.static3d(R, ts, [4.0, 1.0], steps=4)
    half = ac.static3d(R, ts, [1.0, 3.0], steps=2)
    taus, S = ac.static3d_path(R, ts, [4.0, 1.0], steps=3, state0=half, tensions0=[1.0, 3.0])
    assert taus.tolist() == [[1.0, 3.0], [2.0, 7 / 3], [3.0, 5 / 3], [4.0, 1.0]]
    assert S[0] is not None and np.array_equal(S[0].x, half.x)
    assert np.abs(S[-1].x - direct.x).max() < 1e-10 * R.L
    assert np.abs(S[-1].Q - direct.Q).max() < 1e-10
    # the same end through static3d with tensions0
    end = ac.static3d(R, ts, [4.0, 1.0], steps=3, state0=half, tensions0=[1.0, 3.0])
    assert np.abs(end.x - direct.x).max() < 1e-10 * R.L
    with pytest.raises(ValueError, match="tensions0"):
        ac.static3d_path(R, ts, [4.0, 1.0], tensions0=[1.0, -1.0])


def test_a_failed_solve_is_an_actuation_solve_error():
    R = r3.make_rod3d(6)
    with pytest.raises(ac.ActuationSolveError) as err:
        ac.static3d(R, ac.make_tendon3d(R, (0.0, 0.03)), 50.0, steps=1, maxiter=1)
    assert isinstance(err.value, SolveError) and "step" in str(err.value)


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kw, name", [
    (dict(offset=(0.05, 0.0)), "offset"),                       # outside r = 0.04
    (dict(offset=(0.03, 0.03)), "offset"),                      # |(d2, d3)| = 0.042
    (dict(offset=(np.nan, 0.0)), "offset"),
    (dict(offset=(True, False)), "offset"),
    (dict(offset="0.01"), "offset"),
    (dict(offset=(0.01, 0.0, 0.0)), "offset"),
    (dict(offset=np.zeros((3, 2))), "offset"),                  # rows != eyelets
    (dict(offset=(0.01, 0.0), eyelets=[0.0, 0.5]), "eyelets"),  # at the clamp
    (dict(offset=(0.01, 0.0), eyelets=[0.5, 1.2]), "eyelets"),  # past L
    (dict(offset=(0.01, 0.0), eyelets=[0.5, 0.3]), "eyelets"),  # not increasing
    (dict(offset=(0.01, 0.0), eyelets=[0.3, np.nan]), "eyelets"),
    (dict(offset=(0.01, 0.0), eyelets=["a"]), "eyelets"),
    (dict(offset=(0.01, 0.0), anchor=2, eyelets=[0.3, 0.6]), "eyelets"),   # past the anchor
    (dict(offset=(0.01, 0.0), anchor=0), "anchor"),
    (dict(offset=(0.01, 0.0), anchor=True), "anchor"),
    (dict(offset=(0.01, 0.0), turn_rate=np.inf), "turn_rate"),
    (dict(offset=(0.01, 0.0), turn_rate="fast"), "turn_rate"),
    (dict(offset=np.zeros((6, 2)), turn_rate=1.0), "turn_rate"),
])
def test_make_tendon3d_bad_input_names_the_argument(kw, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        ac.make_tendon3d(r3.make_rod3d(4), **kw)


def test_planar_and_3d_models_are_not_mixed_up():
    p, R = rd.make_rod(4), r3.make_rod3d(4)
    t3 = ac.make_tendon3d(R, (0.01, 0.0))
    with pytest.raises(ValueError, match=r"\brod\b.*3-D rod"):
        ac.make_tendon3d(p, (0.01, 0.0))
    with pytest.raises(ValueError, match=r"\brod\b.*planar rod"):
        ac.make_tendon(R, 0.01)
    with pytest.raises(ValueError, match=r"\brod\b"):
        ac.static(R, [ac.make_tendon(p, 0.01)], [1.0])
    with pytest.raises(ValueError, match=r"\btendon\b"):
        ac.tendon3d_length(R, ac.make_tendon(p, 0.01), r3.straight(R))
    with pytest.raises(ValueError, match=r"\btendon\b"):
        ac.tendon_length(p, t3, rd.straight(p))
    with pytest.raises(ValueError, match=r"\bstate\b"):
        ac.tendon3d_length(R, t3, rd.straight(p))               # a planar q
    with pytest.raises(ValueError, match=r"\btendons\b"):
        ac.static3d(R, [ac.make_tendon(p, 0.01)], [1.0])
    with pytest.raises(ValueError, match=r"\btendon\b"):
        ac.tendon3d_gradient(r3.make_rod3d(5), t3, r3.straight(r3.make_rod3d(5)))


@pytest.mark.parametrize("tensions", [[-1.0], [np.nan], [1.0, 2.0], "1", [True]])
def test_static3d_bad_tensions(tensions):
    R = r3.make_rod3d(4)
    with pytest.raises(ValueError, match=r"\btensions\b"):
        ac.static3d(R, [ac.make_tendon3d(R, (0.01, 0.0))], tensions)


def test_coincident_eyelets_are_a_value_error():
    R = r3.make_rod3d(2, r_over_L=0.2)
    t = ac.make_tendon3d(R, (0.0, 0.0), eyelets=[0.25, 0.75])
    s = r3.straight(R)
    x = s.x.copy()
    x[0] = [0.0, 0.0, 0.0]                                      # node 1 at the clamp
    x[1] = [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"\bstate\b"):
        ac.tendon3d_length(R, t, r3.State(x, s.Q))


@pytest.mark.parametrize("kw, name", [(dict(extra=3.0), "extra"), (dict(extra_scale=-1.0), "extra_scale"),
                                      (dict(extra_scale=np.nan), "extra_scale"),
                                      (dict(record="yes"), "record")])
def test_rod3d_static_hook_bad_input(kw, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        r3.static(r3.make_rod3d(4), **kw)


# ------------------------------------------------------------ interior anchors (issue 36)
def test_interior_anchor_converges_at_second_order_off_the_plane():
    """A straight tendon at a diagonal offset (d2 = d3) anchored at L/2: the rotation past
    the anchor against tau d (L/2)/EI.  The anchor's frame is the geodesic midpoint of
    R_{k-1} and R_k (its joint carries half the moment); R_{k-1} was first order."""
    d, tau = 0.008, 20.0
    Ns = np.array([10, 20, 40, 80])
    err = []
    for N in Ns:
        R = r3.make_rod3d(N, r_over_L=0.01)
        t = ac.make_tendon3d(R, (d / np.sqrt(2), d / np.sqrt(2)), anchor=N // 2)
        s = ac.static3d(R, [t], [tau], steps=4)
        psi = r3.quat_log(s.Q)[-1]
        assert abs(psi[1] + psi[2]) <= 1e-12 and abs(psi[0]) <= 1e-12   # about (0, -1, 1)
        err.append(abs(np.linalg.norm(psi) / (tau * d * R.L / 2 / R.EI) - 1))
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert order > 1.8 and err[-1] < 1e-3              # measured 1.93; 4.2 % ... 0.076 %


def test_static3d_refuses_an_equilibrium_the_chords_have_buckled():
    """Three straight tendons at 120 deg with equal tensions keep the rod straight; the
    chords soften its joints, and on make_rod3d(10) the straight state is unstable past
    sum tau ~ 313 (4 EI/ell^2 = 400 less the shear's share): refused, not returned; on
    20 elements the same tensions are stable."""
    R = r3.make_rod3d(10)
    with pytest.raises(ac.ActuationSolveError, match=r"lowest eigenvalue -[0-9.]+.*4 EI/ell\^2 = 400"
                       r".*sum tau = 405.*more elements") as err:
        ac.static3d(R, three(R), [135.0] * 3)
    assert err.value.reason == "unstable equilibrium" and isinstance(err.value, SolveError)
    with pytest.raises(ac.ActuationSolveError, match=r"load step 8/10"):
        ac.static3d_path(R, three(R), [135.0] * 3)
    R20 = r3.make_rod3d(20)
    s = ac.static3d(R20, three(R20), [135.0] * 3)
    assert np.abs(s.x[:, 1:]).max() <= 1e-14


def test_a_stalled_newton_suggests_more_steps_or_iterations_in_3d():
    R = r3.make_rod3d(40, r_over_L=0.002)
    with pytest.raises(ac.ActuationSolveError, match=r"iteration limit.*raise steps.*maxiter"):
        ac.static3d(R, [ac.make_tendon3d(R, (0.0015, 0.0))], [2400.0])


def test_a_tendon_made_for_another_rod_of_the_same_N_is_refused():
    R = r3.make_rod3d(6)
    for other in (r3.make_rod3d(6, L=2.0), r3.make_rod3d(6, r_over_L=0.02)):
        t = ac.make_tendon3d(other, (0.01, 0.0), turn_rate=1.0)
        with pytest.raises(ValueError, match=r"\btendon\b.*L = .*radius"):
            ac.tendon3d_length(R, t, r3.straight(R))
        with pytest.raises(ValueError, match=r"\btendons\b"):
            ac.static3d(R, [t], [1.0])


@pytest.mark.parametrize("omega", [1e6, -40.0, 16.0])
def test_a_helix_that_turns_more_than_a_quarter_turn_between_eyelets_is_refused(omega):
    R = r3.make_rod3d(10)                 # eyelet gaps ell = 0.1: at most |omega| = 5 pi
    with pytest.raises(ValueError, match=r"\bturn_rate\b.*pi/2 between consecutive eyelets"):
        ac.make_tendon3d(R, (0.01, 0.0), turn_rate=omega)
    if abs(omega) < 100:                  # eyelets 1.5 rad apart: accepted
        gap = 1.5 / abs(omega)
        t = ac.make_tendon3d(R, (0.01, 0.0), turn_rate=omega,
                             eyelets=gap * np.arange(1, int(np.ceil(1.0 / gap))))
        assert np.abs(omega) * np.diff(t.s).max() <= np.pi / 2


def test_a_quarter_turn_per_eyelet_gap_is_accepted():
    R = r3.make_rod3d(10)
    t = ac.make_tendon3d(R, (0.01, 0.0), turn_rate=15.0)       # 1.5 rad per gap of 0.1
    assert t.turn_rate == 15.0


def test_equal_tensions_on_three_helices_twist_the_rod_without_bending_it():
    """Three tendons at 120 deg on helices of the same rate omega, equal tensions: the
    lateral forces cancel (no bending, to round-off) but each tendon's pull has the
    axial moment tau d (d k) / |p'| about the centreline, k = u1 + omega the turn rate
    in space, |p'| = sqrt(v1^2 + k^2 d^2): a uniform twist rate u1 = -3 tau d^2 k /
    (GJ |p'|) (solved with v1 = 1 - 3 tau v1 / (|p'| EA)).  The discrete twist to the last
    centre ((N - 1/2) ell) converges to it at second order; the inextensible, twist-free
    approximation -3 tau d^2 omega / (GJ sqrt(1 + d^2 omega^2)) is 0.8 % off here (the
    u1 in k)."""
    d, om, tau = 0.03, 2 * np.pi, 2.0
    Ns = np.array([20, 40, 80])
    err = []
    for N in Ns:
        R = r3.make_rod3d(N)
        ts = [ac.make_tendon3d(R, (d * np.cos(a), d * np.sin(a)), turn_rate=om)
              for a in np.radians([0, 120, 240])]
        s = ac.static3d(R, ts, [tau] * 3, steps=1)
        assert np.abs(s.x[:, 1:]).max() <= 1e-14                 # no bending
        u1, v1 = 0.0, 1.0
        for _ in range(50):
            k = u1 + om
            g = np.sqrt(v1**2 + (k * d) ** 2)
            u1, v1 = -3 * tau * d * d * k / (g * R.GJ), 1 - 3 * tau * v1 / (g * R.EA)
        exact = u1 * (R.L - R.ell / 2)
        err.append(abs(twist(s) / exact - 1))
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert order > 1.8 and err[-1] < 2e-3                        # 1.6 %, 0.40 %, 0.10 %
    simple = -3 * tau * d * d * om / (R.GJ * np.sqrt(1 + (d * om) ** 2)) * (R.L - R.ell / 2)
    assert 0.005 < abs(twist(s) / simple - 1) < 0.012


@pytest.mark.parametrize("eyelets", [[0.05 - 1e-13, 0.05], [1e-300, 0.5], [0.5, 0.5 + 1e-15],
                                     [0.5, 1.0 - 1e-16]])
def test_coincident_eyelets_are_refused_naming_eyelets(eyelets):
    # eyelets within 5e-10 ell of one point are snapped onto it: refused when made,
    # not later as a state "making two eyelets coincide"
    with pytest.raises(ValueError, match="^eyelets must be more than 1e-09 ell"):
        ac.make_tendon3d(r3.make_rod3d(10), (0.02, 0.0), eyelets=eyelets)
    with pytest.raises(ValueError, match="^eyelets must be more than 1e-09 ell"):
        ac.make_tendon(rd.make_rod(10), 0.02, eyelets=eyelets)
