"""fem's Newton / load-step loop is the shared floors (see test_integrate.py).

``fem.static`` is :func:`lib.solvers.newton_solve` along :func:`lib.solvers.load_path`
now; its old body is kept below, verbatim (with the kit's old ``sparse_solve``), as the
reference it must reproduce evaluation for evaluation.
"""
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lib import fem
from lib.fem import ConvergenceError, admissible, condense, gradient, hessian

from .trace import assert_round_off, assert_same_path, traced


# --------------------------------------------------------------------------------------
# fem.static: the old body, verbatim
# --------------------------------------------------------------------------------------
def sparse_solve(A, b, name, hint=""):
    """``A^{-1} b`` by sparse LU; a singular ``A`` raises ValueError naming it (no bare SciPy error)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            x = spla.splu(sp.csc_matrix(A)).solve(np.asarray(b, dtype=float))
    except (RuntimeError, spla.MatrixRankWarning) as err:
        raise ValueError(f"{name} is singular ({err}); {hint}".rstrip("; ")) from err
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} is numerically singular (non-finite solution); {hint}"
                         .rstrip("; "))
    return x


def old_fem_static(model, load, steps=10, tol=1e-10, maxiter=30, u0=None):
    """lib.fem.static before the floors."""
    if not (isinstance(steps, (int, np.integer)) and steps >= 1):
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    load = np.asarray(load, dtype=float)
    if load.shape != (model.n_dofs,):
        raise ValueError(f"load must have shape ({model.n_dofs},), got {load.shape}")
    u = np.zeros(model.n_dofs) if u0 is None else np.array(u0, dtype=float)
    fr = model.free
    scale = np.abs(load[fr]).max()
    if scale == 0:
        raise ValueError("load has no component on the free dofs")
    # round-off floor of the internal force: eps x the size of the terms summed into it
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]          # [e, q, a]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    floor = 64 * np.finfo(float).eps * (2 * model.mu + model.lam) * node_scale.max()
    for step in range(1, steps + 1):
        fs = load * step / steps
        for it in range(maxiter + 1):
            r = gradient(model, u, fs)[fr]
            res = np.abs(r).max() / scale
            if res <= tol or np.abs(r).max() <= floor:
                break
            if it == maxiter:
                raise ConvergenceError(f"Newton did not converge at load step {step}/{steps}: "
                                       f"relative residual {res:.3e} after {maxiter} iterations")
            try:
                du = sparse_solve(condense(model, hessian(model, u)), r, "tangent stiffness")
            except ValueError as err:
                raise ConvergenceError(f"load step {step}/{steps}, iteration {it}: {err} "
                                       f"(residual {res:.3e})") from err
            t = 1.0
            for _ in range(30):
                trial = u.copy()
                trial[fr] -= t * du
                if admissible(model, trial):
                    break
                t *= 0.5
            else:
                raise ConvergenceError(f"load step {step}/{steps}, iteration {it}: every "
                                       f"Newton step inverts an element (residual {res:.3e})")
            u = trial
    return u


@pytest.mark.parametrize("element,alpha,steps,tol", [
    ("T6", 1.0, 4, 1e-10),
    ("T3", 10.0, 1, 1e-10),            # one big increment: trial points invert elements
    ("T6", 0.5, 2, 1e-15),             # below the round-off floor: the floor ends it
])
def test_fem_static_reproduces_its_old_loop(monkeypatch, element, alpha, steps, tol):
    m = fem.cantilever(8, 1, element, 0.3, slenderness=8.0)
    load = fem.tip_shear_load(m, alpha * fem.plane_strain_modulus(m) / 12 / m.mesh.length**2)
    with traced(monkeypatch, fem, "_gradient") as old, \
            traced(monkeypatch, sys.modules[__name__], "admissible") as old_adm:
        u_old = old_fem_static(m, load, steps=steps, tol=tol)
    with traced(monkeypatch, fem, "_gradient") as new, \
            traced(monkeypatch, fem, "admissible") as new_adm:
        u_new = fem.static(m, load, steps=steps, tol=tol)
    assert len(old) > 2 * steps
    assert_same_path(old, new)
    assert_same_path(old_adm, new_adm)
    assert_round_off(u_old, u_new)
    if steps == 1:                     # inadmissible trials were cut back
        assert len(old_adm) > len(old) - 1


def test_fem_static_fails_where_its_old_loop_did():
    m = fem.cantilever(10, 1, "T6", 0.3)
    load = fem.tip_shear_load(m, 2.0 * fem.plane_strain_modulus(m) / 12 / 100)
    with pytest.raises(ConvergenceError, match=r"load step 1/2.*2 iterations"):
        old_fem_static(m, load, steps=2, maxiter=2)
    with pytest.raises(ConvergenceError, match=r"load step 1/2 \(λ = 0.5\), iteration 2, "
                                               r"residual .*iteration limit") as err:
        fem.static(m, load, steps=2, maxiter=2)
    assert (err.value.step, err.value.iteration, err.value.reason) == (1, 2, "maxiter")
