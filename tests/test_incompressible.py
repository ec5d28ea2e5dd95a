"""Tests of lib.incompressible: rubber materials and locking-free finite-strain elements."""
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lib import fe, fem
from lib import crosscheck as cc
from lib import incompressible as inc
from lib.core.errors import SolveError

RNG = np.random.default_rng(2026)

MATERIALS = {
    "neo-hookean": inc.neo_hookean(1.0, 0.45),
    "mooney-rivlin": inc.mooney_rivlin(0.3, 0.2, 0.45),
    "yeoh": inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45),
    "stable-neo-hookean": inc.stable_neo_hookean(1.0, 0.45),
}


def _random_F(n=6, scale=0.3):
    F = np.eye(2) + scale * RNG.standard_normal((n, 2, 2))
    J = np.linalg.det(F)
    F[J < 0, :, 0] *= -1                    # keep det F > 0
    return F


@pytest.mark.parametrize("name", list(MATERIALS))
def test_stress_is_the_fd_gradient_of_the_energy(name):
    mat = MATERIALS[name]
    F = _random_F()
    _, P, A = inc.response(mat, F)
    h = 1e-6
    for k in range(2):
        for L in range(2):
            E = np.zeros((2, 2))
            E[k, L] = h
            dW = (inc.response(mat, F + E, 0) - inc.response(mat, F - E, 0)) / (2 * h)
            dP = (inc.response(mat, F + E, 1)[1] - inc.response(mat, F - E, 1)[1]) / (2 * h)
            assert np.allclose(dW, P[:, k, L], rtol=1e-7, atol=1e-8 * mat.mu)
            assert np.allclose(dP, A[:, :, :, k, L], rtol=1e-6, atol=1e-7 * mat.kappa)


@pytest.mark.parametrize("name", list(MATERIALS))
def test_every_material_is_stress_free_and_linearises_to_hooke(name):
    mat = MATERIALS[name]
    W, P, A = inc.response(mat, np.eye(2))
    I = np.eye(2)
    hooke = (mat.mu * (np.einsum("ik,JL->iJkL", I, I) + np.einsum("iL,Jk->iJkL", I, I))
             + mat.lam * np.einsum("iJ,kL->iJkL", I, I))
    assert abs(W) < 1e-14 * mat.mu and np.abs(P).max() < 1e-13 * mat.mu
    assert np.abs(A - hooke).max() < 1e-12 * mat.kappa


def test_tangent_is_symmetric_in_the_major_pairs():
    for mat in MATERIALS.values():
        _, _, A = inc.response(mat, _random_F())
        assert np.allclose(A, A.transpose(0, 3, 4, 1, 2), atol=1e-12 * mat.kappa)


def test_isochoric_part_is_invariant_under_plane_strain_dilatation_scaling():
    # g depends on Ibar_1, Ibar_2 only: a rotation times a stretch keeping J changes nothing
    mat = inc.mooney_rivlin(0.3, 0.2, 0.3)
    F = _random_F(1)[0]
    c, s = np.cos(0.7), np.sin(0.7)
    R = np.array([[c, -s], [s, c]])
    assert np.isclose(inc.response(mat, R @ F, 0), inc.response(mat, F, 0), rtol=1e-13)


def test_stable_neo_hookean_has_finite_energy_for_inverted_elements():
    snh = inc.stable_neo_hookean(1.0, 0.49)
    F = np.diag([1.0, -0.2])
    W = inc.response(snh, F, 0)
    assert np.isfinite(W)
    with pytest.raises(ValueError, match="det F"):
        inc.response(inc.neo_hookean(1.0, 0.49), F, 0)


@pytest.mark.parametrize("name", ["neo-hookean", "mooney-rivlin", "yeoh"])
def test_uniaxial_and_planar_stress_are_derivatives_of_the_incompressible_energy(name):
    mat = MATERIALS[name]
    lam = np.linspace(0.7, 3.0, 12)
    h = 1e-6
    c = np.asarray(mat.constants, dtype=float)
    energy = {"neo-hookean": lambda I1, I2: mat.mu / 2 * (I1 - 3),
              "mooney-rivlin": lambda I1, I2: c[0] * (I1 - 3) + c[1] * (I2 - 3),
              "yeoh": lambda I1, I2: sum(ck * (I1 - 3) ** k for k, ck in enumerate(c, 1))}
    # the principal stretches of each test (J = 1, so I2 is the sum of their inverse squares)
    stretches = {"uniaxial": lambda l: (l, l ** -0.5, l ** -0.5), "planar": lambda l: (l, 1, 1 / l)}
    for mode in ("uniaxial", "planar"):
        def W(l):
            s = stretches[mode](l)
            return energy[name](sum(x ** 2 for x in s), sum(x ** -2.0 for x in s))
        fd = (W(lam + h) - W(lam - h)) / (2 * h)
        assert np.allclose(inc.uniaxial_stress(mat, lam, mode), fd, rtol=1e-7, atol=1e-9)


def test_mooney_rivlin_fit_recovers_its_own_constants():
    l = np.linspace(1.0, 3.0, 15)
    m = inc.fit_mooney_rivlin(l, inc.uniaxial_stress(inc.mooney_rivlin(5.0, 1.5), l))
    assert np.allclose(m.constants, (5.0, 1.5), rtol=1e-12)


FORMS = ["T3", "T6", "P2P1", "P2P0", "P1P0", "Fbar", "P2P1disc"]


@pytest.mark.parametrize("formulation", FORMS)
@pytest.mark.parametrize("name", ["yeoh", "stable-neo-hookean", "mooney-rivlin"])
def test_element_residual_and_tangent_are_fd_derivatives(formulation, name):
    mat = MATERIALS[name]
    b = inc.cantilever(3, 1, formulation, mat, slenderness=3.0)
    x = np.zeros(b.n_u + b.n_p)
    x[b.free] = 0.05 * RNG.standard_normal(b.free.size)
    if b.mixed:
        x[b.n_u:] *= mat.mu / 0.05 * 0.1
    g = inc.gradient(b, x)
    K = inc.hessian(b, x)
    assert abs(K - K.T).max() <= 1e-12 * abs(K).max()
    K = K.toarray()
    h = 1e-6
    eg, eK = 0.0, 0.0
    for i in b.free:
        e = np.zeros_like(x)
        e[i] = h
        eg = max(eg, abs((inc.energy(b, x + e) - inc.energy(b, x - e)) / (2 * h) - g[i]))
        eK = max(eK, np.abs((inc.gradient(b, x + e) - inc.gradient(b, x - e)) / (2 * h)
                            - K[:, i]).max())
    assert eg <= 1e-7 * np.abs(g).max()
    assert eK <= 1e-7 * np.abs(K).max()


def test_small_load_t6_reproduces_the_linear_fem_chapter():
    # split neo-Hookean linearises to the same Hooke law as lib.fem's material
    for nu in (0.3, 0.499):
        b = inc.cantilever(20, 2, "T6", inc.neo_hookean(1 / (2 * (1 + nu)), nu))
        r = inc.solve(b, inc.tip_load(b, 1e-6), steps=1)
        assert np.isclose(inc.tip_ratio(b, r.x, 1e-6), fem.cantilever_tip_ratio(20, 2, "T6", nu),
                          rtol=1e-5)


def test_fbar_is_p2p0_with_the_pressure_condensed():
    mat = inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.4999)
    bf = inc.cantilever(10, 1, "Fbar", mat)
    bm = inc.cantilever(10, 1, "P2P0", mat)
    xf = inc.solve(bf, inc.tip_load(bf, 0.5)).x
    xm = inc.solve(bm, inc.tip_load(bm, 0.5)).x
    assert np.abs(xf - xm[:bm.n_u]).max() <= 1e-9 * np.abs(xf).max()
    # the condensed pressure is kappa (theta_e - 1)
    F = inc._F(bf, xf)
    theta = np.einsum("eq,eq->e", bf.geom.w, inc._det(F)) / bf.area
    p = inc.pressure_field(bm, xm)[:, 0]
    assert np.allclose(p, mat.kappa * (theta - 1), rtol=1e-6, atol=1e-9 * np.abs(p).max())


def test_taylor_hood_agrees_with_an_independent_scikit_fem_implementation():
    for nu in (0.3, 0.5):
        r_sk, x_sk = cc.skfem_mixed_tip(nu, 10, 1, intorder=2, return_x=True)
        b = inc.cantilever(10, 1, "P2P1", inc.neo_hookean(1.0, nu))
        x = inc.solve(b, inc.tip_load(b, 1.0)).x
        assert np.abs(x - x_sk).max() <= 1e-11 * np.abs(x).max()


def test_cached_fine_reference_is_what_scikit_fem_computes():
    nu = 0.4999
    assert np.isclose(cc.skfem_mixed_tip(nu), cc.SKFEM_REFERENCE[nu], rtol=1e-10)


def test_incompressible_mixed_solution_conserves_every_pressure_moment_of_area():
    b = inc.cantilever(20, 2, "P2P1", inc.neo_hookean(1.0, 0.5))
    x = inc.solve(b, inc.tip_load(b, 1.0)).x
    J = inc._det(inc._F(b, x[:b.n_u]))
    # int N_c (J - 1) = 0 for every pressure mode; in particular the total area
    assert abs(np.sum(b.geom.w * (J - 1))) <= 1e-10 * b.area.sum()
    assert np.abs(inc.gradient(b, x, inc.tip_load(b, 1.0))[b.free]).max() < 1e-10


def test_mixed_limit_is_continuous_in_nu():
    b = {nu: inc.cantilever(10, 1, "P2P1", inc.neo_hookean(1.0, nu)) for nu in (0.49999, 0.5)}
    r = {nu: inc.tip_ratio(bb, inc.solve(bb, inc.tip_load(bb, 1.0)).x, 1.0) for nu, bb in b.items()}
    assert abs(r[0.49999] - r[0.5]) < 1e-4


def test_t3_locks_and_taylor_hood_does_not_as_nu_approaches_half():
    out = {}
    for form in ("T3", "P2P1"):
        for nu in (0.3, 0.4999):
            b = inc.cantilever(20, 2, form, inc.neo_hookean(1.0, nu))
            out[form, nu] = inc.tip_ratio(b, inc.solve(b, inc.tip_load(b, 1.0)).x, 1.0)
    assert out["T3", 0.4999] < 0.05 * out["T3", 0.3]
    assert abs(out["P2P1", 0.4999] / out["P2P1", 0.3] - 1) < 0.03


def test_inf_sup_constant_is_bounded_for_taylor_hood_and_decays_like_h_for_p1p0():
    mat = inc.neo_hookean(1.0, 0.5)
    sizes = (10, 20, 40)
    beta = {f: [inc.inf_sup(inc.cantilever(n, n // 10, f, mat)) for n in sizes]
            for f in ("P2P1", "P2P0", "P1P0")}
    assert min(beta["P2P1"]) > 0.5 and beta["P2P1"][-1] / beta["P2P1"][-2] > 0.98
    assert min(beta["P2P0"]) > 0.5
    slope = np.polyfit(np.log(sizes), np.log(beta["P1P0"]), 1)[0]
    assert abs(slope + 1) < 0.15


@pytest.mark.parametrize("form", ["P2P0", "P1P0"])
def test_inf_sup_by_lanczos_is_the_dense_schur_eigenvalue(form):
    """Above 400 pressure unknowns inf_sup runs Lanczos on the unformed Schur complement;
    it gives the smallest generalized eigenvalue of the dense S = B K^-1 B^T (written
    here with dense NumPy) to 1e-12.  A pressure unknown coupled to nothing makes the
    saddle matrix singular: a SolveError, on which inf_sup takes the dense path."""
    body = inc.cantilever(30, 8, form, inc.neo_hookean(1.0, 0.5), slenderness=3.75)
    assert body.n_p > 400
    fr = body.geom.free
    K = inc.vector_laplacian(body.geom)[fr][:, fr].toarray()
    rows, cols, prow, pcol = body._up
    Be = np.einsum("eq,eqai,qc->eaic", body.geom.w, body.geom.G, body.Np)
    B = np.zeros((body.n_u, body.n_p))
    np.add.at(B, (rows, cols), Be.ravel())
    B = B[fr].T
    Me = np.einsum("eq,qc,qd->ecd", body.geom.w, body.Np, body.Np)
    Mp = np.zeros((body.n_p, body.n_p))
    np.add.at(Mp, (prow, pcol), Me.ravel())
    S = B @ np.linalg.solve(K, B.T)
    want = np.sqrt(sla.eigh(0.5 * (S + S.T), Mp, eigvals_only=True)[0])
    assert abs(inc.inf_sup(body) / want - 1) < 1e-12
    with pytest.raises(SolveError):
        fe.inf_sup_lanczos(sp.csr_matrix(K), sp.csr_matrix(np.vstack([B, 0 * B[:1]])),
                             sp.identity(body.n_p + 1))


def test_prolong_is_exact_for_fields_of_the_coarse_space_and_starts_newton_close():
    """prolong interpolates a quadratic displacement and a linear pressure exactly onto the
    nested 2x finer mesh; from the prolonged coarse solution one Newton load step reaches the
    finer equilibrium that four increments from rest reach (same tip to 1e-9)."""
    mat = inc.neo_hookean(1.0, 0.4999)
    c, f = inc.cantilever(10, 1, "P2P1", mat), inc.cantilever(20, 2, "P2P1", mat)
    X, Xf = c.geom.mesh.nodes, f.geom.mesh.nodes
    u = lambda X: np.column_stack([0.1 * X[:, 1] ** 2 - 0.02 * X[:, 0] * X[:, 1],
                                   0.003 * X[:, 0] ** 2]).ravel()
    P = lambda X: 1.0 + 0.5 * X[:, 0] - 2.0 * X[:, 1]
    pc = np.zeros(c.n_p)
    pc[c.pdofs.ravel()] = P(X[c.geom.mesh.elements[:, :3].ravel()])
    x = inc.prolong(c, np.concatenate([u(X), pc]), f)
    np.testing.assert_allclose(x[:f.n_u], u(Xf), atol=1e-14)
    pf = np.zeros(f.n_p)
    pf[f.pdofs.ravel()] = P(Xf[f.geom.mesh.elements[:, :3].ravel()])
    np.testing.assert_allclose(x[f.n_u:], pf, atol=1e-13)
    rc = inc.solve(c, inc.tip_load(c, 1.0))
    r1 = inc.solve(f, inc.tip_load(f, 1.0), steps=1, x0=inc.prolong(c, rc.x, f))
    r4 = inc.solve(f, inc.tip_load(f, 1.0))
    assert abs(inc.tip_deflection(f, r1.x) / inc.tip_deflection(f, r4.x) - 1) < 1e-9


def test_newton_converges_quadratically_for_the_mixed_element():
    b = inc.cantilever(10, 1, "P2P1", inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.5))
    f = inc.tip_load(b, 0.5)
    x = np.zeros(b.n_u + b.n_p)
    res = []
    for _ in range(6):
        r = inc.gradient(b, x, f)[b.free]
        res.append(np.abs(r).max())
        K = inc.hessian(b, x)[b.free][:, b.free].tocsc()
        x[b.free] -= spla.spsolve(K, r)
    # from the last residual above 1e-9 Newton lands at round-off: e_{k+1} <= C e_k^2
    r = np.array(res) / res[0]
    k = np.flatnonzero(r > 1e-9)[-1]
    assert 1e-9 < r[k] < 1e-4 and r[k + 1] <= 10 * r[k] ** 2 + 1e-12


def test_dynamics_force_is_the_condensed_residual_and_tangent():
    b = inc.cantilever(4, 1, "Fbar", inc.neo_hookean(1.0, 0.499), slenderness=4.0)
    force = inc.dynamics_force(b)
    u = 0.01 * RNG.standard_normal(b.geom.free.size)
    f, K = force(u)
    h = 1e-6
    i = 3
    e = np.zeros_like(u)
    e[i] = h
    fd = (force(u + e)[0] - force(u - e)[0]) / (2 * h)
    assert np.allclose(fd, K.toarray()[:, i], rtol=1e-6, atol=1e-8 * abs(K).max())


def test_vanishing_pressure_mass_does_not_change_the_mixed_release_transient():
    from lib import integrate
    b = inc.cantilever(10, 1, "P2P1", inc.neo_hookean(1.0, 0.5))
    x0 = inc.solve(b, inc.tip_load(b, 0.5)).x[b.free]
    tips = []
    for eps in (1e-9, 1e-7):
        tr = integrate.newmark(x0, np.zeros_like(x0), 20.0, 10, inc.dynamics_force(b),
                               inc.dynamics_mass(b, eps), every=10)
        tips.append(inc.tip_deflection(b, inc.expand(b, tr.q[-1])))
    assert abs(tips[0] - tips[1]) <= 1e-6 * abs(tips[0])


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("formulation", ["T3", "T6", "Fbar"])
def test_nu_one_half_is_refused_by_displacement_only_elements(formulation):
    with pytest.raises(ValueError, match=r"nu = 0\.5.*mixed"):
        inc.cantilever(10, 1, formulation, inc.neo_hookean(1.0, 0.5))


def test_nu_one_half_is_accepted_by_mixed_elements():
    for form in ("P2P1", "P2P0", "P1P0"):
        assert inc.cantilever(2, 1, form, inc.neo_hookean(1.0, 0.5)).n_p > 0


@pytest.mark.parametrize("call, name", [
    (lambda: inc.neo_hookean(0.0, 0.3), "mu"),
    (lambda: inc.neo_hookean(-1.0, 0.3), "mu"),
    (lambda: inc.mooney_rivlin(0.0, 0.1), "c10"),
    (lambda: inc.mooney_rivlin(0.3, -0.1), "c01"),
    (lambda: inc.yeoh(-1.0, 0.0, 0.0), "c10"),
    (lambda: inc.yeoh(1.0, 0.0, -0.1), "c30"),
    (lambda: inc.stable_neo_hookean(0.0), "mu"),
    (lambda: inc.neo_hookean(1.0, 0.6), "nu"),
    (lambda: inc.neo_hookean(1.0, -1.0), "nu"),
    (lambda: inc.material("ogden", mu=1.0), "model"),
    (lambda: inc.material("neo-hookean", c10=1.0), "constants"),
    (lambda: inc.cantilever(2, 1, "Q4", inc.neo_hookean()), "formulation"),
    (lambda: inc.cantilever(2, 1, "T6", inc.neo_hookean(), rho=0.0), "rho"),
    (lambda: inc.response(inc.neo_hookean(1.0, 0.5), np.eye(2)), "nu = 0.5"),
    (lambda: inc.inf_sup(inc.cantilever(2, 1, "T6", inc.neo_hookean())), "mixed"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_failed_newton_says_how_far_it_got():
    b = inc.cantilever(10, 1, "T6", inc.neo_hookean(1.0, 0.4999))
    with pytest.raises(inc.ConvergenceError, match=r"load step 1 \(λ = 0.5\), iteration 2, "
                                                   r"residual .*cut limit.*up to λ = 0") as err:
        inc.solve(b, inc.tip_load(b, 1.0), steps=1, maxiter=2, max_cuts=1)
    assert err.value.reason == "cut limit" and err.value.load == 0.5


def test_explore_ratios_rank_the_elements_as_the_chapter_does():
    from lib import explore
    ny, r = explore.incompressible_ratios(0.4999, sizes=(1, 2))
    ref = cc.SKFEM_REFERENCE[0.4999]
    err = {f: np.abs(v / ref - 1) for f, v in r.items()}
    assert np.all(err["P2P1"] < err["T6"]) and np.all(err["P2P1"] < err["Fbar"])
    _, r5 = explore.incompressible_ratios(0.5, sizes=(1,))
    assert np.isnan(r5["T6"][0]) and np.isfinite(r5["P2P1"][0])


def test_explore_plot_draws_the_given_reference_and_its_error_bar():
    import matplotlib.pyplot as plt
    from lib import explore
    ref = inc.TipReference(0.9, 0.002, ((10, 1),), np.ones(1), np.ones(1), 1.2)
    fig = explore.plot_incompressible_ratios(0.49, reference=ref)
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith("reference")]
    assert len(lines) == 1 and np.allclose(lines[0].get_ydata(), 0.9)
    band = ax.patches[0].get_extents().transformed(ax.transData.inverted())
    assert np.isclose(band.y0, 0.898) and np.isclose(band.y1, 0.902)
    bare = explore.plot_incompressible_ratios(0.49)        # no stale cached line without one
    assert not [ln for ln in bare.axes[0].get_lines() if ln.get_label().startswith("reference")]
    with pytest.raises(ValueError, match="reference"):
        explore.plot_incompressible_ratios(0.49, reference=0.9)
    plt.close("all")


def test_solve_extra_load_reproduces_the_dead_load():
    """A load given through ``extra`` (g = -factor f, no stiffness) gives the dead-load solution."""
    body = inc.cantilever(6, 1, "P2P1", inc.neo_hookean(1.0, 0.49), slenderness=6.0)
    f = inc.tip_load(body, 0.5)
    x_dead = inc.solve(body, f, steps=2).x
    x_extra = inc.solve(body, np.zeros_like(f), steps=2, extra=lambda u, s: (-s * f, None),
                        extra_scale=np.abs(f).max()).x
    assert np.allclose(x_extra, x_dead, rtol=0, atol=1e-10 * np.abs(x_dead).max())
    with pytest.raises(ValueError, match="extra"):
        inc.solve(body, f, extra=3.0)
    with pytest.raises(ValueError, match="load is zero"):
        inc.solve(body, np.zeros_like(f))


# ------------------------------------------------ issue 22: bad input named, extremes right
def test_issue_22_examples():
    mat = inc.neo_hookean(mu=np.int64(2), nu=np.int64(0))      # numpy integers are numbers
    assert (mat.mu, mat.nu, mat.kappa) == (2.0, 0.0, 4.0 / 3.0)
    b = inc.cantilever(4, 1, "P2P1", inc.neo_hookean(1.0, 0.49), slenderness=4.0)
    x0 = np.zeros(b.n_u + b.n_p)
    x0[-1] = np.nan
    with pytest.raises(ValueError, match=r"^x0 must be finite, got nan at index"):
        inc.solve(b, inc.tip_load(b, 0.1), x0=x0)
    with pytest.raises(ValueError, match=r"^body must be a plane-strain body"):
        inc.solve(None, inc.tip_load(b, 0.1))
    with pytest.raises(ValueError, match=r"^mat must be a hyperelastic material"):
        inc.cantilever(2, 1, "T6", fem.cantilever(2, 1))


@pytest.mark.parametrize("mu", [1e-8, 1e8])
def test_extreme_shear_moduli_give_the_same_tip_ratio(mu):
    """The tip ratio depends on alpha = P L^2/(E' I) only: a very soft or very stiff
    rubber, loaded in proportion (tip_load scales with E'), bends exactly as the unit one."""
    ref = inc.cantilever(6, 1, "P2P1", inc.neo_hookean(1.0, 0.499), slenderness=6.0)
    b = inc.cantilever(6, 1, "P2P1", inc.neo_hookean(mu, 0.499), slenderness=6.0)
    r_ref = inc.solve(ref, inc.tip_load(ref, 1.0), steps=2)
    r = inc.solve(b, inc.tip_load(b, 1.0), steps=2)
    assert inc.tip_ratio(b, r.x, 1.0) == pytest.approx(inc.tip_ratio(ref, r_ref.x, 1.0), rel=1e-9)
    assert r.iterations == r_ref.iterations


def test_reference_tip_ratio_at_small_load_is_the_linear_corner_extrapolation():
    # at alpha -> 0 the finite-strain Taylor-Hood reference must agree with the linear
    # mixed T6/P1 sequence of lib.fem extrapolated with the same rate, inside the bars
    ref = inc.reference_tip_ratio(inc.neo_hookean(1.0, 0.45), alpha=1e-4, ny=(1, 2, 4, 8),
                                  slenderness=4.0, steps=1)
    lin = []
    for ny in (1, 2, 4, 8):
        m = fem.cantilever(4 * ny, ny, "T6", 0.45, slenderness=4.0)
        lin.append(fem.deflection_ratio(m, fem.mixed_solve(m, fem.tip_shear_load(m))[0]))
    value, err, _ = fem.corner_extrapolation(lin, 0.45)
    assert ref.meshes == ((4, 1), (8, 2), (16, 4), (32, 8))
    assert ref.exponent == pytest.approx(2 * fem.corner_exponent(0.45))
    assert np.allclose(ref.ratios, lin, rtol=2e-2)          # two discretisations ...
    assert abs(ref.value - value) < 1e-3 * value            # ... one limit
    assert ref.error < abs(ref.ratios[-1] - ref.ratios[-2])


def test_reference_tip_ratio_refuses_the_incompressible_limit_and_bad_sequences():
    with pytest.raises(ValueError, match="mat"):
        inc.reference_tip_ratio(inc.neo_hookean(1.0, 0.5))
    with pytest.raises(ValueError, match="ny"):
        inc.reference_tip_ratio(inc.neo_hookean(1.0, 0.3), ny=(1, 2, 3))


@pytest.mark.parametrize("nu", [0.45, 0.4999])
def test_mixed_twins_give_the_condensed_elements_solutions(nu):
    # P2/P0 condensed element by element is the mean-dilatation element ("Fbar"); P2 with
    # a discontinuous linear pressure on T6's 3-point rule is T6: same discrete solutions
    # at a large load, but the mixed forms take far fewer Newton iterations near nu = 0.5
    mat = inc.neo_hookean(1.0, nu)
    for cond, twin in (("Fbar", "P2P0"), ("T6", "P2P1disc")):
        bc, bt = inc.cantilever(20, 2, cond, mat), inc.cantilever(20, 2, twin, mat)
        rc, rt = inc.solve(bc, inc.tip_load(bc, 1.0)), inc.solve(bt, inc.tip_load(bt, 1.0))
        # each solve stops at its residual (the displacement element near nu = 0.5 at its
        # round-off floor, ~6e-9): the solutions may differ by the compliance (tip
        # deflection per unit tip load) times the two residuals
        scale = np.abs(rc.x).max()
        bound = 1e-10 * scale + scale * (rc.residual + rt.residual)
        assert np.abs(rc.x - rt.x[:bt.n_u]).max() <= bound
        assert rt.newton_total <= 25 and len(rt.iterations) == 4
        if nu == 0.4999:
            # the displacement forms stall at their round-off floor, so how many
            # iterations that takes is the CPU's round-off (T6: 46 against 19 on an AMD
            # EPYC, Fbar: 143 against 20)
            assert rc.newton_total > (3 if cond == "Fbar" else 2) * rt.newton_total


def test_p2p1disc_pressure_is_kappa_times_the_pointwise_dilatation():
    mat = inc.neo_hookean(1.0, 0.49)
    b = inc.cantilever(10, 1, "P2P1disc", mat)
    x = inc.solve(b, inc.tip_load(b, 0.5)).x
    F = inc._F(b, x[:b.n_u])
    J = np.linalg.det(F)
    pq = np.einsum("qc,ec->eq", b.Np, inc.pressure_field(b, x))
    assert np.abs(pq - mat.kappa * (J - mat.J0)).max() <= 1e-8 * np.abs(pq).max()


def test_prolongation_reproduces_quadratic_displacement_and_linear_pressure():
    mat = inc.neo_hookean(1.0, 0.45)
    bc, bf = (inc.cantilever(n, n // 4, "P2P1", mat, slenderness=4.0) for n in (4, 8))

    def field(b):
        X = b.geom.mesh.nodes
        x = np.zeros(b.n_u + b.n_p)
        x[:b.n_u] = np.stack([0.01 * X[:, 0] ** 2 - 0.03 * X[:, 1] ** 2,
                              0.02 * X[:, 0] * X[:, 1] + 0.1 * X[:, 1]], 1).ravel()
        loc = np.empty((b.n_p, 2))
        loc[b.pdofs.ravel()] = X[b.geom.mesh.elements[:, :3].ravel()]
        x[b.n_u:] = 0.3 * loc[:, 0] - 0.7 * loc[:, 1] + 0.2
        return x

    assert np.abs(inc._prolong(bc, field(bc), bf) - field(bf)).max() < 1e-13


def test_reference_ladder_started_from_the_coarse_solution_gives_the_same_ratios():
    mat = inc.neo_hookean(1.0, 0.49)
    ref = inc.reference_tip_ratio(mat, 1.0, ny=(1, 2, 4), steps=1)
    cold = [inc.tip_ratio(b, inc.solve(b, inc.tip_load(b, 1.0), steps=1).x, 1.0)
            for b in (inc.cantilever(10 * n, n, "P2P1", mat) for n in (1, 2, 4))]
    assert np.abs(ref.ratios - cold).max() < 1e-10


def test_cantilever_solution_is_the_plain_solve_and_is_computed_once():
    # the shared solution is bit for bit what solve computes, the second call returns the
    # same objects (no second solve), and the shared vector cannot be altered by a caller
    b, r = inc.cantilever_solution(10, 1, "T6", 0.499, alpha=0.5)
    b2 = inc.cantilever(10, 1, "T6", inc.neo_hookean(1.0, 0.499))
    r2 = inc.solve(b2, inc.tip_load(b2, 0.5))
    assert np.array_equal(r.x, r2.x) and r.iterations == r2.iterations
    assert inc.cantilever_solution(10, 1, "T6", 0.499, alpha=0.5)[1] is r
    assert inc.cantilever_solution(10, 1, "T6", 0.499, alpha=0.25)[1] is not r
    with pytest.raises(ValueError):
        r.x[0] = 1.0


@pytest.mark.parametrize("formulation", inc.FORMULATIONS)
def test_tangent_placed_by_the_plan_is_the_block_assembly_entry_for_entry(formulation):
    # the full tangent and its free part, placed by the per-body plan, are exactly the
    # blocks assembled and laid out the plain way (COO triplets, sp.bmat, K[free][:, free])
    import scipy.sparse as sp
    from lib.fe import assemble_matrix
    b = inc.cantilever(6, 2, formulation, inc.neo_hookean(1.0, 0.5 if formulation in inc.MIXED
                                                           else 0.49))
    x = np.zeros(b.n_u + b.n_p)
    x[b.free] = 1e-2 * RNG.standard_normal(b.free.size)
    u, p = x[:b.n_u], x[b.n_u:]
    F = inc._F(b, u)
    G, w = b.geom.G, b.geom.w
    _, _, A = inc._kernel(b.material, F, inc._point_vol(b, p, inc._det(F)), 2)
    Ke = np.einsum("eq,eqaJ,eqiJkL,eqbL->eaibk", w, G, A, G, optimize=True)
    Ke = Ke.reshape(len(G), 2 * G.shape[2], -1)
    if formulation == "Fbar":
        be = np.einsum("eq,eqiJ,eqaJ->eai", w, inc._H(F), G, optimize=True).reshape(len(G), -1)
        Ke = Ke + (b.material.kappa / b.area)[:, None, None] * be[:, :, None] * be[:, None, :]
    K = assemble_matrix(b.geom, 0.5 * (Ke + Ke.transpose(0, 2, 1)))
    if b.mixed:
        rows, cols, prow, pcol = b._up
        Be = np.einsum("eq,eqiJ,eqaJ,qc->eaic", w, inc._H(F), G, b.Np, optimize=True)
        Kup = sp.csr_matrix((Be.ravel(), (rows, cols)), shape=(b.n_u, b.n_p))
        Ce = -0.0 * np.einsum("eq,qc,qd->ecd", w, b.Np, b.Np)     # 1/kappa = 0 at nu = 0.5
        Kpp = sp.csr_matrix((Ce.ravel(), (prow, pcol)), shape=(b.n_p, b.n_p))
        K = sp.bmat([[K, Kup], [Kup.T, Kpp]], format="csr")
    for got, want in ((inc.hessian(b, x), K), (inc._hessian(b, x, free=True),
                                               K[b.free][:, b.free])):
        assert got.shape == want.shape
        assert np.array_equal(got.indptr, want.indptr)
        assert np.array_equal(got.indices, want.indices)
        assert np.array_equal(got.data, want.data)


def test_modified_newton_reaches_newtons_solution_on_one_factorisation(monkeypatch):
    # from a close start (the coarse solution interpolated), the tangent of the start
    # serves every iteration: one factorisation, more (linearly converging) iterations,
    # the same solution to the tolerance
    from lib.solvers import newton as newton_module
    mat = inc.neo_hookean(1.0, 0.4999)
    bc, bf = inc.cantilever(10, 1, "P2P1", mat), inc.cantilever(20, 2, "P2P1", mat)
    x0 = inc._prolong(bc, inc.solve(bc, inc.tip_load(bc, 1.0)).x, bf)
    calls = []
    orig = newton_module.factor
    monkeypatch.setattr(newton_module, "factor",
                        lambda *a, **k: calls.append(1) or orig(*a, **k))
    newton = inc.solve(bf, inc.tip_load(bf, 1.0), steps=1, x0=x0)
    n_newton, calls[:] = len(calls), []
    modified = inc.solve(bf, inc.tip_load(bf, 1.0), steps=1, x0=x0, reuse=25)
    assert len(calls) == 1 and n_newton == newton.newton_total >= 3
    assert modified.newton_total > newton.newton_total and modified.residual <= 1e-10
    assert np.abs(modified.x - newton.x).max() <= 1e-9 * np.abs(newton.x).max()


def test_symmetric_mode_lu_gives_the_general_solution_with_less_fill():
    # SuperLU's symmetric mode (minimum degree on A + A^T, diagonal pivots) solves the
    # indefinite Taylor-Hood tangent: the same Newton path to round-off, and on a fine
    # mesh with less fill
    b = inc.cantilever(40, 4, "P2P1", inc.neo_hookean(1.0, 0.4999))
    general = inc.solve(b, inc.tip_load(b, 1.0))
    symmetric = inc.solve(b, inc.tip_load(b, 1.0), lu="symmetric")
    assert symmetric.iterations == general.iterations
    assert np.abs(symmetric.x - general.x).max() <= 1e-9 * np.abs(general.x).max()
    fine = inc.cantilever(80, 8, "P2P1", b.material)             # the fill gap grows with n
    K = inc._hessian(fine, np.zeros(fine.n_u + fine.n_p), free=True).tocsc()
    lu_g = spla.splu(K)
    lu_s = spla.splu(K, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                     options={"SymmetricMode": True})
    assert lu_s.L.nnz + lu_s.U.nnz < 0.8 * (lu_g.L.nnz + lu_g.U.nnz)
    with pytest.raises(ValueError, match="^lu must be one of"):
        inc.solve(b, inc.tip_load(b, 1.0), lu="cholesky")
