"""Interactive explorations: the compute functions behind the book's widgets.

Every chapter has an *Explore* section.  In Jupyter it shows ipywidgets sliders;
the HTML book cannot run a kernel, so it shows a static figure made by the same
compute function at the default slider values.  The compute functions return plain
arrays (no plotting) so the tests can check them; the ``*_widget`` builders wire a
function to sliders and a matplotlib plot.  Each chapter's functions live in
``lib/explore/<chapter>.py``, found from :mod:`lib.chapters` and re-exported here.

Compute functions
-----------------
verlet_energy(dt_ratio, N, r_over_L, nsteps)       Verlet on the linear rod at dt = ratio * dt_c
rod_frequency_errors(r_over_L, Ns)                  Omega_1, Omega_2 errors of the discrete rod
pcc_frequency_ratios(n_max, modes)                  PCC / Euler-Bernoulli frequency ratios
locking_ratios(nu, element, sizes)                  FEM tip deflection / beam theory
pendulum_drift(alpha, t_end)                        constraint drift of the Cartesian pendulum
clamp_convergence(clamp, Ns)                        inextensible chain: clamp spring vs convergence order
incompressible_ratios(nu, sizes)                    finite-strain tip ratios of T6, P2/P1, F-bar
tendon_arm_shape(tau_tip, tau_back, tau_mid)         rod shape under three tendons
cable_arm_shape(stroke, log10_k)                    a cable under displacement control lifts a sagging rod
pneumatic_arm_shape(pressure)                       the PneuNet-like FEM arm inflated by its chambers
rod3d_shape(twist, tip_force)                       3-D cantilever under end torque and tip force
levels_shapes(slenderness, alpha)                   PCC, rod and FEM centrelines of one arm
damping_ratios(log10_tau, N)                        Kelvin-Voigt modal damping and the explicit limit
push(force_ratio, mu_s)                             the contact chapter: a pushed rod sticks or slips
"""
from importlib import import_module

from ..chapters import stems

CHAPTERS = stems("explore")
__all__ = []
for _stem in CHAPTERS:
    _mod = import_module(f"{__name__}.{_stem}")
    __all__ += _mod.__all__
    globals().update({_name: getattr(_mod, _name) for _name in _mod.__all__})
