"""Contract rows of lib.incompressible (see framework.py): every public function, and every
material and formulation (split and mixed forms) as a model (FD checks).

Issue-22 examples as cases: ``neo_hookean(nu=np.int64(0))`` is a valid call (it was
rejected), a NaN start state for ``solve`` (``x0=nan``, blamed on the solver before),
``None`` for a body or material, a zero-element mesh for ``make_body``.
"""
import numpy as np

from lib import fe, fem
from lib import incompressible as inc

from .framework import (Call, Kind, Model, array, between, boolean, choice, function, integer,
                        model, nonnegative, positive, real)
from .rows_fe import MESH

MODULE = "lib.incompressible"

EXEMPT = {}


def _mat(nu=0.45):
    return inc.neo_hookean(1.0, nu)


def _b(form="T6", nu=0.45, nx=3):
    return inc.cantilever(nx, 1, form, _mat(nu), slenderness=3.0)


def _x(b, seed=0, scale=0.01):
    return np.random.default_rng(seed).standard_normal(b.n_u + b.n_p) * scale


BODY = lambda position=0: model(position=position, wrong=lambda: fem.cantilever(2, 1, "T6"))
MAT = lambda position=None: model(position=position, wrong=lambda: fem.cantilever(2, 1, "T3"))
NU = lambda position=None: between(-1.0, 0.5, position=position)


def _row(name, valid, args):
    return Call(f"incompressible.{name}", getattr(inc, name.split("[")[0]), valid, args)


def _body_x(name, loads=False, form="T6"):
    def valid():
        b = _b(form)
        return (b, _x(b)), (dict(load=_x(b, 1)[:b.n_u]) if loads else {})
    args = {"body": BODY(0), "x": array(position=1)}
    if loads:
        args["load"] = array(skip=("None",))
    return _row(name, valid, args)


def _solve_valid():
    b = _b("P2P1", 0.49)
    return (b, inc.tip_load(b, 0.3)), dict(steps=1, tol=1e-10, maxiter=20, x0=np.zeros(
        b.n_u + b.n_p), max_cuts=2, reuse=1, lu="general")


def _solve_extra_valid():
    b = _b("T6", 0.3)
    f = inc.tip_load(b, 0.3)
    return (b, 0 * f), dict(steps=1, extra=lambda u, s: (-s * f, None),
                            extra_scale=float(np.abs(f).max()))


CALLS = [
    _row("neo_hookean", lambda: ((), dict(mu=np.int64(2), nu=np.int64(0))),
         {"mu": positive(), "nu": Kind(dict(NU().cases, above=lambda v: 0.5 + 1e-3))}),
    _row("stable_neo_hookean", lambda: ((), dict(mu=1.0, nu=0.5)),
         {"mu": positive(), "nu": NU()}),
    _row("mooney_rivlin", lambda: ((0.3, 0.0), dict(nu=0.49)),
         {"c10": positive(position=0), "c01": nonnegative(position=1), "nu": NU()}),
    _row("yeoh", lambda: ((1.0, -0.1, 0.0), dict(nu=0.49)),
         {"c10": positive(position=0), "c20": real(position=1), "c30": nonnegative(position=2),
          "nu": NU()}),
    _row("material", lambda: (("mooney-rivlin",), dict(nu=0.3, c10=0.4, c01=0.1)),
         {"model": choice(position=0), "nu": NU(), "c10": positive(), "c01": nonnegative()}),
    _row("response", lambda: ((_mat(), np.eye(2) + 0.01), dict(order=2)),
         {"mat": Kind(dict(MAT().cases, incompressible=lambda v: _mat(0.5)), 0),
          "F": Kind(dict(array(skip=("extra-dim",)).cases,
                         inverted=lambda v: np.diag([-1.0, 1.0])), 1),
          "order": choice()}),
    _row("uniaxial_stress", lambda: ((_mat(), [1.0, 2.0]), dict(mode="planar")),
         {"mat": Kind(dict(MAT().cases, stable=lambda v: inc.stable_neo_hookean()), 0),
          "stretch": Kind(dict(array(skip=("short", "extra-dim")).cases,
                               negative=lambda v: [-1.0, 2.0]), 1),
          "mode": choice()}),
    _row("fit_mooney_rivlin", lambda: (([1.0, 1.5, 2.0], [0.0, 0.8, 1.5]), dict(nu=0.49)),
         {"stretch": array(position=0), "stress": array(position=1), "nu": NU()}),
    _row("make_body", lambda: ((fe.rectangle_mesh(2, 1, "T6"), _mat(), "P2P1"),
                               dict(fixed=[0, 1, 2, 3], rho=2.0)),
         {"mesh": MESH(0), "mat": MAT(1), "formulation": choice(position=2),
          "fixed": array(skip=("short", "None")), "rho": positive()}),
    _row("make_body[nu=0.5]", lambda: ((fe.rectangle_mesh(2, 1, "T6"), _mat(0.5), "P2P0"), {}),
         {"formulation": Kind({"displacement-only": lambda v: "T6", "T3-mesh": lambda v: "P1P0"},
                              2)}),
    _row("cantilever", lambda: ((2, 1, "Fbar", _mat()), dict(slenderness=3.0, rho=1.0)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "formulation": choice(position=2), "mat": MAT(3), "slenderness": positive(),
          "rho": positive()}),
    _body_x("energy", loads=True),
    _body_x("energy[P2P1]", loads=True, form="P2P1"),
    _body_x("gradient", loads=True, form="Fbar"),
    _body_x("hessian", form="P2P1"),
    _row("mass", lambda: ((_b(),), {}), {"body": BODY(0)}),
    _row("tip_load", lambda: ((_b(),), dict(alpha=0.5)), {"body": BODY(0), "alpha": real()}),
    _body_x("tip_deflection"),
    _row("tip_ratio", lambda: ((_b(), _x(_b()), 0.5), {}),
         {"body": BODY(0), "x": array(position=1),
          "alpha": Kind(dict(real().cases, zero=lambda v: 0.0), 2)}),
    _row("solve", _solve_valid,
         {"body": BODY(0), "load": Kind(dict(array().cases, zero=lambda v: 0 * v), 1),
          "steps": integer(low=1), "tol": nonnegative(), "maxiter": integer(low=0),
          "x0": array(skip=("None",)), "max_cuts": integer(low=0), "reuse": integer(low=1),
          "lu": choice()}),
    _row("solve[extra]", _solve_extra_valid,
         {"extra": function(skip=("None",)), "extra_scale": positive(skip=("None",))}),
    _row("prolong", lambda: ((_b("P2P1"), _x(_b("P2P1")), _b("P2P1", nx=6)), {}),
         {"coarse": Kind(dict(BODY().cases, displacement=lambda v: _b("T6")), 0),
          "x": array(position=1),
          "fine": Kind(dict(BODY().cases, displacement=lambda v: _b("T6", nx=6),
                            unnested=lambda v: _b("P2P1", nx=4)), 2)}),
    _row("inf_sup", lambda: ((_b("P2P1"),), {}),
         {"body": Kind(dict(BODY().cases, displacement=lambda v: _b("T6")), 0)}),
    _row("reference_tip_ratio",
         lambda: ((_mat(0.3),), dict(alpha=0.1, ny=(1, 2, 4), formulation="P2P1",
                                     slenderness=2.0, steps=1)),
         {"mat": Kind(dict(MAT(0).cases, incompressible=lambda v: _mat(0.5)), 0),
          "alpha": Kind(dict(real().cases, zero=lambda v: 0.0)),
          "ny": Kind({"short": lambda v: (1, 2), "not-doubling": lambda v: (1, 3, 6),
                      "fraction": lambda v: (1, 2, 4.5), "None": lambda v: None}),
          "formulation": choice(), "slenderness": Kind(dict(positive().cases,
                                                            fractional=lambda v: 2.5)),
          "steps": integer(low=1)}),
    _row("cantilever_solution", lambda: ((2, 1, "P2P1", 0.3), dict(alpha=0.1)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "formulation": choice(position=2), "nu": NU(3),
          "alpha": Kind(dict(real().cases, zero=lambda v: 0.0))}),
    _row("n_unknowns", lambda: ((_b(),), {}), {"body": BODY(0)}),
    _body_x("displacement"),
    _row("pressure_field", lambda: ((_b("P2P0"), _x(_b("P2P0"))), {}),
         {"body": Kind(dict(BODY().cases, displacement=lambda v: _b("T6")), 0),
          "x": array(position=1)}),
    _row("dynamics_force", lambda: ((_b(),), dict(load=_x(_b())[:_b().n_u])),
         {"body": BODY(0), "load": array(skip=("None",))}),
    _row("dynamics_mass", lambda: ((_b("P2P1"),), dict(eps=1e-8)),
         {"body": BODY(0), "eps": positive()}),
    _row("kinetic_energy", lambda: ((_b(), np.ones(_b().free.size)), {}),
         {"body": BODY(0), "v_free": array(position=1)}),
    _row("expand", lambda: ((_b(), np.ones(_b().free.size)), {}),
         {"body": BODY(0), "x_free": array(position=1)}),
]


def _inc_model(form, mat, nx=2):
    def make():
        return inc.cantilever(nx, 1, form, mat, slenderness=2.0)
    return make


def _state(b, rng):
    x = rng.standard_normal(b.n_u + b.n_p) * 0.02
    x[b.n_u:] *= 10                                   # pressures of the size of mu
    return x


def _load(b):
    return np.linspace(-1.0, 1.0, b.n_u)


MODELS = [
    Model(f"incompressible[{form}, {mat.model}, nu={mat.nu}]", _inc_model(form, mat), _state,
          energy=lambda b, x: inc.energy(b, x, _load(b)),
          gradient=lambda b, x: inc.gradient(b, x, _load(b)),
          hessian=inc.hessian, rtol=1e-6)
    for form, mat in (
        ("T6", inc.neo_hookean(1.0, 0.45)),                 # split neo-Hookean, displacement
        ("T3", inc.mooney_rivlin(0.3, 0.2, 0.4)),
        ("T6", inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45)),
        ("T6", inc.stable_neo_hookean(1.0, 0.4)),
        ("Fbar", inc.neo_hookean(1.0, 0.49)),               # mean dilatation
        ("P2P1", inc.neo_hookean(1.0, 0.49)),               # mixed: the saddle functional
        ("P2P0", inc.mooney_rivlin(0.3, 0.2, 0.5)),         # kappa = inf
        ("P1P0", inc.yeoh(1.0, -0.1, 0.05, nu=0.5)),
        ("P2P1disc", inc.mooney_rivlin(0.3, 0.2, 0.49)),    # T6's mixed twin
    )
]


def _density(F):
    return np.eye(2) + np.asarray(F).reshape(2, 2)


MODELS += [
    Model(f"incompressible.response[{mat.model}]", lambda mat=mat: mat,
          lambda mat, rng: rng.standard_normal(4) * 0.1,
          energy=lambda mat, F: float(inc.response(mat, _density(F), order=0)),
          gradient=lambda mat, F: inc.response(mat, _density(F), order=1)[1].ravel(),
          hessian=lambda mat, F: inc.response(mat, _density(F))[2].reshape(4, 4), rtol=1e-6)
    for mat in (inc.neo_hookean(1.0, 0.45), inc.mooney_rivlin(0.3, 0.2, 0.4),
                inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45), inc.stable_neo_hookean(1.0, 0.4))
]
