"""Contract rows of lib.pcc (see framework.py): every public function, and its models."""
from types import SimpleNamespace

import numpy as np

from lib import pcc

from .framework import (Call, Kind, Model, array, boolean, choice, function, integer, model,
                        positive, real)

MODULE = "lib.pcc"

_Q, _QD = np.array([0.3, -0.5, 0.8]), np.array([0.2, 0.1, -0.4])
# a duck-typed look-alike of a PCC (it has n) is not a PCC
_MODEL = model(position=0, wrong=lambda: SimpleNamespace(n=3, EI=1.0, rhoA=1.0, L=1.0, ell=1 / 3))
_STATE = {"model": _MODEL, "q": array(position=1)}


def _on_model(*args, **kw):
    return lambda: ((pcc.make_pcc(3),) + args, dict(kw))


_SIZES = {"n": integer(low=1, position=0), "EI": positive(), "rhoA": positive(), "L": positive()}
_ARC = {"a": Kind({"nan": lambda v: np.nan, "inf": lambda v: np.inf, "string": lambda v: "a",
                   "None": lambda v: None, "bool": lambda v: True}, 0),
        "rhoA": positive(), "ell": positive()}
_LOADS = {"force": array(), "moment": real(), "grav": real()}
_LOADS_KW = dict(force=(0.5, -1.0), moment=0.3, grav=0.7)

CALLS = [
    Call("pcc.ritz", pcc.ritz, lambda: ((3,), dict(EI=2.0, rhoA=1.5, L=0.5)), _SIZES),
    Call("pcc.frequencies", pcc.frequencies, lambda: ((3,), dict(k=2, EI=2.0, rhoA=1.5, L=0.5)),
         dict(_SIZES, k=Kind(dict(integer(low=1, skip=("None",)).cases, above=lambda v: 4)))),
    Call("pcc.arc_mass", pcc.arc_mass, lambda: ((0.7,), dict(rhoA=2.0, ell=0.5)), _ARC),
    Call("pcc.arc_mass[array]", pcc.arc_mass, lambda: ((np.array([0.0, 1.0, 3.0]),), {}),
         {"a": array(position=0, skip=("short", "extra-dim"))}),          # any shape is legal
    Call("pcc.arc_mass_closed_form", pcc.arc_mass_closed_form,
         lambda: ((0.7,), dict(rhoA=2.0, ell=0.5)),
         dict(_ARC, a=Kind(dict(_ARC["a"].cases, zero=lambda v: 0.0), 0))),  # 0/0 there
    Call("pcc.make_pcc", pcc.make_pcc, lambda: ((3,), dict(EI=2.0, rhoA=1.5, L=0.5, nquad=4)),
         dict(_SIZES, nquad=integer(low=3))),
    Call("pcc.positions", pcc.positions, _on_model(_Q, np.array([0.0, 0.5, 1.0])),
         dict(_STATE, s=Kind(dict(array(skip=("short", "None")).cases, beyond=lambda v: [0.5, 1.5],
                                  negative=lambda v: [-0.1]), 2))),
    Call("pcc.tip", pcc.tip, _on_model(_Q), _STATE),
    Call("pcc.jacobian", pcc.jacobian, _on_model(_Q, [0.25, 1.0]),
         dict(_STATE, s=array(position=2, skip=("short", "None")))),
    Call("pcc.mass_matrix", pcc.mass_matrix, _on_model(_Q), _STATE),
    Call("pcc.velocity_force", pcc.velocity_force, _on_model(_Q, _QD),
         dict(_STATE, qd=array(position=2))),
    Call("pcc.energy", pcc.energy, _on_model(_Q, grav=0.7), dict(_STATE, grav=real())),
    Call("pcc.gradient", pcc.gradient, _on_model(_Q, grav=0.7), dict(_STATE, grav=real())),
    Call("pcc.hessian", pcc.hessian, _on_model(_Q, grav=0.7), dict(_STATE, grav=real())),
    Call("pcc.static_energy", pcc.static_energy, _on_model(_Q, **_LOADS_KW), dict(_STATE, **_LOADS)),
    Call("pcc.static_gradient", pcc.static_gradient, _on_model(_Q, **_LOADS_KW),
         dict(_STATE, **_LOADS)),
    Call("pcc.static", pcc.static, _on_model(**_LOADS_KW, steps=2),
         dict(model=_MODEL, **_LOADS, steps=integer(low=1))),
    Call("pcc.kinetic_energy", pcc.kinetic_energy, _on_model(_Q, _QD),
         dict(_STATE, qd=array(position=2))),
    Call("pcc.total_energy", pcc.total_energy, _on_model(_Q, _QD, grav=0.7),
         dict(_STATE, qd=array(position=2), grav=real())),
    Call("pcc.accel", pcc.accel, _on_model(_Q, _QD, grav=0.7),
         dict(_STATE, qd=array(position=2), grav=real())),
    Call("pcc.ode", pcc.ode, _on_model(grav=0.7), {"model": _MODEL, "grav": real()}),
    Call("pcc.simulate", pcc.simulate,
         lambda: ((pcc.make_pcc(2), 0.05),
                  dict(q0=np.array([0.1, 0.0]), qd0=np.zeros(2), grav=1.0, t_eval=[0.0, 0.05],
                       method="RK45", rtol=1e-6, atol=1e-8, dense_output=False)),
         {"model": _MODEL, "t_end": positive(position=1), "q0": array(skip=("None",)),
          "qd0": array(skip=("None",)), "grav": real(), "method": choice(skip=("None",)),
          "rtol": positive(), "atol": positive(), "dense_output": boolean(),
          "t_eval": Kind(dict(array(skip=("short", "None")).cases,
                              beyond=lambda v: [0.0, 0.1], decreasing=lambda v: [0.05, 0.0]))}),
    Call("pcc.tip_minimum_event", pcc.tip_minimum_event, _on_model(terminal=True),
         {"model": _MODEL, "terminal": boolean()}),
    Call("pcc.first_tip_minimum", pcc.first_tip_minimum,
         lambda: ((pcc.make_pcc(1), 3.0), dict(q0=np.zeros(1), t_max=2.0, rtol=1e-6, atol=1e-8)),
         {"model": _MODEL, "grav": real(position=1), "q0": array(skip=("None",)),
          "t_max": positive(), "rtol": positive(), "atol": positive()}),
]


def _angles(m, rng):
    return rng.uniform(-1.2, 1.2, m.n)


MODELS = [
    Model("pcc", lambda: pcc.make_pcc(4, EI=1.3, rhoA=0.8, L=1.1), _angles,
          energy=lambda m, q: pcc.energy(m, q, grav=2.5),
          gradient=lambda m, q: pcc.gradient(m, q, grav=2.5),
          hessian=lambda m, q: pcc.hessian(m, q, grav=2.5)),
    Model("pcc.static_energy[FD]", lambda: pcc.make_pcc(3), _angles,
          energy=lambda m, q: pcc.static_energy(m, q, (0.7, -1.9), 0.4, 1.2),
          gradient=lambda m, q: pcc.static_gradient(m, q, (0.7, -1.9), 0.4, 1.2)),
    # the kinetic energy as a function of the rates: its gradient is M(q) qd, its Hessian
    # M(q) (= the linear Rayleigh-Ritz mass at q = 0)
    Model("pcc.kinetic_energy[FD]", lambda: (pcc.make_pcc(3), np.array([0.4, -0.9, 1.3])),
          lambda mq, rng: rng.standard_normal(3),
          energy=lambda mq, qd: pcc.kinetic_energy(mq[0], mq[1], qd),
          gradient=lambda mq, qd: pcc.mass_matrix(mq[0], mq[1]) @ qd,
          hessian=lambda mq, qd: pcc.mass_matrix(mq[0], mq[1])),
    Model("pcc.ritz[FD]", lambda: pcc.ritz(3), lambda MK, rng: rng.standard_normal(3),
          energy=lambda MK, q: pcc.energy(pcc.make_pcc(3), q),
          gradient=lambda MK, q: MK[1] @ q, hessian=lambda MK, q: MK[1]),
]
