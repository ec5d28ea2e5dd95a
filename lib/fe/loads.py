"""Consistent nodal loads on the faces of the rectangle.

face_traction_load(space, side, traction)   a uniform traction on a face
tip_shear_load(space, total)                a uniform shear of resultant -total on X = length
face_pressure_load(space, side, x_range)    a unit (dead) pressure on part of the top or bottom face
"""
from __future__ import annotations

import numpy as np

from ..core import checks
from .assembly import check_space
from .mesh import SIDES, edge_weights

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
    check_space(model)
    checks.choice(side, "side", SIDES)
    t = checks.vector(traction, "traction", 2)
    idx, wts = edge_weights(model.mesh, side)
    f = np.zeros(model.n_dofs)
    f[2 * idx] = t[0] * wts
    f[2 * idx + 1] = t[1] * wts
    return f


def tip_shear_load(model, total=1.0):
    """Uniform shear traction on X = length with resultant ``-total`` in y (consistent loads).

    ``total`` any finite number (negative pushes up, 0 gives no load).
    """
    check_space(model)
    total = checks.real(total, "total")
    return face_traction_load(model, "right", (0.0, -total / model.mesh.height))


def face_pressure_load(model, side="top", x_range=(-np.inf, np.inf)):
    """Consistent nodal loads of a unit pressure pushing into the body on a face.

    The pressure acts on the part ``x_range`` of the ``side`` face ("top" or
    "bottom"), along the inward normal (a dead load: the reference normal).
    Its transpose ``B = g^T`` maps ``u`` to the volume gained by a chamber
    sitting on that face, so ``p`` is the multiplier of a chamber-volume constraint.
    """
    check_space(model)
    checks.choice(side, "side", ("top", "bottom"))
    x_range = checks.vector(x_range, "x_range", 2, finite=False)
    if not x_range[0] < x_range[1]:
        raise ValueError(f"x_range must be an interval (lo < hi), got {checks.show(x_range)}")
    idx, wts = edge_weights(model.mesh, side, *x_range)
    if not wts.any():
        raise ValueError(f"x_range must cover at least one edge of the {side} face, got "
                         f"{checks.show(x_range)}")
    f = np.zeros(model.n_dofs)
    f[2 * idx + 1] = -wts if side == "top" else wts
    return f
