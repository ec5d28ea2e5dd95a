"""The old loops these tests keep solved every tangent by SuperLU; the shared Newton now
factorises a symmetric positive definite finite-element tangent by banded Cholesky
(``newton_solve(spd=True)``), which agrees to round-off but not bit for bit.  Here the
band is switched off, so the new loops take SuperLU again and must reproduce the old ones
iteration for iteration, exactly; ``tests/test_core_linalg.py`` and ``tests/test_fem.py``
check the Cholesky path against SuperLU to round-off."""
import pytest

from lib.core import linalg


@pytest.fixture(autouse=True)
def _superlu_only(monkeypatch):
    monkeypatch.setattr(linalg, "_BAND_FILL", 0.0)
