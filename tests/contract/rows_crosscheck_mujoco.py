"""Contract rows of lib.crosscheck.mujoco: MuJoCo 3.17's cable cantilever."""
from lib.crosscheck import mujoco as M

from .framework import Call, Kind, between, boolean, choice, integer, positive

MODULE = "lib.crosscheck.mujoco"

CALLS = [
    Call("crosscheck.mujoco.cable_xml", M.cable_xml,
         lambda: ((10,), dict(r_over_L=0.002, clamp="ball", nu=0.3)),
         # MuJoCo's cable needs three segments: two was MuJoCo's own "body not found"
         {"segments": Kind(dict(integer(low=3).cases, two=lambda v: 2), 0),
          "r_over_L": positive(), "clamp": choice(), "nu": between(-1.0, 0.5, skip=("below",))}),
    Call("crosscheck.mujoco.cable_frequencies", M.cable_frequencies,
         lambda: ((4,), dict(k=1, r_over_L=0.002, clamp_stiffness=2.0, eps=1e-6,
                             return_coupling=True)),
         {"segments": Kind(dict(integer(low=3).cases, two=lambda v: 2), 0),
          "k": Kind(dict(integer(low=1).cases, too_many=lambda v: 50)), "r_over_L": positive(),
          "clamp_stiffness": positive(skip=("None",)), "eps": positive(),
          "return_coupling": boolean()}),
]
MODELS = []
