"""The finite-element kit: reference elements, mesh, space, assembly, loads, locking diagnostics.

Public within ``lib`` (imports only :mod:`lib.core`); :mod:`lib.fem` (the neo-Hookean
solid) and :mod:`lib.incompressible` (rubber models, mixed elements) are built on it.
The split follows scikit-fem's (element, mesh, assembly with its basis).

Array layout: ``mesh.nodes`` (n_nodes, 2) reference coordinates; ``mesh.elements``
(n_el, n_en) node numbers, counter-clockwise corners first, then the mid-sides of edges
1-2, 2-3, 3-1 (T6); a displacement ``u`` (2 n_nodes,) interleaves ``u_x, u_y`` of each
node; ``space.free`` indexes the unconstrained dofs.

element    ELEMENTS, shape_functions
mesh       Mesh, rectangle_mesh, clamped_dofs, face_nodes, edge_weights, check_mesh_args,
           check_mesh
assembly   Space, make_space, deformation_gradient, admissible, pattern, coo_indices,
           assemble_matrix, assemble_vector, condense, expand, check_clamped, check_space,
           check_u, solve_path, roundoff_floor, ConvergenceError
loads      face_traction_load, tip_shear_load, face_pressure_load
cavity     (module lib.fe.cavity, not re-exported) CavityMesh, cavity_mesh, Cavity,
           make_cavity, cavity_volume, volume_gradient, volume_hessian, cavity_load,
           load_resultant: closed cavities cut out of the structured mesh
locking    DivergenceCount, divergence_matrix, divergence_free_dimension, vector_laplacian,
           taylor_hood_blocks, inf_sup_constants, inf_sup_lanczos
"""
from . import cavity  # noqa: F401  (lib.fe.cavity; its names stay in their module)
from .assembly import (ConvergenceError, Space, admissible, assemble_matrix, assemble_vector,
                       check_clamped, check_space, check_u, condense, coo_indices,
                       deformation_gradient, expand, make_space, pattern, roundoff_floor,
                       solve_path)
from .element import ELEMENTS, shape_functions
from .loads import face_pressure_load, face_traction_load, tip_shear_load
from .locking import (DivergenceCount, divergence_free_dimension, divergence_matrix,
                      inf_sup_constants, inf_sup_lanczos, taylor_hood_blocks,
                      vector_laplacian)
from .mesh import (Mesh, check_mesh, check_mesh_args, clamped_dofs, edge_weights, face_nodes,
                   rectangle_mesh)

__all__ = ["ELEMENTS", "shape_functions",
           "Mesh", "rectangle_mesh", "clamped_dofs", "face_nodes", "edge_weights", "check_mesh_args",
           "check_mesh",
           "Space", "make_space", "deformation_gradient", "admissible",
           "pattern", "coo_indices", "assemble_matrix", "assemble_vector", "condense", "expand",
           "check_clamped", "check_space", "check_u", "solve_path", "roundoff_floor", "ConvergenceError",
           "face_traction_load", "tip_shear_load", "face_pressure_load",
           "DivergenceCount", "divergence_matrix", "divergence_free_dimension", "vector_laplacian",
           "taylor_hood_blocks", "inf_sup_constants", "inf_sup_lanczos"]
