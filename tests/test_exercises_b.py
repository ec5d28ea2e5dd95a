"""Group B's self-checks (fem, fem_incompressible, actuation, constraints, crosscheck)
reject the typical wrong answers of each exercise and name the slip where it has a
name (percent vs fraction, a factor 2, the wrong shape).

The generic properties (the book's own answer is accepted; sign, factor 2, powers of
ten and shape are named) are tested for every key in ``test_exercises.py``.
"""
import numpy as np
import pytest

from lib import beam, fem, rod
from lib import crosscheck as cc
from lib import incompressible as inc
from lib.exercises import check, keys, solution

B_CHAPTERS = ("fem", "fem_incompressible", "actuation", "constraints", "crosscheck")


def wrong(key, answer, hint=None):
    """``answer`` is refused, with ``hint`` when given."""
    verdict = check(key, answer)
    assert not verdict.correct, f"{key} accepted {answer!r}"
    if hint is not None:
        assert verdict.hint == hint, (key, verdict.message)
    return verdict


@pytest.mark.parametrize("chapter", B_CHAPTERS)
def test_every_group_b_chapter_registers_checks(chapter):
    assert len(keys(chapter)) >= 4


# -- fem ---------------------------------------------------------------------------------
def test_fem_locking_ratio_as_fraction_or_at_nu_03_is_refused():
    ratios = solution("fem-1")
    wrong("fem-1", ratios / 100, "percent")                     # fraction, not percent
    wrong("fem-1", [100 * fem.cantilever_tip_ratio(nx, ny, "T3", 0.3) for nx, ny in ((20, 2), (40, 4))])
    wrong("fem-1", ratios[:1], "shape")                         # only one mesh


def test_fem_cable_tension_is_stroke_over_compliance_not_times():
    c = solution("fem-2a")
    assert check("fem-2b", 1e-3 / c).correct
    wrong("fem-2b", 1e-3 * c)


def test_fem_steps_from_the_asymptotic_estimate_rounded_down_are_refused():
    n_est = 2 * np.pi / np.sqrt(12e-3)                          # (2 pi / n)^2 / 12 = 1e-3
    assert check("fem-3", np.ceil(n_est)).correct               # the estimate, rounded up
    wrong("fem-3", np.floor(n_est))


def test_fem_shear_coefficient_is_neither_five_sixths_nor_cowper():
    nu = 0.3
    cowper = 10 * (1 + nu / (1 - nu)) / (12 + 11 * nu / (1 - nu))
    wrong("fem-4", 5 / 6, "value")
    wrong("fem-4", cowper, "value")


def test_fem_critical_step_without_the_2_is_named_factor_2():
    dt = solution("fem-5")
    wrong("fem-5", dt / 2, "factor 2")                          # 1 / omega_max
    wrong("fem-5", 2 / dt, "value")                             # omega_max itself


# -- fem_incompressible -----------------------------------------------------------------
def test_incompressible_counts_shape_and_node_count_slips():
    counts = solution("fem_incompressible-2")
    wrong("fem_incompressible-2", counts[:3], "shape")          # pressures only
    slip = counts.copy()
    slip[2] = 81 * 9                                            # P2/P1 pressure on every T6 node
    wrong("fem_incompressible-2", slip)
    slip = counts.copy()
    slip[3] = 2 * 41 * 5                                        # clamped nodes not removed
    wrong("fem_incompressible-2", slip)


def test_incompressible_tip_ratios_swapped_are_refused():
    stable, split = solution("fem_incompressible-3")
    wrong("fem_incompressible-3", [split, stable])


def test_mooney_rivlin_in_pa_or_unconstrained_is_refused():
    wrong("fem_incompressible-4a", 1000 * solution("fem_incompressible-4a"), "magnitude")
    eco = inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45)
    lam = np.linspace(1.0, 4.0, 41)
    A = np.column_stack([2 * (lam - lam**-2), 2 * (1 - lam**-3)])
    free = np.linalg.lstsq(A, inc.uniaxial_stress(eco, lam), rcond=None)[0]
    assert free[1] < 0
    wrong("fem_incompressible-4b", free)                        # C01 < 0 is not a material


def test_mooney_rivlin_fit_tolerates_another_sampling_of_the_curve():
    eco = inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45)
    for key, top in (("fem_incompressible-4a", 2.0), ("fem_incompressible-4b", 4.0)):
        for n in (11, 1001):
            lam = np.linspace(1.0, top, n)
            fit = inc.fit_mooney_rivlin(lam, inc.uniaxial_stress(eco, lam))
            assert check(key, fit.constants).correct, (key, n)


def test_explicit_steps_per_period_instead_of_per_release_is_refused():
    n = solution("fem_incompressible-5")
    wrong("fem_incompressible-5", n / 1.5)                      # one period, not 1.5
    wrong("fem_incompressible-5", 2 * n, "factor 2")            # 2 pi instead of pi


# -- actuation ---------------------------------------------------------------------------
def test_taper_deviations_as_fractions_are_named():
    wrong("actuation-taper", solution("actuation-taper") / 100, "percent")


def test_buckling_eigenvalues_swapped_are_refused():
    tendon, dead = solution("actuation-buckle")
    assert tendon > 0 > dead
    wrong("actuation-buckle", [dead, tendon])


def test_lambda_prediction_without_the_factor_2_or_the_old_distance_is_refused():
    from lib import actuation as ac
    r = rod.make_rod(20)
    tip = ac.make_tendon(r, 0.03)
    target = np.array(rod.tip(r, ac.static(r, [tip], [50.0])))[:2]
    far = ac.inverse(r, [tip], target, tau_max=30.0)
    pred, real = solution("actuation-lambda")
    wrong("actuation-lambda", [np.sqrt(far.distance**2 - far.multipliers[0]), real])
    wrong("actuation-lambda", [far.distance, far.distance], "value")


def test_lambda_prediction_from_the_linearised_distance_is_named():
    """The multiplier is d(d^2/2)/d tau_max: linearising d itself (d - lambda/d) is first
    order too but lands 1.4e-3 from the chapter's prediction (and by chance next to the
    solved value); taking lambda as the slope of d (d - lambda) is simply wrong."""
    from lib.exercises.actuation import _unreachable
    d, lam, real = _unreachable()
    pred = solution("actuation-lambda")[0]
    assert abs((d - lam / d) / pred - 1) > 5 * 2e-4
    verdict = wrong("actuation-lambda", [d - lam / d, real], "linearised distance")
    assert "d^2/2" in verdict.message
    wrong("actuation-lambda", [d - lam, real], "multiplier slope")


def test_ramp_overshoot_as_fraction_or_as_ratio_is_refused():
    over = solution("actuation-ramp")
    wrong("actuation-ramp", over / 100, "percent")
    wrong("actuation-ramp", 1 + over / 100, "ratio - 1")       # max / static, not minus 1


def test_capstan_with_the_frictionless_wrap_is_named():
    distal, tip = solution("actuation-capstan")
    assert 0 < distal < 100 and tip < 235
    from lib.exercises.actuation import _capstan_naive
    wrong("actuation-capstan", _capstan_naive(), "frictionless wrap")


def test_levelling_stroke_without_axial_shortening_is_named_and_spring_adds_tau_over_k():
    from lib.exercises.actuation import K_T, _levelling, _levelling_rigid
    s_inext, s_spring, tau = _levelling()
    assert abs(s_spring - s_inext - tau / K_T) < 1e-9          # the series spring's stretch
    wrong("actuation-stroke", _levelling_rigid(), "rigid rod")


def test_syringe_pressure_per_chamber_is_named_and_the_prediction_is_first_order():
    from lib.exercises.actuation import _syringe_per_chamber
    pred, solved = solution("actuation-pneumatic")
    assert 0 < solved < pred < 1.05 * solved          # the p-V curve bends over: softening
    wrong("actuation-pneumatic", _syringe_per_chamber(), "per chamber")
    wrong("actuation-pneumatic", [pred, pred])       # the prediction is not the solved value


# -- constraints -------------------------------------------------------------------------
def test_circle_radius_slips():
    R = solution("constraints-3a")
    wrong("constraints-3a", 2 * R, "factor 2")                  # diameter
    wrong("constraints-3a", 2.0 / (0.4 * 9.81))                 # v, not v^2
    wrong("constraints-3b", 25 * 9.81)                          # m g, friction forgotten


def test_average_motor_power_is_not_the_peak():
    assert check("constraints-4", 0.0).correct
    wrong("constraints-4", 1.0)


def test_lcp_count_missing_the_interior_solution_is_refused():
    wrong("constraints-5a", 2.0)
    wrong("constraints-5b", [1 / 3, 1 / 3])                     # a solution, not Lemke's


# -- crosscheck --------------------------------------------------------------------------
def test_clamp_orders_swapped_or_claimed_second_are_refused():
    o = solution("crosscheck-1")
    wrong("crosscheck-1", o[::-1])
    wrong("crosscheck-1", [2.0, 2.0])


def test_rigid_link_first_order_answer_is_named_factor_2():
    wrong("crosscheck-2b", 1.0, "factor 2")                     # "first order": half of 2
    wrong("crosscheck-2a", -solution("crosscheck-2a"), "sign")


def test_condition_exponent_is_a_power_not_an_exponential_rate():
    ns = np.arange(4, 9)
    cond = [np.linalg.cond(cc.pcc_ritz_exact(n)[0]) for n in ns]
    rate = np.polyfit(ns, np.log(cond), 1)[0]                   # cond ~ exp(rate n)
    wrong("crosscheck-3", rate)


def test_thick_rod_frequency_is_not_euler_bernoulli_or_the_slender_value():
    wrong("crosscheck-5a", beam.euler_bernoulli_omegas(1)[0])
    wrong("crosscheck-5a", cc.timoshenko_omegas_transfer(1, 0.04)[0])
    wrong("crosscheck-5b", solution("crosscheck-5b") / 100, "percent")
    wrong("crosscheck-5b", 1 - solution("crosscheck-5b") / 100, "ratio - 1")   # the ratio
