"""Convergence orders and Richardson extrapolation (imports nothing from lib).

observed_order(e_coarse, e_fine, ratio)   p = log(e_coarse / e_fine) / log(ratio)
richardson(coarse, fine, p, ratio)        the limit of a sequence converging at order p
"""
from __future__ import annotations

import numpy as np

__all__ = ["observed_order", "richardson"]


def observed_order(e_coarse, e_fine, ratio=2.0):
    r"""Observed convergence order ``p = log(e_coarse / e_fine) / log(ratio)``.

    >>> observed_order(4e-3, 1e-3)
    2.0
    """
    return float(np.log(abs(e_coarse) / abs(e_fine)) / np.log(ratio))


def richardson(coarse, fine, p, ratio=2.0):
    r"""Richardson extrapolation ``(r^p f - c) / (r^p - 1)`` of a sequence converging at order ``p``.

    >>> float(richardson(3.0, 2.0, 1))     # errors 2 and 1 at order 1: the limit is 1
    1.0
    """
    f = ratio**p
    return (f * np.asarray(fine) - np.asarray(coarse)) / (f - 1.0)
