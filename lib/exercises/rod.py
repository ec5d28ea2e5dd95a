"""Answers to the exercises of the planar Cosserat rod chapter (``chapters/rod.ipynb``).

Each function computes the answer with the library, exactly as the chapter's folded
solution quotes it; :func:`lib.exercises.check` compares a student's value with it.

Examples
--------
>>> from lib import exercises
>>> exercises.check("rod-3", 0.33477).correct
True
"""
import numpy as np

from lib import beam, integrate, rod
from lib.exercises import exercise


@exercise("rod-1", rtol=1e-2,
          text="|Omega_1(Timoshenko, r/L = 0.01) / Omega_1(Euler-Bernoulli) - 1|, a fraction")
def timoshenko_gap():
    """Relative gap of the first Timoshenko frequency at r/L = 0.01."""
    return abs(beam.timoshenko_omegas(1, 0.01)[0] / beam.euler_bernoulli_omegas(1)[0] - 1)


def _clamp1_errors():
    eb = beam.euler_bernoulli_omegas(1)[0]
    return np.array([100 * (rod.kirchhoff_frequencies(N, 1, clamp=1.0)[0] / eb - 1)
                     for N in (20, 40)])


@exercise("rod-2a", rtol=5e-3,
          text="signed errors 100 (omega_1 / Omega_1 - 1) with clamp=1.0 at N = 20, 40: "
               "array of 2, percent")
def clamp_errors():
    """First-frequency errors (percent) of the chain without the clamp's half element."""
    return _clamp1_errors()


@exercise("rod-2b", rtol=1e-2, text="observed order log2(e_20 / e_40), nondimensional")
def clamp_order():
    """Observed convergence order with the forgotten half element."""
    e = _clamp1_errors()
    return np.log2(e[0] / e[1])


@exercise("rod-3", rtol=1e-4,
          text="-y_tip / alpha of the shear rod (N = 40, r/L = 0.04, alpha = 1e-3), "
               "nondimensional")
def tip_compliance():
    """Tip deflection per unit load of the shear model under a small tip force."""
    rd = rod.make_rod(40, 0.04)
    y = rod.tip(rd, rod.static(rd, (0.0, -1e-3, 0.0)))[1]
    return -y / 1e-3


@exercise("rod-4", atol=0.5,
          text="dynamic-relaxation step counts for c = omega_1 and c = 4 omega_1: "
               "array of 2 integers")
def relaxation_steps():
    """Steps to rest (multiples of 1000) with damping omega_1 and 4 omega_1."""
    rd = rod.make_rod(20, 0.04)
    w = rod.frequencies(rd)
    m = rod.mass(rd)
    load = (0.0, -2.0, 0.0)
    dt = 0.9 * integrate.critical_step(w[-1])
    out = []
    for fac in (1.0, 4.0):
        _, n, _ = integrate.relax(rod.straight(rd), lambda q: -rod.gradient(rd, q, load) / m,
                                  dt, fac * w[0], vtol=1e-9, check_every=1000)
        out.append(n)
    return np.array(out, dtype=float)


@exercise("rod-5", rtol=1e-3,
          text="highest frequency omega_max of the shear rod (r/L = 0.04) at N = 20, 40, 80: "
               "array of 3, rad per unit time (nondimensional)")
def omega_max():
    """Highest natural frequency of the discrete shear rod at three resolutions."""
    return np.array([rod.frequencies(rod.make_rod(N, 0.04))[-1] for N in (20, 40, 80)])
