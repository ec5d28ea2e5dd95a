"""PyElastica 1.0 as the book's planar and 3-D cantilevers, and lib's rod with PyElastica's clamp."""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from functools import lru_cache

import numpy as np

from .. import beam, rod, rod3d
from ..core import checks
from ..core.errors import SolveError
from ..solvers import load_path, newton_solve
from ._common import generalised_eigvals

__all__ = [
    "elastica_parameters", "elastica_rod", "elastica_stiffness", "elastica_linearisation",
    "elastica_frequencies", "elastica_static_tip", "ELASTICA_SHEAR_COEFFICIENT",
    "rigid_clamp_hessian", "rigid_clamp_frequencies", "rigid_clamp_static",
    "elastica_rod3d", "elastica_state", "elastica_linearisation3d", "elastica_frequencies3d",
    "elastica_system", "elastica_run",
]

#: PyElastica's fixed shear coefficient (Kaneko 1975, for nu = 0.5)
ELASTICA_SHEAR_COEFFICIENT = 27.0 / 28.0


def _check_erod(erod, name="erod"):
    """A PyElastica ``CosseratRod`` (a ValueError naming ``name`` otherwise)."""
    import elastica as ea

    return checks.kind(erod, name, ea.CosseratRod, "a PyElastica CosseratRod (elastica_rod)")


def _check_model(model):
    return checks.kind(model, "model", rod.Rod, "a planar rod (lib.rod.Rod, made by "
                                                "lib.rod.make_rod)")


def elastica_parameters(r_over_L=0.04, nu=0.5, ks=None, L=1.0, EI=1.0, rhoA=1.0):
    r"""PyElastica inputs that make its rod the same as ``rod.make_rod(..., r_over_L, nu, ks)``.

    With a solid circular section of radius ``r = r_over_L L``: ``A = pi r^2``,
    ``I = A^2 / (4 pi)``; Young's modulus ``E = EI / I``, density ``rhoA / A``
    (so ``rho I = rhoA r^2 / 4`` as in :mod:`lib.rod`); PyElastica multiplies the
    shear modulus by its fixed coefficient 27/28, so the shear modulus passed is
    ``ks G / (27/28)`` with ``G = E / (2 (1 + nu))``, giving ``k_s G A``.

    Returns
    -------
    dict with keys base_length, base_radius, density, youngs_modulus, shear_modulus.

    Examples
    --------
    >>> p = elastica_parameters()
    >>> A = np.pi * p["base_radius"] ** 2
    >>> round(p["youngs_modulus"] * A), round(27 / 28 * p["shear_modulus"] * A)   # EA, k_s G A
    (2500, 750)
    """
    ref = rod.make_rod(1, r_over_L=r_over_L, nu=nu, ks=ks, L=L, EI=EI, rhoA=rhoA)
    r = r_over_L * L
    A = math.pi * r * r
    I = A * A / (4 * math.pi)
    E = EI / I
    G = E / (2 * (1 + nu))
    return {"base_length": float(L), "base_radius": float(r), "density": float(rhoA / A),
            "youngs_modulus": float(E),
            "shear_modulus": float(ref.ks * G / ELASTICA_SHEAR_COEFFICIENT)}


def elastica_rod(N, r_over_L=0.04, nu=0.5, ks=None):
    """A straight PyElastica ``CosseratRod`` along +x, normal +y, with :func:`elastica_parameters`.

    Its directors are rows ``d1 = normal (y), d2 = x cross y (z), d3 = tangent (x)``;
    in-plane bending is rotation about ``d2``.
    """
    import elastica as ea

    N = checks.integer(N, "N", low=2)
    p = elastica_parameters(r_over_L, nu, ks)
    return ea.CosseratRod.straight_rod(
        N, np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]),
        p["base_length"], p["base_radius"], p["density"],
        youngs_modulus=p["youngs_modulus"], shear_modulus=p["shear_modulus"])


def _elastica_set_planar(erod, q):
    """Put a rigid-clamp planar state ``q`` (length 3N - 1) into a PyElastica rod."""
    N = erod.n_elems
    full = np.concatenate([[0.0], q]).reshape(N, 3)
    phi = full[:, 0]
    pos = np.zeros((3, N + 1))
    pos[0] = np.linspace(0.0, 1.0, N + 1) * erod.rest_lengths.sum()
    pos[0, 1:] = full[:, 1] + pos[0, 1:]
    pos[1, 1:] = full[:, 2]
    c, s = np.cos(phi), np.sin(phi)
    Q = np.zeros((3, 3, N))
    Q[0, 0], Q[0, 1] = -s, c          # d1 = (-sin, cos, 0)
    Q[1, 2] = 1.0                     # d2 = z
    Q[2, 0], Q[2, 1] = c, s           # d3 = (cos, sin, 0)
    erod.position_collection[:] = pos
    erod.director_collection[:] = Q
    erod.velocity_collection[:] = 0.0
    erod.omega_collection[:] = 0.0


def _elastica_force(erod, q):
    """Generalised internal force (rigid-clamp layout) of PyElastica at state ``q``."""
    _elastica_set_planar(erod, q)
    erod.compute_internal_forces_and_torques(np.float64(0.0))
    F, T = erod.internal_forces, erod.internal_torques
    return np.stack([T[1], F[0, 1:], F[1, 1:]], axis=1).ravel()[1:]


def elastica_stiffness(erod, h=None):
    r"""Linearised stiffness and lumped mass of a PyElastica rod, planar, rigid-clamp layout.

    The state ``q`` (layout in the module docstring, ``x, y`` displacements from
    the straight rod) is written into the rod, PyElastica's own
    ``compute_internal_forces_and_torques`` gives the nodal forces and the
    in-plane element torques, and ``K = -d f / d q`` by central differences
    (step ``h``, default ``1e-5 ell``: the truncation error grows like
    ``(h / ell)^2``, the round-off like ``eps / h``), one column per dof.  The
    mass is PyElastica's: node masses and element mass moments ``rho I ell``
    about ``d2``.

    Returns
    -------
    K : (3N-1, 3N-1) ndarray (not symmetrised)
    m : (3N-1,) ndarray, the diagonal mass in the same layout
    """
    N = _check_erod(erod).n_elems
    n = 3 * N - 1
    h = 1e-5 * float(erod.rest_lengths[0]) if h is None else checks.positive(h, "h")
    K = np.empty((n, n))
    e = np.zeros(n)
    for j in range(n):                 # one pair of PyElastica evaluations per column
        e[j] = h
        K[:, j] = -(_elastica_force(erod, e) - _elastica_force(erod, -e)) / (2 * h)
        e[j] = 0.0
    _elastica_set_planar(erod, np.zeros(n))
    J = erod.mass_second_moment_of_inertia[1, 1]
    m = np.stack([J, erod.mass[1:], erod.mass[1:]], axis=1).ravel()[1:]
    return K, m


def elastica_frequencies(N, k=2, r_over_L=0.04, nu=0.5, ks=None, return_asymmetry=False):
    r"""Lowest ``k`` frequencies of PyElastica's cantilever linearised about the straight state.

    Solves ``K v = omega^2 M v`` with the symmetric part of
    :func:`elastica_stiffness`; ``return_asymmetry`` also returns
    ``max|K - K^T| / max|K|`` (finite-difference noise when PyElastica's
    linearisation is symmetric).  With L = EI = rhoA = 1, ``omega = Omega``.
    """
    K, m = elastica_linearisation(N, r_over_L, nu, ks)
    k = checks.integer(k, "k", 1, m.size)
    return_asymmetry = checks.boolean(return_asymmetry, "return_asymmetry")
    asym = float(np.abs(K - K.T).max() / np.abs(K).max())
    lam = generalised_eigvals(0.5 * (K + K.T), m, None, "elastica_frequencies")
    om = np.sqrt(lam[:k])
    return (om, asym) if return_asymmetry else om


def elastica_linearisation(N, r_over_L=0.04, nu=0.5, ks=None):
    """:func:`elastica_stiffness` of a fresh :func:`elastica_rod`, cached (read-only arrays).

    Returns ``(K, m)`` as :func:`elastica_stiffness`.
    """
    elastica_parameters(r_over_L, nu, ks)                # the checks, then the cache
    return _linearisation(checks.integer(N, "N", low=2), float(r_over_L), float(nu),
                          None if ks is None else float(ks))


@lru_cache(maxsize=8)
def _linearisation(N, r_over_L, nu, ks):
    K, m = elastica_stiffness(elastica_rod(N, r_over_L, nu, ks))
    K.setflags(write=False)
    m.setflags(write=False)
    return K, m


@lru_cache(maxsize=1)
def _elastica_system_class():
    import elastica as ea

    class Cantilever(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping):
        """A PyElastica system collection with constraints, forcing and damping."""

    return Cantilever


def elastica_static_tip(N, load=0.01, r_over_L=0.04, nu=0.5, ks=None, t_end=6.0,
                        damping=None, dt_factor=0.9, vtol=1e-10):
    r"""Static tip deflection of PyElastica's cantilever by damped dynamics (its own stepper).

    A dead force ``load`` in -y on the tip node (PyElastica's ``EndpointForces``
    with a short ramp), ``OneEndFixedBC`` on node 0 and element 0, the
    ``AnalyticalLinearDamper`` with a uniform rate ``damping`` (default
    ``2 Omega_1`` of the Euler-Bernoulli beam: critical for the first mode), and
    ``PositionVerlet`` at ``dt = dt_factor * 2 / omega_max`` with ``omega_max``
    from :func:`elastica_stiffness` (the explicit limit of the undamped scheme).

    Returns
    -------
    (tip_y, steps, vmax) : the tip's y (negative: downward), the number of steps
        taken and the largest remaining speed.

    Raises
    ------
    SolveError
        ``reason="not settled"`` when the largest speed at ``t_end`` is still above
        ``vtol`` (names the time reached and the speed).
    """
    import elastica as ea

    load, t_end = checks.real(load, "load"), checks.positive(t_end, "t_end")
    dt_factor = checks.real(dt_factor, "dt_factor", 0.0, 1.0, include_low=False,
                            include_high=False)
    vtol = checks.positive(vtol, "vtol")
    if damping is not None:
        damping = checks.positive(damping, "damping")
    erod = elastica_rod(N, r_over_L, nu, ks)
    K, m = elastica_linearisation(N, r_over_L, nu, ks)
    lam_max = generalised_eigvals(0.5 * (K + K.T), m, [K.shape[0] - 1, K.shape[0] - 1],
                                  "elastica_static_tip")[0]
    dt = dt_factor * 2.0 / math.sqrt(lam_max)
    steps = int(math.ceil(t_end / dt))
    damping = 2.0 * float(beam.euler_bernoulli_omegas(1)[0]) if damping is None else damping
    sim = _elastica_system_class()()
    sim.append(erod)
    sim.constrain(erod).using(ea.OneEndFixedBC, constrained_position_idx=(0,),
                              constrained_director_idx=(0,))
    sim.add_forcing_to(erod).using(ea.EndpointForces, np.zeros(3),
                                   np.array([0.0, -float(load), 0.0]), ramp_up_time=10 * dt)
    sim.dampen(erod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=damping,
                           time_step=dt)
    sim.finalize()
    stepper = ea.PositionVerlet()
    t = np.float64(0.0)
    for _ in range(steps):            # PyElastica's own time loop
        t = stepper.step(sim, t, dt)
    vmax = float(np.abs(erod.velocity_collection).max())
    if not np.isfinite(vmax) or vmax > vtol:
        raise SolveError(f"max speed {vmax:.3e} > vtol = {vtol:.1e} after {steps} steps",
                         where="elastica_static_tip (PyElastica relaxation)", step=steps,
                         time=float(t), reason="not settled")
    return float(erod.position_collection[1, -1]), steps, vmax

# --------------------------------------------------------------------------------------
# lib's rod with PyElastica's clamp (the angle of element 0 held at zero)
# --------------------------------------------------------------------------------------
def rigid_clamp_hessian(model):
    r"""Hessian of :mod:`lib.rod` at the straight state with ``phi_0`` removed (CSR, 3N-1 square).

    Holding ``phi_0 = 0`` makes element 0 a rigid (but still extensible and
    shearable) stub: the clamp spring ``2 EI phi_0 / ell`` does no work and the
    first bending spring is ``EI (phi_1 - 0) / ell``, as in PyElastica.
    """
    H = rod.hessian(_check_model(model), rod.straight(model))
    return H[1:, 1:].tocsr()


def rigid_clamp_frequencies(model, k=2):
    """Lowest ``k`` angular frequencies of :func:`rigid_clamp_hessian` with :func:`lib.rod.mass`.

    Dense ``scipy.linalg.eigh`` on the generalised problem (adequate for the
    r/L = 0.04 rod; see the cross-check chapter for its limits on stiffer rods).

    Examples
    --------
    >>> w = rigid_clamp_frequencies(rod.make_rod(10, 0.04), 1)
    >>> round(float(w[0]), 4)          # PyElastica's 10-element value
    3.8707
    """
    K = rigid_clamp_hessian(model).toarray()
    m = rod.mass(model)[1:]
    k = checks.integer(k, "k", 1, m.size)           # at most the free coordinates, 3N - 1
    lam = generalised_eigvals(K, m, [0, k - 1], "rigid_clamp_frequencies")
    return np.sqrt(lam)


def rigid_clamp_static(model, load, steps=1, tol=1e-12, maxiter=30):
    r"""Equilibrium of :mod:`lib.rod` with ``phi_0 = 0`` held, by Newton on the reduced system.

    Minimises ``rod.energy(model, q, load)`` over the 3N - 1 free dofs with the
    closed-form gradient and Hessian (sparse LU), load applied in ``steps`` uniform
    increments (:func:`lib.solvers.load_path`), plain Newton by
    :func:`lib.solvers.newton_solve`; converged when ``|grad| <= tol * max(EI/L, |P|,
    |M|/L)`` or, after a step below ``1e-14 L``, at the round-off floor
    ``64 eps (EA + k_sGA)``.

    Returns
    -------
    q : (3N,) full state with ``q[0] = 0``.

    Raises
    ------
    SolveError
        Naming the load step, iteration and residual when Newton fails.
    """
    _check_model(model)
    load = checks.vector(load, "load", 3)
    steps = checks.integer(steps, "steps", low=1)
    tol, maxiter = checks.positive(tol, "tol"), checks.integer(maxiter, "maxiter", low=0)
    # force scale as in rod.static, and the round-off floor of the stiff (axial, shear) terms
    scale = max(model.EI / model.L, np.abs(load[:2]).max(), abs(load[2]) / model.L)
    floor = 64 * np.finfo(float).eps * (model.EA + model.kGA)
    free = np.arange(1, model.ndof)

    def solve_at(lam, q):
        ld = load * lam
        return newton_solve(lambda q: (rod.gradient(model, q, ld), lambda: rod.hessian(model, q)),
                            q, tol, maxiter, where="rigid_clamp_static", accept="none",
                            scale=scale, floor=floor, roundoff="step", xtol=1e-14 * model.L,
                            xtol_rel=0.0, free=free)

    return load_path(solve_at, rod.straight(model), steps=steps, where="rigid_clamp_static")[0]


# --------------------------------------------------------------------------------------
# the 3-D rod of lib.rod3d side by side with PyElastica's
# --------------------------------------------------------------------------------------
def elastica_rod3d(N, r_over_L=0.04, nu=0.5, ks=None):
    """PyElastica's ``CosseratRod`` with the section stiffnesses of :func:`lib.rod3d.make_rod3d`.

    Built by :func:`lib.crosscheck.elastica_rod` (E A, k_s G A and rho I as lib's),
    then its twist stiffness, ``bend_matrix[2, 2]``, is set to GJ = EI/(1 + nu):
    PyElastica's single shear modulus, scaled to give lib's k_s G A through its fixed
    shear coefficient 27/28, would otherwise give a different G J.  Directors (rows):
    d1 = y, d2 = z, d3 = x (the tangent); lib's frame columns are (d3, d1, d2).
    """
    erod = elastica_rod(N, r_over_L, nu, ks)
    erod.bend_matrix[2, 2, :] = 1.0 / (1.0 + float(nu))
    return erod


def elastica_state(erod):
    """lib's :class:`lib.rod3d.State` of a PyElastica rod (positions of nodes 1..N, element frames)."""
    x = np.ascontiguousarray(_check_erod(erod).position_collection[:, 1:].T)
    D = erod.director_collection                      # (3, 3, N): rows are d1, d2, d3
    R = np.transpose(D[[2, 0, 1]], (2, 1, 0))         # columns (d3, d1, d2)
    return rod3d.State(x, rod3d.quat_from_rotmat(R))


def _elastica_put(erod, state):
    x, Q = state
    erod.position_collection[:, 0] = 0.0
    erod.position_collection[:, 1:] = x.T
    R = rod3d.rotmat(Q)                               # (N, 3, 3), columns t, n, b
    erod.director_collection[:] = np.transpose(R[:, :, [1, 2, 0]], (2, 1, 0))
    erod.velocity_collection[:] = 0.0
    erod.omega_collection[:] = 0.0


def _elastica_generalised_force(erod, rod, state):
    """PyElastica's internal forces at ``state`` in lib's 6N layout (minus the clamped psi_0)."""
    _elastica_put(erod, state)
    erod.compute_internal_forces_and_torques(np.float64(0.0))
    F, T = erod.internal_forces, erod.internal_torques   # nodes (global), elements (local)
    out = np.empty((rod.N, 6))
    out[:, :3] = T[[2, 0, 1]].T
    out[:, 3:] = F[:, 1:].T
    return out.ravel()[3:]


def elastica_linearisation3d(N, r_over_L=0.04, nu=0.5, ks=None, h=None):
    r"""Stiffness and lumped mass of PyElastica's rod about the straight state, lib's layout.

    Every displacement of lib's layout except psi_0 (PyElastica clamps the first
    element's director) is applied by :func:`lib.rod3d.retract` (positions and director
    rotations), PyElastica's ``compute_internal_forces_and_torques`` gives the nodal
    forces and the element torques in the material frame, and K = -df/dq by central
    differences (step ``h``, default 1e-5 ell).  The mass is PyElastica's: node masses
    and the element mass second moments.

    Returns
    -------
    K : (6N-3, 6N-3) ndarray (not symmetrised), m : (6N-3,) ndarray
    """
    rod = rod3d.make_rod3d(N, r_over_L, nu, ks)
    erod = elastica_rod3d(N, r_over_L, nu, ks)
    s0 = rod3d.straight(rod)
    n = rod.ndof - 3
    h = 1e-5 * rod.ell if h is None else checks.positive(h, "h")
    K = np.empty((n, n))
    e = np.zeros(rod.ndof)
    for j in range(n):
        e[j + 3] = h
        fp = _elastica_generalised_force(erod, rod, rod3d.retract(rod, s0, e))
        fm = _elastica_generalised_force(erod, rod, rod3d.retract(rod, s0, -e))
        K[:, j] = -(fp - fm) / (2 * h)
        e[j + 3] = 0.0
    J = np.einsum("iie->ei", erod.mass_second_moment_of_inertia)[:, [2, 0, 1]]
    m = np.column_stack([J, np.repeat(erod.mass[1:, None], 3, axis=1)]).ravel()[3:]
    return K, m


def elastica_frequencies3d(N, k=6, r_over_L=0.04, nu=0.5, ks=None):
    """Lowest ``k`` frequencies of :func:`elastica_linearisation3d` (symmetric part, ``eigh``)."""
    K, m = elastica_linearisation3d(N, r_over_L, nu, ks)
    k = checks.integer(k, "k", 1, m.size)
    lam = generalised_eigvals(0.5 * (K + K.T), m, [0, k - 1], "elastica_frequencies3d")
    return np.sqrt(lam)


def _dead_end_torque_class():
    import elastica as ea

    class EndTorque(ea.NoForces):
        """A dead torque (global components) on the last element."""

        def __init__(self, torque):
            super().__init__()
            self.torque = np.asarray(torque, dtype=float)

        def apply_torques(self, system, time=np.float64(0.0)):
            system.external_torques[:, -1] += system.director_collection[:, :, -1] @ self.torque

    return EndTorque


@contextmanager
def _velocity_torques_off():
    """PyElastica's internal torques without its two velocity-dependent terms.

    PyElastica's Euler equation per element is (J/e) dw/dt = tau + (J w/e) x w +
    (J w/e) de/dt / e (Gazzola et al. 2018, eq. 2.14; e the element's dilatation): the
    *Lagrangian transport* and the *unsteady dilatation* term, both added in
    ``elastica.rod.cosserat_rod._compute_internal_torques`` and evaluated there with the
    angular and nodal velocities of the kick's start.  Inside this context PyElastica's
    own kernel runs and the two terms, recomputed from the arrays it has just filled,
    are subtracted (for a convergence study only: the rod's physics loses them).
    """
    import elastica.rod.cosserat_rod as cr

    original = cr._compute_internal_torques

    def without(*args):
        original(*args)
        J, w, dil, dil_rate, torques = args[11], args[12], args[15], args[16], args[17]
        Jw = np.einsum("ijk,jk->ik", J, w) / dil
        torques -= np.cross(Jw, w, axis=0) + Jw * dil_rate / dil

    cr._compute_internal_torques = without
    try:
        yield
    finally:
        cr._compute_internal_torques = original


def elastica_system(N, load, r_over_L=0.04, nu=0.5, ks=None, damping=None, dt=None,
                    spin=0.0, velocity_torques=True):
    """PyElastica's clamped rod under a dead tip load, ready to step with its own stepper.

    ``load`` = (Px, Py, Pz[, Mx, My, Mz]) from t = 0 (``EndpointForces`` and a dead end
    torque); ``damping`` a uniform ``AnalyticalLinearDamper`` rate (needs ``dt``);
    ``OneEndFixedBC`` clamps node 0 and the director of element 0.  ``spin``: an initial
    angular velocity of every element about its own axis (the tangent, PyElastica's d3;
    the clamped element 0 is held by the constraint).  ``velocity_torques=False`` steps
    with PyElastica's Lagrangian transport and unsteady dilatation torques switched off
    (see :func:`_velocity_torques_off`); the default is PyElastica as it is.

    Returns
    -------
    (step, erod) : ``step(dt)`` advances one ``PositionVerlet`` step and returns the
        time; ``erod`` is the ``CosseratRod``.
    """
    import elastica as ea

    load = rod3d.check_load(load)
    spin = checks.real(spin, "spin")
    velocity_torques = checks.boolean(velocity_torques, "velocity_torques")
    if dt is not None:
        dt = checks.positive(dt, "dt")
    if damping is not None:
        damping = checks.nonnegative(damping, "damping")
    erod = elastica_rod3d(N, r_over_L, nu, ks)
    sim = _elastica_system_class()()
    sim.append(erod)
    sim.constrain(erod).using(ea.OneEndFixedBC, constrained_position_idx=(0,),
                              constrained_director_idx=(0,))
    sim.add_forcing_to(erod).using(ea.EndpointForces, np.zeros(3), load[:3].copy(),
                                   ramp_up_time=1e-12)
    if np.any(load[3:]):
        sim.add_forcing_to(erod).using(_dead_end_torque_class(), load[3:].copy())
    if damping is not None:
        if dt is None:
            raise ValueError("dt must be given with damping (PyElastica's damper needs it)")
        sim.dampen(erod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=damping,
                               time_step=dt)
    sim.finalize()
    erod.omega_collection[2, :] = spin
    stepper = ea.PositionVerlet()
    clock = {"t": np.float64(0.0)}

    def step(h):
        with (nullcontext() if velocity_torques else _velocity_torques_off()):
            clock["t"] = stepper.step(sim, clock["t"], np.float64(h))
        return clock["t"]

    return step, erod


def elastica_run(N, load, dt, nsteps, r_over_L=0.04, nu=0.5, ks=None, damping=None, every=1,
                 spin=0.0, velocity_torques=True):
    """Run PyElastica's own position-Verlet stepper on :func:`elastica_system`.

    ``spin`` and ``velocity_torques`` as in :func:`elastica_system` (an initial spin of the
    sections about their axes; PyElastica's two velocity-dependent torques on or off).
    With them on, the stepper is first order: the kick evaluates (J w/e) x w and
    (J w/e) de/dt / e with the velocities of its start, and the second term costs the
    order even for a rod that does not spin (tests/test_crosscheck.py; chapter rod3d).

    ``dt`` must lie within the explicit stability limit ``2 / omega_max`` of position
    Verlet, ``omega_max`` from :func:`lib.rod3d.omega_max_estimate` (the zig-zag bound;
    it lies 0.1-5 % above the rod's highest frequency, so a step refused here is at
    most that close to the true limit).  A run that still leaves the rod's reach, a
    node farther than ``2 L (1 + |P| / EA)`` from the clamp, has blown up.

    Returns
    -------
    (state, tips) : the final :class:`lib.rod3d.State` and the tip positions (m, 3) at steps
        0, every, 2 every, ...

    Raises
    ------
    ValueError
        Naming the argument; ``dt`` above the stability limit.
    lib.rod3d.BlowUpError
        (a ``FloatingPointError`` and a :class:`~lib.core.errors.SolveError`) with the
        step and time reached when the motion is not finite or leaves the bound above.
    """
    model = rod3d.make_rod3d(N, r_over_L, nu, ks)
    dt, nsteps = checks.positive(dt, "dt"), checks.integer(nsteps, "nsteps", low=0)
    every = checks.integer(every, "every", low=1)
    limit = 2.0 / rod3d.omega_max_estimate(model)["max"]
    if dt > limit:
        raise ValueError(f"dt = {dt:.4g} is above the stability limit 2 / omega_max = "
                         f"{limit:.4g} of position Verlet (lib.rod3d.omega_max_estimate)")
    step, erod = elastica_system(N, load, r_over_L, nu, ks, damping, dt, spin,
                                 velocity_torques)
    reach = 2.0 * model.L * (1.0 + np.abs(rod3d.check_load(load)[:3]).max() / model.EA)
    tips = [erod.position_collection[:, -1].copy()]
    for n in range(1, nsteps + 1):
        t = step(dt)
        far = float(np.abs(erod.position_collection).max())
        if not far <= reach:                         # also NaN
            raise rod3d.BlowUpError(
                f"a node coordinate of {far:.3g}, beyond the reach 2 L (1 + |P|/EA) = "
                f"{reach:.3g} of the clamped rod",
                where="elastica_run (PyElastica position Verlet)", step=n, time=float(t),
                reason="diverged")
        if n % every == 0:
            tips.append(erod.position_collection[:, -1].copy())
    return elastica_state(erod), np.array(tips)
