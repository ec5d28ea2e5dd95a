"""Contract rows of lib.rod (see framework.py): every public function, and the FD checks."""
import types

import numpy as np

from lib import rod

from .framework import (Call, Kind, Model, array, between, boolean, choice, integer, model,
                        nonnegative, positive, real)

MODULE = "lib.rod"


def _rod3d():
    from lib import rod3d                 # imported when the case runs (another face)

    return rod3d.make_rod3d(4)


def _rod_state(r, rng, scale=0.3):
    dq = rng.standard_normal(r.ndof) * scale
    dq[1::3] *= r.ell
    dq[2::3] *= r.ell
    return rod.straight(r) + dq


def _with(kind, **cases):
    """``kind`` with extra cases ``name=bad_value`` (a value, or f(valid) -> value)."""
    extra = {k: (v if callable(v) else (lambda valid, v=v: v)) for k, v in cases.items()}
    return Kind(dict(kind.cases, **extra), kind.position)


_ROD = model(position=0, wrong=_rod3d)             # a 3-D rod given to a planar function
_Q = array(position=1)
_LOAD = array(skip=("None",))                      # None: no load
_KERNELS = boolean(skip=("None",))                 # None: the switch of lib.kernels


def _state_call(loads=True, **kw):
    def valid():
        r = rod.make_rod(4)
        extra = dict(load=(0.1, -0.2, 0.05), grav=0.5) if loads else {}
        return (r, _rod_state(r, np.random.default_rng(0))), dict(extra, **kw)
    return valid


def _rod_only(**kw):
    return lambda: ((rod.make_rod(3),), kw)


_ENERGY_ARGS = {"rod": _ROD, "q": _Q, "load": _LOAD, "grav": real(), "kernels": _KERNELS}

CALLS = [
    Call("rod.make_rod", rod.make_rod,
         lambda: ((3,), dict(r_over_L=0.05, nu=0.3, ks=0.8, L=2.0, EI=1.5, rhoA=0.7)),
         {"N": integer(low=1, position=0),
          # r/L = 1e-200 gives EA = 4 EI / r^2 = inf: out of floating point
          "r_over_L": _with(positive(), overflow=1e-200),
          "nu": _with(between(-1.0, 0.5), **{"minus-one": -1.0}),     # nu in (-1, 0.5]
          "ks": positive(skip=("None",)),                            # None: Cowper's
          "L": positive(), "EI": positive(), "rhoA": positive()}),
    Call("rod.straight", rod.straight, _rod_only(), {"rod": _ROD}),
    Call("rod.mass", rod.mass, _rod_only(), {"rod": _ROD}),
    # node_masses also takes a 3-D rod (same lumped masses); anything else is refused
    Call("rod.node_masses", rod.node_masses, _rod_only(),
         {"rod": _with(model(position=0),
                       duck=lambda v: types.SimpleNamespace(N=3, rhoA=1.0, ell=1 / 3))}),
    Call("rod.energy", rod.energy, _state_call(kernels=None),
         # a (1, 3N) q is a stack of one state (documented): the extra dimension is a third
         dict(_ENERGY_ARGS, q=_with(array(position=1),
                                    **{"extra-dim": lambda v: np.asarray(v)[None, None, :]}))),
    Call("rod.energy[stack]", rod.energy,
         lambda: ((rod.make_rod(3), np.tile(rod.straight(rod.make_rod(3)), (2, 1))), {}),
         {"q": _Q}),
    Call("rod.gradient", rod.gradient, _state_call(kernels=None), _ENERGY_ARGS),
    Call("rod.hessian", rod.hessian, _state_call(loads=False), {"rod": _ROD, "q": _Q}),
    Call("rod.banded_hessian", rod.banded_hessian, _state_call(loads=False, kernels=None),
         {"rod": _ROD, "q": _Q, "kernels": _KERNELS}),
    Call("rod.tip", rod.tip, _state_call(loads=False), {"rod": _ROD, "q": _Q}),
    Call("rod.frequencies", rod.frequencies, lambda: ((rod.make_rod(3), 2), {}),
         {"rod": _ROD, "k": _with(integer(low=1, position=1, skip=("None",)), above=10)}),
    Call("rod.modes", rod.modes, lambda: ((rod.make_rod(3), 2), {}),
         {"rod": _ROD, "k": _with(integer(low=1, position=1, skip=("None",)), above=10)}),
    Call("rod.kirchhoff_frequencies", rod.kirchhoff_frequencies,
         lambda: ((4,), dict(k=2, L=1.0, EI=1.0, rhoA=1.0, clamp=2.0)),
         {"N": integer(low=1, position=0), "k": _with(integer(low=1, skip=("None",)), above=5),
          "L": positive(), "EI": positive(), "rhoA": positive(), "clamp": positive()}),
    Call("rod.static", rod.static,
         lambda: ((rod.make_rod(4), (0.1, -0.5, 0.0)),
                  dict(grav=0.3, steps=2, q0=rod.straight(rod.make_rod(4)), tol=1e-10,
                       maxiter=20)),
         {"rod": _ROD, "load": array(position=1, skip=("None",)), "grav": real(),
          "steps": integer(low=1), "q0": array(skip=("None",)),     # q0 = nan: a NaN start
          "tol": nonnegative(), "maxiter": integer(low=0)}),
    Call("rod.force", rod.force, lambda: ((rod.make_rod(3),), dict(load=(0.0, -1.0, 0.0),
                                                                    grav=0.2, kernels=None)),
         {"rod": _ROD, "load": _LOAD, "grav": real(), "kernels": _KERNELS}),
    # f(q) checks the kind and length of q, not its values (a non-finite trial state of an
    # integrator's Newton is that Newton's to reject)
    Call("rod.force[q]", lambda r, q: rod.force(r)(q), _state_call(loads=False),
         {"q": array(position=1, skip=("nan", "inf"))}),
    Call("rod.first_order", rod.first_order,
         lambda: ((rod.make_rod(3),), dict(load=(0.0, -1.0, 0.0), grav=0.2, kernels=None)),
         {"rod": _ROD, "load": _LOAD, "grav": real(), "kernels": _KERNELS}),
    # f(t, y) checks the kind and length of y, not its values (solve_ivp's trial states)
    Call("rod.first_order[y]", lambda r, y: rod.first_order(r)(0.0, y),
         lambda: ((rod.make_rod(3), np.zeros(18)), {}),
         {"y": array(position=1, skip=("nan", "inf"))}),
    Call("rod.verlet", rod.verlet,
         lambda: ((rod.make_rod(3), rod.straight(rod.make_rod(3)), np.zeros(9), 1e-4, 3),
                  dict(load=(0.0, -1.0, 0.0), grav=0.2, every=1, kernels=None)),
         {"rod": _ROD, "q0": array(position=1), "v0": array(position=2),
          "dt": positive(position=3), "nsteps": integer(low=0, position=4), "load": _LOAD,
          "grav": real(), "every": integer(low=1), "kernels": _KERNELS}),
    Call("rod.newmark", rod.newmark,
         lambda: ((rod.make_rod(3), rod.straight(rod.make_rod(3)), np.zeros(9), 1e-2, 3),
                  dict(load=(0.0, -1.0, 0.0), grav=0.2, every=1, beta=0.25, gamma=0.5,
                       stop_energy=1.0, tol=1e-10, maxiter=40, predictor="displacement",
                       kernels=None)),
         {"rod": _ROD, "q0": array(position=1), "v0": array(position=2),
          "dt": positive(position=3), "nsteps": integer(low=0, position=4), "load": _LOAD,
          "grav": real(), "every": integer(low=1), "beta": positive(), "gamma": real(),
          "stop_energy": real(skip=("None",)), "tol": nonnegative(),
          "maxiter": integer(low=0), "predictor": choice(), "kernels": _KERNELS}),
    Call("rod.check_positive", rod.check_positive, lambda: ((2.0, "value"), {}),
         {"value": positive(position=0)}),
    Call("rod.check_load", rod.check_load, lambda: (((0.1, 0.2, 0.3),), {}),
         {"load": array(position=0, skip=("None",))}),
    Call("rod.check_grav", rod.check_grav, lambda: ((0.5,), {}), {"grav": real(position=0)}),
]

_LOADS, _GRAV = (0.4, -1.3, 0.25), 0.7

MODELS = [
    Model("rod", lambda: rod.make_rod(6, 0.04, 0.5), _rod_state,
          energy=lambda r, q: rod.energy(r, q, _LOADS, _GRAV),
          gradient=lambda r, q: rod.gradient(r, q, _LOADS, _GRAV),
          hessian=lambda r, q: rod.hessian(r, q)),
    Model("rod[thick, nu=0.3]", lambda: rod.make_rod(9, 0.1, 0.3), _rod_state,
          energy=lambda r, q: rod.energy(r, q, _LOADS, _GRAV),
          gradient=lambda r, q: rod.gradient(r, q, _LOADS, _GRAV),
          hessian=lambda r, q: rod.hessian(r, q)),
]
