"""lib.core.checks: one semantics for every argument check.

Properties: every accepted kind of number comes back as a plain float / int /
float ndarray; every rejected kind (bool, string, None, complex, NaN, inf where inf is
not "no bound", wrong sign, out of range, wrong shape, wrong model kind) raises a
``ValueError`` -- never a ``TypeError`` -- whose message starts with the argument's
name and shows the value it got.
"""
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from lib.core import checks

NUMBERS = [3, 3.0, np.int64(3), np.int32(3), np.float64(3.0), np.float32(3.0),
           np.array(3.0), np.array(3), Fraction(3, 1)]
NOT_NUMBERS = [(True, "a bool"), (np.True_, "a bool"), ("3", "a string"), (None, "None"),
               (3 + 0j, "complex"), (np.complex128(3), "complex"), ([3.0], "a list"),
               (np.ones(2), "array of shape"), (object(), "an object")]


@pytest.mark.parametrize("value", NUMBERS)
def test_every_kind_of_real_number_is_accepted_as_a_float(value):
    out = checks.real(value, "x")
    assert type(out) is float and out == 3.0
    assert type(checks.positive(value, "x")) is float
    assert type(checks.nonnegative(value, "x")) is float


@pytest.mark.parametrize("value,why", NOT_NUMBERS)
@pytest.mark.parametrize("check", [checks.real, checks.positive, checks.nonnegative,
                                   checks.integer])
def test_what_is_not_a_number_is_a_value_error_naming_the_argument(check, value, why):
    with pytest.raises(ValueError, match=r"^stiffness must be ") as err:
        check(value, "stiffness")
    msg = str(err.value)
    assert "got" in msg and why.split()[-1] in msg


@pytest.mark.parametrize("value", [math.nan, np.nan, np.float32("nan"), np.array(np.nan)])
def test_nan_is_always_rejected(value):
    for check in (checks.real, checks.positive, checks.nonnegative):
        with pytest.raises(ValueError, match=r"^x must be a real number, got nan$"):
            check(value, "x")
        with pytest.raises(ValueError, match=r"^x .* got nan"):
            check(value, "x", inf=True)


def test_inf_only_where_the_call_says_it_means_no_bound():
    for v in (math.inf, -np.inf, np.float64("inf")):
        with pytest.raises(ValueError, match=r"^x must be finite, got -?inf$"):
            checks.real(v, "x")
    assert checks.real(-np.inf, "x", inf=True) == -np.inf
    assert checks.positive(np.inf, "tau_max", inf=True) == np.inf
    with pytest.raises(ValueError, match=r"^tau_max must be > 0, got -inf$"):
        checks.positive(-np.inf, "tau_max", inf=True)


@pytest.mark.parametrize("value,kw,msg", [
    (0.0, dict(low=0.0, include_low=False), "must be > 0, got 0.0"),
    (-1e-300, dict(low=0.0), "must be >= 0, got -1e-300"),
    (0.5, dict(high=0.5, include_high=False), "must be < 0.5, got 0.5"),
    (-1, dict(low=-1, high=0.5, include_low=False), r"must lie in \(-1, 0.5\], got -1"),
    (2, dict(low=0, high=1), r"must lie in \[0, 1\], got 2"),
])
def test_ranges_open_and_closed(value, kw, msg):
    with pytest.raises(ValueError, match=r"^nu " + msg + "$"):
        checks.real(value, "nu", **kw)


def test_range_boundaries_that_are_allowed_pass():
    assert checks.real(0.5, "nu", -1, 0.5, include_low=False) == 0.5
    assert checks.real(-1, "nu", -1, 0.5) == -1.0
    assert checks.nonnegative(0, "tau") == 0.0
    assert checks.positive(5e-324, "h") == 5e-324       # the smallest positive double


def test_integers():
    for v in (3, np.int64(3), np.uint8(3), np.array(3)):
        out = checks.integer(v, "N", low=1)
        assert type(out) is int and out == 3
    assert checks.integer(4.0, "N", allow_float=True) == 4
    assert checks.integer(np.float64(4.0), "N", allow_float=True) == 4
    for v, msg in ((3.0, "must be an integer, got 3.0"), (2.5, "must be an integer, got 2.5"),
                   (True, r"must be an integer, got True \(a bool\)")):
        with pytest.raises(ValueError, match=r"^N " + msg + "$"):
            checks.integer(v, "N")
    with pytest.raises(ValueError, match=r"^N must be an integer, got 2.5$"):
        checks.integer(2.5, "N", allow_float=True)
    with pytest.raises(ValueError, match=r"^N must be an integer, got nan$"):
        checks.integer(np.nan, "N", allow_float=True)
    with pytest.raises(ValueError, match=r"^N must be an integer >= 1, got 0$"):
        checks.integer(0, "N", low=1)
    with pytest.raises(ValueError, match=r"^k must be an integer in 1..4, got 5$"):
        checks.integer(5, "k", low=1, high=4)
    with pytest.raises(ValueError, match=r"^k must be an integer <= 4, got 5$"):
        checks.integer(np.int64(5), "k", high=4)


def test_booleans():
    assert checks.boolean(True, "flag") is True and checks.boolean(np.False_, "flag") is False
    for v in (1, 0, "True", None, np.array([True])):
        with pytest.raises(ValueError, match=r"^flag must be True or False, got "):
            checks.boolean(v, "flag")


def test_arrays_are_float_and_shaped():
    a = checks.array([[1, 2], [3, 4]], "nodes", shape=(None, 2))
    assert a.dtype == float and a.shape == (2, 2)
    assert checks.array(np.arange(3, dtype=np.int32), "x").dtype == float
    assert checks.vector([1.0, 2.0, 3.0], "load", 3).shape == (3,)
    assert checks.array(2.0, "x", shape=()).shape == ()
    assert checks.array(np.zeros((0, 2)), "nodes", shape=(None, 2)).shape == (0, 2)


@pytest.mark.parametrize("value,kw,msg", [
    (None, {}, r"must be an array of real numbers, got None"),
    ("abc", {}, r"must be an array of real numbers, got 'abc' \(a string\)"),
    (True, {}, r"must be an array of real numbers, got True \(a bool\)"),
    ([True, False], {}, r"\(bools\)"),
    ([1 + 1j, 2], {}, r"\(complex\)"),
    (["a", "b"], {}, r"\(strings\)"),
    ([[1, 2], [3]], {}, r"rectangular|ragged"),
    ([1.0, None], {}, r"not all numbers"),
    ([1.0, 2.0, 3.0], dict(shape=(None, 2)), r"must have shape \(n, 2\), got shape \(3,\)"),
    (np.zeros((2, 3)), dict(shape=(2, 2)), r"must have shape \(2, 2\), got shape \(2, 3\)"),
    ([1.0, np.nan], {}, r"must be finite, got nan at index 1$"),
    ([[0.0, 1.0], [np.inf, 0.0]], {}, r"must be finite, got inf at index \(1, 0\)$"),
    ([1.0, np.nan], dict(finite=False), r"must be free of NaN, got nan at index 1$"),
    ([1.0, -2.0], dict(low=0.0), r"must be >= 0 entry by entry, got -2.0 at index 1$"),
    ([], dict(nonempty=True), r"must not be empty"),
    ((True, 0, 0), {}, r"\(bools among the numbers\)$"),                      # not ints
    ([1.5, True], {}, r"\(bools among the numbers\)$"),                    # not floats
    ([[0.5, 1.0], [np.True_, 2.0]], {}, r"\(bools among the numbers\)$"),
    (np.nan, {}, r"must be finite, got nan at index \(\)$"),                 # 0-d arrays too
    (np.array(-1.0), dict(low=0.0), r"must be >= 0 entry by entry, got -1.0 at index \(\)$"),
    ([1.0, 2.0], dict(shape=(3,), broadcast=True), r"must be a number or have shape \(3,\)"),
])
def test_bad_arrays_name_the_argument_and_say_what_is_wrong(value, kw, msg):
    with pytest.raises(ValueError, match=r"^q " + ".*" + msg):
        checks.array(value, "q", **kw)


def test_inf_entries_allowed_when_asked():
    a = checks.array([-np.inf, 0.0, np.inf], "lower", finite=False)
    assert np.isinf(a[0]) and np.isinf(a[2])


def test_broadcast_gives_one_per_entry():
    assert checks.array(2, "tau", shape=(3,), broadcast=True).tolist() == [2.0] * 3
    assert checks.array([1, 2], "tau", shape=(2,), broadcast=True).tolist() == [1.0, 2.0]


def test_matrices_dense_and_sparse():
    M = checks.matrix(np.eye(3), "M", square=True)
    assert M.shape == (3, 3)
    S = checks.matrix(sp.eye(3, format="csc"), "M", square=True, sparse=True)
    assert sp.issparse(S) and S.shape == (3, 3)
    with pytest.raises(ValueError, match=r"^M must be a dense array, got a sparse matrix$"):
        checks.matrix(sp.eye(3), "M")
    with pytest.raises(ValueError, match=r"^M must be a square matrix, got shape \(2, 3\)$"):
        checks.matrix(np.zeros((2, 3)), "M", square=True)
    with pytest.raises(ValueError, match=r"^B must have shape \(n, 4\), got shape \(2, 3\)$"):
        checks.matrix(sp.csr_matrix((2, 3)), "B", shape=(None, 4), sparse=True)
    bad = sp.csr_matrix(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match=r"^B must be finite"):
        checks.matrix(bad, "B", sparse=True)
    with pytest.raises(ValueError, match=r"^M must have shape \(n, n\), got shape \(3,\)$"):
        checks.matrix(np.ones(3), "M")


def test_choices():
    assert checks.choice("T6", "element", ("T3", "T6")) == "T6"
    assert checks.choice(np.str_("T3"), "element", ("T3", "T6")) == "T3"
    assert checks.choice(2, "order", (1, 2)) == 2
    assert checks.choice(True, "line_search", (True, False, "fallback")) is True
    for v, msg in (("Q4", "got 'Q4'"), (True, r"got True \(a bool\)"), (1, "got 1"),
                   ([1], r"got \[1\]"), (None, "got None"), ({}, r"got \{\}")):
        with pytest.raises(ValueError, match=r"^element must be one of 'T3', 'T6', " + msg):
            checks.choice(v, "element", ("T3", "T6"))
    with pytest.raises(ValueError, match=r"^order must be one of 1, 2, got True \(a bool\)$"):
        checks.choice(True, "order", (1, 2))         # True == 1, but a bool is no order


def test_unit_quaternions_to_a_stated_tolerance():
    q = np.array([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]])
    assert checks.quaternions(q, "Q") is not None
    assert checks.quaternions(q * (1 + 1e-9), "Q").shape == (2, 4)
    with pytest.raises(ValueError, match=r"^Q must hold unit quaternions \(\| \|q\| - 1 \| <= "
                                         r"1e-12\), got \|q\| = 1 in row 1$"):
        checks.quaternions(q * np.array([[1.0], [1 + 1e-9]]), "Q", tol=1e-12)
    with pytest.raises(ValueError, match=r"got \|q\| = 0 in row 0"):
        checks.quaternions(np.zeros((1, 4)), "Q")
    with pytest.raises(ValueError, match=r"^Q must have shape \(n, 4\)"):
        checks.quaternions(np.zeros((2, 3)), "Q")
    with pytest.raises(ValueError, match=r"^Q must be finite"):
        checks.quaternions([[np.nan, 0, 0, 0]], "Q")


def test_model_kind_says_what_was_wanted_and_what_came():
    class Rod:
        pass

    class Rod3D:
        pass

    want = "a planar rod (lib.rod.Rod, made by lib.rod.make_rod)"
    r = Rod()
    assert checks.kind(r, "rod", Rod, want) is r
    with pytest.raises(ValueError, match=r"^rod must be a planar rod \(lib.rod.Rod, made by "
                                         r"lib.rod.make_rod\), got a Rod3D$"):
        checks.kind(Rod3D(), "rod", Rod, want)
    with pytest.raises(ValueError, match=r"got None$"):
        checks.kind(None, "rod", Rod, want)
    with pytest.raises(ValueError, match=r"got an int$"):
        checks.kind(3, "rod", (Rod, Rod3D), "a rod")


def test_callables():
    f = lambda x: x
    assert checks.function(f, "force") is f
    for v in (None, 3.0, "f", np.zeros(2)):
        with pytest.raises(ValueError, match=r"^force must be callable, got "):
            checks.function(v, "force")


def test_no_check_raises_type_error_on_any_input():
    odd = [None, "x", b"x", True, 1 + 2j, object(), [], [[1], [2, 3]], {}, {"a": 1}, set(),
           np.array(["a"]), np.array([1, 2], dtype=object), sp.eye(2), lambda: 0]
    calls = [lambda v: checks.real(v, "x"), lambda v: checks.integer(v, "x"),
             lambda v: checks.boolean(v, "x"), lambda v: checks.array(v, "x"),
             lambda v: checks.vector(v, "x", 2), lambda v: checks.matrix(v, "x"),
             lambda v: checks.choice(v, "x", ("a", 1)), lambda v: checks.quaternions(v, "x"),
             lambda v: checks.function(v, "x"), lambda v: checks.positive(v, "x")]
    for call in calls:
        for v in odd:
            try:
                call(v)
            except ValueError as err:
                assert str(err).startswith("x ")


@pytest.mark.parametrize("value, kw, message", [
    (math.nan, {}, "tau must be a real number, got nan"),
    (math.inf, {}, "tau must be finite"),
    (-1.0, dict(low=0.0), r"tau must be >= 0"),
])
def test_broadcast_to_no_entries_still_checks_the_number(value, kw, message):
    # "a number or one per tendon" with no tendons: the number is still looked at
    with pytest.raises(ValueError, match=message):
        checks.array(value, "tau", shape=(0,), broadcast=True, **kw)
    assert checks.array(2.0, "tau", shape=(0,), broadcast=True, low=0.0).shape == (0,)
    assert checks.array(math.inf, "tau", shape=(0,), broadcast=True, finite=False).shape == (0,)
