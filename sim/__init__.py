"""shithead-sim: a fast, trustworthy simulator of the card game Shithead (docs/rules.md).

The package is laid out by layer; each imports only the layers below it
(``tests/test_layers.py``):

- :mod:`sim.kernel`: the rules, the game state, the referee, the strategy interface, the
  single-position API, and the one seam to Numba's internals;
- :mod:`strategies` (beside ``sim``): the built-in strategies;
- :mod:`sim.runs`: many games, saved and tallied;
- :mod:`sim.studies`: tournaments, the swap study, tuning, position analysis;
- :mod:`reports` (beside ``sim``): text and HTML;
- :mod:`sim.cli`: the ``sim`` command and the terminal game.

The paths a strategy or a notebook uses stay short: ``sim.strategy``, ``sim.moves``,
``sim.layout``, ``sim.cards``, ``sim.rng``, ``sim.rules`` (docs/position.md), :func:`sim.load`
and :func:`sim.analyze`. Importing ``sim`` changes nothing process-wide.
"""

from sim.kernel.version import VERSION as __version__  # noqa: F401 (re-exported)


def load(path):
    """Open a folder saved by ``sim run``, ``sim compare``, ``sim study``, ``sim tune`` or
    ``sim review`` (``--out DIR``): see :func:`sim.studies.saved.load`."""
    from sim.studies.saved import load as _load
    return _load(path)


def analyze(position, **options):
    """Every legal move of a position with its estimated value, best first, as a pandas
    DataFrame: see :func:`sim.studies.analysis.analyze`."""
    from sim.studies.analysis import analyze as _analyze
    return _analyze(position, **options)
