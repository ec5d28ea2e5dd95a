"""Explore section of the fem chapter: T3 and T6 tip deflection / beam theory as nu -> 0.5."""
from __future__ import annotations

import numpy as np

from .. import fem
from ..core import checks
from ._common import axes, counts, interactive

__all__ = ["locking_ratios", "plot_locking_ratios", "locking_widget"]


def locking_ratios(nu, element="T3", sizes=(1, 2, 4)):
    r"""Plane-strain cantilever tip deflection / Euler-Bernoulli on meshes 10k x k.

    Uses :func:`lib.fem.cantilever_tip_ratio`; ``sizes`` are the ``ny`` values
    (``nx = 10 ny``, L/h = 10).

    Returns
    -------
    ny : (m,) int
    ratio : (m,) float
    """
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False, include_high=False)
    checks.choice(element, "element", ("T3", "T6"))
    ny = counts(sizes, "sizes")
    return ny, np.array([fem.cantilever_tip_ratio(10 * int(k), int(k), element, nu) for k in ny])


def plot_locking_ratios(nu=0.499, ax=None):
    fig, ax = axes(ax)
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


#: Poisson's ratios the locking widget's slider offers (the chapter quotes its range).
NU_OPTIONS = (0.0, 0.3, 0.45, 0.49, 0.499, 0.4999)


def locking_widget():
    """Slider over Poisson's ratio: T3 locks as nu -> 0.5, T6 much less."""
    import ipywidgets as w

    return interactive(plot_locking_ratios,
                        nu=w.SelectionSlider(options=list(NU_OPTIONS), value=0.499,
                                             description="ν"))
