"""Properties of lib.fem: derivatives, patch tests, invariants, rates, an independent check."""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

import lib.fem as fem
from lib.constraints import kkt_solve

ELEMENTS = ("T3", "T6")


def deformed_state(model, seed=1, amp=1.0):
    """A smooth finite deformation plus noise (det F stays well above 0)."""
    rng = np.random.default_rng(seed)
    X = model.mesh.nodes
    u = np.column_stack([0.1 * np.sin(X[:, 0]) + 0.05 * X[:, 1] ** 2,
                         0.2 * X[:, 0] ** 2 / 9 - 0.1 * np.cos(X[:, 1])]).ravel()
    return amp * (u + 0.01 * rng.standard_normal(u.size))


def small_model(element, nu=0.35):
    mesh = fem.rectangle_mesh(3, 2, element, 3.0, 2.0)
    return fem.make_model(mesh, nu=nu)


def fd4(fun, u, i, h):
    """Fourth-order central difference of ``fun`` along dof ``i``."""
    e = np.zeros_like(u)
    e[i] = h
    return (-fun(u + 2 * e) + 8 * fun(u + e) - 8 * fun(u - e) + fun(u - 2 * e)) / (12 * h)


# -------------------------------------------------------------------------------- derivatives
@pytest.mark.parametrize("element", ELEMENTS)
def test_internal_force_is_the_gradient_of_the_energy(element):
    m = small_model(element)
    u = deformed_state(m)
    g = fem.gradient(m, u)
    fd = np.array([fd4(lambda x: fem.energy(m, x), u, i, 3e-4) for i in range(u.size)])
    assert np.abs(fd - g).max() / np.abs(g).max() <= 2e-10


@pytest.mark.parametrize("element", ELEMENTS)
def test_tangent_is_the_jacobian_of_the_internal_force(element):
    m = small_model(element)
    u = deformed_state(m, seed=2)
    K = fem.hessian(m, u).toarray()
    fd = np.column_stack([fd4(lambda x: fem.gradient(m, x), u, i, 3e-4) for i in range(u.size)])
    assert np.abs(fd - K).max() / np.abs(K).max() <= 6e-9
    assert np.abs(K - K.T).max() <= 1e-13 * np.abs(K).max()


def test_load_term_enters_energy_and_gradient_consistently():
    m = small_model("T6")
    u = deformed_state(m, seed=3)
    load = np.random.default_rng(4).standard_normal(m.n_dofs)
    assert fem.energy(m, u, load) == pytest.approx(fem.energy(m, u) - load @ u, abs=1e-14)
    np.testing.assert_allclose(fem.gradient(m, u, load), fem.gradient(m, u) - load, atol=1e-14)


def test_neo_hookean_tangent_has_major_symmetry_and_linear_limit():
    rng = np.random.default_rng(5)
    F = np.eye(2) + 0.3 * rng.standard_normal((7, 2, 2))
    mu, lam = 0.7, 2.3
    _, _, A = fem.neo_hookean(F, mu, lam)
    np.testing.assert_allclose(A, np.einsum("...iJkL->...kLiJ", A), atol=1e-13)
    # F -> I: P -> mu (H + H^T) + lam tr(H) I with an O(eps) remainder
    H = rng.standard_normal((2, 2))
    errs = []
    for eps in (1e-2, 1e-3, 1e-4):
        _, P = fem.neo_hookean(np.eye(2) + eps * H, mu, lam, order=1)
        lin = mu * (H + H.T) + lam * np.trace(H) * np.eye(2)
        errs.append(np.abs(P / eps - lin).max())
    slope = np.polyfit(np.log([1e-2, 1e-3, 1e-4]), np.log(errs), 1)[0]
    assert slope == pytest.approx(1.0, abs=0.05)


def test_neo_hookean_rejects_inverted_elements():
    with pytest.raises(ValueError, match="det F"):
        fem.neo_hookean(np.diag([1.0, -0.5]), 1.0, 1.0)


# -------------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("element", ELEMENTS)
def test_rigid_motions_carry_no_force(element):
    m = small_model(element)
    X = m.mesh.nodes
    shift = np.tile([0.3, -0.7], X.shape[0])
    assert np.abs(fem.gradient(m, shift)).max() <= 1e-14
    th = 0.7                                        # finite rotation about (1, -0.5)
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    c = np.array([1.0, -0.5])
    u = ((X - c) @ R.T + c - X).ravel()
    assert abs(fem.energy(m, u)) <= 1e-13
    assert np.abs(fem.gradient(m, u)).max() <= 1e-13
    # the linear stiffness annihilates the infinitesimal rotation
    K = fem.linear_stiffness(m)
    w = np.column_stack([-(X[:, 1] - c[1]), X[:, 0] - c[0]]).ravel()
    assert np.abs(K @ w).max() <= 1e-13 * np.abs(K).max()


@pytest.mark.parametrize("element", ELEMENTS)
def test_energy_is_frame_indifferent(element):
    m = small_model(element)
    u = deformed_state(m, seed=6)
    X = m.mesh.nodes
    x = X + u.reshape(-1, 2)
    th = -1.1
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    u_rot = (x @ R.T - X).ravel()
    assert fem.energy(m, u_rot) == pytest.approx(fem.energy(m, u), rel=1e-12)


@pytest.mark.parametrize("element", ELEMENTS)
def test_mass_integrates_density_exactly(element):
    rho = 1.7
    mesh = fem.rectangle_mesh(4, 3, element, 2.5, 1.5)
    m = fem.make_model(mesh, rho=rho)
    M = fem.mass(m)
    ones_x = np.tile([1.0, 0.0], mesh.nodes.shape[0])
    assert ones_x @ (M @ ones_x) == pytest.approx(rho * 2.5 * 1.5, rel=1e-13)
    # the quadrature is exact for products of shape functions: int rho x^2 dA
    X = mesh.nodes[:, 0]
    xx = np.column_stack([X, 0 * X]).ravel()
    assert xx @ (M @ xx) == pytest.approx(rho * 1.5 * 2.5**3 / 3, rel=1e-13)
    assert abs(M - M.T).max() <= 4 * np.finfo(float).eps * abs(M).max()   # summation order only


@pytest.mark.parametrize("element", ELEMENTS)
def test_patch_test_linear_field_is_exact(element):
    """Boundary nodes follow u = A X + c; the interior solution reproduces it."""
    mesh = fem.rectangle_mesh(4, 3, element, 2.0, 1.0)
    X = mesh.nodes
    boundary = np.flatnonzero(np.isclose(X[:, 0], 0) | np.isclose(X[:, 0], 2)
                              | np.isclose(np.abs(X[:, 1]), 0.5))
    fixed = np.sort(np.r_[2 * boundary, 2 * boundary + 1])
    m = fem.make_model(mesh, nu=0.3, fixed=fixed)
    A = np.array([[0.01, -0.02], [0.015, 0.005]])
    exact = (X @ A.T + [0.003, -0.001]).ravel()
    K = fem.linear_stiffness(m)
    rhs = -(K[:, fixed] @ exact[fixed])[m.free]
    u = exact.copy()
    u[m.free] = spla.spsolve(fem.condense(m, K).tocsc(), rhs)
    assert np.abs(u - exact).max() <= 1e-14
    # neo-Hookean: a homogeneous finite deformation is in equilibrium at interior nodes
    Af = np.array([[0.3, -0.2], [0.15, -0.1]])
    f = fem.gradient(m, (X @ Af.T).ravel())
    assert np.abs(f[m.free]).max() <= 1e-14


def test_t6_reproduces_the_quadratic_pure_bending_field():
    """Constant moment: u_x = -k X Y, u_y = k (X^2 + nu* Y^2)/2 (plane strain) is exact in T6."""
    nu, k = 0.3, 1e-3
    mesh = fem.rectangle_mesh(5, 2, "T6", 5.0, 1.0)
    X, Y = mesh.nodes.T
    bnd = np.flatnonzero(np.isclose(X, 0) | np.isclose(X, 5) | np.isclose(np.abs(Y), 0.5))
    fixed = np.sort(np.r_[2 * bnd, 2 * bnd + 1])
    m = fem.make_model(mesh, nu=nu, fixed=fixed)
    ns = nu / (1 - nu)
    exact = np.column_stack([-k * X * Y, k * (X**2 + ns * Y**2) / 2]).ravel()
    K = fem.linear_stiffness(m)
    u = exact.copy()
    u[m.free] = spla.spsolve(fem.condense(m, K).tocsc(), -(K[:, fixed] @ exact[fixed])[m.free])
    assert np.abs(u - exact).max() <= 1e-15


# -------------------------------------------------------------------------------- convergence
def exact_cantilever(X, Y, P, L, h, nu):
    """Plane-strain 2-D elasticity cantilever under parabolic end shear (stress function)."""
    Es, ns, mu = 1 / (1 - nu**2), nu / (1 - nu), 1 / (2 * (1 + nu))
    I = h**3 / 12
    ux = P * (L * X - X**2 / 2) * Y / (Es * I) - ns * P * Y**3 / (6 * Es * I) \
        + P * Y**3 / (6 * I * mu) - P * h**2 / (8 * I * mu) * Y
    uy = -ns * P * (L - X) * Y**2 / (2 * Es * I) - P * (L * X**2 / 2 - X**3 / 6) / (Es * I)
    return np.column_stack([ux, uy]).ravel()


def cantilever_error(element, ny, nu=0.25, L=4.0, h=1.0, P=1e-3):
    """Max nodal error against the exact solution: exact u on X = 0, parabolic traction on X = L."""
    mesh = fem.rectangle_mesh(int(4 * ny), ny, element, L, h)
    X, Y = mesh.nodes.T
    fixed = fem.clamped_dofs(mesh)
    m = fem.make_model(mesh, nu=nu, fixed=fixed)
    exact = exact_cantilever(X, Y, P, L, h, nu)
    # consistent loads of t_y = -P/(2I) (h^2/4 - y^2) on each right-face edge (Gauss, exact)
    idx = np.flatnonzero(np.isclose(X, L))
    idx = idx[np.argsort(Y[idx])]
    p = 1 if element == "T3" else 2
    g, wg = np.polynomial.legendre.leggauss(4)
    s = (g + 1) / 2
    Ne = np.stack([1 - s, s]) if p == 1 else np.stack([(1 - s) * (1 - 2 * s), 4 * s * (1 - s),
                                                         s * (2 * s - 1)])
    f = np.zeros(m.n_dofs)
    for k in range(0, idx.size - 1, p):
        a, b = Y[idx[k]], Y[idx[k + p]]
        yy = a + (b - a) * s
        t = -P / (2 * h**3 / 12) * (h**2 / 4 - yy**2)
        f[2 * idx[k:k + p + 1] + 1] += Ne @ (t * wg / 2 * (b - a))
    K = fem.linear_stiffness(m)
    u = exact.copy()
    u[m.free] = spla.spsolve(fem.condense(m, K).tocsc(),
                             (f - K[:, fixed] @ exact[fixed])[m.free])
    return np.abs(u - exact).max() / np.abs(exact).max()


def test_t6_and_t3_converge_at_their_rates():
    """Nodal error vs the exact cubic field: T6 at order 3-4 (slope of a log-log fit), T3 at 2."""
    ny6 = np.array([1, 2, 4, 8])
    e6 = [cantilever_error("T6", n) for n in ny6]
    p6 = -np.polyfit(np.log(ny6), np.log(e6), 1)[0]
    ny3 = np.array([4, 8, 16])                      # T3 is pre-asymptotic on coarser meshes
    e3 = [cantilever_error("T3", n) for n in ny3]
    p3 = -np.polyfit(np.log(ny3), np.log(e3), 1)[0]
    assert 3.0 <= p6 <= 4.0
    assert 1.7 <= p3 <= 2.3
    assert e6[-1] < 1e-3 * e3[1]                     # same mesh 32 x 8: T6 far more accurate


def test_mixed_element_is_locking_free_and_agrees_with_t6_at_moderate_nu():
    r = {}
    for nu in (0.4999, 0.4999999):
        m = fem.cantilever(20, 2, "T6", nu)
        u, p = fem.mixed_solve(m, fem.tip_shear_load(m))
        r[nu] = -fem.tip_deflection(m, u) / fem.euler_bernoulli_tip(m)
        assert p.shape == (len(m.mesh.elements), 3)
    assert abs(r[0.4999] / r[0.4999999] - 1) <= 2e-4            # no dependence on lambda
    assert fem.cantilever_tip_ratio(20, 2, "T3", 0.4999999) < 0.05   # while T3 locks
    # same continuum limit as the displacement element at nu = 0.2 (not a chapter value)
    fine = []
    for n in (20, 40):
        m = fem.cantilever(n, n // 10, "T6", 0.2)
        u, _ = fem.mixed_solve(m, fem.tip_shear_load(m))
        fine.append(-fem.tip_deflection(m, u) / fem.euler_bernoulli_tip(m))
    disp = [fem.cantilever_tip_ratio(n, n // 10, "T6", 0.2) for n in (20, 40)]
    assert abs(fine[1] - disp[1]) < abs(fine[0] - disp[0]) < 2e-3


@pytest.mark.parametrize("nu", [0.3, 0.4999])
def test_uniaxial_stress_patch_is_exact_for_displacement_and_mixed_elements(nu):
    """Rollers on X = 0 (u_x) and Y = -h/2 (u_y), uniform traction sigma on X = L."""
    L, h, sigma = 3.0, 1.0, 1e-3
    mesh = fem.rectangle_mesh(3, 2, "T6", L, h)
    X, Y = mesh.nodes.T
    fixed = np.r_[2 * np.flatnonzero(np.isclose(X, 0)), 2 * np.flatnonzero(np.isclose(Y, -h / 2)) + 1]
    m = fem.make_model(mesh, E=1.3, nu=nu, fixed=fixed)
    load = fem.face_traction_load(m, "right", (sigma, 0.0))
    exx = (1 - nu**2) * sigma / m.E
    eyy = -nu * (1 + nu) * sigma / m.E
    exact = np.column_stack([exx * X, eyy * (Y + h / 2)]).ravel()
    scale = np.abs(exact).max()
    assert np.abs(fem.solve_linear(m, load) - exact).max() <= 1e-11 * scale
    u, p = fem.mixed_solve(m, load)
    assert np.abs(u - exact).max() <= 1e-11 * scale
    np.testing.assert_allclose(p, -m.lam * (exx + eyy), rtol=1e-9)


# -------------------------------------------------------------------------------- independent checks
@pytest.mark.parametrize("element", ELEMENTS)
def test_matches_scikit_fem_linear_elasticity_on_a_6x2_mesh_at_nu_0_2(element):
    skfem = pytest.importorskip("skfem")
    from skfem.helpers import dot
    from skfem.models.elasticity import linear_elasticity

    m = fem.cantilever(6, 2, element, 0.2)
    corner = np.unique(m.mesh.elements[:, :3])
    remap = -np.ones(m.mesh.nodes.shape[0], dtype=int)
    remap[corner] = np.arange(corner.size)
    mesh = skfem.MeshTri(m.mesh.nodes[corner].T.copy(), remap[m.mesh.elements[:, :3]].T.copy())
    e = skfem.ElementVector(skfem.ElementTriP1() if element == "T3" else skfem.ElementTriP2())
    basis = skfem.Basis(mesh, e)
    K = skfem.asm(linear_elasticity(m.lam, m.mu), basis)

    @skfem.BilinearForm
    def mass_form(u, v, w):
        return dot(u, v)

    @skfem.LinearForm
    def traction(v, w):
        return -1.0 * v[1]

    M = skfem.asm(mass_form, basis)
    right = mesh.facets_satisfying(lambda x: np.isclose(x[0], 10.0))
    f = skfem.asm(traction, skfem.FacetBasis(mesh, e, facets=right))
    D = basis.get_dofs(lambda x: np.isclose(x[0], 0.0)).all()
    u = skfem.solve(*skfem.condense(K, f, D=D))
    tip_dofs = basis.get_dofs(lambda x: np.isclose(x[0], 10.0)).all("u^2")
    ratio_skfem = -u[tip_dofs].mean() / fem.euler_bernoulli_tip(m)
    assert fem.cantilever_tip_ratio(6, 2, element, 0.2) == pytest.approx(ratio_skfem, rel=1e-10)
    I = np.setdiff1d(np.arange(K.shape[0]), D)
    lam = np.sort(spla.eigsh(K[I][:, I].tocsc(), k=3, M=M[I][:, I].tocsc(), sigma=0)[0])
    np.testing.assert_allclose(fem.frequencies(m, 3), np.sqrt(lam), rtol=1e-10)


def loop_internal_force(model, u):
    """Per-element, per-point loop with explicit 2x2 algebra (independent of the einsum kernels)."""
    mesh = model.mesh
    p = 1 if mesh.element == "T3" else 2
    pts = {1: ([(1 / 3, 1 / 3)], [0.5]),
           2: ([(1 / 6, 1 / 6), (2 / 3, 1 / 6), (1 / 6, 2 / 3)], [1 / 6] * 3)}[2 * p - 2 or 1]

    def dshape(s, t):
        if p == 1:
            return np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
        l1 = 1 - s - t
        return np.array([[-(4 * l1 - 1), -(4 * l1 - 1)], [4 * s - 1, 0.0], [0.0, 4 * t - 1],
                         [4 * (l1 - s), -4 * s], [4 * t, 4 * s], [-4 * t, 4 * (l1 - t)]])

    f = np.zeros(model.n_dofs)
    U = u.reshape(-1, 2)
    for el in mesh.elements:
        Xe = mesh.nodes[el]
        Jm = np.array([[Xe[1, 0] - Xe[0, 0], Xe[2, 0] - Xe[0, 0]],
                       [Xe[1, 1] - Xe[0, 1], Xe[2, 1] - Xe[0, 1]]])
        for (s, t), wq in zip(*pts):
            G = dshape(s, t) @ np.linalg.inv(Jm)
            F = np.eye(2) + U[el].T @ G
            J = np.linalg.det(F)
            FiT = np.linalg.inv(F).T
            P = model.mu * (F - FiT) + model.lam * np.log(J) * FiT
            fe = (P @ G.T).T * wq * np.linalg.det(Jm)
            for a, node in enumerate(el):
                f[2 * node:2 * node + 2] += fe[a]
    return f


@pytest.mark.parametrize("element", ELEMENTS)
def test_vectorised_force_matches_a_loop_implementation(element):
    mesh = fem.rectangle_mesh(3, 2, element, 1.5, 0.8, diagonal="\\")
    m = fem.make_model(mesh, E=2.5, nu=0.41)
    u = 0.5 * deformed_state(m, seed=7)
    f = fem.gradient(m, u)
    np.testing.assert_allclose(f, loop_internal_force(m, u), atol=1e-13 * np.abs(f).max())


def test_weak_clamp_cantilever_matches_timoshenko_beam_theory():
    """Face X = 0 held only in the mean (section_rows): the FEM meets Timoshenko theory."""
    for nu in (0.2, 0.45):
        mesh = fem.rectangle_mesh(60, 6, "T6", 10.0, 1.0)
        m = fem.make_model(mesh, nu=nu)
        u, lam = kkt_solve(fem.linear_stiffness(m), fem.section_rows(m), fem.tip_shear_load(m),
                           np.zeros(3))
        ratio = -fem.tip_deflection(m, u) / fem.euler_bernoulli_tip(m)
        shear = fem.timoshenko_tip_ratio(nu) - 1
        assert abs(ratio - fem.timoshenko_tip_ratio(nu)) <= 0.05 * shear
        # the multipliers are the root reactions: shear force 1, moment -P L = -I lam_3
        np.testing.assert_allclose(lam[1:], [1.0, -12 * 10.0], rtol=1e-8)


def test_section_rows_integrate_exactly():
    m = fem.make_model(fem.rectangle_mesh(2, 3, "T6", 1.0, 2.0))
    B = fem.section_rows(m)
    Y = m.mesh.nodes[:, 1]
    ux_y = np.column_stack([Y, 0 * Y]).ravel()
    uy_1 = np.tile([0.0, 1.0], Y.size)
    np.testing.assert_allclose(B @ ux_y, [0.0, 0.0, 2.0**3 / 12], atol=1e-15)
    np.testing.assert_allclose(B @ uy_1, [0.0, 2.0, 0.0], atol=1e-15)


def test_cable_row_is_minus_the_gradient_of_the_cable_length():
    m = fem.make_model(fem.rectangle_mesh(4, 2, "T3", 4.0, 1.0))
    X = m.mesh.nodes
    eyelets = [1, 4, 8, 13]                           # a zig-zag path through the mesh
    rng = np.random.default_rng(8)

    def length(u):
        x = X[eyelets] + u.reshape(-1, 2)[eyelets]
        return np.linalg.norm(np.diff(x, axis=0), axis=1).sum()

    B = fem.cable_row(m, eyelets)
    u0 = np.zeros(m.n_dofs)
    fd = np.array([fd4(length, u0, i, 1e-4) for i in range(m.n_dofs)])
    np.testing.assert_allclose(B, -fd, atol=1e-11)
    du = 1e-6 * rng.standard_normal(m.n_dofs)
    assert B @ du == pytest.approx(length(u0) - length(du), rel=1e-5)


def test_face_pressure_load_is_the_chamber_volume_row():
    m = fem.make_model(fem.rectangle_mesh(4, 1, "T6", 4.0, 1.0))
    g = fem.face_pressure_load(m, "top", (1.0, 3.0))
    Y = m.mesh.nodes[:, 1]
    down = np.tile([0.0, -1.0], Y.size)                 # the top face moves down by 1
    assert g @ down == pytest.approx(2.0, rel=1e-14)   # chamber over x in [1, 3] gains 2
    assert g.sum() == pytest.approx(-2.0, rel=1e-14)


# -------------------------------------------------------------------------------- solvers
def test_static_solution_departs_from_the_linear_one_at_second_order_in_the_load():
    m = fem.cantilever(10, 1, "T6", 0.3)
    dev = []
    for P in (1e-7, 2e-7, 4e-7):
        f = fem.tip_shear_load(m, P)
        u_lin = fem.solve_linear(m, f)
        dev.append(np.abs(fem.static(m, f, steps=1) - u_lin).max() / np.abs(u_lin).max())
    slope = np.polyfit(np.log([1, 2, 4]), np.log(dev), 1)[0]
    assert slope == pytest.approx(1.0, abs=0.02)      # |u - u_lin| = O(P^2)
    assert dev[0] < 1e-4


def test_static_failure_names_the_load_step_and_residual():
    m = fem.cantilever(10, 1, "T6", 0.3)
    P = 2.0 * fem.plane_strain_modulus(m) / 12 / 100
    with pytest.raises(fem.ConvergenceError, match=r"load step 1/2.*residual"):
        fem.static(m, fem.tip_shear_load(m, P), steps=2, maxiter=2)


def test_bending_frequencies_skip_the_axial_mode():
    m = fem.cantilever(20, 2, "T6", 0.3)
    w_all = fem.frequencies(m, 4)
    w_bend = fem.bending_frequencies(m, 3)
    np.testing.assert_allclose(w_bend[:2], w_all[:2], rtol=1e-12)
    assert w_bend[2] > w_all[2]                      # mode 3 overall is axial
    r = fem.cantilever_frequencies(20, 2, "T6", 0.3, k=3)
    assert np.all(np.abs(r - 1) < 0.12)


def test_condense_and_expand_round_trip():
    m = fem.cantilever(3, 1, "T3", 0.3)
    u = np.arange(m.free.size, dtype=float)
    full = fem.expand(m, u)
    assert np.all(full[m.fixed] == 0)
    np.testing.assert_array_equal(fem.condense(m, b=full), u)


# -------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, name", [
    (dict(nx=10, ny=1, element="Q4", nu=0.3), "element"),
    (dict(nx=0, ny=1, element="T3", nu=0.3), "nx"),
    (dict(nx=10, ny=0, element="T6", nu=0.3), "ny"),
    (dict(nx=2.5, ny=1, element="T6", nu=0.3), "nx"),
    (dict(nx=10, ny=1, element="T6", nu=0.5), "nu"),
    (dict(nx=10, ny=1, element="T6", nu=-1.0), "nu"),
    (dict(nx=10, ny=1, element="T6", nu=float("nan")), "nu"),
])
def test_public_calls_reject_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fem.cantilever_tip_ratio(**kwargs)
    with pytest.raises(ValueError, match=name):
        fem.cantilever_frequencies(**kwargs)


def test_frequencies_reject_bad_k():
    with pytest.raises(ValueError, match="k"):
        fem.cantilever_frequencies(10, 1, "T6", 0.3, k=0)


def test_model_rejects_bad_arguments():
    mesh = fem.rectangle_mesh(2, 1, "T3")
    with pytest.raises(ValueError, match="E"):
        fem.make_model(mesh, E=-1.0)
    with pytest.raises(ValueError, match="fixed"):
        fem.make_model(mesh, fixed=[100])
    with pytest.raises(ValueError, match="diagonal"):
        fem.rectangle_mesh(2, 1, "T3", diagonal="x")
    with pytest.raises(ValueError, match="T6"):
        fem.mixed_solve(fem.cantilever(2, 1, "T3"), np.zeros(12))
    with pytest.raises(ValueError, match="u"):
        fem.energy(fem.make_model(mesh), np.zeros(3))


# ------------------------------------------------ issue 22: bad input named, extremes right
def test_issue_22_examples_are_value_errors_naming_the_argument():
    mesh = fem.rectangle_mesh(2, 1, "T3")
    with pytest.raises(ValueError, match=r"^E must be finite"):
        fem.make_model(mesh, E=np.inf)
    empty = fem.Mesh(mesh.nodes, mesh.elements[:0], "T3", 2, 1, mesh.length, mesh.height, "/")
    with pytest.raises(ValueError, match=r"^mesh must have at least one element"):
        fem.make_model(empty)
    m = fem.cantilever(4, 1, "T3", slenderness=4.0)
    u0 = np.zeros(m.n_dofs)
    u0[5] = np.nan
    with pytest.raises(ValueError, match=r"^u0 must be finite, got nan at index 5"):
        fem.static(m, fem.tip_shear_load(m, 1e-3), u0=u0)
    with pytest.raises(ValueError, match=r"^model must be a plane-strain neo-Hookean model"):
        fem.static(None, np.zeros(m.n_dofs))


@pytest.mark.parametrize("E", [1e-9, 1e9])
def test_extreme_moduli_give_the_scaled_solution(E):
    """u depends on the load over E only: a very soft or very stiff body, loaded in
    proportion, deflects exactly as the unit one (large deformation, alpha = 0.5)."""
    ref = fem.cantilever(8, 1, "T6", 0.3, slenderness=8.0)
    P = 0.5 * fem.plane_strain_modulus(ref) / 12 / 64
    u_ref = fem.static(ref, fem.tip_shear_load(ref, P), steps=2)
    m = fem.cantilever(8, 1, "T6", 0.3, E=E, slenderness=8.0)
    u = fem.static(m, fem.tip_shear_load(m, P * E), steps=2)
    np.testing.assert_allclose(u, u_ref, rtol=0, atol=1e-9 * np.abs(u_ref).max())


def test_nearly_incompressible_and_auxetic_poisson_ratios_are_legal():
    """nu -> 0.5 locks the T3 mesh (ratio far below 1); nu -> -1 (lam -> -inf, E' -> inf)
    still gives the beam's deflection, within the 1.5 % this mesh has at nu = 0.3 too."""
    r_lock = fem.cantilever_tip_ratio(10, 1, "T3", 0.4999999)
    r_aux = fem.cantilever_tip_ratio(20, 2, "T6", -0.999)
    assert 0 < r_lock < 0.3
    assert abs(r_aux / fem.timoshenko_tip_ratio(-0.999) - 1) < 0.015


def test_fast_force_path_has_the_bits_of_the_material_law():
    """_gradient's entry-by-entry P is _neo_hookean's P bit for bit, and the cached einsum
    order of _hessian gives the contraction optimize=True finds (same bits)."""
    rng = np.random.default_rng(3)
    F = np.eye(2) + 0.1 * rng.standard_normal((40, 3, 2, 2))
    for mu, lam in ((1.0, 1.5), (0.3, 499.0)):
        assert np.array_equal(fem._first_piola(F, mu, lam), fem._neo_hookean(F, mu, lam, 1)[1])
    with pytest.raises(ValueError, match="det F > 0"):
        fem._first_piola(F * np.array([[-1.0], [1.0]]), 1.0, 1.5)     # first row flipped: det < 0
    m = fem.cantilever(4, 2, "T6", nu=0.45)
    u = 1e-3 * rng.standard_normal(m.n_dofs)
    _, _, A = fem._neo_hookean(fem.deformation_gradient(m, u), m.mu, m.lam)
    Ke = np.einsum(fem._KE, m.w, m.G, A, m.G, optimize=True).reshape(-1, 12, 12)
    direct = fem.assemble_matrix(m, 0.5 * (Ke + Ke.transpose(0, 2, 1)))
    for _ in range(2):                                  # the first call finds, the second reuses
        assert (fem._hessian(m, u) != direct).nnz == 0


@pytest.mark.parametrize("element", ELEMENTS)
def test_internal_force_is_the_condensed_gradient_to_round_off(element):
    """internal_force's operator form sums the same terms as gradient in another order:
    equal to a few ulps of the largest force, with and without a load, on a finite
    deformation; a state that inverts an element, a NaN or a wrong length is a ValueError."""
    m = fem.cantilever(6, 2, element, nu=0.45, slenderness=3.0)
    u = deformed_state(m)
    load = np.random.default_rng(7).standard_normal(m.n_dofs)
    for ld in (None, load):
        want = fem.gradient(m, fem.expand(m, u[m.free]), ld)[m.free]
        got = fem.internal_force(m, ld)(u[m.free])
        assert np.abs(got - want).max() <= 1e-14 * np.abs(want).max()
    force = fem.internal_force(m)
    for bad in (-3.0 * np.ones(m.free.size), np.full(m.free.size, np.nan),
                np.ones(m.free.size - 1)):
        with pytest.raises(ValueError, match="u_free"):
            force(bad)


def test_assembly_pattern_is_the_sorted_unique_coo_entries():
    """The pattern from the incidence product E^T E is np.unique of the COO keys: its
    sorted entries as CSR indices and indptr, and the inverse map of every element entry
    (random element dofs with an unused dof, and a T6 mesh)."""
    from lib.fe import assembly

    rng = np.random.default_rng(5)
    m = fem.cantilever(6, 2, "T6", 0.3)
    for dofs, n in ((np.array([rng.choice(11, 4, replace=False) for _ in range(9)]), 12),
                    (np.asarray(m.dofs), m.n_dofs)):
        rows, cols = assembly._coo_indices(dofs, dofs)
        uniq, inv = np.unique(rows.astype(np.int64) * n + cols, return_inverse=True)
        got = assembly._build_pattern(dofs, n)
        np.testing.assert_array_equal(got[0], inv)
        np.testing.assert_array_equal(got[1], uniq % n)
        np.testing.assert_array_equal(got[2], np.searchsorted(uniq // n, np.arange(n + 1)))
        assert got[3] == uniq.size


def test_static_refuses_the_straight_cantilever_compressed_past_buckling():
    """An end compression 1.5 x pi^2 E'I/(4 L^2) on the 20 x 2 T6 cantilever: the straight
    state is an equilibrium but a saddle (refused at the last load step); below buckling it
    stands; with a transverse imperfection and 40 steps it buckles (tip well off the axis)."""
    m = fem.cantilever(20, 2, "T6")
    L, h = m.mesh.length, m.mesh.height
    P = fem.tip_shear_load(m, 1.0)                          # total -1 along y
    axial = np.zeros(m.n_dofs)
    axial[0::2] = P[1::2]                                   # total -1 along x: compression
    Pcr = np.pi ** 2 * fem.plane_strain_modulus(m) * h ** 3 / 12 / (4 * L ** 2)
    with pytest.raises(fem.ConvergenceError, match=r"load step 10/10.*not positive definite") \
            as err:
        fem.static(m, 1.5 * Pcr * axial)
    assert err.value.reason == "unstable equilibrium"
    assert abs(fem.tip_deflection(m, fem.static(m, 0.8 * Pcr * axial))) < 1e-4 * L
    u = fem.static(m, Pcr * (1.5 * axial + 0.02 * P), steps=40)
    assert fem.tip_deflection(m, u) < -0.5 * L
