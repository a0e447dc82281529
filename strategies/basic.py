"""Baseline strategies: ``random`` and ``lowest``, and the simple swap policies.

Their code is in :mod:`sim.kernel.baseline` (the batch core inlines it); here they are registered.
"""
from __future__ import annotations

from sim.kernel import baseline
from sim.kernel.strategy import move_strategy, swap_policy

random_move = move_strategy("random", "uniform over the legal moves: in a chain (H19) END and "
                            "every continuation, plays of 5 to 8 cards of two decks (H18) and "
                            "every k of a one_then_rank pick-up (H11) are moves like the others",
                            swap="random")(baseline.random_move)
lowest = move_strategy(
    "lowest",
    "plays the lowest legal rank (3 up to A, then 2, then joker), all copies when leading "
    "(5 to 8 with two decks, H18); in a chain (H19) goes on with every card of the run's rank; "
    "picks up only when nothing is legal",
    swap="highest-up",
    pure=True,
)(baseline.lowest)
keep = swap_policy("none", "keeps the face-ups as dealt (under V1: the lowest half of the "
                   "cards)")(baseline.keep)
random_swap = swap_policy("random", "a uniformly random half of the cards face up "
                          "(3 of 6; 4 of 8 under hand_size=4)")(baseline.random_swap)
highest_up = swap_policy("highest-up", "the best half of the cards face up, ranking 2s, 10s "
                         "and jokers best")(baseline.highest_up)
