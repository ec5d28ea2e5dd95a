r"""The contact chapter's cases run in PyElastica 1.0 and in MuJoCo 3.17 (real codes, not emulations).

Nothing here re-implements the other codes: each function builds the case in the other
code's own terms, advances it with that code's own time stepper and contact model, and
reads back what it computed.  The physical case is the book's (:mod:`lib.contact`):
the validation rod (m = 1 kg, L = 1 m, r = 0.025 m, E = 1 MPa, G = E/3) with the friction
coefficients of PyElastica's validation suite, and PyElastica's continuum snake.

PyElastica 1.0
    ``CosseratRod.straight_rod`` along +z with normal +y, ``GravityForces``,
    ``UniformForces`` for the axial pull, a ``Plane`` and
    ``detect_contact_between(rod, plane).using(RodPlaneContactWithAnisotropicFriction, ...)``
    (its spring-dashpot normal force plus a force-balance response, its slip function,
    its force-capped static friction), ``MuscleTorques`` for the snake,
    ``AnalyticalLinearDamper``, ``PositionVerlet``.  The incline tilts the plane
    (PyElastica's own set-up).
MuJoCo 3.17
    the composite ``cable`` (``mujoco.elasticity.cable`` plugin: capsule segments joined
    by ball joints with bending and twist springs, a free first body) on a ``plane``
    geom, soft contacts with one friction coefficient per contact (``condim=3``, no
    static/kinetic distinction, no anisotropy), ``implicitfast``; the incline tilts
    gravity; the pull is ``xfrc_applied`` in proportion to the body masses.  The
    capsules' masses are rescaled to a total of 1 kg.

The heavy imports happen inside the functions.  Wall times are measured around the
other code's time loop only.

Examples
--------
>>> r = elastica_drag(2 * 0.8 * 9.80665, n_elem=10, dt=2e-4, time=0.02)
>>> r["steps"], r["energy"] > 0
(100, True)
"""
from __future__ import annotations

import math
import time as _time
from functools import lru_cache

import numpy as np

from ..core import checks
from .. import contact as C
from ._common import cable_mjcf

__all__ = ["elastica_drag", "elastica_rolling", "elastica_drop", "elastica_snake",
           "elastica_contact_parameters", "mujoco_xml", "mujoco_drag", "mujoco_rolling",
           "mujoco_drop", "largest_step"]

#: PyElastica's contact parameters in its friction validation examples
ELASTICA_CONTACT = {"k": 10.0, "nu": 1e-4, "slip_velocity_tol": 1e-4}


def elastica_contact_parameters():
    """The spring k (N/m), damping nu (N s/m) and slip tolerance (m/s) PyElastica's examples use.

    >>> elastica_contact_parameters()["slip_velocity_tol"]
    0.0001
    """
    return dict(ELASTICA_CONTACT)


def _check_steps(dt, t_end):
    """``(dt, n)``: ``t_end`` (the argument ``time``) a whole number of steps ``dt``."""
    return checks.step_count(dt, t_end, t_name="time")


def _contact(contact):
    """None (PyElastica's example parameters) or a dict k, nu, slip_velocity_tol."""
    if contact is None:
        return dict(ELASTICA_CONTACT)
    if not (isinstance(contact, dict) and set(contact) == set(ELASTICA_CONTACT)):
        raise ValueError(f"contact must be None or a dict with keys k, nu, slip_velocity_tol, "
                         f"got {checks.show(contact)}")
    return {k: (checks.nonnegative if k == "nu" else checks.positive)(v, f"contact[{k!r}]")
            for k, v in contact.items()}


def _incline(alpha):
    return checks.real(alpha, "alpha", 0.0, math.pi / 2, include_high=False)


@lru_cache(maxsize=1)
def _simulator_class():
    import elastica as ea

    class ContactSimulator(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Contact,
                           ea.Damping):
        """A PyElastica collection with forcing, contact and damping."""

    return ContactSimulator


def _elastica_rod(n_elem, length=1.0, radius=0.025, mass=1.0, E=1e6, G=None,
                  start=(0.0, 0.0, 0.0), direction=(0.0, 0.0, 1.0), normal=(0.0, 1.0, 0.0)):
    import elastica as ea

    n_elem = checks.integer(n_elem, "n_elem", low=2)
    area = math.pi * radius**2
    return ea.CosseratRod.straight_rod(
        n_elem, np.asarray(start, dtype=float), np.asarray(direction, dtype=float),
        np.asarray(normal, dtype=float), length, radius, mass / (length * area),
        youngs_modulus=E, shear_modulus=E / 3.0 if G is None else G)


def _elastica_run(sim, rod, dt, nsteps, observe=None):
    import elastica as ea

    sim.finalize()
    stepper = ea.PositionVerlet()
    t = np.float64(0.0)
    t0 = _time.perf_counter()
    for k in range(nsteps):
        t = stepper.step(sim, t, np.float64(dt))
        if observe is not None:
            observe(k + 1)
    wall = _time.perf_counter() - t0
    finite = bool(np.all(np.isfinite(rod.position_collection)) and
                  np.all(np.isfinite(rod.velocity_collection)))
    return wall, finite


def _friction_case(n_elem, plane_normal, contact, pull=0.0, pull_first=True, **placement):
    """Rod, gravity, the pull (``UniformForces``) and the plane contact, in PyElastica's order.

    PyElastica's force-capped static friction reads the forces accumulated on the rod
    *when the contact is applied*: a pull registered after the contact is not seen by it
    (``pull_first=False`` shows what that does).
    """
    import elastica as ea

    V = C.VALIDATION
    sim = _simulator_class()()
    rod = _elastica_rod(n_elem, V["length"], V["radius"], V["mass"], **placement)
    sim.append(rod)
    sim.add_forcing_to(rod).using(ea.GravityForces,
                                  acc_gravity=np.array([0.0, -C.GRAVITY, 0.0]))

    def add_pull():
        if pull:
            sim.add_forcing_to(rod).using(ea.UniformForces, force=pull,
                                          direction=np.array([0.0, 0.0, 1.0]))

    if pull_first:
        add_pull()
    n = np.asarray(plane_normal, dtype=float)
    plane = ea.Plane(plane_origin=-V["radius"] * n, plane_normal=n)
    sim.append(plane)
    p = _contact(contact)
    sim.detect_contact_between(rod, plane).using(
        ea.RodPlaneContactWithAnisotropicFriction, k=p["k"], nu=p["nu"],
        slip_velocity_tol=p["slip_velocity_tol"], static_mu_array=np.array(V["static"]),
        kinetic_mu_array=np.array(V["kinetic"]))
    if not pull_first:
        add_pull()
    return sim, rod


def elastica_drag(force, n_elem=10, dt=1e-4, time=None, contact=None, pull_first=True):
    """The axial drag case in PyElastica: a uniform pull ``force`` (N, + = along the tangent +z).

    The pull is registered before the contact, as in PyElastica's example
    (``pull_first=False``: after it, where its static friction does not see the pull).

    Returns
    -------
    dict: ``energy`` translational and ``rotational`` kinetic energy at T (J), ``exact``
    (:func:`lib.contact.axial_drag_energy`), ``creep`` the displacement of the centre of
    mass along +z over the second half (m), ``wall`` (s), ``steps``, ``finite``.
    """
    import elastica as ea

    V = C.VALIDATION
    T = V["time"] if time is None else time
    dt, nsteps = _check_steps(dt, T)
    F = checks.real(force, "force")
    sim, rod = _friction_case(n_elem, [0.0, 1.0, 0.0], contact, pull=F,
                              pull_first=checks.boolean(pull_first, "pull_first"))
    half = {}

    def observe(k):
        if k == nsteps // 2:
            half["com"] = rod.compute_position_center_of_mass().copy()

    wall, finite = _elastica_run(sim, rod, dt, nsteps, observe)
    fwd = F >= 0
    exact = C.axial_drag_energy(F, T, V["mass"], V["static"][0 if fwd else 1],
                                V["kinetic"][0 if fwd else 1])
    return {"energy": float(rod.compute_translational_energy()),
            "rotational": float(rod.compute_rotational_energy()), "exact": exact,
            "creep": float(rod.compute_position_center_of_mass()[2] - half["com"][2]),
            "wall": wall, "steps": nsteps, "finite": finite}


def elastica_rolling(alpha, n_elem=10, dt=1e-4, time=None, contact=None):
    """The rolling case in PyElastica: its own tilted plane, normal (sin a, cos a, 0).

    Returns
    -------
    dict: ``translational``, ``rotational`` (J), ``exact`` (the pair of
    :func:`lib.contact.rolling_energies`), ``rolls``, ``wall``, ``steps``, ``finite``.
    """
    V = C.VALIDATION
    T = V["time"] if time is None else time
    dt, nsteps = _check_steps(dt, T)
    a = _incline(alpha)
    sim, rod = _friction_case(n_elem, [math.sin(a), math.cos(a), 0.0], contact)
    wall, finite = _elastica_run(sim, rod, dt, nsteps)
    Et, Er, rolls = C.rolling_energies(a, T, V["mass"], V["radius"], V["static"][2],
                                       V["kinetic"][2])
    return {"translational": float(rod.compute_translational_energy()),
            "rotational": float(rod.compute_rotational_energy()), "exact": (Et, Er),
            "rolls": rolls, "wall": wall, "steps": nsteps, "finite": finite}


def elastica_drop(n_elem=10, dt=1e-4, time=0.25, height=0.01, tilt=0.02, damping=2.0,
                  contact=None):
    """The rest case in PyElastica: the rod, tilted by ``tilt``, dropped from ``height``.

    ``contact`` (a dict k, nu, slip_velocity_tol) replaces the example's parameters: its
    k = 10 N/m is made for resting contact, and an impact sinks the rod (its force
    balance cancels the push into the plane, not the momentum).

    Its ``AnalyticalLinearDamper`` (``uniform_damping_constant = damping``) stands for the
    book's rod damping.  The contact force on each node at the end is read from the
    external forces PyElastica accumulated in the last step, minus gravity.

    Returns
    -------
    dict: ``normal`` the node contact forces along +y over the node weights (N + 1),
    ``penetration`` the deepest element penetration over the run (m), ``speed`` the
    largest final node speed (m/s), ``wall``, ``steps``, ``finite``.
    """
    import elastica as ea

    V = C.VALIDATION
    dt, nsteps = _check_steps(dt, time)
    height, damping = checks.nonnegative(height, "height"), checks.nonnegative(damping, "damping")
    tilt = checks.real(tilt, "tilt")
    c, s_ = math.cos(tilt), math.sin(tilt)
    sim, rod = _friction_case(n_elem, [0.0, 1.0, 0.0], contact, start=(0.0, height, 0.0),
                              direction=(0.0, s_, c), normal=(0.0, c, -s_))
    sim.dampen(rod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=damping,
                          time_step=dt)
    worst = [0.0]

    def observe(k):
        y = 0.5 * (rod.position_collection[1, 1:] + rod.position_collection[1, :-1])
        worst[0] = max(worst[0], float(-y.min()))          # the gap is y (plane at y = -r)

    wall, finite = _elastica_run(sim, rod, dt, nsteps, observe)
    weight = rod.mass * C.GRAVITY
    contact_y = rod.external_forces[1] + weight
    return {"normal": contact_y / weight, "penetration": max(worst[0], 0.0),
            "speed": float(np.sqrt(np.sum(rod.velocity_collection**2, axis=0)).max()),
            "wall": wall, "steps": nsteps, "finite": finite}


def elastica_snake(n_elem=10, periods=2.0, dt=5e-4, inertia_scale=100.0, ratios=(1.0, 1.5, 2.0),
                   record_every=None):
    """PyElastica's continuum snake with the book's gait (:func:`lib.contact.snake_gait`).

    Its example's rod, ``MuscleTorques`` with the spline, ``AnalyticalLinearDamper``
    (``damping_constant = 2e-3``), ``RodPlaneContactWithAnisotropicFriction`` with
    k = 1, nu = 1e-6, slip tolerance 1e-8 and zero static coefficients; the rotary inertia
    multiplied by ``inertia_scale`` before ``finalize`` (as :func:`lib.contact.snake_rod`).

    Returns
    -------
    dict: ``speed`` (:func:`lib.contact.snake_speed`, m/s), ``t``, ``com`` (n_t, 3),
    ``wall``, ``steps``, ``finite``.
    """
    import elastica as ea

    gait = C.snake_gait(ratios=ratios)
    ref = C.snake_rod(checks.integer(n_elem, "n_elem", low=2), inertia_scale)
    T = checks.positive(periods, "periods") * gait.period
    dt, nsteps = _check_steps(dt, T)
    sim = _simulator_class()()
    rod = _elastica_rod(n_elem, ref.L, ref.radius, ref.rhoA * ref.L, 1e6, 1e6 / 1.5)
    k = checks.positive(inertia_scale, "inertia_scale")
    rod.mass_second_moment_of_inertia[:] *= k
    rod.inv_mass_second_moment_of_inertia[:] /= k
    sim.append(rod)
    sim.add_forcing_to(rod).using(ea.GravityForces,
                                  acc_gravity=np.array([0.0, -C.GRAVITY, 0.0]))
    sim.add_forcing_to(rod).using(
        ea.MuscleTorques, base_length=ref.L, b_coeff=np.array(gait.coefficients),
        period=gait.period, wave_number=2.0 * np.pi / gait.wave_length, phase_shift=0.0,
        rest_lengths=rod.rest_lengths, ramp_up_time=gait.ramp_up,
        direction=np.array(gait.direction), with_spline=True)
    plane = ea.Plane(plane_origin=np.array([0.0, -ref.radius, 0.0]),
                     plane_normal=np.array([0.0, 1.0, 0.0]))
    sim.append(plane)
    mu = ref.L / (gait.period**2 * C.GRAVITY * gait.froude) * np.asarray(gait.ratios)
    sim.detect_contact_between(rod, plane).using(
        ea.RodPlaneContactWithAnisotropicFriction, k=1.0, nu=1e-6, slip_velocity_tol=1e-8,
        static_mu_array=np.zeros(3), kinetic_mu_array=mu)
    sim.dampen(rod).using(ea.AnalyticalLinearDamper, damping_constant=2e-3, time_step=dt)
    every = (max(1, int(round(0.01 / dt))) if record_every is None
             else checks.integer(record_every, "record_every", low=1))
    ts, coms = [0.0], [rod.compute_position_center_of_mass().copy()]

    def observe(k):
        if k % every == 0 or k == nsteps:
            ts.append(k * dt)
            coms.append(rod.compute_position_center_of_mass().copy())

    wall, finite = _elastica_run(sim, rod, dt, nsteps, observe)
    t, com = np.array(ts), np.array(coms)
    return {"speed": C.snake_speed(t, com, gait.period), "t": t, "com": com, "wall": wall,
            "steps": nsteps, "finite": finite}


# --------------------------------------------------------------------------------------
# MuJoCo 3.17: the cable on a plane
# --------------------------------------------------------------------------------------
def mujoco_xml(segments=10, mu=0.4, dt=1e-4, gravity=(0.0, 0.0, -C.GRAVITY), height=0.0,
               cone="pyramidal"):
    """MJCF of the validation rod as a free MuJoCo cable lying on the plane z = 0.

    ``segments`` capsules of radius 0.025 m along +x (``count = segments + 1``), the
    plugin's ``bend`` = E = 1 MPa and ``twist`` = G = E/3, one friction coefficient ``mu``
    on the floor and the capsules (MuJoCo mixes by the maximum), ``condim = 3``.

    >>> 'initial="free"' in mujoco_xml()
    True
    """
    segments = checks.integer(segments, "segments", low=3)
    mu = checks.nonnegative(mu, "mu")
    dt = checks.positive(dt, "dt")
    checks.choice(cone, "cone", ("pyramidal", "elliptic"))
    g = [float(x) for x in checks.vector(gravity, "gravity", 3)]
    height = checks.nonnegative(height, "height")
    r, E = C.VALIDATION["radius"], 1e6
    return cable_mjcf(
        "rod-on-plane", f'timestep="{dt!r}" gravity="{g[0]!r} {g[1]!r} {g[2]!r}" '
        f'integrator="implicitfast" cone="{cone}"', segments,
        f'size="1" offset="0 0 {r + height!r}" initial="free"', E / 3.0, E,
        f'type="capsule" size="{r!r}" density="1000" friction="{mu!r} 0 0" condim="3"',
        floor=f'\n    <geom name="floor" type="plane" size="5 5 0.1" friction="{mu!r} 0 0" '
              f'condim="3"/>')


def _mujoco_model(segments, mu, dt, gravity, height=0.0):
    import mujoco

    model = mujoco.MjModel.from_xml_string(mujoco_xml(segments, mu, dt, gravity, height))
    bodies = np.flatnonzero(model.body_mass > 0)
    scale = C.VALIDATION["mass"] / model.body_mass[bodies].sum()
    model.body_mass[bodies] *= scale
    model.body_inertia[bodies] *= scale
    return model, mujoco.MjData(model), bodies


def _mujoco_energies(model, data, bodies):
    import mujoco

    Et = Er = 0.0
    v = np.zeros(6)
    for b in bodies:
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, b, v, 0)
        Et += 0.5 * model.body_mass[b] * float(v[3:] @ v[3:])
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, b, v, 1)
        Er += 0.5 * float(model.body_inertia[b] @ v[:3] ** 2)
    return Et, Er


def _mujoco_com(model, data, bodies):
    m = model.body_mass[bodies]
    return (m[:, None] * data.xipos[bodies]).sum(axis=0) / m.sum()


def _mujoco_loop(model, data, nsteps, observe=None):
    import mujoco

    mujoco.mj_forward(model, data)
    t0 = _time.perf_counter()
    for k in range(nsteps):
        mujoco.mj_step(model, data)
        if observe is not None:
            observe(k + 1)
    wall = _time.perf_counter() - t0
    mujoco.mj_forward(model, data)
    return wall, bool(np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel)))


def mujoco_drag(force, mu, segments=10, dt=1e-4, time=None):
    """The axial drag case on MuJoCo's cable, friction coefficient ``mu`` (MuJoCo has one).

    Returns a dict as :func:`elastica_drag` (``creep`` along the cable, +x).
    """
    V = C.VALIDATION
    T = V["time"] if time is None else time
    dt, nsteps = _check_steps(dt, T)
    F = checks.real(force, "force")
    model, data, bodies = _mujoco_model(segments, mu, dt, (0.0, 0.0, -C.GRAVITY))
    data.xfrc_applied[bodies, 0] = F * model.body_mass[bodies] / model.body_mass[bodies].sum()
    half = {}

    def observe(k):
        if k == nsteps // 2:
            half["com"] = _mujoco_com(model, data, bodies)

    wall, finite = _mujoco_loop(model, data, nsteps, observe)
    Et, Er = _mujoco_energies(model, data, bodies)
    fwd = F >= 0
    exact = C.axial_drag_energy(F, T, V["mass"], V["static"][0 if fwd else 1],
                                V["kinetic"][0 if fwd else 1])
    return {"energy": Et, "rotational": Er, "exact": exact,
            "creep": float(_mujoco_com(model, data, bodies)[0] - half["com"][0]),
            "wall": wall, "steps": nsteps, "finite": finite}


def mujoco_rolling(alpha, mu, segments=10, dt=1e-4, time=None):
    """The rolling case on MuJoCo's cable: gravity tilted by ``alpha`` about the cable's axis.

    Returns
    -------
    dict: ``translational``, ``rotational`` (J), ``exact`` (the pair of
    :func:`lib.contact.rolling_energies`), ``rolls``, ``inertia_ratio`` the capsules' axial
    moment of inertia as MuJoCo computed it (from the capsule geoms, caps included) over
    the cylinder's :math:`mr^2/2`, ``wall``, ``steps``, ``finite``.
    """
    V = C.VALIDATION
    T = V["time"] if time is None else time
    dt, nsteps = _check_steps(dt, T)
    a = _incline(alpha)
    g = C.GRAVITY * np.array([0.0, math.sin(a), -math.cos(a)])
    model, data, bodies = _mujoco_model(segments, mu, dt, g)
    wall, finite = _mujoco_loop(model, data, nsteps)
    Et, Er = _mujoco_energies(model, data, bodies)
    ex_t, ex_r, rolls = C.rolling_energies(a, T, V["mass"], V["radius"], V["static"][2],
                                           V["kinetic"][2])
    axial = model.body_inertia[bodies].min(axis=1)          # the smallest: about the axis
    ratio = float(axial.sum() / (0.5 * model.body_mass[bodies].sum() * V["radius"] ** 2))
    return {"translational": Et, "rotational": Er, "exact": (ex_t, ex_r), "rolls": rolls,
            "inertia_ratio": ratio, "wall": wall, "steps": nsteps, "finite": finite}


def mujoco_drop(mu=0.4, segments=10, dt=1e-4, time=0.25, height=0.01):
    """The rest case on MuJoCo's cable: dropped flat from ``height``.

    Returns
    -------
    dict: ``normal`` each body's contact normal force over its weight, ``penetration``
    the deepest contact penetration over the run (m), ``speed``, ``wall``, ``steps``,
    ``finite``.
    """
    import mujoco

    dt, nsteps = _check_steps(dt, time)
    model, data, bodies = _mujoco_model(segments, mu, dt, (0.0, 0.0, -C.GRAVITY), height)
    worst = [0.0]

    def observe(k):
        if data.ncon:
            worst[0] = max(worst[0], float(-data.contact.dist[:data.ncon].min()))

    wall, finite = _mujoco_loop(model, data, nsteps, observe)
    fn = np.zeros(model.nbody)
    f6 = np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, f6)
        c = data.contact[i]
        for geom in (c.geom1, c.geom2):
            b = model.geom_bodyid[geom]
            if b in bodies:
                fn[b] += f6[0]
    weight = model.body_mass[bodies] * C.GRAVITY
    return {"normal": fn[bodies] / weight, "penetration": max(worst[0], 0.0),
            "speed": float(np.abs(data.qvel).max()), "wall": wall, "steps": nsteps,
            "finite": finite}


def largest_step(run, steps, accept):
    """The largest of ``steps`` (ascending) at which ``accept(run(dt))`` holds, and the results.

    Stops at the first step that fails or blows up (a ``RuntimeError`` or
    ``FloatingPointError``); returns ``(dt_max or None, results)`` with ``results`` a list
    of ``(dt, result or the exception text)``.  A ``ValueError`` is not a blow-up: a step
    the case refuses (one that does not divide its time span, say) is a bad ladder, and it
    propagates instead of passing for the stability limit.

    >>> largest_step(lambda dt: dt, [1, 2, 3, 4], lambda r: r < 3)[0]
    2
    """
    checks.function(run, "run"), checks.function(accept, "accept")
    if np.any(np.diff(checks.vector(steps, "steps", nonempty=True, low=0.0,
                                    include_low=False)) <= 0):
        raise ValueError(f"steps must be ascending, got {checks.show(steps)}")
    best, out = None, []
    for dt in steps:
        try:
            r = run(dt)
        except (RuntimeError, FloatingPointError) as exc:
            out.append((dt, str(exc)))
            break
        out.append((dt, r))
        if not accept(r):
            break
        best = dt
    return best, out
