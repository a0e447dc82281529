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
:func:`sim.analyze`, :func:`sim.run`, :func:`sim.compare`, :func:`sim.study_swap`,
:func:`sim.study_rules`, :func:`sim.tune`, :func:`sim.swap` and :func:`sim.report`.
Importing ``sim`` changes nothing process-wide.
"""

from sim.kernel.version import VERSION as __version__  # noqa: F401 (re-exported)


def run(**options):
    """Play games as ``sim run`` does, its options as keyword arguments; the result as
    :func:`load` opens a saved run: see :func:`sim.cli.api.run`."""
    from sim.cli.api import run as _run
    return _run(**options)


def compare(strategies, **options):
    """A fair tournament as ``sim compare`` plays it; the result as :func:`load` opens a
    saved one: see :func:`sim.cli.api.compare`."""
    from sim.cli.api import compare as _compare
    return _compare(strategies, **options)


def study_swap(**options):
    """The swap study as ``sim study swap`` runs it; the result as :func:`load` opens the
    saved study: see :func:`sim.cli.api.study_swap`."""
    from sim.cli.api import study_swap as _study_swap
    return _study_swap(**options)


def study_rules(**options):
    """The rules lab as ``sim study rules`` runs it; the result as :func:`load` opens the
    saved lab: see :func:`sim.cli.api.study_rules`."""
    from sim.cli.api import study_rules as _study_rules
    return _study_rules(**options)


def tune(strategy, **options):
    """A strategy's parameters tuned as ``sim tune`` does (optuna); the result as
    :func:`load` opens the saved tuning: see :func:`sim.cli.api.tune`."""
    from sim.cli.api import tune as _tune
    return _tune(strategy, **options)


def swap(cards, **options):
    """Which three of six cards to put face up, as ``sim swap`` answers it: the splits as a
    pandas DataFrame, best first: see :func:`sim.cli.api.swap`."""
    from sim.cli.api import swap as _swap
    return _swap(cards, **options)


def report(result, output=None):
    """Write the HTML page of a saved folder (a result, or its path) as ``sim report`` does;
    returns the page's path: see :func:`sim.cli.api.report`."""
    from sim.cli.api import report as _report
    return _report(result, output)


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
