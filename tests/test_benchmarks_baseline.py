"""The benchmark compares like with like: the loop baseline, the slice-based gradient
and the scikit-fem forms compute exactly what lib computes (no timings here)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import lib.fem as fem
import lib.rod as rod

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench  # noqa: E402
import loop_rod  # noqa: E402
import peers  # noqa: E402

CASES = [(1, 0.04, 0.5), (2, 0.04, 0.5), (7, 0.1, 0.3), (20, 0.04, 0.5), (33, 0.002, 0.0)]


def _state(r, seed):
    rng = np.random.default_rng(seed)
    q = rod.straight(r)
    q[0::3] += 0.5 * rng.standard_normal(r.N)            # large rotations
    q[1::3] += 0.2 * r.ell * rng.standard_normal(r.N)
    q[2::3] += 0.3 * r.ell * rng.standard_normal(r.N)
    return q


@pytest.mark.parametrize("N, r_over_L, nu", CASES)
def test_loop_energy_gradient_hessian_equal_lib(N, r_over_L, nu):
    r = rod.make_rod(N, r_over_L=r_over_L, nu=nu, L=1.7, EI=2.3, rhoA=0.8)
    q = _state(r, N)
    load, grav = (0.4, -1.3, 0.7), 2.1
    ql = q.tolist()
    E = rod.energy(r, q, load, grav)
    assert loop_rod.energy(r, ql, load, grav) == pytest.approx(E, rel=1e-12, abs=1e-12 * r.EA)
    g = rod.gradient(r, q, load, grav)
    np.testing.assert_allclose(loop_rod.gradient(r, ql, load, grav), g,
                               rtol=1e-12, atol=1e-12 * np.abs(g).max())
    H, Hl = rod.hessian(r, q), loop_rod.hessian(r, ql)
    assert Hl.shape == H.shape
    assert abs(Hl - H).max() <= 1e-12 * abs(H).max()


def test_loop_gradient_is_the_derivative_of_loop_energy():
    """Central differences of the loop energy reproduce the loop gradient (independent of lib)."""
    r = rod.make_rod(5, r_over_L=0.2)
    q = _state(r, 3)
    load, grav = (0.2, -0.5, 0.1), 1.0
    g = np.array(loop_rod.gradient(r, q.tolist(), load, grav))
    h = 1e-6
    fd = np.empty_like(g)
    for i in range(q.size):
        e = np.zeros_like(q)
        e[i] = h
        fd[i] = (loop_rod.energy(r, (q + e).tolist(), load, grav)
                 - loop_rod.energy(r, (q - e).tolist(), load, grav)) / (2 * h)
    np.testing.assert_allclose(fd, g, rtol=1e-6, atol=1e-7 * np.abs(g).max())


@pytest.mark.parametrize("N, r_over_L, nu", CASES)
def test_slice_gradient_equals_lib(N, r_over_L, nu):
    r = rod.make_rod(N, r_over_L=r_over_L, nu=nu, L=0.9, EI=1.5, rhoA=1.2)
    q = _state(r, 10 + N)
    for load, grav in ((None, 0.0), ((0.4, -1.3, 0.7), 2.1)):
        g = rod.gradient(r, q, load, grav)
        np.testing.assert_allclose(bench.gradient_slices(r, q, load, grav), g,
                                   rtol=1e-12, atol=1e-12 * np.abs(g).max())


def test_skfem_forms_equal_lib_fem():
    model = fem.cantilever(6, 2, "T6", nu=0.3, slenderness=3.0)
    u = bench.fem_state(model)
    f, K = fem.gradient(model, u), fem.hessian(model, u)
    assemble, perm = peers.skfem_neo_hookean(model)
    assert sorted(perm) == list(range(model.n_dofs))        # a permutation of lib's dofs
    f_sk, K_sk = assemble(u[perm])
    np.testing.assert_allclose(f_sk, f[perm], rtol=0, atol=1e-12 * np.abs(f).max())
    assert abs(K_sk - K[perm][:, perm]).max() <= 1e-12 * abs(K).max()


def test_cost_model_recovers_an_exact_affine_cost():
    t0, c, d0, d = 3e-5, 4e-8, 1e-6, 1e-6
    rows = [{"N": N, "kernel": "gradient", "lib": t0 + c * N, "loop": d0 + d * N}
            for N in (1, 20, 80, 320, 1280)]
    a0, a1 = bench.cost_model(rows, "gradient", "lib")
    assert a0 == pytest.approx(t0) and a1 == pytest.approx(c)
    # break-even where t0 + c N = d0 + d N
    assert bench.crossover(rows, "gradient") == pytest.approx((t0 - d0) / (d - c))


def test_targets_pass_and_fail_at_the_limits():
    rows = [{"N": 20, "kernel": "gradient", "lib": 2.0, "loop": 1.0},
            {"N": 1280, "kernel": "gradient", "lib": 1.0, "loop": 14.9}]
    out = {t["target"]: t["passed"] for t in bench.targets({"rod_kernels": rows})}
    assert out == {"rod gradient, lib/loop time at N = 20": True,
                   "rod gradient, speed-up over loop at N = 1280": False}
