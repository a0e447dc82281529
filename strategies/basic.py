"""Baseline strategies: ``random`` and ``lowest``, and the simple swap policies."""
from __future__ import annotations

import numpy as np

from sim.layout import BLIND, L_BLIND, PICKUP
from sim.moves import count_legal, has, lowest_bit, most_cards, nth_legal, play_ranks
from sim.rng import randint
from sim.strategy import move_strategy, swap_policy


@move_strategy("random", "uniform over the legal moves", swap="random")
def random_move(obs, hand, legal, rng, params):
    return nth_legal(legal, obs, randint(rng, count_legal(legal, obs)))


@move_strategy(
    "lowest",
    "plays the lowest legal rank (3 up to A, then 2, then joker), all copies when leading; "
    "picks up only when nothing is legal",
    swap="highest-up",
)
def lowest(obs, hand, legal, rng, params):
    ranks = play_ranks(legal)
    if ranks:
        return most_cards(legal, lowest_bit(ranks))
    return BLIND if has(legal, L_BLIND) else PICKUP


@swap_policy("none", "keeps the face-ups as dealt (under V1: the three lowest of the six)")
def keep(cards, obs, rng, params):
    return 0b000111


@swap_policy("random", "a uniformly random choice of 3 face-ups among the 6 cards")
def random_swap(cards, obs, rng, params):
    order = np.arange(6)
    for i in range(5, 0, -1):
        j = randint(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    return (1 << order[0]) | (1 << order[1]) | (1 << order[2])


# Face-up value for highest-up: plain rank, except 10, 2 and the joker, which are the best.
_UP_VALUE = np.array([0, 1, 2, 3, 4, 5, 6, 12, 8, 9, 10, 11, 13, 14], np.int64)


@swap_policy("highest-up", "the 3 best cards face up, ranking 2s, 10s and jokers best")
def highest_up(cards, obs, rng, params):
    chosen = 0
    for _ in range(3):
        best = -1
        for i in range(6):
            if not (chosen >> i) & 1 and (best < 0 or _UP_VALUE[cards[i]] > _UP_VALUE[cards[best]]):
                best = i
        chosen |= 1 << best
    return chosen
