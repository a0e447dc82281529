"""The baseline strategies' rules of play, as plain functions: ``lowest``, ``random`` and the
swap policies ``none``, ``random``, ``highest-up``.

They live in the kernel's package because the batch core inlines them
(:mod:`sim.kernel.fastpath`); :mod:`strategies.basic` registers the very same functions as
strategies, so each exists once. Every one reads the hand size (H12) from the cards it is
given and picks the forced move with :func:`sim.kernel.moves.forced`, so they play every ruleset;
plays of 5 to 8 cards (two decks, H18) come from :func:`sim.kernel.moves.big_word`, and a chain
(H19) offers its continuations and ``END`` among the legal moves.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.layout import BIG, L_BIG
from sim.kernel.moves import (
    big_play, big_word, count_legal, forced, has, lowest_bit, most_play, nth_legal,
    play_ranks, popcount,
)
from sim.kernel.rng import randint


def random_move(obs, hand, legal, rng, params):
    """uniform over the legal moves"""
    n = count_legal(legal, obs)
    if has(legal, L_BIG):                     # H18: the plays of 5 to 8 cards count too
        k = _random_big(obs, hand, rng, n)
        if k < 0:
            return -1 - k
        return nth_legal(legal, obs, k)
    return nth_legal(legal, obs, randint(rng, n))


@jit
def _random_big(obs, hand, rng, n):
    """random_move's draw among its ``n`` legal moves and the plays of 5 to 8 cards (two
    decks, H18): k < n for the k-th legal move, else -1 - the big play's id. Called, not
    inlined: no game of one deck comes here."""
    big = big_word(obs, hand)
    k = randint(rng, n + popcount(big))
    if k < n:
        return k
    for _ in range(k - n):
        big &= big - 1
    return -1 - (BIG + lowest_bit(big))


def lowest(obs, hand, legal, rng, params):
    """the lowest legal rank (3 up to A, then 2, then joker), all copies when leading; in a
    chain (H19) it goes on with all its cards of the run's rank"""
    ranks = play_ranks(legal)
    if ranks:
        return most_play(legal, lowest_bit(ranks), obs, hand)     # H18: 5 to 8 cards too
    if has(legal, L_BIG):                     # H18: only plays of 5 to 8 cards are legal
        return big_play(obs, hand, -1)
    return forced(legal, obs)


def keep(cards, obs, rng, params):
    """the face-ups as dealt (under V1: the lowest half of the cards)"""
    return (1 << (cards.shape[0] // 2)) - 1


def random_swap(cards, obs, rng, params):
    """a uniformly random half of the cards face up"""
    # A Fisher-Yates shuffle of the positions 0..n-1 (n <= 16, H12), four bits each in one
    # word rather than in an array: the batch core allocates nothing (sim.kernel.referee), which spares
    # every command the import of Numba's array implementation when it loads the core.
    n = cards.shape[0]
    order = _POSITIONS
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        si, sj = np.uint64(4 * i), np.uint64(4 * j)
        d = ((order >> si) ^ (order >> sj)) & _NIBBLE       # swap positions i and j
        order ^= (d << si) | (d << sj)
    chosen = 0
    for i in range(n // 2):
        chosen |= 1 << np.int64((order >> np.uint64(4 * i)) & _NIBBLE)
    return chosen


_POSITIONS = np.uint64(0xFEDCBA9876543210)     # position k in bits 4k..4k+3
_NIBBLE = np.uint64(15)


# Face-up value for highest-up: plain rank, except 10, 2 and the joker, which are the best.
_UP_VALUE = np.array([0, 1, 2, 3, 4, 5, 6, 12, 8, 9, 10, 11, 13, 14], np.int64)


def highest_up(cards, obs, rng, params):
    """the best half of the cards face up, ranking 2s, 10s and jokers best"""
    # The default hand size (H12: 3) as a constant: the loops unroll and each card's key
    # stays in a register. (Each such copy adds to the compile: not one for the other size.)
    n = cards.shape[0]
    if n == 6:
        return _best_half(cards, 6)
    return _best_half(cards, n)


@jit(inline="always")
def _best_half(cards, n):
    """highest-up's choice among ``n`` cards."""
    # Card i goes up when fewer than half the cards beat it: by value, and among equal
    # values the earlier card first (the key's low bits: at most 16 cards, H12). Branch-free
    # compares instead of picking the best card three times.
    chosen = 0
    for i in range(n):
        key = _UP_VALUE[cards[i]] * 16 + 15 - i
        above = 0
        for j in range(n):
            above += _UP_VALUE[cards[j]] * 16 + 15 - j > key
        chosen |= (1 << i) if above < n // 2 else 0
    return chosen
