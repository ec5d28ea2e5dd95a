"""Explore section of the pcc chapter: PCC / Euler-Bernoulli frequency ratios."""
from __future__ import annotations

import numpy as np

from .. import beam, pcc
from ..core import checks
from ._common import axes, finish, interactive

__all__ = ["pcc_frequency_ratios", "plot_pcc_frequency_ratios", "pcc_widget"]


def pcc_frequency_ratios(n_max=8, modes=3):
    r"""PCC Rayleigh-Ritz frequency / Euler-Bernoulli frequency for n = 1..n_max segments.

    Returns
    -------
    ns : (n_max,) int
    ratio : (n_max, modes) float, NaN where n < mode number (the model has fewer modes)
    """
    n_max = checks.integer(n_max, "n_max", low=1)
    modes = checks.integer(modes, "modes", low=1)
    eb = beam.euler_bernoulli_omegas(modes)
    ratio = np.full((n_max, modes), np.nan)
    for n in range(1, n_max + 1):
        k = min(n, modes)
        ratio[n - 1, :k] = pcc.frequencies(n, k=k) / eb[:k]
    return np.arange(1, n_max + 1), ratio


def plot_pcc_frequency_ratios(n_max=8, ax=None):
    fig, ax = axes(ax)
    ns, ratio = pcc_frequency_ratios(n_max, 3)
    for j in range(3):
        ax.plot(ns, ratio[:, j], "o-", label=f"mode {j + 1}")
    ax.axhline(1.0, color="k", lw=0.8)
    return finish(ax, "segments n", "PCC / Euler–Bernoulli", "Rayleigh–Ritz: every ratio stays above 1",
                  {})


def pcc_widget():
    """Slider over the largest segment count n."""
    import ipywidgets as w

    return interactive(plot_pcc_frequency_ratios,
                        n_max=w.IntSlider(value=8, min=3, max=16, description="n max"))
