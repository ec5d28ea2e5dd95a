"""Tracing helpers shared by the equivalence tests (see test_integrate.py's docstring)."""
import contextlib

import numpy as np

EPS = np.finfo(float).eps

# --------------------------------------------------------------------------------------
# tracing: the points at which a model function is evaluated
# --------------------------------------------------------------------------------------
def _snapshot(x):
    if isinstance(x, tuple):                      # rod3d State (x, Q)
        return np.concatenate([np.ravel(np.asarray(c, dtype=float)) for c in x])
    return np.array(x, dtype=float, copy=True).ravel()


@contextlib.contextmanager
def traced(monkeypatch, module, name, arg=1, keep=None):
    """Record argument ``arg`` of every call of ``module.name`` (a list of arrays)."""
    calls = []
    orig = getattr(module, name)

    def wrapper(*a, **k):
        if keep is None or keep(*a, **k):
            calls.append(_snapshot(a[arg]))
        return orig(*a, **k)

    with monkeypatch.context() as mp:
        mp.setattr(module, name, wrapper)
        yield calls


def assert_same_path(old, new, rtol=0.0):
    """Same number of evaluations, at the same points to round-off."""
    assert len(old) == len(new), f"{len(old)} evaluations in the old loop, {len(new)} now"
    for k, (a, b) in enumerate(zip(old, new)):
        scale = max(1.0, float(np.abs(a).max()))
        assert np.abs(a - b).max() <= rtol * scale, (
            f"evaluation {k} differs by {np.abs(a - b).max() / scale:.3g} (relative)")


def assert_round_off(a, b, rtol=0.0):
    a, b = _snapshot(a), _snapshot(b)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= rtol * max(1.0, float(np.abs(a).max()))


def fem_floor(model):
    gsum = np.abs(model.G).sum(axis=3) * model.w[:, :, None]
    node_scale = np.bincount(model.mesh.elements.ravel(), weights=gsum.sum(1).ravel())
    return 64 * EPS * (2 * model.mu + model.lam) * float(node_scale.max())


# lib.crosscheck._common's helpers as they were, used by the old crosscheck loops
def check_count(n, name, minimum=1):          # lib.crosscheck._common's, as it was
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def newton_step(solve, where):                 # lib.crosscheck._common's, as it was
    import warnings

    import scipy.linalg as sla
    import scipy.sparse.linalg as spla

    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            step = solve()
        except (spla.MatrixRankWarning, RuntimeError, sla.LinAlgError) as exc:
            raise RuntimeError(f"{where}: the tangent matrix is singular ({exc})") from None
    if not np.all(np.isfinite(step)):
        raise RuntimeError(f"{where}: the Newton step is not finite (singular tangent)")
    return step
