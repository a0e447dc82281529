"""Public path of the single-position API (POSITION.md), :mod:`sim.kernel.position`."""
from sim.kernel.position import *  # noqa: F401,F403
