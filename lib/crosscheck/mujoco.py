"""MuJoCo 3.17's composite cable (``mujoco.elasticity.cable`` plugin) as the book's cantilever."""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from ..core import checks
from ..core.errors import SolveError
from ._common import cable_mjcf

__all__ = ["cable_xml", "cable_frequencies"]


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
    segments : int >= 3
        Number of capsule bodies (``count = segments + 1`` vertices; MuJoCo's cable
        needs three or more).
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
    segments = checks.integer(segments, "segments", low=3)
    r = checks.positive(r_over_L, "r_over_L")
    checks.choice(clamp, "clamp", ("rigid", "ball"))
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    A, I = math.pi * r * r, math.pi * r**4 / 4
    E = 1.0 / I
    G = E / (2 * (1 + nu))
    initial = "none" if clamp == "rigid" else "ball"
    return cable_mjcf("cable-cantilever", 'gravity="0 0 0" integrator="Euler" timestep="1e-4"',
                      segments, f'size="1" initial="{initial}"', G, E,
                      f'type="capsule" size="{r!r}" density="{1.0 / A!r}"')


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
    segments : int >= 3
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

    segments = checks.integer(segments, "segments", low=3)
    k = checks.integer(k, "k", low=1)
    if clamp_stiffness is not None:
        checks.positive(clamp_stiffness, "clamp_stiffness")
    eps = checks.positive(eps, "eps")
    return_coupling = checks.boolean(return_coupling, "return_coupling")
    model = mujoco.MjModel.from_xml_string(
        cable_xml(segments, r_over_L, "rigid" if clamp_stiffness is None else "ball"))
    if not np.all(model.jnt_type == mujoco.mjtJoint.mjJNT_BALL):
        raise SolveError("expected a chain of ball joints from the cable composite",
                         where="cable_frequencies")
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
        raise SolveError(f"cable linearisation is not positive definite (min {lam[0]:.3e})",
                         where="cable_frequencies", reason="singular")
    Omega = np.sqrt(lam[:k] * model.body_mass.sum())
    if not return_coupling:
        return Omega
    other = np.setdiff1d(np.arange(nv), z)
    coupling = float(np.abs(Kq[np.ix_(z, other)]).max() / np.abs(Kzz).max())
    return Omega, coupling
