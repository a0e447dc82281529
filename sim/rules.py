"""Public path of the single-position API (docs/position.md), :mod:`sim.kernel.position`."""
from sim.kernel.position import *  # noqa: F401,F403
