"""Time per step of the 3-D rod: lib.rod3d's Lie-group integrators against PyElastica 1.0.

Used by ``benchmarks/run.py`` (table "3-D rod, one time step").  The same rod
(r/L = 0.04, nu = 0.5, ks = 0.9, L = EI = rhoA = 1), clamped, under a sudden dead tip
force (0, -1, -0.5), is advanced from rest by

* lib's explicit Lie-group position Verlet (:func:`lib.rod3d.lie_verlet`, PyElastica's
  scheme) at dt = 0.5 * 2/omega_max: the compiled many-steps kernel
  (:func:`lib.kernels.spatial.lie_verlet_run`, ``verlet``) and the NumPy code
  (``kernels=False``, ``verlet_numpy``),
* lib's implicit Lie-group Newmark (:func:`lib.rod3d.lie_newmark`, Newton with the
  Hessian and sparse LU) at dt = 1e-3,
* PyElastica's ``PositionVerlet`` (numba kernels) at the same dt as lib's Verlet.

Each timed call runs a fixed number of steps from the same start; the result is
seconds per step (best of interleaved rounds, ``bench.best_with_peer``).
"""
from __future__ import annotations

import numpy as np

from bench import best_with_peer
from lib import rod3d as R3
from lib.crosscheck import elastica_system

LOAD = np.array([0.0, -1.0, -0.5])


def rod3d_steps(Ns=(20, 80, 320), rounds=10, verlet_steps=20, newmark_steps=3,
                newmark_dt=1e-3, pyelastica=True, progress=print):
    """Seconds per step of lib.rod3d (Verlet, Newmark) and PyElastica at each N."""
    rows = []
    for N in Ns:
        model = R3.make_rod3d(N)
        dt = 0.5 * 2.0 / R3.omega_max_estimate(model)["max"]
        s0 = R3.straight(model)
        z = np.zeros((N, 3))

        def run_verlet():
            return R3.lie_verlet(model, s0, z, z, dt, verlet_steps, load=LOAD)[0]

        def run_verlet_numpy():
            return R3.lie_verlet(model, s0, z, z, dt, verlet_steps, load=LOAD, kernels=False)[0]

        def run_newmark():
            return R3.lie_newmark(model, s0, z, z, newmark_dt, newmark_steps, load=LOAD)[0]

        if not np.all(np.isfinite(run_verlet().x)):
            raise FloatingPointError(f"lib.rod3d Verlet blew up at N = {N}")
        cands = {"verlet": run_verlet, "verlet_numpy": run_verlet_numpy, "newmark": run_newmark}
        peer = elastica_system(N, LOAD) if pyelastica else None
        best = best_with_peer(cands, peer, verlet_steps, dt, rounds, N)
        rows.append({"N": N, "dt": dt,
                     "verlet": best["verlet"] / verlet_steps,
                     "verlet_numpy": best["verlet_numpy"] / verlet_steps,
                     "newmark": best["newmark"] / newmark_steps,
                     "pyelastica": best["pyelastica"] / verlet_steps if pyelastica else None})
        if progress:
            progress(f"  3-D rod steps N = {N} done")
    return rows


def print_rod3d_steps(rows):
    """Print the table of :func:`rod3d_steps`."""
    print("\n3-D rod, one time step of the r/L = 0.04 cantilever [µs per step] (best of repeats)")
    print(f"{'N':>6} {'lib Verlet':>11} {'NumPy Verlet':>13} {'lib Newmark':>12} "
          f"{'PyElastica':>11} {'lib/PyEl':>9} {'NumPy/PyEl':>11} {'Verlet dt':>10}")
    for r in rows:
        pe = r["pyelastica"]
        pe_s = f"{1e6 * pe:11.1f}" if pe else f"{'n/a':>11}"
        ratio = f"{r['verlet'] / pe:9.2f}" if pe else f"{'n/a':>9}"
        ratio_np = f"{r['verlet_numpy'] / pe:11.1f}" if pe else f"{'n/a':>11}"
        print(f"{r['N']:>6} {1e6 * r['verlet']:11.1f} {1e6 * r['verlet_numpy']:13.1f} "
              f"{1e6 * r['newmark']:12.1f} {pe_s} {ratio} {ratio_np} {r['dt']:10.3e}")
    print("  same scheme (Lie-group position Verlet, explicit gyroscopic term) and same dt for "
          "lib and PyElastica; lib Verlet: the compiled kernel, many steps per call "
          "(lib.kernels); NumPy Verlet: kernels=False; PyElastica numba-compiled")


if __name__ == "__main__":
    print_rod3d_steps(rod3d_steps(rounds=3))
