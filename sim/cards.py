"""Public path of :mod:`sim.kernel.cards` (what a strategy imports; see README)."""
from sim.kernel.cards import *  # noqa: F401,F403
