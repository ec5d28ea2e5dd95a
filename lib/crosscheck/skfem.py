"""scikit-fem 12 on lib's meshes: the plane-strain neo-Hookean forms of lib.fem and the u-p
problem of lib.incompressible written as scikit-fem forms."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .. import beam, fem
from .. import incompressible as inc
from ..core import checks
from ..core.errors import SolveError
from ..fe import solve_path
from ..solvers import newton_solve

__all__ = ["skfem_basis", "skfem_forms", "skfem_static", "skfem_linear", "skfem_cantilever",
           "skfem_mixed_tip", "skfem_rubber_tip", "SKFEM_REFERENCE"]


def skfem_basis(model, intorder=None):
    r"""scikit-fem vector basis on the mesh of a :mod:`lib.fem` model, and the dof map.

    The triangle corners become a ``MeshTri``; ``ElementTriP1`` for T3 and
    ``ElementTriP2`` for T6 (mid-side dofs on the facets).  ``intorder`` defaults
    to lib's stiffness rule (exact to degree ``2p - 2``; scikit-fem's order-2
    rule is the same three interior points, and for P1 the integrand is constant
    per element).

    Returns
    -------
    basis : skfem CellBasis
    perm : (n_dofs,) int array, ``u_lib[perm] = u_skfem`` (scikit-fem dof i is
        lib dof ``perm[i]``)

    Examples
    --------
    >>> m = fem.cantilever(2, 1, "T6", slenderness=2.0)
    >>> basis, perm = skfem_basis(m)
    >>> int(basis.N) == m.n_dofs, sorted(perm.tolist()) == list(range(m.n_dofs))
    (True, True)
    """
    from skfem import Basis, ElementTriP1, ElementTriP2, ElementVector, MeshTri

    checks.kind(model, "model", fem.Space, "a finite-element model (lib.fem.Model)")
    p = 1 if model.mesh.element == "T3" else 2
    intorder = (max(2 * p - 2, 1) if intorder is None
                else checks.integer(intorder, "intorder", low=1, high=20))
    mesh = model.mesh
    corners = np.unique(mesh.elements[:, :3])
    remap = np.full(mesh.nodes.shape[0], -1)
    remap[corners] = np.arange(corners.size)
    sk = MeshTri(np.ascontiguousarray(mesh.nodes[corners].T),
                 np.ascontiguousarray(remap[mesh.elements[:, :3]].T))
    elem = ElementVector(ElementTriP1() if p == 1 else ElementTriP2())
    basis = Basis(sk, elem, intorder=intorder)
    # match every scikit-fem dof location to a lib node (structured grid: exact lookup)
    locs = basis.doflocs.T
    h = np.array([mesh.length / (p * mesh.nx), mesh.height / (p * mesh.ny)])
    ij = np.rint((locs - [0.0, -mesh.height / 2]) / h).astype(np.int64)
    node = ij[:, 0] * (p * mesh.ny + 1) + ij[:, 1]
    if not np.allclose(mesh.nodes[node], locs, atol=1e-12 * mesh.length):
        raise ValueError("model must be on a structured rectangle_mesh: scikit-fem dof "
                         "locations do not fall on its nodes")
    comp = np.empty(basis.N, dtype=np.int64)
    comp[basis.nodal_dofs[0]] = 0
    comp[basis.nodal_dofs[1]] = 1
    if p == 2:
        comp[basis.facet_dofs[0]] = 0
        comp[basis.facet_dofs[1]] = 1
    perm = 2 * node + comp
    if np.unique(perm).size != model.n_dofs:
        raise ValueError("model must be on a structured rectangle_mesh: the scikit-fem dof "
                         "map is not a bijection onto its dofs")
    return basis, perm


def _model_and_basis(model, basis):
    """The model checked and its ``(basis, perm)`` (built, or the one given, checked)."""
    checks.kind(model, "model", fem.Model, "a neo-Hookean model (lib.fem.Model)")
    if basis is None:
        return skfem_basis(model)
    if not (isinstance(basis, tuple) and len(basis) == 2 and np.shape(basis[1]) == (model.n_dofs,)):
        raise ValueError(f"basis must be the pair skfem_basis(model), got {checks.show(basis)}")
    return basis


def _nh_forms(mu, lam):
    """Neo-Hookean energy functional, residual and tangent as scikit-fem forms.

    Written from the textbook expressions (Bonet & Wood), independently of lib.fem:
    ``W = mu/2 (F:F - 2 - 2 ln J) + lam/2 ln^2 J``,
    ``P = mu (F - F^-T) + lam ln J F^-T``,
    ``A:dF = mu dF + (mu - lam ln J) (F^-1 dF F^-1)^T + lam tr(F^-1 dF) F^-T``.
    """
    from skfem import BilinearForm, Functional, LinearForm
    from skfem.helpers import ddot, det, eye, grad, inv, mul, trace, transpose

    def kin(w):
        G = grad(w["u"])
        F = eye(np.ones(G.shape[2:]), 2) + G
        Fi = inv(F)
        return F, Fi, np.log(det(F))

    @Functional
    def energy(w):
        F, _, lnJ = kin(w)
        return 0.5 * mu * (ddot(F, F) - 2.0 - 2.0 * lnJ) + 0.5 * lam * lnJ**2

    @LinearForm
    def residual(v, w):
        F, Fi, lnJ = kin(w)
        FiT = transpose(Fi)
        return ddot(mu * (F - FiT) + lam * lnJ * FiT, grad(v))

    @BilinearForm
    def tangent(du, v, w):
        F, Fi, lnJ = kin(w)
        dF = grad(du)
        AdF = (mu * dF + (mu - lam * lnJ) * transpose(mul(Fi, mul(dF, Fi)))
               + lam * trace(mul(Fi, dF)) * transpose(Fi))
        return ddot(AdF, grad(v))

    return energy, residual, tangent


def skfem_forms(model, u, basis=None):
    r"""Neo-Hookean strain energy, internal force and tangent by scikit-fem, in lib's layout.

    Parameters
    ----------
    model : lib.fem.Model
    u : (2 n_nodes,) displacement in lib's layout
    basis : optional ``(basis, perm)`` from :func:`skfem_basis`

    Returns
    -------
    (W, f, K) : float, (2 n_nodes,) ndarray, CSR (2 n_nodes, 2 n_nodes); compare
        with ``fem.energy(model, u)``, ``fem.gradient(model, u)``, ``fem.hessian(model, u)``.
    """
    from skfem import asm

    basis, perm = _model_and_basis(model, basis)
    energy, residual, tangent = _nh_forms(model.mu, model.lam)
    usk = checks.vector(u, "u", model.n_dofs)[perm]
    w = basis.interpolate(usk)
    G = w.grad
    J = (1.0 + G[0, 0]) * (1.0 + G[1, 1]) - G[0, 1] * G[1, 0]
    if np.any(J <= 0):
        raise ValueError(f"u inverts an element: min det F = {J.min():.3e} at a quadrature point")
    W = float(energy.assemble(basis, u=w))
    fsk = asm(residual, basis, u=w)
    Ksk = asm(tangent, basis, u=w).tocoo()
    f = np.empty(model.n_dofs)
    f[perm] = fsk
    K = sp.csr_matrix((Ksk.data, (perm[Ksk.row], perm[Ksk.col])), shape=Ksk.shape)
    return W, f, K


def skfem_static(model, load, steps=10, maxiter=40, basis=None):
    r"""Large-deformation equilibrium with scikit-fem's forms and Newton's method.

    Same load increments as :func:`lib.fem.static`; at each, Newton on the
    condensed residual (scikit-fem's forms and ``asm``) until an update is below
    ``1e-13 |u|``, then one more update (Newton's quadratic convergence puts it at
    round-off), so the result is the discrete solution to machine precision:
    :func:`lib.solvers.newton_solve` with ``roundoff="extra"`` along a uniform
    :func:`lib.solvers.load_path`.  Returns ``u`` in lib's layout.

    Raises
    ------
    ConvergenceError (a :class:`~lib.core.errors.SolveError`) naming the load step and
    the iteration if Newton does not settle within ``maxiter`` updates.
    """
    from skfem import asm

    basis, perm = _model_and_basis(model, basis)
    load = checks.vector(load, "load", model.n_dofs)
    steps, maxiter = checks.integer(steps, "steps", low=1), checks.integer(maxiter, "maxiter", low=1)
    _, residual, tangent = _nh_forms(model.mu, model.lam)
    u = _settled_path(lambda u, lam: (basis.interpolate(u),),
                      lambda w, lam: asm(residual, basis, u=w[0]) - lam * load[perm],
                      lambda w: asm(tangent, basis, u=w[0]), np.zeros(basis.N),
                      _free(perm, model.fixed, basis.N), steps, maxiter, 1e-13,
                      "crosscheck.skfem_static")
    out = np.empty(model.n_dofs)
    out[perm] = u
    return out


def _free(perm, fixed, n):
    """scikit-fem's numbers of the dofs lib leaves free."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    return np.setdiff1d(np.arange(n), inv[fixed])


def _settled_path(fields, residual, tangent, x0, free, steps, maxiter, xtol_rel, where):
    """Newton "to round-off, then one more update" along a uniform load path.

    ``fields(x, lam)`` interpolates once per iterate; ``residual(w, lam)`` and
    ``tangent(w)`` assemble from it (the tangent only when a step is taken).
    """
    def solve_at(lam, x):
        def fun(x):
            w = fields(x, lam)
            return residual(w, lam), lambda: tangent(w)
        return newton_solve(fun, x, 0.0, maxiter, where=where, accept="none",
                            roundoff="extra", xtol=0.0, xtol_rel=xtol_rel, free=free)

    return solve_path(solve_at, x0, steps, where)[0]


def _up_path(basis_u, basis_p, forms, f, free, steps, where):
    """The u-p system of scikit-fem ``forms`` (res_u, res_p, k_uu, k_up, k_pp) under the
    load ``lam f``, solved by :func:`_settled_path` from rest (60 iterations, xtol 1e-12)."""
    from skfem import asm

    res_u, res_p, k_uu, k_up, k_pp = forms
    Nu, Np = basis_u.N, basis_p.N

    def fields(x, lam):
        return basis_u.interpolate(x[:Nu]), basis_p.interpolate(x[Nu:])

    def residual(w, lam):
        return np.concatenate([asm(res_u, basis_u, u=w[0], p=w[1]) - f * lam,
                               asm(res_p, basis_p, u=w[0], p=w[1])])

    def tangent(w):
        Kup = asm(k_up, basis_p, basis_u, u=w[0], p=w[1])
        return sp.bmat([[asm(k_uu, basis_u, u=w[0], p=w[1]), Kup],
                        [Kup.T, asm(k_pp, basis_p, u=w[0], p=w[1])]], format="csr")

    return _settled_path(fields, residual, tangent, np.zeros(Nu + Np), free, steps, 60, 1e-12,
                         where)


def skfem_linear(model, basis=None):
    r"""Linear-elastic stiffness and consistent mass from scikit-fem's own forms, lib's layout.

    ``skfem.models.elasticity.linear_elasticity`` with the model's Lame
    constants, and the mass form ``rho u . v`` on a basis exact for it (order 2p).
    """
    from skfem import Basis, BilinearForm, asm
    from skfem.helpers import dot
    from skfem.models.elasticity import linear_elasticity

    basis, perm = _model_and_basis(model, basis)
    mbasis = Basis(basis.mesh, basis.elem, intorder=2 * (1 if model.mesh.element == "T3" else 2))
    rho = model.rho

    @BilinearForm
    def mass(u, v, w):
        return rho * dot(u, v)

    def to_lib(A):
        A = A.tocoo()
        return sp.csr_matrix((A.data, (perm[A.row], perm[A.col])), shape=A.shape)

    return (to_lib(asm(linear_elasticity(model.lam, model.mu), basis)),
            to_lib(asm(mass, mbasis)))


def skfem_cantilever(nx, ny, nu=0.3, element="T6", k=2):
    r"""The FEM chapter's cantilever (L/h = 10, end shear) solved entirely by scikit-fem.

    scikit-fem's linear-elasticity stiffness and mass (:func:`skfem_linear`) on
    the same mesh, the consistent load of a uniform end shear, scikit-fem's
    ``condense`` + ``solve``; frequencies by ``eigsh`` shift-invert.

    Returns
    -------
    (tip_ratio, omega_ratios) : mean tip deflection / ``P L^3/(3 E' I)`` and the
        first ``k`` frequencies / Euler-Bernoulli with ``E'`` (ascending modes).
    """
    from skfem import condense, solve

    model = fem.cantilever(nx, ny, element, nu)
    k = checks.integer(k, "k", low=1)
    K, M = skfem_linear(model)
    f = fem.tip_shear_load(model, 1.0)
    u = solve(*condense(K, f, D=model.fixed))
    tip = -fem.tip_deflection(model, u) / fem.euler_bernoulli_tip(model, 1.0)
    Kf, Mf = fem.condense(model, K), fem.condense(model, M)
    if k >= Kf.shape[0]:
        raise ValueError(f"k must be < {Kf.shape[0]} (the free dofs of the {nx} x {ny} mesh), "
                         f"got {k}")
    try:
        lam = np.sort(spla.eigsh(Kf.tocsc(), k=k, M=Mf.tocsc(), sigma=0.0, which="LM")[0])
    except spla.ArpackNoConvergence as exc:
        raise SolveError(f"ARPACK found only {len(exc.eigenvalues)} of k = {k} eigenvalues",
                         where="crosscheck.skfem_cantilever", reason="not converged") from None
    m = model.mesh
    eb = beam.euler_bernoulli_omegas(k) * np.sqrt(
        fem.plane_strain_modulus(model) * m.height**3 / 12 / (model.rho * m.height * m.length**4))
    return float(tip), np.sqrt(lam) / eb


#: Tip ratio (tip deflection / (alpha L/3)) of the alpha = 1 cantilever, split neo-Hookean,
#: computed by :func:`skfem_mixed_tip` on the 80 x 8 Taylor-Hood mesh with scikit-fem's
#: 6-point rule (``intorder=4``); ``tests/test_incompressible.py`` recomputes it.
SKFEM_REFERENCE = {
    0.3: 0.9114701826262113,
    0.49: 0.9045936340052437,
    0.499: 0.9039363802375516,
    0.4999: 0.9038680019857752,
}


def _skfem_up_forms(mu, kappa):
    """Split neo-Hookean u-p forms, written with F^-T and det F (not lib's (a, J) route).

    ``L = int mu/2 (J^{-2/3}(F:F + 1) - 3) + p (J - 1) - p^2/(2 kappa)``, plane strain.
    """
    from skfem import BilinearForm, LinearForm
    from skfem.helpers import ddot, det, eye, grad, inv, mul, trace, transpose

    ik = 0.0 if not np.isfinite(kappa) else 1.0 / kappa

    def kin(w):
        Gu = grad(w["u"])
        F = eye(np.ones(Gu.shape[2:]), 2) + Gu
        return F, inv(F), det(F)

    def stress_iso(F, FiT, J):
        I1 = ddot(F, F) + 1.0
        c = J ** (-2.0 / 3.0)
        return 0.5 * mu * c * (2.0 * F - (2.0 / 3.0) * I1 * FiT), c, I1

    @LinearForm
    def res_u(v, w):
        F, Fi, J = kin(w)
        FiT = transpose(Fi)
        Pg, _, _ = stress_iso(F, FiT, J)
        return ddot(Pg + w["p"] * J * FiT, grad(v))

    @LinearForm
    def res_p(q, w):
        _, _, J = kin(w)
        return q * (J - 1.0 - ik * w["p"])

    @BilinearForm
    def k_uu(du, v, w):
        F, Fi, J = kin(w)
        FiT = transpose(Fi)
        dF = grad(du)
        trd = trace(mul(Fi, dF))
        dFiT = -transpose(mul(Fi, mul(dF, Fi)))
        Pg, c, I1 = stress_iso(F, FiT, J)
        dPg = (-(2.0 / 3.0) * trd * Pg
               + 0.5 * mu * c * (2.0 * dF - (4.0 / 3.0) * ddot(F, dF) * FiT
                                 - (2.0 / 3.0) * I1 * dFiT))
        dPp = w["p"] * J * (trd * FiT + dFiT)
        return ddot(dPg + dPp, grad(v))

    @BilinearForm
    def k_up(dp, v, w):
        F, Fi, J = kin(w)
        return dp * J * ddot(transpose(Fi), grad(v))

    @BilinearForm
    def k_pp(dp, q, w):
        return -ik * dp * q

    return res_u, res_p, k_uu, k_up, k_pp


def skfem_mixed_tip(nu, nx=80, ny=8, alpha=1.0, steps=4, intorder=4, mu=1.0, return_x=False):
    r"""Tip ratio of the cantilever by an independent Taylor-Hood u-p solve in scikit-fem.

    Same geometry, clamp and consistent tip load as :func:`lib.incompressible.cantilever`
    with the split neo-Hookean material; scikit-fem's ``ElementVector(ElementTriP2())``
    displacement and ``ElementTriP1()`` pressure, the forms of :func:`_skfem_up_forms`, assembly by
    ``asm``, and Newton (:func:`lib.solvers.newton_solve` on the free unknowns) with
    ``steps`` load increments until an update is below ``1e-12 |x|`` (then one more).

    Returns the tip ratio (and with ``return_x`` the solution in :mod:`lib.incompressible`'s
    ``[u, p]`` layout for ``incompressible.cantilever(nx, ny, "P2P1", ...)``).
    """
    from skfem import Basis, ElementTriP1

    mat = inc.neo_hookean(mu, nu)
    body = inc.cantilever(nx, ny, "P2P1", mat)
    alpha, return_x = checks.real(alpha, "alpha"), checks.boolean(return_x, "return_x")
    steps = checks.integer(steps, "steps", low=1)
    intorder = checks.integer(intorder, "intorder", low=1, high=20)
    if alpha == 0:
        raise ValueError("alpha must be non-zero (the load the tip ratio divides by), got 0")
    basis_u, perm = skfem_basis(body.geom, intorder=intorder)
    basis_p = Basis(basis_u.mesh, ElementTriP1(), intorder=intorder)
    Nu, Np = basis_u.N, basis_p.N
    f = inc.tip_load(body, alpha)[perm]

    free = np.concatenate([_free(perm, body.geom.fixed, Nu), Nu + np.arange(Np)])
    x = _up_path(basis_u, basis_p, _skfem_up_forms(mat.mu, mat.kappa), f, free, steps,
                 "crosscheck.skfem_mixed_tip")
    out = np.empty(body.n_u + body.n_p)
    out[perm] = x[:Nu]
    out[body.n_u:] = x[Nu:]
    ratio = inc.tip_ratio(body, out, alpha)
    return (ratio, out) if return_x else ratio


# --------------------------------------------------------------------------------------
# An independent Taylor-Hood solve: scikit-fem's own mesh, clamp, load and residuals
# --------------------------------------------------------------------------------------
def _rubber_constants(mat):
    """``(mu, kappa, J0)`` of a rubber law, recomputed from its constants and ``nu``.

    Written from the textbook definitions, not read from the material's derived fields:
    small-strain shear modulus of each law, 3-D bulk modulus ``2 mu (1+nu)/(3(1-2nu))``
    for the split laws, Smith et al.'s ``lam_s = lam + 5 mu/6`` and
    ``alpha = 1 + 3 mu_s/(4 lam_s)`` for the stable neo-Hookean.
    """
    c, nu = tuple(float(v) for v in mat.constants), float(mat.nu)
    mu = {"neo-hookean": lambda: c[0], "mooney-rivlin": lambda: 2 * (c[0] + c[1]),
          "yeoh": lambda: 2 * c[0], "stable-neo-hookean": lambda: 0.75 * c[0]}[mat.model]()
    if nu == 0.5:
        return mu, np.inf, 1.0
    if mat.model == "stable-neo-hookean":
        lam_s = 2 * mu * nu / (1 - 2 * nu) + 5 * mu / 6
        return mu, lam_s, 1 + 0.75 * c[0] / lam_s
    return mu, 2 * mu * (1 + nu) / (3 * (1 - 2 * nu)), 1.0


def _rubber_up_forms(model, constants, kappa, J0):
    r"""u-p forms of the four rubber laws in plane strain, written with ``F``, ``F^-T``, ``det F``.

    ``L = int g(F) + p (J - J0) - p^2/(2 kappa)``.  Split laws:
    ``g = W(Ibar1, Ibar2)``, ``Ibar1 = J^{-2/3}(F:F + 1)``, ``Ibar2 = J^{-4/3} F:F + J^{2/3}``,
    differentiated in ``F`` (``dJ = J F^-T : dF``); stable neo-Hookean
    ``g = mu_s/2 (F:F - 1) - mu_s/2 ln((F:F + 2)/4)`` (Smith, de Goes & Kim 2018).
    Independent of lib's ``(a, J)`` chain rule.
    """
    from skfem import BilinearForm, LinearForm
    from skfem.helpers import ddot, det, eye, grad, inv, mul, trace, transpose

    ik = 0.0 if not np.isfinite(kappa) else 1.0 / kappa
    c = constants

    def law(x):
        """``W1 = dW/dIbar1, W11 = d2W/dIbar1^2, W2 = dW/dIbar2`` at ``x = Ibar1 - 3``."""
        if model == "neo-hookean":
            return 0.5 * c[0] + 0 * x, 0 * x, 0.0
        if model == "mooney-rivlin":
            return c[0] + 0 * x, 0 * x, c[1]
        return c[0] + 2 * c[1] * x + 3 * c[2] * x**2, 2 * c[1] + 6 * c[2] * x, 0.0

    def kin(w):
        Gu = grad(w["u"])
        F = eye(np.ones(Gu.shape[2:]), 2) + Gu
        Fi = inv(F)
        return F, Fi, transpose(Fi), det(F)

    def shape_stress(F, FiT, J):
        a = ddot(F, F)
        if model == "stable-neo-hookean":
            return c[0] * (1.0 - 1.0 / (a + 2.0)) * F
        c1, c2, c3 = J ** (-2.0 / 3.0), J ** (-4.0 / 3.0), J ** (2.0 / 3.0)
        I1 = c1 * (a + 1.0)
        W1, _, W2 = law(I1 - 3.0)
        D1 = 2.0 * c1 * F - (2.0 / 3.0) * I1 * FiT
        D2 = 2.0 * c2 * F + (-(4.0 / 3.0) * c2 * a + (2.0 / 3.0) * c3) * FiT
        return W1 * D1 + W2 * D2

    def shape_tangent(F, Fi, FiT, J, dF):
        a, FdF = ddot(F, F), ddot(F, dF)
        if model == "stable-neo-hookean":
            return (c[0] * (1.0 - 1.0 / (a + 2.0)) * dF
                    + c[0] / (a + 2.0) ** 2 * 2.0 * FdF * F)
        trd = trace(mul(Fi, dF))
        dFiT = -transpose(mul(Fi, mul(dF, Fi)))
        c1, c2, c3 = J ** (-2.0 / 3.0), J ** (-4.0 / 3.0), J ** (2.0 / 3.0)
        I1 = c1 * (a + 1.0)
        W1, W11, W2 = law(I1 - 3.0)
        D1 = 2.0 * c1 * F - (2.0 / 3.0) * I1 * FiT
        dI1 = ddot(D1, dF)
        dD1 = (2.0 * c1 * (dF - (2.0 / 3.0) * trd * F) - (2.0 / 3.0) * dI1 * FiT
               - (2.0 / 3.0) * I1 * dFiT)
        dD2 = (-(8.0 / 3.0) * c2 * trd * F + 2.0 * c2 * dF
               + ((16.0 / 9.0) * c2 * trd * a - (8.0 / 3.0) * c2 * FdF
                  + (4.0 / 9.0) * c3 * trd) * FiT
               + (-(4.0 / 3.0) * c2 * a + (2.0 / 3.0) * c3) * dFiT)
        return W11 * dI1 * D1 + W1 * dD1 + W2 * dD2

    @LinearForm
    def res_u(v, w):
        F, _, FiT, J = kin(w)
        return ddot(shape_stress(F, FiT, J) + w["p"] * J * FiT, grad(v))

    @LinearForm
    def res_p(q, w):
        _, _, _, J = kin(w)
        return q * (J - J0 - ik * w["p"])

    @BilinearForm
    def k_uu(du, v, w):
        F, Fi, FiT, J = kin(w)
        dF = grad(du)
        trd = trace(mul(Fi, dF))
        dFiT = -transpose(mul(Fi, mul(dF, Fi)))
        return ddot(shape_tangent(F, Fi, FiT, J, dF) + w["p"] * J * (trd * FiT + dFiT),
                    grad(v))

    @BilinearForm
    def k_up(dp, v, w):
        _, _, FiT, J = kin(w)
        return dp * J * ddot(FiT, grad(v))

    @BilinearForm
    def k_pp(dp, q, w):
        return -ik * dp * q

    return res_u, res_p, k_uu, k_up, k_pp


def skfem_rubber_tip(mat, nx, ny, alpha=1.0, slenderness=10.0, steps=4, intorder=2,
                     return_fields=False):
    r"""Taylor-Hood cantilever solved by scikit-fem alone: its mesh, clamp, load and residuals.

    Independent of :mod:`lib.fe` and :mod:`lib.incompressible` except for the rubber
    law's constants and ``nu`` (``mat.model``, ``mat.constants``, ``mat.nu``) and the
    Newton driver and its load-path stepping (:func:`lib.solvers.newton_solve` at each
    step of a uniform load path run by ``lib.fe``'s ``solve_path``, a wrapper of
    :func:`lib.solvers.load_path`; together they only choose the load increments and
    decide when to stop):

    * mesh: ``MeshTri.init_tensor`` on ``[0, L] x [-1/2, 1/2]`` (``nx x ny`` cells, each
      cut lower-left to upper-right), ``ElementVector(ElementTriP2())`` displacement and
      ``ElementTriP1()`` pressure, scikit-fem's own dof numbering;
    * clamp: every displacement dof of the facets on ``X = 0`` (``basis.get_dofs``);
    * load: a uniform shear traction of resultant ``P = alpha E' h^3/(12 L^2)`` in
      ``-y`` on the facets of ``X = L``, assembled on a ``FacetBasis``
      (``E' = 2 mu (1 + nu)/(1 - nu^2)``, ``mu`` the law's small-strain modulus);
    * residual and tangent: :func:`_rubber_up_forms` (``F^-T``, ``det F``), ``asm``;
    * tip: the plain mean of ``u_y`` over the dofs located on ``X = L``, over ``alpha L/3``.

    Parameters
    ----------
    mat : lib.incompressible.Material (any of the four laws, ``nu <= 0.5``)
    nx, ny : int >= 1, cells along and across
    alpha : float, non-zero, load parameter
    slenderness : float > 0, ``L`` (the height is 1)
    steps : int >= 1, load increments
    intorder : int, scikit-fem quadrature order (2: the 3-point rule, the rule of lib's
        ``P2P1``, so that the two discrete problems are the same)
    return_fields : bool, also return ``{"u_locs", "u", "p_locs", "p"}``: nodal
        displacements ``(n, 2)`` at their locations and pressures at the corners

    Returns
    -------
    float tip ratio (and the fields dict with ``return_fields``)

    Examples
    --------
    >>> from lib import incompressible as inc
    >>> m = inc.neo_hookean(1.0, 0.49)
    >>> r = skfem_rubber_tip(m, 4, 1, alpha=0.01, steps=1)
    >>> b = inc.cantilever(4, 1, "P2P1", m)
    >>> x = inc.solve(b, inc.tip_load(b, 0.01), steps=1, tol=1e-13).x
    >>> bool(abs(r - inc.tip_ratio(b, x, 0.01)) < 1e-12)
    True
    """
    from skfem import (Basis, ElementTriP1, ElementTriP2, ElementVector, FacetBasis,
                       LinearForm, MeshTri, asm)

    checks.kind(mat, "mat", inc.Material, "a rubber law (lib.incompressible.Material)")
    nx, ny = checks.integer(nx, "nx", low=1), checks.integer(ny, "ny", low=1)
    alpha, L = checks.real(alpha, "alpha"), checks.positive(slenderness, "slenderness")
    if alpha == 0:
        raise ValueError("alpha must be non-zero (the load the tip ratio divides by), got 0")
    steps = checks.integer(steps, "steps", low=1)
    intorder = checks.integer(intorder, "intorder", low=1, high=20)
    return_fields = checks.boolean(return_fields, "return_fields")
    mu, kappa, J0 = _rubber_constants(mat)
    nu = float(mat.nu)
    mesh = MeshTri.init_tensor(np.linspace(0.0, L, nx + 1), np.linspace(-0.5, 0.5, ny + 1))
    basis_u = Basis(mesh, ElementVector(ElementTriP2()), intorder=intorder)
    basis_p = Basis(mesh, ElementTriP1(), intorder=intorder)
    Nu, Np = basis_u.N, basis_p.N
    clamped = basis_u.get_dofs(lambda x: np.isclose(x[0], 0.0)).all()
    P = alpha * 2 * mu * (1 + nu) / (1 - nu**2) / 12 / L**2
    tip_facets = mesh.facets_satisfying(lambda x: np.isclose(x[0], L))
    fb = FacetBasis(mesh, ElementVector(ElementTriP2()), facets=tip_facets, intorder=4)

    @LinearForm
    def shear(v, w):
        return -P * v[1]          # traction (0, -P/h) with h = 1

    f = asm(shear, fb)
    forms = _rubber_up_forms(mat.model, tuple(float(v) for v in mat.constants), kappa, J0)

    free = np.setdiff1d(np.arange(Nu + Np), clamped)
    x = _up_path(basis_u, basis_p, forms, f, free, steps, "crosscheck.skfem_rubber_tip")
    ydofs = np.concatenate([basis_u.nodal_dofs[1], basis_u.facet_dofs[1]])
    on_tip = ydofs[np.isclose(basis_u.doflocs[0, ydofs], L)]
    ratio = float(-x[on_tip].mean() / (alpha * L / 3))
    if not return_fields:
        return ratio
    xdofs = np.concatenate([basis_u.nodal_dofs[0], basis_u.facet_dofs[0]])
    ydofs = np.concatenate([basis_u.nodal_dofs[1], basis_u.facet_dofs[1]])
    return ratio, {"u_locs": basis_u.doflocs[:, xdofs].T,
                   "u": np.column_stack([x[xdofs], x[ydofs]]),
                   "p_locs": basis_p.doflocs.T, "p": x[Nu:].copy()}
