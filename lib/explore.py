"""Interactive explorations: the compute functions behind the book's widgets.

Every chapter has an *Explore* section.  In Jupyter it shows ipywidgets sliders;
the HTML book cannot run a kernel, so it shows a static figure made by the same
compute function at the default slider values.  The compute functions return plain
arrays (no plotting) so the tests can check them; the ``*_widget`` builders wire a
function to sliders and a matplotlib plot.

Compute functions
-----------------
verlet_energy(dt_ratio, N, r_over_L, nsteps)       Verlet on the linear rod at dt = ratio * dt_c
rod_frequency_errors(r_over_L, Ns)                  Omega_1, Omega_2 errors of the discrete rod
pcc_frequency_ratios(n_max, modes)                  PCC / Euler-Bernoulli frequency ratios
locking_ratios(nu, element, sizes)                  FEM tip deflection / beam theory
pendulum_drift(alpha, t_end)                        constraint drift of the Cartesian pendulum
clamp_convergence(clamp, Ns)                        inextensible chain: clamp spring vs convergence order
incompressible_ratios(nu, sizes)                    finite-strain tip ratios of T6, P2/P1, F-bar
tendon_arm_shape(tau_tip, tau_back, tau_mid)         rod shape under three tendons
rod3d_shape(twist, tip_force)                       3-D cantilever under end torque and tip force
levels_shapes(slenderness, alpha)                   PCC, rod and FEM centrelines of one arm
damping_ratios(log10_tau, N)                        Kelvin-Voigt modal damping and the explicit limit
"""
from __future__ import annotations

import numpy as np

from . import beam, constraints, fem, pcc, rod

__all__ = [
    "verlet_energy",
    "rod_frequency_errors",
    "pcc_frequency_ratios",
    "locking_ratios",
    "pendulum_drift",
    "clamp_convergence",
    "plot_clamp_convergence",
    "clamp_widget",
    "plot_verlet_energy",
    "plot_rod_frequency_errors",
    "plot_pcc_frequency_ratios",
    "plot_locking_ratios",
    "plot_pendulum_drift",
    "verlet_widget",
    "rod_widget",
    "pcc_widget",
    "locking_widget",
    "pendulum_widget",
]


def _check_positive(value, name):
    if not (np.isscalar(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def _check_count(value, name, low=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------
# rod: explicit stability and convergence
# ---------------------------------------------------------------------------------
def verlet_energy(dt_ratio, N=20, r_over_L=0.04, nsteps=600):
    r"""Energy ratio E_n / E_0 of velocity Verlet on the rod linearised about straight.

    The linear system is :math:`M\ddot q + Kq = 0` with ``K = rod.hessian(rod, straight)``
    and the lumped ``M``.  The step is ``dt = dt_ratio * 2/omega_max``.  The start
    state has the first bending mode as displacement and a velocity of
    ``1e-3 * omega_max`` times the top (shear-rotation) mode, so the top mode is
    present from the first step and an unstable step shows within a few dozen steps.

    Returns
    -------
    steps : (nsteps + 1,) int        step index n
    ratio : (nsteps + 1,) float      E_n / E_0 (capped at 1e12 once it has blown up)

    Examples
    --------
    >>> n, e = verlet_energy(0.9, N=10, nsteps=100)
    >>> bool(e.max() < 10), bool(verlet_energy(1.1, N=10, nsteps=100)[1].max() > 1e6)
    (True, True)
    """
    dt_ratio = _check_positive(dt_ratio, "dt_ratio")
    N = _check_count(N, "N")
    nsteps = _check_count(nsteps, "nsteps")
    model = rod.make_rod(N, r_over_L=r_over_L)
    K = rod.hessian(model, rod.straight(model))
    m = rod.mass(model)
    omega, shapes = rod.modes(model)
    dt = dt_ratio * 2.0 / omega[-1]
    q = shapes[:, 0].copy()
    v = 1e-3 * omega[-1] * shapes[:, -1]

    def energy(q, v):
        return 0.5 * v @ (m * v) + 0.5 * q @ (K @ q)

    e0 = energy(q, v)
    out = np.empty(nsteps + 1)
    out[0] = 1.0
    a = -(K @ q) / m
    for n in range(1, nsteps + 1):
        v = v + 0.5 * dt * a
        q = q + dt * v
        a = -(K @ q) / m
        v = v + 0.5 * dt * a
        out[n] = energy(q, v) / e0
        if out[n] > 1e12:
            out[n:] = 1e12
            break
    return np.arange(nsteps + 1), out


def rod_frequency_errors(r_over_L, Ns=(10, 20, 40, 80)):
    r"""Relative errors (in %) of the rod's first two bending frequencies.

    Errors are taken against Euler-Bernoulli (:func:`lib.beam.euler_bernoulli_omegas`)
    and against the Timoshenko continuum limit of the same section
    (:func:`lib.beam.timoshenko_omegas`).

    Returns
    -------
    Ns : (m,) int
    err_eb : (m, 2) float, % against Euler-Bernoulli
    err_timo : (m, 2) float, % against Timoshenko
    """
    r_over_L = _check_positive(r_over_L, "r_over_L")
    Ns = np.array([_check_count(int(n), "Ns") for n in Ns])
    eb = beam.euler_bernoulli_omegas(2)
    timo = beam.timoshenko_omegas(2, r_over_L)
    om = np.array([rod.frequencies(rod.make_rod(int(n), r_over_L=r_over_L), k=2) for n in Ns])
    return Ns, 100 * (om / eb - 1), 100 * (om / timo - 1)


# ---------------------------------------------------------------------------------
# PCC, FEM, constraints
# ---------------------------------------------------------------------------------
def pcc_frequency_ratios(n_max=8, modes=3):
    r"""PCC Rayleigh-Ritz frequency / Euler-Bernoulli frequency for n = 1..n_max segments.

    Returns
    -------
    ns : (n_max,) int
    ratio : (n_max, modes) float, NaN where n < mode number (the model has fewer modes)
    """
    n_max = _check_count(n_max, "n_max")
    modes = _check_count(modes, "modes")
    eb = beam.euler_bernoulli_omegas(modes)
    ratio = np.full((n_max, modes), np.nan)
    for n in range(1, n_max + 1):
        k = min(n, modes)
        ratio[n - 1, :k] = pcc.frequencies(n, k=k) / eb[:k]
    return np.arange(1, n_max + 1), ratio


def locking_ratios(nu, element="T3", sizes=(1, 2, 4)):
    r"""Plane-strain cantilever tip deflection / Euler-Bernoulli on meshes 10k x k.

    Uses :func:`lib.fem.cantilever_tip_ratio`; ``sizes`` are the ``ny`` values
    (``nx = 10 ny``, L/h = 10).

    Returns
    -------
    ny : (m,) int
    ratio : (m,) float
    """
    if element not in ("T3", "T6"):
        raise ValueError(f"element must be 'T3' or 'T6', got {element!r}")
    ny = np.array([_check_count(int(s), "sizes") for s in sizes])
    return ny, np.array([fem.cantilever_tip_ratio(10 * int(k), int(k), element, nu) for k in ny])


def pendulum_drift(alpha=0.0, t_end=10.0, n_out=201):
    r"""Constraint drift |x^2 + y^2 - l^2| of the Cartesian pendulum over time.

    Integrates the index-reduced equations with Baumgarte parameters
    ``alpha = beta`` (``alpha = 0``: no stabilisation) using
    :func:`lib.constraints.simulate`, released from the horizontal at rest.

    Returns
    -------
    t : (n_out,) float
    drift : (n_out,) float
    """
    if not (np.isscalar(alpha) and np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a number >= 0, got {alpha!r}")
    t_end = _check_positive(t_end, "t_end")
    sys_ = constraints.pendulum()
    t = np.linspace(0.0, t_end, n_out)
    traj = constraints.simulate(sys_, np.array([1.0, 0.0]), np.zeros(2), t,
                                alpha=float(alpha), beta=float(alpha), rtol=1e-6, atol=1e-9)
    q = np.asarray(traj.q)
    if q.shape[0] != t.size:
        q = q.T
    return t, np.abs(q[:, 0] ** 2 + q[:, 1] ** 2 - 1.0)


def clamp_convergence(clamp=2.0, Ns=(10, 20, 40, 80)):
    r"""First-frequency error of the inextensible hinge chain against Euler-Bernoulli.

    The chain is :func:`lib.rod.kirchhoff_frequencies` with a clamp spring of
    ``clamp * EI / ell`` at the wall (``clamp = 2``: the half element of the book's
    rod; ``clamp = 1``: a full element; a large value approaches a welded, rigid
    first segment, as in MuJoCo's cable).

    Returns
    -------
    Ns : (m,) int
    err : (m,) float, signed relative error of Omega_1
    order : float, observed order from the last two meshes
    """
    clamp = _check_positive(clamp, "clamp")
    Ns = np.array([_check_count(int(n), "Ns") for n in Ns])
    eb = beam.euler_bernoulli_omegas(1)[0]
    err = np.array([rod.kirchhoff_frequencies(int(n), 1, clamp=clamp)[0] / eb - 1 for n in Ns])
    order = float(np.log(abs(err[-2] / err[-1])) / np.log(Ns[-1] / Ns[-2]))
    return Ns, err, order


# ---------------------------------------------------------------------------------
# plots (shared by the widgets and the static figures of the HTML book)
# ---------------------------------------------------------------------------------
def _axes(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        return fig, ax
    return ax.figure, ax


def plot_verlet_energy(dt_ratio=1.01, N=20, r_over_L=0.04, nsteps=600, ax=None):
    fig, ax = _axes(ax)
    n, e = verlet_energy(dt_ratio, N, r_over_L, nsteps)
    ax.semilogy(n, e, lw=1.2)
    ax.axhline(100, color="k", ls=":", lw=0.8)
    ax.set_xlabel("step n")
    ax.set_ylabel(r"$E_n/E_0$")
    ax.set_ylim(0.5, 1e6)
    ax.set_title(rf"Verlet at $\Delta t = {dt_ratio:.3f}\,\Delta t_c$ (N = {N}, r/L = {r_over_L:g})")
    return fig


def plot_rod_frequency_errors(r_over_L=0.04, ax=None):
    fig, ax = _axes(ax)
    Ns, e_eb, e_t = rod_frequency_errors(r_over_L)
    for j, mk in ((0, "o"), (1, "s")):
        ax.loglog(Ns, np.abs(e_t[:, j]), mk + "-", label=rf"$|\Omega_{j+1}$ error$|$ vs Timoshenko")
        ax.loglog(Ns, np.abs(e_eb[:, j]), mk + "--", alpha=0.6, label=rf"$|\Omega_{j+1}$ error$|$ vs Euler–Bernoulli")
    ax.set_xlabel("elements N")
    ax.set_ylabel("relative error (%)")
    ax.set_title(f"Discrete rod, r/L = {r_over_L:g}")
    ax.legend(fontsize=8)
    return fig


def plot_pcc_frequency_ratios(n_max=8, ax=None):
    fig, ax = _axes(ax)
    ns, ratio = pcc_frequency_ratios(n_max, 3)
    for j in range(3):
        ax.plot(ns, ratio[:, j], "o-", label=f"mode {j + 1}")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("segments n")
    ax.set_ylabel("PCC / Euler–Bernoulli")
    ax.set_title("Rayleigh–Ritz: every ratio stays above 1")
    ax.legend()
    return fig


def plot_locking_ratios(nu=0.499, ax=None):
    fig, ax = _axes(ax)
    for el, mk in (("T3", "o-"), ("T6", "s-")):
        ny, r = locking_ratios(nu, el)
        ax.plot(np.arange(ny.size), r, mk, label=el)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(np.arange(ny.size), [f"{10 * k}×{k}" for k in ny])
    ax.set_xlabel("mesh")
    ax.set_ylabel("tip deflection / beam theory")
    ax.set_ylim(0, 1.1)
    ax.set_title(rf"Plane-strain cantilever, $\nu$ = {nu:g}")
    ax.legend()
    return fig


def plot_pendulum_drift(alpha=0.0, ax=None):
    fig, ax = _axes(ax)
    t, d = pendulum_drift(alpha)
    ax.semilogy(t[1:], np.maximum(d[1:], 1e-16))
    ax.set_xlabel("t (s)")
    ax.set_ylabel(r"$|x^2+y^2-l^2|$ (m$^2$)")
    ax.set_title(rf"Cartesian pendulum, Baumgarte $\alpha=\beta$ = {alpha:g}")
    return fig


def plot_clamp_convergence(clamp=2.0, ax=None):
    fig, ax = _axes(ax)
    for c, style in ((2.0, ":"), (1.0, "--")):
        Ns, err, _ = clamp_convergence(c)
        ax.loglog(Ns, np.abs(err), "k" + style, lw=0.8, label=f"clamp {c:g} EI/ℓ (reference)")
    Ns, err, order = clamp_convergence(clamp)
    ax.loglog(Ns, np.abs(err), "o-", label=f"clamp {clamp:g} EI/ℓ: order {order:.2f}")
    ax.set_xlabel("segments N")
    ax.set_ylabel(r"$|\Omega_1/\Omega_1^{EB} - 1|$")
    ax.set_title("Hinge chain: the clamp spring sets the convergence order")
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------
# widgets (need a running kernel: Jupyter, not the static HTML)
# ---------------------------------------------------------------------------------
def _interactive(plot, **sliders):
    import ipywidgets as w
    import matplotlib.pyplot as plt

    def show(**kw):
        fig = plot(**kw)
        plt.show()
        plt.close(fig)

    return w.interactive(show, **sliders)


def verlet_widget():
    """Slider over dt / dt_c and N: watch Verlet blow up past the limit."""
    import ipywidgets as w

    return _interactive(
        plot_verlet_energy,
        dt_ratio=w.FloatSlider(value=1.01, min=0.5, max=1.2, step=0.005, description="Δt/Δt_c"),
        N=w.IntSlider(value=20, min=5, max=80, step=5, description="N"),
    )


def rod_widget():
    """Slider over r/L: the shear model's error against both beam theories."""
    import ipywidgets as w

    return _interactive(plot_rod_frequency_errors,
                        r_over_L=w.FloatLogSlider(value=0.04, base=10, min=-3, max=-1, step=0.1,
                                                  description="r/L"))


def pcc_widget():
    """Slider over the largest segment count n."""
    import ipywidgets as w

    return _interactive(plot_pcc_frequency_ratios,
                        n_max=w.IntSlider(value=8, min=3, max=16, description="n max"))


def locking_widget():
    """Slider over Poisson's ratio: T3 locks as nu -> 0.5, T6 much less."""
    import ipywidgets as w

    return _interactive(plot_locking_ratios,
                        nu=w.SelectionSlider(options=[0.0, 0.3, 0.45, 0.49, 0.499, 0.4999], value=0.499,
                                             description="ν"))


def pendulum_widget():
    """Slider over the Baumgarte gain."""
    import ipywidgets as w

    return _interactive(plot_pendulum_drift,
                        alpha=w.FloatSlider(value=0.0, min=0.0, max=20.0, step=0.5, description="α = β"))


def clamp_widget():
    """Slider over the clamp spring (in EI / ell): only 2 gives second order."""
    import ipywidgets as w

    return _interactive(plot_clamp_convergence,
                        clamp=w.FloatLogSlider(value=2.0, base=10, min=-0.5, max=2, step=0.05,
                                               description="clamp"))


# ---------------------------------------------------------------------------------
# actuation: three tendons on the rod (appended for the actuation chapter)
# ---------------------------------------------------------------------------------
def tendon_arm_shape(tau_tip=20.0, tau_back=0.0, tau_mid=0.0, N=20, offset=0.03):
    r"""Equilibrium shape of a rod driven by three tendons (the actuation chapter's arm).

    Tendon 1 runs at ``+offset`` to the tip, tendon 2 at ``-offset`` to the tip, tendon
    3 at ``+offset`` to the middle node (:func:`lib.actuation.make_tendon`); the rod is
    :func:`lib.rod.make_rod` ``(N)``.  Solved by :func:`lib.actuation.static`.

    Returns
    -------
    xy : (N + 1, 2) centreline nodes, clamp first
    paths : list of three (M_i, 2) tendon eyelet polylines
    tip : (x, y, theta)

    Examples
    --------
    >>> xy, paths, tip = tendon_arm_shape(0.0, 0.0, 0.0, N=4)
    >>> xy[-1].tolist(), len(paths)
    ([1.0, 0.0], 3)
    """
    from . import actuation

    N = _check_count(N, "N", low=2)
    taus = np.array([tau_tip, tau_back, tau_mid], dtype=float)
    if not np.all(np.isfinite(taus)) or np.any(taus < 0):
        raise ValueError(f"tensions must be finite and >= 0, got {taus.tolist()}")
    arm = rod.make_rod(N)
    tendons = [actuation.make_tendon(arm, offset), actuation.make_tendon(arm, -offset),
               actuation.make_tendon(arm, offset, anchor=N // 2)]
    q = actuation.static(arm, tendons, taus, steps=6) if np.any(taus) else rod.straight(arm)
    xy = np.vstack([[0.0, 0.0], np.column_stack([q[1::3], q[2::3]])])
    paths = [actuation.eyelets(arm, t, q) for t in tendons]
    return xy, paths, rod.tip(arm, q)


def plot_tendon_arm(tau_tip=0.0, tau_back=40.0, tau_mid=90.0, ax=None):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(5.2, 4.2))
    else:
        fig = ax.figure
    xy, paths, tip = tendon_arm_shape(tau_tip, tau_back, tau_mid)
    ax.plot(xy[:, 0], xy[:, 1], "k-", lw=3, alpha=0.35, label="centreline")
    for p, c, lab in zip(paths, ("C0", "C3", "C2"),
                         (rf"tip, $+d$: $\tau_1$ = {tau_tip:g}", rf"tip, $-d$: $\tau_2$ = {tau_back:g}",
                          rf"middle, $+d$: $\tau_3$ = {tau_mid:g}")):
        ax.plot(p[:, 0], p[:, 1], "-", color=c, lw=1.2, label=lab)
    ax.plot([tip[0]], [tip[1]], "ko", ms=4)
    ax.set_aspect("equal")
    ax.set_xlim(-0.6, 1.1)
    ax.set_ylim(-0.6, 1.0)
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.set_title(rf"tip angle {np.degrees(tip[2]):.0f}°")
    ax.legend(fontsize=7, loc="lower left")
    return fig


def tendon_arm_widget():
    """Three tension sliders (EI/(dL) units as in the chapter) -> the arm's shape."""
    import ipywidgets as w

    sl = dict(min=0.0, max=120.0, step=5.0)
    return _interactive(plot_tendon_arm,
                        tau_tip=w.FloatSlider(value=0.0, description="τ₁ tip +d", **sl),
                        tau_back=w.FloatSlider(value=40.0, description="τ₂ tip −d", **sl),
                        tau_mid=w.FloatSlider(value=90.0, description="τ₃ mid +d", **sl))


__all__ += ["tendon_arm_shape", "plot_tendon_arm", "tendon_arm_widget"]

# near-incompressible finite strain (chapter fem_incompressible)
# ---------------------------------------------------------------------------------
def incompressible_ratios(nu=0.4999, sizes=(1, 2), alpha=1.0):
    r"""Large-load cantilever tip ratios of T6, Taylor-Hood (P2P1) and F-bar meshes.

    Split neo-Hookean with ``mu = 1`` and Poisson ratio ``nu`` (``nu = 0.5`` only for
    P2P1), L/h = 10, meshes ``10 k x k`` for ``k`` in ``sizes``, tip load
    ``alpha = P L^2/(E' I)``; the ratio is the tip deflection over ``alpha L/3``
    (:func:`lib.incompressible.tip_ratio`).

    Returns
    -------
    ny : (m,) int
    ratios : dict formulation -> (m,) float (NaN where the formulation refuses ``nu``)
    """
    from . import incompressible as inc

    ny = np.array([_check_count(int(s), "sizes") for s in sizes])
    out = {}
    for form in ("T6", "P2P1", "Fbar"):
        vals = []
        for k in ny:
            try:
                b = inc.cantilever(10 * int(k), int(k), form, inc.neo_hookean(1.0, nu))
            except ValueError:
                vals.append(np.nan)
                continue
            vals.append(inc.tip_ratio(b, inc.solve(b, inc.tip_load(b, alpha)).x, alpha))
        out[form] = np.array(vals)
    return ny, out


def plot_incompressible_ratios(nu=0.4999, ax=None):
    from .crosscheck import SKFEM_REFERENCE

    fig, ax = _axes(ax)
    ny, out = incompressible_ratios(nu)
    for (form, r), mk in zip(out.items(), ("s-", "o-", "^-")):
        ax.plot(np.arange(ny.size), r, mk, label=form)
    if nu in SKFEM_REFERENCE:
        ax.axhline(SKFEM_REFERENCE[nu], color="k", lw=0.8, label="scikit-fem P2/P1 80×8")
    ax.set_xticks(np.arange(ny.size), [f"{10 * k}×{k}" for k in ny])
    ax.set_xlabel("mesh")
    ax.set_ylabel(r"tip deflection / ($\alpha L/3$)")
    ax.set_title(rf"Neo-Hookean cantilever at $\alpha$ = 1, $\nu$ = {nu:g}")
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------
# levels: one arm, three models
# ---------------------------------------------------------------------------------
def levels_shapes(slenderness=10.0, alpha=3.0):
    """Centrelines of the PCC, rod and FEM models of the silicone arm under tip load alpha.

    Uses the working discretisations of :mod:`lib.levels`; returns a dict level ->
    (k, 2) centreline in units of L.

    Examples
    --------
    >>> sh = levels_shapes(10.0, 0.0)
    >>> [round(float(sh[k][-1, 0]), 6) for k in ("pcc", "rod", "fem")]
    [1.0, 1.0, 1.0]
    """
    from . import levels as lv

    s = _check_positive(slenderness, "slenderness")
    if not (np.isscalar(alpha) and np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a number >= 0, got {alpha!r}")
    arm = lv.make_arm(s)
    out = {}
    for lev in lv.LEVELS:
        if alpha == 0:
            out[lev] = np.column_stack([np.linspace(0, 1, 21), np.zeros(21)])
            continue
        steps = max(2, int(np.ceil(5 * alpha)))
        xy = lv.solve_static(arm, lev, lv.WORKING[lev], alpha, steps=steps)[0]
        out[lev] = xy / arm.L
    return out


def plot_levels_shapes(slenderness=10.0, alpha=3.0, ax=None):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(5.2, 4.2))
    else:
        fig = ax.figure
    sh = levels_shapes(slenderness, alpha)
    for lev, st in (("pcc", "o-"), ("rod", "s--"), ("fem", "k-")):
        ax.plot(sh[lev][:, 0], sh[lev][:, 1], st, ms=3, lw=1.2, label=lev.upper() if lev != "rod" else "rod")
    ax.set_aspect("equal")
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.set_title(rf"L/h = {slenderness:g}, $\alpha$ = {alpha:g}")
    ax.legend(fontsize=8)
    return fig


def incompressible_widget():
    """Slider over Poisson's ratio up to 0.5: which elements stay right at large load."""
    import ipywidgets as w

    return _interactive(plot_incompressible_ratios,
                        nu=w.SelectionSlider(options=[0.3, 0.45, 0.49, 0.499, 0.4999, 0.5],
                                             value=0.4999, description="ν"))


__all__ += ["incompressible_ratios", "plot_incompressible_ratios", "incompressible_widget"]

# rod3d: twist and tip force -> 3-D shape (appended for the 3-D rod chapter)
# ---------------------------------------------------------------------------------
def rod3d_shape(twist=1.0, tip_force=1.0, N=20, r_over_L=0.04, steps=8):
    r"""Equilibrium centre line of the 3-D cantilever under an end torque and a tip force.

    The rod of :func:`lib.rod3d.make_rod3d` (L = EI = rhoA = 1, nu = 0.5) carries a dead
    torque ``twist`` (in EI/L) about the clamp axis +x and a dead tip force ``tip_force``
    (in EI/L^2) in -y; :func:`lib.rod3d.static` with ``moment="dead"``.  Once the rod bends,
    the fixed torque has a bending component about the deflected tangent's normal and
    pushes the tip out of the x-y plane (twist-bend coupling).

    Returns
    -------
    nodes : (N + 1, 3) ndarray, node positions including the clamp at the origin
    frames : (N, 3, 3) ndarray, element frames (columns d1 = tangent, d2, d3)

    Examples
    --------
    >>> nodes, _ = rod3d_shape(0.0, 0.0, N=4)
    >>> nodes[-1].round(12).tolist()
    [1.0, 0.0, 0.0]
    """
    from . import rod3d

    for name, val in (("twist", twist), ("tip_force", tip_force)):
        if not (np.isscalar(val) and np.isfinite(val)):
            raise ValueError(f"{name} must be a finite number, got {val!r}")
    N = _check_count(N, "N")
    model = rod3d.make_rod3d(N, r_over_L=r_over_L)
    state = rod3d.static(model, [0.0, -float(tip_force), 0.0, float(twist), 0.0, 0.0],
                         steps=steps, moment="dead")
    nodes = np.vstack([np.zeros(3), state.x])
    return nodes, rod3d.rotmat(state.Q)


def plot_rod3d_shape(twist=1.0, tip_force=1.0, N=20, ax=None):
    """The equilibrium of :func:`rod3d_shape` on matplotlib 3-D axes, with its section axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig = plt.figure(figsize=(6.4, 4.4))
        ax = fig.add_subplot(projection="3d")
    fig = ax.figure
    nodes, R = rod3d_shape(twist, tip_force, N)
    ax.plot(nodes[:, 0], nodes[:, 1], nodes[:, 2], "o-", ms=2.5, lw=1.5, label="centre line")
    straight = np.linspace(0, 1, N + 1)
    ax.plot(straight, 0 * straight, 0 * straight, color="0.6", lw=0.8, ls="--", label="unloaded")
    mid = 0.5 * (nodes[1:] + nodes[:-1])
    s = 0.6 / N
    ax.quiver(mid[:, 0], mid[:, 1], mid[:, 2], R[:, 0, 1], R[:, 1, 1], R[:, 2, 1], length=s,
              color="C3", lw=0.8, label="section axis $d_2$")
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.set_zlabel("z / L")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, 0.2)
    ax.set_zlim(-0.4, 0.4)
    ax.view_init(elev=20, azim=-60)
    ax.set_title(f"end torque {twist:g} EI/L, tip force {tip_force:g} EI/L² (−y)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return fig


def rod3d_widget():
    """Sliders over the end torque and the tip force: the 3-D shape of the cantilever."""
    import ipywidgets as w

    return _interactive(
        plot_rod3d_shape,
        twist=w.FloatSlider(value=1.0, min=0.0, max=3.0, step=0.1, description="torque"),
        tip_force=w.FloatSlider(value=1.0, min=0.0, max=3.0, step=0.1, description="force"),
    )


__all__ += ["rod3d_shape", "plot_rod3d_shape", "rod3d_widget"]


def levels_widget():
    """Slenderness and tip-load sliders -> PCC, rod and FEM shapes overlaid."""
    import ipywidgets as w

    return _interactive(plot_levels_shapes,
                        slenderness=w.FloatSlider(value=10.0, min=3.0, max=30.0, step=1.0,
                                                  description="L/h"),
                        alpha=w.FloatSlider(value=3.0, min=0.0, max=5.0, step=0.5, description="α"))


__all__ += ["levels_shapes", "plot_levels_shapes", "levels_widget"]


# ---------------------------------------------------------------------------------
# energy: Kelvin-Voigt damping of the rod -> modal damping ratios, explicit limit
# ---------------------------------------------------------------------------------
def damping_ratios(log10_tau=-3.0, N=20, r_over_L=0.04):
    r"""Modal damping ratios ``zeta_k = tau omega_k / 2`` of the Kelvin-Voigt rod.

    The linearised rod of :func:`lib.rod.make_rod` (``N`` elements, ``r/L``) with the
    retardation time ``tau = 10**log10_tau``: returns its undamped frequencies, the
    ratios (:func:`lib.damping.modal_damping_ratios` with ``beta = tau``) and the damped
    explicit limit over the undamped one ``2/omega_max``
    (:func:`lib.integrate.damped_critical_step`).

    Returns
    -------
    omega : (n,) ndarray;  zeta : (n,) ndarray;  ratio : float (<= 1)

    Examples
    --------
    >>> om, z, ratio = damping_ratios(-8.0, N=4)
    >>> bool(np.allclose(z, 1e-8 * om / 2)), round(ratio, 4)
    (True, 1.0)
    """
    from . import damping, integrate

    if not (np.isscalar(log10_tau) and np.isfinite(log10_tau)):
        raise ValueError(f"log10_tau must be a finite number, got {log10_tau!r}")
    N = _check_count(N, "N")
    om = rod.frequencies(rod.make_rod(N, _check_positive(r_over_L, "r_over_L")))
    zeta = damping.modal_damping_ratios(om, beta=10.0 ** float(log10_tau))
    ratio = integrate.damped_critical_step(om, zeta) / integrate.critical_step(om[-1])
    return om, zeta, float(ratio)


def plot_damping_ratios(log10_tau=-3.0, N=20, ax=None):
    """The ratios of :func:`damping_ratios` against omega_k, with the overdamped line zeta = 1."""
    fig, ax = _axes(ax)
    om, zeta, ratio = damping_ratios(log10_tau, N)
    ax.loglog(om, zeta, "o", ms=3, color="C0")
    ax.axhline(1.0, color="C3", lw=0.8, ls="--")
    ax.set_xlabel("undamped ω_k")
    ax.set_ylabel("damping ratio ζ_k")
    ax.set_title(f"τ = {10.0 ** log10_tau:.1e}, N = {int(N)}: {int((zeta >= 1).sum())} overdamped "
                 f"modes, Δt_c = {ratio:.3f} × 2/ω_max", fontsize=9)
    return fig


def damping_widget():
    """Sliders over log10 tau and N: which modes Kelvin-Voigt overdamps, and the step it costs."""
    import ipywidgets as w

    return _interactive(
        plot_damping_ratios,
        log10_tau=w.FloatSlider(value=-3.0, min=-6.0, max=-1.0, step=0.25, description="log₁₀ τ"),
        N=w.SelectionSlider(options=[10, 20, 40, 80], value=20, description="N"),
    )


__all__ += ["damping_ratios", "plot_damping_ratios", "damping_widget"]
