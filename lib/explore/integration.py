"""Explore section of the integration chapter: Verlet's energy near the step limit."""
from __future__ import annotations

import numpy as np

from .. import rod
from ..core import checks
from ._common import axes, finish, interactive

__all__ = ["verlet_energy", "plot_verlet_energy", "verlet_widget"]


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
    dt_ratio = checks.positive(dt_ratio, "dt_ratio")
    N = checks.integer(N, "N", low=1)
    r_over_L = checks.positive(r_over_L, "r_over_L")
    nsteps = checks.integer(nsteps, "nsteps", low=1)
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


def plot_verlet_energy(dt_ratio=1.01, N=20, r_over_L=0.04, nsteps=600, ax=None):
    fig, ax = axes(ax)
    n, e = verlet_energy(dt_ratio, N, r_over_L, nsteps)
    ax.semilogy(n, e, lw=1.2)
    ax.axhline(100, color="k", ls=":", lw=0.8)
    ax.set_ylim(0.5, 1e6)
    return finish(ax, "step n", r"$E_n/E_0$",
                  rf"Verlet at $\Delta t = {dt_ratio:.3f}\,\Delta t_c$ (N = {N}, r/L = {r_over_L:g})")


def verlet_widget():
    """Slider over dt / dt_c and N: watch Verlet blow up past the limit."""
    import ipywidgets as w

    return interactive(plot_verlet_energy, dt_ratio=(1.01, 0.5, 1.2, 0.005, "Δt/Δt_c"),
                       N=w.IntSlider(value=20, min=5, max=80, step=5, description="N"))
