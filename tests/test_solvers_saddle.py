"""lib.solvers.saddle: KKT / Schur, Lemke's LCP, the DAQP QP, and their input checks.

Properties: the QP's minimiser equals an independent bounded least-squares solve
(scipy.optimize.lsq_linear on the Cholesky factor), its multipliers satisfy the KKT
conditions; every bad input -- NaN, a shape that does not match, a non-convex H,
lower > upper -- is a ValueError naming the argument (a NaN used to come back as an
"optimal" [nan, 0], mismatched shapes as "not convex"); an infeasible QP is a
SolveError saying so; the LCP is general (M, q) -> z and checks its input the same
way; the moved names are the ones lib.constraints and lib.actuation export.
(The KKT/Schur and LCP properties are tested in tests/test_constraints.py.)
"""
import numpy as np
import pytest
from scipy.optimize import lsq_linear

from lib import actuation, constraints
from lib.core.errors import ConvergenceError, SolveError
from lib.solvers import saddle


def test_moved_names_are_re_exported():
    assert actuation.qp_solve is saddle.qp_solve
    for name in ("kkt_matrix", "kkt_solve", "schur_solve", "constraint_rank", "solve_lcp",
                 "LCPResult"):
        assert getattr(constraints, name) is getattr(saddle, name)


@pytest.mark.parametrize("seed", range(6))
def test_qp_minimiser_equals_bounded_least_squares(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    X = rng.standard_normal((n, n))
    H = X @ X.T + 0.1 * np.eye(n)
    f = 3 * rng.standard_normal(n)
    lo, hi = -rng.random(n), rng.random(n)
    if seed % 2:
        lo[0] = -np.inf                           # a missing bound
    x, lam, lam_A = saddle.qp_solve(H, f, lo, hi)
    L = np.linalg.cholesky(H)                     # 1/2 x^T H x + f^T x = 1/2 |L^T x + L^-1 f|^2 + c
    ref = lsq_linear(L.T, -np.linalg.solve(L, f), bounds=(lo, hi), tol=1e-14, method="bvls").x
    assert np.abs(x - ref).max() <= 1e-9 * (1 + np.abs(ref).max())
    assert np.abs(H @ x + f + lam).max() <= 1e-10 * (1 + np.abs(f).max())
    assert lam_A.shape == (0,)
    assert np.all(lam[lam > 0] > 0) and np.allclose(x[lam > 0], hi[lam > 0], atol=1e-13)
    assert np.allclose(x[lam < 0], lo[lam < 0], atol=1e-13)


def test_qp_with_general_rows():
    H, f = np.eye(2), np.array([-2.0, -2.0])
    x, lam, lam_A = saddle.qp_solve(H, f, -np.inf, np.inf, A=[[1.0, 1.0]], a_lower=-np.inf,
                                    a_upper=1.0)
    assert np.allclose(x, [0.5, 0.5], atol=1e-12) and lam_A[0] == pytest.approx(1.5)
    assert np.allclose(H @ x + f + lam + np.array([[1.0, 1.0]]).T @ lam_A, 0, atol=1e-12)


@pytest.mark.parametrize("args,kw,name,what", [
    ((np.eye(2), [np.nan, 1.0], 0.0, 1.0), {}, "f", "finite"),
    ((np.array([[1.0, np.nan], [0.0, 1.0]]), [1.0, 1.0], 0.0, 1.0), {}, "H", "finite"),
    ((np.eye(2), [1.0, 1.0], [0.0, np.nan], 1.0), {}, "lower", "NaN"),
    ((np.eye(2), [1.0, 1.0], 0.0, np.nan), {}, "upper", "NaN"),
    ((np.eye(3), [1.0, 1.0], 0.0, 1.0), {}, "H", r"shape \(2, 2\) to match f"),
    ((np.eye(2), [1.0, 1.0], [0.0, 0.0, 0.0], 1.0), {}, "lower", r"shape \(2,\)"),
    ((np.eye(2), [1.0, 1.0], 1.0, 0.0), {}, "lower", "<= upper"),
    ((np.array([[1.0, 2.0], [0.0, 1.0]]), [1.0, 1.0], 0.0, 1.0), {}, "H", "symmetric"),
    ((-np.eye(2), [1.0, 1.0], 0.0, 1.0), {}, "H", "not strictly convex"),
    ((np.zeros((2, 2)), [1.0, 1.0], 0.0, 1.0), {}, "H", "nonzero"),
    ((np.eye(2), [1.0, 1.0], 0.0, 1.0), dict(A=[[1.0, 1.0, 1.0]], a_lower=0, a_upper=1), "A",
     r"shape \(n, 2\)"),
    ((np.eye(2), [1.0, 1.0], 0.0, 1.0), dict(A=[[1.0, 1.0]], a_lower=[0, 0], a_upper=1),
     "a_lower", "shape"),
    ((np.eye(2), [1.0, 1.0], 0.0, 1.0), dict(a_lower=0.0), "A", "must be given"),
    ((np.eye(2), "ab", 0.0, 1.0), {}, "f", "real numbers"),
    ((None, [1.0, 1.0], 0.0, 1.0), {}, "H", "real numbers"),
])
def test_qp_bad_input_is_a_value_error_naming_the_argument(args, kw, name, what):
    with pytest.raises(ValueError, match=rf"^{name} .*{what}"):
        saddle.qp_solve(*args, **kw)


def test_an_infeasible_qp_is_a_solve_error_saying_so():
    with pytest.raises(SolveError) as err:
        saddle.qp_solve(np.eye(2), [0.0, 0.0], 0.0, 1.0, A=[[1.0, 1.0]], a_lower=3.0,
                        a_upper=4.0)
    assert err.value.reason == "infeasible" and "qp_solve (DAQP)" in str(err.value)


def test_lcp_is_general_and_checks_its_input():
    # a nonsymmetric P-matrix: w = M z + q >= 0, z >= 0, z.w = 0
    M = np.array([[2.0, 1.0], [-1.0, 3.0]])
    r = saddle.solve_lcp(M, [-1.0, -2.0])
    assert np.all(r.lam >= 0) and np.all(r.w >= -1e-15) and abs(r.lam @ r.w) < 1e-14
    assert np.allclose(M @ r.lam + [-1.0, -2.0], r.w, atol=1e-15)
    for args, name in (((np.ones((2, 3)), [1.0, 1.0]), "A"),
                       (([[np.nan]], [1.0]), "A"), ((np.eye(2), [1.0]), "b"),
                       ((np.eye(1), [np.nan]), "b"), ((np.eye(1), [1.0], 0.0), "tol"),
                       ((np.eye(1), [1.0], 1e-10, 2.5), "max_pivots"),
                       ((np.zeros((0, 0)), []), "A")):
        with pytest.raises(ValueError, match=rf"^{name} "):
            saddle.solve_lcp(*args)
    with pytest.raises(ConvergenceError) as err:
        saddle.solve_lcp([[-1.0]], [-1.0])
    assert err.value.reason == "ray termination" and str(err.value).startswith("Lemke: ")


def test_kkt_bad_input_names_the_argument():
    for args, name in (((np.eye(2), [[1.0, 1.0, 1.0]], [0.0, 0.0], [0.0]), "B"),
                       ((np.eye(2), [[1.0, 1.0]], [0.0, np.nan], [0.0]), "f"),
                       ((np.ones((2, 3)), [[1.0, 1.0]], [0.0, 0.0], [0.0]), "M"),
                       ((np.eye(2), [[1.0, 1.0]], [0.0, 0.0], [0.0, 1.0]), "gamma")):
        for solve in (saddle.kkt_solve, saddle.schur_solve):
            with pytest.raises(ValueError, match=rf"^{name} "):
                solve(*args)
