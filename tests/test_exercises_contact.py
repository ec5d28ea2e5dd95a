"""Typical wrong answers to the contact chapter's exercises are refused with the hint that
names the slip, and the right answers satisfy the relations the folded solutions state."""
import math


from lib import contact as C
from lib.exercises import check, solution
from slips import hint as _hint

G = C.GRAVITY


def test_contact1_the_backward_threshold_is_static_and_the_kinetic_one_is_half_of_it():
    F = solution("contact-1")
    assert abs(F / (0.4 * G) - 1) < 1e-3                 # mu_s,backward m g
    assert _hint("contact-1", 0.2 * G) == "factor 2"      # mu_k m g: the kinetic coefficient
    assert _hint("contact-1", 0.8 * G) == "factor 2"      # the forward static coefficient
    assert check("contact-1", 0.4 * G).correct


def test_contact2_rolls_at_two_thirds_g_sin_and_slides_with_the_kinetic_law():
    a_roll, a_slip = solution("contact-2a"), solution("contact-2b")
    assert math.isclose(a_roll, 2 / 3 * G * math.sin(math.radians(20)), rel_tol=1e-9)
    assert math.isclose(a_slip, G * (math.sin(math.radians(60)) - 0.2 * math.cos(math.radians(60))),
                        rel_tol=1e-9)
    assert _hint("contact-2a", G * math.sin(math.radians(20))) == "value"    # a frictionless slide
    assert _hint("contact-2a", 0.5 * G * math.sin(math.radians(20))) == "value"   # a hollow tube
    assert _hint("contact-2b", 2 / 3 * G * math.sin(math.radians(60))) == "value"  # assumed rolling


def test_contact3_the_reversed_wave_sends_the_snake_backwards():
    dz = solution("contact-3")
    assert dz < 0
    assert _hint("contact-3", -dz) == "sign"
    assert _hint("contact-3", 1e3 * dz) == "magnitude"    # mm for m


def test_contact4_the_creep_is_the_viscous_branch_and_units_are_caught():
    c = solution("contact-4")
    assert math.isclose(c, 1e3 * 5e-4 * 0.5 * 0.25 * (1 - 5e-4 / (0.8 * G) / 0.25 * (1 - math.exp(-0.25 * 0.8 * G / 5e-4))),
                        rel_tol=1e-9)
    assert _hint("contact-4", c / 1e3) == "magnitude"
    assert _hint("contact-4", 2 * c) == "factor 2"        # the full static force used
