"""Contract rows of lib.studies (see framework.py): every public function of it."""
import numpy as np

from lib import studies
from lib.studies import WorkPoint

from .framework import (Call, Kind, array, choice, function, integer, nonnegative, positive)

MODULE = "lib.studies"

_MODEL = dict(force=lambda q: (q, np.eye(1)), mass=np.ones(1), accel=lambda q: -q,
              energy=lambda q: float(0.5 * q @ q), params=(0.0, 0.0, 0.25, 0.5))


def _ladder(scheme="newmark", **extra):
    return lambda: ((scheme, np.ones(1), np.zeros(1), [0.2, 0.1], 1.0, lambda q: q,
                     lambda t: np.cos(t)[:, None]),
                    dict(_MODEL, tol=1e-10, maxiter=20, stop_below=1e-9, max_steps=100,
                         progress=lambda n, total: None, **extra))


_POINTS = [WorkPoint(d, round(1 / d), 0.01 / d, 3 * d ** 2) for d in (0.1, 0.05, 0.025)]

CALLS = [
    Call("studies.work_precision", studies.work_precision, _ladder(),
         {"scheme": choice(position=0), "q0": array(position=1, skip=("extra-dim",)),
          "v0": array(position=2),
          "dts": Kind(dict(array(skip=("short", "extra-dim")).cases,
                           **{"past-horizon": lambda v: [2.0], "past-cap": lambda v: [1e-3]}), 3),
          "horizon": positive(position=4), "fn": function(position=5),
          "reference": function(position=6),
          "mass": array(skip=("extra-dim",)),                 # (1, 1): a dense mass of one dof "tol": nonnegative(),
          "maxiter": integer(low=0), "stop_below": positive(skip=("None",)),
          "max_steps": integer(low=1), "progress": function(skip=("None",)),
          "force": function()}),
    Call("studies.work_precision[generalized-alpha]", studies.work_precision,
         _ladder("generalized-alpha"), {"params": array()}),
    Call("studies.work_precision[verlet]", studies.work_precision, _ladder("verlet"),
         {"accel": function()}),
    Call("studies.work_precision[discrete-gradient]", studies.work_precision,
         _ladder("discrete-gradient", gradient=lambda q: q),
         {"energy": function(), "gradient": function(skip=("None",))}),
    Call("studies.work_precision[discrete-gradient, damped]", studies.work_precision,
         _ladder("discrete-gradient", damping=lambda q, v: (0.1 * v, 0.1 * np.eye(1))),
         {"damping": function(skip=("None",))}),
    Call("studies.work_precision[verlet, damped]", studies.work_precision,
         _ladder("verlet", damping=lambda q, v: (0.1 * v, 0.1 * np.eye(1))),
         {"damping": function(skip=("None",))}),
    Call("studies.dop853_reference", studies.dop853_reference,
         lambda: ((lambda t, y: np.array([y[1], -y[0]]), (0.0, 1.0), np.array([1.0, 0.0]), [0]),
                  dict(rtol=1e-8, atol=1e-10, max_steps=1000)),
         # y0's length is fun's business (a short y0 fails inside fun), so no "short" case
         {"fun": function(position=0), "y0": array(position=2, skip=("extra-dim", "short")),
          "rtol": positive(), "atol": positive(), "max_steps": integer(low=1)}),
    Call("studies.step_for_tolerance", studies.step_for_tolerance, lambda: ((_POINTS, 0.01), {}),
         {"points": Kind({"None": lambda v: None, "string": lambda v: "pts", "empty": lambda v: [],
                          "not-points": lambda v: [0.1, 0.2]}, 0),
          "tol": positive(position=1)}),
]

MODELS = []
