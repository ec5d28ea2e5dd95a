"""Consistent nodal loads on the faces of the rectangle.

face_traction_load(space, side, traction)   a uniform traction on a face
tip_shear_load(space, total)                a uniform shear of resultant -total on X = length
face_pressure_load(space, side, x_range)    a unit (dead) pressure on part of the top or bottom face
"""
from __future__ import annotations

import numpy as np

from .mesh import edge_weights

__all__ = ["face_traction_load", "tip_shear_load", "face_pressure_load"]


def face_traction_load(model, side, traction):
    """Consistent nodal loads of a uniform traction ``(t_x, t_y)`` on a face of the rectangle.

    ``side`` is "left", "right", "top" or "bottom"; the traction is integrated
    exactly against the edge shape functions (linear edges ``(1/2, 1/2) l``,
    quadratic edges ``(1/6, 2/3, 1/6) l``).

    >>> from lib.fe import make_space, rectangle_mesh
    >>> f = face_traction_load(make_space(rectangle_mesh(2, 2, "T6", 2.0, 1.0)), "right", (0, -3))
    >>> round(float(f[1::2].sum()), 12)
    -3.0
    """
    t = np.asarray(traction, dtype=float)
    if t.shape != (2,):
        raise ValueError(f"traction must be a pair (t_x, t_y), got {traction!r}")
    idx, wts = edge_weights(model.mesh, side)
    f = np.zeros(model.n_dofs)
    f[2 * idx] = t[0] * wts
    f[2 * idx + 1] = t[1] * wts
    return f


def tip_shear_load(model, total=1.0):
    """Uniform shear traction on X = length with resultant ``-total`` in y (consistent loads)."""
    return face_traction_load(model, "right", (0.0, -total / model.mesh.height))


def face_pressure_load(model, side="top", x_range=(-np.inf, np.inf)):
    """Consistent nodal loads of a unit pressure pushing into the body on a face.

    The pressure acts on the part ``x_range`` of the ``side`` face ("top" or
    "bottom"), along the inward normal (a dead load: the reference normal).
    Its transpose ``B = g^T`` maps ``u`` to the volume gained by a chamber
    sitting on that face, so ``p`` is the multiplier of a chamber-volume constraint.
    """
    if side not in ("top", "bottom"):
        raise ValueError(f"side must be 'top' or 'bottom', got {side!r}")
    idx, wts = edge_weights(model.mesh, side, *x_range)
    f = np.zeros(model.n_dofs)
    f[2 * idx + 1] = -wts if side == "top" else wts
    return f
