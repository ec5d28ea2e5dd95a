"""Contract rows of lib.crosscheck.references: the independent Timoshenko and PCC references."""
from lib.crosscheck import references as R

from .framework import Call, integer, positive

MODULE = "lib.crosscheck.references"

CALLS = [
    Call("crosscheck.references.timoshenko_omegas_transfer", R.timoshenko_omegas_transfer,
         lambda: ((2, 0.04), dict(nu=0.3, ks=0.85)),
         {"k": integer(low=1, position=0), "r_over_L": positive(position=1),
          "ks": positive(skip=("None",))}),
    Call("crosscheck.references.pcc_ritz_exact", R.pcc_ritz_exact,
         lambda: ((3,), dict(EI=2.0, rhoA=0.5, L=1.5)),
         {"n": integer(low=1, position=0), "EI": positive(), "rhoA": positive(),
          "L": positive()}),
]
MODELS = []
