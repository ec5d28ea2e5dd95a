"""Compiled kernels (numba) for the rod models, and the one switch that turns them off.

The faces :mod:`lib.rod` and :mod:`lib.rod3d` teach their physics in readable NumPy.
Where the book runs those models many times (a gradient per Newton iteration, a force
evaluation per explicit step, thousands of steps), the same arithmetic is also written
here as numba kernels, element by element.  The NumPy code stays the reference:
``tests/test_kernels.py`` checks every kernel against its NumPy twin to round-off
(gradients, banded Hessians against ``rod.hessian(...).toarray()``, trajectories over
many steps, several N, with loads and gravity).

Modules
-------
* ``lib.kernels.planar``: the planar rod of :mod:`lib.rod` -- energy, gradient, the
  Hessian straight into LAPACK banded storage, velocity Verlet over many steps, and
  implicit Newmark over many steps (its Newton solves with the line-search fallback,
  the banded tangent by banded Cholesky), with an energy bound that ends a run;
* ``lib.kernels.spatial``: the 3-D rod of :mod:`lib.rod3d` -- internal forces and
  torques, the Lie-group position Verlet over many steps;
* ``lib.kernels.pcc``: the PCC equations of motion of :mod:`lib.pcc` (mass matrix, forces
  and their Cholesky solve per right-hand side of ``solve_ivp``);
* ``lib.kernels.contact``: the explicit penalty-contact loop of
  :func:`lib.contact.simulate_penalty` (rod forces, plane contact, smoothed anisotropic
  friction, muscle moments, damping), many steps per call;
* ``lib.kernels.banded``: :class:`~lib.kernels.banded.SymmetricBanded`, a symmetric
  banded matrix the implicit integrators factor by banded Cholesky (banded LU if it is
  not positive definite), and its rank-one update; NumPy / SciPy only (its product
  with a vector has the numba twin ``lib.kernels.bandops.sym_matvec``).

The compiled modules import nothing from ``lib`` (they take arrays and floats), so the
faces can call them; importing :mod:`lib.kernels` itself does not import numba.

The switch
----------
* environment: ``LIB_KERNELS=0`` (also ``false``, ``off``, ``no``) before Python starts
  turns every kernel off; unset or ``1`` leaves them on;
* in code: ``with lib.kernels.disabled(): ...`` (or :func:`set_enabled`) for a block;
* per call: the keyword ``kernels=False`` (``True`` forces them on; the default
  ``None`` follows the two switches above) of :func:`lib.rod.gradient`,
  :func:`lib.rod.banded_hessian`, :func:`lib.rod.verlet`, :func:`lib.rod.newmark`,
  :func:`lib.rod3d.gradient`, :func:`lib.rod3d.lie_verlet`, :func:`lib.pcc.accel`,
  :func:`lib.pcc.ode`, :func:`lib.pcc.simulate` and :func:`lib.contact.simulate_penalty`.

With the kernels off every face runs exactly its NumPy code, the code the chapters
print.  If numba cannot be imported the kernels are off (with one warning).

The compile cache
-----------------
Every kernel is compiled with ``cache=True``.  numba writes the machine code next to
the source, in ``lib/kernels/__pycache__/`` (ignored by git through ``__pycache__/``
in ``.gitignore``), keyed by the source file and the CPU.  A fresh clone (or CI)
compiles each kernel once, on its first call (about 10-20 s in all on 2 cores, and 8 s
more for the implicit Newmark run of ``planar``, measured with an empty cache); every
later process loads it from the cache (the first call then costs milliseconds).
Where the source tree is read-only numba falls back to its user-wide cache; set
``NUMBA_CACHE_DIR`` to choose the directory (CI can keep it between runs).  Editing a
kernel's file invalidates that file's cache.  numba 0.68 stamps the cache with a hash
of the source file's content, not its modification time, so a fresh checkout of the
same commit (new file times) still finds it; under ``NUMBA_CACHE_DIR`` the entries
are filed by the full path of the kernels' directory, so a CI cache is reused only
by checkouts at the same path.  On a fresh ``git clone`` the first process compiles (the time
above) and the next ones load: ``make bench``'s cold start (a fresh interpreter,
import, a 3-D Lie-Verlet, a planar Verlet and a Newmark step) then stays within its
2 s target; with ``NUMBA_CACHE_DIR`` set the same holds, also after the checkout is
deleted and cloned again at the same path.

Examples
--------
>>> from lib import kernels
>>> with kernels.disabled():
...     kernels.enabled()
False
>>> kernels.use(False)
False
"""
from __future__ import annotations

import contextlib
import os
import warnings

__all__ = ["enabled", "set_enabled", "disabled", "use", "available"]

_OFF = ("0", "false", "off", "no")
_ON = ("", "1", "true", "on", "yes")


def _from_environment():
    raw = os.environ.get("LIB_KERNELS", "1").strip().lower()
    if raw in _OFF:
        return False
    if raw in _ON:
        return True
    raise ValueError(f"LIB_KERNELS must be 0 or 1 (or off / on), got {raw!r}")


_state = {"on": _from_environment(), "available": None}


def available():
    """True if numba can be imported (checked once; a warning if it cannot)."""
    if _state["available"] is None:
        try:
            import numba  # noqa: F401
        except ImportError as err:  # pragma: no cover - numba is pinned in requirements
            warnings.warn(f"lib.kernels: numba is not importable ({err}); the compiled "
                          "kernels are off and the NumPy code runs", RuntimeWarning,
                          stacklevel=2)
            _state["available"] = False
        else:
            _state["available"] = True
    return _state["available"]


def enabled():
    """True if the kernels are on: ``LIB_KERNELS`` and :func:`set_enabled` allow them
    and numba is importable."""
    return _state["on"] and available()


def set_enabled(flag):
    """Turn all kernels on or off for this process; returns the previous setting.

    Raises
    ------
    ValueError
        If ``flag`` is not a bool.
    """
    if not isinstance(flag, bool):
        raise ValueError(f"flag must be True or False, got {flag!r}")
    previous = _state["on"]
    _state["on"] = flag
    return previous


@contextlib.contextmanager
def disabled():
    """Context manager: the NumPy path inside the block, the previous setting after it."""
    previous = set_enabled(False)
    try:
        yield
    finally:
        set_enabled(previous)


def __getattr__(name):
    """The compiled modules on first access (``lib.kernels.planar``, ``.spatial``), so that
    importing :mod:`lib.kernels` does not import numba."""
    if name in ("planar", "spatial", "banded", "bandops", "pcc", "contact"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def use(kernels=None):
    """Resolve a call's ``kernels`` keyword: None follows :func:`enabled`.

    ``True`` asks for the kernels (the NumPy path all the same, with a warning, if
    numba is missing); ``False`` the NumPy path.

    Raises
    ------
    ValueError
        If ``kernels`` is not None, True or False.
    """
    if kernels is None:
        return enabled()
    if kernels is True:
        return available()
    if kernels is False:
        return False
    raise ValueError(f"kernels must be None, True or False, got {kernels!r}")
