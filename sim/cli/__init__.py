"""The front ends: the ``sim`` command line (typer) and the terminal game of ``sim play``.

The top layer: it may import every other (:mod:`sim.studies`, :mod:`sim.runs`,
:mod:`sim.kernel`, :mod:`strategies`) and :mod:`reports` for what it shows; nothing imports it.
"""
from sim.cli.app import app, main  # noqa: F401
