r"""The book's cantilever set up in independent codes, and independent references.

Every adapter here builds the *same* nondimensional cantilever as :mod:`lib.rod`
(length L = 1, bending stiffness EI = 1, mass per length rhoA = 1, clamped at
the origin, axis along +x, bending in the x-y plane) in another code, and reads
back what that code computes.  Nothing is copied from the other codes: they run.

MuJoCo 3.17 (``mujoco.elasticity.cable`` plugin)
    :func:`cable_xml`, :func:`cable_frequencies`.  The composite cable is a chain
    of capsule bodies joined by ball joints; the plugin puts a bending spring
    ``E I / ell`` between consecutive bodies (``I = pi r^4 / 4`` from the capsule
    radius, ``ell`` the distance between body frames).  The first body is welded
    to its parent with no spring (``initial="none"``): a rigid first segment.
    ``clamp_stiffness=c`` gives the first body a ball joint with a spring
    ``c EI / ell`` instead.  Frequencies come from the linearisation
    ``mjd_transitionFD`` (in-plane block, see :func:`cable_frequencies`).
PyElastica 1.0 (a 3-D Cosserat rod on a staggered grid)
    :func:`elastica_parameters`, :func:`elastica_rod`, :func:`elastica_stiffness`,
    :func:`elastica_frequencies`, :func:`elastica_static_tip`.  Positions live on
    the N + 1 nodes, directors on the N elements, curvature and bending couple on
    the N - 1 interior (Voronoi) nodes; ``OneEndFixedBC`` fixes node 0 and the
    director of element 0.
lib's rod with the same clamp as PyElastica
    :func:`rigid_clamp_hessian`, :func:`rigid_clamp_frequencies`,
    :func:`rigid_clamp_static`: the angle of element 0 held at zero instead of the
    half-element clamp spring ``2 EI phi_0 / ell`` of :mod:`lib.rod`.
scikit-fem 12 (plane-strain neo-Hookean, P1/P2)
    :func:`skfem_basis`, :func:`skfem_forms`, :func:`skfem_static`,
    :func:`skfem_linear`, :func:`skfem_cantilever`.  The energy, residual and
    tangent of :mod:`lib.fem` written as scikit-fem forms on the same mesh.
Independent references
    :func:`timoshenko_omegas_transfer` (Timoshenko cantilever by the exact
    transfer matrix, no ``solve_bvp``) and :func:`pcc_ritz_exact` (PCC
    Rayleigh-Ritz matrices by closed-form integrals, no quadrature).

Array layout
------------
Planar rod states use :mod:`lib.rod`'s layout ``q = [phi_e, x_{e+1}, y_{e+1}]``,
e = 0..N-1 (length 3N).  A *rigid-clamp* vector drops ``phi_0``: length 3N - 1,
``[x_1, y_1, phi_1, x_2, y_2, ..., phi_{N-1}, x_N, y_N]``.  FEM vectors use
:mod:`lib.fem`'s interleaved node layout ``u[2a], u[2a+1]``.

The heavy imports (``mujoco``, ``elastica``, ``skfem``) happen inside the
functions that need them; importing this module is cheap.

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
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.optimize import brentq

from . import beam, fem, rod

__all__ = [
    "cable_xml", "cable_frequencies",
    "elastica_parameters", "elastica_rod", "elastica_stiffness", "elastica_linearisation",
    "elastica_frequencies",
    "elastica_static_tip", "ELASTICA_SHEAR_COEFFICIENT",
    "rigid_clamp_hessian", "rigid_clamp_frequencies", "rigid_clamp_static",
    "skfem_basis", "skfem_forms", "skfem_static", "skfem_linear", "skfem_cantilever",
    "timoshenko_omegas_transfer", "pcc_ritz_exact", "observed_order", "richardson",
]

#: PyElastica's fixed shear coefficient (Kaneko 1975, for nu = 0.5)
ELASTICA_SHEAR_COEFFICIENT = 27.0 / 28.0


def _check_count(n, name, minimum=1):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def _newton_step(solve, where):
    """One sparse Newton solve; a singular tangent is reported with ``where``.

    SciPy's ``spsolve`` warns (``MatrixRankWarning``) and returns NaN for a singular
    matrix; that warning never reaches the reader bare: it becomes a RuntimeError
    saying how far the Newton iteration got.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            step = solve()
        except (spla.MatrixRankWarning, RuntimeError, sla.LinAlgError) as exc:
            raise RuntimeError(f"{where}: the tangent matrix is singular ({exc})") from None
    if not np.all(np.isfinite(step)):
        raise RuntimeError(f"{where}: the Newton step is not finite (singular tangent)")
    return step


def _generalised_eigvals(K, m, subset, caller):
    """Eigenvalues of ``K v = lam diag(m) v`` (``scipy.linalg.eigh``), errors named."""
    try:
        return sla.eigh(K, np.diag(m), eigvals_only=True, subset_by_index=subset)
    except sla.LinAlgError as exc:    # the mass is not positive definite, or LAPACK failed
        raise RuntimeError(f"{caller}: the generalised eigenproblem K v = omega^2 M v failed "
                           f"(min mass {float(np.min(m)):.3e}): {exc}") from None


def _check_positive(x, name):
    if not (isinstance(x, (int, float, np.floating)) and np.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {x!r}")
    return float(x)


# --------------------------------------------------------------------------------------
# small numerical helpers
# --------------------------------------------------------------------------------------
def observed_order(e_coarse, e_fine, ratio=2.0):
    r"""Observed convergence order ``p = log(e_coarse / e_fine) / log(ratio)``.

    >>> observed_order(4e-3, 1e-3)
    2.0
    """
    return float(np.log(abs(e_coarse) / abs(e_fine)) / np.log(ratio))


def richardson(coarse, fine, p, ratio=2.0):
    r"""Richardson extrapolation ``(r^p f - c) / (r^p - 1)`` of a sequence converging at order ``p``.

    >>> float(richardson(3.0, 2.0, 1))     # errors 2 and 1 at order 1: the limit is 1
    1.0
    """
    f = ratio**p
    return (f * np.asarray(fine) - np.asarray(coarse)) / (f - 1.0)


# --------------------------------------------------------------------------------------
# MuJoCo 3.17: the composite cable with the elasticity plugin
# --------------------------------------------------------------------------------------
def cable_xml(segments, r_over_L=0.002, clamp="rigid", nu=0.5):
    r"""MJCF of the nondimensional cable cantilever (MuJoCo 3.x, ``mujoco.elasticity.cable``).

    Parameter mapping (L = 1): capsule radius ``r = r_over_L``, ``A = pi r^2``,
    ``I = pi r^4 / 4``; plugin ``bend`` = Young's modulus ``E = EI / I = 1 / I``,
    ``twist`` = shear modulus ``G = E / (2 (1 + nu))``; geom ``density = rhoA / A
    = 1 / A``.  The capsules' hemispherical caps overlap their neighbours, so
    each body weighs ``rho (A ell + 4/3 pi r^3)``: more than ``rhoA ell``.
    Gravity is off; the integrator is Euler with no joint damping, so the
    velocity block of the transition Jacobian is exactly ``dt d(qacc)/d(qpos)``.

    Parameters
    ----------
    segments : int >= 2
        Number of capsule bodies (``count = segments + 1`` vertices).
    r_over_L : float > 0
    clamp : "rigid" (first body welded: ``initial="none"``) or "ball" (a ball joint
        at the clamp, ``initial="ball"``; set its stiffness on the compiled model)
    nu : float, Poisson ratio for the twist modulus (irrelevant to bending)

    Examples
    --------
    >>> xml = cable_xml(10)
    >>> 'count="11 1 1"' in xml and 'initial="none"' in xml
    True
    """
    segments = _check_count(segments, "segments", 2)
    r = _check_positive(r_over_L, "r_over_L")
    if clamp not in ("rigid", "ball"):
        raise ValueError(f"clamp must be 'rigid' or 'ball', got {clamp!r}")
    A, I = math.pi * r * r, math.pi * r**4 / 4
    E = 1.0 / I
    G = E / (2 * (1 + nu))
    initial = "none" if clamp == "rigid" else "ball"
    return f"""<mujoco model="cable-cantilever">
  <extension><plugin plugin="mujoco.elasticity.cable"/></extension>
  <option gravity="0 0 0" integrator="Euler" timestep="1e-4"/>
  <worldbody>
    <composite type="cable" curve="s" count="{segments + 1} 1 1" size="1" initial="{initial}">
      <plugin plugin="mujoco.elasticity.cable">
        <config key="twist" value="{G!r}"/>
        <config key="bend" value="{E!r}"/>
        <config key="vmax" value="0"/>
      </plugin>
      <joint kind="main" damping="0"/>
      <geom type="capsule" size="{r!r}" density="{1.0 / A!r}"/>
    </composite>
  </worldbody>
</mujoco>"""


def cable_frequencies(segments, k=2, r_over_L=0.002, clamp_stiffness=None, eps=1e-6,
                      return_coupling=False):
    r"""Lowest ``k`` in-plane bending frequencies ``Omega = omega sqrt(m_tot L^3 / EI)`` of the MuJoCo cable.

    The cable is linearised about the straight state by ``mjd_transitionFD``
    (central differences, step ``eps``).  With Euler integration and no damping
    the lower-left block of the transition matrix is ``dt dqacc/dqpos``, so
    ``Kq = A[nv:, :nv] / dt`` and ``omega^2`` are the eigenvalues of ``-Kq``.
    Each ball joint has three rotational dofs in its body frame (x along the
    cable); in-plane bending is the z rotation, so only the block
    ``Kq[2::3, 2::3]`` is kept (the cross-plane coupling is zero at the straight
    state; ``return_coupling`` returns its size).  ``m_tot`` is the summed
    body mass: the cap overlap scales every body's mass and inertia by the same
    factor, so normalising by the actual total mass is the same as making it
    exactly 1.

    Parameters
    ----------
    segments : int >= 2
    k : int >= 1
    r_over_L : float > 0, capsule radius / length (rotary inertia of the capsules)
    clamp_stiffness : None (rigid first segment, the cable as shipped) or c > 0:
        a ball joint at the clamp with spring ``c EI / ell`` (``ell = L/segments``)
    eps : finite-difference step of ``mjd_transitionFD``
    return_coupling : also return ``max|Kq[z, other]| / max|Kq[z, z]|``

    Returns
    -------
    (k,) ndarray of Omega, ascending (and the coupling if asked).

    Examples
    --------
    >>> round(float(cable_frequencies(20)[0]), 3)
    3.701
    """
    import mujoco

    segments = _check_count(segments, "segments", 2)
    k = _check_count(k, "k")
    if clamp_stiffness is not None:
        _check_positive(clamp_stiffness, "clamp_stiffness")
    _check_positive(eps, "eps")
    model = mujoco.MjModel.from_xml_string(
        cable_xml(segments, r_over_L, "rigid" if clamp_stiffness is None else "ball"))
    if not np.all(model.jnt_type == mujoco.mjtJoint.mjJNT_BALL):
        raise RuntimeError("expected a chain of ball joints from the cable composite")
    if clamp_stiffness is not None:
        model.jnt_stiffness[0] = clamp_stiffness * segments      # c EI / ell, EI = L = 1
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    nv = model.nv
    A = np.zeros((2 * nv, 2 * nv))
    mujoco.mjd_transitionFD(model, data, eps, True, A, None, None, None)
    Kq = A[nv:, :nv] / model.opt.timestep
    z = np.arange(2, nv, 3)
    Kzz = Kq[np.ix_(z, z)]
    if k > z.size:
        raise ValueError(f"k must be <= {z.size} for {segments} segments, got {k}")
    lam = np.sort(sla.eigvals(-Kzz).real)
    if lam[0] <= 0:
        raise RuntimeError(f"cable linearisation is not positive definite (min {lam[0]:.3e})")
    Omega = np.sqrt(lam[:k] * model.body_mass.sum())
    if not return_coupling:
        return Omega
    other = np.setdiff1d(np.arange(nv), z)
    coupling = float(np.abs(Kq[np.ix_(z, other)]).max() / np.abs(Kzz).max())
    return Omega, coupling


# --------------------------------------------------------------------------------------
# PyElastica 1.0
# --------------------------------------------------------------------------------------
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

    N = _check_count(N, "N", 2)
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
    N = erod.n_elems
    n = 3 * N - 1
    h = 1e-5 * float(erod.rest_lengths[0]) if h is None else _check_positive(h, "h")
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
    k = _check_count(k, "k")
    K, m = elastica_linearisation(N, r_over_L, nu, ks)
    asym = float(np.abs(K - K.T).max() / np.abs(K).max())
    lam = _generalised_eigvals(0.5 * (K + K.T), m, None, "elastica_frequencies")
    om = np.sqrt(lam[:k]) if k < lam.size else np.sqrt(lam)
    return (om, asym) if return_asymmetry else om


@lru_cache(maxsize=8)
def elastica_linearisation(N, r_over_L=0.04, nu=0.5, ks=None):
    """:func:`elastica_stiffness` of a fresh :func:`elastica_rod`, cached (read-only arrays).

    Returns ``(K, m)`` as :func:`elastica_stiffness`.
    """
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
    RuntimeError when the largest speed at ``t_end`` is still above ``vtol``
    (names the time reached and the speed).
    """
    import elastica as ea

    N = _check_count(N, "N", 2)
    _check_positive(t_end, "t_end")
    if not (isinstance(load, (int, float, np.floating)) and np.isfinite(load)):
        raise ValueError(f"load must be a finite number, got {load!r}")
    if not 0 < dt_factor < 1:
        raise ValueError(f"dt_factor must lie in (0, 1), got {dt_factor!r}")
    erod = elastica_rod(N, r_over_L, nu, ks)
    K, m = elastica_linearisation(N, r_over_L, nu, ks)
    lam_max = _generalised_eigvals(0.5 * (K + K.T), m, [K.shape[0] - 1, K.shape[0] - 1],
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
        raise RuntimeError(f"PyElastica relaxation not settled at t = {float(t):.3f} "
                           f"({steps} steps): max speed {vmax:.3e} > {vtol:.1e}")
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
    H = rod.hessian(model, rod.straight(model))
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
    k = _check_count(k, "k")
    K = rigid_clamp_hessian(model).toarray()
    m = rod.mass(model)[1:]
    if k > m.size:
        raise ValueError(f"k must be <= {m.size} (the free coordinates of N = {model.N}), got {k}")
    lam = _generalised_eigvals(K, m, [0, k - 1], "rigid_clamp_frequencies")
    return np.sqrt(lam)


def rigid_clamp_static(model, load, steps=1, tol=1e-12, maxiter=30):
    r"""Equilibrium of :mod:`lib.rod` with ``phi_0 = 0`` held, by Newton on the reduced system.

    Minimises ``rod.energy(model, q, load)`` over the 3N - 1 free dofs with the
    closed-form gradient and Hessian (sparse LU), load applied in ``steps``
    increments; converged when ``|grad| <= tol * max(EI/L, |P|, |M|/L)`` or, after
    a step below ``1e-14 L``, at the round-off floor ``64 eps (EA + k_sGA)``.

    Returns
    -------
    q : (3N,) full state with ``q[0] = 0``.

    Raises
    ------
    RuntimeError naming the load step, iteration and residual when Newton stalls.
    """
    load = np.asarray(load, dtype=float)
    if load.shape != (3,) or not np.all(np.isfinite(load)):
        raise ValueError(f"load must be a finite (Px, Py, M), got {load!r}")
    steps = _check_count(steps, "steps")
    q = rod.straight(model).astype(float)
    # force scale as in rod.static, and the round-off floor of the stiff (axial, shear) terms
    scale = max(model.EI / model.L, np.abs(load[:2]).max(), abs(load[2]) / model.L)
    floor = 64 * np.finfo(float).eps * (model.EA + model.kGA)
    for step in range(1, steps + 1):
        ld = load * step / steps
        dq = np.inf
        for it in range(maxiter + 1):
            g = rod.gradient(model, q, ld)[1:]
            res = np.abs(g).max()
            if res <= tol * scale or (dq <= 1e-14 * model.L and res <= floor):
                break
            if it == maxiter:
                raise RuntimeError(f"rigid-clamp Newton: load step {step}/{steps}, "
                                   f"{maxiter} iterations, residual {res:.3e}")
            step_q = _newton_step(lambda: spla.spsolve(rod.hessian(model, q)[1:, 1:].tocsc(), g),
                                  f"rigid-clamp Newton: load step {step}/{steps}, iteration {it}")
            q[1:] -= step_q
            dq = np.abs(step_q).max()
    return q


# --------------------------------------------------------------------------------------
# scikit-fem: the plane-strain neo-Hookean forms on lib.fem's mesh
# --------------------------------------------------------------------------------------
def skfem_basis(model, intorder=None):
    r"""scikit-fem vector basis on the mesh of a :mod:`lib.fem` model, and the dof map.

    The triangle corners become a ``MeshTri``; ``ElementTriP1`` for T3 and
    ``ElementTriP2`` for T6 (mid-side dofs on the facets).  ``intorder`` defaults
    to lib's stiffness rule (exact to degree ``2p - 2``; scikit-fem's order-2
    rule is the same three interior points, and for P1 the integrand is constant
    per element).

    Returns
    -------
    basis : skfem CellBasis
    perm : (n_dofs,) int array, ``u_lib[perm] = u_skfem`` (scikit-fem dof i is
        lib dof ``perm[i]``)

    Examples
    --------
    >>> m = fem.cantilever(2, 1, "T6", slenderness=2.0)
    >>> basis, perm = skfem_basis(m)
    >>> int(basis.N) == m.n_dofs, sorted(perm.tolist()) == list(range(m.n_dofs))
    (True, True)
    """
    from skfem import Basis, ElementTriP1, ElementTriP2, ElementVector, MeshTri

    mesh = model.mesh
    corners = np.unique(mesh.elements[:, :3])
    remap = np.full(mesh.nodes.shape[0], -1)
    remap[corners] = np.arange(corners.size)
    sk = MeshTri(np.ascontiguousarray(mesh.nodes[corners].T),
                 np.ascontiguousarray(remap[mesh.elements[:, :3]].T))
    p = 1 if mesh.element == "T3" else 2
    elem = ElementVector(ElementTriP1() if p == 1 else ElementTriP2())
    basis = Basis(sk, elem, intorder=max(2 * p - 2, 1) if intorder is None else intorder)
    # match every scikit-fem dof location to a lib node (structured grid: exact lookup)
    locs = basis.doflocs.T
    h = np.array([mesh.length / (p * mesh.nx), mesh.height / (p * mesh.ny)])
    ij = np.rint((locs - [0.0, -mesh.height / 2]) / h).astype(np.int64)
    node = ij[:, 0] * (p * mesh.ny + 1) + ij[:, 1]
    if not np.allclose(mesh.nodes[node], locs, atol=1e-12 * mesh.length):
        raise RuntimeError("scikit-fem dof locations do not fall on lib.fem nodes")
    comp = np.empty(basis.N, dtype=np.int64)
    comp[basis.nodal_dofs[0]] = 0
    comp[basis.nodal_dofs[1]] = 1
    if p == 2:
        comp[basis.facet_dofs[0]] = 0
        comp[basis.facet_dofs[1]] = 1
    perm = 2 * node + comp
    if np.unique(perm).size != model.n_dofs:
        raise RuntimeError("scikit-fem to lib.fem dof map is not a bijection")
    return basis, perm


def _nh_forms(mu, lam):
    """Neo-Hookean energy functional, residual and tangent as scikit-fem forms.

    Written from the textbook expressions (Bonet & Wood), independently of lib.fem:
    ``W = mu/2 (F:F - 2 - 2 ln J) + lam/2 ln^2 J``,
    ``P = mu (F - F^-T) + lam ln J F^-T``,
    ``A:dF = mu dF + (mu - lam ln J) (F^-1 dF F^-1)^T + lam tr(F^-1 dF) F^-T``.
    """
    from skfem import BilinearForm, Functional, LinearForm
    from skfem.helpers import ddot, det, eye, grad, inv, mul, trace, transpose

    def kin(w):
        G = grad(w["u"])
        F = eye(np.ones(G.shape[2:]), 2) + G
        Fi = inv(F)
        return F, Fi, np.log(det(F))

    @Functional
    def energy(w):
        F, _, lnJ = kin(w)
        return 0.5 * mu * (ddot(F, F) - 2.0 - 2.0 * lnJ) + 0.5 * lam * lnJ**2

    @LinearForm
    def residual(v, w):
        F, Fi, lnJ = kin(w)
        FiT = transpose(Fi)
        return ddot(mu * (F - FiT) + lam * lnJ * FiT, grad(v))

    @BilinearForm
    def tangent(du, v, w):
        F, Fi, lnJ = kin(w)
        dF = grad(du)
        AdF = (mu * dF + (mu - lam * lnJ) * transpose(mul(Fi, mul(dF, Fi)))
               + lam * trace(mul(Fi, dF)) * transpose(Fi))
        return ddot(AdF, grad(v))

    return energy, residual, tangent


def skfem_forms(model, u, basis=None):
    r"""Neo-Hookean strain energy, internal force and tangent by scikit-fem, in lib's layout.

    Parameters
    ----------
    model : lib.fem.Model
    u : (2 n_nodes,) displacement in lib's layout
    basis : optional ``(basis, perm)`` from :func:`skfem_basis`

    Returns
    -------
    (W, f, K) : float, (2 n_nodes,) ndarray, CSR (2 n_nodes, 2 n_nodes); compare
        with ``fem.energy(model, u)``, ``fem.gradient(model, u)``, ``fem.hessian(model, u)``.
    """
    from skfem import asm

    basis, perm = skfem_basis(model) if basis is None else basis
    energy, residual, tangent = _nh_forms(model.mu, model.lam)
    usk = np.asarray(u, dtype=float)[perm]
    w = basis.interpolate(usk)
    G = w.grad
    J = (1.0 + G[0, 0]) * (1.0 + G[1, 1]) - G[0, 1] * G[1, 0]
    if np.any(J <= 0):
        raise ValueError(f"u inverts an element: min det F = {J.min():.3e} at a quadrature point")
    W = float(energy.assemble(basis, u=w))
    fsk = asm(residual, basis, u=w)
    Ksk = asm(tangent, basis, u=w).tocoo()
    f = np.empty(model.n_dofs)
    f[perm] = fsk
    K = sp.csr_matrix((Ksk.data, (perm[Ksk.row], perm[Ksk.col])), shape=Ksk.shape)
    return W, f, K


def skfem_static(model, load, steps=10, maxiter=40, basis=None):
    r"""Large-deformation equilibrium with scikit-fem's forms and Newton's method.

    Same load increments as :func:`lib.fem.static`; at each, Newton on the
    condensed residual until an update is below ``1e-13 |u|``, then one more
    update (Newton's quadratic convergence puts it at round-off), so
    the result is the discrete solution to machine precision.  Returns ``u``
    in lib's layout.

    Raises
    ------
    RuntimeError naming the step and the update size if Newton does not settle.
    """
    from skfem import asm, condense, solve

    steps = _check_count(steps, "steps")
    basis, perm = skfem_basis(model) if basis is None else basis
    _, residual, tangent = _nh_forms(model.mu, model.lam)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    fixed_sk = inv[model.fixed]
    fsk = np.asarray(load, dtype=float)[perm]
    u = np.zeros(basis.N)
    for step in range(1, steps + 1):
        fs = fsk * step / steps
        settled = False
        for it in range(maxiter):
            w = basis.interpolate(u)
            r = asm(residual, basis, u=w) - fs
            K = asm(tangent, basis, u=w)
            du = _newton_step(lambda: solve(*condense(K, -r, D=fixed_sk)),
                              f"scikit-fem Newton: load step {step}/{steps}, iteration {it}")
            u = u + du
            if settled:               # one more update after the small one: at round-off
                break
            settled = np.abs(du).max() <= 1e-13 * np.abs(u).max()
        else:
            raise RuntimeError(f"scikit-fem Newton: load step {step}/{steps}: "
                               f"update {np.abs(du).max():.3e} after {maxiter} iterations")
    out = np.empty(model.n_dofs)
    out[perm] = u
    return out


def skfem_linear(model, basis=None):
    r"""Linear-elastic stiffness and consistent mass from scikit-fem's own forms, lib's layout.

    ``skfem.models.elasticity.linear_elasticity`` with the model's Lame
    constants, and the mass form ``rho u . v`` on a basis exact for it (order 2p).
    """
    from skfem import Basis, BilinearForm, asm
    from skfem.helpers import dot
    from skfem.models.elasticity import linear_elasticity

    basis, perm = skfem_basis(model) if basis is None else basis
    mbasis = Basis(basis.mesh, basis.elem, intorder=2 * (1 if model.mesh.element == "T3" else 2))
    rho = model.rho

    @BilinearForm
    def mass(u, v, w):
        return rho * dot(u, v)

    def to_lib(A):
        A = A.tocoo()
        return sp.csr_matrix((A.data, (perm[A.row], perm[A.col])), shape=A.shape)

    return (to_lib(asm(linear_elasticity(model.lam, model.mu), basis)),
            to_lib(asm(mass, mbasis)))


def skfem_cantilever(nx, ny, nu=0.3, element="T6", k=2):
    r"""The FEM chapter's cantilever (L/h = 10, end shear) solved entirely by scikit-fem.

    scikit-fem's linear-elasticity stiffness and mass (:func:`skfem_linear`) on
    the same mesh, the consistent load of a uniform end shear, scikit-fem's
    ``condense`` + ``solve``; frequencies by ``eigsh`` shift-invert.

    Returns
    -------
    (tip_ratio, omega_ratios) : mean tip deflection / ``P L^3/(3 E' I)`` and the
        first ``k`` frequencies / Euler-Bernoulli with ``E'`` (ascending modes).
    """
    from skfem import condense, solve

    model = fem.cantilever(nx, ny, element, nu)
    K, M = skfem_linear(model)
    f = fem.tip_shear_load(model, 1.0)
    u = solve(*condense(K, f, D=model.fixed))
    tip = -fem.tip_deflection(model, u) / fem.euler_bernoulli_tip(model, 1.0)
    Kf, Mf = fem.condense(model, K), fem.condense(model, M)
    k = _check_count(k, "k")
    if k >= Kf.shape[0]:
        raise ValueError(f"k must be < {Kf.shape[0]} (the free dofs of the {nx} x {ny} mesh), "
                         f"got {k}")
    try:
        lam = np.sort(spla.eigsh(Kf.tocsc(), k=k, M=Mf.tocsc(), sigma=0.0, which="LM")[0])
    except spla.ArpackNoConvergence as exc:
        raise RuntimeError(f"skfem_cantilever: ARPACK found only {len(exc.eigenvalues)} of "
                           f"k = {k} eigenvalues ({exc})") from None
    m = model.mesh
    eb = beam.euler_bernoulli_omegas(k) * np.sqrt(
        fem.plane_strain_modulus(model) * m.height**3 / 12 / (model.rho * m.height * m.length**4))
    return float(tip), np.sqrt(lam) / eb


# --------------------------------------------------------------------------------------
# independent references
# --------------------------------------------------------------------------------------
def _timoshenko_det(Omega2, rhoI, kGA):
    """det of the free-end block of the transfer matrix expm(A(Omega^2)) (L = EI = rhoA = 1)."""
    # y = [w, psi, M, V]:  w' = psi + V/kGA, psi' = M, M' = -V - rhoI W psi, V' = -W w
    A = np.array([[0.0, 1.0, 0.0, 1.0 / kGA],
                  [0.0, 0.0, 1.0, 0.0],
                  [0.0, -rhoI * Omega2, 0.0, -1.0],
                  [-Omega2, 0.0, 0.0, 0.0]])
    T = sla.expm(A)
    return T[2, 2] * T[3, 3] - T[2, 3] * T[3, 2]


def timoshenko_omegas_transfer(k, r_over_L, nu=0.5, ks=None):
    r"""Clamped-free Timoshenko frequencies from the exact transfer matrix (no ``solve_bvp``).

    With L = EI = rhoA = 1, state ``y = [w, psi, M, V]`` obeys the constant-
    coefficient system

    .. math:: w' = \psi + V/k_sGA,\quad \psi' = M,\quad
              M' = -V - \rho I\,\Omega^2\psi,\quad V' = -\Omega^2 w,

    so ``y(1) = expm(A) y(0)``.  The clamp gives ``w(0) = psi(0) = 0``, the free
    end ``M(1) = V(1) = 0``: the frequency equation is the determinant of the
    (M, V) block of ``expm(A)``.  Roots by ``brentq`` in brackets seeded from
    the Euler-Bernoulli values (the Timoshenko ones lie a little below).

    Examples
    --------
    >>> np.round(timoshenko_omegas_transfer(2, 1e-4), 4).tolist()   # Euler-Bernoulli limit
    [3.516, 22.0345]
    """
    k = _check_count(k, "k")
    r = _check_positive(r_over_L, "r_over_L")
    m = rod.make_rod(1, r_over_L=r, nu=nu, ks=ks)
    rhoI, kGA = m.rhoI, m.kGA
    eb = beam.euler_bernoulli_omegas(k)
    out = []
    for Om in eb:
        # scan downwards from just above the EB root for the first sign change
        grid = np.linspace(1.001 * Om, 0.8 * Om, 41) ** 2
        vals = np.array([_timoshenko_det(g, rhoI, kGA) for g in grid])
        idx = np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))
        if idx.size == 0:
            raise RuntimeError(
                f"no Timoshenko root found between 0.8 and 1.001 times the Euler-Bernoulli "
                f"Omega = {Om:.4f} (mode {len(out) + 1}); r_over_L = {r} may be too thick "
                "for this bracket")
        i = idx[0]
        try:
            root, info = brentq(_timoshenko_det, grid[i + 1], grid[i], args=(rhoI, kGA),
                                xtol=1e-15, rtol=4 * np.finfo(float).eps, full_output=True,
                                disp=False)
        except ValueError as exc:      # SciPy's bracket check: say which mode and input
            raise RuntimeError(f"Timoshenko root of mode {len(out) + 1} (r_over_L = {r}): "
                               f"the bracket [{grid[i + 1]:.6g}, {grid[i]:.6g}] on Omega^2 "
                               f"failed: {exc}") from None
        if not info.converged:
            raise RuntimeError(f"Timoshenko root of mode {len(out) + 1} (r_over_L = {r}): "
                               f"brentq stopped after {info.iterations} iterations: {info.flag}")
        out.append(math.sqrt(root))
    return np.array(out)


def pcc_ritz_exact(n, EI=1.0, rhoA=1.0, L=1.0):
    r"""PCC Rayleigh-Ritz mass and stiffness by closed-form integrals (no quadrature).

    On segment ``k`` (local ``t`` in ``[0, ell]``) the ramp integral ``psi_i`` is
    ``t + (k - i - 1/2) ell`` for ``i < k``, ``t^2/(2 ell)`` for ``i = k`` and 0
    for ``i > k``, so each entry of ``M_ij = rhoA int psi_i psi_j`` is a sum of

    .. math:: \int_0^\ell (t+a)(t+b) = \tfrac{\ell^3}{3} + (a+b)\tfrac{\ell^2}{2} + ab\,\ell,\quad
              \int_0^\ell \tfrac{t^2}{2\ell}(t+a) = \tfrac{\ell^3}{8} + a\tfrac{\ell^2}{6},\quad
              \int_0^\ell \tfrac{t^4}{4\ell^2} = \tfrac{\ell^3}{20}.

    Returns ``(M, K)`` with ``K = diag(EI / ell)``.

    Examples
    --------
    >>> M, K = pcc_ritz_exact(1)
    >>> float(M[0, 0]), float(K[0, 0])
    (0.05, 1.0)
    """
    n = _check_count(n, "n")
    ell = _check_positive(L, "L") / n
    i = np.arange(n)
    kk = i[:, None, None]                         # segment index
    a = (kk - i[None, :, None] - 0.5) * ell       # offset of psi_i on segment k (i < k)
    b = (kk - i[None, None, :] - 0.5) * ell
    lin_i = i[None, :, None] < kk
    lin_j = i[None, None, :] < kk
    quad_i = i[None, :, None] == kk
    quad_j = i[None, None, :] == kk
    both_lin = ell**3 / 3 + (a + b) * ell**2 / 2 + a * b * ell
    qi_lj = ell**3 / 8 + b * ell**2 / 6
    li_qj = ell**3 / 8 + a * ell**2 / 6
    seg = (np.where(lin_i & lin_j, both_lin, 0.0) + np.where(quad_i & lin_j, qi_lj, 0.0)
           + np.where(lin_i & quad_j, li_qj, 0.0) + np.where(quad_i & quad_j, ell**3 / 20, 0.0))
    M = _check_positive(rhoA, "rhoA") * seg.sum(axis=0)
    K = np.diag(np.full(n, _check_positive(EI, "EI") / ell))
    return M, K
