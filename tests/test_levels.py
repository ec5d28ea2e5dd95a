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
