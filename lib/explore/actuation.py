"""Explore section of the actuation chapter: the rod's shape under three tendons."""
from __future__ import annotations

import numpy as np

from .. import rod
from ..core import checks
from ._common import axes, interactive

__all__ = ["tendon_arm_shape", "plot_tendon_arm", "tendon_arm_widget"]


def tendon_arm_shape(tau_tip=20.0, tau_back=0.0, tau_mid=0.0, N=20, offset=0.03):
    r"""Equilibrium shape of a rod driven by three tendons (the actuation chapter's arm).

    Tendon 1 runs at ``+offset`` to the tip, tendon 2 at ``-offset`` to the tip, tendon
    3 at ``+offset`` to the middle node (:func:`lib.actuation.make_tendon`); the rod is
    :func:`lib.rod.make_rod` ``(N)``.  Solved by :func:`lib.actuation.static`.

    Returns
    -------
    xy : (N + 1, 2) centreline nodes, clamp first
    paths : list of three (M_i, 2) tendon eyelet polylines
    tip : (x, y, theta)

    Examples
    --------
    >>> xy, paths, tip = tendon_arm_shape(0.0, 0.0, 0.0, N=4)
    >>> xy[-1].tolist(), len(paths)
    ([1.0, 0.0], 3)
    """
    from .. import actuation

    taus = np.array([checks.nonnegative(tau_tip, "tau_tip"), checks.nonnegative(tau_back, "tau_back"),
                     checks.nonnegative(tau_mid, "tau_mid")])
    N = checks.integer(N, "N", low=2)
    offset = checks.real(offset, "offset")
    arm = rod.make_rod(N)
    tendons = [actuation.make_tendon(arm, offset), actuation.make_tendon(arm, -offset),
               actuation.make_tendon(arm, offset, anchor=N // 2)]
    q = actuation.static(arm, tendons, taus, steps=6) if np.any(taus) else rod.straight(arm)
    xy = np.vstack([[0.0, 0.0], np.column_stack([q[1::3], q[2::3]])])
    paths = [actuation.eyelets(arm, t, q) for t in tendons]
    return xy, paths, rod.tip(arm, q)


def plot_tendon_arm(tau_tip=0.0, tau_back=40.0, tau_mid=90.0, ax=None):
    fig, ax = axes(ax, (5.2, 4.2))
    xy, paths, tip = tendon_arm_shape(tau_tip, tau_back, tau_mid)
    ax.plot(xy[:, 0], xy[:, 1], "k-", lw=3, alpha=0.35, label="centreline")
    for p, c, lab in zip(paths, ("C0", "C3", "C2"),
                         (rf"tip, $+d$: $\tau_1$ = {tau_tip:g}", rf"tip, $-d$: $\tau_2$ = {tau_back:g}",
                          rf"middle, $+d$: $\tau_3$ = {tau_mid:g}")):
        ax.plot(p[:, 0], p[:, 1], "-", color=c, lw=1.2, label=lab)
    ax.plot([tip[0]], [tip[1]], "ko", ms=4)
    ax.set_aspect("equal")
    ax.set_xlim(-0.6, 1.1)
    ax.set_xticks([-0.5, 0.0, 0.5, 1.0])
    ax.set_ylim(-0.6, 1.0)
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.set_title(rf"tip angle {np.degrees(tip[2]):.0f}°")
    ax.legend(fontsize="small", loc="lower left")
    return fig


def tendon_arm_widget():
    """Three tension sliders (EI/(dL) units as in the chapter) -> the arm's shape."""
    return interactive(plot_tendon_arm, tau_tip=(0.0, 0.0, 120.0, 5.0, "τ₁ tip +d"),
                       tau_back=(40.0, 0.0, 120.0, 5.0, "τ₂ tip −d"),
                       tau_mid=(90.0, 0.0, 120.0, 5.0, "τ₃ mid +d"))
