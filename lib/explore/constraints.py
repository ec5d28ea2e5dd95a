"""Explore section of the constraints chapter: the Cartesian pendulum's constraint drift."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import constraints
from ..core import checks
from ._common import axes, finish, interactive

__all__ = ["pendulum_drift", "plot_pendulum_drift", "pendulum_widget"]


def pendulum_drift(alpha=0.0, t_end=10.0, n_out=201):
    r"""Constraint drift |x^2 + y^2 - l^2| of the Cartesian pendulum over time.

    Integrates the index-reduced equations with Baumgarte parameters
    ``alpha = beta`` (``alpha = 0``: no stabilisation) using
    :func:`lib.constraints.simulate`, released from the horizontal at rest.

    Returns
    -------
    t : (n_out,) float
    drift : (n_out,) float
    """
    alpha = checks.nonnegative(alpha, "alpha")
    t_end = checks.positive(t_end, "t_end")
    n_out = checks.integer(n_out, "n_out", low=2)
    t, drift = _drift(float(alpha), float(t_end), int(n_out))
    return t.copy(), drift.copy()


@lru_cache(maxsize=16)
def _drift(alpha, t_end, n_out):
    # computed once per (alpha, t_end, n_out) in a session: the widget's first drawing,
    # the chapter's figure and its checks ask for the same run (read-only copies kept)
    sys_ = constraints.pendulum()
    t = np.linspace(0.0, t_end, n_out)
    traj = constraints.simulate(sys_, np.array([1.0, 0.0]), np.zeros(2), t,
                                alpha=float(alpha), beta=float(alpha), rtol=1e-6, atol=1e-9)
    q = np.asarray(traj.q)
    if q.shape[0] != t.size:
        q = q.T
    drift = np.abs(q[:, 0] ** 2 + q[:, 1] ** 2 - 1.0)
    for a in (t, drift):
        a.setflags(write=False)
    return t, drift


def plot_pendulum_drift(alpha=0.0, ax=None):
    fig, ax = axes(ax)
    t, d = pendulum_drift(alpha)
    ax.semilogy(t[1:], np.maximum(d[1:], 1e-16))
    return finish(ax, "t (s)", r"$|x^2+y^2-l^2|$ (m$^2$)",
                  rf"Cartesian pendulum, Baumgarte $\alpha=\beta$ = {alpha:g}")


def pendulum_widget():
    """Slider over the Baumgarte gain."""
    return interactive(plot_pendulum_drift, alpha=(0.0, 0.0, 20.0, 0.5, "α = β"))
