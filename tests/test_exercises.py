"""Every self-check accepts the book's own solution and names the usual slips.

The generic tests run over every registered exercise; chapter-specific wrong answers
(a forgotten clamp weight, a percent for a fraction, ...) are tested in the
``test_exercises_<chapter>.py`` files.
"""
import numpy as np
import pytest

from lib import exercises

KEYS = exercises.keys()


def test_every_chapter_module_registers_exercises():
    chapters = {k.rsplit("-", 1)[0] for k in KEYS}
    assert len(KEYS) >= 1 and chapters <= set(exercises.CHAPTERS)


@pytest.mark.parametrize("key", KEYS)
def test_solution_is_accepted(key):
    sol = exercises.solution(key)
    verdict = exercises.check(key, sol)
    assert verdict.correct and verdict.hint is None and "right" in repr(verdict)


@pytest.mark.parametrize("key", KEYS)
def test_opposite_sign_is_named(key):
    e = np.asarray(exercises.solution(key), dtype=float)
    entry = exercises._entry(key)
    if exercises._close(-e, e, entry.rtol, entry.atol):
        pytest.skip("the answer is its own negative (zero)")
    verdict = exercises.check(key, -e)
    assert not verdict.correct and verdict.hint == "sign"


@pytest.mark.parametrize("key", KEYS)
def test_factor_two_and_powers_of_ten_are_named(key):
    e = np.asarray(exercises.solution(key), dtype=float)
    entry = exercises._entry(key)
    if exercises._close(2 * e, e, entry.rtol, entry.atol):
        pytest.skip("the answer is zero within tolerance")
    assert exercises.check(key, 2 * e).hint == "factor 2"
    assert exercises.check(key, e / 2).hint == "factor 2"
    assert exercises.check(key, 100 * e).hint == "magnitude"
    assert exercises.check(key, e / 1000).hint == "magnitude"


@pytest.mark.parametrize("key", KEYS)
def test_angular_frequency_and_degree_slips_are_named(key):
    e = np.asarray(exercises.solution(key), dtype=float)
    entry = exercises._entry(key)
    if exercises._close(2 * e, e, entry.rtol, entry.atol):
        pytest.skip("the answer is zero within tolerance")
    assert exercises.check(key, 2 * np.pi * e).hint == "factor 2pi"
    assert exercises.check(key, e / (2 * np.pi)).hint == "factor 2pi"
    assert exercises.check(key, np.degrees(e)).hint == "degrees"
    assert exercises.check(key, np.radians(e)).hint == "degrees"


@pytest.mark.parametrize("key", KEYS)
def test_wrong_shape_is_named(key):
    e = np.asarray(exercises.solution(key), dtype=float)
    wrong = np.append(e.ravel(), 1.0)
    assert exercises.check(key, wrong).hint == "shape"


def test_unknown_key_and_non_numeric_answer_are_refused():
    with pytest.raises(ValueError, match="key"):
        exercises.check("nochapter-99", 1.0)
    with pytest.raises(ValueError, match="answer"):
        exercises.check(KEYS[0], "forty-two")


def test_registration_rejects_bad_tolerances_and_duplicates():
    with pytest.raises(ValueError, match="rtol"):
        exercises.exercise("demo-2", rtol=0.0, atol=0.0)
    with pytest.raises(ValueError, match="key"):
        exercises.exercise("nodash")

    @exercises.exercise("demo-3")
    def _three():
        return 3.0

    try:
        with pytest.raises(ValueError, match="twice"):
            exercises.exercise("demo-3")(_three)
        assert exercises.check("demo-3", 3.002).correct
        assert exercises.check("demo-3", 3.1).hint == "value"
    finally:
        exercises.unregister("demo-3")


ARRAY_KEYS = [k for k in KEYS if np.asarray(exercises.solution(k)).size > 1]


@pytest.mark.parametrize("key", ARRAY_KEYS)
def test_values_in_the_wrong_order_are_named(key):
    e = np.asarray(exercises.solution(key), dtype=float)
    entry = exercises._entry(key)
    flipped = e.ravel()[::-1].reshape(e.shape)
    if exercises._close(flipped, e, entry.rtol, entry.atol):
        pytest.skip("the answer reads the same backwards")
    verdict = exercises.check(key, flipped)
    assert not verdict.correct and verdict.hint in ("order", "sign")


def test_a_zero_expected_entry_reports_an_absolute_error():
    @exercises.exercise("demo-zero", atol=1e-9, rtol=1e-6)
    def _zero():
        return np.array([0.0, 2.0])

    try:
        msg = repr(exercises.check("demo-zero", [0.3, 2.5]))
        assert "absolute error 3.0e-01 where the answer is 0" in msg
        assert "relative error 2.5e-01" in msg
        assert exercises.check("demo-zero", [2.0, 0.0]).hint == "order"
    finally:
        exercises.unregister("demo-zero")
