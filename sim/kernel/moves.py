"""Move ids and the legal word, with the small jitted helpers strategies use.

A move is an integer (:mod:`sim.kernel.layout`): a play of ``n`` cards of rank ``r`` is
``(n - 1) * 14 + r``; ``ADD + r`` adds face-up rank ``r`` and picks up (R12); ``PICKUP``;
``BLIND``. The legal moves of a position are one *legal word*: bit ``m`` for each
legal play ``m``, and the bits ``L_PICKUP``, ``L_BLIND`` and ``L_ADD`` (an ``int64``: the
highest bit used is 58). Bit tricks on it are
cheap, which keeps the referee loop fast; :func:`legal_list` turns it into a list of ids.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import ix, jit
from sim.kernel.layout import (
    ADD, BLIND, CURRENT, FU, L_ADD, L_BLIND, L_PICKUP, L_UPLOW, NMOVES, NR, PICKUP,
    RANKS_MASK,
)

_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@jit(inline="always")
def play_id(rank, n):
    """The id of a play of ``n`` cards (1..4) of ``rank``."""
    return (n - 1) * NR + rank


# A move's rank and number of cards looked up by its id (0 .. NMOVES - 1) rather than
# divided out: in the engine they sit on a turn's critical path (the choice -> the rank ->
# the pile's top -> the next legal word), where the division cost 1% of a turn
# (4p lowest, benchmarks/ab.py).
_RANK_OF = np.array([m % NR if m < ADD else m - ADD for m in range(NMOVES)], np.int64)
_CARDS_OF = np.array([m // NR + 1 for m in range(NMOVES)], np.int64)


@jit(inline="always")
def move_rank(m):
    """The rank a play or an add is about."""
    return _RANK_OF[ix(m)]


@jit(inline="always")
def move_cards(m):
    """How many cards a play puts on the pile."""
    return _CARDS_OF[ix(m)]


@jit(inline="always")
def has(legal, bit):
    """Is ``bit`` set in the legal word?"""
    return (legal >> bit) & 1 != 0


@jit(inline="always")
def popcount(x):
    """Number of set bits of a uint64."""
    x = np.uint64(x)
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@jit(inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a positive int64."""
    return popcount((x & -x) - 1)


@jit(inline="always")
def play_ranks(legal):
    """14-bit set of the ranks with at least one legal play."""
    return (legal | (legal >> NR) | (legal >> (2 * NR)) | (legal >> (3 * NR))) & RANKS_MASK


@jit(inline="always")
def most_cards(legal, rank):
    """The largest legal play of ``rank`` (an id), or -1 when none is legal."""
    for n in range(4, 0, -1):
        if has(legal, (n - 1) * NR + rank):
            return (n - 1) * NR + rank
    return -1


@jit(inline="always")
def forced(legal, obs):
    """The move of a player who plays nothing: the blind turn (R14, R16), else a pick-up
    (R10), else (H11 "must_add_rank") a pick-up naming the lowest face-up rank, which the
    legal word carries (``L_UPLOW``): no loop over the face-ups inside every strategy."""
    if has(legal, L_BLIND):
        return BLIND
    if has(legal, L_PICKUP):
        return PICKUP
    return ADD + ((legal >> L_UPLOW) & 15)


@jit(inline="always")
def is_legal(legal, m, obs):
    """Is move ``m`` legal for the seat to move? (``obs``: the observation, for adds.)"""
    if m < 0 or m > BLIND:
        return False
    if m < ADD:
        return has(legal, m)
    if m == PICKUP:
        return has(legal, L_PICKUP)
    if m == BLIND:
        return has(legal, L_BLIND)
    return has(legal, L_ADD) and obs[ix(FU + obs[CURRENT] * NR + m - ADD)] > 0


@jit(inline="always")
def _adds(legal, obs):
    """14-bit set of the face-up ranks the mover may add before picking up (R12)."""
    if not has(legal, L_ADD):
        return 0
    p = obs[CURRENT]
    bits = 0
    for r in range(NR):
        bits |= np.int64(obs[ix(FU + p * NR + r)] > 0) << r
    return bits


@jit(inline="always")
def count_legal(legal, obs):
    """How many legal moves there are."""
    plays = legal & ((np.int64(1) << ADD) - 1)
    return (popcount(plays) + popcount(_adds(legal, obs)) + has(legal, L_PICKUP)
            + has(legal, L_BLIND))


@jit(inline="always")
def nth_legal(legal, obs, k):
    """The ``k``-th legal move (from 0) in the order of :func:`legal_list`."""
    plays = legal & ((np.int64(1) << ADD) - 1)
    adds = _adds(legal, obs)
    for bits, offset in ((plays, 0), (adds, ADD)):
        n = popcount(bits)
        if k < n:
            for _ in range(k):
                bits &= bits - 1                 # drop the lowest set bit
            return offset + lowest_bit(bits)
        k -= n
    if has(legal, L_PICKUP):
        if k == 0:
            return PICKUP
        k -= 1
    return BLIND if k == 0 and has(legal, L_BLIND) else -1


@jit
def legal_list(legal, obs, out):
    """Write the legal move ids, in increasing order, into ``out`` (>= 72 long); return how
    many there are."""
    k = 0
    for m in range(ADD):
        if has(legal, m):
            out[k] = m
            k += 1
    if has(legal, L_ADD):
        p = obs[CURRENT]
        for r in range(NR):
            if obs[ix(FU + p * NR + r)] > 0:
                out[k] = ADD + r
                k += 1
    if has(legal, L_PICKUP):
        out[k] = PICKUP
        k += 1
    if has(legal, L_BLIND):
        out[k] = BLIND
        k += 1
    return k
