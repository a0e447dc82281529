"""Baseline strategies: ``random`` and ``lowest``, and the simple swap policies."""
from __future__ import annotations

import numpy as np

from sim.layout import ADD, BLIND, NMOVES, PICKUP
from sim.rng import randint
from sim.strategy import move_strategy, swap_policy


@move_strategy("random", "uniform over the legal moves", swap="random")
def random_move(obs, hand, legal, rng, params):
    n = 0
    for m in range(NMOVES):
        n += legal[m]
    k = randint(rng, n)
    for m in range(NMOVES):
        if legal[m]:
            if k == 0:
                return m
            k -= 1
    return -1


@move_strategy(
    "lowest",
    "plays the lowest legal rank (3 up to A, then 2, then joker), all copies when leading; "
    "picks up only when nothing is legal",
    swap="highest-up",
)
def lowest(obs, hand, legal, rng, params):
    for m in range(ADD):          # play ids run rank by rank, 1..4 cards each
        if legal[m]:
            r = m // 4
            n = m % 4 + 1
            while n < 4 and legal[r * 4 + n]:
                n += 1            # when leading, all copies: the largest legal n
            return r * 4 + n - 1
    if legal[BLIND]:
        return BLIND
    return PICKUP


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
