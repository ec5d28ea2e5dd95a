"""The rows of the model-contract test: one per public function or model.

The floors' rows live here; every other module's rows live in
``rows_<module>.py`` beside this file (a list ``CALLS`` and a list ``MODELS``), gathered
below.  Add a row (see framework.py for the kinds and for ``xfail``); nothing else needs
to change.  Each ``xfail`` entry is a case the function does not pass yet, with the
reason; it is strict, so fixing the function makes the test fail until the entry is
removed.
"""
import numpy as np

from lib.core import linalg
from lib.solvers import continuation, newton, saddle

from .framework import (Call, array, between, boolean, choice, function, integer,
                        nonnegative, positive)


# --------------------------------------------------------------------------------------
# the floors: lib.solvers and lib.core.linalg
# --------------------------------------------------------------------------------------
def _cubic(x):
    return x + x**3 - 1.0, np.diag(1 + 3 * x**2)


def _cubic_energy(x):
    return float(np.sum(x**2 / 2 + x**4 / 4 - x))


def _newton_call(**extra):
    return lambda: ((_cubic, np.full(2, 0.5)),
                    dict(dict(tol=1e-10, maxiter=20, max_backtracks=10, line_search=True,
                              accept="residual", roundoff="step", reuse=1, xtol=0.0,
                              xtol_rel=1e-15, diverge=1e8, scale=1.0, floor=1e-300,
                              sufficient=1e-4, natural=0.25, record=False,
                              free=np.array([0, 1]), residual=lambda x: _cubic(x)[0],
                              admissible=lambda x: True, callback=lambda it, x, R: None),
                         **extra))


_SPD = np.array([[2.0, 1.0], [1.0, 3.0]])
_KKT = lambda: ((np.eye(2), np.array([[1.0, -1.0]]), np.array([1.0, 0.0]), np.array([0.0])),
                dict(rtol=1e-12))
_KKT_ARGS = {"M": array(position=0), "B": array(position=1), "f": array(position=2),
             "gamma": array(position=3), "rtol": positive(skip=("None",))}
# a NaN or inf matrix entry is a failed solve (SolveError, reason "non-finite"), not bad input
_MATRIX = dict(skip=("nan", "inf"))

CALLS = [
    Call("solvers.newton_solve", newton.newton_solve, _newton_call(),
         {"fun": function(position=0), "x0": array(position=1, skip=("short", "extra-dim")),
          "tol": nonnegative(), "maxiter": integer(low=0), "max_backtracks": integer(low=0),
          "line_search": choice(skip=("bool",)), "accept": choice(), "roundoff": choice(),
          "reuse": integer(low=1), "xtol": nonnegative(), "xtol_rel": nonnegative(),
          "diverge": positive(skip=("None",)), "scale": positive(),
          "floor": nonnegative(inf=True, skip=("None",)),
          "sufficient": between(0.0, 0.5), "natural": between(0.0, 1.0), "record": boolean(),
          "free": array(skip=("short", "bools", "None")),
          "residual": function(skip=("None",)), "admissible": function(skip=("None",)),
          "callback": function(skip=("None",))}),
    Call("solvers.newton_solve[energy]", newton.newton_solve,
         _newton_call(accept="energy-or-residual", energy=_cubic_energy),
         {"energy": function()}),
    Call("solvers.newton_solve[update]", newton.newton_solve,
         _newton_call(update=lambda x, dx, t: x + t * dx), {"update": function(skip=("None",))}),
    Call("solvers.load_path", continuation.load_path,
         lambda: ((lambda lam, x: (x, 1), 0.0),
                  dict(steps=3, adaptive=False, max_cuts=2, regrow=True, record=False)),
         {"solve_at": function(position=0), "steps": integer(low=1), "adaptive": boolean(),
          "max_cuts": integer(low=0), "regrow": boolean(), "record": boolean()}),
    Call("solvers.halving", continuation.halving,
         lambda: ((lambda s, h: s, (0.0,), 0.5), dict(max_halvings=2)),
         {"step": function(position=0), "dt": positive(position=2),
          "max_halvings": integer(low=0)}),
    Call("saddle.qp_solve", saddle.qp_solve,
         lambda: ((2 * np.eye(2), np.array([-1.0, 1.0]), np.zeros(2), np.ones(2)), {}),
         {"H": array(position=0), "f": array(position=1), "lower": array(position=2),
          "upper": array(position=3, skip=("inf",))}),           # upper = +inf: no bound
    Call("saddle.qp_solve[A]", saddle.qp_solve,
         lambda: ((2 * np.eye(2), np.array([-1.0, 1.0]), np.zeros(2), np.ones(2)),
                  dict(A=np.ones((1, 2)), a_lower=np.array([-1.0]), a_upper=np.array([1.0]))),
         {"A": array(), "a_lower": array(skip=("None",)),
          "a_upper": array(skip=("inf", "None"))}),
    Call("saddle.solve_lcp", saddle.solve_lcp,
         lambda: ((_SPD, np.array([-1.0, 1.0])), dict(tol=1e-10, max_pivots=20)),
         {"A": array(position=0), "b": array(position=1), "tol": positive(),
          "max_pivots": integer(low=1, skip=("None",))}),
    Call("saddle.kkt_solve", saddle.kkt_solve, _KKT, _KKT_ARGS),
    Call("saddle.schur_solve", saddle.schur_solve, _KKT, _KKT_ARGS),
    Call("saddle.kkt_matrix", saddle.kkt_matrix,
         lambda: ((np.eye(2), np.array([[1.0, 1.0]])), dict(symmetric=False)),
         {"M": array(position=0), "B": array(position=1), "symmetric": boolean()}),
    Call("saddle.constraint_rank", saddle.constraint_rank,
         lambda: ((np.array([[1.0, 2.0]]),), dict(rtol=1e-10)),
         {"B": array(position=0), "rtol": positive(skip=("None",))}),
    Call("linalg.factor", linalg.factor, lambda: ((_SPD,), dict(where="test")),
         {"A": array(position=0, **_MATRIX)}),
    Call("linalg.solve", linalg.solve, lambda: ((_SPD, np.ones(2)), {}),
         {"A": array(position=0, **_MATRIX), "b": array(position=1, **_MATRIX)}),
    Call("linalg.cholesky_banded", linalg.cholesky_banded,
         lambda: ((np.array([[0.0, 1.0], [2.0, 3.0]]),), {}), {"ab": array(position=0, **_MATRIX)}),
    Call("linalg.require_positive_definite", linalg.require_positive_definite,
         lambda: ((_SPD,), dict(where="test")), {"A": array(position=0, **_MATRIX)}),
    Call("linalg.solve_banded", linalg.solve_banded,
         lambda: (((1, 1), np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0], [1.0, 1.0, 0.0]]),
                   np.ones(3)), {}),
         {"ab": array(position=1, **_MATRIX), "b": array(position=2, **_MATRIX)}),
]


MODELS = []


# --------------------------------------------------------------------------------------
# every other module's rows: tests/contract/rows_<module>.py, each defining CALLS and
# MODELS lists (one file per module, so rows of different modules never collide)
# --------------------------------------------------------------------------------------
def _gather():
    import importlib
    import pathlib

    for path in sorted(pathlib.Path(__file__).parent.glob("rows_*.py")):
        mod = importlib.import_module(f"{__package__}.{path.stem}")
        CALLS.extend(getattr(mod, "CALLS", []))
        MODELS.extend(getattr(mod, "MODELS", []))


_gather()
