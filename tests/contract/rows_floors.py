"""Contract rows of the floors not covered in rows.py: quadrature, convergence, the cone."""
import numpy as np

from lib.core import convergence, quadrature
from lib.solvers import cone

from .framework import Call, Kind, array, integer, positive, real

_ZERO = {"zero": lambda v: 0.0}

CALLS = [
    Call("quadrature.triangle", quadrature.triangle, lambda: ((2,), {}),
         {"degree": Kind(dict(integer(low=0).cases, above=lambda v: 5), 0)}),
    Call("quadrature.line", quadrature.line, lambda: ((3,), {}), {"n": integer(low=1, position=0)}),
    Call("convergence.observed_order", convergence.observed_order,
         lambda: ((4e-3, 1e-3), dict(ratio=2.0)),
         {"e_coarse": Kind(dict(real().cases, **_ZERO), 0),
          "e_fine": Kind(dict(real().cases, **_ZERO), 1),
          "ratio": Kind(dict(positive().cases, one=lambda v: 1.0))}),
    Call("convergence.richardson", convergence.richardson,
         lambda: ((np.array([3.0, 4.0]), np.array([2.0, 3.5]), 1.0), dict(ratio=2.0)),
         {"coarse": array(position=0), "fine": array(position=1), "p": positive(position=2),
          "ratio": Kind(dict(positive().cases, one=lambda v: 1.0))}),
]

_PLANAR = lambda: ((np.eye(2), np.array([-0.981, 0.6]), np.array([[0.5, 0.5]]),
                    cone.pyramid(2, 1)), {})
_CONE_ARGS = {"G": array(position=0), "u": array(position=1),
              "mu": Kind(dict(array().cases, negative=lambda v: -np.asarray(v)), 2),
              # a zero direction, and one without its opposite (audit F5)
              "directions": Kind(dict(array().cases, zero=lambda v: [[1.0, 0.0]],
                                      unpaired=lambda v: [[1.0, 2.0]]), 3)}
CALLS += [
    Call("cone.pyramid", cone.pyramid, lambda: ((4,), dict(tangent_dims=2)),
         {"k": Kind(dict(integer(low=2).cases, odd=lambda v: 3), 0),
          "tangent_dims": Kind(dict(integer(low=1).cases, three=lambda v: 3))}),
    Call("cone.friction_lcp", cone.friction_lcp, _PLANAR, _CONE_ARGS),
    Call("cone.solve_friction", cone.solve_friction,
         lambda: (_PLANAR()[0], dict(tol=1e-10)), dict(_CONE_ARGS, tol=positive())),
]
