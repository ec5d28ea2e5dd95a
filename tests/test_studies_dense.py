"""The DOP853 reference's vectorised dense output is solve_ivp's OdeSolution bit for bit."""
import numpy as np
from scipy.integrate import solve_ivp

from lib import studies


def _pendulum_chain(t, y):
    q, v = y[:3], y[3:]
    d = np.diff(np.r_[0.0, q, 0.0])
    return np.r_[v, 40.0 * (np.sin(d[1:]) - np.sin(d[:-1]))]


def test_vectorised_dense_output_equals_odesolution_at_any_time_order_and_step_end():
    y0 = np.r_[0.9, -0.4, 0.2, 0.0, 1.0, -0.5]
    full = solve_ivp(_pendulum_chain, (0.0, 3.0), y0, method="DOP853", rtol=1e-9, atol=1e-11,
                     dense_output=True)
    ref = studies.dop853_reference(_pendulum_chain, (0.0, 3.0), y0, [5, 1], rtol=1e-9,
                                   atol=1e-11)
    assert ref.nsteps > 50                              # many steps: many pieces to choose from
    rng = np.random.default_rng(7)
    t = np.r_[rng.uniform(0.0, 3.0, 500), full.t, full.t[::-1], -0.01, 3.01]   # unsorted,
    assert np.array_equal(ref.sol(t), full.sol(t)[[5, 1]])                     # step ends, outside
    for s in (full.t[17], 0.0, 3.0, 1.2345):            # a scalar: shape (k,)
        assert ref.sol(s).shape == (2,)
        assert np.array_equal(ref.sol(s), full.sol(s)[[5, 1]])
    assert ref.sol(np.array([])).shape == (2, 0)
