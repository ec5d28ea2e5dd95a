"""Locking diagnostics of lib.fem: divergence-free subspace, inf-sup constants, the clamp
corner singularity, Newmark's convergence on filtered releases, and wrapped SciPy errors."""
import numpy as np
import pytest
import scipy.linalg as sla

import lib.fem as fem
import lib.integrate as integrate


def _box_clamped(nx, ny, element):
    """The book's 10 x 1 rectangle with every face clamped (no traction-free boundary)."""
    mesh = fem.rectangle_mesh(nx, ny, element, 10.0, 1.0)
    X, Y = mesh.nodes.T
    on = np.flatnonzero(np.isclose(X, 0) | np.isclose(X, 10) | np.isclose(np.abs(Y), 0.5))
    return fem.make_model(mesh, nu=0.3, fixed=np.concatenate([2 * on, 2 * on + 1]))


# ------------------------------------------------------------------ divergence-free subspace
@pytest.mark.parametrize("nx, ny", [(10, 1), (20, 2), (40, 4)])
def test_t3_divergence_free_subspace_of_the_clamped_cantilever_has_dimension_2nx(nx, ny):
    # free dofs 2 nx (ny + 1), one constraint per triangle (2 nx ny), full row rank:
    # the dimension grows with the number of columns only, not with the cells
    c = fem.divergence_free_dimension(nx, ny, "T3")
    assert c.free == 2 * nx * (ny + 1) and c.constraints == 2 * nx * ny
    assert c.rank == c.constraints
    assert c.dimension == 2 * nx
    assert c.gap > 1e-4                      # the rank is clear: far above rtol = 1e-10


@pytest.mark.parametrize("nx, ny", [(10, 1), (20, 2), (40, 4)])
def test_t6_divergence_free_subspace_grows_with_the_number_of_cells(nx, ny):
    c = fem.divergence_free_dimension(nx, ny, "T6")
    assert c.free == 4 * nx * (2 * ny + 1) and c.constraints == 6 * nx * ny
    assert c.rank == c.constraints
    assert c.dimension == 2 * nx * ny + 4 * nx
    assert c.ratio == pytest.approx(c.free / c.constraints)


def test_constraint_ratio_tends_to_one_for_t3_and_four_thirds_for_t6():
    r3 = [fem.divergence_free_dimension(10 * n, n, "T3").ratio for n in (1, 2, 4)]
    r6 = [fem.divergence_free_dimension(10 * n, n, "T6").ratio for n in (1, 2, 4)]
    # r = 1 + 1/ny for T3 and (8 ny + 4)/(6 ny) for T6
    np.testing.assert_allclose(r3, [1 + 1 / n for n in (1, 2, 4)], rtol=1e-14)
    np.testing.assert_allclose(r6, [(8 * n + 4) / (6 * n) for n in (1, 2, 4)], rtol=1e-14)


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_divergence_matrix_is_the_volumetric_part_of_the_stiffness(element):
    # K(lam) = K_mu + lam D^T D: two materials with the same mu differ by (lam1 - lam2) D^T D
    mesh = fem.rectangle_mesh(3, 2, element, 3.0, 2.0)
    a = fem.make_model(mesh, E=1.0, nu=0.3)
    nu2 = 0.45
    b = fem.make_model(mesh, E=a.mu * 2 * (1 + nu2), nu=nu2)
    assert b.mu == pytest.approx(a.mu, rel=1e-14)
    D = fem.divergence_matrix(a).toarray()
    dK = (fem.linear_stiffness(b) - fem.linear_stiffness(a)).toarray()
    np.testing.assert_allclose(dK, (b.lam - a.lam) * D.T @ D, atol=1e-12 * np.abs(dK).max())


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_divergence_free_fields_have_zero_pressure_everywhere(element):
    m = fem.cantilever(10, 1, element)
    Z = sla.null_space(fem.divergence_matrix(m)[:, m.free].toarray())
    assert Z.shape[1] == fem.divergence_free_dimension(10, 1, element).dimension
    pts = np.random.default_rng(0).dirichlet(np.ones(3), 5)[:, 1:]       # inside the element
    for z in Z.T[:5]:
        p = fem.pressure(m, fem.expand(m, z), pts)
        assert np.abs(p).max() <= 1e-12 * m.lam * np.abs(z).max()


def test_fully_clamped_t3_box_has_no_divergence_free_field():
    # every face clamped: 2 (nx-1)(ny-1) freedoms against 2 nx ny constraints
    m = _box_clamped(10, 2, "T3")
    Df = fem.divergence_matrix(m)[:, m.free].toarray()
    assert Df.shape[0] > Df.shape[1]
    assert np.linalg.matrix_rank(Df) == Df.shape[1]


# ------------------------------------------------------------------------ inf-sup constants
def test_taylor_hood_inf_sup_constant_is_bounded_away_from_zero_under_refinement():
    beta = {n: fem.inf_sup_constants(fem.cantilever(10 * n, n, "T6"))[0] for n in (1, 2, 4)}
    assert beta[2] > 0.6 and beta[4] > 0.6
    assert abs(beta[4] / beta[2] - 1) < 0.01            # settled
    # the coarse 10 x 1 mesh (no interior vertex) is not worse: the traction-free faces
    # leave its boundary pressures controllable
    assert beta[1] > beta[2]


def test_taylor_hood_on_a_fully_clamped_box_has_exactly_one_zero_mode_the_constant():
    m = _box_clamped(10, 1, "T6")
    beta = fem.inf_sup_constants(m, k=2)
    assert beta[0] < 1e-6                                # the hydrostatic pressure
    assert beta[1] > 0.05                                # every other pressure is controlled


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_displacement_element_pressure_has_inf_sup_constant_falling_like_h(element):
    ny = np.array([1, 2, 4])
    beta = [fem.inf_sup_constants(fem.cantilever(10 * n, n, element), pressure="quadrature")[0]
            for n in ny]
    slope = np.polyfit(np.log(ny), np.log(beta), 1)[0]
    assert slope == pytest.approx(-1.0, abs=0.35)
    assert beta[-1] < 0.1


def test_inf_sup_values_are_bounded_by_sqrt2():
    # |div v|^2 <= 2 |grad v|^2 in two dimensions
    m = fem.cantilever(10, 1, "T6")
    beta = fem.inf_sup_constants(m, k=np.unique(m.mesh.elements[:, :3]).size)
    assert beta.max() <= np.sqrt(2) * (1 + 1e-12)
    assert beta.max() > 1.3


def test_inf_sup_rejects_bad_input():
    with pytest.raises(ValueError, match="taylor-hood"):
        fem.inf_sup_constants(fem.cantilever(2, 1, "T3"))
    with pytest.raises(ValueError, match="pressure"):
        fem.inf_sup_constants(fem.cantilever(2, 1, "T6"), pressure="P0")
    with pytest.raises(ValueError, match="k must"):
        fem.inf_sup_constants(fem.cantilever(2, 1, "T6"), k=0)
    unclamped = fem.make_model(fem.rectangle_mesh(2, 1, "T6"))
    with pytest.raises(ValueError, match="clamped"):
        fem.inf_sup_constants(unclamped)


# ------------------------------------------------------------------- corner singularity
def test_corner_exponent_solves_williams_equation_and_has_its_limits():
    for nu in (0.0, 0.2, 0.3, 0.45):
        s, kappa = fem.corner_exponent(nu), 3 - 4 * nu
        assert 4 * kappa * np.sin(s * np.pi / 2) ** 2 == pytest.approx((1 + kappa) ** 2 - 4 * s**2)
    assert fem.corner_exponent(0.0) == pytest.approx(1.0, abs=1e-12)   # kappa = 3: no singularity
    s = [fem.corner_exponent(nu) for nu in (0.1, 0.2, 0.3, 0.4, 0.49)]
    assert np.all(np.diff(s) < 0) and 0.5 < s[-1] < s[0] < 1


def test_fully_clamped_tip_deflection_converges_at_the_corner_singularity_rate():
    # uniform T6 meshes of an L/h = 4 cantilever: the increments of the tip ratio fall as
    # h^(2 s) (s = Williams' clamped-free exponent), not as the regular h^4
    r = []
    for ny in (4, 8, 16, 32):
        m = fem.cantilever(4 * ny, ny, "T6", 0.3, slenderness=4.0)
        r.append(fem.deflection_ratio(m, fem.solve_linear(m, fem.tip_shear_load(m))))
    d = np.diff(r)
    order = np.log2(d[-2] / d[-1])
    assert order == pytest.approx(2 * fem.corner_exponent(0.3), abs=0.03)


def test_corner_exponent_rejects_bad_input():
    with pytest.raises(ValueError, match="nu"):
        fem.corner_exponent(0.5)
    with pytest.raises(ValueError, match="angle"):
        fem.corner_exponent(0.3, angle=3.0)


# ---------------------------------------------------- Newmark on a filtered (modal) release
def _linear_release_errors(n_modes, steps=(20, 40, 80, 160)):
    """Newmark tip error over half a period, linear T6 10x1, against the exact modal solution.

    The release shape is the linear static shape under a tip load, projected onto its
    lowest ``n_modes`` eigenmodes (None: unfiltered).
    """
    m = fem.cantilever(10, 1, "T6", 0.3)
    K = fem.condense(m, fem.linear_stiffness(m))
    Ms = fem.condense(m, fem.mass(m))
    w2, Phi = sla.eigh(K.toarray(), Ms.toarray())
    w = np.sqrt(w2)
    T1 = 2 * np.pi / w[0]
    u_st = sla.solve(K.toarray(), fem.condense(m, b=fem.tip_shear_load(m)))
    c = Phi.T @ (Ms @ u_st)
    if n_modes is not None:
        c[n_modes:] = 0
    u0 = Phi @ c
    right = np.flatnonzero(np.isclose(m.mesh.nodes[:, 0], m.mesh.length))
    sel = np.zeros(m.n_dofs)
    sel[2 * right + 1] = 1 / right.size
    tip = sel[m.free]
    errs = []
    for N in steps:
        h = T1 / N
        t = h * np.arange(N // 2 + 1)
        exact = np.cos(np.outer(t, w)) @ (c * (Phi.T @ tip))
        u, v = u0.copy(), np.zeros_like(u0)
        a = -sla.solve(Ms.toarray(), K @ u)
        tips = [tip @ u]
        for _ in range(N // 2):
            u, v, a = integrate.newmark_step(u, v, a, h, lambda x: (K @ x, K), Ms)
            tips.append(tip @ u)
        errs.append(np.abs(np.array(tips) - exact).max() / abs(tip @ u_st))
    order = -np.polyfit(np.log(steps), np.log(errs), 1)[0]
    return np.array(errs), order


def test_newmark_is_second_order_once_the_release_shape_is_filtered_to_the_first_mode():
    _, order = _linear_release_errors(1)
    assert order == pytest.approx(2.0, abs=0.03)


def test_newmark_slow_convergence_comes_from_the_low_bending_modes_not_the_top_ones():
    errs_all, order_all = _linear_release_errors(None)
    errs_4, _ = _linear_release_errors(4)            # modes up to 16 omega_1 kept
    assert order_all < 1.4                           # far from 2 over T1/20 ... T1/160
    np.testing.assert_allclose(errs_4, errs_all, rtol=0.1)   # modes above 16 omega_1 irrelevant


# ------------------------------------------------------------ SciPy errors are wrapped
def test_unclamped_solves_raise_value_errors_that_name_the_clamp():
    m = fem.make_model(fem.rectangle_mesh(4, 1, "T6"))
    f = fem.tip_shear_load(m)
    with pytest.raises(ValueError, match="clamped"):
        fem.solve_linear(m, f)
    with pytest.raises(ValueError, match="clamped"):
        fem.mixed_solve(m, f)
    with pytest.raises(ValueError, match="clamped"):
        fem.frequencies(m, 2)


def test_divergence_diagnostics_reject_bad_input():
    with pytest.raises(ValueError, match="rtol"):
        fem.divergence_free_dimension(2, 1, "T3", rtol=0.0)
    with pytest.raises(ValueError, match="element"):
        fem.divergence_free_dimension(2, 1, "Q4")
    with pytest.raises(ValueError, match="nx"):
        fem.divergence_free_dimension(0, 1, "T3")
    with pytest.raises(ValueError, match="model"):
        fem.divergence_matrix("not a model")


# ---------------------------------------------- Richardson extrapolation with the corner rate
def test_corner_extrapolation_is_exact_for_the_pure_corner_rate_and_its_bar_bounds_the_error():
    s = fem.corner_exponent(0.45)
    h = 0.5 ** np.arange(5)
    value, err, E = fem.corner_extrapolation(0.9 - 0.3 * h ** (2 * s), 0.45)
    assert value == pytest.approx(0.9, abs=1e-14) and err < 1e-14 and E.size == 4
    v = 0.9 - 0.3 * h ** (2 * s) + 0.2 * h ** (2 * s + 1)        # a higher-order term
    value, err, E = fem.corner_extrapolation(v, 0.45)
    assert abs(value - 0.9) < err < 1e-2
    assert np.all(np.diff(np.abs(E - 0.9)) < 0)                   # extrapolants converge


def test_corner_extrapolation_converges_the_full_clamp_sequence_faster_than_its_meshes():
    # L/h = 4 T6 cantilever, nu = 0.3: the extrapolants' spread falls much faster than the
    # mesh increments (which fall only as h^(2s))
    r = []
    for ny in (2, 4, 8, 16):
        m = fem.cantilever(4 * ny, ny, "T6", 0.3, slenderness=4.0)
        r.append(fem.deflection_ratio(m, fem.solve_linear(m, fem.tip_shear_load(m))))
    value, err, E = fem.corner_extrapolation(r, 0.3)
    assert err < 0.2 * abs(r[-1] - r[-2])
    assert abs(value - r[-1]) > 3 * err                     # the finest mesh is outside the bar


@pytest.mark.parametrize("pressure, nx", [("quadrature", 40), ("taylor-hood", 80)])
def test_inf_sup_by_lanczos_is_the_dense_smallest_value(pressure, nx):
    """With k = 1 and more than 400 pressures inf_sup_constants runs Lanczos on the
    unformed Schur complement; k = 2 takes the dense eigh: the same smallest value to 1e-12."""
    m = fem.cantilever(nx, nx // 10, "T6")
    lanczos = fem.inf_sup_constants(m, pressure=pressure)
    dense = fem.inf_sup_constants(m, k=2, pressure=pressure)
    assert lanczos.shape == (1,) and abs(lanczos[0] / dense[0] - 1) < 1e-12
