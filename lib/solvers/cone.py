r"""Coulomb friction as a linear complementarity problem: the pyramidal friction cone.

Model-independent.  A mechanical model (a rod, a rigid body, anything with contacts)
hands over what one time step looks like *in contact space*; this module returns the
contact impulses that satisfy unilateral contact and Coulomb's law with maximal
dissipation, exactly (to the tolerance of Lemke's method, :func:`lib.solvers.saddle.solve_lcp`).

Contact space
-------------
Each of ``n_c`` contacts has a basis of ``1 + d`` rows: its normal, then ``d``
tangent directions (``d = 2`` on a surface in 3-D, ``d = 1`` in the plane).  The
model supplies

* ``G`` (``m x m``, ``m = n_c (1 + d)``): the Delassus operator
  :math:`\mathbf G = \mathbf J\mathbf A^{-1}\mathbf J^{\top}` of its step, the
  change of contact velocity per unit contact impulse (symmetric, positive
  semidefinite);
* ``u`` (``m``): the contact velocities at the end of the step *without* contact
  impulses (its normal rows include the gap divided by the step, so that
  :math:`u_n \ge 0` means "no penetration at the end of the step").

With impulses :math:`\mathbf p` the end-of-step contact velocity is
:math:`\mathbf w = \mathbf G\mathbf p + \mathbf u`.

The friction cone, linearised (Stewart and Trinkle 1996)
--------------------------------------------------------
The tangential impulse of contact ``c`` is a nonnegative combination of ``k``
facet directions ``d_j`` (columns of ``directions``, in the contact's tangent
coordinates), each carrying its own coefficient :math:`\mu_{cj}`:

.. math::

    \mathbf p_t = \sum_j \mu_{cj}\,\beta_j\,\mathbf d_j, \qquad \beta_j \ge 0,
    \qquad \sum_j \beta_j \le p_n ,

so the admissible friction impulses fill the polygon with vertices
:math:`\mu_{cj} p_n \mathbf d_j` (a square for four directions and one
coefficient; a kite for the anisotropic forward / backward / lateral friction of a
rod).  Maximal dissipation (the friction impulse minimises
:math:`\mathbf p_t\cdot\mathbf w_t` over that polygon) gives, with a slip
multiplier :math:`\gamma \ge 0` per contact,

.. math::

    0 \le p_n &\perp w_n \ge 0, \\
    0 \le \beta_j &\perp \mu_{cj}\,\mathbf d_j\cdot\mathbf w_t + \gamma \ge 0, \\
    0 \le \gamma &\perp p_n - \textstyle\sum_j \beta_j \ge 0 .

A sticking contact has :math:`\gamma = 0` and :math:`\mathbf w_t = \mathbf 0`
exactly; a sliding one has its impulse on the boundary of the polygon, on the
facet that opposes the slip, and :math:`\gamma` = the largest
:math:`-\mu_{cj}\mathbf d_j\cdot\mathbf w_t` (the coefficient times the slip
speed along the opposing facet).  The LCP matrix is copositive-plus
when ``G`` is positive semidefinite, so Lemke's method finds a solution
(Anitescu and Potra 1997); it is not unique in general (Painleve-type
ambiguities), only the contact velocities are.

Functions
---------
pyramid(k, tangent_dims=2)           ``k`` facet directions, evenly spaced
friction_lcp(G, u, mu, directions)   the LCP matrix and vector (for inspection)
solve_friction(G, u, mu, directions) impulses, end velocities, slip multipliers

Failures of Lemke's method are reported by the :class:`RuntimeError` that
:func:`lib.solvers.saddle.solve_lcp` raises (it says how many pivots were made and the
residual reached); the caller adds where in its time loop it happened.

References
----------
D. E. Stewart and J. C. Trinkle, *Int. J. Numer. Meth. Eng.* 39 (1996) 2673-2691;
M. Anitescu and F. A. Potra, *Nonlinear Dynamics* 14 (1997) 231-247;
R. W. Cottle, J.-S. Pang and R. E. Stone, *The Linear Complementarity Problem*
(Academic Press, 1992).

Examples
--------
A unit mass on the floor pushed sideways by 3 N for one step of 0.1 s, friction
coefficient 0.5, weight 9.81 N: it sticks (3 < 0.5 * 9.81) and the floor supplies
exactly the impulses that hold it.

>>> import numpy as np
>>> h, g = 0.1, 9.81
>>> G = np.eye(2)                # 1 contact, planar: rows (normal, tangent), mass 1
>>> u = np.array([-g * h, 3.0 * h])  # free end velocities: gravity and push over h
>>> r = solve_friction(G, u, np.full((1, 2), 0.5), pyramid(2, tangent_dims=1))
>>> np.round(r.impulse / h, 9).tolist(), bool(r.sticking[0])
([[9.81, -3.0]], True)
"""
from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np

from ..core import checks
from ..core.errors import ConvergenceError
from .saddle import solve_lcp

__all__ = ["pyramid", "friction_lcp", "solve_friction", "FrictionResult"]


def pyramid(k, tangent_dims=2):
    r"""``k`` unit facet directions of a pyramidal cone, shape ``(tangent_dims, k)``.

    In 3-D (``tangent_dims = 2``) the directions are at the angles
    :math:`2\pi j/k`, starting on the first tangent axis; ``k`` must be even, so
    that every direction has its opposite (friction must be able to oppose slip
    either way).  In the plane (``tangent_dims = 1``) only ``k = 2`` makes sense:
    ``[[1, -1]]``.

    >>> pyramid(4).round(12).tolist()
    [[1.0, 0.0, -1.0, -0.0], [0.0, 1.0, 0.0, -1.0]]
    """
    tangent_dims = checks.integer(tangent_dims, "tangent_dims", 1)
    k = checks.integer(k, "k", 2)
    if tangent_dims == 1:
        if k != 2:
            raise ValueError(f"k must be 2 for a planar contact (tangent_dims=1), got {k}")
        return np.array([[1.0, -1.0]])
    if tangent_dims != 2:
        raise ValueError(f"tangent_dims must be 1 or 2, got {tangent_dims}")
    if k % 2:
        raise ValueError(f"k must be even (each direction with its opposite), got {k}")
    a = 2.0 * np.pi * np.arange(k) / k
    return np.vstack([np.cos(a), np.sin(a)])


def _directions(directions, name="directions", dims=(1, 2)):
    """Facet directions (d, k): nonzero columns, each with its opposite among them.

    A zero column carries no friction, and a direction without its opposite lets the
    contact slip freely the other way: both would give a silently wrong friction force.
    """
    a = checks.array(directions, name)
    if a.ndim != 2 or a.shape[0] not in dims or a.shape[1] < 2:
        raise ValueError(f"{name} must have shape ({' or '.join(map(str, dims))}, k >= 2), "
                         f"got {a.shape}")
    big = np.abs(a).max(axis=0)
    if not np.all(big > 0):
        j = int(np.argmin(big > 0))
        raise ValueError(f"{name} must be nonzero vectors, column {j} is zero: "
                         f"{checks.show(a.tolist())}")
    unit = a / big                                   # rescaled first: no under- or overflow
    unit = unit / np.linalg.norm(unit, axis=0)
    paired = np.any(np.abs(unit[:, :, None] + unit[:, None, :]).max(axis=0) <= 1e-9, axis=1)
    if not np.all(paired):
        j = int(np.argmin(paired))
        raise ValueError(f"{name} must come in opposite pairs (friction must oppose slip "
                         f"either way); column {j}, {checks.show(a[:, j].tolist())}, has no "
                         f"opposite in {checks.show(a.tolist())}")
    return a


def _checked(G, u, mu, directions):
    directions = _directions(directions)
    d, k = directions.shape
    mu = checks.array(mu, "mu", shape=(None, k), low=0.0, nonempty=True)
    m = mu.shape[0] * (1 + d)
    G = checks.array(G, "G", shape=(m, m))
    u = checks.array(u, "u", shape=(m,))
    return G, u, mu, directions


def _facet_map(mu, directions):
    """T (m, nc (1 + k)): impulses in contact space from (p_n, beta) per contact."""
    d, k = directions.shape
    nc = mu.shape[0]
    T = np.zeros((nc, 1 + d, nc, 1 + k))
    c = np.arange(nc)
    T[c, 0, c, 0] = 1.0
    T[c, 1:, c, 1:] = mu[:, None, :] * directions[None, :, :]
    return T.reshape(nc * (1 + d), nc * (1 + k))


def friction_lcp(G, u, mu, directions):
    r"""The LCP ``(A, b)`` of the linearised friction cone (see module docstring).

    Unknowns ``z = [p_n, beta (nc k), gamma (nc)]``, per contact in blocks:
    ``[p_n_c, beta_c1..beta_ck]`` for every contact, then the ``nc`` slip multipliers.

    Returns
    -------
    A : (nc (k + 2), nc (k + 2)) ndarray
    b : (nc (k + 2),) ndarray
    T : (nc (1 + d), nc (1 + k)) ndarray, the map from ``[p_n, beta]`` to
        contact-space impulses (``p = T z[:nc (1 + k)]``)

    >>> A, b, T = friction_lcp(np.eye(2), [0.0, 1.0], [[0.5, 0.5]], pyramid(2, 1))
    >>> A.shape, b.tolist()
    ((4, 4), [0.0, 0.5, -0.5, 0.0])
    """
    G, u, mu, directions = _checked(G, u, mu, directions)
    return _lcp(G, u, mu, directions)


def _lcp(G, u, mu, directions):
    nc, k = mu.shape
    T = _facet_map(mu, directions)
    n1 = nc * (1 + k)
    A = np.zeros((n1 + nc, n1 + nc))
    A[:n1, :n1] = T.T @ G @ T
    b = np.zeros(n1 + nc)
    b[:n1] = T.T @ u
    # slip multiplier gamma_c enters every facet row of contact c ...
    E = np.zeros((nc, 1 + k))
    E[:, 1:] = 1.0
    rows = np.arange(n1).reshape(nc, 1 + k)
    cols = n1 + np.arange(nc)
    A[rows[:, 1:], cols[:, None]] = 1.0
    # ... and the cone row: p_n - sum_j beta_j >= 0
    A[cols[:, None], rows[:, :1]] = 1.0
    A[cols[:, None], rows[:, 1:]] = -1.0
    return A, b, T


@dataclass(frozen=True)
class FrictionResult:
    """Solution of :func:`solve_friction`.

    Fields: ``impulse`` (nc, 1 + d), the contact impulse of each contact, normal then
    tangent coordinates; ``velocity`` (nc, 1 + d), the end-of-step contact velocity
    w = G p + u in the same layout; ``slip`` (nc,), the slip multiplier gamma (0 when
    sticking or separated, the coefficient times the slip speed along the opposing facet
    when sliding); ``sticking`` (nc,) bool, in contact (p_n > 0) with zero tangential
    velocity; ``residual``, the natural residual max |min(z, A z + b)| of the
    nondimensionalised LCP (see :func:`solve_friction`) after
    the active-set polish of Lemke's answer; ``pivots``, the Lemke pivots.
    """

    impulse: np.ndarray
    velocity: np.ndarray
    slip: np.ndarray
    sticking: np.ndarray
    residual: float
    pivots: int


def solve_friction(G, u, mu, directions, tol=1e-10):
    r"""Contact impulses with unilateral contact and pyramidal Coulomb friction.

    Solves the LCP of :func:`friction_lcp` by Lemke's method and maps the solution
    back to contact space.  The LCP is nondimensionalised first (``G`` and ``u``
    divided by powers of two near their largest entries, when those are outside
    ``2^-10 .. 2^10``), so the answer scales with the problem: ``G/s`` gives ``s`` times
    the impulses, ``s u`` gives ``s`` times impulses and velocities.

    Parameters
    ----------
    G : (m, m) array_like, Delassus operator in contact space, ``m = nc (1 + d)``
    u : (m,) array_like, free end-of-step contact velocities (normal rows with gap / h)
    mu : (nc, k) array_like, the coefficient of each facet direction, >= 0
    directions : (d, k) array_like, facet directions in tangent coordinates
        (:func:`pyramid`)
    tol : float, accepted natural residual of the nondimensionalised LCP (relative to
        ``1 + max|b|``)

    Returns
    -------
    FrictionResult

    Raises
    ------
    ValueError
        on inputs of the wrong shape, non-finite entries or negative ``mu``; on
        ``directions`` with a zero column or a column without its opposite; when the
        impulse scale ``max|u| / max|G|`` is outside the floating-point range.
    RuntimeError
        (``lib.core.errors.ConvergenceError``) when Lemke's method stops without a
        solution (ray termination, too many pivots), or when the natural residual stays
        above ``tol`` after an active-set polish of Lemke's answer.

    Examples
    --------
    Pushed by 6 N instead, the mass slides: the friction impulse is mu p_n on the
    facet that opposes the slip, and gamma is the slip speed.

    >>> h, g = 0.1, 9.81
    >>> r = solve_friction(np.eye(2), [-g * h, 6.0 * h], [[0.5, 0.5]], pyramid(2, 1))
    >>> np.round(r.impulse / h, 6).tolist(), round(float(r.velocity[0, 1]), 6)
    ([[9.81, -4.905]], 0.1095)
    >>> round(float(r.slip[0]), 6), bool(r.sticking[0])     # gamma = mu * slip speed
    (0.05475, False)
    """
    tol = checks.positive(tol, "tol")
    G, u, mu, directions = _checked(G, u, mu, directions)
    # nondimensionalised: impulses in units of su/sG, velocities in units of su, so
    # that the pivoting and the tolerances see numbers of order one at any scale; the
    # units are powers of two (exact), and 1 for data already within 2^-10 .. 2^10
    sG, su = _unit(float(np.abs(G).max())), _unit(float(np.abs(u).max()))
    if not math.isfinite(su / sG) or (su / sG == 0.0):
        raise ValueError(f"u (largest {su:.3e}) over G (largest {sG:.3e}) gives impulses of "
                         f"scale {su / sG:.3e}, outside the floating-point range")
    G0, u0 = G, u
    G, u = G / sG, u / su
    A, b, T = _lcp(G, u, mu, directions)
    res = solve_lcp(A, b, tol=max(tol, 1e-6))
    z, residual = _polish(A, b, res.lam)
    scale = 1.0 + float(np.abs(b).max())
    if residual > tol * scale:
        raise ConvergenceError(f"natural residual above {tol * scale:.3e} after {res.pivots} "
                               "Lemke pivots and an active-set polish", where="friction LCP",
                               residual=residual, tol=tol * scale, reason="polish")
    nc, k = mu.shape
    d = directions.shape[0]
    n1 = nc * (1 + k)
    p = T @ z[:n1]
    w = G @ p + u
    P, W = p.reshape(nc, 1 + d), w.reshape(nc, 1 + d)
    wt = np.sqrt(np.sum(W[:, 1:] ** 2, axis=1))
    sticking = (P[:, 0] > 0) & (wt <= tol * scale)
    p = p * (su / sG)
    w = G0 @ p + u0
    return FrictionResult(p.reshape(nc, 1 + d), w.reshape(nc, 1 + d), z[n1:] * su, sticking,
                          residual, res.pivots)


def _unit(s):
    """A power of two near ``s`` (> 0), or 1 when ``s`` is 0 or within 2^-10 .. 2^10."""
    if s == 0.0 or 2.0 ** -10 <= s <= 2.0 ** 10:
        return 1.0
    return 2.0 ** round(math.log2(s))


def _natural_residual(A, b, z):
    return float(np.abs(np.minimum(z, A @ z + b)).max())


def _polish(A, b, z):
    """One active-set refinement of a pivoting solution (removes the tableau's round-off).

    With the basic set S = {z_i > w_i} of Lemke's answer, solve A_SS z_S = -b_S exactly
    (least squares if singular) and keep the result if its natural residual is smaller.
    """
    w = A @ z + b
    S = z > w
    best, res0 = z, _natural_residual(A, b, z)
    if np.any(S):
        zS = np.linalg.lstsq(A[np.ix_(S, S)], -b[S], rcond=None)[0]
        cand = np.zeros_like(z)
        cand[S] = np.maximum(zS, 0.0)
        res1 = _natural_residual(A, b, cand)
        if res1 < res0:
            best, res0 = cand, res1
    return best, res0
