"""Answers to the exercises of the *Energy-preserving integration and damping* chapter
(``chapters/energy.ipynb``; see :mod:`lib.exercises`).

Exercise 1 (the discrete gradient is the trapezoidal rule for a quadratic energy) asks
for an argument, so it has no check; its numerical confirmation is a round-off level
difference, which is not a meaningful target.

Examples
--------
>>> from lib.exercises import check
>>> check("energy-2a", 0.75).correct
True
>>> check("energy-2a", 1.5).hint        # 2 zeta instead of zeta
'factor 2'
"""
import numpy as np
import scipy.linalg as sla

from lib import damping, fem, integrate, rod
from lib.exercises import exercise


@exercise("energy-2a", rtol=1e-3,
          text="damping ratio zeta_max of the fastest mode that halves the explicit limit, "
               "nondimensional")
def half_limit_zeta():
    r"""Root of $\sqrt{1 + \zeta^2} - \zeta = 1/2$, i.e. $\zeta = 3/4$."""
    # (sqrt(1 + z^2) - z) = r  <=>  z = (1 - r^2) / (2 r)
    r = 0.5
    return (1 - r ** 2) / (2 * r)


@exercise("energy-2b", rtol=1e-3,
          text="Kelvin-Voigt retardation time tau = 2 zeta_max / omega_max of the N = 20, "
               "r/L = 0.04 rod, nondimensional time")
def half_limit_tau():
    """tau with zeta(omega_max) = tau omega_max / 2 = zeta_max."""
    om = rod.frequencies(rod.make_rod(20, 0.04))
    return 2 * half_limit_zeta() / om[-1]


def _arm():
    """Undamped frequencies and Rayleigh coefficients (2 % on modes 1, 2) of the T6 10 x 1 arm."""
    arm = fem.cantilever(10, 1, "T6", nu=0.3)
    M = fem.condense(arm, fem.mass(arm)).toarray()
    K = fem.condense(arm, fem.linear_stiffness(arm)).toarray()
    om = np.sqrt(sla.eigh(K, M, eigvals_only=True))
    a, b = damping.rayleigh_coefficients(om[0], om[1], 0.02)
    return om, a, b


@exercise("energy-3a", rtol=1e-9, text="number (1-based) of the arm's first overdamped mode")
def first_overdamped_mode():
    om, a, b = _arm()
    zeta = damping.modal_damping_ratios(om, a, b)
    return float(np.argmax(zeta >= 1) + 1)


@exercise("energy-3b", rtol=1e-3,
          text="undamped angular frequency omega of the arm's first overdamped mode, rad per "
               "unit time (not f)")
def first_overdamped_frequency():
    om, _, _ = _arm()
    return float(om[int(first_overdamped_mode()) - 1])


@exercise("energy-3c", rtol=1e-3,
          text="onset omega: larger root of beta omega^2 - 2 omega + alpha = 0, rad per unit time")
def overdamping_onset():
    _, a, b = _arm()
    return float((1 + np.sqrt(1 - a * b)) / b)


@exercise("energy-4", rtol=1e-2,
          text="largest relative energy error max |E_n / E_0 - 1| of Newmark's trapezoidal "
               "rule on the pendulum, q0 = 3, dt = 0.5, 100 steps; a fraction")
def pendulum_newmark_energy_error():
    force = lambda q: (np.sin(q), np.array([[np.cos(q[0])]]))
    tr = integrate.newmark(np.array([3.0]), np.zeros(1), 0.5, 100, force, np.ones(1), tol=1e-12)
    e = 1 - np.cos(tr.q[:, 0]) + 0.5 * tr.v[:, 0] ** 2
    return float(np.abs(e / e[0] - 1).max())
