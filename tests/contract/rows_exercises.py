"""Contract rows of lib.exercises (see framework.py)."""
import numpy as np

from lib import exercises

from .framework import Call, Kind, choice, nonnegative

MODULE = "lib.exercises"

_KEY = "rod-1"
# a key: unknown, unhashable (issue 22: a bare TypeError), None, a number
_KEYS = lambda position=0: Kind({"unknown": lambda v: "nochapter-99",
                                  "unhashable": lambda v: [v], "None": lambda v: None,
                                  "number": lambda v: 3.0}, position)
# an answer: not numbers (a NaN, an inf or a wrong shape is a wrong *answer*, a Verdict)
_ANSWER = Kind({"string": lambda v: "forty-two", "None": lambda v: None,
                "bools": lambda v: np.ones(np.shape(v), dtype=bool),
                "ragged": lambda v: [[1.0], [1.0, 2.0]], "complex": lambda v: 1j}, 1)


def _register():
    """A fresh demo exercise (unregistered first, so every call may register it)."""
    exercises.unregister("contract-1")
    return (("contract-1",), dict(rtol=1e-3, atol=0.0, text="four", slips=None))


def _registered(func):
    def call(key, *a, **kw):
        try:
            return func(key, *a, **kw)(lambda: 4.0)
        finally:
            exercises.unregister("contract-1")
    return call


CALLS = [
    Call("exercises.check", exercises.check,
         lambda: ((_KEY, np.asarray(exercises.solution(_KEY))), {}),
         {"key": _KEYS(0), "answer": _ANSWER}),
    Call("exercises.solution", exercises.solution, lambda: ((_KEY,), {}), {"key": _KEYS(0)}),
    Call("exercises.keys", exercises.keys, lambda: ((), dict(chapter="rod")),
         {"chapter": choice(skip=("None",))}),
    Call("exercises.exercise", _registered(exercises.exercise), _register,
         {"key": Kind({"no dash": lambda v: "nodash", "None": lambda v: None,
                       "number": lambda v: 1.0}, 0),
          "rtol": nonnegative(skip=("None",)), "atol": nonnegative(),
          "text": Kind({"None": lambda v: None, "number": lambda v: 1.0}),
          "slips": Kind({"string": lambda v: "sign", "not a pair": lambda v: {"x": 1.0}})}),
    Call("exercises.unregister", exercises.unregister, lambda: (("contract-1",), {}),
         {"key": Kind({"unhashable": lambda v: [v], "None": lambda v: None}, 0)}),
]
MODELS = []
