"""Public path of :mod:`sim.kernel.layout` (what a strategy imports; see README)."""
from sim.kernel.layout import *  # noqa: F401,F403
