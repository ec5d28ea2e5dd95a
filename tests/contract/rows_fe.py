"""Contract rows of lib.fe, the finite-element kit (see framework.py): every public function.

Custom cases: a mesh with no elements (``no-elements``), a space given where a mesh is
wanted and an incompressible body where a space is wanted (``wrong-kind``), dof arrays
of floats, bools or the wrong rank.
"""
import numpy as np

from lib import fe
from lib import incompressible as inc

from .framework import (Call, Kind, array, between, choice, function, integer, model, positive,
                        real)

MODULE = "lib.fe"

EXEMPT = {}


def _mesh(element="T3"):
    return fe.rectangle_mesh(2, 1, element, 2.0, 1.0)


def _space(element="T3"):
    m = _mesh(element)
    return fe.make_space(m, fe.clamped_dofs(m))


def _body():
    return inc.cantilever(2, 1, "T6", inc.neo_hookean(1.0, 0.3))


def _no_elements(mesh):
    return fe.Mesh(mesh.nodes, mesh.elements[:0], mesh.element, mesh.nx, mesh.ny, mesh.length,
                   mesh.height, mesh.diagonal)


def MESH(position=None):
    """A mesh: None, a string, a space instead, and a mesh with no elements."""
    return Kind(dict(model(wrong=_space).cases, **{"no-elements": _no_elements}), position)


def SPACE(position=None):
    return model(position=position, wrong=_body)


def DOFS(position=None, skip=("short",)):
    """Integer index arrays (a shorter one is still valid): floats, NaN, bools, wrong rank."""
    return array(position=position, skip=skip)


def _u(space, seed=0, scale=0.01):
    return np.random.default_rng(seed).standard_normal(space.n_dofs) * scale


def _row(name, func, valid, args):
    return Call(f"fe.{name}", func, valid, args)


def _space_u():
    """(valid, kinds) of a call ``f(model, u)``."""
    def valid():
        s = _space()
        return (s, _u(s)), {}
    return valid, {"model": SPACE(0), "u": array(position=1)}


CALLS = [
    _row("shape_functions", fe.shape_functions,
         lambda: (("T6", np.array([[0.2, 0.3], [0.1, 0.1]])), {}),
         {"element": choice(position=0), "xi": array(position=1)}),
    _row("rectangle_mesh", fe.rectangle_mesh,
         lambda: ((2, 1), dict(element="T6", length=2.0, height=1.0, diagonal="\\")),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "element": choice(), "length": positive(), "height": positive(),
          "diagonal": choice()}),
    _row("check_mesh_args", fe.check_mesh_args, lambda: ((np.int64(2), 1, "T3"), {}),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "element": choice(position=2)}),
    _row("check_mesh", fe.check_mesh, lambda: ((_mesh(),), {}), {"mesh": MESH(0)}),
    _row("clamped_dofs", fe.clamped_dofs, lambda: ((_mesh(),), dict(x=2.0)),
         {"mesh": MESH(0), "x": Kind(dict(real().cases, **{"no-face": lambda v: 0.5}))}),
    _row("face_nodes", fe.face_nodes, lambda: ((_mesh("T6"), "top"), {}),
         {"mesh": MESH(0), "side": choice(position=1)}),
    _row("edge_weights", fe.edge_weights, lambda: ((_mesh("T6"), "bottom"), dict(lo=0.0, hi=1.0)),
         {"mesh": MESH(0), "side": choice(position=1), "lo": real(inf=True),
          "hi": real(inf=True)}),
    _row("make_space", fe.make_space, lambda: ((_mesh(),), dict(fixed=[0, 1, 6])),
         {"mesh": MESH(0), "fixed": Kind(dict(DOFS(skip=("short", "None")).cases,
                                              **{"out-of-range": lambda v: [0, 10**6]}))}),
    _row("deformation_gradient", fe.deformation_gradient, *_space_u()),
    _row("admissible", fe.admissible, *_space_u()),
    _row("check_u", fe.check_u, *_space_u()),
    _row("check_space", fe.check_space, lambda: ((_space(),), {}), {"model": SPACE(0)}),
    _row("check_clamped", fe.check_clamped, lambda: ((_space(),), {}),
         {"model": Kind(dict(SPACE().cases, unclamped=lambda v: fe.make_space(_mesh())), 0)}),
    _row("pattern", fe.pattern, lambda: ((np.array([[0, 2], [1, 3]]), 4), {}),
         {"dofs": DOFS(0), "n": integer(low=1, position=1)}),
    _row("coo_indices", fe.coo_indices, lambda: ((np.array([[0, 1]]), np.array([[5]])), {}),
         {"row_dofs": DOFS(0), "col_dofs": DOFS(1)}),
    _row("assemble_matrix", fe.assemble_matrix,
         lambda: ((_space(), np.ones((4, 6, 6))), {}),
         {"model": SPACE(0), "Ke": array(position=1)}),
    _row("assemble_vector", fe.assemble_vector, lambda: ((_space(), np.ones((4, 6))), {}),
         {"model": SPACE(0), "fe": array(position=1)}),
    _row("condense", fe.condense, lambda: ((_space(),), dict(A=np.eye(12), b=np.ones(12))),
         {"model": SPACE(0), "A": array(skip=("None",)), "b": array(skip=("None",))}),
    _row("expand", fe.expand, lambda: ((_space(), np.ones(8)), {}),
         {"model": SPACE(0), "u_free": array(position=1)}),
    _row("roundoff_floor", fe.roundoff_floor, lambda: ((_space(), 3.0), {}),
         {"model": SPACE(0), "modulus": positive(position=1)}),
    _row("solve_path", fe.solve_path, lambda: ((lambda lam, x: (x, 1), 0.0, 2, "toy"), {}),
         {"solve_at": function(position=0), "steps": integer(low=1, position=2)}),
    _row("face_traction_load", fe.face_traction_load, lambda: ((_space(), "right", (0.0, -1.0)), {}),
         {"model": SPACE(0), "side": choice(position=1), "traction": array(position=2)}),
    _row("tip_shear_load", fe.tip_shear_load, lambda: ((_space("T6"),), dict(total=2.0)),
         {"model": SPACE(0), "total": real()}),
    _row("face_pressure_load", fe.face_pressure_load,
         lambda: ((_space("T6"),), dict(side="bottom", x_range=(0.0, 1.0))),
         {"model": SPACE(0), "side": choice(),
          "x_range": Kind(dict(array(skip=("inf", "None")).cases,
                               **{"reversed": lambda v: (1.0, 0.0),
                                  "no-edge": lambda v: (0.2, 0.3)}))}),
    _row("divergence_matrix", fe.divergence_matrix, lambda: ((_space(),), {}), {"model": SPACE(0)}),
    _row("divergence_free_dimension", fe.divergence_free_dimension,
         lambda: ((2, 1, "T3"), dict(rtol=1e-10)),
         {"nx": integer(low=1, position=0), "ny": integer(low=1, position=1),
          "element": choice(position=2), "rtol": between(0.0, 1.0)}),
    _row("vector_laplacian", fe.vector_laplacian, lambda: ((_space(),), dict(mu=2.0)),
         {"model": SPACE(0), "mu": positive(skip=("None",))}),
    _row("taylor_hood_blocks", fe.taylor_hood_blocks, lambda: ((_space("T6"),), dict(mu=2.0)),
         {"model": Kind(dict(SPACE().cases, T3=lambda v: _space("T3")), 0),
          "mu": positive(skip=("None",))}),
    _row("inf_sup_constants", fe.inf_sup_constants,
         lambda: ((_space("T6"),), dict(k=2, pressure="taylor-hood")),
         {"model": Kind(dict(SPACE().cases, unclamped=lambda v: fe.make_space(_mesh("T6"))), 0),
          "k": Kind(dict(integer(low=1).cases, above=lambda v: 10**6)),
          "pressure": choice()}),
    _row("inf_sup_lanczos", fe.inf_sup_lanczos,
         lambda: ((np.diag([2.0, 3.0, 4.0]), np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
                   np.eye(2)), {}),
         {"K": array(position=0), "B": array(position=1), "Mp": array(position=2)}),
]

MODELS = []
