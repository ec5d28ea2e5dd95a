"""The compiled kernels (lib.kernels) agree with the readable NumPy code to round-off,
and the switch really switches (no timings here: speed is measured by ``make bench``)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

from lib import integrate, kernels, pcc, rod, rod3d as R3
from lib.kernels import banded as B

ROOT = Path(__file__).resolve().parents[1]
LOAD2 = (0.4, -1.3, 0.7)
LOAD3 = np.array([0.3, -0.2, 0.5, 0.4, -0.3, 0.2])


def _planar_state(r, seed, big=True):
    rng = np.random.default_rng(seed)
    q = rod.straight(r)
    q[0::3] += (0.5 if big else 1e-3) * rng.standard_normal(r.N)    # rotations
    q[1::3] += 0.2 * r.ell * rng.standard_normal(r.N)
    q[2::3] += 0.3 * r.ell * rng.standard_normal(r.N)
    return q


def _spatial_state(m, seed, scale):
    rng = np.random.default_rng(seed)
    return R3.retract(m, R3.straight(m), scale * rng.normal(size=m.ndof))


def _close(a, b, rtol, atol=0.0):
    """max |a - b| <= rtol max |b| + atol (round-off relative to the largest entry)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    scale = np.abs(b).max()
    assert np.abs(a - b).max() <= rtol * scale + atol, (np.abs(a - b).max(), scale)


def _floor(model):
    """Round-off of a force: the stiff stretch and shear terms cancel to eps (EA + kGA)."""
    return 64 * np.finfo(float).eps * (model.EA + model.kGA)


# --------------------------------------------------------------------------------------
# the switch
# --------------------------------------------------------------------------------------
def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=e, capture_output=True,
                          text=True)


def test_environment_switch_turns_every_kernel_off_and_numba_is_never_imported():
    code = ("import sys, numpy as np\n"
            "from lib import kernels, rod, rod3d, integrate\n"
            "r = rod.make_rod(5); q = rod.straight(r)\n"
            "rod.gradient(r, q); rod.energy(r, q); rod.banded_hessian(r, q)\n"
            "rod.verlet(r, q, 0 * q, 1e-4, 3)\n"
            "integrate.newmark_step(q, 0 * q, 0 * q, 1e-3, rod.force(r), rod.mass(r))\n"
            "m = rod3d.make_rod3d(3); z = np.zeros((3, 3)); s = rod3d.straight(m)\n"
            "rod3d.gradient(m, s); rod3d.lie_verlet(m, s, z, z, 1e-4, 3)\n"
            "from lib import pcc; pcc.accel(pcc.make_pcc(2), [0.1, 0.2], [0.0, 1.0], 1.0)\n"
            "print(kernels.enabled(), 'numba' in sys.modules)\n")
    off = _run(code, LIB_KERNELS="0")
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["False", "False"]
    on = _run(code, LIB_KERNELS="1")
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["True", "True"]


def test_environment_switch_rejects_an_unknown_value():
    out = _run("import lib.kernels", LIB_KERNELS="maybe")
    assert out.returncode != 0 and "LIB_KERNELS" in out.stderr


def _trap(monkeypatch, module, names, calls):
    """Replace compiled functions by traps that record their calls in ``calls``."""
    for name in names:
        def trap(*args, _name=name):
            calls.append(_name)
            raise RuntimeError(f"kernel {_name} called")
        monkeypatch.setattr(module, name, trap)


def test_keyword_and_context_manager_select_the_numpy_path(monkeypatch):
    r = rod.make_rod(4)
    q = _planar_state(r, 1)
    m = R3.make_rod3d(3)
    s = _spatial_state(m, 1, 0.2)
    z = np.zeros((3, 3))
    kernels.planar, kernels.spatial                     # noqa: B018  (import them)
    calls = []
    _trap(monkeypatch, kernels.planar,
          ["gradient", "energy", "hessian_banded", "force", "verlet_run", "first_order"],
          calls)
    _trap(monkeypatch, kernels.spatial, ["gradient", "lie_verlet_run"], calls)
    with kernels.disabled():
        assert not kernels.enabled()
        rod.gradient(r, q), rod.energy(r, q), rod.banded_hessian(r, q), rod.force(r)(q)
        rod.verlet(r, q, 0 * q, 1e-4, 2), rod.first_order(r)(0.0, np.r_[q, q])
        R3.gradient(m, s), R3.lie_verlet(m, s, z, z, 1e-4, 2)
        R3.accelerations(m, s, z, z)
    rod.gradient(r, q, kernels=False), rod.energy(r, q, kernels=False)
    rod.verlet(r, q, 0 * q, 1e-4, 2, kernels=False), rod.force(r, kernels=False)(q)
    rod.first_order(r, kernels=False)(0.0, np.r_[q, q])
    R3.gradient(m, s, kernels=False), R3.lie_verlet(m, s, z, z, 1e-4, 2, kernels=False)
    assert calls == []
    # and the default (switch on) does reach the compiled code
    assert kernels.enabled()
    for f in (lambda: rod.gradient(r, q), lambda: rod.energy(r, q),
              lambda: rod.banded_hessian(r, q), lambda: rod.force(r)(q),
              lambda: rod.verlet(r, q, 0 * q, 1e-4, 2),
              lambda: rod.first_order(r)(0.0, np.r_[q, q]), lambda: R3.gradient(m, s),
              lambda: R3.lie_verlet(m, s, z, z, 1e-4, 2)):
        with pytest.raises(RuntimeError, match="kernel"):
            f()
    assert calls == ["gradient", "energy", "hessian_banded", "force", "verlet_run",
                     "first_order", "gradient", "lie_verlet_run"]


def test_switch_rejects_bad_values():
    with pytest.raises(ValueError, match="kernels"):
        kernels.use("yes")
    with pytest.raises(ValueError, match="kernels"):
        rod.gradient(rod.make_rod(2), rod.straight(rod.make_rod(2)), kernels=1)
    with pytest.raises(ValueError, match="flag"):
        kernels.set_enabled(None)
    before = kernels.enabled()
    with kernels.disabled():
        pass
    assert kernels.enabled() == before


# --------------------------------------------------------------------------------------
# planar rod: energy, gradient, banded Hessian
# --------------------------------------------------------------------------------------
PLANAR = [(1, 0.04, 0.5), (2, 0.1, 0.3), (7, 0.2, 0.0), (40, 0.04, 0.5), (160, 0.002, 0.5)]


@pytest.mark.parametrize("N, r_over_L, nu", PLANAR)
@pytest.mark.parametrize("big", [True, False])
def test_planar_energy_and_gradient_equal_numpy(N, r_over_L, nu, big):
    r = rod.make_rod(N, r_over_L=r_over_L, nu=nu, L=1.7, EI=2.3, rhoA=0.8)
    q = _planar_state(r, N, big)
    for load, grav in ((None, 0.0), (LOAD2, 2.1)):
        g_np = rod.gradient(r, q, load, grav, kernels=False)
        _close(rod.gradient(r, q, load, grav, kernels=True), g_np, 1e-13, _floor(r))
        E_np = rod.energy(r, q, load, grav, kernels=False)
        E_k = rod.energy(r, q, load, grav, kernels=True)
        assert abs(E_k - E_np) <= 1e-13 * max(abs(E_np), r.EA * r.L * 1e-6)


@pytest.mark.parametrize("N, r_over_L, nu", PLANAR)
def test_planar_banded_hessian_equals_the_sparse_hessian(N, r_over_L, nu):
    r = rod.make_rod(N, r_over_L=r_over_L, nu=nu, L=0.9, EI=1.5, rhoA=1.2)
    q = _planar_state(r, 3 + N)
    H = rod.hessian(r, q).toarray()
    Hk = rod.banded_hessian(r, q, kernels=True)
    Hn = rod.banded_hessian(r, q, kernels=False)
    assert Hk.u == rod.BANDWIDTH == 4
    _close(Hk.toarray(), H, 1e-13)
    _close(Hn.toarray(), H, 1e-13)


def test_planar_hessian_half_bandwidth_is_four():
    # element e couples phi_e (3e) with x_e, y_e (3e-2, 3e-1): |i - j| <= 4, attained
    r = rod.make_rod(6)
    H = rod.hessian(r, _planar_state(r, 2)).tocoo()
    width = np.abs(H.row - H.col)[np.abs(H.data) > 0]
    assert width.max() == 4


def test_force_matches_gradient_and_hessian_and_validates():
    r = rod.make_rod(9, r_over_L=0.1)
    q = _planar_state(r, 5)
    for kern in (True, False):
        g, K = rod.force(r, LOAD2, 0.7, kernels=kern)(q)
        _close(g, rod.gradient(r, q, LOAD2, 0.7, kernels=False), 1e-13)
        _close(K.toarray(), rod.hessian(r, q).toarray(), 1e-13)
    with pytest.raises(ValueError, match="load"):
        rod.force(r, (1.0, np.nan, 0.0))
    with pytest.raises(ValueError, match="q"):
        rod.force(r)(np.zeros(5))


def test_first_order_is_the_concatenated_acceleration_and_validates():
    r = rod.make_rod(9, r_over_L=0.1)
    q = _planar_state(r, 5)
    y = np.r_[q, np.linspace(-1.0, 1.0, q.size)]
    m = rod.mass(r)
    want = np.concatenate([y[q.size:], -rod.gradient(r, q, LOAD2, 0.7, kernels=False) / m])
    for kern in (True, False):
        got = rod.first_order(r, LOAD2, 0.7, kernels=kern)(0.3, y)
        assert np.array_equal(got, want)               # the same operations, bit for bit
        assert np.array_equal(rod.first_order(r, LOAD2, 0.7, kernels=kern)(0.0, list(y)), want)
    with pytest.raises(ValueError, match="load"):
        rod.first_order(r, (1.0, np.nan, 0.0))
    with pytest.raises(ValueError, match="grav"):
        rod.first_order(r, grav="1")
    with pytest.raises(ValueError, match="y"):
        rod.first_order(r)(0.0, q)                      # q only, no velocities
    with pytest.raises(ValueError, match="kernels"):
        rod.first_order(r, kernels="yes")


# --------------------------------------------------------------------------------------
# banded matrices
# --------------------------------------------------------------------------------------
def _random_banded(n, u, seed, shift):
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    for k in range(min(u, n - 1) + 1):
        d = rng.standard_normal(n - k)
        A += np.diag(d, k) + (np.diag(d, -k) if k else 0)
    A += shift * np.eye(n)
    ab = np.zeros((u + 1, n))
    for k in range(min(u, n - 1) + 1):
        ab[u - k, k:] = np.diag(A, k)
    return A, B.SymmetricBanded(ab)


@pytest.mark.parametrize("n, u", [(1, 0), (5, 2), (30, 4), (3, 4)])
def test_symmetric_banded_algebra_matches_dense(n, u):
    A, Ab = _random_banded(n, u, n + u, shift=3.0 * (u + 1))
    x = np.arange(1.0, n + 1)
    assert np.array_equal(Ab.toarray(), A)
    _close(Ab @ x, A @ x, 1e-14)                          # compiled (bandops.sym_matvec)
    with kernels.disabled():
        _close(Ab @ x, A @ x, 1e-14)                      # NumPy
    _close((2.5 * Ab).toarray(), 2.5 * A, 1e-15)
    _close(Ab.plus_diagonal(np.arange(n)).toarray(), A + np.diag(np.arange(n)), 1e-15)
    _close((Ab + Ab).toarray(), 2 * A, 1e-15)
    _close(Ab.solve(A @ x), x, 1e-12)                     # positive definite: Cholesky


def test_symmetric_banded_solves_indefinite_and_flags_singular():
    A, Ab = _random_banded(20, 3, 7, shift=0.0)           # indefinite: banded LU
    assert np.linalg.eigvalsh(A).min() < 0 < np.linalg.eigvalsh(A).max()
    x = np.linspace(-1, 2, 20)
    _close(Ab.solve(A @ x), np.linalg.solve(A, A @ x), 1e-10)
    S = B.SymmetricBanded(np.array([[0.0, 1.0], [1.0, 1.0]]))   # [[1, 1], [1, 1]]
    with pytest.raises(sla.LinAlgError):
        S.solve(np.ones(2))
    with pytest.raises(sla.LinAlgError):
        B.SymmetricBanded(np.array([[0.0, np.nan], [1.0, 1.0]])).solve(np.ones(2))
    with pytest.raises(ValueError, match="ab"):
        B.SymmetricBanded(np.ones(3))


def test_banded_rank_one_solves_by_sherman_morrison():
    A, Ab = _random_banded(25, 4, 3, shift=12.0)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(25), rng.standard_normal(25)
    J = Ab.plus_outer(a, b)
    Jd = A + np.outer(a, b)
    assert np.allclose(J.toarray(), Jd, rtol=0, atol=1e-14)
    r = rng.standard_normal(25)
    _close(J.solve(r), np.linalg.solve(Jd, r), 1e-11)
    _close(J @ r, Jd @ r, 1e-14)
    # singular sum: b = -A^{-1}-direction chosen so that 1 + b . A^{-1} a = 0
    z = np.linalg.solve(A, a)
    bad = -z / (z @ z)
    with pytest.raises(sla.LinAlgError, match="singular"):
        Ab.plus_outer(a, bad).solve(r)


# --------------------------------------------------------------------------------------
# planar rod: trajectories
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("N", [3, 20, 80])
def test_planar_verlet_run_equals_the_numpy_loop(N):
    r = rod.make_rod(N)
    q0 = _planar_state(r, N, big=False)
    v0 = np.random.default_rng(N).standard_normal(r.ndof) * 0.1
    dt = 0.9 * integrate.critical_step(rod.frequencies(r)[-1])
    a = rod.verlet(r, q0, v0, dt, 2000, LOAD2, 0.8, every=7, kernels=True)
    b = rod.verlet(r, q0, v0, dt, 2000, LOAD2, 0.8, every=7, kernels=False)
    assert np.array_equal(a.steps, b.steps) and a.steps[-1] == 2000
    assert np.array_equal(a.t, b.t)
    for x, y in ((a.q, b.q), (a.v, b.v), (a.a, b.a)):
        _close(x, y, 1e-12)


def test_planar_verlet_run_reports_the_step_it_blew_up_at():
    r = rod.make_rod(10)
    q0 = _planar_state(r, 1, big=False)
    dt = 1.5 * integrate.critical_step(rod.frequencies(r)[-1])
    msgs = []
    for kern in (True, False):
        with pytest.raises(FloatingPointError) as err, np.errstate(all="ignore"):
            rod.verlet(r, q0, np.zeros(r.ndof), dt, 100000, kernels=kern)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "step" in msgs[0]


def test_planar_verlet_rejects_bad_input():
    r = rod.make_rod(3)
    q = rod.straight(r)
    with pytest.raises(ValueError, match="v0"):
        rod.verlet(r, q, np.zeros(4), 1e-3, 2)
    with pytest.raises(ValueError, match="dt"):
        rod.verlet(r, q, 0 * q, -1.0, 2)
    with pytest.raises(ValueError, match="nsteps"):
        rod.verlet(r, q, 0 * q, 1e-3, 2.5)
    with pytest.raises(ValueError, match="every"):
        rod.verlet(r, q, 0 * q, 1e-3, 2, every=0)


def _implicit_runs(r, force, gradient, scheme, nsteps=6, dt=0.01):
    q0 = rod.static(r, (0.0, -2.0, 0.0))
    v0 = np.zeros(r.ndof)
    m = rod.mass(r)
    E = lambda q: rod.energy(r, q, kernels=False)
    if scheme == "newmark":
        return integrate.newmark(q0, v0, dt, nsteps, force, m)
    if scheme == "generalized-alpha":
        return integrate.generalized_alpha(q0, v0, dt, nsteps, force, m,
                                           integrate.generalized_alpha_parameters(0.8))
    return integrate.discrete_gradient(q0, v0, dt, nsteps, E, force, m, gradient=gradient)


@pytest.mark.parametrize("N", [5, 40])
@pytest.mark.parametrize("scheme", ["newmark", "generalized-alpha", "discrete-gradient"])
def test_implicit_steps_with_the_banded_tangent_equal_the_sparse_ones(N, scheme):
    r = rod.make_rod(N)
    sparse = lambda q: (rod.gradient(r, q, kernels=False), rod.hessian(r, q))
    dense = lambda q: (rod.gradient(r, q, kernels=False), rod.hessian(r, q).toarray())
    grad = lambda q: rod.gradient(r, q, kernels=False)
    ref = _implicit_runs(r, sparse, None, scheme)
    for kern in (True, False):
        got = _implicit_runs(r, rod.force(r, kernels=kern), None, scheme)
        _close(got.q, ref.q, 1e-11)
        _close(got.v, ref.v, 1e-9)
        # linearly converging (discrete gradient without its rank-one term): round-off
        # may move each step's last iteration across the tolerance (per step 0 or 1; totals
        # 25 and 28 over the 6 steps on an AMD EPYC)
        slack = 6 if scheme == "discrete-gradient" else 0
        assert abs(got.info["iterations"] - ref.info["iterations"]) <= slack
    if scheme == "discrete-gradient":                    # the exact (rank-one) tangent
        ref = _implicit_runs(r, dense, grad, scheme)
        got = _implicit_runs(r, rod.force(r), grad, scheme)
        _close(got.q, ref.q, 1e-11)
        assert abs(got.info["iterations"] - ref.info["iterations"]) <= 1
        lin = _implicit_runs(r, rod.force(r), None, scheme)
        assert got.info["iterations"] < lin.info["iterations"]   # quadratic, not linear


def test_implicit_step_with_banded_tangent_and_sparse_damping_still_solves():
    from lib import damping

    r = rod.make_rod(8)
    kv = damping.kelvin_voigt(r, 0.01)
    q0 = rod.static(r, (0.0, -1.0, 0.0))
    m = rod.mass(r)
    damp = lambda q, v: (damping.damping_force(kv, q, v), damping.damping_matrix(kv, q))
    E = lambda q: rod.energy(r, q)
    sparse = lambda q: (rod.gradient(r, q), rod.hessian(r, q))
    a = integrate.discrete_gradient(q0, 0 * q0, 0.01, 4, E, rod.force(r), m, damping=damp)
    b = integrate.discrete_gradient(q0, 0 * q0, 0.01, 4, E, sparse, m, damping=damp)
    _close(a.q, b.q, 1e-11)


# the compiled Newmark run (rod.newmark) against integrate.newmark with the NumPy force
def _newmark_reference(r, q0, v0, dt, nsteps, load=None, grav=0.0, every=1, stop_energy=None,
                       **kw):
    """integrate.newmark on rod.force(kernels=False), with the energy bound as a callback
    (the energy-stability scan of the energy chapter); returns (trajectory, stop step)."""
    m = rod.mass(r)
    stopped = []

    def watch(n, t, q, v, a):
        if rod.energy(r, q, load, grav, kernels=False) + 0.5 * float(v @ (m * v)) > stop_energy:
            stopped.append(n)
            return False

    tr = integrate.newmark(q0, v0, dt, nsteps, rod.force(r, load, grav, kernels=False), m,
                           every=every, callback=None if stop_energy is None else watch, **kw)
    return tr, (stopped[0] if stopped else None)


def _same_run(a, b, rtol=1e-12):
    assert np.array_equal(a.steps, b.steps) and np.array_equal(a.t, b.t)
    _close(a.q, b.q, rtol)
    _close(a.v, b.v, 100 * rtol)       # v from (q_1 - q - dt v) / (beta dt^2): cancellation
    _close(a.a, b.a, 1e3 * rtol, atol=1e3 * rtol * np.abs(b.q).max() / (b.t[1] - b.t[0]) ** 2)
    for key in ("iterations", "backtracks", "halved_steps", "substeps"):
        assert a.info[key] == b.info[key], key


@pytest.mark.parametrize("N, load, grav, every, predictor, dt",
                         [(3, LOAD2, 0.8, 7, "displacement", 0.02),
                          (10, None, 0.8, 1, "velocity", 0.015),
                          (10, LOAD2, 0.0, 1, "displacement", 0.05),
                          (25, LOAD2, 0.0, 5, "acceleration", 0.01)])
def test_planar_newmark_run_equals_integrate_newmark(N, load, grav, every, predictor, dt):
    # 300 steps from a deflected shape with random nodal velocities, dt up to 50 x
    # Verlet's critical step; the compiled run differs from the NumPy one by about what a
    # 1e-16 relative change of q0 makes of the NumPy run itself (measured 1e-14 in q).
    # Not dt = 0.02 with the velocity predictor: there plain Newton fails at step 92 and
    # the line search's root depends on the CPU's round-off (on an AMD EPYC the compiled
    # run took a spurious root with strain energy 79 instead of 0.03)
    r = rod.make_rod(N)
    q0 = rod.static(r, (0.0, -1.0, 0.5))
    v0 = np.random.default_rng(N).standard_normal(r.ndof) * 0.1
    v0[0::3] = 0.0
    ref, _ = _newmark_reference(r, q0, v0, dt, 300, load, grav, every, predictor=predictor)
    for kern in (True, False):
        tr = rod.newmark(r, q0, v0, dt, 300, load, grav, every, predictor=predictor,
                         kernels=kern)
        _same_run(tr, ref)
        assert tr.steps[-1] == 300 and tr.info["stopped"] is None


def test_planar_newmark_run_takes_the_line_search_as_integrate_does():
    # from a large static deflection the velocity predictor overshoots: plain Newton
    # fails at some steps and the Armijo line search takes over (the same steps and
    # halvings; with the acceleration predictor over 100 steps so many steps need it
    # that round-off moves a few of them: not a test of the kernel)
    r = rod.make_rod(10)
    q0 = rod.static(r, (0.0, -2.0, 0.0))
    ref, _ = _newmark_reference(r, q0, 0 * q0, 0.05, 100, predictor="velocity")
    assert ref.info["backtracks"] > 0
    _same_run(rod.newmark(r, q0, 0 * q0, 0.05, 100, predictor="velocity", kernels=True), ref)


def test_planar_newmark_run_stops_at_the_step_the_energy_bound_is_crossed():
    # the energy chapter's stability scan: a 10-element rod, static tip-load shape,
    # steps around its critical Newmark step (0.099 grows, 0.116 and 0.120 stay bounded)
    r = rod.make_rod(10, 0.04)
    q0 = rod.static(r, (0.0, -0.75, 0.0))
    v0 = np.zeros(r.ndof)
    bound = 1.1 * rod.energy(r, q0)
    window = 3 * 2 * np.pi / rod.frequencies(r, 1)[0]
    stops = []
    for dt in (0.099, 0.116, 0.120, 0.19):
        n = round(window / dt)
        ref, stop = _newmark_reference(r, q0, v0, dt, n, stop_energy=bound)
        for kern in (True, False):
            tr = rod.newmark(r, q0, v0, dt, n, stop_energy=bound, kernels=kern)
            _same_run(tr, ref)
            assert tr.info["stopped"] == stop
        stops.append(stop)
    assert stops[0] is not None and stops[0] < round(window / 0.099)
    assert stops[1] is None and stops[2] is None and stops[3] is not None


@pytest.mark.parametrize("dt, predictor, kick, seed, reason",
                         [(0.1, "displacement", 0.0, 0, "maxiter"),
                          (0.05, "velocity", 10.0, 0, "maxiter"),
                          (0.05, "displacement", 10.0, 1, "line search")])
def test_planar_newmark_run_fails_where_integrate_newmark_does(dt, predictor, kick, seed, reason):
    r = rod.make_rod(10)
    q0 = rod.static(r, (0.0, -2.0, 0.0))
    v0 = kick * np.random.default_rng(seed).standard_normal(r.ndof)
    errs = []
    with pytest.raises(integrate.NewtonFailure) as ref:
        _newmark_reference(r, q0, v0, dt, 100, predictor=predictor)
    for kern in (True, False):
        with pytest.raises(integrate.NewtonFailure) as err:
            rod.newmark(r, q0, v0, dt, 100, predictor=predictor, kernels=kern)
        errs.append(err.value)
    assert ref.value.reason == reason
    for e in errs:
        assert (e.step, e.time, e.reason, e.iteration, e.where) == (
            ref.value.step, ref.value.time, ref.value.reason, ref.value.iteration,
            ref.value.where)
        # the residual of a Newton iteration that does not converge amplifies round-off
        assert e.residual == pytest.approx(ref.value.residual, rel=1e-4)


def test_planar_newmark_run_switch_selects_the_numpy_path(monkeypatch):
    r = rod.make_rod(4)
    q = rod.straight(r)
    calls = []
    kernels.planar                                       # noqa: B018  (import it)
    _trap(monkeypatch, kernels.planar, ["newmark_run"], calls)
    with kernels.disabled():
        rod.newmark(r, q, 0 * q, 1e-2, 2, (0.0, -1.0, 0.0))
    rod.newmark(r, q, 0 * q, 1e-2, 2, (0.0, -1.0, 0.0), kernels=False)
    assert calls == []
    with pytest.raises(RuntimeError, match="kernel"):
        rod.newmark(r, q, 0 * q, 1e-2, 2, (0.0, -1.0, 0.0))
    assert calls == ["newmark_run"]


# --------------------------------------------------------------------------------------
# 3-D rod: forces and torques
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("N", [1, 2, 7, 40, 160])
@pytest.mark.parametrize("scale", [0.6, 0.05, 1e-5])      # atan2 / tan, series, tiny angles
def test_spatial_gradient_equals_numpy(N, scale):
    m = R3.make_rod3d(N, r_over_L=0.1, nu=0.3)
    s = _spatial_state(m, N, scale)
    for load, grav in ((None, 0.0), (LOAD3[:3], 0.0), (LOAD3, 1.3)):
        g_np = R3.gradient(m, s, load, grav, kernels=False)
        _close(R3.gradient(m, s, load, grav, kernels=True), g_np, 1e-13, _floor(m))
    L = R3.check_load(LOAD3[:3])
    _close(R3._grad_cf(m, s.x, s.Q, L, 0.4, kernels=True),
           R3._grad_cf(m, s.x, s.Q, L, 0.4, kernels=False), 1e-13, _floor(m))


def test_spatial_gradient_kernel_is_the_derivative_of_the_energy():
    # independent of the NumPy gradient: central differences of the energy
    m = R3.make_rod3d(4, r_over_L=0.2)
    s = _spatial_state(m, 8, 0.4)
    g = R3.gradient(m, s, LOAD3, 0.7, kernels=True)
    h = 1e-6
    E = lambda d: R3.energy(m, R3.retract(m, s, d), LOAD3, grav=0.7)
    fd = np.array([(E(h * e) - E(-h * e)) / (2 * h) for e in np.eye(m.ndof)])
    assert np.abs(g - fd).max() <= 1e-8 * np.abs(g).max()


# --------------------------------------------------------------------------------------
# 3-D rod: Lie-group Verlet trajectories
# --------------------------------------------------------------------------------------
def _observe(st, v, w):
    return np.concatenate([st.x.ravel(), st.Q.ravel(), v.ravel(), w.ravel()])


@pytest.mark.parametrize("N", [2, 20, 80])
@pytest.mark.parametrize("gyro, rigid", [("explicit", False), ("explicit", True),
                                         ("midpoint", False)])
def test_lie_verlet_kernel_equals_the_numpy_loop(N, gyro, rigid):
    m = R3.make_rod3d(N)
    dt = 0.5 * 2.0 / R3.omega_max_estimate(m)["max"]
    rng = np.random.default_rng(N)
    s0 = R3.straight(m)
    v0, w0 = 0.1 * rng.normal(size=(N, 3)), 0.5 * rng.normal(size=(N, 3))
    if rigid:
        w0[0] = 0.0
    kw = dict(load=LOAD3, grav=0.5, every=7, observe=_observe, gyro=gyro, rigid_clamp=rigid)
    sa, va, wa, ra = R3.lie_verlet(m, s0, v0, w0, dt, 500, kernels=True, **kw)
    sb, vb, wb, rb = R3.lie_verlet(m, s0, v0, w0, dt, 500, kernels=False, **kw)
    assert len(ra) == len(rb) == 1 + 500 // 7
    # differences start at 1 ulp (libm against NumPy's sin, cos, atan2; the kernel's
    # series) and grow with the motion's sensitivity.  A position round-off eps L
    # excites the highest mode, whose velocity is omega_max eps L: the node velocities
    # carry that, accumulated over the steps (the NumPy path itself, restarted from a
    # velocity one ulp away, moves as far: 2e-11 after 500 steps at N = 80)
    ra, rb = np.array(ra), np.array(rb)
    x, Q, v, w = np.split(np.arange(ra.shape[1]), np.cumsum([3 * N, 4 * N, 3 * N]))
    dv = 16 * np.finfo(float).eps * m.L * R3.omega_max_estimate(m)["max"] * np.sqrt(500)
    _close(ra[:, x], rb[:, x], 1e-12)
    _close(ra[:, Q], rb[:, Q], 1e-12)
    _close(ra[:, w], rb[:, w], 1e-11)
    _close(ra[:, v], rb[:, v], 0.0, dv)
    for a, b, tol in ((sa.x, sb.x, 1e-12), (sa.Q, sb.Q, 1e-12), (wa, wb, 1e-11)):
        _close(a, b, tol)
    _close(va, vb, 0.0, dv)


def test_lie_verlet_kernel_with_fast_spin_in_chunks_equals_numpy(monkeypatch):
    # |dt w| above the series threshold of the drift, and sample buffers cut in chunks
    N = 6
    m = R3.make_rod3d(N)
    dt = 0.5 * 2.0 / R3.omega_max_estimate(m)["max"]
    w0 = np.zeros((N, 3))
    w0[:, 0] = 0.06 / dt                                   # twist spin, |dt w| = 0.06
    monkeypatch.setattr(R3, "_SAMPLE_BYTES", 3 * 13 * 8 * N)   # three samples per call
    kw = dict(load=LOAD3[:3], every=3, observe=_observe)
    ra = R3.lie_verlet(m, R3.straight(m), np.zeros((N, 3)), w0, dt, 100, kernels=True, **kw)[3]
    rb = R3.lie_verlet(m, R3.straight(m), np.zeros((N, 3)), w0, dt, 100, kernels=False, **kw)[3]
    assert len(ra) == len(rb) == 34
    _close(np.array(ra), np.array(rb), 1e-12)


def test_lie_verlet_kernel_blows_up_where_numpy_does():
    # past the stability limit the spin grows like w^2 per step (the gyroscopic term),
    # which amplifies round-off: the two paths overflow within a step or two of each other
    m = R3.make_rod3d(8)
    dt = 3.0 * 2.0 / R3.omega_max_estimate(m)["max"]
    s0 = _spatial_state(m, 2, 0.01)
    z = np.zeros((8, 3))
    steps = []
    for kern in (True, False):
        with pytest.raises(FloatingPointError, match=r"blew up at step \d+ \(t = ") as err:
            R3.lie_verlet(m, s0, z, z, dt, 100000, kernels=kern)
        steps.append(int(str(err.value).split("step ")[1].split()[0]))
    assert abs(steps[0] - steps[1]) <= 2 and min(steps) > 5


def test_lie_verlet_rejects_velocities_of_the_wrong_shape():
    m = R3.make_rod3d(3)
    s = R3.straight(m)
    for kern in (True, False):
        with pytest.raises(ValueError, match="v must"):
            R3.lie_verlet(m, s, np.zeros(3), np.zeros((3, 3)), 1e-4, 2, kernels=kern)
        with pytest.raises(ValueError, match="w must"):
            R3.lie_verlet(m, s, np.zeros((3, 3)), np.zeros((2, 3)), 1e-4, 2, kernels=kern)


# --------------------------------------------------------------------------------------
# PCC (lib.kernels.pcc)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 4, 7])
@pytest.mark.parametrize("scale", [0.05, 1.0, 5.0])     # 5: the moments' recursion branch
@pytest.mark.parametrize("grav", [0.0, 3.0])
def test_pcc_accel_kernel_equals_numpy(n, scale, grav):
    rng = np.random.default_rng(n)
    m = pcc.make_pcc(n, EI=2.0, rhoA=0.7, L=1.3)
    for _ in range(3):
        q, qd = scale * rng.standard_normal(n), rng.standard_normal(n)
        a = pcc.accel(m, q, qd, grav, kernels=False)
        b = pcc.accel(m, q, qd, grav, kernels=True)
        assert np.abs(b - a).max() <= 1e-12 * np.abs(a).max()


def test_pcc_simulate_with_the_kernel_follows_the_numpy_trajectory():
    m = pcc.make_pcc(3)
    runs = [pcc.simulate(m, 0.5, q0=[0.3, -0.2, 0.1], grav=8.0, rtol=1e-10, atol=1e-11,
                         kernels=k) for k in (False, True)]
    assert abs(runs[0].t.size - runs[1].t.size) <= 2
    assert np.abs(runs[1].y[:, -1] - runs[0].y[:, -1]).max() < 1e-8


def test_pcc_switch_selects_the_numpy_path(monkeypatch):
    from lib.kernels import pcc as kpcc
    calls = []
    _trap(monkeypatch, kpcc, ["accel"], calls)
    m, q, qd = pcc.make_pcc(2), np.array([0.1, 0.2]), np.array([0.0, 1.0])
    with kernels.disabled():
        pcc.accel(m, q, qd), pcc.ode(m)(0.0, np.r_[q, qd])
    pcc.accel(m, q, qd, kernels=False)
    assert calls == []
    with pytest.raises(RuntimeError, match="kernel"):
        pcc.accel(m, q, qd)
    assert calls == ["accel"]
