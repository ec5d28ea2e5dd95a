"""Contract rows of lib.rod3d (see framework.py): every public function, and the model."""
import numpy as np
import scipy.sparse as sp

from lib import rod, rod3d

from .framework import (Call, Kind, Model, array, between, boolean, choice, function, integer,
                        model, nonnegative, positive, quaternions, real)

MODULE = "lib.rod3d"
EXEMPT = {}


def _const(v):
    return lambda valid: v


# --------------------------------------------------------------------------------------
# the kinds rod3d needs beyond the generic ones
# --------------------------------------------------------------------------------------
def _rod(position=0):
    """A 3-D rod; a planar lib.rod.Rod is the wrong kind (the issue's example)."""
    return model(position=position, wrong=lambda: rod.make_rod(4))


def _scaled_Q(f):
    return lambda s: rod3d.State(s.x, f * np.asarray(s.Q))


def _state(position=1, skip=()):
    """A State (x, Q): non-unit quaternions (energy 178.8 instead of 35.6 in the issue), an
    all-zero quaternion (a NaN gradient there), NaN positions, another rod's state, a planar q."""
    cases = {"None": _const(None), "string": _const("state"),
             "non-unit": _scaled_Q(1.5), "slightly-non-unit": _scaled_Q(1 + 1e-6),
             "zero-quaternion": lambda s: rod3d.State(s.x, np.vstack([np.zeros(4), s.Q[1:]])),
             "nan-x": lambda s: rod3d.State(np.vstack([[np.nan, 0, 0], s.x[1:]]), s.Q),
             "inf-x": lambda s: rod3d.State(np.vstack([[np.inf, 0, 0], s.x[1:]]), s.Q),
             "other-rod": lambda s: rod3d.straight(rod3d.make_rod3d(len(s.x) + 1)),
             "planar-q": lambda s: np.zeros(3 * len(s.x)),
             "bare-x": lambda s: s.x}
    return Kind({k: v for k, v in cases.items() if k not in skip}, position)


def _twist(position=1):
    """A twist: past the critical twist, and past pi per element (it wraps)."""
    cases = dict(real().cases, **{"past-critical": _const(20.0), "wraps": _const(50.0)})
    return Kind(cases, position)


def _with(kind, **extra):
    return Kind(dict(kind.cases, **{k: _const(v) for k, v in extra.items()}), kind.position)


def _state_of(r, rng=None, size=0.2):
    """A generic, non-planar state of rod r (random rotations and displacements)."""
    rng = np.random.default_rng(0) if rng is None else rng
    dq = size * rng.standard_normal(r.ndof)
    dq.reshape(r.N, 6)[:, 3:] *= r.ell
    return rod3d.retract(r, rod3d.straight(r), dq)


_LOAD6 = np.array([0.1, -0.2, 0.05, 0.02, -0.03, 0.04])
_ROD_STATE = {"rod": _rod(), "state": _state()}
_LOADS = {"load": array(skip=("None",)), "grav": real()}


def _rs(**kw):
    """Valid call (rod, state) with keyword arguments."""
    def valid():
        r = rod3d.make_rod3d(4)
        return (r, _state_of(r)), dict(kw)
    return valid


def _r(*args, N=4, **kw):
    return lambda: ((rod3d.make_rod3d(N), *args), dict(kw))


def _vw(N=4, scale=0.01):
    rng = np.random.default_rng(3)
    return scale * rng.standard_normal((N, 3)), scale * rng.standard_normal((N, 3))


def _run_call(**kw):
    def valid():
        r = rod3d.make_rod3d(4)
        v, w = _vw()
        return (r, rod3d.straight(r), v, w, 1e-3, 3), dict(kw)
    return valid


_RUN_ARGS = {"rod": _rod(0), "state": _state(1), "v": array(position=2), "w": array(position=3),
             "dt": positive(position=4), "nsteps": integer(low=0, position=5),
             "load": array(skip=("None",)), "grav": real(), "every": integer(low=1),
             "observe": function(skip=("None",))}

_step_valid = lambda: ((np.zeros((1, 3)), np.array([[1.0, 0.0, 0.0, 0.0]]), np.ones((1, 3)),
                        np.array([[0.0, 0.0, 1.0]]), 0.1,
                        lambda x, Q: (np.zeros((1, 3)), np.zeros((1, 3))), np.ones((1, 3))),
                       dict(gyro="midpoint"))

CALLS = [
    Call("rod3d.make_rod3d", rod3d.make_rod3d,
         lambda: ((4,), dict(r_over_L=0.04, nu=0.3, ks=0.9, L=1.0, EI=1.0, rhoA=1.0)),
         {"N": integer(low=1, position=0), "r_over_L": positive(), "nu": between(-1.0, 0.5),
          "ks": positive(skip=("None",)), "L": positive(), "EI": positive(),
          "rhoA": positive()}),
    Call("rod3d.straight", rod3d.straight, _r(), {"rod": _rod()}),
    Call("rod3d.mass", rod3d.mass, _r(), {"rod": _rod()}),
    Call("rod3d.inertia", rod3d.inertia, _r(), {"rod": _rod()}),
    Call("rod3d.planar_dofs", rod3d.planar_dofs, _r(), {"rod": _rod()}),
    Call("rod3d.omega_max_estimate", rod3d.omega_max_estimate, _r(), {"rod": _rod()}),
    Call("rod3d.retract", rod3d.retract,
         lambda: ((rod3d.make_rod3d(4), rod3d.straight(rod3d.make_rod3d(4)), 0.1 * np.ones(24)),
                  {}),
         dict(_ROD_STATE, dq=array(position=2))),
    Call("rod3d.energy", rod3d.energy, _rs(load=_LOAD6, grav=0.5), dict(_ROD_STATE, **_LOADS)),
    Call("rod3d.gradient", rod3d.gradient, _rs(load=_LOAD6, grav=0.5, kernels=False),
         dict(_ROD_STATE, **_LOADS, kernels=boolean(skip=("None",)))),
    Call("rod3d.hessian", rod3d.hessian, _rs(load=_LOAD6),
         dict(_ROD_STATE, load=array(skip=("None",)))),
    Call("rod3d.tip", rod3d.tip, _rs(), _ROD_STATE),
    Call("rod3d.residual_tangent", rod3d.residual_tangent,
         lambda: ((rod3d.make_rod3d(4), _state_of(rod3d.make_rod3d(4)), _LOAD6, 0.2, "dead"),
                  dict(tangent=True)),
         dict(_ROD_STATE, load=array(position=2, skip=("None",)), grav=real(position=3),
              moment=choice(position=4), tangent=boolean())),
    Call("rod3d.check_load", rod3d.check_load, lambda: ((_LOAD6,), {}),
         {"load": array(position=0, skip=("None",))}),
    Call("rod3d.from_planar", rod3d.from_planar,
         lambda: ((rod3d.make_rod3d(4), rod.straight(rod.make_rod(4))), {}),
         {"rod": _rod(), "q": array(position=1)}),
    Call("rod3d.frequencies", rod3d.frequencies, _r(k=3), {"rod": _rod(), "k": _with(
         integer(low=1, skip=("None",)), above=25)}),
    Call("rod3d.modes", rod3d.modes,
         lambda: ((rod3d.make_rod3d(4),), dict(k=2, state=rod3d.straight(rod3d.make_rod3d(4)),
                                               load=_LOAD6[:3])),
         {"rod": _rod(), "k": _with(integer(low=1, skip=("None",)), above=25),
          "state": _state(position=None, skip=("None",)), "load": array(skip=("None",))}),
    Call("rod3d.static", rod3d.static,
         lambda: ((rod3d.make_rod3d(4), (0.0, -0.1, 0.05)),
                  dict(grav=0.1, steps=1, state0=rod3d.straight(rod3d.make_rod3d(4)), tol=1e-10,
                       maxiter=20, moment="dead", fixed=[0, 1, 2])),
         {"rod": _rod(), "load": array(position=1, skip=("None",)), "grav": real(),
          "steps": integer(low=1), "state0": _state(position=None, skip=("None",)),
          "tol": positive(), "maxiter": integer(low=0), "moment": choice(),
          "fixed": _with(array(skip=("None", "short")), **{"out-of-range": [0, 1, 99],
                                                            "fraction": [0.5]}),
          "extra": function(skip=("None",)), "extra_scale": nonnegative(), "record": boolean()}),
    Call("rod3d.quat_exp", rod3d.quat_exp, lambda: ((np.array([0.1, 0.2, 0.3]),), {}),
         {"psi": array(position=0, skip=("extra-dim",))}),
    Call("rod3d.quat_mul", rod3d.quat_mul,
         lambda: ((np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0, 0.0])), {}),
         {"p": array(position=0, skip=("extra-dim",)),
          "q": array(position=1, skip=("extra-dim",))}),
    Call("rod3d.quat_log", rod3d.quat_log, lambda: ((np.array([0.6, 0.8, 0.0, 0.0]),), {}),
         {"q": Kind(dict(array(skip=("extra-dim",)).cases, **quaternions().cases), 0)}),
    Call("rod3d.rotmat", rod3d.rotmat, lambda: ((np.array([[0.6, 0.0, 0.8, 0.0]]),), {}),
         {"Q": Kind(dict(array(skip=("extra-dim",)).cases, **quaternions().cases), 0)}),
    Call("rod3d.quat_from_rotmat", rod3d.quat_from_rotmat, lambda: ((np.eye(3),), {}),
         {"R": _with(array(position=0, skip=("extra-dim",)), **{"not-a-rotation": 2 * np.eye(3),
                                                                 "reflection": -np.eye(3)})}),
    Call("rod3d.accelerations", rod3d.accelerations,
         lambda: ((rod3d.make_rod3d(4), _state_of(rod3d.make_rod3d(4)), *_vw()),
                  dict(load=_LOAD6, grav=0.3)),
         dict(_ROD_STATE, v=array(position=2), w=array(position=3), **_LOADS)),
    Call("rod3d.kinetic_energy", rod3d.kinetic_energy, lambda: ((rod3d.make_rod3d(4), *_vw()), {}),
         {"rod": _rod(), "v": array(position=1), "w": array(position=2)}),
    Call("rod3d.lie_verlet_step", rod3d.lie_verlet_step, _step_valid,
         {"x": array(position=0), "Q": Kind(dict(array().cases, **quaternions().cases), 1),
          "v": array(position=2), "w": array(position=3), "dt": positive(position=4),
          "forces": function(position=5),
          "J": _with(array(position=6), negative=np.array([[1.0, -1.0, 1.0]])),
          "gyro": choice()}),
    Call("rod3d.lie_verlet", rod3d.lie_verlet,
         _run_call(load=_LOAD6, grav=0.1, every=1, observe=lambda s, v, w: 0.0,
                   gyro="explicit", rigid_clamp=False, kernels=False),
         dict(_RUN_ARGS, gyro=choice(), rigid_clamp=boolean(), kernels=boolean(skip=("None",)))),
    Call("rod3d.lie_newmark", rod3d.lie_newmark,
         _run_call(load=_LOAD6, grav=0.1, beta=0.25, gamma=0.5, every=1,
                   observe=lambda s, v, w: 0.0, tol=1e-10, maxiter=30, max_halvings=2),
         dict(_RUN_ARGS, beta=between(0.0, 0.5, skip=("below",)), gamma=between(0.0, 1.0),
              tol=positive(), maxiter=integer(low=0), max_halvings=integer(low=0))),
    Call("rod3d.torsion_omegas", rod3d.torsion_omegas,
         lambda: ((2,), dict(L=1.0, GJ=1.0, rhoJ=1.0)),
         {"k": integer(low=1, position=0), "L": positive(), "GJ": positive(),
          "rhoJ": positive()}),
    Call("rod3d.greenhill_twist", rod3d.greenhill_twist,
         lambda: ((), dict(nu=0.3, L=1.0, shear=1e-3)),
         {"nu": between(-1.0, 0.5), "L": positive(), "shear": nonnegative()}),
    Call("rod3d.greenhill_lambda", rod3d.greenhill_lambda, _r(1.0, N=10),
         {"rod": _rod(), "twist": Kind(dict(real().cases, wraps=_const(50.0)), 1)}),
    Call("rod3d.twisted_frequencies", rod3d.twisted_frequencies, _r(1.0, N=10, k=2),
         {"rod": _rod(), "twist": _twist(), "k": _with(integer(low=1), above=1000)}),
    Call("rod3d.critical_twist", rod3d.critical_twist, _r(N=10, bracket=(8.0, 18.0)),
         {"rod": _rod(), "bracket": _with(array(skip=("None",)), wraps=(8.0, 40.0),
                                          **{"no-root": (1.0, 2.0)})}),
    Call("rod3d.twisted_shaft_omegas", rod3d.twisted_shaft_omegas,
         lambda: ((2.0,), dict(n=1, Omega_max=30.0, grid=200)),
         {"kL": Kind(dict(real().cases, **{"past-critical": _const(9.0)}), 0),
          "n": integer(low=1), "Omega_max": positive(), "grid": integer(low=3)}),
    Call("rod3d.helix", rod3d.helix, _r(0.6, 0.3, twist_rate=0.5),
         {"rod": _rod(), "alpha": between(0.0, np.pi / 2, position=1),
          "a": positive(position=2), "twist_rate": real()}),
    Call("rod3d.helix_wrench", rod3d.helix_wrench, _r(0.6, 0.3, twist_rate=0.5),
         {"rod": _rod(), "alpha": between(0.0, np.pi / 2, position=1),
          "a": positive(position=2), "twist_rate": real()}),
]


# --------------------------------------------------------------------------------------
# the model: finite differences along the SO(3) retraction
# --------------------------------------------------------------------------------------
_GRAV = 0.7


def _trivialised_hessian(r, s, load):
    """The derivative of the gradient along the retraction: H + hat(g_psi)/2 per element.

    (The gradient at s exp(h v) is taken in that state's own frame; to first order
    exp(h v) exp(p) = exp(h v + p + h v x p / 2), which adds hat(g_psi)/2.)
    """
    g = rod3d.gradient(r, s, load, _GRAV).reshape(r.N, 6)[:, :3]
    blocks = sp.block_diag([sp.block_diag([0.5 * _hat(gi), np.zeros((3, 3))]) for gi in g])
    return (rod3d.hessian(r, s, load) + blocks).tocsr()


def _hat(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _model(name, N, r_over_L, nu, load):
    return Model(name, lambda: rod3d.make_rod3d(N, r_over_L, nu),
                 lambda r, rng: _state_of(r, rng, 0.3),
                 energy=lambda r, s: rod3d.energy(r, s, load, _GRAV),
                 gradient=lambda r, s: rod3d.gradient(r, s, load, _GRAV),
                 hessian=lambda r, s: _trivialised_hessian(r, s, load),
                 step=lambda r, s, dq: rod3d.retract(r, s, dq), rtol=1e-6)


MODELS = [
    _model("rod3d", 5, 0.1, 0.3, _LOAD6),
    _model("rod3d[slender, nu=0.5, force only]", 6, 0.04, 0.5, _LOAD6[:3]),
]
