"""Kept for old imports: the tallies and the Wilson interval live in :mod:`sim.tally`
(``sim`` never imports ``reports``)."""
from sim.tally import Tally, wilson  # noqa: F401

__all__ = ["Tally", "wilson"]
