"""Explore section of the rod chapter: Omega_1, Omega_2 errors against both beam theories."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import beam, rod
from ..core import checks
from ._common import axes, counts, finish, interactive

__all__ = ["rod_frequency_errors", "plot_rod_frequency_errors", "rod_widget"]


def rod_frequency_errors(r_over_L, Ns=(10, 20, 40, 80)):
    r"""Relative errors (in %) of the rod's first two bending frequencies.

    Errors are taken against Euler-Bernoulli (:func:`lib.beam.euler_bernoulli_omegas`)
    and against the Timoshenko continuum limit of the same section
    (:func:`lib.beam.timoshenko_omegas`).

    Returns
    -------
    Ns : (m,) int
    err_eb : (m, 2) float, % against Euler-Bernoulli
    err_timo : (m, 2) float, % against Timoshenko
    """
    r_over_L = checks.positive(r_over_L, "r_over_L")
    Ns = counts(Ns, "Ns")
    e_eb, e_t = _frequency_errors(float(r_over_L), tuple(int(n) for n in Ns))
    return Ns, e_eb.copy(), e_t.copy()


@lru_cache(maxsize=16)
def _frequency_errors(r_over_L, Ns):
    # computed once per (r/L, Ns) in a session: the widget's first drawing, the
    # chapter's figure and its checks ask for the same numbers (read-only copies kept)
    eb = beam.euler_bernoulli_omegas(2)
    timo = beam.timoshenko_omegas(2, r_over_L)
    om = np.array([rod.frequencies(rod.make_rod(n, r_over_L=r_over_L), k=2) for n in Ns])
    out = 100 * (om / eb - 1), 100 * (om / timo - 1)
    for a in out:
        a.setflags(write=False)
    return out


def plot_rod_frequency_errors(r_over_L=0.04, ax=None):
    fig, ax = axes(ax)
    Ns, e_eb, e_t = rod_frequency_errors(r_over_L)
    for j, mk in ((0, "o"), (1, "s")):
        ax.loglog(Ns, np.abs(e_t[:, j]), mk + "-", label=rf"$|\Omega_{j+1}$ error$|$ vs Timoshenko")
        ax.loglog(Ns, np.abs(e_eb[:, j]), mk + "--", alpha=0.6, label=rf"$|\Omega_{j+1}$ error$|$ vs Euler–Bernoulli")
    ax.set_xticks(Ns, [f"{int(n)}" for n in Ns])
    ax.minorticks_off()
    return finish(ax, "elements N", "relative error (%)", f"Discrete rod, r/L = {r_over_L:g}",
                  dict(fontsize="small"))


def rod_widget():
    """Slider over r/L: the shear model's error against both beam theories."""
    import ipywidgets as w

    return interactive(plot_rod_frequency_errors,
                        r_over_L=w.FloatLogSlider(value=0.04, base=10, min=-3, max=-1, step=0.1,
                                                  description="r/L"))
