"""Contract rows of lib.explore: every compute function behind a widget (see framework.py).

The plot functions only draw what a compute function returns (their numeric
arguments are passed on and checked there) and the widget builders only wire a plot
function to sliders: they are exempt, with the function that checks their arguments.
"""
from lib import explore

from .framework import (Call, Kind, between, choice, integer, nonnegative, positive, real)

MODULE = "lib.explore"


def counts(position=None, skip=()):
    """A sequence of whole numbers >= 1 (mesh sizes, segment counts)."""
    cases = {"nan": lambda v: [float("nan")] + list(v)[1:],
             "fraction": lambda v: [2.5] + list(v)[1:], "zero": lambda v: [0] + list(v)[1:],
             "string": lambda v: "abc", "None": lambda v: None, "bools": lambda v: [True] * len(v),
             "extra-dim": lambda v: [list(v)], "empty": lambda v: []}
    return Kind({k: f for k, f in cases.items() if k not in skip}, position)


_COMPUTE = {
    "rod_frequency_errors": (lambda: ((0.04,), dict(Ns=(4, 8))),
                             {"r_over_L": positive(position=0), "Ns": counts()}),
    "verlet_energy": (lambda: ((0.9,), dict(N=4, r_over_L=0.04, nsteps=10)),
                      {"dt_ratio": positive(position=0), "N": integer(low=1),
                       "r_over_L": positive(), "nsteps": integer(low=1)}),
    "damping_ratios": (lambda: ((-3.0,), dict(N=4, r_over_L=0.04)),
                       {"log10_tau": real(position=0), "N": integer(low=1),
                        "r_over_L": positive()}),
    "pcc_frequency_ratios": (lambda: ((3, 2), {}),
                             {"n_max": integer(low=1, position=0),
                              "modes": integer(low=1, position=1)}),
    "locking_ratios": (lambda: ((0.3, "T3"), dict(sizes=(1,))),
                       {"nu": Kind(dict(real().cases, half=lambda v: 0.5, below=lambda v: -1.0), 0),
                        "element": choice(position=1), "sizes": counts()}),
    "incompressible_ratios": (lambda: ((), dict(nu=0.45, sizes=(1,), alpha=0.2)),
                              {"nu": Kind(dict(real().cases, above=lambda v: 0.5001,
                                               below=lambda v: -1.0)),
                               "sizes": counts(), "alpha": positive()}),
    "tendon_arm_shape": (lambda: ((10.0, 0.0, 0.0), dict(N=4, offset=0.03)),
                         {"tau_tip": nonnegative(position=0), "tau_back": nonnegative(position=1),
                          "tau_mid": nonnegative(position=2), "N": integer(low=2),
                          "offset": real()}),
    "cable_arm_shape": (lambda: ((0.01, 6.0), dict(N=4, offset=0.03, gravity=3.0)),
                        {"stroke": real(position=0), "log10_k": real(position=1),
                         "N": integer(low=2), "offset": real(), "gravity": nonnegative()}),
    "pneumatic_arm_shape": (lambda: ((0.02,), dict(refine=1)),
                            {"pressure": real(position=0), "refine": integer(low=1)}),
    "rod3d_shape": (lambda: ((0.5, 0.5), dict(N=4, r_over_L=0.04, steps=2)),
                    {"twist": real(position=0), "tip_force": real(position=1),
                     "N": integer(low=1), "r_over_L": positive(), "steps": integer(low=1)}),
    "pendulum_drift": (lambda: ((1.0,), dict(t_end=0.5, n_out=5)),
                       {"alpha": nonnegative(position=0), "t_end": positive(),
                        "n_out": integer(low=2)}),
    "push": (lambda: ((0.9, 0.8), dict(kinetic_fraction=0.5, steps=5)),
             {"force_ratio": nonnegative(position=0), "mu_static": positive(position=1),
              "kinetic_fraction": between(0.0, 1.0), "steps": integer(low=1)}),
    "clamp_convergence": (lambda: ((2.0,), dict(Ns=(4, 8))),
                          {"clamp": positive(position=0),
                           "Ns": Kind(dict(counts().cases, one=lambda v: [8]))}),
    "levels_shapes": (lambda: ((10.0, 0.0), {}),
                      {"slenderness": positive(position=0), "alpha": nonnegative(position=1)}),
}

CALLS = [Call(f"explore.{name}", getattr(explore, name), valid, args)
         for name, (valid, args) in _COMPUTE.items()]
# a loaded arm: the compute path that solves (the row above draws the unloaded one)
CALLS.append(Call("explore.levels_shapes[loaded]", explore.levels_shapes,
                  lambda: ((10.0, 0.2), {}), {}))

_PLOTS = {"plot_rod_frequency_errors": "rod_frequency_errors", "plot_rod3d_shape": "rod3d_shape",
          "plot_verlet_energy": "verlet_energy", "plot_damping_ratios": "damping_ratios",
          "plot_pcc_frequency_ratios": "pcc_frequency_ratios", "plot_locking_ratios": "locking_ratios",
          "plot_incompressible_ratios": "incompressible_ratios", "plot_tendon_arm": "tendon_arm_shape",
          "plot_cable_arm": "cable_arm_shape", "plot_pneumatic_arm": "pneumatic_arm_shape",
          "plot_pendulum_drift": "pendulum_drift", "plot_push": "push",
          "plot_clamp_convergence": "clamp_convergence", "plot_levels_shapes": "levels_shapes"}
EXEMPT = {plot: f"draws {fn}'s result; its arguments are passed to {fn}, which checks them "
                f"(row explore.{fn})" for plot, fn in _PLOTS.items()}
EXEMPT.update({f"{w}_widget": "wires a plot function to sliders (no arguments)"
               for w in ("rod", "rod3d", "verlet", "damping", "pcc", "locking", "incompressible",
                         "tendon_arm", "cable_arm", "pneumatic_arm", "pendulum", "push", "clamp", "levels")})
MODELS = []
