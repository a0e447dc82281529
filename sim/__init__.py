"""shithead-sim: a fast, trustworthy simulator of the card game Shithead (docs/rules.md).

The package is laid out by layer; each imports only the layers below it
(``tests/test_layers.py``):

- :mod:`sim.kernel`: the rules, the game state, the referee, the strategy interface, the
  single-position API, and the one seam to Numba's internals;
- :mod:`strategies` (beside ``sim``): the built-in strategies;
- :mod:`sim.runs`: many games, saved and tallied;
- :mod:`sim.studies`: tournaments, the swap study, tuning, position analysis;
- :mod:`reports` (beside ``sim``): text and HTML;
- :mod:`sim.commands`: the long commands, each declared once (options, work, saved folder),
  and the Python API derived from them;
- :mod:`sim.cli`: the ``sim`` command (its long commands derived from the declarations) and
  the terminal game.

The paths a strategy or a notebook uses stay short: ``sim.strategy``, ``sim.moves``,
``sim.layout``, ``sim.cards``, ``sim.rng``, ``sim.rules`` (docs/position.md), :func:`sim.load`
:func:`sim.analyze`, :func:`sim.run`, :func:`sim.compare`, :func:`sim.study_swap`,
:func:`sim.study_rules`, :func:`sim.tune`, :func:`sim.swap` and :func:`sim.report`.
Importing ``sim`` changes nothing process-wide.
"""

from sim.kernel.version import VERSION as __version__  # noqa: F401 (re-exported)


def __getattr__(name: str):
    """``sim.run``, ``sim.compare``, ``sim.study_swap``, ``sim.study_rules``, ``sim.tune``,
    ``sim.swap``, ``sim.analyze`` and any command registered with a ``python`` name: the command's options as
    keyword arguments, derived from its declaration (:func:`sim.commands.api.function`)."""
    from sim.commands import by_python_name

    command = by_python_name(name) if not name.startswith("__") else None
    if command is None:
        raise AttributeError(f"module 'sim' has no attribute {name!r}")
    from sim.commands.api import function

    globals()[name] = made = function(command)
    return made


def __dir__():
    from sim.commands import COMMANDS

    return sorted(set(globals()) | {c.python for c in COMMANDS.values() if c.python})


def report(result, output=None):
    """Write the HTML page of a saved folder (a result, or its path) as ``sim report`` does;
    returns the page's path: see :func:`sim.commands.api.report`."""
    from sim.commands.api import report as _report
    return _report(result, output)


def load(path):
    """Open a folder saved by ``sim run``, ``sim compare``, ``sim study``, ``sim tune`` or
    ``sim review`` (``--out DIR``): see :func:`sim.studies.saved.load`."""
    from sim.studies.saved import load as _load
    return _load(path)
