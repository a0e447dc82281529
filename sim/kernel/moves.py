"""Move ids and the legal word, with the small jitted helpers strategies use.

A move is an integer (:mod:`sim.kernel.layout`): a play of ``n`` cards (1..4) of rank ``r`` is
``(n - 1) * 14 + r``; ``ADD + r`` adds face-up rank ``r`` and picks up (R12, H11); ``PICKUP``;
``BLIND``; then ``END`` (H19), ``BIG + (n - 5) * 14 + r`` (5..8 cards, two decks, H18) and
``ADDN + (k - 1) * 14 + r`` (H11 ``one_then_rank``: k face-up cards of r, fewer than all).
:func:`play_id` gives the id of any play. The legal moves of a position are one *legal word*:
bit ``m`` for each legal play ``m`` of 1..4 cards, and the bits ``L_PICKUP``, ``L_BLIND``,
``L_ADD``, ``L_END`` and ``L_BIG`` (an ``int64``: the highest bit used is 60). Bit tricks on it
are cheap, which keeps the referee loop fast; :func:`legal_list` turns it into a list of ids.
Big plays need the hand: :func:`big_word` lists them.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import ix, jit
from sim.kernel.layout import (
    ADD, ADDN, BIG, BLIND, CHAIN, COUNT, CURRENT, END, FU, HANDN, HANDS, L_ADD, L_BIG, L_BLIND,
    L_END,
    L_PICKUP, NDECKS, NMOVES, NR, PICKUP, R_COUNT, R_FOLLOW, R_FUPICK, RANKS_MASK, TOP, TOPRANK,
)

_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@jit(inline="always")
def play_id(rank, n):
    """The id of a play of ``n`` cards (1..8; 5..8 only with two decks, H18) of ``rank``."""
    return (n - 1) * NR + rank if n <= 4 else BIG + (n - 5) * NR + rank


def _rank_and_cards(m: int) -> tuple[int, int]:
    """A move id's rank and cards (a play's cards; an add's cards, k of ADDN; 0 otherwise)."""
    if m < ADD:
        return m % NR, m // NR + 1
    if m < PICKUP:
        return m - ADD, 1
    if BIG <= m < ADDN:
        return (m - BIG) % NR, (m - BIG) // NR + 5
    if m >= ADDN:
        return (m - ADDN) % NR, (m - ADDN) // NR + 1
    return -1, 0


# A move's rank and number of cards looked up by its id (0 .. NMOVES - 1) rather than
# divided out: in the engine they sit on a turn's critical path (the choice -> the rank ->
# the pile's top -> the next legal word), where a division is measurably slower
# (benchmarks/ab.py).
_RANK_OF = np.array([_rank_and_cards(m)[0] for m in range(NMOVES)], np.int64)
_CARDS_OF = np.array([_rank_and_cards(m)[1] for m in range(NMOVES)], np.int64)


@jit(inline="always")
def move_rank(m):
    """The rank a play or an add is about (-1 for PICKUP, BLIND and END)."""
    return _RANK_OF[ix(m)]


@jit(inline="always")
def move_cards(m):
    """How many cards a play puts on the pile (an ADDN add: how many it adds)."""
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
    """The largest legal play of 1..4 cards of ``rank`` (an id), or -1 when none is legal
    (larger plays of two decks: :func:`big_word`)."""
    for n in range(4, 0, -1):
        if has(legal, (n - 1) * NR + rank):
            return (n - 1) * NR + rank
    return -1


@jit
def _big(obs, hand, h):
    """:func:`big_word` with the hand's counts at ``hand[h:h + 14]``. Called, not inlined: its
    loops are read only in games of two decks, and inlined at every caller they lengthened
    the cold compile."""
    if obs[NDECKS] < 2:
        return np.int64(0)
    p = obs[CURRENT]
    if obs[ix(HANDN + p)] == 0:              # face-ups hold at most 4 cards (H12)
        return np.int64(0)
    count = obs[COUNT]
    ranks = RANKS_MASK
    lo = 5                                   # the sizes allowed: lo..hi
    hi = 8
    if obs[CHAIN] > 0:                       # H19: a continuation of the run's rank
        ranks = 1 << obs[TOPRANK]
    elif count > 0:                          # a follow (H0): the ranks the top allows
        ranks = np.int64(obs[ix(R_FOLLOW + 1 + obs[TOP])])
        if obs[R_COUNT]:
            lo = max(count, 5)               # R9: exactly the count (none below 5)
            hi = count
    word = np.int64(0)
    for r in range(NR):
        if (ranks >> r) & 1:
            c = hand[ix(h + r)]
            for n in range(lo, min(c, hi) + 1):
                word |= np.int64(1) << ((n - 5) * NR + r)
    return word


@jit(inline="always")
def big_word(obs, hand):
    """The legal plays of 5 to 8 cards (two decks, H18) of the seat to move, whose hand is
    ``hand``: bit ``(n - 5) * 14 + r`` for a play of ``n`` cards of rank ``r``, whose id is
    ``BIG`` + that bit's index. Zero unless the legal word has ``L_BIG``. They come from the
    hand only, and are legal exactly where a play of that size would be (H18): a lead, a
    follow of a legal rank (under R9 only of the count's size), a continuation (H19).
    (The batch core may hand a built-in the whole state as ``hand``, sim.kernel.fastpath:
    then the mover's hand is read in it.)"""
    return _big(obs, hand, 0 if hand.shape[0] == NR else HANDS + obs[CURRENT] * NR)


@jit(inline="always")
def big_ranks(big):
    """14-bit set of the ranks with a legal big play in ``big`` (:func:`big_word`)."""
    return (big | (big >> NR) | (big >> (2 * NR)) | (big >> (3 * NR))) & RANKS_MASK


@jit(inline="always")
def most_big(big, rank):
    """The largest play of ``rank`` in ``big`` (:func:`big_word`), an id, or -1."""
    return _most_big(big, rank) if big != 0 else -1


@jit
def _most_big(big, rank):
    """:func:`most_big` of a non-zero ``big``. Called, not inlined, like :func:`_big`: only
    games of two decks come here (H18)."""
    for n in range(8, 4, -1):
        if has(big, (n - 5) * NR + rank):
            return BIG + (n - 5) * NR + rank
    return -1


@jit(inline="always")
def least_big(big, rank):
    """The smallest play of ``rank`` in ``big`` (:func:`big_word`), an id, or -1."""
    return _least_big(big, rank) if big != 0 else -1


@jit
def _least_big(big, rank):
    """:func:`least_big` of a non-zero ``big`` (called, not inlined: two decks only, H18)."""
    for n in range(5, 9):
        if has(big, (n - 5) * NR + rank):
            return BIG + (n - 5) * NR + rank
    return -1


@jit(inline="always")
def most_play(legal, rank, obs, hand):
    """The largest legal play of ``rank`` (an id), plays of 5 to 8 cards included (two decks,
    H18: :func:`big_word`), or -1 when no play of 1 to 4 of it is legal. Those are looked
    for only where 4 cards of the rank may be played: a strategy pays nothing for them under
    one deck."""
    if has(legal, 3 * NR + rank):
        if has(legal, L_BIG):
            m = big_play(obs, hand, rank)
            if m >= 0:
                return m
        return 3 * NR + rank
    for n in range(3, 0, -1):
        if has(legal, (n - 1) * NR + rank):
            return (n - 1) * NR + rank
    return -1


@jit(inline="always")
def big_play(obs, hand, rank):
    """The largest legal play of 5 to 8 cards (two decks, H18) of ``rank``, or for ``rank``
    -1 of the lowest rank with one (3 up to A, then 2, then joker); -1 when there is none."""
    return _big_play(obs, hand, np.int64(rank))     # not a literal: one compile per array type


@jit
def _big_play(obs, hand, rank):
    """:func:`big_play`. Called, not inlined: only games of two decks come here."""
    big = big_word(obs, hand)
    if rank < 0:
        ranks = big_ranks(big)
        if ranks == 0:
            return -1
        rank = lowest_bit(ranks)
    return most_big(big, rank)


@jit(inline="always")
def _lowest_up(obs):
    """The mover's lowest face-up rank (-1 for none)."""
    base = FU + obs[CURRENT] * NR
    for r in range(NR):
        if obs[ix(base + r)] > 0:
            return r
    return -1


@jit(inline="always")
def forced(legal, obs):
    """The move of a player who plays nothing: the blind turn (R14, R16), else a pick-up
    (R10), else ``END`` in a chain (H19), else (H11 "must_add_rank", "one_then_rank") a
    pick-up with all of the lowest face-up rank; -1 when only plays are legal (two decks,
    H18: only plays of 5 to 8 cards, :func:`big_word`; the caller must play)."""
    if has(legal, L_BLIND):
        return BLIND
    if has(legal, L_PICKUP):
        return PICKUP
    if has(legal, L_END):
        return END
    if has(legal, L_ADD):
        return ADD + _lowest_up(obs)
    return -1


@jit(inline="always")
def legal_in(legal, m, obs, hand, h):
    """Is move ``m`` legal for the seat to move, whose legal word is ``legal`` (R24)? The one
    check of a move: the referee's (:func:`sim.kernel.engine.legal_move`), a strategy's
    (:func:`is_legal`, :func:`is_legal_move`) and the terminal game's all call it. ``obs``:
    the observation (for adds); the mover's hand counts are ``hand[h:h + 14]`` (read for a
    big play only, H18). The moves of the seed rules are checked inline, the others
    (``END``, big plays, ``ADDN``, ids out of range) out of line, in :func:`_legal_rare`:
    inlined at every caller they lengthened the cold compile."""
    if m < ADD:
        return m >= 0 and has(legal, m)
    if m == PICKUP:
        return has(legal, L_PICKUP)
    if m == BLIND:
        return has(legal, L_BLIND)
    if m < PICKUP:
        return has(legal, L_ADD) and obs[ix(FU + obs[CURRENT] * NR + m - ADD)] > 0
    return _legal_rare(legal, m, obs, hand, h)


@jit
def _legal_rare(legal, m, obs, hand, h):
    """:func:`legal_in` of ``END`` (H19), a big play (H18), ``ADDN`` (H11) or an id out of
    range. Called, not inlined: no seed game's move comes here."""
    if m == END:
        return has(legal, L_END)
    if m >= BIG and m < ADDN:                # H18: 5 to 8 cards, from the hand
        return has(legal, L_BIG) and has(_big(obs, hand, h), m - BIG)
    if m >= ADDN and m < NMOVES:             # H11 one_then_rank: fewer than all of a rank
        k = (m - ADDN) // NR + 1
        return (has(legal, L_ADD) and obs[R_FUPICK] == 3
                and obs[ix(FU + obs[CURRENT] * NR + (m - ADDN) % NR)] > k)
    return False


@jit(inline="always")
def is_legal(legal, m, obs):
    """Is move ``m`` legal for the seat to move? (``obs``: the observation, for adds.) Not for
    a big play (two decks, H18), which needs the hand: False for those ids;
    :func:`is_legal_move` checks every move. Both are :func:`legal_in`."""
    return not (m >= BIG and m < ADDN) and legal_in(legal, m, obs, obs, 0)


@jit(inline="always")
def is_legal_move(legal, m, obs, hand):
    """:func:`is_legal` for every move, big plays included (``hand``: the mover's hand)."""
    return legal_in(legal, m, obs, hand, 0)


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
def _partial(legal, obs):
    """The ADDN ids legal (H11 one_then_rank: k < all of a face-up rank), as bits m - ADDN."""
    if not has(legal, L_ADD) or obs[R_FUPICK] != 3:
        return np.int64(0)
    return _partial_bits(obs)


@jit
def _partial_bits(obs):
    """:func:`_partial` under one_then_rank with an add legal. Called, not inlined: no other
    ruleset comes here (H11)."""
    p = obs[CURRENT]
    bits = np.int64(0)
    for r in range(NR):
        for k in range(1, obs[ix(FU + p * NR + r)]):
            bits |= np.int64(1) << ((k - 1) * NR + r)
    return bits


@jit(inline="always")
def count_legal(legal, obs):
    """How many legal moves there are, big plays (two decks, H18) aside."""
    plays = legal & ((np.int64(1) << ADD) - 1)
    return (popcount(plays) + popcount(_adds(legal, obs)) + has(legal, L_PICKUP)
            + has(legal, L_BLIND) + has(legal, L_END) + popcount(_partial(legal, obs)))


@jit(inline="always")
def nth_legal(legal, obs, k):
    """The ``k``-th legal move (from 0) in the order of :func:`legal_list` (big plays
    aside)."""
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
    if has(legal, L_BLIND):
        if k == 0:
            return BLIND
        k -= 1
    return _nth_rare(legal, obs, k)


@jit
def _nth_rare(legal, obs, k):
    """:func:`nth_legal` past the plays, adds, pick-up and blind turn: ``END`` (H19), then the
    ADDN ids (H11 one_then_rank). Called, not inlined: the seed rules never come here with a
    ``k`` in range."""
    if has(legal, L_END):
        if k == 0:
            return END
        k -= 1
    bits = _partial(legal, obs)
    if k < popcount(bits):
        for _ in range(k):
            bits &= bits - 1
        return ADDN + lowest_bit(bits)
    return -1


@jit
def legal_list(legal, obs, out):
    """Write the legal move ids, in increasing order, into ``out`` (``NMOVES`` long); return
    how many there are. Big plays (two decks, H18) are not listed: :func:`big_word` has them."""
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
    if has(legal, L_END):
        out[k] = END
        k += 1
    bits = _partial(legal, obs)
    while bits:
        out[k] = ADDN + lowest_bit(bits)
        bits &= bits - 1
        k += 1
    return k


@jit
def every_legal(legal, obs, hand, out):
    """Every legal move id, in increasing order, into ``out`` (``NMOVES`` long); return how
    many: :func:`legal_list`'s, then the plays of 5 to 8 cards (two decks, H18, from
    :func:`big_word`; ``hand``: the mover's 14 counts). The one list of a seat's choices:
    sim.rules' legal moves, the learning environments' masks, a strategy scoring each move.
    In order: the only ids above the big plays' are the H11 adds of k face-up cards, which a
    seat has only on its face-ups, with no hand to make a big play from."""
    k = legal_list(legal, obs, out)
    if has(legal, L_BIG):
        big = big_word(obs, hand)
        while big:
            out[k] = BIG + lowest_bit(big)
            big &= big - 1
            k += 1
    return k
