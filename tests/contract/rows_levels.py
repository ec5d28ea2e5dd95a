"""Contract rows of lib.levels (see framework.py): every public function of it.

The arms are short (L/h = 3) and the models coarse, so each valid call takes milliseconds.
"""
import numpy as np

from lib import levels as lv, pcc

from .framework import (Call, Kind, array, between, boolean, choice, integer, model,
                        nonnegative, positive, real)

MODULE = "lib.levels"

_ARM = lambda: lv.make_arm(3.0)                                   # noqa: E731
_ARM_KIND = model(position=0, wrong=lambda: pcc.make_pcc(2))       # a model is not an arm
_LEVEL = choice(position=1)


def _arm_call(*args, **kw):
    return lambda: ((_ARM(),) + args, dict(kw))


def _fem_u():
    m = lv.to_fem(_ARM(), 2)
    return m, 1e-4 * np.ones(m.mesh.nodes.size)


_XY = np.array([[0.0, 0.0], [0.03, -0.004]])
_XY_REF = np.array([[0.0, 0.0], [0.029, -0.005]])
_LOADS = {"alpha": real(), "gravity": boolean(), "beta": real(), "linear": boolean(),
          "steps": integer(low=1)}
_PCC_STATE = {"model": model(position=0, wrong=lambda: lv.make_arm(3.0)), "q": array(position=1)}

CALLS = [
    Call("levels.make_arm", lv.make_arm, lambda: ((3.0,), dict(h=0.01, b=0.02, E=3e5, nu=0.45, rho=1e3)),
         {"slenderness": positive(position=0), "h": positive(), "b": positive(skip=("None",)), "E": positive(),
          "rho": positive(), "nu": Kind(dict(between(-1.0, 0.5).cases, half=lambda v: 0.5))}),
    Call("levels.to_pcc", lv.to_pcc, _arm_call(2), {"arm": _ARM_KIND, "n": integer(low=1, position=1)}),
    Call("levels.to_rod", lv.to_rod, _arm_call(4), {"arm": _ARM_KIND, "N": integer(low=1, position=1)}),
    Call("levels.to_fem", lv.to_fem, _arm_call(2, clamp="sliding"),
         {"arm": _ARM_KIND, "ny": integer(low=1, position=1), "clamp": choice()}),
    Call("levels.build", lv.build, _arm_call("fem", 2, clamp="bonded"),
         {"arm": _ARM_KIND, "level": _LEVEL, "size": integer(low=1, position=2), "clamp": choice()}),
    Call("levels.searle_parameter", lv.searle_parameter, _arm_call(20.0),
         {"arm": _ARM_KIND, "curvature": real(position=1)}),
    Call("levels.dofs", lv.dofs, lambda: ((lv.to_rod(_ARM(), 4),), {}),
         {"model": model(position=0, wrong=_ARM)}),
    Call("levels.tip_force", lv.tip_force, _arm_call(0.5), {"arm": _ARM_KIND, "alpha": real(position=1)}),
    Call("levels.tendon_tension", lv.tendon_tension, _arm_call(1.5, 0.0025),
         {"arm": _ARM_KIND, "beta": real(position=1), "offset": positive(position=2)}),
    Call("levels.tendon_offset", lv.tendon_offset, _arm_call(), {"arm": _ARM_KIND}),
    Call("levels.tendon_strain", lv.tendon_strain, _arm_call(1.5),
         {"arm": _ARM_KIND, "beta": real(position=1)}),
    Call("levels.solve_static", lv.solve_static,
         _arm_call("pcc", 2, alpha=0.5, gravity=True, beta=0.3, linear=False, steps=2,
                   formulation="T6", clamp="bonded"),
         {"arm": _ARM_KIND, "level": _LEVEL, "size": integer(low=1, position=2), **_LOADS,
          "formulation": choice(), "clamp": choice()}),
    Call("levels.reference", lv.reference, _arm_call(alpha=0.05, gravity=False, beta=0.0,
                                                     linear=True, steps=1, clamp="sliding"),
         {"arm": _ARM_KIND, **_LOADS, "clamp": choice()}),
    Call("levels.tip_error", lv.tip_error, lambda: ((_XY, _XY_REF, 0.03), dict(transverse=False)),
         {"xy": array(position=0), "xy_ref": Kind(dict(array().cases, undisplaced=lambda v: [[0, 0], [0.03, 0]]), 1),
          "L": positive(position=2), "transverse": boolean()}),
    Call("levels.frequencies", lv.frequencies, _arm_call("fem", 2, k=2),
         {"arm": _ARM_KIND, "level": _LEVEL, "size": integer(low=1, position=2), "k": integer(low=1)}),
    Call("levels.frequency_error", lv.frequency_error,
         lambda: ((np.array([1.01, 2.1]), np.array([1.0, 2.0, 3.0])), {}),
         {"om": array(position=0, skip=("short", "extra-dim")),
          "om_ref": Kind(dict(array(skip=("short",)).cases, zero=lambda v: [0.0, 2.0, 3.0],
                              fewer=lambda v: [1.0]), 1)}),
    Call("levels.explicit_step", lv.explicit_step, _arm_call("fem", 2),
         {"arm": _ARM_KIND, "level": _LEVEL, "size": integer(low=1, position=2)}),
    Call("levels.release", lv.release, _arm_call("fem", 2, np.array([0.0, 0.01]), alpha=0.05, k_fem=4),
         {"arm": _ARM_KIND, "level": _LEVEL, "size": integer(low=1, position=2),
          "t": array(position=3, skip=("short",)), "alpha": real(), "k_fem": integer(low=1)}),
    Call("levels.release_error", lv.release_error,
         lambda: ((np.array([0.1, -0.2, 0.05]), np.array([0.1, -0.21, 0.04])), {}),
         {"y": array(position=0), "y_ref": Kind(dict(array(skip=("short",)).cases,
                                                    zeros=lambda v: np.zeros(3)), 1)}),
    Call("levels.rod_small_load_error", lv.rod_small_load_error,
         lambda: ((3.0,), dict(N=4, clamp="sliding", ny_ref=2)),
         {"slenderness": positive(position=0), "N": integer(low=1), "clamp": choice(),
          "ny_ref": integer(low=1)}),
    # the root finders: a bracket that does not bracket (or is upside down) is a
    # ValueError naming lo / hi, never brentq's message or a division by zero
    Call("levels.rod_slenderness_limit", lv.rod_slenderness_limit,
         lambda: ((0.09,), dict(lo=2.0, hi=4.0, N=4, clamp="bonded", ny_ref=6)),
         {"tol": Kind(dict(positive().cases, unreachable=lambda v: 10.0), 0),
          "lo": Kind(dict(positive().cases, **{"no-bracket": lambda v: 3.5, "above-hi": lambda v: 5.0})),
          "hi": Kind(dict(positive().cases, **{"no-bracket": lambda v: 2.5})),
          "N": integer(low=1), "clamp": choice(), "ny_ref": integer(low=1)}),
    Call("levels.pcc_load_error", lv.pcc_load_error, lambda: ((1.0,), dict(slenderness=3.0, n=2, N_ref=8)),
         {"alpha": positive(position=0), "slenderness": positive(), "n": integer(low=1),
          "N_ref": integer(low=1)}),
    Call("levels.pcc_load_limit", lv.pcc_load_limit,
         lambda: ((0.16,), dict(slenderness=3.0, n=2, lo=1.0, hi=3.0, N_ref=8)),
         {"tol": Kind(dict(positive().cases, unreachable=lambda v: 5.0), 0),
          "slenderness": positive(), "n": integer(low=1), "N_ref": integer(low=1),
          "lo": Kind(dict(positive().cases, **{"above-hi": lambda v: 4.0})),
          "hi": Kind(dict(positive().cases, **{"no-bracket": lambda v: 1.2}))}),
    Call("levels.strip_stretch", lv.strip_stretch, lambda: ((0.05,), {}),
         {"strain": nonnegative(position=0)}),
    Call("levels.strip_curvature_ratio", lv.strip_curvature_ratio, lambda: ((0.05,), {}),
         {"strain": nonnegative(position=0)}),
    Call("levels.rod_tendon", lv.rod_tendon,
         lambda: ((_ARM(), lv.to_rod(_ARM(), 4), 0.25 * _ARM().h), dict(anchor=None, offset_end=None)),
         {"arm": _ARM_KIND, "model": model(position=1, wrong=lambda: pcc.make_pcc(2)),
          "offset": Kind(dict(real().cases, outside=lambda v: 0.55 * _ARM().h), position=2),
          "offset_end": Kind(dict(real(skip=("None",)).cases, outside=lambda v: -0.55 * _ARM().h))}),
    Call("levels.strip_flexure", lv.strip_flexure, lambda: ((0.05,), dict(offset_ratio=0.25)),
         {"strain": between(0.0, 0.2, position=0),
          "offset_ratio": Kind(dict(between(0.0, 0.5).cases, zero=lambda v: 0.0,
                                    face=lambda v: 0.5))}),
    Call("levels.strip_flexure_ratio", lv.strip_flexure_ratio, lambda: ((0.05,), dict(offset_ratio=0.25)),
         {"strain": between(0.0, 0.2, position=0),
          "offset_ratio": Kind(dict(between(0.0, 0.5).cases, zero=lambda v: 0.0,
                                    face=lambda v: 0.5))}),
    Call("levels.section_law_slenderness", lv.section_law_slenderness,
         lambda: ((0.05,), dict(beta=1.5, law="flexure", offset_ratio=0.25)),
         {"tol": Kind(dict(between(1e-6, 0.5).cases, zero=lambda v: 0.0, tiny=lambda v: 1e-300), 0),
          "beta": positive(skip=("None",)), "law": choice(),
          "offset_ratio": Kind(dict(between(0.0, 0.5).cases, zero=lambda v: 0.0))}),
    Call("levels.rod_tendon_curvature_ratio", lv.rod_tendon_curvature_ratio,
         _arm_call(0.5, N=4, steps=2),
         {"arm": _ARM_KIND, "beta": positive(position=1), "N": integer(low=2), "steps": integer(low=1)}),
    Call("levels.rod_tendon_with_section_law", lv.rod_tendon_with_section_law,
         _arm_call(0.5, N=4, steps=2),
         {"arm": _ARM_KIND, "beta": nonnegative(position=1), "N": integer(low=2),
          "steps": integer(low=1)}),
    Call("levels.tendon_curvature_ratio", lv.tendon_curvature_ratio,
         _arm_call(0.5, ny=2, steps=2, formulation="T6", offset_ratio=0.25),
         {"arm": _ARM_KIND, "beta": positive(position=1), "ny": integer(low=1),
          "steps": integer(low=1), "formulation": choice(),
          "offset_ratio": Kind(dict(between(0.0, 0.5).cases, zero=lambda v: 0.0,
                                    off_grid=lambda v: 0.2))}),
    Call("levels.fem_section_angle", lv.fem_section_angle, lambda: (_fem_u() + (0.015,), {}),
         {"model": model(position=0, wrong=lambda: lv.to_rod(_ARM(), 4)), "u": array(position=1),
          "x": Kind(dict(real().cases, **{"no-section": lambda v: 0.0123}), 2)}),
    # PCC statics, re-exported from lib.pcc
    Call("levels.pcc_energy", lv.pcc_energy, lambda: ((pcc.make_pcc(2), [0.1, 0.2]), dict(moment=0.3)),
         dict(_PCC_STATE, moment=real(), force=array(), grav=real())),
    Call("levels.pcc_gradient", lv.pcc_gradient, lambda: ((pcc.make_pcc(2), [0.1, 0.2]), dict(moment=0.3)),
         dict(_PCC_STATE, moment=real(), force=array(), grav=real())),
    Call("levels.pcc_static", lv.pcc_static, lambda: ((pcc.make_pcc(2),), dict(moment=0.3, steps=1)),
         {"model": _PCC_STATE["model"], "moment": real(), "steps": integer(low=1)}),
]

MODELS = []
