"""Tests of the work-precision helpers behind the energy chapter's bill (issue 16).

lib.studies.work_precision / step_for_tolerance: each test is named for the
property it proves (second order of every implicit scheme by a log-log fit on an
oscillator with a known solution, failures recorded rather than raised, the
located step is the largest one below which every rung meets the tolerance, the
power-law extrapolation hits the tolerance exactly, bad input named).
"""
import numpy as np
import pytest

from lib import integrate, studies

W = 3.0                                 # u'' + W^2 u = 0, u(0) = 1, u'(0) = 0
Q0, V0 = np.ones(1), np.zeros(1)
MODEL = dict(accel=lambda q: -W * W * q, force=lambda q: (W * W * q, np.array([[W * W]])),
             mass=np.ones(1), energy=lambda q: 0.5 * W * W * float(q @ q),
             gradient=lambda q: W * W * q,
             params=integrate.generalized_alpha_parameters(0.8))
EXACT = lambda t: np.cos(W * t)[:, None]
LADDER = 0.02 / 2.0 ** np.arange(4)


@pytest.mark.parametrize("scheme", ["verlet", "newmark", "generalized-alpha",
                                    "discrete-gradient"])
def test_every_scheme_is_second_order_on_the_oscillator_by_loglog_fit(scheme):
    pts = studies.work_precision(scheme, Q0, V0, LADDER, 2.0, lambda q: q, EXACT, **MODEL)
    assert [p.steps for p in pts] == [round(2.0 / d) for d in LADDER]
    assert all(p.ok and p.seconds >= 0 for p in pts)
    slope = np.polyfit(np.log(LADDER), np.log([p.error for p in pts]), 1)[0]
    assert abs(slope - 2.0) < 0.05


def test_error_is_the_largest_euclidean_distance_to_the_reference():
    # the reference is off by a constant vector (3, 4): the error is exactly 5 on top
    # of the (tiny, at this step) scheme error, whose sign varies
    off = np.array([3.0, 4.0])
    pts = studies.work_precision("newmark", Q0, V0, [1e-3], 0.01,
                                   lambda q: np.r_[q, q] * 0.0,
                                   lambda t: np.tile(off, (t.size, 1)), **MODEL)
    assert pts[0].error == pytest.approx(5.0, abs=1e-12)


def test_newton_failure_is_recorded_not_raised():
    # a hardening spring solved with a one-iteration budget cannot converge
    force = lambda q: (q + 10 * q ** 3, np.diag(1 + 30 * q ** 2))
    pts = studies.work_precision("newmark", Q0, V0, [0.5, 0.01], 1.0, lambda q: q,
                                   EXACT, force=force, mass=np.ones(1), maxiter=1)
    assert all(not p.ok for p in pts)
    assert all(isinstance(p.failure, integrate.NewtonFailure) for p in pts)
    assert all(np.isnan(p.error) for p in pts)
    assert pts[0].failure.reason == "maxiter" and pts[0].failure.step == 1


def test_stop_below_ends_the_ladder_at_the_first_accurate_rung():
    dts = 0.1 / 2.0 ** np.arange(8)
    pts = studies.work_precision("verlet", Q0, V0, dts, 1.0, lambda q: q, EXACT,
                                   stop_below=1e-3, **MODEL)
    assert pts[-1].error <= 1e-3 and all(p.error > 1e-3 for p in pts[:-1])
    assert len(pts) < len(dts)


def pts_from(errors, dts=(0.4, 0.2, 0.1, 0.05), per_step=2.0):
    return [studies.WorkPoint(d, round(1 / d), per_step * round(1 / d), e,
                                None if np.isfinite(e) else integrate.NewtonFailure("x"))
            for d, e in zip(dts, errors)]


def test_located_step_is_largest_below_which_every_rung_meets_the_tolerance():
    # rung 0.4 meets 1e-2 by accident above the failing 0.2: it must not count
    pts = pts_from([5e-3, 2e-2, 8e-3, 2e-3])
    s = studies.step_for_tolerance(pts, 1e-2)
    assert (s.dt, s.measured) == (0.1, True)
    assert s.cost == pytest.approx(2.0 / 0.1)            # seconds per simulated second
    # a failed rung counts as a miss
    s = studies.step_for_tolerance(pts_from([1e-4, np.nan, 1e-4, 1e-5]), 1e-3)
    assert s.dt == 0.1


def test_extrapolated_step_meets_the_tolerance_of_the_power_law_exactly():
    C, p = 7.0, 1.3
    dts = (0.4, 0.2, 0.1, 0.05)
    pts = pts_from([C * d ** p for d in dts], dts)
    s = studies.step_for_tolerance(pts, 1e-4)
    assert not s.measured and s.order == pytest.approx(p, rel=1e-12)
    assert C * s.dt ** p == pytest.approx(1e-4, rel=1e-12)
    assert s.cost == pytest.approx(2.0 / s.dt, rel=1e-12)


def test_bad_input_raises_valueerror_naming_the_argument():
    run = lambda **kw: studies.work_precision(**{**dict(
        scheme="newmark", q0=Q0, v0=V0, dts=[0.1], horizon=1.0, fn=lambda q: q,
        reference=EXACT, **MODEL), **kw})
    with pytest.raises(ValueError, match="scheme"):
        run(scheme="euler")
    with pytest.raises(ValueError, match="dts"):
        run(dts=[0.0])
    with pytest.raises(ValueError, match="dts"):
        run(dts=[2.0])
    with pytest.raises(ValueError, match="horizon"):
        run(horizon=-1.0)
    with pytest.raises(ValueError, match="params"):
        run(scheme="generalized-alpha", params=None)
    with pytest.raises(ValueError, match="tol"):
        studies.step_for_tolerance(pts_from([1e-3] * 4), 0.0)
    with pytest.raises(ValueError, match="extrapolate"):
        studies.step_for_tolerance(pts_from([1e-3, np.nan, np.nan, np.nan]), 1e-6)


def test_a_ladder_past_the_step_cap_is_refused_before_it_starts():
    with pytest.raises(ValueError, match=r"^dts: the finest step 0\.001 takes 1000 steps .*max_steps = 100"):
        studies.work_precision("newmark", Q0, V0, [0.1, 1e-3], 1.0, lambda q: q, EXACT,
                               max_steps=100, **{k: MODEL[k] for k in ("force", "mass")})


def test_extreme_but_legal_tolerance_extrapolates_along_the_order():
    pts = [studies.WorkPoint(d, round(1 / d), 0.01 / d, 3 * d ** 2) for d in (0.1, 0.05)]
    s = studies.step_for_tolerance(pts, 3e-200)             # far below every rung
    assert not s.measured and s.dt == pytest.approx(1e-100, rel=1e-9) and s.order == pytest.approx(2.0)


def test_samples_past_the_horizon_are_not_compared_with_an_extrapolated_reference():
    # 0.35 does not divide 1.0: the run ends at 3 x 0.35 = 1.05; a reference only
    # defined up to the horizon (NaN past it) must not be sampled at 1.05
    ref = lambda t: np.where(t <= 1.0, np.cos(W * t), np.nan)[:, None]
    pts = studies.work_precision("newmark", Q0, V0, [0.35, 0.25], 1.0, lambda q: q, ref, **MODEL)
    assert all(np.isfinite(p.error) for p in pts)
    assert [p.steps for p in pts] == [3, 4]


ZETA = 0.1                               # u'' + 2 ZETA W u' + W^2 u = 0, u(0) = 1, u'(0) = 0
WD = W * np.sqrt(1 - ZETA ** 2)
DAMPED = lambda t: (np.exp(-ZETA * W * t)
                   * (np.cos(WD * t) + ZETA * W / WD * np.sin(WD * t)))[:, None]
DAMPING = lambda q, v: (2 * ZETA * W * v, np.array([[2 * ZETA * W]]))


@pytest.mark.parametrize("scheme, order", [("discrete-gradient", 2.0), ("verlet", 1.0)])
def test_damped_ladder_converges_at_the_order_of_the_scheme_by_loglog_fit(scheme, order):
    # the discrete gradient takes the damping at the midpoint (second order); the
    # leapfrog lags it half a step (first order)
    dts = 0.01 / 2.0 ** np.arange(4)
    pts = studies.work_precision(scheme, Q0, V0, dts, 2.0, lambda q: q, DAMPED, damping=DAMPING,
                                 **MODEL)
    slope = np.polyfit(np.log(dts), np.log([p.error for p in pts]), 1)[0]
    assert abs(slope - order) < 0.1


def test_damping_is_refused_by_the_schemes_that_do_not_take_it():
    for scheme in ("newmark", "generalized-alpha"):
        with pytest.raises(ValueError, match="damping"):
            studies.work_precision(scheme, Q0, V0, [0.1], 1.0, lambda q: q, DAMPED,
                                   damping=DAMPING, **MODEL)
    with pytest.raises(ValueError, match="mass"):
        studies.work_precision("verlet", Q0, V0, [0.1], 1.0, lambda q: q, DAMPED,
                               damping=DAMPING, accel=MODEL["accel"])


def _chain(t, y):
    """A nonlinear chain of four pendulum-like masses (y = (q, v)), a non-trivial test ODE."""
    q, v = y[:4], y[4:]
    d = np.diff(np.r_[0.0, q, 0.0])
    return np.r_[v, np.sin(d[1:]) - np.sin(d[:-1]) - 0.1 * q ** 3]


@pytest.mark.parametrize("components", [[3], [2, 3], [7, 0, 5]])
def test_dop853_reference_is_solve_ivps_dense_solution_bit_for_bit(components):
    from scipy.integrate import solve_ivp

    y0 = np.r_[0.3, -0.2, 0.5, 0.1, 0.0, 0.2, 0.0, -0.1]
    full = solve_ivp(_chain, (0.0, 7.0), y0, method="DOP853", rtol=1e-8, atol=1e-10,
                     dense_output=True)
    ref = studies.dop853_reference(_chain, (0.0, 7.0), y0, components, rtol=1e-8, atol=1e-10)
    t = np.r_[np.linspace(0.0, 7.0, 1001), full.t]             # step ends included
    assert ref.nfev == full.nfev and ref.nsteps == len(full.t) - 1
    assert np.array_equal(ref.sol(t), full.sol(t)[components])
    assert np.array_equal(ref.sol(2.5), full.sol(2.5)[components])


def test_dop853_reference_refuses_bad_input_and_reports_the_step_cap():
    y0 = np.r_[0.3, -0.2, 0.5, 0.1, 0.0, 0.2, 0.0, -0.1]
    for kw, name in ((dict(components=[8]), "components"), (dict(components=[0.5]), "components"),
                     (dict(t_span=(1.0, 1.0)), "t_span"), (dict(rtol=0.0), "rtol")):
        args = dict(fun=_chain, t_span=(0.0, 1.0), y0=y0, components=[0])
        args.update(kw)
        with pytest.raises(ValueError, match=name):
            studies.dop853_reference(**args)
    from lib.core.errors import SolveError

    with pytest.raises(SolveError, match="max_steps"):
        studies.dop853_reference(_chain, (0.0, 7.0), y0, [0], max_steps=3)
