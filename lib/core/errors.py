"""One family of errors for every solve that fails: :class:`SolveError`.

Bad *input* is a ``ValueError`` naming the argument (see :mod:`lib.core.checks`);
a solve that was given good input and still failed is a :class:`SolveError`, which
says how far it got.  Its message is always built from its attributes, in one
wording::

    rod.static: load step 3/10 (λ = 0.3), iteration 12, residual 3.1e-04 (tol 1.0e-10): line search failed

that is ``where: location, iteration i, residual r (relative, tol): reason; detail``,
each part only when it is known.  The location is ``load step j/n (λ = …)`` along a
load path, ``step j (t = …)`` in a time run, or just ``λ = …`` / ``t = …``.

Every older error name of ``lib`` is a subclass, so an ``except`` written for it
keeps working and ``except SolveError`` catches them all:

============================  ===========================================
``integrate.NewtonError``     :class:`NewtonError` (defined here)
``integrate.NewtonFailure``   :class:`NewtonFailure` (defined here)
``fem.ConvergenceError``      :class:`ConvergenceError` (defined here; the
``constraints.ConvergenceError``  two old classes are now this one)
``integrate.RelaxationError``, ``rod.StaticSolveError``, ``beam.BeamSolveError``,
``actuation.ActuationSolveError``  subclasses defined in their modules
============================  ===========================================

A subclass raised the old way, with a free-text message and no attributes
(``raise StaticSolveError("...")``), keeps that message verbatim; it is kept as
:attr:`SolveError.detail` and the location added by :meth:`SolveError.located`
is put in front of it.

Examples
--------
>>> err = SolveError(where="rod.static", iteration=12, residual=3.1e-4, tol=1e-10,
...                  reason="line search")
>>> print(err.located(step=3, nsteps=10, load=0.3))
rod.static: load step 3/10 (λ = 0.3), iteration 12, residual 3.1e-04 (tol 1.0e-10): line search failed
>>> print(SolveError("the Hessian is singular").located(step=2, time=0.02))
step 2 (t = 0.02): the Hessian is singular
"""
from __future__ import annotations

import copy
import math

__all__ = ["SolveError", "NewtonError", "NewtonFailure", "ConvergenceError", "REASONS"]

#: The reasons a solve gives for stopping, and how the message says each.
REASONS = {
    "maxiter": "iteration limit reached",
    "line search": "line search failed",
    "non-finite": "residual not finite",
    "singular": "tangent singular",
    "inadmissible": "every trial point inadmissible",
    "diverged": "diverged",
    "cut limit": "increment cut limit reached",
    "not settled": "did not settle",
}


def _g(x):
    """A number as the message shows it (4 significant digits, no trailing zeros)."""
    return f"{x:.4g}"


class SolveError(RuntimeError):
    """A solve given valid input that did not succeed; says how far it got.

    Parameters
    ----------
    message : str, optional
        Free text (the *detail*): kept verbatim after the structured part, or the
        whole message when no attribute is given (the older errors' way).
    where : str, optional
        What was being solved (``"rod.static"``, ``"Newmark Newton"``).
    step, nsteps : int, optional
        Load or time step ``j`` of ``n``.
    load : float, optional
        Load factor λ.
    time : float, optional
        Time of the failed step.
    iteration : int, optional
        Newton (or other) iterations done when it stopped.
    residual : float, optional
        Residual reached (infinity norm); ``relative`` is it over the force scale.
    tol : float, optional
        The tolerance that was not met (relative when ``relative`` is given).
    reason : str, optional
        Why it stopped: a key of :data:`REASONS` (``"maxiter"``, ``"line search"``,
        ``"non-finite"``, ``"singular"``, ``"inadmissible"``, ``"diverged"``,
        ``"cut limit"``, ...) or any short phrase.
    halvings : int
        How often the step or increment had been halved or cut when it failed.
    history : sequence of float, optional
        Residual history of the failed iteration (when it was recorded).

    All of them are attributes of the error (``None`` / NaN when unknown); the
    message is rebuilt from them whenever it is shown, so an attribute set later
    (``err.halvings = 3``) appears in it.
    """

    def __init__(self, message=None, *, where=None, step=None, nsteps=None, load=None,
                 time=None, iteration=None, residual=math.nan, relative=math.nan, tol=None,
                 reason=None, halvings=0, history=None):
        self.detail = None if message is None else str(message)
        self.where = where
        self.step = step
        self.nsteps = nsteps
        self.load = None if load is None else float(load)
        self.time = None if time is None else float(time)
        self.iteration = None if iteration is None else int(iteration)
        self.residual = float(residual)
        self.relative = float(relative)
        self.tol = None if tol is None else float(tol)
        self.reason = reason
        self.halvings = int(halvings)
        self.history = history
        self._implicit = {}         # attributes holding a subclass default, not shown
        super().__init__(self.detail)

    # -- the one wording -------------------------------------------------------------
    def location(self):
        """``"load step 3/10 (λ = 0.3)"``, ``"step 4 (t = 0.4)"``, ``"λ = 0.5"`` or ``""``."""
        if self.step is not None:
            of = f"/{self.nsteps}" if self.nsteps is not None else ""
            what = "load step" if self.load is not None else "step"
            at = [f"λ = {_g(self.load)}"] if self.load is not None else []
            at += [f"t = {_g(self.time)}"] if self.time is not None else []
            return f"{what} {self.step}{of}" + (f" ({', '.join(at)})" if at else "")
        at = [f"λ = {_g(self.load)}"] if self.load is not None else []
        at += [f"t = {_g(self.time)}"] if self.time is not None else []
        return ", ".join(at)

    def _shown(self, name):
        """The attribute as the message shows it: None while it holds an implicit default."""
        value = getattr(self, name)
        return None if self._implicit.get(name, object()) == value else value

    def _progress(self):
        parts = []
        if self._shown("iteration") is not None:
            parts.append(f"iteration {self.iteration}")
        if math.isfinite(self.residual) or (self.reason == "non-finite"
                                             and not math.isnan(self.residual)):
            res = f"residual {self.residual:.1e}"
            extra = []
            if math.isfinite(self.relative) and self.relative != self.residual:
                extra.append(f"relative {self.relative:.1e}")
            if self.tol is not None:
                extra.append(f"tol {self.tol:.1e}")
            parts.append(res + (f" ({', '.join(extra)})" if extra else ""))
        if self.halvings:
            parts.append(f"after {self.halvings} halving{'s' if self.halvings > 1 else ''}")
        return parts

    def __str__(self):
        head = [p for p in [self.location()] + self._progress() if p]
        reason = self._shown("reason")
        why = REASONS.get(reason, reason) if reason else None
        tail = "; ".join(p for p in (why, self.detail) if p)
        body = ", ".join(head)
        if body and tail:
            body = f"{body}: {tail}"
        else:
            body = body or tail
        if self.where:
            return f"{self.where}: {body}" if body else str(self.where)
        return body or type(self).__name__

    def located(self, step=None, time=None, *, nsteps=None, load=None, where=None):
        """A copy of this error placed at a load or time step (the others unchanged).

        ``located(step, time)`` keeps the signature of the old
        ``NewtonFailure.located``; ``nsteps``, ``load`` and ``where`` add the number
        of steps, the load factor and (if not yet set) what was being solved.

        >>> e = NewtonFailure(where="Newmark Newton", reason="maxiter", iteration=4,
        ...                   residual=0.5).located(7, 0.7)
        >>> print(e); e.step, e.time, type(e).__name__
        Newmark Newton: step 7 (t = 0.7), iteration 4, residual 5.0e-01: iteration limit reached
        (7, 0.7, 'NewtonFailure')
        """
        new = copy.copy(self)
        if step is not None:
            new.step = step
        if time is not None:
            new.time = float(time)
        if nsteps is not None:
            new.nsteps = nsteps
        if load is not None:
            new.load = float(load)
        if where is not None and not new.where:
            new.where = where
        new.args = (str(new),)
        new.__cause__ = self.__cause__
        return new

    def recast(self, cls):
        """This error as an instance of ``cls`` (a subclass: a face's own error name),
        every attribute kept; raise it ``from`` this one."""
        new = cls(self.detail)
        new.__dict__.update(self.__dict__)
        new.args = (str(new),)
        return new

    def __reduce__(self):          # pickles (multiprocessing) with every attribute
        return (_rebuild, (type(self), self.detail, self.__dict__.copy()))


def _rebuild(cls, detail, state):
    err = cls.__new__(cls)
    RuntimeError.__init__(err, detail)
    err.__dict__.update(state)
    return err


class NewtonError(SolveError):
    """Newton's method did not converge (the older name; see :class:`NewtonFailure`)."""


class NewtonFailure(NewtonError):
    """A Newton solve (or an implicit step built on it) failed; says how far it got.

    Raised by :func:`lib.solvers.newton.newton_solve` and by everything built on it.
    ``reason`` is one of ``"maxiter"``, ``"line search"``, ``"inadmissible"``,
    ``"non-finite"``, ``"singular"``, ``"diverged"``.  Defaults keep the older
    signature ``NewtonFailure(message, reason=..., iteration=..., residual=...,
    relative=..., step=..., time=..., halvings=...)``: without them ``reason`` is
    ``"maxiter"`` and ``iteration`` 0, and the message is the one given.

    >>> e = NewtonFailure("too big")
    >>> str(e), e.reason, e.iteration
    ('too big', 'maxiter', 0)
    """

    def __init__(self, message=None, *, reason=None, iteration=None, **kw):
        super().__init__(message, reason=reason, iteration=iteration, **kw)
        if reason is None:          # the old defaults, kept as attributes only
            self.reason = self._implicit["reason"] = "maxiter"
        if iteration is None:
            self.iteration = self._implicit["iteration"] = 0


class ConvergenceError(SolveError):
    """An iteration stopped before meeting its tolerance (FEM statics, projections, Lemke).

    The one class behind ``lib.fem.ConvergenceError``,
    ``lib.incompressible.ConvergenceError`` and ``lib.constraints.ConvergenceError``.
    """
