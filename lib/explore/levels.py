"""Explore section of the levels chapter: PCC, rod and FEM centrelines of one arm."""
from __future__ import annotations

import numpy as np

from ._common import check_positive, interactive

__all__ = ["levels_shapes", "plot_levels_shapes", "levels_widget"]


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
    from .. import levels as lv

    s = check_positive(slenderness, "slenderness")
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


def levels_widget():
    """Slenderness and tip-load sliders -> PCC, rod and FEM shapes overlaid."""
    import ipywidgets as w

    return interactive(plot_levels_shapes,
                        slenderness=w.FloatSlider(value=10.0, min=3.0, max=30.0, step=1.0,
                                                  description="L/h"),
                        alpha=w.FloatSlider(value=3.0, min=0.0, max=5.0, step=0.5, description="α"))
