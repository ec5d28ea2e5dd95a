"""What the adapters share: the eigen-solve and MuJoCo's cable composite."""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..core.errors import SolveError


def generalised_eigvals(K, m, subset, caller):
    """Eigenvalues of ``K v = lam diag(m) v`` (``scipy.linalg.eigh``), errors named."""
    try:
        return sla.eigh(K, np.diag(m), eigvals_only=True, subset_by_index=subset)
    except sla.LinAlgError as exc:    # the mass is not positive definite, or LAPACK failed
        raise SolveError(f"{caller}: the generalised eigenproblem K v = omega^2 M v failed "
                         f"(min mass {float(np.min(m)):.3e}): {exc}") from None


def cable_mjcf(model, option, segments, composite, twist, bend, geom, floor=""):
    """MJCF of a MuJoCo 3.x composite cable (``mujoco.elasticity.cable`` plugin, no damping).

    ``segments`` capsules (``count = segments + 1``); ``composite`` the composite's other
    attributes, ``twist`` / ``bend`` the plugin's moduli, ``geom`` the capsules'
    attributes, ``floor`` an optional line before the composite.
    """
    return f"""<mujoco model="{model}">
  <extension><plugin plugin="mujoco.elasticity.cable"/></extension>
  <option {option}/>
  <worldbody>{floor}
    <composite type="cable" curve="s" count="{segments + 1} 1 1" {composite}>
      <plugin plugin="mujoco.elasticity.cable">
        <config key="twist" value="{twist!r}"/>
        <config key="bend" value="{bend!r}"/>
        <config key="vmax" value="0"/>
      </plugin>
      <joint kind="main" damping="0"/>
      <geom {geom}/>
    </composite>
  </worldbody>
</mujoco>"""
