"""Explore section of the actuation chapter: the rod's shape under three tendons, a
displacement-controlled cable on a rod sagging under its weight, and the PneuNet-like FEM
arm inflated by the pressure in its closed chambers."""
from __future__ import annotations

import numpy as np

from .. import rod
from ..core import checks
from ._common import axes, finish, interactive

__all__ = ["tendon_arm_shape", "plot_tendon_arm", "tendon_arm_widget", "cable_arm_shape",
           "plot_cable_arm", "cable_arm_widget", "pneumatic_arm_shape", "plot_pneumatic_arm",
           "pneumatic_arm_widget"]


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


def _shape_frame(ax, xlim, ylim, xlabel, ylabel, title):
    """An arm-shape panel: equal axes with these limits, labels, title, legend lower left."""
    ax.set_aspect("equal")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    return finish(ax, xlabel, ylabel, title, legend=dict(fontsize="small", loc="lower left"))


def plot_tendon_arm(tau_tip=0.0, tau_back=40.0, tau_mid=90.0, ax=None):
    _, ax = axes(ax, (5.2, 4.2))
    xy, paths, tip = tendon_arm_shape(tau_tip, tau_back, tau_mid)
    ax.plot(xy[:, 0], xy[:, 1], "k-", lw=3, alpha=0.35, label="centreline")
    for p, c, lab in zip(paths, ("C0", "C3", "C2"),
                         (rf"tip, $+d$: $\tau_1$ = {tau_tip:g}", rf"tip, $-d$: $\tau_2$ = {tau_back:g}",
                          rf"middle, $+d$: $\tau_3$ = {tau_mid:g}")):
        ax.plot(p[:, 0], p[:, 1], "-", color=c, lw=1.2, label=lab)
    ax.plot([tip[0]], [tip[1]], "ko", ms=4)
    ax.set_xticks([-0.5, 0.0, 0.5, 1.0])
    return _shape_frame(ax, (-0.6, 1.1), (-0.6, 1.0), "x / L", "y / L",
                        rf"tip angle {np.degrees(tip[2]):.0f}°")


def tendon_arm_widget():
    """Three tension sliders (EI/(dL) units as in the chapter) -> the arm's shape."""
    return interactive(plot_tendon_arm, tau_tip=(0.0, 0.0, 120.0, 5.0, "τ₁ tip +d"),
                       tau_back=(40.0, 0.0, 120.0, 5.0, "τ₂ tip −d"),
                       tau_mid=(90.0, 0.0, 120.0, 5.0, "τ₃ mid +d"))


def cable_arm_shape(stroke=0.02, log10_k=6.0, N=20, offset=0.03, gravity=3.0):
    r"""A horizontal rod sagging under its weight, lifted by a displacement-controlled cable.

    The rod is :func:`lib.rod.make_rod` ``(N)`` under gravity ``rho A g L^3 / EI =
    gravity``, the tendon at ``+offset`` to the tip; the motor has reeled in ``stroke``
    (negative: paid out) through a series spring of stiffness ``10**log10_k`` EI/L^3
    (:func:`lib.actuation.cable_stroke_static`).

    Returns
    -------
    xy : (N + 1, 2) centreline nodes, clamp first
    path : (M, 2) tendon eyelet polyline
    tip : (x, y, theta)
    tension : float (0 when slack); switch : float, the stroke at which the cable turns taut

    Examples
    --------
    >>> xy, path, tip, tension, switch = cable_arm_shape(-0.05, N=6)
    >>> tension, round(float(switch), 4)
    (0.0, -0.0134)
    """
    from .. import actuation

    stroke = checks.real(stroke, "stroke")
    k = 10.0 ** checks.real(log10_k, "log10_k")
    N = checks.integer(N, "N", low=2)
    offset = checks.real(offset, "offset")
    gravity = checks.nonnegative(gravity, "gravity")
    arm = rod.make_rod(N)
    tendon = actuation.make_tendon(arm, offset)
    res = actuation.cable_stroke_static(arm, tendon, stroke, stiffness=k,
                                        grav=gravity * arm.EI / (arm.rhoA * arm.L ** 3), steps=5)
    xy = np.vstack([[0.0, 0.0], np.column_stack([res.q[1::3], res.q[2::3]])])
    return xy, actuation.eyelets(arm, tendon, res.q), rod.tip(arm, res.q), res.tension, res.switch_stroke


def plot_cable_arm(stroke=0.02, log10_k=6.0, ax=None):
    _, ax = axes(ax, (5.2, 4.2))
    xy, path, tip, tension, switch = cable_arm_shape(stroke, log10_k)
    ax.plot(xy[:, 0], xy[:, 1], "k-", lw=3, alpha=0.35, label="centreline")
    ax.plot(path[:, 0], path[:, 1], "-", color="C0" if tension > 0 else "0.6", lw=1.2,
            label=f"cable: {'taut' if tension > 0 else 'slack'}, switch at s = {switch:.4f} L")
    ax.plot([tip[0]], [tip[1]], "ko", ms=4)
    return _shape_frame(ax, (-0.3, 1.1), (-0.6, 0.8), "x / L", "y / L",
                        rf"$\tau d L/EI$ = {tension * 0.03:.3f}, "
                        rf"tip angle {np.degrees(tip[2]):.0f}°")


def cable_arm_widget():
    """Stroke and series-spring sliders -> the sagging arm's shape and the cable tension."""
    return interactive(plot_cable_arm, stroke=(0.02, -0.04, 0.12, 0.005, "stroke s/L"),
                       log10_k=(6.0, 2.0, 6.0, 0.25, "log10 k_t"))


def pneumatic_arm_shape(pressure=0.1, refine=1):
    r"""The PneuNet-like arm of :func:`lib.pneumatic.make_arm` (6 x 1, five closed chambers,
    T6, ``24 refine x 4 refine`` cells, ``nu`` = 0.3) at the chamber pressure ``pressure``
    (in units of E; negative: suction), solved by :func:`lib.pneumatic.pressure_static` in
    ``max(2, ceil(160 |pressure|))`` increments.

    Returns
    -------
    outline : (M, 2) the deformed outer boundary, closed (first point repeated)
    chambers : list of five (M_k, 2) deformed chamber walls, closed
    tip_angle : float, rad (counter-clockwise positive)
    volume_change : float, the change of the five chambers' total volume (area)

    Examples
    --------
    >>> outline, chambers, angle, dV = pneumatic_arm_shape(0.0)
    >>> len(chambers), angle, round(dV, 12), outline[0].tolist() == outline[-1].tolist()
    (5, 0.0, 0.0, True)
    """
    from .. import pneumatic
    from ..fe import face_nodes

    pressure = checks.real(pressure, "pressure")
    refine = checks.integer(refine, "refine", low=1)
    arm = pneumatic.make_arm(24 * refine, 4 * refine, "T6")
    u = np.zeros(arm.n_dofs)
    if pressure != 0.0:
        steps = max(2, int(np.ceil(160 * abs(pressure))))
        u = pneumatic.pressure_static(arm, pressure, steps=steps).states[-1]
    mesh = arm.model.mesh
    x = mesh.nodes + u.reshape(-1, 2)
    ring = []
    for side in ("bottom", "right", "top", "left"):
        idx = face_nodes(mesh, side)                     # sorted along the face
        ring.append(idx if side in ("bottom", "right") else idx[::-1])
    loop = np.concatenate([r[:-1] for r in ring] + [ring[0][:1]])
    chambers = [x[np.concatenate([c.edges[:, :-1].ravel(), c.edges[:1, 0]])]
                for c in arm.cavities]
    V0 = 0.125 * arm.n_cavities
    return (x[loop], chambers, pneumatic.tip_angle(arm, u),
            float(pneumatic.volumes(arm, u).sum() - V0))


def plot_pneumatic_arm(pressure=0.1, ax=None):
    _, ax = axes(ax, (6.4, 3.0))
    outline, chambers, angle, dV = pneumatic_arm_shape(pressure)
    ref, ref_ch, _, _ = pneumatic_arm_shape(0.0)
    ax.plot(ref[:, 0], ref[:, 1], "-", color="0.7", lw=0.8, label="at rest")
    for c in ref_ch:
        ax.plot(c[:, 0], c[:, 1], "-", color="0.7", lw=0.6)
    ax.fill(outline[:, 0], outline[:, 1], color="0.85", lw=0)
    ax.plot(outline[:, 0], outline[:, 1], "k-", lw=1.0, label=rf"$p$ = {pressure:g} $E$")
    for k, c in enumerate(chambers):
        ax.fill(c[:, 0], c[:, 1], color="C3", alpha=0.6, lw=0,
                label="chambers" if k == 0 else None)
    return _shape_frame(ax, (-0.3, 6.6), (-2.4, 1.0), "x", "y",
                        rf"tip angle {np.degrees(angle):.1f}°, chamber volume change {dV:+.3f}")


def pneumatic_arm_widget():
    """A pressure slider (units of E) -> the PneuNet-like arm's shape and its chambers."""
    return interactive(plot_pneumatic_arm, pressure=(0.1, -0.04, 0.2, 0.01, "p / E"))
