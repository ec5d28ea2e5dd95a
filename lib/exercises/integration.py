"""Answers to the exercises of the time-integration chapter (``chapters/integration.ipynb``).

Each function computes the answer with :mod:`lib.rod` and :mod:`lib.integrate`, exactly
as the chapter's folded solution quotes it; :func:`lib.exercises.check` compares a
student's value with it.

Examples
--------
>>> from lib import exercises
>>> exercises.check("integration-3a", 1.826).correct
True
"""
import numpy as np

from lib import integrate, rod
from lib.exercises import exercise


def _rod20():
    """First and third frequencies of the N = 20, r/L = 0.04 rod and the window 3 T_1."""
    om = rod.frequencies(rod.make_rod(20, 0.04))
    return om, 3 * 2 * np.pi / om[0]


def _spectral_radius(params, w):
    """Spectral radius of the generalised-alpha amplification matrix at omega dt = w."""
    return np.abs(np.linalg.eigvals(integrate.generalized_alpha_amplification(w, 1.0, params))).max()


@exercise("integration-1", rtol=1e-2,
          text="share of the top mode's kinetic energy in the phi components, N = 40, percent")
def top_mode_rotation_share():
    """Percentage of the highest mode's kinetic energy carried by the section rotations."""
    rd = rod.make_rod(40, 0.04)
    _, V = rod.modes(rd)
    ke = rod.mass(rd) * V[:, -1] ** 2
    return 100 * ke[0::3].sum() / ke.sum()


@exercise("integration-2", rtol=1e-2,
          text="largest E / E_0 over 2000 Verlet steps at omega dt = 1.8, started from rest "
               "and from u_0 = 0: array of 2, nondimensional")
def verlet_energy_bounds():
    """Peak energy ratio of velocity Verlet on the oscillator, for the two starts."""
    dt = 1.8
    out = []
    for q0, v0 in ((1.0, 0.0), (0.0, 1.0)):
        tr = integrate.verlet(np.array([q0]), np.array([v0]), dt, 2000, lambda q: -q)
        out.append((tr.v[:, 0] ** 2 + tr.q[:, 0] ** 2).max() / (q0**2 + v0**2))
    return np.array(out)


@exercise("integration-3a", rtol=1e-3,
          text="element length l/r at which the shear and bending terms are equal "
               "(nu = 0.5, k_s = 0.9), nondimensional")
def crossover_length():
    """l/r = sqrt(E / (k_s G)) = sqrt(3 / 0.9)."""
    return float(np.sqrt(3 / 0.9))


@exercise("integration-3b", rtol=1e-3,
          text="dt_c c_b / l at N = 80 and N = 5 (r/L = 0.04): array of 2, nondimensional")
def courant_numbers():
    """Critical step in units of the bar-wave crossing time of one element."""
    out = []
    for N in (80, 5):
        rd = rod.make_rod(N, 0.04)
        out.append(2 / rod.frequencies(rd)[-1] * np.sqrt(rd.EA / rd.rhoA) / rd.ell)
    return np.array(out)


@exercise("integration-4a", rtol=1e-2,
          text="leading-order phase lag of mode 3 (N = 20) over 3 T_1 at dt = 0.01, rad")
def phase_lag_estimate():
    """omega_3 t (omega_3 dt)^2 / 12 over the release window."""
    om, t_end = _rod20()
    return om[2] * t_end * integrate.newmark_period_error(om[2], 0.01)


@exercise("integration-4b", rtol=1e-2,
          text="exact phase lag (omega_3 - omega_bar_3) 3 T_1 of the trapezoidal rule at "
               "dt = 0.01, rad")
def phase_lag_exact():
    """Phase lost by the trapezoidal rule on mode 3 over the release window."""
    om, t_end = _rod20()
    return (om[2] - integrate.newmark_frequency(om[2], 0.01)) * t_end


@exercise("integration-5", rtol=1e-2,
          text="predicted first-mode energy loss 1 - rho^(2n) of Newmark gamma = 0.6, "
               "beta = 0.3025 at dt = 0.05 and 0.1: array of 2, percent")
def newmark_damping_loss():
    """Linear prediction of the energy the dissipative Newmark removes from mode 1."""
    om, t_end = _rod20()
    params = (0.0, 0.0, 0.3025, 0.6)
    return np.array([100 * (1 - _spectral_radius(params, om[0] * dt) ** (2 * round(t_end / dt)))
                     for dt in (0.05, 0.1)])
