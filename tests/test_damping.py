"""Tests of lib.damping: the Kelvin-Voigt rod and Rayleigh damping (issue 16).

Named for what they prove: the damping force is the velocity derivative of the
dissipation function (finite differences), the strain Jacobian is the
derivative of the strains, Kelvin-Voigt is tau K at the straight state, the
damped frequencies of the linear problems match omega sqrt(1 - zeta^2), the
energy of a damped discrete-gradient run falls by exactly the dissipation,
and the explicit limit with damping matches a leapfrog run.
"""
import numpy as np
import pytest
import scipy.linalg as sla

from lib import damping, fem, integrate, rod


@pytest.fixture(scope="module")
def bent():
    rd = rod.make_rod(5, 0.05)
    q = rod.static(rd, (0.3, -3.0, 0.5))
    return rd, q


def test_damping_force_is_velocity_gradient_of_dissipation_fd(bent):
    rd, q = bent
    kv = damping.kelvin_voigt(rd, 0.02, tau_shear=0.005, tau_bend=0.1)
    rng = np.random.default_rng(0)
    v = rng.standard_normal(q.size)
    f = damping.damping_force(kv, q, v)
    h = 1e-6
    fd = np.array([(damping.dissipation(kv, q, v + h * e) - damping.dissipation(kv, q, v - h * e))
                   / (2 * h) for e in np.eye(q.size)])
    assert np.abs(f - fd).max() <= 1e-7 * np.abs(f).max()
    # and the damping matrix is the velocity derivative of the force (exactly linear)
    C = damping.damping_matrix(kv, q).toarray()
    assert np.abs(C @ v - f).max() <= 1e-12 * np.abs(f).max()


def test_strain_jacobian_is_derivative_of_strains_fd(bent):
    rd, q = bent
    kv = damping.kelvin_voigt(rd, 1.0)
    B = damping.strain_jacobian(kv, q).toarray()
    h = 1e-7
    fd = np.array([(damping.strains(kv, q + h * e) - damping.strains(kv, q - h * e)).T.ravel()
                   / (2 * h) for e in np.eye(q.size)]).T
    assert np.abs(B - fd).max() < 1e-6


def test_strains_reproduce_rod_energy(bent):
    # Pi = sum ell/2 k strain^2 with the weights of the damping model (tau = 1)
    rd, q = bent
    kv = damping.kelvin_voigt(rd, 1.0)
    eps = damping.strains(kv, q).T.ravel()
    assert abs(0.5 * np.sum(kv.weights().T.ravel() * eps**2) - rod.energy(rd, q)) < 1e-12


def test_kelvin_voigt_is_tau_times_stiffness_at_straight_state():
    rd = rod.make_rod(8)
    q = rod.straight(rd)
    C = damping.damping_matrix(damping.kelvin_voigt(rd, 0.003), q).toarray()
    K = rod.hessian(rd, q).toarray()
    assert np.abs(C - 0.003 * K).max() <= 1e-12 * np.abs(K).max()


def test_damping_matrix_is_symmetric_positive_semidefinite(bent):
    rd, q = bent
    C = damping.damping_matrix(damping.kelvin_voigt(rd, 0.01, tau_bend=0.0), q).toarray()
    assert np.abs(C - C.T).max() == 0
    assert np.linalg.eigvalsh(C).min() > -1e-12 * np.abs(C).max()


def test_rod_kelvin_voigt_damped_frequencies_match_analytic():
    rd = rod.make_rod(6)
    q = rod.straight(rd)
    tau = 2e-3
    M, K = rod.mass(rd), rod.hessian(rd, q).toarray()
    C = damping.damping_matrix(damping.kelvin_voigt(rd, tau), q)
    omega = rod.frequencies(rd)
    zeta = damping.modal_damping_ratios(omega, beta=tau)
    assert zeta.min() < 0.01 and zeta.max() > 1          # light to overdamped
    lam = damping.quadratic_eigenvalues(M, C, K)
    under = zeta < 1
    wd = np.sort(lam.imag[lam.imag > 0])
    assert np.allclose(wd, damping.damped_frequencies(omega[under], zeta[under]), rtol=1e-9)
    # real parts of the underdamped pairs: -zeta omega
    re = np.sort(lam.real[lam.imag > 0])[::-1]
    assert np.allclose(re, np.sort(-zeta[under] * omega[under])[::-1], rtol=1e-8)


def test_fem_rayleigh_damped_frequencies_match_analytic():
    m = fem.cantilever(8, 1, "T3", slenderness=8.0)
    M, K = fem.condense(m, fem.mass(m)), fem.condense(m, fem.linear_stiffness(m))
    w2 = sla.eigh(K.toarray(), M.toarray(), eigvals_only=True)
    omega = np.sqrt(w2)
    a, b = damping.rayleigh_coefficients(omega[0], omega[3], 0.05, 0.3)
    C = fem.condense(m, damping.fem_rayleigh(m, a, b))
    zeta = damping.modal_damping_ratios(omega, a, b)
    lam = damping.quadratic_eigenvalues(M, C, K)
    under = zeta < 1
    wd = np.sort(lam.imag[lam.imag > 0])
    assert under.sum() < omega.size                      # the top modes are overdamped
    assert np.allclose(wd, np.sort(damping.damped_frequencies(omega[under], zeta[under])),
                       rtol=1e-8)
    assert np.allclose(zeta[[0, 3]], [0.05, 0.3])


def test_damped_discrete_gradient_loses_exactly_the_dissipated_energy(bent):
    rd, q0 = bent
    kv = damping.kelvin_voigt(rd, 0.01, tau_bend=0.05)
    M = rod.mass(rd)
    energy = lambda q: rod.energy(rd, q)
    force = lambda q: (rod.gradient(rd, q), rod.hessian(rd, q))
    damp = lambda q, v: (damping.damping_force(kv, q, v), damping.damping_matrix(kv, q))
    dt = 0.02
    tr = integrate.discrete_gradient(q0, np.zeros(q0.size), dt, 40, energy, force, M,
                                     damping=damp, tol=1e-12)
    H = rod.energy(rd, tr.q) + integrate.kinetic_energy(M, tr.v)
    lost = np.array([2 * dt * damping.dissipation(kv, 0.5 * (a + b), (b - a) / dt)
                     for a, b in zip(tr.q[:-1], tr.q[1:])])
    assert H[-1] < 0.9 * H[0]                            # it does damp
    assert np.abs(np.diff(H) + lost).max() <= 1e-9 * H[0]


@pytest.mark.parametrize("N", [1, 2, 5, 20])
def test_element_by_element_force_and_banded_matrix_equal_the_sparse_products(N):
    # damping_force and banded_damping_matrix sum the 3 x 6 element blocks of B; they are
    # B^T W B v and B^T W B from the sparse strain Jacobian, to round-off, at a bent state
    rd = rod.make_rod(N, 0.04)
    kv = damping.kelvin_voigt(rd, 0.01, tau_shear=0.02, tau_bend=0.03)
    rng = np.random.default_rng(N)
    q = rod.straight(rd) + 0.3 * rng.standard_normal(rd.ndof) * np.tile([1, rd.ell, rd.ell], N)
    v = rng.standard_normal(rd.ndof)
    B, W = damping.strain_jacobian(kv, q), kv.weights().T.ravel()
    f = B.T @ (W * (B @ v))
    assert np.abs(damping.damping_force(kv, q, v) - f).max() <= 1e-14 * np.abs(f).max()
    assert abs(damping.dissipation(kv, q, v) / (0.5 * np.sum(W * (B @ v) ** 2)) - 1) < 1e-14
    Cb = damping.banded_damping_matrix(kv, q)
    C = (B.T @ np.diag(W) @ B.toarray())
    assert Cb.u == 4                                    # the band of the rod's Hessian
    assert np.abs(Cb.toarray() - C).max() <= 1e-14 * np.abs(C).max()
    assert np.abs(Cb @ v - f).max() <= 1e-14 * np.abs(f).max()


def test_damped_discrete_gradient_with_banded_damping_keeps_the_sparse_trajectory(bent):
    # a banded C joins the banded tangent (rank-one term included): same steps, same
    # iterations as the dense-damping run, and the energy books still balance
    rd, q0 = bent
    kv = damping.kelvin_voigt(rd, 0.01, tau_bend=0.05)
    M = rod.mass(rd)
    energy = lambda q: rod.energy(rd, q)
    grad = lambda q: rod.gradient(rd, q)
    runs, its = {}, {}
    for name, mat in (("dense", lambda q: damping.damping_matrix(kv, q).toarray()),
                      ("banded", lambda q: damping.banded_damping_matrix(kv, q))):
        damp = lambda q, v, mat=mat: (damping.damping_force(kv, q, v), mat(q))
        runs[name] = integrate.discrete_gradient(q0, np.zeros(q0.size), 0.02, 40, energy,
                                                 rod.force(rd), M, damping=damp, tol=1e-12,
                                                 gradient=grad)
        its[name] = [integrate.discrete_gradient(
            a, b, 0.02, 1, energy, rod.force(rd), M, damping=damp, tol=1e-12,
            gradient=grad).info["iterations"] for a, b in zip(runs[name].q, runs[name].v)]
    assert np.abs(runs["banded"].q - runs["dense"].q).max() <= 1e-12
    # the same iterations step by step, up to round-off moving a step's last iteration
    # across the tolerance (totals 264 and 267 on an AMD EPYC)
    assert max(abs(a - b) for a, b in zip(its["banded"], its["dense"])) <= 1
    tr = runs["banded"]
    H = rod.energy(rd, tr.q) + integrate.kinetic_energy(M, tr.v)
    lost = np.array([2 * 0.02 * damping.dissipation(kv, 0.5 * (a + b), (b - a) / 0.02)
                     for a, b in zip(tr.q[:-1], tr.q[1:])])
    assert H[-1] < 0.9 * H[0] and np.abs(np.diff(H) + lost).max() <= 1e-9 * H[0]


def test_explicit_limit_with_kelvin_voigt_matches_leapfrog_runs():
    rd = rod.make_rod(4)
    q0 = rod.straight(rd)
    M = rod.mass(rd)
    tau = 2e-4
    kv = damping.kelvin_voigt(rd, tau)
    omega = rod.frequencies(rd)
    dtc = integrate.damped_critical_step(omega, damping.modal_damping_ratios(omega, beta=tau))
    assert dtc < 0.9 * integrate.critical_step(omega[-1])       # damping shrinks the limit
    acc = lambda q, v: -(rod.gradient(rd, q) + damping.damping_force(kv, q, v)) / M
    rng = np.random.default_rng(3)
    dq0 = 1e-6 * rng.standard_normal(q0.size)
    growth = {}
    for ratio in (0.97, 1.03):
        q, vh = q0 + dq0, np.zeros(q0.size)
        for _ in range(2000):
            q, vh = integrate.leapfrog_damped_step(q, vh, ratio * dtc, acc)
            growth[ratio] = np.abs(q - q0).max()
            if not growth[ratio] < 1e-2:          # blown up (or non-finite)
                growth[ratio] = np.inf
                break
    assert growth[0.97] < 2 * np.abs(dq0).max()    # bounded (and decaying)
    assert growth[1.03] == np.inf                   # blown up


def test_bad_input_raises_valueerror_naming_argument():
    rd = rod.make_rod(3)
    with pytest.raises(ValueError, match="tau"):
        damping.kelvin_voigt(rd, -1.0)
    with pytest.raises(ValueError, match="tau_bend"):
        damping.kelvin_voigt(rd, 1.0, tau_bend="x")
    with pytest.raises(ValueError, match="rod"):
        damping.kelvin_voigt("rod", 1.0)
    with pytest.raises(ValueError, match="q"):
        damping.strains(damping.kelvin_voigt(rd, 1.0), np.zeros(4))
    with pytest.raises(ValueError, match="omega1"):
        damping.rayleigh_coefficients(2.0, 1.0, 0.05)
    with pytest.raises(ValueError, match="alpha"):
        damping.rayleigh_matrix(np.ones(2), np.eye(2), -0.1, 0.0)


def test_extreme_frequencies_and_rayleigh_orders_are_exact():
    """Extreme but legal: omega from 1e-6 to 1e6, a sparse K with a lumped mass."""
    a, b = damping.rayleigh_coefficients(1e-6, 1e6, 0.02)
    assert np.allclose(damping.modal_damping_ratios([1e-6, 1e6], a, b), 0.02, rtol=1e-12)
    import scipy.sparse as sp
    K = sp.diags([2.0, 2.0, 2.0]).tocsr()
    C = damping.rayleigh_matrix([1.0, 2.0, 3.0], K, 0.5, 0.25)
    assert sp.issparse(C) and np.allclose(C.diagonal(), [1.0, 1.5, 2.0])
    with pytest.raises(ValueError, match="M must be of the order of K"):
        damping.rayleigh_matrix([1.0], np.eye(2), 0.1, 0.0)      # used to broadcast
    with pytest.raises(ValueError, match="alpha"):
        damping.modal_damping_ratios([1.0], alpha=-0.1)         # used to give zeta < 0
