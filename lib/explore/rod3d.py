"""Explore section of the rod3d chapter: the 3-D cantilever under an end torque and a tip force."""
from __future__ import annotations

import numpy as np

from ..core import checks
from ._common import interactive

__all__ = ["rod3d_shape", "plot_rod3d_shape", "rod3d_widget"]


def rod3d_shape(twist=1.0, tip_force=1.0, N=20, r_over_L=0.04, steps=8):
    r"""Equilibrium centre line of the 3-D cantilever under an end torque and a tip force.

    The rod of :func:`lib.rod3d.make_rod3d` (L = EI = rhoA = 1, nu = 0.5) carries a dead
    torque ``twist`` (in EI/L) about the clamp axis +x and a dead tip force ``tip_force``
    (in EI/L^2) in -y; :func:`lib.rod3d.static` with ``moment="dead"``.  Once the rod bends,
    the fixed torque has a bending component about the deflected tangent's normal and
    pushes the tip out of the x-y plane (twist-bend coupling).

    Returns
    -------
    nodes : (N + 1, 3) ndarray, node positions including the clamp at the origin
    frames : (N, 3, 3) ndarray, element frames (columns d1 = tangent, d2, d3)

    Examples
    --------
    >>> nodes, _ = rod3d_shape(0.0, 0.0, N=4)
    >>> nodes[-1].round(12).tolist()
    [1.0, 0.0, 0.0]
    """
    from .. import rod3d

    twist, tip_force = checks.real(twist, "twist"), checks.real(tip_force, "tip_force")
    N = checks.integer(N, "N", low=1)
    r_over_L = checks.positive(r_over_L, "r_over_L")
    steps = checks.integer(steps, "steps", low=1)
    model = rod3d.make_rod3d(N, r_over_L=r_over_L)
    state = rod3d.static(model, [0.0, -float(tip_force), 0.0, float(twist), 0.0, 0.0],
                         steps=steps, moment="dead")
    nodes = np.vstack([np.zeros(3), state.x])
    return nodes, rod3d.rotmat(state.Q)


def plot_rod3d_shape(twist=1.0, tip_force=1.0, N=20, ax=None):
    """The equilibrium of :func:`rod3d_shape` on matplotlib 3-D axes, with its section axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig = plt.figure(figsize=(6.4, 4.4))
        ax = fig.add_subplot(projection="3d")
    fig = ax.figure
    nodes, R = rod3d_shape(twist, tip_force, N)
    ax.plot(nodes[:, 0], nodes[:, 1], nodes[:, 2], "o-", ms=2.5, lw=1.5, label="centre line")
    straight = np.linspace(0, 1, N + 1)
    ax.plot(straight, 0 * straight, 0 * straight, color="0.6", lw=0.8, ls="--", label="unloaded")
    mid = 0.5 * (nodes[1:] + nodes[:-1])
    s = 0.6 / N
    ax.quiver(mid[:, 0], mid[:, 1], mid[:, 2], R[:, 0, 1], R[:, 1, 1], R[:, 2, 1], length=s,
              color="C3", lw=0.8, label="section axis $d_2$")
    ax.set_xlabel("x / L")
    ax.set_ylabel("y / L")
    ax.set_zlabel("z / L")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, 0.2)
    ax.set_zlim(-0.4, 0.4)
    ax.view_init(elev=20, azim=-60)
    ax.set_title(f"end torque {twist:g} EI/L, tip force {tip_force:g} EI/L² (−y)")
    ax.legend(fontsize="small", loc="upper left")
    ax.set_xticks([0.0, 0.4, 0.8])
    ax.set_yticks([-0.6, -0.2, 0.2])
    ax.set_zticks([-0.4, -0.2, 0.0, 0.2, 0.4])
    return fig


def rod3d_widget():
    """Sliders over the end torque and the tip force: the 3-D shape of the cantilever."""
    return interactive(plot_rod3d_shape, twist=(1.0, 0.0, 3.0, 0.1, "torque"),
                       tip_force=(1.0, 0.0, 3.0, 0.1, "force"))
