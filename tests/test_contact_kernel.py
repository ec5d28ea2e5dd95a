"""The compiled explicit penalty step (lib.kernels.contact.penalty_run) against the NumPy loop
of lib.contact.simulate_penalty: the same trajectories to round-off, with the switch."""
from __future__ import annotations

import numpy as np
import pytest

from lib import contact as C
from lib import kernels

G = C.GRAVITY
FR = C.make_friction((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))
UP = np.array([0.0, 1.0, 0.0])

pytestmark = pytest.mark.skipif(not kernels.available(), reason="numba is not importable")


def _same(a, b, rtol=1e-9, atol=1e-12):
    """Every recorded quantity of two runs equal to round-off (relative to each array's scale)."""
    for name in ("t", "com", "kinetic", "gap_min"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        assert np.allclose(x, y, rtol=rtol, atol=atol * (1 + np.abs(y).max())), name
    for x, y in ((a.state.x, b.state.x), (a.state.Q, b.state.Q), (a.v, b.v), (a.w, b.w),
                 (a.normal, b.normal)):
        assert x.shape == y.shape
        assert np.allclose(x, y, rtol=rtol, atol=atol * (1 + np.abs(y).max()))
    if a.x is not None or b.x is not None:
        assert np.allclose(a.x, b.x, rtol=rtol, atol=atol)


def _both(*args, **kw):
    return (C.simulate_penalty(*args, kernels=True, **kw),
            C.simulate_penalty(*args, kernels=False, **kw))


def _drag_batch(N=8):
    """Straight rods resting on y = 0, pulled along +z by forces that stick, slide forward
    and slide backward; one more rod thrown up so it lifts off and lands."""
    rod = C.make_free_rod(N)
    pl = C.make_plane(UP)
    pen = C.make_penalty(1e5, line_density=rod.rhoA, slip_speed=1e-3)
    s0 = C._resting(rod, pl, pen, [0.0, -G, 0.0])
    F = np.array([0.5, 1.5, -1.5, 0.0]) * 0.8 * G        # stick, slide fwd, slide bwd, free
    B = F.size
    load = np.zeros((B, N + 1, 3))
    load[:, :, 2] = (F[:, None] * rod.node_masses / rod.node_masses.sum())
    x = np.broadcast_to(s0.x, (B,) + s0.x.shape).copy()
    Q = np.broadcast_to(s0.Q, (B,) + s0.Q.shape).copy()
    v = np.zeros((B, N + 1, 3))
    v[3, :, 1] = 0.1                                      # lift-off, flight and landing
    v[3, :, 2] = np.linspace(-0.05, 0.05, N + 1)          # with a spin-free twist of speeds
    w = np.zeros((B, N, 3))
    w[3, :, 0] = 2.0                                      # rolling spin about d1
    return rod, pl, pen, C.State(x, Q), v, w, load


def test_compiled_run_equals_numpy_in_stick_slide_and_lift_off():
    rod, pl, pen, s, v, w, load = _drag_batch()
    dt = 2e-5
    a, b = _both(rod, pl, FR, pen, s, v, w, dt=dt, t_end=1500 * dt, grav=[0.0, -G, 0.0],
                 load=load, every=37, keep_x=True)
    _same(a, b)
    # the states the test claims to cover are there: sticking, sliding both ways, airborne
    vz = b.v[:, :, 2].mean(axis=1)
    assert abs(vz[0]) < 2e-3 and vz[1] > 0.01 and vz[2] < -0.01
    airborne = b.gap_min[:, 3] > 0
    assert airborne.any() and not airborne[-1] and np.any(b.normal[3] > 0)   # off, and back down
    assert np.all(b.normal[:3] > 0)


def test_compiled_run_equals_numpy_with_moments_damping_and_per_member_friction():
    N, B = 6, 2
    rod = C.make_free_rod(N, radius=0.05, youngs_modulus=1e4, damping=0.5)
    pl = C.make_plane([0.1, 1.0, 0.05], origin=[0, -0.06, 0])
    pen = C.make_penalty(1e4, slip_speed=1e-3)
    rng = np.random.default_rng(3)
    base = C.retract(rod, C.straight(rod, direction=(0.3, 0.1, 1.0)), 0.05 * rng.normal(size=rod.ndof))
    s = C.State(np.stack([base.x, base.x]), np.stack([base.Q, base.Q]))
    v = 0.1 * rng.normal(size=(B, N + 1, 3))
    w = 0.1 * rng.normal(size=(B, N, 3))
    fr = C.make_friction([(0.8, 0.4, 0.6), (0.3, 0.3, 0.3)], [(0.4, 0.2, 0.5), (0.3, 0.3, 0.3)])
    amp = np.array([0.02, -0.01])[:, None, None] * np.array([0.0, 0.3, 1.0])

    def moments(t):
        return amp * np.sin(40.0 * t - np.arange(N - 1))[None, :, None]

    dt = 1e-5
    a, b = _both(rod, pl, fr, pen, s, v, w, dt=dt, t_end=300 * dt, grav=[[0, -G, 0], [0.5, -G, 0]],
                 moments=moments, every=64, check_limit=False, penetration_tol=1.0,
                 damping=[0.5, 3.0])
    _same(a, b)
    assert np.any(b.normal > 0) and np.any(b.normal == 0)      # some elements in contact, some not


def test_compiled_run_equals_numpy_for_one_rod_and_the_snake():
    rod, pl, pen, s, v, w, load = _drag_batch(5)
    one = C.State(s.x[1], s.Q[1])
    a, b = _both(rod, pl, FR, pen, one, v[3], w[3], dt=2e-5, t_end=250 * 2e-5,
                 grav=[0.0, -G, 0.0], load=load[1])
    _same(a, b)
    assert a.state.x.shape == (6, 3) and a.normal.shape == (5,)
    gaits = [C.snake_gait(), C.snake_gait(ratios=(1.0, 1.5, 4.0))]
    with kernels.disabled():
        off, v_off = C.snake(N=6, gaits=gaits, periods=1.0)
    on, v_on = C.snake(N=6, gaits=gaits, periods=1.0)
    _same(on, off)
    assert np.allclose(v_on, v_off, rtol=1e-9) and np.all(v_on > 0)


def test_switch_selects_the_numpy_path_exactly():
    rod, pl, pen, s, v, w, load = _drag_batch(4)
    kw = dict(dt=2e-5, t_end=100 * 2e-5, grav=[0.0, -G, 0.0], load=load)
    with kernels.disabled():
        off = C.simulate_penalty(rod, pl, FR, pen, s, v, w, **kw)
    ref = C.simulate_penalty(rod, pl, FR, pen, s, v, w, kernels=False, **kw)
    assert np.array_equal(off.state.x, ref.state.x) and np.array_equal(off.v, ref.v)
    on = C.simulate_penalty(rod, pl, FR, pen, s, v, w, **kw) if kernels.enabled() else None
    if on is not None:
        _same(on, ref)
    with pytest.raises(ValueError, match="kernels"):
        C.simulate_penalty(rod, pl, FR, pen, s, v, w, kernels="yes", **kw)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
def test_non_finite_motion_raises_at_the_same_step_on_both_paths():
    rod, pl, pen, s, v, w, load = _drag_batch(4)
    v = v.copy()
    v[2, 1, 0] = 1e308                                      # overflows on the first drift
    msgs = []
    for k in (True, False):
        with pytest.raises(C.ContactSolveError) as err:
            C.simulate_penalty(rod, pl, FR, pen, s, v, w, dt=2e-5, t_end=200 * 2e-5,
                               grav=[0.0, -G, 0.0], every=100, kernels=k)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "step 64" in msgs[0]
