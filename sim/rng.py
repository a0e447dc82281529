"""Public path of :mod:`sim.kernel.rng` (what a strategy imports; see README)."""
from sim.kernel.rng import *  # noqa: F401,F403
