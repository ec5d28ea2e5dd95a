"""Answers to the exercises of the 3-D Cosserat rod chapter (``chapters/rod3d.ipynb``).

Each function computes the answer with :mod:`lib.rod3d`, exactly as the chapter's
folded solution quotes it; :func:`lib.exercises.check` compares a student's value with it.

Examples
--------
>>> from lib import exercises
>>> exercises.check("rod3d-4a", 1.826).correct
True
"""
import numpy as np
from scipy.linalg import eigh

from lib import rod3d as R3
from lib.exercises import exercise

#: r/L of the chapter's slender rod, the one measured against Kirchhoff's unshearable
#: rod (Greenhill's twist, the twisted shaft, Love's helix). The chapter imports it from
#: here, so exercise rod3d-3 and the chapter's tables build the same rod.
SLENDER = 0.002


def _torsion_mask(V, share):
    """Modes (columns of V, 6 dofs per node) whose twist share of |V| exceeds ``share``."""
    parts = np.abs(V.reshape(-1, 6, V.shape[1]))
    return parts[:, 0].sum(0) / parts.sum((0, 1)) > share


@exercise("rod3d-1", rtol=1e-3,
          text="relative bending-energy error of the quaternion measure 2 vec(q) at a "
               "relative rotation of 0.3 rad, a positive fraction")
def quaternion_energy_error():
    """1 - (|2 vec(q)| / 0.3)^2 for the unit quaternion of a 0.3 rad rotation about z."""
    d = 0.3
    measure = 2 * R3.quat_exp([0.0, 0.0, d])[3]
    return 1 - (measure / d) ** 2


@exercise("rod3d-2", rtol=1e-3,
          text="first torsional frequency of the N = 20 rod with psi_0 dropped "
               "(rigid clamp), rad per unit time (nondimensional)")
def rigid_clamp_torsion():
    """First torsional eigenfrequency of the rod with the first element's frame held."""
    m = R3.make_rod3d(20)
    K = R3.hessian(m, R3.straight(m)).toarray()
    M = R3.mass(m)
    lam, V = eigh(K[3:, 3:], np.diag(M[3:]))
    V = np.concatenate([np.zeros((3, V.shape[1])), V])
    return float(np.sqrt(lam[_torsion_mask(V, 0.99)][0]))


def _greenhill_continuum():
    """The slip: Greenhill's continuum twist kL(1 + nu), 4e-4 and 6e-5 above the rod's."""
    return np.array([R3.greenhill_twist(nu) for nu in (0.0, 0.3)])


@exercise("rod3d-3", rtol=1e-5,
          text=f"critical twist of the r/L = {SLENDER:g}, N = 40 rod for nu = 0 and nu = 0.3: "
               "array of 2, rad",
          slips={"continuum": (_greenhill_continuum,
                               "Greenhill's continuum formula kL(1 + nu); the exercise asks "
                               "for the discrete rod (N = 40, lib.rod3d.critical_twist), "
                               "which buckles at a slightly smaller twist")})
def greenhill_twists():
    """Critical twist angles from :func:`lib.rod3d.critical_twist` for two Poisson ratios."""
    return np.array([R3.critical_twist(R3.make_rod3d(40, r_over_L=SLENDER, nu=nu))
                     for nu in (0.0, 0.3)])


@exercise("rod3d-4a", rtol=1e-3,
          text="element length l/r at which the shear and stretch terms are equal "
               "(nu = 0.5, k_s = 0.9), nondimensional")
def crossover_length():
    """l/r = sqrt(E / (k_s G)) = sqrt(2 (1 + nu) / k_s)."""
    return float(np.sqrt(2 * (1 + 0.5) / 0.9))


def _dt(N, exact):
    m = R3.make_rod3d(N)
    return 2 / (R3.frequencies(m)[-1] if exact else R3.omega_max_estimate(m)["max"])


@exercise("rod3d-4b", rtol=1e-3,
          text="explicit step 2 / omega_max of the r/L = 0.04 rod at N = 80, "
               "nondimensional time")
def step_n80():
    """Critical step at N = 80 from the omega_max estimate."""
    return _dt(80, exact=False)


@exercise("rod3d-4c", rtol=1e-3,
          text="ratio dt_c(N = 20) / dt_c(N = 80), nondimensional (> 1)")
def step_ratio():
    """How many times smaller the N = 80 step is than the N = 20 one."""
    return _dt(20, exact=True) / _dt(80, exact=False)


@exercise("rod3d-5", rtol=1e-2,
          text="tangent asymmetry max|K - K^T| / max|K| (largest absolute entries) at the "
               "dead-moment equilibrium, N = 20, nondimensional")
def dead_moment_asymmetry():
    """Asymmetry of the consistent tangent under a dead twisting moment."""
    m = R3.make_rod3d(20)
    load = np.array([0.0, -1.0, 0.0, 1.0, 0.0, 0.0])
    state = R3.static(m, load, moment="dead")
    _, K = R3.residual_tangent(m, state, load, 0.0, "dead")
    K = K.toarray()
    return float(np.abs(K - K.T).max() / np.abs(K).max())
