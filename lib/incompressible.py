r"""Near-incompressible soft materials at finite strain: rubber models and locking-free elements.

The plane-strain cantilever of :mod:`lib.fem` (mesh, shape functions, quadrature and
assembly come from :mod:`lib.fe`), with four hyperelastic materials and five
formulations.

Materials
---------
Plane strain is the 3-D model with ``F_33 = 1``.  With ``a = |F|^2`` (the 2 x 2 part)
and ``J = det F``, the 3-D invariants are ``I_1 = a + 1``, ``I_2 = a + J^2`` and the
isochoric ones ``Ibar_1 = J^{-2/3}(a + 1)``, ``Ibar_2 = J^{-4/3} a + J^{2/3}``.
Every material is written as a *shape part* ``g(a, J)`` plus a quadratic volumetric
part,

.. math::

    W(F) = g(a, J) + U(J),\qquad U(J) = \tfrac{\kappa}{2}(J - J_0)^2,

* ``"neo-hookean"`` (split): ``g = mu/2 (Ibar_1 - 3)``, ``kappa = 2 mu (1+nu)/(3(1-2nu))``;
* ``"mooney-rivlin"``: ``g = c10 (Ibar_1 - 3) + c01 (Ibar_2 - 3)``, ``mu = 2(c10 + c01)``
  (Mooney 1940, Rivlin 1948);
* ``"yeoh"``: ``g = c10 (Ibar_1-3) + c20 (Ibar_1-3)^2 + c30 (Ibar_1-3)^3``, ``mu = 2 c10``
  (Yeoh 1993);
* ``"stable-neo-hookean"`` (Smith, de Goes & Kim 2018):
  ``g = mu_s/2 (I_1 - 3) - mu_s/2 ln((I_1 + 1)/4) - c_0``, ``kappa = lam_s``,
  ``J_0 = 1 + 3 mu_s/(4 lam_s)``, with ``mu_s = 4 mu/3`` and ``lam_s = lam + 5 mu/6`` so
  that it linearises to Hooke's law with the Lame constants ``mu, lam`` of ``nu``.

``nu`` is the small-strain Poisson ratio; ``nu = 0.5`` gives ``kappa = inf`` (exactly
incompressible), which only the mixed formulations accept.  With ``H = dJ/dF = cof F``
(in 2-D ``H_iJ = eps_ik eps_JL F_kL``) the stress and tangent are

.. math::

    P = 2 g_a F + (g_J + U')\,H,\\
    \mathsf A = 2 g_a\,\mathbb I + 4 g_{aa}\,F\otimes F
        + 2 g_{aJ}(F\otimes H + H\otimes F) + (g_{JJ} + U'')\,H\otimes H
        + (g_J + U')\,\mathbb E,

with ``I_iJkL = delta_ik delta_JL`` and ``E_iJkL = eps_ik eps_JL`` (= d H/d F).

Formulations (``formulation=``)
-------------------------------
``"T3"``, ``"T6"``   displacement-only, ``Pi = int W(F) - f.u``;
``"P2P1"``           Taylor-Hood: T6 displacement + continuous linear pressure,
``"P2P0"``           T6 + one pressure per element, ``"P1P0"`` T3 + one pressure per
                     element (locks; kept for the inf-sup study),
``"P2P1disc"``       T6 + a discontinuous linear pressure (three per element).  On the
                     3-point rule that ``"T6"`` uses it is T6's mixed twin: the pressure
                     equations hold point by point, ``p = kappa (J - J_0)``, and
                     condensing them gives back ``"T6"`` exactly.  The mixed functional
                     (Simo, Taylor & Pister 1985; Simo & Taylor 1991) is
                     ``L(u, p) = int g(F) + p (J - J_0) - p^2/(2 kappa) - f.u``,
                     a saddle point; ``kappa = inf`` is allowed;
``"Fbar"``           the mean-dilatation element (the name is kept for the code's sake):
                     T6 with the volumetric part evaluated at the element-mean dilatation
                     ``theta_e = (1/A_e) int_e J``:  ``Pi = int g(F) + sum_e A_e U(theta_e)``
                     It is P2P0 with the pressure condensed per element, a pure
                     displacement model with a symmetric tangent.  It is *not* the F-bar
                     element of de Souza Neto et al. (1996), which takes the centroid
                     dilatation and has in general an unsymmetric tangent (and
                     ``(theta/J)^{1/3} F`` would not keep ``F_33 = 1``).

Array layout
------------
``x`` is the unknown vector: ``u`` (2 n_nodes, interleaved as in :mod:`lib.fem`) for
displacement formulations, ``[u, p]`` (2 n_nodes + n_p) for the mixed ones.
``body.free`` indexes the unconstrained entries of ``x``.

Public functions
----------------
material, neo_hookean, mooney_rivlin, yeoh, stable_neo_hookean, Material, MODELS,
ECOFLEX_0030_YEOH                   materials
response, uniaxial_stress, fit_mooney_rivlin    stress response and a fit to test data
make_body, cantilever, Body, FORMULATIONS, n_unknowns, displacement, pressure_field, expand
                                    bodies and their unknowns
energy, gradient, hessian, mass, tip_load, tip_deflection, tip_ratio
                                    energy and derivatives, the tip load and readout
solve, SolveResult, ConvergenceError            statics by Newton with load steps
prolong                             a Taylor-Hood state onto a nested finer mesh (a start)
inf_sup                             the discrete inf-sup constant of a mixed body
dynamics_force, dynamics_mass, kinetic_energy   the callables of :mod:`lib.integrate`

The u-p problem is checked by :func:`lib.crosscheck.skfem_rubber_tip` (scikit-fem's own mesh,
clamp, load and forms, all four laws) and :func:`lib.crosscheck.skfem_mixed_tip` (this mesh).

References
----------
Simo, Taylor & Pister (1985) CMAME 51; Simo & Taylor (1991) CMAME 85; de Souza Neto,
Peric, Dutko & Owen (1996) IJSS 33; Smith, de Goes & Kim (2018) ACM TOG 37(2);
Mooney (1940); Rivlin (1948); Yeoh (1993); Brezzi & Fortin (1991) for inf-sup.

Examples
--------
>>> mat = neo_hookean(mu=1.0, nu=0.4999)
>>> b = cantilever(10, 1, "P2P1", mat)
>>> r = solve(b, tip_load(b, 1.0), steps=2)
>>> round(tip_ratio(b, r.x, 1.0), 3), r.converged
(0.871, True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from . import fem
from .core import checks, linalg, quadrature
from .core.errors import SolveError
from .fe import (ConvergenceError, Mesh, assemble_matrix, assemble_vector, clamped_dofs,
                 coo_indices, rectangle_mesh, shape_functions, solve_path, tip_shear_load,
                 inf_sup_lanczos, vector_laplacian)
from .solvers import newton_solve

__all__ = [
    "MODELS", "FORMULATIONS", "Material", "material", "neo_hookean", "mooney_rivlin", "yeoh",
    "stable_neo_hookean", "response", "uniaxial_stress", "fit_mooney_rivlin",
    "ECOFLEX_0030_YEOH",
    "Body", "make_body", "cantilever", "energy", "gradient", "hessian", "mass", "tip_load",
    "tip_deflection", "tip_ratio", "SolveResult", "solve", "inf_sup", "n_unknowns",
    "displacement", "pressure_field", "dynamics_force", "ConvergenceError",
    "dynamics_mass", "kinetic_energy", "expand", "TipReference", "reference_tip_ratio",
    "prolong", "cantilever_solution", "NU_NEAR",
]

#: The near-incompressible Poisson's ratio of the chapter's cost study, release and
#: exercises (a silicone; the chapter glues it, the exercises' answers use it).
NU_NEAR = 0.4999

MODELS = ("neo-hookean", "mooney-rivlin", "yeoh", "stable-neo-hookean")
FORMULATIONS = ("T3", "T6", "P2P1", "P2P0", "P1P0", "Fbar", "P2P1disc")
MIXED = ("P2P1", "P2P0", "P1P0", "P2P1disc")

#: Ecoflex 00-30 (Smooth-On) Yeoh constants in kPa, C10, C20, C30, attributed to
#: Elsayed et al. (2014) and reused in soft-robot FEM tool boxes (a common default);
#: not traced to that paper's tables: unverified.
ECOFLEX_0030_YEOH = (17.0, -0.2, 0.023)


# --------------------------------------------------------------------------------------
# materials
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Material:
    """A plane-strain hyperelastic material ``W = g(a, J) + kappa/2 (J - J0)^2``.

    Attributes
    ----------
    model : one of :data:`MODELS`.
    constants : the model's constants (``(mu,)``, ``(c10, c01)``, ``(c10, c20, c30)``,
        ``(mu_s,)`` for the stable neo-Hookean).
    nu : small-strain Poisson ratio in (-1, 0.5].
    mu : small-strain shear modulus.
    kappa : volumetric modulus of ``U`` (``inf`` at ``nu = 0.5``).
    J0 : rest value of ``J`` in ``U`` (1, or Smith et al.'s alpha).
    """

    model: str
    constants: tuple
    nu: float
    mu: float
    kappa: float
    J0: float

    @property
    def lam(self):
        """Small-strain Lame constant ``2 mu nu/(1 - 2 nu)`` (``inf`` at 0.5)."""
        return np.inf if self.nu == 0.5 else 2 * self.mu * self.nu / (1 - 2 * self.nu)

    @property
    def E(self):
        """Small-strain Young's modulus ``2 mu (1 + nu)``."""
        return 2 * self.mu * (1 + self.nu)

    @property
    def incompressible(self):
        return not np.isfinite(self.kappa)


def _check_nu(nu):
    return checks.real(nu, "nu", -1.0, 0.5, include_low=False)


def _check_mat(mat, name="mat"):
    return checks.kind(mat, name, Material, "a hyperelastic material (lib.incompressible."
                                            "Material, made by neo_hookean, yeoh, ...)")


def _check_body(body, name="body"):
    return checks.kind(body, name, Body, "a plane-strain body (lib.incompressible.Body, made "
                                         "by make_body or cantilever)")


def _check_F(F):
    F = checks.array(F, "F")
    if F.shape[-2:] != (2, 2):
        raise ValueError(f"F must have shape (..., 2, 2), got shape {F.shape}")
    return F


def _bulk(mu, nu):
    """3-D bulk modulus ``2 mu (1+nu)/(3(1-2nu))`` (``inf`` at 0.5)."""
    return np.inf if nu == 0.5 else 2 * mu * (1 + nu) / (3 * (1 - 2 * nu))


def neo_hookean(mu=1.0, nu=0.49):
    r"""Split neo-Hookean: ``W = mu/2 (Ibar_1 - 3) + kappa/2 (J - 1)^2``.

    >>> m = neo_hookean(1.0, 0.4)
    >>> round(m.kappa, 6), round(m.lam, 6)
    (4.666667, 4.0)
    """
    mu, nu = checks.positive(mu, "mu"), _check_nu(nu)
    return Material("neo-hookean", (mu,), nu, mu, _bulk(mu, nu), 1.0)


def mooney_rivlin(c10, c01, nu=0.49):
    r"""Mooney-Rivlin: ``W = c10 (Ibar_1 - 3) + c01 (Ibar_2 - 3) + kappa/2 (J - 1)^2``.

    ``c10 > 0``, ``c01 >= 0``; small-strain shear modulus ``mu = 2 (c10 + c01)``.

    >>> mooney_rivlin(0.3, 0.2).mu
    1.0
    """
    c10, c01, nu = checks.positive(c10, "c10"), checks.nonnegative(c01, "c01"), _check_nu(nu)
    mu = 2 * (c10 + c01)
    return Material("mooney-rivlin", (c10, c01), nu, mu, _bulk(mu, nu), 1.0)


def yeoh(c10, c20, c30, nu=0.49):
    r"""Yeoh: ``W = sum_k c_k0 (Ibar_1 - 3)^k + kappa/2 (J - 1)^2``, ``mu = 2 c10``.

    ``c10 > 0`` and ``c30 >= 0`` (the large-stretch stiffness stays positive); ``c20``
    may take either sign, as fitted constants of silicones often do.

    >>> round(yeoh(*ECOFLEX_0030_YEOH, nu=0.499).mu, 3)
    34.0
    """
    c10, c20 = checks.positive(c10, "c10"), checks.real(c20, "c20")
    c30, nu = checks.nonnegative(c30, "c30"), _check_nu(nu)
    mu = 2 * c10
    return Material("yeoh", (c10, c20, c30), nu, mu, _bulk(mu, nu), 1.0)


def stable_neo_hookean(mu=1.0, nu=0.49):
    r"""Stable neo-Hookean of Smith, de Goes & Kim (2018), restricted to plane strain.

    ``W = mu_s/2 (I_1 - 3) - mu_s/2 ln(I_1 + 1) + lam_s/2 (J - alpha)^2`` with
    ``mu_s = 4 mu/3``, ``lam_s = lam + 5 mu/6``, ``alpha = 1 + 3 mu_s/(4 lam_s)``: stress
    free at ``F = I``, Hooke's law with ``mu, lam`` for small strain, and finite for
    every ``J`` (no logarithm of ``J``: inverted elements have finite energy).

    >>> m = stable_neo_hookean(1.0, 0.25)
    >>> round(m.kappa, 6), round(m.J0, 6)
    (1.833333, 1.545455)
    """
    mu, nu = checks.positive(mu, "mu"), _check_nu(nu)
    lam = np.inf if nu == 0.5 else 2 * mu * nu / (1 - 2 * nu)
    mu_s, lam_s = 4 * mu / 3, lam + 5 * mu / 6
    return Material("stable-neo-hookean", (mu_s,), nu, mu, lam_s, 1 + 3 * mu_s / (4 * lam_s))


def material(model, nu=0.49, **constants):
    """Material by name: ``model`` in :data:`MODELS`, constants as keywords.

    >>> material("mooney-rivlin", nu=0.3, c10=0.4, c01=0.1).mu
    1.0
    >>> material("ogden")
    Traceback (most recent call last):
    ...
    ValueError: model must be one of 'neo-hookean', 'mooney-rivlin', 'yeoh', 'stable-neo-hookean', got 'ogden'
    """
    makers = {"neo-hookean": neo_hookean, "mooney-rivlin": mooney_rivlin, "yeoh": yeoh,
              "stable-neo-hookean": stable_neo_hookean}
    checks.choice(model, "model", MODELS)
    try:
        return makers[model](nu=nu, **constants)
    except TypeError as err:
        raise ValueError(f"constants of {model!r}: {err}") from None


def _iso_invariants(a, J):
    """Ibar_1, Ibar_2 and their first and second derivatives in (a, J)."""
    j23 = J ** (-2 / 3)
    i1 = j23 * (a + 1)
    i1_a, i1_J = j23, -2 / 3 * i1 / J
    i1_aa, i1_aJ, i1_JJ = 0.0 * a, -2 / 3 * j23 / J, 10 / 9 * i1 / J**2
    j43 = j23 * j23
    i2 = j43 * a + J ** (2 / 3)
    i2_a, i2_J = j43, -4 / 3 * j43 * a / J + 2 / 3 * J ** (-1 / 3)
    i2_aa, i2_aJ = 0.0 * a, -4 / 3 * j43 / J
    i2_JJ = 28 / 9 * j43 * a / J**2 - 2 / 9 * j43
    return (i1, i1_a, i1_J, i1_aa, i1_aJ, i1_JJ), (i2, i2_a, i2_J, i2_aa, i2_aJ, i2_JJ)


def _shape_part(mat, a, J):
    """``g`` and its derivatives ``g_a, g_J, g_aa, g_aJ, g_JJ`` (arrays like ``a``)."""
    if mat.model == "stable-neo-hookean":
        (mu_s,) = mat.constants
        z = 0 * a
        # constants chosen so that W(I) = 0 (they do not change P or A)
        c0 = 0.0 if mat.incompressible else 0.5 * mat.kappa * (1 - mat.J0) ** 2
        return (mu_s / 2 * (a - 2) - mu_s / 2 * np.log((a + 2) / 4) - c0,
                mu_s / 2 - mu_s / 2 / (a + 2), z,
                mu_s / 2 / (a + 2) ** 2, z, z)
    I1, I2 = _iso_invariants(a, J)
    x = I1[0] - 3
    if mat.model == "neo-hookean":
        f, f1, f11, f2 = mat.mu / 2 * x, mat.mu / 2 + 0 * x, 0 * x, 0.0
    elif mat.model == "mooney-rivlin":
        c10, c01 = mat.constants
        f, f1, f11, f2 = c10 * x + c01 * (I2[0] - 3), c10 + 0 * x, 0 * x, c01
    else:
        c10, c20, c30 = mat.constants
        f = c10 * x + c20 * x**2 + c30 * x**3
        f1 = c10 + 2 * c20 * x + 3 * c30 * x**2
        f11, f2 = 2 * c20 + 6 * c30 * x, 0.0
    _, i1a, i1J, i1aa, i1aJ, i1JJ = I1
    _, i2a, i2J, i2aa, i2aJ, i2JJ = I2
    return (f, f1 * i1a + f2 * i2a, f1 * i1J + f2 * i2J,
            f11 * i1a * i1a + f1 * i1aa + f2 * i2aa,
            f11 * i1a * i1J + f1 * i1aJ + f2 * i2aJ,
            f11 * i1J * i1J + f1 * i1JJ + f2 * i2JJ)


_EPS2 = np.array([[0.0, 1.0], [-1.0, 0.0]])
_I4 = np.einsum("ik,JL->iJkL", np.eye(2), np.eye(2))
_E4 = np.einsum("ik,JL->iJkL", _EPS2, _EPS2)


def _kernel(mat, F, vol, order):
    """W, P, A of ``g(a, J)`` plus a volumetric part given as ``(U, U', U'')`` arrays.

    ``vol`` is evaluated by the caller: ``U(J)`` for displacement elements,
    ``p (J - J0) - p^2/(2 kappa)`` for the mixed ones.
    """
    J = F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0]
    a = np.einsum("...iJ,...iJ->...", F, F)
    g, ga, gJ, gaa, gaJ, gJJ = _shape_part(mat, a, J)
    U, U1, U2 = vol(J)
    W = g + U
    if order == 0:
        return W
    H = np.stack([np.stack([F[..., 1, 1], -F[..., 1, 0]], -1),
                  np.stack([-F[..., 0, 1], F[..., 0, 0]], -1)], -2)
    s = gJ + U1
    P = (2 * ga)[..., None, None] * F + s[..., None, None] * H
    if order == 1:
        return W, P
    if order in (-1, 3):   # P and the size of the terms summed into it (round-off scale)
        mag = (2 * np.abs(ga) * np.abs(F).max(axis=(-1, -2))
               + (np.abs(s) + np.abs(gJJ + U2) * np.abs(J)) * np.abs(H).max(axis=(-1, -2)))
        if order == -1:
            return P, mag
    e = (..., None, None, None, None)
    A = ((2 * ga)[e] * _I4 + (4 * gaa)[e] * np.einsum("...iJ,...kL->...iJkL", F, F)
         + (2 * gaJ)[e] * (np.einsum("...iJ,...kL->...iJkL", F, H)
                           + np.einsum("...iJ,...kL->...iJkL", H, F))
         + (gJJ + U2)[e] * np.einsum("...iJ,...kL->...iJkL", H, H) + s[e] * _E4)
    if order == 3:      # everything a residual and its tangent at one state need
        return P, mag, A
    return W, P, A


def _volumetric(mat):
    k, J0 = mat.kappa, mat.J0
    return lambda J: (0.5 * k * (J - J0) ** 2, k * (J - J0), k + 0 * J)


def response(mat, F, order=2):
    r"""Energy density, first Piola stress and tangent of ``mat`` at ``F`` (plane strain).

    Parameters
    ----------
    mat : Material with finite ``kappa`` (``nu < 0.5``)
    F : (..., 2, 2) deformation gradients ``F[..., i, J]``
    order : 0 -> W; 1 -> (W, P); 2 -> (W, P, A), ``A[..., i, J, k, L]``

    Raises
    ------
    ValueError for ``nu = 0.5`` (the energy is a constraint there: use a mixed
    formulation) or, except for the stable neo-Hookean, ``det F <= 0``.

    Examples
    --------
    >>> W, P, A = response(neo_hookean(1.0, 0.25), np.eye(2))
    >>> float(W), float(abs(P).max()), round(float(A[0, 0, 0, 0]), 6)   # 2 mu + lam
    (0.0, 0.0, 3.0)
    """
    if _check_mat(mat).incompressible:
        raise ValueError("mat has nu = 0.5 (kappa = inf): the energy is a constraint; "
                         "evaluate it through a mixed formulation")
    F, order = _check_F(F), checks.choice(order, "order", (0, 1, 2))
    if mat.model != "stable-neo-hookean":
        J = F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0]
        if np.any(J <= 0):
            raise ValueError(f"F must have det F > 0 everywhere, min det F = {J.min():.3e}")
    return _kernel(mat, F, _volumetric(mat), order)


def uniaxial_stress(mat, stretch, mode="uniaxial"):
    r"""Nominal stress of the *incompressible* isochoric model in a homogeneous test.

    ``mode="uniaxial"``: ``P = 2 (l - l^{-2})(W_1 + W_2/l)``;
    ``mode="planar"`` (pure shear, the plane-strain test): ``P = 2 (l - l^{-3})(W_1 + W_2)``,
    with ``W_1, W_2`` the derivatives of ``g`` in ``Ibar_1, Ibar_2`` (``J = 1``).

    >>> round(float(uniaxial_stress(neo_hookean(1.0), 2.0)), 6)     # mu (l - l^-2)
    1.75
    """
    if _check_mat(mat).model == "stable-neo-hookean":
        raise ValueError("mat must be an isochoric model (neo-hookean, mooney-rivlin, yeoh)")
    checks.choice(mode, "mode", ("uniaxial", "planar"))
    l = checks.array(stretch, "stretch", low=0.0, include_low=False)
    if mode == "uniaxial":
        I1, I2 = l**2 + 2 / l, 2 * l + 1 / l**2
    else:
        I1 = I2 = l**2 + 1 / l**2 + 1
    x = I1 - 3
    if mat.model == "neo-hookean":
        W1, W2 = mat.mu / 2 + 0 * x, 0 * x
    elif mat.model == "mooney-rivlin":
        W1, W2 = mat.constants[0] + 0 * x, mat.constants[1] + 0 * x
    else:
        c10, c20, c30 = mat.constants
        W1, W2 = c10 + 2 * c20 * x + 3 * c30 * x**2, 0 * x
    if mode == "uniaxial":
        return 2 * (l - l**-2) * (W1 + W2 / l)
    return 2 * (l - l**-3) * (W1 + W2)


def fit_mooney_rivlin(stretch, stress, nu=0.49):
    r"""Least-squares Mooney-Rivlin ``(c10, c01)`` to uniaxial nominal stress data.

    The model is linear in its constants, ``P = 2(l - l^{-2}) c10 + 2(1 - l^{-3}) c01``,
    so this is one :func:`scipy.linalg.lstsq`; ``c01`` is clipped at 0 (refit with
    ``c01 = 0`` when the free fit makes it negative).

    >>> l = np.linspace(1, 3, 9)
    >>> m = fit_mooney_rivlin(l, uniaxial_stress(mooney_rivlin(0.3, 0.1), l))
    >>> np.round(m.constants, 10).tolist()
    [0.3, 0.1]
    """
    l = checks.vector(stretch, "stretch", low=0.0, include_low=False)
    y = checks.vector(stress, "stress")
    if y.size != l.size:
        raise ValueError(f"stretch and stress must have the same length, got {l.size} and "
                         f"{y.size}")
    if l.size < 2 or np.ptp(l) == 0:
        raise ValueError(f"stretch must hold at least two different stretches, got "
                         f"{checks.show(l)}")
    nu = _check_nu(nu)
    A = np.column_stack([2 * (l - l**-2), 2 * (1 - l**-3)])
    c = sla.lstsq(A, y)[0]
    if c[1] < 0:
        c = np.array([sla.lstsq(A[:, :1], y)[0][0], 0.0])
    return mooney_rivlin(float(c[0]), float(c[1]), nu=nu)


# --------------------------------------------------------------------------------------
# bodies: a meshed material with a formulation
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Body:
    """A plane-strain body: geometry from :mod:`lib.fem`, a material and a formulation.

    Attributes
    ----------
    geom : fem.Model carrying the mesh, quadrature (``G``, ``w``), dofs, mass data and
        the clamp; its own ``E, nu`` are placeholders and are not used here.
    material : Material
    formulation : one of :data:`FORMULATIONS`
    Np : (n_q, n_pe) pressure shape functions at the quadrature points (mixed only)
    pdofs : (n_el, n_pe) pressure unknown numbers (mixed only)
    n_p : number of pressure unknowns (0 for displacement formulations)
    area : (n_el,) element areas
    free : indices of the unconstrained entries of ``x``
    """

    geom: fem.Model
    material: Material
    formulation: str
    Np: np.ndarray
    pdofs: np.ndarray
    n_p: int
    area: np.ndarray
    free: np.ndarray
    _up: tuple = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_u(self):
        return self.geom.n_dofs

    @property
    def mixed(self):
        return self.formulation in MIXED


def _element_of(formulation):
    return "T3" if formulation in ("T3", "P1P0") else "T6"


def make_body(mesh, mat, formulation, fixed=None, rho=1.0):
    """Body on ``mesh`` (a :class:`lib.fem.Mesh`) with material ``mat``.

    Raises ValueError for an unknown formulation, a mesh of the wrong element type,
    or ``nu = 0.5`` with a displacement-only formulation.

    >>> b = make_body(fem.rectangle_mesh(2, 1, "T6"), neo_hookean(1.0, 0.5), "P2P1")
    >>> b.n_u, b.n_p
    (30, 6)
    """
    checks.choice(formulation, "formulation", FORMULATIONS)
    _check_mat(mat)
    checks.kind(mesh, "mesh", Mesh, "a triangle mesh (lib.fe.Mesh, made by rectangle_mesh)")
    if mesh.element != _element_of(formulation):
        raise ValueError(f"formulation {formulation!r} needs a {_element_of(formulation)} mesh, "
                         f"got {mesh.element!r}")
    if mat.incompressible and formulation not in MIXED:
        raise ValueError(f"nu = 0.5 (exactly incompressible) is allowed only by a mixed "
                         f"formulation {MIXED}; formulation {formulation!r} is displacement-only")
    geom = fem.make_model(mesh, E=1.0, nu=0.3, rho=rho, fixed=fixed)
    ne = len(mesh.elements)
    area = geom.w.sum(axis=1)
    nq = geom.w.shape[1]
    if formulation == "P2P1":
        corners = mesh.elements[:, :3]
        _, pd = np.unique(corners, return_inverse=True)
        pdofs = pd.reshape(corners.shape)
        xq, _ = quadrature.triangle(2)
        Np, _ = shape_functions("T3", xq)
    elif formulation == "P2P1disc":
        pdofs = np.arange(3 * ne).reshape(ne, 3)
        xq, _ = quadrature.triangle(2)
        Np, _ = shape_functions("T3", xq)
    elif formulation in ("P2P0", "P1P0"):
        pdofs = np.arange(ne)[:, None]
        Np = np.ones((nq, 1))
    else:
        pdofs = np.zeros((ne, 0), dtype=np.int64)
        Np = np.zeros((nq, 0))
    n_p = int(pdofs.max()) + 1 if pdofs.size else 0
    nu_dofs = geom.n_dofs
    free = np.concatenate([geom.free, nu_dofs + np.arange(n_p)])
    # coupling-block pattern: rows = u dofs, cols = pressure unknowns
    rows, cols = coo_indices(geom.dofs, pdofs)
    prow, pcol = coo_indices(pdofs, pdofs)
    for arr in (pdofs, Np, area, free, rows, cols, prow, pcol):
        arr.setflags(write=False)
    return Body(geom, mat, formulation, Np, pdofs, n_p, area, free, (rows, cols, prow, pcol))


def cantilever(nx, ny, formulation, mat, slenderness=10.0, rho=1.0):
    """The book's cantilever (``length = slenderness``, ``height = 1``, X = 0 clamped).

    >>> cantilever(10, 1, "Fbar", neo_hookean(1.0, 0.499)).free.size
    120
    """
    checks.choice(formulation, "formulation", FORMULATIONS)
    _check_mat(mat)
    mesh = rectangle_mesh(nx, ny, _element_of(formulation),
                          length=checks.positive(slenderness, "slenderness"), height=1.0)
    return make_body(mesh, mat, formulation, fixed=clamped_dofs(mesh), rho=rho)


def n_unknowns(body):
    """Free unknowns (displacements plus pressures)."""
    return int(_check_body(body).free.size)


def _check_x(body, x, name="x"):
    _check_body(body)
    return checks.vector(x, name, body.n_u + body.n_p)


def _split(body, x):
    return x[:body.n_u], x[body.n_u:]


def displacement(body, x):
    """The displacement part of ``x``."""
    return _split(body, _check_x(body, x))[0]


def pressure_field(body, x):
    """Pressure ``p`` at each element's pressure nodes (n_el, n_pe); mixed only.

    ``p`` is the multiplier of ``J - J0``: tension positive (``-p`` is the mean pressure).
    """
    if not _check_body(body).mixed:
        raise ValueError(f"body has no pressure unknowns (formulation {body.formulation!r})")
    return _split(body, _check_x(body, x))[1][body.pdofs]


def _F(body, u):
    ue = u.reshape(-1, 2)[body.geom.mesh.elements]
    return np.eye(2) + np.einsum("eai,eqaJ->eqiJ", ue, body.geom.G)


def _det(F):
    return F[..., 0, 0] * F[..., 1, 1] - F[..., 0, 1] * F[..., 1, 0]


def _H(F):
    return np.stack([np.stack([F[..., 1, 1], -F[..., 1, 0]], -1),
                     np.stack([-F[..., 0, 1], F[..., 0, 0]], -1)], -2)


def _point_vol(body, p, J):
    """Volumetric part at the quadrature points as ``vol(J) -> (U, U', U'')``."""
    mat = body.material
    if body.mixed:
        pq = np.einsum("qc,ec->eq", body.Np, p[body.pdofs])
        ik = 0.0 if mat.incompressible else 1.0 / mat.kappa
        return lambda J: (pq * (J - mat.J0) - 0.5 * ik * pq**2, pq, 0 * J)
    if body.formulation == "Fbar":
        theta = np.einsum("eq,eq->e", body.geom.w, J) / body.area
        U1 = np.broadcast_to((mat.kappa * (theta - mat.J0))[:, None], J.shape)
        return lambda J: (0 * J, U1, 0 * J)
    return _volumetric(mat)


def _check_det(body, F):
    if body.material.model != "stable-neo-hookean":
        J = _det(F)
        if np.any(J <= 0):
            raise ValueError(f"u inverts an element: min det F = {J.min():.3e}")


def energy(body, x, load=None):
    r"""Potential ``Pi`` (displacement, F-bar) or the saddle functional ``L(u, p)`` (mixed).

    .. math:: \Pi = \sum_{e,q} w\,W(F) - f\cdot u,\qquad
              L = \sum_{e,q} w\,[g + p(J - J_0) - p^2/(2\kappa)] - f\cdot u,

    and for F-bar ``sum w g + sum_e A_e U(theta_e) - f.u``.

    >>> b = cantilever(2, 1, "P2P1", neo_hookean(1.0, 0.5))
    >>> energy(b, np.zeros(b.n_u + b.n_p))
    0.0
    """
    x = _check_x(body, x)
    load = None if load is None else checks.vector(load, "load", body.n_u)
    u, p = _split(body, x)
    F = _F(body, u)
    _check_det(body, F)
    J = _det(F)
    W = _kernel(body.material, F, _point_vol(body, p, J), 0)
    Pi = float(np.sum(body.geom.w * W))
    if body.formulation == "Fbar":
        theta = np.einsum("eq,eq->e", body.geom.w, J) / body.area
        Pi += float(np.sum(body.area * 0.5 * body.material.kappa * (theta - body.material.J0) ** 2))
    if load is not None:
        Pi -= float(np.dot(load, u))
    return Pi


_PATHS = {}


def _contract(subscripts, *operands):
    """``np.einsum(subscripts, *operands, optimize=True)`` with its contraction order found
    once per operand shapes (the greedy search costs more than a small contraction)."""
    key = (subscripts,) + tuple(o.shape for o in operands)
    path = _PATHS.get(key)
    if path is None:
        path = _PATHS[key] = np.einsum_path(subscripts, *operands, optimize="greedy")[0]
    return np.einsum(subscripts, *operands, optimize=path)


def _residual(body, x, load=None, F=None, Pmag=None):
    """Residual and the magnitude of the terms summed into each force component.

    ``F`` (optional) is ``_F(body, u)`` when the caller already has it, ``Pmag`` the
    ``(P, mag)`` of ``_kernel`` at it (after ``_check_det``).
    """
    u, p = _split(body, x)
    F = _F(body, u) if F is None else F
    if Pmag is None:
        _check_det(body, F)
    J = _det(F)
    G, w = body.geom.G, body.geom.w
    P, mag = _kernel(body.material, F, _point_vol(body, p, J), -1) if Pmag is None else Pmag
    fe = _contract("eq,eqiJ,eqaJ->eai", w, P, G).reshape(len(G), -1)
    ru = assemble_vector(body.geom, fe)
    if body.formulation == "Fbar":        # the element term kappa (theta - J0) H
        mag = mag + body.material.kappa * np.abs(J) * np.abs(_H(F)).max(axis=(-1, -2))
    scale_e = np.einsum("eq,eq,eqa->ea", w, mag, np.abs(G).sum(axis=3))
    scale = np.bincount(body.geom.mesh.elements.ravel(), weights=scale_e.ravel(),
                        minlength=body.n_u // 2).repeat(2)
    if load is not None:
        ru = ru - load
    if not body.mixed:
        return ru, scale
    mat = body.material
    ik = 0.0 if mat.incompressible else 1.0 / mat.kappa
    pq = np.einsum("qc,ec->eq", body.Np, p[body.pdofs])
    rpe = np.einsum("eq,qc,eq->ec", w, body.Np, (J - mat.J0) - ik * pq)
    rp = np.bincount(body.pdofs.ravel(), weights=rpe.ravel(), minlength=body.n_p)
    return np.concatenate([ru, rp]), scale


def gradient(body, x, load=None):
    r"""Gradient of :func:`energy`: ``[dL/du, dL/dp]`` (mixed) or the internal force minus load.

    .. math:: r_a = \sum w\,P\,\nabla N_a - f_a,\qquad
              r_c = \sum w\,N^p_c\,\bigl(J - J_0 - p/\kappa\bigr),

    with ``P`` from the shape part plus ``p H`` (mixed), ``U'(J) H`` (displacement)
    or ``U'(theta_e) H`` (F-bar).

    >>> b = cantilever(2, 1, "Fbar", neo_hookean(1.0, 0.49))
    >>> float(abs(gradient(b, np.zeros(b.n_u))).max())
    0.0
    """
    x = _check_x(body, x)
    load = None if load is None else checks.vector(load, "load", body.n_u)
    return _residual(body, x, load)[0]


def hessian(body, x):
    r"""Consistent tangent: the Hessian of :func:`energy` (CSR, symmetric).

    Mixed: ``[[K_uu, K_up], [K_up^T, -M_p/kappa]]`` with
    ``K_uu = sum w grad N . A(F, p) . grad N``, ``K_up = sum w H : grad N_a N^p_c``.
    F-bar adds ``kappa/A_e b_e b_e^T``, ``b_e = sum_q w H : grad N`` per element.

    >>> b = cantilever(2, 1, "P2P1", neo_hookean(1.0, 0.5))
    >>> K = hessian(b, np.zeros(b.n_u + b.n_p))
    >>> K.shape, float(abs(K - K.T).max())
    ((36, 36), 0.0)
    """
    return _hessian(body, _check_x(body, x))


def _hessian(body, x, free=False, F=None, A=None):
    """The tangent of :func:`hessian`; ``free=True``: only its rows and columns ``body.free``.

    The blocks are summed as they always were (``K_uu`` by the mesh's assembly pattern,
    ``K_up`` and ``K_pp`` from their COO triplets); a pattern computed once per body
    (:func:`_tangent_plan`) then places their entries in the full matrix or directly in
    its free part, instead of ``sp.bmat`` and ``K[free][:, free]`` at every call: the
    same matrix, entry for entry.  ``F`` (optional) is ``_F(body, u)`` if already known,
    ``A`` the tangent moduli of ``_kernel`` at it (after ``_check_det``).
    """
    u, p = _split(body, x)
    F = _F(body, u) if F is None else F
    if A is None:
        _check_det(body, F)
        A = _kernel(body.material, F, _point_vol(body, p, _det(F)), 2)[2]
    G, w = body.geom.G, body.geom.w
    Ke = _contract("eq,eqaJ,eqiJkL,eqbL->eaibk", w, G, A, G)
    n = 2 * G.shape[2]
    Ke = Ke.reshape(-1, n, n)
    if body.formulation == "Fbar":
        be = _contract("eq,eqiJ,eqaJ->eai", w, _H(F), G).reshape(len(G), -1)
        Ke = Ke + (body.material.kappa / body.area)[:, None, None] * be[:, :, None] * be[:, None, :]
    inv, _, _, nnz = body.geom.pattern
    parts = [np.bincount(inv, weights=(0.5 * (Ke + Ke.transpose(0, 2, 1))).ravel(),
                         minlength=nnz)]
    if body.mixed:
        rows, cols, prow, pcol = body._up
        Be = _contract("eq,eqiJ,eqaJ,qc->eaic", w, _H(F), G, body.Np)
        parts.append(sp.csr_matrix((Be.ravel(), (rows, cols)), shape=(body.n_u, body.n_p)).data)
        if "Kpp" not in body._cache:               # -M_p / kappa does not depend on x
            mat = body.material
            ik = 0.0 if mat.incompressible else 1.0 / mat.kappa
            Ce = -ik * np.einsum("eq,qc,qd->ecd", w, body.Np, body.Np)
            Kpp = sp.csr_matrix((Ce.ravel(), (prow, pcol)), shape=(body.n_p, body.n_p)).data
            Kpp.setflags(write=False)
            body._cache["Kpp"] = Kpp
        parts.append(body._cache["Kpp"])
    sel, indices, indptr, shape = _tangent_plan(body)[bool(free)]
    data = (np.concatenate(parts) if len(parts) > 1 else parts[0])[sel]
    return sp.csr_matrix((data, indices, indptr), shape=shape)


def _tangent_plan(body):
    """Where each summed block entry goes in the full tangent and in its free part.

    ``(selection, indices, indptr, shape)`` for the full matrix and for the free one:
    the CSR data are ``blocks[selection]``, ``blocks`` the concatenated data of
    ``K_uu``, ``K_up`` and ``K_pp`` as :func:`_hessian` sums them.  Found once, by
    running the block layout (``sp.bmat``) and the restriction on matrices whose entries
    are their own positions.
    """
    if "plan" not in body._cache:
        inv, indices, indptr, nnz = body.geom.pattern
        n_u = body.n_u
        blocks = sp.csr_matrix((np.arange(1.0, nnz + 1), indices, indptr), shape=(n_u, n_u))
        if body.mixed:
            rows, cols, prow, pcol = body._up
            Kup = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_u, body.n_p))
            Kpp = sp.csr_matrix((np.ones(prow.size), (prow, pcol)), shape=(body.n_p, body.n_p))
            Kup.data = np.arange(1.0, Kup.nnz + 1) + nnz
            Kpp.data = np.arange(1.0, Kpp.nnz + 1) + nnz + Kup.nnz
            blocks = sp.bmat([[blocks, Kup], [Kup.T, Kpp]], format="csr")
        plan = []
        for K in (blocks, blocks[body.free][:, body.free]):
            K = sp.csr_matrix(K)
            sel = K.data.astype(np.int64) - 1
            for a in (sel, K.indices, K.indptr):
                a.setflags(write=False)
            plan.append((sel, K.indices, K.indptr, K.shape))
        body._cache["plan"] = tuple(plan)
    return body._cache["plan"]


def mass(body):
    """Consistent mass of the displacement unknowns (CSR, 2 n_nodes square)."""
    return fem.mass(_check_body(body).geom)


def tip_load(body, alpha=1.0):
    r"""Dead tip shear of resultant ``P = alpha E' I / L^2`` in -y (``E' = E/(1-nu^2)``).

    ``alpha = P L^2/(E' I)`` is the load parameter of :mod:`lib.fem`'s large-deflection
    example (alpha = 1 sags the tip by about 0.3 L); returns the nodal load on ``u``.
    """
    m = _check_body(body).geom.mesh
    P = checks.real(alpha, "alpha") * _Ep(body.material) * m.height**3 / 12 / m.length**2
    return tip_shear_load(body.geom, P)


def _Ep(mat):
    return mat.E / (1 - mat.nu**2)


def tip_deflection(body, x):
    """Plain mean of ``u_y`` over the nodes on X = length (as :func:`lib.fem.tip_deflection`)."""
    u = displacement(body, x)
    return fem.tip_deflection(body.geom, u)


def tip_ratio(body, x, alpha):
    """Tip deflection over the linear Euler-Bernoulli value ``P L^3/(3 E' I) = alpha L/3``."""
    tip = tip_deflection(body, x)
    if checks.real(alpha, "alpha") == 0:
        raise ValueError("alpha must be non-zero (the load the ratio divides by), got 0")
    return -tip / (alpha * body.geom.mesh.length / 3)


# --------------------------------------------------------------------------------------
# Newton solver
# --------------------------------------------------------------------------------------
@dataclass
class SolveResult:
    """Outcome of :func:`solve`.

    ``x`` the solution, ``iterations`` Newton iterations per load step, ``converged``,
    ``residual`` the last relative residual, and the wall times spent assembling
    (``t_assembly``) and in the sparse LU (``t_solve``), in seconds.
    """

    x: np.ndarray
    iterations: list
    converged: bool
    residual: float
    t_assembly: float
    t_solve: float

    @property
    def newton_total(self):
        return int(sum(self.iterations))


def _extra_terms(body, extra, x, factor):
    """``extra(u, factor) -> (g, H)`` padded with zeros over the pressure unknowns."""
    g, H = extra(x[:body.n_u], factor)
    g = np.asarray(g, dtype=float)
    if g.shape != (body.n_u,):
        raise ValueError(f"extra must return g of shape ({body.n_u},), got {g.shape}")
    if H is not None and body.n_p:
        H = sp.block_diag([H, sp.csr_matrix((body.n_p, body.n_p))], format="csr")
    return np.concatenate([g, np.zeros(body.n_p)]), H


def solve(body, load, steps=4, tol=1e-10, maxiter=25, x0=None, max_cuts=6, extra=None,
          extra_scale=None, reuse=1, lu="general"):
    r"""Static equilibrium by Newton's method with load increments.

    :func:`lib.solvers.newton_solve` (plain Newton with a per-entry force scale and
    round-off floor) along an adaptive :func:`lib.solvers.load_path` whose cut
    increments do not re-grow.  The load factor runs from 0 to 1 in ``steps`` equal
    increments.  At each, Newton solves the tangent system (symmetric; indefinite for
    mixed bodies) by sparse LU (:func:`lib.core.linalg.factor`; a displacement or
    mean-dilatation body's tangent by banded Cholesky where it is positive definite, with
    ``lu="general"``) until the displacement residual is below
    ``tol`` times the largest load and the pressure residual below ``tol`` times the
    largest element area, or until it reaches its round-off floor (64 eps times the
    terms summed into each force, or times ``|K| |x|``).  A Newton step that would
    invert an element is halved (the stable neo-Hookean has no such barrier).  An
    increment whose Newton iteration diverges or exceeds ``maxiter`` is restarted
    with half the increment, up to ``max_cuts`` times in a row; the iterations of
    failed attempts are counted too (they are part of the cost).

    ``extra(u, factor) -> (g, H)`` adds a configuration-dependent load that grows with
    the load factor: its gradient ``g`` (``n_u``,) to the displacement residual and its
    Hessian ``H`` (sparse ``n_u x n_u``, or None) to the tangent (e.g. a cable's
    ``tau d ell/du``, :func:`lib.actuation.cable_gradient`).  ``extra_scale`` is its
    force scale for the convergence test; with it ``load`` may be zero.

    ``reuse = k`` factorises the tangent only at every ``k``-th iteration of an increment
    (modified Newton: linear instead of quadratic convergence, to the same tolerance and
    the same solution); it pays where ``x0`` is already close, one factorisation serving
    all iterations.  The default ``reuse = 1`` is Newton's method.  ``lu`` picks
    SuperLU's mode for the tangent: ``"general"`` (the default: COLAMD column ordering,
    partial pivoting) or ``"symmetric"`` (minimum degree on ``A + A^T``, the diagonal
    pivot kept unless it is below 1/100 of its column): for Taylor-Hood tangents about
    half the fill and factorisation time on fine meshes, but not for every body (with
    the element-wise pressures of ``"P2P0"`` or ``"P2P1disc"`` on an 80 x 8 mesh it
    fills catastrophically and runs for minutes), so it is not the default.

    Returns
    -------
    SolveResult (``t_solve`` is the wall time outside assembly: factorisations and
    bookkeeping)

    Raises
    ------
    ValueError
        naming a bad argument (a NaN in ``x0`` or ``load``, a zero load).
    ConvergenceError
        (a :class:`~lib.core.errors.SolveError`, ``reason="cut limit"``) naming the load
        step and λ tried, the load factor reached, the iteration and the residual.
    """
    _check_body(body)
    load = checks.vector(load, "load", body.n_u)
    steps, maxiter = checks.integer(steps, "steps", low=1), checks.integer(maxiter, "maxiter", low=0)
    tol, max_cuts = checks.nonnegative(tol, "tol"), checks.integer(max_cuts, "max_cuts", low=0)
    reuse = checks.integer(reuse, "reuse", low=1)
    lu = checks.choice(lu, "lu", ("general", "symmetric"))
    x0 = np.zeros(body.n_u + body.n_p) if x0 is None else _check_x(body, x0, "x0").copy()
    if extra is not None:
        checks.function(extra, "extra")
    fscale = max(float(np.abs(load).max()),
                 0.0 if extra_scale is None else checks.positive(extra_scale, "extra_scale"))
    if fscale == 0:
        raise ValueError("load is zero (give extra_scale when the load comes from extra)")
    fr, n_u, eps = body.free, body.n_u, np.finfo(float).eps
    ascale = body.area.max()
    scale = np.concatenate([np.full(n_u, fscale), np.full(body.n_p, ascale)])
    barrier = body.material.model != "stable-neo-hookean"
    clock, last = {"asm": 0.0, "all": 0.0}, {"relative": 0.0}

    def solve_at(lam, x_start):
        fs = load * lam
        state = {"knorm": 0.0, "scale": None}    # the floor's |K| comes from the last tangent

        def full(xf):                            # Newton runs on the free unknowns
            x = x_start.copy()
            x[fr] = xf
            return x

        seen = {"xf": None, "F": None}

        def F_at(xf):
            """F at ``xf``, computed once for the admissibility test, residual and tangent."""
            if seen["xf"] is None or not np.array_equal(seen["xf"], xf):
                seen["xf"], seen["F"] = xf.copy(), _F(body, full(xf)[:n_u])
            return seen["F"]

        def fun(xf):
            x = full(xf)
            F = F_at(xf)
            t0 = time.perf_counter()
            r, sv = _residual(body, x, fs, F=F)
            H_extra = None
            if extra is not None:
                g_extra, H_extra = _extra_terms(body, extra, x, lam)
                r, sv = r + g_extra, sv + np.abs(g_extra[:n_u])
            state["scale"] = sv
            clock["asm"] += time.perf_counter() - t0

            def tangent():                       # the tangent on the free unknowns
                t0 = time.perf_counter()
                if H_extra is None:
                    K = _hessian(body, x, free=True, F=F)
                else:
                    K = (_hessian(body, x) + H_extra)[fr][:, fr]
                state["knorm"] = float(abs(K).sum(axis=1).max())
                clock["asm"] += time.perf_counter() - t0
                return K if lu == "general" else _symmetric_lu(K)
            return r[fr], tangent, scale[fr]

        def floor(xf):
            x = full(xf)
            fl = np.zeros(n_u + body.n_p)
            g = body.geom.free
            fl[g] = 64 * eps * np.maximum(state["scale"][g], state["knorm"] * np.abs(x).max())
            fl[n_u:] = 64 * eps * ascale
            return fl[fr]

        def record(it, xf, R):
            last["relative"] = float(np.max(np.abs(R) / scale[fr]))

        xf, info = newton_solve(fun, x_start[fr], tol, maxiter, max_backtracks=29,
                                where="incompressible.solve", accept="none", floor=floor,
                                roundoff="residual", diverge=1e8, callback=record, reuse=reuse,
                                spd=body.n_p == 0 and lu == "general",
                                admissible=(lambda xf: bool(np.all(_det(F_at(xf)) > 0)))
                                if barrier else None)
        return full(xf), info

    t0 = time.perf_counter()
    x, path = solve_path(solve_at, x0, steps, "incompressible.solve", adaptive=True,
                         max_cuts=max_cuts, regrow=False)
    wall = time.perf_counter() - t0
    return SolveResult(x, [t[1] for t in path.tried], True, last["relative"], clock["asm"],
                       wall - clock["asm"])


def _symmetric_lu(K):
    """SuperLU of the free tangent ``K`` in its symmetric mode (a :class:`Factor`)."""
    where = "incompressible.solve tangent"
    if not np.all(np.isfinite(K.data)):
        raise SolveError(where=where, reason="non-finite",
                         message="the matrix has non-finite entries (sparse LU)")
    try:
        f = spla.splu(K.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                      options={"SymmetricMode": True})
    except RuntimeError:                          # SuperLU: "Factor is exactly singular"
        raise SolveError(where=where, reason="singular",
                         message="the matrix is exactly singular (sparse LU)") from None
    return linalg.Factor(f.solve, "sparse LU (symmetric mode)", K.shape[0], where)


_SOLVED = {}


def cantilever_solution(nx, ny, formulation, nu, alpha=1.0):
    r"""The book's neo-Hookean cantilever under its tip load, solved once per session.

    The split neo-Hookean with ``mu = 1`` and Poisson ratio ``nu`` on the ``nx x ny``
    mesh of :func:`cantilever` (L/h = 10), loaded by :func:`tip_load` ``(alpha)`` and
    solved by :func:`solve` with its defaults (four increments).  A chapter asks for the
    same solution in several places (the tip table, the cost study, the release, the
    Explore figure); the first call solves and later calls with the same arguments
    return the same objects, so the Newton counts and wall times in the result are
    those of the one solve.  The solution vector is read-only (it is shared).

    Returns
    -------
    body : Body
    result : SolveResult

    Examples
    --------
    >>> b, r = cantilever_solution(10, 1, "P2P1", 0.3)
    >>> cantilever_solution(10, 1, "P2P1", 0.3)[1] is r
    True
    """
    nx, ny = checks.integer(nx, "nx", low=1), checks.integer(ny, "ny", low=1)
    formulation = checks.choice(formulation, "formulation", FORMULATIONS)
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False)
    alpha = checks.real(alpha, "alpha")
    if alpha == 0:
        raise ValueError("alpha must be non-zero (a zero tip load has nothing to solve), got 0")
    key = (nx, ny, formulation, float(nu), float(alpha))
    if key not in _SOLVED:
        body = cantilever(nx, ny, formulation, neo_hookean(1.0, nu))
        result = solve(body, tip_load(body, alpha))
        result.x.flags.writeable = False
        _SOLVED[key] = (body, result)
    return _SOLVED[key]


# --------------------------------------------------------------------------------------
# a converged reference: Richardson extrapolation with the corner rate
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TipReference:
    """A tip ratio extrapolated to ``h -> 0`` (:func:`reference_tip_ratio`).

    ``value`` the extrapolated ratio, ``error`` its error bar (spread of the last two
    extrapolants), ``meshes`` the ``(nx, ny)`` used, ``ratios`` their tip ratios,
    ``extrapolants`` the pairwise extrapolants, ``exponent`` the rate ``2s`` used.
    """

    value: float
    error: float
    meshes: tuple
    ratios: np.ndarray
    extrapolants: np.ndarray
    exponent: float

    @property
    def relative_error(self):
        return self.error / abs(self.value)


def reference_tip_ratio(mat, alpha=1.0, ny=(2, 4, 8, 16), formulation="P2P1",
                        slenderness=10.0, steps=4):
    r"""Tip ratio of the book's cantilever at ``h -> 0``, extrapolated with the corner rate.

    The clamped face meets the traction-free faces in two corners where the elastic
    solution behaves as ``r^s`` (:func:`lib.fem.corner_exponent`), so on uniform meshes
    the tip ratio converges only as ``h^(2s)``.  This solves the cantilever on the
    meshes ``(slenderness * ny_k, ny_k)`` (each twice as fine as the last) with
    :func:`solve` and extrapolates with :func:`lib.fem.corner_extrapolation`.  For
    Taylor-Hood each finer mesh starts from the last solution interpolated onto it and
    keeps the tangent of that start for all its iterations (``reuse``: one sparse LU per
    mesh, for Taylor-Hood in SuperLU's symmetric mode; the same ratios to the solver's
    tolerance).

    Parameters
    ----------
    mat : Material with ``nu < 0.5`` (the corner exponent needs a finite bulk modulus)
    alpha : float, non-zero, the load parameter of :func:`tip_load`
    ny : at least three ints, each twice the previous
    formulation : one of :data:`FORMULATIONS` (Taylor-Hood ``"P2P1"`` by default)
    slenderness : float > 0 with ``slenderness * ny`` whole numbers
    steps : int >= 1, load increments of :func:`solve`

    Returns
    -------
    TipReference

    Examples
    --------
    >>> ref = reference_tip_ratio(neo_hookean(1.0, 0.3), alpha=0.1, ny=(1, 2, 4), steps=1)
    >>> ref.meshes, round(ref.exponent, 4)
    (((10, 1), (20, 2), (40, 4)), 1.4223)
    """
    _check_mat(mat)
    if mat.incompressible:
        raise ValueError("mat must have nu < 0.5 (the corner exponent needs a finite bulk "
                         "modulus), got nu = 0.5")
    if checks.real(alpha, "alpha") == 0:
        raise ValueError("alpha must be non-zero (the load the ratio divides by), got 0")
    checks.choice(formulation, "formulation", FORMULATIONS)
    L = checks.positive(slenderness, "slenderness")
    if not isinstance(ny, (tuple, list, np.ndarray)):
        raise ValueError(f"ny must be a sequence of mesh sizes, got {ny!r}")
    nys = [checks.integer(n, "ny", low=1) for n in ny]
    if len(nys) < 3 or any(b != 2 * a for a, b in zip(nys, nys[1:])):
        raise ValueError(f"ny must hold at least three sizes, each twice the last, got {ny!r}")
    meshes = []
    for n in nys:
        nx = L * n
        if abs(nx - round(nx)) > 1e-9:
            raise ValueError(f"slenderness * ny must be whole numbers, got {nx!r}")
        meshes.append((int(round(nx)), n))
    ratios, prev = [], None
    for nx, n in meshes:
        b = cantilever(nx, n, formulation, mat, slenderness=L)
        # Newton on each finer mesh starts from the last solution, interpolated onto it,
        # close enough that the tangent at that start serves every iteration (one sparse
        # LU per fine mesh; the same solution to the solver's tolerance)
        x0 = None if prev is None or formulation != "P2P1" else _prolong(*prev, b)
        x = solve(b, tip_load(b, alpha), steps=steps, x0=x0,
                  lu="symmetric" if formulation == "P2P1" else "general",
                  reuse=1 if x0 is None else _REUSE_PROLONGED).x
        ratios.append(tip_ratio(b, x, alpha))
        prev = (b, x)
    ratios = np.array(ratios)
    value, error, E = fem.corner_extrapolation(ratios, mat.nu)
    return TipReference(value, error, tuple(meshes), ratios, E,
                        2 * fem.corner_exponent(mat.nu))


#: Newton iterations served by one tangent on a mesh started from the prolonged coarse
#: solution (:func:`reference_tip_ratio`): all of them (solve's maxiter is 25).
_REUSE_PROLONGED = 25


def prolong(coarse, x, fine):
    r"""A Taylor-Hood state of ``coarse`` interpolated onto the nested mesh of ``fine``.

    Both bodies are ``"P2P1"`` on rectangle meshes of the same rectangle and diagonal,
    ``fine.nx`` and ``fine.ny`` whole multiples of the coarse ones (each coarse cell split
    into whole fine cells): the quadratic displacement and linear pressure of ``x``
    (``coarse.n_u + coarse.n_p``,) evaluated at the fine nodes, exact for fields the
    coarse space holds.  A start for Newton on the finer mesh (``solve(fine, load,
    x0=prolong(coarse, x, fine))``), not a result.

    Examples
    --------
    >>> mat = neo_hookean(1.0, 0.3)
    >>> c, f = cantilever(2, 1, "P2P1", mat), cantilever(4, 2, "P2P1", mat)
    >>> X = c.geom.mesh.nodes
    >>> x = np.concatenate([np.column_stack([X[:, 1] ** 2, X[:, 0] * X[:, 1]]).ravel(),
    ...                     np.zeros(c.n_p)])
    >>> Xf = f.geom.mesh.nodes
    >>> bool(np.allclose(prolong(c, x, f)[:f.n_u].reshape(-1, 2)[:, 0], Xf[:, 1] ** 2))
    True
    """
    for name, b in (("coarse", coarse), ("fine", fine)):
        if _check_body(b, name).formulation != "P2P1":
            raise ValueError(f"{name} must be a Taylor-Hood body (formulation 'P2P1'), got "
                             f"{b.formulation!r}")
    x = _check_x(coarse, x, "x")
    mc, mf = coarse.geom.mesh, fine.geom.mesh
    if (mf.length, mf.height, mf.diagonal) != (mc.length, mc.height, mc.diagonal) \
            or mf.nx % mc.nx or mf.ny % mc.ny:
        raise ValueError(f"fine must mesh the rectangle of coarse ({mc.length:g} x "
                         f"{mc.height:g}, diagonal {mc.diagonal!r}) with nx, ny multiples of "
                         f"({mc.nx}, {mc.ny}), got {mf.length:g} x {mf.height:g}, diagonal "
                         f"{mf.diagonal!r}, ({mf.nx}, {mf.ny})")
    return _prolong(coarse, x, fine)


def _prolong(coarse, xc, fine):
    """A Taylor-Hood solution of ``coarse`` interpolated onto the nested mesh of ``fine``.

    Both bodies are ``"P2P1"`` on rectangle meshes of the same rectangle and diagonal,
    each coarse cell split into whole fine cells: quadratic displacement and linear
    pressure evaluated at the fine nodes (a start for Newton, not a result).
    """
    mc, mf = coarse.geom.mesh, fine.geom.mesh

    def locate(X):
        hx, hy = mc.length / mc.nx, mc.height / mc.ny
        t = np.stack([X[:, 0] / hx, (X[:, 1] + mc.height / 2) / hy], 1)
        ij = np.clip(np.floor(t + 1e-9).astype(np.int64), 0, [mc.nx - 1, mc.ny - 1])
        xi, eta = (t - ij).T
        second = eta > xi if mc.diagonal == "/" else xi + eta > 1
        e = 2 * (ij[:, 0] * mc.ny + ij[:, 1]) + second
        P = mc.nodes[mc.elements[e, :3]]
        T = np.stack([P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]], 2)
        l12 = np.linalg.solve(T, (X - P[:, 0])[..., None])[..., 0]
        lam = np.column_stack([1 - l12.sum(1), l12])
        return e, lam

    e, lam = locate(mf.nodes)
    l0, l1, l2 = lam.T
    N = np.column_stack([l0 * (2 * l0 - 1), l1 * (2 * l1 - 1), l2 * (2 * l2 - 1),
                         4 * l0 * l1, 4 * l1 * l2, 4 * l2 * l0])
    uc = xc[:coarse.n_u].reshape(-1, 2)
    x = np.zeros(fine.n_u + fine.n_p)
    x[:fine.n_u] = np.einsum("na,nai->ni", N, uc[mc.elements[e]]).ravel()
    loc = np.empty((fine.n_p, 2))
    loc[fine.pdofs.ravel()] = mf.nodes[mf.elements[:, :3].ravel()]
    e, lam = locate(loc)
    x[fine.n_u:] = np.einsum("nc,nc->n", lam, xc[coarse.n_u:][coarse.pdofs[e]])
    return x


# --------------------------------------------------------------------------------------
# inf-sup constant and dynamics
# --------------------------------------------------------------------------------------
def inf_sup(body):
    r"""Discrete inf-sup constant of a mixed body's pressure-displacement pair at ``u = 0``.

    .. math:: \beta_h = \min_{q}\sup_{v}\frac{\int q\,\operatorname{div}v}
              {\lvert v\rvert_{H^1}\,\lVert q\rVert_{L^2}},\qquad
              \beta_h^2 = \lambda_{\min}\bigl(B K^{-1} B^{\top},\ M_p\bigr),

    with ``K`` the vector Laplacian (``|v|_{H^1}^2``) on the free displacements, ``B``
    the divergence-pressure matrix and ``M_p`` the pressure mass matrix.  Up to 400
    pressure unknowns the smallest generalized eigenvalue comes from the dense Schur
    complement by :func:`scipy.linalg.eigh`; beyond, by Lanczos without forming it
    (:func:`lib.fe.inf_sup_lanczos`: the same number to about 1e-14, a fraction of the
    cost on the 80 x 8 mesh), unless the saddle matrix ``[[K, B^T], [B, 0]]`` is singular
    (a spurious pressure mode, ``beta_h = 0``), where the dense path answers.
    ``beta_h`` bounded away from 0 under refinement is the Brezzi-Babuska condition;
    ``beta_h -> 0`` means locking or spurious pressure modes.

    >>> round(inf_sup(cantilever(10, 1, "P2P1", neo_hookean(1.0, 0.5))), 3) > 0.1
    True
    """
    if not _check_body(body).mixed:
        raise ValueError(f"body must be mixed {MIXED}, got formulation {body.formulation!r}")
    G, w, fr = body.geom.G, body.geom.w, body.geom.free
    K = vector_laplacian(body.geom)
    rows, cols, prow, pcol = body._up
    Be = np.einsum("eq,eqai,qc->eaic", w, G, body.Np)     # div v = G_{a i} v_{a i}
    B = sp.csr_matrix((Be.ravel(), (rows, cols)), shape=(body.n_u, body.n_p))[fr].T.tocsc()
    Me = np.einsum("eq,qc,qd->ecd", w, body.Np, body.Np)
    Mp = sp.csr_matrix((Me.ravel(), (prow, pcol)), shape=(body.n_p, body.n_p))
    Kf = K[fr][:, fr]
    if body.n_p > 400:
        try:
            return inf_sup_lanczos(Kf, B, Mp)
        except SolveError:                        # singular saddle matrix: beta_h = 0
            pass
    S = B @ _laplacian_solve(Kf, B.T.toarray())
    S = 0.5 * (S + S.T)
    try:
        ev = sla.eigh(S, Mp.toarray(), eigvals_only=True, subset_by_index=[0, 0])[0]
    except (sla.LinAlgError, RuntimeError) as err:
        raise ConvergenceError(f"inf_sup: the generalised eigenproblem failed ({err})") from err
    return float(np.sqrt(max(ev, 0.0)))


def _laplacian_solve(K, R):
    """``K^{-1} R`` for the SPD vector Laplacian ``K`` and many right-hand sides ``R``.

    Reverse Cuthill-McKee makes ``K`` narrow-banded, so one banded Cholesky solves all
    columns with level-3 LAPACK (SuperLU's solve handles them one column at a time).
    """
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    K = sp.csr_matrix(K)
    perm = reverse_cuthill_mckee(K, symmetric_mode=True)
    Kp = K[perm][:, perm].tocoo()
    up = Kp.row <= Kp.col
    bw = int((Kp.col - Kp.row)[up].max())
    ab = np.zeros((bw + 1, K.shape[0]))
    ab[bw + Kp.row[up] - Kp.col[up], Kp.col[up]] = Kp.data[up]
    f = linalg.factor(K, banded=ab, where="inf_sup: the vector Laplacian")
    X = np.empty_like(R)
    X[perm] = f.solve(R[perm])
    return X


def dynamics_force(body, load=None):
    """``force(x_free) -> (f, K)`` for :mod:`lib.integrate`: the residual and tangent on ``body.free``.

    For displacement and F-bar bodies ``f = f_int(u) - load``; for mixed bodies the
    unknowns are ``[u, p]`` and the pressure rows are the constraint residual
    ``int N_c (J - J0 - p/kappa)`` (pair it with :func:`dynamics_mass`).
    """
    fr = _check_body(body).free
    n = body.n_u + body.n_p
    load = np.zeros(body.n_u) if load is None else checks.vector(load, "load", body.n_u)

    def force(x_free):
        x = np.zeros(n)
        x[fr] = x_free
        F = _F(body, x[:body.n_u])
        _check_det(body, F)
        # one evaluation of the material law serves the residual and the tangent
        P, mag, A = _kernel(body.material, F, _point_vol(body, x[body.n_u:], _det(F)), 3)
        return (_residual(body, x, load, F=F, Pmag=(P, mag))[0][fr],
                _hessian(body, x, free=True, F=F, A=A))

    return force


def dynamics_mass(body, eps=1e-9):
    r"""Mass matrix on ``body.free`` for :mod:`lib.integrate` (CSR).

    The consistent mass of the displacements; for a mixed body the pressures get a
    *vanishing* mass ``eps`` times the largest diagonal entry of the displacement mass,
    so that the generic integrators (which need an invertible mass) treat the
    pressure equations as the algebraic constraint they are: the extra inertial force
    ``eps a_p`` is far below the constraint residual's round-off.  The kinetic energy
    (:func:`kinetic_energy`) counts the displacements only.
    """
    _check_body(body)
    eps = checks.positive(eps, "eps")
    M = mass(body)[body.geom.free][:, body.geom.free]
    if not body.mixed:
        return M.tocsr()
    e = eps * M.diagonal().max()
    return sp.block_diag([M, e * sp.identity(body.n_p)], format="csr")


def kinetic_energy(body, v_free):
    """``v_u^T M v_u / 2`` of the displacement velocities in a free-unknown velocity vector."""
    nf = _check_body(body).geom.free.size
    v = checks.vector(v_free, "v_free", body.free.size)[:nf]
    return 0.5 * float(v @ (mass(body)[body.geom.free][:, body.geom.free] @ v))


def expand(body, x_free):
    """Full ``x`` from its free entries (zeros on the clamp)."""
    x_free = checks.vector(x_free, "x_free", _check_body(body).free.size)
    x = np.zeros(body.n_u + body.n_p)
    x[body.free] = x_free
    return x
