"""Answers to the exercises of the *Choosing a modelling level* chapter
(``chapters/levels.ipynb``; see :mod:`lib.exercises`).

All five exercises have numeric answers; exercise 4 also asks which mode is
responsible, and its check covers the frequencies that show it.

Examples
--------
>>> from lib.exercises import check, solution
>>> check("levels-5", -solution("levels-5")).hint
'sign'
"""
import numpy as np

from lib import beam
from lib import levels as lv
from lib.exercises import exercise


@exercise("levels-1", rtol=2e-3,
          text="PCC small-load tip errors at L/h = 20 for n = 2, 4, 8 segments, "
               "percent, array of 3")
def pcc_segment_errors():
    arm = lv.make_arm(20.0)
    ref = lv.reference(arm, lv.ALPHA_SMALL, linear=True)
    return np.array([100 * lv.tip_error(lv.solve_static(arm, "pcc", n, lv.ALPHA_SMALL,
                                                        linear=True)[0], ref, arm.L, True)
                     for n in (2, 4, 8)])


@exercise("levels-2", rtol=1e-2,
          text="slenderness L/h at which the rod's small-load error is 2 %, nondimensional")
def rod_limit_two_percent():
    return lv.rod_slenderness_limit(0.02)


def _steps(period):
    arm = lv.make_arm(10.0)
    return np.array([float(np.ceil(period(arm, lev) / lv.explicit_step(arm, lev, lv.WORKING[lev])))
                     for lev in lv.LEVELS])


def _reference_period(arm, lev):
    """T1 = 2 pi / omega_1 of the reference FEM: the arm's true first period."""
    return 2 * np.pi / lv.frequencies(arm, "fem", lv.REFERENCE_NY, k=1)[0][0]


def _own_period(arm, lev):
    """The slip: each level's own first period at its working size."""
    return 2 * np.pi / lv.frequencies(arm, lev, lv.WORKING[lev], k=1)[0][0]


@exercise("levels-3", rtol=0.0, atol=1.0,
          text="explicit steps 2 / omega_max (each level at its working size) per first "
               "period T1 = 2 pi / omega_1 of the L/h = 10 arm, T1 from the reference FEM "
               "(the same T1 for all three), array [PCC, rod, FEM] of whole numbers "
               "(rounding up or to nearest both accepted)",
          slips={"own period": (lambda: _steps(_own_period),
                                "each level's own first period; the exercise counts the "
                                "steps over the arm's true period T1, from the reference "
                                "FEM, the same for all three levels")})
def steps_per_period():
    return _steps(_reference_period)


@exercise("levels-4", rtol=1e-2,
          text="first three rod (N = 20) angular frequencies at L/h = 3 divided by the first "
               "Euler-Bernoulli one, array of 3 ascending")
def rod_frequency_ratios():
    arm = lv.make_arm(3.0)
    om = lv.frequencies(arm, "rod", 20)[0]
    eb1 = beam.euler_bernoulli_omegas(1)[0] * np.sqrt(arm.EI / arm.rhoA) / arm.L ** 2
    return om[:3] / eb1


@exercise("levels-5", rtol=1e-2,
          text="predicted release errors |2 pi delta| at L/h = 10 for PCC, rod, FEM (delta = "
               "first-frequency error of the working size against the reference FEM), "
               "percent, array of 3")
def predicted_release_errors():
    arm = lv.make_arm(10.0)
    om_ref = lv.frequencies(arm, "fem", lv.REFERENCE_NY, k=1)[0][0]
    return np.array([100 * abs(2 * np.pi * (lv.frequencies(arm, lev, lv.WORKING[lev], k=1)[0][0]
                                            / om_ref - 1))
                     for lev in lv.LEVELS])
