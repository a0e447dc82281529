"""shithead-sim: a fast, trustworthy simulator of the card game Shithead (RULES.md).

``sim.rules`` answers single positions (POSITION.md); ``sim.runner`` plays many games;
``sim.analyze`` (:mod:`sim.analysis`) values every move of a position by playouts; ``sim.cli`` is the ``sim``
command line.
"""


def load(path):
    """Open a run saved by ``sim run --out DIR``: see :func:`sim.saved.load`."""
    from sim.saved import load as _load
    return _load(path)


def analyze(position, **options):
    """Every legal move of a position with its estimated value, best first, as a pandas
    DataFrame: see :func:`sim.analysis.analyze`."""
    from sim.analysis import analyze as _analyze
    return _analyze(position, **options)
