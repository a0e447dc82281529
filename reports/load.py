"""Kept for old imports: ``sim.load`` lives in :mod:`sim.studies.saved` (``sim`` never imports
``reports``)."""
from sim.runs.saved import Loaded  # noqa: F401
from sim.studies.saved import load  # noqa: F401

__all__ = ["Loaded", "load"]
