"""Answers to the exercises of the piecewise-constant-curvature chapter (``chapters/pcc.ipynb``).

Each function computes the answer with :mod:`lib.pcc` (and :mod:`lib.rod` for the
Cosserat comparison), exactly as the chapter's folded solution quotes it;
:func:`lib.exercises.check` compares a student's value with it.

Examples
--------
>>> from lib import exercises
>>> exercises.check("pcc-3", -1 / 504).correct
True
"""
import numpy as np
from scipy.linalg import eigh
from scipy.optimize import root

from lib import beam, pcc, rod
from lib.core.errors import SolveError
from lib.exercises import exercise

GRAV = 3.0   # rho A g L^3 / EI of the chapter's gravity test


def _smallest_n(mode, tol_pct):
    """Fewest segments whose ``mode``-th frequency is within ``tol_pct`` % of Euler-Bernoulli."""
    omega = beam.euler_bernoulli_omegas(mode)[-1]
    n = mode
    while 100 * (pcc.frequencies(n, k=mode)[-1] / omega - 1) > tol_pct:
        n += 1
    return n


def _sagged(n=4):
    """The static equilibrium of the n-segment model under GRAV (solved with SciPy's root)."""
    m = pcc.make_pcc(n)
    sol = root(lambda q: pcc.gradient(m, q, GRAV), np.zeros(n),
               jac=lambda q: pcc.hessian(m, q, GRAV), tol=1e-13)
    if not sol.success:
        raise SolveError(f"SciPy's root: {sol.message}", where=f"PCC equilibrium under gravity {GRAV}",
                         residual=float(np.abs(sol.fun).max()))
    return m, sol.x


@exercise("pcc-1", rtol=1e-4,
          text="first-frequency ratio omega_1(one segment) / Omega_1(Euler-Bernoulli), "
               "nondimensional (> 1)")
def one_segment_ratio():
    """sqrt(20) / 1.8751^2: the one-segment Ritz bound over the exact first frequency."""
    return pcc.frequencies(1)[0] / beam.euler_bernoulli_omegas(1)[0]


@exercise("pcc-2a", atol=0.5,
          text="fewest segments with the first and with the third frequency within 0.1 %: "
               "array of 2 integers")
def segments_for_tenth_percent():
    """Smallest n meeting 0.1 % on mode 1 and on mode 3."""
    return np.array([_smallest_n(1, 0.1), _smallest_n(3, 0.1)], dtype=float)


@exercise("pcc-2b", atol=0.5,
          text="n predicted for mode 1 by scaling the n = 6 error as (6/n)^2, rounded up, "
               "an integer")
def segments_predicted():
    """ceil(6 sqrt(err_6 / 0.1)) from the n = 6 first-frequency error in percent."""
    err6 = 100 * (pcc.frequencies(6)[0] / beam.euler_bernoulli_omegas(1)[0] - 1)
    return float(np.ceil(6 * np.sqrt(err6 / 0.1)))


@exercise("pcc-3", rtol=1e-3,
          text="(M(a) - 1/20) / a^2 from pcc.arc_mass at a = 0.01, nondimensional")
def arc_mass_coefficient():
    """The a^2 coefficient of the one-segment arc mass, by finite difference of the library."""
    a = 0.01
    return (pcc.arc_mass(a) - 0.05) / a**2


@exercise("pcc-4a", rtol=1e-4,
          text="static tip height y_tip of the n = 4 PCC model under rho A g L^3 / EI = 3, "
               "in units of L (negative: below the clamp)")
def static_tip_pcc():
    """Tip height of the sagged four-segment model."""
    m, q = _sagged(4)
    return pcc.tip(m, q)[1]


@exercise("pcc-4b", rtol=1e-2,
          text="static gap 100 (1 - y_pcc / y_rod) against the Cosserat rod (N = 40, "
               "r/L = 0.01), percent")
def static_gap():
    """How much less the PCC model sags than the Cosserat rod, in percent."""
    rd = rod.make_rod(40, r_over_L=0.01)
    y_rod = rod.tip(rd, rod.static(rd, grav=GRAV))[1]
    return 100 * (1 - static_tip_pcc() / y_rod)


@exercise("pcc-5", rtol=1e-2,
          text="change 100 (omega_1(sagged) / omega_1(straight) - 1) of the n = 4 model's "
               "first frequency, signed percent")
def sagged_frequency_change():
    """Relative change of omega_1 when linearised about the gravity equilibrium."""
    m, q = _sagged(4)
    lam = eigh(pcc.hessian(m, q, GRAV), pcc.mass_matrix(m, q), eigvals_only=True)
    return 100 * (np.sqrt(lam[0]) / pcc.frequencies(4)[0] - 1)
