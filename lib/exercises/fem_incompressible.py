"""Answers to the exercises of the *Incompressible finite elements* chapter
(see :mod:`lib.exercises`).

Exercise 1 (P2/P0 eliminated element by element is F-bar) is a derivation whose
numerical confirmation agrees to round-off; it is discussed, not checked.

Examples
--------
>>> from lib.exercises import check
>>> check("fem_incompressible-2", [320, 320, 205]).hint   # pressures only
'shape'
"""
import numpy as np

from lib import fem
from lib import incompressible as inc
from lib.exercises import exercise

ALPHA = 1.0


@exercise("fem_incompressible-2", rtol=1e-9,
          text="counts on the 40 x 4 mesh, array [P1/P0 pressures, P2/P0 pressures, "
               "P2/P1 pressures, T3 free displacements, T6 free displacements]")
def constraint_counts():
    """Pressure unknowns and free displacement components, counted from the meshes
    (one pressure per triangle for P0, one per corner node for P1)."""
    out = []
    for form in ("P1P0", "P2P0", "P2P1"):
        b = inc.cantilever(40, 4, form, inc.neo_hookean(1.0, 0.3))
        out.append(b.n_p)
    for el in ("T3", "T6"):
        out.append(fem.cantilever(40, 4, el, 0.3).free.size)
    return np.array(out, dtype=float)


@exercise("fem_incompressible-3", rtol=1e-4,
          text=f"20 x 2 Taylor-Hood (P2/P1) tip ratio at alpha = 1, nu = {inc.NU_NEAR}, "
               "array [stable neo-Hookean, split neo-Hookean]")
def neo_hookean_tip_ratios():
    out = []
    for mat in (inc.stable_neo_hookean(1.0, inc.NU_NEAR), inc.neo_hookean(1.0, inc.NU_NEAR)):
        b = inc.cantilever(20, 2, "P2P1", mat)
        out.append(inc.tip_ratio(b, inc.solve(b, inc.tip_load(b, ALPHA)).x, ALPHA))
    return np.array(out)


def _mooney_rivlin_fit(top):
    eco = inc.yeoh(*inc.ECOFLEX_0030_YEOH, nu=0.45)
    sel = np.linspace(1.0, float(top), 41)
    return np.array(inc.fit_mooney_rivlin(sel, inc.uniaxial_stress(eco, sel)).constants)


@exercise("fem_incompressible-4a", rtol=3e-2, atol=0.05,
          text="Mooney-Rivlin [C10, C01] in kPa fitted on 1 <= lambda <= 2")
def mooney_rivlin_fit_2():
    """Least-squares fit to the Ecoflex 00-30 Yeoh curve sampled at 41 stretches; a
    student sampling differently (11 to 1001 points) moves them by up to 2.5 %."""
    return _mooney_rivlin_fit(2)


@exercise("fem_incompressible-4b", rtol=3e-2, atol=0.05,
          text="Mooney-Rivlin [C10, C01] in kPa fitted on 1 <= lambda <= 4 (C01 >= 0)")
def mooney_rivlin_fit_4():
    return _mooney_rivlin_fit(4)


@exercise("fem_incompressible-5", rtol=2e-2,
          text=f"central-difference steps for 1.5 periods at nu = {inc.NU_NEAR} (20 x 2 F-bar)")
def explicit_steps():
    r"""$1.5\,\pi\,\omega_\max/\omega_1$ on the linearised 20 x 2 F-bar cantilever."""
    b = inc.cantilever(20, 2, "Fbar", inc.neo_hookean(1.0, inc.NU_NEAR))
    K, M = inc.hessian(b, np.zeros(b.n_u)), inc.mass(b)
    wmax = fem.highest_frequency(b.geom, K=K, M=M)
    w1 = fem.frequencies(b.geom, 1, K=K, M=M)[0]
    return float(1.5 * np.pi * wmax / w1)
