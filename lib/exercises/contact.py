"""Answers to the exercises of the contact chapter (``chapters/contact.ipynb``).

Each function computes its answer with :mod:`lib.contact`, as the chapter's folded
solution quotes it; :func:`lib.exercises.check` compares a student's value with it.
Exercise 5 (the order of PyElastica's forcing) is discussed, not checked.

Examples
--------
>>> from lib import exercises
>>> exercises.check("contact-4", 0.0625).correct            # mm
True
>>> exercises.check("contact-4", 0.0625e-3).hint            # given in metres
'magnitude'
"""
import math

import numpy as np

from lib import contact as C
from lib.exercises import exercise

_ALPHA_ROLL = math.radians(20.0)
_ALPHA_SLIP = math.radians(60.0)


@exercise("contact-1", rtol=1e-3, text="smallest backward pull that makes the rod slide, in N")
def backward_breakaway():
    """Bisection of the backward pull on the complementarity form (:func:`lib.contact.breakaway_force`)."""
    return C.breakaway_force("backward", rtol=1e-3)


def _acceleration(alpha):
    r = C.validation_suite("complementarity", alphas=[alpha])["rolling"]
    T, m = C.VALIDATION["time"], C.VALIDATION["mass"]
    return float(np.sqrt(2.0 * r["translational"][0] / m) / T)


@exercise("contact-2a", rtol=1e-6, text="acceleration of the rod released on a 20 degree "
                                        "incline, in m/s^2")
def rolling_acceleration():
    """v(T)/T of the complementarity form's rod on the 20 degree incline (it rolls)."""
    return _acceleration(_ALPHA_ROLL)


@exercise("contact-2b", rtol=1e-6, text="acceleration of the rod on a 60 degree incline, in m/s^2")
def slipping_acceleration():
    """The same on 60 degrees, where it slides (tan 60 > 3 mu_s)."""
    return _acceleration(_ALPHA_SLIP)


@exercise("contact-3", rtol=1e-6, atol=1e-6,
          text="displacement along +z of the snake's centre of mass over its last period, "
               "with the wave reversed, in m (signed)")
def reversed_snake():
    """The last member of :func:`lib.contact.snake_study`: the reference ratios, the wave
    travelling the other way along the body."""
    st = C.snake_study()
    return float(st["displacement"][st["reversed"]][0, 2])


@exercise("contact-4", rtol=1e-3, text="distance the penalty form creeps in T = 0.25 s under a "
                                       "forward pull of mu_s m g / 2, slip speed 0.5 mm/s, in mm")
def penalty_creep_mm():
    """:func:`lib.contact.penalty_creep` with the validation parameters, in mm."""
    V = C.VALIDATION
    F = 0.5 * V["static"][0] * V["mass"] * C.GRAVITY
    return 1e3 * C.penalty_creep(F, V["time"], V["mass"], V["static"][0], 5e-4)
