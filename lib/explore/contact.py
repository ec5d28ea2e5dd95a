"""The contact chapter's widget: push a rod along a plane, watch it stick or slip.

Compute functions return plain arrays (no plotting), so the tests can check them; the
plot function draws them; the widget wires the plot to two sliders.  (It moves into
``lib.explore`` with the other chapters' widgets.)

Compute functions
-----------------
push(force_ratio, mu_static)   the rod's displacement under an axial pull, formulation (b),
                               against the rigid-body closed form
"""
from __future__ import annotations

from ..core import checks
from .. import contact as C
from ._common import axes, finish, interactive

__all__ = ["push", "plot_push", "push_widget"]


def push(force_ratio=0.9, mu_static=0.8, kinetic_fraction=0.5, steps=25):
    r"""Displacement of the validation rod under a forward pull, complementarity form.

    The pull is ``force_ratio`` times ``mu_static m g``; the kinetic coefficient is
    ``kinetic_fraction`` times the static one (all three directions).  Returns
    ``(t, x, x_exact, sliding)``: the sample times over T = 0.25 s (``steps`` steps), the
    centre of mass's displacement along the rod (m), the closed form (zero while
    :math:`F \le \mu_s m g`, else :math:`(F - \mu_k m g)t^2/(2m)`) and whether it slides.

    >>> t, x, xe, sliding = push(0.9)
    >>> float(abs(x).max()), sliding
    (0.0, False)
    """
    r = checks.nonnegative(force_ratio, "force_ratio")
    mu = checks.positive(mu_static, "mu_static")
    f = checks.real(kinetic_fraction, "kinetic_fraction", 0.0, 1.0)
    steps = checks.integer(steps, "steps", low=1)
    V = C.VALIDATION
    m, T = V["mass"], V["time"]
    fr = C.make_friction((mu,) * 3, (f * mu,) * 3)
    F = r * mu * m * C.GRAVITY
    res = C.validation_suite("complementarity", [F], friction=fr, dt=T / steps, every=1)
    run = res["runs"][0]
    x = run.com[:, 2] - run.com[0, 2]
    sliding = F > mu * m * C.GRAVITY
    a = (F - f * mu * m * C.GRAVITY) / m if sliding else 0.0
    return run.t, x, 0.5 * a * run.t**2, bool(sliding)


def plot_push(force_ratio=0.9, mu_static=0.8, ax=None):
    """The displacement of :func:`push` against the closed form."""
    fig, ax = axes(ax)
    t, x, xe, sliding = push(force_ratio, mu_static)
    ax.plot(t, 1e3 * xe, "k-", lw=1, label="rigid body, closed form")
    ax.plot(t, 1e3 * x, "o", ms=4, mfc="none", label="complementarity, 25 steps")
    state = "slides" if sliding else "sticks"
    return finish(ax, "time $t$ (s)", "displacement (mm)",
                  rf"pull $F = {force_ratio:.2f}\,\mu_s mg$, $\mu_s = {mu_static:.2f}$: it {state}",
                  dict(fontsize="small", loc="upper left"), fontsize=10)


def push_widget():
    """Sliders over the pull (in units of mu_s m g) and the static coefficient."""
    return interactive(plot_push, force_ratio=(0.9, 0.0, 2.0, 0.05, "F / μs mg"),
                       mu_static=(0.8, 0.1, 1.2, 0.05, "μs"))
