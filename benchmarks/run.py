"""``make bench``: measure lib against a loop baseline and two peer libraries, side by side.

Usage::

    .venv/bin/python benchmarks/run.py [--quick] [--no-notebooks] [--no-pyelastica]

Prints one table per comparison and the issue's targets with PASS / FAIL, writes
``_build/bench/results.json`` and the log-log figure ``_build/bench/performance-scaling.png``.

* rod energy / gradient / Hessian at N = 20, 80, 320, 1280: lib.rod against the
  per-element Python loop of ``benchmarks/loop_rod.py``;
* one Verlet step of lib's rod at N = 20, 80 (NumPy, compiled gradient, and the
  compiled many-steps run) against one PyElastica step of the same cantilever, and one
  Newmark and one discrete-gradient step (sparse LU, and the banded tangent) against
  the NumPy Verlet step;
* one step of the 3-D rod (lib.rod3d's Lie-group Verlet, compiled and NumPy, and
  Newmark) against one PyElastica step at N = 20, 80, 320 (``benchmarks/rod3d_steps.py``);
* the cold start of the compiled path (a fresh interpreter, import, first steps);
* T6 neo-Hookean force + tangent on 80 x 8: lib.fem against scikit-fem;
* lib's three kernel choices (rod gradient on a (3, N) view, batched matmul for
  the rod's element blocks, ``einsum(optimize=True)`` for the FEM tangent)
  against the obvious alternative;
* the compute behind a typical widget;
* the wall time and peak memory of executing every chapter notebook (a copy,
  each in a fresh kernel; the committed notebooks are not rewritten).

``--quick`` uses fewer timing rounds; ``--no-notebooks`` skips the notebook runs;
``--wall-clock`` times with the wall clock instead of this process's CPU time.
Timings are the minimum over interleaved rounds (see ``benchmarks/bench.py``).
The first run in a fresh environment compiles PyElastica's numba kernels
(tens of seconds, cached afterwards).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402
import rod3d_steps  # noqa: E402

ROOT = bench.ROOT
OUT = ROOT / "_build" / "bench"


def us(t):
    return f"{1e6 * t:10.1f}"


def print_rod_kernels(rows):
    print("\nRod kernels, time per call [µs] (best of repeats); lib: NumPy (kernels=False), "
          "compiled: lib.kernels (Hessian: banded)")
    print(f"{'N':>6} {'kernel':<9} {'lib':>10} {'loop':>10} {'lib/loop':>9} {'speed-up':>9} "
          f"{'compiled':>10} {'comp./lib':>10}")
    for r in rows:
        print(f"{r['N']:>6} {r['kernel']:<9} {us(r['lib'])} {us(r['loop'])} "
              f"{r['lib'] / r['loop']:>9.2f} {r['loop'] / r['lib']:>9.1f} {us(r['compiled'])} "
              f"{r['compiled'] / r['lib']:>10.3f}")
    print("  cost model t = t0 + c N (the line through N = 1 and the largest N):")
    for k in bench.KERNELS:
        (a0, a1), (b0, b1) = bench.cost_model(rows, k, "lib"), bench.cost_model(rows, k, "loop")
        print(f"    {k:<8}: lib t0 = {1e6 * a0:6.1f} µs, c = {1e9 * a1:7.1f} ns/element; "
              f"loop t0 = {1e6 * b0:6.1f} µs, c = {1e9 * b1:7.1f} ns/element; "
              f"break-even N = {bench.crossover(rows, k):.0f}")


def print_steps(rows):
    print("\nOne time step of the r/L = 0.04 cantilever [µs per step] (best of repeats)")
    print(f"{'N':>6} {'NumPy Verlet':>13} {'lib Verlet':>11} {'lib run':>10} {'PyElastica':>11} "
          f"{'run/PyEl':>9} {'Verlet/PyEl':>12} {'Newton it.':>11} {'Verlet dt':>10} "
          f"{'Newmark dt':>11}")
    for r in rows:
        pe = r["pyelastica"]
        pe_s = us(pe) if pe else f"{'n/a':>10}"
        ratio = f"{r['verlet'] / pe:>12.2f}" if pe else f"{'n/a':>12}"
        ratio_run = f"{r['verlet_run'] / pe:>9.2f}" if pe else f"{'n/a':>9}"
        print(f"{r['N']:>6} {us(r['verlet_numpy']):>13} {us(r['verlet']):>11} "
              f"{us(r['verlet_run']):>10} {pe_s:>11} {ratio_run} {ratio} "
              f"{r['newton_per_step']:>11.1f} {r['verlet_dt']:>10.3e} {r['newmark_dt']:>11.3g}")
    print(f"\n{'N':>6} {'Newmark':>10} {'banded':>10} {'DG':>10} {'DG banded':>10}   "
          f"{'/ NumPy Verlet step:':<20} {'Newmark':>8} {'banded':>7} {'DG':>7} {'DG band.':>8}")
    for r in rows:
        v = r["verlet_numpy"]
        print(f"{r['N']:>6} {us(r['newmark'])} {us(r['newmark_banded'])} {us(r['dg'])} "
              f"{us(r['dg_banded'])}   {'':<20} {r['newmark'] / v:8.1f} "
              f"{r['newmark_banded'] / v:7.1f} {r['dg'] / v:7.1f} {r['dg_banded'] / v:8.1f}")
    print("  NumPy Verlet: integrate.verlet_step with the NumPy gradient (kernels=False); lib "
          "Verlet: the same loop, compiled gradient; lib run: rod.verlet, 200 steps per call "
          "(compiled kernel).\n  PyElastica: 3-D rod, position Verlet (one force evaluation per "
          "step, as velocity Verlet).\n  Newmark / DG: NumPy gradient, sparse Hessian and a "
          "sparse LU per Newton iteration (DG without its rank-one tangent term); banded: "
          "rod.force (compiled gradient,\n  banded Hessian, LAPACK band Cholesky; DG with "
          "gradient=, its exact tangent by Sherman-Morrison)")


def print_cold_start(r):
    print(f"\nCold start of the compiled path (fresh interpreter, import, first 3-D Lie-Verlet, "
          f"planar Verlet and Newmark steps): {r['seconds']:.2f} s wall, {r['cpu_seconds']:.2f} s "
          f"CPU (best of {r['runs']}; the first run, which warms the compile cache: "
          f"{r['first']:.1f} s)")


def print_fem(r):
    print(f"\nT6 neo-Hookean force + tangent, {r['nx']} x {r['ny']} cells, "
          f"{r['n_elements']} elements, {r['n_dofs']} dofs [ms] (best of repeats)")
    print(f"  lib.fem      {1e3 * r['lib']:9.2f}")
    print(f"  scikit-fem   {1e3 * r['skfem']:9.2f}   "
          f"(lib/scikit-fem = {r['lib'] / r['skfem']:.2f})")
    print(f"  agreement lib vs scikit-fem: force {r['force_rel_diff']:.1e}, "
          f"tangent {r['tangent_rel_diff']:.1e} (relative to the largest entry)")


def print_choices(d):
    print("\nlib's kernel choices against the obvious alternative [µs per call] (best of repeats)")
    print(f"  {'kernel':<52} {'lib':>10} {'alternative':>12} {'alt/lib':>8}")
    names = {f"gradient_N{v['N']}": f"rod gradient N = {v['N']}: (3, N) view vs slices"
             for k, v in d.items() if k.startswith("gradient_")}
    names["blocks"] = f"rod element blocks N = {d['blocks']['N']}: T.T @ h @ T vs einsum"
    names["tangent"] = (f"T6 tangent {d['tangent']['n_elements']} el.: einsum optimize=True "
                        "vs False")
    for k, v in d.items():
        print(f"  {names[k]:<52} {us(v['lib'])} {us(v['alt']):>12} {v['alt'] / v['lib']:>8.1f}")


def print_widgets(rows, rows1=None):
    print("\nWidget compute, median wall time of one call [ms]"
          + ("; in brackets with OPENBLAS_NUM_THREADS=1" if rows1 else ""))
    print(f"{'N':>6} {'modes(4)':>18} {'frequencies':>18} {'static a=5':>18}")
    for i, r in enumerate(rows):
        cells = []
        for k in ("modes", "frequencies", "static"):
            one = f" ({1e3 * rows1[i][k]:.2f})" if rows1 else ""
            cells.append(f"{1e3 * r[k]:.2f}{one}")
        print(f"{r['N']:>6} " + " ".join(f"{c:>18}" for c in cells))


def print_notebooks(rows, mem):
    print("\nChapter notebooks, cold execution (fresh kernel each)")
    print(f"  {'notebook':<34} {'wall [s]':>8} {'kernel CPU [s]':>15} {'kernel peak [MB]':>17}")
    for r in rows:
        if r.get("error"):
            print(f"  {r['notebook']:<34} FAILED  {r['error']}")
        else:
            print(f"  {r['notebook']:<34} {r['seconds']:8.1f} {r['kernel_cpu_seconds']:15.1f} "
                  f"{r['kernel_peak_mb']:17.0f}")
    ok = [r for r in rows if r["seconds"] is not None]
    print(f"  {'total':<34} {sum(r['seconds'] for r in ok):8.1f} "
          f"{sum(r['kernel_cpu_seconds'] for r in ok):15.1f}")
    print(f"Peak memory: bench process {mem['bench_process']:.0f} MB"
          + (f", largest notebook kernel {mem['largest_kernel']:.0f} MB"
             if mem.get("largest_kernel") else ""))


def print_targets(rows):
    print("\nTargets")
    for t in rows:
        fmt = ".2f" if t["unit"] == "x" else ".3g"
        m = "n/a" if t["measured"] is None else f"{t['measured']:{fmt}} {t['unit']}"
        verdict = "PASS" if t["passed"] else "FAIL"
        print(f"  {verdict}  {t['target']:<48} {m:>12}  (target {t['op']} {t['limit']:g} "
              f"{t['unit']})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer timing rounds")
    ap.add_argument("--no-notebooks", action="store_true", help="skip executing the chapters")
    ap.add_argument("--no-pyelastica", action="store_true", help="skip the PyElastica step")
    ap.add_argument("--wall-clock", action="store_true",
                    help="time with the wall clock (default: this process's CPU time)")
    ap.add_argument("--execute-one", metavar="NOTEBOOK", help=argparse.SUPPRESS)
    ap.add_argument("--widgets-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.execute_one:  # internal: one notebook in this fresh process
        print(bench.execute_one(args.execute_one))
        return 0
    if args.widgets_json:  # internal: widget timing in a process with its own environment
        print(json.dumps(bench.widget_response(progress=None)))
        return 0

    if args.wall_clock:
        bench.TIMER = time.perf_counter
    rounds = 5 if args.quick else 30
    t_start = time.perf_counter()
    results = {"machine": bench.machine(), "quick": args.quick}
    results["clock"] = "wall" if args.wall_clock else "process CPU"
    print(f"make bench: Python {results['machine']['python']}, numpy "
          f"{results['machine']['numpy']}, {results['machine']['cpus']} CPUs, load average "
          f"{results['machine']['loadavg']}; timings on the {results['clock']} clock",
          flush=True)
    results["rod_kernels"] = bench.rod_kernels(rounds=rounds, min_round=1e-3)
    results["rod_steps"] = bench.rod_steps(rounds=rounds,
                                           pyelastica=not args.no_pyelastica)
    results["rod3d_steps"] = rod3d_steps.rod3d_steps(rounds=max(3, rounds // 3),
                                                     pyelastica=not args.no_pyelastica)
    results["cold_start"] = bench.cold_start()
    results["fem_assembly"] = bench.fem_assembly(rounds=max(3, rounds // 3))
    results["design_choices"] = bench.design_choices(rounds=rounds)
    results["widget_response"] = bench.widget_response()
    results["widget_response_1thread"] = bench.widget_response_single_thread()
    mem = {"bench_process": bench.peak_rss_mb()}
    if not args.no_notebooks:
        nbs = sorted((ROOT / "chapters").glob("*.ipynb"))
        before = bench.calibration()
        results["notebooks"] = bench.notebook_times(nbs)
        results["calibration_seconds"] = [before, bench.calibration()]
        kernels = [r["kernel_peak_mb"] for r in results["notebooks"] if r["kernel_peak_mb"]]
        mem["largest_kernel"] = max(kernels) if kernels else None
    results["peak_memory_mb"] = mem
    results["targets"] = bench.targets(results)
    results["machine"]["loadavg_end"] = bench.machine()["loadavg"]
    results["bench_seconds"] = time.perf_counter() - t_start

    print_rod_kernels(results["rod_kernels"])
    print_steps(results["rod_steps"])
    rod3d_steps.print_rod3d_steps(results["rod3d_steps"])
    print_cold_start(results["cold_start"])
    print_fem(results["fem_assembly"])
    print_choices(results["design_choices"])
    print_widgets(results["widget_response"], results.get("widget_response_1thread"))
    if "notebooks" in results:
        print_notebooks(results["notebooks"], mem)
        cal = results["calibration_seconds"]
        print(f"  calibration workload (bench.calibration, wall clock): {1e3 * cal[0]:.0f} ms "
              f"before the notebooks, {1e3 * cal[1]:.0f} ms after (compare the book's time "
              f"between runs at comparable calibrations)")
    else:
        print(f"\nPeak memory: bench process {mem['bench_process']:.0f} MB (notebooks skipped)")
    print_targets(results["targets"])

    from lib.book import style

    style()
    import matplotlib.pyplot as plt

    # Timings change from run to run, so the plot goes to _build/, not to figures/
    # (whose files must be byte-reproducible).
    OUT.mkdir(parents=True, exist_ok=True)
    fig = bench.plot_scaling(results["rod_kernels"])
    path = OUT / "performance-scaling.png"
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    (OUT / "results.json").write_text(json.dumps(results, indent=1))
    print(f"\nwrote {path.relative_to(ROOT)} and {(OUT / 'results.json').relative_to(ROOT)} "
          f"({results['bench_seconds']:.0f} s; load average at the end "
          f"{results['machine']['loadavg_end']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
