"""The rules of Shithead (RULES.md R4-R25, V1, V2) as jitted functions on the flat state.

This module is the only implementation of the rules. The batch core (:mod:`sim.core`), the
single-position API (:mod:`sim.rules`) and replays all call these functions:

- :func:`legal_word` gives the legal moves of the seat to move (a bit set, :mod:`sim.moves`);
- :func:`apply_move` carries out one legal move and returns its events;
- :func:`deal`, :func:`apply_swap` and :func:`first_player` set a game up (R3-R6);
- :func:`derive` recomputes the values kept incrementally, the pile summary and the
  have-words (for positions read from JSON or sampled, and for tests that check them).

Moves are validated by the caller against :func:`legal_word` (R24); :func:`apply_move` trusts
its move.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit
from sim.cards import JOKER, TEN, TWO
from sim.layout import (
    ADD, BLIND, BURNED, BURNS, COUNT, CURRENT, DEALER, DECK, DIR, EV_BLIND_FAIL, EV_BURN,
    EV_GAME_OVER, EV_OUT, EV_PICKUP, EV_REVERSE, FD, FDN, FU, FUN, HANDN, HANDS, HAVE, KNOWN,
    L_ADD, L_BLIND, L_PICKUP, LASTMOVER, MAXP, NOUT, NR, OUTORDER, OVER, PICKUP, PICKUPS, PILE,
    PILECNT, PILEHAVE, PILELEN, PLAYERS, RANKS_MASK, RUN, STOCK, STOCKLEN, TOP, TOPRANK, TURN,
    V1, V2,
)
from sim.rng import randint


@jit(inline="always")
def playable(st, r):
    """R9, R20, R23: may rank ``r`` follow the effective top? (2s and jokers always may.)"""
    return r >= TWO or r >= st[TOP]


@jit(inline="always")
def play_source(st):
    """Where the seat to move plays from: 0 hand, 1 face-up cards, 2 blind (R11, R13, R14)."""
    p = st[CURRENT]
    if st[HANDN + p] > 0:
        return 0
    if st[FUN + p] > 0:
        return 1
    return 2


@jit(inline="always")
def legal_word(st):
    """The legal moves of the seat to move as a legal word (:mod:`sim.moves`).

    O(1) from the seat's have-words (:data:`sim.layout.HAVE`): a lead may play whatever the
    seat holds (R7); a follow plays exactly ``count`` cards of a rank the top allows (R9).
    """
    p = st[CURRENT]
    count = st[COUNT]
    source = play_source(st)
    if source == 2:
        return np.int64(1) << L_BLIND            # R14, R16: the only move, forced
    w = HAVE + 4 * p + 2 * source
    if count == 0:                              # R7: lead 1 card or several of one rank
        return np.int64(st[w]) | (np.int64(st[w + 1]) << (2 * NR))
    g = count - 1                               # R9: exactly `count` cards, equal or higher;
    top = max(min(st[TOP], TWO), 0)             # 2s and jokers on anything (R20, R23)
    ranks = (np.int64(st[w + (g >> 1)]) >> ((g & 1) * NR)) & ((RANKS_MASK << top) & RANKS_MASK)
    word = (ranks << (g * NR)) | (np.int64(1) << L_PICKUP)   # R10: a pick-up needs a pile
    if source == 1:
        word |= np.int64(1) << L_ADD            # R12: add one face-up card first
    return word


_PAIR = 1 | (1 << NR)
# Have-word bits of a count c (0..4) of one rank, for the first and the second word.
_LO = np.array([0, 1, _PAIR, _PAIR, _PAIR], np.int32)
_HI = np.array([0, 0, 0, 1, _PAIR], np.int32)


@jit(inline="always")
def _word_set(st, w, r, c):
    """The have-words at ``w``, ``w + 1`` now say ``c`` cards of rank ``r``."""
    st[w] = (st[w] & ~(_PAIR << r)) | (_LO[c] << r)
    st[w + 1] = (st[w + 1] & ~(_PAIR << r)) | (_HI[c] << r)


@jit(inline="always")
def _set_count(st, block, k, s, r, c):
    """Seat ``s`` now holds ``c`` cards of rank ``r`` in ``block`` (HANDS or FU, whose
    have-words are ``HAVE + 4 * s + k``); keep its have-words."""
    st[block + s * NR + r] = c
    _word_set(st, HAVE + 4 * s + k, r, c)


@jit(inline="always")
def _hand_add(st, s, r, d):
    _set_count(st, HANDS, 0, s, r, st[HANDS + s * NR + r] + d)


@jit(inline="always")
def _up_add(st, s, r, d):
    _set_count(st, FU, 2, s, r, st[FU + s * NR + r] + d)


@jit(inline="always")
def _have(st, block, k, s):
    """Recompute seat ``s``'s have-words of ``block`` from its counts."""
    _words(st, block + s * NR, HAVE + 4 * s + k)


@jit(inline="always")
def _words(st, counts, w):
    """Recompute the have-words at ``w`` from the 14 counts at ``counts``."""
    lo, hi = 0, 0
    for r in range(NR):
        c = st[counts + r]
        lo |= _LO[c] << r
        hi |= _HI[c] << r
    st[w] = lo
    st[w + 1] = hi


@jit(inline="always")
def _add_words(st, w, v):
    """The have-words at ``w`` += those at ``v``: per rank, the code of the sum of the two
    counts (at most 4), from the codes alone (a pick-up, R10, in O(1))."""
    m = (1 << NR) - 1
    a1, a2, a3, a4 = st[w] & m, st[w] >> NR, st[w + 1] & m, st[w + 1] >> NR
    b1, b2, b3, b4 = st[v] & m, st[v] >> NR, st[v + 1] & m, st[v + 1] >> NR
    s1 = a1 | b1                                       # at least k = i + j cards
    s2 = a2 | b2 | (a1 & b1)
    s3 = a3 | b3 | (a2 & b1) | (a1 & b2)
    s4 = a4 | b4 | (a3 & b1) | (a2 & b2) | (a1 & b3)
    st[w] = s1 | (s2 << NR)
    st[w + 1] = s3 | (s4 << NR)


@jit
def derive_have(st):
    """Recompute every seat's and the pile's have-words (after writing hands, face-ups or the
    pile summary directly)."""
    for s in range(st[PLAYERS]):
        _have(st, HANDS, 0, s)
        _have(st, FU, 2, s)
    _words(st, PILECNT, PILEHAVE)


@jit
def derive_have(st):
    """Recompute every seat's have-words (after writing hands or face-ups directly)."""
    for s in range(MAXP):
        _have(st, HANDS, 0, s)
        _have(st, FU, 2, s)


@jit(inline="always")
def next_seat(st, s):
    """The seat after ``s`` in the direction of play, skipping seats that are out (V2)."""
    n = st[PLAYERS]
    d = st[DIR]
    for _ in range(n):
        s += d                                # no modulo: a division costs more than a branch
        if s == n:
            s = 0
        elif s < 0:
            s = n - 1
        if st[HANDN + s] + st[FUN + s] + st[FDN + s] > 0:
            return s
    return s


@jit(inline="always")
def _push(st, r, n):
    """Put ``n`` cards of rank ``r`` on the pile; keep the pile summary; no burn, no reverse."""
    for _ in range(n):
        st[PILE + st[PILELEN]] = r
        st[PILELEN] += 1
    st[PILECNT + r] += n
    _word_set(st, PILEHAVE, r, st[PILECNT + r])
    if r == JOKER:
        # R23: the joker is looked through, TOP stays; it breaks any run of a rank (R22).
        st[RUN] = st[RUN] + n if st[TOPRANK] == JOKER else n
    else:
        st[RUN] = st[RUN] + n if st[TOPRANK] == r else n
        st[TOP] = -1 if r == TWO else r      # R20: anything may follow a 2
    st[TOPRANK] = r


@jit(inline="always")
def _clear_pile(st):
    for r in range(NR):
        st[PILECNT + r] = 0
    st[PILEHAVE] = 0
    st[PILEHAVE + 1] = 0
    st[PILELEN] = 0
    st[TOP] = -1
    st[TOPRANK] = -1
    st[RUN] = 0
    st[COUNT] = 0


@jit(inline="always")
def _play(st, r, n):
    """A play of ``n`` cards of rank ``r`` onto the pile (from hand, face-up or blind)."""
    _push(st, r, n)
    if st[COUNT] == 0:
        st[COUNT] = n                         # R7, R9: the lead sets the count
    if r == JOKER:
        st[DIR] = -st[DIR]                    # R23: one play, one reversal
        return EV_REVERSE
    if r == TEN or st[RUN] >= 4:              # R21 ten, R22 four of a kind on top
        for k in range(NR):
            st[BURNED + k] += st[PILECNT + k]
        _clear_pile(st)
        st[BURNS] += 1
        return EV_BURN
    return 0


@jit(inline="always")
def _pickup(st, p):
    """R10: the whole pile goes into the hand; everyone saw it, so it is known (R26)."""
    for r in range(NR):
        c = st[PILECNT + r]
        st[HANDS + p * NR + r] += c
        st[KNOWN + p * NR + r] += c
    _add_words(st, HAVE + 4 * p, PILEHAVE)
    st[HANDN + p] += st[PILELEN]
    st[PICKUPS + p] += 1
    _clear_pile(st)
    return EV_PICKUP


@jit(inline="always")
def _draw(st, p):
    """R8: draw from the stock up to 3 cards in hand, as far as the stock lasts."""
    while st[HANDN + p] < 3 and st[STOCKLEN] > 0:
        st[STOCKLEN] -= 1
        _hand_add(st, p, st[STOCK + st[STOCKLEN]], 1)
        st[HANDN + p] += 1


@jit(inline="always")
def _blind(st, p):
    """R14-R17: turn the top face-down cards; keep them on the pile if legal, else pick up."""
    k = max(st[COUNT], 1)
    left = st[FDN + p]
    take = min(k, left)
    top = FD + p * DECK + left - 1            # R17: last dealt is turned first
    r = st[top]
    ok = take == k                            # R16: fewer than the count is illegal
    for i in range(take):
        if st[top - i] != r:
            ok = False                        # R15: one rank only
    if st[COUNT] > 0 and not playable(st, r):
        ok = False
    st[FDN + p] = left - take
    if ok:
        return _play(st, r, k)
    # R15: the turned cards go into the hand with the pile (seen by all: known, R26).
    for i in range(take):
        _push(st, st[top - i], 1)
    return EV_BLIND_FAIL | _pickup(st, p)


@jit
def apply_move(st, m):
    """Carry out legal move ``m`` for the seat to move; return its events (bit flags).

    Compiled on its own and called: inlined at every call site (Numba's ``inline="always"``)
    it took the batch core's compile from 16 to 71 s. The batch core inlines one copy, for
    the table of ``lowest`` only (:mod:`sim.core`).

    Afterwards the pile, count, direction, the seat to move and the end of the game are all
    up to date (R7-R25, V2).
    """
    p = st[CURRENT]
    if m == BLIND:
        ev = _blind(st, p)
    elif m == PICKUP:
        ev = _pickup(st, p)
    elif m >= ADD:
        r = m - ADD                           # R12: adding is not a play
        _up_add(st, p, r, -1)
        st[FUN + p] -= 1
        _push(st, r, 1)
        ev = _pickup(st, p)
    else:
        r = m % NR
        n = m // NR + 1
        if st[HANDN + p] > 0:                 # R13: the hand first
            _hand_add(st, p, r, -n)
            st[HANDN + p] -= n
            k = st[KNOWN + p * NR + r] - n    # what is still known to be there (R26)
            st[KNOWN + p * NR + r] = k if k > 0 else 0
            ev = _play(st, r, n)
            _draw(st, p)                      # R8, R21: after the play and any burn
        else:                                 # R11: face-up cards, no drawing (R8)
            _up_add(st, p, r, -n)
            st[FUN + p] -= n
            ev = _play(st, r, n)
    st[TURN] += 1
    st[LASTMOVER] = p
    if st[HANDN + p] + st[FUN + p] + st[FDN + p] == 0:   # R18: out
        ev |= EV_OUT
        st[OUTORDER + st[NOUT]] = p
        st[NOUT] += 1
        if st[V2] == 0 or st[NOUT] >= st[PLAYERS] - 1:    # R25, V2
            ev |= EV_GAME_OVER
            st[OVER] = 1
            st[CURRENT] = next_seat(st, p)
            return ev
        st[CURRENT] = next_seat(st, p)        # R19, V2: the next seat leads or follows
    elif ev & EV_BURN:
        st[CURRENT] = p                       # R21, R22: the burner leads again
    else:
        st[CURRENT] = next_seat(st, p)        # R9, R10, R23 (direction already reversed)
    return ev


@jit
def first_player(st):
    """R6: dealt (or, under V1, chosen) face-ups first, then hands, rank by rank from 3 up;
    ties to the earliest seat in deal order from the dealer's left; 2s and jokers never count.
    """
    n = st[PLAYERS]
    d = st[DEALER]
    for r in range(TWO):
        for i in range(1, n + 1):
            s = (d + i) % n
            if st[FU + s * NR + r] > 0:
                return s
        for i in range(1, n + 1):
            s = (d + i) % n
            if st[HANDS + s * NR + r] > 0:
                return s
    return (d + 1) % n


@jit
def derive(st):
    """Recompute every derived value of a position written directly (such as one read from
    JSON): the pile summary and the have-words."""
    derive_pile(st)
    derive_have(st)


@jit
def derive_pile(st):
    """Recompute TOP, TOPRANK, RUN and PILECNT from the pile order (R20, R22, R23)."""
    n = st[PILELEN]
    for r in range(NR):
        st[PILECNT + r] = 0
    for i in range(n):
        st[PILECNT + st[PILE + i]] += 1
    st[TOP] = -1
    st[TOPRANK] = -1
    st[RUN] = 0
    if n == 0:
        return
    tr = st[PILE + n - 1]
    st[TOPRANK] = tr
    run = 0
    for i in range(n - 1, -1, -1):
        if st[PILE + i] != tr:
            break
        run += 1
    st[RUN] = run
    for i in range(n - 1, -1, -1):            # R23: look through jokers
        r = st[PILE + i]
        if r != JOKER:
            st[TOP] = -1 if r == TWO else r
            break


@jit
def deal(st, rng, players, dealer, choose_face_ups, last_player_loses):
    """R3-R4 (and V1): shuffle a fresh deck and deal it into a cleared state.

    Deal order starts at the dealer's left, in packets of three: face-down, face-up, hand
    (V1: face-down, then 6 to the hand). The undealt cards are the stock.
    """
    st[:] = 0
    size = 0                                  # the deck is shuffled where the stock lies
    for r in range(TWO + 1):
        for _ in range(4):
            st[STOCK + size] = r
            size += 1
    if players == 6:
        st[STOCK + size] = JOKER
        st[STOCK + size + 1] = JOKER
        size += 2
    for i in range(size - 1, 0, -1):          # Fisher-Yates
        j = randint(rng, i + 1)
        st[STOCK + i], st[STOCK + j] = st[STOCK + j], st[STOCK + i]
    st[PLAYERS] = players
    st[DEALER] = dealer
    st[DIR] = 1
    st[V1] = choose_face_ups
    st[V2] = last_player_loses
    st[LASTMOVER] = -1
    st[TOP] = -1
    st[TOPRANK] = -1
    for s in range(6):
        st[OUTORDER + s] = -1
    for packet in range(2 if choose_face_ups else 3):
        for i in range(1, players + 1):
            s = (dealer + i) % players
            for _ in range(6 if (choose_face_ups and packet == 1) else 3):
                size -= 1                     # dealt from the top: what stays is the stock
                r = st[STOCK + size]
                if packet == 0:
                    st[FD + s * DECK + st[FDN + s]] = r
                    st[FDN + s] += 1
                elif packet == 1 and not choose_face_ups:
                    _up_add(st, s, r, 1)
                    st[FUN + s] += 1
                else:
                    _hand_add(st, s, r, 1)
                    st[HANDN + s] += 1
    for i in range(size, DECK):
        st[STOCK + i] = 0
    st[STOCKLEN] = size


@jit(inline="always")
def swap_cards(st, s, cards, at=0):
    """The six cards of seat ``s`` a swap chooses from: face-ups then hand (R5), or the six
    dealt to the hand (V1). Written into ``cards[at:at + 6]`` in rank order; ``cards`` must
    have 4 more slots after those 6, which get overwritten (SWAP_SCRATCH).

    Branch-free: every rank writes 4 slots and advances by its count, because a loop whose
    length is each rank's count mispredicts; the indices are unsigned, which spares Numba's
    negative-index check on each write (62 ns a seat, against 15 like this; measured).
    """
    k = np.uint64(at)
    for base in (FU + s * NR, HANDS + s * NR):
        for r in range(NR):
            c = st[base + r]
            cards[k] = r
            cards[k + np.uint64(1)] = r
            cards[k + np.uint64(2)] = r
            cards[k + np.uint64(3)] = r
            k += np.uint64(c)


SWAP_SCRATCH = 4


@jit(inline="always")
def apply_swap(st, s, cards, chosen):
    """R5/V1: the cards whose bit is set in ``chosen`` (exactly 3 of 6) go face up, the others
    to the hand. Returns False when ``chosen`` is not a choice of 3 of the 6 cards.

    Under R5 a card taken from the dealt face-ups into the hand is known to be there (R26).
    """
    if chosen < 0 or chosen >= 64:
        return False
    bits = 0
    for i in range(6):
        bits += (chosen >> i) & 1
    if bits != 3:
        return False
    for r in range(NR):
        st[FU + s * NR + r] = 0
        st[HANDS + s * NR + r] = 0
    for k in range(4):
        st[HAVE + 4 * s + k] = 0
    for i in range(6):
        r = cards[i]
        if (chosen >> i) & 1:
            _up_add(st, s, r, 1)
        else:
            _hand_add(st, s, r, 1)
            if i < 3 and st[V1] == 0:         # it was dealt face up: seen by all
                st[KNOWN + s * NR + r] += 1
    st[FUN + s] = 3
    st[HANDN + s] = 3
    return True
