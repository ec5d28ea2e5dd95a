"""The discrete planar Cosserat rod: energy, gradient, Hessian, statics, modes.

A cantilever of length L, clamped at s = 0 (node 0 at the origin, section
angle phi_{-1} = 0), is cut into N elements of length ell = L/N.

Array layout (used by every function here)
------------------------------------------
q, shape (3N,) :  q[3e] = phi_e, q[3e+1] = x_{e+1}, q[3e+2] = y_{e+1},  e = 0..N-1

phi_e is the section angle of element e (counter-clockwise from +x) and
(x_{e+1}, y_{e+1}) the position of node e+1, the far end of element e.  The
tip is node N; its section angle is phi_{N-1}.

Symbols (book symbol -> meaning -> field of :class:`Rod`)
---------------------------------------------------------
ell     element length L/N                          ``ell``
EA      axial stiffness 4 EI / r^2                  ``EA``
S       shear stiffness k_s G A = ks EA/(2(1+nu))   ``kGA``
EI      bending stiffness                           ``EI``
rhoA    mass per length                             ``rhoA``
rhoI    rotary inertia per length rhoA r^2 / 4      ``rhoI``

Energy (seed eq. of section 3.10.3.3).  With d_e = x_{e+1} - x_e,
t_e = (cos phi_e, sin phi_e), n_e = (-sin phi_e, cos phi_e),
a_e = d_e . t_e and b_e = d_e . n_e,

    Pi(q) = sum_e ell/2 [EA (a_e/ell - 1)^2 + S (b_e/ell)^2]
          + sum_e EI/(2 ell) c_e (phi_e - phi_{e-1})^2          (c_0 = 2, c_e = 1)
          + g sum_i m_i y_i  -  (P_x x_N + P_y y_N + M phi_{N-1}).

Every joint, the clamp included, is a rotational spring EI/ell; at the clamp
it acts between element 0 and its mirror image in the wall, across the
relative rotation 2 phi_0, which gives the moment 2 EI phi_0 / ell and the
weight c_0 = 2 (equivalently: the half element between the clamped section
and the centre of element 0 has curvature 2 phi_0 / ell).  Lumped masses: rhoA ell on x and y of nodes 1..N-1,
rhoA ell / 2 at the tip, rotary inertia rhoI ell on every phi_e.

Public functions
----------------
make_rod, Rod, straight                        the model and its straight state
energy, gradient, hessian, mass, node_masses   energy and derivatives, lumped masses
frequencies, modes, kirchhoff_frequencies      vibration (and the inextensible chain)
static, tip, StaticSolveError                  statics by Newton with load steps, tip pose
banded_hessian, force, first_order, verlet, newmark   the fast paths (compiled kernels, banded tangent)
check_positive, check_load, check_grav         argument checks shared with the other faces

Arguments are checked once (:mod:`lib.core.checks`; a ``ValueError`` naming the argument):
``rod`` a planar :class:`Rod` (a 3-D rod is refused, saying so), ``q`` a finite (3N,)
state; solvers call unchecked twins (``_energy``, ``_gradient``, ...) inside their loops.

References: Simo and Vu-Quoc (1988) and Armanini et al. (2023) for the
Cosserat rod; Bergou et al. (2008) for discrete rods.

Examples
--------
>>> rod = make_rod(4)
>>> q = straight(rod)
>>> float(abs(gradient(rod, q)).max())
0.0
>>> frequencies(rod, 1).round(3)
array([3.33])
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import svd, svdvals

from . import kernels as _kernels
from .beam import timoshenko_shear_coefficient
from .core import checks
from .core.errors import SolveError
from .core.linalg import BIFURCATION, factor, require_positive_definite
from .kernels.banded import SymmetricBanded
from .solvers import load_path, newton_solve

__all__ = [
    "Rod",
    "make_rod",
    "straight",
    "energy",
    "gradient",
    "hessian",
    "mass",
    "frequencies",
    "modes",
    "static",
    "tip",
    "kirchhoff_frequencies",
    "StaticSolveError",
    # lumped node masses and the argument checks rod3d, levels and actuation share
    "node_masses",
    "check_positive",
    "check_load",
    "check_grav",
    "banded_hessian",
    "force",
    "first_order",
    "verlet",
    "newmark",
]

BANDWIDTH = 4  # half-bandwidth of the Hessian in the layout above


class StaticSolveError(SolveError):
    """A static Newton solve did not converge; the message says where it stopped."""


@dataclass(frozen=True)
class Rod:
    """Parameters of a discrete planar Cosserat cantilever (see module docstring).

    Make it with :func:`make_rod`, which validates the inputs and derives the
    section stiffnesses.
    """

    N: int
    L: float
    EI: float
    rhoA: float
    r_over_L: float
    nu: float
    ks: float
    EA: float
    kGA: float
    rhoI: float

    @property
    def ell(self) -> float:
        """Element length L / N."""
        return self.L / self.N

    @property
    def ndof(self) -> int:
        """Number of unknowns, 3N."""
        return 3 * self.N


_PLANAR = "a planar rod (lib.rod.Rod, made by lib.rod.make_rod)"
_F8 = np.dtype(float)
_PLAIN = {float, int}


def _check_rod(rod):
    """``rod`` if it is a planar :class:`Rod`, else a ValueError naming ``rod`` and its kind."""
    if type(rod) is not Rod:
        checks.kind(rod, "rod", Rod, _PLANAR)
    return rod


def _check_q(rod, q, name="q"):
    """``q`` as a finite (3N,) float array; the cheap test first (a hot path)."""
    if (type(q) is np.ndarray and q.dtype is _F8 and q.shape == (rod.ndof,)
            and math.isfinite(q.dot(q))):
        return q
    return checks.vector(q, name, rod.ndof)


def _check_load(load):
    """The tip load as three floats, or None; the cheap test first (a hot path)."""
    if load is None:
        return None
    if type(load) is tuple and len(load) == 3:
        Px, Py, M = load
        if (type(Px) in _PLAIN and type(Py) in _PLAIN and type(M) in _PLAIN
                and Px - Px == 0 and Py - Py == 0 and M - M == 0):     # finite
            return float(Px), float(Py), float(M)
    return tuple(checks.vector(load, "load", 3).tolist())


def check_positive(value, name):
    """``value`` as a float > 0 (:func:`lib.core.checks.positive`); a ValueError names ``name``.

    >>> check_positive(np.int64(2), "EI")
    2.0
    """
    return checks.positive(value, name)


def make_rod(N, r_over_L=0.04, nu=0.5, ks=None, L=1.0, EI=1.0, rhoA=1.0):
    """Build a discrete rod of N elements with a solid circular section.

    The section radius is r = r_over_L L; then EA = 4 EI / r^2,
    k_sGA = ks EA / (2 (1 + nu)) and rhoI = rhoA r^2 / 4 (so EI = E pi r^4/4
    and EA = E pi r^2 share one Young's modulus).

    Parameters
    ----------
    N : int
        Number of elements (>= 1).
    r_over_L : float
        Radius over length (> 0); 0.04 is the chapter's shear model.
    nu : float
        Poisson ratio in (-1, 0.5].
    ks : float, optional
        Shear coefficient (> 0); Cowper's 6(1+nu)/(7+6nu) by default (0.9 at nu = 0.5).
    L, EI, rhoA : float
        Length, bending stiffness, mass per length (> 0).

    Returns
    -------
    Rod
        A frozen dataclass.

    Raises
    ------
    ValueError
        Naming the offending argument.

    Examples
    --------
    >>> rod = make_rod(20)
    >>> rod.EA, round(rod.kGA, 9), rod.rhoI
    (2500.0, 750.0, 0.0004)
    """
    N = checks.integer(N, "N", low=1)
    r_over_L = checks.positive(r_over_L, "r_over_L")
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    ks = timoshenko_shear_coefficient(nu) if ks is None else checks.positive(ks, "ks")
    L, EI, rhoA = (checks.positive(v, n) for v, n in ((L, "L"), (EI, "EI"), (rhoA, "rhoA")))
    r = r_over_L * L
    EA = 4.0 * EI / r**2 if r * r > 0.0 else math.inf
    stiff = (EA, ks * EA / (2.0 * (1.0 + nu)), rhoA * r**2 / 4.0)
    if not all(math.isfinite(v) and v > 0 for v in stiff):
        raise ValueError(f"r_over_L = {r_over_L!r} with L = {L!r}, EI = {EI!r}, rhoA = "
                         f"{rhoA!r} gives (EA, kGA, rhoI) = {stiff}, out of floating point")
    return Rod(N=N, L=L, EI=EI, rhoA=rhoA, r_over_L=r_over_L, nu=nu, ks=ks, EA=stiff[0],
               kGA=stiff[1], rhoI=stiff[2])


def straight(rod):
    """The straight, unstressed reference state along +x (layout of the module).

    >>> straight(make_rod(2)).tolist()
    [0.0, 0.5, 0.0, 0.0, 1.0, 0.0]
    """
    q = np.zeros(_check_rod(rod).ndof)
    q[1::3] = rod.ell * np.arange(1, rod.N + 1)
    return q


def check_load(load):
    """The tip load as a finite (Px, Py, M) array (zeros for None), else a ValueError.

    >>> check_load((1, 0, np.float64(2))).tolist(), check_load(None).tolist()
    ([1.0, 0.0, 2.0], [0.0, 0.0, 0.0])
    """
    return np.zeros(3) if load is None else np.array(_check_load(load))


def check_grav(grav):
    """``grav`` as a finite float (:func:`lib.core.checks.real`), else a ValueError."""
    return checks.real(grav, "grav")


def _kinematics(rod, q):
    """Per-element (phi, dx, dy, c, s, a, b), each of shape (N,)."""
    phi = q[0::3]
    xy = np.concatenate([[0.0, 0.0], np.column_stack([q[1::3], q[2::3]]).ravel()])
    dx = np.diff(xy[0::2])
    dy = np.diff(xy[1::2])
    c, s = np.cos(phi), np.sin(phi)
    a = c * dx + s * dy
    b = -s * dx + c * dy
    return phi, dx, dy, c, s, a, b


def _bending_weights(rod):
    w = np.ones(rod.N)
    w[0] = 2.0
    return w


def node_masses(rod):
    """Lumped masses (N,) of nodes 1..N: rhoA ell, half of it at the tip.

    >>> node_masses(make_rod(2)).tolist()
    [0.5, 0.25]
    """
    if type(rod) is not Rod:
        _check_rod(rod)
    m = np.full(rod.N, rod.rhoA * rod.ell)
    m[-1] *= 0.5
    return m


def energy(rod, q, load=None, grav=0.0, *, kernels=None):
    """Potential energy Pi(q) of the rod (equation in the module docstring).

    Parameters
    ----------
    rod : Rod
    q : ndarray, shape (3N,) or (m, 3N)
        State ``[phi_e, x_{e+1}, y_{e+1}]``, or a stack of m states (for example a
        stored trajectory), evaluated in one vectorised pass.
    load : (Px, Py, M), optional
        Dead tip force and moment (work -(Px x_N + Py y_N + M phi_{N-1})).
    grav : float
        Gravity g acting in -y on the lumped node masses.
    kernels : bool, optional
        For one state, the compiled :func:`lib.kernels.planar.energy` (None: the
        switch of :mod:`lib.kernels`); a stack always runs the NumPy code below.

    Returns
    -------
    float, or ndarray of shape (m,) for a stack

    Examples
    --------
    >>> rod = make_rod(3)
    >>> abs(energy(rod, straight(rod), load=(0, -1, 0))) < 1e-20
    True
    >>> energy(rod, np.stack([straight(rod)] * 2)).shape
    (2,)
    """
    _check_rod(rod)
    try:
        q = _check_q(rod, q)
    except ValueError:                            # a stack of states, or bad input
        if np.ndim(checks.array(q, "q")) != 2:
            raise
        q = checks.array(q, "q", shape=(None, rod.ndof))
    return _energy(rod, q, _check_load(load), checks.real(grav, "grav"), _kernels.use(kernels))


def _energy(rod, q, load, grav, kernels=None):
    """:func:`energy` unchecked (``load`` three floats or None, ``kernels`` resolved or None)."""
    if q.ndim == 1 and _kernels.use(kernels):
        return _kernels.planar.energy(np.ascontiguousarray(q), *_kernel_args(rod, load, grav))
    Q = q if q.ndim == 2 else q[None, :]
    load = (0.0, 0.0, 0.0) if load is None else load
    ell = rod.ell
    phi, x, y = Q[:, 0::3], Q[:, 1::3], Q[:, 2::3]
    dx = np.diff(x, axis=1, prepend=0.0)
    dy = np.diff(y, axis=1, prepend=0.0)
    c, s = np.cos(phi), np.sin(phi)
    a = c * dx + s * dy
    b = c * dy - s * dx
    stretch = 0.5 * ell * (rod.EA * (a / ell - 1.0) ** 2 + rod.kGA * (b / ell) ** 2)
    dphi = np.diff(phi, axis=1, prepend=0.0)
    bend = 0.5 * rod.EI / ell * _bending_weights(rod) * dphi**2
    ext = load[0] * Q[:, -2] + load[1] * Q[:, -1] + load[2] * Q[:, -3]
    out = stretch.sum(axis=1) + bend.sum(axis=1) + grav * (y @ node_masses(rod)) - ext
    return out if q.ndim == 2 else float(out[0])


def gradient(rod, q, load=None, grav=0.0, *, kernels=None):
    """Gradient of :func:`energy`, in closed form (same layout as ``q``).

    Per element, with F_a = EA (a/ell - 1) (axial force) and
    F_b = S b/ell (shear force),

        dPi/dphi_e      = F_a b - F_b a            (the p' x n term of the moment balance)
        dPi/dx_{e+1}    = F_a t + F_b n,   dPi/dx_e = -(F_a t + F_b n),

    plus bending EI c_e (phi_e - phi_{e-1}) / ell, gravity g m_i on y_i and
    minus the dead tip load.

    ``kernels`` (None: the switch of :mod:`lib.kernels`) selects the compiled twin
    :func:`lib.kernels.planar.gradient` of the NumPy code below.

    Returns
    -------
    ndarray, shape (3N,)

    Examples
    --------
    >>> rod = make_rod(2)
    >>> gradient(rod, straight(rod), load=(0, -1, 0)).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    """
    _check_rod(rod)
    return _gradient(rod, _check_q(rod, q), _check_load(load), checks.real(grav, "grav"),
                     _kernels.use(kernels))


def _gradient(rod, q, load, grav, kernels=None):
    """:func:`gradient` unchecked (``load`` three floats or None)."""
    if _kernels.use(kernels):
        return _kernels.planar.gradient(np.ascontiguousarray(q), *_kernel_args(rod, load, grav))
    N, ell, EA, S, EI = rod.N, rod.ell, rod.EA, rod.kGA, rod.EI
    # Few, large numpy calls: the state viewed as a (3, N) array (rows phi, x, y),
    # results written into one preallocated (3, N) array.  At small N the cost is
    # the number of numpy calls, not the arithmetic (see the Performance appendix).
    Q = q.reshape(N, 3).T
    phi = Q[0]
    d = np.empty((2, N))                        # d_e = x_{e+1} - x_e (x_0 = 0)
    d[:, 0] = Q[1:, 0]
    np.subtract(Q[1:, 1:], Q[1:, :-1], out=d[:, 1:])
    c, s = np.cos(phi), np.sin(phi)
    dx, dy = d
    a = c * dx
    a += s * dy
    b = c * dy
    b -= s * dx
    Fa = a * (EA / ell)
    Fa -= EA                                    # axial force EA (a/ell - 1)
    Fb = b * (S / ell)                          # shear force S b/ell
    G = np.empty((3, N))
    g0, g1, g2 = G
    np.multiply(Fa, b, out=g0)
    g0 -= Fb * a
    np.multiply(Fa, c, out=g1)
    g1 -= Fb * s
    np.multiply(Fa, s, out=g2)
    g2 += Fb * c
    G[1:, :-1] -= G[1:, 1:]                     # node e+1 also starts element e+1
    mb = np.subtract(phi[1:], phi[:-1])
    mb *= EI / ell                              # bending moments between elements
    g0[1:] += mb
    g0[:-1] -= mb
    g0[0] += 2.0 * EI / ell * phi[0]            # clamp half element (c_0 = 2)
    if grav:
        g2 += grav * rod.rhoA * ell
        g2[-1] -= 0.5 * grav * rod.rhoA * ell
    if load is not None:
        g1[-1] -= load[0]
        g2[-1] -= load[1]
        g0[-1] -= load[2]
    return G.T.ravel()


# maps the element's local (phi_e, d) to (phi_e, x_e, y_e, x_{e+1}, y_{e+1})
_T = np.array([[1, 0, 0, 0, 0], [0, -1, 0, 1, 0], [0, 0, -1, 0, 1]], dtype=float)


def _element_values(rod, q):
    """The Hessian's contributions at q, in the order of :func:`_index_pattern`'s slots:
    the N element 5 x 5 blocks (row-major, the clamped node's rows and columns included)
    and the 4N - 3 bending entries."""
    N, ell = rod.N, rod.ell
    EA, S = rod.EA, rod.kGA
    _, _, _, c, s, a, b = _kinematics(rod, q)
    Fa = EA * (a / ell - 1.0)
    Fb = S * b / ell
    h = np.empty((N, 3, 3))
    h[:, 0, 0] = (EA * b * b + S * a * a) / ell - Fa * a - Fb * b
    hdp_t = EA * b / ell - Fb
    hdp_n = Fa - S * a / ell
    h[:, 0, 1] = h[:, 1, 0] = hdp_t * c - hdp_n * s
    h[:, 0, 2] = h[:, 2, 0] = hdp_t * s + hdp_n * c
    kt, kn = EA / ell, S / ell
    h[:, 1, 1] = kt * c * c + kn * s * s
    h[:, 2, 2] = kt * s * s + kn * c * c
    h[:, 1, 2] = h[:, 2, 1] = (kt - kn) * c * s
    H = _T.T @ h @ _T                   # 5 x 5 element blocks (batched matmul)
    kb = rod.EI / ell * _bending_weights(rod)
    k = kb[1:]
    return np.concatenate([H.ravel(), kb, k, -k, -k])


@functools.lru_cache(maxsize=64)
def _index_pattern(N):
    """Row and column of every value of :func:`_element_values` (-1: the clamp, dropped).

    Depends on N only (the clamp at node 0 is the rod's one boundary condition)."""
    e = np.arange(N)
    idx = np.column_stack([3 * e, 3 * e - 2, 3 * e - 1, 3 * e + 1, 3 * e + 2])
    rows = np.broadcast_to(idx[:, :, None], (N, 5, 5)).ravel()
    cols = np.broadcast_to(idx[:, None, :], (N, 5, 5)).ravel()
    i, j = 3 * e[1:], 3 * e[1:] - 3
    rr = np.concatenate([rows, 3 * e, j, i, j])
    cc = np.concatenate([cols, 3 * e, j, j, i])
    clamp = (rr < 0) | (cc < 0)          # node 0 (the clamp) is not an unknown
    rr[clamp] = cc[clamp] = -1
    for x in (rr, cc):
        x.flags.writeable = False
    return rr, cc


@functools.lru_cache(maxsize=64)
def _csr_pattern(N):
    """The Hessian's CSR pattern for N elements, cached: ``(indices, indptr, slot)``.

    ``indices`` and ``indptr`` are canonical (column indices sorted within a row, no
    duplicates); ``slot[k]`` is the entry of ``data`` that value k of
    :func:`_element_values` adds to (``nnz`` for a clamped one, a dump slot), so
    ``np.bincount(slot, values, nnz + 1)[:-1]`` is ``data``, summed in the order of the
    triplets, as the COO->CSR conversion summed them."""
    rr, cc = _index_pattern(N)
    n = 3 * N
    live = rr >= 0
    key = rr[live].astype(np.int64) * n + cc[live]
    uniq, inv = np.unique(key, return_inverse=True)
    slot = np.full(rr.size, uniq.size, dtype=np.intp)
    slot[live] = inv.ravel()
    indices = (uniq % n).astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(uniq // n, minlength=n), out=indptr[1:])
    for x in (indices, indptr, slot):
        x.flags.writeable = False
    return indices, indptr, slot


def _triplets(rod, q):
    """The Hessian's COO triplets (rows, columns, values), the clamp's entries dropped."""
    rr, cc = _index_pattern(rod.N)
    live = rr >= 0
    return rr[live], cc[live], _element_values(rod, q)[live]


def hessian(rod, q):
    """Hessian of :func:`energy` as ``scipy.sparse`` CSR, in closed form.

    Dead loads and gravity are linear in q and do not enter.  Per element,
    in the local variables (phi, d) with d = x_{e+1} - x_e,

        d2Pi/dd dd     = (EA/ell) t t^T + (S/ell) n n^T
        d2Pi/dphi dd   = (EA b/ell - F_b) t + (F_a - S a/ell) n
        d2Pi/dphi^2    = (EA b^2 + S a^2)/ell - F_a a - F_b b,

    summed from element-vectorised values into a CSR pattern built once per N
    (half-bandwidth 4).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (3N, 3N), symmetric

    Examples
    --------
    >>> rod = make_rod(3)
    >>> H = hessian(rod, straight(rod))
    >>> H.shape, float(abs(H - H.T).max())
    ((9, 9), 0.0)
    """
    return _hessian(_check_rod(rod), _check_q(rod, q))


def _hessian(rod, q):
    indices, indptr, slot = _csr_pattern(rod.N)
    data = np.bincount(slot, weights=_element_values(rod, q), minlength=indices.size + 1)[:-1]
    n = rod.ndof
    H = sp.csr_matrix((data, indices.copy(), indptr.copy()), shape=(n, n))
    H.has_canonical_format = True        # sorted, no duplicates: by construction
    return H


def _banded_upper(rod, q, kernels=None):
    """Upper banded storage ab[u + i - j, j] = H[i, j] (i <= j) for LAPACK."""
    if _kernels.use(kernels):
        return _kernels.planar.hessian_banded(np.ascontiguousarray(q, dtype=float),
                                              *_kernel_args(rod, None, 0.0)[:5])
    rr, cc, vv = _triplets(rod, q)
    u, n = BANDWIDTH, rod.ndof
    ab = np.zeros((u + 1, n))
    up = rr <= cc
    np.add.at(ab, (u + rr[up] - cc[up], cc[up]), vv[up])
    return ab


def mass(rod):
    """Lumped (diagonal) mass as a vector in the layout of ``q``.

    rhoI ell on every phi_e, rhoA ell on x and y of nodes 1..N-1 and
    rhoA ell / 2 at the tip node N.

    >>> mass(make_rod(2, r_over_L=0.2)).round(6).tolist()
    [0.005, 0.5, 0.5, 0.005, 0.25, 0.25]
    """
    m = np.empty(_check_rod(rod).ndof)
    m[0::3] = rod.rhoI * rod.ell
    mn = node_masses(rod)
    m[1::3] = mn
    m[2::3] = mn
    return m


def _flexibility_factor(rod):
    """W = M^{1/2} B^{-1} C^{-1/2} with K(straight) = B^T C B (see :func:`frequencies`)."""
    N, ell = rod.N, rod.ell
    Lt = np.tril(np.ones((N, N)))
    C = ell * np.concatenate([np.full(N, rod.EA), np.full(N, rod.kGA),
                              rod.EI * _bending_weights(rod)])
    Z = np.zeros((N, N))
    # rows: phi, dx, dy (each N); columns: strains eps, gamma, kappa (each N)
    Binv = np.block([
        [Z, Z, ell * Lt],
        [ell * Lt, Z, Z],
        [Z, ell * Lt, ell**2 * (Lt @ Lt)],
    ])
    perm = np.arange(3 * N).reshape(3, N).T.ravel()  # block order -> layout order
    Binv = Binv[perm]
    return np.sqrt(mass(rod))[:, None] * Binv / np.sqrt(C)[None, :]


def frequencies(rod, k=None):
    """Angular frequencies of the rod linearised about the straight state.

    The problem is K v = omega^2 M v with K the Hessian at :func:`straight`
    and M the lumped mass.  At the straight state the cantilever is
    statically determinate: K = B^T C B with B the (invertible) map from
    displacements to the element strains (stretch a/ell - 1, shear b/ell,
    curvature (phi_e - phi_{e-1})/ell) and C = ell diag(EA, S, EI c_e).  So
    M^{1/2} K^{-1} M^{1/2} = W W^T with W = M^{1/2} B^{-1} C^{-1/2}, and

        omega_i = 1 / sigma_i(W)

    from the singular values (``scipy.linalg.svdvals``).  B^{-1} is a
    cumulative sum, so W is formed without cancellation and the low (bending)
    frequencies keep full relative accuracy even for the stiff r/L = 0.002
    rod, where an eigensolver working on K itself loses about
    eps * omega_max^2 / omega_1^2 ~ 1e-6 (the tests compare both).  All modes
    (bending, axial, shear / rotation) are returned, ascending.

    Parameters
    ----------
    rod : Rod
    k : int, optional
        Keep only the lowest k frequencies.

    Returns
    -------
    ndarray, shape (3N,) or (k,)

    Examples
    --------
    >>> frequencies(make_rod(40, r_over_L=0.002), 2).round(4)
    array([ 3.5141, 21.974 ])
    """
    n = _check_rod(rod).ndof
    k = None if k is None else checks.integer(k, "k", 1, n)
    # x decouples from (phi, y) at the straight state: two smaller SVDs
    W = _flexibility_factor(rod)
    ax = np.zeros(n, dtype=bool)
    ax[1::3] = True
    N = rod.N
    cols_ax = np.zeros(n, dtype=bool)
    cols_ax[:N] = True  # strain columns: stretch first (see _flexibility_factor)
    sig = np.concatenate([svdvals(W[np.ix_(ax, cols_ax)]), svdvals(W[np.ix_(~ax, ~cols_ax)])])
    om = np.sort(1.0 / sig)
    return om if k is None else om[:k]


def modes(rod, k=None):
    """Frequencies and mode shapes of the linearisation about the straight state.

    Same factorisation as :func:`frequencies`; a mode v (M-orthonormal,
    v^T M v = 1) is M^{-1/2} u with u a left singular vector of W.  The sign
    is fixed so that the tip deflection (or, failing that, the largest
    component) is positive.

    Returns
    -------
    omega : ndarray, shape (k,)
    shapes : ndarray, shape (3N, k)
        Displacements from :func:`straight` in the layout of ``q``.

    Examples
    --------
    >>> om, V = modes(make_rod(10), 1)
    >>> V.shape, bool(V[-1, 0] > 0)
    ((30, 1), True)
    """
    n = _check_rod(rod).ndof
    k = n if k is None else checks.integer(k, "k", 1, n)
    U, sig, _ = svd(_flexibility_factor(rod))
    V = U[:, :k] / np.sqrt(mass(rod))[:, None]
    ref = V[-1]
    big = V[np.abs(V).argmax(axis=0), np.arange(k)]
    sgn = np.where(np.abs(ref) > 1e-8 * np.abs(V).max(axis=0), np.sign(ref), np.sign(big))
    return 1.0 / sig[:k], V * sgn


def kirchhoff_frequencies(N, k=None, L=1.0, EI=1.0, rhoA=1.0, clamp=2.0):
    """Frequencies of the true inextensible, shear-rigid limit of the discrete rod.

    As EA, k_sGA -> infinity and rhoI -> 0 the element constraints a = ell,
    b = 0 make the discrete rod a chain of rigid links of length ell: node
    heights y_i = ell sum_{j<i} phi_j (linearised), with the same lumped
    masses (rhoA ell, half at the tip) and the same bending springs
    EI c_e / ell (c_0 = 2).  Axial motion is second order and drops out.  As in :func:`frequencies`
    the problem K phi = omega^2 J^T M J phi is solved through the
    flexibility factor W = M^{1/2} J B^{-1} C^{-1/2} (B: angles ->
    curvatures, C = ell EI c_e): omega_i = 1 / sigma_i(W), free of the
    ill-conditioning of J^T M J.

    Parameters
    ----------
    N : int
        Number of links (>= 1).
    k : int, optional
        Keep the lowest k.
    L, EI, rhoA : float
        Length, bending stiffness, mass per length.
    clamp : float
        Weight c_0 of the clamp term EI/(2 ell) c_0 phi_0^2 (2 in the rod model:
        a joint spring EI/ell across the relative rotation 2 phi_0 to the
        mirror image of element 0; 1 forgets the mirror half).

    Returns
    -------
    ndarray, shape (N,) or (k,)

    Examples
    --------
    >>> kirchhoff_frequencies(1).round(6)        # one link: sqrt(2 / 0.5)
    array([2.])
    """
    rod = make_rod(N, r_over_L=1.0, L=L, EI=EI, rhoA=rhoA)  # validates N, L, EI, rhoA
    ell, N = rod.ell, rod.N
    k = None if k is None else checks.integer(k, "k", 1, N)
    clamp = checks.positive(clamp, "clamp")
    w = _bending_weights(rod)
    w[0] = clamp
    Lt = np.tril(np.ones((N, N)))
    C = ell * rod.EI * w
    # y_{i+1} = ell sum_{j<=i} phi_j,  phi_j = ell sum_{m<=j} kappa_m
    W = np.sqrt(node_masses(rod))[:, None] * (ell**2 * (Lt @ Lt)) / np.sqrt(C)[None, :]
    om = 1.0 / svdvals(W)
    return om if k is None else om[:k]


def tip(rod, q):
    """Tip position and angle ``(x_N, y_N, phi_{N-1})`` of a state.

    >>> rod = make_rod(4)
    >>> tip(rod, straight(rod))
    (1.0, 0.0, 0.0)
    """
    q = _check_q(_check_rod(rod), q)
    return float(q[-2]), float(q[-1]), float(q[-3])


def _tangent(rod, q):
    """The factorised Hessian: banded Cholesky, sparse LU if it is not positive definite
    (a singular one is a SolveError that the shared Newton reports with its iteration)."""
    return factor(lambda: _hessian(rod, q), banded=_banded_upper(rod, q),
                  where="rod.static tangent")


def static(rod, load=None, grav=0.0, steps=10, q0=None, tol=1e-10, maxiter=50):
    """Equilibrium of the rod under a dead tip load and gravity.

    Solves grad Pi(q) = 0 along a uniform load path (:func:`lib.solvers.load_path`): the
    load (and g) is scaled by j/steps, j = 1..steps, and each increment is solved by
    :func:`lib.solvers.newton_solve` with the Hessian (banded Cholesky, sparse LU if it
    is not positive definite) and a backtracking line search that accepts a step when
    either the energy or the residual norm decreases sufficiently
    (``accept="energy-or-residual"``, 33 halvings).  Convergence:
    ||grad Pi||_inf <= tol * f_scale, f_scale = max(EI/L, |P|, |M|/L, g rhoA L), or a
    Newton step below 1e-14 L with a residual at the round-off floor
    64 eps (EA + k_sGA) of the stiff terms (``roundoff="correction"``).

    Parameters
    ----------
    rod : Rod
    load : (Px, Py, M), optional
        Dead tip force and moment.
    grav : float
        Gravity in -y.
    steps : int
        Number of load increments (>= 1).
    q0 : ndarray, optional
        Finite start state (default :func:`straight`).
    tol : float
        Relative residual tolerance (>= 0).
    maxiter : int
        Newton iterations per increment (>= 0).

    Returns
    -------
    ndarray, shape (3N,)
        The equilibrium state.

    Raises
    ------
    ValueError
        For a bad argument (named).
    StaticSolveError
        If an increment does not converge (a :class:`~lib.core.errors.SolveError`): the
        message gives the load step, the iteration, the residual reached and why; or
        with ``reason="unstable equilibrium"`` if the equilibrium reached is not stable
        (its Hessian is not positive definite: the straight rod under an axial
        compression past buckling is an equilibrium by symmetry, but a saddle).

    Examples
    --------
    >>> rod = make_rod(20, r_over_L=0.002)
    >>> x, y, th = tip(rod, static(rod, (0.0, -1e-3, 0.0)))
    >>> round(y / 1e-3, 4)     # linear beam -P L^3/(3 EI) = -0.3333, less O(1/N^2)
    -0.3338
    """
    _check_rod(rod)
    load = check_load(load)
    grav = checks.real(grav, "grav")
    steps = checks.integer(steps, "steps", low=1)
    q = straight(rod) if q0 is None else _check_q(rod, q0, "q0")
    tol = checks.nonnegative(tol, "tol")
    maxiter = checks.integer(maxiter, "maxiter", low=0)
    fscale = max(rod.EI / rod.L, abs(load[0]), abs(load[1]), abs(load[2]) / rod.L,
                 abs(grav) * rod.rhoA * rod.L)
    # forces carry round-off ~ eps * (EA + S) from the stiff stretch and shear terms
    floor = 64 * np.finfo(float).eps * (rod.EA + rod.kGA)

    def solve_at(lam, q):
        ld, gv = tuple((lam * load).tolist()), lam * grav
        return newton_solve(lambda q: (_gradient(rod, q, ld, gv), lambda: _tangent(rod, q)),
                            q, tol, maxiter, max_backtracks=33, where="rod.static",
                            accept="energy-or-residual", energy=lambda q: _energy(rod, q, ld, gv),
                            scale=fscale, floor=floor, roundoff="correction",
                            xtol=1e-14 * rod.L, xtol_rel=0.0)

    try:
        q = load_path(solve_at, q, steps=steps, where="rod.static")[0]
    except SolveError as err:
        raise err.recast(StaticSolveError) from err
    try:                # Newton also converges to saddles: the equilibrium must be stable
        require_positive_definite(banded_hessian(rod, q), where="rod.static", hint=BIFURCATION)
    except SolveError as err:
        raise err.recast(StaticSolveError).located(steps, nsteps=steps, load=1.0) from None
    return q


# --------------------------------------------------------------------------------------
# the fast paths (issue 26): banded tangent for the implicit integrators, and explicit
# runs of many steps per call; each has its NumPy twin (kernels=False)
# --------------------------------------------------------------------------------------
def _kernel_args(rod, load, grav):
    """The trailing arguments of the lib.kernels.planar kernels (load: a triple or None)."""
    Px, Py, M = (0.0, 0.0, 0.0) if load is None else load
    return (int(rod.N), float(rod.ell), float(rod.EA), float(rod.kGA), float(rod.EI),
            float(rod.rhoA), float(grav), float(Px), float(Py), float(M))


def banded_hessian(rod, q, *, kernels=None):
    """Hessian of :func:`energy` as a :class:`lib.kernels.banded.SymmetricBanded` matrix.

    The same matrix as :func:`hessian`, assembled straight into LAPACK upper banded
    storage (half-bandwidth 4, see ``BANDWIDTH``): by the compiled
    :func:`lib.kernels.planar.hessian_banded`, or with ``kernels=False`` from the
    element triplets of :func:`hessian`.  The implicit integrators of
    :mod:`lib.integrate` solve it with ``scipy.linalg.cholesky_banded``.

    Examples
    --------
    >>> rd = make_rod(3)
    >>> H = banded_hessian(rd, straight(rd))
    >>> H.shape, H.u, bool(np.allclose(H.toarray(), hessian(rd, straight(rd)).toarray()))
    ((9, 9), 4, True)
    """
    q = _check_q(_check_rod(rod), q)
    return SymmetricBanded.wrap(_banded_upper(rod, q, kernels=_kernels.use(kernels)))


def force(rod, load=None, grav=0.0, *, kernels=None):
    """``force(q) -> (gradient, banded Hessian)`` for the implicit steps of :mod:`lib.integrate`.

    The tangent is a :class:`lib.kernels.banded.SymmetricBanded`, which
    :func:`lib.integrate.newmark_step`, :func:`lib.integrate.generalized_alpha_step`
    and :func:`lib.integrate.discrete_gradient_step` factor by banded Cholesky instead
    of a sparse LU (same iterates to round-off as ``(gradient, hessian)``).  Its
    arguments are checked here, once; ``f(q)`` checks only the length of ``q`` (a
    non-finite trial state of an integrator's Newton gives a non-finite force, which
    that Newton rejects).

    Examples
    --------
    >>> from lib import integrate
    >>> rd = make_rod(10)
    >>> f = force(rd, (0.0, -1.0, 0.0))
    >>> q, v, a = integrate.newmark_step(straight(rd), np.zeros(30), np.zeros(30), 1e-2,
    ...                                  f, mass(rd))
    >>> bool(q[-1] < 0)
    True
    """
    _check_rod(rod)
    load, grav = _check_load(load), checks.real(grav, "grav")
    _kernels.use(kernels)                         # the keyword checked now
    args = _kernel_args(rod, load, grav)

    def f(q):
        if not (type(q) is np.ndarray and q.dtype is _F8 and q.shape == (rod.ndof,)):
            q = checks.vector(q, "q", rod.ndof, finite=None)
        if _kernels.use(kernels):                 # one compiled call for both
            g, ab = _kernels.planar.force(np.ascontiguousarray(q), *args)
            return g, SymmetricBanded.wrap(ab)
        return (_gradient(rod, q, load, grav, False),
                SymmetricBanded.wrap(_banded_upper(rod, q, False)))

    return f


def first_order(rod, load=None, grav=0.0, *, kernels=None):
    """``f(t, y) -> dy/dt`` of the undamped rod as a first-order system, for ``solve_ivp``.

    With ``y = (q, v)`` (length 6N), ``dy/dt = (v, -M^{-1} grad Pi(q))``, M the lumped
    :func:`mass`: the right-hand side SciPy's explicit integrators take.  Its arguments
    are checked here, once; ``f(t, y)`` checks only the length of ``y`` (an integrator's
    trial state is its own business).  With the kernels on, one compiled call
    (:func:`lib.kernels.planar.first_order`) per evaluation instead of a gradient, a
    division and a concatenation: DOP853 references of the rod make hundreds of thousands
    of evaluations, where the per-call overhead is the cost.  The same numbers as
    ``np.concatenate([v, -gradient(rod, q) / mass(rod)])`` (the same operations).

    Examples
    --------
    >>> from scipy.integrate import solve_ivp
    >>> rd = make_rod(4)
    >>> q0 = static(rd, (0.0, -1.0, 0.0))
    >>> sol = solve_ivp(first_order(rd), (0.0, 0.1), np.r_[q0, 0 * q0], rtol=1e-8)
    >>> bool(sol.success and sol.y[-1, -1] > 0)       # released, the tip moves up
    True
    """
    _check_rod(rod)
    load, grav = _check_load(load), checks.real(grav, "grav")
    _kernels.use(kernels)                         # the keyword checked now
    args, m, n = _kernel_args(rod, load, grav), mass(rod), rod.ndof

    def f(t, y):
        if not (type(y) is np.ndarray and y.dtype is _F8 and y.shape == (2 * n,)):
            y = checks.vector(y, "y", 2 * n, finite=None)
        if _kernels.use(kernels):
            return _kernels.planar.first_order(np.ascontiguousarray(y), m, *args)
        return np.concatenate([y[n:], -_gradient(rod, y[:n], load, grav, False) / m])

    return f


def verlet(rod, q0, v0, dt, nsteps, load=None, grav=0.0, every=1, *, kernels=None):
    """Velocity Verlet on the rod, M q'' = -grad Pi(q), sampled every ``every`` steps.

    :func:`lib.integrate.verlet` with ``accel(q) = -gradient(rod, q, load, grav) / m``
    (:func:`mass`); with the kernels on, the whole run is one call of the compiled
    :func:`lib.kernels.planar.verlet_run` (same trajectory to round-off).  Stable for
    dt <= 2 / omega_max (:func:`lib.integrate.critical_step`).

    Parameters
    ----------
    rod : Rod
    q0, v0 : ndarray, shape (3N,)
        Initial state.
    dt : float
    nsteps : int
    load, grav
        As for :func:`gradient`.
    every : int
        Keep every ``every``-th state (the first and the last always).
    kernels : bool, optional
        None: the switch of :mod:`lib.kernels`.

    Returns
    -------
    lib.integrate.Trajectory
        The sampled states.

    Raises
    ------
    ValueError
        naming a bad argument.
    NonFiniteState
        (a ``SolveError`` and a ``FloatingPointError``) with the step and time where the
        state became non-finite, as :func:`lib.integrate.verlet`.

    Examples
    --------
    >>> rd = make_rod(10)
    >>> tr = verlet(rd, straight(rd), np.zeros(30), 1e-4, 1000, (0.0, -1.0, 0.0), every=500)
    >>> tr.steps.tolist(), bool(tr.q[-1, -1] < 0)
    ([0, 500, 1000], True)
    """
    from . import integrate

    q0, v0 = _check_q(_check_rod(rod), q0, "q0"), _check_q(rod, v0, "v0")
    load, grav = _check_load(load), checks.real(grav, "grav")
    dt = checks.positive(dt, "dt")
    nsteps = checks.integer(nsteps, "nsteps", low=0)
    every = checks.integer(every, "every", low=1)
    m = mass(rod)
    if not _kernels.use(kernels) or nsteps > integrate.MAX_STEPS:   # NumPy twin; the cap
        return integrate.verlet(q0, v0, dt, nsteps,
                                lambda q: -_gradient(rod, q, load, grav, False) / m, every)
    t, q, v, a, steps, fail = _kernels.planar.verlet_run(
        np.ascontiguousarray(q0), np.ascontiguousarray(v0), dt, nsteps, every, m,
        *_kernel_args(rod, load, grav))
    if fail:                                      # integrate.verlet's error, word for word
        raise integrate.NonFiniteState("the state became non-finite (is dt above the stable "
                                       "step?)", where="verlet", reason="diverged", step=fail,
                                       time=fail * dt)
    return integrate.Trajectory(t, q, v, a, steps, {})


_PREDICTOR_CODES = {"displacement": 0, "velocity": 1, "acceleration": 2}


def newmark(rod, q0, v0, dt, nsteps, load=None, grav=0.0, every=1, *, beta=0.25, gamma=0.5,
            stop_energy=None, tol=1e-10, maxiter=40, predictor="displacement", kernels=None):
    """Implicit Newmark on the rod, M q'' + grad Pi(q) = 0, optionally stopped by an energy bound.

    :func:`lib.integrate.newmark` with ``force = force(rod, load, grav)`` (the banded
    tangent) and the lumped :func:`mass`, its defaults (Newton with the line-search
    fallback, no halving); with the kernels on, the whole run is one call of the
    compiled :func:`lib.kernels.planar.newmark_run` (same trajectory to round-off,
    Newton iteration for Newton iteration).  A stability scan runs it hundreds of
    times: ``stop_energy`` ends a run at the first sampled step whose energy
    Pi(q) + v . M v / 2 (:func:`energy` with ``load`` and ``grav``, plus the kinetic
    energy) exceeds it, instead of a callback.

    Parameters
    ----------
    rod, q0, v0, dt, nsteps, load, grav, every
        As for :func:`verlet`; the energy bound is checked at the kept states
        (``every=1``: at every step).
    beta, gamma : float
        Newmark parameters (1/4, 1/2: the trapezoidal rule).
    stop_energy : float, optional
        End the run at the first sample whose energy exceeds this (None: never).
    tol, maxiter, predictor
        As for :func:`lib.integrate.newmark_step`.
    kernels : bool, optional
        None: the switch of :mod:`lib.kernels`.

    Returns
    -------
    lib.integrate.Trajectory
        The sampled states; ``info`` as :func:`lib.integrate.newmark`'s (``iterations``,
        ``backtracks``, ``halved_steps``, ``substeps``) and ``stopped``: the step at which
        the energy bound ended the run (its last sample), or None.

    Raises
    ------
    ValueError
        naming a bad argument.
    lib.core.errors.NewtonFailure
        A step's Newton solve failed (with the line search too), located at its step
        and time, as :func:`lib.integrate.newmark`.
    NonFiniteState
        (a ``SolveError`` and a ``FloatingPointError``) the state became non-finite.

    Examples
    --------
    >>> rd = make_rod(10)
    >>> tr = newmark(rd, straight(rd), np.zeros(30), 1e-2, 100, (0.0, -1.0, 0.0), every=50)
    >>> tr.steps.tolist(), bool(tr.q[-1, -1] < 0), tr.info["stopped"]
    ([0, 50, 100], True, None)
    """
    from . import integrate

    q0, v0 = _check_q(_check_rod(rod), q0, "q0"), _check_q(rod, v0, "v0")
    load, grav = _check_load(load), checks.real(grav, "grav")
    dt = checks.positive(dt, "dt")
    nsteps = checks.integer(nsteps, "nsteps", low=0)
    every = checks.integer(every, "every", low=1)
    beta, gamma = checks.positive(beta, "beta"), checks.real(gamma, "gamma")
    if stop_energy is not None:
        stop_energy = checks.real(stop_energy, "stop_energy")
    checks.nonnegative(tol, "tol")
    maxiter = checks.integer(maxiter, "maxiter", low=0)
    checks.choice(predictor, "predictor", tuple(_PREDICTOR_CODES))
    use = _kernels.use(kernels)
    m = mass(rod)
    if not use or nsteps > integrate.MAX_STEPS:   # the NumPy twin; the cap is its error
        stopped = []

        def watch(n, t, q, v, a):
            if _energy(rod, q, load, grav, False) + 0.5 * float(v @ (m * v)) > stop_energy:
                stopped.append(n)
                return False

        tr = integrate.newmark(q0, v0, dt, nsteps, force(rod, load, grav, kernels=False), m,
                               beta, gamma, every, None if stop_energy is None else watch,
                               tol, maxiter, predictor)
        tr.info["stopped"] = stopped[0] if stopped else None
        return tr
    args = _kernel_args(rod, load, grav)
    f0 = _kernels.planar.gradient(np.ascontiguousarray(q0), *args)
    if not np.all(np.isfinite(f0)):               # integrate.newmark's check, word for word
        raise ValueError(f"force(u0) must give a finite f of shape {q0.shape}, got "
                         f"{checks.show(f0)}")
    (t, q, v, a, steps, status, step, reason, iteration, residual, relative, iterations,
     backtracks) = _kernels.planar.newmark_run(
        np.ascontiguousarray(q0), np.ascontiguousarray(v0), -f0 / m, dt, nsteps, every, m,
        beta, gamma, float(tol), maxiter, _PREDICTOR_CODES[predictor],
        np.inf if stop_energy is None else stop_energy, *args)
    if status == _kernels.planar.RUN_NEWTON:      # integrate.newmark's errors, located alike
        raise integrate.NewtonFailure(where="Newmark Newton",
                                      reason=_kernels.planar.NEWTON_REASONS[reason],
                                      iteration=iteration, residual=residual,
                                      relative=relative, tol=tol).located(step, step * dt)
    if status == _kernels.planar.RUN_NONFINITE:
        raise integrate.NonFiniteState("the state became non-finite (is dt above the stable "
                                       "step?)", where="newmark", reason="diverged",
                                       step=step, time=step * dt)
    done = int(steps[-1])
    info = {"iterations": int(iterations), "backtracks": int(backtracks), "halved_steps": 0,
            "substeps": done, "stopped": done if status == _kernels.planar.RUN_ENERGY else None}
    return integrate.Trajectory(t, q, v, a, steps, info)
