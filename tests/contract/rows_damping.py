"""Contract rows of lib.damping (see framework.py): every public function, and the
Kelvin-Voigt dissipation D(q, v) as a model in v (its force and matrix by FD)."""
import numpy as np

from lib import damping, fem, rod, rod3d

from .framework import Call, Kind, Model, array, model, nonnegative, positive

MODULE = "lib.damping"


def _const(v):
    return lambda valid: v


def _kv():
    return damping.kelvin_voigt(rod.make_rod(4), 0.01, tau_shear=0.02, tau_bend=0.03)


def _q(r, rng, scale=0.3):
    dq = rng.standard_normal(r.ndof) * scale
    dq[1::3] *= r.ell
    dq[2::3] *= r.ell
    return rod.straight(r) + dq


_KV = model(position=0, wrong=lambda: rod.make_rod(4))        # a rod is not its damping model
_ROD = model(position=0, wrong=lambda: rod3d.make_rod3d(4))


def _state_call(name, v=False):
    def valid():
        kv = _kv()
        q = _q(kv.rod, np.random.default_rng(0))
        return ((kv, q) + ((0.1 * np.ones(kv.rod.ndof),) if v else ())), {}
    args = {"model": _KV, "q": array(position=1)}
    if v:
        args["v"] = array(position=2)
    return Call(f"damping.{name}", getattr(damping, name), valid, args)


# a number of entries free (omega, zeta): only the values are bad input
_FREE = dict(skip=("short", "extra-dim"))
_OMEGA = lambda position=None: Kind(dict(array(**_FREE).cases, zero=_const([0.0, 2.0]),
                                         negative=_const([-1.0, 2.0])), position)
# a length-1 mass with a 2x2 K broadcast to a coupled matrix (issue 22): now its order is checked
_MASS = lambda position=None: Kind(dict(array().cases, **{"length-1": _const(np.array([1.0]))}),
                                   position)

CALLS = [
    Call("damping.kelvin_voigt", damping.kelvin_voigt,
         lambda: ((rod.make_rod(3), 0.1), dict(tau_shear=0.2, tau_bend=0.3)),
         {"rod": _ROD, "tau": nonnegative(position=1), "tau_shear": nonnegative(skip=("None",)),
          "tau_bend": nonnegative(skip=("None",))}),
    _state_call("strains"), _state_call("strain_jacobian"), _state_call("damping_matrix"),
    _state_call("banded_damping_matrix"),
    _state_call("dissipation", v=True), _state_call("damping_force", v=True),
    Call("damping.rayleigh_matrix", damping.rayleigh_matrix,
         lambda: ((np.array([1.0, 2.0]), np.array([[2.0, -1.0], [-1.0, 2.0]]), 0.1, 0.01), {}),
         {"M": _MASS(0), "K": array(position=1), "alpha": nonnegative(position=2),
          "beta": nonnegative(position=3)}),
    Call("damping.rayleigh_coefficients", damping.rayleigh_coefficients,
         lambda: ((1.0, 10.0, 0.05), dict(zeta2=0.06)),
         {"omega1": Kind(dict(positive().cases, above=_const(20.0)), position=0),
          "omega2": Kind(dict(positive().cases, below=_const(0.5)), position=1),
          "zeta1": nonnegative(position=2),
          "zeta2": Kind(dict(nonnegative(skip=("None",)).cases, unreachable=_const(0.001)))}),
    Call("damping.fem_rayleigh", damping.fem_rayleigh,
         lambda: ((fem.cantilever(2, 1, "T3", slenderness=2.0), 0.1, 0.01), {}),
         {"model": model(position=0, wrong=lambda: rod.make_rod(4)),
          "alpha": nonnegative(position=1), "beta": nonnegative(position=2)}),
    # a negative alpha gave negative damping ratios (issue 22)
    Call("damping.modal_damping_ratios", damping.modal_damping_ratios,
         lambda: ((np.array([1.0, 2.0]),), dict(alpha=0.1, beta=0.01)),
         {"omega": _OMEGA(0), "alpha": nonnegative(), "beta": nonnegative()}),
    Call("damping.damped_frequencies", damping.damped_frequencies,
         lambda: ((np.array([1.0, 2.0]), np.array([0.1, 1.5])), {}),
         {"omega": _OMEGA(0),
          "zeta": Kind(dict(array().cases, negative=_const([-0.1, 0.2])), position=1)}),
    Call("damping.quadratic_eigenvalues", damping.quadratic_eigenvalues,
         lambda: ((np.eye(2), 0.1 * np.eye(2), np.array([[2.0, -1.0], [-1.0, 2.0]])), {}),
         {"M": _MASS(0), "C": _MASS(1), "K": array(position=2)}),
]

MODELS = [
    Model("damping.dissipation[FD]",
          lambda: (lambda kv: (kv, _q(kv.rod, np.random.default_rng(5))))(_kv()),
          lambda m, rng: rng.standard_normal(m[0].rod.ndof),
          energy=lambda m, v: damping.dissipation(m[0], m[1], v),
          gradient=lambda m, v: damping.damping_force(m[0], m[1], v),
          hessian=lambda m, v: damping.damping_matrix(m[0], m[1])),
]
