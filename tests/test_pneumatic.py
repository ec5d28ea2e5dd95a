"""Closed pneumatic cavities (lib.fe.cavity) and the pressure / volume / gas control of the
arm (lib.pneumatic): each test is named for the property it proves."""
import warnings

import numpy as np
import pytest

from lib import actuation, fem
from lib import incompressible as inc
from lib import pneumatic as pn
from lib.core.errors import SolveError
from lib.fe import cavity as cv
from lib.fe import make_space, rectangle_mesh

BOXES = [(1.0, 2.0, -0.25, 0.25), (3.0, 3.5, 0.0, 0.25)]     # two cavities, 4 x 1 arm


def _space(element, refine=1):
    m = cv.cavity_mesh(16 * refine, 4 * refine, BOXES, element, length=4.0, height=1.0)
    return make_space(m)


def _smooth(space, amp=0.05, seed=0):
    """A random smooth displacement field (a few low Fourier modes): no element inverts."""
    rng = np.random.default_rng(seed)
    X, Y = space.mesh.nodes.T
    u = np.zeros((X.size, 2))
    for i in range(2):
        for kx in range(3):
            for ky in range(3):
                a, ph = rng.standard_normal(), rng.uniform(0, 2 * np.pi)
                u[:, i] += a * np.cos(kx * np.pi * X / 4 + ky * np.pi * Y + ph)
    return amp * u.ravel() / np.abs(u).max()


# --------------------------------------------------------------------------------------
# the mesh
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("element", ["T3", "T6"])
def test_cavity_mesh_has_no_orphan_nodes_and_closed_ccw_loops(element):
    s = _space(element)
    m = s.mesh
    assert np.array_equal(np.unique(m.elements), np.arange(len(m.nodes)))
    for k, loop in enumerate(m.loops):
        assert np.array_equal(loop[1:, 0], loop[:-1, -1]) and loop[-1, -1] == loop[0, 0]
        x0, x1, y0, y1 = m.cavities[k]
        V = cv.cavity_volume(s, cv.make_cavity(s, k), np.zeros(s.n_dofs))
        assert V == pytest.approx((x1 - x0) * (y1 - y0), abs=1e-14)     # ccw: positive
        # no element covers the cavity: the solid's area is the rectangle minus the holes
    xi = m.nodes[m.elements[:, :3]]
    area = 0.5 * np.sum((xi[:, 1, 0] - xi[:, 0, 0]) * (xi[:, 2, 1] - xi[:, 0, 1])
                        - (xi[:, 2, 0] - xi[:, 0, 0]) * (xi[:, 1, 1] - xi[:, 0, 1]))
    assert area == pytest.approx(4.0 - 0.5 - 0.125, abs=1e-12)


# --------------------------------------------------------------------------------------
# the volume, its derivatives and the load
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("element", ["T3", "T6"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_volume_boundary_integral_equals_the_deformed_area_sum(element, seed):
    s = _space(element)
    u = _smooth(s, 0.08, seed)
    assert fem.admissible(fem.make_model(s.mesh), u)
    for k in range(2):
        c = cv.make_cavity(s, k)
        v_b = cv.cavity_volume(s, c, u)
        v_c = cv.cavity_volume(s, c, u, method="cells")
        assert abs(v_b - v_c) <= 1e-12
        assert abs(v_b - cv.cavity_volume(s, c, np.zeros(s.n_dofs))) > 1e-3    # it moved


def test_quadratic_walls_enclose_the_exact_curved_area():
    """A T6 wall bulged as a parabola: the volume is the straight box plus 2/3 of bulge x span."""
    s = _space("T6")
    c = cv.make_cavity(s, 0)
    X, Y = s.mesh.nodes.T
    top = np.unique(c.edges[np.isclose(Y[c.edges], 0.25).all(1)])
    u = np.zeros(s.n_dofs)
    u[2 * top + 1] = 0.1 * (X[top] - 1.0) * (2.0 - X[top]) * 4      # bulge 0.1 at mid-span
    for method in ("boundary", "cells"):
        assert cv.cavity_volume(s, c, u, method) == pytest.approx(0.5 + 2 / 3 * 0.1, abs=1e-14)


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_volume_gradient_and_hessian_match_central_differences(element):
    """dV/du = C x (the follower load per unit pressure) against central differences of V
    computed by the *cells* method (which never uses C), and d(C x)/du = C."""
    s = _space(element)
    rng = np.random.default_rng(3)
    u = _smooth(s, 0.05, 3)
    for k in range(2):
        c = cv.make_cavity(s, k)
        g, H = cv.volume_gradient(s, c, u), cv.volume_hessian(s, c)
        for _ in range(3):
            v = rng.standard_normal(s.n_dofs)
            h = 1e-5
            fd = (cv.cavity_volume(s, c, u + h * v, "cells")
                  - cv.cavity_volume(s, c, u - h * v, "cells")) / (2 * h)
            assert abs(fd - g @ v) <= 1e-6 * np.abs(g).max() * np.abs(v).max()
            fdg = (cv.volume_gradient(s, c, u + h * v) - cv.volume_gradient(s, c, u - h * v)) / (2 * h)
            assert np.abs(fdg - H @ v).max() <= 1e-6 * np.abs(H @ v).max()


def test_closed_cavity_stiffness_is_symmetric_open_face_is_not():
    """The load stiffness p C is assembled edge by edge without symmetrising: around the
    closed loop its skew part cancels to round-off; on an open run (the loop less one edge,
    or the open face of lib.actuation) the end terms remain, O(1)."""
    s = _space("T6")
    c = cv.make_cavity(s, 0)
    Ksym = abs(c.C - c.C.T).max() / abs(c.C).max()
    assert Ksym < 1e-14
    open_run = cv.edge_matrix(c.edges[1:], s.n_dofs, 2)
    assert abs(open_run - open_run.T).max() / abs(open_run).max() > 0.1
    model = fem.make_model(s.mesh, fixed=fem.clamped_dofs(s.mesh))
    Kp = actuation.pressure_stiffness(model, actuation.make_chamber(model, "top", (1.0, 3.0)), 1.0)
    assert abs(Kp - Kp.T).max() / abs(Kp).max() > 0.1
    # and the open run's load is not the gradient of its "volume" x^T C x / 2
    x = s.mesh.nodes.ravel() + _smooth(s, 0.05, 4)
    assert np.abs(open_run @ x - 0.5 * (open_run + open_run.T) @ x).max() > 1e-3


@pytest.mark.parametrize("element", ["T3", "T6"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cavity_load_is_self_equilibrated_in_any_deformed_state(element, seed):
    s = _space(element)
    u = _smooth(s, 0.1, seed) + np.tile([0.3, -0.2], s.n_dofs // 2)     # and a translation
    for k in range(2):
        c = cv.make_cavity(s, k)
        f = cv.cavity_load(s, c, u, 2.5)
        r = cv.load_resultant(s, c, u, 2.5)
        assert np.abs(r).max() <= 1e-14 * np.abs(f).sum() * 10


# --------------------------------------------------------------------------------------
# the face: FD checks of the tangents
# --------------------------------------------------------------------------------------
ARM = pn.make_arm(24, 4, "T6")                                  # five chambers (PNEUNET)
RUBBER = pn.make_arm(24, 4, "P2P1", material=inc.neo_hookean(1.0, 0.5))   # u-p, nu = 0.5
ARMS = {"T6": ARM, "P2P1": RUBBER}
M = ARM.n_cavities
V0 = 0.125 * M


def _fd_check(fun, jac, z, h=1e-6, n=3, rtol=1e-6, seed=0):
    rng = np.random.default_rng(seed)
    J = jac(z)
    for _ in range(n):
        v = rng.standard_normal(z.size)
        fd = (np.asarray(fun(z + h * v)) - np.asarray(fun(z - h * v))) / (2 * h)
        Jv = np.asarray(J @ v).ravel()
        assert np.abs(fd - Jv).max() <= rtol * np.abs(Jv).max(), np.abs(fd - Jv).max()


def _state(arm, seed=0, amp=0.004):
    rng = np.random.default_rng(seed)
    u = amp * rng.standard_normal(arm.n_dofs)
    u[np.setdiff1d(np.arange(arm.n_u), arm.free)] = 0
    return u


def _ramp(lo, hi):
    return np.linspace(lo, hi, M)


@pytest.mark.parametrize("name", ARMS)
def test_pressure_control_gradient_and_hessian_match_central_differences(name):
    arm = ARMS[name]
    u, p = _state(arm, 1), _ramp(0.03, -0.01)
    _fd_check(lambda u: pn.energy(arm, u, p), lambda u: pn.gradient(arm, u, p)[None], u)
    _fd_check(lambda u: pn.gradient(arm, u, p), lambda u: pn.hessian(arm, u, p), u)


@pytest.mark.parametrize("name", ARMS)
def test_gas_law_tangent_is_the_exact_derivative(name):
    """The rank-one p-V stiffness (n/V^2) g g^T makes gas_hessian the derivative of
    gas_gradient, itself the derivative of gas_energy (central differences, 1e-6)."""
    arm = ARMS[name]
    u, n = _state(arm, 2), _ramp(0.2, 0.15)
    _fd_check(lambda u: pn.gas_energy(arm, u, n, 1.0), lambda u: pn.gas_gradient(arm, u, n, 1.0)[None], u)
    _fd_check(lambda u: pn.gas_gradient(arm, u, n, 1.0), lambda u: pn.gas_hessian(arm, u, n, 1.0), u)
    # without the rank-one term the tangent is not the derivative
    H0 = pn.hessian(arm, u, pn.gas_pressure(arm, u, n, 1.0))
    with pytest.raises(AssertionError):
        _fd_check(lambda u: pn.gas_gradient(arm, u, n, 1.0), lambda u: H0, u)


@pytest.mark.parametrize("name", ARMS)
def test_volume_constraint_jacobian_matches_central_differences(name):
    arm = ARMS[name]
    z = np.concatenate([_state(arm, 3), _ramp(0.02, -0.01)])
    _fd_check(lambda z: pn.volume_residual(arm, z, 0.13), lambda z: pn.volume_jacobian(arm, z), z)


# --------------------------------------------------------------------------------------
# the three control modes
# --------------------------------------------------------------------------------------
P = _ramp(0.02, 0.01)


@pytest.fixture(scope="module")
def pressure_paths():
    return {name: pn.pressure_static(arm, P, steps=4) for name, arm in ARMS.items()}


@pytest.mark.parametrize("name", ARMS)
def test_volume_control_recovers_the_pressure_of_pressure_control(name, pressure_paths):
    arm, path = ARMS[name], pressure_paths[name]
    V = path.volumes[-1]
    vol = pn.volume_static(arm, V, steps=2)
    assert np.abs(vol.volumes[-1] - V).max() <= 1e-12
    assert np.abs(vol.pressures[-1] - P).max() <= 1e-8 * np.abs(P).max()
    u_p, u_v = path.states[-1][:arm.n_u], vol.states[-1][:arm.n_u]
    assert np.abs(u_p - u_v).max() <= 1e-8 * np.abs(u_p).max()


def test_enclosed_gas_settles_on_the_pressure_control_equilibrium_of_its_pressure():
    gas = pn.gas_static(ARM, 0.15, ambient=1.0, steps=3)
    u, p = gas.states[-1], gas.pressures[-1]
    assert np.allclose((p + 1.0) * pn.volumes(ARM, u), 0.15, rtol=1e-13, atol=0)  # p V = nRT
    same = pn.pressure_static(ARM, p, steps=3)
    assert np.abs(same.states[-1] - u).max() <= 1e-8 * np.abs(u).max()
    # the gas is stiffer than a controlled pressure: it expands less than at p = n/V0 - 1
    assert np.all(p < 0.15 / 0.125 - 1.0)


@pytest.mark.parametrize("name", ARMS)
def test_pressure_work_equals_stored_energy_to_the_path_quadrature_order(name, pressure_paths):
    """int p dV (trapezoid in V) - W(u_end) falls as steps^-2 (the path's quadrature); for
    the u-p body W is its saddle functional, the stored energy at equilibrium."""
    arm, errs = ARMS[name], []
    for path in (pn.pressure_static(arm, P, steps=2), pressure_paths[name]):
        W = pn.stored_energy(arm, path.states[-1])
        errs.append(abs(pn.pressure_work(path) - W) / W)
    assert errs[1] < 2e-3
    assert 3.0 < errs[0] / errs[1] < 5.0
    vol = pn.volume_static(arm, pressure_paths[name].volumes[-1], steps=4)
    W = pn.stored_energy(arm, vol.states[-1])
    assert abs(pn.pressure_work(vol) - W) / W < 2e-3


def test_small_load_slopes_are_the_limits_of_finite_loads():
    """theta(p)/p and V(p)/p differ from the linearised slopes by O(p); Richardson's
    2 f(p) - f(2p) removes that term."""
    s = pn.bending_slopes(ARM)
    assert s.angle_per_pressure < 0 and s.volume_per_pressure > 0
    ratios = []
    for p in (1e-5, 2e-5):
        path = pn.pressure_static(ARM, p, steps=1)
        ratios.append([pn.tip_angle(ARM, path.states[-1]) / p,
                       (path.volumes[-1].sum() - V0) / p])
    angle, volume = 2 * np.array(ratios[0]) - np.array(ratios[1])
    assert angle == pytest.approx(s.angle_per_pressure, rel=1e-5)
    assert volume == pytest.approx(s.volume_per_pressure, rel=1e-5)
    assert angle / volume == pytest.approx(s.angle_per_volume, rel=1e-5)
    assert abs(ratios[0][0] / s.angle_per_pressure - 1) > 1e-6          # not by itself


def test_displacement_t3_walls_lock_as_nu_tends_to_one_half_the_u_p_walls_do_not():
    """At nu = 0.4999 (mu = 1) the T3 arm's bending per pressure collapses (locking) while
    the Taylor-Hood u-p arm stays at its value at nu = 0.5 (continuous in nu)."""
    up = pn.bending_slopes(RUBBER).angle_per_pressure
    nu = 0.4999
    t3 = pn.bending_slopes(pn.make_arm(24, 4, "T3", E=2 * (1 + nu), nu=nu)).angle_per_pressure
    mixed = pn.bending_slopes(pn.make_arm(24, 4, "P2P1", material=inc.neo_hookean(1.0, nu)))
    assert mixed.angle_per_pressure == pytest.approx(up, rel=1e-3)
    assert abs(t3 / up) < 0.2


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("boxes, match", [
    ([(0.0, 1.0, -0.25, 0.25)], "cavity not closed"),                  # reaches X = 0
    ([(1.0, 2.0, -0.25, 0.5)], "cavity not closed"),                   # reaches the top
    ([(1.0, 2.0, -0.25, 0.25), (1.5, 2.5, 0.0, 0.25)], "cavity not closed"),   # overlap
    ([(1.0, 2.0, -0.25, 0.25), (2.0, 2.5, 0.0, 0.25)], "cavity not closed"),   # touching
    ([(1.1, 2.0, -0.25, 0.25)], "grid lines"),
    ([(2.0, 1.0, -0.25, 0.25)], "x0 < x1"),
    ([(1.0, np.nan, -0.25, 0.25)], "finite"),
    (np.empty((0, 4)), "at least one"),
    ([1.0, 2.0], "shape"),
])
def test_bad_cavities_are_value_errors_naming_the_argument(boxes, match):
    with pytest.raises(ValueError, match=match) as err:
        cv.cavity_mesh(16, 4, boxes, length=4.0)
    assert "cavities" in str(err.value)


def test_a_cavity_from_another_mesh_is_refused():
    s, other = _space("T3"), _space("T3", refine=2)
    c = cv.make_cavity(other)
    with pytest.raises(ValueError, match="cavity was made on another mesh"):
        cv.cavity_volume(s, c, np.zeros(s.n_dofs))
    with pytest.raises(ValueError, match="model must be built on a mesh with cavities"):
        cv.make_cavity(make_space(rectangle_mesh(4, 2)))
    with pytest.raises(ValueError, match="index"):
        cv.make_cavity(s, 2)


def test_bad_pressures_volumes_amounts_are_value_errors():
    u = np.zeros(ARM.n_dofs)
    with pytest.raises(ValueError, match="pressure"):
        pn.pressure_static(ARM, np.nan)
    with pytest.raises(ValueError, match="pressure"):
        pn.gradient(ARM, u, [0.1, 0.2])                      # one per cavity
    with pytest.raises(ValueError, match="volumes"):
        pn.volume_static(ARM, -0.1)
    with pytest.raises(ValueError, match="volumes"):
        pn.volume_static(ARM, [0.13, 0.0, 0.13, 0.13, 0.13])
    with pytest.raises(ValueError, match="amount"):
        pn.gas_static(ARM, 0.0)
    with pytest.raises(ValueError, match="ambient"):
        pn.gas_pressure(ARM, u, 1.0, ambient=-1.0)
    with pytest.raises(ValueError, match="u"):
        pn.gas_energy(ARM, u + np.nan, 1.0)
    # a state that turns a cavity inside out has no gas law
    c = ARM.cavities[0]
    X = ARM.model.mesh.nodes
    flip = np.zeros(ARM.n_dofs)
    top = np.unique(c.edges[np.isclose(X[c.edges, 1], 0.25).all(1)])
    flip[2 * top + 1] = -0.5
    with pytest.raises(ValueError, match="collapses cavity 0"):
        pn.gas_pressure(ARM, flip, 1.0)
    with pytest.raises(ValueError, match="arm"):
        pn.tip_angle(ARM.model, u)


def test_a_failed_solve_is_a_solve_error_saying_how_far_it_got():
    with pytest.raises(SolveError) as err:
        pn.pressure_static(ARM, 0.05, steps=2, maxiter=1, tol=1e-14)
    e = err.value
    assert e.step == 1 and e.iteration == 1 and np.isfinite(e.residual)
    assert "pneumatic.pressure_static" in str(e)


@pytest.mark.parametrize("mesh, p, fine_steps, below_deg", [
    # plain full-step Newton failed at 0.02 E per increment on 24 x 4 (referee)
    ((24, 4), 0.2, 40, -25),
    # 48 x 8 at 0.26 E (about -63 deg) needed >= 52 plain-Newton increments (referee)
    ((48, 8), 0.26, 52, -55)])
def test_pressure_path_reaches_a_large_stroke_with_default_increments(mesh, p, fine_steps,
                                                                      below_deg):
    # the energy / residual acceptance follows the path with the default increments, to
    # the same equilibrium as a path of fine increments, the cavity walls apart
    arm = pn.make_arm(*mesh, "T6")
    coarse = pn.pressure_static(arm, p)
    fine = pn.pressure_static(arm, p, steps=fine_steps)
    assert pn.tip_angle(arm, coarse.states[-1]) < np.radians(below_deg)
    assert np.abs(coarse.states[-1] - fine.states[-1]).max() < 1e-8
    r = pn.gradient(arm, coarse.states[-1], p)[arm.free]
    assert np.abs(r).max() < 1e-8
    assert not any(cv.walls_cross(arm.model, c, coarse.states[-1]) for c in arm.cavities)


# --------------------------------------------------------------------------------------
# self-contact of the cavity walls is not modelled: detected and refused
# --------------------------------------------------------------------------------------
def test_polyline_crossing_test_on_hand_made_polygons():
    star = np.array([[np.cos(t), np.sin(t)] for t in np.pi / 2 + 4 * np.pi / 5 * np.arange(5)])
    assert cv.polyline_crosses(star)                                   # pentagram
    spiky = np.array([[np.cos(t) * r, np.sin(t) * r] for t, r in
                      zip(2 * np.pi / 10 * np.arange(10), [1, 0.3] * 5)])
    assert not cv.polyline_crosses(spiky)                              # non-convex, simple
    # only the closing segment crosses: (3,1)->(0,0) through (1,0)->(1,2)
    assert cv.polyline_crosses(np.array([[0, 0], [1, 0], [1, 2], [3, 2], [3, 1]]))
    assert not cv.polyline_crosses(np.array([[0, 0], [1, 0], [1, 2], [3, 2], [3, 3],
                                             [0, 3]]))
    # collinear neighbours along a straight wall do not count as crossing
    assert not cv.polyline_crosses(np.array([[0, 0], [1, 0], [2, 0], [2, 1], [0, 1]]))


@pytest.mark.parametrize("element", ["T3", "T6"])
def test_walls_cross_when_the_top_wall_passes_a_side_wall_without_inverting(element):
    s = make_space(cv.cavity_mesh(16, 4, [(1.0, 1.5, 0.0, 0.25)], element, length=4.0))
    c = cv.make_cavity(s)
    X = s.mesh.nodes
    mid = int(np.flatnonzero(np.isclose(X[:, 0], 1.25) & np.isclose(X[:, 1], 0.25))[0])
    assert not cv.walls_cross(s, c, np.zeros(s.n_dofs))
    for to, crosses in [((1.75, 0.1), True), ((1.45, 0.1), False)]:
        u = np.zeros(s.n_dofs)
        u[2 * mid:2 * mid + 2] = np.subtract(to, X[mid])
        # the top wall's middle node moved: past the right wall, or just short of it
        assert cv.cavity_volume(s, c, u) > 0
        assert cv.walls_cross(s, c, u) is crosses


def _no_crossing(arm, U):
    return not any(cv.walls_cross(arm.model, c, u[:arm.n_u]) for u in U for c in arm.cavities)


def test_vacuum_that_would_pass_a_wall_through_another_is_a_solve_error_with_the_path():
    # before: p = -0.12 E returned states whose top wall crossed a side wall (referee)
    with pytest.raises(SolveError, match="cavity walls in contact") as err:
        pn.pressure_static(ARM, -0.12, steps=40)
    e = err.value
    assert e.reason == pn.CONTACT and "converged up to" in str(e)
    path = e.path
    assert isinstance(path, pn.Path) and 0.5 < path.load[-1] < 1.0
    assert np.allclose(path.pressures[:, 0], -0.12 * path.load)
    assert _no_crossing(ARM, path.states)
    r = pn.gradient(ARM, path.states[-1], path.pressures[-1])[ARM.free]
    assert np.abs(r).max() < 1e-8                                      # an equilibrium


def test_a_drained_cavity_under_volume_control_is_refused_not_crossed():
    # before: volume_static(arm, 0.01) returned crossing walls with no element inverted
    with pytest.raises(SolveError, match="cavity walls in contact") as err:
        pn.volume_static(ARM, 0.01)
    path = err.value.path
    assert path.volumes[-1, 0] < 0.06 and _no_crossing(ARM, path.states)
    assert np.allclose(path.volumes[-1], 0.125 + path.load[-1] * (0.01 - 0.125), atol=1e-9)


def test_a_failed_path_carries_the_part_it_converged():
    arm = pn.make_arm(24, 4, "T3")
    with pytest.raises(SolveError) as err:
        pn.pressure_static(arm, 0.05, steps=2, maxiter=2, tol=1e-14)
    path = err.value.path
    assert path.load.tolist() == [0.0] and path.states.shape == (1, arm.n_dofs)
    assert path.iterations.shape == (0,)


def test_a_start_with_crossing_walls_is_refused():
    c = ARM.cavities[0]
    X = ARM.model.mesh.nodes
    top = np.unique(c.edges[np.isclose(X[c.edges, 1], 0.25).all(1)])
    inner = top[(X[top, 0] > 0.75 + 1e-9) & (X[top, 0] < 1.25 - 1e-9)]
    u0 = np.zeros(ARM.n_dofs)
    u0[2 * inner + 1] = -0.4                       # the top wall through the bottom wall
    assert cv.walls_cross(ARM.model, c, u0)
    with pytest.raises(ValueError, match="u0"):
        pn.pressure_static(ARM, 0.01, u0=u0)


def test_a_box_off_the_grid_by_round_off_is_stored_on_the_grid():
    m = cv.cavity_mesh(16, 4, [(1.0 + 1e-10, 2.0, -0.25 - 1e-10, 0.25)], length=4.0)
    assert m.cavities[0].tolist() == [1.0, 2.0, -0.25, 0.25]
    assert set(m.cavities[0]) <= set(m.nodes[:, 0]) | set(m.nodes[:, 1])
    with pytest.raises(ValueError, match="grid lines"):
        cv.cavity_mesh(16, 4, [(1.0 + 1e-6, 2.0, -0.25, 0.25)], length=4.0)


def test_an_arm_with_cavities_of_another_mesh_is_refused():
    a, b = pn.make_arm(24, 4, "T3"), pn.make_arm(48, 4, "T3", length=12.0)
    # b's cavity walls have a's node numbers and coordinates: only the size tells them apart
    assert all(np.array_equal(a.model.mesh.nodes[cb.edges], cb.X) for cb in b.cavities)
    u = np.zeros(a.n_dofs)
    for bad in (pn.Arm(a.model, b.cavities, None, a.C), pn.Arm(a.model, a.cavities[:4], None,
                                                                a.C[:4])):
        with pytest.raises(ValueError, match="^arm's cavities must be those of its model's"):
            pn.tip_angle(bad, u)
        with pytest.raises(ValueError, match="^arm's cavities must be those of its model's"):
            pn.energy(bad, u, 1.0)


def test_cavity_volume_refuses_a_state_whose_volume_overflows():
    s = make_space(cv.cavity_mesh(6, 4, [(1.0, 2.0, -0.5, 0.5)], "T6", length=3.0, height=2.0))
    c = cv.make_cavity(s)
    u = np.full(s.n_dofs, 1e300)                 # finite, but x . C x overflows (was NaN)
    for method in ("boundary", "cells"):
        with pytest.raises(ValueError, match="^u must keep the wall positions"):
            cv.cavity_volume(s, c, u, method)
    # a large but representable rigid shift keeps the volume (translation invariance)
    assert cv.cavity_volume(s, c, np.full(s.n_dofs, 1e3)) == pytest.approx(1.0, rel=1e-9)


def _quadratic_points(x_edges, k):
    """Each quadratic edge [e, (start, mid, end), 2] sampled at k points (end excluded)."""
    xi = np.arange(k) / k
    N = np.stack([(1 - xi) * (1 - 2 * xi), 4 * xi * (1 - xi), xi * (2 * xi - 1)], 1)
    return np.einsum("qa,eai->eqi", N, x_edges).reshape(-1, 2)


@pytest.mark.parametrize("mid_x, crosses", [(0.2375, True), (0.30, False)])
def test_walls_cross_sees_a_crossing_just_past_a_closed_corner(mid_x, crosses):
    # the top wall's edge leaves the top-left corner heading down, just outside (0.2375)
    # or just inside (0.30) the left wall: outside, it crosses the left wall's edge a few
    # per cent along both edges -- between the chords through the quarter points, which
    # share the corner and so were never compared (the referee's T6 PNEUNET paths
    # returned such states under vacuum); 400 points per edge are the independent check
    s = make_space(cv.cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T6", length=4.0))
    c = cv.make_cavity(s)
    X, E = s.mesh.nodes, c.edges
    P = E[np.lexsort((-X[E[:, 0], 1], X[E[:, 0], 0]))[0], 0]          # top-left corner
    top = next(e for e in range(len(E)) if P in (E[e, 0], E[e, 2])
               and np.isclose(X[E[e, 0], 1], X[E[e, 2], 1]))
    M = E[top, 1]
    u = np.zeros(s.n_dofs)
    u[2 * M:2 * M + 2] = X[P] + np.array([mid_x, -1 / 8]) - X[M]
    x_edges = X[E] + u.reshape(-1, 2)[E]
    assert cv.polyline_crosses(_quadratic_points(x_edges, 400)) is crosses
    assert not cv.polyline_crosses(_quadratic_points(x_edges, 4))      # the old test
    assert cv.walls_cross(s, c, u) is crosses


@pytest.mark.parametrize("name, size", [("length", {"length": 1e300}),
                                        ("height", {"height": 1e300})])
def test_an_arm_too_large_for_the_default_cavities_names_its_size(name, size):
    # the PNEUNET boxes snapped onto one grid line of 1e298-wide cells (was: 'cavities[0]
    # must be a box with x0 < x1', naming the default argument nobody gave)
    with pytest.raises(ValueError, match=f"^{name} must fit the default cavities PNEUNET"):
        pn.make_arm(**size)
    with pytest.raises(ValueError, match=f"^{name} must fit the default cavities PNEUNET"):
        pn.make_arm(24, 4, "P2P1", material=inc.neo_hookean(1.0, 0.5), **size)


def test_a_box_narrower_than_a_cell_or_far_outside_is_named_without_a_cast_warning():
    with pytest.raises(ValueError, match=r"^cavities\[0\] = .* must span at least one cell"):
        cv.cavity_mesh(4, 4, [(0.25, 0.5, -0.125, 0.125)], length=1e10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # 1e300 / dy cast to int64 warned before
        with pytest.raises(ValueError, match=r"^cavities\[0\] = .*: cavity not closed"):
            cv.cavity_mesh(16, 4, [(1.0, 2.0, -0.25, 2.5e299)], length=4.0)


def test_a_state_whose_volumes_overflow_is_named_not_returned_as_nan():
    arm = pn.make_arm(24, 4, "T3")
    big = np.full(arm.n_dofs, 1e200)             # a rigid shift: x . C x overflows (was NaN)
    with pytest.raises(ValueError, match="^u must keep the wall positions"):
        pn.energy(arm, big, 1.0)
    with pytest.raises(ValueError, match="^u must keep the wall positions"):
        pn.gas_pressure(arm, big, 0.15)
    with pytest.raises(ValueError, match="^z must keep the wall positions"):
        pn.volume_residual(arm, np.concatenate([big, np.zeros(arm.n_cavities)]), 0.13)
    # a large representable shift keeps them (translation invariance)
    shift = np.full(arm.n_dofs, 1e3)
    assert pn.energy(arm, shift, 0.1) == pytest.approx(-0.0625, rel=1e-9)
