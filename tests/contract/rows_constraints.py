"""Contract rows of lib.constraints (see framework.py)."""
import numpy as np

from lib import constraints as C

from .framework import (Call, Kind, array, boolean, choice, function, integer, model,
                        nonnegative, positive, real)

MODULE = "lib.constraints"

_KKT = lambda: ((np.eye(2), np.array([[1.0, -1.0]]), np.array([1.0, 0.0]), np.array([0.0])), {})
_KKT_ARGS = {"M": array(position=0), "B": array(position=1), "f": array(position=2),
             "gamma": array(position=3)}


def _pendulum():
    return C.pendulum(l=1.0)


def _drop():
    return C.make_contact_system(np.eye(1), lambda t, q, v: np.array([-9.81]),
                                 lambda q: q.copy(), lambda q: np.ones((1, 1)))


_SYSTEM = model(position=0, wrong=_drop)                 # a contact system is the wrong kind
_CONTACT = model(position=0, wrong=_pendulum)
_STATE = lambda extra=None: ((_pendulum(), 0.0, np.array([0.6, -0.8]), np.array([0.8, 0.6])),
                             extra or {})

CALLS = [
    Call("constraints.kkt_matrix", C.kkt_matrix, lambda: ((np.eye(2), np.ones((1, 2))), {}),
         {"M": array(position=0), "B": array(position=1)}),
    Call("constraints.kkt_solve", C.kkt_solve, _KKT, _KKT_ARGS),
    Call("constraints.schur_solve", C.schur_solve, _KKT, _KKT_ARGS),
    Call("constraints.constraint_rank", C.constraint_rank,
         lambda: ((np.array([[1.0, 2.0]]),), {}), {"B": array(position=0)}),
    Call("constraints.solve_lcp", C.solve_lcp,
         lambda: ((np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([-1.0, 1.0])), {}),
         {"A": array(position=0), "b": array(position=1)}),
    Call("constraints.make_system", C.make_system,
         lambda: ((np.eye(2), lambda t, q, v: np.zeros(2), lambda q: np.array([[1.0, -1.0]]),
                   lambda q, v: np.zeros(1)), dict(phi=lambda q: q[:1] - q[1:],
                                                   q_check=np.array([0.5, 0.5]))),
         {"mass": array(position=0), "force": function(position=1),
          "jacobian": function(position=2), "gamma": function(position=3),
          "phi": function(skip=("None",)), "q_check": array(skip=("None",))}),
    Call("constraints.accelerations", C.accelerations, lambda: _STATE(dict(alpha=1.0, beta=2.0)),
         {"system": _SYSTEM, "t": real(position=1), "q": array(position=2),
          "v": array(position=3), "alpha": nonnegative(), "beta": nonnegative()}),
    Call("constraints.project_state", C.project_state,
         lambda: ((_pendulum(), np.array([0.3, -1.4]), np.array([0.3, 0.2])),
                  dict(tol=1e-12, max_iter=25)),
         {"system": _SYSTEM, "q": array(position=1), "v": array(position=2),
          "tol": nonnegative(), "max_iter": integer(low=0)}),
    Call("constraints.constraint_force", C.constraint_force,
         lambda: ((_pendulum(), np.array([0.0, -1.0]), np.array([-4.905])), {}),
         # a (1, n) q is a history of one state (then lam's shape is what is wrong)
         {"system": _SYSTEM, "q": array(position=1, skip=("extra-dim",)),
          "lam": array(position=2)}),
    Call("constraints.constraint_force[history]", C.constraint_force,
         lambda: ((_pendulum(), np.array([[0.0, -1.0], [0.6, -0.8]]), np.array([[-4.9], [-3.0]])),
                  {}),
         {"q": array(position=1, skip=("extra-dim",)), "lam": array(position=2)}),
    Call("constraints.simulate", C.simulate,
         lambda: ((_pendulum(), np.array([1.0, 0.0]), np.zeros(2), np.array([0.0, 0.2])),
                  dict(alpha=1.0, beta=1.0, project=False, method="RK45", rtol=1e-6,
                       atol=1e-9)),
         {"system": _SYSTEM, "q0": array(position=1), "v0": array(position=2),
          "t_eval": array(position=3), "alpha": nonnegative(), "beta": nonnegative(),
          "project": boolean(), "method": choice(), "rtol": positive(), "atol": positive()}),
    Call("constraints.make_contact_system", C.make_contact_system,
         lambda: ((np.eye(1), lambda t, q, v: np.array([-9.81]), lambda q: q.copy(),
                   lambda q: np.ones((1, 1))), {}),
         {"mass": array(position=0), "force": function(position=1), "gap": function(position=2),
          "jacobian": function(position=3)}),
    Call("constraints.contact_step", C.contact_step,
         lambda: ((_drop(), 0.0, np.zeros(1), np.zeros(1), 1e-3), {}),
         {"system": _CONTACT, "t": real(position=1), "q": array(position=2),
          "v": array(position=3), "h": positive(position=4)}),
    Call("constraints.simulate_contact", C.simulate_contact,
         lambda: ((_drop(), [0.1], [0.0], 1e-3, 5), dict(t0=0.0)),
         {"system": _CONTACT, "q0": array(position=1), "v0": array(position=2),
          "h": positive(position=3), "n_steps": integer(low=1, position=4, skip=("fraction",)),
          "t0": real()}),
    Call("constraints.pendulum", C.pendulum, lambda: ((), dict(m=1.0, l=1.0, g=9.81)),
         {"m": positive(), "l": positive(), "g": real()}),
    Call("constraints.pendulum_tension", C.pendulum_tension,
         lambda: ((np.array([0.0, 0.3]), np.array([1.0, 2.0])), dict(m=1.0, l=1.0, g=9.81)),
         # theta and omega broadcast against each other (any shapes that broadcast)
         {"theta": array(position=0, skip=("short", "extra-dim")),
          "omega": array(position=1, skip=("short", "extra-dim")),
          "m": positive(), "l": positive(), "g": real()}),
    Call("constraints.unicycle", C.unicycle,
         lambda: ((), dict(m=10.0, J=1.0, drive=lambda t, q, v: 1.0, steer=lambda t, q, v: 0.0)),
         {"m": positive(), "J": positive(), "drive": function(skip=("None",)),
          "steer": function(skip=("None",))}),
    Call("constraints.four_bar", C.four_bar,
         lambda: ((), dict(a=0.1, b=0.35, c=0.3, d=0.4, line_density=2.0, g=9.81)),
         {"a": positive(), "b": positive(), "c": positive(), "d": positive(),
          "line_density": positive(), "g": real()}),
    Call("constraints.four_bar_state", C.four_bar_state,
         lambda: ((C.four_bar(), 0.3), dict(omega1=10.0, branch=1)),
         {"fb": model(position=0, wrong=_pendulum), "theta1": real(position=1),
          "omega1": real(), "branch": Kind({"zero": lambda v: 0, "two": lambda v: 2,
                                            "bool": lambda v: True, "None": lambda v: None})}),
    # domain case: Baumgarte's beta on a system without a position-level constraint
    Call("constraints.simulate[nonholonomic]", C.simulate,
         lambda: ((C.unicycle(), np.zeros(3), np.array([1.0, 0.0, 0.0]), [0.0, 0.1]),
                  dict(alpha=1.0)),
         {"beta": Kind({"positive without phi": lambda v: 1.0})}),
]

MODELS = []
