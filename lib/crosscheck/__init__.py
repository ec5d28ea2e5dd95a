r"""Every adapter to another code, and independent references.  Faces never import it.

Every adapter here builds the *same* nondimensional cantilever as :mod:`lib.rod`
(length L = 1, bending stiffness EI = 1, mass per length rhoA = 1, clamped at
the origin, axis along +x, bending in the x-y plane) in another code, and reads
back what that code computes.  Nothing is copied from the other codes: they run.

MuJoCo 3.17 (``mujoco.elasticity.cable`` plugin), :mod:`lib.crosscheck.mujoco`
    :func:`cable_xml`, :func:`cable_frequencies`.  The composite cable is a chain
    of capsule bodies joined by ball joints; the plugin puts a bending spring
    ``E I / ell`` between consecutive bodies (``I = pi r^4 / 4`` from the capsule
    radius, ``ell`` the distance between body frames).  The first body is welded
    to its parent with no spring (``initial="none"``): a rigid first segment.
    ``clamp_stiffness=c`` gives the first body a ball joint with a spring
    ``c EI / ell`` instead.  Frequencies come from the linearisation
    ``mjd_transitionFD`` (in-plane block, see :func:`cable_frequencies`).
PyElastica 1.0 (a 3-D Cosserat rod on a staggered grid), :mod:`lib.crosscheck.elastica`
    :func:`elastica_parameters`, :func:`elastica_rod`, :func:`elastica_stiffness`,
    :func:`elastica_frequencies`, :func:`elastica_static_tip`.  Positions live on
    the N + 1 nodes, directors on the N elements, curvature and bending couple on
    the N - 1 interior (Voronoi) nodes; ``OneEndFixedBC`` fixes node 0 and the
    director of element 0.  Beside :mod:`lib.rod3d`: :func:`elastica_rod3d`,
    :func:`elastica_state`, :func:`elastica_linearisation3d`,
    :func:`elastica_frequencies3d`, :func:`elastica_system`, :func:`elastica_run`.
lib's rod with the same clamp as PyElastica (in :mod:`lib.crosscheck.elastica`)
    :func:`rigid_clamp_hessian`, :func:`rigid_clamp_frequencies`,
    :func:`rigid_clamp_static`: the angle of element 0 held at zero instead of the
    half-element clamp spring ``2 EI phi_0 / ell`` of :mod:`lib.rod`.
scikit-fem 12 (plane-strain neo-Hookean, P1/P2), :mod:`lib.crosscheck.skfem`
    :func:`skfem_basis`, :func:`skfem_forms`, :func:`skfem_static`,
    :func:`skfem_linear`, :func:`skfem_cantilever`.  The energy, residual and
    tangent of :mod:`lib.fem` written as scikit-fem forms on the same mesh;
    :func:`skfem_mixed_tip` and :data:`SKFEM_REFERENCE`, the u-p Taylor-Hood problem
    of :mod:`lib.incompressible` on its mesh; :func:`skfem_rubber_tip`, the same problem
    for all four rubber laws on scikit-fem's own mesh, clamp and load.
Independent references, :mod:`lib.crosscheck.references`
    :func:`timoshenko_omegas_transfer` (Timoshenko cantilever by the exact
    transfer matrix, no ``solve_bvp``) and :func:`pcc_ritz_exact` (PCC
    Rayleigh-Ritz matrices by closed-form integrals, no quadrature);
    :func:`observed_order` and :func:`richardson` (from :mod:`lib.core.convergence`).

Array layout
------------
Planar rod states use :mod:`lib.rod`'s layout ``q = [phi_e, x_{e+1}, y_{e+1}]``,
e = 0..N-1 (length 3N).  A *rigid-clamp* vector drops ``phi_0``: length 3N - 1,
``[x_1, y_1, phi_1, x_2, y_2, ..., phi_{N-1}, x_N, y_N]``.  FEM vectors use
:mod:`lib.fem`'s interleaved node layout ``u[2a], u[2a+1]``.

The heavy imports (``mujoco``, ``elastica``, ``skfem``) happen inside the
functions that need them; importing this package is cheap.

References
----------
MuJoCo documentation, *Modeling: cables* and ``plugin/elasticity/cable.cc``;
Gazzola et al. (2018), Forward and inverse problems in the mechanics of soft
filaments, R. Soc. Open Sci. 5:171628 (PyElastica's discretisation); Gustafsson
& McBain (2020), scikit-fem, JOSS 5(52):2369.

Examples
--------
>>> import numpy as np, lib.crosscheck as cc
>>> round(float(cc.cable_frequencies(10)[0]), 3)          # MuJoCo, 10 segments
3.905
>>> bool(np.isclose(cc.timoshenko_omegas_transfer(1, 0.04)[0], 3.50195, atol=5e-6))
True
"""
from ..core.convergence import observed_order, richardson
from . import contact  # noqa: F401  (the contact chapter's cases: lib.crosscheck.contact)
from .elastica import (ELASTICA_SHEAR_COEFFICIENT, elastica_frequencies, elastica_frequencies3d,
                       elastica_linearisation, elastica_linearisation3d, elastica_parameters,
                       elastica_rod, elastica_rod3d, elastica_run, elastica_state,
                       elastica_static_tip, elastica_stiffness, elastica_system,
                       rigid_clamp_frequencies, rigid_clamp_hessian, rigid_clamp_static)
from .mujoco import cable_frequencies, cable_xml
from .references import pcc_ritz_exact, timoshenko_omegas_transfer
from .skfem import (SKFEM_REFERENCE, skfem_basis, skfem_cantilever, skfem_forms, skfem_linear,
                    skfem_mixed_tip, skfem_rubber_tip, skfem_static)

__all__ = [
    "cable_xml", "cable_frequencies",
    "elastica_parameters", "elastica_rod", "elastica_stiffness", "elastica_linearisation",
    "elastica_frequencies",
    "elastica_static_tip", "ELASTICA_SHEAR_COEFFICIENT",
    "rigid_clamp_hessian", "rigid_clamp_frequencies", "rigid_clamp_static",
    "elastica_rod3d", "elastica_state", "elastica_linearisation3d", "elastica_frequencies3d",
    "elastica_system", "elastica_run",
    "skfem_basis", "skfem_forms", "skfem_static", "skfem_linear", "skfem_cantilever",
    "skfem_mixed_tip", "skfem_rubber_tip", "SKFEM_REFERENCE",
    "timoshenko_omegas_transfer", "pcc_ritz_exact", "observed_order", "richardson",
]
