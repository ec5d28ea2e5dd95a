"""Explore section of the fem_incompressible chapter: tip ratios of T6, P2/P1, F-bar."""
from __future__ import annotations

import numpy as np

from ..core import checks
from ._common import axes, counts, interactive

__all__ = ["incompressible_ratios", "plot_incompressible_ratios", "incompressible_widget"]


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
    from .. import incompressible as inc

    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    ny = counts(sizes, "sizes")
    alpha = checks.positive(alpha, "alpha")
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
    from ..crosscheck import SKFEM_REFERENCE

    fig, ax = axes(ax)
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


def incompressible_widget():
    """Slider over Poisson's ratio up to 0.5: which elements stay right at large load."""
    import ipywidgets as w

    return interactive(plot_incompressible_ratios,
                        nu=w.SelectionSlider(options=[0.3, 0.45, 0.49, 0.499, 0.4999, 0.5],
                                             value=0.4999, description="ν"))
