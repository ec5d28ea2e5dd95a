"""Published numbers of the cross-check chapter: result (7) of section 3.10.5.

The seed compares its own code with SciPy 1.18.1, scikit-fem 12.0.2 and MuJoCo
3.17.0's cable plugin.  The book runs SciPy 1.17 (the pinned version), scikit-fem
12.0.2 and MuJoCo 3.17.0.  Result (7)'s time-integration numbers (Verlet and
Newmark against DOP853) are computed and registered by the integration chapter;
the neo-Hookean Newmark figures and the fine-mesh FEM comparisons that the seed
tags with (7) inside result (5) are registered by the FEM chapter; the Timoshenko
Richardson bound "2e-6" of section 3.10.2 by the rod chapter.

Relative differences are |a - b| / |b| (max over the entries compared); the seed
does not say relative for the MuJoCo extrapolation, but only the relative
reading reproduces its digits.
"""
from lib.registry.entry import Published

_MJ = ("MuJoCo 3.17.0 composite cable with the mujoco.elasticity.cable plugin, capsule radius "
       "r/L = 0.002, bend = E = 1/I, density = 1/A, first body welded (initial='none'); "
       "Omega_1 from mjd_transitionFD (in-plane block), normalised by the total body mass")

ENTRIES = {
    # ---- SciPy ------------------------------------------------------------------------
    "crosscheck_eigh_rod": Published(
        seed=1e-10, unit="rel", result=7, tol=0.0, status="reproduced", kind="upper",
        note="r/L = 0.04 rod, N = 20, every mode: lib.rod.frequencies (singular values of the "
             "flexibility factor) against scipy.linalg.eigh(K, M) on the dense Hessian and lumped "
             "mass.  The bound fails at N = 80 (1.6e-10) and badly at r/L = 0.002 (1e-7): there the "
             "dense eigh is the inaccurate one (shift-invert eigsh agrees with lib to 1e-13..5e-10)"),
    "crosscheck_eigh_pcc": Published(
        seed=1e-13, unit="rel", result=7, tol=0.0, status="reproduced", kind="upper",
        note="PCC n = 1, 2, 4, 6, every mode: lib.pcc.frequencies (Gauss quadrature) against "
             "scipy.linalg.eigh on mass matrices integrated in closed form; n = 7, 8 exceed the "
             "bound (2e-13) as the Ritz mass matrix grows ill-conditioned"),
    "crosscheck_bvp_N80_lo": Published(
        seed=1e-4, unit="rel", result=7, tol=0.5e-4, status="reproduced",
        note="smaller of the relative differences of Omega_1, Omega_2 between the r/L = 0.04 rod at "
             "N = 80 and the solve_bvp Timoshenko limit (the seed's range '1e-4 to 1e-3', read as "
             "two orders of magnitude; Omega_1 gives 1.3e-4)"),
    "crosscheck_bvp_N80_hi": Published(
        seed=1e-3, unit="rel", result=7, tol=0.5e-3, status="reproduced",
        note="larger of the two (Omega_2: 6.4e-4), inputs as crosscheck_bvp_N80_lo"),
    "crosscheck_richardson_lo": Published(
        seed=1e-7, unit="rel", result=7, tol=0.5e-7, status="reproduced",
        note="Richardson extrapolation (p = 2) of N = 40, 80 against the solve_bvp Timoshenko "
             "limit, smaller of Omega_1, Omega_2 (Omega_1: 9.2e-8)"),
    "crosscheck_richardson_hi": Published(
        seed=1e-6, unit="rel", result=7, tol=1e-6, status="approximate",
        note="larger of the two (Omega_2: 1.9e-6), just above the seed's 1e-6 read as an order of "
             "magnitude; section 3.10.2 of the seed gives 2e-6 for the same comparison "
             "(rod_richardson_timoshenko).  The exact transfer-matrix Timoshenko values agree with "
             "solve_bvp to 1e-11, so the limit is not the cause"),
    # ---- scikit-fem ---------------------------------------------------------------------
    "crosscheck_fem_forms": Published(
        seed=3e-14, unit="rel", result=7, tol=0.0, status="reproduced", kind="upper",
        note="plane-strain neo-Hookean energy, internal force and tangent of lib.fem against the "
             "same forms written in scikit-fem 12.0.2 (P1 for T3, P2 for T6, same mesh 20 x 2, "
             "same quadrature points) at a random displacement (normal, standard deviation "
             "0.02, numpy default_rng(0)), largest relative "
             "max-norm difference over T3/T6 and the three quantities"),
    "crosscheck_fem_static": Published(
        seed=7e-15, unit="rel", result=7, tol=0.0, status="reproduced", kind="upper",
        note="large-deformation equilibrium (tip shear alpha = P L^2/(E'I) = 1, nu = 0.3, 20 x 2, "
             "T3 and T6): lib.fem.static against Newton on the scikit-fem forms, max|du|/max|u|"),
    "crosscheck_fem_eigen": Published(
        seed=8e-11, unit="rel", result=7, tol=0.0, status="reproduced", kind="upper",
        note="first four eigenvalues omega^2 of the linear 20 x 2 cantilever (nu = 0.3, T3 and "
             "T6): lib.fem.frequencies against eigsh on scikit-fem's own linear_elasticity "
             "stiffness and mass form"),
    # ---- MuJoCo cable --------------------------------------------------------------------
    "crosscheck_mujoco_omega1_N10": Published(
        seed=3.905, unit="", result=7, tol=0.0005, status="reproduced", note=_MJ + "; 10 segments"),
    "crosscheck_mujoco_omega1_N20": Published(
        seed=3.701, unit="", result=7, tol=0.0005, status="reproduced", note=_MJ + "; 20 segments"),
    "crosscheck_mujoco_omega1_N40": Published(
        seed=3.606, unit="", result=7, tol=0.0005, status="reproduced", note=_MJ + "; 40 segments"),
    "crosscheck_mujoco_omega1_N80": Published(
        seed=3.560, unit="", result=7, tol=0.0005, status="reproduced", note=_MJ + "; 80 segments"),
    "crosscheck_mujoco_order": Published(
        seed=1.0, unit="", result=7, tol=0.05, status="reproduced",
        note=_MJ + "; observed order log2(e_40/e_80) of the Omega_1 error against Euler-Bernoulli "
             "(the seed: first order, the error halves per doubling)"),
    "crosscheck_mujoco_richardson1": Published(
        seed=3.2e-4, unit="rel", result=7, tol=0.05e-4, status="reproduced",
        note=_MJ + "; |Richardson(p = 1, 40/80) / Euler-Bernoulli - 1| for Omega_1 (the "
             "extrapolation lies below Euler-Bernoulli)"),
    "crosscheck_mujoco_richardson2": Published(
        seed=5.3e-4, unit="rel", result=7, tol=0.05e-4, status="reproduced",
        note=_MJ + "; the same for Omega_2"),
}
