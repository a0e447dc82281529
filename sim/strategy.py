"""Public path of the strategy interface: the decorators and signatures
(:mod:`sim.kernel.strategy`) and finding strategies by name (:mod:`sim.runs.registry`)."""
from sim.kernel.strategy import *  # noqa: F401,F403
from sim.runs.registry import all_moves, all_swaps, get_move, get_swap  # noqa: F401
