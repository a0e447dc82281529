"""The optional parts of the package (pyproject.toml's extras) and the one error line that
names the ``pip install`` giving a missing one, so a base install never ends in a traceback."""
from __future__ import annotations

import importlib

from sim.runs.config import RunError

# module -> the extra that installs it
EXTRA = {"distributed": "cluster", "optuna": "tune", "pettingzoo": "rl", "gymnasium": "rl"}


def require(module: str, what: str):
    """Import ``module`` for ``what`` (e.g. ``"sim tune"``), or raise :class:`RunError` saying
    which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise RunError(f"{what} needs {module}, which the base install leaves out: "
                       f"pip install 'shithead-sim[{EXTRA[module]}]'") from None
