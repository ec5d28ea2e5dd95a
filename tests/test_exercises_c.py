"""Typical wrong answers to the exercises of the energy and levels chapters are refused
with the hint that names the slip, and the right answers satisfy the relations the
folded solutions state."""
import numpy as np

from lib import beam, damping, integrate, rod
from lib import exercises
from lib import levels as lv
from lib.exercises import check, solution
from slips import hint as _hint


# --- energy -------------------------------------------------------------------------

def test_energy2a_zeta_halves_the_limit_and_two_zeta_is_a_factor_two_slip():
    z = solution("energy-2a")
    assert abs(np.sqrt(1 + z ** 2) - z - 0.5) < 1e-12
    assert _hint("energy-2a", 2 * z) == "factor 2"          # tau omega_max given for zeta
    assert _hint("energy-2a", 100 * z) == "percent"


def test_energy2b_tau_halves_the_damped_critical_step_of_the_rod():
    om = rod.frequencies(rod.make_rod(20, 0.04))
    tau = solution("energy-2b")
    ratio = (integrate.damped_critical_step(om, damping.modal_damping_ratios(om, beta=tau))
             / integrate.critical_step(om[-1]))
    assert abs(ratio - 0.5) < 1e-9
    assert 0.2e-3 < tau < 1e-3                             # "about a third of 1e-3"


def test_energy2b_slips_are_named():
    tau = solution("energy-2b")
    assert _hint("energy-2b", tau / 2) == "factor 2"        # zeta / omega, the 2 forgotten
    assert _hint("energy-2b", 2 * np.pi * tau) == "factor 2pi"  # f_max = omega_max / 2 pi used
    assert _hint("energy-2b", 1e-3) == "value"              # the damping section's tau


def test_energy3_first_overdamped_mode_sits_just_above_the_onset():
    k, w, onset = solution("energy-3a"), solution("energy-3b"), solution("energy-3c")
    assert k == int(k) and k > 2
    assert w >= onset
    from lib.exercises.energy import _arm
    om, a, b = _arm()
    zeta = damping.modal_damping_ratios(om, a, b)
    assert zeta[int(k) - 1] >= 1 > zeta[int(k) - 2]       # mode k - 1 is still underdamped
    assert om[int(k) - 2] < onset


def test_energy3_zero_based_index_cyclic_frequency_and_small_root_are_refused():
    assert _hint("energy-3a", solution("energy-3a") - 1) == "off by one"   # 0-based index
    assert _hint("energy-3b", solution("energy-3b") / (2 * np.pi)) == "factor 2pi"
    assert _hint("energy-3b", solution("energy-3b") ** 2) == "squared"   # the eigenvalue
    from lib.exercises.energy import _arm
    _, a, b = _arm()
    small = (1 - np.sqrt(1 - a * b)) / b                   # the other root: the slow modes
    zeta = damping.modal_damping_ratios(np.array([small, solution("energy-3c")]), a, b)
    assert np.allclose(zeta, 1.0, rtol=1e-9)
    assert _hint("energy-3c", small) in ("value", "magnitude")


def test_energy4_newmark_error_is_large_and_percent_is_a_percent_slip():
    e = solution("energy-4")
    assert e > 1e-3
    assert _hint("energy-4", 100 * e) == "percent"
    assert _hint("energy-4", 1e-16) in ("value", "magnitude")   # the discrete gradient's


# --- levels -------------------------------------------------------------------------

def test_levels1_errors_fall_with_segments_and_fractions_are_a_percent_slip():
    e = solution("levels-1")
    assert e.shape == (3,) and np.all(np.diff(e) < 0) and np.all(e > 0)
    assert _hint("levels-1", e / 100) == "percent"
    assert _hint("levels-1", e[::-1]) == "order"
    assert _hint("levels-1", e[:2]) == "shape"


def test_levels2_tighter_budget_means_a_more_slender_limit():
    s = solution("levels-2")
    assert s > lv.rod_slenderness_limit(0.05)
    assert abs(lv.rod_small_load_error(s) - 0.02) < 2e-4
    assert _hint("levels-2", lv.rod_slenderness_limit(0.05)) == "value"


def test_levels3_step_counts_ascend_and_rounding_either_way_is_accepted():
    n = solution("levels-3")
    assert np.all(n == np.round(n)) and np.all(np.diff(n) > 0)
    assert check("levels-3", n - 1).correct                 # rounded down / to nearest
    assert _hint("levels-3", n[::-1]) == "order"
    assert _hint("levels-3", n + 5) == "value"


def test_levels3_each_levels_own_period_is_named():
    """The text fixes the period: T1 of the reference FEM for all three levels.  Each
    level's own period differs by 20 steps for the rod and 400 for the FEM."""
    from lib.exercises.levels import _own_period, _steps
    own = _steps(_own_period)
    n = solution("levels-3")
    assert np.abs(own - n).max() > 10
    assert _hint("levels-3", own) == "own period"
    assert "reference FEM" in exercises._entry("levels-3").text


def test_levels4_third_rod_frequency_is_the_stretch_mode_not_euler_bernoulli():
    r = solution("levels-4")
    eb = beam.euler_bernoulli_omegas(3)
    arm = lv.make_arm(3.0)
    stretch = (np.pi / 2 * np.sqrt(arm.EA / arm.rhoA) / arm.L
               / (eb[0] * np.sqrt(arm.EI / arm.rhoA) / arm.L ** 2))
    assert abs(r[2] / stretch - 1) < 0.01 and stretch < eb[1] / eb[0]
    assert _hint("levels-4", eb / eb[0]) == "value"         # beam theory's ratios


def test_levels5_predictions_in_fraction_or_without_two_pi_are_named():
    p = solution("levels-5")
    assert p.shape == (3,) and np.all(p > 0)
    assert _hint("levels-5", p / 100) == "percent"
    assert _hint("levels-5", p / (2 * np.pi)) == "factor 2pi"   # |delta| alone
