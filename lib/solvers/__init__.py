"""The solver floor of ``lib``: model-independent algorithms, functions in, state out.

Imports only :mod:`lib.core` (a test parses the imports).

Modules
-------
newton        one safeguarded Newton method with named acceptance policies, an
              admissibility hook and an update hook (:func:`newton_solve`)
continuation  one load path (uniform, or adaptive cuts that re-grow) and time-step
              halving (:func:`load_path`, :func:`halving`)
saddle        KKT and Schur saddle-point solves, Lemke's LCP, the DAQP QP
"""
from . import continuation, newton, saddle  # noqa: F401
from .continuation import LoadPath, halving, load_path  # noqa: F401
from .newton import NewtonInfo, newton_solve  # noqa: F401

__all__ = ["newton", "continuation", "saddle", "newton_solve", "NewtonInfo", "load_path",
           "LoadPath", "halving"]
