"""Answers to the exercises of the *Cross-checks* chapter (see :mod:`lib.exercises`).

Exercise 4 (the scikit-fem forms agree to round-off whatever nu) is discussed, not
checked.

Examples
--------
>>> from lib.exercises import check
>>> check("crosscheck-2b", 1.0).hint     # "first order"
'factor 2'
"""
import numpy as np

from lib import beam, rod
from lib import crosscheck as cc
from lib.exercises import exercise

_N_RIGID = (10, 20, 40, 80)


@exercise("crosscheck-1", rtol=1e-2,
          text="observed order of the first-frequency error, 20 -> 40 segments, "
               "array [c = 1.5, c = 3]")
def clamp_spring_orders():
    """log2(e_20 / e_40) of the MuJoCo cable's first-frequency error for clamp
    springs c EI / ell with c = 1.5 and 3."""
    eb = beam.euler_bernoulli_omegas(1)[0]
    out = []
    for c in (1.5, 3.0):
        e = [cc.cable_frequencies(N, 1, clamp_stiffness=c)[0] / eb - 1 for N in (20, 40)]
        out.append(np.log2(e[0] / e[1]))
    return np.array(out)


def _rigid_link_differences():
    eb = beam.euler_bernoulli_omegas(1)[0]
    return np.array([abs(rod.kirchhoff_frequencies(N, 1, clamp=1e12)[0]
                         / (eb / (1 - 0.5 / N) ** 2) - 1) for N in _N_RIGID])


@exercise("crosscheck-2a", rtol=1e-2,
          text="|Omega_1 / (Omega_1^EB / (1 - ell/2L)^2) - 1| at N = 10, 20, 40, 80, array of 4")
def rigid_link_differences():
    """Relative difference between the chain with a rigid first link and the
    Euler-Bernoulli rod of the effective length L - ell/2."""
    return _rigid_link_differences()


@exercise("crosscheck-2b", rtol=2e-2, text="observed order of that difference between N = 40 and 80")
def rigid_link_order():
    d = _rigid_link_differences()
    return float(np.log2(d[-2] / d[-1]))


@exercise("crosscheck-3", rtol=2e-2, text="exponent q of cond(M) ~ n^q, log-log fit over n = 4..8")
def pcc_condition_exponent():
    ns = np.arange(4, 9)
    cond = [np.linalg.cond(cc.pcc_ritz_exact(n)[0]) for n in ns]
    return float(np.polyfit(np.log(ns), np.log(cond), 1)[0])


@exercise("crosscheck-5a", rtol=1e-5, text="Timoshenko Omega_1 at r/L = 0.1, nondimensional")
def thick_timoshenko_omega():
    return float(cc.timoshenko_omegas_transfer(1, 0.1)[0])


@exercise("crosscheck-5b", rtol=1e-3, text="drop of Omega_1 below Euler-Bernoulli at r/L = 0.1, percent")
def thick_timoshenko_drop():
    return float(100 * (1 - thick_timoshenko_omega() / beam.euler_bernoulli_omegas(1)[0]))
