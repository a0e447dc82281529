"""``lowest`` as a user's strategy: the same moves, so the same games, but the batch core does
not recognise it and calls it as a first-class function through the generic referee loop.

    python benchmarks/turn_cost.py lowest@seed benchmarks/first_class_lowest.py:lowest_called@seed

measures what the fast path of a table of ``lowest`` saves (benchmarks/results/peers-turn-cost.md).
"""
from sim.kernel.baseline import lowest
from sim.kernel.compiler import jit
from sim.kernel.strategy import move_strategy

_lowest = jit(inline="always")(lowest)


@move_strategy("lowest-called", pure=True)
def lowest_called(obs, hand, legal, rng, params):
    return _lowest(obs, hand, legal, rng, params)
