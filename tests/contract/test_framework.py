"""The contract framework can fail: each of its checks catches the defect it is for."""
import numpy as np
import pytest

from . import framework as fw


def strict_sqrt(x, scale=1.0):
    from lib.core import checks
    return np.sqrt(checks.nonnegative(x, "x")) * checks.positive(scale, "scale")


def test_a_function_that_checks_its_arguments_passes_every_case():
    row = fw.Call("sqrt", strict_sqrt, lambda: ((4.0,), dict(scale=2.0)),
                  {"x": fw.nonnegative(position=0), "scale": fw.positive()})
    fw.check_valid_call(row)
    for case in row.case_ids():
        fw.check_bad_input(row, case)


@pytest.mark.parametrize("func,message", [
    (lambda x: np.sqrt(x), "was accepted"),                              # NaN goes through
    (lambda x: float(x) ** 0.5 if x == x else 1 / "x", "raised TypeError"),
    (lambda x: (_ for _ in ()).throw(ValueError("bad value")), "does not name 'x'"),
])
def test_bad_input_defects_are_caught(func, message):
    row = fw.Call("broken", func, lambda: ((4.0,), {}), {"x": fw.real(position=0)})
    with np.errstate(all="ignore"), pytest.raises(AssertionError, match=message):
        fw.check_bad_input(row, "x=nan")


def test_the_argument_must_be_named_as_a_word():
    def f(xy):
        raise ValueError("xyz must be finite")          # 'xy' only inside another word
    row = fw.Call("f", f, lambda: ((1.0,), {}), {"xy": fw.real(position=0)})
    with pytest.raises(AssertionError, match="does not name"):
        fw.check_bad_input(row, "xy=nan")


def quartic_model(bias=0.0, hess_bias=0.0):
    A = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]])
    return fw.Model("quartic", lambda: A,
                    lambda A, rng: rng.standard_normal(3),
                    energy=lambda A, x: 0.5 * x @ A @ x + 0.25 * np.sum(x**4),
                    gradient=lambda A, x: (1 + bias) * (A @ x + x**3),
                    hessian=lambda A, x: A + np.diag(3 * x**2) + hess_bias * np.triu(A, 1))


def test_derivative_checks_pass_a_right_model_and_catch_a_wrong_one():
    fw.check_gradient(quartic_model())
    fw.check_hessian(quartic_model())
    with pytest.raises(AssertionError, match="gradient"):
        fw.check_gradient(quartic_model(bias=1e-5))
    with pytest.raises(AssertionError, match="H v"):
        fw.check_hessian(quartic_model(hess_bias=1e-5))


def test_xfail_entries_must_name_generated_cases():
    row = fw.Call("sqrt", strict_sqrt, lambda: ((4.0,), {}), {"x": fw.nonnegative(position=0)},
                  xfail={"x=typo": "no such case"})
    with pytest.raises(ValueError, match="does not generate"):
        fw.params([row])
