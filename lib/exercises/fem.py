"""Answers to the exercises of the *Finite elements* chapter (see :mod:`lib.exercises`).

Examples
--------
>>> from lib.exercises import check
>>> check("fem-3", 29).hint          # half the steps
'factor 2'
"""
import numpy as np
import scipy.sparse.linalg as spla

from lib import fem, integrate
from lib.constraints import kkt_solve
from lib.exercises import exercise

NU_LIMIT = 0.4999999


@exercise("fem-1", rtol=2e-3,
          text="T3 tip ratio delta/delta_EB at nu = 0.4999999 in percent, array [20 x 2, 40 x 4]")
def t3_locking_ratios():
    """Tip deflection of the T3 cantilevers over the Euler-Bernoulli value, percent."""
    return np.array([100 * fem.cantilever_tip_ratio(nx, ny, "T3", NU_LIMIT)
                     for nx, ny in ((20, 2), (40, 4))])


def _cable_model():
    m40 = fem.cantilever(40, 4, "T6", 0.3)
    X, Y = m40.mesh.nodes.T
    eyelets = np.flatnonzero(np.isclose(Y, m40.mesh.height / 4))
    eyelets = eyelets[np.argsort(X[eyelets])]
    K = fem.condense(m40, fem.linear_stiffness(m40))
    b = fem.cable_row(m40, eyelets)[m40.free]
    return K, b


@exercise("fem-2a", rtol=1e-4, text="cable compliance c = B K^-1 B^T of the T6 40 x 4 cantilever")
def cable_compliance():
    K, b = _cable_model()
    return float(b @ spla.spsolve(K.tocsc(), b))


@exercise("fem-2b", rtol=1e-4, text="cable tension for a shortening of 1e-3")
def cable_tension():
    """delta* / c, which equals the KKT multiplier of the cable constraint."""
    return 1e-3 / cable_compliance()


def _newmark_errors():
    return {n: 1 - integrate.newmark_frequency(1.0, 2 * np.pi / n) for n in range(10, 200)}


@exercise("fem-3", rtol=1e-9, text="smallest whole number of steps per period with error < 0.1 %")
def steps_per_period():
    """The smallest n with 1 - omega_bar/omega < 1e-3 for the trapezoidal rule."""
    return float(min(n for n, e in _newmark_errors().items() if e < 1e-3))


@exercise("fem-4", rtol=2e-3, text="shear coefficient k_s measured on the weakly clamped T6 40 x 8, L/h = 5")
def measured_shear_coefficient():
    r"""Solve $\delta/\delta_{EB} - 1 = E'/(4k_s\mu)(h/L)^2$ for $k_s$."""
    mesh = fem.rectangle_mesh(40, 8, "T6", 5.0, 1.0)
    weak = fem.make_model(mesh, nu=0.3)
    u, _ = kkt_solve(fem.linear_stiffness(weak), fem.section_rows(weak),
                     fem.tip_shear_load(weak), np.zeros(3))
    r = fem.deflection_ratio(weak, u)
    return float(fem.plane_strain_modulus(weak) / (4 * weak.mu)
                 / (mesh.length / mesh.height) ** 2 / (r - 1))


@exercise("fem-5", rtol=1e-3, text="critical step 2/omega_max of T6 10 x 1, 20 x 2, 40 x 4, array of 3")
def critical_steps():
    return np.array([integrate.critical_step(fem.highest_frequency(fem.cantilever(nx, ny, "T6", 0.3)))
                     for nx, ny in ((10, 1), (20, 2), (40, 4))])
