"""Contract rows of lib.rod (see framework.py)."""
import numpy as np

from lib import rod, rod3d

from .framework import Call, Model, array, model, real

# --------------------------------------------------------------------------------------
# lib.rod (its validators are migrated onto lib.core.checks later: the xfails below are
# what is left to do)
# --------------------------------------------------------------------------------------
def _rod_state(r, rng, scale=0.3):
    dq = rng.standard_normal(r.ndof) * scale
    dq[1::3] *= r.ell
    dq[2::3] *= r.ell
    return rod.straight(r) + dq


def _rod_call(func, loads=True):
    def valid():
        r = rod.make_rod(4)
        kw = dict(load=(0.1, -0.2, 0.05), grav=0.5) if loads else {}
        return (r, _rod_state(r, np.random.default_rng(0))), kw
    return valid


_LATER = "lib.rod's validators are migrated onto lib.core.checks in the migration phase"
_ROD_ARGS = {"rod": model(position=0, wrong=lambda: rod3d.make_rod3d(4)), "q": array(position=1)}
_ROD_XFAIL = {"rod=None": _LATER + " (AttributeError)", "rod=string": _LATER + " (AttributeError)",
              "rod=wrong-kind": _LATER + " (a Rod3D is blamed on q's shape)",
              "q=nan": _LATER + " (NaN accepted)", "q=inf": _LATER + " (inf accepted)",
              "q=string": _LATER + " (NumPy's message)", "q=bools": _LATER + " (bools accepted)"}
_LOAD_XFAIL = {"grav=bool": _LATER + " (True accepted as 1)",
               "grav=string": _LATER + " ('1.0' accepted as 1.0)",
               "load=bools": _LATER + " (bools accepted)"}

CALLS = [
    Call("rod.energy", rod.energy, _rod_call(rod.energy),
         dict(_ROD_ARGS, load=array(skip=("None",)), grav=real()),
         dict(_ROD_XFAIL, **_LOAD_XFAIL, **{"q=extra-dim": _LATER + " (a (1, 3N) q accepted)"})),
    Call("rod.gradient", rod.gradient, _rod_call(rod.gradient),
         dict(_ROD_ARGS, load=array(skip=("None",)), grav=real()), dict(_ROD_XFAIL, **_LOAD_XFAIL)),
    Call("rod.hessian", rod.hessian, _rod_call(rod.hessian, loads=False), _ROD_ARGS,
         _ROD_XFAIL),
]

_LOAD, _GRAV = (0.4, -1.3, 0.25), 0.7

MODELS = [
    Model("rod", lambda: rod.make_rod(6, 0.04, 0.5), _rod_state,
          energy=lambda r, q: rod.energy(r, q, _LOAD, _GRAV),
          gradient=lambda r, q: rod.gradient(r, q, _LOAD, _GRAV),
          hessian=lambda r, q: rod.hessian(r, q)),
    Model("rod[thick, nu=0.3]", lambda: rod.make_rod(9, 0.1, 0.3), _rod_state,
          energy=lambda r, q: rod.energy(r, q, _LOAD, _GRAV),
          gradient=lambda r, q: rod.gradient(r, q, _LOAD, _GRAV),
          hessian=lambda r, q: rod.hessian(r, q)),
]
