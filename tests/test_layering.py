"""The floors of ``lib`` import only downward, and no module uses another's private names.

Every ``lib/**/*.py`` is parsed with :mod:`ast` (imports inside functions included) and
each import of a ``lib`` module is checked against the layer table of DESIGN.md:

* ``core`` imports nothing from ``lib``; ``solvers`` only ``core``; ``fe`` only ``core``
  and ``solvers``; ``kernels`` only ``core``;
* the chapter faces use floors and other faces, never ``crosscheck``, ``studies``,
  ``explore``, ``exercises``, ``registry``, ``book``, ``published`` or ``chapters``;
* ``crosscheck`` and ``studies`` use faces and floors; ``explore`` and ``exercises`` use
  those, ``crosscheck``, ``studies`` and the chapter list; the book's plumbing
  (``chapters``, ``registry``, ``published``, ``book``) uses only itself.

A name starting with one underscore is private to its module: ``from lib.x import _y``
and ``x._y`` (``x`` bound to another ``lib`` module) fail.  A private *module* (``_y.py``)
may be imported from inside its own package only.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"

FACES = {"rod", "rod3d", "beam", "pcc", "fem", "incompressible", "actuation", "damping",
         "integrate", "constraints", "contact", "levels", "pneumatic"}
FLOORS = {"core", "solvers", "fe", "kernels"}
#: layer -> the layers it may import (its own layer always included)
ALLOWED = {
    "core": set(),
    "solvers": {"core"},
    "fe": {"core", "solvers"},
    "kernels": {"core"},
    "face": FLOORS,
    "crosscheck": FLOORS | {"face"},
    "studies": FLOORS | {"face"},
    "explore": FLOORS | {"face", "crosscheck", "studies", "chapters"},
    "exercises": FLOORS | {"face", "crosscheck", "studies", "chapters"},
    "chapters": set(),
    "registry": {"chapters"},
    "published": {"chapters", "registry"},
    "book": {"published"},
    "lib": set(),
}


def _modules(root=LIB):
    """``{dotted name: (path, is_package)}`` of every module under ``root`` (lib/)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = ("lib",) + path.relative_to(root).with_suffix("").parts
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


MODULES = _modules()


def layer(module):
    """The layer of a dotted ``lib`` module name."""
    parts = module.split(".")
    if len(parts) == 1:
        return "lib"
    top = parts[1]
    if top in FACES:
        return "face"
    if top in ALLOWED:
        return top
    raise AssertionError(f"{module} belongs to no layer: add it to tests/test_layering.py")


def _resolve(module, package, node):
    """Absolute module of an ``ImportFrom`` node (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _target(dotted, modules):
    """The longest prefix of ``dotted`` that is a ``lib`` module (or None), and the rest."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in modules:
            return ".".join(parts[:k]), parts[k:]
    return None, parts


def _private_module(target, module):
    """A violation message if ``target`` is a private module outside ``module``'s package."""
    parts = target.split(".")
    for k, p in enumerate(parts):
        if p.startswith("_") and not p.startswith("__"):
            owner = ".".join(parts[:k])
            if not (module == owner or module.startswith(owner + ".")):
                return f"imports the private module {target}"
    return None


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def violations(module, modules=MODULES):
    """Every layering or privacy violation of ``module``, as sorted (line, message)."""
    path, package = modules[module]
    tree = ast.parse(path.read_text(), str(path))
    mine = layer(module)
    out = []
    bound = {}                               # local name -> lib module it refers to

    def check(target, line):
        theirs = layer(target)
        if theirs != mine and theirs not in ALLOWED[mine]:
            out.append((line, f"a {mine} module imports {target} ({theirs})"))
        msg = _private_module(target, module)
        if msg:
            out.append((line, msg))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target, _ = _target(alias.name, modules)
                if target is None:
                    continue
                check(target, node.lineno)
                if alias.asname:
                    bound[alias.asname] = target
                else:
                    bound[alias.name.split(".")[0]] = "lib"
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, package, node)
            target, rest = _target(source, modules)
            if target is None:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in modules:                 # from lib import fem
                    check(sub, node.lineno)
                    bound[alias.asname or alias.name] = sub
                    continue
                check(target, node.lineno)
                if _private(alias.name) and target != module:
                    out.append((node.lineno, f"imports the private name {alias.name} "
                                             f"of {source}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, base = [], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in bound:
                dotted = ".".join([bound[base.id]] + chain[::-1])
                target, rest = _target(dotted, modules)
                if target is not None and not rest and target != module:
                    out.append((node.lineno, f"uses the private name {node.attr} of {target}"))
    return sorted(out)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_respect_the_floors(module):
    found = violations(module)
    assert not found, f"{MODULES[module][0].relative_to(LIB.parent)}:{found[0][0]}: {found[0][1]}"


def test_the_checker_catches_what_it_should(tmp_path):
    """An upward import, a face importing crosscheck and private names are all caught."""
    files = {"__init__.py": "", "core/__init__.py": "", "crosscheck.py": "",
             "core/quadrature.py": "def f():\n    from lib import rod\n",
             "rod.py": "from .fem import _rule\nfrom . import fem as f\nf._shape(1)\n",
             "fem.py": "import lib.crosscheck as cc\nfrom .core import _x\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    mods = _modules(tmp_path)
    assert [m for _, m in violations("lib.core.quadrature", mods)] == [
        "a core module imports lib.rod (face)"]
    assert [m for _, m in violations("lib.rod", mods)] == [
        "imports the private name _rule of lib.fem", "uses the private name _shape of lib.fem"]
    assert [m for _, m in violations("lib.fem", mods)] == [
        "a face module imports lib.crosscheck (crosscheck)",
        "imports the private name _x of lib.core"]
