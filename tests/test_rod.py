"""Properties of lib.rod: derivatives, invariants, limits, convergence, errors."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import eigh

from lib import beam, rod

LOAD = (0.4, -1.3, 0.25)
GRAV = 0.7


def random_state(r, seed, scale=0.3):
    """Straight state plus random angles (~scale rad) and node shifts (~scale ell)."""
    rng = np.random.default_rng(seed)
    dq = rng.standard_normal(r.ndof) * scale
    dq[1::3] *= r.ell
    dq[2::3] *= r.ell
    return rod.straight(r) + dq


CASES = [(1, 0.04, 0.5), (6, 0.04, 0.5), (9, 0.1, 0.3), (12, 0.2, -0.5)]


@pytest.mark.parametrize("N,r_over_L,nu", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_matches_central_difference_of_energy(N, r_over_L, nu, seed):
    r = rod.make_rod(N, r_over_L, nu)
    q = random_state(r, seed)
    g = rod.gradient(r, q, LOAD, GRAV)
    h = 1e-6 * r.L
    E = np.eye(r.ndof)
    fd = np.array([(rod.energy(r, q + h * e, LOAD, GRAV) - rod.energy(r, q - h * e, LOAD, GRAV))
                   / (2 * h) for e in E])
    assert np.abs(g - fd).max() <= 1e-8 * np.abs(g).max()


@pytest.mark.parametrize("N,r_over_L,nu", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_hessian_matches_central_difference_of_gradient(N, r_over_L, nu, seed):
    r = rod.make_rod(N, r_over_L, nu)
    q = random_state(r, seed)
    H = rod.hessian(r, q)
    assert sp.isspmatrix_csr(H) or isinstance(H, sp.csr_array)
    H = H.toarray()
    h = 1e-6 * r.L
    fd = np.array([(rod.gradient(r, q + h * e) - rod.gradient(r, q - h * e)) / (2 * h)
                   for e in np.eye(r.ndof)]).T
    assert np.abs(H - fd).max() <= 1e-7 * np.abs(H).max()


@pytest.mark.parametrize("N", [1, 2, 7])
def test_hessian_is_symmetric_and_banded(N):
    r = rod.make_rod(N, 0.05)
    H = rod.hessian(r, random_state(r, 3)).toarray()
    assert np.array_equal(H, H.T)
    i, j = np.nonzero(H)
    assert np.abs(i - j).max() <= rod.BANDWIDTH


def test_straight_state_is_unloaded_equilibrium():
    r = rod.make_rod(10, 0.002)
    q = rod.straight(r)
    # zero up to the round-off of the node positions k*ell times the stiff EA
    floor = 64 * np.finfo(float).eps * (r.EA + r.kGA)
    assert abs(rod.energy(r, q)) <= floor * np.finfo(float).eps
    assert np.abs(rod.gradient(r, q)).max() <= floor
    assert rod.tip(r, q) == (1.0, 0.0, 0.0)


def test_hessian_at_straight_is_positive_definite():
    r = rod.make_rod(8, 0.04)
    lam = np.linalg.eigvalsh(rod.hessian(r, rod.straight(r)).toarray())
    assert lam.min() > 0


def test_energy_is_invariant_to_rigid_rotation_of_the_free_rod_part():
    # rotating the whole rod (positions and angles) about the clamp changes only
    # the clamp bending term 2 EI/(2 ell) phi_0^2: checks frame indifference.
    r = rod.make_rod(5, 0.05)
    q = random_state(r, 4)
    th = 0.37
    c, s = math.cos(th), math.sin(th)
    qr = q.copy()
    qr[0::3] += th
    qr[1::3] = c * q[1::3] - s * q[2::3]
    qr[2::3] = s * q[1::3] + c * q[2::3]
    clamp = lambda qq: r.EI / r.ell * qq[0] ** 2  # c_0 = 2 -> 2 EI/(2 ell) phi^2
    assert math.isclose(rod.energy(r, qr) - clamp(qr), rod.energy(r, q) - clamp(q),
                        rel_tol=1e-12, abs_tol=1e-12)


def test_mass_is_lumped_and_sums_to_rod_mass():
    r = rod.make_rod(10, 0.04, rhoA=2.0, L=3.0)
    m = rod.mass(r)
    assert m.shape == (30,)
    assert math.isclose(m[1::3].sum(), 2.0 * 3.0 - 0.5 * 2.0 * 0.3)  # node 0 at the clamp
    assert np.allclose(m[0::3], r.rhoI * r.ell)
    assert math.isclose(r.rhoI, 2.0 * (0.04 * 3.0) ** 2 / 4)


def test_section_stiffnesses_follow_the_circular_section():
    r = rod.make_rod(4, 0.04)
    assert math.isclose(r.EA, 2500.0) and math.isclose(r.kGA, 750.0)
    assert math.isclose(r.ks, 0.9)
    r2 = rod.make_rod(4, 0.1, nu=0.3, ks=0.7, EI=2.0)
    assert math.isclose(r2.EA, 4 * 2.0 / 0.1**2)
    assert math.isclose(r2.kGA, 0.7 * r2.EA / 2.6)


# ---------------------------------------------------------------- frequencies

def test_frequencies_agree_with_dense_generalised_eigh_for_a_thick_rod():
    r = rod.make_rod(15, 0.04)
    K = rod.hessian(r, rod.straight(r)).toarray()
    lam = eigh(K, np.diag(rod.mass(r)), eigvals_only=True)
    om = rod.frequencies(r)
    assert om.shape == (45,)
    assert np.all(np.diff(om) >= 0)
    assert np.allclose(om, np.sqrt(lam), rtol=1e-9)


def test_mode_shapes_solve_the_eigenproblem_and_are_mass_orthonormal():
    r = rod.make_rod(12, 0.02, nu=0.3)
    om, V = rod.modes(r, 4)
    K = rod.hessian(r, rod.straight(r)).toarray()
    M = rod.mass(r)
    assert np.allclose(V.T @ (M[:, None] * V), np.eye(4), atol=1e-10)
    res = K @ V - (M[:, None] * V) * om**2
    assert np.abs(res).max() <= 1e-8 * np.abs(K @ V).max()
    assert np.allclose(om, rod.frequencies(r, 4), rtol=1e-12)


def test_frequencies_tend_to_the_rigid_link_chain_as_the_section_thins():
    # the gap to the true inextensible limit is O(r^2): halving r quarters it
    N = 10
    kir = rod.kirchhoff_frequencies(N, 2)
    rs = np.array([0.004, 0.002, 0.001])
    gaps = np.array([kir - rod.frequencies(rod.make_rod(N, rr), 2) for rr in rs])
    assert np.all(gaps > 0)
    slope = np.polyfit(np.log(rs), np.log(gaps[:, 0]), 1)[0]
    assert abs(slope - 2.0) < 0.02


def test_rigid_link_chain_converges_to_euler_bernoulli_at_second_order():
    Ns = np.array([20, 40, 80, 160])
    EB = beam.euler_bernoulli_omegas(2)
    err = np.array([np.abs(rod.kirchhoff_frequencies(n, 2) / EB - 1) for n in Ns])
    for m in range(2):
        order = -np.polyfit(np.log(Ns), np.log(err[:, m]), 1)[0]
        assert abs(order - 2.0) < 0.02


def test_thin_rod_converges_to_euler_bernoulli_at_nearly_second_order():
    # r/L = 0.002: the observed order is a little below 2 because the O(r^2)
    # shear / rotary-inertia offset does not shrink with N.
    Ns = np.array([20, 40, 80])
    EB = beam.euler_bernoulli_omegas(1)[0]
    err = np.array([abs(rod.frequencies(rod.make_rod(n, 0.002), 1)[0] / EB - 1) for n in Ns])
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert 1.85 < order < 2.0


def test_highest_frequency_is_the_shear_rotation_branch():
    r = rod.make_rod(20, 0.04)
    om, V = rod.modes(r)
    top = V[:, -1]
    ke = rod.mass(r) * top**2
    assert ke[0::3].sum() / ke.sum() > 0.9
    est = math.sqrt((r.kGA + 4 * r.EI / r.ell**2) / r.rhoI)
    assert abs(est / om[-1] - 1) < 0.05


# ---------------------------------------------------------------- statics

def test_static_small_load_matches_linear_cantilever():
    r = rod.make_rod(40, 0.002)
    P = 1e-4
    x, y, th = rod.tip(r, rod.static(r, (0.0, -P, 0.0)))
    assert math.isclose(y / P, -1 / 3, rel_tol=5e-4)
    assert math.isclose(th / P, -1 / 2, rel_tol=5e-4)


def test_static_tip_load_converges_to_elastica_at_second_order():
    ex = np.array(beam.elastica_tip(3.0))
    Ns = np.array([10, 20, 40])
    err = []
    for n in Ns:
        r = rod.make_rod(int(n), 0.001)
        q = rod.static(r, (0.0, -3.0, 0.0))
        floor = 64 * np.finfo(float).eps * (r.EA + r.kGA)   # round-off of stiff forces
        assert np.abs(rod.gradient(r, q, (0.0, -3.0, 0.0))).max() <= floor
        err.append(np.hypot(*(np.array(rod.tip(r, q)[:2]) - ex)))
    order = -np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert abs(order - 2.0) < 0.1


def test_pure_tip_moment_bends_into_a_circular_arc():
    # kappa L = 1.5: every node lies near the arc; tip error falls as N^-2
    a = 1.5
    errs = []
    for n in (10, 20, 40):
        r = rod.make_rod(n, 0.03, nu=0.3)
        q = rod.static(r, (0.0, 0.0, a))
        s = r.ell * np.arange(1, n + 1)
        x, y = q[1::3], q[2::3]
        assert np.abs(np.hypot(x, y - 1 / a) - 1 / a).max() < 5e-3
        errs.append(np.hypot(*(np.array(rod.tip(r, q)[:2]) - beam.arc_tip(a))))
        # element angles equal the arc tangent at mid-element (to O(ell^2))
        assert np.abs(q[0::3] - a * (s - r.ell / 2)).max() < 0.1 * r.ell
    order = np.log2(errs[0] / errs[1]), np.log2(errs[1] / errs[2])
    assert all(abs(o - 2.0) < 0.05 for o in order)


def test_gravity_sag_matches_linear_uniform_load():
    r = rod.make_rod(40, 0.002)
    g = 1e-4
    y = rod.tip(r, rod.static(r, grav=g))[1]
    assert math.isclose(y / g, -1 / 8, rel_tol=2e-3)   # w = q L^4 / (8 EI)


def test_static_failure_names_load_step_and_residual():
    r = rod.make_rod(10, 0.04)
    with pytest.raises(rod.StaticSolveError, match=r"load step 1/1.*residual"):
        rod.static(r, (0.0, -8.0, 0.0), steps=1, maxiter=1)


def test_static_refuses_a_saddle_and_follows_the_buckled_branch():
    """Axial compression 1.5 x the cantilever's buckling load pi^2 EI/(4 L^2): the straight
    rod is an equilibrium by symmetry but a saddle (refused, at the last load step); with
    a 1e-3 transverse load ten steps still end on a saddle, fifty follow the stable branch
    (the elastica: tip angle 1.72 rad, well past the straight axis)."""
    r = rod.make_rod(20)
    F = 1.5 * np.pi ** 2 / 4
    for load in ((-F, 0.0, 0.0), (-F, 1e-3, 0.0)):
        with pytest.raises(rod.StaticSolveError, match=r"load step 10/10 .*not positive "
                                                       r"definite") as err:
            rod.static(r, load)
        assert err.value.reason == "unstable equilibrium"
    x, y, th = rod.tip(r, rod.static(r, (-F, 1e-3, 0.0), steps=50))
    assert y > 0.5 and th > 1.5
    assert np.allclose(rod.static(r, (-0.8 * np.pi ** 2 / 4, 0.0, 0.0))[1::3][-1], 1 - 0.8 *
                       np.pi ** 2 / 4 / r.EA, rtol=1e-9)            # below buckling: straight


# ---------------------------------------------------------------- input checks

@pytest.mark.parametrize("kwargs,name", [
    (dict(N=0), "N"), (dict(N=2.5), "N"), (dict(N=True), "N"),
    (dict(N=3, r_over_L=0.0), "r_over_L"), (dict(N=3, r_over_L=-1), "r_over_L"),
    (dict(N=3, nu=0.6), "nu"), (dict(N=3, nu=-1.0), "nu"), (dict(N=3, ks=0), "ks"),
    (dict(N=3, L=0), "L"), (dict(N=3, EI=-1), "EI"), (dict(N=3, rhoA=float("nan")), "rhoA"),
])
def test_make_rod_rejects_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        rod.make_rod(**kwargs)


def test_functions_reject_bad_state_load_and_counts():
    r = rod.make_rod(3)
    q = rod.straight(r)
    with pytest.raises(ValueError, match="q"):
        rod.energy(r, q[:-1])
    with pytest.raises(ValueError, match="load"):
        rod.gradient(r, q, load=(0.0, 1.0))
    with pytest.raises(ValueError, match="load"):
        rod.static(r, load=(0.0, float("inf"), 0.0))
    with pytest.raises(ValueError, match="grav"):
        rod.energy(r, q, grav="x")
    with pytest.raises(ValueError, match="k"):
        rod.frequencies(r, 0)
    with pytest.raises(ValueError, match="k"):
        rod.kirchhoff_frequencies(3, 4)
    with pytest.raises(ValueError, match="steps"):
        rod.static(r, (0, -1, 0), steps=0)


def test_a_3d_rod_is_refused_by_every_planar_function_saying_what_it_is():
    from lib import rod3d

    r3 = rod3d.make_rod3d(4)
    q = rod.straight(rod.make_rod(4))
    for call in (lambda: rod.straight(r3), lambda: rod.mass(r3), lambda: rod.energy(r3, q),
                 lambda: rod.gradient(r3, q), lambda: rod.hessian(r3, q),
                 lambda: rod.banded_hessian(r3, q), lambda: rod.frequencies(r3),
                 lambda: rod.modes(r3, 1), lambda: rod.static(r3), lambda: rod.tip(r3, q),
                 lambda: rod.force(r3), lambda: rod.verlet(r3, q, 0 * q, 1e-3, 1),
                 lambda: rod.node_masses(r3)):
        with pytest.raises(ValueError, match=r"^rod must be a planar rod \(lib\.rod\.Rod, made "
                                             r"by lib\.rod\.make_rod\), got a Rod3D$"):
            call()


def test_nan_start_state_and_bools_are_bad_input_not_solver_failures():
    r = rod.make_rod(4)
    q0 = rod.straight(r)
    q0[5] = np.nan
    with pytest.raises(ValueError, match="^q0 must be finite, got nan at index 5$"):
        rod.static(r, (0.0, -1.0, 0.0), q0=q0)
    with pytest.raises(ValueError, match=r"^grav must be a real number, got True \(a bool\)$"):
        rod.gradient(r, rod.straight(r), grav=True)
    with pytest.raises(ValueError, match="^load must be an array of real numbers"):
        rod.energy(r, rod.straight(r), load=(True, False, True))
    with pytest.raises(ValueError, match="^N must be an integer >= 1, got 2.0$"):
        rod.make_rod(2.0)
    assert rod.make_rod(np.int64(3), nu=np.float32(0.5)).N == 3


@pytest.mark.parametrize("L,EI,rhoA", [(1e-3, 1e6, 1e-2), (1e3, 1e-6, 1e4)])
def test_extreme_units_give_the_nondimensional_answers_scaled(L, EI, rhoA):
    # a stiff millimetre rod and a floppy kilometre one: Omega = omega L^2 sqrt(rhoA/EI)
    # and the tip under alpha = P L^2 / EI = 2 are those of L = EI = rhoA = 1
    r0, r = rod.make_rod(8, 0.04), rod.make_rod(8, 0.04, L=L, EI=EI, rhoA=rhoA)
    scale = np.sqrt(EI / rhoA) / L**2
    np.testing.assert_allclose(rod.frequencies(r), scale * rod.frequencies(r0), rtol=1e-12)
    x0, y0, th0 = rod.tip(r0, rod.static(r0, (0.0, -2.0, 0.0)))
    x, y, th = rod.tip(r, rod.static(r, (0.0, -2.0 * EI / L**2, 0.0)))
    np.testing.assert_allclose([x / L, y / L, th], [x0, y0, th0], rtol=1e-9)


def test_an_almost_auxetic_rod_and_a_single_element_are_legal():
    # nu -> -1: Cowper's ks = 6 (1 + nu)/(7 + 6 nu) vanishes with 1 + nu, and
    # kGA = ks EA / (2 (1 + nu)) tends to 3 EA (no 0/0); the slender rod is Euler-Bernoulli
    r = rod.make_rod(40, 0.002, nu=-0.999)
    assert math.isclose(r.kGA, 3 * r.EA, rel_tol=1e-2)
    y = rod.tip(r, rod.static(r, (0.0, -1e-4, 0.0)))[1]
    assert math.isclose(y / 1e-4, -1 / 3, rel_tol=5e-4)
    # one element: the clamp spring 2 EI / ell under a tip moment M turns it by M ell / (2 EI)
    r1 = rod.make_rod(1, 0.04)
    assert math.isclose(rod.tip(r1, rod.static(r1, (0.0, 0.0, 1e-3)))[2], 0.5e-3, rel_tol=1e-6)


# ---------------------------------------------------------------- independent implementation
# A plain per-element loop written from the seed's energy (section 3.10.3.3), at
# parameters the chapter does not use: N = 7, r/L = 0.03, nu = 0.3, L = 1.7,
# EI = 2.3, rhoA = 0.8.  Derivatives by complex step (exact to round-off).

def loop_energy(q, N, L, EI, rhoA, r, nu, load, g):
    ks = 6 * (1 + nu) / (7 + 6 * nu)
    EA = 4 * EI / (r * L) ** 2
    S = ks * EA / (2 * (1 + nu))
    ell = L / N
    Pi = 0.0
    xp, yp, php = 0.0, 0.0, 0.0
    for e in range(N):
        ph, x, y = q[3 * e], q[3 * e + 1], q[3 * e + 2]
        dx, dy = x - xp, y - yp
        import cmath
        c, s = cmath.cos(ph), cmath.sin(ph)
        a = c * dx + s * dy
        b = -s * dx + c * dy
        Pi += ell / 2 * (EA * (a / ell - 1) ** 2 + S * (b / ell) ** 2)
        Pi += EI / (2 * ell) * (2 if e == 0 else 1) * (ph - php) ** 2
        m = rhoA * ell * (0.5 if e == N - 1 else 1.0)
        Pi += m * g * y
        xp, yp, php = x, y, ph
    Pi -= load[0] * q[-2] + load[1] * q[-1] + load[2] * q[-3]
    return Pi


def test_independent_loop_implementation_agrees():
    N, L, EI, rhoA, r_, nu = 7, 1.7, 2.3, 0.8, 0.03, 0.3
    r = rod.make_rod(N, r_over_L=r_, nu=nu, L=L, EI=EI, rhoA=rhoA)
    rng = np.random.default_rng(11)
    q = rod.straight(r) + 0.05 * rng.standard_normal(3 * N)
    args = (N, L, EI, rhoA, r_, nu, LOAD, GRAV)
    assert math.isclose(rod.energy(r, q, LOAD, GRAV), loop_energy(q, *args).real, rel_tol=1e-12)
    h = 1e-30
    E = np.eye(3 * N)
    g_cs = np.array([loop_energy(q + 1j * h * e, *args).imag / h for e in E])
    assert np.allclose(rod.gradient(r, q, LOAD, GRAV), g_cs, rtol=1e-12, atol=1e-9)

    # Hessian by complex step of a complex-step-free gradient: use forward
    # differences of the complex-step gradient with a small real step
    def g_of(qq):
        return np.array([loop_energy(qq + 1j * h * e, *args).imag / h for e in E])

    d = 1e-6
    H_fd = np.array([(g_of(q + d * e) - g_of(q - d * e)) / (2 * d) for e in E]).T
    H = rod.hessian(r, q).toarray()
    assert np.abs(H - H_fd).max() <= 1e-7 * np.abs(H).max()

    # frequencies: loop Hessian at the straight state, loop masses, dense eigh
    q0 = rod.straight(r)
    K = np.array([(g_of(q0 + d * e) - g_of(q0 - d * e)) / (2 * d) for e in E]).T
    K = 0.5 * (K + K.T)
    ell = L / N
    M = np.empty(3 * N)
    M[0::3] = rhoA * (r_ * L) ** 2 / 4 * ell
    M[1::3] = M[2::3] = rhoA * ell
    M[-2:] *= 0.5
    om = np.sqrt(eigh(K, np.diag(M), eigvals_only=True)[:3])
    assert np.allclose(rod.frequencies(r, 3), om, rtol=1e-7)


def test_weak_clamp_spring_converges_only_at_first_order_from_below():
    # c_0 = 1 (no half element at the clamp) -> O(1/N) error, frequencies too low
    Ns = np.array([20, 40, 80])
    EB = beam.euler_bernoulli_omegas(1)[0]
    err = np.array([rod.kirchhoff_frequencies(n, 1, clamp=1.0)[0] / EB - 1 for n in Ns])
    assert np.all(err < 0)
    order = -np.polyfit(np.log(Ns), np.log(-err), 1)[0]
    assert abs(order - 1.0) < 0.05
    with pytest.raises(ValueError, match="clamp"):
        rod.kirchhoff_frequencies(4, clamp=0.0)


def test_energy_of_a_stack_equals_the_energy_of_each_state():
    rd = rod.make_rod(9, r_over_L=0.03, nu=0.3)
    rng = np.random.default_rng(3)
    Q = rod.straight(rd) + 0.05 * rng.standard_normal((5, rd.ndof))
    load, g = (0.2, -0.7, 0.1), 1.3
    stacked = rod.energy(rd, Q, load, g)
    assert stacked.shape == (5,)
    np.testing.assert_allclose(stacked, [rod.energy(rd, q, load, g) for q in Q], rtol=1e-14)


def test_static_wraps_a_singular_hessian_and_says_how_far_it_got(monkeypatch):
    rd = rod.make_rod(4, 0.04)
    # the banded Cholesky fails (a zero matrix is not positive definite), and so does the
    # sparse LU it falls back on
    monkeypatch.setattr(rod, "_banded_upper", lambda r, q: np.zeros((rod.BANDWIDTH + 1, r.ndof)))
    monkeypatch.setattr(rod, "_hessian", lambda r, q: sp.csr_matrix((r.ndof, r.ndof)))
    with pytest.raises(rod.StaticSolveError,
                       match=r"load step 1/10 .*iteration 0, residual .*tangent singular; "
                             r"the matrix is exactly singular \(sparse LU\)") as err:
        rod.static(rd, (0.0, -1.0, 0.0))
    assert (err.value.step, err.value.iteration, err.value.reason) == (1, 0, "singular")
