"""crosscheck.skfem's Newton / load-step loops are the shared floors (see test_integrate.py).

``skfem_static`` and ``skfem_mixed_tip`` are :func:`lib.solvers.newton_solve`
(``roundoff="extra"``: updates to round-off, then one more) along a uniform
:func:`lib.solvers.load_path`; their old bodies are kept below, verbatim, as the
reference.  The old loops judged the small update against ``|u|`` after it, the floors
before it (a round-off-level difference), and solved with scikit-fem's ``solve``
(``spsolve``) where the floors factorise by SuperLU: the same points to round-off.
"""
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lib import fem
from lib import incompressible as inc
from lib.crosscheck import skfem as cc_skfem
from lib.crosscheck.skfem import _nh_forms, _skfem_up_forms, skfem_basis

from .trace import assert_round_off, check_count, newton_step


# the adapters' shared helpers the old loops called (lib/crosscheck/_common.py then), verbatim
def old_skfem_static(model, load, steps=10, maxiter=40, basis=None):
    """lib.crosscheck.skfem_static before the floors."""
    from skfem import asm, condense, solve

    steps = check_count(steps, "steps")
    basis, perm = skfem_basis(model) if basis is None else basis
    _, residual, tangent = _nh_forms(model.mu, model.lam)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    fixed_sk = inv[model.fixed]
    fsk = np.asarray(load, dtype=float)[perm]
    u = np.zeros(basis.N)
    for step in range(1, steps + 1):
        fs = fsk * step / steps
        settled = False
        for it in range(maxiter):
            w = basis.interpolate(u)
            r = asm(residual, basis, u=w) - fs
            K = asm(tangent, basis, u=w)
            du = newton_step(lambda: solve(*condense(K, -r, D=fixed_sk)),
                              f"scikit-fem Newton: load step {step}/{steps}, iteration {it}")
            u = u + du
            if settled:               # one more update after the small one: at round-off
                break
            settled = np.abs(du).max() <= 1e-13 * np.abs(u).max()
        else:
            raise RuntimeError(f"scikit-fem Newton: load step {step}/{steps}: "
                               f"update {np.abs(du).max():.3e} after {maxiter} iterations")
    out = np.empty(model.n_dofs)
    out[perm] = u
    return out


def old_skfem_mixed_tip(nu, nx=80, ny=8, alpha=1.0, steps=4, intorder=4, mu=1.0,
                        return_x=False):
    """lib.crosscheck.skfem_mixed_tip before the floors."""
    from skfem import Basis, ElementTriP1, asm, condense, solve as sksolve

    mat = inc.neo_hookean(mu, nu)
    body = inc.cantilever(nx, ny, "P2P1", mat)
    basis_u, perm = skfem_basis(body.geom, intorder=intorder)
    basis_p = Basis(basis_u.mesh, ElementTriP1(), intorder=intorder)
    res_u, res_p, k_uu, k_up, k_pp = _skfem_up_forms(mat.mu, mat.kappa)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    Nu, Np = basis_u.N, basis_p.N
    fixed = inv[body.geom.fixed]
    f = inc.tip_load(body, alpha)[perm]
    x = np.zeros(Nu + Np)
    for step in range(1, steps + 1):
        settled = False
        for it in range(60):
            wu = basis_u.interpolate(x[:Nu])
            wp = basis_p.interpolate(x[Nu:])
            r = np.concatenate([asm(res_u, basis_u, u=wu, p=wp) - f * step / steps,
                                asm(res_p, basis_p, u=wu, p=wp)])
            Kuu = asm(k_uu, basis_u, u=wu, p=wp)
            Kup = asm(k_up, basis_p, basis_u, u=wu, p=wp)
            Kpp = asm(k_pp, basis_p, u=wu, p=wp)
            K = sp.bmat([[Kuu, Kup], [Kup.T, Kpp]], format="csr")
            dx = sksolve(*condense(K, -r, D=fixed))
            x = x + dx
            if settled:
                break
            settled = np.abs(dx).max() <= 1e-12 * np.abs(x).max()
        else:
            raise inc.ConvergenceError(f"scikit-fem Newton: load step {step}/{steps} did not settle")
    out = np.empty(body.n_u + body.n_p)
    out[perm] = x[:Nu]
    out[body.n_u:] = x[Nu:]
    ratio = inc.tip_ratio(body, out, alpha)
    return (ratio, out) if return_x else ratio


class Recording:
    """A scikit-fem basis that records every field it interpolates (the Newton iterates)."""

    def __init__(self, basis):
        self._basis, self.calls = basis, []

    def __getattr__(self, name):
        return getattr(self._basis, name)

    def interpolate(self, u):
        self.calls.append(np.array(u, dtype=float, copy=True))
        return self._basis.interpolate(u)


def assert_same_iterates(old, new, steps):
    """The old loop's iterates, in order, to round-off; the floors evaluate once more per step
    (the converged point, where the old loop stopped without assembling)."""
    assert len(new) == len(old) + steps, f"{len(old)} iterates before, {len(new)} now"
    k = 0
    for a in old:
        scale = max(1.0, float(np.abs(a).max()))
        while np.abs(new[k] - a).max() > 1e-10 * scale:
            k += 1
            assert k < len(new), "an old iterate is not among the new ones"
        k += 1


@pytest.mark.parametrize("element,alpha,steps", [("T6", 1.0, 2), ("T3", 0.5, 3)])
def test_skfem_static_reproduces_its_old_loop(element, alpha, steps):
    m = fem.cantilever(4, 1, element, 0.3, slenderness=4.0)
    load = fem.tip_shear_load(m, alpha * fem.plane_strain_modulus(m) / 12 / m.mesh.length**2)
    b_old, perm = skfem_basis(m)
    b_old = Recording(b_old)
    b_new = Recording(skfem_basis(m)[0])
    u_old = old_skfem_static(m, load, steps=steps, basis=(b_old, perm))
    u_new = cc_skfem.skfem_static(m, load, steps=steps, basis=(b_new, perm))
    assert len(b_old.calls) > 3 * steps
    assert_same_iterates(b_old.calls, b_new.calls, steps)
    assert_round_off(u_old, u_new, rtol=1e-12)


def test_skfem_mixed_tip_reproduces_its_old_loop():
    r_old, x_old = old_skfem_mixed_tip(0.49, nx=6, ny=1, steps=2, return_x=True)
    r_new, x_new = cc_skfem.skfem_mixed_tip(0.49, nx=6, ny=1, steps=2, return_x=True)
    assert r_new == pytest.approx(r_old, rel=1e-12)
    assert_round_off(x_old, x_new, rtol=1e-10)


def test_skfem_static_failure_is_a_convergence_error():
    m = fem.cantilever(4, 1, "T6", 0.3, slenderness=4.0)
    load = fem.tip_shear_load(m, 2.0 * fem.plane_strain_modulus(m) / 12 / 16)
    with pytest.raises(RuntimeError, match="load step 1/1"):
        old_skfem_static(m, load, steps=1, maxiter=2)
    with pytest.raises(fem.ConvergenceError, match=r"load step 1/1 \(λ = 1\), iteration 2"):
        cc_skfem.skfem_static(m, load, steps=1, maxiter=2)
