"""Explore section of the energy chapter: Kelvin-Voigt modal damping and the damped step limit."""
from __future__ import annotations

import numpy as np

from .. import rod
from ._common import axes, check_count, check_positive, interactive

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

    if not (np.isscalar(log10_tau) and np.isfinite(log10_tau)):
        raise ValueError(f"log10_tau must be a finite number, got {log10_tau!r}")
    N = check_count(N, "N")
    om = rod.frequencies(rod.make_rod(N, check_positive(r_over_L, "r_over_L")))
    zeta = damping.modal_damping_ratios(om, beta=10.0 ** float(log10_tau))
    ratio = integrate.damped_critical_step(om, zeta) / integrate.critical_step(om[-1])
    return om, zeta, float(ratio)


def plot_damping_ratios(log10_tau=-3.0, N=20, ax=None):
    """The ratios of :func:`damping_ratios` against omega_k, with the overdamped line zeta = 1."""
    fig, ax = axes(ax)
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

    return interactive(
        plot_damping_ratios,
        log10_tau=w.FloatSlider(value=-3.0, min=-6.0, max=-1.0, step=0.25, description="log₁₀ τ"),
        N=w.SelectionSlider(options=[10, 20, 40, 80], value=20, description="N"),
    )
