"""Contract rows of lib.crosscheck.skfem (see framework.py): every public function, and the
neo-Hookean solid written as scikit-fem forms as a model (FD checks of its energy,
internal force and tangent)."""
import numpy as np

from lib import fe, fem
from lib import incompressible as inc
from lib.crosscheck import skfem as cc

from .framework import (Call, Kind, Model, array, between, boolean, choice, integer, model,
                        positive, real)

MODULE = "lib.crosscheck.skfem"

EXEMPT = {}


def _m(element="T6"):
    return fem.cantilever(2, 1, element, 0.3, slenderness=2.0)


def _u(m, seed=0, scale=0.01):
    return np.random.default_rng(seed).standard_normal(m.n_dofs) * scale


def _inverting(m):
    """u_x = -2 X: F = diag(-1, 1), every element turned inside out."""
    u = np.zeros(m.n_dofs)
    u[0::2] = -2.0 * m.mesh.nodes[:, 0]
    return u


MODEL = lambda position=0: model(position=position, wrong=lambda: inc.cantilever(
    2, 1, "T6", inc.neo_hookean(1.0, 0.3)))
BASIS = Kind({"string": lambda v: "basis", "not-a-pair": lambda v: (1.0,),
              "other-model": lambda v: cc.skfem_basis(fem.cantilever(3, 1, "T6"))})


def _row(name, valid, args):
    return Call(f"crosscheck.skfem.{name}", getattr(cc, name.split("[")[0]), valid, args)


def _static_valid():
    m = _m()
    return (m, fem.tip_shear_load(m, 0.01)), dict(steps=1, maxiter=20, basis=cc.skfem_basis(m))


CALLS = [
    _row("skfem_basis", lambda: ((_m("T3"),), dict(intorder=2)),
         {"model": Kind(dict(model(wrong=lambda: fe.rectangle_mesh(2, 1)).cases), 0),
          "intorder": integer(low=1, skip=("None",))}),
    _row("skfem_forms", lambda: ((_m(), _u(_m())), dict(basis=cc.skfem_basis(_m()))),
         {"model": MODEL(0), "u": Kind(dict(array().cases,
                                              inverted=lambda v: _inverting(_m())), 1),
          "basis": BASIS}),
    _row("skfem_static", _static_valid,
         {"model": MODEL(0), "load": array(position=1), "steps": integer(low=1),
          "maxiter": integer(low=1), "basis": BASIS}),
    _row("skfem_linear", lambda: ((_m("T3"),), dict(basis=cc.skfem_basis(_m("T3")))),
         {"model": MODEL(0), "basis": BASIS}),
    _row("skfem_cantilever", lambda: ((2, 1), dict(nu=0.3, element="T3", k=1)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "nu": between(-1.0, 0.5), "element": choice(),
          "k": Kind(dict(integer(low=1).cases, above=lambda v: 10**4))}),
    _row("skfem_mixed_tip", lambda: ((0.5,), dict(nx=2, ny=1, alpha=0.2, steps=1, intorder=2,
                                                   mu=1.0, return_x=True)),
         {"nu": between(-1.0, 0.5, position=0), "nx": integer(low=1), "ny": integer(low=1),
          "alpha": Kind(dict(real().cases, zero=lambda v: 0.0)), "steps": integer(low=1),
          "intorder": integer(low=1), "mu": positive(), "return_x": boolean()}),
    _row("skfem_rubber_tip", lambda: ((inc.yeoh(0.5, -0.01, 0.001, nu=0.45), 2, 1),
                                       dict(alpha=0.2, slenderness=2.0, steps=1, intorder=2,
                                            return_fields=True)),
         {"mat": model(position=0, wrong=lambda: fem.cantilever(2, 1, "T3")),
          "nx": integer(low=1, position=1), "ny": integer(low=1, position=2),
          "alpha": Kind(dict(real().cases, zero=lambda v: 0.0)), "slenderness": positive(),
          "steps": integer(low=1), "intorder": integer(low=1), "return_fields": boolean()}),
]


def _basis_model():
    m = _m()
    return m, cc.skfem_basis(m)


MODELS = [
    Model("crosscheck.skfem.skfem_forms[neo-Hookean FD]", _basis_model,
          lambda mb, rng: rng.standard_normal(mb[0].n_dofs) * 0.02,
          energy=lambda mb, u: cc.skfem_forms(mb[0], u, mb[1])[0],
          gradient=lambda mb, u: cc.skfem_forms(mb[0], u, mb[1])[1],
          hessian=lambda mb, u: cc.skfem_forms(mb[0], u, mb[1])[2]),
]
