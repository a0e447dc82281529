"""Kept for old imports: ``sim.load`` lives in :mod:`sim.saved` (``sim`` never imports
``reports``)."""
from sim.saved import Loaded, load  # noqa: F401

__all__ = ["Loaded", "load"]
