"""Published numbers of the FEM chapter: result (5) of section 3.10.5.

Inputs unless a note says otherwise (they reproduce every static and modal
number): plane-strain cantilever L/h = 10 (L = 10, h = 1, unit thickness),
E = 1, rho = 1; nx x ny square cells, every cell cut along the same diagonal
(T6 = the same triangles with mid-side nodes); face x = 0 fully clamped; total
tip load as a uniform shear traction on x = L with consistent nodal loads;
deflection = plain mean of u_y over every node on x = L; theory =
Euler-Bernoulli with E' = E/(1 - nu^2), delta = P L^3/(3 E' I).  Frequencies:
consistent mass, nu = 0.3, ratios to Omega = 3.5160, 22.0345 with E'.
Computed by lib.fem in chapters/fem.ipynb.
"""
from lib.registry.entry import Published

_TIP = "linear tip deflection / (P L^3 / 3 E'I), in percent"
_FREQ = "error of the first (second) bending frequency against Euler-Bernoulli with E', nu = 0.3"
_DYN = ("large deformation: T6 10x1, nu = 0.3, static neo-Hookean shape under a dead tip "
        "shear alpha = P L^2/(E'I) = 1 (tip at 0.30 L), load removed, released at rest; "
        "Newmark beta = 1/4, gamma = 1/2 via lib.integrate.newmark_step, consistent mass, "
        "T1 = 2 pi / omega_1 of the linear FEM")

ENTRIES = {
    # ---- static tip deflection (locking) -----------------------------------------------
    "fem_t3_tip_nu03_20x2": Published(
        seed=52, unit="%", result=5, tol=0.5, status="reproduced",
        note=f"T3, nu = 0.3, 20x2: {_TIP}"),
    "fem_t3_tip_nu0499_20x2": Published(
        seed=2.3, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T3, nu = 0.499, 20x2: {_TIP}"),
    "fem_t3_tip_nu0499_40x4": Published(
        seed=5.2, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T3, nu = 0.499, 40x4: {_TIP}"),
    "fem_t6_tip_nu03_maxdev": Published(
        seed=1.0, unit="%", result=5, tol=0.0, status="reproduced", kind="upper",
        note="T6, nu = 0.3: largest |ratio - 1| over 10x1, 20x2, 40x4 (the seed: 'within 1 %'; "
             "the three deviations are -0.91, +0.16, +0.41 %)"),
    "fem_t6_tip_nu0499_10x1": Published(
        seed=85, unit="%", result=5, tol=0.5, status="reproduced",
        note=f"T6, nu = 0.499, 10x1: {_TIP}"),
    "fem_t6_tip_nu0499_40x4": Published(
        seed=98, unit="%", result=5, tol=0.5, status="reproduced",
        note=f"T6, nu = 0.499, 40x4: {_TIP}"),
    "fem_t6_ratio_40x4": Published(
        seed=1.0041, unit="", result=5, tol=0.00005, status="reproduced",
        note="T6, nu = 0.3, 40x4: tip deflection / Euler-Bernoulli (a ratio)"),
    "fem_t6_ratio_80x8": Published(
        seed=1.0048, unit="", result=5, tol=0.00005, status="reproduced",
        note="T6, nu = 0.3, 80x8 (the seed's fine reference, scikit-fem P2 80x8 in the seed): "
             "tip deflection / Euler-Bernoulli"),
    "fem_t6_40x4_vs_80x8": Published(
        seed=0.07, unit="%", result=5, tol=0.005, status="reproduced",
        note="T6, nu = 0.3: (ratio 80x8 / ratio 40x4 - 1) in percent; the seed says 'within "
             "0.07 %', the value is 0.073 %, so it is read as the rounded value"),
    "fem_t6_above_eb": Published(
        seed=0.5, unit="%", result=5, tol=0.05, status="reproduced",
        note="T6, nu = 0.3, 80x8: ratio - 1 in percent (the gap to Euler-Bernoulli that the seed "
             "leaves unexplained; the chapter splits it into +0.82 % shear deformation (Timoshenko "
             "theory: +0.84 %), -0.30 % from the fully clamped face (extrapolated to h -> 0 with "
             "the clamp-corner rate h^(2s), 2s = 1.42) and -0.04 % discretisation error at the "
             "singular clamp corners)"),
    # ---- frequencies -------------------------------------------------------------------
    "fem_t3_omega1_20x2": Published(
        seed=37.8, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T3 20x2: {_FREQ}"),
    "fem_t3_omega1_40x4": Published(
        seed=10.5, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T3 40x4: {_FREQ}"),
    "fem_t6_omega1_10x1": Published(
        seed=0.33, unit="%", result=5, tol=0.005, status="reproduced",
        note=f"T6 10x1: {_FREQ}"),
    "fem_t6_omega1_20x2": Published(
        seed=-0.38, unit="%", result=5, tol=0.005, status="reproduced",
        note=f"T6 20x2: {_FREQ}"),
    "fem_t6_omega2_10x1": Published(
        seed=-3.5, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T6 10x1, second mode: {_FREQ}"),
    "fem_t6_omega2_20x2": Published(
        seed=-4.9, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"T6 20x2, second mode: {_FREQ} (book -4.850, which rounds to -4.9)"),
    "fem_t6_20x2_vs_fine_omega1": Published(
        seed=2.2e-3, unit="rel", result=5, tol=0.05e-3, status="reproduced",
        note="|omega_1(T6 20x2) / omega_1(T6 80x8) - 1| (the seed's fine mesh is scikit-fem P2 "
             "80x8, the same discretisation)"),
    "fem_t6_20x2_vs_fine_omega2": Published(
        seed=2.8e-3, unit="rel", result=5, tol=0.05e-3, status="reproduced",
        note="|omega_2(T6 20x2) / omega_2(T6 80x8) - 1|"),
    # ---- derivative checks -------------------------------------------------------------
    "fem_force_fd": Published(
        seed=2e-10, unit="rel", result=5, tol=0.0, status="reproduced", kind="upper",
        note="max |f_int - FD gradient of the energy| / max |f_int| at the alpha = 1 static state "
             "of T6 10x1 (fourth-order central differences, h = 1e-4); the seed's bound"),
    "fem_tangent_fd": Published(
        seed=6e-9, unit="rel", result=5, tol=0.0, status="reproduced", kind="upper",
        note="max |K_T - FD Jacobian of f_int| / max |K_T| at the same state; the seed's bound"),
    # ---- time integration --------------------------------------------------------------
    "fem_newmark_closed_form": Published(
        seed=3e-12, unit="rel", result=5, tol=0.0, status="reproduced", kind="upper",
        note="linear T6 10x1, first mode as initial state, 20 steps of dt = T1/20 through "
             "lib.integrate.newmark_step; numerical frequency from the three-term recurrence of "
             "the modal amplitude, against tan(w_bar dt/2) = w dt/2"),
    "fem_newmark_freq_T20": Published(
        seed=0.8, unit="%", result=5, tol=0.05, status="reproduced",
        note="1 - w_bar/w at dt = T1/20 (the numerical frequency is 0.810 % low)"),
    "fem_newmark_energy_max": Published(
        seed=4.0, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"{_DYN}; dt = T1/20, max |E/E0 - 1| over two first periods (40 steps), E = strain "
             "+ kinetic energy. Reconstructed: the seed states alpha = 1 and 20 steps per period "
             "only; a T3 20x2 mesh or alpha with E instead of E' does not fit"),
    "fem_newmark_energy_end": Published(
        seed=3.6, unit="%", result=5, tol=0.05, status="reproduced",
        note=f"{_DYN}; dt = T1/20, E/E0 - 1 after the 40th step (t = 2 T1)"),
    "fem_newmark_tip_T20": Published(
        seed=1.5e-2, unit="rel", result=5, tol=0.05e-2, status="reproduced",
        note=f"{_DYN}; max |tip y (Newmark) - tip y (DOP853, rtol 1e-9)| / L over t <= T1/2, "
             "dt = T1/20. Reconstructed window: the seed gives no window; one or two periods "
             "give 1.8e-2 / 3.7e-2, only the first half period fits all three numbers"),
    "fem_newmark_tip_T40": Published(
        seed=5.8e-3, unit="rel", result=5, tol=0.1e-3, status="approximate",
        note="as fem_newmark_tip_T20 with dt = T1/40: the book's 5.850e-3 sits on the rounding "
             "boundary (it would print as 5.9e-3), so the agreement is only to 1e-4"),
    "fem_newmark_tip_T80": Published(
        seed=2.9e-3, unit="rel", result=5, tol=0.05e-3, status="reproduced",
        note="as fem_newmark_tip_T20 with dt = T1/80"),
    "fem_cd_peak_ratio": Published(
        seed=1.97, unit="", result=5, tol=0.03, status="approximate",
        note="central difference (lib.integrate.central_difference_step), linear T6 10x1, "
             "consistent mass, dt = 0.95 * 2/omega_max, tip load applied suddenly at rest: max "
             "tip deflection / static, over two first periods. The seed states neither mesh nor "
             "window; the ratio creeps from 1.948 (one period) towards 2 as the window grows "
             "(T3 20x2: 1.950-1.995), so it agrees only to about 0.03"),
    "fem_cd_divergence": Published(
        seed=7e81, unit="", result=5, tol=0.0, status="not-reproducible",
        note="the size a divergent run reaches is its growth per step to the power of an "
             "unstated step count. The book runs dt = 1.05 * 2/omega_max and shows the growth "
             "per step equals the amplification of the highest mode, 1.877 (|lambda| of "
             "lambda^2 - (2 - 2.1^2) lambda + 1 = 0); 7e81 would take about 300 steps"),
    # ---- actuation ---------------------------------------------------------------------
    "fem_kkt_schur": Published(
        seed=2e-15, unit="rel", result=5, tol=0.0, status="not-reproducible", kind="upper",
        note="KKT (lib.constraints.kkt_solve) against Schur (schur_solve), T6 40x4, a cable and a "
             "chamber-volume constraint. The seed gives neither the problem nor the measure; the "
             "book's max |u_KKT - u_Schur| / max |u| is about 4e-13, i.e. round-off far below "
             "eps cond(K) = 2e-9; absolute differences are 1e-15-ish for millimetre-sized "
             "displacements, which is probably what the seed printed"),
}
