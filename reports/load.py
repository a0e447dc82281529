"""Kept for old imports: ``sim.load`` lives in :mod:`sim.runs.saved` (``sim`` never imports
``reports``)."""
from sim.runs.saved import Loaded, load  # noqa: F401

__all__ = ["Loaded", "load"]
