"""Answers to the exercises of the *Constraints* chapter (see :mod:`lib.exercises`).

Exercise 1 (the unit-gradient pendulum) and exercise 2 (the Baumgarte sweep, whose
violations and evaluation counts depend on the integrator's step sequence) are
discussed, not checked.

Examples
--------
>>> from lib.exercises import check
>>> check("constraints-3a", 2.04).hint   # the diameter
'factor 2'
"""
import numpy as np

from lib import constraints as C
from lib.exercises import exercise

G = 9.81
_LCP_A = np.array([[1.0, 2.0], [2.0, 1.0]])
_LCP_B = np.array([-1.0, -1.0])


@exercise("constraints-3a", rtol=1e-3, text="tightest circle radius R_min in m, v = 2 m/s, mu = 0.4")
def tightest_radius():
    r"""$R_\min = v^2/(\mu g)$ (m)."""
    return 2.0 ** 2 / (0.4 * G)


@exercise("constraints-3b", rtol=1e-3, text="side-force multiplier on that circle in N (25 kg robot)")
def side_force_multiplier():
    """The multiplier of the no-slip constraint of :func:`lib.constraints.unicycle`
    driving on the tightest circle (it equals mu m g)."""
    m, v = 25.0, 2.0
    robot = C.unicycle(m=m, J=1.0)
    tr = C.simulate(robot, [0.0, 0.0, 0.0], [v, 0.0, v / tightest_radius()],
                    np.linspace(0.0, 2.0, 11), alpha=2.0)
    return float(tr.lam[-1, 0])


@exercise("constraints-4", rtol=1e-6, atol=1e-3,
          text="average motor power over one revolution in W (crank at 10 rad/s)")
def average_motor_power():
    """Mean of tau * omega over 360 crank angles, tau the multiplier of the driving
    constraint theta_1 = omega t of the chapter's four-bar."""
    fb = C.four_bar(a=0.1, b=0.35, c=0.3, d=0.4, line_density=2.0, g=G)
    s, omega = fb.system, 10.0
    power = []
    for th in np.radians(np.arange(0.0, 360.0, 1.0)):
        q, v = C.four_bar_state(fb, th, omega)
        B = np.vstack([s.jacobian(q), np.eye(9)[2]])
        _, lam = C.kkt_solve(s.mass, B, s.force(0.0, q, v), np.r_[s.gamma(q, v), 0.0])
        power.append(lam[8] * omega)
    return float(np.mean(power))


def lcp_solutions():
    """All solutions of the LCP (A, b) of exercise 5, by enumerating active sets."""
    sols = []
    for S in ([], [0], [1], [0, 1]):
        lam = np.zeros(2)
        if S:
            lam[S] = np.linalg.solve(_LCP_A[np.ix_(S, S)], -_LCP_B[S])
        if lam.min() >= 0 and (_LCP_A @ lam + _LCP_B).min() >= -1e-12:
            sols.append(lam)
    return sols


@exercise("constraints-5a", rtol=1e-9, text="number of solutions of the LCP")
def lcp_count():
    return float(len(lcp_solutions()))


@exercise("constraints-5b", rtol=1e-6, atol=1e-9, text="the lambda that solve_lcp returns, array of 2")
def lcp_lemke():
    return C.solve_lcp(_LCP_A, _LCP_B).lam
