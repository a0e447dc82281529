"""The peers' bots' rules of play (docs/rules.md §11.6), as plain functions: ``cheapest`` and
``simple``, with their parameter rows made by :mod:`strategies.peers`.

They live in the kernel's package, like :mod:`sim.kernel.baseline`, because the batch core
inlines them (:mod:`sim.kernel.fastpath`) instead of calling them as first-class functions;
:mod:`strategies.peers` registers the very same functions as strategies (their parameters,
descriptions and the rows' layout are there), so each exists once.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.layout import (
    ADD, CURRENT, END, FU, HANDN, L_ADD, L_BIG, L_BLIND, L_END, NR, RUN, STOCKLEN, TOPRANK,
)
from sim.kernel.moves import (
    big_ranks, big_word, forced, has, least_big, lowest_bit, most_big, most_cards, play_id, play_ranks,
)
from sim.kernel.rng import randint

TABLE = 2          # where the order's tables start in a row (strategies.peers)


@jit(inline="always")
def first_of(ranks, params):
    """The rank of the (non-empty) 14-bit set ``ranks`` that comes first in the row's order."""
    a = np.int64(params[TABLE + (ranks & 127)])
    b = np.int64(params[TABLE + 128 + (ranks >> 7)])
    return min(a, b) & 15


@jit(inline="always")
def _one(legal, r, big):
    """One card of rank ``r`` if that is legal, else the least legal number of them (R9; of
    5 to 8 cards from ``big``, :func:`sim.kernel.moves.big_word`, two decks, H18)."""
    for n in range(1, 5):
        if has(legal, play_id(r, n)):
            return play_id(r, n)
    return least_big(big, r)


@jit(inline="always")
def _all(legal, r, big):
    """The largest legal play of rank ``r``, of 5 to 8 cards too (``big``, H18)."""
    m = most_big(big, r)
    return m if m >= 0 else most_cards(legal, r)


@jit(inline="always")
def _no_play(obs, legal, params):
    """Blind (R14), else a pick-up naming the first face-up rank in the order (R12, H11) when
    one may be named, else the plain pick-up (R10)."""
    if has(legal, L_BLIND) or not has(legal, L_ADD):
        return forced(legal, obs)
    base = FU + obs[CURRENT] * NR
    ups = 0
    for r in range(NR):
        if obs[base + r] > 0:
            ups |= 1 << r
    return ADD + first_of(ups, params)


@jit(inline="always")
def _drawn(ranks, counts, base, rng):
    """A rank of the 14-bit set ``ranks`` drawn at random, each weighted by its number of
    cards ``counts[base + r]``: the rank of the first of those cards in a random order. No
    draw when there is one rank; only the ranks of the set are visited."""
    if ranks & (ranks - 1) == 0:
        return lowest_bit(ranks)
    total = 0
    bits = ranks
    while bits:
        total += counts[base + lowest_bit(bits)]
        bits &= bits - 1
    k = randint(rng, total)
    while True:
        r = lowest_bit(ranks)
        k -= counts[base + r]
        if k < 0 or ranks & (ranks - 1) == 0:
            return r
        ranks &= ranks - 1



def cheapest(obs, hand, legal, rng, params):
    """trachwo's CheapShit (:mod:`strategies.peers`, docs/rules.md §11.6)"""
    ranks = play_ranks(legal)
    big = big_word(obs, hand) if has(legal, L_BIG) else np.int64(0)   # H18
    ranks |= big_ranks(big)
    if ranks == 0:
        return _no_play(obs, legal, params)
    r = first_of(ranks, params)
    every = obs[STOCKLEN] == 0 or (np.int64(params[0]) >> r) & 1 != 0
    if has(legal, L_END):                     # H19: go on with all of 4..J (stock empty: any)
        return _all(legal, r, big) if every else END
    if every and (np.int64(params[1]) >> r) & 1 == 0:
        return _all(legal, r, big)
    if obs[TOPRANK] == r and obs[RUN] >= 3:   # its cards complete a four (R22): all of them
        return _all(legal, r, big)
    return _one(legal, r, big)


def simple(obs, hand, legal, rng, params):
    """boothj5's Simple (:mod:`strategies.peers`)"""
    ranks = play_ranks(legal)
    big = np.int64(0)
    if has(legal, L_BIG):                     # H18: plays of 5 to 8 cards
        big = big_word(obs, hand)
        ranks |= big_ranks(big)
    if ranks == 0:
        return _no_play(obs, legal, params)
    single = np.int64(params[0])
    if has(legal, L_END):                     # H19: as Simple lays cards, all of a normal
        r = obs[TOPRANK]                      # rank, one of a `single` rank, never two
        return END if (single >> r) & 1 else _all(legal, r, big)
    p = obs[CURRENT]
    if obs[HANDN + p] > 0:
        r = first_of(ranks, params)
        if (single >> r) & 1:
            r = _drawn(ranks & single, hand, 0, rng)
    else:
        r = _drawn(ranks, obs, FU + p * NR, rng)
    if (single >> r) & 1:
        return _one(legal, r, big)
    return _all(legal, r, big)
