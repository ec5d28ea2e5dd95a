"""Tests of lib.pcc: Rayleigh-Ritz bounds, arc mass, nonlinear PCC dynamics."""
from fractions import Fraction
from math import factorial

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson, simpson
from scipy.optimize import brentq

from lib import pcc
from lib.core.errors import SolveError

EPS = np.finfo(float).eps


def eb_omegas_local(k):
    """Clamped-free Euler-Bernoulli Omega_j = beta_j^2, cos b cosh b = -1 (own roots)."""
    f = lambda b: np.cos(b) + 1.0 / np.cosh(b)  # noqa: E731
    return np.array([brentq(f, (j - 0.5) * np.pi - 1.2, (j - 0.5) * np.pi + 1.2, xtol=1e-15) ** 2
                     for j in range(1, k + 1)])


def test_local_euler_bernoulli_roots_agree_with_lib_beam():
    beam = pytest.importorskip("lib.beam")
    assert np.allclose(beam.euler_bernoulli_omegas(10), eb_omegas_local(10), rtol=1e-13)


# --------------------------------------------------------------------------- #
# linear Rayleigh-Ritz
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8, 10])
def test_ritz_frequencies_bound_every_euler_bernoulli_mode_from_above(n):
    om = pcc.frequencies(n)
    exact = eb_omegas_local(n)
    assert om.shape == (n,)
    assert np.all(np.diff(om) > 0)
    assert np.all(om > exact)


def test_single_segment_gives_sqrt_20():
    M, K = pcc.ritz(1)
    assert M[0, 0] == pytest.approx(1 / 20, rel=1e-15)
    assert pcc.frequencies(1)[0] == pytest.approx(np.sqrt(20.0), rel=1e-15)


def test_frequencies_scale_with_physical_parameters():
    # omega = Omega sqrt(EI / rhoA) / L^2
    om = pcc.frequencies(3, EI=2.0, rhoA=0.5, L=1.5)
    assert np.allclose(om, pcc.frequencies(3) * np.sqrt(2.0 / 0.5) / 1.5**2, rtol=1e-13)


def test_ritz_first_frequency_error_converges_at_second_order():
    n = np.arange(4, 17, 2)
    err = np.array([pcc.frequencies(k, k=1)[0] for k in n]) / eb_omegas_local(1)[0] - 1
    slope = np.polyfit(np.log(n), np.log(err), 1)[0]
    assert -2.1 < slope < -1.95


def test_each_mode_error_decreases_monotonically_with_n():
    exact = eb_omegas_local(3)
    errs = np.array([pcc.frequencies(n, k=3) / exact - 1 for n in range(3, 12)])
    assert np.all(np.diff(errs, axis=0) < 0)
    # higher modes converge more slowly: the error at a given n grows with the mode
    assert np.all(np.diff(errs, axis=1) > 0)


def test_ritz_mass_matches_exact_polynomial_integration_at_n5():
    """Independent re-implementation: psi_i as numpy polynomials, integrated exactly."""
    n, L, rhoA = 5, 1.3, 0.7
    ell = L / n
    P = np.polynomial.Polynomial
    M = np.zeros((n, n))
    for k in range(n):                       # segment k, local t = s - k ell in [0, ell]
        pieces = []
        for i in range(n):
            if i > k:
                pieces.append(P([0.0]))
            elif i == k:
                pieces.append(P([0.0, 0.0, 1.0 / (2 * ell)]))
            else:                            # ell/2 + (s - (i+1) ell)
                pieces.append(P([ell / 2 + (k - i - 1) * ell, 1.0]))
        for i in range(n):
            for j in range(n):
                anti = (pieces[i] * pieces[j]).integ()
                M[i, j] += rhoA * (anti(ell) - anti(0.0))
    M_lib, K_lib = pcc.ritz(n, EI=2.0, rhoA=rhoA, L=L)
    assert np.allclose(M_lib, M, rtol=1e-13, atol=0)
    assert np.allclose(K_lib, np.diag(np.full(n, 2.0 / ell)))


# --------------------------------------------------------------------------- #
# single-arc mass
# --------------------------------------------------------------------------- #
def arc_mass_quad(a):
    """M(a) = int_0^1 |F(x)|^2 dx, F(x) = int_0^x u e^{iau} du, by nested Gauss-Legendre."""
    xg, wg = np.polynomial.legendre.leggauss(40)
    x = 0.5 * (xg + 1)
    u = x[:, None] * x[None, :]                  # inner points u = x * t, t in (0, 1)
    F = (x[:, None] * 0.5 * wg[None, :] * u * np.exp(1j * a * u)).sum(axis=1)
    return float((0.5 * wg * np.abs(F) ** 2).sum())


def arc_mass_exact(a, terms=60):
    """The series summed in exact rational arithmetic at the double nearest a."""
    A = Fraction(float(a)) ** 2
    return sum(Fraction(2 * (-1) ** j * (2 * j + 3), factorial(2 * j + 5)) * A**j
               for j in range(terms))


@pytest.mark.parametrize("a", [0.5, 1.0, 2.0, 3.0, 4.5, -1.7])
def test_arc_mass_matches_quadrature(a):
    assert abs(pcc.arc_mass(a) - arc_mass_quad(a)) <= 1e-11
    assert abs(pcc.arc_mass_closed_form(a) - arc_mass_quad(a)) <= 1e-11


def test_arc_mass_is_accurate_to_a_few_eps_for_every_a():
    a = np.concatenate([[0.0, 1e-8, 1e-3, 0.1], np.linspace(0.3, 6.0, 25),
                        [np.nextafter(2.0, 0), 2.0]])
    got = pcc.arc_mass(a)
    for ai, gi in zip(a, got):
        ex = arc_mass_exact(ai)
        assert abs(Fraction(float(gi)) - ex) / ex <= 4 * EPS


def test_arc_mass_limit_is_one_twentieth():
    assert pcc.arc_mass(0.0) == 0.05
    assert pcc.arc_mass(1e-3) == pytest.approx(0.05, abs=2.1e-9)   # M = 1/20 - a^2/504 + ...
    assert pcc.arc_mass(1e-3) == pytest.approx(0.05 - 1e-6 / 504, rel=1e-12)


def test_naive_closed_form_cancels_catastrophically_at_small_a():
    bad = pcc.arc_mass_closed_form(1e-3)
    assert abs(bad - 0.05) > 5e-5                # error ~ eps / a^4: wrong in the 4th digit
    # the error model "relative error = a few eps / a^4" predicts its size
    rel = abs(bad - float(arc_mass_exact(1e-3))) / 0.05
    assert 0.5 * EPS / 1e-12 < rel < 50 * EPS / 1e-12


def test_arc_mass_is_even_scaled_and_continuous_at_threshold():
    t = pcc.ARC_MASS_THRESHOLD
    lo, hi = pcc.arc_mass(np.nextafter(t, 0)), pcc.arc_mass(t)
    assert abs(lo - hi) < 4 * EPS * hi
    assert pcc.arc_mass(-2.5) == pcc.arc_mass(2.5)
    assert pcc.arc_mass(1.2, rhoA=3.0, ell=0.5) == pytest.approx(3.0 * 0.125 * pcc.arc_mass(1.2),
                                                                  rel=1e-15)


def test_arc_mass_equals_single_segment_mass_matrix():
    m = pcc.make_pcc(1, nquad=12)
    for a in (0.0, 0.4, 1.5, 3.0):
        assert pcc.mass_matrix(m, [a])[0, 0] == pytest.approx(pcc.arc_mass(a), abs=1e-15)


# --------------------------------------------------------------------------- #
# arc moments and kinematics
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("x", [0.0, 1e-9, 0.3, 1.999999, 2.0, 2.7, -5.0, 11.0])
def test_arc_moments_match_gauss_legendre_quadrature(x):
    """E_m(x) = int_0^1 u^m e^{ixu} du; 40 Gauss points are exact to round-off here."""
    xg, wg = np.polynomial.legendre.leggauss(40)
    u, w = 0.5 * (xg + 1), 0.5 * wg
    E = pcc._moments(np.array([x, 0.5 * x, 1.0]), 3)[0]      # mixed series / recursion call
    for m in range(4):
        assert abs(E[m] - np.sum(w * u**m * np.exp(1j * x * u))) < 5e-15


def test_pure_bending_single_arc_is_a_circle():
    m = pcc.make_pcc(3)
    a = 0.7                                   # each segment turns 0.7: kappa = 2.1
    kap = 3 * a
    s = np.linspace(0, 1, 11)
    p = pcc.positions(m, [a, a, a], s)
    assert np.allclose(p, np.column_stack([np.sin(kap * s), 1 - np.cos(kap * s)]) / kap,
                       atol=1e-15)
    x, y, th = pcc.tip(m, [a, a, a])
    assert (x, y, th) == pytest.approx((np.sin(kap) / kap, (1 - np.cos(kap)) / kap, kap),
                                       abs=1e-15)


def reference_fields(q, qd, L, n, npts=4001):
    """Independent plain implementation on a fine grid (Simpson, loops over segments)."""
    s = np.linspace(0, L, npts)
    ell = L / n
    phi = np.zeros((n, npts))
    for i in range(n):
        phi[i] = np.clip((s - i * ell) / ell, 0, 1)
    th = q @ phi
    thd = qd @ phi
    t = np.array([np.cos(th), np.sin(th)])
    nrm = np.array([-np.sin(th), np.cos(th)])
    cum = lambda f: cumulative_simpson(f, x=s, initial=0.0)  # noqa: E731
    p = np.array([cum(t[0]), cum(t[1])])
    J = np.array([[cum(phi[i] * nrm[c]) for i in range(n)] for c in range(2)])  # (2, n, S)
    C = np.array([cum(thd**2 * t[c]) for c in range(2)])
    M = np.array([[simpson((J[:, i] * J[:, j]).sum(0), x=s) for j in range(n)] for i in range(n)])
    f = np.array([simpson((J[:, i] * C).sum(0), x=s) for i in range(n)])
    Vg = simpson(p[1], x=s)
    return s, p, J, M, f, Vg


def test_independent_reimplementation_at_n5():
    rng = np.random.default_rng(5)
    n, L = 5, 1.0
    q = rng.uniform(-1.2, 1.2, n)
    qd = rng.uniform(-3, 3, n)
    s, p, J, M, f, Vg = reference_fields(q, qd, L, n)
    m = pcc.make_pcc(n, nquad=10)
    idx = np.arange(0, s.size, 400)
    assert np.allclose(pcc.positions(m, q, s[idx]), p[:, idx].T, atol=1e-12)
    Jl = pcc.jacobian(m, q, s[idx])                      # (len, 2, n)
    assert np.allclose(Jl, J[:, :, idx].transpose(2, 0, 1), atol=1e-12)
    assert np.allclose(pcc.mass_matrix(m, q), M, atol=1e-11)
    assert np.allclose(pcc.velocity_force(m, q, qd), f, atol=1e-10)
    grav = 3.0
    assert pcc.energy(m, q, grav) == pytest.approx(0.5 * n * q @ q + grav * Vg, abs=1e-12)


# --------------------------------------------------------------------------- #
# mass matrix, energy, derivatives
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n", [1, 3, 5])
def test_mass_matrix_at_straight_state_equals_linear_ritz_mass(n):
    m = pcc.make_pcc(n, nquad=3)                          # 3 points are already exact
    assert np.allclose(pcc.mass_matrix(m, np.zeros(n)), pcc.ritz(n)[0], rtol=1e-14, atol=1e-17)


def test_mass_matrix_is_symmetric_positive_definite():
    rng = np.random.default_rng(1)
    for n in (2, 4, 7):
        m = pcc.make_pcc(n)
        for _ in range(5):
            M = pcc.mass_matrix(m, rng.uniform(-2.5, 2.5, n))
            assert np.array_equal(M, M.T)
            assert np.linalg.eigvalsh(M).min() > 0


def test_mass_matrix_quadrature_is_converged_at_default_points():
    q = np.array([2.0, -1.8, 1.5])
    M8 = pcc.mass_matrix(pcc.make_pcc(3), q)
    M20 = pcc.mass_matrix(pcc.make_pcc(3, nquad=20), q)
    assert np.allclose(M8, M20, rtol=0, atol=1e-14)


@pytest.mark.parametrize("lower, upper, seed", [("energy", "gradient", 2),
                                                ("gradient", "hessian", 3)])
def test_derivative_matches_central_differences(lower, upper, seed):
    """gradient = d energy / dq and hessian = d gradient / dq (symmetric), at a random state."""
    m = pcc.make_pcc(4)
    q = np.random.default_rng(seed).uniform(-1.5, 1.5, 4)
    f, df, h = getattr(pcc, lower), getattr(pcc, upper), 1e-6
    fd = np.array([(f(m, q + h * e, 3.0) - f(m, q - h * e, 3.0)) / (2 * h) for e in np.eye(4)])
    exact = df(m, q, 3.0)
    assert np.allclose(exact, fd.T, rtol=0, atol=1e-8)
    if upper == "hessian":
        assert np.array_equal(exact, exact.T)


def test_gravity_gradient_is_the_generalised_weight_of_the_jacobian():
    # dV_g/dq = rhoA g int J_y ds: checked with the quadrature Jacobian
    m = pcc.make_pcc(3, rhoA=1.7, nquad=12)
    q = np.array([0.4, -0.9, 1.3])
    Jy = pcc.jacobian(m, q)[:, 1, :]
    g_quad = 1.7 * 2.0 * (m.w @ Jy)
    assert np.allclose(pcc.gradient(m, q, 2.0) - pcc.gradient(m, q, 0.0), g_quad, atol=1e-14)


def test_velocity_force_equals_lagrange_form_by_finite_differences():
    """d'Alembert's rhoA int J^T C = -Mdot qd + 1/2 d(qd^T M qd)/dq (Lagrange)."""
    rng = np.random.default_rng(4)
    n = 3
    m = pcc.make_pcc(n)
    q, qd = rng.uniform(-1, 1, n), rng.uniform(-2, 2, n)
    h = 1e-6
    dM = np.array([(pcc.mass_matrix(m, q + h * e) - pcc.mass_matrix(m, q - h * e)) / (2 * h)
                   for e in np.eye(n)])                       # dM[k] = dM/dq_k
    Mdot = np.tensordot(qd, dM, axes=1)
    lagr = -Mdot @ qd + 0.5 * np.einsum("kij,i,j->k", dM, qd, qd)
    assert np.allclose(pcc.velocity_force(m, q, qd), lagr, atol=1e-8)


def test_linearisation_about_straight_state_gives_ritz_frequencies():
    n = 4
    m = pcc.make_pcc(n)
    lam = np.linalg.eigvals(np.linalg.solve(pcc.mass_matrix(m, np.zeros(n)),
                                            pcc.hessian(m, np.zeros(n))))
    assert np.allclose(np.sort(np.sqrt(lam.real)), pcc.frequencies(n), rtol=1e-12)


# --------------------------------------------------------------------------- #
# dynamics
# --------------------------------------------------------------------------- #
def test_energy_is_conserved_by_the_equations_of_motion():
    m = pcc.make_pcc(2)
    q0 = np.array([0.8, -0.5])
    qd0 = np.array([1.0, -1.0])
    sol = pcc.simulate(m, 1.0, q0=q0, qd0=qd0, grav=3.0, rtol=1e-11, atol=1e-12)
    E = np.array([pcc.total_energy(m, z[:2], z[2:], 3.0) for z in sol.y.T])
    assert np.ptp(sol.y[0]) > 0.5                      # a large motion, not a trickle
    assert np.max(np.abs(E - E[0])) < 1e-9 * abs(E[0])


def test_static_gravity_sag_has_zero_acceleration():
    from scipy.optimize import root
    m = pcc.make_pcc(3)
    sol = root(lambda q: pcc.gradient(m, q, 3.0), np.zeros(3), jac=lambda q: pcc.hessian(m, q, 3.0))
    assert sol.success
    qdd = pcc.accel(m, sol.x, np.zeros(3), 3.0)
    assert np.allclose(pcc.mass_matrix(m, sol.x) @ qdd, 0, atol=1e-12)
    # the sagged equilibrium is stable: the Hessian there is positive definite
    assert np.linalg.eigvalsh(pcc.hessian(m, sol.x, 3.0)).min() > 0


def test_more_segments_fall_deeper_in_gravity_release():
    ys = [pcc.first_tip_minimum(pcc.make_pcc(n), grav=3.0, rtol=1e-9, atol=1e-10)[1]
          for n in (1, 2, 3)]
    assert ys[0] > ys[1] > ys[2]


def test_no_tip_minimum_raises():
    with pytest.raises(RuntimeError, match="no tip minimum"):
        pcc.first_tip_minimum(pcc.make_pcc(1), grav=3.0, t_max=0.1)


# --------------------------------------------------------------------------- #
# input validation
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("call, name", [
    (lambda: pcc.ritz(0), "n"),
    (lambda: pcc.ritz(2.0), "n"),
    (lambda: pcc.ritz(True), "n"),
    (lambda: pcc.ritz(2, EI=-1), "EI"),
    (lambda: pcc.ritz(2, rhoA=0), "rhoA"),
    (lambda: pcc.ritz(2, L=np.nan), "L"),
    (lambda: pcc.frequencies(3, k=4), "k"),
    (lambda: pcc.frequencies(3, k=0), "k"),
    (lambda: pcc.arc_mass(np.nan), "a"),
    (lambda: pcc.arc_mass(1.0, ell=-1), "ell"),
    (lambda: pcc.make_pcc(2, nquad=2), "nquad"),
    (lambda: pcc.mass_matrix(pcc.make_pcc(2), [0.0]), "q"),
    (lambda: pcc.accel(pcc.make_pcc(2), [0.0, 0.0], [0.0]), "qd"),
    (lambda: pcc.energy(pcc.make_pcc(2), [0.0, 0.0], grav=np.inf), "grav"),
    (lambda: pcc.positions(pcc.make_pcc(2), [0.0, 0.0], [1.5]), "s"),
    (lambda: pcc.simulate(pcc.make_pcc(2), -1.0), "t_end"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


# ---------------------------------------------------------------- SciPy errors never reach the reader bare
@pytest.mark.parametrize("kwargs, name", [
    (dict(method="RK99"), "method"),
    (dict(rtol=-1.0), "rtol"),
    (dict(atol=0.0), "atol"),
    (dict(t_eval=[0.0, 2.0]), "t_eval"),        # beyond t_end = 1
    (dict(t_eval=[0.5, 0.1]), "t_eval"),        # decreasing
    (dict(grav=float("nan")), "grav"),
])
def test_simulate_rejects_solver_options_before_scipy_sees_them(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        pcc.simulate(pcc.make_pcc(2), 1.0, **kwargs)


def test_simulate_reports_the_time_when_the_rhs_fails(monkeypatch):
    """A failure inside the right-hand side (here a forced LinAlgError after t = 0.1)
    comes back as a SolveError (a RuntimeError) with the time reached."""
    model = pcc.make_pcc(1)
    real = pcc._accel

    def failing(model_, q, qd, grav, kernels=False):
        if failing.calls > 20:
            raise np.linalg.LinAlgError("mass matrix not positive definite (forced)")
        failing.calls += 1
        return real(model_, q, qd, grav, kernels)

    failing.calls = 0
    monkeypatch.setattr(pcc, "_accel", failing)
    with pytest.raises(SolveError, match=r"stopped near t = [0-9.e-]+ of 1\.0: mass matrix"):
        pcc.simulate(model, 1.0, grav=3.0)


def test_simulate_wraps_scipy_rejections_of_events():
    with pytest.raises(ValueError, match="solve_ivp rejected the arguments"):
        pcc.simulate(pcc.make_pcc(1), 0.1, events=[1.0])      # not callable


# ---------------------------------------------------------------- pcc.static on the floors' load path
def reference_static(model, force, moment, grav, steps):
    """An independent path: SciPy's Levenberg-Marquardt on the gradient, step by step from zero."""
    from scipy.optimize import root
    q = np.zeros(model.n)
    for lam in np.arange(1, steps + 1) / steps:
        loads = ((lam * force[0], lam * force[1]), lam * moment, lam * grav)
        q = root(lambda z: pcc.static_gradient(model, z, *loads), q, method="lm",
                 options={"xtol": 1e-15, "ftol": 1e-15}).x
    return q


def test_static_on_the_load_path_matches_an_independent_solver():
    """Hybrid Newton from the previous equilibrium lands where Levenberg-Marquardt does."""
    model = pcc.make_pcc(3)
    loads = dict(force=(0.8, -2.5), moment=0.4, grav=1.5, steps=3)
    q_old, q_new = reference_static(model, **loads), pcc.static(model, **loads)
    assert np.allclose(q_new, q_old, rtol=0, atol=1e-11)
    g = pcc.static_gradient(model, q_new, loads["force"], loads["moment"], loads["grav"])
    assert np.abs(g).max() < 1e-9 * max(model.EI / model.L, 2.5 * model.L)


def test_static_falls_back_to_bfgs_where_hybrid_newton_fails(monkeypatch):
    model = pcc.make_pcc(4)
    loads = dict(force=(0.0, -16.5), steps=42)
    q = pcc.static(model, **loads)
    calls, real_root = [], pcc.root

    def failing_root(f, x, **kw):       # the first try of each step misses, the polish works
        calls.append(1)
        if len(calls) % 2:
            return type("R", (), {"x": np.asarray(x) + 1.0})()
        return real_root(f, x, **kw)

    monkeypatch.setattr(pcc, "root", failing_root)
    q_bfgs = pcc.static(model, **loads)
    assert len(calls) == 2 * loads["steps"]            # each step: the try, then the polish
    assert np.allclose(q_bfgs, q, rtol=0, atol=1e-8)


def test_static_failure_is_a_solve_error_naming_the_load_step(monkeypatch):
    monkeypatch.setattr(pcc, "root", lambda f, x, **kw: type("R", (), {"x": x + 1.0})())
    monkeypatch.setattr(pcc, "minimize", lambda f, x, **kw: type(
        "R", (), {"x": x + 1.0, "nit": 7, "message": "forced"})())
    with pytest.raises(SolveError, match=r"^pcc\.static: load step 1/4 \(λ = 0\.25\), "
                                         r"iteration 7, .*BFGS: forced") as ei:
        pcc.static(pcc.make_pcc(2), moment=1.0, steps=4)
    assert ei.value.step == 1 and ei.value.relative > 1e-9


def test_static_refuses_the_straight_saddle_past_buckling_and_follows_an_imperfection():
    """Axial compression F past the cantilever's buckling load pi^2 EI / (4 L^2): the straight
    arm is an equilibrium by symmetry but a saddle.  A small transverse load picks the
    buckled branch, a minimum whose tip is well off the axis."""
    model = pcc.make_pcc(3)
    F = 1.2 * np.pi ** 2 / 4
    with pytest.raises(SolveError, match=r"load step 1/1.*not positive definite") as ei:
        pcc.static(model, force=(-F, 0.0), steps=1)
    assert ei.value.reason == "unstable equilibrium"
    assert np.allclose(pcc.static(model, force=(-0.8 * np.pi ** 2 / 4, 0.0), steps=1), 0.0)
    q = pcc.static(model, force=(-F, 1e-3), steps=5)
    assert pcc.tip(model, q)[1] > 0.2 * model.L                   # buckled, towards the load


@pytest.mark.parametrize("EI", [1e-150, 1e150])
def test_extreme_but_legal_stiffness_gives_the_scaled_answer(EI):
    """A pure tip moment M bends every segment by M ell / EI, whatever the scale of EI."""
    q = pcc.static(pcc.make_pcc(3, EI=EI), moment=0.6 * EI, steps=1)
    assert np.allclose(q, 0.2, rtol=1e-9)
    assert np.allclose(pcc.frequencies(2, EI=EI) / np.sqrt(EI), pcc.frequencies(2), rtol=1e-12)
