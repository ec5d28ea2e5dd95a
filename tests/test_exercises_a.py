"""Typical wrong answers to the exercises of the rod, rod3d, integration and pcc chapters
are refused with the hint that names the slip (and the right answers are accepted in the
forms a student naturally types)."""
import numpy as np
import pytest

from lib import beam, rod
from lib import exercises
from lib.exercises import check, solution


def _hint(key, answer):
    verdict = check(key, answer)
    assert not verdict.correct, (key, answer)
    return verdict.hint


# --- rod ----------------------------------------------------------------------------

def test_rod1_percent_for_fraction_is_a_magnitude_slip():
    assert _hint("rod-1", 100 * solution("rod-1")) == "magnitude"


def test_rod2_errors_are_signed_and_the_default_clamp_is_not_the_answer():
    e = solution("rod-2a")
    assert np.all(e < 0)                            # a forgotten half element softens the clamp
    assert _hint("rod-2a", np.abs(e)) == "sign"
    assert _hint("rod-2a", e / 100) == "magnitude"  # a fraction instead of percent
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
    assert _hint("rod-5", w[:2]) == "shape"
