"""Tests of lib.levels: one arm mapped to PCC, rod and FEM."""
import numpy as np
import pytest
from scipy.optimize import approx_fprime

from lib import explore, pcc, rod
from lib import levels as lv


def test_rod_section_matches_the_arm():
    arm = lv.make_arm(7.0)
    r = lv.to_rod(arm, 10)
    assert np.isclose(r.EI, arm.EI) and np.isclose(r.EA, arm.EA) and np.isclose(r.kGA, arm.kGA)
    assert np.isclose(r.rhoI, arm.rhoA * arm.h**2 / 12)
    assert np.isclose(arm.EA / arm.EI, 12 / arm.h**2)


def test_fem_mesh_has_square_cells_and_tip_centre_node():
    arm = lv.make_arm(5.0)
    m = lv.to_fem(arm, 2)
    assert (m.mesh.nx, m.mesh.ny) == (10, 2)
    assert np.isclose(m.mesh.length, arm.L) and np.isclose(m.mesh.height, arm.h)
    lv._fem_tip_node(m)


def test_pcc_gradient_matches_finite_differences():
    m = pcc.make_pcc(3, EI=2.0, rhoA=0.5, L=1.5)
    q = np.array([0.3, -0.2, 0.5])
    args = ((0.4, -1.1), 0.3, 2.0)
    fd = approx_fprime(q, lambda z: lv.pcc_energy(m, z, *args), 1e-7)
    assert np.allclose(lv.pcc_gradient(m, q, *args), fd, atol=1e-6)


def test_pcc_pure_moment_gives_the_exact_arc():
    m = pcc.make_pcc(4, EI=2.0, L=1.0)
    q = lv.pcc_static(m, moment=1.0, steps=2)
    assert np.allclose(q, 1.0 * m.ell / m.EI, atol=1e-9)


def test_slender_linear_tip_deflection_matches_beam_theory():
    """At L/h = 50 every level gives P L^3/(3 EI) to within 2 % (small load)."""
    arm = lv.make_arm(50.0)
    eb = lv.tip_force(arm, lv.ALPHA_SMALL) * arm.L**3 / (3 * arm.EI)
    for lev, size in (("pcc", 8), ("rod", 40), ("fem", 2)):
        xy = lv.solve_static(arm, lev, size, lv.ALPHA_SMALL, linear=True)[0]
        assert abs(-xy[-1, 1] / eb - 1) < 0.02, lev


def test_fem_reference_is_mesh_converged():
    arm = lv.make_arm(5.0)
    ref = lv.reference(arm, lv.ALPHA_SMALL, linear=True)
    coarse = lv.solve_static(arm, "fem", 4, lv.ALPHA_SMALL, linear=True)[0]
    assert lv.tip_error(coarse, ref, arm.L, transverse=True) < 0.01


def test_rod_error_is_model_error_not_discretisation():
    """Doubling N at L/h = 3 changes the rod's error by less than a tenth of itself."""
    arm = lv.make_arm(3.0)
    ref = lv.reference(arm, lv.ALPHA_SMALL, linear=True)
    e = [lv.tip_error(lv.solve_static(arm, "rod", N, lv.ALPHA_SMALL, linear=True)[0], ref, arm.L, True)
         for N in (20, 40)]
    assert e[0] > 0.05 and abs(e[1] - e[0]) < 0.1 * e[0]


def test_rod_slenderness_limit_is_a_root_of_the_error_curve():
    s = lv.rod_slenderness_limit(0.05)
    assert 3.0 < s < 5.0
    assert abs(lv.rod_small_load_error(s) - 0.05) < 1e-3


def test_pcc_load_limit_is_a_root_and_error_grows_beyond_it():
    a = lv.pcc_load_limit(0.02)
    assert abs(lv.pcc_load_error(a) - 0.02) < 1e-3
    assert lv.pcc_load_error(1.5 * a) > 0.02


def test_explicit_step_orders_the_levels():
    arm = lv.make_arm(10.0)
    dts = [lv.explicit_step(arm, lev, lv.WORKING[lev]) for lev in lv.LEVELS]
    assert dts[0] > dts[1] > dts[2]
    assert np.isclose(dts[1], 2 / rod.frequencies(lv.to_rod(arm, lv.WORKING["rod"])).max())


def test_frequency_error_of_identical_spectra_is_zero():
    om = np.array([1.0, 2.0, 5.0])
    assert lv.frequency_error(om, om) == 0.0


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="slenderness"):
        lv.make_arm(-1.0)
    with pytest.raises(ValueError, match="nu"):
        lv.make_arm(5.0, nu=0.5)
    with pytest.raises(ValueError, match="level"):
        lv.build(lv.make_arm(5.0), "beam", 3)
    with pytest.raises(ValueError, match="linear"):
        lv.solve_static(lv.make_arm(5.0), "rod", 4, gravity=True, linear=True)
    with pytest.raises(ValueError, match="alpha"):
        explore.levels_shapes(10.0, -1.0)


def test_explore_shapes_start_at_the_clamp_and_bend_down():
    sh = explore.levels_shapes(10.0, 1.0)
    for lev in lv.LEVELS:
        assert np.allclose(sh[lev][0], 0.0, atol=1e-12)
        assert sh[lev][-1, 1] < 0


def test_release_starts_at_the_static_deflection_and_oscillates():
    arm = lv.make_arm(10.0)
    P = lv.tip_force(arm, lv.ALPHA_SMALL)
    T1 = 2 * np.pi / lv.frequencies(arm, "rod", 20, k=1)[0][0]
    y = lv.release(arm, "rod", 20, [0.0, T1 / 2])
    eb = -P * arm.L**3 / (3 * arm.EI)
    assert abs(y[0] / eb - 1) < 0.03          # starts near the beam deflection
    assert y[1] > 0                            # half a period later it is above the axis


def test_release_of_fem_converges_in_the_number_of_modes():
    arm = lv.make_arm(5.0)
    t = np.linspace(0.0, 0.05, 41)
    y16, y32 = (lv.release(arm, "fem", 2, t, k_fem=k) for k in (16, 32))
    assert lv.release_error(y16, y32) < 1e-2


def test_tendon_curvature_matches_beam_value_for_small_pulls():
    """The FEM cable bends the arm at tau d/EI within 3 % for a small pull, less for a big one."""
    arm = lv.make_arm(10.0)
    small = lv.tendon_curvature_ratio(arm, 0.1, steps=2)
    big = lv.tendon_curvature_ratio(arm, 1.5)
    assert abs(small - 1) < 0.03 and big < small


def test_strip_stretch_solves_the_incompressible_strip_equation():
    """lam - lam^-3 = -4 eps0, lam = 1 without load, and compression shortens."""
    for eps in (1e-4, 0.01, 0.05, 0.2):
        lam = lv.strip_stretch(eps)
        assert 0 < lam < 1 and abs(lam - lam**-3 + 4 * eps) < 1e-12
    assert lv.strip_stretch(0.0) == 1.0


def test_strip_curvature_ratio_linearises_to_one_minus_four_strain():
    """rho(0) = 1, d rho/d eps0 = -4 at 0 (central FD), and rho falls monotonically."""
    h = 1e-5
    slope = (lv.strip_curvature_ratio(2 * h) - lv.strip_curvature_ratio(0.0)) / (2 * h)
    assert lv.strip_curvature_ratio(0.0) == 1.0
    assert abs(slope + 4.0) < 1e-3
    r = [lv.strip_curvature_ratio(e) for e in np.linspace(0.0, 0.2, 21)]
    assert np.all(np.diff(r) < 0)


@pytest.mark.parametrize("delta", [0.1, 0.25, 1 / np.sqrt(12), 0.4])
def test_exact_flexure_linearises_to_one_minus_five_minus_twelve_d2_strain(delta):
    """(1 - rho)/eps0 at eps0 = 1e-4 and 2e-4, Richardson-extrapolated to eps0 = 0, is
    5 - 12 d^2/h^2 (the naive strip law's 4 only at d = h/sqrt(12)); the error of the
    one-term law is second order (its ratio at 2 eps0 and eps0 is 4)."""
    c = [(1 - lv.strip_flexure_ratio(e, delta)) / e for e in (1e-4, 2e-4)]
    assert 2 * c[0] - c[1] == pytest.approx(5 - 12 * delta**2, abs=2e-5)
    err = [abs(lv.strip_flexure_ratio(e, delta) - (1 - (5 - 12 * delta**2) * e)) for e in (0.01, 0.02)]
    assert err[1] / err[0] == pytest.approx(4.0, rel=0.05)


def test_mixed_fem_follows_the_exact_flexure_not_the_strip_law_over_the_offset():
    """Taylor-Hood P2/P1 at nu = 0.4999 (L/h = 20, eps0 = 2.5 %): the mid-span curvature
    ratio is the exact flexure's to 1e-3 at d/h = 1/8 and 3/8, where the strip law (no d)
    is off by more than a point, on opposite sides; refining ny = 4 -> 8 moves it < 1e-3."""
    arm, eps = lv.make_arm(20.0, nu=0.4999), 0.025
    strip = lv.strip_curvature_ratio(eps)
    gaps = []
    for delta in (0.125, 0.375):
        beta = 12 * delta * eps * arm.slenderness
        fem4 = lv.tendon_curvature_ratio(arm, beta, ny=4, steps=5, formulation="P2P1", offset_ratio=delta)
        assert abs(fem4 - lv.strip_flexure_ratio(eps, delta)) < 1e-3
        assert abs(fem4 - strip) > 0.01
        gaps.append(fem4 - strip)
    assert gaps[0] < 0 < gaps[1]
    beta = 12 * 0.125 * eps * arm.slenderness
    fem8 = lv.tendon_curvature_ratio(arm, beta, ny=8, steps=5, formulation="P2P1", offset_ratio=0.125)
    assert abs(fem8 - (gaps[0] + strip)) < 1e-3


def test_rod_tendon_curvature_converges_at_order_two():
    """The rod's tendon curvature tends to tau d/EI; the excess falls as N^-2 (log-log fit)."""
    arm = lv.make_arm(10.0)
    Ns = np.array([10, 20, 40, 80])
    excess = np.array([lv.rod_tendon_curvature_ratio(arm, 1.5, N) - 1.0 for N in Ns])
    assert np.all(excess > 0)
    assert np.polyfit(np.log(Ns[1:]), np.log(excess[1:]), 1)[0] == pytest.approx(-2.0, abs=0.1)


def test_rod_with_the_strip_section_law_meets_the_fem_tendon_tip():
    """With its lever scaled by the strip ratio, a converged rod lands within 3 % of the
    FEM tendon tip at L/h = 10, where the rigid-section rod misses by more than 20 %."""
    arm = lv.make_arm(10.0)
    ref = lv.reference(arm, beta=1.5)
    plain = lv.tip_error(lv.solve_static(arm, "rod", 80, beta=1.5)[0], ref, arm.L)
    fixed = lv.tip_error(lv.rod_tendon_with_section_law(arm, 1.5, N=80), ref, arm.L)
    assert plain > 0.2 and fixed < 0.03


def test_tendon_slenderness_limit_of_the_flexure_against_its_first_order_estimate():
    """41.3 at 5 % for beta = 1.5 (the strip law: 38.7); the one-term law
    1 - 4.25 eps0 gives beta 4.25/(3 tol) = 42.5, within the O(eps0^2) it drops."""
    s = lv.section_law_slenderness(0.05, 1.5)
    assert s == pytest.approx(41.34, abs=0.01)
    assert lv.section_law_slenderness(0.05, 1.5, law="strip") == pytest.approx(38.68, abs=0.01)
    assert s == pytest.approx(1.5 * 4.25 / (3 * 0.05), rel=0.04)


def test_strip_law_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="strain"):
        lv.strip_stretch(-0.1)
    with pytest.raises(ValueError, match="strain"):
        lv.strip_curvature_ratio(float("nan"))
    with pytest.raises(ValueError, match="tol"):
        lv.section_law_slenderness(1.5)
    with pytest.raises(ValueError, match="N"):
        lv.rod_tendon_curvature_ratio(lv.make_arm(10.0), 1.5, N=1)
    with pytest.raises(ValueError, match="offset_ratio"):
        lv.strip_flexure(0.01, 0.5)                 # the tendon must lie inside the strip
    arm = lv.make_arm(10.0)
    r = lv.to_rod(arm, 10)
    assert r.r_over_L * r.L > 0.57 * arm.h          # the rod's radius is not the strip's edge
    with pytest.raises(ValueError, match=r"offset must lie inside the strip"):
        lv.rod_tendon(arm, r, 0.55 * arm.h)         # inside the rod's r = 0.577 h, outside h/2
    with pytest.raises(ValueError, match=r"offset_end must lie inside the strip"):
        lv.rod_tendon(arm, r, 0.0, offset_end=-0.51 * arm.h)
    assert lv.rod_tendon(arm, r, 0.5 * arm.h).d.max() <= 0.5 * arm.h


def test_taylor_hood_reference_agrees_with_t6_on_the_reference_mesh():
    """The finite-strain P2/P1 element (cable as an extra load) and the displacement T6
    give the same tendon tip on the reference mesh: the T6 reference does not lock."""
    arm = lv.make_arm(10.0)
    t6 = lv.solve_static(arm, "fem", lv.REFERENCE_NY_NONLINEAR, beta=1.5)[0]
    th = lv.solve_static(arm, "fem", lv.REFERENCE_NY_NONLINEAR, beta=1.5, formulation="P2P1")[0]
    assert lv.tip_error(t6, th, arm.L) < 0.005
    with pytest.raises(ValueError, match="formulation"):
        lv.solve_static(arm, "fem", 2, alpha=1.0, formulation="Q4")


def test_root_finders_name_a_bracket_that_does_not_bracket():
    with pytest.raises(ValueError, match=r"lo = 3\.5 and hi = 4 do not bracket .*tol = 0\.09"):
        lv.rod_slenderness_limit(0.09, lo=3.5, hi=4.0, N=4)
    with pytest.raises(ValueError, match=r"lo must be < hi"):
        lv.pcc_load_limit(0.16, slenderness=3.0, n=2, lo=3.0, hi=1.0, N_ref=8)
    with pytest.raises(ValueError, match=r"^tol must lie in \[1e-06, 0\.5\]"):
        lv.section_law_slenderness(1e-300)          # was a division by zero
    with pytest.raises(ValueError, match=r"^tol must lie in \[1e-06, 0\.9999\]"):
        lv.section_law_slenderness(1e-300, law="strip")


def test_extreme_but_legal_strains_and_arms():
    """A huge compression still has its stretch (lam - lam^-3 = -4 strain), and a very
    slender arm's section law needs no correction."""
    for e in (1e-12, 1e3, 1e9):
        lam = lv.strip_stretch(e)
        assert 0 < lam < 1 and abs(lam - lam**-3 + 4 * e) <= 1e-12 * max(1.0, 4 * e)
    assert abs(lv.strip_stretch(1e9) - (4e9) ** (-1 / 3)) < 1e-6 * (4e9) ** (-1 / 3)
    assert lv.strip_curvature_ratio(1e-12) == pytest.approx(1 - 4e-12, abs=1e-15)
    arm = lv.make_arm(1e4)
    assert lv.tendon_strain(arm, 1.5) == pytest.approx(1.5 / 3e4, rel=1e-12)


def test_searle_parameter_scales_as_width_squared_and_reproduces_the_narrow_strip():
    """b^2 |kappa|/h: the 20 x 10 mm strip under the tendon's beam curvature beta/L at
    L/h = 10 is 0.6 (a beam, plane stress); the default plate strip (b = 20 h) is 100
    times that."""
    narrow, plate = lv.make_arm(10.0, b=0.02), lv.make_arm(10.0)
    kappa = lv.BETA_TENDON / narrow.L
    assert np.isclose(lv.searle_parameter(narrow, kappa), 0.6, rtol=1e-12)
    assert np.isclose(lv.searle_parameter(plate, -kappa) / lv.searle_parameter(narrow, kappa), 100.0)
    assert np.isclose(plate.b / plate.h, lv.WIDTH_RATIO)


@pytest.mark.parametrize("level, size", [("pcc", 4), ("rod", 10), ("fem", 2)])
def test_nondimensional_results_do_not_depend_on_the_width(level, size):
    """Everything is per unit width (EI, rho A, loads over b): the tip under a large load
    and gravity is the same for b = 2 h and b = 20 h."""
    out = [lv.solve_static(lv.make_arm(4.0, b=b), level, size, 1.0, gravity=True, steps=4)[0][-1]
           for b in (0.02, 0.2)]
    assert np.allclose(out[0], out[1], rtol=0, atol=1e-10)


def test_sliding_clamp_converges_and_removes_most_of_the_rod_error():
    """With the root free to contract the rod meets the FEM to 0.2 % at L/h = 3 (the
    bonded clamp: above 5 %), and that FEM answer is mesh-converged (the bonded one, with
    its singular corners, still moves by a tenth of a percent between n_y = 12 and 24)."""
    s = lv.rod_small_load_error(3.0, clamp="sliding", ny_ref=6)
    fine = lv.rod_small_load_error(3.0, clamp="sliding", ny_ref=12)
    bonded = lv.rod_small_load_error(3.0, ny_ref=12)
    assert fine < 0.002 and abs(s - fine) < 2e-4 and bonded > 0.05


def test_sliding_clamp_holds_the_root_plane_and_its_mean_at_zero():
    arm = lv.make_arm(3.0)
    m = lv.to_fem(arm, 4, clamp="sliding")
    nodes = m.mesh.nodes
    face = np.flatnonzero(np.isclose(nodes[:, 0], 0.0))
    assert set(2 * face) <= set(m.fixed) and m.fixed.size == face.size + 1
    u, _ = lv.fem.mixed_solve(m, lv.fem.tip_shear_load(m, lv.tip_force(arm, 0.5) / arm.b))
    uy = u.reshape(-1, 2)[face, 1]
    assert np.ptp(uy) > 0                                   # the root section contracts
    shifted = u.copy()
    shifted[1::2] -= lv._root_mean_uy(m, u)
    assert abs(lv._root_mean_uy(m, shifted)) < 1e-15
    xy = lv.solve_static(arm, "fem", 4, 0.5, linear=True, clamp="sliding")[0]
    assert np.allclose(xy, lv._fem_centreline(m, shifted), atol=1e-14)


def test_the_clamps_differ_by_a_root_effect_that_fades_as_h_over_l():
    """The bonded root stiffens the arm over a thickness or so: the two clamps' tip
    deflections differ by a fraction that halves from L/h = 10 to 20 (about h/L)."""
    gap = []
    for s in (10.0, 20.0):
        arm = lv.make_arm(s)
        tips = [lv.solve_static(arm, "fem", 2, lv.ALPHA_SMALL, linear=True, clamp=c)[0][-1, 1]
                for c in lv.CLAMPS]
        assert tips[1] < tips[0] < 0                     # the sliding root is softer
        gap.append(tips[1] / tips[0] - 1)
    assert 1.6 < gap[0] / gap[1] < 2.4 and gap[1] < 0.02


def test_fine_thick_rod_at_small_load_converges_at_second_order():
    # N = 80, L/h = 10, alpha = 0.05: rod.static's absolute round-off floor lies above
    # 1e-10 of its force scale; the floor-aware tolerance lets Newton finish, and the tip
    # deflections of N = 20, 40, 80 show the rod's second-order convergence (ratio 4).
    arm = lv.make_arm(10)
    m = lv.build(arm, "rod", 80)
    assert lv._rod_tol(m, lv.tip_force(arm, 0.05), 0.0) > lv.ROD_TOL
    y = [lv.solve_static(arm, "rod", n, 0.05, linear=True)[0][-1, 1] for n in (20, 40, 80)]
    assert abs((y[0] - y[1]) / (y[1] - y[2]) - 4.0) < 0.05
    # a stubby arm under a large load keeps the default tolerance
    arm20 = lv.make_arm(5)
    assert lv._rod_tol(lv.build(arm20, "rod", 20), lv.tip_force(arm20, 3.0), 0.0) == lv.ROD_TOL


def test_solve_static_is_done_once_and_returns_an_independent_copy():
    arm = lv.make_arm(7.0)
    first = lv.solve_static(arm, "rod", 8, 0.5)
    first[0][:] = 0.0                                     # the caller's copy only
    again = lv.solve_static(arm, "rod", 8, 0.5)
    assert again[0] is not first[0] and again[0].flags.writeable
    assert np.array_equal(again[0], lv.solve_static(lv.make_arm(7.0), "rod", 8, 0.5)[0])
    assert again[1:] == first[1:]                         # same dofs, same (first) solve time
    assert np.abs(again[0]).max() > 0.5 * arm.L           # the stored centreline, not the zeros
    fresh = lv.solve_static(arm, "rod", 8, 0.5, steps=3)  # other arguments: another solve
    assert np.abs(fresh[0] - again[0]).max() < 1e-9 * arm.L
