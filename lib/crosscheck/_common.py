"""The argument checks, guarded Newton step and eigen-solve the adapters share."""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla


def check_count(n, name, minimum=1):
    """``int(n)`` if ``n`` is an integer >= ``minimum``, else a ValueError naming ``name``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def newton_step(solve, where):
    """One sparse Newton solve; a singular tangent is reported with ``where``.

    SciPy's ``spsolve`` warns (``MatrixRankWarning``) and returns NaN for a singular
    matrix; that warning never reaches the reader bare: it becomes a RuntimeError
    saying how far the Newton iteration got.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            step = solve()
        except (spla.MatrixRankWarning, RuntimeError, sla.LinAlgError) as exc:
            raise RuntimeError(f"{where}: the tangent matrix is singular ({exc})") from None
    if not np.all(np.isfinite(step)):
        raise RuntimeError(f"{where}: the Newton step is not finite (singular tangent)")
    return step


def generalised_eigvals(K, m, subset, caller):
    """Eigenvalues of ``K v = lam diag(m) v`` (``scipy.linalg.eigh``), errors named."""
    try:
        return sla.eigh(K, np.diag(m), eigvals_only=True, subset_by_index=subset)
    except sla.LinAlgError as exc:    # the mass is not positive definite, or LAPACK failed
        raise RuntimeError(f"{caller}: the generalised eigenproblem K v = omega^2 M v failed "
                           f"(min mass {float(np.min(m)):.3e}): {exc}") from None


def check_positive(x, name):
    """``float(x)`` if ``x`` is a finite number > 0, else a ValueError naming ``name``."""
    if not (isinstance(x, (int, float, np.floating)) and np.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {x!r}")
    return float(x)
