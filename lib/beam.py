"""Analytic and continuum references for the planar cantilever.

Every quantity is nondimensional: length L = 1, bending stiffness EI = 1 and
mass per length rhoA = 1, so an angular frequency omega is the number
Omega = omega L^2 sqrt(rhoA / EI) and a tip load P is alpha = P L^2 / EI.

Public functions
----------------
euler_bernoulli_omegas(k)            Omega_1..Omega_k, clamped-free Euler-Bernoulli beam
timoshenko_omegas(k, r_over_L, ...)  Omega_1..Omega_k, clamped-free Timoshenko beam (solve_bvp)
timoshenko_shear_coefficient(nu)     Cowper's k_s = 6(1+nu)/(7+6nu) for a circular section
elastica_tip(alpha)                  tip (x, y) of the inextensible elastica, dead load in -y
elastica_shape(alpha, s)             the whole elastica (x(s), y(s), theta(s))
arc_tip(kappa_L)                     tip (x, y) of a constant-curvature arc (pure tip moment)

Arguments are checked with :mod:`lib.core.checks` (a ``ValueError`` naming the argument);
a SciPy solver that fails is a :class:`BeamSolveError`, a :class:`lib.core.errors.SolveError`.

References: Timoshenko (1921) for the shear-deformable beam, Cowper (1966) for
the shear coefficient; the elastica is the Kirchhoff rod of the seed's chapter
2.16 (Euler's elastica).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_bvp, solve_ivp
from scipy.optimize import brentq

from .core import checks
from .core.errors import SolveError

__all__ = [
    "BeamSolveError",
    "euler_bernoulli_omegas",
    "timoshenko_omegas",
    "timoshenko_shear_coefficient",
    "elastica_tip",
    "elastica_shape",
    "arc_tip",
]


class BeamSolveError(SolveError):
    """A SciPy solver behind a beam solution failed; the message names the argument
    (mode and r_over_L, or alpha) and the solver's own status and message."""


def euler_bernoulli_omegas(k):
    """Dimensionless frequencies of the clamped-free Euler-Bernoulli beam.

    The mode k has omega_k = Omega_k sqrt(EI / rhoA) / L^2 with
    Omega_k = beta_k^2 and beta_k the k-th positive root of

        cos(beta) cosh(beta) = -1.

    The roots are bracketed in ((k - 1) pi, k pi) and found by ``brentq`` on
    cos(beta) + 1/cosh(beta), which is the same equation without overflow.

    Parameters
    ----------
    k : int
        Number of modes (>= 1).

    Returns
    -------
    ndarray, shape (k,)
        Omega_1 .. Omega_k, ascending.

    Examples
    --------
    >>> euler_bernoulli_omegas(3).round(4)
    array([ 3.516 , 22.0345, 61.6972])
    """
    k = checks.integer(k, "k", low=1)

    def f(b):
        with np.errstate(over="ignore"):          # 1 / cosh(b) = 0 past b = 710
            return np.cos(b) + 1.0 / np.cosh(b)

    betas = [brentq(f, max(j - 1, 0.5) * np.pi, j * np.pi, xtol=1e-15, rtol=1e-15)
             for j in range(1, k + 1)]
    return np.asarray(betas) ** 2


def timoshenko_shear_coefficient(nu):
    """Cowper's shear coefficient of a solid circular section, 6(1+nu)/(7+6nu).

    >>> round(timoshenko_shear_coefficient(0.5), 12)
    0.9
    """
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    return 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)


def timoshenko_omegas(k, r_over_L, nu=0.5, ks=None, tol=1e-8, nodes=101):
    """Dimensionless frequencies of the clamped-free Timoshenko beam by ``solve_bvp``.

    Circular section of radius r with L = EI = rhoA = 1, so EA = 4/r^2,
    k_sGA = ks EA / (2(1+nu)) and rhoI = r^2/4.  For a mode w, psi
    (deflection, section rotation) at angular frequency omega,

        -rhoA omega^2 w   = (k_sGA (w' - psi))',
        -rhoI omega^2 psi = EI psi'' + k_sGA (w' - psi),

    with w = psi = 0 at s = 0 and zero shear force and moment at s = 1.
    Written first order in y = (w, psi, Q, m), Q = k_sGA (w' - psi),
    m = EI psi', with omega^2 an unknown parameter and the normalisation
    w(1) = 1.  Each mode starts from its Euler-Bernoulli shape and frequency.

    Parameters
    ----------
    k : int
        Number of modes (>= 1).
    r_over_L : float
        Section radius over length (> 0).
    nu : float
        Poisson ratio in (-1, 0.5].
    ks : float, optional
        Shear coefficient (> 0); Cowper's 6(1+nu)/(7+6nu) by default.
    tol, nodes :
        ``solve_bvp`` tolerance (> 0) and initial mesh size (>= 3).

    Returns
    -------
    ndarray, shape (k,)
        Omega_1 .. Omega_k.

    Raises
    ------
    ValueError
        For a bad argument (names it).
    BeamSolveError
        If ``solve_bvp`` does not report success for a mode, or the modes it
        returns are not ascending (names the mode, r_over_L and the solver
        message).

    References
    ----------
    Timoshenko (1921); Cowper (1966).

    Examples
    --------
    >>> timoshenko_omegas(2, 0.04).round(4)
    array([ 3.502 , 21.4417])
    """
    k = checks.integer(k, "k", low=1)
    r = checks.positive(r_over_L, "r_over_L")
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    ks = timoshenko_shear_coefficient(nu) if ks is None else checks.positive(ks, "ks")
    tol = checks.positive(tol, "tol")
    nodes = checks.integer(nodes, "nodes", low=3)
    EA = 4.0 / r**2 if r * r > 0.0 else np.inf
    S = ks * EA / (2.0 * (1.0 + nu))
    if not 0.0 < S < np.inf:
        raise ValueError(f"r_over_L = {r!r} gives EA = 4/r^2 = {EA!r}, kGA = {S!r}: out of "
                         f"floating point")
    rhoI = r**2 / 4.0

    def rhs(s, y, p):
        w2 = p[0]
        w, psi, Q, m = y
        return np.vstack([psi + Q / S, m, -w2 * w, -rhoI * w2 * psi - Q])

    def bc(ya, yb, p):
        return np.array([ya[0], ya[1], yb[2], yb[3], yb[0] - 1.0])

    s = np.linspace(0.0, 1.0, nodes)
    out = np.empty(k)
    for j, Om in enumerate(euler_bernoulli_omegas(k)):
        b = np.sqrt(Om)
        # Euler-Bernoulli clamped-free mode, normalised to w(1) = 1
        sig = (np.cosh(b) + np.cos(b)) / (np.sinh(b) + np.sin(b))

        def mode(x, d=0):
            parts = [
                (np.cosh, np.cos, np.sinh, np.sin),
                (np.sinh, lambda t: -np.sin(t), np.cosh, np.cos),
                (np.cosh, lambda t: -np.cos(t), np.sinh, lambda t: -np.sin(t)),
                (np.sinh, np.sin, np.cosh, lambda t: -np.cos(t)),
            ][d]
            ch, c, sh, sn = parts
            return b**d * (ch(b * x) - c(b * x) - sig * (sh(b * x) - sn(b * x)))

        w1 = mode(1.0)
        w = mode(s) / w1
        psi = mode(s, 1) / w1
        m = mode(s, 2) / w1
        Q = -mode(s, 3) / w1
        y0 = np.vstack([w, psi, Q, m])
        try:
            sol = solve_bvp(rhs, bc, s, y0, p=[Om**2], tol=tol, max_nodes=200000)
        except (ValueError, np.linalg.LinAlgError) as err:
            raise BeamSolveError(
                f"solve_bvp raised for Timoshenko mode {j + 1} (r_over_L={r}): {err}") from None
        if sol.status != 0:
            raise BeamSolveError(
                f"solve_bvp failed for Timoshenko mode {j + 1} (r_over_L={r}): "
                f"status {sol.status}, {sol.message}"
            )
        out[j] = np.sqrt(sol.p[0])
    if np.any(np.diff(out) <= 0):
        raise BeamSolveError(
            f"Timoshenko modes for r_over_L={r} are not distinct and ascending: {out}")
    return out


def _elastica_ivp(alpha, kappa0, dense=False, stop=False):
    # y = (theta, theta', x, y);  theta'' = alpha cos(theta)
    def f(s, u):
        return [u[1], alpha * np.cos(u[0]), np.cos(u[0]), np.sin(u[0])]

    def turn(s, u):  # theta' returns to zero: the free end of a shorter rod
        return u[1]

    turn.terminal = True
    turn.direction = 1.0
    sol = solve_ivp(f, (0.0, 1.0), [0.0, -kappa0, 0.0, 0.0], method="DOP853",
                    rtol=1e-12, atol=1e-14, dense_output=dense,
                    events=turn if stop else None)
    if sol.status < 0:
        raise BeamSolveError(
            f"solve_ivp failed on the elastica for alpha={alpha!r} (shooting on the clamp "
            f"curvature {kappa0!r}): status {sol.status}, {sol.message}")
    return sol


def _elastica_solve(alpha):
    if alpha == 0.0:
        return alpha, 0.0
    sgn = np.sign(alpha)
    a = abs(alpha)

    # Shoot on the clamp curvature kappa0 = -theta'(0).  The first integral
    # theta'^2/2 = a (sin(theta) - sin(theta_1)) bounds kappa0 by sqrt(2a)
    # (theta_1 -> -pi/2, never reached).  Along the physical branch theta'
    # stays <= 0; if it returns to zero at s = S < 1 the rod is too short
    # for that kappa0 and g = 1 - S > 0, otherwise g = theta'(1) <= 0.
    # g is monotone and continuous through its single root.
    def g(kappa0):
        if kappa0 <= 0.0:
            return 1.0
        sol = _elastica_ivp(a, kappa0, stop=True)
        if sol.t_events[0].size:
            return 1.0 - sol.t_events[0][0]
        return sol.y[1, -1]

    try:
        kappa0 = brentq(g, 0.0, np.sqrt(2.0 * a), xtol=1e-14, rtol=1e-14)
    except (ValueError, RuntimeError) as err:       # no sign change / no convergence
        raise BeamSolveError(
            f"shooting for the elastica with alpha={alpha!r} found no clamp curvature in "
            f"[0, sqrt(2 |alpha|)] = [0, {np.sqrt(2.0 * a):.6g}]: {err}") from None
    return sgn, kappa0


def elastica_shape(alpha, s=None):
    """Shape of the inextensible elastica cantilever under a dead tip load.

    The load alpha = P L^2 / EI acts in -y at the free end; with theta the
    counter-clockwise tangent angle,

        theta'' = alpha cos(theta),  theta(0) = 0,  theta'(1) = 0,
        x' = cos(theta),  y' = sin(theta),

    solved by shooting on theta'(0) (``solve_ivp`` DOP853, rtol 1e-12, and
    ``brentq``).  A negative alpha loads in +y (mirror image).

    Parameters
    ----------
    alpha : float
        Load parameter P L^2 / EI.
    s : array_like, optional
        Arc-length stations in [0, 1]; 101 equally spaced by default.

    Returns
    -------
    x, y, theta : ndarray
        Centre line and tangent angle at the stations ``s``.

    Raises
    ------
    ValueError
        For a bad ``alpha`` or ``s`` (named).
    BeamSolveError
        If the shooting fails.  Past |alpha| of about 500 the clamp curvature equals
        its bound sqrt(2 |alpha|) to round-off, and the free end (theta' = 0) cannot be
        resolved: that is this error too (theta' at the free end, or its sign along
        the rod, says so), never a wrong shape.

    Examples
    --------
    >>> x, y, th = elastica_shape(0.0, [0.0, 1.0])
    >>> x.tolist(), y.tolist()
    ([0.0, 1.0], [0.0, 0.0])
    """
    alpha = checks.real(alpha, "alpha")
    s = np.linspace(0.0, 1.0, 101) if s is None else checks.vector(s, "s", low=0.0, high=1.0)
    sgn, kappa0 = _elastica_solve(alpha)
    if kappa0 == 0.0:
        return s.copy(), np.zeros_like(s), np.zeros_like(s)
    sol = _elastica_ivp(abs(alpha), kappa0, dense=True)
    dth = sol.sol(np.linspace(0.0, 1.0, 201))[1]      # theta' <= 0, and 0 at the free end
    if max(dth.max(), abs(dth[-1])) > 1e-6 * kappa0:
        raise BeamSolveError(
            f"the elastica for alpha={alpha!r} is not resolved: its clamp curvature "
            f"{kappa0!r} is sqrt(2 |alpha|) to round-off, and theta' = {dth[-1]:.3g} at the "
            f"free end (max {dth.max():.3g}, both should be 0); |alpha| <= 500 is resolved")
    th, _, x, y = sol.sol(s)
    return x, sgn * y, sgn * th


def elastica_tip(alpha):
    """Tip (x, y) of the inextensible elastica cantilever, dead load in -y.

    See :func:`elastica_shape` for the equations; y < 0 for alpha > 0.
    For a small load the tip deflection tends to the linear -alpha/3.

    Parameters
    ----------
    alpha : float
        Load parameter P L^2 / EI.

    Returns
    -------
    (x, y) : tuple of float

    Examples
    --------
    >>> x, y = elastica_tip(1e-6)
    >>> round(y / 1e-6, 6)
    -0.333333
    >>> x, y = elastica_tip(2.0)
    >>> round(x, 5), round(y, 5)
    (0.83936, -0.49346)
    """
    x, y, _ = elastica_shape(alpha, [1.0])
    return float(x[0]), float(y[0])


def arc_tip(kappa_L):
    """Tip (x, y) of the constant-curvature arc of a pure tip moment.

    An inextensible rod under a tip moment M = EI kappa bends into a circular
    arc of curvature kappa; with a = kappa L the tip sits at
    (L sin(a)/a, L (1 - cos a)/a) (counter-clockwise for M > 0).

    Parameters
    ----------
    kappa_L : float
        Curvature times length, a = M L / EI.

    Examples
    --------
    >>> x, y = arc_tip(np.pi)
    >>> print(f"{x:.12f} {y:.12f} {2 / np.pi:.12f}")
    0.000000000000 0.636619772368 0.636619772368
    """
    a = checks.real(kappa_L, "kappa_L")
    if abs(a) < 1e-4:  # series, avoids 0/0
        return 1.0 - a**2 / 6.0 + a**4 / 120.0, a / 2.0 - a**3 / 24.0
    return np.sin(a) / a, (1.0 - np.cos(a)) / a
