r"""Closed internal cavities: a structured mesh with holes, the cavity volume and its derivatives.

A PneuNet-like arm is the structured rectangle of :func:`lib.fe.rectangle_mesh` with
whole cells removed: each cavity is a grid-aligned rectangle strictly inside the body,
with at least one cell of wall between it and the outer boundary or another cavity.
The pressure ``p`` in a closed cavity is a follower load on its walls,

.. math::

    f_a = p \oint N_a\, \mathbf n\, ds = p\, (\mathbf C \mathbf x)_a,\qquad
    V(\mathbf x) = \tfrac12 \oint \mathbf x\cdot\mathbf n\, ds
                 = \tfrac12\,\mathbf x^{\top}\mathbf C\,\mathbf x,

with ``C = sum_edges sum_ab c_ab (e_a e_b^T) kron S``, ``c_ab = int_0^1 N_a N_b' dxi``,
``S = [[0, 1], [-1, 0]]`` (the open-face matrix of :func:`lib.actuation.make_chamber`,
here summed around a *closed* loop).  ``C - C^T`` has blocks ``(c_ab + c_ba) S =
[N_a N_b]_0^1 S``, which cancel at every node of a closed loop: ``C`` is symmetric, the
load ``p C x`` is the gradient of ``p V`` (conservative, potential ``-p V``), its
stiffness ``-p C`` is symmetric and constant, and the load is self-equilibrated
(``sum_a f_a = p oint n ds = 0``, ``sum_a x_a x f_a = -p oint d(|x|^2/2) = 0``).  On an
open run of edges the end terms survive: the load stiffness is unsymmetric there.

Array layout
------------
``mesh.nodes`` (n_nodes, 2), ``mesh.elements`` (n_el, n_en) as in :mod:`lib.fe.mesh`
(every node used by an element: the nodes inside a cavity are removed and the rest
renumbered); ``mesh.cavities`` (n_cav, 4) boxes ``(x0, x1, y0, y1)``;
``mesh.cells`` (n_cav, 4) the same in cell indices ``(i0, i1, j0, j1)`` (half-open);
``mesh.loops[k]`` (n_edges, p + 1) the node numbers of the cavity's wall edges, in
order around the cavity counter-clockwise (the cavity on the left, so ``V > 0``;
``p = 1`` for T3, 2 for T6, the mid-side node in the middle); ``u`` (2 n_nodes,)
interleaved ``u_x, u_y``; ``x = X + u`` the deformed positions.

Contents
--------
CavityMesh, cavity_mesh(nx, ny, cavities, element, length, height, diagonal)   the mesh
Cavity, make_cavity(model, index)         one cavity's wall loop and its matrix C
cavity_volume(model, cavity, u, method)   V two ways: "boundary" (1/2 oint x.n, Gauss on
                                          each edge) or "cells" (the area inside the ring
                                          of wall cells around it minus their deformed areas)
volume_gradient(model, cavity, u)         dV/dx = C x (the follower load per unit pressure)
volume_hessian(model, cavity)             d^2V/dx^2 = C (symmetric, constant)
cavity_load(model, cavity, u, pressure)   the follower load p C x
load_resultant(model, cavity, u, pressure)   its net force and moment about the origin
walls_cross(model, cavity, u)             whether the deformed wall loop crosses itself

Limitations
-----------
Self-contact is not modelled: nothing stops a wall from passing through another wall of
the same cavity (a top wall sucked in through a side wall under vacuum, a cavity drained
by volume control), and such a state can have no inverted element and a positive
volume.  :func:`walls_cross` detects it (the deformed loop is no longer a simple
polygon); the solvers of :mod:`lib.pneumatic` refuse such states.  Contact between
different cavities or with the outer boundary is not checked.

Examples
--------
>>> m = cavity_mesh(6, 4, [(1.0, 2.0, -0.5, 0.5)], "T6", length=3.0, height=2.0)
>>> from lib.fe import make_space
>>> s = make_space(m)
>>> c = make_cavity(s, 0)
>>> round(cavity_volume(s, c, np.zeros(s.n_dofs)), 12)          # 1 x 1
1.0
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..core import checks, quadrature
from .assembly import Space, check_space, check_u
from .element import shape_functions
from .mesh import Mesh, check_mesh, rectangle_mesh

__all__ = ["CavityMesh", "cavity_mesh", "Cavity", "make_cavity", "cavity_volume",
           "volume_gradient", "volume_hessian", "cavity_load", "load_resultant", "walls_cross"]

METHODS = ("boundary", "cells")


@dataclass(frozen=True, eq=False)
class CavityMesh(Mesh):
    """A structured rectangle mesh with closed rectangular cavities (cells removed).

    Attributes
    ----------
    nodes, elements, element, nx, ny, length, height, diagonal : those of :class:`Mesh`
        (``nx, ny`` the cells of the full grid, removed ones included).
    cavities : (n_cav, 4) boxes ``(x0, x1, y0, y1)`` of the cavities.
    cells : (n_cav, 4) int, the boxes in cell indices ``(i0, i1, j0, j1)`` (half-open).
    loops : tuple of (n_edges, p + 1) int arrays, each cavity's wall edges counter-clockwise
        around it (module docstring).
    """

    cavities: np.ndarray = field(default=None, repr=False)
    cells: np.ndarray = field(default=None, repr=False)
    loops: tuple = field(default=(), repr=False)


def _box_loop(i0, i1, j0, j1, p, my):
    """Grid-node numbers ``I my + J`` of the box's boundary as edges (n_e, p + 1),
    counter-clockwise (the box on the left), on the grid refined ``p`` times."""
    I0, I1, J0, J1 = p * i0, p * i1, p * j0, p * j1
    bottom = [(I, J0) for I in range(I0, I1)]
    right = [(I1, J) for J in range(J0, J1)]
    top = [(I, J1) for I in range(I1, I0, -1)]
    left = [(I0, J) for J in range(J1, J0, -1)]
    ring = np.array(bottom + right + top + left)
    ids = ring[:, 0] * my + ring[:, 1]
    k = np.arange(0, ids.size, p)
    return np.stack([ids[(k + s) % ids.size] for s in range(p + 1)], 1)


def _cell_boxes(cavities, nx, ny, length, height):
    """The cavities as cell-index boxes, checked (ValueError naming ``cavities``); a box
    within ``1e-9 max(nx, ny)`` cells of the grid lines is taken as on them."""
    c = checks.array(cavities, "cavities", shape=(None, 4))
    if c.shape[0] == 0:
        raise ValueError("cavities must hold at least one box (x0, x1, y0, y1), got none")
    dx, dy = length / nx, height / ny
    boxes = ["(" + ", ".join(f"{v:.4g}" for v in row) + ")" for row in c]
    for k, box in enumerate(boxes):       # outside the rectangle: no cell index to cast
        if not (0.0 < c[k, 0] and c[k, 1] < length and -height / 2 < c[k, 2]
                and c[k, 3] < height / 2):
            raise ValueError(f"cavities[{k}] = {box}: cavity not closed (it reaches the outer "
                             "boundary; leave at least one cell of wall)")
    idx = np.column_stack([c[:, 0] / dx, c[:, 1] / dx, (c[:, 2] + height / 2) / dy,
                           (c[:, 3] + height / 2) / dy])
    cells = np.rint(idx).astype(np.int64)
    for k, box in enumerate(boxes):
        if c[k, 0] < c[k, 1] and c[k, 2] < c[k, 3] and (cells[k, 0] == cells[k, 1]
                                                        or cells[k, 2] == cells[k, 3]):
            raise ValueError(f"cavities[{k}] = {box} must span at least one cell (cells of "
                             f"{dx:.6g} x {dy:.6g}: length / nx by height / ny), not snap "
                             f"onto a grid line")
        if not np.allclose(idx[k], cells[k], rtol=0, atol=1e-9 * max(nx, ny)):
            raise ValueError(f"cavities[{k}] = {box} must lie on the grid lines (cells of "
                             f"{dx:.6g} x {dy:.6g})")
        i0, i1, j0, j1 = cells[k]
        if not (i0 < i1 and j0 < j1):
            raise ValueError(f"cavities[{k}] = {box} must be a box with x0 < x1 and y0 < y1")
        if i0 < 1 or j0 < 1 or i1 > nx - 1 or j1 > ny - 1:
            raise ValueError(f"cavities[{k}] = {box}: cavity not closed (it reaches the outer "
                             "boundary; leave at least one cell of wall)")
        for m in range(k):
            a0, a1, b0, b1 = cells[m]
            if i0 <= a1 and a0 <= i1 and j0 <= b1 and b0 <= j1:
                raise ValueError(f"cavities[{k}] = {box} overlaps or touches cavities[{m}]: "
                                 "cavity not closed (leave at least one cell of wall "
                                 "between cavities)")
    return c, cells


def cavity_mesh(nx, ny, cavities, element="T3", length=10.0, height=1.0, diagonal="/"):
    """The structured mesh of :func:`lib.fe.rectangle_mesh` with closed cavities cut out.

    Every cell inside a cavity box is removed, the nodes no element uses are dropped and
    the rest renumbered in their grid order; each cavity's wall becomes a closed loop of
    edges (``mesh.loops``).

    Parameters
    ----------
    nx, ny : int >= 1, cells of the full grid
    cavities : (n_cav, 4) boxes ``(x0, x1, y0, y1)`` on grid lines, strictly inside the
        rectangle ``[0, length] x [-height/2, height/2]`` with at least one cell of wall
        to the boundary and between cavities (else ValueError: "cavity not closed").  A
        coordinate within ``1e-9 max(nx, ny)`` cells of a grid line (round-off, ``1/6``
        typed as a decimal) is snapped to it: ``mesh.cavities`` stores the grid
        coordinates (those of the mesh's nodes), never the value given; one further off
        is a ValueError ("must lie on the grid lines").
    element, length, height, diagonal : as :func:`lib.fe.rectangle_mesh`

    Returns
    -------
    CavityMesh

    Examples
    --------
    >>> m = cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T3", length=4.0)
    >>> m.nodes.shape, m.elements.shape, m.loops[0].shape        # 20 - 0 inner nodes
    ((20, 2), (20, 3), (6, 2))
    >>> float(cavity_mesh(4, 3, [(1.0 + 1e-10, 3.0, -1/6, 1/6)], length=4.0).cavities[0, 0])
    1.0
    >>> cavity_mesh(4, 3, [(0.0, 3.0, -1/6, 1/6)], length=4.0)
    Traceback (most recent call last):
        ...
    ValueError: cavities[0] = (0, 3, -0.1667, 0.1667): cavity not closed (it reaches the outer boundary; leave at least one cell of wall)
    """
    base = rectangle_mesh(nx, ny, element, length, height, diagonal)
    boxes, cells = _cell_boxes(cavities, base.nx, base.ny, base.length, base.height)
    i, j = np.meshgrid(np.arange(base.nx), np.arange(base.ny), indexing="ij")
    i, j = i.ravel(), j.ravel()                          # cell of element 2 c + t is c
    solid = np.ones(i.size, bool)
    for i0, i1, j0, j1 in cells:
        solid &= ~((i >= i0) & (i < i1) & (j >= j0) & (j < j1))
    el = base.elements[np.repeat(solid, 2)]
    used = np.unique(el)
    new = np.full(base.nodes.shape[0], -1, np.int64)
    new[used] = np.arange(used.size)
    p = 1 if base.element == "T3" else 2
    my = p * base.ny + 1
    loops = tuple(new[_box_loop(*c, p, my)] for c in cells)
    # store the boxes snapped to the grid: the coordinates of the mesh's own grid nodes
    gx = base.nodes[p * np.arange(base.nx + 1) * my, 0]
    gy = base.nodes[p * np.arange(base.ny + 1), 1]
    boxes = np.column_stack([gx[cells[:, 0]], gx[cells[:, 1]], gy[cells[:, 2]],
                             gy[cells[:, 3]]])
    nodes, elements = base.nodes[used], new[el]
    for a in (nodes, elements, boxes, cells) + loops:
        a.setflags(write=False)
    return CavityMesh(nodes, elements, base.element, base.nx, base.ny, base.length,
                      base.height, base.diagonal, cavities=boxes, cells=cells, loops=loops)


def _edge_c(p):
    """``c_ab = int_0^1 N_a N_b' dxi`` of a linear (p = 1) or quadratic (p = 2) edge
    (3-point Gauss: exact, the integrand is at most cubic)."""
    xi, w = quadrature.line(3)
    if p == 1:
        N = np.stack([1 - xi, xi])
        dN = np.stack([-np.ones_like(xi), np.ones_like(xi)])
    else:                                       # nodes at xi = 0, 1/2, 1
        N = np.stack([(1 - xi) * (1 - 2 * xi), 4 * xi * (1 - xi), xi * (2 * xi - 1)])
        dN = np.stack([4 * xi - 3, 4 - 8 * xi, 4 * xi - 1])
    return np.einsum("aq,bq,q->ab", N, dN, w)


def edge_matrix(edges, n_dofs, p):
    """``C = sum_edges sum_ab c_ab (e_a e_b^T) kron S`` (CSR, n_dofs x n_dofs) of a run of
    edges (n_edges, p + 1); symmetric when the run is a closed loop.  Unchecked kernel of
    :func:`make_cavity` (public within ``lib`` for tests comparing an open run)."""
    cab = _edge_c(p)
    ne, nen = edges.shape
    a = np.repeat(edges, nen, axis=1).ravel()
    b = np.tile(edges, (1, nen)).ravel()
    v = np.tile(cab.ravel(), ne)
    rows = np.concatenate([2 * a, 2 * a + 1])
    cols = np.concatenate([2 * b + 1, 2 * b])
    return sp.csr_matrix((np.concatenate([v, -v]), (rows, cols)), shape=(n_dofs, n_dofs))


@dataclass(frozen=True, eq=False)
class Cavity:
    """One closed cavity of a :class:`CavityMesh` (made by :func:`make_cavity`).

    Attributes
    ----------
    index : which of ``mesh.cavities``.
    edges : (n_edges, p + 1) the wall loop, counter-clockwise around the cavity.
    C : (n_dofs, n_dofs) CSR, ``V = x^T C x / 2``, load ``p C x`` (module docstring).
    ring : int array, the elements of the ring of wall cells around the cavity.
    ring_edges : (n_ring_edges, p + 1) the ring's outer loop, counter-clockwise.
    X : (n_edges, p + 1, 2) reference coordinates of the loop (a cavity is used only
        with a model of the same mesh: these must match).
    """

    index: int
    edges: np.ndarray
    C: sp.csr_matrix = field(repr=False)
    ring: np.ndarray = field(repr=False)
    ring_edges: np.ndarray = field(repr=False)
    X: np.ndarray = field(repr=False)


def _check_cavity_space(model, name="model"):
    check_space(model, name)
    mesh = model.mesh
    if not isinstance(mesh, CavityMesh) or not mesh.loops:
        raise ValueError(f"{name} must be built on a mesh with cavities (lib.fe.cavity."
                         f"cavity_mesh), got a {type(mesh).__name__} without any")
    return model


def make_cavity(model, index=0):
    """The wall loop of cavity ``index`` of ``model``'s mesh and its matrix ``C``.

    ``model`` is a :class:`lib.fe.Space` (a :class:`lib.fem.Model` is one) built on a
    :func:`cavity_mesh`.  ``C`` is assembled once; it does not depend on ``u``.

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T3", length=4.0))
    >>> c = make_cavity(s)
    >>> c.edges[:2].tolist(), float(abs(c.C - c.C.T).max()) < 1e-15     # closed: symmetric
    ([[5, 9], [9, 13]], True)
    """
    _check_cavity_space(model)
    mesh = model.mesh
    n_cav = len(mesh.loops)
    index = checks.integer(index, "index", low=0, high=n_cav - 1)
    p = 1 if mesh.element == "T3" else 2
    edges = mesh.loops[index]
    C = edge_matrix(edges, model.n_dofs, p)
    i0, i1, j0, j1 = mesh.cells[index]
    dx, dy = mesh.length / mesh.nx, mesh.height / mesh.ny
    cen = mesh.nodes[mesh.elements[:, :3]].mean(1)
    ci = np.floor(cen[:, 0] / dx).astype(np.int64)
    cj = np.floor((cen[:, 1] + mesh.height / 2) / dy).astype(np.int64)
    ring = np.flatnonzero((ci >= i0 - 1) & (ci < i1 + 1) & (cj >= j0 - 1) & (cj < j1 + 1))
    # the ring's outer loop, in the new numbering (every node on it is used by a ring cell)
    my = p * mesh.ny + 1
    old = _box_loop(i0 - 1, i1 + 1, j0 - 1, j1 + 1, p, my)
    grid = np.rint(np.column_stack([mesh.nodes[:, 0] / (dx / p),
                                    (mesh.nodes[:, 1] + mesh.height / 2) / (dy / p)])
                   ).astype(np.int64)
    lookup = np.full((p * mesh.nx + 1) * my, -1, np.int64)
    lookup[grid[:, 0] * my + grid[:, 1]] = np.arange(grid.shape[0])
    ring_edges = lookup[old]
    X = mesh.nodes[edges]
    for a in (edges, ring, ring_edges, X):
        a.setflags(write=False)
    return Cavity(int(index), edges, C, ring, ring_edges, X)


def _check(model, cavity):
    """The model and a cavity made on its mesh (ValueError naming ``cavity`` otherwise)."""
    _check_cavity_space(model)
    checks.kind(cavity, "cavity", Cavity, "a closed cavity (lib.fe.cavity.Cavity, made by "
                                          "make_cavity)")
    n = model.n_dofs
    if (cavity.C.shape != (n, n) or cavity.edges.max() >= model.mesh.nodes.shape[0]
            or not np.array_equal(model.mesh.nodes[cavity.edges], cavity.X)):
        raise ValueError("cavity was made on another mesh than model's (make it with "
                         "make_cavity(model, index))")
    return cavity


def _positions(model, u):
    return model.mesh.nodes + u.reshape(-1, 2)


def _boundary_volume(model, cavity, u):
    """``1/2 sum_edges sum_ab c_ab (x_a y_b - y_a x_b)`` edge by edge (not through C)."""
    xe = _positions(model, u)[cavity.edges]                       # [e, a, i]
    c = _edge_c(cavity.edges.shape[1] - 1)
    return 0.5 * float(np.einsum("ab,ea,eb->", c, xe[..., 0], xe[..., 1])
                       - np.einsum("ab,ea,eb->", c, xe[..., 1], xe[..., 0]))


def _loop_area(x, edges):
    """Area enclosed by a counter-clockwise loop of straight or quadratic edges: the
    shoelace of the chords plus, for quadratic edges, Archimedes' parabolic segments
    ``4/3`` of the triangle (x_0, x_mid, x_1) (signed: outward bulges add)."""
    a, b = x[edges[:, 0]], x[edges[:, -1]]
    area = 0.5 * float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    if edges.shape[1] == 3:
        m = x[edges[:, 1]]
        tri = 0.5 * ((m[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
                     - (m[:, 1] - a[:, 1]) * (b[:, 0] - a[:, 0]))
        area += 4.0 / 3.0 * float(np.sum(tri))
    return area


def _element_areas(mesh, x, elements):
    """Deformed areas ``int det(dx/dxi) dxi`` of elements (exact: degree 2 for T6)."""
    xi, w = quadrature.triangle(0 if mesh.element == "T3" else 2)
    _, dN = shape_functions(mesh.element, xi)                      # [q, a, k]
    J = np.einsum("eai,qak->eqik", x[mesh.elements[elements]], dN)
    det = J[..., 0, 0] * J[..., 1, 1] - J[..., 0, 1] * J[..., 1, 0]
    return det @ w


def cavity_volume(model, cavity, u, method="boundary"):
    r"""Volume (area per unit thickness, plane strain) of the cavity in the deformed state ``u``.

    ``"boundary"``: :math:`V = \tfrac12\oint \mathbf x\cdot\mathbf n\,ds` over the cavity
    walls with the edge interpolation (3-point Gauss on each edge: exact for straight and
    for quadratic edges).  ``"cells"``: the area enclosed by the outer loop of the ring of
    wall cells around the cavity (shoelace plus parabolic segments) minus the deformed
    areas of those cells (``int det F``, exact).  The two agree to round-off in any
    state where no element is inverted.

    Raises
    ------
    ValueError
        Naming ``model`` (not on a cavity mesh), ``cavity`` (made on another mesh),
        ``u`` (wrong length, not finite, or so large that the volume overflows) or
        ``method``.

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T6", length=4.0))
    >>> c = make_cavity(s)
    >>> u = 0.01 * np.sin(np.arange(s.n_dofs))
    >>> v1, v2 = cavity_volume(s, c, u), cavity_volume(s, c, u, method="cells")
    >>> round(v1, 6), abs(v1 - v2) < 1e-14
    (0.637926, True)
    """
    _check(model, cavity)
    u = check_u(model, u)
    boundary = checks.choice(method, "method", METHODS) == "boundary"
    with np.errstate(over="ignore", invalid="ignore"):     # an overflow is refused below
        if boundary:
            V = _boundary_volume(model, cavity, u)
        else:
            x = _positions(model, u)
            V = _loop_area(x, cavity.ring_edges) - float(
                _element_areas(model.mesh, x, cavity.ring).sum())
    if not np.isfinite(V):
        raise ValueError(f"u must keep the wall positions' products within floating point "
                         f"(the volume overflows), got max |u| = {np.abs(u).max():.3g}")
    return V


def volume_gradient(model, cavity, u):
    r"""``dV/du = C (X + u)``: the consistent nodal follower load of a unit pressure,
    ``int N_a n ds`` on the deformed walls (2 n_nodes,), zero off the wall nodes.

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T3", length=4.0))
    >>> g = volume_gradient(s, make_cavity(s), np.zeros(s.n_dofs))
    >>> round(float(g[1::2].clip(0).sum()), 12)           # the top wall's length
    2.0
    """
    _check(model, cavity)
    u = check_u(model, u)
    return cavity.C @ (model.mesh.nodes.ravel() + u)


def volume_hessian(model, cavity):
    """``d^2 V/du^2 = C`` (CSR, symmetric for the closed loop, constant in ``u``).

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T3", length=4.0))
    >>> H = volume_hessian(s, make_cavity(s))
    >>> H.shape, float(abs(H - H.T).max()) < 1e-15
    ((40, 40), True)
    """
    return _check(model, cavity).C.copy()


def cavity_load(model, cavity, u, pressure):
    r"""Follower load ``f = p C (X + u)`` of the gauge ``pressure`` in the cavity (2 n_nodes,).

    Pushes the walls out of the cavity for ``p > 0``; its stiffness ``-df/du = -p C`` is
    symmetric (``f`` is the gradient of ``p V``).

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T6", length=4.0))
    >>> f = cavity_load(s, make_cavity(s), np.zeros(s.n_dofs), 2.0)
    >>> round(float(abs(f.reshape(-1, 2).sum(0)).max()), 12)      # self-equilibrated
    0.0
    """
    g = volume_gradient(model, cavity, u)
    return checks.real(pressure, "pressure") * g


def load_resultant(model, cavity, u, pressure):
    """Net force ``(F_x, F_y)`` and moment ``M_z`` about the origin of :func:`cavity_load`
    in the deformed state (the moment arms are the deformed positions); (3,) array,
    zero to round-off for a closed cavity.

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T3", length=4.0))
    >>> r = load_resultant(s, make_cavity(s), 0.05 * np.cos(np.arange(s.n_dofs)), 1.0)
    >>> bool(abs(r).max() < 1e-14)
    True
    """
    f = cavity_load(model, cavity, u, pressure).reshape(-1, 2)
    x = _positions(model, checks.vector(u, "u", model.n_dofs))
    return np.array([f[:, 0].sum(), f[:, 1].sum(),
                     float(np.sum(x[:, 0] * f[:, 1] - x[:, 1] * f[:, 0]))])


def _polyline(model, cavity, u):
    """The deformed wall loop's nodes in loop order (straight edges: the loop itself)."""
    return _positions(model, u)[cavity.edges][:, 0]


def _bezier(model, cavity, u):
    """Each quadratic wall edge as its Bezier control points [e, (P0, P1, P2), 2]."""
    x = _positions(model, u)[cavity.edges]                       # start, mid, end
    return np.stack([x[:, 0], 2 * x[:, 1] - 0.5 * (x[:, 0] + x[:, 2]), x[:, 2]], 1)


def _cross2(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _in_cone(v, u1, u2):
    """Whether the ray v lies in the cone spanned by u1, u2 from the apex (boundary in)."""
    c = _cross2(u1, u2)
    scale = np.hypot(*u1.T) * np.hypot(*u2.T)
    flat = np.abs(c) <= 1e-12 * scale                            # a ray (a straight piece)
    s1, s2 = _cross2(u1, v), _cross2(v, u2)
    inside = (s1 * np.sign(c) >= 0) & (s2 * np.sign(c) >= 0)
    ray = (np.abs(s1) <= 1e-12 * np.hypot(*u1.T) * np.hypot(*v.T)) & (np.sum(u1 * v, -1) > 0)
    return np.where(flat, ray, inside)


def _cones_meet(A, B):
    """Pieces A, B (control points [..., 3, 2]) that both start at one point: whether
    their control triangles' cones from it overlap (if not, the curves, inside them,
    meet only there)."""
    a1, a2 = A[..., 1, :] - A[..., 0, :], A[..., 2, :] - A[..., 0, :]
    b1, b2 = B[..., 1, :] - B[..., 0, :], B[..., 2, :] - B[..., 0, :]
    a1 = np.where(np.all(a1 == 0, -1, keepdims=True), a2, a1)  # a degenerate control leg
    b1 = np.where(np.all(b1 == 0, -1, keepdims=True), b2, b1)
    return (_in_cone(b1, a1, a2) | _in_cone(b2, a1, a2) | _in_cone(a1, b1, b2)
            | _in_cone(a2, b1, b2))


def _boxes_meet(A, B):
    return np.all((A.min(-2) <= B.max(-2)) & (B.min(-2) <= A.max(-2)), -1)


def _halves(C):
    """de Casteljau at 1/2: the two halves of a quadratic Bezier piece."""
    m0, m1 = 0.5 * (C[0] + C[1]), 0.5 * (C[1] + C[2])
    mid = 0.5 * (m0 + m1)
    return np.array([C[0], m0, mid]), np.array([mid, m1, C[2]])


def _sag(C):
    return float(np.hypot(*(C[1] - 0.5 * (C[0] + C[2]))))


def _pieces_cross(A, B, shared, flat):
    """Whether Bezier pieces A and B cross; ``shared``: both start at the same point
    (a crossing there does not count).  Subdivision while their hulls meet, until both
    are within ``flat`` of their chords, which are then tested."""
    if not _boxes_meet(A, B) or (shared and not _cones_meet(A, B)):
        return False
    if _sag(A) <= flat and _sag(B) <= flat:
        return False if shared else polyline_crosses(np.array([A[0], A[2], B[2], B[0]]))
    A0, A1 = _halves(A)
    B0, B1 = _halves(B)
    return (_pieces_cross(A0, B0, shared, flat) or _pieces_cross(A0, B1, False, flat)
            or _pieces_cross(A1, B0, False, flat) or _pieces_cross(A1, B1, False, flat))


def _curved_loop_crosses(C, rtol=1e-6):
    """Whether the closed loop of quadratic Bezier edges C [e, 3, 2] (each edge ending
    where the next starts) is not simple.  Neighbouring edges are compared from their
    common node (reversing the first): their control triangles' cones from it tell most
    pairs apart at once; every other pair whose control boxes overlap, and every
    neighbour pair whose cones overlap, is subdivided until its pieces are within
    ``rtol`` times the mean edge length of their chords."""
    n = C.shape[0]
    flat = rtol * float(np.mean(np.hypot(*(C[:, 2] - C[:, 0]).T)))
    back = C[:, ::-1]                                             # edge i from its end
    nxt = np.roll(np.arange(n), -1)
    suspect = _cones_meet(back, C[nxt])
    for i in np.flatnonzero(suspect):
        if _pieces_cross(back[i], C[nxt[i]], True, flat):
            return True
    i, j = np.triu_indices(n, 2)
    far = ~((i == 0) & (j == n - 1))
    i, j = i[far], j[far]
    meet = _boxes_meet(C[i], C[j])
    return any(_pieces_cross(C[a], C[b], False, flat) for a, b in zip(i[meet], j[meet]))


def polyline_crosses(points):
    """Whether the closed polyline through ``points`` (n, 2), n >= 3, is not simple: two of
    its segments that are not neighbours cross (each strictly separates the other's
    end points).  Unchecked kernel of :func:`walls_cross` (public within ``lib`` for
    tests on hand-made polygons); vectorised over the segment pairs, O(n^2).

    >>> polyline_crosses(np.array([[0, 0], [1, 0], [1, 1], [0, 1]]))        # square
    False
    >>> polyline_crosses(np.array([[0, 0], [1, 1], [1, 0], [0, 1]]))        # bow tie
    True
    """
    a = np.asarray(points, dtype=float)
    b = np.roll(a, -1, axis=0)
    d = b - a                                                     # segment i: a_i -> b_i

    def side(pts):
        """[i, j]: the side of segment i that point j is on, sign of cross(d_i, p_j - a_i)."""
        r = pts[None, :, :] - a[:, None, :]
        return np.sign(d[:, None, 0] * r[..., 1] - d[:, None, 1] * r[..., 0])

    s_a, s_b = side(a), side(b)
    split = s_a * s_b < 0                             # segment i strictly separates j's ends
    cross = split & split.T
    n = a.shape[0]
    i, j = np.triu_indices(n, 2)
    keep = ~((i == 0) & (j == n - 1))                 # the first and last are neighbours
    return bool(np.any(cross[i[keep], j[keep]]))


def walls_cross(model, cavity, u):
    r"""Whether the cavity's deformed wall loop crosses itself (a wall passed through
    another): the walls would be in contact, which is not modelled.

    Straight edges are checked as a closed polyline (:func:`polyline_crosses`).
    Quadratic edges are checked as the curves they are (Bezier pieces subdivided while
    their control hulls overlap, to 1e-6 of an edge's length from their chords): two
    walls meeting at a cavity corner whose angle has closed can cross again a few per
    cent along both edges, which chords through the quarter points miss.  Neither an inverted element nor a negative
    volume is needed for a crossing: a top wall drawn through a side wall leaves both
    intact.

    Examples
    --------
    >>> from lib.fe import make_space
    >>> s = make_space(cavity_mesh(4, 3, [(1.0, 3.0, -1/6, 1/6)], "T6", length=4.0))
    >>> c = make_cavity(s)
    >>> walls_cross(s, c, np.zeros(s.n_dofs))
    False
    >>> X = s.mesh.nodes
    >>> top = np.unique(c.edges[np.isclose(X[c.edges, 1], 1/6).all(1)])
    >>> inner = top[(X[top, 0] > 1.0) & (X[top, 0] < 3.0)]
    >>> u = np.zeros(s.n_dofs)
    >>> u[2 * inner + 1] = -0.5                 # the top wall through the bottom wall
    >>> walls_cross(s, c, u)
    True
    """
    _check(model, cavity)
    u = check_u(model, u)
    if cavity.edges.shape[1] == 2:
        return polyline_crosses(_polyline(model, cavity, u))
    return _curved_loop_crosses(_bezier(model, cavity, u))
