"""Kept for old imports: the tallies and the Wilson interval live in :mod:`sim.runs.tally`
(``sim`` never imports ``reports``)."""
from sim.runs.tally import Tally, wilson  # noqa: F401

__all__ = ["Tally", "wilson"]
