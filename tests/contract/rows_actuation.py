"""Contract rows of lib.actuation (see framework.py): every public function, the tendon
length, the total potential and the FEM cable length as models (FD checks)."""
import numpy as np

from lib import actuation as ac
from lib import fem, rod, rod3d

from .framework import (Call, Kind, Model, array, between, boolean, choice, integer, model,
                        nonnegative, positive, real)

MODULE = "lib.actuation"


def _const(v):
    return lambda valid: v


# ------------------------------------------------------------------------- the rod arm
def _rod():
    return rod.make_rod(4)


def _arm():
    r = _rod()
    return r, [ac.make_tendon(r, 0.03)]


def _q(r, seed=0, scale=0.05):
    dq = np.random.default_rng(seed).standard_normal(r.ndof) * scale
    dq[1::3] *= r.ell
    dq[2::3] *= r.ell
    return rod.straight(r) + dq


_ROD = model(position=0, wrong=lambda: rod3d.make_rod3d(4))            # a 3-D rod says so
_OTHER_TENDON = lambda: ac.make_tendon(rod.make_rod(6), 0.01)          # made for another rod
_TENDON = Kind(dict(model(wrong=_OTHER_TENDON).cases), position=1)
_TENDONS = lambda position=None: Kind(
    {"None": _const(None), "string": _const("tendon"), "empty": _const([]),
     "other-rod": lambda valid: [_OTHER_TENDON()], "not-a-tendon": _const([0.03])}, position)
# tensions: one per tendon, >= 0 (a cable can only pull: a negative tension is bad input)
_TENSIONS = lambda position=None, skip=(): Kind(dict(array(skip=skip).cases,
                                                    negative=_const([-1.0])), position)
_LOADS = {"load": array(skip=("None",)), "grav": real()}
_SOLVE = {"steps": integer(low=1), "tol": nonnegative(), "maxiter": integer(low=0),
          "q0": array(skip=("None",)), "tensions0": _TENSIONS(skip=("None",))}


def _tendon_call(func):
    def valid():
        r, ts = _arm()
        return (r, ts[0], _q(r)), {}
    return Call(f"actuation.{func.__name__}", func, valid,
                {"rod": _ROD, "tendon": _TENDON, "q": array(position=2)})


def _total_call(func, loads=True):
    def valid():
        r, ts = _arm()
        return (r, _q(r), ts, [2.0]), (dict(load=(0.1, -0.2, 0.05), grav=0.5) if loads else {})
    return Call(f"actuation.{func.__name__}", func, valid,
                dict({"rod": _ROD, "q": array(position=1), "tendons": _TENDONS(2),
                      "tensions": _TENSIONS(3)}, **(_LOADS if loads else {})))


def _static_call(func):
    def valid():
        r, ts = _arm()
        return (r, ts, [2.0]), dict(steps=1, load=(0.0, -0.1, 0.0), grav=0.1, q0=rod.straight(r),
                                    tensions0=[1.0], tol=1e-10, maxiter=20)
    return Call(f"actuation.{func.__name__}", func, valid,
                dict({"rod": _ROD, "tendons": _TENDONS(1), "tensions": _TENSIONS(2)},
                     **_LOADS, **_SOLVE))


def _inverse_valid():
    r, ts = _arm()                       # (x, y): near the tip under a tension of 3
    return (r, ts, (0.9986, 0.0449)), dict(tau_max=10.0, tau_min=0.0, tol=1e-10, reach_tol=1e-8, maxiter=20,
                                 q0=rod.straight(r), tensions0=[0.0], sweep=3)


def _ramp_valid():
    r, ts = _arm()
    return (r, ts, [2.0], 0.1, 0.02, 0.01), dict(rho_inf=0.8, every=1)


# ------------------------------------------------------------------------- the FEM arm
def _mesh():
    return fem.cantilever(4, 1, "T3", slenderness=4.0)


_FEM = Kind(dict(model(wrong=_rod).cases), position=0)
_TOP = [2, 5, 8, 11, 14][:3]


def _top(m):
    return np.flatnonzero(np.isclose(m.mesh.nodes[:, 1], 0.5))


_CHAMBER = Kind(dict(model(wrong=lambda: ac.make_chamber(fem.cantilever(6, 1, "T3"))).cases,
                     **{"same-size-other-mesh": lambda valid: ac.make_chamber(
                         fem.cantilever(4, 1, "T3", slenderness=2.0))}), position=1)
_EYELETS = lambda position=None, name=None: Kind(
    {"None": _const(None), "string": _const("top"), "one-node": _const([2]),
     "outside-mesh": _const([0, 10**6]), "fraction": _const([0.5, 2]),
     "nan": _const([0.0, np.nan]), "bools": _const([True, False])}, position)


def _pressure_call(func, u=True, p=1e-4):
    def valid():
        m = _mesh()
        return (m, ac.make_chamber(m, "top")) + ((np.zeros(m.n_dofs),) if u else ()) + (p,), {}
    args = {"model": _FEM, "chamber": _CHAMBER, "pressure": real(position=3 if u else 2)}
    if u:
        args["u"] = array(position=2)
    return Call(f"actuation.{func.__name__}", func, valid, args)


def _cable_call(func):
    def valid():
        m = _mesh()
        return (m, _top(m), 0.01 * np.ones(m.n_dofs)), {}
    return Call(f"actuation.{func.__name__}", func, valid,
                {"model": _FEM, "eyelets": _EYELETS(1), "u": array(position=2)})


_CABLES = Kind({"None": _const(None), "string": _const("top"), "empty": _const([]),
                "one-node": _const([[2]]), "outside-mesh": _const([[0, 10**6]])})

CALLS = [
    Call("actuation.make_tendon", ac.make_tendon,
         lambda: ((_rod(), 0.03), dict(anchor=3, offset_end=0.01, eyelets=[0.25, 0.5],
                                       sheath=False)),
         {"rod": _ROD, "offset": Kind(dict(real().cases, outside=_const(0.5)), position=1),
          "anchor": Kind(dict(integer(low=1, skip=("None",)).cases, beyond=_const(5))),
          "offset_end": Kind(dict(real(skip=("None",)).cases, outside=_const(-0.5))),
          # arc lengths strictly inside (0, anchor ell) = (0, 0.75), strictly increasing
          "eyelets": Kind(dict(array(skip=("None", "short")).cases,
                               unsorted=_const([0.5, 0.25]), repeated=_const([0.25, 0.25]),
                               **{"past-anchor": _const([0.25, 0.8]),
                                  "at-clamp": _const([0.0, 0.5])})),
          # a sheath has no eyelets: sheath=True with the valid eyelets is bad input
          "sheath": Kind(dict(boolean().cases, **{"with-eyelets": _const(True)}))}),
    Call("actuation.make_tendon[sheath]", ac.make_tendon,
         lambda: ((_rod(), 0.03), dict(anchor=3, offset_end=0.01, sheath=True)),
         {"rod": _ROD, "offset": Kind(dict(real().cases, outside=_const(0.5)), position=1),
          "sheath": boolean()}),
    _tendon_call(ac.eyelets), _tendon_call(ac.tendon_length), _tendon_call(ac.tendon_gradient),
    Call("actuation.tendon_hessian", ac.tendon_hessian,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), _q(r)))(_rod()), dict(symmetrise=False)),
         {"rod": _ROD, "tendon": _TENDON, "q": array(position=2), "symmetrise": boolean()}),
    _total_call(ac.energy), _total_call(ac.gradient), _total_call(ac.hessian, loads=False),
    _static_call(ac.static), _static_call(ac.static_path),
    # offset 12x the radius, a negative tension, rod=None (issue 22)
    Call("actuation.arc_tip", ac.arc_tip, lambda: ((_rod(), 2.0, 0.03), {}),
         {"rod": _ROD, "tension": nonnegative(position=1),
          "offset": Kind(dict(real().cases, outside=_const(12 * 0.04)), position=2)}),
    Call("actuation.tension_jacobian", ac.tension_jacobian,
         lambda: ((*_arm(), [2.0], rod.straight(_rod())), dict(angle=True)),
         {"rod": _ROD, "tendons": _TENDONS(1), "tensions": _TENSIONS(2), "q": array(position=3),
          "angle": boolean()}),
    Call("actuation.inverse", ac.inverse, _inverse_valid,
         {"rod": _ROD, "tendons": _TENDONS(1),
          "target": Kind(dict(array().cases, long=_const([0.9, 0.1, 0.0, 0.0])), position=2),
          "tau_max": positive(), "tau_min": nonnegative(skip=("None",)), "tol": nonnegative(),
          "reach_tol": nonnegative(), "maxiter": integer(low=1), "q0": array(skip=("None",)),
          "tensions0": _TENSIONS(skip=("None",)), "sweep": integer(low=0, skip=("None",))}),
    Call("actuation.qp_solve", ac.qp_solve,        # the floor's QP, re-exported
         lambda: ((2 * np.eye(2), np.array([-1.0, 1.0]), np.zeros(2), np.ones(2)), {}),
         {"H": array(position=0), "f": array(position=1), "lower": array(position=2)}),
    Call("actuation.make_chamber", ac.make_chamber,
         lambda: ((_mesh(),), dict(side="top", x_range=(1.0, 3.0))),
         {"model": _FEM, "side": choice(),
          "x_range": Kind(dict(array(skip=("inf",)).cases, empty=_const((5.0, 6.0))))}),
    _pressure_call(ac.pressure_force), _pressure_call(ac.pressure_stiffness, u=False),
    _pressure_call(ac.pressure_residual),
    Call("actuation.pressure_static", ac.pressure_static,
         lambda: ((_mesh(), ac.make_chamber(_mesh(), "top"), 1e-4),
                  dict(steps=1, tol=1e-10, maxiter=30, u0=np.zeros(_mesh().n_dofs),
                       load_stiffness=True)),
         {"model": _FEM, "chamber": _CHAMBER, "pressure": real(position=2),
          "steps": integer(low=1), "tol": nonnegative(), "maxiter": integer(low=0),
          "u0": array(skip=("None",)), "load_stiffness": boolean()}),
    Call("actuation.newton_history", ac.newton_history,
         lambda: ((_mesh(), ac.make_chamber(_mesh(), "top"), 1e-4, np.zeros(_mesh().n_dofs)),
                  dict(load_stiffness=False, maxiter=5, tol=1e-13, return_states=True,
                       symmetric=False)),
         {"model": _FEM, "chamber": _CHAMBER, "pressure": real(position=2),
          "u0": array(position=3), "load_stiffness": boolean(), "maxiter": integer(low=0),
          "tol": nonnegative(), "return_states": boolean(), "symmetric": boolean()}),
    # ramp_response reaches its t_end exactly: a t_end that is no whole number of steps is
    # said up front (issue 22: it stopped at t = 0.2 when asked for 0.25)
    Call("actuation.ramp_response", ac.ramp_response, _ramp_valid,
         {"rod": _ROD, "tendons": _TENDONS(1), "tensions": _TENSIONS(2),
          "ramp_time": positive(position=3),
          "t_end": Kind(dict(positive().cases, **{"not-whole": _const(0.025)}), position=4),
          "dt": positive(position=5), "rho_inf": Kind(dict(real().cases, above=_const(1.5),
                                                            below=_const(-0.1))),
          "every": integer(low=1)}),
    _cable_call(ac.cable_length), _cable_call(ac.cable_gradient), _cable_call(ac.cable_hessian),
    Call("actuation.cable_static", ac.cable_static,
         lambda: ((_mesh(), [_top(_mesh())], [1e-3]),
                  dict(steps=1, tol=1e-10, maxiter=30, u0=np.zeros(_mesh().n_dofs))),
         {"model": _FEM, "cables": Kind(_CABLES.cases, position=1),
          "tensions": _TENSIONS(2), "steps": integer(low=1), "tol": nonnegative(),
          "maxiter": integer(low=0), "u0": array(skip=("None",))}),
]


# ------------------------------------------------------------ tendons as they are (friction)
_SHEATH_TENDON = lambda valid: ac.make_tendon(_rod(), 0.03, sheath=True)
_EYELET_TENDON = Kind(dict(model(wrong=_OTHER_TENDON).cases, sheath=_SHEATH_TENDON), position=1)
_FRICTION = {"rod": _ROD, "tendon": _EYELET_TENDON, "mu": nonnegative(position=3),
             "load": array(skip=("None",)), "grav": real(), "q0": array(skip=("None",)),
             "tol": nonnegative(), "maxiter": integer(low=0), "fp_tol": nonnegative(),
             "fp_maxiter": integer(low=1)}
CALLS += [
    Call("actuation.wrap_angles", ac.wrap_angles,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), _q(r)))(_rod()), {}),
         {"rod": _ROD, "tendon": _EYELET_TENDON, "q": array(position=2)}),
    Call("actuation.capstan_tensions", ac.capstan_tensions,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), _q(r), 2.0, 0.2))(_rod()),
                  dict(direction="unloading")),
         {"rod": _ROD, "tendon": _EYELET_TENDON, "q": array(position=2),
          "motor_tension": nonnegative(position=3), "mu": nonnegative(position=4),
          "direction": choice()}),
    Call("actuation.friction_static", ac.friction_static,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), 2.0, 0.2))(_rod()),
                  dict(direction="loading", steps=1, load=(0.0, -0.1, 0.0), grav=0.1,
                       q0=rod.straight(_rod()), tol=1e-10, maxiter=20, fp_tol=1e-12,
                       fp_maxiter=100)),
         dict(_FRICTION, motor_tension=nonnegative(position=2), direction=choice(),
              steps=integer(low=1))),
    Call("actuation.friction_sweep", ac.friction_sweep,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), [1.0, 2.0, 1.0], 0.2))(_rod()),
                  dict(load=(0.0, -0.1, 0.0), grav=0.1, q0=rod.straight(_rod()),
                       tensions0=np.zeros(5), tol=1e-10, maxiter=20, fp_tol=1e-12,
                       fp_maxiter=100, max_cuts=2)),
         dict(_FRICTION, max_cuts=integer(low=0),
              motor_tensions=Kind(dict(array(skip=("short",)).cases,
                                       negative=_const([1.0, -1.0])), position=2),
              tensions0=Kind(dict(array(skip=("None",)).cases,
                                  negative=_const([0.0, 0.0, -1.0, 0.0, 0.0]))))),
    Call("actuation.cable_stroke_static", ac.cable_stroke_static,
         lambda: ((lambda r: (r, ac.make_tendon(r, 0.03), 0.01))(_rod()),
                  dict(stiffness=50.0, steps=2, load=(0.0, 0.1, 0.0), grav=0.1,
                       q0=rod.straight(_rod()), tol=1e-10, maxiter=30)),
         {"rod": _ROD, "tendon": _TENDON, "stroke": real(position=2),
          "stiffness": positive(skip=("None",)), "steps": integer(low=1),
          "load": array(skip=("None",)), "grav": real(), "q0": array(skip=("None",)),
          "tol": nonnegative(), "maxiter": integer(low=0)}),
]


def _fem_state(m, rng):
    return 1e-3 * rng.standard_normal(m.n_dofs)


def _tendon_length_model(name, **routing):
    """FD row of one tendon's length on a 7-element rod (d = 0.03 tapering to -0.01)."""
    return Model(name, lambda: (lambda r: (r, ac.make_tendon(r, 0.03, offset_end=-0.01,
                                                              **routing)))(rod.make_rod(7)),
                 lambda m, rng: _q(m[0], int(rng.integers(1 << 30)), 0.3),
                 energy=lambda m, q: ac.tendon_length(m[0], m[1], q),
                 gradient=lambda m, q: ac.tendon_gradient(m[0], m[1], q),
                 hessian=lambda m, q: ac.tendon_hessian(m[0], m[1], q))


MODELS = [
    _tendon_length_model("actuation.tendon_length[FD]", anchor=5),
    _tendon_length_model("actuation.tendon_length[FD, disks]", anchor=6,
                         eyelets=[0.05, 0.3, 0.45, 0.6, 0.8]),
    _tendon_length_model("actuation.tendon_length[FD, sheath]", anchor=5, sheath=True),
    Model("actuation.energy[FD]", lambda: (lambda r: (r, [ac.make_tendon(r, 0.03),
                                                          ac.make_tendon(r, -0.02, anchor=3)]))(
              rod.make_rod(6)),
          lambda m, rng: _q(m[0], int(rng.integers(1 << 30)), 0.3),
          energy=lambda m, q: ac.energy(m[0], q, m[1], [3.0, 1.5], (0.2, -0.4, 0.1), 0.7),
          gradient=lambda m, q: ac.gradient(m[0], q, m[1], [3.0, 1.5], (0.2, -0.4, 0.1), 0.7),
          hessian=lambda m, q: ac.hessian(m[0], q, m[1], [3.0, 1.5])),
    Model("actuation.energy[FD, sheath and disks]",
          lambda: (lambda r: (r, [ac.make_tendon(r, 0.03, sheath=True),
                                  ac.make_tendon(r, -0.02, anchor=4, eyelets=[0.2, 0.5])]))(
              rod.make_rod(6)),
          lambda m, rng: _q(m[0], int(rng.integers(1 << 30)), 0.3),
          energy=lambda m, q: ac.energy(m[0], q, m[1], [3.0, 1.5], (0.2, -0.4, 0.1), 0.7),
          gradient=lambda m, q: ac.gradient(m[0], q, m[1], [3.0, 1.5], (0.2, -0.4, 0.1), 0.7),
          hessian=lambda m, q: ac.hessian(m[0], q, m[1], [3.0, 1.5])),
    Model("actuation.cable_length[FD]", lambda: _mesh(), _fem_state,
          energy=lambda m, u: ac.cable_length(m, _top(m), u),
          gradient=lambda m, u: ac.cable_gradient(m, _top(m), u),
          hessian=lambda m, u: ac.cable_hessian(m, _top(m), u)),
]


# ------------------------------------------------------------- 3-D routing on the 3-D rod
def _rod3():
    return rod3d.make_rod3d(4)


def _state3(r, rng=None, size=0.2):
    rng = np.random.default_rng(0) if rng is None else rng
    dq = size * rng.standard_normal(r.ndof)
    dq.reshape(r.N, 6)[:, 3:] *= r.ell
    return rod3d.retract(r, rod3d.straight(r), dq)


_ROD3 = model(position=0, wrong=_rod)                               # a planar rod says so
_OTHER_TENDON3 = lambda: ac.make_tendon3d(rod3d.make_rod3d(6), (0.01, 0.0))
_TENDON3 = Kind(dict(model(wrong=_OTHER_TENDON3).cases,
                     planar=lambda valid: ac.make_tendon(_rod(), 0.01)), position=1)
_TENDONS3 = lambda position=None: Kind(
    {"None": _const(None), "string": _const("tendon"), "empty": _const([]),
     "other-rod": lambda valid: [_OTHER_TENDON3()], "not-a-tendon": _const([0.03]),
     "planar": lambda valid: [ac.make_tendon(_rod(), 0.01)]}, position)
_STATE3 = Kind({"None": _const(None), "string": _const("state"),
                "non-unit": lambda s: rod3d.State(s.x, 1.5 * np.asarray(s.Q)),
                "nan-x": lambda s: rod3d.State(np.vstack([[np.nan, 0, 0], s.x[1:]]), s.Q),
                "other-rod": lambda s: rod3d.straight(rod3d.make_rod3d(len(s.x) + 1)),
                "planar-q": lambda s: np.zeros(3 * len(s.x))}, position=2)


def _tendon3_call(func):
    def valid():
        r = _rod3()
        return (r, ac.make_tendon3d(r, (0.02, 0.01), turn_rate=2.0), _state3(r)), {}
    return Call(f"actuation.{func.__name__}", func, valid,
                {"rod": _ROD3, "tendon": _TENDON3, "state": _STATE3})


def _static3_call(func):
    def valid():
        r = _rod3()
        return (r, [ac.make_tendon3d(r, (0.02, 0.01))], [2.0]), dict(
            steps=1, load=(0.0, -0.1, 0.0), grav=0.1, state0=rod3d.straight(r), tol=1e-10,
            maxiter=20, tensions0=[0.0])
    return Call(f"actuation.{func.__name__}", func, valid,
                {"rod": _ROD3, "tendons": _TENDONS3(1), "tensions": _TENSIONS(2),
                 "load": array(skip=("None",)), "grav": real(), "steps": integer(low=1),
                 "state0": Kind({k: v for k, v in _STATE3.cases.items() if k != "None"}),
                 "tol": positive(), "maxiter": integer(low=0),
                 "tensions0": _TENSIONS(skip=("None",))})


CALLS += [
    Call("actuation.make_tendon3d", ac.make_tendon3d,
         lambda: ((_rod3(), (0.02, 0.01)), dict(anchor=3, eyelets=[0.25, 0.5], turn_rate=1.0)),
         {"rod": _ROD3,
          "offset": Kind(dict(array().cases, outside=_const((0.03, 0.03)),
                              **{"wrong-rows": _const(np.zeros((3, 2)))}), position=1),
          "anchor": Kind(dict(integer(low=1, skip=("None",)).cases, beyond=_const(5))),
          "eyelets": Kind(dict(array(skip=("None", "short")).cases,
                               unsorted=_const([0.5, 0.25]), repeated=_const([0.25, 0.25]),
                               **{"past-anchor": _const([0.25, 0.8]),
                                  "at-clamp": _const([0.0, 0.5])})),
          "turn_rate": real()}),
    _tendon3_call(ac.eyelets3d), _tendon3_call(ac.tendon3d_length),
    _tendon3_call(ac.tendon3d_gradient),
    Call("actuation.tendon3d_hessian", ac.tendon3d_hessian,
         lambda: ((lambda r: (r, ac.make_tendon3d(r, (0.02, 0.01)), _state3(r)))(_rod3()),
                  dict(symmetrise=False)),
         {"rod": _ROD3, "tendon": _TENDON3, "state": _STATE3, "symmetrise": boolean()}),
    _static3_call(ac.static3d), _static3_call(ac.static3d_path),
]


def _hat3(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _trivialised3(r, t, s):
    """The tendon's Hessian plus hat(g_psi)/2 per element: what a difference of gradients
    along rod3d.retract measures (the gradient is taken in each state's own frame)."""
    g = ac.tendon3d_gradient(r, t, s).reshape(r.N, 6)[:, :3]
    H = ac.tendon3d_hessian(r, t, s).toarray()
    for e, ge in enumerate(g):
        H[6 * e:6 * e + 3, 6 * e:6 * e + 3] += 0.5 * _hat3(ge)
    return H


def _tendon3_model(name, **routing):
    return Model(name, lambda: (lambda r: (r, ac.make_tendon3d(r, **routing)))(
                     rod3d.make_rod3d(5, r_over_L=0.1)),
                 lambda m, rng: _state3(m[0], rng, 0.3),
                 energy=lambda m, s: ac.tendon3d_length(m[0], m[1], s),
                 gradient=lambda m, s: ac.tendon3d_gradient(m[0], m[1], s),
                 hessian=lambda m, s: _trivialised3(m[0], m[1], s),
                 step=lambda m, s, dq: rod3d.retract(m[0], s, dq), rtol=1e-6)


MODELS += [
    _tendon3_model("actuation.tendon3d_length[FD, straight]", offset=(0.06, -0.05)),
    _tendon3_model("actuation.tendon3d_length[FD, helix, disks]", offset=(0.07, 0.02),
                   turn_rate=3.5, eyelets=[0.05, 0.2, 0.62, 0.95]),
    # an interior anchor takes the frame halfway between R_{k-1} and R_k (issue 36)
    _tendon3_model("actuation.tendon3d_length[FD, helix, interior anchor]", offset=(0.0, 0.08),
                   turn_rate=-3.0, anchor=3, eyelets=[0.1, 0.3, 0.52]),
]


# ------------------------------------------- rod-level pneumatic chambers (issue 27)
from lib import pneumatic as pn          # noqa: E402  (the FEM arm the chamber is fitted on)


def _chamber(r=None, **kw):
    r = _rod() if r is None else r
    return ac.make_rod_chamber(r, 0.01, 0.03, **kw)


_OTHER_CHAMBER = lambda: ac.make_rod_chamber(rod.make_rod(6), 0.01, 0.03)
_CHAMBERS = lambda position=None: Kind(
    {"None": _const(None), "string": _const("chamber"), "empty": _const([]),
     "other-rod": lambda valid: [_OTHER_CHAMBER()], "not-a-chamber": _const([0.03]),
     "tendon": lambda valid: [ac.make_tendon(_rod(), 0.03)]}, position)
# pressures: any finite sign (a negative one is a vacuum, not bad input)
_PRESSURES = lambda position=None: Kind(dict(array(skip=("short",)).cases,
                                             two=_const([1.0, 2.0])), position)
_MIXED = {"tendons": Kind({"string": _const("tendon"), "other-rod": lambda v: [_OTHER_TENDON()],
                           "not-a-tendon": _const([0.03])}),
          "tensions": _TENSIONS(skip=("None",))}


def _chamber_total_call(func, loads=True):
    def valid():
        r = _rod()
        return (r, _q(r), [_chamber(r, start=1)], [-2.0]), dict(
            tendons=[ac.make_tendon(r, 0.02)], tensions=[1.0],
            **(dict(load=(0.1, -0.2, 0.05), grav=0.5) if loads else {}))
    return Call(f"actuation.{func.__name__}", func, valid,
                dict({"rod": _ROD, "q": array(position=1), "chambers": _CHAMBERS(2),
                      "pressures": _PRESSURES(3)}, **_MIXED, **(_LOADS if loads else {})))


def _chamber_static_call(func):
    def valid():
        r = _rod()
        return (r, [_chamber(r)], [3.0]), dict(tendons=[ac.make_tendon(r, 0.02)], tensions=[1.0],
                                               steps=1, load=(0.0, -0.1, 0.0), grav=0.1,
                                               tol=1e-10, maxiter=20)
    return Call(f"actuation.{func.__name__}", func, valid,
                dict({"rod": _ROD, "chambers": _CHAMBERS(1), "pressures": _PRESSURES(2),
                      "steps": integer(low=1), "tol": nonnegative(), "maxiter": integer(low=0)},
                     **_MIXED, **_LOADS))


def _inverse_chamber_valid():
    r, ts = _arm()
    return (r, ts, (0.9986, 0.0449)), dict(tau_max=10.0, tau_min=0.0, tol=1e-10, reach_tol=1e-8,
                                           maxiter=20, sweep=3, chambers=[_chamber(r, start=2)],
                                           pressure_max=50.0, pressure_min=-50.0)


def _small_arm():
    return pn.make_arm(24, 4, "T3")


_ARM = model(position=0, wrong=_rod)
_FIT = Kind(dict(model(skip=("None",), wrong=_rod).cases))

CALLS += [
    Call("actuation.make_rod_chamber", ac.make_rod_chamber,
         lambda: ((_rod(), 0.01, 0.03), dict(start=1, end=3)),
         {"rod": _ROD, "area": nonnegative(position=1),
          "offset": Kind(dict(real().cases, outside=_const(0.5)), position=2),
          "start": Kind(dict(integer(low=0).cases, **{"at-tip": _const(4)})),
          "end": Kind(dict(integer(low=2, skip=("None",)).cases, beyond=_const(5),
                           **{"at-start": _const(1)}))}),
    Call("actuation.chamber_volume", ac.chamber_volume,
         lambda: ((lambda r: (r, _chamber(r, start=1), _q(r)))(_rod()), {}),
         {"rod": _ROD, "chamber": Kind(dict(model(wrong=_OTHER_CHAMBER).cases), position=1),
          "q": array(position=2)}),
    _chamber_total_call(ac.chamber_energy), _chamber_total_call(ac.chamber_gradient),
    _chamber_total_call(ac.chamber_hessian, loads=False),
    _chamber_static_call(ac.chamber_static), _chamber_static_call(ac.chamber_static_path),
    Call("actuation.pressure_jacobian", ac.pressure_jacobian,
         lambda: ((lambda r: (r, [_chamber(r)], [1.0], rod.straight(r)))(_rod()),
                  dict(tendons=[ac.make_tendon(_rod(), 0.02)], tensions=[1.0], angle=True)),
         dict({"rod": _ROD, "chambers": _CHAMBERS(1), "pressures": _PRESSURES(2),
               "q": array(position=3), "angle": boolean()}, **_MIXED)),
    Call("actuation.inverse[chambers]", ac.inverse, _inverse_chamber_valid,
         {"rod": _ROD, "chambers": Kind({k: v for k, v in _CHAMBERS().cases.items()
                                         if k != "None"}),
          # p_min > p_max (either way round), NaN, inf; a negative p_max is legal (vacuum)
          "pressure_max": Kind(dict(array(skip=("short", "extra-dim")).cases,
                                    below=_const(-60.0), two=_const([1.0, 2.0]))),
          "pressure_min": Kind(dict(array(skip=("None", "short", "extra-dim")).cases,
                                    above=_const(60.0)))}),
    Call("actuation.calibrate_chamber_rod", ac.calibrate_chamber_rod,
         lambda: ((_small_arm(),), dict(N=48)),
         {"arm": _ARM, "N": Kind(dict(integer(low=1, skip=("None",)).cases,
                                      **{"no-node-at-cavity": _const(7)}))}),
    Call("actuation.chamber_rod_stroke_error", ac.chamber_rod_stroke_error,
         lambda: ((_small_arm(), 0.02), dict(steps=1, fit=None, level=0.05)),
         {"arm": _ARM, "pressure_max": Kind(dict(real().cases, zero=_const(0.0)), position=1),
          "steps": integer(low=1), "fit": _FIT, "level": between(0.0, 1.0)}),
    Call("actuation.pneunet_cavities", ac.pneunet_cavities,
         lambda: ((6.0,), dict(height=1.0, width=0.5, gap=0.5, margin=0.75, depth=0.25)),
         {"length": Kind(dict(positive().cases, short=_const(1.0)), position=0),
          "height": positive(), "width": positive(), "gap": positive(), "margin": positive(),
          "depth": Kind(dict(positive().cases, half=_const(0.5)))}),
    Call("actuation.chamber_rod_slenderness_error", ac.chamber_rod_slenderness_error,
         lambda: (((4.0, 6.0),), dict(ny=4, element="T3", fit=None, level=0.05)),
         {"lengths": Kind(dict(array(skip=("short",)).cases, decreasing=_const((6.0, 4.0)),
                               **{"not-whole-cells": _const((4.1, 6.0))}), position=0),
          "ny": integer(low=1), "element": choice(), "fit": _FIT,
          "level": between(0.0, 1.0)}),
]

MODELS += [
    Model("actuation.chamber_energy[FD, chamber beside a tendon]",
          lambda: (lambda r: (r, [ac.make_rod_chamber(r, 0.02, 0.03, start=2, end=5)],
                              [ac.make_tendon(r, -0.02, sheath=True)]))(rod.make_rod(6)),
          lambda m, rng: _q(m[0], int(rng.integers(1 << 30)), 0.3),
          energy=lambda m, q: ac.chamber_energy(m[0], q, m[1], [40.0], m[2], [1.5],
                                                (0.2, -0.4, 0.1), 0.7),
          gradient=lambda m, q: ac.chamber_gradient(m[0], q, m[1], [40.0], m[2], [1.5],
                                                    (0.2, -0.4, 0.1), 0.7),
          hessian=lambda m, q: ac.chamber_hessian(m[0], q, m[1], [40.0], m[2], [1.5])),
]
