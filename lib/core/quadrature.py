"""Quadrature rules: the reference triangle and the unit interval (imports only lib.core.checks).

Public functions
----------------
triangle(degree)   symmetric rule on the triangle (0,0), (1,0), (0,1), exact to ``degree`` <= 4
line(n)            n-point Gauss-Legendre rule on [0, 1], exact to degree 2n - 1

References
----------
Dunavant (1985), High degree efficient symmetrical Gaussian quadrature rules for the
triangle, IJNME 21.

Examples
--------
>>> p, w = triangle(2)
>>> p.shape, float(w.sum())
((3, 2), 0.5)
>>> x, w = line(3)
>>> round(float(w @ x**5), 15)     # int_0^1 x^5 = 1/6
0.166666666666667
"""
from __future__ import annotations

import numpy as np

from . import checks

__all__ = ["triangle", "line"]


def triangle(degree):
    """Symmetric quadrature on the reference triangle (0,0),(1,0),(0,1), exact to ``degree``.

    Returns points (n_q, 2) and weights (n_q,) summing to the area 1/2.
    """
    degree = checks.integer(degree, "degree", 0, 4)
    if degree <= 1:
        return np.array([[1 / 3, 1 / 3]]), np.array([0.5])
    if degree == 2:
        p = np.array([[1 / 6, 1 / 6], [2 / 3, 1 / 6], [1 / 6, 2 / 3]])
        return p, np.full(3, 1 / 6)
    a, wa = 0.445948490915965, 0.223381589678011      # degree 3-4: Dunavant (1985), 6 points
    b, wb = 0.091576213509771, 0.109951743655322
    p = np.array([[a, a], [1 - 2 * a, a], [a, 1 - 2 * a],
                  [b, b], [1 - 2 * b, b], [b, 1 - 2 * b]])
    return p, 0.5 * np.array([wa, wa, wa, wb, wb, wb])


def line(n):
    """``n``-point Gauss-Legendre points (n,) and weights (n,) on [0, 1] (weights sum to 1)."""
    x, w = np.polynomial.legendre.leggauss(checks.integer(n, "n", 1))
    return (x + 1) / 2, w / 2
