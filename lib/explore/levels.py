"""Explore section of the levels chapter: PCC, rod and FEM centrelines of one arm."""
from __future__ import annotations

import numpy as np

from ..core import checks
from ._common import axes, finish, interactive

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

    s = checks.positive(slenderness, "slenderness")
    alpha = checks.nonnegative(alpha, "alpha")
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
    fig, ax = axes(ax, (5.2, 4.2))
    sh = levels_shapes(slenderness, alpha)
    for lev, st in (("pcc", "o-"), ("rod", "s--"), ("fem", "k-")):
        ax.plot(sh[lev][:, 0], sh[lev][:, 1], st, ms=3, lw=1.2, label=lev.upper() if lev != "rod" else "rod")
    ax.set_aspect("equal")
    return finish(ax, "x / L", "y / L", rf"L/h = {slenderness:g}, $\alpha$ = {alpha:g}",
                  dict(fontsize="small"))


def levels_widget():
    """Slenderness and tip-load sliders -> PCC, rod and FEM shapes overlaid."""
    return interactive(plot_levels_shapes,
                        slenderness=(10.0, 3.0, 30.0, 1.0, "L/h"), alpha=(3.0, 0.0, 5.0, 0.5, "α"))
