"""lib.core.linalg: one factorisation wrapper, and lib.core.errors: one error family.

Properties: every storage (sparse, dense, banded) solves to round-off against an
independent dense reference; an exactly singular, a non-finite or a not positive
definite matrix is a SolveError naming what was being solved, never SciPy's own error
or warning; the banded Cholesky falls back to LU for an indefinite matrix; every older
error class of lib is a SolveError and keeps its attributes.
"""
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from lib.core import linalg
from lib.core.errors import ConvergenceError, NewtonError, NewtonFailure, SolveError


def spd_banded(n, u, seed):
    """A random SPD matrix of half-bandwidth u, dense and in LAPACK upper storage."""
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    for k in range(u + 1):
        d = rng.standard_normal(n - k)
        A += np.diag(d, k) + (np.diag(d, -k) if k else 0)
    A += (np.abs(A).sum(axis=1).max() + 1) * np.eye(n)
    ab = np.zeros((u + 1, n))
    for k in range(u + 1):
        ab[u - k, k:] = np.diag(A, k)
    return A, ab


def reference_solve(A, b):
    """Gaussian elimination with partial pivoting, written out (no LAPACK)."""
    A, b = A.astype(float).copy(), b.astype(float).copy()
    n = len(b)
    for k in range(n):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        A[[k, p]], b[[k, p]] = A[[p, k]], b[[p, k]]
        f = A[k + 1:, k] / A[k, k]
        A[k + 1:] -= np.outer(f, A[k])
        b[k + 1:] -= f * b[k]
    x = np.zeros(n)
    for k in range(n - 1, -1, -1):
        x[k] = (b[k] - A[k, k + 1:] @ x[k + 1:]) / A[k, k]
    return x


@pytest.mark.parametrize("storage", ["dense", "sparse", "banded"])
def test_every_storage_solves_to_round_off(storage):
    A, ab = spd_banded(30, 4, seed=1)
    b = np.random.default_rng(2).standard_normal(30)
    M = {"dense": A, "sparse": sp.csr_matrix(A), "banded": None}[storage]
    f = linalg.factor(M, where="test", banded=ab if storage == "banded" else None)
    assert f.kind == {"dense": "dense LU", "sparse": "sparse LU", "banded": "banded Cholesky"}[storage]
    x = f.solve(b)
    assert np.abs(x - reference_solve(A, b)).max() <= 1e-13 * np.abs(x).max()
    X = f.solve(np.column_stack([b, 2 * b]))                  # several right-hand sides
    assert np.allclose(X[:, 1], 2 * x, rtol=1e-14)


def test_banded_cholesky_falls_back_to_lu_for_an_indefinite_matrix():
    A, ab = spd_banded(12, 2, seed=3)
    A2, ab2 = A - 2 * np.abs(A).sum(axis=1).max() * np.diag(np.r_[np.zeros(6), np.ones(6)]), ab.copy()
    ab2[2] = np.diag(A2)
    b = np.arange(12.0)
    built = []

    def later():
        built.append(1)
        return sp.csr_matrix(A2)

    f = linalg.factor(later, banded=ab2, where="indefinite")
    assert f.kind == "sparse LU" and built == [1]                  # built only when needed
    assert np.allclose(f.solve(b), reference_solve(A2, b), rtol=1e-12)
    g = linalg.factor(None, banded=ab2)
    assert g.kind == "banded LU"
    assert np.allclose(g.solve(b), reference_solve(A2, b), rtol=1e-12)
    assert linalg.factor(later, banded=ab).kind == "banded Cholesky" and built == [1]


@pytest.mark.parametrize("M", [np.zeros((3, 3)), sp.csr_matrix((3, 3)),
                               np.array([[1.0, 2.0], [2.0, 4.0]]),
                               sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))])
def test_a_singular_matrix_is_a_solve_error_naming_what_was_solved(M):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                           # no SciPy warning leaks
        with pytest.raises(SolveError) as err:
            linalg.solve(M, np.ones(M.shape[0]), where="the tangent of rod.static")
    assert err.value.reason == "singular" and err.value.where == "the tangent of rod.static"
    assert str(err.value).startswith("the tangent of rod.static: tangent singular")


@pytest.mark.parametrize("M", [np.array([[1.0, np.nan], [0.0, 1.0]]),
                               sp.csr_matrix(np.array([[np.inf, 0.0], [0.0, 1.0]]))])
def test_a_non_finite_matrix_is_named_as_such(M):
    with pytest.raises(SolveError) as err:
        linalg.solve(M, np.ones(2), where="K u = f")
    assert err.value.reason == "non-finite" and "non-finite" in str(err.value)


def test_ill_conditioned_but_regular_is_solved_silently():
    A = np.array([[1.0, 1.0], [1.0, 1.0 + 1e-15]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = linalg.solve(A, np.array([2.0, 2.0 + 1e-15]))
    assert np.all(np.isfinite(x))


def test_bad_right_hand_sides_and_matrices():
    f = linalg.factor(np.eye(2))
    with pytest.raises(ValueError, match=r"^b must have shape \(2,\)"):
        f.solve(np.ones(3))
    with pytest.raises(SolveError, match="right-hand side is not finite"):
        f.solve([np.nan, 1.0])
    with pytest.raises(ValueError, match=r"^A must be a square matrix \(to solve B\)"):
        linalg.factor(np.ones((2, 3)), where="B")
    with pytest.raises(SolveError) as err:
        linalg.cholesky_banded(np.array([[0.0, 1.0], [1.0, -1.0]]))
    assert err.value.reason == "not positive definite"


def test_solve_banded_general():
    A = np.diag([4.0, 5.0, 6.0]) + np.diag([1.0, 1.0], 1) + np.diag([2.0, 2.0], -1)
    ab = np.array([[0.0, 1.0, 1.0], [4.0, 5.0, 6.0], [2.0, 2.0, 0.0]])
    b = np.array([1.0, 2.0, 3.0])
    assert np.allclose(linalg.solve_banded((1, 1), ab, b), reference_solve(A, b), rtol=1e-14)


# ------------------------------------------------------------------------- the error family
def test_every_older_error_class_is_a_solve_error():
    from lib import actuation, beam, constraints, fem, incompressible, integrate, rod, rod3d
    classes = [integrate.NewtonError, integrate.NewtonFailure, integrate.RelaxationError,
               rod.StaticSolveError, rod3d.StaticSolveError, beam.BeamSolveError,
               fem.ConvergenceError, incompressible.ConvergenceError,
               constraints.ConvergenceError, actuation.ActuationSolveError]
    for cls in classes:
        assert issubclass(cls, SolveError) and issubclass(cls, RuntimeError), cls
    assert fem.ConvergenceError is constraints.ConvergenceError is ConvergenceError
    assert integrate.NewtonFailure is NewtonFailure and issubclass(NewtonFailure, NewtonError)
    # raised the old way (a message only), an older class keeps its message
    assert str(rod.StaticSolveError("the Hessian is singular")) == "the Hessian is singular"


def test_the_one_wording_is_built_from_the_attributes():
    e = SolveError(where="rod.static", step=3, nsteps=10, load=0.3, iteration=12,
                   residual=3.1e-4, tol=1e-10, reason="line search")
    assert str(e) == ("rod.static: load step 3/10 (λ = 0.3), iteration 12, residual 3.1e-04 "
                      "(tol 1.0e-10): line search failed")
    t = SolveError(where="Newmark Newton", step=7, time=0.7, iteration=4, residual=0.5,
                   relative=0.25, reason="maxiter", halvings=2)
    assert str(t) == ("Newmark Newton: step 7 (t = 0.7), iteration 4, residual 5.0e-01 "
                      "(relative 2.5e-01), after 2 halvings: iteration limit reached")
    t.halvings = 3                                   # set later, shown
    assert "after 3 halvings" in str(t)
    assert str(SolveError(reason="singular", message="K is singular")) == \
        "tangent singular; K is singular"


def test_located_copies_the_error_to_a_step_keeping_its_class_and_attributes():
    e = NewtonFailure(where="Newton", reason="line search", iteration=5, residual=2.0,
                      relative=1.0, tol=1e-10)
    at = e.located(4, 0.4)
    assert type(at) is NewtonFailure and (at.step, at.time) == (4, 0.4)
    assert (at.reason, at.iteration, at.residual) == ("line search", 5, 2.0)
    assert e.step is None                                             # the original unchanged
    assert str(at).startswith("Newton: step 4 (t = 0.4), iteration 5")
    lp = e.located(step=2, nsteps=5, load=0.4)
    assert str(lp).startswith("Newton: load step 2/5 (λ = 0.4), iteration 5")
    assert lp.args == (str(lp),)


def test_old_newton_failure_signature_and_pickling():
    e = NewtonFailure("budget spent", reason="maxiter", iteration=3, residual=1.0,
                      relative=0.5, step=2, time=0.2, halvings=1)
    assert (e.reason, e.iteration, e.step, e.time, e.halvings) == ("maxiter", 3, 2, 0.2, 1)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is NewtonFailure and str(back) == str(e) and back.step == 2
    plain = NewtonFailure("x")
    assert (plain.reason, plain.iteration, str(plain)) == ("maxiter", 0, "x")


def test_spd_sparse_matrices_use_banded_cholesky_and_agree_with_superlu():
    import scipy.sparse as sp
    from lib import fem
    m = fem.cantilever(20, 2, "T6", nu=0.45)
    rng = np.random.default_rng(0)
    P = fem.plane_strain_modulus(m) / 12 / m.mesh.length ** 2     # a loaded, stable state
    u = fem.static(m, fem.tip_shear_load(m, P), steps=2)
    K = fem.hessian(m, u).tocsr()[m.free][:, m.free]
    b = rng.standard_normal(K.shape[0])
    f = linalg.factor(K, spd=True)
    assert f.kind == "banded Cholesky"
    x_lu = linalg.factor(K).solve(b)
    assert np.abs(f.solve(b) - x_lu).max() <= 1e-10 * np.abs(x_lu).max()
    # unsymmetric, indefinite or wide-banded matrices go to SuperLU
    N = K.tolil()
    N[0, 5] += 1.0
    assert linalg.factor(N.tocsr(), spd=True).kind == "sparse LU"
    assert linalg.factor(-K, spd=True).kind == "sparse LU"
    p = rng.permutation(K.shape[0])
    assert linalg.factor(K[p][:, p], spd=True).kind == "sparse LU"
    # failures are still SolveErrors
    Z = sp.csr_matrix((3, 3))
    with pytest.raises(SolveError, match="singular"):
        linalg.factor(Z, spd=True)


def test_fem_static_with_banded_cholesky_equals_superlu_to_round_off(monkeypatch):
    from lib import fem
    m = fem.cantilever(20, 2, "T6", nu=0.45)
    P = 2.0 * fem.plane_strain_modulus(m) / 12 / m.mesh.length ** 2
    load = fem.tip_shear_load(m, P)
    u_chol = fem.static(m, load, steps=3)
    monkeypatch.setattr(linalg, "_BAND_FILL", 0.0)
    u_lu = fem.static(m, load, steps=3)
    assert np.abs(u_chol - u_lu).max() <= 1e-12 * np.abs(u_lu).max()


# ------------------------------------------------------------ require_positive_definite
def _laplacian(n, shift=0.0):
    return sp.diags([-np.ones(n - 1), (2.0 + shift) * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])


@pytest.mark.parametrize("storage", ["dense", "sparse", "banded"])
def test_require_positive_definite_passes_spd_and_names_the_lowest_eigenvalue(storage):
    """The 1-D Laplacian shifted by s has lowest eigenvalue s + 2 - 2 cos(pi/(n+1)): positive
    for s = 0 (passes), negative for s = -0.1 (refused with that eigenvalue), in every
    storage, including a band too wide for the banded Cholesky (eigenvalue decides)."""
    from lib.kernels.banded import SymmetricBanded

    n = 40
    low = -0.1 + 2 - 2 * np.cos(np.pi / (n + 1))
    for shift, ok in ((0.0, True), (-0.1, False)):
        A = _laplacian(n, shift)
        if storage == "dense":
            A = A.toarray()
        elif storage == "banded":
            ab = np.zeros((2, n))
            ab[0, 1:], ab[1] = -1.0, 2.0 + shift
            A = SymmetricBanded(ab)
        if ok:
            assert linalg.require_positive_definite(A, where="K") is None
            continue
        with pytest.raises(SolveError, match=r"^K: unstable equilibrium; the tangent stiffness "
                                             r"is not positive definite \(lowest eigenvalue "
                                             r"(-[0-9.e-]+)\); hint$") as err:
            linalg.require_positive_definite(A, where="K", hint="hint")
        assert err.value.reason == "unstable equilibrium"
        assert float(str(err.value).split("eigenvalue ")[1].split(")")[0]) == pytest.approx(
            low, rel=1e-3)
    wide = sp.random(n, n, density=0.3, random_state=1)
    wide = (wide + wide.T + 30 * sp.eye(n)).tocsr()       # SPD by diagonal dominance, wide band
    assert linalg.require_positive_definite(wide) is None
    with pytest.raises(SolveError, match="non-finite"):
        linalg.require_positive_definite(np.array([[np.nan, 0.0], [0.0, 1.0]]))
