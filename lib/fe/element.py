"""Reference elements: the shape functions of the T3 and T6 triangles.

ELEMENTS                       ("T3", "T6")
shape_functions(element, xi)   values N (n_q, n_en) and reference gradients dN (n_q, n_en, 2)

Node order: corners (0,0), (1,0), (0,1) counter-clockwise, then (T6) the mid-sides of
edges 1-2, 2-3, 3-1.

>>> N, dN = shape_functions("T6", np.array([[0.25, 0.25]]))
>>> round(float(N.sum()), 12), float(abs(dN.sum(axis=1)).max())   # a partition of unity
(1.0, 0.0)
"""
from __future__ import annotations

import numpy as np

from ..core import checks

__all__ = ["ELEMENTS", "shape_functions"]

ELEMENTS = ("T3", "T6")


def shape_functions(element, xi):
    """Shape functions N (n_q, n_en) and reference gradients dN (n_q, n_en, 2) at ``xi``.

    ``element`` is "T3" or "T6"; ``xi`` (n_q, 2) reference coordinates (any finite
    points: the polynomials extend outside the reference triangle).
    """
    checks.choice(element, "element", ELEMENTS)
    xi = checks.array(xi, "xi", shape=(None, 2))
    s, t = xi[:, 0], xi[:, 1]
    L1, L2, L3 = 1 - s - t, s, t
    one, zero = np.ones_like(s), np.zeros_like(s)
    if element == "T3":
        N = np.stack([L1, L2, L3], 1)
        dN = np.stack([np.stack([-one, -one], 1), np.stack([one, zero], 1),
                       np.stack([zero, one], 1)], 1)
        return N, dN
    # T6: corners L_i(2L_i - 1), mid-sides 4 L_i L_j; dL/d(s,t) = (-1,-1), (1,0), (0,1)
    dL = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    Ls = np.stack([L1, L2, L3], 1)
    N = np.concatenate([Ls * (2 * Ls - 1),
                        4 * np.stack([L1 * L2, L2 * L3, L3 * L1], 1)], 1)
    dcorner = (4 * Ls - 1)[:, :, None] * dL[None]
    pairs = ((0, 1), (1, 2), (2, 0))
    dmid = np.stack([4 * (Ls[:, i, None] * dL[j] + Ls[:, j, None] * dL[i])
                     for i, j in pairs], 1)
    return N, np.concatenate([dcorner, dmid], 1)
