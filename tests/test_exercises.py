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


def _solution_unlike(key, factor):
    """The solution, or a skip when factor * solution passes for it (a zero answer)."""
    e = np.asarray(exercises.solution(key), dtype=float)
    entry = exercises._entry(key)
    if exercises._close(factor * e, e, entry.rtol, entry.atol):
        pytest.skip(f"the answer equals {factor} times itself within tolerance (zero)")
    return e


@pytest.mark.parametrize("key", KEYS)
def test_opposite_sign_is_named(key):
    e = _solution_unlike(key, -1)
    verdict = exercises.check(key, -e)
    assert not verdict.correct and verdict.hint == "sign"


@pytest.mark.parametrize("key", KEYS)
def test_factor_two_and_powers_of_ten_are_named(key):
    e = _solution_unlike(key, 2)
    assert exercises.check(key, 2 * e).hint == "factor 2"
    assert exercises.check(key, e / 2).hint == "factor 2"
    assert exercises.check(key, 100 * e).hint == "percent"
    assert exercises.check(key, e / 100).hint == "percent"
    assert exercises.check(key, 1000 * e).hint == "magnitude"
    assert exercises.check(key, e / 1000).hint == "magnitude"


@pytest.mark.parametrize("key", KEYS)
def test_angular_frequency_and_degree_slips_are_named(key):
    e = _solution_unlike(key, 2)
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


def test_squares_ratios_and_counts_off_by_one_are_named():
    @exercises.exercise("demo-omega", rtol=1e-6)
    def _omega():
        return np.array([3.0, 7.5])

    @exercises.exercise("demo-ratio", rtol=1e-6)
    def _ratio():
        return 1.04

    @exercises.exercise("demo-count", atol=0.5)
    def _count():
        return 12.0

    try:
        assert exercises.check("demo-omega", [9.0, 56.25]).hint == "squared"
        assert exercises.check("demo-omega", np.sqrt([3.0, 7.5])).hint == "squared"
        for slip in (0.04, 4.0, -0.04, -4.0, 104.0):
            # ratio - 1, in percent, 1 - ratio, in percent, and the ratio in percent
            want = "percent" if slip == 104.0 else "ratio - 1"
            assert exercises.check("demo-ratio", slip).hint == want, slip
        assert exercises.check("demo-count", 11.0).hint == "off by one"
        assert exercises.check("demo-count", 13.0).hint == "off by one"
        assert exercises.check("demo-count", 14.0).hint == "value"
    finally:
        for key in ("demo-omega", "demo-ratio", "demo-count"):
            exercises.unregister(key)


def test_an_exercises_own_slip_is_named_first_and_must_be_told_apart():
    @exercises.exercise("demo-slip", rtol=1e-3, text="the discrete value",
                        slips={"continuum": (lambda: 2.2, "the continuum formula")})
    def _discrete():
        return 2.0

    @exercises.exercise("demo-blind", rtol=0.2, slips={"near": (lambda: 2.2, "too close")})
    def _blind():
        return 2.0

    try:
        verdict = exercises.check("demo-slip", 2.2)
        assert verdict.hint == "continuum" and "the continuum formula" in verdict.message
        assert exercises.check("demo-slip", 4.0).hint == "factor 2"
        with pytest.raises(ValueError, match="accepts its slip 'near'"):
            exercises.check("demo-blind", 3.0)
    finally:
        exercises.unregister("demo-slip")
        exercises.unregister("demo-blind")
    with pytest.raises(ValueError, match="slips"):
        exercises.exercise("demo-bad", slips={"x": 2.2})


@pytest.mark.parametrize("key", [k for k in KEYS if exercises._entry(k).slips])
def test_every_own_slip_is_refused_with_its_name(key):
    for name, wrong, _ in exercises._slip_answers(exercises._entry(key)):
        verdict = exercises.check(key, wrong)
        assert not verdict.correct and verdict.hint == name


def test_unhashable_key_and_bool_answer_are_value_errors_naming_them():
    """Issue 22: an unhashable key raised a bare TypeError."""
    with pytest.raises(ValueError, match="key"):
        exercises.check(["rod-1"], 1.0)
    with pytest.raises(ValueError, match="key"):
        exercises.solution({"rod": 1})
    with pytest.raises(ValueError, match="answer"):
        exercises.check(KEYS[0], True)
    with pytest.raises(ValueError, match="answer"):
        exercises.check(KEYS[0], None)


def test_a_huge_answer_is_a_wrong_answer_with_a_hint():
    verdict = exercises.check(KEYS[0], 1e300 * np.ones_like(np.asarray(exercises.solution(KEYS[0]))))
    assert not verdict.correct and verdict.hint is not None
