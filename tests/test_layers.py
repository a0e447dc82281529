"""The package's layers import downwards only (sim/__init__.py), every import counted: module
level, inside functions, and strings run by ``importlib``."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Lowest first. A module may import its own layer and the layers before it.
LAYERS = ["sim.kernel", "strategies", "sim.runs", "sim.studies", "sim.env", "reports", "sim.commands",
          "sim.cli"]
# The short public paths (README): thin re-exports, above everything but the command line.
FACADES = {"sim", "sim.strategy", "sim.moves", "sim.layout", "sim.cards", "sim.rng", "sim.rules"}
# What the kernel may import besides the standard library (it is numpy + numba only).
KERNEL_THIRD_PARTY = {"numpy", "numba", "llvmlite"}


def modules():
    for top in ("sim", "strategies", "reports"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


def layer(name: str) -> int | None:
    if name == "sim.__main__":                 # `python -m sim`: the command line
        return LAYERS.index("sim.cli")
    if name in FACADES:
        return len(LAYERS)
    for i, prefix in enumerate(LAYERS):
        if name == prefix or name.startswith(prefix + "."):
            return i
    return None


def imports(name: str, path: Path):
    """(imported module, line, names) of every import statement, relative ones resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = tuple(a.name for a in node.names)
            for a in names:         # `from sim.kernel import engine` imports sim.kernel.engine
                yield (f"{base}.{a}" if layer(f"{base}.{a}") is not None
                       and (ROOT / Path(*f"{base}.{a}".split("."))).with_suffix(".py").exists()
                       else base), node.lineno, names
        elif isinstance(node, ast.Call) and _imports_by_name(node.func) and node.args:
            # importlib.import_module("sim.studies.x") / __import__("..."): a string import,
            # relative ones (".x", package) resolved against this module's package
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                target = first.value
                if target.startswith("."):
                    dots = len(target) - len(target.lstrip("."))
                    up = package.split(".")[:len(package.split(".")) - dots + 1]
                    target = ".".join(up + [target.lstrip(".")])
                yield target, node.lineno, ()


def _imports_by_name(func) -> bool:
    """``importlib.import_module``, ``import_module`` or ``__import__``."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("import_module", "__import__")


def test_every_import_points_down():
    wrong = []
    for name, path in modules():
        own = layer(name)
        for target, line, _ in imports(name, path):
            other = layer(target)
            if other is None:
                continue
            if own == len(LAYERS):                 # a facade re-exports from any layer
                ok = other < len(LAYERS) or name == "sim"
            else:
                ok = other <= own and target not in FACADES
            if not ok:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "imports that point up or through a facade:\n" + "\n".join(wrong)


def test_the_kernel_imports_numpy_and_numba_only():
    stdlib = set(sys.stdlib_module_names)
    wrong = []
    for name, path in modules():
        if layer(name) != 0:
            continue
        for target, line, _ in imports(name, path):
            top = target.split(".")[0]
            if top not in stdlib | KERNEL_THIRD_PARTY and not target.startswith("sim.kernel"):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_checker_sees_lazy_imports_and_can_fail(tmp_path):
    """A function-level import of a higher layer is found (the test can fail)."""
    src = tmp_path / "sim" / "kernel" / "bad.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from sim.studies import stats\n    return stats\n")
    found = list(imports("sim.kernel.bad", src))
    assert ("sim.studies", 2, ("stats",)) in found or ("sim.studies.stats", 2, ("stats",)) in found
    assert all(layer(t) == 3 for t, _, _ in found)


def test_the_checker_sees_string_imports(tmp_path):
    """``importlib.import_module`` of a higher layer, by a constant string, is found."""
    src = tmp_path / "sim" / "kernel" / "bad.py"
    src.parent.mkdir(parents=True)
    src.write_text("import importlib\n\ndef f():\n"
                   "    return importlib.import_module('sim.studies.stats')\n")
    assert ("sim.studies.stats", 4, ()) in list(imports("sim.kernel.bad", src))
