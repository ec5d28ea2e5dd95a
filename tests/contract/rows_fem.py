"""Contract rows of lib.fem (see framework.py): every public function and the neo-Hookean
solid on T3 and T6 as models (FD checks).

Issue-22 examples as cases: ``E=inf`` (make_model), a NaN start state (static's
``u0=nan``, blamed on the solver before), a zero-element mesh (``mesh=no-elements``,
NumPy's reshape error before), ``None`` for a model (an AttributeError before).
"""
import numpy as np

from lib import fe, fem
from lib import incompressible as inc

from .framework import (Call, Kind, Model, array, between, boolean, choice, integer, model,
                        positive, real)
from .rows_fe import MESH

MODULE = "lib.fem"

_ALIAS = "an alias of lib.fe.{} (re-exported; its row is in rows_fe.py)"
EXEMPT = {name: _ALIAS.format(name) for name in (
    "rectangle_mesh", "clamped_dofs", "admissible", "condense", "expand", "face_traction_load",
    "tip_shear_load", "face_pressure_load", "divergence_matrix", "divergence_free_dimension",
    "inf_sup_constants")}


def _m(element="T3", nx=4):
    return fem.cantilever(nx, 1, element, 0.3, slenderness=4.0)


def _u(m, seed=0, scale=0.01):
    return np.random.default_rng(seed).standard_normal(m.n_dofs) * scale


def _space():
    """A finite-element space without a material: the wrong kind for a fem.Model."""
    mesh = fe.rectangle_mesh(2, 1, "T3")
    return fe.make_space(mesh, fe.clamped_dofs(mesh))


def _body():
    return inc.cantilever(2, 1, "T6", inc.neo_hookean(1.0, 0.3))


MODEL = lambda position=0: model(position=position, wrong=_space)
SPACE = lambda position=0: model(position=position, wrong=_body)
NU = lambda position=None: between(-1.0, 0.5, position=position)


def _row(name, valid, args):
    return Call(f"fem.{name}", getattr(fem, name.split("[")[0]), valid, args)


def _model_u(name, loads=False, wrong=MODEL):
    def valid():
        m = _m()
        return (m, _u(m)), (dict(load=_u(m, 1)) if loads else {})
    args = {"model": wrong(0), "u": array(position=1)}
    if loads:
        args["load"] = array(skip=("None",))
    return _row(name, valid, args)


def _model_only(name, wrong=MODEL, **kw):
    return _row(name, lambda: ((_m(),), kw), {"model": wrong(0)})


def _cantilever_args():
    return {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
            "element": choice(position=2), "nu": NU(position=3)}


def _static_valid():
    m = _m("T6")
    load = fem.tip_shear_load(m, 0.5 * fem.plane_strain_modulus(m) / 12 / 16)
    return (m, load), dict(steps=1, tol=1e-10, maxiter=20, u0=np.zeros(m.n_dofs))


CALLS = [
    _row("make_model", lambda: ((fe.rectangle_mesh(2, 1, "T3"),),
                                dict(E=2.0, nu=np.int64(0), rho=1.5, fixed=[0, 1, 6])),
         {"mesh": MESH(0), "E": positive(), "nu": NU(), "rho": positive(),
          "fixed": array(skip=("short", "None"))}),
    _row("cantilever", lambda: ((2, 1), dict(element="T6", nu=0.3, E=2.0, rho=1.0,
                                              slenderness=3.0)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1), "element": choice(),
          "nu": NU(), "E": positive(), "rho": positive(), "slenderness": positive()}),
    _row("neo_hookean", lambda: ((np.eye(2) + 0.01, 1.0, 2.0), dict(order=1)),
         {"F": Kind(dict(array(skip=("extra-dim",)).cases,         # a batch of F is legal
                         inverted=lambda v: np.diag([-1.0, 1.0])), 0),
          "mu": positive(position=1), "lam": real(position=2), "order": choice()}),
    _model_u("energy", loads=True),
    _model_u("strain_energy"),
    _model_u("gradient", loads=True),
    _model_u("hessian"),
    _model_only("linear_stiffness"),
    _model_only("mass"),
    _row("condensed_force", lambda: ((_m(),), dict(load=_u(_m()))),
         {"model": MODEL(0), "load": array(skip=("None",))}),
    _row("internal_force", lambda: ((_m(),), dict(load=_u(_m()))),
         {"model": MODEL(0), "load": array(skip=("None",))}),
    _model_u("tip_deflection", wrong=SPACE),
    _row("deflection_ratio", lambda: ((_m(), _u(_m())), dict(total=2.0)),
         {"model": MODEL(0), "u": array(position=1),
          "total": Kind(dict(real().cases, zero=lambda v: 0.0))}),
    _row("solve_linear", lambda: ((_m(), _u(_m())), dict(K=fem.linear_stiffness(_m()).toarray())),
         {"model": Kind(dict(MODEL().cases, unclamped=lambda v: fem.make_model(
             fe.rectangle_mesh(2, 1))), 0),
          "load": array(position=1), "K": array(skip=("None",))}),
    _row("static", _static_valid,
         {"model": MODEL(0), "load": Kind(dict(array().cases, zero=lambda v: 0 * v), 1),
          "steps": integer(low=1), "tol": Kind(dict(real().cases, negative=lambda v: -1.0)),
          "maxiter": integer(low=0), "u0": array(skip=("None",))}),
    _row("frequencies", lambda: ((_m(),), dict(k=2, return_modes=True, K=None, M=None)),
         {"model": MODEL(0), "k": Kind(dict(integer(low=1).cases, above=lambda v: 10**6)),
          "return_modes": boolean(), "K": array(skip=("None",)), "M": array(skip=("None",))}),
    _row("frequencies[K, M]", lambda: ((_m(),), dict(k=1, K=fem.linear_stiffness(_m()).toarray(),
                                                     M=fem.mass(_m()).toarray())),
         {"K": array(skip=("None",)), "M": array(skip=("None",))}),
    _row("highest_frequency", lambda: ((_m(),), dict(K=fem.linear_stiffness(_m()).toarray(),
                                                     M=fem.mass(_m()).toarray())),
         {"model": MODEL(0), "K": array(skip=("None",)), "M": array(skip=("None",))}),
    _row("bending_frequencies", lambda: ((_m("T6", 8),), dict(k=1)),
         {"model": MODEL(0), "k": integer(low=1)}),
    _row("mixed_solve", lambda: ((_m("T6"), fem.tip_shear_load(_m("T6"))), {}),
         {"model": Kind(dict(MODEL().cases, T3=lambda v: _m("T3")), 0),
          "load": array(position=1)}),
    _row("pressure", lambda: ((_m(), _u(_m())), dict(points=[[0.2, 0.2]])),
         {"model": MODEL(0), "u": array(position=1), "points": array(skip=("None",))}),
    _row("cable_row", lambda: ((_m(), [1, 3, 5]), {}),
         {"model": SPACE(0),
          "eyelets": Kind(dict(array(skip=("short",)).cases,
                               **{"one": lambda v: [1], "repeat": lambda v: [1, 1],
                                  "out-of-range": lambda v: [1, 10**6]}), 1)}),
    _row("section_rows", lambda: ((_m(),), dict(x=0.0)),
         {"model": SPACE(0), "x": Kind(dict(real().cases, **{"no-face": lambda v: 0.5}))}),
    _model_only("plane_strain_modulus"),
    _row("euler_bernoulli_tip", lambda: ((_m(),), dict(total=2.0)),
         {"model": MODEL(0), "total": real()}),
    _row("timoshenko_tip_ratio", lambda: ((0.3,), dict(slenderness=5.0, ks=0.8)),
         {"nu": NU(0), "slenderness": positive(), "ks": positive(skip=("None",))}),
    _row("corner_exponent", lambda: ((0.3,), dict(angle=1.0)),
         {"nu": NU(0), "angle": between(0.0, np.pi / 2)}),
    _row("corner_extrapolation", lambda: (([0.9, 0.95, 0.97],), dict(nu=0.3, refinement=2.0)),
         {"values": Kind(dict(array(skip=("short",)).cases, two=lambda v: [0.9, 0.95]), 0),
          "nu": NU(), "refinement": Kind(dict(positive().cases, one=lambda v: 1.0)),
          "angle": between(0.0, np.pi / 2)}),
    _row("cantilever_tip_ratio", lambda: ((2, 1, "T3", 0.3), {}), _cantilever_args()),
    _row("cantilever_frequencies", lambda: ((4, 1, "T6", 0.3), dict(k=1)),
         dict(_cantilever_args(), k=integer(low=1))),
]


def _fem_model(element, nu):
    def make():
        return fem.cantilever(3, 1, element, nu, E=2.0, slenderness=3.0)
    return make


def _state(m, rng):
    return rng.standard_normal(m.n_dofs) * 0.02


MODELS = [
    Model(f"fem[{element}, nu={nu}]", _fem_model(element, nu), _state,
          energy=lambda m, u: fem.energy(m, u, np.linspace(-1, 1, m.n_dofs)),
          gradient=lambda m, u: fem.gradient(m, u, np.linspace(-1, 1, m.n_dofs)),
          hessian=fem.hessian)
    for element, nu in (("T3", 0.3), ("T6", 0.45))
]


def _density(F):
    return np.eye(2) + np.asarray(F).reshape(2, 2)


MODELS.append(
    Model("fem.neo_hookean[density W, P, A]", lambda: (1.0, 2.0),
          lambda ml, rng: rng.standard_normal(4) * 0.1,
          energy=lambda ml, F: float(fem.neo_hookean(_density(F), *ml, order=0)),
          gradient=lambda ml, F: fem.neo_hookean(_density(F), *ml, order=1)[1].ravel(),
          hessian=lambda ml, F: fem.neo_hookean(_density(F), *ml)[2].reshape(4, 4)))
