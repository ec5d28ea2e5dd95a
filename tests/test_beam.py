"""Properties of lib.beam: roots, continuum limits, elastica invariants."""
import math

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq

from lib import beam, rod


def test_euler_bernoulli_roots_satisfy_frequency_equation():
    Om = beam.euler_bernoulli_omegas(8)
    b = np.sqrt(Om)
    assert np.all(np.abs(np.cos(b) * np.cosh(b) + 1) <= 1e-12 * np.cosh(b))
    assert np.all(np.diff(Om) > 0)
    # classical values and the asymptote beta_k -> (2k - 1) pi / 2
    assert np.allclose(Om[:3], [3.5160, 22.0345, 61.6972], atol=5e-5)
    assert abs(b[-1] - 15 * np.pi / 2) < 1e-6


def timoshenko_by_transfer_matrix(r, nu, k):
    """Independent: constant-coefficient ODE, y(1) = expm(A) y(0), det of the free-end block."""
    ks = 6 * (1 + nu) / (7 + 6 * nu)
    EA = 4 / r**2
    S = ks * EA / (2 * (1 + nu))
    rI = r * r / 4

    def det(W):
        A = np.array([[0, 1, 1 / S, 0], [0, 0, 0, 1], [-W * W, 0, 0, 0], [0, -rI * W * W, -1, 0]])
        E = expm(A)
        return np.linalg.det(E[2:, 2:])

    grid = np.linspace(0.5, 1.02 * beam.euler_bernoulli_omegas(k)[-1], 400 * k)
    d = np.array([det(W) for W in grid])
    i = np.nonzero(d[:-1] * d[1:] < 0)[0][:k]
    return np.array([brentq(det, grid[j], grid[j + 1], xtol=1e-13) for j in i])


def test_timoshenko_solve_bvp_matches_transfer_matrix_root_finding():
    # parameters the chapter does not use
    om = beam.timoshenko_omegas(3, 0.03, nu=0.3)
    ref = timoshenko_by_transfer_matrix(0.03, 0.3, 3)
    assert np.allclose(om, ref, rtol=1e-8)


def test_timoshenko_lies_below_euler_bernoulli_and_tends_to_it_as_r_squared():
    EB = beam.euler_bernoulli_omegas(2)
    rs = np.array([0.02, 0.01, 0.005])
    gap = np.array([EB - beam.timoshenko_omegas(2, r) for r in rs])
    assert np.all(gap > 0)
    for m in range(2):
        slope = np.polyfit(np.log(rs), np.log(gap[:, m]), 1)[0]
        assert abs(slope - 2.0) < 0.02


def test_discrete_rod_richardson_limit_matches_timoshenko():
    # shear model at parameters the chapter does not use: r/L = 0.03, nu = 0.3
    om = [rod.frequencies(rod.make_rod(n, 0.03, nu=0.3), 2) for n in (40, 80)]
    rich = (4 * om[1] - om[0]) / 3
    assert np.allclose(rich, beam.timoshenko_omegas(2, 0.03, nu=0.3), rtol=2e-5)


def test_shear_coefficient_is_cowper():
    assert math.isclose(beam.timoshenko_shear_coefficient(0.5), 0.9)
    assert math.isclose(beam.timoshenko_shear_coefficient(0.0), 6 / 7)


def test_elastica_small_load_is_linear_cantilever():
    a = 1e-5
    x, y = beam.elastica_tip(a)
    assert math.isclose(y / a, -1 / 3, rel_tol=1e-6)
    assert math.isclose(1 - x, a**2 / 15, rel_tol=1e-3)  # axial shortening int w'^2/2


def test_elastica_moment_balance_holds_along_the_rod():
    # EI theta'(s) = -P (x(1) - x(s)): the bending moment of the dead tip load
    a = 4.0
    s = np.linspace(0, 1, 41)
    x, y, th = beam.elastica_shape(a, s)
    h = 1e-5
    si = s[1:-1]   # central differences at interior stations
    dth = (beam.elastica_shape(a, si + h)[2] - beam.elastica_shape(a, si - h)[2]) / (2 * h)
    assert np.allclose(dth, -a * (x[-1] - x[1:-1]), atol=1e-7)
    # the centre line is inextensible: |p'| = 1 -> length of the polyline -> 1
    assert abs(np.hypot(np.diff(x), np.diff(y)).sum() - 1) < 1e-3


def test_elastica_is_odd_in_the_load_and_bounded():
    x1, y1 = beam.elastica_tip(2.5)
    x2, y2 = beam.elastica_tip(-2.5)
    assert x1 == x2 and y1 == -y2 and y1 < 0
    for a in (1.0, 5.0, 20.0):
        x, y = beam.elastica_tip(a)
        assert x**2 + y**2 < 1 and x > 0


def test_arc_tip_is_the_circle_and_continuous_at_zero():
    x, y = beam.arc_tip(np.pi)
    assert abs(x) < 1e-15 and math.isclose(y, 2 / np.pi)
    for a in (1e-4 * 0.999, 1e-4 * 1.001):
        xs, ys = beam.arc_tip(a)
        assert math.isclose(xs, math.sin(a) / a, rel_tol=1e-15)
        assert math.isclose(ys, (1 - math.cos(a)) / a, rel_tol=1e-7)


@pytest.mark.parametrize("call,name", [
    (lambda: beam.euler_bernoulli_omegas(0), "k"),
    (lambda: beam.timoshenko_omegas(2, 0.0), "r_over_L"),
    (lambda: beam.timoshenko_omegas(2, "thin"), "r_over_L"),
    (lambda: beam.timoshenko_omegas(2, float("inf")), "r_over_L"),
    (lambda: beam.timoshenko_omegas(2, 0.04, nu=0.7), "nu"),
    (lambda: beam.timoshenko_omegas(2, 0.04, nu="half"), "nu"),
    (lambda: beam.timoshenko_omegas(2, 0.04, ks=-1), "ks"),
    (lambda: beam.timoshenko_omegas(2, 0.04, tol=0.0), "tol"),
    (lambda: beam.timoshenko_omegas(2, 0.04, nodes=2), "nodes"),
    (lambda: beam.elastica_tip(float("nan")), "alpha"),
    (lambda: beam.elastica_tip("large"), "alpha"),
    (lambda: beam.arc_tip(float("inf")), "kappa_L"),
    (lambda: beam.arc_tip(None), "kappa_L"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_solve_bvp_failure_is_wrapped_and_names_mode_and_radius(monkeypatch):
    class Failed:
        status, message, p = 1, "The maximum number of mesh nodes is exceeded.", [1.0]

    monkeypatch.setattr(beam, "solve_bvp", lambda *a, **k: Failed())
    with pytest.raises(beam.BeamSolveError, match=r"mode 1 \(r_over_L=0.04\).*status 1"):
        beam.timoshenko_omegas(2, 0.04)

    def raising(*a, **k):
        raise ValueError("`y` is not finite")     # what SciPy raises on a bad guess

    monkeypatch.setattr(beam, "solve_bvp", raising)
    with pytest.raises(beam.BeamSolveError, match=r"r_over_L=0.04.*not finite"):
        beam.timoshenko_omegas(1, 0.04)


def test_elastica_bracket_and_ivp_failures_are_wrapped_and_name_alpha(monkeypatch):
    def no_sign_change(*a, **k):
        raise ValueError("f(a) and f(b) must have different signs")

    monkeypatch.setattr(beam, "brentq", no_sign_change)
    with pytest.raises(beam.BeamSolveError, match=r"alpha=2.0.*different signs"):
        beam.elastica_tip(2.0)
    monkeypatch.undo()

    class Failed:
        status, message = -1, "Required step size is less than spacing between numbers."

    monkeypatch.setattr(beam, "solve_ivp", lambda *a, **k: Failed())
    with pytest.raises(beam.BeamSolveError, match=r"solve_ivp failed.*alpha=.*status -1"):
        beam.elastica_shape(1.0)
    assert issubclass(beam.BeamSolveError, RuntimeError)


def test_a_large_load_matches_the_elastica_asymptote_and_a_larger_one_says_it_is_unresolved():
    # alpha -> inf: the clamp curvature tends to sqrt(2 alpha) and (first integral and
    # elliptic integrals) x(1) = sqrt(2/alpha), y(1) = -1 + (2 - sqrt 2)/sqrt(alpha), up to
    # terms in exp(-2 sqrt(alpha)) (1e-19 at alpha = 500)
    for a in (100.0, 500.0):
        x, y = beam.elastica_tip(a)
        assert math.isclose(x, math.sqrt(2 / a), rel_tol=2e-6)
        assert math.isclose(y, -1 + (2 - math.sqrt(2)) / math.sqrt(a), rel_tol=1e-7)
    # past it the free end is not resolved: an error, never a wrong shape
    for a in (1200.0, 2000.0, 1e4):
        with pytest.raises(beam.BeamSolveError, match=f"alpha={a!r}"):
            beam.elastica_tip(a)


def test_extreme_legal_counts_and_radii():
    # 300 Euler-Bernoulli roots (cosh overflows past beta = 710: no warning, no NaN)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Om = beam.euler_bernoulli_omegas(300)
    assert math.isclose(np.sqrt(Om[-1]), (2 * 300 - 1) * np.pi / 2, rel_tol=1e-15)
    # a very slender Timoshenko beam is Euler-Bernoulli to O(r^2)
    assert math.isclose(beam.timoshenko_omegas(1, 1e-4)[0], Om[0], rel_tol=1e-7)
    with pytest.raises(ValueError, match="r_over_L"):
        beam.timoshenko_omegas(1, 1e-200)              # EA = 4 / r^2 is not a float
