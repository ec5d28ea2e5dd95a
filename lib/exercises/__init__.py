"""Self-checking exercises: ``check("rod-2", answer)`` says right or wrong, and why.

Every exercise of the book whose answer is a number or an array has an entry here.
The expected answer is never stored: it is computed, on first use, by the same
solution function the chapter's folded solution quotes (each chapter's functions
live in ``lib/exercises/<chapter>.py`` and are registered with :func:`exercise`), so
the check and the book cannot drift apart.

A wrong answer gets a hint that names the usual slip.  First the slips particular to
the exercise (``slips=`` of :func:`exercise`: a wrong answer the exercise means to tell
apart from the right one, such as a continuum formula where the discrete model is
asked), each named by the exercise; then, in this order:

* ``shape``      the answer's shape differs from the expected one;
* ``sign``       the answer is the expected one with the opposite sign;
* ``factor 2``   the answer is twice or half the expected one;
* ``factor 2pi``  the answer is 2 pi times or 1/(2 pi) of the expected one (an angular
  frequency omega given for a frequency f = omega / 2 pi, or the reverse);
* ``degrees``    the answer is the expected angle in degrees instead of radians (or the
  reverse);
* ``percent``    the answer is 100 times or 1/100 of the expected one (a percent given
  for a fraction or a ratio, or the reverse);
* ``ratio - 1``  the answer is the expected ratio minus one, or one more than the
  expected relative change (``r - 1`` for ``r``, ``r`` for ``r - 1``, ``1 - r``, or any of
  them in percent);
* ``off by one`` a whole-number answer (a count, an index) is one more or one less;
* ``squared``    the answer is the square or the square root of the expected one
  (omega^2 where omega is asked, an eigenvalue for a frequency);
* ``magnitude``  the answer is off by another power of ten (a unit or a scale slip:
  10, 1000, ...);
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
'percent'
>>> exercises.check("demo-1", 4000.0).hint
'magnitude'
>>> exercises.check("demo-1", 16.0).hint
'squared'
>>> exercises.check("demo-1", 3.0).hint        # a count off by one
'off by one'
>>> exercises.check("demo-1", 8 * 3.14159265).hint
'factor 2pi'
>>> exercises.check("demo-1", 4 * 57.29578).hint
'degrees'
>>> exercises.unregister("demo-1")
>>> @exercises.exercise("demo-2", rtol=1e-6, text="a ratio, 5/4")
... def _ratio():
...     return 1.25
>>> exercises.check("demo-2", 0.25).hint       # the relative change, not the ratio
'ratio - 1'
>>> exercises.check("demo-2", 25.0).hint       # ... and in percent
'ratio - 1'
>>> exercises.unregister("demo-2")
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field

import numpy as np

from ..chapters import stems
from ..core import checks

__all__ = ["Verdict", "check", "solution", "keys", "exercise", "unregister", "CHAPTERS"]

# Chapter modules under lib/exercises, in book order (lib.chapters); each registers its
# exercises when imported.
CHAPTERS = stems("exercises")


@dataclass(frozen=True)
class _Entry:
    key: str
    fn: object
    rtol: float
    atol: float
    text: str
    slips: tuple = ()
    cache: dict = field(default_factory=dict, compare=False)


_REGISTRY: dict[str, _Entry] = {}
_LOADED = False


def exercise(key: str, rtol: float = 1e-3, atol: float = 0.0, text: str = "",
             slips=None):
    """Register ``fn`` (no arguments) as the solution of exercise ``key``.

    ``rtol`` / ``atol`` say how close an answer must be (``|a - e| <= atol + rtol |e|``
    element-wise); ``text`` is a one-line statement of what is asked (the units and
    the form the answer takes), printed with every verdict.  ``slips`` maps a hint
    name to ``(wrong, why)``: ``wrong()`` (no arguments) computes the answer that slip
    gives, ``why`` is the sentence the student reads; an answer within tolerance of
    ``wrong()`` gets that hint, before the generic ones.  The tolerance must tell the
    right answer from each slip (:func:`check` raises ``ValueError`` when it does not).
    """
    if not isinstance(key, str) or "-" not in key:
        raise ValueError(f"key must look like '<chapter>-<n>', got {checks.show(key)}")
    rtol, atol = checks.nonnegative(rtol, "rtol"), checks.nonnegative(atol, "atol")
    if rtol == 0 and atol == 0:
        raise ValueError("rtol and atol must not both be 0")
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {checks.show(text)}")
    if slips is not None and not isinstance(slips, dict):
        raise ValueError(f"slips must map a name to (function, message), got {checks.show(slips)}")
    slips = dict(slips or {})
    for name, pair in slips.items():
        if not (isinstance(name, str) and isinstance(pair, tuple) and len(pair) == 2
                and callable(pair[0]) and isinstance(pair[1], str)):
            raise ValueError(f"slips must map a name to (function, message), got {name!r}: {pair!r}")

    def register(fn):
        if key in _REGISTRY:
            raise ValueError(f"exercise {key!r} is registered twice")
        _REGISTRY[key] = _Entry(key, checks.function(fn, "fn"), rtol, atol, text,
                                tuple((n, f, m) for n, (f, m) in slips.items()))
        return fn

    return register


def unregister(key: str) -> None:
    """Remove ``key`` from the registry (for tests and doctests; an unknown key is ignored)."""
    if not isinstance(key, str):
        raise ValueError(f"key must be a string, got {checks.show(key)}")
    _REGISTRY.pop(key, None)


def _load():
    global _LOADED
    if _LOADED:
        return
    for name in CHAPTERS:
        importlib.import_module(f"{__name__}.{name}")
    _LOADED = True


def keys(chapter: str | None = None) -> list[str]:
    """The registered keys (``chapter``, one with exercises, restricts them to ``"<chapter>-*"``)."""
    _load()
    if chapter is not None:
        checks.choice(chapter, "chapter", sorted({k.rsplit("-", 1)[0] for k in _REGISTRY}))
    out = [k for k in _REGISTRY if chapter is None or k.rsplit("-", 1)[0] == chapter]
    order = {c: i for i, c in enumerate(CHAPTERS)}

    def rank(k):
        chap, _, num = k.rpartition("-")
        digits = num[:len(num) - len(num.lstrip("0123456789"))]
        return (order.get(chap, len(order)), chap, int(digits) if digits else 0, num)

    return sorted(out, key=rank)


def _entry(key):
    _load()
    entry = _REGISTRY.get(key) if isinstance(key, str) else None    # unhashable: no key
    if entry is None:
        known = ", ".join(keys()) or "none"
        raise ValueError(f"key {checks.show(key)} is not a registered exercise (known: {known})")
    return entry


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


def _slip_answers(entry):
    """``[(name, wrong answer, why)]`` of an entry's own slips (computed once).

    Raises ``ValueError`` when a slip's answer is within the exercise's tolerance of
    the right one: such a check could not tell them apart.
    """
    if "slips" not in entry.cache:
        e = np.asarray(solution(entry.key), dtype=float)
        out = []
        for name, fn, why in entry.slips:
            w = np.asarray(fn(), dtype=float)
            if w.shape != e.shape:
                raise ValueError(f"slip {name!r} of {entry.key!r} has shape {w.shape}, "
                                 f"the answer {e.shape}")
            if _close(w, e, entry.rtol, entry.atol):
                raise ValueError(f"the tolerance of {entry.key!r} accepts its slip {name!r}")
            out.append((name, w, why))
        entry.cache["slips"] = out
    return entry.cache["slips"]


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


# (hint, why, slip, undo, which answers it applies to: "any", "real" (not all whole
# numbers) or "whole", and for a ratio slip which of the answer a and the expected e must
# look like a ratio, between 1/2 and 2).  The slip is named when the answer is within the
# exercise's tolerance of slip(e) and undo(a) (the slip undone) is within it of e: both,
# so that neither a shift (1 - a/100 brings any small a near a ratio near 1) nor an
# absolute tolerance (atol accepts any small a as e/100) names a slip that is not there.
# Tried in this order after the sign, factor-2, 2 pi and degree slips, before the other
# powers of ten.
_SHIFTS = (
    ("percent", "100 times the expected value: a percent where a fraction or ratio is asked",
     lambda e: 100 * e, lambda a: a / 100, "any", None),
    ("percent", "1/100 of the expected value: a fraction where a percent is asked",
     lambda e: e / 100, lambda a: 100 * a, "any", None),
    ("off by one", "one less than the expected count: counted from 0, or a fence-post slip",
     lambda e: e - 1, lambda a: a + 1, "whole", None),
    ("off by one", "one more than the expected count: counted from 0, or a fence-post slip",
     lambda e: e + 1, lambda a: a - 1, "whole", None),
    ("ratio - 1", "one less than the expected value: a ratio minus one (a relative change) "
     "where the ratio itself is asked", lambda e: e - 1, lambda a: a + 1, "real", "e"),
    ("ratio - 1", "one more than the expected value: the ratio where the ratio minus one "
     "(the relative change) is asked", lambda e: e + 1, lambda a: a - 1, "real", "a"),
    ("ratio - 1", "one minus the expected value: 1 - ratio where the ratio is asked, or "
     "the reverse", lambda e: 1 - e, lambda a: 1 - a, "real", "a or e"),
    ("ratio - 1", "the relative change in percent, 100 (ratio - 1), where the ratio is asked",
     lambda e: 100 * (e - 1), lambda a: 1 + a / 100, "real", "e"),
    ("ratio - 1", "the relative drop in percent, 100 (1 - ratio), where the ratio is asked",
     lambda e: 100 * (1 - e), lambda a: 1 - a / 100, "real", "e"),
    ("ratio - 1", "the ratio where its change in percent, 100 (ratio - 1), is asked",
     lambda e: 1 + e / 100, lambda a: 100 * (a - 1), "real", "a"),
    ("ratio - 1", "the ratio where its drop in percent, 100 (1 - ratio), is asked",
     lambda e: 1 - e / 100, lambda a: 100 * (1 - a), "real", "a"),
    ("squared", "the square of the expected value: omega^2 (an eigenvalue) where omega is "
     "asked, or a squared length or norm", lambda e: e ** 2,
     lambda a: np.sqrt(a) if np.all(a >= 0) else None, "any", None),
    ("squared", "the square root of the expected value: omega where omega^2 is asked, or a "
     "length where its square is", lambda e: np.sqrt(e) if np.all(e >= 0) else None,
     lambda a: a ** 2, "any", None),
)


def _ratio_like(x):
    return bool(np.all((x > 0.5) & (x < 2.0)))


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
    kind = "whole" if np.all(e == np.round(e)) else "real"
    ratio_like = {"a": _ratio_like(a), "e": _ratio_like(e)}
    ratio_like["a or e"] = ratio_like["a"] or ratio_like["e"]
    for hint, why, slip, undo, applies, ratio in _SHIFTS:
        if applies not in ("any", kind) or (ratio and not ratio_like[ratio]):
            continue
        w, u = slip(e), undo(a)
        if w is not None and u is not None and _close(a, w, rtol, atol) and _close(u, e, rtol, atol):
            return hint, why
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(a) / np.abs(e)
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    if ratio.size:
        k = np.round(np.log10(ratio))
        if np.all(k == k[0]) and k[0] != 0:
            p = int(k[0])
            if _close(a / 10.0**p, e, rtol, atol) or _close(-a / 10.0**p, e, rtol, atol):
                return "magnitude", (f"off by a factor 1e{p:+d}: check units or a scale "
                                     "(L, EI, rho A)")
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
    :class:`Verdict`; a wrong answer carries a ``hint``: the name of one of the
    exercise's own slips, or ``"shape"``, ``"sign"``, ``"factor 2"``, ``"factor 2pi"``,
    ``"degrees"``, ``"percent"``, ``"off by one"``, ``"ratio - 1"``, ``"squared"``,
    ``"magnitude"``,
    ``"order"`` or ``"value"``.
    Raises ``ValueError`` for an unknown (or unhashable) key or an answer that is not
    numeric (a string, None, bools); a NaN or inf answer is a wrong answer.
    """
    entry = _entry(key)
    e = np.asarray(solution(key), dtype=float)
    a = checks.array(answer, "answer", finite=None)       # a NaN answer is a wrong answer
    what = f" ({entry.text})" if entry.text else ""
    if a.shape != e.shape:
        msg = f"{key}: wrong shape {a.shape}, expected {e.shape}{what}"
        return Verdict(key, False, "shape", msg)
    if not np.all(np.isfinite(a)):
        return Verdict(key, False, "value", f"{key}: the answer is not finite{what}")
    if _close(a, e, entry.rtol, entry.atol):
        return Verdict(key, True, None, f"{key}: right{what}")
    for name, wrong, why in _slip_answers(entry):
        if _close(a, wrong, entry.rtol, entry.atol):
            return Verdict(key, False, name, f"{key}: not yet — {why}{what}")
    with np.errstate(over="ignore", invalid="ignore"):     # a huge answer's square
        hint, why = _hint(a, e, entry.rtol, entry.atol)
    return Verdict(key, False, hint, f"{key}: not yet — {why}{what}")
