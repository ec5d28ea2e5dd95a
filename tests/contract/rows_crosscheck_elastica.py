"""Contract rows of lib.crosscheck.elastica (see framework.py): every public function."""
import numpy as np

from lib import rod, rod3d
from lib.crosscheck import elastica as E

from .framework import (Call, Kind, array, between, boolean, integer, model, nonnegative,
                        positive, real)

MODULE = "lib.crosscheck.elastica"
EXEMPT = {}


def _const(v):
    return lambda valid: v


def _with(kind, **extra):
    return Kind(dict(kind.cases, **{k: _const(v) for k, v in extra.items()}), kind.position)


_SECTION = {"r_over_L": positive(), "nu": between(-1.0, 0.5), "ks": positive(skip=("None",))}
_SECTION_KW = dict(r_over_L=0.05, nu=0.3, ks=0.8)
_N = {"N": integer(low=2, position=0)}
_PLANAR = model(position=0, wrong=lambda: rod3d.make_rod3d(4))        # a 3-D rod: wrong kind
_EROD = model(position=0, wrong=lambda: rod3d.make_rod3d(2))


def _limit(N=2):
    return 2.0 / rod3d.omega_max_estimate(rod3d.make_rod3d(N, **_SECTION_KW))["max"]


CALLS = [
    Call("crosscheck.elastica.elastica_parameters", E.elastica_parameters,
         lambda: ((), dict(_SECTION_KW, L=1.0, EI=1.0, rhoA=1.0)),
         dict(_SECTION, L=positive(), EI=positive(), rhoA=positive())),
    Call("crosscheck.elastica.elastica_rod", E.elastica_rod, lambda: ((2,), dict(_SECTION_KW)),
         dict(_N, **_SECTION)),
    Call("crosscheck.elastica.elastica_stiffness", E.elastica_stiffness,
         lambda: ((E.elastica_rod(2),), dict(h=1e-6)),
         {"erod": _EROD, "h": positive(skip=("None",))}),
    Call("crosscheck.elastica.elastica_linearisation", E.elastica_linearisation,
         lambda: ((2,), dict(_SECTION_KW)), dict(_N, **_SECTION)),
    Call("crosscheck.elastica.elastica_frequencies", E.elastica_frequencies,
         lambda: ((2,), dict(k=2, return_asymmetry=True, **_SECTION_KW)),
         dict(_N, k=_with(integer(low=1), above=6), return_asymmetry=boolean(), **_SECTION)),
    Call("crosscheck.elastica.elastica_static_tip", E.elastica_static_tip,
         lambda: ((2,), dict(load=0.01, t_end=0.05, damping=3.0, dt_factor=0.9, vtol=10.0,
                             **_SECTION_KW)),
         dict(_N, load=real(), t_end=positive(), damping=positive(skip=("None",)),
              dt_factor=between(0.0, 1.0), vtol=positive(), **_SECTION)),
    Call("crosscheck.elastica.rigid_clamp_hessian", E.rigid_clamp_hessian,
         lambda: ((rod.make_rod(4),), {}), {"model": _PLANAR}),
    Call("crosscheck.elastica.rigid_clamp_frequencies", E.rigid_clamp_frequencies,
         lambda: ((rod.make_rod(4),), dict(k=2)),
         {"model": _PLANAR, "k": _with(integer(low=1), above=12)}),
    Call("crosscheck.elastica.rigid_clamp_static", E.rigid_clamp_static,
         lambda: ((rod.make_rod(4), (0.0, -0.1, 0.02)), dict(steps=2, tol=1e-12, maxiter=30)),
         {"model": _PLANAR, "load": array(position=1), "steps": integer(low=1),
          "tol": positive(), "maxiter": integer(low=0)}),
    Call("crosscheck.elastica.elastica_rod3d", E.elastica_rod3d,
         lambda: ((2,), dict(_SECTION_KW)), dict(_N, **_SECTION)),
    Call("crosscheck.elastica.elastica_state", E.elastica_state,
         lambda: ((E.elastica_rod3d(2),), {}), {"erod": _EROD}),
    Call("crosscheck.elastica.elastica_linearisation3d", E.elastica_linearisation3d,
         lambda: ((2,), dict(h=1e-6, **_SECTION_KW)),
         dict(_N, h=positive(skip=("None",)), **_SECTION)),
    Call("crosscheck.elastica.elastica_frequencies3d", E.elastica_frequencies3d,
         lambda: ((2,), dict(k=3, **_SECTION_KW)),
         dict(_N, k=_with(integer(low=1), above=10), **_SECTION)),
    Call("crosscheck.elastica.elastica_system", E.elastica_system,
         lambda: ((2, (0.0, -0.1, 0.0, 0.0, 0.0, 0.01)), dict(damping=1.0, dt=1e-4, spin=0.5,
                                                             velocity_torques=False,
                                                             **_SECTION_KW)),
         dict(_N, load=array(position=1, skip=("None",)), damping=nonnegative(skip=("None",)),
              dt=positive(skip=("None",)), spin=real(), velocity_torques=boolean(),
              **_SECTION)),
    # the case: an unstable dt gave a blown-up tip (~2.6e4) instead of an error
    Call("crosscheck.elastica.elastica_run", E.elastica_run,
         lambda: ((2, (0.0, -0.1, 0.0), 0.5 * _limit(), 3), dict(damping=1.0, every=1,
                                                                 spin=0.5,
                                                                 velocity_torques=False,
                                                                 **_SECTION_KW)),
         dict(_N, load=array(position=1, skip=("None",)),
              dt=_with(positive(position=2), unstable=1.2 * _limit(), far=1.0),
              nsteps=integer(low=0, position=3), damping=nonnegative(skip=("None",)),
              every=integer(low=1), spin=real(), velocity_torques=boolean(), **_SECTION)),
]

MODELS = []
