"""Tendons as they are (issue 27): capstan friction at the eyelets with stick-slip,
displacement-controlled cables with slack and a series spring.  Properties, not snapshots."""
import warnings

import numpy as np
import pytest

from lib import actuation as ac
from lib import rod as rd

MU_EXAMPLE, WRAP_EXAMPLE_DEG = 0.2, 235.0


def _arc(N, phi):
    """A rod bent by a pure tip moment EI phi / L into a circular arc of angle phi."""
    r = rd.make_rod(N)
    return r, rd.static(r, load=(0.0, 0.0, r.EI * phi / r.L), steps=8)


def test_the_issue_example_235_degrees_at_mu_02_leaves_44_percent():
    ratio = float(np.exp(-MU_EXAMPLE * np.radians(WRAP_EXAMPLE_DEG)))     # "about 44 %"
    # the library's capstan tensions on a 235-degree arc reach it as N grows
    r, q = _arc(160, np.radians(WRAP_EXAMPLE_DEG))
    tau = ac.capstan_tensions(r, ac.make_tendon(r, 0.02), q, 1.0, MU_EXAMPLE)
    assert abs(tau[-1] - ratio) < 0.01 * ratio


def test_capstan_law_against_the_closed_form_on_a_circular_arc_first_order():
    """distal/motor = exp(-mu * wrap) exactly (the law on the discrete path) and the
    discrete wrap converges to the arc angle at first order, so the distal tension
    converges to tau_m exp(-mu Phi) at first order in 1/N."""
    mu, phi = 0.3, 3.0
    Ns, errs = [10, 20, 40, 80], []
    for N in Ns:
        r, q = _arc(N, phi)
        assert abs(q[-3] - phi * (1 - 0.5 / N)) < 1e-9      # the last element centre of the arc
        t = ac.make_tendon(r, 0.02)
        for direction, sgn in (("loading", -1), ("unloading", 1)):
            tau = ac.capstan_tensions(r, t, q, 2.0, mu, direction)
            theta = np.concatenate([[0.0], np.cumsum(ac.wrap_angles(r, t, q))])
            assert np.allclose(tau, 2.0 * np.exp(sgn * mu * theta), rtol=1e-14, atol=0)
        # on an arc every interior eyelet turns the tendon by the same angle
        a = ac.wrap_angles(r, t, q)
        assert np.ptp(a[1:-1]) < 1e-9 * a.mean()
        # the exact discrete wrap on the arc (element angles Phi (e + 1/2)/N, chords l):
        # delta at the interior eyelets, delta/2 at the last, delta - beta0 at the first,
        # where the chord from the clamp eyelet (0, d) meets the first element's eyelet
        delta, h, ell, d = phi / N, phi / (2 * N), r.L / N, 0.02
        beta0 = np.arctan2(ell / 2 * np.sin(h) + d * (np.cos(h) - 1), ell / 2 * np.cos(h) - d * np.sin(h))
        exact = np.r_[delta - beta0, np.full(N - 2, delta), delta / 2]
        assert np.abs(a - exact).max() < 1e-8
        tau = ac.capstan_tensions(r, t, q, 2.0, mu)
        errs.append(abs(tau[-1] / (2.0 * np.exp(-mu * phi)) - 1.0))
    slope = np.polyfit(np.log(Ns), np.log(errs), 1)[0]
    assert -1.1 < slope < -0.9, (slope, errs)
    assert errs[-1] < 0.015 and errs[-1] * Ns[-1] < 1.0      # ~ mu Phi / N


def test_segment_weighted_gradient_and_hessian_match_finite_differences():
    r = rd.make_rod(7)
    rng = np.random.default_rng(3)
    for t in (ac.make_tendon(r, 0.03, offset_end=-0.01, anchor=6),
              ac.make_tendon(r, 0.03, anchor=6, eyelets=[0.05, 0.3, 0.45, 0.6, 0.8])):
        seg = rng.uniform(0.5, 2.0, t.n_eyelets - 1)
        q = rd.straight(r) + 0.3 * rng.standard_normal(r.ndof) * np.tile([1, r.ell, r.ell], r.N)
        E = lambda q: float(seg @ ac._segments(r, t, q)[4])
        g = ac._tendon_gradient(r, t, q, seg)
        H = ac._tendon_hessian(r, t, q, seg=seg).toarray()
        h = 1e-6
        for _ in range(4):
            v = rng.standard_normal(r.ndof)
            fd = (E(q + h * v) - E(q - h * v)) / (2 * h)
            assert abs(fd - g @ v) < 1e-6 * max(1.0, abs(g @ v))
            fdg = (ac._tendon_gradient(r, t, q + h * v, seg)
                   - ac._tendon_gradient(r, t, q - h * v, seg)) / (2 * h)
            assert np.abs(fdg - H @ v).max() < 1e-6 * max(1.0, np.abs(H @ v).max())
        # uniform segment tensions are the frictionless tendon's tau * dl/dq
        one = np.full(t.n_eyelets - 1, 2.5)
        assert np.abs(ac._tendon_gradient(r, t, q, one)
                      - 2.5 * ac.tendon_gradient(r, t, q)).max() < 1e-14


@pytest.mark.parametrize("direction", ["loading", "unloading"])
def test_mu_zero_recovers_the_frictionless_tendon_to_round_off(direction):
    r = rd.make_rod(12)
    t = ac.make_tendon(r, 0.04)
    q, seg = ac.friction_static(r, t, 12.0, 0.0, direction, steps=3, load=(0.0, -0.5, 0.0))
    qs = ac.static(r, [t], [12.0], steps=3, load=(0.0, -0.5, 0.0))
    assert np.abs(q - qs).max() < 1e-12
    assert np.all(seg == 12.0)
    # the sweep reaches each state from the previous one: the same equilibria to the
    # Newton tolerance (1e-10 of the force scale)
    Q, T = ac.friction_sweep(r, t, [6.0, 12.0, 6.0], 0.0)
    for qi, ti in zip(Q, [6.0, 12.0, 6.0]):
        assert np.abs(qi - ac.static(r, [t], [ti], steps=2)).max() < 1e-10


def test_friction_static_is_an_equilibrium_of_its_own_capstan_tensions():
    r = rd.make_rod(12)
    t = ac.make_tendon(r, 0.04)
    for direction in ("loading", "unloading"):
        q, seg = ac.friction_static(r, t, 15.0, 0.3, direction, steps=3)
        assert np.allclose(seg, ac.capstan_tensions(r, t, q, 15.0, 0.3, direction),
                           rtol=1e-11, atol=0)
        res = rd.gradient(r, q) + ac._tendon_gradient(r, t, q, seg)
        assert np.abs(res).max() < 1e-9 * max(r.EI / r.L, 15.0)


def _loop(mu, N=12, top=20.0, n=9):
    r = rd.make_rod(N)
    t = ac.make_tendon(r, 0.04)
    up = np.linspace(0.0, top, n)
    sweep = np.concatenate([up, up[-2::-1]])
    Q, T = ac.friction_sweep(r, t, sweep, mu)
    return r, t, up, sweep, Q, T


def test_loop_brackets_the_frictionless_curve_and_its_area_grows_with_mu():
    """Loading lies below the frictionless curve; unloading lies above the loading branch
    everywhere and above the frictionless curve wherever the whole tendon slides back
    (just after the reversal the distal segments still hold loading tensions, so the
    unloading branch starts from the loading one: that is checked, not excluded).
    The area grows with mu here (a moderate stroke, tau d L / EI <= 0.8); at large
    stroke and high friction it does not (the loading branch then stops far short of
    the frictionless top: 1.3 pi, N = 20: areas 49.7, 49.8, 41.3 at mu = 0.2, 0.4, 0.8)."""
    areas = []
    for mu in (0.1, 0.2, 0.4):
        r, t, up, sweep, Q, T = _loop(mu)
        n = up.size
        load_tip, unload_tip = Q[:n, -3], Q[n - 1:, -3][::-1]
        free = np.array([ac.static(r, [t], [ti], steps=2)[-3] for ti in up])
        # strictly between at every interior tension, equal at zero
        assert np.all(load_tip[1:-1] < free[1:-1] - 1e-6)
        assert np.all(unload_tip[1:-1] > load_tip[1:-1] + 1e-6)
        slides = np.array([np.allclose(T[n - 1 + i], ac.capstan_tensions(
            r, t, Q[n - 1 + i], sweep[n - 1 + i], mu, "unloading"), rtol=1e-10, atol=1e-12)
            for i in range(n)])[::-1]                      # in the order of ``up``
        assert slides[: n // 2].all() and not slides[-1]   # low tensions: all slide back
        inner = slides.copy()
        inner[0] = False
        assert np.all(unload_tip[inner] > free[inner] + 1e-6)
        assert load_tip[0] == 0.0 and abs(unload_tip[0]) < 1e-12     # tau_m = 0: all slack
        # the capstan inequality holds at every step, at the state's own wrap angles
        for q, tau in zip(Q, T):
            if tau[0] == 0.0:
                assert np.all(tau == 0.0)                  # no motor tension: all slack
                continue
            dl = np.abs(np.diff(np.log(tau)))
            assert np.all(dl <= mu * ac.wrap_angles(r, t, q) + 1e-12)
        areas.append(float(np.trapezoid(unload_tip - load_tip, up)))
    assert areas[0] > 0 and areas[0] < areas[1] < areas[2], areas


def test_at_the_reversal_the_distal_segments_stick():
    """The first unloading step: the motor-side segments slide back (upper edge of the
    band), a middle run keeps its tensions exactly (stick), and the distal ones stay on the
    lower edge (the wrap shrinks as the rod unbends, so the lower edge rises under them)."""
    mu = 0.3
    r, t, up, sweep, Q, T = _loop(mu)
    n = up.size
    before, after = T[n - 1], T[n]
    a = np.exp(mu * ac.wrap_angles(r, t, Q[n]))
    upper = np.isclose(after[1:], after[:-1] * a, rtol=1e-13, atol=0)
    lower = np.isclose(after[1:], after[:-1] / a, rtol=1e-13, atol=0)
    stuck = (after[1:] == before[1:]) & ~upper & ~lower
    assert upper[0] and lower[-1] and stuck.any()
    first_stuck = np.argmax(stuck)
    assert upper[:first_stuck].all() and not upper[first_stuck:].any()


@pytest.mark.parametrize("call", [
    lambda r, t: ac.friction_static(r, t, 1.0, -0.1),
    lambda r, t: ac.friction_sweep(r, t, [1.0], -0.1),
    lambda r, t: ac.capstan_tensions(r, t, rd.straight(r), 1.0, -1e-3),
])
def test_negative_mu_is_rejected_by_name(call):
    r = rd.make_rod(4)
    with pytest.raises(ValueError, match=r"\bmu\b"):
        call(r, ac.make_tendon(r, 0.02))


def test_bad_input_names_the_argument():
    r = rd.make_rod(4)
    t = ac.make_tendon(r, 0.02)
    with pytest.raises(ValueError, match=r"\btendon\b"):
        ac.friction_static(r, ac.make_tendon(r, 0.02, sheath=True), 1.0, 0.1)
    with pytest.raises(ValueError, match=r"\bmotor_tension\b"):
        ac.friction_static(r, t, np.nan, 0.1)
    with pytest.raises(ValueError, match=r"\bmotor_tensions\b"):
        ac.friction_sweep(r, t, [1.0, np.nan], 0.1)
    with pytest.raises(ValueError, match=r"\bdirection\b"):
        ac.capstan_tensions(r, t, rd.straight(r), 1.0, 0.1, "both")
    with pytest.raises(ValueError, match=r"\beyelets\b"):
        ac.make_tendon(r, 0.02, eyelets=[0.5, 1.5])          # outside the rod


# ------------------------------------------------------------ displacement-controlled cable
def _stroke_of(r, t, tau, load=None):
    """Stroke of an inextensible cable at the tension-controlled equilibrium (frictionless)."""
    q = ac.static(r, [t], [tau], steps=4, load=load)
    return ac.tendon_length(r, t, rd.straight(r)) - ac.tendon_length(r, t, q), q


def test_stroke_system_jacobian_matches_finite_differences():
    r = rd.make_rod(7)
    rng = np.random.default_rng(5)
    for t, comp in ((ac.make_tendon(r, 0.03, anchor=6), 0.0),
                    (ac.make_tendon(r, 0.03, sheath=True), 0.02)):
        fun = ac._stroke_system(r, t, 0.97, comp, np.array([0.1, 0.2, 0.0]), 0.3)
        x = np.concatenate([rd.straight(r) + 0.05 * rng.standard_normal(r.ndof), [3.0]])
        R, J = fun(x)
        J = J().toarray()
        h = 1e-6
        for _ in range(4):
            v = rng.standard_normal(x.size)
            fd = (fun(x + h * v)[0] - fun(x - h * v)[0]) / (2 * h)
            assert np.abs(fd - J @ v).max() < 1e-6 * np.abs(J @ v).max()
        assert np.abs(J - J.T).max() == 0.0                 # symmetric saddle tangent


LOAD_UP = np.array([0.0, 0.3, 0.0])       # bends the rod towards the tendon: slack at first


def test_slack_switch_at_the_stroke_where_the_frictionless_tension_reaches_zero():
    r = rd.make_rod(12)
    t = ac.make_tendon(r, 0.04)
    res = ac.cable_stroke_static(r, t, 0.0, load=LOAD_UP)
    assert res.slack and res.tension == 0.0 and res.switch_stroke > 1e-3
    # tension control at small tensions: stroke(tau) is smooth; extrapolated to tau = 0
    # (quadratically from three points) it is the switch stroke
    taus = np.array([1e-3, 2e-3, 3e-3])
    s = np.array([_stroke_of(r, t, ti, LOAD_UP)[0] for ti in taus])
    s0 = np.polyval(np.polyfit(taus, s, 2), 0.0)
    assert abs(s0 - res.switch_stroke) < 1e-9
    eps = 1e-7
    below = ac.cable_stroke_static(r, t, res.switch_stroke - eps, load=LOAD_UP)
    above = ac.cable_stroke_static(r, t, res.switch_stroke + eps, load=LOAD_UP)
    assert below.slack and below.tension == 0.0
    assert not above.slack and above.tension > 0
    slope = (s[1] - s[0]) / (taus[1] - taus[0])             # d stroke / d tau at 0
    assert abs(above.tension - eps / slope) < 1e-3 * eps / slope


def test_taut_cable_is_the_tension_controlled_equilibrium_at_its_stroke():
    r = rd.make_rod(12)
    t = ac.make_tendon(r, 0.04)
    for tau in (0.5, 5.0, 20.0):
        s, q = _stroke_of(r, t, tau, LOAD_UP)
        res = ac.cable_stroke_static(r, t, s, load=LOAD_UP)
        assert not res.slack
        assert abs(res.tension - tau) < 1e-8 * tau
        assert np.abs(res.q - q).max() < 1e-9


def test_series_spring_shifts_the_stroke_by_tau_over_k_exactly():
    r = rd.make_rod(12)
    t = ac.make_tendon(r, 0.04)
    for k in (20.0, 200.0):
        for tau in (2.0, 10.0):
            s, q = _stroke_of(r, t, tau)
            res = ac.cable_stroke_static(r, t, s + tau / k, stiffness=k)
            assert abs(res.tension - tau) < 1e-8 * tau
            assert np.abs(res.q - q).max() < 1e-9
    # the same stroke gives less tension with the spring (the cable takes up some of it)
    rigid = ac.cable_stroke_static(r, t, 0.02)
    soft = ac.cable_stroke_static(r, t, 0.02, stiffness=20.0)
    assert 0 < soft.tension < rigid.tension


def test_cable_stroke_bad_input_names_the_argument():
    r = rd.make_rod(4)
    t = ac.make_tendon(r, 0.02)
    with pytest.raises(ValueError, match=r"\bstiffness\b"):
        ac.cable_stroke_static(r, t, 0.01, stiffness=-1.0)
    with pytest.raises(ValueError, match=r"\bstroke\b"):
        ac.cable_stroke_static(r, t, np.nan)


def test_explore_cable_arm_is_slack_below_its_switch_and_stiffer_with_a_stiffer_cable():
    from lib import explore
    _, _, tip_slack, tension, switch = explore.cable_arm_shape(-0.03, N=8)
    assert tension == 0.0 and switch > -0.03
    q_free = rd.static(rd.make_rod(8), grav=3.0)
    assert abs(tip_slack[2] - rd.tip(rd.make_rod(8), q_free)[2]) < 1e-9
    taus = [explore.cable_arm_shape(0.02, log10_k=lk, N=8)[3] for lk in (2.0, 3.0, 6.0)]
    assert 0 < taus[0] < taus[1] < taus[2]
    with pytest.raises(ValueError, match="stroke"):
        explore.cable_arm_shape(float("nan"))
    with pytest.raises(ValueError, match="gravity"):
        explore.cable_arm_shape(0.0, gravity=-1.0)


def test_friction_sweep_splits_a_failing_step_and_lands_on_the_slipping_equilibrium():
    """At mu = 1.2 one jump from slack to 1.3 pi EI/(dL) defeats the frozen-tension Newton;
    halving the step (not recorded) gets there, and loading from slack slips everywhere,
    so the state is friction_static's."""
    r = rd.make_rod(40)
    t = ac.make_tendon(r, 0.03)
    top = 1.3 * np.pi / 0.03
    with pytest.raises(ac.ActuationSolveError, match="step 2/3"):     # the second tension
        ac.friction_sweep(r, t, [0.0, top, 0.0], 1.2, max_cuts=0)
    Q, T = ac.friction_sweep(r, t, [0.0, top, 0.0], 1.2)
    q_slip, seg = ac.friction_static(r, t, top, 1.2, steps=10)
    assert np.abs(Q[1] - q_slip).max() < 1e-8 and np.abs(T[1] - seg).max() < 1e-8 * top
    assert np.abs(Q[2] - rd.straight(r)).max() < 1e-12          # released to zero: straight


def test_an_empty_sweep_and_a_stroke_of_the_whole_cable_are_named():
    r = rd.make_rod(5)
    t = ac.make_tendon(r, 0.02)
    with pytest.raises(ValueError, match="motor_tensions"):
        ac.friction_sweep(r, t, [], 0.1)
    with pytest.raises(ValueError, match="stroke"):
        ac.cable_stroke_static(r, t, 2.0)


def test_friction_solvers_refuse_an_unstable_equilibrium_and_name_the_step():
    """A centred eyelet tendon (no wrap, no friction loss) past the chords' buckling load
    4 EI/ell^2 = 64 of make_rod(4): refused as static refuses it, at the step that crosses."""
    rod = rd.make_rod(4)
    t = ac.make_tendon(rod, 0.0)
    with pytest.raises(ac.ActuationSolveError, match=r"step (7|8)/10: unstable equilibrium") as e:
        ac.friction_static(rod, t, 80.0, 0.1)
    assert e.value.reason == "unstable equilibrium"
    with pytest.raises(ac.ActuationSolveError, match=r"step 2/2: unstable equilibrium"):
        ac.friction_sweep(rod, t, [40.0, 80.0], 0.1)
    q, tau = ac.friction_static(rod, t, 50.0, 0.1)          # below the limit: stable
    assert np.allclose(tau, 50.0, rtol=0, atol=1e-12)


def test_capstan_tensions_refuse_an_overflowing_mu_and_stay_finite_below_it():
    r = rd.make_rod(10)
    t = ac.make_tendon(r, 0.02)
    q = ac.static(r, [t], [1.0])
    theta = float(np.sum(ac.wrap_angles(r, t, q)))
    assert theta > 0
    with pytest.raises(ValueError, match="^mu must keep mu theta_total <= 700"):
        ac.capstan_tensions(r, t, q, 2.0, 1e5, "unloading")
    mu = 650.0 / theta                                            # legal, extreme
    up = ac.capstan_tensions(r, t, q, 2.0, mu, "unloading")
    assert np.all(np.isfinite(up)) and up[-1] == pytest.approx(2.0 * np.exp(650.0), rel=1e-12)
    down = ac.capstan_tensions(r, t, q, 2.0, 1e5)                 # loading: decays, no overflow
    assert np.all(np.isfinite(down)) and down[0] == 2.0 and down[-1] == 0.0


def test_friction_solvers_refuse_a_mu_whose_capstan_factor_overflows():
    # paying out with mu = 1e5 asks for tensions e^(mu theta) beyond any float: the old
    # code failed inside Newton with "scale must be finite"
    r = rd.make_rod(10)
    t = ac.make_tendon(r, 0.02)
    with pytest.raises(ValueError, match=r"^mu must keep the tensions tau_m e\^\(mu theta\)"):
        ac.friction_static(r, t, 5.0, 1e5, "unloading")


def test_a_slack_segment_under_an_overflowing_capstan_factor_stays_slack():
    # loading with mu = 1e300: e^(mu alpha) = inf past the first bend, and a slack segment's
    # upper bound was 0 * inf = NaN (a RuntimeWarning; min(old, NaN) kept old only by the
    # argument order).  Stuck from slack, no tension passes the first eyelet.
    r = rd.make_rod(6)
    t = ac.make_tendon(r, 0.04)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q, tau = ac.friction_static(r, t, 1.0, 1e300)
    assert np.all(np.isfinite(q)) and tau[0] == 1.0 and np.all(tau[1:] == 0.0)
