"""Contract rows of lib.beam (see framework.py): every public function."""
from lib import beam

from .framework import Call, Kind, array, between, integer, positive, real

MODULE = "lib.beam"

_NU = between(-1.0, 0.5)
_NU = Kind(dict(_NU.cases, **{"minus-one": lambda valid: -1.0}), None)   # nu in (-1, 0.5]

CALLS = [
    Call("beam.euler_bernoulli_omegas", beam.euler_bernoulli_omegas, lambda: ((2,), {}),
         {"k": integer(low=1, position=0)}),
    Call("beam.timoshenko_shear_coefficient", beam.timoshenko_shear_coefficient,
         lambda: ((0.3,), {}), {"nu": Kind(_NU.cases, 0)}),
    Call("beam.timoshenko_omegas", beam.timoshenko_omegas,
         lambda: ((1, 0.05), dict(nu=0.3, ks=0.85, tol=1e-6, nodes=21)),
         {"k": integer(low=1, position=0),
          # r/L = 1e-200: EA = 4 / r^2 overflows
          "r_over_L": Kind(dict(positive().cases, overflow=lambda valid: 1e-200), 1),
          "nu": _NU, "ks": positive(skip=("None",)), "tol": positive(),
          "nodes": integer(low=3)}),
    Call("beam.elastica_tip", beam.elastica_tip, lambda: ((1.5,), {}),
         {"alpha": real(position=0)}),
    Call("beam.elastica_shape", beam.elastica_shape, lambda: ((-1.5,), dict(s=[0.0, 0.5, 1.0])),
         {"alpha": real(position=0),
          # any number of stations (None: 101), each in [0, 1]
          "s": Kind(dict(array(skip=("None", "short")).cases, below=lambda valid: [-0.1, 0.5],
                         above=lambda valid: [0.5, 1.2]))}),
    Call("beam.arc_tip", beam.arc_tip, lambda: ((1.2,), {}), {"kappa_L": real(position=0)}),
]

MODELS = []
