r"""One soft arm, three model levels: PCC, Cosserat rod and plane-strain FEM.

A planar silicone arm (length ``L``, in-plane thickness ``h``, out-of-plane width
``b``, clamped at ``x = 0``) is described once by :class:`Arm` and mapped to the
three models of the book so that all of them share one section stiffness:

* plane strain (the arm is a plate strip, ``b = 20 h`` wide by default, so that Searle's
  parameter ``b^2/(R h)`` is tens under the large loads, see :func:`searle_parameter`):
  ``E' = E/(1-nu^2)``;
* bending ``EI = E' b h^3/12``, stretch ``EA = E' b h``, shear
  ``k_s G A = (5/6) E b h / (2(1+nu))`` (the rectangle's shear coefficient),
  mass ``rho A = rho b h`` and rotary inertia ``rho I = rho A h^2/12``;
* PCC (:mod:`lib.pcc`): ``n`` constant-curvature segments with ``EI, rho A, L``;
* rod (:mod:`lib.rod`): ``N`` elements, ``r = h/sqrt(3)`` so that ``EA = 4 EI/r^2 =
  12 EI/h^2`` and ``rho I = rho A r^2/4 = rho A h^2/12``; the shear coefficient
  passed to ``make_rod`` is ``(5/6)(1-nu^2)`` so that ``k_sGA`` is the one above;
* FEM (:mod:`lib.fem`): the ``L x h`` rectangle per unit thickness, T6 triangles,
  ``ny`` cells through the thickness and square cells along ``x``; forces are
  divided by ``b``.

Loads are stated nondimensionally: the tip load ``alpha = P L^2/EI``, the tendon
pull ``beta = tau d L/EI`` (the tip angle a pure moment ``tau d`` would give) and
gravity ``gamma = rho A g L^3/EI`` follows from the material and ``g``.

Cases (:func:`static_tip`): tip load (linear: FEM by the Taylor-Hood T6/P1
``mixed_solve``; nonlinear: neo-Hookean T6 ``fem.static``), gravity and tendon
pull (nonlinear), plus :func:`frequencies`, :func:`explicit_step` (the largest
stable central-difference step ``2/omega_max``) and :func:`release` (the linear
free vibration after releasing the small tip load).  Errors are relative to the
h-refined FEM reference (:data:`REFERENCE_NY` cells through the thickness).

The tendon case separates the levels through the section: the tendon compresses the
arm by ``eps0 = tau/EA`` and the compressed near-incompressible section stiffens in
bending (its finite-strain tangent, its thickening).  :func:`strip_flexure` solves
Rivlin's exact flexure of the incompressible strip with the embedded tendon
(``rho = 1 - (5 - 12 d^2/h^2) eps0 + O(eps0^2)``), :func:`strip_curvature_ratio` is the
naive plane-section strip law (``1 - 4 eps0``, which drops a first-order initial-stress
term), and :func:`rod_tendon_with_section_law` puts the flexure back into the rod.  ``solve_static(...,
formulation="P2P1")`` re-solves a nonlinear FEM case with the finite-strain Taylor-Hood
element of :mod:`lib.incompressible` to check that the T6 reference does not lock.

Public functions
----------------
make_arm, Arm, to_pcc, to_rod, rod_tendon, to_fem, build, dofs
                                    the arm and its three models (rod_tendon: |d| <= h/2)
tip_force, tendon_tension, tendon_offset, tendon_strain    the loads
solve_static, reference, tip_error, frequencies, frequency_error, explicit_step, release,
release_error                       the cases, their errors and costs
rod_small_load_error, rod_slenderness_limit, pcc_load_error, pcc_load_limit
                                    the limits of the levels by root finding
strip_stretch, strip_curvature_ratio, strip_flexure, strip_flexure_ratio,
section_law_slenderness, rod_tendon_curvature_ratio,
rod_tendon_with_section_law, tendon_curvature_ratio, fem_section_angle
                                    the tendon's section effect
pcc_energy, pcc_gradient, pcc_static    PCC statics (from :mod:`lib.pcc`)

References
----------
Smooth-On, Dragon Skin Series technical bulletin (100 % modulus, specific gravity);
Cowper (1966) for the shear coefficient; Taylor & Hood (1973); Webster & Jones (2010).

Examples
--------
>>> arm = make_arm(10.0)
>>> round(arm.L, 3), round(arm.EI / (arm.Ep * arm.b * arm.h**3 / 12), 12)
(0.1, 1.0)
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from . import actuation, fem, incompressible, pcc, rod
from .core import checks
from .core.errors import SolveError
from .solvers import newton_solve
from .pcc import static as pcc_static, static_energy as pcc_energy  # noqa: F401 (re-exported)
from .pcc import static_gradient as pcc_gradient  # noqa: F401

__all__ = [
    "Arm", "make_arm", "to_pcc", "to_rod", "rod_tendon", "to_fem", "build", "dofs",
    "tip_force", "tendon_tension", "tendon_offset", "tendon_strain",
    "solve_static", "reference", "tip_error", "frequencies", "frequency_error", "explicit_step",
    "release", "release_error",
    "rod_small_load_error", "rod_slenderness_limit", "pcc_load_error", "pcc_load_limit",
    "strip_stretch", "strip_curvature_ratio", "strip_flexure", "strip_flexure_ratio",
    "section_law_slenderness",
    "rod_tendon_curvature_ratio", "rod_tendon_with_section_law", "tendon_curvature_ratio",
    "fem_section_angle", "pcc_energy", "pcc_gradient", "pcc_static", "searle_parameter",
    "CLAMPS", "WIDTH_RATIO", "NU_INCOMPRESSIBLE", "E_SECANT",
    "LEVELS", "CASES", "WORKING", "REFERENCE_NY", "REFERENCE_NY_NONLINEAR", "ALPHA_SMALL",
    "ALPHA_LARGE", "BETA_TENDON", "E_DRAGON_SKIN", "RHO_DRAGON_SKIN", "NU_SILICONE", "G_ACC",
    "KS_RECT", "PSI", "SIGMA100", "SPECIFIC_GRAVITY",
]

PSI = 6894.757293168
#: Dragon Skin 10 (Smooth-On technical bulletin): 100 % modulus 22 psi, specific gravity 1.07.
SIGMA100 = 22.0 * PSI
SPECIFIC_GRAVITY = 1.07
#: neo-Hookean uniaxial nominal stress mu (lam - lam^-2) at lam = 2, E = 3 mu.
E_DRAGON_SKIN = 3.0 * SIGMA100 / (2.0 - 0.25)
RHO_DRAGON_SKIN = 1000.0 * SPECIFIC_GRAVITY
#: secant reading of the same point: nominal stress over nominal strain at stretch 2.
E_SECANT = SIGMA100 / 1.0
NU_SILICONE = 0.49
#: the near-incompressible Poisson ratio of the Taylor-Hood (P2/P1) section studies.
NU_INCOMPRESSIBLE = 0.4999
#: default width over thickness: a plate strip, so that plane strain holds under the large loads.
WIDTH_RATIO = 20.0
#: FEM clamps at x = 0: "bonded" (both dofs of the face) or "sliding" (u_x = 0 on the face,
#: u_y = 0 at its centre node only: the section is held plane and square, free to contract).
CLAMPS = ("bonded", "sliding")
G_ACC = 9.81
KS_RECT = 5.0 / 6.0
LEVELS = ("pcc", "rod", "fem")
#: working discretisations of the three levels and the FEM reference
WORKING = {"pcc": 4, "rod": 20, "fem": 2}
REFERENCE_NY = 6
REFERENCE_NY_NONLINEAR = 4


@dataclass(frozen=True)
class Arm:
    """A planar silicone arm: geometry (m), material (Pa, kg/m^3) and derived section data."""

    L: float
    h: float
    b: float
    E: float
    nu: float
    rho: float

    @property
    def slenderness(self):
        return self.L / self.h

    @property
    def Ep(self):
        """Plane-strain modulus E/(1 - nu^2)."""
        return self.E / (1.0 - self.nu**2)

    @property
    def EI(self):
        return self.Ep * self.b * self.h**3 / 12.0

    @property
    def EA(self):
        return self.Ep * self.b * self.h

    @property
    def kGA(self):
        return KS_RECT * self.E / (2.0 * (1.0 + self.nu)) * self.b * self.h

    @property
    def rhoA(self):
        return self.rho * self.b * self.h

    @property
    def gamma(self):
        """Gravity parameter rho A g L^3 / EI."""
        return self.rhoA * G_ACC * self.L**3 / self.EI


def make_arm(slenderness, h=0.01, b=None, E=E_DRAGON_SKIN, nu=NU_SILICONE, rho=RHO_DRAGON_SKIN):
    """The Dragon Skin 10 strip of thickness ``h`` and width ``b`` with ``L = slenderness h``.

    ``b`` defaults to ``WIDTH_RATIO h`` (a plate strip 20 thicknesses wide, in which the
    plane-strain modulus of every level holds under the large loads).

    Examples
    --------
    >>> a = make_arm(5.0)
    >>> round(a.E / 1e3, 1), a.rho, a.nu
    (260.0, 1070.0, 0.49)
    """
    h = checks.positive(h, "h")
    b = WIDTH_RATIO * h if b is None else b
    s, b, E, rho = (checks.positive(v, k) for v, k in ((slenderness, "slenderness"),
                    (b, "b"), (E, "E"), (rho, "rho")))
    nu = checks.real(nu, "nu", -1.0, 0.5, include_low=False, include_high=False)
    return Arm(L=s * h, h=h, b=b, E=E, nu=nu, rho=rho)


def searle_parameter(arm, curvature):
    r"""Searle's parameter ``b^2 |kappa| / h`` of the arm bent to ``curvature`` (1/m).

    It decides how a strip of width ``b`` bends (Searle 1908): well below 1 the
    section curls anticlastically and the strip is a beam in plane stress (modulus
    ``E``); at tens the edges cannot follow and the strip is a plate in cylindrical
    bending (plane strain, ``E' = E/(1-nu^2)``), apart from edge zones.

    Examples
    --------
    >>> a = make_arm(10.0, b=0.02)            # a 20 x 10 mm strip at R = 50 mm
    >>> round(searle_parameter(a, 20.0), 3)
    0.8
    """
    _check_arm(arm)
    curvature = checks.real(curvature, "curvature")
    return arm.b**2 * abs(curvature) / arm.h


def _count(value, name, low=1):
    return checks.integer(value, name, low=low)


def _check_arm(arm):
    return checks.kind(arm, "arm", Arm, "an arm (lib.levels.make_arm)")


def _check_level(level):
    return checks.choice(level, "level", LEVELS)


# ------------------------------------------------------------------------------------
# the arm -> three models
# ------------------------------------------------------------------------------------
def to_pcc(arm, n):
    """PCC model of ``n`` segments (``lib.pcc.make_pcc`` with EI, rho A, L of the arm)."""
    _check_arm(arm)
    return pcc.make_pcc(_count(n, "n"), EI=arm.EI, rhoA=arm.rhoA, L=arm.L)


def to_rod(arm, N):
    """Cosserat rod of ``N`` elements with the arm's EI, EA, k_sGA, rho A and rho I.

    Its section radius ``r = h/sqrt(3)`` is an inertia radius, larger than the strip's
    half-depth ``h/2``: put tendons on it with :func:`rod_tendon`, which bounds the offset
    by ``h/2`` (``lib.actuation.make_tendon`` alone would admit up to ``0.577 h``).

    >>> a = make_arm(10.0)
    >>> r = to_rod(a, 10)
    >>> bool(np.isclose(r.EA, a.EA) and np.isclose(r.kGA, a.kGA))
    True
    """
    _check_arm(arm)
    return rod.make_rod(_count(N, "N"), r_over_L=arm.h / (math.sqrt(3.0) * arm.L), nu=arm.nu,
                        ks=KS_RECT * (1.0 - arm.nu**2), L=arm.L, EI=arm.EI, rhoA=arm.rhoA)


def to_fem(arm, ny, clamp="bonded"):
    """Plane-strain T6 model: ``ny`` cells through h, ``round(ny L/h)`` along L, x = 0 clamped.

    ``clamp="bonded"`` fixes both dofs of the face x = 0; ``"sliding"`` fixes ``u_x`` on
    it and ``u_y`` at its centre node only (needs an even ``ny``), so the root section is
    held plane and square but free to contract and to take its shear as it likes.  The
    pin only removes the rigid translation: :func:`solve_static` reports the sliding
    solution shifted so that the root face's mean ``u_y`` is zero (a beam's clamp), which
    converges under refinement where the pinned node's own displacement (a point
    reaction) does not.

    >>> m = to_fem(make_arm(3.0), 2, clamp="sliding")
    >>> int(m.fixed.size)                     # 5 u_x on the face + 1 u_y
    6
    """
    _check_arm(arm)
    ny = _count(ny, "ny")
    checks.choice(clamp, "clamp", CLAMPS)
    nx = max(1, int(round(ny * arm.slenderness)))
    mesh = fem.rectangle_mesh(nx, ny, "T6", length=arm.L, height=arm.h)
    fixed = fem.clamped_dofs(mesh)
    if clamp == "sliding":
        nodes = mesh.nodes
        face = np.flatnonzero(np.isclose(nodes[:, 0], 0.0))
        centre = face[np.isclose(nodes[face, 1], 0.0)]
        if centre.size != 1:
            raise ValueError("a sliding clamp needs a node at the root centre (use an even ny)")
        fixed = np.sort(np.concatenate([2 * face, [2 * centre[0] + 1]]))
    return fem.make_model(mesh, E=arm.E, nu=arm.nu, rho=arm.rho, fixed=fixed)


def build(arm, level, size, clamp="bonded"):
    """The model of ``level`` ("pcc", "rod", "fem") at discretisation ``size`` (n, N or ny);
    ``clamp`` is the FEM's (see :func:`to_fem`; the beam levels' clamp is the same either way)."""
    _check_arm(arm)
    _check_level(level)
    _count(size, "size")
    checks.choice(clamp, "clamp", CLAMPS)
    if level == "fem":
        return to_fem(arm, size, clamp)
    return {"pcc": to_pcc, "rod": to_rod}[level](arm, size)


def dofs(model):
    """Number of unknowns of a model (FEM: free displacement dofs)."""
    checks.kind(model, "model", (pcc.PCC, rod.Rod, fem.Model), "a PCC, planar rod or FEM model")
    if isinstance(model, pcc.PCC):
        return model.n
    if isinstance(model, rod.Rod):
        return model.ndof
    return int(model.free.size)


def tip_force(arm, alpha):
    """Tip force P = alpha EI / L^2 (N)."""
    return checks.real(alpha, "alpha") * _check_arm(arm).EI / arm.L**2


def tendon_tension(arm, beta, offset):
    """Tension tau with tau d L / EI = beta (``offset`` d > 0)."""
    return (checks.real(beta, "beta") * _check_arm(arm).EI
            / (checks.positive(offset, "offset") * arm.L))


def tendon_offset(arm):
    """The tendon runs at d = h/4 above the centreline (a grid line of every T6 mesh with even ny)."""
    return _check_arm(arm).h / 4.0


# ------------------------------------------------------------------------------------
# the cases
# ------------------------------------------------------------------------------------
def _fem_tip_node(model):
    nodes = model.mesh.nodes
    on = np.flatnonzero(np.isclose(nodes[:, 0], model.mesh.length) & np.isclose(nodes[:, 1], 0.0))
    if on.size != 1:
        raise ValueError("the FEM mesh has no node at the tip centre (use an even ny)")
    return int(on[0])


def _fem_centreline(model, u):
    nodes = model.mesh.nodes
    on = np.flatnonzero(np.isclose(nodes[:, 1], 0.0))
    on = on[np.argsort(nodes[on, 0])]
    return nodes[on] + np.asarray(u).reshape(-1, 2)[on]


def _fem_gravity(model, g):
    a = np.zeros(model.n_dofs)
    a[1::2] = -g
    return fem.mass(model) @ a


def _fem_cable(model, offset):
    nodes = model.mesh.nodes
    on = np.flatnonzero(np.isclose(nodes[:, 1], offset))
    if on.size == 0:
        raise ValueError(f"no node line at y = {offset!r} for the cable")
    return on[np.argsort(nodes[on, 0])]


CASES = ("tip_small", "tip_large", "gravity", "tendon")
#: nondimensional tip loads alpha = P L^2 / EI of the small and large cases, tendon beta
ALPHA_SMALL = 0.05
ALPHA_LARGE = 3.0
BETA_TENDON = 1.5


ROD_TOL = 1e-10   # rod.static's default relative residual tolerance


def _rod_tol(model, P, g):
    """Relative residual tolerance for :func:`lib.rod.static` on ``model`` under ``P`` and ``g``.

    ``rod.static`` measures the residual against ``f_scale = max(EI/L, |P|, g rhoA L)``; its
    round-off floor is ``64 eps (EA + k_sGA)``, absolute.  For a fine, thick rod under a
    small load (N = 80, L/h = 10, alpha = 0.05) that floor is above ``1e-10 f_scale`` and
    Newton stalls there.  The tolerance is therefore ``1e-10`` or four times the floor
    relative to ``f_scale``, whichever is larger.
    """
    f_scale = max(model.EI / model.L, abs(P), g * model.rhoA * model.L)
    floor = 64.0 * np.finfo(float).eps * (model.EA + model.kGA)
    return max(ROD_TOL, 4.0 * floor / f_scale)


def solve_static(arm, level, size, alpha=0.0, gravity=False, beta=0.0, linear=False, steps=10,
                 formulation="T6", clamp="bonded"):
    """Static equilibrium of one level; returns ``(centreline (k, 2), dofs, seconds)``.

    ``alpha``: dead tip load ``P = alpha EI/L^2`` in -y; ``gravity``: g = 9.81 m/s^2 in
    -y; ``beta``: a tendon at d = h/4 with ``tau d L/EI = beta``.  ``linear=True`` (tip
    load only) solves the linear problem: for the FEM the Taylor-Hood T6/P1
    :func:`lib.fem.mixed_solve` (locking-free at nu near 0.5); the nonlinear FEM is the
    displacement neo-Hookean T6 :func:`lib.fem.static` (or
    :func:`lib.actuation.cable_static`).  ``formulation="P2P1"`` solves the nonlinear FEM
    cases with the finite-strain Taylor-Hood element of :mod:`lib.incompressible`
    instead (split neo-Hookean, the same mu and nu; the cable enters through
    ``extra``): the check that the displacement T6 reference does not lock.  ``clamp``
    is the FEM's root (:func:`to_fem`).  The clock covers the solve only.

    The same solve is done once per session: a repeated call with equal arguments (the
    arm is a frozen dataclass) returns a copy of the stored centreline and the seconds
    of the first solve (a least-recently-used store of 256 solves).
    """
    _check_arm(arm)
    checks.choice(formulation, "formulation", ("T6", "P2P1"))
    _check_level(level)
    gravity, linear = checks.boolean(gravity, "gravity"), checks.boolean(linear, "linear")
    steps = _count(steps, "steps")
    beta = checks.real(beta, "beta")
    alpha = checks.real(alpha, "alpha")
    checks.choice(clamp, "clamp", CLAMPS)
    xy, n, t = _solve_static(arm, level, _count(size, "size"), alpha, gravity, beta, linear,
                             steps, formulation, clamp)
    return xy.copy(), n, t


@functools.lru_cache(maxsize=256)
def _solve_static(arm, level, size, alpha, gravity, beta, linear, steps, formulation, clamp):
    """The solve behind :func:`solve_static` (arguments checked; the result is stored)."""
    model = build(arm, level, size, clamp)
    P = tip_force(arm, alpha)
    g = G_ACC if gravity else 0.0
    d = tendon_offset(arm)
    tau = tendon_tension(arm, beta, d) if beta else 0.0
    if linear and (gravity or beta):
        raise ValueError("linear=True is for the tip load only (gravity=False, beta=0)")
    t0 = time.perf_counter()
    if level == "pcc":
        q = pcc_static(model, (0.0, -P), tau * d, g, steps=1 if linear else steps)
        t = time.perf_counter() - t0
        s = np.linspace(0, arm.L, 41)
        xy = pcc.positions(model, q, s)
    elif level == "rod":
        if beta:
            q = _rod_tendon(arm, model, beta, steps, load=(0.0, -P, 0.0), grav=g)
        else:
            q = rod.static(model, (0.0, -P, 0.0), g, steps=1 if linear else steps,
                           tol=_rod_tol(model, P, g))
        t = time.perf_counter() - t0
        xy = _rod_centreline(q)
    else:
        load = fem.tip_shear_load(model, P / arm.b) if P else np.zeros(model.n_dofs)
        if g:
            load = load + _fem_gravity(model, g)
        if linear:
            u, _ = fem.mixed_solve(model, load)
        elif formulation == "P2P1":
            u = _p2p1_static(arm, model, load, tau / arm.b if beta else 0.0, steps)
        elif beta:
            if P or g:
                raise ValueError("the FEM tendon case takes no other load")
            u = actuation.cable_static(model, [_fem_cable(model, d)], [tau / arm.b], steps=steps)[1][-1]
        else:
            u = fem.static(model, load, steps=steps, tol=1e-8)
        t = time.perf_counter() - t0
        if clamp == "sliding":
            u = np.asarray(u, dtype=float).copy()
            u[1::2] -= _root_mean_uy(model, u)
        xy = _fem_centreline(model, u)
    xy = np.array(xy, dtype=float)
    xy.flags.writeable = False
    return xy, dofs(model), t


def _root_mean_uy(model, u):
    """Mean u_y over the root face (composite Simpson on its T6 nodes, exact for the field)."""
    nodes = model.mesh.nodes
    face = np.flatnonzero(np.isclose(nodes[:, 0], 0.0))
    face = face[np.argsort(nodes[face, 1])]
    w = np.zeros(face.size)
    w[:-1:2] += 1.0
    w[1::2] += 4.0
    w[2::2] += 1.0
    return float(w @ np.asarray(u).reshape(-1, 2)[face, 1] / w.sum())


def _p2p1_static(arm, model, load, tension, steps, offset=None):
    """Finite-strain Taylor-Hood solve of the FEM arm under ``load`` and a cable of ``tension``
    along the node line ``y = offset`` (default :func:`tendon_offset`)."""
    mat = incompressible.neo_hookean(arm.E / (2.0 * (1.0 + arm.nu)), arm.nu)
    body = incompressible.make_body(model.mesh, mat, "P2P1", fixed=model.fixed, rho=arm.rho)
    extra, scale = None, None
    if tension:
        cable = _fem_cable(model, tendon_offset(arm) if offset is None else offset)
        extra = lambda u, f: (f * tension * actuation.cable_gradient(model, cable, u),  # noqa: E731
                              f * tension * actuation.cable_hessian(model, cable, u))
        scale = tension
    res = incompressible.solve(body, load, steps=steps, extra=extra, extra_scale=scale)
    return incompressible.displacement(body, res.x)


def rod_tendon(arm, model, offset, anchor=None, offset_end=None):
    """A tendon on the arm's rod (:func:`to_rod`), its offsets bounded by the strip, ``|d| <= h/2``.

    The rod of :func:`to_rod` has the section radius ``r = h/sqrt(3)`` (so that
    ``EA = 12 EI/h^2``), and :func:`lib.actuation.make_tendon` admits ``|d| <= r = 0.577 h``:
    offsets between ``h/2`` and ``0.577 h`` lie outside the strip.  This checks the
    strip's half-depth, then calls :func:`lib.actuation.make_tendon`.

    >>> a = make_arm(10.0)
    >>> t = rod_tendon(a, to_rod(a, 10), a.h / 4)
    >>> rod_tendon(a, to_rod(a, 10), 0.55 * a.h)
    Traceback (most recent call last):
    ...
    ValueError: offset must lie inside the strip, |d| <= h/2 = 0.005, got 0.0055000000000000005
    """
    _check_arm(arm)
    checks.kind(model, "model", rod.Rod, "the arm's rod (lib.levels.to_rod)")
    for name, value in (("offset", offset), ("offset_end", offset_end)):
        if value is not None and abs(checks.real(value, name)) > arm.h / 2 * (1 + 1e-12):
            raise ValueError(f"{name} must lie inside the strip, |d| <= h/2 = {arm.h / 2:g}, "
                             f"got {value!r}")
    return actuation.make_tendon(model, offset, anchor=anchor, offset_end=offset_end)


def _rod_tendon(arm, model, beta, steps, lever=1.0, load=None, grav=0.0):
    """Rod equilibrium under the tendon pull ``beta`` (tension from d = h/4, lever ``lever d``)."""
    d = tendon_offset(arm)
    return actuation.static(model, [rod_tendon(arm, model, lever * d)],
                            [tendon_tension(arm, beta, d)], steps=steps, load=load, grav=grav)


def _rod_centreline(q):
    """(N + 1, 2) node positions of a rod state, clamp first."""
    return np.vstack([[0.0, 0.0], np.column_stack([q[1::3], q[2::3]])])


def tip_error(xy, xy_ref, L, transverse=False):
    """Relative tip error |p - p_ref| / |p_ref - (L, 0)| (tip displacement as the scale).

    ``transverse=True`` compares the tip deflection y only (the linear small-load
    case: a linear FEM has no geometric shortening of x, the nonlinear PCC and rod do).

    >>> round(tip_error(np.array([[0, 0], [1.0, -0.11]]), np.array([[0, 0], [1.0, -0.1]]), 1.0), 12)
    0.1
    """
    xy = checks.array(xy, "xy", shape=(None, 2), nonempty=True)
    xy_ref = checks.array(xy_ref, "xy_ref", shape=(None, 2), nonempty=True)
    L, transverse = checks.positive(L, "L"), checks.boolean(transverse, "transverse")
    scale = abs(xy_ref[-1][1]) if transverse else np.linalg.norm(xy_ref[-1] - np.array([L, 0.0]))
    if scale == 0:
        raise ValueError("xy_ref must have a displaced tip (the error is relative to its "
                         "displacement), got none")
    return float((abs(xy[-1][1] - xy_ref[-1][1]) if transverse
                  else np.linalg.norm(xy[-1] - xy_ref[-1])) / scale)


def reference(arm, alpha=0.0, gravity=False, beta=0.0, linear=False, steps=10, clamp="bonded"):
    """The h-refined FEM reference centreline (``REFERENCE_NY`` linear, ``REFERENCE_NY_NONLINEAR``)."""
    linear = checks.boolean(linear, "linear")
    ny = REFERENCE_NY if linear else REFERENCE_NY_NONLINEAR
    return solve_static(arm, "fem", ny, alpha, gravity, beta, linear, steps, clamp=clamp)[0]


def frequencies(arm, level, size, k=3):
    """First ``k`` angular frequencies (rad/s), all modes ascending, and the solve time.

    PCC: linear Rayleigh-Ritz; rod: linearisation about the straight state (bending,
    stretch and shear modes); FEM: T6 with consistent mass (shift-invert Lanczos).
    """
    model = build(arm, level, size)
    k = _count(k, "k")
    t0 = time.perf_counter()
    if level == "pcc":
        om = pcc.frequencies(model.n, k, EI=arm.EI, rhoA=arm.rhoA, L=arm.L)
    elif level == "rod":
        om = rod.frequencies(model, k)
    else:
        om = fem.frequencies(model, k)
    return np.asarray(om), dofs(model), time.perf_counter() - t0


def explicit_step(arm, level, size):
    """Largest stable central-difference (Verlet) step 2/omega_max (s).

    >>> a = make_arm(10.0)
    >>> bool(explicit_step(a, "pcc", 4) > explicit_step(a, "rod", 20))
    True
    """
    model = build(arm, level, size)
    if level == "pcc":
        wmax = pcc.frequencies(model.n, EI=arm.EI, rhoA=arm.rhoA, L=arm.L).max()
    elif level == "rod":
        wmax = rod.frequencies(model).max()
    else:
        wmax = fem.highest_frequency(model)
    return float(2.0 / wmax)


def frequency_error(om, om_ref):
    """Largest relative error of the first frequencies (``om_ref`` at least as many, > 0)."""
    om = checks.vector(om, "om", nonempty=True)
    om_ref = checks.array(om_ref, "om_ref", shape=(None,), low=0.0, include_low=False)
    if om_ref.size < om.size:
        raise ValueError(f"om_ref must have at least len(om) = {om.size} entries, got "
                         f"{om_ref.size}")
    return float(np.max(np.abs(om / om_ref[:om.size] - 1.0)))


# ------------------------------------------------------------------------------------
# thresholds by root finding
# ------------------------------------------------------------------------------------
def _root(f, lo, hi, xtol, what):
    """brentq of f on [lo, hi] (0 < lo < hi), the bracket checked first.

    A bracket that does not bracket is a ValueError naming ``lo`` and ``hi`` (and the
    tolerance, in ``what``); a failed brentq a SolveError.  Each end is evaluated once.
    """
    lo, hi = checks.positive(lo, "lo"), checks.positive(hi, "hi")
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got lo = {lo:g}, hi = {hi:g}")
    ends = {lo: f(lo), hi: f(hi)}
    if not ends[lo] * ends[hi] <= 0:
        raise ValueError(f"lo = {lo:g} and hi = {hi:g} do not bracket {what}: the error minus "
                         f"tol is {ends[lo]:.3g} and {ends[hi]:.3g} there (widen [lo, hi] or "
                         f"change tol)")
    try:
        return float(brentq(lambda x: ends[x] if x in ends else f(x), lo, hi, xtol=xtol))
    except (RuntimeError, ValueError) as err:
        raise SolveError(f"brentq: {err}", where=f"root of {what}") from None


def rod_small_load_error(slenderness, N=WORKING["rod"], clamp="bonded", ny_ref=REFERENCE_NY):
    """Rod (N elements) tip error against the linear FEM (``ny_ref`` cells through h, with
    ``clamp``) under the small tip load."""
    arm = make_arm(slenderness)
    N, ny_ref = _count(N, "N"), _count(ny_ref, "ny_ref")
    ref = solve_static(arm, "fem", ny_ref, ALPHA_SMALL, linear=True, clamp=clamp)[0]
    xy = solve_static(arm, "rod", N, ALPHA_SMALL, linear=True)[0]
    return tip_error(xy, ref, arm.L, transverse=True)


def rod_slenderness_limit(tol, lo=2.0, hi=50.0, N=WORKING["rod"], clamp="bonded", ny_ref=REFERENCE_NY):
    """Slenderness L/h at which the rod's small-load tip error equals ``tol`` (brentq).

    Below it the rod's rigid-section assumption costs more than ``tol`` against the FEM
    with ``clamp`` (:func:`to_fem`) and ``ny_ref`` cells through h.  ``[lo, hi]`` must
    bracket it (a ValueError naming them otherwise).
    """
    tol, N, ny_ref = checks.positive(tol, "tol"), _count(N, "N"), _count(ny_ref, "ny_ref")
    checks.choice(clamp, "clamp", CLAMPS)
    return _root(lambda s: rod_small_load_error(s, N, clamp, ny_ref) - tol, lo, hi, 1e-3,
                 f"the rod error = tol = {tol:g} on L/h")


def pcc_load_error(alpha, slenderness=20.0, n=WORKING["pcc"], N_ref=80):
    """PCC (n segments) tip error under the tip load alpha > 0 against the fine rod (N_ref).

    At L/h = 20 the fine rod agrees with the FEM reference to well under the
    threshold (the chapter computes and asserts this), and, unlike the
    near-incompressible T6 Newton solve, it follows the arm to very large loads cheaply.
    """
    arm = make_arm(slenderness)
    alpha = checks.positive(alpha, "alpha")
    n, N_ref = _count(n, "n"), _count(N_ref, "N_ref")
    steps = max(2, int(math.ceil(2 * alpha)))
    ref = solve_static(arm, "rod", N_ref, alpha, steps=steps)[0]
    xy = solve_static(arm, "pcc", n, alpha, steps=steps)[0]
    return tip_error(xy, ref, arm.L)


def pcc_load_limit(tol, slenderness=20.0, n=WORKING["pcc"], lo=3.0, hi=30.0, N_ref=80):
    """Tip load alpha at which the PCC tip error equals ``tol`` (brentq on the error curve).

    ``[lo, hi]`` must bracket it (a ValueError naming them otherwise); ``N_ref`` as in
    :func:`pcc_load_error`.
    """
    tol, slenderness = checks.positive(tol, "tol"), checks.positive(slenderness, "slenderness")
    n, N_ref = _count(n, "n"), _count(N_ref, "N_ref")
    return _root(lambda a: pcc_load_error(a, slenderness, n, N_ref) - tol, lo, hi, 1e-2,
                 f"the PCC error = tol = {tol:g} on alpha")


# ------------------------------------------------------------------------------------
# the release transient and the tendon's section effect
# ------------------------------------------------------------------------------------
def release(arm, level, size, t, alpha=ALPHA_SMALL, k_fem=24):
    r"""Tip deflection y(t) after releasing the arm from its linear small-load shape.

    Linear, undamped, by modal superposition of ``M u'' + K u = 0`` from ``u(0) = K^{-1} f``
    (``f`` the tip load ``alpha EI/L^2``), ``u'(0) = 0``:

    .. math:: u(t) = \sum_i v_i\,(v_i^\top M u_0)\cos\omega_i t,\qquad v_i^\top M v_j = \delta_{ij}.

    PCC: every Ritz mode (``lib.pcc.ritz``, ``scipy.linalg.eigh``); rod: every mode of
    the linearisation (``lib.rod.modes``); FEM (T6, consistent mass): the lowest
    ``k_fem`` modes (``lib.fem.frequencies``), the start shape being the T6 static one.

    Returns
    -------
    y : (len(t),) tip deflection (m); the FEM's is the tip-centre node.

    >>> a = make_arm(10.0)
    >>> y = release(a, "pcc", 1, [0.0])
    >>> bool(np.isclose(y[0], -tip_force(a, ALPHA_SMALL) * a.L**3 / (4 * a.EI)))   # one arc: PL^3/4EI
    True
    """
    from scipy.linalg import eigh

    _check_arm(arm)
    t = checks.array(np.atleast_1d(t) if np.ndim(t) == 0 else t, "t", shape=(None,))
    k_fem = _count(k_fem, "k_fem")
    P = tip_force(arm, alpha)
    model = build(arm, level, size)
    if level == "pcc":
        M, K = pcc.ritz(model.n, EI=arm.EI, rhoA=arm.rhoA, L=arm.L)
        jt = pcc.jacobian(model, np.zeros(model.n), [arm.L])[0, 1]        # dy_tip/dq
        u0 = np.linalg.solve(K, -P * jt)
        om2, V = eigh(K, M)
        om = np.sqrt(om2)
        tip_row = jt
    elif level == "rod":
        K = rod.hessian(model, rod.straight(model)).toarray()
        f = np.zeros(model.ndof)
        f[-1] = -P
        u0 = np.linalg.solve(K, f)
        om, V = rod.modes(model)
        M = np.diag(rod.mass(model))
        tip_row = np.zeros(model.ndof)
        tip_row[-1] = 1.0
    else:
        f = fem.tip_shear_load(model, P / arm.b)
        u0 = fem.solve_linear(model, f)
        om, V = fem.frequencies(model, k_fem, return_modes=True)
        M = fem.mass(model)
        tip_row = np.zeros(model.n_dofs)
        tip_row[2 * _fem_tip_node(model) + 1] = 1.0
    c = V.T @ (M @ u0)
    return (tip_row @ V * c) @ np.cos(np.outer(om, t))


def release_error(y, y_ref):
    """max_t |y - y_ref| / max_t |y_ref| over the sampled release (y_ref not all zero)."""
    y_ref = checks.vector(y_ref, "y_ref", nonempty=True)
    y = checks.vector(y, "y", y_ref.size)
    if not np.abs(y_ref).max() > 0:
        raise ValueError("y_ref must not be all zero (the error is relative to it)")
    return float(np.abs(y - y_ref).max() / np.abs(y_ref).max())


def fem_section_angle(model, u, x):
    """Rotation of the FEM cross-section X = x (the line from its bottom to its top node)."""
    checks.kind(model, "model", fem.Model, "an FEM model (lib.fem.make_model)")
    u = checks.vector(u, "u", model.mesh.nodes.size)
    x = checks.real(x, "x")
    X = model.mesh.nodes
    f = np.flatnonzero(np.isclose(X[:, 0], x))
    if f.size == 0:
        raise ValueError(f"no mesh section at x = {x!r}")
    lo, hi = f[np.argmin(X[f, 1])], f[np.argmax(X[f, 1])]
    v = (X[hi] + u.reshape(-1, 2)[hi]) - (X[lo] + u.reshape(-1, 2)[lo])
    return float(np.arctan2(-v[0], v[1]))


def tendon_strain(arm, beta):
    r"""Axial strain ``eps0 = tau/EA`` the tendon pull ``beta`` puts into the arm.

    The tendon's tension compresses every section by ``tau``; with
    ``tau = beta EI/(d L)``, ``d = h/4`` and ``EI/EA = h^2/12`` this is
    ``eps0 = beta h/(3 L)``.

    >>> a = make_arm(10.0)
    >>> round(tendon_strain(a, 1.5), 12)
    0.05
    """
    return tendon_tension(arm, beta, tendon_offset(arm)) / arm.EA


def strip_stretch(strain):
    r"""Axial stretch ``lam`` of an incompressible neo-Hookean strip under the nominal strain ``strain``.

    In plane strain an incompressible strip with free faces has the energy
    ``w(lam) = mu/2 (lam^2 + lam^-2 - 2)`` per unit reference volume, so a compressive
    force ``tau`` gives ``w'(lam) = mu (lam - lam^-3) = -tau/A``.  With the small-strain
    plane-strain modulus ``E' = 4 mu`` and ``strain = tau/(E' A)`` the stretch solves
    ``lam - lam^-3 = -4 strain`` (brentq; one root in ``(0, 1]``, for any strain >= 0:
    the bracket reaches down to ``(8 (4 strain + 1))^(-1/3)``).

    >>> round(strip_stretch(0.0), 12), round(strip_stretch(0.05), 4)
    (1.0, 0.9535)
    """
    e = checks.nonnegative(strain, "strain")
    if e == 0:
        return 1.0
    lo = min(0.1, 0.5 * (4.0 * e + 1.0) ** (-1.0 / 3.0))      # f(lo) < 0 < f(1) = 4 e
    return float(brentq(lambda lam: lam - lam**-3 + 4.0 * e, lo, 1.0, xtol=1e-15 * min(1.0, 10.0 * lo),
                        rtol=1e-15))


def strip_curvature_ratio(strain):
    r"""Curvature of a pre-compressed incompressible strip under a tendon, over ``tau d/EI``.

    A plane-section estimate of what the FEM does and a rigid-section beam cannot.  A
    section compressed to the stretch ``lam`` (:func:`strip_stretch`) is thicker by
    ``1/lam``; a fibre at reference height ``Y`` sits at ``Y/lam`` and under the curvature
    ``kappa`` (per reference length) has the stretch ``lam - kappa Y/lam``.  The bending
    stiffness about the compressed state is therefore

    .. math::

        \frac{\partial^2}{\partial\kappa^2}\int w\!\left(\lambda - \frac{\kappa Y}{\lambda}\right) b\,dY
        = w''(\lambda)\,\frac{b h^3}{12\lambda^2} = E'I\,\frac{1 + 3\lambda^{-4}}{4\lambda^2},

    while the tendon's lever grows to ``d/lam``.  The curvature ratio is

    .. math::

        \rho = \frac{\kappa}{\tau d/E'I} = \frac{4\lambda^5}{\lambda^4 + 3}
        \approx 1 - 4\varepsilon_0 .

    This is the *naive* strip law: linearising the fibre stretch in ``kappa Y`` drops the
    initial-stress moment ``tau (h^2/12 - d^2) kappa``, a term of the same order as the
    one kept, so it is right to first order only at ``d = h/sqrt(12)``; the exact
    flexure is :func:`strip_flexure` (``1 - 4.25 eps0`` at ``d = h/4``).

    >>> round(strip_curvature_ratio(0.0), 12)
    1.0
    >>> round(strip_curvature_ratio(0.05), 4)
    0.8239
    """
    lam = strip_stretch(strain)
    return 4.0 * lam**5 / (lam**4 + 3.0)


_GL_Y, _GL_W = np.polynomial.legendre.leggauss(40)


def _flexure_residual(x, eps, delta):
    """Rivlin's flexure of the incompressible neo-Hookean strip (h = 1, E' = 4 mu = 1) with a
    tendon of tension ``eps`` along the material line ``Y = delta``: the outer face free of
    traction and the section's moment about the tendon zero, both over ``eps``."""
    alpha, lc2 = x
    mu = 0.25
    lam = lambda Y: np.sqrt(lc2 - 2.0 * alpha * Y)           # noqa: E731  hoop stretch
    g = lambda L: 0.5 * (L**2 + L**-2)                        # noqa: E731
    la, lb, ld = lam(0.5), lam(-0.5), lam(delta)
    face = mu * (1.0 - 1.0 / (la**2 * lb**2)) + eps / ld
    moment = 0.0
    for (a, b), jump in (((-0.5, delta), eps * alpha / ld), ((delta, 0.5), 0.0)):
        Y = 0.5 * (b - a) * _GL_Y + 0.5 * (a + b)
        L = lam(Y)
        s_th = mu * (g(L) - g(la)) + jump + mu * (L**2 - L**-2)
        moment += 0.5 * (b - a) * np.sum(_GL_W * s_th * (-2.0 * (Y - delta) / (L + ld)) / L)
    return np.array([face, moment]) / eps


def strip_flexure(strain, offset_ratio=0.25):
    r"""Exact flexure of an incompressible neo-Hookean strip pulled by an embedded tendon.

    Rivlin's finite flexure in plane strain: the reference strip ``|Y| <= h/2`` becomes a
    circular sector whose hoop stretch is ``Lambda(Y)^2 = lambda_c^2 - 2 kappa Y`` (``kappa``
    the curvature per reference length, ``lambda_c`` the centreline stretch) and whose radial
    stretch is ``1/Lambda`` (incompressible); sections stay plane (radial).  With
    ``sigma = -p I + mu B`` the radial equilibrium gives ``sigma_rr`` in closed form; the
    tendon of tension ``tau`` runs along the material line ``Y = d``, presses on it with
    ``tau/r_d`` (a jump of ``sigma_rr``) and closes the section: the faces are free, the
    section's hoop force is ``-tau`` and its moment about the tendon vanishes.  The two
    conditions fix ``kappa`` and ``lambda_c`` (Newton, :func:`lib.solvers.newton_solve`;
    the section integrals by 40-point Gauss-Legendre on each side of the tendon).
    Expanding in ``eps0 = tau/(E'A)`` (``E' = 4 mu``):

    .. math::
        \rho = \frac{\kappa}{\tau d/E'I} = 1 - \Bigl(5 - 12\frac{d^2}{h^2}\Bigr)\varepsilon_0
        + O(\varepsilon_0^2).

    Parameters
    ----------
    strain : float in [0, 0.2], ``eps0 = tau/(E' b h)``
    offset_ratio : float in (0, 0.5), ``d/h`` (inside the strip)

    Returns
    -------
    (rho, lambda_c) : the curvature ratio and the centreline stretch

    >>> rho, lam = strip_flexure(0.025, 0.25)
    >>> round(rho, 5), round(lam, 4)
    (0.8997, 0.9767)
    """
    eps = checks.real(strain, "strain", 0.0, 0.2)
    delta = checks.real(offset_ratio, "offset_ratio", 0.0, 0.5)
    if not 0.0 < delta < 0.5:
        raise ValueError(f"offset_ratio must lie strictly inside (0, 0.5), got {delta!r}")
    if eps == 0.0:
        return 1.0, 1.0
    k0 = 12.0 * eps * delta
    x0 = np.array([k0 * (1.0 - (5.0 - 12.0 * delta**2) * eps), strip_stretch(eps) ** 2])

    def fun(x):
        r = _flexure_residual(x, eps, delta)
        J = np.empty((2, 2))
        for j, hj in enumerate((1e-7 * k0, 1e-7)):
            e = np.zeros(2)
            e[j] = hj
            J[:, j] = (_flexure_residual(x + e, eps, delta) - _flexure_residual(x - e, eps, delta)) / (2 * hj)
        return r, J

    x, _ = newton_solve(fun, x0, tol=1e-13, maxiter=30, line_search=False,
                        where="levels.strip_flexure", roundoff="residual",
                        floor=64 * np.finfo(float).eps / eps)      # residuals are over eps
    return float(x[0] / k0), float(math.sqrt(x[1]))


def strip_flexure_ratio(strain, offset_ratio=0.25):
    """The curvature ratio ``rho`` of :func:`strip_flexure` (the exact flexure law).

    >>> round(strip_flexure_ratio(0.0), 12)
    1.0
    """
    return strip_flexure(strain, offset_ratio)[0]


def section_law_slenderness(tol, beta=None, law="flexure", offset_ratio=0.25):
    """Slenderness L/h below which the strip's tendon curvature falls short of ``tau d/EI`` by more than ``tol``.

    Solves ``1 - rho(eps0) = tol`` for the strain (brentq) with ``rho`` the exact flexure
    (``law="flexure"``, :func:`strip_flexure_ratio`) or the naive strip law
    (``law="strip"``, :func:`strip_curvature_ratio`), and returns
    ``L/h = beta / (12 (d/h) eps0)`` (``eps0 = beta h/(3L)`` at ``d = h/4``).  ``tol`` must lie
    in [1e-6, 0.5] for the flexure (its strains stop at 0.2), [1e-6, 0.9999] for the strip law.

    >>> round(section_law_slenderness(0.05, 1.5, law="strip"), 1)
    38.7
    >>> round(section_law_slenderness(0.05, 1.5), 1)
    41.3
    """
    law = checks.choice(law, "law", ("flexure", "strip"))
    tol = checks.real(tol, "tol", 1e-6, 0.5 if law == "flexure" else 0.9999)
    beta = BETA_TENDON if beta is None else checks.positive(beta, "beta")
    delta = checks.real(offset_ratio, "offset_ratio", 0.0, 0.5)
    if law == "flexure":
        rho, top = (lambda e: strip_flexure_ratio(e, delta)), 0.2
    else:
        rho, top = strip_curvature_ratio, 100.0
    eps = brentq(lambda e: 1.0 - (rho(e) if e > 0 else 1.0) - tol, 0.0, top,
                 xtol=1e-14 * min(1.0, 20.0 * tol))
    return float(beta / (12.0 * delta * eps))


def rod_tendon_curvature_ratio(arm, beta, N=WORKING["rod"], steps=10):
    """The rod's curvature at mid-span under the tendon pull ``beta``, over ``tau d/EI``.

    Exactly 1 in the continuum limit; the discrete tendon, straight between eyelets,
    adds an excess that falls as ``N^-2`` and grows with ``kappa ell^2 / d``.
    """
    N, beta = _count(N, "N", low=2), checks.positive(beta, "beta")
    phi = _rod_tendon(arm, to_rod(arm, N), beta, _count(steps, "steps"))[0::3]
    return float((phi[N // 2] - phi[N // 2 - 1]) / (arm.L / N) / (beta / arm.L))


def rod_tendon_with_section_law(arm, beta, N=WORKING["rod"], steps=10):
    """Rod centreline under the tendon with the lever ``d`` scaled by :func:`strip_flexure_ratio`.

    The tension, and with it the pre-compression, is constant along the arm, so the
    strip's correction is one factor on the tendon's moment ``tau d``: the rod then
    bends as the compressed continuum section does.  Returns ``(k, 2)`` centreline.
    """
    N, beta = _count(N, "N", low=2), checks.nonnegative(beta, "beta")
    rho = strip_flexure_ratio(tendon_strain(arm, beta), 0.25)
    return _rod_centreline(_rod_tendon(arm, to_rod(arm, N), beta, _count(steps, "steps"),
                                      lever=rho))


def tendon_curvature_ratio(arm, beta, ny=WORKING["fem"], steps=10, formulation="T6",
                           offset_ratio=0.25):
    """FEM mid-span curvature (the mesh sections nearest 0.3 L and 0.7 L) over the beam value tau d/EI.

    The cable runs along the node line ``y = d = offset_ratio h`` (a node line of the T6
    mesh: ``2 ny offset_ratio`` must be an integer) with ``tau d L/EI = beta``;
    ``formulation="P2P1"`` solves with the finite-strain Taylor-Hood element of
    :mod:`lib.incompressible` (locking-free as ``nu -> 0.5``), else the displacement T6
    :func:`lib.actuation.cable_static`.  PCC gives exactly 1 and the rod 1 up to its
    discretisation (:func:`rod_tendon_curvature_ratio`): their sections are rigid and
    their laws linear.  Compare :func:`strip_flexure_ratio` (exact, incompressible) and
    :func:`strip_curvature_ratio` (the naive strip law).
    """
    model = to_fem(arm, ny)
    beta, steps = checks.positive(beta, "beta"), _count(steps, "steps")
    checks.choice(formulation, "formulation", ("T6", "P2P1"))
    delta = checks.real(offset_ratio, "offset_ratio", 0.0, 0.5)
    if not 0.0 < delta < 0.5 or abs(2 * ny * delta - round(2 * ny * delta)) > 1e-9:
        raise ValueError(f"offset_ratio must lie in (0, 0.5) on a node line of the mesh "
                         f"(2 ny offset_ratio an integer), got {delta!r} with ny = {ny}")
    d = delta * arm.h
    tau = tendon_tension(arm, beta, d) / arm.b
    if formulation == "P2P1":
        u = _p2p1_static(arm, model, np.zeros(model.n_dofs), tau, steps, offset=d)
    else:
        u = actuation.cable_static(model, [_fem_cable(model, d)], [tau], steps=steps)[1][-1]
    xs = np.unique(np.round(model.mesh.nodes[:, 0], 12))
    x1, x2 = (xs[np.argmin(np.abs(xs - f * arm.L))] for f in (0.3, 0.7))   # nearest sections
    kappa = (fem_section_angle(model, u, x2) - fem_section_angle(model, u, x1)) / (x2 - x1)
    return kappa / (beta / arm.L)
