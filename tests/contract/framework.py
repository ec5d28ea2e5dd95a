"""The model-contract test: one row per public function or model, the checks come free.

Two kinds of row, listed in ``tests/contract/rows.py`` and run by
``tests/contract/test_contract.py``:

:class:`Call` -- a public function and a valid call of it
    For every argument given a *kind* (below), the framework replaces that argument
    in the valid call by each bad value of its kind and asserts that the call raises
    a ``ValueError`` whose message names the argument (the name as a whole word).

:class:`Model` -- a model with ``energy`` / ``gradient`` / ``hessian``
    At a random state it checks the gradient against central differences of the
    energy and the Hessian against central differences of the gradient, along random
    directions.

How to add a row
----------------
Append to ``CALLS`` (or ``MODELS``) in ``rows.py``::

    Call("rod.energy", rod.energy,
         valid=lambda: ((rod.make_rod(4), rod.straight(rod.make_rod(4))),
                        dict(load=(0.1, -0.2, 0.0), grav=0.5)),
         args={"rod": model(position=0, wrong=lambda: rod3d.make_rod3d(4)),
               "q": array(position=1),
               "load": array(), "grav": real()})

* ``valid()`` returns ``(args, kwargs)``: a call that must succeed (it is run too);
  build models inside it, so each case gets fresh inputs;
* ``args`` maps an argument's name to its kind; ``position=i`` says it is passed
  positionally as ``args[i]``, otherwise it is the keyword of that name;
* a case the function does not yet pass is listed in ``xfail`` as
  ``{"q=nan": "why"}``: it is marked ``xfail(strict=True)``, so it must keep failing
  until it is fixed -- and then the entry must be removed (the test says so).

Kinds and the bad values they generate (case names in brackets)
----------------------------------------------------------------
=====================  ===========================================================
``real(inf=False)``    [nan] [inf] [-inf] (unless ``inf``) [bool] [string] [None]
                       [complex]
``positive()``         those of ``real`` + [zero] [negative]
``nonnegative()``      those of ``real`` + [negative]
``integer(low=...)``   [fraction] [bool] [string] [None] [nan] + [below] if ``low``
``between(lo, hi)``    those of ``real`` + [below] [above] (just outside)
``array(...)``         [nan] [inf] (an entry) [short] (one entry fewer) [extra-dim]
                       [string] [None] [bools] [bool-entry] (a list, one entry True)
``model(wrong=...)``   [None] [string] [wrong-kind] (what ``wrong()`` returns)
``choice()``           [unknown] [None] [bool]
``function()``         [None] [number]
``boolean()``          [int] [string] [None]
``quaternions()``      [non-unit] [zero] [nan]
=====================  ===========================================================

A kind can drop cases that are legal for that argument: ``real(skip=("inf",))``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest


# --------------------------------------------------------------------------------------
# kinds of argument and their bad values
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    """An argument's kind: the bad values to try, as ``{case: f(valid_value) -> bad}``."""

    cases: dict
    position: int | None = None


def _const(v):
    return lambda valid: v


_NOT_A_NUMBER = {"bool": _const(True), "string": _const("1.0"), "None": _const(None),
                 "complex": _const(1.0 + 1.0j)}


def _drop(cases, skip):
    return {k: v for k, v in cases.items() if k not in skip}


def real(inf=False, position=None, skip=()):
    cases = {"nan": _const(np.nan), **_NOT_A_NUMBER}
    if not inf:
        cases.update({"inf": _const(np.inf), "-inf": _const(-np.inf)})
    return Kind(_drop(cases, skip), position)


def positive(inf=False, position=None, skip=()):
    cases = dict(real(inf).cases, zero=_const(0.0), negative=_const(-1.0))
    return Kind(_drop(cases, skip), position)


def nonnegative(inf=False, position=None, skip=()):
    cases = dict(real(inf).cases, negative=_const(-1.0))
    return Kind(_drop(cases, skip), position)


def between(low, high, position=None, skip=()):
    """A real number in [low, high] (the bad values are just outside)."""
    span = max(abs(high - low), 1.0)
    cases = dict(real().cases, below=_const(low - 1e-3 * span), above=_const(high + 1e-3 * span))
    return Kind(_drop(cases, skip), position)


def integer(low=None, position=None, skip=()):
    cases = {"fraction": _const(2.5), "bool": _const(True), "string": _const("3"),
             "None": _const(None), "nan": _const(np.nan)}
    if low is not None:
        cases["below"] = _const(low - 1)
    return Kind(_drop(cases, skip), position)


def _with_entry(value):
    def make(valid):
        a = np.array(valid, dtype=float, copy=True)
        a.flat[0] = value
        return a
    return make


def _bool_entry(valid):
    """The valid array as nested lists with its first entry True ([True, 0.5, ...])."""
    a = np.asarray(valid, dtype=float).tolist()
    if not isinstance(a, list):
        return True
    inner = a
    while isinstance(inner[0], list):
        inner = inner[0]
    inner[0] = True
    return a


def array(position=None, skip=()):
    cases = {"nan": _with_entry(np.nan), "inf": _with_entry(np.inf),
             "short": lambda valid: np.asarray(valid, dtype=float).ravel()[:-1],
             "extra-dim": lambda valid: np.asarray(valid, dtype=float)[None, ...],
             "string": _const("abc"), "None": _const(None),
             "bools": lambda valid: np.ones(np.shape(valid), dtype=bool),
             "bool-entry": _bool_entry}
    return Kind(_drop(cases, skip), position)


def model(wrong=None, position=None, skip=()):
    cases = {"None": _const(None), "string": _const("rod")}
    if wrong is not None:
        cases["wrong-kind"] = lambda valid: wrong()
    return Kind(_drop(cases, skip), position)


def choice(position=None, skip=()):
    return Kind(_drop({"unknown": _const("no-such-option"), "None": _const(None),
                       "bool": _const(True)}, skip), position)


def function(position=None, skip=()):
    return Kind(_drop({"None": _const(None), "number": _const(3.0)}, skip), position)


def boolean(position=None, skip=()):
    return Kind(_drop({"int": _const(1), "string": _const("yes"), "None": _const(None)}, skip),
                position)


def quaternions(position=None, skip=()):
    def scaled(valid):
        return 1.5 * np.asarray(valid, dtype=float)
    cases = {"non-unit": scaled, "zero": lambda valid: np.zeros(np.shape(valid)),
             "nan": _with_entry(np.nan)}
    return Kind(_drop(cases, skip), position)


# --------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """A public function, a valid call of it and the kinds of its arguments."""

    name: str
    func: Callable
    valid: Callable
    args: dict
    xfail: dict = field(default_factory=dict)

    def case_ids(self):
        return [f"{arg}={case}" for arg, kind in self.args.items() for case in kind.cases]

    def bad_call(self, case_id):
        """The valid call with one argument replaced: ``(args, kwargs)``."""
        arg, case = case_id.split("=", 1)
        kind = self.args[arg]
        args, kwargs = self.valid()
        args, kwargs = list(args), dict(kwargs)
        if kind.position is not None:
            args[kind.position] = kind.cases[case](args[kind.position])
        else:
            kwargs[arg] = kind.cases[case](kwargs.get(arg))
        return args, kwargs


@dataclass(frozen=True)
class Model:
    """A model with energy / gradient / hessian for the finite-difference checks.

    ``make()`` returns the model; ``state(model, rng)`` a random state near which the
    checks run; ``energy(model, x)``, ``gradient(model, x)``, ``hessian(model, x)`` the
    three functions with any loads bound in; ``step(model, x, dx)`` moves a state
    (default ``x + dx``; a retraction for rotations).  ``h`` is the difference step
    relative to the state's size and ``rtol`` the accepted relative error.
    """

    name: str
    make: Callable
    state: Callable
    energy: Callable
    gradient: Callable
    hessian: Callable | None = None
    step: Callable | None = None
    h: float = 1e-6
    rtol: float = 1e-7
    directions: int = 4


# --------------------------------------------------------------------------------------
# what the tests assert
# --------------------------------------------------------------------------------------
def params(calls):
    """pytest params (one per bad-input case) of a list of :class:`Call` rows."""
    out = []
    for row in calls:
        unknown = set(row.xfail) - set(row.case_ids())
        if unknown:
            raise ValueError(f"{row.name}: xfail lists cases it does not generate: {sorted(unknown)}")
        for cid in row.case_ids():
            marks = ([pytest.mark.xfail(strict=True, reason=row.xfail[cid])]
                     if cid in row.xfail else [])
            out.append(pytest.param(row, cid, id=f"{row.name}[{cid}]", marks=marks))
    return out


def check_valid_call(row):
    """The row's valid call succeeds (else its bad-input cases prove nothing)."""
    args, kwargs = row.valid()
    row.func(*args, **kwargs)


def check_bad_input(row, case_id):
    """The call with one bad argument raises a ValueError naming that argument."""
    arg = case_id.split("=", 1)[0]
    args, kwargs = row.bad_call(case_id)
    try:
        row.func(*args, **kwargs)
    except ValueError as err:
        msg = str(err)
        assert re.search(rf"(?<![\w.]){re.escape(arg)}(?!\w)", msg), (
            f"{row.name}: the ValueError for {case_id} does not name {arg!r}: {msg!r}")
        return
    except Exception as err:    # noqa: BLE001  (any other class is the defect reported)
        raise AssertionError(f"{row.name}: {case_id} raised {type(err).__name__}, not a "
                             f"ValueError naming {arg!r}: {err}") from err
    raise AssertionError(f"{row.name}: {case_id} was accepted (no error)")


def _probe(row, seed):
    """The model, a random state, the difference step, the stepping rule and directions."""
    rng = np.random.default_rng(seed)
    m = row.make()
    x = row.state(m, rng)
    step = row.step or (lambda m, x, dx: x + dx)
    size = 1.0 if isinstance(x, tuple) else max(1.0, float(np.abs(np.asarray(x, dtype=float)).max()))
    g = np.asarray(row.gradient(m, x), dtype=float)
    return m, x, row.h * size, step, g, [rng.standard_normal(g.size) for _ in range(row.directions)]


def check_gradient(row, seed=0):
    """Directional derivative of the energy (central difference) = gradient . v."""
    m, x, h, step, g, directions = _probe(row, seed)
    for v in directions:
        fd = (row.energy(m, step(m, x, h * v)) - row.energy(m, step(m, x, -h * v))) / (2 * h)
        exact = float(g @ v)
        assert abs(fd - exact) <= row.rtol * max(np.abs(g).max() * np.abs(v).max(), 1e-300), (
            f"{row.name}: gradient . v = {exact!r}, central difference {fd!r}")


def check_hessian(row, seed=0):
    """Central difference of the gradient along v = Hessian v."""
    m, x, h, step, g, directions = _probe(row, seed)
    H = row.hessian(m, x)
    for v in directions:
        fd = (np.asarray(row.gradient(m, step(m, x, h * v)))
              - np.asarray(row.gradient(m, step(m, x, -h * v)))) / (2 * h)
        Hv = np.asarray(H @ v).ravel()
        assert np.abs(fd - Hv).max() <= row.rtol * max(np.abs(Hv).max(), 1e-300), (
            f"{row.name}: |H v - central difference| = {np.abs(fd - Hv).max():.3e}")
