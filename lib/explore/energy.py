"""Explore section of the energy chapter: Kelvin-Voigt modal damping and the damped step limit."""
from __future__ import annotations

import numpy as np

from .. import rod
from ..core import checks
from ._common import axes, finish, interactive

__all__ = ["damping_ratios", "plot_damping_ratios", "damping_widget"]


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
    from .. import damping, integrate

    log10_tau = checks.real(log10_tau, "log10_tau")
    N = checks.integer(N, "N", low=1)
    om = rod.frequencies(rod.make_rod(N, checks.positive(r_over_L, "r_over_L")))
    zeta = damping.modal_damping_ratios(om, beta=10.0 ** float(log10_tau))
    ratio = integrate.damped_critical_step(om, zeta) / integrate.critical_step(om[-1])
    return om, zeta, float(ratio)


def plot_damping_ratios(log10_tau=-3.0, N=20, ax=None):
    """The ratios of :func:`damping_ratios` against omega_k, with the overdamped line zeta = 1."""
    fig, ax = axes(ax)
    om, zeta, ratio = damping_ratios(log10_tau, N)
    ax.loglog(om, zeta, "o", ms=3, color="C0")
    ax.axhline(1.0, color="C3", lw=0.8, ls="--")
    return finish(ax, "undamped ω_k", "damping ratio ζ_k",
                  f"τ = {10.0 ** log10_tau:.1e}, N = {int(N)}: {int((zeta >= 1).sum())} overdamped "
                  f"modes\nΔt_c = {ratio:.3f} × 2/ω_max", fontsize="medium")


def damping_widget():
    """Sliders over log10 tau and N: which modes Kelvin-Voigt overdamps, and the step it costs."""
    import ipywidgets as w

    return interactive(
        plot_damping_ratios,
        log10_tau=w.FloatSlider(value=-3.0, min=-6.0, max=-1.0, step=0.25, description="log₁₀ τ"),
        N=w.SelectionSlider(options=[10, 20, 40, 80], value=20, description="N"),
    )
