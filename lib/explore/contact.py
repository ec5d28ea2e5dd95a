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
    f = checks.nonnegative(kinetic_fraction, "kinetic_fraction")
    if f > 1:
        raise ValueError(f"kinetic_fraction must be <= 1, got {kinetic_fraction!r}")
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
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
    else:
        fig = ax.figure
    t, x, xe, sliding = push(force_ratio, mu_static)
    ax.plot(t, 1e3 * xe, "k-", lw=1, label="rigid body, closed form")
    ax.plot(t, 1e3 * x, "o", ms=4, mfc="none", label="complementarity, 25 steps")
    ax.set_xlabel("time $t$ (s)")
    ax.set_ylabel("displacement (mm)")
    state = "slides" if sliding else "sticks"
    ax.set_title(rf"pull $F = {force_ratio:.2f}\,\mu_s mg$, $\mu_s = {mu_static:.2f}$: it {state}",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def push_widget():
    """Sliders over the pull (in units of mu_s m g) and the static coefficient."""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    def show(force_ratio, mu_static):
        fig = plot_push(force_ratio, mu_static)
        plt.show()
        plt.close(fig)

    return w.interactive(
        show,
        force_ratio=w.FloatSlider(value=0.9, min=0.0, max=2.0, step=0.05, description="F / μs mg"),
        mu_static=w.FloatSlider(value=0.8, min=0.1, max=1.2, step=0.05, description="μs"))
