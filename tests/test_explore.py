"""The compute functions behind the book's widgets give the right physics."""
import numpy as np
import pytest

from lib import explore


def test_verlet_is_bounded_below_the_limit_and_blows_up_above():
    # Below the limit the energy oscillates (Verlet's velocity of a mode with
    # omega*dt near 2 is amplified by up to 1/(1 - (omega dt/2)^2)) but does not grow.
    _, below = explore.verlet_energy(0.98, N=10, nsteps=400)
    _, above = explore.verlet_energy(1.02, N=10, nsteps=400)
    assert below[200:].max() <= 1.01 * below[:200].max()
    assert below.max() < 1 + 1 / (1 - 0.98**2)
    assert above.max() > 1e6


def test_rod_errors_converge_at_second_order_to_timoshenko():
    Ns, _, err_t = explore.rod_frequency_errors(0.04, Ns=(10, 20, 40))
    slope = np.polyfit(np.log(Ns), np.log(np.abs(err_t[:, 0])), 1)[0]
    assert -2.2 < slope < -1.8


def test_pcc_ratios_are_rayleigh_ritz_upper_bounds():
    ns, ratio = explore.pcc_frequency_ratios(6, 3)
    finite = ratio[np.isfinite(ratio)]
    assert np.all(finite > 1.0)
    assert np.isnan(ratio[0, 1]) and np.isfinite(ratio[2, 2])
    assert np.all(np.diff(ratio[:, 0]) < 0)  # more segments, closer to the beam


def test_t6_locks_less_than_t3_near_incompressibility():
    _, t3 = explore.locking_ratios(0.499, "T3", sizes=(1, 2))
    _, t6 = explore.locking_ratios(0.499, "T6", sizes=(1, 2))
    assert np.all(t6 > 5 * t3)


def test_baumgarte_reduces_pendulum_drift():
    _, free = explore.pendulum_drift(0.0, t_end=5.0)
    _, stab = explore.pendulum_drift(10.0, t_end=5.0)
    assert stab[-1] < free[-1]


def test_only_the_half_element_clamp_converges_at_second_order():
    _, _, half = explore.clamp_convergence(2.0)
    _, err_full, full = explore.clamp_convergence(1.0)
    _, _, stiff = explore.clamp_convergence(50.0)
    assert 1.9 < half < 2.1
    assert 0.9 < full < 1.2 and np.all(err_full < 0)   # first order, from below
    assert 0.9 < stiff < 1.2                          # a nearly rigid first segment


@pytest.mark.parametrize("call, name", [
    (lambda: explore.clamp_convergence(0.0), "clamp"),
    (lambda: explore.verlet_energy(-1.0), "dt_ratio"),
    (lambda: explore.verlet_energy(0.9, N=0), "N"),
    (lambda: explore.rod_frequency_errors(0.0), "r_over_L"),
    (lambda: explore.pcc_frequency_ratios(0), "n_max"),
    (lambda: explore.locking_ratios(0.3, "Q4"), "element"),
    (lambda: explore.pendulum_drift(-1.0), "alpha"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_widgets_build_without_error():
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    for make in (explore.verlet_widget, explore.pcc_widget, explore.pendulum_widget):
        w = make()
        assert len(w.children) >= 2


def test_damping_ratios_grow_with_frequency_and_cut_the_explicit_step():
    """zeta_k = tau omega_k / 2 rises with omega; more damping, smaller explicit limit (<= 1)."""
    om, z, r3 = explore.damping_ratios(-3.0, N=10)
    assert np.all(np.diff(om) >= 0) and np.allclose(z, 1e-3 * om / 2)
    _, _, r2 = explore.damping_ratios(-2.0, N=10)
    assert 0 < r2 < r3 <= 1.0
    with pytest.raises(ValueError, match="log10_tau"):
        explore.damping_ratios(float("nan"))
    with pytest.raises(ValueError, match="N"):
        explore.damping_ratios(-3.0, N=0)


def test_pneumatic_arm_inflates_and_bends_towards_its_strain_limiting_layer():
    """Pressure inflates the chambers and bends the arm down (towards the uncut lower half),
    more for more pressure; suction shrinks them and bends it up; at rest nothing moves."""
    _, chambers, a0, dv0 = explore.pneumatic_arm_shape(0.0)
    assert a0 == 0.0 and abs(dv0) < 1e-14 and len(chambers) == 5
    _, _, a1, dv1 = explore.pneumatic_arm_shape(0.05)
    outline, _, a2, dv2 = explore.pneumatic_arm_shape(0.1)
    _, _, a_s, dv_s = explore.pneumatic_arm_shape(-0.02)
    assert a2 < a1 < 0 < a_s and dv2 > dv1 > 0 > dv_s
    assert np.array_equal(outline[0], outline[-1]) and outline[:, 1].min() < -0.5


def test_check_positive_string_is_a_value_error_naming_the_argument():
    """Issue 22: explore's positive check raised TypeError for 'a'."""
    with pytest.raises(ValueError, match="clamp"):
        explore.clamp_convergence("a")
    with pytest.raises(ValueError, match="Ns"):
        explore.clamp_convergence(2.0, Ns=(10,))          # one mesh gives no order


def test_extreme_legal_inputs():
    """NumPy integers are counts; a very slender rod matches Euler-Bernoulli; a pendulum
    run for a tiny time stays on its circle."""
    Ns, err_eb, _ = explore.rod_frequency_errors(1e-4, Ns=np.array([40, 80], dtype=np.int64))
    assert Ns.tolist() == [40, 80] and np.abs(err_eb).max() < 0.3      # percent
    t, drift = explore.pendulum_drift(0.0, t_end=1e-6, n_out=3)
    assert t[-1] == 1e-6 and drift.max() < 1e-12
