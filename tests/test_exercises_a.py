"""Typical wrong answers to the exercises of the rod, rod3d, integration and pcc chapters
are refused with the hint that names the slip (and the right answers are accepted in the
forms a student naturally types)."""
import numpy as np
import pytest

from lib import beam, rod
from lib import exercises
from lib.exercises import check, solution
from slips import hint as _hint


# --- rod ----------------------------------------------------------------------------

def test_rod1_percent_for_fraction_and_the_ratio_itself_are_named():
    assert _hint("rod-1", 100 * solution("rod-1")) == "percent"
    ratio = beam.timoshenko_omegas(1, 0.01)[0] / beam.euler_bernoulli_omegas(1)[0]
    assert _hint("rod-1", ratio) == "ratio - 1"          # the ratio, not its gap to 1


def test_rod2_errors_are_signed_and_the_default_clamp_is_not_the_answer():
    e = solution("rod-2a")
    assert np.all(e < 0)                            # a forgotten half element softens the clamp
    assert _hint("rod-2a", np.abs(e)) == "sign"
    assert _hint("rod-2a", e / 100) == "percent"    # a fraction instead of percent
    eb = beam.euler_bernoulli_omegas(1)[0]
    with_clamp = [100 * (rod.kirchhoff_frequencies(N, 1)[0] / eb - 1) for N in (20, 40)]
    assert _hint("rod-2a", with_clamp) == "value"


def test_rod2_order_is_first_not_second():
    assert abs(solution("rod-2b") - 1) < 0.05
    assert _hint("rod-2b", 2.0) == "value"


def test_rod3_euler_bernoulli_value_and_undivided_deflection_are_refused():
    assert _hint("rod-3", 1 / 3) == "value"                    # shear forgotten
    assert _hint("rod-3", 1e-3 * solution("rod-3")) == "magnitude"   # not divided by alpha
    assert abs(solution("rod-3") / (1 / 3 + 1 / 750) - 1) < 1e-3


def test_rod4_swapped_step_counts_are_refused():
    n = solution("rod-4")
    assert n[0] < n[1] and np.all(n % 1000 == 0)
    assert not check("rod-4", n[::-1]).correct


def test_rod5_cyclic_frequency_is_a_factor_two_pi_slip():
    w = solution("rod-5")
    assert np.all(np.diff(w) > 0)
    assert _hint("rod-5", w / (2 * np.pi)) == "factor 2pi"
    assert _hint("rod-5", w**2) == "squared"           # eigenvalues of K, M: omega^2
    assert _hint("rod-5", w[:2]) == "shape"


# --- rod3d --------------------------------------------------------------------------

def test_rod3d1_leading_order_estimate_is_not_the_energy_error():
    e = solution("rod3d-1")
    assert abs(e / (0.3**2 / 12) - 1) < 0.01          # of order dphi^2 / 12, as the text says
    assert not check("rod3d-1", 0.3**2 / 12).correct
    assert _hint("rod3d-1", 100 * e) == "percent"


def test_rod3d2_cyclic_frequency_and_the_clamp_spring_answer_are_refused():
    from lib import rod3d as R3
    w = solution("rod3d-2")
    assert _hint("rod3d-2", w / (2 * np.pi)) == "factor 2pi"
    m = R3.make_rod3d(20)
    ana = R3.torsion_omegas(1, GJ=m.GJ, rhoJ=2 * m.rhoI)[0]
    assert w > ana                                     # the held frame shortens the shaft
    assert _hint("rod3d-2", ana) == "value"
    assert _hint("rod3d-2", w**2) == "squared"         # the eigenvalue, not omega


def test_rod3d3_greenhill_continuum_formula_is_not_the_discrete_rod():
    from lib import rod3d as R3
    tw = solution("rod3d-3")
    continuum = np.array([R3.greenhill_twist(nu) for nu in (0.0, 0.3)])
    gap = continuum / tw - 1
    assert np.all(gap > 0) and gap.min() > 3 * exercises._entry("rod3d-3").rtol
    verdict = check("rod3d-3", continuum)
    assert verdict.hint == "continuum" and "discrete rod" in verdict.message
    assert _hint("rod3d-3", [continuum[0], tw[1]]) == "value"   # one of the two from kL(1+nu)


def test_rod3d3_twists_in_degrees_or_swapped_are_refused():
    tw = solution("rod3d-3")
    assert tw[0] < tw[1]
    assert _hint("rod3d-3", np.degrees(tw)) == "degrees"
    assert _hint("rod3d-3", tw[::-1]) == "order"
    assert _hint("rod3d-3", tw[0]) == "shape"


def test_rod3d4_step_without_the_two_and_inverted_ratio_are_refused():
    assert _hint("rod3d-4b", solution("rod3d-4b") / 2) == "factor 2"   # 1 / omega_max
    assert _hint("rod3d-4c", 1 / solution("rod3d-4c")) == "value"
    assert _hint("rod3d-4c", 4.0) == "value"                           # dt proportional to l


def test_rod3d5_is_a_small_but_nonzero_asymmetry():
    a = solution("rod3d-5")
    assert 1e-8 < a < 1e-3
    assert _hint("rod3d-5", 0.0) == "value"


# --- integration --------------------------------------------------------------------

def test_integration1_fraction_for_percent_is_a_percent_slip():
    assert _hint("integration-1", solution("integration-1") / 100) == "percent"


def test_integration2_accepts_the_analytic_bounds_and_refuses_conservation():
    x = 0.9**2
    assert check("integration-2", [1.0, 1 / (1 - x)]).correct
    assert _hint("integration-2", [1.0, 1.0]) == "value"
    assert _hint("integration-2", [1 / (1 - x), 1.0]) == "order"


def test_integration3_step_without_the_two_is_a_factor_two_slip():
    assert check("integration-3a", np.sqrt(3 / 0.9)).correct
    assert _hint("integration-3a", 3 / 0.9) == "squared"               # square root forgotten
    assert _hint("integration-3b", solution("integration-3b") / 2) == "factor 2"


def test_integration4_exact_lag_is_close_to_but_not_the_estimate():
    est, exact = solution("integration-4a"), solution("integration-4b")
    assert 0 < exact < est
    assert _hint("integration-4b", est) == "value"


def test_integration5_amplitude_decay_and_fraction_are_refused():
    loss = solution("integration-5")
    assert _hint("integration-5", loss / 100) == "percent"
    amplitude = 100 * (1 - np.sqrt(1 - loss / 100))    # 1 - rho^n instead of 1 - rho^(2n)
    assert _hint("integration-5", amplitude) == "value"


# --- pcc ----------------------------------------------------------------------------

def test_pcc1_bound_itself_and_squared_ratio_are_refused():
    r = solution("pcc-1")
    assert abs(r - np.sqrt(20) / beam.euler_bernoulli_omegas(1)[0]) < 1e-12
    assert _hint("pcc-1", np.sqrt(20)) == "value"
    assert _hint("pcc-1", r**2) == "squared"              # omega^2 for omega
    assert _hint("pcc-1", r - 1) == "ratio - 1"           # the excess, not the ratio
    assert _hint("pcc-1", 100 * (r - 1)) == "ratio - 1"   # ... in percent


def test_pcc2_counts_are_integers_and_a_one_percent_answer_is_refused():
    n = solution("pcc-2a")
    assert np.all(n == np.round(n)) and n[0] < n[1]
    assert check("pcc-2a", n.astype(int)).correct
    assert _hint("pcc-2a", [6, 6]) == "value"
    assert check("pcc-2b", int(solution("pcc-2b"))).correct


def test_pcc3_closed_form_quotient_is_refused_and_the_sign_is_named():
    from lib import pcc
    assert check("pcc-3", -1 / 504).correct
    assert _hint("pcc-3", 1 / 504) == "sign"
    assert not check("pcc-3", (pcc.arc_mass_closed_form(0.01) - 0.05) / 0.01**2).correct


def test_pcc4_sag_as_a_positive_depth_is_a_sign_slip():
    assert solution("pcc-4a") < 0
    assert _hint("pcc-4a", -solution("pcc-4a")) == "sign"
    assert _hint("pcc-4b", solution("pcc-4b") / 100) == "percent"


def test_pcc5_change_is_signed_percent():
    c = solution("pcc-5")
    assert _hint("pcc-5", c / 100) == "percent"
    assert _hint("pcc-5", 1 + c / 100) == "ratio - 1"     # the frequency ratio itself
    assert _hint("pcc-5", -c) == "sign"
