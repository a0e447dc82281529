"""shithead-sim: a fast, trustworthy simulator of the card game Shithead (RULES.md).

``sim.rules`` answers single positions (POSITION.md); ``sim.runner`` plays many games;
``sim.cli`` is the ``sim`` command line.
"""


def load(path):
    """Open a run saved by ``sim run --out DIR``: see :func:`sim.saved.load`."""
    from sim.saved import load as _load
    return _load(path)
