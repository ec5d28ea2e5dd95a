"""Self-checking exercises: ``check("rod-2", answer)`` says right or wrong, and why.

Every exercise of the book whose answer is a number or an array has an entry here.
The expected answer is never stored: it is computed, on first use, by the same
solution function the chapter's folded solution quotes (each chapter's functions
live in ``lib/exercises/<chapter>.py`` and are registered with :func:`exercise`), so
the check and the book cannot drift apart.

A wrong answer gets a hint that names the usual slip, tested in this order:

* ``shape``      the answer's shape differs from the expected one;
* ``sign``       the answer is the expected one with the opposite sign;
* ``factor 2``   the answer is twice or half the expected one;
* ``factor 2pi``  the answer is 2 pi times or 1/(2 pi) of the expected one (an angular
  frequency omega given for a frequency f = omega / 2 pi, or the reverse);
* ``degrees``    the answer is the expected angle in degrees instead of radians (or the
  reverse);
* ``magnitude``  the answer is off by a power of ten (a unit, a percent or a scale
  slip: 10, 100, 1000, ...);
* ``order``      an array answer holds the expected values, in another order (entries
  swapped, sorted the other way, or a transposed table);
* otherwise the largest error, so a student sees how far off they are: relative where
  the expected entry is nonzero, absolute where it is zero.

Public functions
----------------
check(key, answer)     an :class:`Verdict` (prints as one line in a notebook)
solution(key)          the book's answer (computed once, then cached)
keys(chapter=None)     the registered exercise keys, in book order
exercise(key, ...)     decorator registering a solution function

Examples
--------
>>> from lib import exercises
>>> @exercises.exercise("demo-1", rtol=1e-6, text="2 + 2")
... def _demo():
...     return 4.0
>>> exercises.check("demo-1", 4.0).correct
True
>>> exercises.check("demo-1", -4.0).hint
'sign'
>>> exercises.check("demo-1", 8.0).hint
'factor 2'
>>> exercises.check("demo-1", 400.0).hint
'magnitude'
>>> exercises.check("demo-1", 8 * 3.14159265).hint
'factor 2pi'
>>> exercises.check("demo-1", 4 * 57.29578).hint
'degrees'
>>> exercises.unregister("demo-1")
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Verdict", "check", "solution", "keys", "exercise", "unregister", "CHAPTERS"]

# Chapter modules under lib/exercises, in book order; each registers its exercises
# when imported.
CHAPTERS = ("rod", "rod3d", "integration", "energy", "pcc", "fem", "fem_incompressible",
            "actuation", "constraints", "contact", "crosscheck", "levels")


@dataclass(frozen=True)
class _Entry:
    key: str
    fn: object
    rtol: float
    atol: float
    text: str
    cache: dict = field(default_factory=dict, compare=False)


_REGISTRY: dict[str, _Entry] = {}
_LOADED = False


def exercise(key: str, rtol: float = 1e-3, atol: float = 0.0, text: str = ""):
    """Register ``fn`` (no arguments) as the solution of exercise ``key``.

    ``rtol`` / ``atol`` say how close an answer must be (``|a - e| <= atol + rtol |e|``
    element-wise); ``text`` is a one-line statement of what is asked (the units and
    the form the answer takes), printed with every verdict.
    """
    if not isinstance(key, str) or "-" not in key:
        raise ValueError(f"key must look like '<chapter>-<n>', got {key!r}")
    if not (rtol >= 0 and atol >= 0) or (rtol == 0 and atol == 0):
        raise ValueError(f"rtol and atol must be >= 0 and not both 0, got {rtol!r}, {atol!r}")

    def register(fn):
        if key in _REGISTRY:
            raise ValueError(f"exercise {key!r} is registered twice")
        _REGISTRY[key] = _Entry(key, fn, float(rtol), float(atol), text)
        return fn

    return register


def unregister(key: str) -> None:
    """Remove ``key`` from the registry (for tests and doctests)."""
    _REGISTRY.pop(key, None)


def _load():
    global _LOADED
    if _LOADED:
        return
    for name in CHAPTERS:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    _LOADED = True


def keys(chapter: str | None = None) -> list[str]:
    """The registered keys (``chapter`` restricts them to ``"<chapter>-*"``)."""
    _load()
    out = [k for k in _REGISTRY if chapter is None or k.rsplit("-", 1)[0] == chapter]
    order = {c: i for i, c in enumerate(CHAPTERS)}

    def rank(k):
        chap, _, num = k.rpartition("-")
        digits = num[:len(num) - len(num.lstrip("0123456789"))]
        return (order.get(chap, len(order)), chap, int(digits) if digits else 0, num)

    return sorted(out, key=rank)


def _entry(key):
    _load()
    try:
        return _REGISTRY[key]
    except KeyError:
        known = ", ".join(keys()) or "none"
        raise ValueError(f"key {key!r} is not a registered exercise (known: {known})") from None


def solution(key: str):
    """The book's answer to exercise ``key``: a float or an ndarray (computed once)."""
    entry = _entry(key)
    if "value" not in entry.cache:
        value = entry.fn()
        arr = np.asarray(value, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"the solution of {key!r} is not finite: {value!r}")
        entry.cache["value"] = float(arr) if arr.ndim == 0 else arr
    return entry.cache["value"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`check`: ``correct``, a ``hint`` (None when right) and a
    one-line ``message``; a notebook shows the message."""

    key: str
    correct: bool
    hint: str | None
    message: str

    def __repr__(self):
        return self.message

    def __bool__(self):
        return self.correct


def _close(a, e, rtol, atol):
    return bool(np.all(np.abs(a - e) <= atol + rtol * np.abs(e)))


def _hint(a, e, rtol, atol):
    if _close(-a, e, rtol, atol) and not _close(a, e, rtol, atol):
        return "sign", "the sign is wrong"
    for f in (2.0, 0.5):
        if _close(a / f, e, rtol, atol):
            return "factor 2", ("twice" if f == 2 else "half") + " the expected value: a factor of 2 slipped in"
    for f in (2 * math.pi, 1 / (2 * math.pi)):
        if _close(a / f, e, rtol, atol):
            return "factor 2pi", ("2 pi times" if f > 1 else "1/(2 pi) of") + (
                " the expected value: an angular frequency omega mixed up with f = omega / 2 pi")
    for f in (180 / math.pi, math.pi / 180):
        if _close(a / f, e, rtol, atol):
            return "degrees", ("degrees where radians are asked" if f > 1
                               else "radians where degrees are asked")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(a) / np.abs(e)
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    if ratio.size:
        k = np.round(np.log10(ratio))
        if np.all(k == k[0]) and k[0] != 0:
            p = int(k[0])
            if _close(a / 10.0**p, e, rtol, atol) or _close(-a / 10.0**p, e, rtol, atol):
                return "magnitude", (f"off by a factor 1e{p:+d}: check units, percent vs fraction, "
                                     "or a scale (L, EI, rho A)")
    if a.size > 1:
        perm = np.argsort(a, axis=None, kind="stable")
        ref = np.argsort(e, axis=None, kind="stable")
        if _close(a.ravel()[perm], e.ravel()[ref], rtol, atol):
            return "order", "the right values in the wrong order (entries swapped or transposed?)"
    err = np.abs(a - e)
    zero = np.abs(e) <= atol
    parts = []
    if np.any(~zero):
        parts.append(f"largest relative error {float(np.max(err[~zero] / np.abs(e[~zero]))):.1e}")
    if np.any(zero):
        parts.append(f"largest absolute error {float(np.max(err[zero])):.1e} where the answer is 0")
    return "value", "not within tolerance (" + "; ".join(parts) + ")"


def check(key: str, answer) -> Verdict:
    """Check a student's ``answer`` to exercise ``key`` against the book's solution.

    ``answer`` is a number or array-like of the solution's shape.  Returns a
    :class:`Verdict`; a wrong answer carries a ``hint`` (``"shape"``, ``"sign"``,
    ``"factor 2"``, ``"factor 2pi"``, ``"degrees"``, ``"magnitude"``, ``"order"`` or ``"value"``).
    Raises ``ValueError`` for an unknown key or an answer that is not numeric.
    """
    entry = _entry(key)
    e = np.asarray(solution(key), dtype=float)
    try:
        a = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"answer must be a number or an array of numbers, got {answer!r}") from None
    what = f" ({entry.text})" if entry.text else ""
    if a.shape != e.shape:
        msg = f"{key}: wrong shape {a.shape}, expected {e.shape}{what}"
        return Verdict(key, False, "shape", msg)
    if not np.all(np.isfinite(a)):
        return Verdict(key, False, "value", f"{key}: the answer is not finite{what}")
    if _close(a, e, entry.rtol, entry.atol):
        return Verdict(key, True, None, f"{key}: right{what}")
    hint, why = _hint(a, e, entry.rtol, entry.atol)
    return Verdict(key, False, hint, f"{key}: not yet — {why}{what}")
