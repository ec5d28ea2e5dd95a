"""The model contract, over every row of rows.py (see framework.py).

* every bad-input case of every ``Call`` row raises a ``ValueError`` naming the
  argument (a case still failing is ``xfail(strict=True)`` in its row, with the reason);
* the valid call of every row succeeds;
* every ``Model`` row's gradient and Hessian match central differences of its energy
  and gradient at a random state.
"""
import pytest

from . import framework as fw
from .rows import CALLS, MODELS


@pytest.mark.parametrize("row, case", fw.params(CALLS))
def test_bad_input_is_a_value_error_naming_the_argument(row, case):
    fw.check_bad_input(row, case)


@pytest.mark.parametrize("row", CALLS, ids=[r.name for r in CALLS])
def test_the_valid_call_of_each_row_succeeds(row):
    fw.check_valid_call(row)


@pytest.mark.parametrize("row", MODELS, ids=[m.name for m in MODELS])
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_matches_central_differences_of_the_energy(row, seed):
    fw.check_gradient(row, seed)


@pytest.mark.parametrize("row", [m for m in MODELS if m.hessian is not None],
                         ids=[m.name for m in MODELS if m.hessian is not None])
@pytest.mark.parametrize("seed", [0, 1])
def test_hessian_matches_central_differences_of_the_gradient(row, seed):
    fw.check_hessian(row, seed)


def test_every_row_has_a_unique_name():
    names = [r.name for r in CALLS] + [m.name for m in MODELS]
    assert len(names) == len(set(names))
