"""The built-in strategies and swap policies; importing a module of this package registers
its strategies (:func:`load`).

The package itself imports nothing: ``sim run`` with the default ``lowest`` needs only
:mod:`strategies.basic`, and importing every module would slow a short run
(:func:`sim.runs.registry.get_move` loads the others when a name is not found in ``basic``).
"""
from __future__ import annotations

import importlib

# In the order `sim strategies` lists them; montecarlo uses heuristics.
MODULES = ("basic", "swaps", "heuristics", "montecarlo", "peers")


def load(first_only: bool = False) -> None:
    """Register the built-ins: every module, or with ``first_only`` just :mod:`strategies.basic`."""
    for name in MODULES[:1] if first_only else MODULES:
        importlib.import_module(f".{name}", __name__)
