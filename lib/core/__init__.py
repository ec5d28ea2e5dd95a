"""The bottom floor of ``lib``: what every chapter's code needs, written once.

It imports nothing from the rest of ``lib`` (a test parses the imports).

Modules
-------
errors       :class:`~lib.core.errors.SolveError`, the one family of "a solve failed" errors
checks       one semantics for every argument check (``ValueError`` naming the argument)
linalg       factorise / solve wrappers that turn a singular or non-finite solve into a
             ``SolveError`` naming what was being solved
quadrature   rules on the reference triangle and on the unit interval
convergence  observed orders of convergence and Richardson extrapolation
"""
from . import checks, errors, linalg  # noqa: F401
from .errors import ConvergenceError, NewtonError, NewtonFailure, SolveError  # noqa: F401

__all__ = ["checks", "errors", "linalg", "SolveError", "NewtonError", "NewtonFailure",
           "ConvergenceError"]
