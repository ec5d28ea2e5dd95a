r"""Closed pneumatic chambers in the plane-strain FEM arm: pressure, volume and gas control.

A PneuNet-like arm (:func:`make_arm`) is the neo-Hookean cantilever of :mod:`lib.fem`
(clamped at ``X = 0``) with closed rectangular cavities cut out of its structured mesh
(:mod:`lib.fe.cavity`).  A cavity's volume (area per unit thickness) in the deformed
state ``x = X + u`` is ``V = x^T C x / 2``; a gauge pressure ``p`` in it is the
follower load ``p dV/dx = p C x`` on its walls, conservative with the potential
``-p V``, so every control mode is the stationarity of a potential:

.. math::

    \text{pressure control:}\quad \Pi(u) = W(u) - \sum_k p_k V_k(u),\qquad
    K_T = K(u) - \sum_k p_k C_k \ (\text{symmetric});

    \text{volume control:}\quad L(u, p) = W(u) - \sum_k p_k\,(V_k(u) - \bar V_k),\qquad
    \begin{bmatrix} K - \sum p_k C_k & -G\\ -G^{\top} & 0\end{bmatrix}
    \begin{bmatrix}\delta u\\ \delta p\end{bmatrix} = -\begin{bmatrix} r_u\\ r_p\end{bmatrix},

with ``G = [dV_1/du, ...]`` and ``r_p = -(V - V_bar)``: the pressure is the multiplier
of the volume constraint (Armanini et al. 2023, eq. 19; the bordered system is
:func:`lib.solvers.saddle.kkt_matrix` in its symmetric form);

.. math::

    \text{enclosed gas (isothermal } (p + p_a) V = nRT\text{):}\quad
    \Pi(u) = W(u) - \sum_k n_k \ln V_k(u) + p_a \sum_k V_k(u),

    K_T = K(u) - \sum_k p_k C_k - \sum_k \frac{dp_k}{dV_k}\, g_k g_k^{\top},\qquad
    p_k = \frac{n_k}{V_k} - p_a,\quad \frac{dp_k}{dV_k} = -\frac{n_k}{V_k^2},

(``n_k`` stands for the product ``n R T`` of the gas in cavity ``k``: the *amount*, an
energy per unit thickness, ``p_a`` the ambient pressure); the rank-one term stiffens the
arm.  Along any quasi-static path the work of the pressure is stored, ``int sum p dV =
W(u_end) - W(u_0)`` (:func:`pressure_work`), to the accuracy of the path quadrature.

Self-contact is not modelled: a cavity wall could pass through another wall of the
same cavity (under vacuum, or with a cavity drained by volume control) with no element
inverted and a positive volume.  The solvers refuse such states: a Newton trial whose
cavity loop is not a simple polygon (:func:`lib.fe.cavity.walls_cross`) is cut back
like an inverted element, every converged state is checked, and a path that cannot go on
without it stops with a :class:`~lib.core.errors.SolveError` whose reason is "cavity walls
in contact (self-contact is not modelled)".  A failed path carries the part it had
converged as the error's ``path`` attribute (a :class:`Path`).

Array layout
------------
``u`` the solid's unknowns, (``arm.n_dofs``,): the interleaved displacements of
:mod:`lib.fem` (2 n_nodes,), followed, for an arm on a mixed u-p body of
:mod:`lib.incompressible` (``make_arm(..., material=...)``), by its pressure unknowns
(``W`` is then that body's saddle functional ``L(u, p_solid)``); ``pressure``, ``volumes``,
``amount`` a number (every cavity) or (n_cav,) one per cavity; ``z = [u, p]``
(``arm.n_dofs + n_cav``,) the unknowns of volume control, ``p`` the cavity pressures.

Contents
--------
Arm, make_arm                                     the arm and its cavities (neo-Hookean
                                                  T3/T6, or any body of lib.incompressible)
volumes, tip_angle, stored_energy                 readouts
energy, gradient, hessian                         pressure control (potential W - p V)
gas_pressure, gas_energy, gas_gradient, gas_hessian    the enclosed isothermal gas
volume_residual, volume_jacobian                  the bordered system of volume control
pressure_static, volume_static, gas_static, Path  the three control modes along a load path
pressure_work                                     int p dV along a path (trapezoid), to
                                                  compare with stored_energy
Slopes, bending_slopes                            small-load tip angle per pressure, per volume

References
----------
Armanini et al. (2023), Soft Robots Modeling: A Structured Overview, IEEE T-RO 39(3);
Mosadegh et al. (2014), Pneumatic networks for soft robotics that actuate rapidly, Adv.
Funct. Mater. 24; Bonet & Wood, Nonlinear Continuum Mechanics for FEA (follower pressure).

Examples
--------
>>> arm = make_arm(24, 4, "T3")
>>> path = pressure_static(arm, 0.02, steps=2)
>>> round(float(tip_angle(arm, path.states[-1])), 4)      # the top wall stretches: bends down
-0.0166
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import fem
from . import incompressible as inc
from .core import checks, linalg
from .core.errors import SolveError
from .fe import clamped_dofs, face_nodes, roundoff_floor
from .fe.cavity import cavity_mesh, cavity_volume, make_cavity, walls_cross
from .solvers import load_path, newton_solve
from .solvers.saddle import kkt_matrix

__all__ = ["Arm", "make_arm", "PNEUNET", "volumes", "tip_angle", "stored_energy", "energy",
           "gradient", "hessian", "gas_pressure", "gas_energy", "gas_gradient", "gas_hessian",
           "volume_residual", "volume_jacobian", "Path", "pressure_static", "volume_static",
           "gas_static", "pressure_work", "Slopes", "bending_slopes", "CONTACT"]

#: Five chambers 0.5 x 0.25 in the upper half of the 6 x 1 arm, 0.5 apart (a strain-limiting
#: lower layer of half the height, a top wall of a quarter): boxes (x0, x1, y0, y1) on a grid
#: of 1/4.  Wider chambers (1 x 0.25) bend the arm less and not monotonically: their thin top
#: wall balloons, and its chord shortens as p^2 against the linear push on the side walls.
PNEUNET = tuple((x, x + 0.5, 0.0, 0.25) for x in (0.75, 1.75, 2.75, 3.75, 4.75))

_TINY = np.finfo(float).tiny
_EPS = np.finfo(float).eps


@dataclass(frozen=True, eq=False)
class Arm:
    """A clamped neo-Hookean arm with closed cavities (made by :func:`make_arm`).

    Attributes
    ----------
    model : lib.fem.Model on a :class:`lib.fe.cavity.CavityMesh`, clamped at X = 0 (the
        solid itself, or the geometry of ``body``).
    cavities : tuple of :class:`lib.fe.cavity.Cavity`, one per cavity of the mesh.
    body : the :class:`lib.incompressible.Body` of a rubber arm, or None (neo-Hookean
        ``model``).
    C : tuple of (n_dofs, n_dofs) CSR, each cavity's ``C`` on all the unknowns.
    """

    model: fem.Model
    cavities: tuple
    body: object = None
    C: tuple = ()

    @property
    def n_cavities(self):
        return len(self.cavities)

    @property
    def n_u(self):
        """Displacement unknowns, 2 n_nodes."""
        return self.model.n_dofs

    @property
    def n_dofs(self):
        """All unknowns: displacements, then the body's pressure unknowns (if mixed)."""
        return self.model.n_dofs + (0 if self.body is None else self.body.n_p)

    @property
    def free(self):
        return self.model.free if self.body is None else self.body.free


def _arm_mesh(nx, ny, cavities, element, length, height):
    """:func:`cavity_mesh`; with the default cavities a ``length`` / ``height`` they do not
    fit is named (the PNEUNET boxes are fixed: the arm's size is the argument at fault)."""
    try:
        return cavity_mesh(nx, ny, cavities, element, length, height)
    except ValueError as e:
        if cavities is not PNEUNET or not str(e).startswith("cavities"):
            raise
        for name, value, default in (("length", length, 6.0), ("height", height, 1.0)):
            if checks.real(value, name) != default:
                raise ValueError(f"{name} must fit the default cavities PNEUNET (or give "
                                 f"cavities for this arm), got {value!r}: {e}") from None
        raise


def make_arm(nx=24, ny=4, element="T6", cavities=PNEUNET, length=6.0, height=1.0, E=1.0,
             nu=0.3, material=None):
    """The arm ``[0, length] x [-height/2, height/2]`` with closed ``cavities``, clamped at X = 0.

    Parameters
    ----------
    nx, ny : int >= 1, cells of the structured grid (the cavities must lie on its lines)
    element : "T3" or "T6"
    cavities : (n_cav, 4) boxes ``(x0, x1, y0, y1)``, default :data:`PNEUNET`
        (see :func:`lib.fe.cavity.cavity_mesh`: closed, at least a cell of wall around each)
    length, height, E : float > 0
    nu : Poisson ratio in (-1, 0.5)
    material : a :class:`lib.incompressible.Material` (rubber, ``nu`` up to 0.5), or None.
        With it the arm is :func:`lib.incompressible.make_body` of that material and
        ``element`` is any of :data:`lib.incompressible.FORMULATIONS` (``"P2P1"``: the
        Taylor-Hood u-p element, locking-free as ``nu -> 0.5``); ``E`` and ``nu`` are then
        not used (the material has its own).

    Raises
    ------
    ValueError
        Naming the argument: ``cavities`` not closed, off the grid lines or narrower than
        a cell (``length`` / ``height`` when the default cavities do not fit an arm of that
        size), ``nx``, ``ny``, ``element``, ``E``, ``nu`` or ``material``.

    Examples
    --------
    >>> arm = make_arm(24, 4, "T6")
    >>> arm.n_cavities, volumes(arm, np.zeros(arm.n_dofs)).round(12).tolist()
    (5, [0.125, 0.125, 0.125, 0.125, 0.125])
    >>> rubber = make_arm(24, 4, "P2P1", material=inc.neo_hookean(1.0, 0.5))
    >>> rubber.n_dofs - rubber.n_u                   # one pressure per corner node
    125
    """
    if material is None:
        checks.choice(element, "element", ("T3", "T6"))
        mesh = _arm_mesh(nx, ny, cavities, element, length, height)
        model = fem.make_model(mesh, E=E, nu=nu, fixed=clamped_dofs(mesh))
        body = None
    else:
        checks.kind(material, "material", inc.Material, "a hyperelastic material (lib."
                    "incompressible.Material, made by neo_hookean, yeoh, ...) or None")
        checks.choice(element, "element", inc.FORMULATIONS)
        mesh = _arm_mesh(nx, ny, cavities, "T3" if element in ("T3", "P1P0") else "T6",
                         length, height)
        body = inc.make_body(mesh, material, element, fixed=clamped_dofs(mesh))
        model = body.geom
    cavs = tuple(make_cavity(model, k) for k in range(len(mesh.loops)))
    n = model.n_dofs + (0 if body is None else body.n_p)
    C = []
    for c in cavs:
        Ck = c.C.copy()
        Ck.resize((n, n))
        C.append(Ck.tocsr())
    return Arm(model, cavs, body, tuple(C))


# --------------------------------------------------------------------------------------
# checks and small kernels
# --------------------------------------------------------------------------------------
def _check_arm(arm, name="arm"):
    checks.kind(arm, name, Arm, "a pneumatic arm (lib.pneumatic.Arm, made by make_arm)")
    nodes = arm.model.mesh.nodes
    loops = getattr(arm.model.mesh, "loops", ())
    if len(arm.cavities) != len(loops) or len(arm.C) != len(loops) or any(
            c.edges.shape != e.shape or not np.array_equal(c.edges, e)
            or not np.array_equal(nodes[e], c.X) or c.C.shape != (arm.n_u, arm.n_u)
            or Ck.shape != (arm.n_dofs, arm.n_dofs)
            for c, e, Ck in zip(arm.cavities, loops, arm.C)):
        raise ValueError(f"{name}'s cavities must be those of its model's mesh (make the arm "
                         "with make_arm), got cavities made on another mesh")
    return arm


def _per_cavity(arm, value, name, positive=False):
    """A number or one per cavity, as an (n_cav,) float array (ValueError naming ``name``)."""
    if np.ndim(value) == 0 and not isinstance(value, (list, tuple)):
        value = (checks.positive if positive else checks.real)(value, name)
        return np.full(arm.n_cavities, value)
    a = checks.vector(value, name, arm.n_cavities)
    if positive and np.any(a <= 0):
        raise ValueError(f"{name} must be positive for every cavity, got {checks.show(a)}")
    return a


def _u(arm, u, name="u"):
    return checks.vector(u, name, arm.n_dofs)


def _x(arm, u):
    """Deformed positions (2 n_nodes,) from the unknowns."""
    return arm.model.mesh.nodes.ravel() + u[:arm.n_u]


def _volumes(arm, u):
    x = _x(arm, u)
    return np.array([0.5 * float(x @ (c.C @ x)) for c in arm.cavities])


def _grads(arm, u):
    """dV_k/du on all the unknowns (zero on the body's pressure unknowns)."""
    x, n_p = _x(arm, u), arm.n_dofs - arm.n_u
    return [np.concatenate([c.C @ x, np.zeros(n_p)]) for c in arm.cavities]


def _solid_energy(arm, u):
    return fem.strain_energy(arm.model, u) if arm.body is None else inc.energy(arm.body, u)


def _solid_gradient(arm, u):
    return fem.gradient(arm.model, u) if arm.body is None else inc.gradient(arm.body, u)


def _solid_hessian(arm, u):
    return fem.hessian(arm.model, u) if arm.body is None else inc.hessian(arm.body, u)


def _finite_volumes(arm, u, name="u"):
    """The volumes of a state given by the caller: one whose ``x . C x`` overflows (a
    finite but huge ``u``) is a ValueError naming ``name``, not a NaN returned."""
    with np.errstate(over="ignore", invalid="ignore"):
        V = _volumes(arm, u)
    if not np.all(np.isfinite(V)):
        raise ValueError(f"{name} must keep the wall positions' products within floating "
                         f"point (the volume overflows), got max |{name}| = "
                         f"{np.abs(u).max():.3g}")
    return V


def _positive_volumes(arm, u, name="u"):
    V = _finite_volumes(arm, u, name)
    if np.any(V <= 0):
        k = int(np.argmin(V))
        raise ValueError(f"{name} collapses cavity {k} (volume {V[k]:.3e} <= 0): the gas law "
                         "needs a positive volume")
    return V


def volumes(arm, u, method="boundary"):
    """Cavity volumes (areas per unit thickness) in the deformed state ``u``, (n_cav,).

    ``method`` as :func:`lib.fe.cavity.cavity_volume` ("boundary" or "cells").

    >>> arm = make_arm(24, 4, "T3")
    >>> volumes(arm, np.zeros(arm.n_dofs), method="cells").round(12).tolist()
    [0.125, 0.125, 0.125, 0.125, 0.125]
    """
    _check_arm(arm)
    u = _u(arm, u)[:arm.n_u]
    return np.array([cavity_volume(arm.model, c, u, method) for c in arm.cavities])


def tip_angle(arm, u):
    """Rotation (rad, counter-clockwise positive) of the chord from the bottom to the top
    corner of the tip face ``X = length``: ``atan2(-(x_top - x_bot), y_top - y_bot)``.

    >>> arm = make_arm(24, 4, "T3")
    >>> path = pressure_static(arm, 0.02, steps=2)
    >>> round(tip_angle(arm, path.states[-1]), 4)     # the top chambers bend it clockwise
    -0.0166
    """
    _check_arm(arm)
    return _tip_angle(arm, _u(arm, u))


def _tip_nodes(arm):
    idx = face_nodes(arm.model.mesh, "right")
    return idx[0], idx[-1]


def _tip_angle(arm, u):
    b, t = _tip_nodes(arm)
    w = u[:arm.n_u].reshape(-1, 2)
    d = (arm.model.mesh.nodes[t] - arm.model.mesh.nodes[b]) + (w[t] - w[b])
    return float(np.arctan2(-d[0], d[1])) + 0.0          # no -0.0


def _tip_angle_gradient(arm, u):
    """d(tip angle)/du, (2 n_nodes,)."""
    b, t = _tip_nodes(arm)
    w = u[:arm.n_u].reshape(-1, 2)
    d = (arm.model.mesh.nodes[t] - arm.model.mesh.nodes[b]) + (w[t] - w[b])
    r2 = d @ d
    dd = np.array([-d[1] / r2, -d[0] / r2])          # d theta / d(dx, dy)
    g = np.zeros(arm.n_dofs)
    g[2 * t:2 * t + 2] += dd
    g[2 * b:2 * b + 2] -= dd
    return g


def _sum_C(arm, p):
    out = arm.C[0] * p[0]
    for Ck, pk in zip(arm.C[1:], p[1:]):
        out = out + pk * Ck
    return out


# --------------------------------------------------------------------------------------
# pressure control: Pi(u) = W(u) - sum p V
# --------------------------------------------------------------------------------------
def energy(arm, u, pressure):
    r"""``Pi(u) = W(u) - sum_k p_k V_k(u)``: stored energy minus the pressure's potential.

    Raises
    ------
    ValueError
        Naming ``arm``, ``pressure`` or ``u`` (wrong length, not finite, or so large that
        the volumes or the energy overflow).

    >>> arm = make_arm(24, 4, "T3")
    >>> round(energy(arm, np.zeros(arm.n_dofs), 0.1), 12)        # -0.1 x 5 x 0.125
    -0.0625
    """
    _check_arm(arm)
    u, p = _u(arm, u), _per_cavity(arm, pressure, "pressure")
    V = _finite_volumes(arm, u)
    with np.errstate(over="ignore", invalid="ignore"):
        Pi = _solid_energy(arm, u) - float(p @ V)
    if not np.isfinite(Pi):
        raise ValueError(f"u and pressure must keep the energy within floating point (it "
                         f"overflows), got max |u| = {np.abs(u).max():.3g} with pressure "
                         f"{p.tolist()}")
    return Pi


def gradient(arm, u, pressure):
    """Residual ``f_int(u) - sum_k p_k C_k x`` (the gradient of :func:`energy`), (2 n_nodes,).

    >>> arm = make_arm(24, 4, "T3")
    >>> r = gradient(arm, np.zeros(arm.n_dofs), 1.0)
    >>> round(float(abs(r.reshape(-1, 2).sum(0)).max()), 12)    # self-equilibrated load
    0.0
    """
    _check_arm(arm)
    u, p = _u(arm, u), _per_cavity(arm, pressure, "pressure")
    return _gradient(arm, u, p)


def _gradient(arm, u, p):
    r = _solid_gradient(arm, u)
    for g, pk in zip(_grads(arm, u), p):
        r -= pk * g
    return r


def hessian(arm, u, pressure):
    """Tangent ``K(u) - sum_k p_k C_k`` (CSR, symmetric: the load is conservative).

    >>> arm = make_arm(24, 4, "T3")
    >>> H = hessian(arm, np.zeros(arm.n_dofs), 0.5)
    >>> bool(abs(H - H.T).max() < 1e-14)
    True
    """
    _check_arm(arm)
    u, p = _u(arm, u), _per_cavity(arm, pressure, "pressure")
    return _hessian(arm, u, p)


def _hessian(arm, u, p):
    return (_solid_hessian(arm, u) - _sum_C(arm, p)).tocsr()


# --------------------------------------------------------------------------------------
# an enclosed isothermal gas: (p + p_a) V = n (n = nRT, "amount")
# --------------------------------------------------------------------------------------
def _gas_args(arm, u, amount, ambient):
    _check_arm(arm)
    u = _u(arm, u)
    n = _per_cavity(arm, amount, "amount", positive=True)
    pa = checks.nonnegative(ambient, "ambient")
    return u, n, pa, _positive_volumes(arm, u)


def gas_pressure(arm, u, amount, ambient=0.0):
    """Gauge pressures ``n_k / V_k(u) - ambient`` of the enclosed gas, (n_cav,).

    ``amount`` > 0 the product ``n R T`` per cavity (per unit thickness); ``ambient`` >= 0.
    A state whose cavity volume is not positive is a ValueError naming ``u``.

    >>> arm = make_arm(24, 4, "T3")
    >>> gas_pressure(arm, np.zeros(arm.n_dofs), 0.15, ambient=1.0).round(12).tolist()
    [0.2, 0.2, 0.2, 0.2, 0.2]
    """
    u, n, pa, V = _gas_args(arm, u, amount, ambient)
    return n / V - pa


def gas_energy(arm, u, amount, ambient=0.0):
    r"""``W(u) - sum_k n_k ln V_k(u) + ambient sum_k V_k(u)`` (isothermal gas plus ambient).

    >>> arm = make_arm(24, 4, "T3")
    >>> round(gas_energy(arm, np.zeros(arm.n_dofs), 1.0), 9)      # -5 ln(1/8)
    10.397207708
    """
    u, n, pa, V = _gas_args(arm, u, amount, ambient)
    return _solid_energy(arm, u) - float(n @ np.log(V)) + pa * float(V.sum())


def gas_gradient(arm, u, amount, ambient=0.0):
    """``f_int(u) - sum_k p_k(V_k) C_k x`` with the gas-law pressures (:func:`gas_pressure`).

    >>> arm = make_arm(24, 4, "T3")
    >>> u = np.zeros(arm.n_dofs)
    >>> bool(np.allclose(gas_gradient(arm, u, 0.125, 1.0), gradient(arm, u, 0.0)))   # p = 0
    True
    """
    u, n, pa, V = _gas_args(arm, u, amount, ambient)
    return _gradient(arm, u, n / V - pa)


def gas_hessian(arm, u, amount, ambient=0.0):
    r"""``K(u) - sum_k p_k C_k + sum_k (n_k / V_k^2) g_k g_k^T`` (CSR): the pressure-control
    tangent plus the rank-one p-V stiffness ``-(dp/dV) g g^T`` of each cavity.

    >>> arm = make_arm(24, 4, "T3")
    >>> u = np.zeros(arm.n_dofs)
    >>> D = gas_hessian(arm, u, 0.125, 1.0) - hessian(arm, u, 0.0)      # the rank-one terms
    >>> int(np.linalg.matrix_rank(D.toarray()))
    5
    """
    u, n, pa, V = _gas_args(arm, u, amount, ambient)
    return _gas_hessian(arm, u, n, pa, V)


def _rank_one(g, c):
    nz = np.flatnonzero(g)
    gz = g[nz]
    return sp.csr_matrix((c * np.outer(gz, gz).ravel(),
                          (np.repeat(nz, nz.size), np.tile(nz, nz.size))),
                         shape=(g.size, g.size))


def _gas_hessian(arm, u, n, pa, V):
    H = _hessian(arm, u, n / V - pa)
    for g, nk, Vk in zip(_grads(arm, u), n, V):
        H = H + _rank_one(g, nk / Vk**2)
    return H.tocsr()


# --------------------------------------------------------------------------------------
# volume control: the bordered system
# --------------------------------------------------------------------------------------
def _split(arm, z, name="z"):
    z = checks.vector(z, name, arm.n_dofs + arm.n_cavities)
    return z[:arm.n_dofs], z[arm.n_dofs:]


def volume_residual(arm, z, volumes):
    r"""``[f_int(u) - sum_k p_k C_k x, -(V(u) - volumes)]`` at ``z = [u, p]``: the gradient
    of the Lagrangian ``W - sum_k p_k (V_k - Vbar_k)`` (its ``p`` rows negated).

    ``volumes`` > 0 (a number or one per cavity).  A ``z`` whose volumes overflow is a
    ValueError naming ``z``.

    >>> arm = make_arm(24, 4, "T3")
    >>> r = volume_residual(arm, np.zeros(arm.n_dofs + 5), 0.13)
    >>> r[-5:].round(12).tolist()
    [0.005, 0.005, 0.005, 0.005, 0.005]
    """
    _check_arm(arm)
    u, p = _split(arm, z)
    Vbar = _per_cavity(arm, volumes, "volumes", positive=True)
    return np.concatenate([_gradient(arm, u, p), Vbar - _finite_volumes(arm, u, "z")])


def volume_jacobian(arm, z):
    r"""The derivative of :func:`volume_residual`: ``[[K - sum p_k C_k, -G], [-G^T, 0]]``
    (CSC, symmetric, indefinite), ``G = [C_1 x, ..., C_m x]``.

    >>> arm = make_arm(24, 4, "T3")
    >>> J = volume_jacobian(arm, np.zeros(arm.n_dofs + 5))
    >>> J.shape, bool(abs(J - J.T).max() < 1e-14)
    ((255, 255), True)
    """
    _check_arm(arm)
    u, p = _split(arm, z)
    return _volume_jacobian(arm, u, p)


def _volume_jacobian(arm, u, p):
    G = sp.csr_matrix(np.column_stack(_grads(arm, u)))
    return kkt_matrix(_hessian(arm, u, p), -G.T, symmetric=True)


# --------------------------------------------------------------------------------------
# solvers
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Path:
    """A quasi-static load path (made by the ``*_static`` solvers).

    A path of adaptive increments (a failed increment cut and re-grown) has more rows
    than ``steps + 1``; ``load`` says where each is.

    Attributes
    ----------
    load : (steps + 1,) load factors 0 .. 1.
    pressures : (steps + 1, n_cav) gauge pressures.
    volumes : (steps + 1, n_cav) cavity volumes.
    states : (steps + 1, 2 n_nodes) displacements (row 0: the start).
    iterations : (steps,) Newton iterations of each step.
    """

    load: np.ndarray
    pressures: np.ndarray
    volumes: np.ndarray
    states: np.ndarray
    iterations: np.ndarray


def _options(steps, tol, maxiter):
    return (checks.integer(steps, "steps", low=1), checks.nonnegative(tol, "tol"),
            checks.integer(maxiter, "maxiter", low=0))


def _start(arm, u0):
    if u0 is None:
        return np.zeros(arm.n_dofs)
    u = _u(arm, u0, "u0")
    k = _crossing(arm, u)
    if k is not None:
        raise ValueError(f"u0 has the walls of cavity {k} crossing each other ({CONTACT})")
    return u


def _modulus(arm):
    """The stiffness scale of the material: ``2 mu + lam`` (neo-Hookean), ``2 mu + kappa``
    of a body (``kappa`` dropped when infinite: its pressure unknowns carry it)."""
    if arm.body is None:
        return 2 * arm.model.mu + arm.model.lam
    mat = arm.body.material
    return 2 * mat.mu + (mat.kappa if np.isfinite(mat.kappa) else 0.0)


def _young(arm):
    return arm.model.E if arm.body is None else arm.body.material.E


def _floors(arm, u, p):
    """Round-off floor per unknown (n_dofs,): :func:`lib.fe.roundoff_floor` with the modulus
    plus the pressures on the force rows, 64 eps times the largest element area on a
    body's pressure rows."""
    n_u = arm.n_u
    solid_p = float(np.abs(u[n_u:]).max()) if arm.n_dofs > n_u else 0.0
    fl = np.full(arm.n_dofs, 0.0 if arm.body is None else 64 * _EPS * float(arm.body.area.max()))
    fl[:n_u] = roundoff_floor(arm.model, _modulus(arm) + solid_p + float(np.abs(p).max()))
    return fl


def _scales(arm, fscale):
    """Per-unknown force scale: ``fscale`` on the force rows, the largest element area on a
    body's pressure rows (as :func:`lib.incompressible.solve`)."""
    sc = np.full(arm.n_dofs, fscale)
    if arm.body is not None:
        sc[arm.n_u:] = float(arm.body.area.max())
    return sc


def _admissible(arm, u):
    return fem.admissible(arm.model, u[:arm.n_u]) and bool(np.all(_volumes(arm, u) > 0))


#: The reason of the SolveError of a path stopped by touching cavity walls.
CONTACT = "cavity walls in contact (self-contact is not modelled)"


def _crossing(arm, u):
    """The first cavity whose wall loop crosses itself in the state ``u``, or None."""
    for k, c in enumerate(arm.cavities):
        if walls_cross(arm.model, c, u[:arm.n_u]):
            return k
    return None


class _Guard:
    """The Newton admissibility hook: no inverted element, positive volumes, no cavity
    whose walls cross; remembers the cavity of a trial refused for crossing walls."""

    def __init__(self, arm):
        self.arm, self.crossed = arm, None

    def __call__(self, z):
        if not _admissible(self.arm, z):
            return False
        k = _crossing(self.arm, z)
        if k is not None:
            self.crossed = k
            return False
        return True


#: Increment cuts in a row (:func:`lib.solvers.load_path`), and the smallest increment
#: tried, ``1 / (steps 2**_MAX_CUTS)``.
_MAX_CUTS = 6


def _follow(arm, newton_at, x0, steps, where, path_of):
    """Follow the load path (:func:`lib.solvers.load_path`, adaptive cuts that re-grow)
    with ``newton_at(lam, x, admissible) -> (x, info)`` and return ``path_of(lam, states,
    iterations)`` (row 0 the start).  Trials with crossing cavity walls are refused
    (:class:`_Guard`) and every converged state is checked; an increment below
    ``1 / (steps 2**_MAX_CUTS)`` is not tried (without that floor a path creeping up to
    a contact, each tiny increment converging, would never stop).  A path that fails
    stops with the SolveError of :func:`lib.solvers.load_path` (reason :data:`CONTACT`
    when its last attempt met crossing walls), the converged part attached as
    ``err.path``."""
    done = []                                  # (lam, state, iterations) accepted so far
    smallest = 1.0 / (steps * 2**_MAX_CUTS)
    last = [None]                              # the last solve that failed

    def solve_at(lam, x):
        reached = done[-1][0] if done else 0.0
        if lam < 1.0 and lam - reached < smallest * (1 - 1e-9) and last[0] is not None:
            e = last[0]
            raise SolveError(f"increment {lam - reached:.3g} below the smallest tried "
                             f"({smallest:.3g}); the last failed solve: {e.detail or e.reason}",
                             where=where, iteration=e.iteration, residual=e.residual,
                             relative=e.relative, tol=e.tol, reason=e.reason)
        guard = _Guard(arm)
        try:
            xn, info = newton_at(lam, x, guard)
        except SolveError as err:
            last[0] = err
            if guard.crossed is not None:
                last[0] = SolveError(f"a trial state had the walls of cavity {guard.crossed} "
                                     "crossing", where=where, iteration=err.iteration,
                                     residual=err.residual, relative=err.relative,
                                     tol=err.tol, reason=CONTACT)
                raise last[0] from err
            raise
        k = _crossing(arm, xn)
        if k is not None:                      # a converged state is checked, too
            last[0] = SolveError(f"the walls of cavity {k} cross in the converged state",
                                 where=where, iteration=info.iterations, reason=CONTACT)
            raise last[0]
        done.append((lam, xn.copy(), info.iterations))
        return xn, info

    try:
        load_path(solve_at, x0, steps=steps, adaptive=True, max_cuts=_MAX_CUTS, where=where)
    except SolveError as err:
        if isinstance(err.__cause__, SolveError) and err.__cause__.reason == CONTACT:
            err.reason = CONTACT
        err.path = path_of([0.0] + [d[0] for d in done], [x0] + [d[1] for d in done],
                           [d[2] for d in done])
        err.args = (str(err),)
        raise
    return path_of([0.0] + [d[0] for d in done], [x0] + [d[1] for d in done],
                   [d[2] for d in done])


def _force_scale(arm, p, u):
    """|p g|_inf on the free dofs (the load's size), at least the round-off floor."""
    g = np.abs(np.column_stack(_grads(arm, u))[arm.free]).max(0)
    return max(float(np.max(np.abs(p) * g)), roundoff_floor(arm.model, _modulus(arm)), _TINY)


def _path(arm, lam, pressures, states, iterations):
    U = np.array(states)
    V = np.array([_volumes(arm, u) for u in U])
    return Path(np.asarray(lam, float), np.array(pressures), V, U,
                np.asarray(iterations, int).reshape(-1))


def pressure_static(arm, pressure, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Equilibria under cavity pressures growing linearly to ``pressure`` (pressure control).

    Newton on ``grad Pi = f_int(u) - sum_k p_k C_k x = 0`` with the symmetric tangent
    ``K - sum_k p_k C_k`` (:func:`lib.solvers.newton_solve`; a step is accepted when it
    lowers :func:`energy` or the residual, halved otherwise and while it would invert an
    element or collapse a cavity; a mixed body, whose functional is a saddle, takes full
    steps) along ``p_j = j p / steps``, an increment that fails cut and re-grown
    (:func:`lib.solvers.load_path`, adaptive); converged at ``|r|_inf <= tol |p g|_inf``
    or the round-off floor of the internal force.  Negative pressures (suction) are
    allowed.  A trial state whose cavity walls cross (:func:`lib.fe.cavity.walls_cross`:
    self-contact, not modelled) is cut back, and every converged state is checked.

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        A bad argument, named (``u0`` also when a cavity's walls cross in it).
    lib.core.errors.SolveError
        With the load step, the load factor reached ("converged up to λ = ..."), the
        iteration and the residual, reason "cut limit" or :data:`CONTACT` (the walls
        would have to pass through each other); its attribute ``path`` is the
        :class:`Path` converged up to there.

    Examples
    --------
    >>> arm = make_arm(24, 4, "T3")
    >>> path = pressure_static(arm, 0.02, steps=2)
    >>> path.pressures[:, 0].tolist(), bool(path.volumes[-1, 0] > 0.125)
    ([0.0, 0.01, 0.02], True)
    """
    _check_arm(arm)
    p = _per_cavity(arm, pressure, "pressure")
    steps, tol, maxiter = _options(steps, tol, maxiter)
    u = _start(arm, u0)
    scale = _scales(arm, _force_scale(arm, p, u))

    def solve_at(lam, u, admissible):
        pl = lam * p
        # a displacement body has a potential: steps are accepted on energy or residual
        # (a mixed body's saddle functional has no minimum: full steps, as before)
        energy = None if arm.body is not None else (
            lambda v: _solid_energy(arm, v) - float(pl @ _volumes(arm, v)))
        return newton_solve(lambda u: (_gradient(arm, u, pl), lambda: _hessian(arm, u, pl)),
                            u, tol, maxiter, max_backtracks=29,
                            where="pneumatic.pressure_static",
                            accept="none" if energy is None else "energy-or-residual",
                            energy=energy, scale=scale,
                            floor=_floors(arm, u, pl), roundoff="residual", free=arm.free,
                            admissible=admissible, spd=arm.body is None)

    def path_of(lam, states, iterations):
        lam = np.asarray(lam, float)
        return _path(arm, lam, lam[:, None] * p, states, iterations)

    return _follow(arm, solve_at, u, steps, "pneumatic.pressure_static", path_of)


def volume_static(arm, volumes, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Equilibria with the cavity volumes prescribed (volume control), the pressures
    being the constraints' multipliers.

    The targets move linearly from the start's volumes to ``volumes`` (> 0); each step is
    Newton on ``z = [u, p]`` with the bordered (KKT) Jacobian of :func:`volume_jacobian`
    (sparse LU), from the previous equilibrium, a correction halved while it would invert
    an element, collapse a cavity or make its walls cross (the Lagrangian is a saddle:
    no energy to accept on); an increment that fails is cut and re-grown
    (:func:`lib.solvers.load_path`, adaptive).  Converged at ``|r_u|_inf <= tol
    E |dV/V| |g|_inf`` and ``|r_p| <= tol |dV|``, or at the round-off floors.

    Returns
    -------
    Path (``pressures`` are the multipliers)

    Raises
    ------
    ValueError
        A bad argument, named.
    lib.core.errors.SolveError
        As :func:`pressure_static` (reason :data:`CONTACT` when a small volume would need
        the walls to pass through each other), the converged part as its ``path``.

    Examples
    --------
    >>> arm = make_arm(24, 4, "T3")
    >>> path = volume_static(arm, 0.13, steps=2)
    >>> path.volumes[-1].round(12).tolist(), bool(path.pressures[-1, 0] > 0)
    ([0.13, 0.13, 0.13, 0.13, 0.13], True)
    """
    _check_arm(arm)
    Vbar = _per_cavity(arm, volumes, "volumes", positive=True)
    steps, tol, maxiter = _options(steps, tol, maxiter)
    u = _start(arm, u0)
    V0 = _volumes(arm, u)
    if np.any(V0 <= 0):
        raise ValueError("u0 collapses a cavity (volume <= 0)")
    n, m = arm.n_dofs, arm.n_cavities
    dV = np.abs(Vbar - V0)
    gmax = float(np.abs(np.column_stack(_grads(arm, u))[arm.free]).max())
    fscale = max(_young(arm) * float(np.max(dV / V0)) * gmax,
                 roundoff_floor(arm.model, _modulus(arm)))
    scale = np.concatenate([_scales(arm, fscale), np.maximum(dV, 64 * _EPS * V0)])
    free = np.concatenate([arm.free, n + np.arange(m)])

    def residual(z, target):
        u, p = z[:n], z[n:]
        return np.concatenate([_gradient(arm, u, p), target - _volumes(arm, u)])

    def solve_at(lam, z, admissible):
        target = V0 + lam * (Vbar - V0)
        floor = np.concatenate([_floors(arm, z[:n], z[n:]), 64 * _EPS * V0])
        return newton_solve(lambda z: (residual(z, target),
                                       lambda: _volume_jacobian(arm, z[:n], z[n:]).tocsr()),
                            z, tol, maxiter, max_backtracks=29,
                            where="pneumatic.volume_static", accept="none", scale=scale,
                            floor=floor, roundoff="residual", free=free,
                            admissible=lambda z: admissible(z[:n]))

    def path_of(lam, states, iterations):
        Z = np.array(states)
        return _path(arm, lam, Z[:, n:], Z[:, :n], iterations)

    z0 = np.concatenate([u, np.zeros(m)])
    return _follow(arm, solve_at, z0, steps, "pneumatic.volume_static", path_of)


def gas_static(arm, amount, ambient=0.0, steps=10, tol=1e-10, maxiter=30, u0=None):
    r"""Equilibria of an enclosed isothermal gas as its amount ``n = nRT`` grows to ``amount``.

    The amount moves linearly from ``ambient V(u0)`` (zero gauge pressure) to ``amount``;
    each step is Newton on :func:`gas_gradient` with the tangent :func:`gas_hessian`
    (the rank-one p-V terms included; sparse LU), a step accepted when it lowers the gas
    potential or the residual (displacement bodies), cut back as in
    :func:`pressure_static`; an increment that fails is cut and re-grown.

    Returns
    -------
    Path (``pressures`` the gauge pressures ``n / V - ambient``)

    Raises
    ------
    ValueError
        A bad argument, named.
    lib.core.errors.SolveError
        As :func:`pressure_static`, the converged part as its ``path``.

    Examples
    --------
    >>> arm = make_arm(24, 4, "T3")
    >>> path = gas_static(arm, 0.15, ambient=1.0, steps=2)
    >>> bool(0 < path.pressures[-1, 0] < 0.2)          # the gas expands: below 0.15/0.125 - 1
    True
    """
    _check_arm(arm)
    n = _per_cavity(arm, amount, "amount", positive=True)
    pa = checks.nonnegative(ambient, "ambient")
    steps, tol, maxiter = _options(steps, tol, maxiter)
    u = _start(arm, u0)
    V0 = _positive_volumes(arm, u, "u0")
    n0 = pa * V0
    scale = _scales(arm, _force_scale(arm, n / V0 - pa, u))

    def solve_at(lam, u, admissible):
        nl = n0 + lam * (n - n0)

        def fun(u):
            V = _volumes(arm, u)
            return _gradient(arm, u, nl / V - pa), lambda: _gas_hessian(arm, u, nl, pa, V)

        def energy(v):                            # the gas potential (displacement bodies)
            return (_solid_energy(arm, v) - float(nl @ np.log(_volumes(arm, v)))
                    + pa * float(_volumes(arm, v).sum()))

        mixed = arm.body is not None
        return newton_solve(fun, u, tol, maxiter, max_backtracks=29,
                            where="pneumatic.gas_static",
                            accept="none" if mixed else "energy-or-residual",
                            energy=None if mixed else energy, scale=scale,
                            floor=_floors(arm, u, n / V0 - pa), roundoff="residual",
                            free=arm.free, admissible=admissible)

    def path_of(lam, states, iterations):
        P = np.array([(n0 + lk * (n - n0)) / _volumes(arm, uk) - pa
                      for lk, uk in zip(lam, states)])
        return _path(arm, lam, P, states, iterations)

    return _follow(arm, solve_at, u, steps, "pneumatic.gas_static", path_of)


def stored_energy(arm, u):
    """The solid's stored energy ``W(u)`` (no pressure term): :func:`lib.fem.strain_energy`,
    or the saddle functional :func:`lib.incompressible.energy` of a mixed body.

    >>> arm = make_arm(24, 4, "T3")
    >>> stored_energy(arm, np.zeros(arm.n_dofs))
    0.0
    """
    _check_arm(arm)
    return _solid_energy(arm, _u(arm, u))


def pressure_work(path):
    r"""``int sum_k p_k dV_k`` along a path by the trapezoid rule in ``V`` (second order in
    the step): equals the stored energy ``W(u_end) - W(u_0)`` of a quasi-static path up to
    that quadrature error.

    >>> arm = make_arm(24, 4, "T3")
    >>> path = pressure_static(arm, 0.02, steps=8)
    >>> W = stored_energy(arm, path.states[-1])
    >>> bool(abs(pressure_work(path) - W) < 1e-3 * W)
    True
    """
    checks.kind(path, "path", Path, "a load path (lib.pneumatic.Path, made by pressure_static, "
                                    "volume_static or gas_static)")
    P, V = path.pressures, path.volumes
    return float(np.sum(0.5 * (P[1:] + P[:-1]) * np.diff(V, axis=0)))


@dataclass(frozen=True)
class Slopes:
    """Small-load slopes at the undeformed arm, every cavity at the same pressure.

    Attributes
    ----------
    angle_per_pressure : d(tip angle)/dp (rad per unit pressure, pressure in units of E).
    volume_per_pressure : d(sum_k V_k)/dp.
    angle_per_volume : d(tip angle)/d(sum_k V_k) (rad per unit area).
    """

    angle_per_pressure: float
    volume_per_pressure: float
    angle_per_volume: float


def bending_slopes(arm):
    r"""Tip angle per unit pressure and per unit volume change at ``u = 0`` (linearised).

    ``K_0 w = g_0`` on the free dofs (``K_0`` the tangent at rest, ``g_0 = sum_k C_k X``
    the load of a unit pressure in every cavity), then ``dtheta/dp = theta'(0) . w``,
    ``dV/dp = g_0 . w`` and ``dtheta/dV = (dtheta/dp) / (dV/dp)``.

    >>> s = bending_slopes(make_arm(24, 4, "T3"))
    >>> round(s.angle_per_pressure, 3), round(s.angle_per_volume, 3)
    (-0.772, -0.394)
    """
    _check_arm(arm)
    u, fr = np.zeros(arm.n_dofs), arm.free
    g0 = np.sum(_grads(arm, u), axis=0)
    K = _solid_hessian(arm, u)[fr][:, fr]
    w = np.zeros(arm.n_dofs)
    w[fr] = linalg.solve(K, g0[fr], where="pneumatic.bending_slopes: K_0")
    dth = float(_tip_angle_gradient(arm, u) @ w)
    dV = float(g0 @ w)
    return Slopes(dth, dV, dth / dV)
