"""Explore section of the crosscheck chapter: the clamp spring and the hinge chain's order."""
from __future__ import annotations

import numpy as np

from .. import beam, rod
from ..core import checks
from ._common import axes, counts, finish, interactive

__all__ = ["clamp_convergence", "plot_clamp_convergence", "clamp_widget"]


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
    clamp = checks.positive(clamp, "clamp")
    Ns = counts(Ns, "Ns", at_least=2)
    eb = beam.euler_bernoulli_omegas(1)[0]
    err = np.array([rod.kirchhoff_frequencies(int(n), 1, clamp=clamp)[0] / eb - 1 for n in Ns])
    order = float(np.log(abs(err[-2] / err[-1])) / np.log(Ns[-1] / Ns[-2]))
    return Ns, err, order


def plot_clamp_convergence(clamp=2.0, ax=None):
    fig, ax = axes(ax)
    for c, style in ((2.0, ":"), (1.0, "--")):
        Ns, err, _ = clamp_convergence(c)
        ax.loglog(Ns, np.abs(err), "k" + style, lw=0.8, label=f"clamp {c:g} EI/ℓ (reference)")
    Ns, err, order = clamp_convergence(clamp)
    ax.loglog(Ns, np.abs(err), "o-", label=f"clamp {clamp:g} EI/ℓ: order {order:.2f}")
    ax.set_xticks(Ns, [f"{int(n)}" for n in Ns])
    ax.minorticks_off()
    return finish(ax, "segments N", r"$|\Omega_1/\Omega_1^{EB} - 1|$",
                  "Hinge chain: the clamp sets the order", dict(fontsize="small"))


def clamp_widget():
    """Slider over the clamp spring (in EI / ell): only 2 gives second order."""
    import ipywidgets as w

    return interactive(plot_clamp_convergence,
                        clamp=w.FloatLogSlider(value=2.0, base=10, min=-0.5, max=2, step=0.05,
                                               description="clamp"))
