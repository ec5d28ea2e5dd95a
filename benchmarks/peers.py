"""The same problems set up in the libraries a reader might pick instead of ``lib``.

* :func:`pyelastica_cantilever` -- the book's rod cantilever in PyElastica 1.0
  (a 3-D Cosserat rod on a staggered grid, position-Verlet stepper).
* :func:`skfem_neo_hookean` -- the plane-strain neo-Hookean internal force and
  tangent of :mod:`lib.fem`, written as scikit-fem forms on the same mesh.

Both are used by ``benchmarks/run.py`` to time one step / one assembly side by
side with ``lib``.  They are imported lazily (PyElastica compiles its numba
kernels on first use, about 15 s once, cached afterwards).
"""
from __future__ import annotations

import numpy as np


# --------------------------------------------------------------------------------------
# PyElastica: the rod cantilever
# --------------------------------------------------------------------------------------
def pyelastica_cantilever(N, r_over_L=0.04, nu=0.5, ks=0.9, tip_force=(0.0, -2.0)):
    """The book's cantilever (L = EI = rhoA = 1, circular section) as a PyElastica system.

    Young's modulus E = 1/I and density 1/A make EI = rhoA = 1; PyElastica fixes
    its shear coefficient at 27/28, so the shear modulus passed is
    ``ks G / (27/28)`` to give k_s G A = ks E A / (2 (1 + nu)) (750 for the
    r/L = 0.04 rod).  Node 0 and the director of element 0 are clamped; a dead
    tip force acts at the last node.  PyElastica's clamp fixes the whole first
    element, which is why it converges at first order (REPRODUCTION-NOTES).

    Returns
    -------
    (step, rod) : step(dt) advances the system by one position-Verlet step and
        returns the new time; rod is the PyElastica CosseratRod.
    """
    import elastica as ea

    class Cantilever(ea.BaseSystemCollection, ea.Constraints, ea.Forcing):
        pass

    L = 1.0
    r = r_over_L * L
    A, I = np.pi * r * r, np.pi * r**4 / 4
    E = 1.0 / I
    G = E / (2.0 * (1.0 + nu))
    system = Cantilever()
    rod = ea.CosseratRod.straight_rod(
        N, np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), L, r, 1.0 / A,
        youngs_modulus=E, shear_modulus=ks * G / (27.0 / 28.0))
    system.append(rod)
    system.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,),
                                constrained_director_idx=(0,))
    system.add_forcing_to(rod).using(ea.EndpointForces, np.zeros(3),
                                     np.array([tip_force[0], tip_force[1], 0.0]),
                                     ramp_up_time=1e-12)
    system.finalize()
    stepper = ea.PositionVerlet()
    state = {"t": np.float64(0.0)}

    def step(dt):
        state["t"] = stepper.step(system, state["t"], np.float64(dt))
        return state["t"]

    return step, rod


# --------------------------------------------------------------------------------------
# scikit-fem: plane-strain neo-Hookean force and tangent
# --------------------------------------------------------------------------------------
def skfem_neo_hookean(model):
    """scikit-fem forms of the internal force and tangent of ``model`` (a lib.fem T6 Model).

    The mesh is the corner mesh of ``model`` (same triangles, same diagonal);
    scikit-fem's quadratic vector element ``ElementVector(ElementTriP2())``
    adds the mid-side nodes, and ``intorder=2`` is the 3-point rule lib.fem uses
    for T6.  Forms (F = I + grad u, J = det F):

        f(v) = int P(F) : grad v,      P = mu (F - F^-T) + lam ln J F^-T
        K(du, v) = int [mu grad du + (mu - lam ln J) (F^-1 grad du F^-1)^T
                        + lam tr(F^-1 grad du) F^-T] : grad v

    Returns
    -------
    assemble(u) -> (f, K), f an ndarray and K a CSR matrix in scikit-fem's dof order;
    perm : ndarray such that ``u_skfem = u_lib[perm]`` (and likewise for f, K).
    """
    from skfem import Basis, BilinearForm, ElementTriP2, ElementVector, LinearForm, MeshTri, asm
    from skfem.helpers import ddot, det, grad, identity, inv, mul, trace, transpose

    mesh = model.mesh
    if mesh.element != "T6":
        raise ValueError(f"model must be a T6 model, got {mesh.element!r}")
    corners = np.unique(mesh.elements[:, :3])
    renum = np.full(mesh.nodes.shape[0], -1)
    renum[corners] = np.arange(corners.size)
    sk_mesh = MeshTri(mesh.nodes[corners].T.copy(), renum[mesh.elements[:, :3]].T.copy())
    basis = Basis(sk_mesh, ElementVector(ElementTriP2()), intorder=2)
    mu, lam = model.mu, model.lam

    def kinematics(w):
        F = grad(w["u"]) + identity(w["u"])
        Fi = inv(F)
        return F, Fi, transpose(Fi), np.log(det(F))

    @LinearForm
    def internal_force(v, w):
        F, _, FiT, lnJ = kinematics(w)
        return ddot(mu * (F - FiT) + lam * lnJ * FiT, grad(v))

    @BilinearForm
    def tangent(du, v, w):
        _, Fi, FiT, lnJ = kinematics(w)
        G = grad(du)
        dP = (mu * G + (mu - lam * lnJ) * transpose(mul(mul(Fi, G), Fi))
              + lam * trace(mul(Fi, G)) * FiT)
        return ddot(dP, grad(v))

    def assemble(u):
        uh = basis.interpolate(u)
        return asm(internal_force, basis, u=uh), asm(tangent, basis, u=uh)

    # dof map: scikit-fem dof -> (lib node with the same coordinates, component)
    key = {tuple(np.round(x, 9)): a for a, x in enumerate(mesh.nodes)}
    locs = basis.doflocs.T
    comp = np.empty(basis.N, dtype=int)
    comp[basis.nodal_dofs[0]], comp[basis.nodal_dofs[1]] = 0, 1
    comp[basis.facet_dofs[0]], comp[basis.facet_dofs[1]] = 0, 1
    perm = np.array([2 * key[tuple(np.round(x, 9))] + c for x, c in zip(locs, comp)])
    return assemble, perm
