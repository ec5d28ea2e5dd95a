"""The structured triangle mesh of a rectangle, its faces and their edge weights.

Mesh, rectangle_mesh(nx, ny, element, length, height, diagonal)   the mesh
clamped_dofs(mesh, x)             both dofs of every node on the face X = x
face_nodes(mesh, side)            the nodes of a face, sorted along it
edge_weights(mesh, side, lo, hi)  the consistent weights int N_a ds of a face's nodes
check_mesh_args(nx, ny, element)  the argument check of rectangle_mesh
check_mesh(mesh, name)            a Mesh with at least one element (else ValueError naming it)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import checks
from .element import ELEMENTS

__all__ = ["Mesh", "rectangle_mesh", "clamped_dofs", "face_nodes", "edge_weights",
           "check_mesh_args", "check_mesh"]

SIDES = ("right", "left", "top", "bottom")


@dataclass(frozen=True, eq=False)
class Mesh:
    """A structured triangle mesh of the rectangle ``[0, length] x [-height/2, height/2]``.

    Attributes
    ----------
    nodes : (n_nodes, 2) reference coordinates.
    elements : (n_el, 3) for T3 or (n_el, 6) for T6, counter-clockwise.
    element : "T3" or "T6".
    nx, ny : number of cells along x and y.
    length, height : the rectangle's sides.
    diagonal : "/" (every cell cut from lower-left to upper-right) or "\\".
    """

    nodes: np.ndarray
    elements: np.ndarray
    element: str
    nx: int
    ny: int
    length: float
    height: float
    diagonal: str


def check_mesh_args(nx, ny, element):
    """``(nx, ny, element)`` checked: integers >= 1 and one of :data:`ELEMENTS` (else ValueError).

    >>> check_mesh_args(np.int64(2), 1, "T6")
    (2, 1, 'T6')
    """
    return (checks.integer(nx, "nx", low=1), checks.integer(ny, "ny", low=1),
            checks.choice(element, "element", ELEMENTS))


def check_mesh(mesh, name="mesh"):
    """``mesh`` as a :class:`Mesh` with at least one element, else a ValueError naming ``name``.

    >>> m = rectangle_mesh(1, 1)
    >>> check_mesh(Mesh(m.nodes, m.elements[:0], "T3", 1, 1, 10.0, 1.0, "/"))
    Traceback (most recent call last):
        ...
    ValueError: mesh must have at least one element, got elements of shape (0, 3)
    """
    checks.kind(mesh, name, Mesh, "a triangle mesh (lib.fe.Mesh, made by rectangle_mesh)")
    el, n_en = np.asarray(mesh.elements), 3 if mesh.element == "T3" else 6
    if el.ndim != 2 or el.shape[0] == 0 or el.shape[1] != n_en:
        raise ValueError(f"{name} must have at least one element, got elements of shape "
                         f"{el.shape}" + ("" if el.ndim == 2 and el.shape[0] == 0 else
                                          f" (a {mesh.element} mesh has {n_en} per element)"))
    if el.dtype.kind not in "iu" or el.min() < 0 or el.max() >= len(mesh.nodes):
        raise ValueError(f"{name} must number its element nodes 0..{len(mesh.nodes) - 1}")
    return mesh


def rectangle_mesh(nx, ny, element="T3", length=10.0, height=1.0, diagonal="/"):
    """Structured mesh of ``nx x ny`` cells, each cut along the same diagonal.

    Nodes lie on the grid ``X = i dx/p``, ``Y = -height/2 + j dy/p`` with ``p = 1``
    (T3) or ``p = 2`` (T6) and are numbered ``i (p ny + 1) + j`` (``j`` fastest).
    For T6 with diagonal cuts every grid point is a node: the mid-side node of a
    diagonal is the cell centre.

    Parameters
    ----------
    nx, ny : int >= 1
    element : "T3" or "T6"
    length, height : float > 0
    diagonal : "/" or "\\"

    Returns
    -------
    Mesh

    Examples
    --------
    >>> m = rectangle_mesh(2, 1, "T6")
    >>> m.nodes.shape, m.elements.shape
    ((15, 2), (4, 6))
    """
    nx, ny, element = check_mesh_args(nx, ny, element)
    length, height = checks.positive(length, "length"), checks.positive(height, "height")
    checks.choice(diagonal, "diagonal", ("/", "\\"))
    p = 1 if element == "T3" else 2
    mx, my = p * nx + 1, p * ny + 1
    X, Y = np.meshgrid(np.linspace(0, length, mx), np.linspace(-height / 2, height / 2, my),
                       indexing="ij")
    nodes = np.column_stack([X.ravel(), Y.ravel()])
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    i, j = p * i.ravel(), p * j.ravel()

    def nid(di, dj):
        return (i + di) * my + (j + dj)

    a, b, c, d = nid(0, 0), nid(p, 0), nid(p, p), nid(0, p)
    if diagonal == "/":
        tri = [(a, b, c), (a, c, d)]
    else:
        tri = [(a, b, d), (b, c, d)]
    corners = np.stack([np.stack(t, 1) for t in tri], 1).reshape(-1, 3)
    if p == 1:
        elements = corners
    else:
        # mid-side node of edge (m, n) on the doubled grid is the average grid index
        ij = np.stack([corners // my, corners % my], -1)
        mids = [(ij[:, m] + ij[:, n]) // 2 for m, n in ((0, 1), (1, 2), (2, 0))]
        mids = np.stack([q[:, 0] * my + q[:, 1] for q in mids], 1)
        elements = np.concatenate([corners, mids], 1)
    nodes.setflags(write=False)
    elements.setflags(write=False)
    return Mesh(nodes, elements, element, int(nx), int(ny), float(length), float(height),
                diagonal)


def clamped_dofs(mesh, x=0.0):
    """Both dofs of every node on the face ``X = x`` (a full clamp); ``x`` must be the X of
    a column of nodes (else ValueError)."""
    check_mesh(mesh)
    x = checks.real(x, "x")
    on = np.flatnonzero(np.isclose(mesh.nodes[:, 0], x))
    if on.size == 0:
        raise ValueError(f"x must be the X of a column of nodes (a face to clamp), got {x!r}")
    return np.sort(np.concatenate([2 * on, 2 * on + 1]))


def face_nodes(mesh, side):
    """The nodes of a face of the rectangle ("right", "left", "top", "bottom"), sorted along it."""
    check_mesh(mesh)
    checks.choice(side, "side", SIDES)
    return _face_nodes(mesh, side)


def _face_nodes(mesh, side):
    X, Y = mesh.nodes[:, 0], mesh.nodes[:, 1]
    sel = {"right": (np.isclose(X, mesh.length), Y), "left": (np.isclose(X, 0.0), Y),
           "top": (np.isclose(Y, mesh.height / 2), X),
           "bottom": (np.isclose(Y, -mesh.height / 2), X)}
    on, coord = sel[side]
    idx = np.flatnonzero(on)
    return idx[np.argsort(coord[idx])]


def edge_weights(mesh, side, lo=-np.inf, hi=np.inf):
    """Nodes of a face and the consistent weights ``int N_a ds`` over ``[lo, hi]``.

    ``lo, hi`` must fall on element edge ends.  Linear edges give ``(1/2, 1/2) l``,
    quadratic edges ``(1/6, 2/3, 1/6) l``.
    """
    check_mesh(mesh)
    checks.choice(side, "side", SIDES)
    lo, hi = checks.real(lo, "lo", inf=True), checks.real(hi, "hi", inf=True)
    idx = _face_nodes(mesh, side)
    s = mesh.nodes[idx, 1 if side in ("left", "right") else 0]
    p = 1 if mesh.element == "T3" else 2
    wts = np.zeros(idx.size)
    pattern = np.array([0.5, 0.5]) if p == 1 else np.array([1 / 6, 2 / 3, 1 / 6])
    for k in range(0, idx.size - 1, p):           # one face edge per step (short loop)
        a, b = s[k], s[k + p]
        if a >= lo - 1e-12 and b <= hi + 1e-12:
            wts[k:k + p + 1] += pattern * (b - a)
    return idx, wts
