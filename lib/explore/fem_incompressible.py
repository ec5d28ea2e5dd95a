"""Explore section of the fem_incompressible chapter: tip ratios of T6, P2/P1, F-bar."""
from __future__ import annotations

import functools

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
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    ny = counts(sizes, "sizes")
    alpha = checks.positive(alpha, "alpha")
    out = _ratios(nu, tuple(int(k) for k in ny), alpha)
    return ny, {form: r.copy() for form, r in out.items()}


@functools.lru_cache(maxsize=16)
def _ratios(nu, ny, alpha):
    """The solves behind :func:`incompressible_ratios`, kept in memory for this session
    (the widget and the page's figure ask for the same starting state; the solves
    themselves are :func:`lib.incompressible.cantilever_solution`'s)."""
    from .. import incompressible as inc

    out = {}
    for form in ("T6", "P2P1", "Fbar"):
        vals = []
        for k in ny:
            try:
                # shared with the chapter's own solves of the same cantilevers
                b, r = inc.cantilever_solution(10 * int(k), int(k), form, nu, alpha)
            except ValueError:
                vals.append(np.nan)
                continue
            vals.append(inc.tip_ratio(b, r.x, alpha))
        out[form] = np.array(vals)
    return out


def plot_incompressible_ratios(nu=0.4999, ax=None, reference=None):
    r"""Plot :func:`incompressible_ratios` against the mesh, with a converged reference.

    ``reference`` (optional) is a :class:`lib.incompressible.TipReference` for the same
    ``nu`` (:func:`lib.incompressible.reference_tip_ratio`): drawn as a line with its error
    bar as a band.  Without one no reference is drawn (computing it takes seconds, too
    slow for a slider).
    """
    from ..incompressible import TipReference

    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    if reference is not None:
        checks.kind(reference, "reference", TipReference,
                    "a converged reference (lib.incompressible.TipReference)")
    fig, ax = axes(ax)
    ny, out = incompressible_ratios(nu)
    for (form, r), mk in zip(out.items(), ("s-", "o-", "^-")):
        ax.plot(np.arange(ny.size), r, mk, label=form)
    if reference is not None:
        v, e = reference.value, reference.error
        ax.axhspan(v - e, v + e, color="0.8", zorder=0)
        ax.axhline(v, color="k", lw=0.8,
                   label=f"reference, $h \\to 0$ (± {100 * reference.relative_error:.2f} %)")
    ax.set_xticks(np.arange(ny.size), [f"{10 * k}×{k}" for k in ny])
    ax.set_xlabel("mesh")
    ax.set_ylabel(r"tip deflection / ($\alpha L/3$)")
    ax.set_title(rf"Neo-Hookean cantilever at $\alpha$ = 1, $\nu$ = {nu:g}")
    ax.legend(fontsize="small")
    return fig


def incompressible_widget():
    """Slider over Poisson's ratio up to 0.5: which elements stay right at large load."""
    import ipywidgets as w

    from ..incompressible import NU_NEAR

    return interactive(plot_incompressible_ratios,
                        nu=w.SelectionSlider(options=[0.3, 0.45, 0.49, 0.499, NU_NEAR, 0.5],
                                             value=NU_NEAR, description="ν"))
