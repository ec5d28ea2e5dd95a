"""One semantics for every argument check of every public function in ``lib``.

Each check takes the value and the argument's name, raises a ``ValueError`` that
names the argument and shows the value it got (never a ``TypeError``, never NumPy's
or SciPy's own message), and returns the cleaned value: a ``float``, an ``int`` or
an ``ndarray``.  The rules are the same everywhere:

* Python and NumPy ints and floats and 0-d arrays are numbers; ``bool``, strings,
  ``None`` and complex numbers are not (``True`` is never 1, ``'2'`` is never 2);
* NaN is always rejected; ±inf only where the call says ``inf=True``, which the
  function's docstring must explain as "no bound";
* integers: ``3`` and ``np.int64(3)`` are integers, ``3.0`` only with
  ``allow_float=True``, ``True`` never;
* arrays: any nested sequence of numbers; the shape is checked against a pattern
  with ``None`` for "any length" (``shape=(None, 2)``), entries must be finite
  unless ``finite=False``, ranges apply entry by entry and the message gives the
  index of the first offender.

Checks
------
============================================  ============================================
``real(x, name, low, high, ...)``              a float, optionally in a range
``positive(x, name)`` / ``nonnegative``        a float > 0 / >= 0
``integer(x, name, low, high)``                an int, optionally in a range
``boolean(x, name)``                           ``True`` / ``False`` (NumPy bools too)
``array(x, name, shape, ...)``                 a float ndarray of a shape, finite, in a range
``vector(x, name, length)``                    a 1-D ``array``
``matrix(x, name, shape, sparse=...)``         a 2-D array (or a SciPy sparse matrix)
``choice(x, name, options)``                   one of a set of values
``quaternions(x, name, tol)``                  rows of unit quaternions
``kind(x, name, cls, description)``            an instance of a model class
``function(x, name)``                          a callable
============================================  ============================================

Examples
--------
>>> positive(np.int64(3), "N"), integer(np.int64(3), "N", low=1), real(0.5, "nu", -1, 0.5)
(3.0, 3, 0.5)
>>> real(True, "grav")
Traceback (most recent call last):
    ...
ValueError: grav must be a real number, got True (a bool)
>>> real(0.7, "nu", -1, 0.5, include_low=False)
Traceback (most recent call last):
    ...
ValueError: nu must lie in (-1, 0.5], got 0.7
>>> array([[0, 1], [2, np.nan]], "nodes", shape=(None, 2))
Traceback (most recent call last):
    ...
ValueError: nodes must be finite, got nan at index (1, 1)
"""
from __future__ import annotations

import numbers

import numpy as np

_INF = float("inf")

__all__ = ["step_count", "real", "positive", "nonnegative", "integer", "boolean", "array", "vector",
           "matrix", "choice", "quaternions", "poses", "kind", "function", "show"]


# --------------------------------------------------------------------------------------
# how a value is shown in a message
# --------------------------------------------------------------------------------------
def _article(word):
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def show(value, limit=60):
    """A value as a message shows it: short, NumPy scalars as plain numbers.

    >>> show(np.float64(2.5)), show("2"), show(np.arange(3.0)), show(np.zeros((4, 5)))
    ('2.5', "'2'", '[0. 1. 2.]', 'an array of shape (4, 5)')
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return show(value[()], limit)
        if value.size <= 6:
            return np.array2string(value, separator=" ", threshold=6)
        return f"an array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _what(value):
    """' (a bool)', ' (a string)', ...: the type, where it explains the rejection."""
    if isinstance(value, (bool, np.bool_)):
        return " (a bool)"
    if isinstance(value, (str, bytes, np.str_)):
        return " (a string)"
    if isinstance(value, (complex, np.complexfloating)):
        return " (complex)"
    if value is None or isinstance(value, (numbers.Real, np.ndarray)):
        return ""
    return f" ({_article(type(value).__name__)})"


def _interval(low, high, include_low, include_high):
    """'> 0', '>= 1', '<= 2' or 'lie in (-1, 0.5]'."""
    g = lambda x: f"{x:g}" if isinstance(x, float) else f"{x}"
    if low is not None and high is not None:
        return (f"lie in {'[' if include_low else '('}{g(low)}, {g(high)}"
                f"{']' if include_high else ')'}")
    if low is not None:
        return f"be {'>=' if include_low else '>'} {g(low)}"
    return f"be {'<=' if include_high else '<'} {g(high)}"


def _outside(x, low, high, include_low, include_high):
    """Boolean mask (or bool) of values outside the range."""
    if isinstance(x, (int, float)):                       # a scalar: plain comparisons
        return ((low is not None and (x < low if include_low else x <= low))
                or (high is not None and (x > high if include_high else x >= high)))
    out = np.zeros(np.shape(x), dtype=bool)
    if low is not None:
        out |= (x < low) if include_low else (x <= low)
    if high is not None:
        out |= (x > high) if include_high else (x >= high)
    return out


# --------------------------------------------------------------------------------------
# scalars
# --------------------------------------------------------------------------------------
def _scalar(value, name, what):
    """The value as a Python/NumPy real scalar, or the one rejection message."""
    v = value
    if isinstance(v, np.ndarray):
        if v.ndim != 0:
            raise ValueError(f"{name} must be {what}, got an array of shape {v.shape}")
        v = v[()]
    if (isinstance(v, (bool, np.bool_, str, bytes, complex, np.complexfloating))
            or not isinstance(v, numbers.Real)):
        raise ValueError(f"{name} must be {what}, got {show(value)}{_what(v)}")
    return v


def real(value, name, low=None, high=None, *, include_low=True, include_high=True,
         inf=False):
    """A real number as a ``float``, optionally within ``[low, high]``.

    Parameters
    ----------
    value : number
        Python or NumPy int or float, or a 0-d array.
    name : str
        The argument's name, for the message.
    low, high : float, optional
        Bounds; ``include_low`` / ``include_high`` say whether they are allowed
        (closed) or not (open).
    inf : bool
        Whether ±inf is allowed (only where it means "no bound"; the range still
        applies, so ``positive(x, inf=True)`` accepts +inf and not -inf).

    Raises
    ------
    ValueError
        For a bool, string, None, complex, an array of size > 1, NaN, ±inf (unless
        ``inf``) or a value out of range; the message names ``name``.

    Examples
    --------
    >>> real("2", "E")
    Traceback (most recent call last):
        ...
    ValueError: E must be a real number, got '2' (a string)
    >>> real(np.inf, "tau_max", inf=True), real(np.array(2), "x")
    (inf, 2.0)
    """
    v = float(value if type(value) in (float, int) else _scalar(value, name, "a real number"))
    if v != v:
        raise ValueError(f"{name} must be a real number, got nan")
    if not inf and (v == _INF or v == -_INF):
        raise ValueError(f"{name} must be finite, got {show(v)}")
    if (low is not None or high is not None) and _outside(v, low, high, include_low,
                                                          include_high):
        raise ValueError(f"{name} must {_interval(low, high, include_low, include_high)}, "
                         f"got {show(value)}")
    return v


def positive(value, name, *, inf=False):
    """A real number > 0 (``float``); see :func:`real`.

    >>> positive(0, "EI")
    Traceback (most recent call last):
        ...
    ValueError: EI must be > 0, got 0
    """
    return real(value, name, low=0.0, include_low=False, inf=inf)


def nonnegative(value, name, *, inf=False):
    """A real number >= 0 (``float``); see :func:`real`.

    >>> nonnegative(-1e-3, "tau")
    Traceback (most recent call last):
        ...
    ValueError: tau must be >= 0, got -0.001
    """
    return real(value, name, low=0.0, inf=inf)


def integer(value, name, low=None, high=None, *, allow_float=False):
    """An integer as an ``int``, optionally within ``[low, high]`` (closed).

    ``np.int64(3)`` and 0-d integer arrays are integers; ``3.0`` is one only with
    ``allow_float=True``; ``True`` never is.

    >>> integer(np.int64(3), "N", low=1), integer(4.0, "k", allow_float=True)
    (3, 4)
    >>> integer(0, "N", low=1)
    Traceback (most recent call last):
        ...
    ValueError: N must be an integer >= 1, got 0
    >>> integer(2.5, "steps")
    Traceback (most recent call last):
        ...
    ValueError: steps must be an integer, got 2.5
    """
    want = "an integer" + (f" >= {low}" if low is not None and high is None else "")
    if low is not None and high is not None:
        want = f"an integer in {low}..{high}"
    elif high is not None:
        want = f"an integer <= {high}"
    v = value if type(value) is int else _scalar(value, name, want)
    if not isinstance(v, numbers.Integral):
        if not (allow_float and np.isfinite(v) and float(v).is_integer()):
            raise ValueError(f"{name} must be {want}, got {show(value)}")
    v = int(v)
    if _outside(v, low, high, True, True):
        raise ValueError(f"{name} must be {want}, got {show(value)}")
    return v


def boolean(value, name):
    """``True`` or ``False`` (NumPy bools too); 0, 1, strings and None are not.

    >>> boolean(np.True_, "symmetric")
    True
    >>> boolean(1, "symmetric")
    Traceback (most recent call last):
        ...
    ValueError: symmetric must be True or False, got 1
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {show(value)}{_what(value)}")
    return bool(value)


# --------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------
def _shape_text(shape):
    if len(shape) == 1:
        return f"({'n' if shape[0] is None else shape[0]},)"
    return "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"


def _first(mask):
    """Index of the first True entry, as ``2`` or ``(1, 1)``."""
    mask = np.asarray(mask)
    if mask.ndim == 0:                       # a 0-d array has no index: say "()"
        return ()
    idx = tuple(int(i[0]) for i in np.nonzero(mask))
    return idx[0] if len(idx) == 1 else idx


def _has_bool(value):
    """A bool anywhere in a nested sequence (NumPy turns ``(True, 0)`` into ints)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_bool(v) for v in value)
    return isinstance(value, np.ndarray) and value.dtype.kind == "b"


def array(value, name, shape=None, *, finite=True, low=None, high=None, include_low=True,
          include_high=True, nonempty=False, broadcast=False):
    """An array of real numbers as a float ``ndarray`` of a given shape.

    Parameters
    ----------
    value : array_like
        A nested sequence of numbers or an ndarray of a real (not bool, not
        complex) dtype.
    name : str
    shape : tuple of int or None, optional
        The shape, ``None`` for "any length" on that axis (``(None, 2)``: any
        number of rows of two).  ``()`` asks for a 0-d array.
    finite : bool or None
        Reject NaN and ±inf entries (default).  With ``finite=False`` only NaN
        is rejected; with ``None`` the values are not looked at (where a NaN is the
        caller's business, e.g. a matrix whose NaN makes a solve fail).
    low, high, include_low, include_high
        An entry-wise range, as in :func:`real`.
    nonempty : bool
        Reject an array with no entries.
    broadcast : bool
        Let a single number stand for every entry of ``shape`` (which must then be
        fully given): "a number or one per tendon".  Only a number broadcasts; an
        array must have the shape (a length-1 array is not "one per tendon").

    Returns
    -------
    ndarray
        float; it may share memory with ``value`` (copy before writing to it).

    Examples
    --------
    >>> array([[0, 1], [2, 3]], "nodes", shape=(None, 2)).shape
    (2, 2)
    >>> array([1.0, 2.0, 3.0], "nodes", shape=(None, 2))
    Traceback (most recent call last):
        ...
    ValueError: nodes must have shape (n, 2), got shape (3,)
    >>> array(2.0, "tau_max", shape=(3,), broadcast=True, low=0).tolist()
    [2.0, 2.0, 2.0]
    >>> array([True, False], "mask")
    Traceback (most recent call last):
        ...
    ValueError: mask must be an array of real numbers, got [True, False] (bools)
    """
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name} must be an array of real numbers, got "
                         f"{show(value)}{_what(value)}")
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be an array of real numbers (a rectangular, "
                         f"nested sequence), got {show(value)}") from None
    if a.dtype.kind not in "iuf":
        kinds = {"b": " (bools)", "c": " (complex)", "U": " (strings)", "S": " (strings)",
                 "O": " (not all numbers, or ragged)"}
        raise ValueError(f"{name} must be an array of real numbers, got {show(value)}"
                         f"{kinds.get(a.dtype.kind, f' (dtype {a.dtype})')}")
    if not isinstance(value, np.ndarray) and _has_bool(value):   # [1.5, True] is float
        raise ValueError(f"{name} must be an array of real numbers, got {show(value)} "
                         f"(bools among the numbers)")
    a = a.astype(float, copy=False)
    if shape is not None:
        shape = tuple(shape)
        if broadcast and a.ndim == 0 and None not in shape:
            if 0 in shape:                    # "one per tendon" with none: check the number
                if finite is not None:
                    real(a, name, low, high, include_low=include_low,
                         include_high=include_high, inf=not finite)
            a = np.broadcast_to(a, shape).astype(float)
        elif a.ndim != len(shape) or any(s is not None and s != n
                                         for s, n in zip(shape, a.shape)):
            if broadcast:
                raise ValueError(f"{name} must be a number or have shape "
                                 f"{_shape_text(shape)}, got shape {a.shape}")
            raise ValueError(f"{name} must have shape {_shape_text(shape)}, got shape "
                             f"{a.shape}")
    if nonempty and a.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    bad = False if finite is None else np.isnan(a) | (np.isinf(a) if finite else False)
    if np.any(bad):
        i = _first(bad)
        raise ValueError(f"{name} must be {'finite' if finite else 'free of NaN'}, got "
                         f"{show(a[i])} at index {i}")
    if low is not None or high is not None:
        out = _outside(a, low, high, include_low, include_high)
        if np.any(out):
            i = _first(out)
            raise ValueError(f"{name} must {_interval(low, high, include_low, include_high)} "
                             f"entry by entry, got {show(a[i])} at index {i}")
    return a


def vector(value, name, length=None, **kw):
    """A 1-D :func:`array` of ``length`` entries (any length if None).

    >>> vector([1, 2], "load", 3)
    Traceback (most recent call last):
        ...
    ValueError: load must have shape (3,), got shape (2,)
    """
    return array(value, name, shape=(length,), **kw)


def matrix(value, name, shape=None, *, square=False, sparse=False, finite=True):
    """A 2-D array, or with ``sparse=True`` also a SciPy sparse matrix (kept sparse, CSR).

    ``shape`` as in :func:`array` (``(n, None)``); ``square`` asks for n x n.

    >>> matrix([[1.0, 2.0]], "B", square=True)
    Traceback (most recent call last):
        ...
    ValueError: B must be a square matrix, got shape (1, 2)
    """
    import scipy.sparse as sps

    if sps.issparse(value):
        if not sparse:
            raise ValueError(f"{name} must be a dense array, got a sparse matrix")
        a = sps.csr_array(value, dtype=float) if value.dtype.kind in "iuf" else None
        if a is None:
            raise ValueError(f"{name} must hold real numbers, got dtype {value.dtype}")
        if finite and not np.all(np.isfinite(a.data)):
            raise ValueError(f"{name} must be finite, got a non-finite stored entry")
        want = (None, None) if shape is None else tuple(shape)
        if a.ndim != 2 or any(s is not None and s != n for s, n in zip(want, a.shape)):
            raise ValueError(f"{name} must have shape {_shape_text(want)}, got shape "
                             f"{a.shape}")
    else:
        a = array(value, name, shape=(None, None) if shape is None else shape,
                  finite=finite)
    if square and a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {a.shape}")
    return a


# --------------------------------------------------------------------------------------
# everything else
# --------------------------------------------------------------------------------------
def choice(value, name, options):
    """One of ``options`` (compared with ``==``; a bool is not 0 or 1).

    >>> choice("dead", "moment", ("conservative", "dead"))
    'dead'
    >>> choice("live", "moment", ("conservative", "dead"))
    Traceback (most recent call last):
        ...
    ValueError: moment must be one of 'conservative', 'dead', got 'live'
    """
    options = tuple(options)
    flag = lambda x: isinstance(x, (bool, np.bool_))
    ok = False
    for o in options:
        if flag(o) != flag(value):
            continue
        try:
            same = value == o
        except Exception:          # noqa: BLE001  (an incomparable value is no option)
            continue
        if isinstance(same, (bool, np.bool_)) and same:
            ok = True
            break
    if not ok:
        listed = ", ".join(show(o) for o in options)
        why = " (a bool)" if flag(value) else ""
        raise ValueError(f"{name} must be one of {listed}, got {show(value)}{why}")
    return value


def quaternions(value, name, tol=1e-8, shape=(None, 4)):
    """Rows of unit quaternions ``(w, x, y, z)``: finite and ``| |q| - 1 | <= tol``.

    Returns the array as given (not renormalised).

    >>> quaternions([[1, 0, 0, 0], [0.6, 0.8, 0, 0]], "Q").shape
    (2, 4)
    >>> quaternions([[1, 0, 0, 0], [1, 1, 0, 0]], "Q")
    Traceback (most recent call last):
        ...
    ValueError: Q must hold unit quaternions (| |q| - 1 | <= 1e-08), got |q| = 1.41421 in row 1
    """
    q = array(value, name, shape=shape)
    norms = np.linalg.norm(q, axis=-1)
    off = np.abs(norms - 1.0) > tol
    if np.any(off):
        i = _first(off)
        raise ValueError(f"{name} must hold unit quaternions (| |q| - 1 | <= {tol:g}), got "
                         f"|q| = {float(norms[i]):.6g} in row {i}")
    return q


def poses(state, name, n_x, n_q, tol=1e-8, batch=False):
    """A rod state ``(x, Q)``: ``n_x`` positions ``(n_x, 3)`` and ``n_q`` unit quaternions.

    ``state`` must be a pair (a tuple, a list or a ``NamedTuple`` such as a rod's
    ``State``), not an array; with ``batch`` a leading axis of states is allowed.
    Returns ``(x, Q)`` as float arrays.

    >>> x, Q = poses(([[0, 0, 1]], [[1, 0, 0, 0]]), "state", 1, 1)
    >>> x.shape, Q.shape
    ((1, 3), (1, 4))
    >>> poses([[0, 0, 1]], "state", 1, 1)
    Traceback (most recent call last):
        ...
    ValueError: state must be a State (x, Q) of a 3-D rod, got [[0, 0, 1]]
    """
    if isinstance(state, (np.ndarray, str, bytes)) or not (
            isinstance(state, (tuple, list)) and len(state) == 2):
        raise ValueError(f"{name} must be a State (x, Q) of a 3-D rod, got {show(state)}")
    lead = (None,) if batch and np.ndim(state[0]) == 3 else ()
    x = array(state[0], f"{name}.x", shape=lead + (n_x, 3))
    Q = quaternions(state[1], f"{name}.Q", tol=tol, shape=x.shape[:-2] + (n_q, 4))
    return x, Q


def kind(value, name, cls, description):
    """An instance of the model class ``cls`` (or a tuple of classes).

    ``description`` says what is wanted, e.g. ``"a planar rod (lib.rod.Rod, made by
    lib.rod.make_rod)"``; the message says what came instead.

    >>> class Rod: pass
    >>> class Rod3D: pass
    >>> kind(Rod3D(), "rod", Rod, "a planar rod (lib.rod.Rod, made by lib.rod.make_rod)")
    Traceback (most recent call last):
        ...
    ValueError: rod must be a planar rod (lib.rod.Rod, made by lib.rod.make_rod), got a Rod3D
    """
    if not isinstance(value, cls):
        got = "None" if value is None else _article(type(value).__name__)
        raise ValueError(f"{name} must be {description}, got {got}")
    return value


def function(value, name):
    """A callable.

    >>> function(3.0, "force")
    Traceback (most recent call last):
        ...
    ValueError: force must be callable, got 3.0
    """
    if not callable(value):
        raise ValueError(f"{name} must be callable, got {show(value)}{_what(value)}")
    return value


def step_count(dt, t_end, *, dt_name="dt", t_name="t_end", rtol=1e-9):
    """``(dt, n)`` with ``n dt = t_end``: a run of fixed steps that ends exactly at ``t_end``.

    Both must be positive; ``t_end`` must be a whole number of steps (to ``rtol``), so a
    run never stops short of, or past, the time it was asked for.

    >>> step_count(0.01, 0.25)
    (0.01, 25)
    >>> step_count(0.02, 0.25)
    Traceback (most recent call last):
        ...
    ValueError: t_end = 0.25 must be a whole number of steps dt = 0.02 (12.5 steps)
    """
    dt = positive(dt, dt_name)
    t_end = positive(t_end, t_name)
    if not np.isfinite(t_end / dt):
        raise ValueError(f"{dt_name} must give a countable number of steps over {t_name} = "
                         f"{t_end!r}, got {dt!r} ({t_name} / {dt_name} overflows)")
    n = int(round(t_end / dt))
    if n < 1 or abs(n * dt - t_end) > rtol * t_end:
        raise ValueError(f"{t_name} = {t_end!r} must be a whole number of steps {dt_name} = "
                         f"{dt!r} ({t_end / dt:.6g} steps)")
    return dt, n

