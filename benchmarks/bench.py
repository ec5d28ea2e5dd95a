"""Timing harness shared by ``benchmarks/run.py`` (``make bench``) and the Performance page.

Every measurement is "best of repeats": the candidates of one comparison are
timed in interleaved rounds (``timeit``, on this process's CPU clock by default,
:data:`TIMER`), so a burst of load from another process hits all of them alike,
and the minimum over rounds is kept -- the cost of the code itself, not of the
machine's other work.  The widget
response, in contrast, is the median of single calls: what a reader waits for.

Functions return plain dicts / lists of dicts (JSON-ready); times are seconds.

* :func:`rod_kernels` -- lib.rod energy / gradient / Hessian against the
  per-element loop of ``loop_rod``.
* :func:`cost_model` -- the line t(N) = t0 + c N through those times.
* :func:`design_choices` -- each of lib's three kernel choices (the (3, N) view
  in the rod gradient, batched matmul for the rod's element blocks,
  ``einsum(optimize=True)`` for the FEM tangent) against the obvious alternative.
* :func:`rod_steps` -- one Verlet and one Newmark step of lib's rod (NumPy, compiled,
  banded) against one PyElastica position-Verlet step of the same cantilever.
* :func:`cold_start` -- a fresh interpreter to the first steps of the compiled path.
* :func:`fem_assembly` -- T6 internal force + tangent on 80 x 8 (lib.fem)
  against scikit-fem's assembly of the same neo-Hookean forms.
* :func:`widget_response` -- the compute behind a typical widget.
* :func:`execute_notebook` / :func:`notebook_times` -- wall time and peak
  memory of executing each chapter notebook (a copy; nothing is written back).
* :func:`targets` -- the issue's targets as PASS / FAIL rows.
* :func:`plot_scaling` -- the log-log figure of cost against N.
"""
from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import timeit
from pathlib import Path

import numpy as np

import lib.fem as fem
import lib.integrate as integ
import lib.rod as rod_mod

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:  # the notebook imports this file from chapters/
    sys.path.insert(0, str(HERE))

import loop_rod  # noqa: E402

ROD_NS = (1, 20, 80, 320, 1280)  # N = 1 measures the per-call overhead
KERNELS = ("energy", "gradient", "hessian")
TIP_LOAD = (0.0, -2.0, 0.0)  # alpha = 2 dead tip load in -y, the chapter's dynamic case
BOOK_SECONDS_LIMIT = 150.0  # target: the whole book executes cold within this (issue 26)
MEMORY_MB_LIMIT = 800.0     # target: no notebook kernel peaks above this (issue 26)


# --------------------------------------------------------------------------------------
# timing primitive
# --------------------------------------------------------------------------------------
#: The clock of :func:`best_of`: this process's CPU time by default (``time.process_time``),
#: so that time taken by other processes on a busy machine is not counted (for the
#: single-threaded code timed here it equals the wall time on a quiet machine);
#: ``run.py --wall-clock`` sets ``time.perf_counter``.
TIMER = time.process_time


def best_of(candidates, rounds=20, min_round=2e-3, timer=None):
    """Best (minimum) seconds per call of each callable, timed in interleaved rounds.

    Parameters
    ----------
    candidates : dict name -> callable()
    rounds : int
        Number of rounds; in each, every candidate runs ``number`` times.
    min_round : float
        ``number`` is chosen per candidate so that one round lasts about this long.
    timer : callable, optional
        The clock (default :data:`TIMER`).

    Returns
    -------
    dict name -> seconds per call
    """
    timer = TIMER if timer is None else timer
    number = {}
    for name, f in candidates.items():
        t = timeit.Timer(f, timer=timer).timeit(1)  # also a warm-up call
        number[name] = max(1, int(min_round / max(t, 1e-7)))
    best = {name: np.inf for name in candidates}
    for _ in range(rounds):
        for name, f in candidates.items():
            t = timeit.Timer(f, timer=timer).timeit(number[name]) / number[name]
            best[name] = min(best[name], t)
    return best


def best_with_peer(candidates, peer, steps, dt, rounds, N):
    """best_of the candidates and, if peer = (step, rod) is given, PyElastica taking the same
    number of steps of size dt; a peer rod that blew up is an error, not a time."""
    if peer is not None:
        step, erod = peer

        def run_pyelastica():
            for _ in range(steps):
                step(dt)

        candidates = {**candidates, "pyelastica": run_pyelastica}
    best = best_of(candidates, rounds=rounds)
    if peer is not None and not np.all(np.isfinite(erod.position_collection)):
        raise FloatingPointError(f"PyElastica blew up at N = {N}")
    return best


def _perturbed_state(rod, seed=0):
    """A deformed, non-symmetric state near the straight one (fixed seed)."""
    rng = np.random.default_rng(seed)
    return rod_mod.straight(rod) + 0.01 * rod.ell * rng.standard_normal(rod.ndof)


# --------------------------------------------------------------------------------------
# rod kernels: lib vs loop
# --------------------------------------------------------------------------------------
def rod_kernels(Ns=ROD_NS, rounds=20, min_round=2e-3, progress=print):
    """Time lib.rod energy / gradient / Hessian against the per-element loop.

    The loop takes the state as a Python list (its natural input); the
    conversion is not timed.  ``lib`` is the vectorised NumPy code
    (``kernels=False``); ``compiled`` its numba twin in :mod:`lib.kernels`
    (the default when the kernels are on; for the Hessian, the banded assembly
    :func:`lib.rod.banded_hessian`).  Returns one dict per (N, kernel) with
    ``lib``, ``compiled`` and ``loop`` seconds per call, plus ``ratio`` = lib / loop.
    """
    rows = []
    for N in Ns:
        rod = rod_mod.make_rod(N)
        q = _perturbed_state(rod)
        ql = q.tolist()
        cands = {
            ("energy", "lib"): lambda: rod_mod.energy(rod, q, TIP_LOAD, kernels=False),
            ("energy", "compiled"): lambda: rod_mod.energy(rod, q, TIP_LOAD, kernels=True),
            ("energy", "loop"): lambda: loop_rod.energy(rod, ql, TIP_LOAD),
            ("gradient", "lib"): lambda: rod_mod.gradient(rod, q, TIP_LOAD, kernels=False),
            ("gradient", "compiled"): lambda: rod_mod.gradient(rod, q, TIP_LOAD, kernels=True),
            ("gradient", "loop"): lambda: loop_rod.gradient(rod, ql, TIP_LOAD),
            ("hessian", "lib"): lambda: rod_mod.hessian(rod, q),
            ("hessian", "compiled"): lambda: rod_mod.banded_hessian(rod, q, kernels=True),
            ("hessian", "loop"): lambda: loop_rod.hessian(rod, ql),
        }
        best = best_of(cands, rounds=rounds, min_round=min_round)
        for k in KERNELS:
            row = {"N": N, "kernel": k, "lib": best[(k, "lib")], "loop": best[(k, "loop")],
                   "compiled": best[(k, "compiled")]}
            row["ratio"] = row["lib"] / row["loop"]
            rows.append(row)
        if progress:
            progress(f"  rod kernels N = {N} done")
    return rows


def cost_model(rows, kernel, impl="lib"):
    """Per-call overhead and per-element cost of one implementation: t(N) = t0 + c N.

    The line through the measured times at N = 1 and at the largest N: c is
    the cost of one more element, t0 = t(1) - c the fixed cost of a call (at
    N = 1 almost all of the time).  ``rows`` must hold N = 1 (see
    :func:`rod_kernels`).  Returns ``(t0, c)`` in seconds and seconds per element.
    """
    sel = sorted((r for r in rows if r["kernel"] == kernel), key=lambda r: r["N"])
    if sel[0]["N"] != 1:
        raise ValueError("rows must include N = 1 (the per-call overhead)")
    lo, hi = sel[0], sel[-1]
    c = (hi[impl] - lo[impl]) / (hi["N"] - 1)
    return float(lo[impl] - c), float(c)


def crossover(rows, kernel):
    """N above which lib is faster than the loop, from :func:`cost_model` of both."""
    a0, a1 = cost_model(rows, kernel, "lib")
    b0, b1 = cost_model(rows, kernel, "loop")
    return (a0 - b0) / (b1 - a1)


# --------------------------------------------------------------------------------------
# one time step: lib Verlet / Newmark vs PyElastica
# --------------------------------------------------------------------------------------
def rod_steps(Ns=(20, 80), rounds=10, verlet_steps=20, newmark_steps=5, newmark_dt=0.01,
              pyelastica=True, progress=print, run_steps=200):
    """Seconds per step of lib's Verlet and Newmark on the rod, and of PyElastica.

    The cantilever: r/L = 0.04, nu = 0.5, ks = 0.9, released straight and at
    rest under the alpha = 2 dead tip load.  Verlet runs at 0.9 dt_c
    (dt_c = 2/omega_max); Newmark (beta = 1/4, gamma = 1/2) at ``newmark_dt``,
    one Newton solve per step (force = gradient, tangent = Hessian, sparse LU).
    Each timed call runs a fixed sequence of steps from the same start.
    PyElastica's position-Verlet step is timed on a running simulation (its
    cost does not depend on the state) at half lib's Verlet step.

    Candidates (seconds per step):

    * ``verlet_numpy``: ``integrate.verlet_step`` in a Python loop, the gradient by
      NumPy (``kernels=False``): the readable path the chapters teach;
    * ``verlet``: the same loop with :func:`lib.rod.gradient`'s default (the compiled
      gradient when ``lib.kernels`` is on);
    * ``verlet_run``: :func:`lib.rod.verlet`, ``run_steps`` steps in one call (the
      compiled many-steps kernel when on);
    * ``newmark``: :func:`lib.integrate.newmark_step` with (NumPy gradient, sparse
      Hessian): a CSR matrix and a sparse LU per Newton iteration;
    * ``newmark_banded``: the same step with :func:`lib.rod.force` (banded Hessian,
      LAPACK band Cholesky);
    * ``dg`` / ``dg_banded``: :func:`lib.integrate.discrete_gradient_step` at
      ``newmark_dt`` with (NumPy energy and gradient, sparse Hessian; the tangent
      without its rank-one term) / with :func:`lib.rod.force` and ``gradient=`` (the
      exact tangent, banded plus rank one);
    * ``pyelastica``: PyElastica's position-Verlet step.

    Returns one dict per N with those seconds per step (``pyelastica`` None if not
    run), the step sizes, and ``newton_per_step`` (force evaluations per Newmark
    step, deterministic).
    """
    rows = []
    for N in Ns:
        rod = rod_mod.make_rod(N)
        m = rod_mod.mass(rod)
        dt_c = integ.critical_step(rod_mod.frequencies(rod)[-1])
        dt = 0.9 * dt_c
        q0 = rod_mod.straight(rod)
        v0 = np.zeros_like(q0)

        def accel(q):
            return -rod_mod.gradient(rod, q, TIP_LOAD) / m

        def accel_numpy(q):
            return -rod_mod.gradient(rod, q, TIP_LOAD, kernels=False) / m

        a0 = accel(q0)
        calls = {"n": 0}

        def force(u):
            calls["n"] += 1
            return (rod_mod.gradient(rod, u, TIP_LOAD, kernels=False),
                    rod_mod.hessian(rod, u))

        force_banded = rod_mod.force(rod, TIP_LOAD)

        def loop(acc):
            def run():
                q, v, a = q0, v0, a0
                for _ in range(verlet_steps):
                    q, v, a = integ.verlet_step(q, v, a, dt, acc)
                return q
            return run

        def run_verlet_kernel():
            return rod_mod.verlet(rod, q0, v0, dt, run_steps, TIP_LOAD, every=run_steps).q[-1]

        def newmark(f):
            def run():
                u, v, a = q0, v0, a0
                for _ in range(newmark_steps):
                    u, v, a = integ.newmark_step(u, v, a, newmark_dt, f, m)
                return u
            return run

        energy_numpy = lambda q: rod_mod.energy(rod, q, TIP_LOAD, kernels=False)
        energy = lambda q: rod_mod.energy(rod, q, TIP_LOAD)
        gradient = lambda q: rod_mod.gradient(rod, q, TIP_LOAD)

        def dg(f, E, g):
            def run():
                q, v = q0, v0
                for _ in range(newmark_steps):
                    q, v = integ.discrete_gradient_step(q, v, newmark_dt, E, f, m, gradient=g)
                return q
            return run

        run_verlet = loop(accel)
        if not np.all(np.isfinite(run_verlet())):
            raise FloatingPointError(f"lib Verlet blew up at N = {N}")
        calls["n"] = 0
        run_newmark = newmark(force)
        run_newmark()
        newton = calls["n"] / newmark_steps
        cands = {"verlet_numpy": loop(accel_numpy), "verlet": run_verlet,
                 "verlet_run": run_verlet_kernel, "newmark": run_newmark,
                 "newmark_banded": newmark(force_banded), "dg": dg(force, energy_numpy, None),
                 "dg_banded": dg(force_banded, energy, gradient)}
        peer = None
        if pyelastica:
            import peers

            peer = peers.pyelastica_cantilever(N, r_over_L=rod.r_over_L, nu=rod.nu, ks=rod.ks,
                                               tip_force=TIP_LOAD[:2])
        best = best_with_peer(cands, peer, verlet_steps, 0.5 * dt, rounds, N)
        rows.append({
            "N": N,
            "verlet_numpy": best["verlet_numpy"] / verlet_steps,
            "verlet": best["verlet"] / verlet_steps,
            "verlet_run": best["verlet_run"] / run_steps,
            "newmark": best["newmark"] / newmark_steps,
            "newmark_banded": best["newmark_banded"] / newmark_steps,
            "dg": best["dg"] / newmark_steps,
            "dg_banded": best["dg_banded"] / newmark_steps,
            "pyelastica": best["pyelastica"] / verlet_steps if pyelastica else None,
            "verlet_dt": dt,
            "newmark_dt": newmark_dt,
            "newton_per_step": newton,
        })
        if progress:
            progress(f"  time steps N = {N} done")
    return rows


# --------------------------------------------------------------------------------------
# FEM assembly: lib.fem vs scikit-fem
# --------------------------------------------------------------------------------------
def fem_state(model):
    """A smooth bending-like displacement field (u_x = -0.05 X Y / L, u_y = 0.02 (X/L)^2)."""
    X, Y = model.mesh.nodes.T
    Lx = model.mesh.length
    return np.column_stack([-0.05 * Y * X / Lx, 0.02 * (X / Lx) ** 2]).ravel()


def fem_assembly(nx=80, ny=8, nu=0.3, rounds=7, progress=print):
    """Seconds per T6 force + tangent assembly on ``nx x ny``: lib.fem against scikit-fem.

    Both sides assemble the full (unconstrained) force vector and tangent at
    the same deformed state; scikit-fem's basis (its precomputation, like
    ``lib.fem.make_model``) is built once outside the timing.  Also returns the
    largest differences between the two assemblies (after mapping scikit-fem's
    dof numbering onto lib's), relative to the largest entry.
    """
    import peers

    model = fem.cantilever(nx, ny, "T6", nu=nu)
    u = fem_state(model)
    assemble, perm = peers.skfem_neo_hookean(model)
    u_sk = u[perm]
    f_lib, K_lib = fem.gradient(model, u), fem.hessian(model, u)
    f_sk, K_sk = assemble(u_sk)
    df = float(np.abs(f_lib[perm] - f_sk).max() / np.abs(f_lib).max())
    dK = float(abs(K_lib[perm][:, perm] - K_sk).max() / abs(K_lib).max())
    best = best_of({
        "lib": lambda: (fem.gradient(model, u), fem.hessian(model, u)),
        "skfem": lambda: assemble(u_sk),
    }, rounds=rounds, min_round=0.0)
    if progress:
        progress(f"  FEM assembly {nx}x{ny} done")
    return {"nx": nx, "ny": ny, "n_dofs": model.n_dofs, "n_elements": len(model.dofs),
            "lib": best["lib"], "skfem": best["skfem"],
            "force_rel_diff": df, "tangent_rel_diff": dK}


# --------------------------------------------------------------------------------------
# lib's kernel choices against the obvious alternative
# --------------------------------------------------------------------------------------
def gradient_slices(rod, q, load=None, grav=0.0):
    """:func:`lib.rod.gradient` written the obvious way (same result, more numpy calls).

    The state is taken apart with strided slices (``q[0::3]``, ...), node
    differences come from ``np.diff`` of a padded copy, every intermediate is a
    fresh array and the result is interleaved again with ``np.column_stack``.
    The arithmetic per element is the same as lib's; only the number of numpy
    calls (the fixed cost of a call) differs.  Layout ``[phi_e, x_{e+1}, y_{e+1}]``,
    shape (3N,).
    """
    q = np.asarray(q, dtype=float)
    N, ell, EA, S, EI = rod.N, rod.ell, rod.EA, rod.kGA, rod.EI
    phi = q[0::3]
    dx = np.diff(np.concatenate([[0.0], q[1::3]]))
    dy = np.diff(np.concatenate([[0.0], q[2::3]]))
    c, s = np.cos(phi), np.sin(phi)
    a = c * dx + s * dy
    b = -s * dx + c * dy
    Fa = EA * (a / ell - 1.0)
    Fb = S * b / ell
    fx, fy = Fa * c - Fb * s, Fa * s + Fb * c
    kb = np.full(N, EI / ell)
    kb[0] *= 2.0                                # clamp half element
    mb = kb * np.diff(np.concatenate([[0.0], phi]))
    g_phi = Fa * b - Fb * a + mb - np.append(mb[1:], 0.0)
    g_x = fx - np.append(fx[1:], 0.0)
    g_y = fy - np.append(fy[1:], 0.0)
    if grav:
        m = np.full(N, rod.rhoA * ell)
        m[-1] *= 0.5
        g_y = g_y + grav * m
    if load is not None:
        g_x[-1] -= load[0]
        g_y[-1] -= load[1]
        g_phi[-1] -= load[2]
    return np.column_stack([g_phi, g_x, g_y]).ravel()


def design_choices(rod_N=(20, 1280), fem_mesh=(80, 8), rounds=9, progress=print):
    """Each of lib's kernel choices timed against the obvious alternative.

    * ``gradient``: :func:`lib.rod.gradient`'s NumPy code (``kernels=False``: (3, N)
      view, results written into one preallocated array) against
      :func:`gradient_slices`, at each N of ``rod_N``;
    * ``blocks``: the rod's 5 x 5 element Hessian blocks T^T h T for N = ``rod_N[-1]``
      elements as a batched matmul ``T.T @ h @ T`` (lib) against the
      three-operand ``einsum("ji,ejk,kl->eil", T, h, T)``;
    * ``tangent``: the T6 element tangents of :func:`lib.fem.hessian` on
      ``fem_mesh``, ``einsum(..., optimize=True)`` (lib, pairwise BLAS
      contractions) against the default single loop over all eight indices.

    Contractions work on arrays of the model's shapes (fixed seed); their cost
    does not depend on the values.  Returns ``{name: {"lib": s, "alt": s, ...}}``
    with seconds per call.
    """
    out = {}
    rng = np.random.default_rng(0)
    for N in rod_N:
        rod = rod_mod.make_rod(N)
        q = _perturbed_state(rod)
        best = best_of({"lib": lambda: rod_mod.gradient(rod, q, TIP_LOAD, kernels=False),
                        "alt": lambda: gradient_slices(rod, q, TIP_LOAD)},
                       rounds=rounds, min_round=1e-3)
        out[f"gradient_N{N}"] = dict(best, N=N)
    T = np.array([[1, 0, 0, 0, 0], [0, -1, 0, 1, 0], [0, 0, -1, 0, 1]], dtype=float)
    h = rng.standard_normal((rod_N[-1], 3, 3))
    best = best_of({"lib": lambda: T.T @ h @ T,
                    "alt": lambda: np.einsum("ji,ejk,kl->eil", T, h, T)},
                   rounds=rounds, min_round=1e-3)
    out["blocks"] = dict(best, N=rod_N[-1])
    model = fem.cantilever(*fem_mesh, "T6")
    E, Q, n_a = model.G.shape[:3]
    w, G = model.w, model.G
    A = rng.standard_normal((E, Q, 2, 2, 2, 2))
    sig = "eq,eqaJ,eqiJkL,eqbL->eaibk"
    best = best_of({"lib": lambda: np.einsum(sig, w, G, A, G, optimize=True),
                    "alt": lambda: np.einsum(sig, w, G, A, G)},
                   rounds=max(3, rounds // 3), min_round=0.0)
    out["tangent"] = dict(best, n_elements=E)
    if progress:
        progress("  design choices done")
    return out


# --------------------------------------------------------------------------------------
# widget response
# --------------------------------------------------------------------------------------
def widget_response(Ns=(10, 20, 40, 80), calls=5, progress=print):
    """Median wall time of the compute behind typical rod widgets, per N.

    * ``modes``: a mode-shape explorer -- ``make_rod(N)`` then
      ``rod.modes(rod, 4)`` (frequencies and shapes of the four lowest modes);
    * ``frequencies``: ``rod.frequencies(rod)`` (the whole spectrum);
    * ``static``: a tip-load slider -- ``rod.static`` at alpha = 5 (10 load steps).
    """
    rows = []
    for N in Ns:
        jobs = {
            "modes": lambda: rod_mod.modes(rod_mod.make_rod(N), 4),
            "frequencies": lambda: rod_mod.frequencies(rod_mod.make_rod(N)),
            "static": lambda: rod_mod.static(rod_mod.make_rod(N), (0.0, -5.0, 0.0)),
        }
        row = {"N": N}
        for name, f in jobs.items():
            f()  # warm-up
            ts = []
            for _ in range(calls):
                t0 = time.perf_counter()
                f()
                ts.append(time.perf_counter() - t0)
            row[name] = float(np.median(ts))
        rows.append(row)
    if progress:
        progress("  widget response done")
    return rows


def widget_response_single_thread():
    """:func:`widget_response` in a fresh process with ``OPENBLAS_NUM_THREADS=1``.

    On a machine whose cores are busy, OpenBLAS threads that wait for each
    other can make a small dense SVD several times slower; this measures the
    widgets with BLAS confined to one thread.  Returns None if the run fails.
    """
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(HERE / "run.py"), "--widgets-json"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return None


# --------------------------------------------------------------------------------------
# cold start of the compiled path
# --------------------------------------------------------------------------------------
COLD_START = """
import numpy as np
from lib import integrate, rod, rod3d
m = rod3d.make_rod3d(20)
z = np.zeros((20, 3))
rod3d.lie_verlet(m, rod3d.straight(m), z, z, 1e-4, 1, load=(0.0, -1.0, 0.0))
r = rod.make_rod(20)
q = rod.straight(r)
rod.verlet(r, q, np.zeros_like(q), 1e-4, 1, (0.0, -1.0, 0.0))
integrate.newmark_step(q, np.zeros_like(q), np.zeros_like(q), 1e-3, rod.force(r), rod.mass(r))
"""


def cold_start(runs=3, progress=print):
    """Seconds from a fresh interpreter to the first steps of the compiled path.

    Each run is ``python -c COLD_START`` in a new process (``LIB_KERNELS=1``, this
    worktree first on ``PYTHONPATH``): import numpy, scipy and lib, then one step of
    the 3-D rod's Lie-Verlet, one planar Verlet step and one planar Newmark step with
    the banded tangent -- so numba is imported and every kernel of those steps loaded
    from the compile cache.  A first run warms the cache (it compiles if the cache is
    cold; its time is returned as ``first``); ``seconds`` is the least wall time of
    the next ``runs`` runs, ``cpu_seconds`` that run's CPU time (user + system).
    """
    env = dict(os.environ, LIB_KERNELS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in
                                          os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                          if p]))
    times = []
    for _ in range(runs + 1):
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", COLD_START], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode:
            raise RuntimeError(f"cold start run failed: {proc.stderr.strip()[-300:]}")
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        times.append((wall, cpu))
    best = min(times[1:])
    if progress:
        progress("  cold start done")
    return {"first": times[0][0], "seconds": best[0], "cpu_seconds": best[1], "runs": runs}


# --------------------------------------------------------------------------------------
# notebooks: wall time and peak memory
# --------------------------------------------------------------------------------------
def execute_notebook(path, timeout=900):
    """Execute a copy of a notebook (nothing is written back); return seconds.

    Same client settings as ``tools/execute.py`` (kernel ``python3``, working
    directory = the notebook's folder).
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            record_timing=False)
    t0 = time.perf_counter()
    client.execute()
    return time.perf_counter() - t0


def peak_rss_mb(who=resource.RUSAGE_SELF):
    """Peak resident memory in MB (``ru_maxrss`` is in kB on Linux)."""
    return resource.getrusage(who).ru_maxrss / 1024.0


def calibration(rounds=5):
    """Seconds (best of ``rounds``, wall clock) of a fixed workload, timed next to the
    notebooks so that a slow hour of the host shows as such.

    The workload (about 0.2 s) mixes what the chapters spend their time on: interpreted
    Python (a loop of 2e6 float operations), small-array NumPy (400 rod gradients at
    N = 20) and BLAS (ten 400 x 400 solves).  This host's speed drifts by about 10 % within
    an hour; the book's time is comparable between runs only at comparable calibrations.
    """
    rng = np.random.default_rng(0)
    A = rng.standard_normal((400, 400)) + 400 * np.eye(400)
    b = np.ones(400)
    r = rod_mod.make_rod(20)
    q = _perturbed_state(r)

    def work():
        s = 0.0
        for i in range(2_000_000):
            s += i * 0.5
        for _ in range(400):
            rod_mod.gradient(r, q, TIP_LOAD, kernels=False)
        for _ in range(10):
            np.linalg.solve(A, b)
        return s

    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return min(times)


def notebook_times(paths, progress=print, timeout=300.0):
    """Execute each notebook in a fresh subprocess (cold kernel); time and peak memory.

    Each run is ``python benchmarks/run.py --execute-one PATH``, which reports
    the wall time and the peak RSS of its kernel (``RUSAGE_CHILDREN``).  A
    failing notebook is recorded with its error, not raised.  A run that has not
    answered after ``timeout`` seconds (every chapter takes well under a minute) is
    killed with its kernel and run once more: now and then a kernel and its client
    both sit idle waiting for each other's message (seen twice in 2026-12, on a
    loaded and on a quiet machine; nbclient raises nothing); the second failure is
    recorded.
    """
    rows = []
    for p in paths:
        p = Path(p)
        out = _notebook_time(p, timeout)
        if (out.get("error") or "").startswith("no answer after"):
            if progress:
                progress(f"  {p.name}: {out['error']}; running it once more")
            out = _notebook_time(p, timeout)
        rows.append(out)
        if progress:
            s = "FAILED: " + out["error"] if out.get("error") else f"{out['seconds']:.1f} s"
            progress(f"  executed {out['notebook']}: {s}")
    return rows


def _notebook_time(p, timeout):
    """One run of :func:`notebook_times` (the row, without retry)."""
    t0 = time.perf_counter()
    # its own session, so that a hung run is killed with its kernel (a grandchild)
    proc = subprocess.Popen([sys.executable, str(HERE / "run.py"), "--execute-one", str(p)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:          # a hung kernel must not hang the bench
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        stdout, stderr = "", f"no answer after {timeout:g} s (killed with its kernel)"
    wall = time.perf_counter() - t0
    try:
        out = json.loads(stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        err = (stderr.strip().splitlines() or ["no output"])[-1]
        out = {"seconds": None, "kernel_peak_mb": None, "kernel_cpu_seconds": None,
               "error": err[:300]}
    out.update({"notebook": str(p.relative_to(ROOT)), "process_seconds": wall})
    return out


def execute_one(path):
    """Body of ``run.py --execute-one``: JSON with wall seconds, the kernel's peak memory
    and its CPU seconds (user + system, all threads; on a busy machine the wall time
    grows but the CPU time hardly does)."""
    try:
        seconds = execute_notebook(path)
        err = None
    except Exception as exc:  # report, do not hide: the caller prints it
        msg = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines() or [""]
        seconds, err = None, f"{type(exc).__name__}: {msg[-1][:250]}"
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return json.dumps({"seconds": seconds, "kernel_peak_mb": ru.ru_maxrss / 1024.0,
                       "kernel_cpu_seconds": ru.ru_utime + ru.ru_stime, "error": err})


# --------------------------------------------------------------------------------------
# targets
# --------------------------------------------------------------------------------------
def _row(rows, **match):
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def targets(results):
    """The issue's targets as dicts (name, measured, limit, unit, passed) from ``results``.

    Only targets whose measurements are present in ``results`` are returned.
    """
    out = []

    def add(name, measured, op, limit, unit):
        passed = measured <= limit if op == "<=" else measured >= limit
        out.append({"target": name, "measured": measured, "op": op, "limit": limit,
                    "unit": unit, "passed": bool(passed)})

    rk = results.get("rod_kernels")
    if rk:
        r = _row(rk, N=20, kernel="gradient")
        if r:
            add("rod gradient, lib/loop time at N = 20", r["lib"] / r["loop"], "<=", 2.0, "x")
        r = _row(rk, N=1280, kernel="gradient")
        if r:
            add("rod gradient, speed-up over loop at N = 1280", r["loop"] / r["lib"], ">=", 15.0,
                "x")
    st = results.get("rod_steps")
    if st:
        r = _row(st, N=80)
        if r and r.get("pyelastica"):
            add("Verlet step at N = 80, lib/PyElastica time", r["verlet"] / r["pyelastica"],
                "<=", 1.0, "x")
        for N in (20, 80):                                  # issue 26
            r = _row(st, N=N)
            if r and r.get("pyelastica") and "verlet_run" in r:
                add(f"planar explicit step N = {N}, lib run/PyElastica", r["verlet_run"]
                    / r["pyelastica"], "<=", 0.5, "x")
        for key, name in (("newmark_banded", "Newmark"), ("dg_banded", "discrete-gradient")):
            for N in (20, 80):
                r = _row(st, N=N)
                if r and key in r:
                    add(f"planar {name} step N = {N} / NumPy Verlet step",
                        r[key] / r["verlet_numpy"], "<=", 20.0, "x")
    r3 = results.get("rod3d_steps")
    if r3:
        for N in (20, 80, 320):
            r = _row(r3, N=N)
            if r and r.get("pyelastica"):
                add(f"3-D explicit step N = {N}, lib/PyElastica", r["verlet"] / r["pyelastica"],
                    "<=", 0.5, "x")
    cs = results.get("cold_start")
    if cs:
        add("cold start of the compiled path (warm cache)", cs["seconds"], "<=", 2.0, "s")
    fa = results.get("fem_assembly")
    if fa:
        add("T6 force+tangent 80x8, lib/scikit-fem time", fa["lib"] / fa["skfem"], "<=", 1.0, "x")
    wr = results.get("widget_response")
    if wr:
        worst = max(max(v for k, v in r.items() if k != "N") for r in wr)
        add("widget response (worst median)", worst, "<=", 0.3, "s")
    nbs = results.get("notebooks")
    if nbs:
        if all(r["seconds"] is not None for r in nbs):
            add("whole book cold execution", sum(r["seconds"] for r in nbs), "<=",
                BOOK_SECONDS_LIMIT, "s")
        else:
            out.append({"target": "whole book cold execution", "measured": None, "op": "<=",
                        "limit": BOOK_SECONDS_LIMIT, "unit": "s", "passed": False})
    mem = results.get("peak_memory_mb")
    if mem:
        add("peak memory (largest process)", max(v for v in mem.values() if v),
            "<=", MEMORY_MB_LIMIT, "MB")
    return out


# --------------------------------------------------------------------------------------
# figure
# --------------------------------------------------------------------------------------
def plot_scaling(rows):
    """Log-log figure of seconds per call against N: lib's NumPy code (solid), the loop
    (dashed) and, where the rows hold it, lib's compiled kernel (dotted)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = {"energy": "C0", "gradient": "C1", "hessian": "C2"}
    for k in KERNELS:
        sel = [r for r in rows if r["kernel"] == k]
        N = [r["N"] for r in sel]
        ax.loglog(N, [1e6 * r["lib"] for r in sel], "o-", color=colours[k], label=f"{k}: lib")
        ax.loglog(N, [1e6 * r["loop"] for r in sel], "s--", color=colours[k], mfc="none",
                  label=f"{k}: loop")
        if all(r.get("compiled") for r in sel):
            ax.loglog(N, [1e6 * r["compiled"] for r in sel], "^:", color=colours[k],
                      label=f"{k}: compiled")
    ax.set_xlabel("number of elements $N$")
    ax.set_ylabel("time per call [µs]")
    ax.set_xticks([r["N"] for r in rows if r["kernel"] == "energy"])
    ax.set_xticklabels([str(r["N"]) for r in rows if r["kernel"] == "energy"])
    ax.minorticks_off()
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 10)            # room for the legend above the curves
    ax.legend(ncol=3, fontsize=8, loc="upper left")
    ax.set_title("Rod kernels: vectorised NumPy, per-element loop, compiled")
    return fig


def machine():
    """A short description of the machine and its load (for the record)."""
    import platform

    import scipy

    return {"python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "cpus": os.cpu_count(),
            "loadavg": [round(x, 2) for x in os.getloadavg()], "platform": platform.platform()}
