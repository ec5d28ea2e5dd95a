"""Convergence orders and Richardson extrapolation (imports only lib.core.checks).

observed_order(e_coarse, e_fine, ratio)   p = log(e_coarse / e_fine) / log(ratio)
richardson(coarse, fine, p, ratio)        the limit of a sequence converging at order p
"""
from __future__ import annotations

import numpy as np

from . import checks

__all__ = ["observed_order", "richardson"]


def observed_order(e_coarse, e_fine, ratio=2.0):
    r"""Observed convergence order ``p = log(e_coarse / e_fine) / log(ratio)``.

    >>> observed_order(4e-3, 1e-3)
    2.0
    """
    e_coarse = checks.real(e_coarse, "e_coarse")
    e_fine = checks.real(e_fine, "e_fine")
    ratio = checks.real(ratio, "ratio", 1.0, include_low=False)
    if e_coarse == 0 or e_fine == 0:
        raise ValueError(f"e_coarse and e_fine must be nonzero errors, got {e_coarse!r} and {e_fine!r}")
    return float(np.log(abs(e_coarse) / abs(e_fine)) / np.log(ratio))


def richardson(coarse, fine, p, ratio=2.0):
    r"""Richardson extrapolation ``(r^p f - c) / (r^p - 1)`` of a sequence converging at order ``p``.

    >>> float(richardson(3.0, 2.0, 1))     # errors 2 and 1 at order 1: the limit is 1
    1.0
    """
    coarse, fine = checks.array(coarse, "coarse"), checks.array(fine, "fine")
    if coarse.shape != fine.shape:
        raise ValueError(f"coarse and fine must have one shape, got {coarse.shape} and {fine.shape}")
    f = checks.real(ratio, "ratio", 1.0, include_low=False) ** checks.positive(p, "p")
    return (f * fine - coarse) / (f - 1.0)
