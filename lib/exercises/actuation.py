"""Answers to the exercises of the *Actuation* chapter (see :mod:`lib.exercises`).

The cavity exercise (a closed pressurised contour gives a symmetric load stiffness)
is a proof whose numerical confirmation agrees to round-off; it is discussed, not
checked.

Examples
--------
>>> from lib.exercises import check
>>> check("actuation-taper", [0.0031, 0.000075]).hint   # fractions, not percent
'percent'
"""
import functools

import numpy as np

from lib import actuation as ac
from lib import rod as rd
from lib.exercises import exercise

D = 0.03          # the chapter's tendon offset
TAU_F = 60.0      # the chapter's tip-tendon tension in the dynamic runs
TMAX = 30.0       # the motor limit of the unreachable example


@exercise("actuation-taper", rtol=1e-2,
          text="largest curvature deviation in percent of the peak curvature, "
               "array [naive tau d/EI, with 1/sqrt(1 + d'^2)]")
def taper_deviations():
    """Joint curvatures of a 160-element rod with a tendon tapering from d = 0.04 to
    -0.04 at tau = 10, against tau d(s)/EI with and without the slope factor."""
    r = rd.make_rod(160)
    q = ac.static(r, [ac.make_tendon(r, 0.04, offset_end=-0.04)], [10.0], steps=2)
    s = np.arange(1, 160) * r.ell
    kappa = np.diff(q[0::3]) / r.ell
    naive = 10.0 * (0.04 - 0.08 * s)
    slope = naive / np.sqrt(1 + 0.08 ** 2)
    peak = np.abs(naive).max()
    return 100 * np.array([np.abs(kappa - naive).max(), np.abs(kappa - slope).max()]) / peak


@exercise("actuation-buckle", rtol=1e-3,
          text="smallest eigenvalue of the tangent K at tau = P = pi^2/2 (40 elements), "
               "array [centreline tendon, dead tip load]")
def buckling_eigenvalues():
    r = rd.make_rod(40)
    tau = 2 * np.pi ** 2 / 4
    t0 = ac.make_tendon(r, 0.0)
    q_t = ac.static(r, [t0], [tau], steps=2)
    lam_tendon = np.linalg.eigvalsh(ac.hessian(r, q_t, [t0], [tau]).toarray())[0]
    q_dead = rd.straight(r)
    q_dead[1::3] *= 1 - tau / r.EA          # the compressed straight state
    lam_dead = np.linalg.eigvalsh(rd.hessian(r, q_dead).toarray())[0]
    return np.array([lam_tendon, lam_dead])


@functools.lru_cache(maxsize=1)
def _unreachable():
    """The distance and multiplier at tau_max = 30, and the distance solved at 31 (computed
    once: the answer and both slips are built from it)."""
    r = rd.make_rod(20)
    tip = ac.make_tendon(r, D)
    target = np.array(rd.tip(r, ac.static(r, [tip], [50.0])))[:2]
    far = ac.inverse(r, [tip], target, tau_max=TMAX)
    real = ac.inverse(r, [tip], target, tau_max=TMAX + 1.0).distance
    return far.distance, far.multipliers[0], real


def _linearised_distance():
    """The slip: the distance itself linearised, d - lambda / d (the multiplier is the
    sensitivity of d^2 / 2, so this is first order too, but not the chapter's
    prediction, and 1.4e-3 away from it)."""
    d, lam, real = _unreachable()
    return np.array([d - lam / d, real])


def _multiplier_as_distance_slope():
    """The slip: the multiplier taken as the slope of the distance, d - lambda."""
    d, lam, real = _unreachable()
    return np.array([d - lam, real])


@exercise("actuation-lambda", rtol=2e-4,
          text="distance to the target with tau_max = 31, array [first-order prediction, solved]",
          slips={
              "linearised distance": (_linearised_distance,
                                      "the distance itself linearised (d - lambda/d); the "
                                      "multiplier is the sensitivity of d^2/2, so linearise "
                                      "that: sqrt(d^2 - 2 lambda)"),
              "multiplier slope": (_multiplier_as_distance_slope,
                                   "d - lambda takes the multiplier as the slope of the "
                                   "distance; it is the slope of d^2/2"),
          })
def raised_limit_distance():
    r"""$\sqrt{d(30)^2 - 2\lambda}$ from the multiplier of the active limit (the first-order
    change of $d^2/2$), and the distance :func:`lib.actuation.inverse` finds with the raised
    limit."""
    d, lam, real = _unreachable()
    return np.array([np.sqrt(max(d ** 2 - 2 * lam, 0.0)), real])


@exercise("actuation-ramp", rtol=2e-2, atol=0.5,
          text="largest tip angle over the final static one, minus 1, in percent, "
               "array for T_r/T_1 = 0.25, 0.5, 1, 2 (10 elements)")
def ramp_overshoots():
    """Tip-tendon ramps to tau = 60 on a 10-element rod, run 1.5 T_1 past the ramp
    (rounded to a whole number of steps, half a step down for T_r = T_1/4) with steps
    of T_1 / 30."""
    r = rd.make_rod(10)
    t = ac.make_tendon(r, D)
    T1 = 2 * np.pi / rd.frequencies(r, 1)[0]
    static = rd.tip(r, ac.static(r, [t], [TAU_F]))[2]
    out = []
    for k in (0.25, 0.5, 1.0, 2.0):
        steps = round((k + 1.5) * 30)
        _, Q, _ = ac.ramp_response(r, [t], [TAU_F], k * T1, steps * (T1 / 30), T1 / 30)
        out.append(100 * (max(rd.tip(r, q)[2] for q in Q) / static - 1))
    return np.array(out)


# -- tendons as they are: capstan friction, a displacement-controlled cable ----------------
MU_EX = 0.3       # the friction exercise's coefficient
TAU_BIG = 1.3 * np.pi / D     # the large-stroke tension: tau d L / EI = 1.3 pi
G_CABLE = 3.0     # rho A g L^3 / EI of the cable section (EI = rho A = L = 1)
K_T = 1000.0      # the series spring of the cable section, EI / L^3


@functools.lru_cache(maxsize=1)
def _capstan():
    """The slipping tendon of the 40-element rod at TAU_BIG, mu = 0.3, and the frictionless
    tip angle (computed once)."""
    r = rd.make_rod(40)
    t = ac.make_tendon(r, D)
    q, seg = ac.friction_static(r, t, TAU_BIG, MU_EX, steps=10)
    tip0 = rd.tip(r, ac.static(r, [t], [TAU_BIG], steps=10))[2]
    return seg[-1] / seg[0], rd.tip(r, q)[2], tip0


def _capstan_naive():
    """The slip: exp(-mu * frictionless tip angle) for the distal share."""
    _, tip, tip0 = _capstan()
    return np.array([100 * np.exp(-MU_EX * tip0), np.degrees(tip)])


@exercise("actuation-capstan", rtol=2e-3,
          text="40-element rod, d = 0.03, tau_m d L / EI = 1.3 pi, mu = 0.3, loading: "
               "array [distal tension in percent of the motor's, tip angle in degrees]",
          slips={"frictionless wrap": (_capstan_naive,
                                       "exp(-mu * frictionless tip angle) takes the "
                                       "frictionless curl as the wrap; friction uncurls the "
                                       "rod, so solve shape and tensions together "
                                       "(ac.friction_static)")})
def capstan_distal():
    """``ac.friction_static`` at mu = 0.3: the last segment's tension over the motor's, and
    the tip angle."""
    ratio, tip, _ = _capstan()
    return np.array([100 * ratio, np.degrees(tip)])


@functools.lru_cache(maxsize=1)
def _levelling():
    """Strokes that bring the sagging tip to a zero angle (inextensible, with K_T), and the
    inextensible cable's tension there (computed once)."""
    from scipy.optimize import brentq

    r = rd.make_rod(40)
    t = ac.make_tendon(r, D)

    def angle(s, k):
        return rd.tip(r, ac.cable_stroke_static(r, t, s, stiffness=k, grav=G_CABLE, steps=5).q)[2]

    s_inext = brentq(angle, 0.0, 0.05, args=(None,), xtol=1e-13)
    tau = ac.cable_stroke_static(r, t, s_inext, grav=G_CABLE, steps=5).tension
    s_spring = brentq(angle, s_inext, s_inext + 2 * tau / K_T, args=(K_T,), xtol=1e-13)
    return s_inext, s_spring, tau


def _levelling_rigid():
    """The slip: all of the stroke into bending, s = s* - d phi_free (no axial shortening)."""
    r = rd.make_rod(40)
    t = ac.make_tendon(r, D)
    free = ac.cable_stroke_static(r, t, -1.0, grav=G_CABLE)
    s = free.switch_stroke - D * rd.tip(r, free.q)[2]
    s_inext, s_spring, tau = _levelling()
    return np.array([s, s + tau / K_T])


@exercise("actuation-stroke", rtol=1e-3,
          text="strokes s / L that bring the sagging tip (rho A g L^3 / EI = 3) to a zero angle, "
               "array [inextensible cable, series spring k_t = 1000 EI / L^3]",
          slips={"rigid rod": (_levelling_rigid,
                               "the stroke is not all bending: the rod shortens by about "
                               "tau L / EA under the cable's pull")})
def levelling_strokes():
    """Root of the tip angle in the stroke (brentq on ``ac.cable_stroke_static``), without
    and with the series spring; the second is the first plus tau / k_t."""
    s_inext, s_spring, _ = _levelling()
    return np.array([s_inext, s_spring])


# -- closed chambers: pressure and volume control ----------------------------------------
DV_CHAMBER = 0.01     # the syringe's volume change per chamber (area per unit thickness)


@functools.lru_cache(maxsize=1)
def _syringe():
    """The slope d(sum V)/dp of the 24 x 4 T6 PneuNet arm (nu = 0.3) and the multiplier of
    volume control at V_k = 0.125 + DV_CHAMBER in every chamber, averaged over the five
    (computed once)."""
    from lib import pneumatic as pn

    arm = pn.make_arm(24, 4, "T6")
    slope = pn.bending_slopes(arm).volume_per_pressure
    path = pn.volume_static(arm, 0.125 + DV_CHAMBER, steps=2)
    return slope, float(path.pressures[-1].mean())


def _syringe_per_chamber():
    """The slip: the per-chamber volume change over the slope of the *total* volume."""
    slope, solved = _syringe()
    return np.array([DV_CHAMBER / slope, solved])


@exercise("actuation-pneumatic", rtol=1e-3,
          text="pressure (units of E) for a volume change of 0.01 in each of the five chambers "
               "of make_arm(24, 4, 'T6'), array [linear prediction from bending_slopes, "
               "mean of the five multipliers of volume_static]",
          slips={"per chamber": (_syringe_per_chamber,
                                 "bending_slopes' volume_per_pressure is the change of the "
                                 "five chambers' total volume: divide the total change "
                                 "(5 x 0.01) by it")})
def syringe_pressure():
    r"""$p \approx 5\,\Delta V / (dV/dp)$ from the small-load slope of the total volume, and
    the mean of the pressures :func:`lib.pneumatic.volume_static` finds as the constraints'
    multipliers."""
    slope, solved = _syringe()
    return np.array([5 * DV_CHAMBER / slope, solved])


# -- the rod chamber calibrated on the FEM arm -------------------------------------------
@functools.lru_cache(maxsize=1)
def _rod_chamber_fit():
    """The rod chamber calibrated on the 48 x 8 T6 PneuNet arm (computed once)."""
    from lib import pneumatic as pn

    return ac.calibrate_chamber_rod(pn.make_arm(48, 8, "T6"))


def _continuum_volume_slope(offset):
    """dV/dp = A_c^2 L_c (1/EA + d^2/EI) of a uniform chamber of length L_c at offset d."""
    f = _rod_chamber_fit()
    span = f.span[1] - f.span[0]
    return f.area ** 2 * span * (1.0 / f.EA + offset ** 2 / f.EI)


def _rod_chamber_geometric():
    """The slip: the chambers' centroid height where the fitted moment arm is asked."""
    f = _rod_chamber_fit()
    return np.array([_continuum_volume_slope(f.offset_geometric), f.volume_per_pressure])


def _rod_chamber_discrete():
    """The slip: the discrete rod's dV/dp (ChamberFit.rod_volume_per_pressure) for the
    closed form."""
    f = _rod_chamber_fit()
    return np.array([f.rod_volume_per_pressure, f.volume_per_pressure])


@exercise("actuation-rodvolume", rtol=1e-3,
          text="volume per unit pressure (area per unit thickness, per unit p/E) of the rod "
               "chamber calibrated on make_arm(48, 8, 'T6'), array [closed form of the "
               "continuous rod over the chambers' span, the FEM arm's volume_per_pressure]",
          slips={"geometric offset": (_rod_chamber_geometric,
                                      "the chamber pushes at the fitted moment arm d_eff "
                                      "(ChamberFit.offset), not at the chambers' centroid "
                                      "height (offset_geometric)"),
                 "discrete rod": (_rod_chamber_discrete,
                                  "that is the discrete rod's slope (its end caps' joints "
                                  "carry half the moment); the closed form of the continuous "
                                  "rod is asked")})
def rod_chamber_volume_slopes():
    r"""The rod chamber's $dV/dp$ from $\kappa = -pA_cd_c/EI$ and $\varepsilon = pA_c/EA$
    over the chambers' span, beside the FEM arm's (not fitted)."""
    f = _rod_chamber_fit()
    return np.array([_continuum_volume_slope(f.offset), f.volume_per_pressure])
