"""Damping as a model: Kelvin-Voigt on the rod, Rayleigh damping on any (M, K) pair.

Both are Rayleigh dissipation functions D(q, v) = v^T C(q) v / 2, quadratic in
the velocity, whose derivative is the damping force f_d = dD/dv = C(q) v; the
equations of motion become M q'' + C(q) q' + grad Pi(q) = 0 and the energy
falls at the rate dE/dt = -2 D.

Kelvin-Voigt rod
----------------
The rod of :mod:`lib.rod` stores Pi = sum_e ell/2 [EA eps_e^2 + S gam_e^2 +
EI w_e kap_e^2] with the strains of element e (layout of :mod:`lib.rod`)

    eps_e = a_e/ell - 1 (stretch),  gam_e = b_e/ell (shear),
    kap_e = (phi_e - phi_{e-1})/ell (bending; w_0 = 2 for the clamp half element),

a_e = d_e . t_e, b_e = d_e . n_e.  A Kelvin-Voigt material adds a viscous
stress proportional to each strain rate, with retardation times tau_a,
tau_s, tau_b:

    D(q, v) = sum_e ell/2 [tau_a EA eps_e'^2 + tau_s S gam_e'^2 + tau_b EI w_e kap_e'^2],

with the strain rates eps' = B(q) v, B = d(strains)/dq (:func:`strain_jacobian`).
So C(q) = B^T diag(ell tau k) B.  At the straight state (all strains zero)
the Hessian of Pi is B^T diag(ell k) B, hence with tau_a = tau_s = tau_b = tau
the damping is C = tau K: stiffness-proportional, modal damping ratio
zeta_k = tau omega_k / 2 (:func:`modal_damping_ratios`).

Rayleigh damping
----------------
C = alpha M + beta K (:func:`rayleigh_matrix`, :func:`fem_rayleigh` for the
FEM arm of :mod:`lib.fem`), zeta_k = alpha/(2 omega_k) + beta omega_k / 2,
damped frequencies omega_k sqrt(1 - zeta_k^2) (:func:`damped_frequencies`),
checked against the eigenvalues of the quadratic problem
(:func:`quadratic_eigenvalues`).

Public functions
----------------
kelvin_voigt, KelvinVoigt, strains, strain_jacobian      the Kelvin-Voigt rod and its strains
dissipation, damping_force, damping_matrix              D(q, v), its force and C(q)
banded_damping_matrix                                   C(q) banded, for the implicit steps
rayleigh_matrix, rayleigh_coefficients, fem_rayleigh    Rayleigh damping
modal_damping_ratios, damped_frequencies, quadratic_eigenvalues    modal analysis

References: Rayleigh, *The theory of sound* (1877), sec. 81 (dissipation
function); Linn, Lang and Tuganov (2013) for viscous rods; Chopra,
*Dynamics of structures*, ch. 11 (Rayleigh damping).

Examples
--------
>>> from lib import rod
>>> rd = rod.make_rod(4)
>>> kv = kelvin_voigt(rd, 0.01)
>>> q = rod.straight(rd)
>>> C = damping_matrix(kv, q).toarray()
>>> K = rod.hessian(rd, q).toarray()
>>> bool(np.allclose(C, 0.01 * K, rtol=1e-12, atol=1e-9))
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from . import fem as _fem
from .core import checks
from .kernels.banded import SymmetricBanded
from .rod import Rod

__all__ = [
    "KelvinVoigt",
    "kelvin_voigt",
    "strains",
    "strain_jacobian",
    "dissipation",
    "damping_force",
    "damping_matrix",
    "banded_damping_matrix",
    "rayleigh_matrix",
    "rayleigh_coefficients",
    "fem_rayleigh",
    "modal_damping_ratios",
    "damped_frequencies",
    "quadratic_eigenvalues",
]


@dataclass(frozen=True)
class KelvinVoigt:
    """A rod with Kelvin-Voigt retardation times (see module docstring).

    Attributes
    ----------
    rod : Rod
    tau_stretch, tau_shear, tau_bend : float
        Retardation times tau_a, tau_s, tau_b (>= 0) of stretch, shear and bending.
    """

    rod: Rod
    tau_stretch: float
    tau_shear: float
    tau_bend: float

    def weights(self):
        """ell tau k per strain, shape (3, N): rows stretch, shear, bending."""
        rd = self.rod
        wb = np.ones(rd.N)
        wb[0] = 2.0
        return rd.ell * np.array([np.full(rd.N, self.tau_stretch * rd.EA),
                                  np.full(rd.N, self.tau_shear * rd.kGA),
                                  self.tau_bend * rd.EI * wb])


def kelvin_voigt(rod, tau, tau_shear=None, tau_bend=None):
    """Kelvin-Voigt damping of a rod; one retardation time ``tau`` unless split.

    Parameters
    ----------
    rod : Rod
    tau : float
        Retardation time of stretch (and of shear and bending unless given).
    tau_shear, tau_bend : float, optional

    Examples
    --------
    >>> from lib import rod
    >>> kelvin_voigt(rod.make_rod(2), 0.1, tau_bend=0.0).tau_shear
    0.1
    """
    checks.kind(rod, "rod", Rod, "a planar rod (lib.rod.Rod, made by lib.rod.make_rod)")
    t = checks.nonnegative(tau, "tau")
    ts = t if tau_shear is None else checks.nonnegative(tau_shear, "tau_shear")
    tb = t if tau_bend is None else checks.nonnegative(tau_bend, "tau_bend")
    return KelvinVoigt(rod, t, ts, tb)


def _check_state(model, x, name):
    checks.kind(model, "model", KelvinVoigt, "a Kelvin-Voigt rod (made by kelvin_voigt)")
    return checks.vector(x, name, model.rod.ndof)


def _geometry(q):
    phi = q[0::3]
    xy = np.concatenate([[0.0, 0.0], np.column_stack([q[1::3], q[2::3]]).ravel()])
    dx, dy = np.diff(xy[0::2]), np.diff(xy[1::2])
    c, s = np.cos(phi), np.sin(phi)
    return phi, c, s, c * dx + s * dy, -s * dx + c * dy


def strains(model, q):
    """Strains (stretch, shear, bending) of every element, shape (3, N).

    >>> from lib import rod
    >>> rd = rod.make_rod(3)
    >>> float(abs(strains(kelvin_voigt(rd, 1.0), rod.straight(rd))).max()) < 1e-15
    True
    """
    q = _check_state(model, q, "q")
    rd = model.rod
    phi, c, s, a, b = _geometry(q)
    kap = np.diff(np.concatenate([[0.0], phi])) / rd.ell
    return np.array([a / rd.ell - 1.0, b / rd.ell, kap])


def strain_jacobian(model, q):
    """B(q) = d(strains)/dq as ``scipy.sparse`` CSR, shape (3N, 3N).

    Row layout: 3e + 0 stretch, 3e + 1 shear, 3e + 2 bending of element e;
    columns in the layout of :mod:`lib.rod`.  The strain rates are B(q) v.

    >>> from lib import rod
    >>> rd = rod.make_rod(2)
    >>> strain_jacobian(kelvin_voigt(rd, 1.0), rod.straight(rd)).shape
    (6, 6)
    """
    return _strain_jacobian(model, _check_state(model, q, "q"))


def _strain_jacobian(model, q):
    rd = model.rod
    N, ell = rd.N, rd.ell
    _, c, s, a, b = _geometry(q)
    e = np.arange(N)
    r_a, r_b, r_k = 3 * e, 3 * e + 1, 3 * e + 2
    # d a / d(phi_e, x_{e+1}, y_{e+1}, x_e, y_e) = (b, c, s, -c, -s) / ell (a/ell is the strain)
    rows = [r_a] * 3 + [r_b] * 3 + [r_k]
    cols = [3 * e, 3 * e + 1, 3 * e + 2] * 2 + [3 * e]
    vals = [b, c, s, -a, -s, c, np.ones(N)]
    m = e >= 1                                  # node e is an unknown only for e >= 1
    rows += [r_a[m]] * 2 + [r_b[m]] * 2 + [r_k[m]]
    cols += [3 * e[m] - 2, 3 * e[m] - 1] * 2 + [3 * e[m] - 3]
    vals += [-c[m], -s[m], s[m], -c[m], -np.ones(m.sum())]
    B = sp.coo_matrix((np.concatenate(vals) / ell, (np.concatenate(rows), np.concatenate(cols))),
                      shape=(3 * N, 3 * N))
    return B.tocsr()


def _local_jacobian(model, q):
    """B(q) element by element: shape (N, 3, 6), rows (stretch, shear, bending) of element e,
    columns its six unknowns [phi_{e-1}, x_e, y_e, phi_e, x_{e+1}, y_{e+1}], i.e. the
    entries 3e - 3 ... 3e + 2 of q (element 0: the first three columns are the clamp, zero).
    The same entries as :func:`strain_jacobian`, without building a sparse matrix."""
    rd = model.rod
    _, c, s, a, b = _geometry(q)
    Bl = np.zeros((rd.N, 3, 6))
    Bl[:, 0, 3:] = np.column_stack([b, c, s])
    Bl[:, 1, 3:] = np.column_stack([-a, -s, c])
    Bl[:, 2, 3] = 1.0
    Bl[1:, 0, 1:3] = np.column_stack([-c[1:], -s[1:]])
    Bl[1:, 1, 1:3] = np.column_stack([s[1:], -c[1:]])
    Bl[1:, 2, 0] = -1.0
    return Bl / rd.ell


def _local_rates(model, Bl, v):
    """Strain rates B v per element, shape (N, 3)."""
    vl = np.concatenate([np.zeros(3), v])[3 * np.arange(model.rod.N)[:, None] + np.arange(6)]
    return np.einsum("nij,nj->ni", Bl, vl)


def dissipation(model, q, v):
    """Rayleigh dissipation function D(q, v) = (B v)^T W (B v) / 2 of the Kelvin-Voigt rod.

    >>> from lib import rod
    >>> rd = rod.make_rod(2)
    >>> dissipation(kelvin_voigt(rd, 1.0), rod.straight(rd), np.zeros(6))
    0.0
    """
    q, v = _check_state(model, q, "q"), _check_state(model, v, "v")
    rate = _local_rates(model, _local_jacobian(model, q), v)
    return float(0.5 * np.sum(model.weights().T * rate * rate))


def damping_force(model, q, v):
    """Damping force f_d = dD/dv = B^T W B v (layout of :mod:`lib.rod`).

    Computed element by element (the 3 x 6 blocks of B), the same sums as
    ``strain_jacobian(model, q).T @ (W * (strain_jacobian(model, q) @ v))``.

    >>> from lib import rod
    >>> rd = rod.make_rod(2)
    >>> damping_force(kelvin_voigt(rd, 1.0), rod.straight(rd), np.zeros(6)).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    q, v = _check_state(model, q, "q"), _check_state(model, v, "v")
    Bl = _local_jacobian(model, q)
    fl = np.einsum("nij,ni->nj", Bl, model.weights().T * _local_rates(model, Bl, v))
    N = model.rod.N
    f = np.zeros(3 * N + 3)                  # three leading entries: the clamp, dropped
    f[:-3].reshape(N, 3)[:] += fl[:, :3]
    f[3:].reshape(N, 3)[:] += fl[:, 3:]
    return f[3:]


def damping_matrix(model, q):
    """C(q) = B^T W B = d f_d / dv, ``scipy.sparse`` CSR (symmetric, positive semi-definite).

    >>> from lib import rod
    >>> rd = rod.make_rod(3)
    >>> C = damping_matrix(kelvin_voigt(rd, 0.5), rod.straight(rd))
    >>> float(abs(C - C.T).max())
    0.0
    """
    B = _strain_jacobian(model, _check_state(model, q, "q"))
    C = B.T @ sp.diags(model.weights().T.ravel()) @ B
    return (0.5 * (C + C.T)).tocsr()


def banded_damping_matrix(model, q):
    """C(q) of :func:`damping_matrix` as a :class:`lib.kernels.banded.SymmetricBanded`.

    Element e couples the six unknowns 3e - 3 ... 3e + 2, and its bending row touches
    only the two rotations, so C has half-bandwidth 4, that of the rod's Hessian
    (:func:`lib.rod.force`): the implicit steps add C / dt to their banded tangent and
    keep the banded solve (:func:`lib.integrate.discrete_gradient_step`).  Assembled from
    the 6 x 6 element blocks B_e^T W_e B_e, without a sparse matrix; the same matrix as
    :func:`damping_matrix` to round-off.

    Parameters
    ----------
    model : KelvinVoigt
    q : ndarray, shape (3N,)

    Returns
    -------
    SymmetricBanded
        Half-bandwidth 4, order 3N.

    Examples
    --------
    >>> from lib import rod
    >>> kv = kelvin_voigt(rod.make_rod(3), 0.5)
    >>> q = rod.straight(kv.rod)
    >>> C = banded_damping_matrix(kv, q)
    >>> C.u, bool(np.allclose(C.toarray(), damping_matrix(kv, q).toarray(), rtol=0, atol=1e-9))
    (4, True)
    """
    q = _check_state(model, q, "q")
    Bl = _local_jacobian(model, q)
    Cl = np.einsum("nia,ni,nib->nab", Bl, model.weights().T, Bl)    # (N, 6, 6) blocks
    N, u = model.rod.N, 4
    ab = np.zeros((u + 1, 3 * N + 3))        # columns shifted by the three clamp entries
    for i in range(6):
        for j in range(i, min(i + u, 5) + 1):
            ab[u + i - j, j:j + 3 * N:3] += Cl[:, i, j]
    return SymmetricBanded.wrap(ab[:, 3:].copy())


def _matrices(sparse, **named):
    """Matrices of one order, dense or sparse: the first square, the others too or diagonals."""
    first, out = next(iter(named)), []
    for name, A in named.items():
        vec = bool(out) and not sp.issparse(A) and np.ndim(A) == 1
        a = checks.vector(A, name) if vec else checks.matrix(A, name, square=True, sparse=True)
        if out and a.shape[0] != out[0].shape[0]:
            raise ValueError(f"{name} must be of the order of {first} ({out[0].shape[0]}), "
                             f"got shape {a.shape}")
        out.append((sp.diags(a) if vec else A if not out else sp.csr_matrix(A)) if sparse
                   else np.diag(a) if vec else a.toarray() if sp.issparse(a) else a)
    return out


def rayleigh_matrix(M, K, alpha, beta):
    """C = alpha M + beta K (M lumped vector, dense or sparse; the type of K kept).

    ``M`` and ``K`` must be of the same order n (``M``: n masses or an n x n matrix).

    >>> rayleigh_matrix(np.array([1.0, 2.0]), np.eye(2), 0.1, 0.01).round(12).tolist()
    [[0.11, 0.0], [0.0, 0.21]]
    """
    sparse = sp.issparse(K)
    K, M = _matrices(sparse, K=K, M=M)
    C = checks.nonnegative(alpha, "alpha") * M + checks.nonnegative(beta, "beta") * K
    return C.tocsr() if sparse else C


def rayleigh_coefficients(omega1, omega2, zeta1, zeta2=None):
    """alpha, beta giving damping ratios zeta1 at omega1 and zeta2 at omega2.

    From zeta = alpha/(2 omega) + beta omega / 2 at the two frequencies.

    >>> a, b = rayleigh_coefficients(1.0, 10.0, 0.05)
    >>> [round(float(z), 12) for z in modal_damping_ratios([1.0, 10.0], a, b)]
    [0.05, 0.05]
    """
    w1, w2 = checks.positive(omega1, "omega1"), checks.positive(omega2, "omega2")
    if not w1 < w2:
        raise ValueError(f"omega1 must be < omega2, got omega1 = {w1:g}, omega2 = {w2:g}")
    z1 = checks.nonnegative(zeta1, "zeta1")
    z2 = z1 if zeta2 is None else checks.nonnegative(zeta2, "zeta2")
    A = np.array([[1 / (2 * w1), w1 / 2], [1 / (2 * w2), w2 / 2]])
    alpha, beta = np.linalg.solve(A, [z1, z2])
    if alpha < 0 or beta < 0:
        raise ValueError(f"zeta2 = {z2:g} needs a negative alpha or beta (zeta1 = {z1:g})")
    return float(alpha), float(beta)


def fem_rayleigh(model, alpha, beta):
    """Rayleigh damping C = alpha M + beta K_0 of a :mod:`lib.fem` model (full dofs, CSR).

    M is the consistent mass (:func:`lib.fem.mass`), K_0 the linear stiffness
    (:func:`lib.fem.linear_stiffness`); condense with :func:`lib.fem.condense`.

    >>> m = _fem.cantilever(4, 1, "T3", slenderness=4.0)
    >>> C = fem_rayleigh(m, 0.0, 0.01)
    >>> bool(abs(C - 0.01 * _fem.linear_stiffness(m)).max() < 1e-15)
    True
    """
    checks.kind(model, "model", _fem.Model, "an FEM model (lib.fem.Model)")
    return rayleigh_matrix(_fem.mass(model), _fem.linear_stiffness(model), alpha, beta)


def modal_damping_ratios(omega, alpha=0.0, beta=0.0):
    """zeta_k = alpha/(2 omega_k) + beta omega_k / 2 of C = alpha M + beta K.

    Kelvin-Voigt with one tau is beta = tau.  ``omega > 0``; ``alpha, beta >= 0`` (a
    negative one would be an energy source, not damping).

    >>> modal_damping_ratios([2.0], 0.4, 0.1).tolist()
    [0.2]
    """
    w = checks.array(omega, "omega", low=0.0, include_low=False)
    return checks.nonnegative(alpha, "alpha") / (2 * w) + checks.nonnegative(beta, "beta") * w / 2


def damped_frequencies(omega, zeta):
    """omega_d = omega sqrt(1 - zeta^2); nan where zeta >= 1 (overdamped, no oscillation).

    >>> damped_frequencies([1.0, 1.0], [0.6, 1.2]).round(3).tolist()
    [0.8, nan]
    """
    w = checks.array(omega, "omega", low=0.0, include_low=False)
    z = checks.array(zeta, "zeta", shape=w.shape, broadcast=True, low=0.0)
    with np.errstate(invalid="ignore"):
        return np.where(z < 1, w * np.sqrt(np.clip(1 - z * z, 0, None)), np.nan)


def quadratic_eigenvalues(M, C, K):
    """Eigenvalues lambda of (lambda^2 M + lambda C + K) x = 0, by the companion form.

    Dense (``scipy.linalg.eig`` of the generalised first-order pencil
    [[0, I], [-K, -C]] - lambda [[I, 0], [0, M]]); for modestly sized systems.
    An underdamped mode gives lambda = -zeta omega +- i omega_d.  ``M``, ``C``, ``K``:
    matrices of one order n (``M`` and ``C`` may be given as diagonals of length n).

    Returns
    -------
    ndarray of complex, shape (2n,), sorted by |Im|, then Re, then Im.

    >>> lam = quadratic_eigenvalues(np.eye(1), 0.2 * np.eye(1), np.eye(1))
    >>> lam.round(6).tolist()
    [(-0.1-0.994987j), (-0.1+0.994987j)]
    """
    Kd, Md, Cd = _matrices(False, K=K, M=M, C=C)
    n = Kd.shape[0]
    I, Z = np.eye(n), np.zeros((n, n))
    A = np.block([[Z, I], [-Kd, -Cd]])
    Bm = np.block([[I, Z], [Z, Md]])
    lam = sla.eigvals(A, Bm)
    return lam[np.lexsort((lam.imag, lam.real, np.abs(lam.imag)))]
