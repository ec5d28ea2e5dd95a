"""Contract rows of lib.crosscheck.contact: the contact cases in PyElastica and MuJoCo.

Each valid call is a few steps on the smallest rod the other code accepts (PyElastica: 2
elements; MuJoCo's cable: 3 segments); the bad-input cases fail before the other code runs.
"""
import numpy as np

from lib.crosscheck import contact as X

from .framework import Call, Kind, boolean, choice, function, integer, nonnegative, positive, real

MODULE = "lib.crosscheck.contact"

_SHORT = dict(dt=2e-4, time=0.002)
# time: a whole number of steps dt (else a ValueError naming it)
_TIME = Kind(dict(positive(skip=("None",)).cases, fraction=lambda v: 0.0021))
_ALPHA = Kind(dict(real().cases, vertical=lambda v: np.pi / 2, negative=lambda v: -0.1), 0)
_CONTACT = Kind({"string": lambda v: "k", "missing key": lambda v: {"k": 10.0},
                 "negative k": lambda v: {"k": -1.0, "nu": 1e-4, "slip_velocity_tol": 1e-4},
                 "nan nu": lambda v: {"k": 1.0, "nu": np.nan, "slip_velocity_tol": 1e-4}})
_PARAMS = X.elastica_contact_parameters

CALLS = [
    Call("crosscheck.contact.elastica_drag", X.elastica_drag,
         lambda: ((1.0,), dict(n_elem=2, contact=_PARAMS(), pull_first=False, **_SHORT)),
         {"force": real(position=0), "n_elem": integer(low=2), "dt": positive(), "time": _TIME,
          "contact": _CONTACT, "pull_first": boolean()}),
    Call("crosscheck.contact.elastica_rolling", X.elastica_rolling,
         lambda: ((0.3,), dict(n_elem=2, contact=_PARAMS(), **_SHORT)),
         {"alpha": _ALPHA, "n_elem": integer(low=2), "dt": positive(), "time": _TIME,
          "contact": _CONTACT}),
    Call("crosscheck.contact.elastica_drop", X.elastica_drop,
         lambda: ((), dict(n_elem=2, height=0.01, tilt=0.02, damping=2.0, contact=_PARAMS(),
                           **_SHORT)),
         {"n_elem": integer(low=2), "dt": positive(), "time": _TIME, "height": nonnegative(),
          "tilt": real(), "damping": nonnegative(), "contact": _CONTACT}),
    Call("crosscheck.contact.elastica_snake", X.elastica_snake,
         lambda: ((), dict(n_elem=2, periods=1.0, dt=2e-3, inertia_scale=100.0,
                           ratios=(1.0, 1.5, 2.0), record_every=50)),
         {"n_elem": integer(low=2), "periods": positive(), "dt": positive(),
          "inertia_scale": positive(),
          "ratios": Kind({"negative": lambda v: (1.0, -1.5, 2.0), "short": lambda v: (1.0, 1.5),
                          "nan": lambda v: (np.nan, 1.5, 2.0), "None": lambda v: None}),
          "record_every": integer(low=1, skip=("None",))}),
    Call("crosscheck.contact.mujoco_xml", X.mujoco_xml,
         lambda: ((), dict(segments=10, mu=0.4, dt=1e-4, gravity=(0.0, 0.0, -9.8), height=0.0,
                           cone="elliptic")),
         {"segments": integer(low=3), "mu": nonnegative(), "dt": positive(),
          "gravity": Kind({"short": lambda v: (0.0, -9.8), "nan": lambda v: (0.0, 0.0, np.nan),
                           "None": lambda v: None, "string": lambda v: "down"}),
          "height": nonnegative(), "cone": choice()}),
    Call("crosscheck.contact.mujoco_drag", X.mujoco_drag,
         lambda: ((1.0, 0.4), dict(segments=3, dt=1e-3, time=0.01)),
         {"force": real(position=0), "mu": nonnegative(position=1), "segments": integer(low=3),
          "dt": positive(), "time": Kind(dict(_TIME.cases, fraction=lambda v: 0.0105))}),
    Call("crosscheck.contact.mujoco_rolling", X.mujoco_rolling,
         lambda: ((0.3, 0.4), dict(segments=3, dt=1e-3, time=0.01)),
         {"alpha": _ALPHA, "mu": nonnegative(position=1), "segments": integer(low=3),
          "dt": positive(), "time": Kind(dict(_TIME.cases, fraction=lambda v: 0.0105))}),
    Call("crosscheck.contact.mujoco_drop", X.mujoco_drop,
         lambda: ((), dict(mu=0.4, segments=3, dt=1e-3, time=0.01, height=0.01)),
         {"mu": nonnegative(), "segments": integer(low=3), "dt": positive(),
          "time": Kind(dict(positive().cases, fraction=lambda v: 0.0105)),
          "height": nonnegative()}),
    Call("crosscheck.contact.largest_step", X.largest_step,
         lambda: ((lambda dt: dt, [1e-3, 2e-3, 4e-3], lambda r: r < 3e-3), {}),
         {"run": function(position=0), "accept": function(position=2),
          "steps": Kind({"empty": lambda v: [], "descending": lambda v: v[::-1],
                         "zero": lambda v: [0.0, 1e-3], "nan": lambda v: [np.nan],
                         "string": lambda v: "abc", "None": lambda v: None}, 1)}),
]
EXEMPT = {"elastica_contact_parameters": "no arguments: returns PyElastica's example "
                                         "contact parameters"}
MODELS = []
