"""Contract rows of lib.pneumatic, closed chambers in the FEM arm (see framework.py): every
public function, and the pressure-control and gas-law potentials as models (FD checks)."""
import numpy as np

from lib import fem
from lib import incompressible as inc
from lib import pneumatic as pn

from .framework import (Call, Kind, Model, array, between, choice, integer, model,
                        nonnegative, positive, real)

MODULE = "lib.pneumatic"

EXEMPT = {}


def _const(v):
    return lambda valid: v


def _arm():
    return pn.make_arm(24, 4, "T3")


def _u(arm, seed=0, scale=0.003):
    u = np.random.default_rng(seed).standard_normal(arm.n_dofs) * scale
    u[arm.model.fixed] = 0.0
    return u


_ARM = model(position=0, wrong=lambda: fem.cantilever(4, 1, "T3"))
# a number (every cavity) or one per cavity: a list of the wrong length is bad input too
_PER = lambda position=None, kind=real: Kind(dict(kind().cases,
                                                  **{"wrong-length": _const([0.1, 0.2])}),
                                             position)
def _crossed(valid):
    """A start whose first cavity's top wall passes through its bottom wall."""
    a = _arm()
    c, X = a.cavities[0], a.model.mesh.nodes
    top = np.unique(c.edges[np.isclose(X[c.edges, 1], 0.25).all(1)])
    u = np.zeros(a.n_dofs)
    u[2 * top[(X[top, 0] > 0.8) & (X[top, 0] < 1.2)] + 1] = -0.4
    return u


_SOLVE = {"steps": integer(low=1), "tol": nonnegative(), "maxiter": integer(low=0),
          "u0": Kind(dict(array(skip=("None",)).cases, crossed=_crossed))}


def _row(func, valid, args, tag=""):
    return Call(f"pneumatic.{func.__name__}{tag}", func, valid, args)


def _arm_u(func, *extra, kinds=None):
    def valid():
        a = _arm()
        return (a, _u(a)) + extra, {}
    return _row(func, valid, dict({"arm": _ARM, "u": array(position=1)}, **(kinds or {})))


def _gas(func):
    def valid():
        a = _arm()
        return (a, _u(a), 0.3), dict(ambient=1.0)
    return _row(func, valid, {"arm": _ARM, "u": array(position=1),
                              "amount": _PER(2, positive), "ambient": nonnegative()})


CALLS = [
    _row(pn.make_arm, lambda: ((24, 4), dict(element="T3", cavities=pn.PNEUNET, length=6.0,
                                             height=1.0, E=2.0, nu=0.4)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "element": choice(), "cavities": Kind(dict(array().cases,
                                                     open=_const([(0.0, 1.0, 0.0, 0.25)]))),
          "length": positive(), "height": positive(), "E": positive(),
          "nu": between(-1.0, 0.5),
          "material": Kind({"string": _const("rubber"),
                            "wrong-kind": lambda v: fem.cantilever(2, 1, "T3")})}),
    _row(pn.make_arm, lambda: ((24, 4), dict(element="P2P1", material=inc.neo_hookean(1.0, 0.5))),
         {"element": Kind({"unknown": _const("Q9"), "None": _const(None)}),
          "cavities": Kind({"overlap": _const(pn.PNEUNET + ((1.0, 1.5, 0.0, 0.25),))})},
         tag="[P2P1]"),
    _row(pn.volumes, lambda: ((_arm(), np.zeros(_arm().n_dofs)), dict(method="cells")),
         {"arm": _ARM, "u": array(position=1), "method": choice()}),
    _arm_u(pn.tip_angle),
    _arm_u(pn.stored_energy),
    _arm_u(pn.energy, 0.01, kinds={"pressure": _PER(2)}),
    _arm_u(pn.gradient, 0.01, kinds={"pressure": _PER(2)}),
    _arm_u(pn.hessian, 0.01, kinds={"pressure": _PER(2)}),
    _gas(pn.gas_pressure), _gas(pn.gas_energy), _gas(pn.gas_gradient), _gas(pn.gas_hessian),
    _row(pn.volume_residual,
         lambda: ((_arm(), np.concatenate([_u(_arm()), [0.01, 0.0, -0.01, 0.0, 0.01]]), 0.3), {}),
         {"arm": _ARM, "z": array(position=1), "volumes": _PER(2, positive)}),
    _row(pn.volume_jacobian,
         lambda: ((_arm(), np.concatenate([_u(_arm()), [0.01, 0.0, -0.01, 0.0, 0.01]])), {}),
         {"arm": _ARM, "z": array(position=1)}),
    _row(pn.pressure_static,
         lambda: ((_arm(), 1e-4), dict(steps=1, tol=1e-10, maxiter=30,
                                      u0=np.zeros(_arm().n_dofs))),
         dict({"arm": _ARM, "pressure": _PER(1)}, **_SOLVE)),
    _row(pn.volume_static,
         lambda: ((_arm(), 0.1251), dict(steps=1, tol=1e-10, maxiter=30,
                                        u0=np.zeros(_arm().n_dofs))),
         dict({"arm": _ARM, "volumes": _PER(1, positive)}, **_SOLVE)),
    _row(pn.gas_static,
         lambda: ((_arm(), 0.1251), dict(ambient=1.0, steps=1, tol=1e-10, maxiter=30,
                                        u0=np.zeros(_arm().n_dofs))),
         dict({"arm": _ARM, "amount": _PER(1, positive), "ambient": nonnegative()}, **_SOLVE)),
    _row(pn.pressure_work, lambda: ((pn.pressure_static(_arm(), 1e-3, steps=2),), {}),
         {"path": model(position=0, wrong=_arm)}),
    _row(pn.bending_slopes, lambda: ((_arm(),), {}), {"arm": _ARM}),
]

_P = np.array([0.02, 0.01, -0.01, 0.0, 0.015])
def _rubber():
    return pn.make_arm(24, 4, "P2P1", material=inc.neo_hookean(1.0, 0.5))


MODELS = [
    Model("pneumatic[pressure, P2P1 nu=0.5]", _rubber, lambda a, rng: _u(a, int(rng.integers(99))),
          lambda a, u: pn.energy(a, u, _P), lambda a, u: pn.gradient(a, u, _P),
          lambda a, u: pn.hessian(a, u, _P)),
    Model("pneumatic[pressure]", _arm, lambda a, rng: _u(a, int(rng.integers(99))),
          lambda a, u: pn.energy(a, u, _P), lambda a, u: pn.gradient(a, u, _P),
          lambda a, u: pn.hessian(a, u, _P)),
    Model("pneumatic[gas]", _arm, lambda a, rng: _u(a, int(rng.integers(99))),
          lambda a, u: pn.gas_energy(a, u, 0.15, 1.0), lambda a, u: pn.gas_gradient(a, u, 0.15, 1.0),
          lambda a, u: pn.gas_hessian(a, u, 0.15, 1.0)),
]
