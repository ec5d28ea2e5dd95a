"""Contract rows of lib.fe.cavity, closed cavities in the structured mesh (see framework.py):
every public function, and the cavity volume as a model (its gradient and Hessian against
central differences)."""
import numpy as np

from lib import fe
from lib.fe import cavity as cv

from .framework import Call, Kind, Model, array, choice, integer, model, positive, real

MODULE = "lib.fe.cavity"

EXEMPT = {}

_BOXES = [(1.0, 2.0, -0.25, 0.25), (2.5, 3.0, 0.0, 0.25)]


def _const(v):
    return lambda valid: v


def _space(element="T3", boxes=_BOXES, nx=16):
    return fe.make_space(cv.cavity_mesh(nx, 4, boxes, element, length=4.0))


def _u(space, seed=0, scale=0.01):
    return np.random.default_rng(seed).standard_normal(space.n_dofs) * scale


# a space without cavities, and cavities of other meshes (another size; the same size)
_MODEL = model(position=0, wrong=lambda: fe.make_space(fe.rectangle_mesh(16, 4, "T3", 4.0)))
_CAVITY = Kind(dict(model(wrong=lambda: cv.make_cavity(_space(nx=32))).cases,
                    **{"same-size-other-mesh": lambda valid: cv.make_cavity(
                        _space(boxes=[(1.25, 2.25, -0.25, 0.25), (2.5, 3.0, 0.0, 0.25)]))}),
               position=1)


def _call(func, u=True, pressure=False, element="T6"):
    def valid():
        s = _space(element)
        extra = ((_u(s),) if u else ()) + ((2.0,) if pressure else ())
        return (s, cv.make_cavity(s, 1)) + extra, {}
    args = {"model": _MODEL, "cavity": _CAVITY}
    if u:
        args["u"] = array(position=2)
    if pressure:
        args["pressure"] = real(position=3)
    return Call(f"fe.cavity.{func.__name__}", func, valid, args)


CALLS = [
    Call("fe.cavity.cavity_mesh", cv.cavity_mesh,
         lambda: ((16, 4, _BOXES), dict(element="T6", length=4.0, height=1.0, diagonal="\\")),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "cavities": Kind(dict(array().cases,
                                **{"open": _const([(0.0, 1.0, -0.25, 0.25)]),
                                   "overlap": _const(_BOXES + [(1.5, 2.5, 0.0, 0.25)]),
                                   "off-grid": _const([(1.1, 2.0, -0.25, 0.25)]),
                                   "empty": _const(np.empty((0, 4)))}), position=2),
          "element": choice(), "length": positive(), "height": positive(),
          "diagonal": choice()}),
    Call("fe.cavity.make_cavity", cv.make_cavity, lambda: ((_space(),), dict(index=1)),
         {"model": _MODEL, "index": Kind(dict(integer(low=0).cases, above=_const(2)))}),
    Call("fe.cavity.cavity_volume", cv.cavity_volume,
         lambda: ((_space("T6"), cv.make_cavity(_space("T6")), _u(_space("T6"))),
                  dict(method="cells")),
         {"model": _MODEL, "cavity": _CAVITY, "u": array(position=2), "method": choice()}),
    _call(cv.volume_gradient),
    _call(cv.volume_hessian, u=False),
    _call(cv.cavity_load, pressure=True),
    _call(cv.load_resultant, pressure=True, element="T3"),
    _call(cv.walls_cross),
]


def _volume_model(element, method):
    def make():
        s = _space(element)
        return s, cv.make_cavity(s, 0)
    return Model(f"fe.cavity[{element}, {method}]", make,
                 lambda m, rng: 0.01 * rng.standard_normal(m[0].n_dofs),
                 lambda m, u: cv.cavity_volume(m[0], m[1], u, method),
                 lambda m, u: cv.volume_gradient(m[0], m[1], u),
                 lambda m, u: cv.volume_hessian(m[0], m[1]))


MODELS = [_volume_model(e, meth) for e in ("T3", "T6") for meth in ("boundary", "cells")]
