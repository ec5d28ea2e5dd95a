r"""One safeguarded Newton method for every nonlinear solve in ``lib``.

Model-independent: functions in, state out.  A model hands its residual and tangent
to :func:`newton_solve` instead of writing its own loop:

.. code-block:: python

    x, info = newton_solve(fun, x0, tol=1e-10, maxiter=40, accept="residual")

``fun(x) -> (R, J)`` or ``(R, J, scale)``: the residual, its Jacobian (dense
``ndarray``, ``scipy.sparse``, an already factorised :class:`lib.core.linalg.Factor`,
or a zero-argument callable returning one of those, evaluated only when a tangent is
needed) and the force scale that makes ``tol`` relative.  Each iteration solves
``J dx = -R`` through :func:`lib.core.linalg.factor` and tries ``x + t dx`` (or
``update(x, dx, t)``), ``t = 1, 1/2, 1/4, ...``, until the acceptance policy is met.

Acceptance policies (``accept=``)
---------------------------------
``"residual"``
    Armijo on the merit ``phi = ||R||_2^2 / 2``: ``phi(t) <= (1 - 2 c t) phi(0)``,
    ``c = sufficient`` (1e-4); a trial that meets the tolerance is accepted too.
``"energy-or-residual"``
    For a minimisation (``R = grad E``): the energy decreases sufficiently,
    ``E(t) <= E(0) + c t min(R . dx, 0)``, *or* the residual does,
    ``||R(t)||_inf <= (1 - c t) ||R(0)||_inf``.  Needs ``energy(x)``.
``"natural"``
    Deuflhard's natural monotonicity test with the frozen factorisation: the
    simplified correction shrinks, ``||J^{-1} R(t)||_2 <= (1 - t natural) ||dx||_2``
    (``natural`` = 1/4); affine invariant, so stiff stretch and shear terms do not
    stall it.  A trial that meets the tolerance or the floor is accepted too.
``"none"``
    Plain Newton: every (admissible) full step is taken.

A trial point whose residual is not finite is a failed trial under every policy but
``"none"`` (there the next iteration stops with ``reason="non-finite"``).

``line_search=False`` is plain Newton whatever the policy; ``line_search="fallback"``
runs plain Newton first and, only if it fails, again from ``x0`` with the policy, so
every solve plain Newton manages is exactly its result.

``admissible(x) -> bool`` (e.g. ``det F > 0`` at every quadrature point) is asked of
every trial point first: an inadmissible one is cut back like a failed trial (with
any policy, ``"none"`` included); when every cut is inadmissible the failure's reason
is ``"inadmissible"``.

Convergence and the round-off floor
-----------------------------------
Converged when ``|R_i| <= tol * scale_i`` for every entry (``scale`` a number or one
per entry).  A residual that is a difference of large stiff terms cannot fall below
its round-off floor ``floor`` (a number, one per entry, or ``floor(x)`` evaluated
right after ``fun(x)``); ``roundoff=`` says how the floor is used:

``"residual"``
    ``|R| <= floor`` is convergence, whatever the correction.
``"correction"``
    A correction at round-off, ``||dx||_inf <= max(xtol, xtol_rel ||x||_inf)``, with
    ``|R| <= max(tol scale, floor)`` stops *without* taking it (the iterate is
    converged).  The direction is computed before the iteration budget is judged.
``"step"``
    A correction at round-off is taken at full length (no line search); then
    ``|R| <= floor`` is convergence (``floor=None``: any finite residual).
``"extra"``
    After a correction at round-off one more full Newton step is taken and the
    result is converged (a reference solution at machine precision).

Hooks
-----
``update(x, dx, t) -> x_new`` replaces ``x + t dx`` (the SO(3) retraction of a 3-D
rod; ``x`` may then be any object, ``dx`` is a flat array); ``free`` (mask or
indices) restricts the unknowns: ``fun`` returns the full ``R`` and ``J``, the
Newton system is ``J[free, free] dx_free = -R[free]`` and ``dx`` is zero elsewhere.
``residual(x) -> R`` evaluates trial points without a tangent (the tangent is then
built once at the accepted point).  ``reuse = k`` refactorises the tangent only every
``k``-th iteration (modified Newton).  ``diverge`` stops an iteration whose relative
residual exceeds it.  ``record=True`` returns the residual history and
``callback(it, x, R)`` sees every iterate.

Which configuration reproduces each loop of ``lib``
---------------------------------------------------
Checked iteration for iteration, solution to round-off, against each old loop kept in
``tests/equivalence/test_<module>.py`` (``rod3d.lie_newmark`` has since become a
safeguarded scheme with an exact tangent; its test compares results) (``L``: rod length, ``N`` elements,
``eps`` machine epsilon, ``S = EA + k_sGA``; ``bt`` = ``max_backtracks``):

==============================  ======================  ==========  ==========================  ===============================================
loop                            accept                  roundoff    floor                       other
==============================  ======================  ==========  ==========================  ===============================================
``integrate.newton_solve``      residual                step        None (any)                  the defaults: ``xtol_rel=8 eps``, bt 30
``rod.static``                  energy-or-residual      correction  ``64 eps S``                ``xtol=1e-14 L``, ``xtol_rel=0``, bt 33, J =
                                                                                                ``factor(H, banded=ab)`` (banded Cholesky)
``actuation._equilibrium``      energy-or-residual      correction  ``8 eps S max(64, N)``      as rod.static (sparse LU); ``admissible``: the
                                                                                                tendon's eyelets stay apart
``rod3d.static``                natural                 correction  ``16 eps S max(N, 4)``      ``xtol=1e-14 L``, ``xtol_rel=0``, bt 26,
                                                                                                ``update`` = retract, ``free``, ``residual``
``rod3d.lie_newmark``           residual                residual    ``16 eps S N``              ``line_search="fallback"``, exact tangent; a step
                                                                                                that fails is halved (``halving``)
``fem.static``                  none                    residual    ``64 eps (2mu+lam) n_max``  ``admissible`` det F > 0, bt 29, ``free``
``actuation._fem_newton``,      none                    residual    as fem.static               as fem.static; ``floor`` is max(tol scale,
``actuation.cable_static``                                                                      floor) there, the same test
``incompressible.solve``        none                    residual    per entry, ``floor(x)``     ``scale`` per entry (force / area), ``diverge
                                                                                                =1e8``, ``admissible`` det F > 0 unless the
                                                                                                stable neo-Hookean, bt 29, ``free``
``crosscheck.rigid_clamp_sta``  none                    step        ``64 eps S``                ``xtol=1e-14 L``, ``xtol_rel=0``, ``free`` =
``tic``                                                                                         dofs 1..3N-1
``crosscheck.skfem_static``     none                    extra       --                          ``tol=0``, ``xtol=0``, ``xtol_rel=1e-13``, ``free``
==============================  ======================  ==========  ==========================  ===============================================

Two loops judge details slightly differently, at the round-off level only:
``skfem_static`` measures the small update against ``|u|`` after it (here: before);
``incompressible.solve`` takes the ``|K| |x|`` part of its floor from the previous
tangent (its test passes that floor as ``floor(x)``).

References
----------
Dennis and Schnabel, *Numerical methods for unconstrained optimization and nonlinear
equations* (1996), ch. 6; Deuflhard, *Newton methods for nonlinear problems* (2004),
sec. 3.3 (the natural monotonicity test).

Examples
--------
>>> fun = lambda x: (np.arctan(x), np.diag(1 / (1 + x**2)), 1.0)
>>> x, info = newton_solve(fun, np.array([2.0]))          # plain Newton diverges from 2
>>> abs(float(x[0])) < 1e-12, info.backtracks > 0
(True, True)
>>> newton_solve(fun, np.array([2.0]), line_search=False, maxiter=5, where="arctan")
Traceback (most recent call last):
    ...
lib.core.errors.NewtonFailure: arctan: iteration 5, residual 1.6e+00 (tol 1.0e-10): iteration limit reached
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core import checks
from ..core.errors import NewtonFailure, SolveError
from ..core.linalg import Factor, factor

__all__ = ["newton_solve", "NewtonInfo", "POLICIES", "ROUNDOFF"]

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny

#: The acceptance policies of the line search.
POLICIES = ("residual", "energy-or-residual", "natural", "none")
#: The ways the round-off floor and a correction at round-off end the iteration.
ROUNDOFF = ("step", "correction", "residual", "extra")


@dataclass(frozen=True)
class NewtonInfo:
    """What a converged :func:`newton_solve` did.

    Attributes
    ----------
    iterations : int
        Newton iterations (tangent solves).
    backtracks : int
        Step-length halvings (line search and admissibility), summed over iterations.
    residual : float
        Final ||R||_inf (on the free unknowns).
    history : tuple of float or None
        ||R||_inf at every iterate, the start included (with ``record=True``).
    """

    iterations: int
    backtracks: int
    residual: float
    history: tuple | None = None


def _check_options(fun, tol, maxiter, line_search, max_backtracks, o):
    """Every option checked (ValueError naming it); returns the cleaned ones."""
    checks.function(fun, "fun")
    checks.nonnegative(tol, "tol")
    checks.integer(maxiter, "maxiter", low=0)
    if not (isinstance(line_search, (bool, np.bool_)) or line_search == "fallback"):
        raise ValueError(f"line_search must be True, False or 'fallback', got "
                         f"{checks.show(line_search)}")
    checks.integer(max_backtracks, "max_backtracks", low=0)
    checks.choice(o["accept"], "accept", POLICIES)
    checks.choice(o["roundoff"], "roundoff", ROUNDOFF)
    checks.integer(o["reuse"], "reuse", low=1)
    for name in ("xtol", "xtol_rel"):
        checks.nonnegative(o[name], name)
    checks.real(o["sufficient"], "sufficient", 0.0, 0.5, include_low=False, include_high=False)
    checks.real(o["natural"], "natural", 0.0, 1.0, include_low=False, include_high=False)
    checks.boolean(o["record"], "record")
    checks.boolean(o["spd"], "spd")
    if o["diverge"] is not None:
        checks.positive(o["diverge"], "diverge")
    if np.ndim(o["scale"]) == 0:
        checks.positive(o["scale"], "scale")
    else:
        checks.array(o["scale"], "scale", low=0.0, include_low=False)
    floor = o["floor"]
    if floor is not None and not callable(floor):
        if np.ndim(floor) == 0:
            checks.nonnegative(floor, "floor", inf=True)
        else:
            checks.array(floor, "floor", low=0.0, finite=False)
    for name in ("energy", "residual", "admissible", "update", "callback"):
        if o[name] is not None:
            checks.function(o[name], name)
    if o["accept"] == "energy-or-residual" and o["energy"] is None:
        raise ValueError("energy must be given (a callable energy(x)) with "
                         "accept='energy-or-residual', got None")


def _free_index(free):
    if free is None:
        return None
    f = np.asarray(free)
    if f.dtype == bool:
        return np.flatnonzero(f)
    if f.ndim != 1 or f.dtype.kind not in "iu" or (f.size and f.min() < 0):
        raise ValueError(f"free must be a boolean mask or an array of dof indices, got "
                         f"{checks.show(free)}")
    return f.astype(np.intp)


def newton_solve(fun, x0, tol=1e-10, maxiter=40, line_search=True, max_backtracks=30,
                 where="Newton", *, accept="residual", scale=1.0, floor=None,
                 roundoff="step", xtol=0.0, xtol_rel=8 * _EPS, energy=None, residual=None,
                 admissible=None, update=None, free=None, reuse=1, diverge=None,
                 sufficient=1e-4, natural=0.25, record=False, callback=None, spd=False):
    """Solve R(x) = 0 by a safeguarded Newton method (see the module docstring).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (R, J)`` or ``(R, J, scale)``; ``J`` dense, sparse, a
        :class:`~lib.core.linalg.Factor` or a callable returning one of them.
    x0 : ndarray (or any state with ``update``)
        Start (the predictor); not modified.
    tol : float
        Relative tolerance: converged when ``|R_i| <= tol * scale_i``.
    maxiter : int
        Newton iterations allowed.
    line_search : bool or "fallback"
        ``False``: plain Newton (full steps); ``"fallback"``: plain Newton, then the
        policy only if plain Newton fails.
    max_backtracks : int
        Step-length halvings allowed per iteration (``max_backtracks + 1`` trials).
    where : str
        What is being solved, for the error message.
    accept : {"residual", "energy-or-residual", "natural", "none"}
        The acceptance policy of the line search.
    scale : float or ndarray
        Force scale (used when ``fun`` returns no scale; one per entry allowed).
    floor : float, ndarray, callable or None
        Round-off floor of the residual (see ``roundoff``); ``None``: no bound for
        ``"step"`` / ``"correction"`` (any finite residual), 0 for ``"residual"``.
    roundoff : {"step", "correction", "residual", "extra"}
        How the floor and a correction at round-off end the iteration.
    xtol, xtol_rel : float
        A correction is at round-off when ``||dx||_inf <= max(xtol, xtol_rel ||x||_inf)``
        (``xtol_rel`` only for array states).
    energy : callable, optional
        ``energy(x) -> float`` for ``accept="energy-or-residual"``.
    residual : callable, optional
        ``residual(x) -> R`` (full length) for trial points; default ``fun``.
    admissible : callable, optional
        ``admissible(x) -> bool``; inadmissible trial points are cut back.
    update : callable, optional
        ``update(x, dx, t) -> x_new``; default ``x + t * dx``.
    free : bool mask or int array, optional
        The unknowns solved for (the others keep their start values).
    reuse : int
        Refactorise the tangent every ``reuse`` iterations (1: full Newton).
    diverge : float, optional
        Stop (``reason="diverged"``) when the relative residual exceeds it.
    sufficient, natural : float
        The Armijo constant c and the natural-monotonicity constant.
    record : bool
        Return the residual history in ``info.history`` (also on the failure).
    callback : callable, optional
        ``callback(it, x, R)`` at every iterate (``R`` on the free unknowns).
    spd : bool
        The (sparse) tangent is symmetric and usually positive definite: it is
        factorised by banded Cholesky where that works (:func:`lib.core.linalg.factor`
        with ``spd=True``), else by SuperLU; the iterates agree to round-off.

    Returns
    -------
    x : ndarray (or state)
    info : NewtonInfo

    Raises
    ------
    lib.core.errors.NewtonFailure
        A :class:`~lib.core.errors.SolveError` with ``reason`` "maxiter", "line
        search", "inadmissible", "non-finite", "singular" or "diverged", the
        ``iteration`` and the ``residual`` reached, and ``where``.
    ValueError
        For a bad option or a non-finite ``x0`` (named).
    """
    kw = dict(accept=accept, scale=scale, floor=floor, roundoff=roundoff, xtol=xtol,
              xtol_rel=xtol_rel, energy=energy, residual=residual, admissible=admissible,
              update=update, free=free, reuse=reuse, diverge=diverge, sufficient=sufficient,
              natural=natural, record=record, callback=callback, spd=spd)
    _check_options(fun, tol, maxiter, line_search, max_backtracks, kw)
    if update is None:
        x0 = checks.array(x0, "x0")
    if line_search == "fallback":
        try:
            return _newton(fun, x0, tol, maxiter, False, max_backtracks, where, **kw)
        except NewtonFailure:
            return _newton(fun, x0, tol, maxiter, True, max_backtracks, where, **kw)
    return _newton(fun, x0, tol, maxiter, bool(line_search), max_backtracks, where, **kw)


def _newton(fun, x0, tol, maxiter, line_search, max_backtracks, where, *, accept, scale,
            floor, roundoff, xtol, xtol_rel, energy, residual, admissible, update, free,
            reuse, diverge, sufficient, natural, record, callback, spd):
    fi = _free_index(free)
    is_array = update is None
    x = np.array(x0, dtype=float) if is_array else x0
    floor_given = floor is not None
    if floor is None:
        floor = 0.0 if roundoff == "residual" else np.inf
    n_full = []                    # length of the full residual, from the first evaluation

    def masked(v):
        v = np.asarray(v, dtype=float)
        return v if fi is None or v.ndim == 0 else v[fi]

    def evaluate(x):
        out = fun(x)
        if not isinstance(out, tuple) or len(out) not in (2, 3):
            raise ValueError(f"fun must return (R, J) or (R, J, scale), got {type(out).__name__}")
        R = np.asarray(out[0], dtype=float)
        if not n_full:
            n_full.append(R.shape[0] if R.ndim else 1)
        return masked(R), out[1], masked(out[2] if len(out) == 3 else scale)

    def trial_residual(xt):
        if residual is not None:
            return masked(residual(xt)), None, None
        return evaluate(xt)

    def floor_at(x):
        return masked(floor(x)) if callable(floor) else masked(floor)

    def met(R, bound):
        """Every |R_i| within bound_i (scalars broadcast)."""
        return bool(np.all(np.abs(R) <= bound))

    def relative(R, sc):
        return float(np.max(np.abs(R) / np.maximum(sc, _TINY))) if R.size else 0.0

    hist = [] if record else None

    def fail(reason, it, R, sc, detail=None):
        res = float(np.abs(R).max()) if R.size else 0.0
        raise NewtonFailure(detail, where=where, reason=reason, iteration=it, residual=res,
                            relative=relative(R, sc), tol=tol,
                            history=None if hist is None else tuple(hist))

    def tangent(J, R, sc, it):
        try:                       # a lazy J that fails to build or factor is this iteration's failure
            if callable(J) and not isinstance(J, Factor):
                J = J()
            if isinstance(J, Factor):
                if fi is not None:
                    raise ValueError("free cannot be used with a J that is already factorised")
                return J
            if fi is not None:
                J = J[fi][:, fi] if sp.issparse(J) else np.asarray(J, dtype=float)[np.ix_(fi, fi)]
            return factor(J, where=f"{where} tangent", spd=spd)
        except SolveError as err:
            fail("singular" if err.reason != "non-finite" else "non-finite", it, R, sc,
                 err.detail)

    def expand(dx):
        if fi is None:
            return dx
        full = np.zeros(n_full[0])
        full[fi] = dx
        return full

    step = (lambda x, dx, t: x + t * dx) if update is None else update
    R, J, sc = evaluate(x)
    E = None
    backtracks = 0
    lu = None
    tiny_prev = False
    extra = 0                      # "extra": 1 once the small update is taken, 2 after one more
    for it in range(maxiter + 1):
        res = float(np.abs(R).max()) if R.size else 0.0
        if hist is not None:
            hist.append(res)
        if callback is not None:
            callback(it, x, R)
        if not np.isfinite(res):
            fail("non-finite", it, R, sc)
        if diverge is not None and relative(R, sc) > diverge:
            fail("diverged", it, R, sc)
        fl = floor_at(x)
        if (met(R, tol * sc) or (roundoff == "residual" and met(R, fl))
                or (roundoff == "step" and tiny_prev and met(R, fl)) or extra == 2):
            return x, NewtonInfo(it, backtracks, res, None if hist is None else tuple(hist))
        if roundoff != "correction" and it == maxiter:
            fail("maxiter", it, R, sc)
        if lu is None or it % reuse == 0:
            lu = tangent(J, R, sc, it)
        try:
            dx = -lu.solve(R)
        except SolveError as err:
            fail("singular", it, R, sc, err.detail)
        scale_x = max(float(np.abs(x).max()), 1e-300) if is_array and x.size else 1e-300
        tiny = float(np.abs(dx).max()) <= max(xtol, xtol_rel * scale_x) if dx.size else True
        if roundoff == "correction":
            if tiny and met(R, np.maximum(tol * sc, fl)):
                return x, NewtonInfo(it, backtracks, res, None if hist is None else tuple(hist))
            if it == maxiter:
                fail("maxiter", it, R, sc)
        plain = (not line_search or accept == "none"
                 or (tiny and roundoff in ("step", "extra")))
        dxf = expand(dx)
        if accept == "energy-or-residual" and not plain:
            if E is None:
                E = float(energy(x))
            slope = float(R @ dx)
        if accept == "residual" and not plain:
            phi0 = float(R @ R)
        if accept == "natural" and not plain:
            ndx = float(np.linalg.norm(dx))
        t = 1.0
        admitted = False
        for k in range(max_backtracks + 1):
            xt = step(x, dxf, t)
            ok = admissible is None or bool(admissible(xt))
            trial = None
            if ok:
                admitted = True
                if plain:
                    break
                trial = trial_residual(xt)
                Rt = trial[0]
                rt = float(np.abs(Rt).max()) if Rt.size else 0.0
                st = sc if trial[2] is None else trial[2]
                if accept == "residual":
                    phit = float(Rt @ Rt)
                    if ((np.isfinite(phit) and phit <= (1.0 - 2 * sufficient * t) * phi0)
                            or met(Rt, tol * st)):
                        break
                elif accept == "energy-or-residual":
                    Et = float(energy(xt))
                    if Et <= E + sufficient * t * min(slope, 0.0) or \
                            rt <= (1 - sufficient * t) * res:
                        break
                elif np.isfinite(rt):                            # natural
                    if (met(Rt, tol * st)
                            or float(np.linalg.norm(lu.solve(-Rt))) <= (1 - natural * t) * ndx
                            or (floor_given and met(Rt, floor_at(xt)))):
                        break
            if k == max_backtracks:
                fail("line search" if admitted else "inadmissible", it, R, sc,
                     f"no step length down to 2^-{max_backtracks} was "
                     + ("accepted" if admitted else "admissible"))
            t *= 0.5
            backtracks += 1
        x = xt
        if trial is not None and trial[1] is not None:
            R, J, sc = trial
        else:
            R, J, sc = evaluate(x)
        if accept == "energy-or-residual" and not plain:
            E = Et
        else:
            E = None
        if roundoff == "step":
            tiny_prev = tiny
        elif roundoff == "extra":
            extra = 2 if extra == 1 else (1 if tiny else 0)
        if reuse == 1:
            lu = None
    raise AssertionError("unreachable")  # pragma: no cover

