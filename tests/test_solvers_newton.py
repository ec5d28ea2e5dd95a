"""lib.solvers.newton: the one safeguarded Newton method.

Properties: every acceptance policy converges quadratically near a root and to the
root an independent bracketing solver finds; the admissibility hook keeps every
accepted iterate admissible; the update hook solves on a manifold; a free mask
leaves the other unknowns alone; a residual whose round-off floor exceeds
``tol * scale`` converges with the absolute floor (and stalls without it, as the old
incompressible load path did); every failure is a SolveError saying why, at which
iteration, with which residual; every bad option is a ValueError naming it.
(The reproduction of each existing loop is in tests/equivalence/.)
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq

from lib.core.errors import NewtonFailure, SolveError
from lib.core.linalg import factor
from lib.solvers import load_path, newton_solve

EPS = np.finfo(float).eps


def cubic(x):
    """R = x + x^3 - 1 per entry (the energy is x^2/2 + x^4/4 - x)."""
    return x + x**3 - 1.0, sp.diags(1 + 3 * x**2).tocsr(), 1.0


def cubic_energy(x):
    return float(np.sum(x**2 / 2 + x**4 / 4 - x))


ROOT = brentq(lambda y: y + y**3 - 1.0, 0.0, 1.0, xtol=1e-15)


@pytest.mark.parametrize("kw", [dict(accept="residual"),
                                dict(accept="energy-or-residual", energy=cubic_energy),
                                dict(accept="natural"), dict(accept="none"),
                                dict(roundoff="correction"), dict(roundoff="residual"),
                                dict(roundoff="extra", tol=0.0)])
def test_every_policy_finds_the_bracketed_root_quadratically(kw):
    x, info = newton_solve(cubic, np.full(3, 4.0), record=True, **kw)
    assert np.abs(x - ROOT).max() <= 4 * EPS
    h = np.array(info.history)
    h = h[h > 1e-12]
    rates = np.log(h[1:]) / np.log(h[:-1])
    assert rates[-1] > 1.8                           # quadratic at the end


def test_line_search_rescues_what_plain_newton_cannot():
    def fun(x):
        with np.errstate(over="ignore"):
            return np.arctan(x), np.diag(1 / (1 + x**2)), 1.0

    with pytest.raises(NewtonFailure):
        newton_solve(fun, np.array([3.0]), line_search=False)
    for accept, extra in (("residual", {}), ("natural", {}),
                          ("energy-or-residual",
                           dict(energy=lambda x: float(x[0] * np.arctan(x[0])
                                                      - 0.5 * np.log1p(x[0] ** 2))))):
        x, info = newton_solve(fun, np.array([3.0]), accept=accept, **extra)
        assert abs(x[0]) < 1e-10 and info.backtracks > 0, accept


def test_a_non_finite_trial_is_cut_back_by_every_line_search():
    # R = log x: the full step from 10 lands at -13, where R is NaN
    def fun(x):
        with np.errstate(invalid="ignore"):
            return np.log(x), np.diag(1 / x), 1.0

    energy = lambda x: float(x[0] * np.log(x[0]) - x[0]) if x[0] > 0 else np.nan
    for accept, extra in (("residual", {}), ("natural", {}),
                          ("energy-or-residual", dict(energy=energy))):
        with np.errstate(invalid="ignore"):
            x, info = newton_solve(fun, np.array([10.0]), accept=accept, **extra)
        assert abs(x[0] - 1.0) < 1e-12 and info.backtracks > 0, accept


def test_admissible_trial_points_only():
    # R = log x needs x > 0: the full Newton step from 10 lands at -13
    fun = lambda x: (np.log(x), np.diag(1 / x), 1.0)
    seen = []

    def admissible(x):
        seen.append(float(x[0]))
        return bool(x[0] > 0)

    x, info = newton_solve(fun, np.array([10.0]), accept="none", admissible=admissible)
    assert abs(x[0] - 1.0) < 1e-12 and info.backtracks > 0
    assert min(seen) < 0                               # an inadmissible trial was cut back
    with pytest.raises(NewtonFailure) as err:
        newton_solve(fun, np.array([10.0]), accept="none", admissible=lambda x: False,
                     max_backtracks=3, where="log")
    assert err.value.reason == "inadmissible" and err.value.iteration == 0
    assert "every trial point inadmissible" in str(err.value)


def test_update_hook_solves_on_the_circle():
    # state: a unit vector p; unknown: the rotation angle; R = sin(angle to the target)
    target = np.array([np.cos(1.2), np.sin(1.2)])

    def fun(p):
        s = p[0] * target[1] - p[1] * target[0]
        c = p @ target
        return np.array([-s]), np.array([[c]])

    def rotate(p, dx, t):
        a = t * dx[0]
        return np.array([np.cos(a) * p[0] - np.sin(a) * p[1], np.sin(a) * p[0] + np.cos(a) * p[1]])

    p, info = newton_solve(fun, np.array([1.0, 0.0]), update=rotate, accept="natural")
    assert np.allclose(p, target, atol=1e-12) and abs(np.linalg.norm(p) - 1) < 1e-15


def test_free_mask_leaves_the_other_unknowns_alone():
    x0 = np.array([4.0, 7.0, -3.0, 2.0])
    for free in (np.array([True, False, True, False]), np.array([0, 2])):
        x, _ = newton_solve(cubic, x0, free=free)
        assert x[1] == 7.0 and x[3] == 2.0 and np.allclose(x[[0, 2]], ROOT, atol=1e-15)


def test_factor_and_lazy_tangents():
    built = []

    def fun(x):
        def J():
            built.append(1)
            return factor(sp.diags(1 + 3 * x**2).tocsr(), where="lazy")
        return x + x**3 - 1.0, J

    x, info = newton_solve(fun, np.full(2, 2.0))
    assert len(built) == info.iterations            # one tangent per iteration, none wasted
    # modified Newton: the tangent is refreshed every 3rd iteration only
    built.clear()
    x, info = newton_solve(fun, np.full(2, 2.0), reuse=3, maxiter=100)
    assert len(built) == -(-info.iterations // 3) and np.allclose(x, ROOT, atol=1e-14)


def test_record_and_callback_see_every_iterate():
    seen = []
    x, info = newton_solve(cubic, np.full(2, 3.0), record=True,
                           callback=lambda it, x, R: seen.append((it, float(np.abs(R).max()))))
    assert [s[0] for s in seen] == list(range(info.iterations + 1))
    assert np.allclose([s[1] for s in seen], info.history, rtol=0)
    with pytest.raises(NewtonFailure) as err:
        newton_solve(cubic, np.full(2, 3.0), maxiter=2, record=True)
    assert len(err.value.history) == 3                # the history of the failed solve too


# -------------------------------------------------------------------- the round-off floor
N_FLOOR, K_SIZE = 100, 1e10
K_FLOOR = K_SIZE * (2 * np.eye(N_FLOOR) - np.eye(N_FLOOR, k=1) - np.eye(N_FLOOR, k=-1))
X_STAR = 0.5 + np.random.default_rng(0).random(N_FLOOR)
F_STAR = K_FLOOR @ X_STAR + K_SIZE * X_STAR**3


def stiff(lam):
    """Stiff internal force against a nearly equal external one: the residual's round-off
    (~eps * 1e10 ~ 1e-6) is far above tol * scale (scale 1, the size of a *net* load)."""
    def fun(x):
        return (K_FLOOR @ x + K_SIZE * x**3 - lam * F_STAR,
                sp.csr_matrix(K_FLOOR + 3 * K_SIZE * np.diag(x**2)))

    def floor(x):                 # 64 eps x the terms summed into each entry
        return 64 * EPS * (np.abs(K_FLOOR) @ np.abs(x) + K_SIZE * np.abs(x)**3
                           + abs(lam) * np.abs(F_STAR))
    return fun, floor


def test_a_residual_below_its_round_off_floor_stalls_without_the_floor():
    fun, floor = stiff(1.0)
    with pytest.raises(NewtonFailure) as err:
        newton_solve(fun, np.zeros(N_FLOOR), 1e-10, 40, accept="none", roundoff="residual",
                     scale=1.0)
    assert err.value.reason == "maxiter"
    assert 1e-10 < err.value.residual < 1e-3            # stuck at round-off, not diverging


@pytest.mark.parametrize("kw", [dict(roundoff="residual"), dict(roundoff="correction")])
def test_the_absolute_floor_ends_it_at_the_solution(kw):
    fun, floor = stiff(1.0)
    x, info = newton_solve(fun, np.zeros(N_FLOOR), 1e-10, 40, accept="none", scale=1.0,
                           floor=floor, xtol=1e-14, xtol_rel=0.0, **kw)
    assert np.abs(x - X_STAR).max() <= 1e-14
    assert info.residual > 1e-10                      # the relative test could never pass
    # the default stop (a correction at round-off in x) gets there too
    x2, info2 = newton_solve(fun, np.zeros(N_FLOOR), 1e-10, 40, accept="none", scale=1.0)
    assert np.abs(x2 - X_STAR).max() <= 1e-14


def test_the_load_path_stalls_without_the_floor_and_completes_with_it():
    def solve_at(floor_on):
        def solve(lam, x):
            fun, floor = stiff(lam)
            return newton_solve(fun, x, 1e-10, 40, accept="none", scale=1.0, roundoff="residual",
                                floor=floor if floor_on else 0.0, where="stiff")
        return solve

    with pytest.raises(SolveError) as err:
        load_path(solve_at(False), np.zeros(N_FLOOR), steps=4, adaptive=True, max_cuts=3)
    assert err.value.reason == "cut limit" and err.value.load == 0.25 / 8
    assert "converged up to λ = 0" in str(err.value)
    x, path = load_path(solve_at(True), np.zeros(N_FLOOR), steps=4, adaptive=True)
    assert path.cuts == 0 and path.lam.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert np.abs(x - X_STAR).max() <= 1e-14


# ------------------------------------------------------------------------------ failures
@pytest.mark.parametrize("reason,fun,kw", [
    ("singular", lambda x: (x - 1.0, np.zeros((1, 1))), {}),
    ("singular", lambda x: (x - 1.0, sp.csr_matrix((1, 1))), {}),
    ("non-finite", lambda x: (np.log(x - 5.0), np.eye(1)), dict(line_search=False)),
    ("maxiter", lambda x: (np.arctan(x), np.diag(1 / (1 + x**2))), dict(line_search=False,
                                                                         maxiter=2)),
    ("line search", lambda x: (x**2 + 1.0, np.diag(2 * x)), {}),
    ("diverged", lambda x: (np.cbrt(x), np.diag(np.abs(x) ** (-2 / 3) / 3)),   # x -> -2x
     dict(accept="none", diverge=10.0)),
])
def test_failure_says_why_at_which_iteration_and_residual(reason, fun, kw):
    with np.errstate(all="ignore"), pytest.raises(NewtonFailure) as err:
        newton_solve(fun, np.array([3.0]), where="toy", **kw)
    e = err.value
    assert e.reason == reason and e.where == "toy" and e.iteration >= 0
    assert isinstance(e, SolveError) and str(e).startswith("toy: iteration ")
    if reason != "non-finite":
        assert np.isfinite(e.residual) and "residual" in str(e)


@pytest.mark.parametrize("kw,name", [
    (dict(tol=-1.0), "tol"), (dict(tol=np.nan), "tol"), (dict(maxiter=2.5), "maxiter"),
    (dict(maxiter=True), "maxiter"), (dict(accept="armijo"), "accept"),
    (dict(line_search="maybe"), "line_search"), (dict(line_search=None), "line_search"),
    (dict(max_backtracks=-1), "max_backtracks"), (dict(roundoff="floor"), "roundoff"),
    (dict(reuse=0), "reuse"), (dict(xtol=-1e-3), "xtol"), (dict(diverge=0.0), "diverge"),
    (dict(accept="energy-or-residual"), "energy"), (dict(free=[0.5]), "free"),
])
def test_bad_options_are_value_errors_naming_them(kw, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        newton_solve(cubic, np.ones(1), **kw)


def test_fun_must_return_a_residual_and_a_tangent():
    with pytest.raises(ValueError, match=r"^fun must return \(R, J\)"):
        newton_solve(lambda x: x, np.ones(1))
