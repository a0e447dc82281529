"""Public path of :mod:`sim.kernel.moves` (what a strategy imports; see README)."""
from sim.kernel.moves import *  # noqa: F401,F403
