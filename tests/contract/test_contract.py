"""The model contract, over every row of rows.py (see framework.py).

* every bad-input case of every ``Call`` row raises a ``ValueError`` naming the
  argument (a case still failing is ``xfail(strict=True)`` in its row, with the reason);
* the valid call of every row succeeds;
* every ``Model`` row's gradient and Hessian match central differences of its energy
  and gradient at a random state.
"""
import pytest

from . import framework as fw
from .rows import CALLS, MODELS


@pytest.mark.parametrize("row, case", fw.params(CALLS))
def test_bad_input_is_a_value_error_naming_the_argument(row, case):
    fw.check_bad_input(row, case)


@pytest.mark.parametrize("row", CALLS, ids=[r.name for r in CALLS])
def test_the_valid_call_of_each_row_succeeds(row):
    fw.check_valid_call(row)


@pytest.mark.parametrize("row", MODELS, ids=[m.name for m in MODELS])
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_matches_central_differences_of_the_energy(row, seed):
    fw.check_gradient(row, seed)


@pytest.mark.parametrize("row", [m for m in MODELS if m.hessian is not None],
                         ids=[m.name for m in MODELS if m.hessian is not None])
@pytest.mark.parametrize("seed", [0, 1])
def test_hessian_matches_central_differences_of_the_gradient(row, seed):
    fw.check_hessian(row, seed)


def test_every_row_has_a_unique_name():
    names = [r.name for r in CALLS] + [m.name for m in MODELS]
    assert len(names) == len(set(names))


def _public_callables(module):
    """Functions in ``__all__`` (classes are made by factories, which have rows)."""
    import inspect

    return [n for n in getattr(module, "__all__", [])
            if callable(getattr(module, n)) and not inspect.isclass(getattr(module, n))]


def _row_modules():
    import importlib
    import pathlib

    for path in sorted(pathlib.Path(__file__).parent.glob("rows_*.py")):
        rows = importlib.import_module(f"{__package__}.{path.stem}")
        target = getattr(rows, "MODULE", None)
        if target is not None:
            yield path.stem, rows, importlib.import_module(target)


@pytest.mark.parametrize("stem, rows, module", list(_row_modules()),
                         ids=[s for s, _, _ in _row_modules()])
def test_every_public_function_of_a_covered_module_has_a_row(stem, rows, module):
    """A ``rows_<x>.py`` that names its ``MODULE`` covers every public function of it.

    Each function in the module's ``__all__`` is the name (``"<short>.<function>"``, or
    that name followed by ``[...]``) of at least one row, or is listed in the file's
    ``EXEMPT`` mapping with the reason (e.g. a plotting helper, an alias).
    """
    short = module.__name__.removeprefix("lib.")
    named = {r.name.split("[", 1)[0] for r in rows.CALLS + rows.MODELS}
    exempt = getattr(rows, "EXEMPT", {})
    missing = [f for f in _public_callables(module)
               if f"{short}.{f}" not in named and f not in exempt]
    assert not missing, f"{stem}: public functions of {module.__name__} without a row: {missing}"


# modules whose public functions are deliberately unchecked, with the reason
UNCHECKED_MODULES = {
    "lib.core.checks": "the validators themselves (tests/test_core_checks.py proves each rule)",
    "lib.core.so3": "unchecked rotation kernels for hot loops; the checked public versions are "
                    "lib.rod3d's quat_exp / quat_mul / quat_log / rotmat / quat_from_rotmat (rows_rod3d)",
    "lib.kernels": "compiled twins of face functions, called only after the face has checked its "
                   "input; each is compared with its NumPy twin in tests/test_kernels.py",
    "lib.registry": "data (the published numbers), no functions to call",
}


def _all_public_modules():
    import importlib
    import pkgutil

    import lib

    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        module = importlib.import_module(info.name)
        if getattr(module, "__all__", None) is not None:
            yield module


def test_every_public_function_of_lib_has_a_row_or_a_stated_exemption():
    """Every function in any ``lib`` module's ``__all__`` is a row's function (by identity,
    so re-exports count), is named by a row, or is exempt with a reason (a rows file's
    ``EXEMPT`` or :data:`UNCHECKED_MODULES`)."""
    import importlib
    import inspect
    import pathlib

    covered = {id(r.func) for r in CALLS}
    names = {r.name.split("[", 1)[0] for r in CALLS + MODELS}
    exempt = set()
    for path in sorted(pathlib.Path(__file__).parent.glob("rows_*.py")):
        rows = importlib.import_module(f"{__package__}.{path.stem}")
        target = getattr(rows, "MODULE", None)
        if target is not None:
            mod = importlib.import_module(target)
            exempt |= {id(getattr(mod, n)) for n in getattr(rows, "EXEMPT", {})}
    missing = []
    for module in _all_public_modules():
        if any(module.__name__ == m or module.__name__.startswith(m + ".")
               for m in UNCHECKED_MODULES):
            continue
        short = module.__name__.removeprefix("lib.")
        for n in module.__all__:
            obj = getattr(module, n)
            if not callable(obj) or inspect.isclass(obj):
                continue
            if (id(obj) in covered or f"{short}.{n}" in names
                    or id(obj) in exempt):
                continue
            missing.append(f"{module.__name__}.{n}")
    assert not missing, f"public functions without a contract row or exemption: {missing}"
