"""Tests of lib.crosscheck: the adapters to MuJoCo, PyElastica and scikit-fem, and the
independent references (transfer-matrix Timoshenko, closed-form PCC Ritz matrices).

Sizes are small (MuJoCo at 10-20 segments, PyElastica at 4-6 elements, 4 x 2 meshes)
so the file runs in seconds once PyElastica's numba kernels are cached.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import beam, fem, pcc, rod, rod3d
from lib import crosscheck as cc
from lib import incompressible as inc
from lib.crosscheck import skfem as cc_skfem
from lib.core.errors import SolveError
from lib.crosscheck._common import generalised_eigvals

EB1 = beam.euler_bernoulli_omegas(1)[0]


# ---------------------------------------------------------------- helpers
def test_observed_order_and_richardson_recover_a_power_law():
    e = 0.3 * np.array([10.0, 20.0]) ** -1.5
    assert cc.observed_order(e[0], e[1]) == pytest.approx(1.5, abs=1e-12)
    limit, c = 2.0, 0.7
    vals = limit + c * np.array([1 / 10, 1 / 20])      # first-order sequence
    assert cc.richardson(vals[0], vals[1], 1) == pytest.approx(limit, abs=1e-14)


# ---------------------------------------------------------------- independent references
def test_timoshenko_transfer_matches_solve_bvp_at_an_unused_thickness():
    tx = cc.timoshenko_omegas_transfer(2, 0.02, nu=0.3)
    bvp = beam.timoshenko_omegas(2, 0.02, nu=0.3)
    np.testing.assert_allclose(tx, bvp, rtol=1e-8)


def test_timoshenko_transfer_tends_to_euler_bernoulli():
    np.testing.assert_allclose(cc.timoshenko_omegas_transfer(3, 1e-5),
                               beam.euler_bernoulli_omegas(3), rtol=1e-8)


def test_timoshenko_transfer_lies_below_euler_bernoulli():
    assert np.all(cc.timoshenko_omegas_transfer(3, 0.05) < beam.euler_bernoulli_omegas(3))


@pytest.mark.parametrize("n", [3, 5])
def test_pcc_exact_matrices_equal_quadrature(n):
    M, K = cc.pcc_ritz_exact(n, EI=2.0, rhoA=0.5, L=1.3)
    Mq, Kq = pcc.ritz(n, EI=2.0, rhoA=0.5, L=1.3)
    np.testing.assert_allclose(M, Mq, rtol=0, atol=1e-15 * np.abs(Mq).max())
    np.testing.assert_array_equal(K, Kq)
    np.testing.assert_array_equal(M, M.T)


def test_pcc_exact_single_segment_is_one_twentieth():
    M, K = cc.pcc_ritz_exact(1)
    assert M[0, 0] == pytest.approx(0.05, abs=1e-16)
    assert np.sqrt(K[0, 0] / M[0, 0]) == pytest.approx(np.sqrt(20.0), rel=1e-15)


# ---------------------------------------------------------------- lib's rod with a rigid clamp
def test_rigid_clamp_static_is_an_equilibrium_with_phi0_zero():
    rd = rod.make_rod(8, 0.04)
    q = cc.rigid_clamp_static(rd, (0.0, -0.3, 0.0), steps=2)
    assert q[0] == 0.0
    g = rod.gradient(rd, q, (0.0, -0.3, 0.0))
    assert np.abs(g[1:]).max() <= 1e-9 * 0.3
    assert abs(g[0]) > 1e-3                       # the wall takes a reaction moment


def test_rigid_clamp_frequencies_converge_at_first_order_from_above():
    tim = beam.timoshenko_omegas(1, 0.04)[0]
    e = [cc.rigid_clamp_frequencies(rod.make_rod(N, 0.04), 1)[0] / tim - 1 for N in (20, 40)]
    assert e[0] > e[1] > 0
    assert cc.observed_order(e[0], e[1]) == pytest.approx(1.0, abs=0.1)


def test_rigid_clamp_hessian_is_lib_hessian_without_phi0():
    rd = rod.make_rod(5, 0.04)
    H = rod.hessian(rd, rod.straight(rd)).toarray()
    np.testing.assert_array_equal(cc.rigid_clamp_hessian(rd).toarray(), H[1:, 1:])


# ---------------------------------------------------------------- MuJoCo cable
def test_cable_in_plane_block_is_decoupled():
    _, coupling = cc.cable_frequencies(10, 1, return_coupling=True)
    assert coupling < 1e-10


def test_welded_cable_matches_effective_length_argument():
    # a rigid first segment clamps the beam at its centre: length L - ell/2
    for N in (10, 20):
        w = cc.cable_frequencies(N, 1)[0]
        assert w / (EB1 / (1 - 0.5 / N) ** 2) - 1 == pytest.approx(0.0, abs=3e-3)


def test_cable_clamp_spring_2EI_over_ell_gives_second_order():
    welded = [cc.cable_frequencies(N, 1)[0] / EB1 - 1 for N in (10, 20)]
    sprung = [cc.cable_frequencies(N, 1, clamp_stiffness=2.0)[0] / EB1 - 1 for N in (10, 20)]
    assert cc.observed_order(*welded) < 1.2
    assert cc.observed_order(*sprung) > 1.8
    assert abs(sprung[1]) < abs(welded[1]) / 20


def test_cable_rejects_bad_input():
    with pytest.raises(ValueError, match="segments"):
        cc.cable_xml(1)
    with pytest.raises(ValueError, match="clamp"):
        cc.cable_xml(10, clamp="hinge")
    with pytest.raises(ValueError, match="clamp_stiffness"):
        cc.cable_frequencies(10, clamp_stiffness=-1.0)


# ---------------------------------------------------------------- PyElastica
def test_elastica_parameters_reproduce_lib_section():
    rd = rod.make_rod(1, 0.03, nu=0.3)
    p = cc.elastica_parameters(0.03, nu=0.3)
    A = np.pi * p["base_radius"] ** 2
    I = A * A / (4 * np.pi)
    assert p["youngs_modulus"] * I == pytest.approx(rd.EI, rel=1e-14)
    assert p["youngs_modulus"] * A == pytest.approx(rd.EA, rel=1e-14)
    assert cc.ELASTICA_SHEAR_COEFFICIENT * p["shear_modulus"] * A == pytest.approx(rd.kGA, rel=1e-14)
    assert p["density"] * A == pytest.approx(rd.rhoA, rel=1e-14)
    assert p["density"] * I == pytest.approx(rd.rhoI, rel=1e-14)


def test_elastica_linear_stiffness_and_mass_equal_lib_with_rigid_clamp():
    N = 5
    K, m = cc.elastica_stiffness(cc.elastica_rod(N, 0.05))
    rd = rod.make_rod(N, 0.05)
    Kl = cc.rigid_clamp_hessian(rd).toarray()
    assert np.abs(K - Kl).max() <= 1e-8 * np.abs(Kl).max()
    assert np.abs(K - K.T).max() <= 1e-8 * np.abs(K).max()
    np.testing.assert_allclose(m, rod.mass(rd)[1:], rtol=1e-14)


def test_elastica_static_tip_by_damped_dynamics_equals_rigid_clamp_newton():
    N, P = 4, 0.01
    tip, steps, vmax = cc.elastica_static_tip(N, P, t_end=6.0)
    ref = cc.rigid_clamp_static(rod.make_rod(N, 0.04), (0.0, -P, 0.0))[-1]
    assert vmax <= 1e-10 and steps > 0
    assert tip == pytest.approx(ref, rel=1e-6)


def test_elastica_rejects_bad_input():
    with pytest.raises(ValueError, match="N"):
        cc.elastica_rod(1)


# ---------------------------------------------------------------- scikit-fem
@pytest.mark.parametrize("element", ["T3", "T6"])
def test_skfem_forms_equal_lib_fem(element):
    m = fem.cantilever(4, 2, element, 0.35, slenderness=4.0)
    u = 0.03 * np.random.default_rng(3).standard_normal(m.n_dofs)
    u[m.fixed] = 0.0
    W, f, K = cc.skfem_forms(m, u)
    assert W == pytest.approx(fem.energy(m, u), rel=1e-13)
    Kl = fem.hessian(m, u)
    fl = fem.gradient(m, u)
    assert np.abs(f - fl).max() <= 1e-13 * np.abs(fl).max()
    assert abs(K - Kl).max() <= 1e-13 * abs(Kl).max()


def test_skfem_dof_map_is_a_bijection_onto_lib_nodes():
    m = fem.cantilever(3, 2, "T6", 0.3, slenderness=3.0)
    basis, perm = cc.skfem_basis(m)
    np.testing.assert_array_equal(np.sort(perm), np.arange(m.n_dofs))
    np.testing.assert_allclose(m.mesh.nodes[perm // 2], basis.doflocs.T, atol=1e-14)


def test_skfem_forms_refuse_an_inverted_state():
    m = fem.cantilever(2, 1, "T3", 0.3, slenderness=2.0)
    u = np.zeros(m.n_dofs)
    u[0::2] = -2.0 * m.mesh.nodes[:, 0]            # x -> -x: det F < 0
    with pytest.raises(ValueError, match="inverts"):
        cc.skfem_forms(m, u)


def test_skfem_linear_stiffness_and_mass_equal_lib():
    m = fem.cantilever(4, 2, "T6", 0.25, slenderness=4.0)
    K, M = cc.skfem_linear(m)
    K0, M0 = fem.linear_stiffness(m), fem.mass(m)
    assert abs(K - K0).max() <= 1e-13 * abs(K0).max()
    assert abs(M - M0).max() <= 1e-13 * abs(M0).max()


def test_skfem_static_equals_lib_static_at_large_deformation():
    m = fem.cantilever(6, 1, "T6", 0.3, slenderness=6.0)
    P = 1.0 * fem.plane_strain_modulus(m) / 12 / m.mesh.length**2
    load = fem.tip_shear_load(m, P)
    u_lib = fem.static(m, load, steps=3, tol=1e-14)
    u_sk = cc.skfem_static(m, load, steps=3)
    assert np.abs(u_sk - u_lib).max() <= 1e-12 * np.abs(u_lib).max()
    assert -fem.tip_deflection(m, u_lib) > 0.1 * m.mesh.length      # really nonlinear


def test_skfem_cantilever_converges_to_lib_on_the_same_mesh():
    tip, w = cc.skfem_cantilever(10, 1, 0.3, "T6")
    assert tip == pytest.approx(fem.cantilever_tip_ratio(10, 1, "T6", 0.3), rel=1e-10)
    np.testing.assert_allclose(w, fem.cantilever_frequencies(10, 1, "T6", 0.3), rtol=1e-9)


def test_lib_rod_frequencies_agree_with_shift_invert_lanczos_on_the_stiff_rod():
    # the independent check the chapter uses where a dense eigh loses accuracy
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    rd = rod.make_rod(30, 0.002)
    K = rod.hessian(rd, rod.straight(rd)).tocsc()
    M = sp.diags(rod.mass(rd)).tocsc()
    lam = np.sort(spla.eigsh(K, k=3, M=M, sigma=0.0, which="LM", tol=0)[0])
    np.testing.assert_allclose(rod.frequencies(rd, 3), np.sqrt(lam), rtol=1e-9)


# ---------------------------------------------------------------- SciPy errors never reach the reader bare
def test_timoshenko_transfer_names_the_thickness_when_no_root_is_bracketed():
    # a very thick "rod" puts the first root far below 0.8 x Euler-Bernoulli
    with pytest.raises(RuntimeError, match=r"r_over_L = 2\.0"):
        cc.timoshenko_omegas_transfer(1, 2.0)


def test_rigid_clamp_frequencies_rejects_too_many_modes_before_eigh():
    with pytest.raises(ValueError, match=r"^k must be an integer in 1\.\.14, got 15"):
        cc.rigid_clamp_frequencies(rod.make_rod(5, 0.04), 15)


def test_generalised_eigvals_wraps_a_non_positive_mass():
    with pytest.raises(RuntimeError, match=r"^caller: the generalised eigenproblem"):
        generalised_eigvals(np.eye(2), np.array([1.0, -1.0]), None, "caller")


def test_skfem_cantilever_rejects_k_beyond_the_free_dofs():
    with pytest.raises(ValueError, match=r"^k must be < "):
        cc.skfem_cantilever(2, 1, element="T3", k=500)


def test_rigid_clamp_newton_reports_a_singular_tangent_with_its_load_step(monkeypatch):
    import scipy.sparse as sp

    # a tangent with a zero row: spsolve warns and returns NaN; the reader gets the step
    monkeypatch.setattr(rod, "hessian", lambda model, q: sp.csr_array((q.size, q.size)))
    with pytest.raises(SolveError, match=r"^rigid_clamp_static: load step 1/1 \(λ = 1\), "
                                         r"iteration 0, .*tangent singular"):
        cc.rigid_clamp_static(rod.make_rod(4, 0.04), (0.0, -0.01, 0.0))


def test_elastica_run_refuses_a_step_above_the_stability_limit():
    # the case: an unstable dt returned a blown-up tip (~2.6e4) instead of an error
    limit = 2.0 / rod3d.omega_max_estimate(rod3d.make_rod3d(10))["max"]
    with pytest.raises(ValueError, match=r"^dt = .* above the stability limit"):
        cc.elastica_run(10, (0.0, -1.0, 0.0), 1.1 * limit, 200)


def test_elastica_run_reports_a_blow_up_with_the_step_reached(monkeypatch):
    # with the up-front limit fooled, the run itself must notice the motion leave the rod's reach
    limit = 2.0 / rod3d.omega_max_estimate(rod3d.make_rod3d(10))["max"]
    monkeypatch.setattr(rod3d, "omega_max_estimate", lambda model: {"max": 1e-3})
    with pytest.raises(rod3d.BlowUpError,
                       match=r"^elastica_run .*: step \d+ \(t = .*\).*reach") as err:
        cc.elastica_run(10, (0.0, -1.0, 0.0), 1.5 * limit, 2000)
    assert isinstance(err.value, SolveError) and isinstance(err.value, FloatingPointError)
    assert err.value.step < 2000


def _elastica_order(spin, velocity_torques):
    # PyElastica's own PositionVerlet: tip after a fixed time at dt0/2^k; the order from
    # successive differences (no reference solution needed)
    m = rod3d.make_rod3d(4, r_over_L=0.2)
    dt0 = 0.5 / rod3d.frequencies(m)[-1]
    tips = [cc.elastica_run(4, (0.0, -2.0, 1.0), dt0 / 2**k, 40 * 2**k, r_over_L=0.2,
                            spin=spin, velocity_torques=velocity_torques)[1][-1]
            for k in range(5)]
    d = [np.abs(tips[k] - tips[k + 1]).max() for k in range(4)]
    return np.polyfit(np.log(dt0 / 2.0 ** np.arange(4)), np.log(d), 1)[0]


@pytest.mark.parametrize("spin", [0.0, 3.0])
def test_pyelastica_position_verlet_is_first_order_even_without_spin(spin):
    # the explicit unsteady-dilatation torque (J w/e) de/dt / e costs the order by itself
    assert 0.9 < _elastica_order(spin, True) < 1.3


@pytest.mark.parametrize("spin", [0.0, 3.0])
def test_pyelastica_without_its_velocity_torques_is_second_order(spin):
    assert 1.85 < _elastica_order(spin, False) < 2.15


def test_pyelastica_velocity_torques_off_is_scoped_to_the_step():
    import elastica.rod.cosserat_rod as cr

    before = cr._compute_internal_torques
    step, erod = cc.elastica_system(4, (0.0, -1.0, 0.0), r_over_L=0.2, spin=1.0,
                                    velocity_torques=False)
    step(1e-4)
    assert cr._compute_internal_torques is before
    assert np.allclose(erod.omega_collection[2, 1:], 1.0, rtol=1e-2)


def test_rigid_clamp_static_is_linear_down_to_a_tiny_load():
    # extreme but legal: 1e-10 EI/L^2 converges (scale floor EI/L) and stays linear
    r = rod.make_rod(8, 0.04)
    small = cc.rigid_clamp_static(r, (0.0, -1e-10, 0.0))[-1] / 1e-10
    ref = cc.rigid_clamp_static(r, (0.0, -1e-4, 0.0))[-1] / 1e-4
    assert small == pytest.approx(ref, rel=1e-5)


def test_mujoco_cable_needs_three_segments_and_answers_at_three():
    """Two segments was MuJoCo's own 'body not found' error; three is the smallest legal
    cable, and its frequency is finite and above Euler-Bernoulli's (a stiff, coarse chain)."""
    with pytest.raises(ValueError, match="segments"):
        cc.cable_frequencies(2, 1)
    w = cc.cable_frequencies(3, 1)[0]
    assert np.isfinite(w) and w > 3.516


def test_crosscheck_contact_time_and_contact_are_named():
    from lib.crosscheck import contact as xc

    with pytest.raises(ValueError, match=r"^time = "):
        xc.mujoco_drag(1.0, 0.4, segments=3, dt=1e-3, time=0.0105)
    with pytest.raises(ValueError, match="contact"):
        xc.elastica_drag(1.0, n_elem=2, dt=2e-4, time=0.002, contact={"k": 1.0})


# --- the independent scikit-fem Taylor-Hood solve (own mesh, clamp, load, residuals) ---
RUBBER = {"neo-Hookean": lambda nu: inc.neo_hookean(1.0, nu),
          "Mooney-Rivlin": lambda nu: inc.mooney_rivlin(0.3, 0.2, nu),
          "Yeoh": lambda nu: inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=nu),
          "stable neo-Hookean": lambda nu: inc.stable_neo_hookean(1.0, nu)}


@pytest.mark.parametrize("law", list(RUBBER))
@pytest.mark.parametrize("nu", [0.45, 0.5])
def test_skfem_rubber_tip_equals_lib_taylor_hood_for_every_law(law, nu):
    mat = RUBBER[law](nu)
    r, fl = cc.skfem_rubber_tip(mat, 6, 1, alpha=1.0, slenderness=4.0, steps=2,
                                return_fields=True)
    b = inc.cantilever(6, 1, "P2P1", mat, slenderness=4.0)
    x = inc.solve(b, inc.tip_load(b, 1.0), steps=2, tol=1e-13).x
    assert abs(r / inc.tip_ratio(b, x, 1.0) - 1) < 1e-11
    # the whole displacement field, matched by location (scikit-fem numbers its own dofs)
    key = {tuple(k): i for i, k in enumerate(np.rint(b.geom.mesh.nodes * 8).astype(int))}
    idx = [key[tuple(k)] for k in np.rint(fl["u_locs"] * 8).astype(int)]
    u = x[:b.n_u].reshape(-1, 2)[idx]
    assert np.abs(u - fl["u"]).max() < 1e-11 * np.abs(u).max()


def test_skfem_rubber_tip_tends_to_a_linear_limit_and_converges_under_refinement():
    mat = inc.neo_hookean(1.0, 0.3)
    # the finite-strain correction of the ratio is O(alpha^2): a hundredfold per decade
    r = [cc.skfem_rubber_tip(mat, 10, 1, alpha=a, steps=1) for a in (1e-1, 1e-2, 1e-3)]
    assert 50 < abs(r[0] - r[1]) / abs(r[1] - r[2]) < 200
    # refinement: successive differences shrink (a converging, not a fixed, answer)
    r = [cc.skfem_rubber_tip(mat, 5 * k, k, slenderness=5.0, steps=2) for k in (1, 2, 4)]
    assert abs(r[2] - r[1]) < 0.5 * abs(r[1] - r[0])


@pytest.mark.parametrize("law", ["Yeoh", "stable neo-Hookean", "Mooney-Rivlin"])
def test_skfem_rubber_forms_tangent_is_the_derivative_of_the_residual(law):
    from skfem import Basis, ElementTriP1, ElementTriP2, ElementVector, MeshTri, asm

    mat = RUBBER[law](0.45)
    mu, kappa, J0 = cc_skfem._rubber_constants(mat)
    assert np.isclose(mu, mat.mu) and np.isclose(kappa, mat.kappa) and np.isclose(J0, mat.J0)
    forms = cc_skfem._rubber_up_forms(mat.model, mat.constants, kappa, J0)
    res_u, res_p, k_uu, k_up, k_pp = forms
    mesh = MeshTri.init_tensor(np.linspace(0, 2, 3), np.linspace(-0.5, 0.5, 2))
    bu, bp = Basis(mesh, ElementVector(ElementTriP2()), intorder=2), Basis(mesh, ElementTriP1(), intorder=2)
    rng = np.random.default_rng(3)
    x = np.concatenate([0.1 * rng.standard_normal(bu.N), 0.3 * rng.standard_normal(bp.N)])

    def R(x):
        wu, wp = bu.interpolate(x[:bu.N]), bp.interpolate(x[bu.N:])
        return np.concatenate([asm(res_u, bu, u=wu, p=wp), asm(res_p, bp, u=wu, p=wp)])

    wu, wp = bu.interpolate(x[:bu.N]), bp.interpolate(x[bu.N:])
    Kup = asm(k_up, bp, bu, u=wu, p=wp)
    K = sp.bmat([[asm(k_uu, bu, u=wu, p=wp), Kup], [Kup.T, asm(k_pp, bp, u=wu, p=wp)]]).toarray()
    h = 1e-6
    KFD = np.column_stack([(R(x + h * e) - R(x - h * e)) / (2 * h) for e in np.eye(x.size)])
    assert np.abs(K - KFD).max() < 1e-6 * np.abs(K).max()
