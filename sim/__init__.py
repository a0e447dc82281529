"""shithead-sim: a fast, trustworthy simulator of the card game Shithead (RULES.md).

``sim.rules`` answers single positions (POSITION.md); ``sim.runner`` plays many games;
``sim.cli`` is the ``sim`` command line.
"""
