"""Contract rows of lib.integrate (see framework.py): every public function of it."""
import numpy as np
import scipy.sparse as sp

from lib import integrate as it

from .framework import (Call, Kind, array, between, boolean, choice, function, integer,
                        nonnegative, positive, real)

MODULE = "lib.integrate"

_N = 2
_Q, _V = np.array([0.3, -0.2]), np.array([0.1, 0.0])
_K = np.array([[4.0, -1.0], [-1.0, 3.0]])
_MASS = np.array([1.0, 2.0])
_accel = lambda q: -(_K @ q) / _MASS                       # noqa: E731
_force = lambda u: (_K @ u + 0.1 * u**3, _K + np.diag(0.3 * u**2))     # noqa: E731
_energy = lambda u: float(0.5 * u @ _K @ u + 0.025 * np.sum(u**4))     # noqa: E731
_GA = it.generalized_alpha_parameters(0.8)

# domain cases the generic kinds do not generate
_PAST_CAP = Kind({"past-cap": lambda v: it.MAX_STEPS + 1})           # nsteps over max_steps
_LUMPED = Kind({"zero-entry": lambda v: np.array([1.0, 0.0]),         # a massless dof
                "sparse-shape": lambda v: sp.eye(3).tocsr()})
_BAD_FORCE = Kind({"wrong-length": lambda v: (lambda u: (np.ones(u.size + 1), np.eye(u.size + 1)))})
_NAN_FORCE = Kind({"nan-force": lambda v: (lambda u: (np.full(u.size, np.nan), np.eye(u.size)))})
_PARAMS = Kind({"beta-zero": lambda v: (0.0, 0.0, 0.0, 0.5), "alpha-one": lambda v: (1.0, 0.0, 0.25, 0.5)})


def _merge(*kinds, position=None):
    cases = {}
    for k in kinds:
        cases.update(k.cases)
    return Kind(cases, position)


_NEWTON = {"tol": nonnegative(), "maxiter": integer(low=0), "predictor": choice(),
           "line_search": choice(skip=("bool",)), "max_halvings": integer(low=0)}
_NEWTON_KW = dict(tol=1e-10, maxiter=20, predictor="velocity", line_search="fallback",
                  max_halvings=1)
_RUN = {"every": integer(low=1), "callback": function(skip=("None",)),
        "max_steps": integer(low=1), "progress": function(skip=("None",))}
_RUN_KW = dict(every=2, callback=lambda n, t, q, v, a: None, max_steps=100,
               progress=lambda n, total: None)
_STATE3 = {"q": array(position=0), "v": array(position=1), "a": array(position=2),
           "dt": positive(position=3), "accel": function(position=4)}
_IMPLICIT = {"dt": positive(position=3), "force": _merge(function(), _BAD_FORCE, position=4),
             "mass": _merge(array(), _LUMPED, position=5)}
_IMPLICIT_RUN = dict(_IMPLICIT, dt=positive(position=2))


def _state3(step=None):
    return lambda: ((_Q, _V, _accel(_Q), 0.05, _accel), {})


def _f0():
    return _force(_Q)[0]


CALLS = [
    # the floors' Newton and halving, re-exported
    Call("integrate.newton_solve", it.newton_solve,
         lambda: ((lambda x: (x + x**3 - 1.0, np.diag(1 + 3 * x**2)), np.full(2, 0.5)),
                  dict(tol=1e-10, maxiter=20, line_search=True)),
         {"fun": function(position=0), "x0": array(position=1, skip=("short", "extra-dim")),
          "tol": nonnegative(), "maxiter": integer(low=0), "line_search": choice(skip=("bool",))}),
    Call("integrate.halving", it.halving, lambda: ((lambda s, h: s, (0.0,), 0.5), dict(max_halvings=2)),
         {"step": function(position=0), "dt": positive(position=2), "max_halvings": integer(low=0)}),
    # explicit steps and runs
    Call("integrate.verlet_step", it.verlet_step, _state3(), _STATE3),
    Call("integrate.central_difference_step", it.central_difference_step, _state3(),
         {"u": array(position=0), **{k: v for k, v in _STATE3.items() if k != "q"}}),
    Call("integrate.damped_verlet_step", it.damped_verlet_step,
         lambda: ((_Q, _V, _accel(_Q), 0.05, _accel, 0.3), {}),
         {**_STATE3, "c": nonnegative(position=5)}),
    Call("integrate.leapfrog_damped_step", it.leapfrog_damped_step,
         lambda: ((_Q, _V, 0.05, lambda q, v: _accel(q) - 0.2 * v), {}),
         {"q": array(position=0), "vh": array(position=1), "dt": positive(position=2),
          "accel": function(position=3)}),
    Call("integrate.verlet", it.verlet, lambda: ((_Q, _V, 0.05, 4, _accel), dict(_RUN_KW)),
         {"q0": array(position=0), "v0": array(position=1), "dt": positive(position=2),
          "nsteps": _merge(integer(low=0), _PAST_CAP, position=3), "accel": function(position=4),
          **_RUN}),
    Call("integrate.relax", it.relax,
         lambda: ((_Q, lambda q: -(_K @ q) + 0.1, 0.2, 2.0),
                  dict(vtol=1e-6, check_every=50, max_steps=20000, v0=_V,
                       callback=lambda n, q, v: None, callback_every=10)),
         {"q0": array(position=0), "accel": function(position=1), "dt": positive(position=2),
          "c": nonnegative(position=3), "vtol": positive(), "check_every": integer(low=1),
          "max_steps": integer(low=1), "v0": array(skip=("None",)),
          "callback": function(skip=("None",)), "callback_every": integer(low=1)}),
    Call("integrate.observe", it.observe,
         lambda: ((lambda q, v, a: it.verlet_step(q, v, a, 0.05, _accel), (_Q, _V, _accel(_Q)), 5,
                   lambda q, v, a: q[0]),
                  dict(stop=lambda x: False, max_steps=10, progress=lambda n, t: None)),
         {"step": function(position=0), "nsteps": integer(low=0, position=2),
          "fn": function(position=3), "stop": function(skip=("None",)),
          "max_steps": integer(low=1), "progress": function(skip=("None",)),
          "state": Kind({"None": lambda v: None, "string": lambda v: "qva",
                         "nan": lambda v: (np.array([np.nan, 0.0]),) + tuple(v[1:])}, 1)}),
    Call("integrate.kinetic_energy", it.kinetic_energy, lambda: ((_MASS, _V), {}),
         {"mass": _merge(array(), _LUMPED, position=0), "v": array(position=1, skip=("extra-dim",))}),
    Call("integrate.kinetic_energy[stack]", it.kinetic_energy,
         lambda: ((np.diag(_MASS), np.vstack([_V, _Q])), {}),
         {"mass": array(position=0), "v": array(position=1, skip=("short",))}),
    Call("integrate.check_mass", it.check_mass, lambda: ((_MASS, _N), {}),
         {"mass": _merge(array(), _LUMPED, position=0), "n": integer(low=1, position=1)}),
    Call("integrate.initial_acceleration", it.initial_acceleration, lambda: ((_force, _MASS, _Q), {}),
         {"force": _merge(function(), _BAD_FORCE, _NAN_FORCE, position=0),
          "M": _merge(array(), _LUMPED, Kind({"indefinite": lambda v: -np.eye(2)}), position=1),
          "u0": array(position=2)}),
    # implicit steps and runs
    Call("integrate.newmark_step", it.newmark_step,
         lambda: ((_Q, _V, _accel(_Q), 0.1, _force, _MASS), dict(beta=0.25, gamma=0.5, **_NEWTON_KW)),
         {"u": array(position=0), "v": array(position=1), "a": array(position=2),
          **_IMPLICIT, "beta": positive(), "gamma": real(), **_NEWTON}),
    Call("integrate.newmark", it.newmark,
         lambda: ((_Q, _V, 0.1, 4, _force, _MASS), dict(beta=0.25, gamma=0.5, **_RUN_KW, **_NEWTON_KW)),
         {"u0": array(position=0), "v0": array(position=1),
          "nsteps": _merge(integer(low=0), _PAST_CAP, position=3), **_IMPLICIT_RUN,
          "force": _merge(function(), _BAD_FORCE, _NAN_FORCE, position=4),
          "beta": positive(), "gamma": real(), **_NEWTON, **_RUN}),
    Call("integrate.generalized_alpha_parameters", it.generalized_alpha_parameters,
         lambda: ((0.8,), {}), {"rho_inf": between(0.0, 1.0, position=0)}),
    Call("integrate.hht_parameters", it.hht_parameters, lambda: ((-0.1,), {}),
         {"alpha": between(-1.0 / 3.0, 0.0, position=0)}),
    Call("integrate.generalized_alpha_step", it.generalized_alpha_step,
         lambda: ((_Q, _V, _accel(_Q), _f0(), 0.1, _force, _MASS, _GA), dict(_NEWTON_KW)),
         {"u": array(position=0), "v": array(position=1), "a": array(position=2),
          "f": array(position=3), "dt": positive(position=4),
          "force": _merge(function(), _BAD_FORCE, position=5), "mass": _merge(array(), _LUMPED, position=6),
          "params": _merge(array(), _PARAMS, position=7), **_NEWTON}),
    Call("integrate.generalized_alpha", it.generalized_alpha,
         lambda: ((_Q, _V, 0.1, 4, _force, _MASS, _GA), dict(**_RUN_KW, **_NEWTON_KW)),
         {"u0": array(position=0), "v0": array(position=1),
          "nsteps": _merge(integer(low=0), _PAST_CAP, position=3), **_IMPLICIT_RUN,
          "params": _merge(array(), _PARAMS, position=6), **_NEWTON, **_RUN}),
    Call("integrate.discrete_gradient_correction", it.discrete_gradient_correction,
         lambda: ((1.0, 1.2, np.array([0.5, 0.1]), np.array([0.1, 0.2])), dict(mass=_MASS)),
         {"energy0": real(position=0), "energy1": real(position=1), "g_mid": array(position=2),
          "dq": array(position=3), "mass": _merge(array(skip=("None",)), _LUMPED)}),
    Call("integrate.discrete_gradient_step", it.discrete_gradient_step,
         lambda: ((_Q, _V, 0.1, _energy, _force, _MASS),
                  dict(damping=lambda q, v: (0.1 * v, 0.1 * np.eye(2)), gradient=lambda q: _force(q)[0],
                       **_NEWTON_KW)),
         {"q": array(position=0), "v": array(position=1), "dt": positive(position=2),
          "energy": function(position=3), "force": _merge(function(), _BAD_FORCE, position=4),
          "mass": _merge(array(), _LUMPED, position=5), "damping": function(skip=("None",)),
          "gradient": function(skip=("None",)), **_NEWTON}),
    Call("integrate.discrete_gradient", it.discrete_gradient,
         lambda: ((_Q, _V, 0.1, 4, _energy, _force, _MASS), dict(**_RUN_KW, **_NEWTON_KW)),
         {"q0": array(position=0), "v0": array(position=1), "dt": positive(position=2),
          "nsteps": _merge(integer(low=0), _PAST_CAP, position=3), "energy": function(position=4),
          "force": function(position=5), "mass": _merge(array(), _LUMPED, position=6),
          **_NEWTON, **_RUN}),
    # stability and accuracy
    Call("integrate.critical_step", it.critical_step, lambda: ((4.0,), {}),
         {"omega_max": positive(position=0)}),
    Call("integrate.damped_critical_step", it.damped_critical_step,
         lambda: ((np.array([1.0, 3.0]), np.array([0.1, 0.2])), {}),
         {"omega": array(position=0, skip=("extra-dim", "short")),     # broadcast: legal
          "zeta": array(position=1, skip=("extra-dim", "short"))}),
    Call("integrate.damped_critical_step[scalars]", it.damped_critical_step, lambda: ((2.0, 0.1), {}),
         {"omega": positive(position=0), "zeta": nonnegative(position=1)}),
    Call("integrate.verlet_amplification", it.verlet_amplification, lambda: ((1.0, 0.5), {}),
         {"omega": nonnegative(position=0), "dt": positive(position=1)}),
    Call("integrate.damped_leapfrog_amplification", it.damped_leapfrog_amplification,
         lambda: ((1.0, 0.5, 0.1), {}),
         {"omega": nonnegative(position=0), "dt": positive(position=1),
          "zeta": nonnegative(position=2)}),
    Call("integrate.newmark_amplification", it.newmark_amplification,
         lambda: ((1.0, 0.5), dict(beta=0.25, gamma=0.5)),
         {"omega": nonnegative(position=0), "dt": positive(position=1), "beta": nonnegative(),
          "gamma": real()}),
    Call("integrate.newmark_frequency", it.newmark_frequency,
         lambda: ((1.0, 0.5), dict(beta=0.25, gamma=0.5)),
         {"omega": nonnegative(position=0), "dt": positive(position=1), "beta": nonnegative(),
          "gamma": real()}),
    Call("integrate.newmark_period_error", it.newmark_period_error, lambda: ((1.0, 0.5), {}),
         {"omega": nonnegative(position=0), "dt": positive(position=1)}),
    Call("integrate.generalized_alpha_amplification", it.generalized_alpha_amplification,
         lambda: ((1.0, 0.5, _GA), {}),
         {"omega": nonnegative(position=0), "dt": positive(position=1),
          "params": _merge(array(), _PARAMS, position=2)}),
]

MODELS = []
