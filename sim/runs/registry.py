"""Strategies by name: the built-ins (:mod:`strategies`, loaded when first asked for), a
user's ``FILE.py:function`` or ``package.module:function``, with parameters
``name(key=value, ...)``. The registry itself and the decorators are the kernel's
(:mod:`sim.kernel.strategy`); finding a strategy by name loads the built-in package, which
sits above the kernel, so it is done here.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sim.kernel.compiler import install
from sim.kernel.strategy import MOVES, SWAPS, Strategy, parse_call


def _load_builtins(name: str | None = None, registry: dict | None = None) -> None:
    """Register the built-ins; only :mod:`strategies.basic` when ``name`` is one of its own
    (a user's file is always loaded after every built-in, so its names never depend on
    which built-ins were loaded before it)."""
    from strategies import load

    load(first_only=True)
    if name is None or name not in registry:
        load()


def spec_file(spec: str) -> Path | None:
    """The file of a ``FILE.py:function`` strategy spec, else None."""
    where = spec.rpartition(":")[0]
    return Path(where).expanduser().resolve() if where.endswith(".py") else None


def compile_error(what: str, error: Exception) -> str:
    """A user's strategy that Numba cannot compile, in a few lines: what failed, the line of
    their file, and where the compiler's whole text was written (a log file in the cache's
    folder: some 30 lines a user rarely needs, and never on the terminal)."""
    import re

    from sim.kernel.compiler import cache_dir

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))        # Numba's colours
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    why = next((x for x in lines if not x.startswith(("Failed in", "During:"))), lines[0])
    sig = next((x.lstrip("> ") for x in lines if x.startswith(">>>")), "")
    places = re.findall(r'File "([^"]+)", line (\d+):\n[^\n]*\n\s*(.+)\n', text)
    where = ""
    if places:
        file, line, code = places[-1]
        where = f"; line {line} of {Path(file).name}: {code.strip()}"
    log = cache_dir().parent / "logs" / "compile-error.txt"
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"{what}\n\n{text}\n")
        full = f" (the compiler's whole text: {log})"
    except OSError:
        full = ""
    return (f"{what} does not compile ({type(error).__name__}): "
            f"{why.rstrip(':')}{' ' + sig if sig else ''}{where}{full}")


def _from_spec(spec: str, registry: dict, kind: str, decorator: str) -> Strategy:
    """``file.py:function`` or ``package.module:function`` -> the registered strategy."""
    import importlib
    import importlib.util
    import os
    import sys

    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise ValueError(f"{kind} {spec!r}: expected a name, FILE.py:FUNCTION or "
                         f"package.module:FUNCTION")
    try:
        if where.endswith(".py"):
            path = os.path.abspath(os.path.expanduser(where))
            if not os.path.isfile(path):
                raise ValueError(f"{kind} {spec!r}: no such file {path}")
            mod_name = "shithead_user_" + os.path.splitext(os.path.basename(path))[0]
            module = sys.modules.get(mod_name)
            if module is None or getattr(module, "__file__", None) != path:
                loader = importlib.util.spec_from_file_location(mod_name, path)
                module = importlib.util.module_from_spec(loader)
                sys.modules[mod_name] = module
                try:
                    loader.loader.exec_module(module)
                except BaseException:
                    del sys.modules[mod_name]
                    raise
        else:
            module = importlib.import_module(where)
    except ValueError:
        raise
    except Exception as e:  # the user's code: any error is theirs, say it plainly
        if type(e).__module__.startswith("numba"):
            raise ValueError(compile_error(f"{kind} {spec!r}", e)) from None
        raise ValueError(f"{kind} {spec!r}: could not import {where}: "
                         f"{type(e).__name__}: {e}") from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise ValueError(f"{kind} {spec!r}: {where} has no function {attr!r}")
    for s in registry.values():
        if s.dispatcher is fn:
            return replace(s, name=spec)
    raise ValueError(f"{kind} {spec!r}: {attr!r} is not marked with @{decorator} "
                     f"(from sim.kernel.strategy import {decorator})")


def _get(spec: str, registry: dict, kind: str, decorator: str) -> Strategy:
    install()      # Numba's process-wide patches (sim.kernel.patches), before the first load
    name, args = parse_call(spec)
    _load_builtins(name, registry)
    if name in registry:
        found = registry[name]
    elif ":" in name:
        found = _from_spec(name, registry, kind, decorator)
    else:
        raise ValueError(f"unknown {kind} {name!r}; known: {', '.join(sorted(registry))} "
                         f"(or FILE.py:FUNCTION)")
    if not args and spec.strip() == found.name:
        return found
    return found.with_args(spec.strip(), args)


def get_move(name: str) -> Strategy:
    """A move strategy by built-in name, ``file.py:function`` or ``package.module:function``."""
    return _get(name, MOVES, "strategy", "move_strategy")


def get_swap(name: str) -> Strategy:
    """A swap policy by built-in name, ``file.py:function`` or ``package.module:function``."""
    return _get(name, SWAPS, "swap policy", "swap_policy")


def all_moves() -> dict[str, Strategy]:
    _load_builtins()
    return dict(MOVES)


def all_swaps() -> dict[str, Strategy]:
    _load_builtins()
    return dict(SWAPS)
