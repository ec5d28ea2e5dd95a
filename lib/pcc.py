"""Piecewise-constant-curvature (PCC) reduction of the planar cantilever.

The rod of length L is cut into n equal segments of length ell = L / n.  On
segment k the curvature is constant, kappa_k = q_k / ell, so the state is the
vector of segment bending angles (the angle each segment turns through)::

    q = [q_0, q_1, ..., q_{n-1}]          shape (n,), radians

and the tangent angle is theta(s) = sum_i q_i phi_i(s), where the ramp phi_i
rises linearly from 0 to 1 across segment i and stays 1 beyond it.  The rod is
clamped at the origin with tangent +x; gravity g acts in -y.  Everything is
nondimensional by default (L = EI = rhoA = 1, so ``grav`` is rhoA g L^3 / EI).

Two levels of the same model live here.

*Linear Rayleigh-Ritz* (:func:`ritz`, :func:`frequencies`): the small
deflection w(s) = int_0^s theta = sum_i q_i psi_i(s), with psi_i piecewise
quadratic, gives

    M_ij = rhoA int_0^L psi_i psi_j ds,        K = diag(EI / ell).

The trial functions are admissible (w(0) = w'(0) = 0), so every eigenvalue of
(K, M) bounds the Euler-Bernoulli one from above.

*Nonlinear PCC dynamics* (:func:`make_pcc` and the functions that take its
model first): positions p(s) by exact integration of the constant-curvature
arcs, Jacobian J = dp/dq, and d'Alembert's principle
rhoA int J^T pddot ds + grad V = 0 with pddot = J qddot - C(s),
C(s) = int_0^s thetadot^2 t dsigma (t the unit tangent):

    M(q) qddot = rhoA int_0^L J^T C ds - grad V(q),
    M(q) = rhoA int_0^L J^T J ds,
    V(q) = (EI / 2 ell) sum q_i^2 + rhoA g int_0^L y ds.

M(q) and the velocity term use Gauss-Legendre quadrature with ``nquad``
points per segment; the discrete kinetic energy is then that of point masses
w_g rhoA at exactly placed points p(s_g), so the equations conserve
1/2 qdot^T M(q) qdot + V(q) exactly.  V, grad V and its Hessian are exact.

Symbols -> meaning -> shape
---------------------------
n      number of segments                       int
ell    segment length L / n                     float
q      segment bending angles                   (n,)
qd     their rates                              (n,)
Theta  tangent angle at each segment's start    (n,)
P      segment start points x + iy (complex)    (n + 1,)  (P[n] is the tip)
J      Jacobian dp/dq at the quadrature points  (G, n) complex, G = n * nquad
C      velocity-product acceleration int thetadot^2 t
       at the quadrature points                 (G,) complex

Points in the plane are complex numbers x + iy inside the kernels; the public
functions return real arrays with the layout stated in each docstring.

Public functions
----------------
ritz, frequencies                          linear Rayleigh-Ritz matrices and frequencies
arc_mass, arc_mass_closed_form             the mass of a single arc
make_pcc, PCC, positions, tip, jacobian    the nonlinear model and its kinematics
mass_matrix, velocity_force, energy, gradient, hessian, kinetic_energy, total_energy
                                           dynamics terms and energies
static_energy, static_gradient, static     statics under a dead tip force and moment
accel, ode, simulate, tip_minimum_event, first_tip_minimum    time integration

References: Webster & Jones (2010) for constant-curvature kinematics; Della
Santina et al. (2020) for PCC dynamics of soft arms; Rayleigh-Ritz bound,
e.g. Meirovitch, *Fundamentals of Vibrations*.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import eigh
from scipy.linalg.lapack import dposv as _posv
from scipy.optimize import minimize, root

from . import kernels as _kernels
from .core import checks, quadrature
from .core.errors import SolveError
from .core.linalg import BIFURCATION, require_positive_definite
from .solvers.continuation import load_path

__all__ = [
    "ritz",
    "frequencies",
    "arc_mass",
    "arc_mass_closed_form",
    "PCC",
    "make_pcc",
    "positions",
    "tip",
    "jacobian",
    "mass_matrix",
    "velocity_force",
    "energy",
    "gradient",
    "hessian",
    "static_energy",
    "static_gradient",
    "static",
    "kinetic_energy",
    "total_energy",
    "accel",
    "ode",
    "simulate",
    "tip_minimum_event",
    "first_tip_minimum",
]


# --------------------------------------------------------------------------- #
# input checks
# --------------------------------------------------------------------------- #
_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


def _check_state(model, q, name="q"):
    """The model is a PCC and q a finite vector of its n angles (ValueError naming them)."""
    checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)")
    return checks.vector(q, name, model.n)


def _sizes(n, EI, rhoA, L):
    return (checks.integer(n, "n", low=1), checks.positive(EI, "EI"),
            checks.positive(rhoA, "rhoA"), checks.positive(L, "L"))


# --------------------------------------------------------------------------- #
# linear Rayleigh-Ritz
# --------------------------------------------------------------------------- #
def _psi(s, n, ell):
    """Ritz shape functions psi_i(s) = int_0^s phi_i, shape (len(s), n)."""
    t = s[:, None] - ell * np.arange(n)[None, :]
    return np.where(t <= 0.0, 0.0, np.where(t <= ell, t * t / (2.0 * ell), t - 0.5 * ell))


def ritz(n, EI=1.0, rhoA=1.0, L=1.0):
    """Linear Rayleigh-Ritz mass and stiffness of n constant-curvature segments.

    With theta(s) = sum q_i phi_i(s) (ramp phi_i over segment i) the small
    deflection is w = sum q_i psi_i(s), psi_i = int_0^s phi_i, and

        M_ij = rhoA int_0^L psi_i psi_j ds,    K = diag(EI / ell),  ell = L / n.

    psi_i is quadratic on each segment, so the quartic integrand is integrated
    exactly by 3-point Gauss-Legendre per segment (exact to degree 5).

    Parameters
    ----------
    n : int
        Number of segments (>= 1).
    EI, rhoA, L : float
        Bending stiffness, mass per length, length (> 0).

    Returns
    -------
    M, K : ndarray, shape (n, n)
        Symmetric positive definite mass and diagonal stiffness.

    Examples
    --------
    >>> M, K = ritz(1)
    >>> round(float(M[0, 0]), 15), float(K[0, 0])   # w = s^2 / 2: int s^4 / 4 = 1/20
    (0.05, 1.0)
    """
    n, EI, rhoA, L = _sizes(n, EI, rhoA, L)
    ell = L / n
    x, w = quadrature.line(3)
    s = (ell * (np.arange(n)[:, None] + x[None, :])).ravel()
    wq = np.tile(ell * w, n)
    Psi = _psi(s, n, ell)
    M = rhoA * (Psi.T * wq) @ Psi
    K = np.diag(np.full(n, EI / ell))
    return 0.5 * (M + M.T), K


def frequencies(n, k=None, EI=1.0, rhoA=1.0, L=1.0):
    """Angular frequencies of the linear PCC Rayleigh-Ritz model, ascending.

    Solves K x = omega^2 M x with ``scipy.linalg.eigh``; by the Rayleigh-Ritz
    theorem omega_j >= the j-th clamped-free Euler-Bernoulli frequency.

    Parameters
    ----------
    n : int
        Number of segments (>= 1).
    k : int, optional
        Keep the lowest k frequencies (1 <= k <= n); default all n.
    EI, rhoA, L : float
        As in :func:`ritz`.

    Returns
    -------
    ndarray, shape (k,)

    Examples
    --------
    >>> round(float(frequencies(1)[0] ** 2), 12)   # Rayleigh quotient 20
    20.0
    """
    M, K = ritz(n, EI, rhoA, L)
    if k is not None:
        k = checks.integer(k, "k", 1, M.shape[0])
    lam = eigh(K, M, eigvals_only=True)
    om = np.sqrt(lam)
    return om if k is None else om[:k]


# --------------------------------------------------------------------------- #
# single-arc mass M(a)
# --------------------------------------------------------------------------- #
#: below this |a| arc_mass uses the series; see arc_mass for the error analysis
ARC_MASS_THRESHOLD = 2.0
_ARC_J = 12
_ARC_COEF = np.array(
    [2.0 * (-1) ** j * (2 * j + 3) / math.factorial(2 * j + 5) for j in range(_ARC_J)]
)


def arc_mass_closed_form(a, rhoA=1.0, ell=1.0):
    """The textbook closed form of the single-arc mass (cancels for small a).

        M(a) = rhoA ell^3 [1/(3a^2) - 2(sin a - a cos a)/a^5 + 2(1 - sin a / a)/a^4]

    Kept to show the cancellation: its three terms are O(1/a^2) and their sum
    is about 1/20, so the rounding error grows like eps / a^4.  Use
    :func:`arc_mass` for numbers.  ``a = 0`` (0/0 here) is a ValueError.

    Examples
    --------
    >>> round(float(arc_mass_closed_form(1e-3)), 6)   # should be 0.05
    0.050097
    """
    a, rhoA, ell = _arc_args(a, rhoA, ell)
    if np.any(a == 0):
        raise ValueError("a must be nonzero for the closed form (0/0 at a = 0; arc_mass has "
                         "the limit 1/20)")
    return rhoA * ell**3 * (
        1.0 / (3.0 * a**2) - 2.0 * (np.sin(a) - a * np.cos(a)) / a**5
        + 2.0 * (1.0 - np.sin(a) / a) / a**4
    )


def arc_mass(a, rhoA=1.0, ell=1.0):
    """Generalised mass of one constant-curvature arc bent through angle a.

    For a single segment (n = 1, length ell) with q = a,

        M(a) = rhoA int_0^ell |dp/da|^2 ds
             = rhoA ell^3 [1/(3a^2) - 2(sin a - a cos a)/a^5 + 2(1 - sin a/a)/a^4]
             = rhoA ell^3 sum_{j>=0} 2 (-1)^j (2j + 3) a^(2j) / (2j + 5)!

    and M(0) = rhoA ell^3 / 20.  The series follows from expanding sin and cos
    in the closed form (the 1/a^2 terms cancel exactly).

    Error analysis (checked against the series summed in exact rational
    arithmetic, see ``tests/test_pcc.py``): the closed form adds three terms
    of size O(1/a^2) whose sum is about 1/20, and the differences
    1 - sin(a)/a and sin a - a cos a are each rounded to about eps times their
    leading term, so its relative error is a few eps / a^4 (measured:
    1.9e-3 at a = 1e-3, 1.3e-14 at a = 0.5, <= 2 eps for |a| >= 2); the
    12-term series alternates with decreasing terms for |a| <= 2, so its
    truncation error is below its first omitted term, 2 * 27 * 2^24 / 29!
    < 1.1e-22 at |a| = 2, and its rounding error stays at about 1 eps.  Hence the series for
    |a| < ``ARC_MASS_THRESHOLD`` = 2 and the closed form above: relative error
    <= ~2 eps for every a.

    Parameters
    ----------
    a : float or array_like
        Bending angle of the arc (radians); M is even in a.
    rhoA, ell : float
        Mass per length and arc length (> 0).

    Returns
    -------
    float or ndarray
        M(a), same shape as ``a``.

    Examples
    --------
    >>> float(arc_mass(0.0)), round(float(arc_mass(1e-3)), 15)
    (0.05, 0.049999998015873)
    """
    a, rhoA, ell = _arc_args(a, rhoA, ell)
    small = np.abs(a) < ARC_MASS_THRESHOLD
    out = np.empty_like(a)
    a2 = a[small] ** 2
    out[small] = np.polynomial.polynomial.polyval(a2, _ARC_COEF)
    big = a[~small]
    out[~small] = (
        1.0 / (3.0 * big**2) - 2.0 * (np.sin(big) - big * np.cos(big)) / big**5
        + 2.0 * (1.0 - np.sin(big) / big) / big**4
    )
    out = rhoA * ell**3 * out
    return out[()] if out.ndim == 0 else out


def _arc_args(a, rhoA, ell):
    """A finite angle or array of angles (a 0-d array for a number), rhoA > 0, ell > 0."""
    a = np.asarray(checks.real(a, "a")) if np.ndim(a) == 0 else checks.array(a, "a")
    return a, checks.positive(rhoA, "rhoA"), checks.positive(ell, "ell")


# --------------------------------------------------------------------------- #
# arc moments E_m(x) = int_0^1 u^m exp(i x u) du
# --------------------------------------------------------------------------- #
_MOM_THRESHOLD = 2.0
_MOM_TERMS = 28   # truncation < 2^28 / 28! ~ 9e-22 at |x| = 2
_INV_K = 1.0 / np.arange(1, _MOM_TERMS)
_MOM_D = (1j ** np.arange(_MOM_TERMS))[:, None] / (
    np.arange(_MOM_TERMS)[:, None] + np.arange(4)[None, :] + 1.0)
_MOM_COEF = np.ascontiguousarray(_MOM_D)            # for the compiled twin (lib.kernels.pcc)


def _moments(x, mmax):
    """E_m(x) = int_0^1 u^m e^{ixu} du for m = 0..mmax, shape x.shape + (mmax+1,).

    Taylor series sum_k (ix)^k / (k! (k + m + 1)) for |x| < 2 (28 terms), and
    for |x| >= 2 E_0 = (e^{ix} - 1)/(ix), E_m = (e^{ix} - m E_{m-1})/(ix)
    (integration by parts; the upward recursion amplifies rounding by at
    most m!/|x|^m <= 3/4 for m <= 3 there).
    """
    x = np.asarray(x, dtype=float)
    if x.size and np.abs(x).max() < _MOM_THRESHOLD:      # the usual case: series only
        return _moment_series(x, mmax)
    out = np.empty(x.shape + (mmax + 1,), dtype=complex)
    small = np.abs(x) < _MOM_THRESHOLD
    out[small] = _moment_series(x[small], mmax)
    xb = x[~small]
    e = np.exp(1j * xb)
    Em = (e - 1.0) / (1j * xb)
    out[~small, 0] = Em
    for m in range(1, mmax + 1):   # m <= 3: a loop over orders, not elements
        Em = (e - m * Em) / (1j * xb)
        out[~small, m] = Em
    return out


def _moment_series(x, mmax):
    """sum_k x^k/k! * i^k/(k + m + 1); x^k/k! by a cumulative product (no overflow)."""
    T = np.empty(x.shape + (_MOM_TERMS,))
    T[..., 0] = 1.0
    T[..., 1:] = x[..., None] * _INV_K
    np.cumprod(T, axis=-1, out=T)
    return T @ _MOM_D[:, : mmax + 1]


# --------------------------------------------------------------------------- #
# nonlinear PCC model
# --------------------------------------------------------------------------- #
@dataclass(frozen=True, eq=False)
class PCC:
    """Planar PCC cantilever with its quadrature (make it with :func:`make_pcc`).

    Attributes
    ----------
    n : int              number of segments
    EI, rhoA, L : float  bending stiffness, mass per length, length
    nquad : int          Gauss-Legendre points per segment for M(q) and C
    ell : float          segment length L / n
    seg : ndarray (G,)   segment index of each quadrature point, G = n nquad
    u : ndarray (G,)     local coordinate (s - seg ell) / ell in (0, 1)
    s : ndarray (G,)     arc length of each quadrature point
    w : ndarray (G,)     quadrature weights (sum = L)
    """

    n: int
    EI: float
    rhoA: float
    L: float
    nquad: int
    ell: float
    seg: np.ndarray
    u: np.ndarray
    s: np.ndarray
    w: np.ndarray


def make_pcc(n, EI=1.0, rhoA=1.0, L=1.0, nquad=8):
    """Build the nonlinear PCC model of n equal segments.

    Parameters
    ----------
    n, EI, rhoA, L
        As in :func:`ritz`.
    nquad : int
        Gauss-Legendre points per segment (>= 3, so that M(0) equals the
        linear Ritz mass exactly).  The integrand J^T J is analytic in s;
        8 points give M(q) to round-off for segment angles up to about 2 rad.

    Examples
    --------
    >>> m = make_pcc(4)
    >>> m.n, m.ell, m.s.shape
    (4, 0.25, (32,))
    """
    n, EI, rhoA, L = _sizes(n, EI, rhoA, L)
    nquad = checks.integer(nquad, "nquad", low=3)
    ell = L / n
    x, wt = quadrature.line(nquad)
    seg = np.repeat(np.arange(n), nquad)
    u = np.tile(x, n)
    s = ell * (seg + u)
    w = np.tile(ell * wt, n)
    for arr in (seg, u, s, w):
        arr.setflags(write=False)
    return PCC(n, EI, rhoA, L, nquad, ell, seg, u, s, w)


def _segments(model, q):
    """Per-segment data: ell e^{i Theta_k} (n,), start points P (n+1,), E_m(q_k) (n, 4)."""
    Ek = _moments(q, 3)
    return _chain(model, q, Ek)


def _chain(model, q, Ek):
    eT = model.ell * np.exp(1j * (np.cumsum(q) - q))     # ell e^{i Theta_k}
    P = np.zeros(model.n + 1, dtype=complex)
    np.cumsum(eT * Ek[:, 0], out=P[1:])
    return eT, P, Ek


def _state(model, q, seg, u, qd=None):
    """Positions p, Jacobian J (and C if qd is given) at points (seg, u), one pass.

    All arc integrals use E_m of the full segments (q_k) and of the partial
    segment up to each point (q_k u), computed in a single call.

    Returns p (G,), J (G, n), C (G,) or None, and the per-segment data.
    """
    n = model.n
    E = _moments(np.concatenate([q, q[seg] * u]), 3)
    eT, P, Ek = _chain(model, q, E[:n])
    Eu = E[n:]
    eTs = eT[seg]
    p = P[seg] + u * eTs * Eu[:, 0]
    # J_i = i [ell e^{i Theta_i} E_1(q_i) + p - P_{i+1}] for i < seg, own segment below
    J = 1j * ((eT * Ek[:, 1] - P[1:])[None, :] + p[:, None])
    J *= seg[:, None] > np.arange(n)[None, :]
    J[np.arange(seg.size), seg] = 1j * u * u * eTs * Eu[:, 1]
    if qd is None:
        return p, J, None, (eT, P, Ek)
    # C(s) = int_0^s thetadot^2 e^{i theta}; on segment k thetadot = Om_k + qd_k v
    Om = np.cumsum(qd) - qd
    full = eT * (Om**2 * Ek[:, 0] + 2 * Om * qd * Ek[:, 1] + qd**2 * Ek[:, 2])
    start = np.zeros(n, dtype=complex)
    np.cumsum(full[:-1], out=start[1:])
    Ok, wk = Om[seg], qd[seg]
    C = start[seg] + u * eTs * (Ok**2 * Eu[:, 0] + u * (2 * Ok * wk * Eu[:, 1]
                                                      + wk**2 * u * Eu[:, 2]))
    return p, J, C, (eT, P, Ek)


def _arclength(model, s):
    if np.ndim(s) == 0:
        s = [checks.real(s, "s")]
    s = checks.array(s, "s", shape=(None,), low=0.0, high=model.L * (1 + 1e-12))
    seg = np.minimum((s / model.ell).astype(int), model.n - 1)
    u = s / model.ell - seg
    return seg, u


def positions(model, q, s=None):
    """Points of the centre line by exact integration of the arcs.

    On segment k, p(s) = P_k + ell u e^{i Theta_k} E_0(q_k u), u = (s - k ell)/ell,
    with E_0(x) = int_0^1 e^{ixv} dv and P_k the segment's start point.

    Parameters
    ----------
    model : PCC
    q : array_like, shape (n,)
        Segment bending angles.
    s : array_like, optional
        Arc lengths in [0, L]; default the n + 1 segment end points.

    Returns
    -------
    ndarray, shape (len(s), 2)
        Columns x, y.

    Examples
    --------
    >>> m = make_pcc(1)
    >>> positions(m, [np.pi / 2], [1.0]).round(5)   # quarter circle, radius 2/pi
    array([[0.63662, 0.63662]])
    """
    q = _check_state(model, q)
    if s is None:
        p = _segments(model, q)[1]
    else:
        p = _state(model, q, *_arclength(model, s))[0]
    return np.column_stack([p.real, p.imag])


def tip(model, q):
    """Tip ``(x, y, theta)`` with theta = sum q_i the tip tangent angle.

    Examples
    --------
    >>> x, y, th = tip(make_pcc(2), [0.0, 0.0])
    >>> float(x), float(y), float(th)
    (1.0, 0.0, 0.0)
    """
    q = _check_state(model, q)
    _, P, _ = _segments(model, q)
    return float(P[-1].real), float(P[-1].imag), float(q.sum())


def jacobian(model, q, s=None):
    """Jacobian dp/dq at arc lengths s (default: the quadrature points).

    dp/dq_i (s) = e_z x int_0^s phi_i(sigma) t(sigma) dsigma (t the unit tangent),
    evaluated in closed form on each arc.

    Returns
    -------
    ndarray, shape (len(s), 2, n)
        ``J[g, 0, i]`` = dx(s_g)/dq_i, ``J[g, 1, i]`` = dy(s_g)/dq_i.

    Examples
    --------
    >>> m = make_pcc(1)
    >>> jacobian(m, [0.0], [1.0])[0].round(12)   # dy_tip/dq = psi(L) = L/2
    array([[0. ],
           [0.5]])
    """
    q = _check_state(model, q)
    seg, u = (model.seg, model.u) if s is None else _arclength(model, s)
    J = _state(model, q, seg, u)[1]
    return np.stack([J.real, J.imag], axis=1)


def mass_matrix(model, q):
    """Configuration-dependent mass M(q) = rhoA int_0^L J^T J ds (quadrature).

    Returns
    -------
    ndarray, shape (n, n)
        Symmetric positive definite; M(0) equals ``ritz(n)[0]``.

    Examples
    --------
    >>> m = make_pcc(1)
    >>> round(float(mass_matrix(m, [1.0])[0, 0]), 12) == round(float(arc_mass(1.0)), 12)
    True
    """
    q = _check_state(model, q)
    J = _state(model, q, model.seg, model.u)[1]
    M = model.rhoA * ((J.conj().T * model.w) @ J).real
    return 0.5 * (M + M.T)


def velocity_force(model, q, qd):
    """Velocity-product generalised force rhoA int_0^L J^T C ds (quadrature).

    C(s) = int_0^s thetadot^2 t dsigma, so that pddot = J qddot - C.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> m = make_pcc(2)
    >>> velocity_force(m, [0.3, 0.2], [0.0, 0.0])
    array([0., 0.])
    """
    q = _check_state(model, q)
    qd = _check_state(model, qd, "qd")
    _, J, C, _ = _state(model, q, model.seg, model.u, qd)
    return model.rhoA * (J.conj().T @ (model.w * C)).real


def _gravity_parts(model, q, segs=None):
    """A_p[k] = int over segment k of (L - s) v^p e^{i theta} ds, p = 0, 1, 2."""
    eT, _, Ek = _segments(model, q) if segs is None else segs
    ell, L = model.ell, model.L
    lever = L - ell * np.arange(model.n)
    A = eT[:, None] * (lever[:, None] * Ek[:, :3] - ell * Ek[:, 1:4])
    # R[k] = sum_{k' > k} A_0[k']
    R = np.concatenate([np.cumsum(A[::-1, 0])[::-1][1:], [0.0]])
    return A, R


def energy(model, q, grav=0.0):
    """Potential energy V(q) = (EI / 2 ell) sum q_i^2 + rhoA g int_0^L y ds.

    int_0^L y ds = int_0^L (L - s) sin theta ds, integrated exactly arc by arc.
    ``grav`` is g (in -y); with unit defaults it is rhoA g L^3 / EI.

    Examples
    --------
    >>> m = make_pcc(1)
    >>> round(float(energy(m, [1.0])), 12)    # elastic only: 1/2 EI/L a^2
    0.5
    """
    return _energy(model, _check_state(model, q), checks.real(grav, "grav"))


def _energy(model, q, grav):
    V = 0.5 * model.EI / model.ell * float(q @ q)
    if grav:
        A, _ = _gravity_parts(model, q)
        V += model.rhoA * grav * float(A[:, 0].sum().imag)
    return V


def gradient(model, q, grav=0.0):
    """Gradient of :func:`energy`, closed form.

    dV/dq_i = (EI/ell) q_i + rhoA g Re[A_1[i] + sum_{k>i} A_0[k]],
    A_p[k] = int_segment k (L - s) v^p e^{i theta} ds (v the local coordinate).

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> round(float(gradient(make_pcc(1), [0.0], grav=1.0)[0]), 12)   # int_0^1 s^2/2 ds
    0.166666666667
    """
    return _gradient(model, _check_state(model, q), checks.real(grav, "grav"))


def _gradient(model, q, grav):
    g = model.EI / model.ell * q
    if grav:
        A, R = _gravity_parts(model, q)
        g = g + model.rhoA * grav * (A[:, 1] + R).real
    return g


def hessian(model, q, grav=0.0):
    """Hessian of :func:`energy`, closed form (dense, n x n)::

        d2V/dq_i dq_j = (EI/ell) delta_ij
                        - rhoA g Im[A_{p}[m] + sum_{k>m} A_0[k]],  m = max(i, j),

    with p = 2 on the diagonal and p = 1 off it.

    Examples
    --------
    >>> hessian(make_pcc(2), [0.0, 0.0])
    array([[2., 0.],
           [0., 2.]])
    """
    q = _check_state(model, q)
    grav = checks.real(grav, "grav")
    H = np.diag(np.full(model.n, model.EI / model.ell))
    if grav:
        A, R = _gravity_parts(model, q)
        i = np.arange(model.n)
        m = np.maximum(i[:, None], i[None, :])
        G = (A[:, 1] + R)[m]
        G[i, i] = A[:, 2] + R
        H = H - model.rhoA * grav * G.imag
    return H


# --------------------------------------------------------------------------- #
# statics under a dead tip force and moment
# --------------------------------------------------------------------------- #
def static_energy(model, q, force=(0.0, 0.0), moment=0.0, grav=0.0):
    """V(q) - F . p_tip(q) - M theta_tip(q): PCC potential with a dead tip force and moment.

    ``force`` = (F_x, F_y) and ``moment`` M are dead (fixed in direction) at the tip.
    """
    return _static_energy(model, _check_state(model, q), *_static_loads(force, moment, grav))


def _static_loads(force, moment, grav):
    return (checks.vector(force, "force", 2), checks.real(moment, "moment"),
            checks.real(grav, "grav"))


def _static_energy(model, q, force, moment, grav):
    P = _segments(model, q)[1]
    x, y, th = float(P[-1].real), float(P[-1].imag), float(q.sum())
    return _energy(model, q, grav) - force[0] * x - force[1] * y - moment * th


def static_gradient(model, q, force=(0.0, 0.0), moment=0.0, grav=0.0):
    """Gradient of :func:`static_energy`: grad V - J_tip^T F - M (J_tip from :func:`jacobian`)."""
    return _static_gradient(model, _check_state(model, q), *_static_loads(force, moment, grav))


def _static_gradient(model, q, force, moment, grav):
    J = _state(model, q, *_arclength(model, [model.L]))[1]
    J = np.stack([J.real, J.imag], axis=1)[0]
    return _gradient(model, q, grav) - J.T @ np.asarray(force, float) - moment


def static(model, force=(0.0, 0.0), moment=0.0, grav=0.0, steps=10):
    """PCC equilibrium by load-incremented minimisation of :func:`static_energy`.

    The load rises in ``steps`` equal increments (:func:`lib.solvers.load_path`); at
    each, ``scipy.optimize.root`` (MINPACK's hybrid Newton) on :func:`static_gradient`
    from the previous equilibrium must bring the gradient to 1e-9 of the load scale at a
    strict minimum (a positive definite central-difference Hessian): the stable branch.
    Where it does not, BFGS from the previous equilibrium (which stays on the stable
    branch), polished by the same hybrid Newton, must.

    Raises
    ------
    ValueError
        Bad input, named.
    SolveError
        A minimisation that fails, naming its load step and the gradient reached; or
        ``reason="unstable equilibrium"`` where the state reached is a saddle (the straight
        arm under an axial compression past buckling: the gradient vanishes there by
        symmetry; a small transverse load selects the buckled branch).

    >>> q = static(make_pcc(1), moment=0.5, steps=1)
    >>> round(float(q[0]), 8)          # pure moment: q = M L / EI
    0.5
    """
    checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)")
    force, moment, grav = _static_loads(force, moment, grav)
    steps = checks.integer(steps, "steps", low=1)
    scale = max(model.EI / model.L, abs(force[0]) * model.L, abs(force[1]) * model.L,
                abs(moment), abs(grav) * model.rhoA * model.L**2)

    def fd_hessian(x, grad):
        """The central-difference Hessian of the (scaled) energy at x."""
        dz = 1e-6 * max(1.0, float(np.abs(x).max()))
        return np.array([(grad(x + dz * e) - grad(x - dz * e)) / (2 * dz) for e in np.eye(model.n)])

    def strict_minimum(x, grad):
        """Whether the central-difference Hessian at x is positive definite."""
        try:
            require_positive_definite(fd_hessian(x, grad))
        except SolveError:
            return False
        return True

    def stable_root(q, args):
        """Hybrid Newton on the gradient from the previous equilibrium; the root is kept
        only where it is a strict minimum, else None."""
        grad = lambda z: _static_gradient(model, z, *args) / scale  # noqa: E731
        pol = root(grad, q, method="hybr", options={"xtol": 1e-13})
        if not np.all(np.isfinite(pol.x)) or not np.abs(grad(pol.x)).max() <= 1e-9:
            return None
        return pol.x if strict_minimum(pol.x, grad) else None

    def solve_at(lam, q):
        args = ((lam * force[0], lam * force[1]), lam * moment, lam * grav)
        x = stable_root(q, args)
        if x is not None:
            return x, 1
        res = minimize(lambda z: _static_energy(model, z, *args) / scale, q,
                       jac=lambda z: _static_gradient(model, z, *args) / scale,
                       method="BFGS", options={"gtol": 1e-10, "maxiter": 2000})
        # polish the BFGS minimiser with MINPACK's hybrid Newton on the gradient
        pol = root(lambda z: _static_gradient(model, z, *args) / scale, res.x, method="hybr",
                   options={"xtol": 1e-13})
        g_bfgs = np.abs(_static_gradient(model, res.x, *args)).max() / scale
        g = np.abs(_static_gradient(model, pol.x, *args)).max() / scale
        x = pol.x if g <= g_bfgs else res.x
        g = min(g, g_bfgs)
        if not g <= 1e-9:
            raise SolveError(f"BFGS: {res.message}", iteration=res.nit, residual=g * scale,
                             relative=g, tol=1e-9, reason="gradient above tolerance")
        # BFGS stays on a saddle it starts on: the straight arm under an axial compression
        # past buckling, where the gradient vanishes by symmetry
        require_positive_definite(
            fd_hessian(x, lambda z: _static_gradient(model, z, *args) / scale), where="pcc.static",
            hint=BIFURCATION)
        return x, res.nit

    return load_path(solve_at, np.zeros(model.n), steps=steps, where="pcc.static")[0]


def kinetic_energy(model, q, qd):
    """T = 1/2 qd^T M(q) qd.

    Examples
    --------
    >>> round(float(kinetic_energy(make_pcc(1), [0.0], [2.0])), 12)   # 1/2 * 4 / 20
    0.1
    """
    q, qd = _check_state(model, q), _check_state(model, qd, "qd")
    return 0.5 * float(qd @ mass_matrix(model, q) @ qd)


def total_energy(model, q, qd, grav=0.0):
    """T + V, conserved by :func:`accel` (exactly, for the quadrature used)."""
    return kinetic_energy(model, q, qd) + energy(model, q, grav)


def accel(model, q, qd, grav=0.0, *, kernels=None):
    """Generalised acceleration from M(q) qdd = rhoA int J^T C ds - grad V.

    ``kernels``: the compiled twin :func:`lib.kernels.pcc.accel` (None: the switch of
    :mod:`lib.kernels`; False: the NumPy code below), equal to round-off.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> round(float(accel(make_pcc(1), [0.0], [0.0], grav=1.0)[0]), 12)   # -(1/6)/(1/20)
    -3.333333333333
    """
    q = _check_state(model, q)
    qd = _check_state(model, qd, "qd")
    return _accel(model, q, qd, checks.real(grav, "grav"), _kernels.use(kernels))


def _accel(model, q, qd, grav, kernels=False):
    """accel without input checks (the solve_ivp right-hand side); ``kernels`` resolved."""
    if kernels:
        from .kernels import pcc as _kpcc

        x, info = _kpcc.accel(np.ascontiguousarray(q, dtype=float),
                              np.ascontiguousarray(qd, dtype=float), model.seg, model.u,
                              model.w, float(model.ell), float(model.EI), float(model.rhoA),
                              float(model.L), float(grav), _MOM_COEF, _INV_K, _MOM_THRESHOLD)
        if info != 0:
            raise SolveError(f"mass matrix not positive definite at q = {q!r} (Cholesky "
                             f"pivot {info})", where="pcc.accel", reason="singular")
        return x
    _, J, C, segs = _state(model, q, model.seg, model.u, qd)
    JH = J.conj().T * model.w
    M = model.rhoA * (JH @ J).real
    f = model.rhoA * (JH @ C).real - model.EI / model.ell * q
    if grav:
        A, R = _gravity_parts(model, q, segs)
        f -= model.rhoA * grav * (A[:, 1] + R).real
    _, x, info = _posv(M, f, lower=1, overwrite_a=1, overwrite_b=1)   # Cholesky solve
    if info != 0:
        raise SolveError(f"mass matrix not positive definite at q = {q!r} (LAPACK posv "
                         f"info = {info})", where="pcc.accel", reason="singular")
    return x


def ode(model, grav=0.0, *, kernels=None):
    """Right-hand side f(t, z) for ``solve_ivp``, z = [q, qd] (shape (2n,)).

    ``kernels`` as in :func:`accel` (resolved once, when the function is made).

    Examples
    --------
    >>> f = ode(make_pcc(1), grav=1.0)
    >>> f(0.0, np.zeros(2)).round(6)
    array([ 0.      , -3.333333])
    """
    checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)")
    grav = checks.real(grav, "grav")
    n = model.n
    kernels = _kernels.use(kernels)

    def f(t, z):
        q, qd = z[:n], z[n:]
        return np.concatenate([qd, _accel(model, q, qd, grav, kernels)])

    return f


def simulate(model, t_end, q0=None, qd0=None, grav=0.0, t_eval=None,
             method="DOP853", rtol=1e-11, atol=1e-12, events=None, dense_output=False, *,
             kernels=None):
    """Integrate the PCC equations with ``scipy.integrate.solve_ivp``.

    Parameters
    ----------
    model : PCC
    t_end : float
        Final time (> 0).
    q0, qd0 : array_like, shape (n,), optional
        Initial angles and rates (default: straight, at rest).
    grav : float
        Gravity in -y (rhoA g L^3 / EI with unit defaults).
    t_eval, method, rtol, atol, events, dense_output
        Passed to ``solve_ivp``.
    kernels : bool, optional
        The compiled right-hand side (see :func:`accel`).

    Returns
    -------
    OdeResult
        ``y`` has shape (2n, len(t)): rows 0..n-1 are q, rows n..2n-1 are qd.

    Raises
    ------
    ValueError
        Bad ``model``, ``t_end``, state, ``grav``, ``method``, ``rtol``, ``atol``,
        ``t_eval`` or ``dense_output`` (checked here, before SciPy sees them).
    SolveError
        If ``solve_ivp`` stops early or the mass matrix stops being positive
        definite; the message gives the time reached.
    """
    checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)")
    t_end = checks.positive(t_end, "t_end")
    q0 = np.zeros(model.n) if q0 is None else _check_state(model, q0, "q0")
    qd0 = np.zeros(model.n) if qd0 is None else _check_state(model, qd0, "qd0")
    grav = checks.real(grav, "grav")
    if isinstance(method, str) or method is None:
        checks.choice(method, "method", _IVP_METHODS)
    rtol, atol = checks.positive(rtol, "rtol"), checks.positive(atol, "atol")
    dense_output = checks.boolean(dense_output, "dense_output")
    if t_eval is not None:
        t_eval = checks.array(t_eval, "t_eval", shape=(None,), low=0.0, high=t_end)
        if np.any(np.diff(t_eval) < 0):
            raise ValueError(f"t_eval must be increasing, got {checks.show(t_eval)}")
    f = ode(model, grav, kernels=kernels)
    reached = [0.0]

    def rhs(t, z):
        reached[0] = t
        return f(t, z)

    try:
        sol = solve_ivp(rhs, (0.0, t_end), np.concatenate([q0, qd0]),
                        method=method, rtol=rtol, atol=atol, t_eval=t_eval, events=events,
                        dense_output=dense_output)
    except (SolveError, np.linalg.LinAlgError) as exc:
        raise SolveError(f"solve_ivp stopped near t = {reached[0]:.6g} of {t_end}: "
                         f"{getattr(exc, 'detail', exc)}", where="pcc.simulate") from None
    except (ValueError, TypeError) as exc:
        raise ValueError(f"solve_ivp rejected the arguments (method, events or their "
                         f"options): {exc}") from None
    if sol.status < 0:
        raise SolveError(f"solve_ivp stopped at t = {sol.t[-1]:.6g} of {t_end}: {sol.message}",
                         where="pcc.simulate")
    return sol


def tip_minimum_event(model, terminal=False):
    """Event function for ``solve_ivp``: the tip's vertical velocity, upward crossings.

    g(t, z) = (J_tip qd)_y = d y_tip / dt; a zero crossing from - to + is a
    minimum of the tip height.  ``direction = +1``; ``terminal`` as given.

    Examples
    --------
    >>> ev = tip_minimum_event(make_pcc(1))
    >>> ev(0.0, np.array([0.0, 2.0])), ev.direction     # dy/dt = psi(L) qd = 1/2 * 2
    (1.0, 1.0)
    """
    checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)")
    terminal = checks.boolean(terminal, "terminal")
    n, L = model.n, model.L

    def vy(t, z):
        return float(jacobian(model, z[:n], [L])[0, 1] @ z[n:])

    vy.terminal, vy.direction = terminal, 1.0
    return vy


def first_tip_minimum(model, grav, q0=None, t_max=5.0, rtol=1e-11, atol=1e-12):
    """Time and height of the first minimum of the tip's y after release.

    Integrates from ``q0`` (default straight) at rest and stops at the first
    time the tip's vertical velocity (J_tip qd)_y crosses zero upwards.

    Returns
    -------
    t_min, y_min : float

    Raises
    ------
    SolveError
        If no minimum occurs before ``t_max`` (a ``RuntimeError`` too).

    Examples
    --------
    >>> t, y = first_tip_minimum(make_pcc(1), grav=3.0)
    >>> round(y, 4)
    -0.4424
    """
    n = checks.kind(model, "model", PCC, "a PCC model (lib.pcc.make_pcc)").n
    t_max = checks.positive(t_max, "t_max")
    sol = simulate(model, t_max, q0=q0, grav=grav, rtol=rtol, atol=atol,
                   events=tip_minimum_event(model, terminal=True))
    if sol.t_events[0].size == 0:
        raise SolveError(f"no tip minimum before t = {sol.t[-1]:.6g}",
                         where="pcc.first_tip_minimum", time=sol.t[-1])
    z = sol.y_events[0][0]
    return float(sol.t_events[0][0]), tip(model, z[:n])[1]
