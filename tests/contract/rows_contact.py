"""Contract rows of lib.contact (see framework.py): every public function, the free rod's
energy / gradient / Hessian, and the domain cases (a planar or 3-D clamped rod given for
the free rod, non-unit quaternions, a start below the plane, a step past the explicit
limit, an incline of 90 degrees, a bracket that does not hold the breakaway force)."""
import numpy as np

from lib import contact as C
from lib import rod, rod3d
from lib.solvers import cone

from .framework import (Call, Kind, Model, array, between, boolean, choice, function, integer,
                        model, nonnegative, positive, real)

MODULE = "lib.contact"

_FR = ((0.8, 0.4, 0.4), (0.4, 0.2, 0.2))


def _rod(N=3):
    return C.make_free_rod(N)


def _plane():
    return C.make_plane([0.0, 1.0, 0.0], origin=[0.0, -0.025, 0.0])


def _friction():
    return C.make_friction(*_FR)


def _penalty():
    return C.make_penalty(1e4)


def _state(r, rng=None, scale=0.0):
    s = C.straight(r, direction=(0.0, 0.0, 1.0), normal=(0.0, 1.0, 0.0))
    if rng is None:
        return s
    dq = scale * rng.standard_normal(r.ndof)
    dq[: 3 * (r.N + 1)] *= r.ell
    return C.retract(r, s, dq)


def _V(r):
    return 1e-3 * np.random.default_rng(1).standard_normal(r.ndof)


# the kinds of the model arguments: the planar rod and the clamped 3-D rod are other models
_ROD = lambda position=0: model(position=position, wrong=lambda: rod3d.make_rod3d(3))
_PLANE = lambda position: model(position=position, wrong=lambda: rod.make_rod(3))
# a batch of two triples where one triple is wanted (or the state has no batch): audit F9
_BATCHED = lambda v: C.make_friction(np.tile(_FR[0], (2, 1)), np.tile(_FR[1], (2, 1)))
_FRICTION = lambda position: Kind(dict(model(wrong=_penalty).cases, batched=_BATCHED), position)
_PENALTY = lambda position: model(position=position, wrong=_friction)


def _state_kind(position):
    """A State: NaN, non-unit and zero quaternions, wrong shapes, not a pair."""
    def with_Q(f):
        return lambda s: C.State(np.asarray(s.x), f(np.array(s.Q, dtype=float)))

    def nan_x(s):
        x = np.array(s.x, dtype=float)
        x[0, 0] = np.nan
        return C.State(x, s.Q)

    return Kind({"nan": nan_x, "non-unit": with_Q(lambda Q: 1.5 * Q),
                 "zero-quaternion": with_Q(lambda Q: 0 * Q),
                 "short": lambda s: C.State(np.asarray(s.x)[:-1], s.Q),
                 "None": lambda s: None, "string": lambda s: "state",
                 "not a pair": lambda s: (s.x,)}, position)


def _call(func, *models, **kw):
    """valid(): (rod, [plane, friction, penalty,] state[, V]) for the functions of a rod."""
    def valid():
        r = _rod()
        args = [r]
        for m in models:
            args.append({"plane": _plane, "friction": _friction, "penalty": _penalty}[m]())
        args.append(_state(r))
        if kw.get("V"):
            args.append(_V(r))
        return tuple(args), dict(kw.get("extra", {}))
    return valid


def _model_kinds(*models):
    kinds = {"rod": _ROD(0)}
    for i, m in enumerate(models, 1):
        kinds[m] = {"plane": _PLANE, "friction": _FRICTION, "penalty": _PENALTY}[m](i)
    return kinds


def _state_call(name, func, *models, V=False, extra=None, args=None):
    kinds = dict(_model_kinds(*models), state=_state_kind(len(models) + 1))
    if V:
        kinds["V"] = array(position=len(models) + 2)
    kinds.update(args or {})
    return Call(f"contact.{name}", func, _call(func, *models, V=V, extra=extra or {}), kinds)


_G3 = array(skip=("None",))
# vectorised arguments: a length-1 or (1, n) array broadcasts (legal); three entries against
# two do not
_BROADCAST = lambda position, n=3: Kind(dict(array(skip=("short", "extra-dim")).cases,
                                             mismatch=lambda v: np.zeros(n)), position)            # a 3-vector (None means "no gravity" where allowed)
_FORCES = lambda position=None: array(position=position, skip=("short", "extra-dim"))


def _sim_valid(extra):
    def valid():
        r = C.validation_rod(2)
        pl = C.make_plane([0.0, 1.0, 0.0], origin=[0.0, -r.radius, 0.0])
        s = C.straight(r, start=(0.0, 0.0, 0.0), direction=(0.0, 0.0, 1.0), normal=(0.0, 1.0, 0.0))
        return (r, pl, _friction(), s), dict(extra)
    return valid


_SIM = {"rod": _ROD(0), "plane": _PLANE(1), "friction": _FRICTION(2), "state": _state_kind(3),
        "v": _BROADCAST(None, 4), "w": _BROADCAST(None, 4), "dt": positive(),
        "t_end": positive(), "grav": _G3,
        # node forces (N+1, 3), or one set per batch member: (1, N+1, 3) is a batch of one
        "load": array(skip=("None", "extra-dim")),
        "keep_x": boolean(), "penetration_tol": nonnegative(skip=("None",))}
_PEN_SIM = dict(_SIM, penalty=_PENALTY(3), state=_state_kind(4),
                # a callable whose value has the wrong shape or is not finite (sweep)
                moments=Kind(dict(function(skip=("None",)).cases,
                                  wrong_shape=lambda v: (lambda t: np.zeros((2, 3))),
                                  nan=lambda v: (lambda t: np.full((1, 3), np.nan)))),
                check_limit=boolean(), damping=array(skip=("None", "short", "extra-dim")),
                every=integer(low=1, skip=("None",)))


def _pen_sim_valid():
    def valid():
        (r, pl, fr, s), _ = _sim_valid({})()
        pen = C.make_penalty(1e5, line_density=r.rhoA)
        return (r, pl, fr, pen, s), dict(v=np.zeros((3, 3)), w=np.zeros((2, 3)), dt=5e-5,
                                         t_end=2.5e-4, grav=[0.0, -9.81, 0.0],
                                         load=np.zeros((3, 3)), moments=lambda t: np.zeros((1, 3)),
                                         every=1, keep_x=True, check_limit=True,
                                         penetration_tol=1e-3, damping=np.array([0.5]))
    return valid


_STEP = Kind({"past the limit": lambda v: 1e-2}, None)         # dt past explicit_limit
_BELOW = Kind({"below the plane": lambda s: C.State(np.asarray(s.x) - [0.0, 0.01, 0.0], s.Q)}, 3)
_RAMP = Kind({"90 degrees": lambda v: np.pi / 2, "negative": lambda v: -0.1,
              **{k: f for k, f in real().cases.items()}}, 0)

CALLS = [
    Call("contact.make_free_rod", C.make_free_rod,
         lambda: ((3,), dict(length=1.0, radius=0.025, mass=1.0, youngs_modulus=1e6,
                             shear_modulus=3e5, shear_coefficient=0.9, damping=0.1)),
         {"N": integer(low=2, position=0), "length": positive(),
          # r^4 overflows (EI = inf) / r^2 underflows (EA = 0): audit F6
          "radius": Kind(dict(positive().cases, overflow=lambda v: 1e80, underflow=lambda v: 1e-200)),
          "mass": positive(), "youngs_modulus": positive(),
          "shear_modulus": positive(skip=("None",)), "shear_coefficient": positive(),
          "damping": nonnegative()}),
    Call("contact.straight", C.straight,
         lambda: ((_rod(),), dict(start=(0.0, 0.0, 0.0), direction=(0.0, 0.0, 2.0),
                                  normal=(0.0, 1.0, 0.0))),
         {"rod": _ROD(0), "start": array(),
          "direction": Kind(dict(array().cases, zero=lambda v: (0.0, 0.0, 0.0))),
          "normal": Kind(dict(array().cases, parallel=lambda v: (0.0, 0.0, 1.0)))}),
    Call("contact.retract", C.retract,
         lambda: ((_rod(), _state(_rod()), 1e-3 * np.ones(_rod().ndof)), {}),
         {"rod": _ROD(0), "state": _state_kind(1), "dq": array(position=2)}),
    _state_call("energy", C.energy, extra=dict(grav=[0.0, -9.81, 0.0]), args={"grav": _G3}),
    _state_call("gradient", C.gradient, extra=dict(grav=[0.0, -9.81, 0.0]), args={"grav": _G3}),
    _state_call("hessian", C.hessian),
    Call("contact.mass", C.mass, lambda: ((_rod(),), {}), {"rod": _ROD(0)}),
    Call("contact.kinetic_energy", C.kinetic_energy,
         lambda: ((_rod(), np.ones((4, 3)), np.ones((3, 3))), {}),
         {"rod": _ROD(0), "v": array(position=1, skip=("extra-dim",)),      # a batch of one
          "w": array(position=2)}),
    Call("contact.kinetic_energy[batch]", C.kinetic_energy,
         lambda: ((_rod(), np.ones((2, 4, 3)), np.ones((2, 3, 3))), {}),
         {"w": array(position=2, skip=("extra-dim",))}),
    Call("contact.make_plane", C.make_plane, lambda: (((0.0, 2.0, 0.0),), dict(origin=(0, 0, 1.0))),
         {"normal": Kind(dict(array().cases, zero=lambda v: (0.0, 0.0, 0.0)), 0),
          "origin": array()}),
    Call("contact.make_friction", C.make_friction, lambda: (_FR, {}),
         {"static": Kind(dict(array().cases, negative=lambda v: (-0.1, 0.4, 0.4),
                              below_kinetic=lambda v: (0.3, 0.4, 0.4)), 0),
          "kinetic": Kind(dict(array().cases, negative=lambda v: (-0.1, 0.2, 0.2),
                               scalar=lambda v: -0.2), 1)}),
    Call("contact.make_penalty", C.make_penalty,
         lambda: ((), dict(stiffness=1e5, damping=10.0, slip_speed=1e-3, line_density=2.0)),
         {"stiffness": positive(), "damping": nonnegative(skip=("None",)),
          "slip_speed": positive(), "line_density": positive()}),
    Call("contact.make_penalty[critical]", C.make_penalty,        # damping=None: 2 sqrt(k rho)
         lambda: ((), dict(stiffness=1e5, line_density=2.0)),
         {"stiffness": positive(), "line_density": positive()}),
    _state_call("contact_frames", C.contact_frames, "plane"),
    _state_call("gap", C.gap, "plane"),
    _state_call("contact_jacobian", C.contact_jacobian, "plane"),
    _state_call("contact_velocity", C.contact_velocity, "plane", V=True),
    Call("contact.normal_force", C.normal_force,
         lambda: ((_rod(), _penalty(), np.array([-1e-4, 1e-4]), np.zeros(2)), {}),
         {"rod": _ROD(0), "penalty": _PENALTY(1), "g": _BROADCAST(2),
          "u_n": _BROADCAST(3)}),
    Call("contact.friction_force", C.friction_force,
         lambda: ((_friction(), _penalty(), 1.0, np.array([5e-4, 1.0]), np.zeros(2)), {}),
         {"friction": _FRICTION(0), "penalty": _PENALTY(1),
          "f_n": nonnegative(position=2),                  # a contact never pulls: audit F8
          "u_t": _BROADCAST(3), "u_l": _BROADCAST(4)}),
    Call("contact.friction_jacobian", C.friction_jacobian,
         lambda: ((_friction(), _penalty(), 1.0, np.array([1e-4, 1.0]), np.zeros(2)), {}),
         {"friction": _FRICTION(0), "penalty": _PENALTY(1), "f_n": nonnegative(position=2),
          "u_t": _BROADCAST(3), "u_l": _BROADCAST(4)}),
    _state_call("penalty_force", C.penalty_force, "plane", "friction", "penalty", V=True),
    _state_call("penalty_jacobians", C.penalty_jacobians, "plane", "friction", "penalty", V=True),
    Call("contact.explicit_limit", C.explicit_limit,
         lambda: ((_rod(), _plane(), _friction(), _penalty()),
                  dict(grav=[0.0, -9.81, 0.0], state=_state(_rod()), parts=True)),
         {"rod": _ROD(0), "plane": _PLANE(1), "friction": _FRICTION(2), "penalty": _PENALTY(3),
          "grav": _G3, "state": Kind({k: f for k, f in _state_kind(None).cases.items()
                                      if k != "None"}), "parts": boolean()}),
    Call("contact.step_limit", C.step_limit, lambda: ((2.0, 0.5), {}),
         {"omega": nonnegative(position=0), "c": nonnegative(position=1)}),
    Call("contact.simulate_penalty", C.simulate_penalty, _pen_sim_valid(), _PEN_SIM),
    Call("contact.simulate_penalty[limit]", C.simulate_penalty, _pen_sim_valid(), {"dt": _STEP}),
    Call("contact.simulate_complementarity", C.simulate_complementarity,
         _sim_valid(dict(v=0.0, w=0.0, dt=0.05, t_end=0.1, grav=[0.0, -9.81, 0.0],
                         load=np.zeros((3, 3)), every=1, keep_x=True, facets=4,
                         penetration_tol=1e-3, tol=1e-10)),
         dict(_SIM, facets=Kind(dict(integer(low=2).cases, odd=lambda v: 3)),   # audit F11
              tol=positive(), every=integer(low=1, skip=("None",)))),
    Call("contact.simulate_complementarity[below]", C.simulate_complementarity,
         _sim_valid(dict(dt=0.05, t_end=0.1)), {"state": _BELOW}),
    Call("contact.facet_coefficients", C.facet_coefficients,
         lambda: ((_friction(), cone.pyramid(4)), dict(kind="kinetic")),
         {"friction": _FRICTION(0),
          "directions": Kind(dict(array().cases, zero=lambda v: [[1.0, 0.0], [0.0, 0.0]]), 1),
          "kind": choice()}),
    Call("contact.axial_drag_energy", C.axial_drag_energy,
         lambda: (([5.0, 10.0], 0.25, 1.0, 0.8, 0.4), dict(g=10.0)),
         {"force": _FORCES(0), "time": nonnegative(position=1), "mass": positive(position=2),
          "mu_static": nonnegative(position=3),
          # kinetic above static (0.8): outside the law's range, audit F13
          "mu_kinetic": Kind(dict(nonnegative().cases, above_static=lambda v: 0.9), 4),
          "g": positive()}),
    Call("contact.rolling_energies", C.rolling_energies,
         lambda: ((0.3, 0.5, 1.0, 0.025, 0.4, 0.2), dict(g=10.0)),
         {"alpha": _RAMP, "time": nonnegative(position=1), "mass": positive(position=2),
          "radius": positive(position=3), "mu_static": nonnegative(position=4),
          "mu_kinetic": Kind(dict(nonnegative().cases, above_static=lambda v: 0.5), 5),
          "g": positive()}),
    Call("contact.penalty_creep", C.penalty_creep,
         lambda: ((4.0, 0.25, 1.0, 0.8, 1e-3), dict(g=10.0)),
         {"force": Kind(dict(real().cases, sliding=lambda v: 8.5,          # |F| > mu_s m g = 8:
                             sliding_back=lambda v: [1.0, -8.5]), 0),   # no creep (audit F14)
          "time": nonnegative(position=1),
          "mass": positive(position=2), "mu_static": positive(position=3),
          "slip_speed": positive(position=4), "g": positive()}),
    Call("contact.validation_rod", C.validation_rod, lambda: ((3,), dict(youngs_modulus=1e5)),
         {"N": integer(low=2, position=0), "youngs_modulus": positive()}),
    Call("contact.incline_gravity", C.incline_gravity, lambda: ((0.3,), dict(g=9.81)),
         {"alpha": _RAMP, "g": positive()}),
    Call("contact.incline_gravity[array]", C.incline_gravity,
         lambda: ((np.array([0.1, 0.3]),), {}),
         {"alpha": array(position=0, skip=("short", "extra-dim"))}),
    Call("contact.validation_suite", C.validation_suite,
         lambda: (("complementarity",), dict(forces=[1.0], alphas=[0.3], drop=False, N=2,
                                              dt=0.125, time=0.25, penalty=_penalty(),
                                              friction=_friction(), youngs_modulus=1e5,
                                              drop_height=0.01, drop_tilt=0.02,
                                              drop_damping=2.0, drop_dt=0.125)),
         {"formulation": choice(position=0), "forces": _FORCES(),
          "alphas": Kind(dict(_FORCES().cases, negative=lambda v: [-0.1],
                              vertical=lambda v: [np.pi / 2])),
          "drop": boolean(), "N": integer(low=2), "dt": positive(skip=("None",)),
          "time": positive(skip=("None",)), "penalty": model(wrong=_friction, skip=("None",)),
          "friction": Kind(dict(model(wrong=_penalty, skip=("None",)).cases, batched=_BATCHED)),
          "youngs_modulus": positive(),
          "drop_height": nonnegative(),
          "drop_tilt": Kind(dict(real().cases, negative=lambda v: -0.1,    # starts below the
                                 vertical=lambda v: np.pi / 2)),          # plane / on end
          "drop_damping": nonnegative(),
          "drop_dt": Kind(dict(positive(skip=("None",)).cases, not_whole=lambda v: 0.1)),
          # keywords passed on to the simulation: an unknown one, or one the suite sets
          # itself, is a ValueError naming it, not a TypeError (audit F12)
          "unknown_kwarg": Kind({"given": lambda v: 1.0}),
          "v": Kind({"set by the suite": lambda v: 0.0}),
          "t_end": Kind({"set by the suite": lambda v: 0.25})}),
    Call("contact.validation_suite[steps]", C.validation_suite,   # time not a whole number of dt
         lambda: (("complementarity",), dict(forces=[1.0], N=2, dt=0.125, time=0.25)),
         {"dt": Kind({"not_whole": lambda v: 0.1}), "time": Kind({"not_whole": lambda v: 0.3})}),
    Call("contact.breakaway_force", C.breakaway_force,
         lambda: (("backward",), dict(N=2, rtol=0.05, dt=0.125, bracket=(0.9, 1.1))),
         {"direction": choice(position=0), "N": integer(low=2), "rtol": positive(),
          "dt": positive(skip=("None",)),
          "bracket": Kind(dict(array().cases, reversed=lambda v: (1.1, 0.9),
                               empty=lambda v: (1.2, 1.3)))}),
    Call("contact.snake_gait", C.snake_gait,
         lambda: ((), dict(period=2.0, wave_length=-1.0, ratios=(1.0, 1.5, 2.0), froude=0.1)),
         {"period": positive(), "wave_length": Kind(dict(real().cases, zero=lambda v: 0.0)),
          "ratios": Kind(dict(array().cases, negative=lambda v: (1.0, -1.0, 2.0))),
          "froude": positive()}),
    Call("contact.muscle_torque", C.muscle_torque,
         lambda: ((C.snake_rod(4), C.snake_gait(), 0.7), {}),
         {"rod": _ROD(0), "gait": model(position=1, wrong=_friction),
          "t": nonnegative(position=2)}),                       # before the gait starts
    Call("contact.snake_rod", C.snake_rod, lambda: ((), dict(N=4, inertia_scale=10.0)),
         {"N": integer(low=2), "inertia_scale": positive()}),
    Call("contact.snake", C.snake,
         lambda: ((), dict(N=2, gaits=[C.snake_gait()], periods=1.0, dt=1e-3,
                           slip_speed=2.5e-3, inertia_scale=100.0, stiffness=None, every=100,
                           keep_x=False)),
         {"N": integer(low=2), "gaits": model(wrong=_friction, skip=("None",)),
          "periods": Kind(dict(positive().cases, not_whole=lambda v: 1e-5)),   # audit F15
          "dt": positive(), "slip_speed": positive(),
          "inertia_scale": positive(), "stiffness": positive(skip=("None",)),
          "every": integer(low=1, skip=("None",)), "keep_x": boolean()}),
    Call("contact.snake_speed", C.snake_speed,
         lambda: ((np.linspace(0, 4, 41), np.stack([np.zeros(41)] * 2 + [np.linspace(0, 1, 41)], 1),
                   2.0), {}),
         {"t": Kind(dict(array().cases, unsorted=lambda v: np.asarray(v)[::-1]), 0),
          "com": array(position=1), "period": positive(position=2)}),
    Call("contact.snake_study", C.snake_study, lambda: ((), dict(N=2, periods=1.0, dt=1e-3)),
         {"N": integer(low=2), "periods": Kind(dict(positive().cases, not_whole=lambda v: 1.0001)),
          "dt": positive()}),
]

MODELS = [
    Model("contact.free_rod", lambda: C.make_free_rod(5, youngs_modulus=1e4),
          lambda r, rng: _state(r, rng, 0.2),
          energy=lambda r, s: C.energy(r, s, grav=[0.0, -9.81, 0.0]),
          gradient=lambda r, s: C.gradient(r, s, grav=[0.0, -9.81, 0.0]),
          # the Hessian is the symmetric part of the gradient's derivative along retract (a
          # Lie-group connection term): tests/test_contact.py checks it that way
          hessian=None, step=lambda r, s, dq: C.retract(r, s, dq), h=1e-6, rtol=1e-6),
]
