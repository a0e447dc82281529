"""The rules of Shithead (docs/rules.md R4-R25, V1, V2, house rules H1-H20) as jitted functions on
the flat state. The ruleset is data in the state's public rules block (:mod:`sim.kernel.ruleset`),
so one compiled kernel plays every ruleset.

This module is the only implementation of the rules. The batch core (:mod:`sim.kernel.referee`), the
single-position API (:mod:`sim.kernel.position`) and replays all call these functions:

- :func:`legal_word` gives the legal moves of the seat to move (a bit set, :mod:`sim.kernel.moves`);
- :func:`apply_move` carries out one legal move and returns its events.

A game is set up by :mod:`sim.kernel.dealing` (the deal, the swap, who starts: R3-R6,
H12-H18); the values kept as cards move (the have-words, the pile summary) and their
recomputation are :mod:`sim.kernel.derived`'s.

Moves are validated by the caller against :func:`legal_word` (R24); :func:`apply_move` trusts
its move.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import ix, jit
from sim.kernel.cards import JOKER, TEN, TWO
from sim.kernel.layout import (
    ADD, ADDN, BLIND, BURNED, BURNS, CHAIN, COUNT, CURRENT, DIR, EFF_CHAIN,
    EFF_COVER, EFF_NONE, EFF_REVERSE, EFF_REVERSE_PER_CARD, EFF_SKIP, EFF_SKIP_PER_CARD,
    EV_BLIND_FAIL, EV_BURN, EV_GAME_OVER, EV_OUT, EV_PICKUP, EV_REVERSE, EV_SKIP, END, FD, FDN,
    FDS, FU, FUN, HANDN, HANDS, HAVE, KNOWN, L_BIG, L_END, L_PICKUP, LASTMOVER, NDECKS,
    NOUT, NR, OUTORDER, OVER, PICKUP, PICKUPS, PILE, PILECNT, PILEHAVE, PILELEN,
    PLAYERS, R_AGAIN, R_COUNT, R_EFFECT, R_EFFECTS, R_FOLLOW, R_FOUR, R_FUPICK,
    R_HAND, R_OUTBURN, R_PICKS, R_PLAYON, R_TRANS, RANKS_MASK, RUN, STOCK, STOCKLEN, TOP,
    TOPRANK, TURN, V2,
)
from sim.kernel.moves import _big, legal_in, lowest_bit, move_cards, move_rank
from sim.kernel.derived import (
    add_words, hand_add, holds_cards, up_add, word_set,
)


@jit(inline="always")
def follow_mask(st):
    """H0: the 14-bit set of ranks that may follow the effective top (R9, R20, R23, H2, H4,
    H5): one lookup in the ruleset's table (:meth:`sim.kernel.ruleset.Ruleset.follow_mask`)."""
    return np.int64(st[ix(R_FOLLOW + 1 + st[TOP])])


@jit(inline="always")
def playable(st, r):
    """May rank ``r`` follow the effective top?"""
    return (follow_mask(st) >> r) & 1 != 0


@jit(inline="always")
def play_source(st):
    """Where the seat to move plays from: 0 hand, 1 face-up cards, 2 blind (R11, R13, R14)."""
    p = st[CURRENT]
    if st[ix(HANDN + p)] > 0:
        return 0
    if st[ix(FUN + p)] > 0:
        return 1
    return 2


_GROUPS = np.int64(1 | (1 << NR) | (1 << (2 * NR)) | (1 << (3 * NR)))


# The ruleset's scalars that the hot path reads, as one tuple (:func:`rules_of`), in this order;
# Z_WIDE: 4 when this game has two decks (H18) or plays on (H19), whose legal moves take a path
# of their own (added to the source of play, so that the seed rules pay no branch for it).
Z_COUNT, Z_HAND, Z_FOUR, Z_TRANS, Z_AGAIN, Z_FUPICK, Z_PICKS, Z_EFFECTS, Z_WIDE = range(9)


@jit(inline="always")
def rules_of(st):
    """The ruleset's scalars the hot path reads, loaded once (once a game in the batch core)
    rather than from the state after every store to it. Index it with the ``Z_*`` constants.

    Measured (4-player ``lowest``, the inlined referee loop): with these seven values
    replaced by the ``seed`` constants, and ``lowest`` never naming an add, a turn costs 52
    ns against 84: the compiler then folds the house rules away. As runtime data (one
    compiled kernel for every ruleset) they cost that difference."""
    return (st[R_COUNT], st[R_HAND], st[R_FOUR], st[R_TRANS], st[R_AGAIN], st[R_FUPICK],
            st[R_PICKS], st[R_EFFECTS], np.int32((st[NDECKS] + st[R_PLAYON] > 1) * 4))


@jit(inline="always")
def legal_word(st):
    """The legal moves of the seat to move as a legal word (:mod:`sim.kernel.moves`)."""
    return legal_from(st, rules_of(st))


@jit(inline="always")
def legal_from(st, rz):
    """:func:`legal_word` with the ruleset's scalars ``rz`` (:func:`rules_of`) given.

    O(1) from the seat's have-words (:data:`sim.kernel.layout.HAVE`): a lead may play whatever the
    seat holds (R7, H8); a follow plays ``count`` cards (R9; any number under H1) of a rank
    the effective top allows (H0: one lookup in the ruleset's follow table). The pick-up
    bits (R10, R12, R16, H10, H11) come from the packed codes ``R_PICKS``: few branches,
    because a mispredicted branch costs more here than a shift. A game of two decks (H18) or
    of play on (H19) takes :func:`_legal_wide` instead, through the blind turn's branch
    (``Z_WIDE`` added to the source): no branch more for the seed rules.
    """
    p = st[CURRENT]
    count = st[COUNT]
    source = play_source(st) + rz[Z_WIDE]
    if source >= 2:                             # R14, R16 (H10 "always": or pick up)
        if source > 2:
            return _legal_wide(st, rz)
        return np.int64((rz[Z_PICKS] >> 12) & 7 if count > 0 else 2) << L_PICKUP
    w = HAVE + 4 * p + 2 * source
    lead = np.int64(st[ix(w)]) | (np.int64(st[ix(w + 1)]) << (2 * NR))
    if count == 0:                              # R7, H8: lead 1 card or several of one rank
        return lead
    mask = np.int64(st[ix(R_FOLLOW + 1 + st[TOP])])
    if rz[Z_COUNT]:                             # R9: exactly `count` cards
        g = count - 1
        word = ((np.int64(st[ix(w + (g >> 1))]) >> ((g & 1) * NR)) & mask) << (g * NR)
    else:                                       # H1: any number of a legal rank
        word = lead & (mask * _GROUPS)
    i = 2 * source + (word == 0)
    word |= np.int64((rz[Z_PICKS] >> (3 * i)) & 7) << L_PICKUP
    return word


@jit
def _legal_wide(st, rz):
    """:func:`legal_from` in a game of two decks (H18) or of play on (H19): counts above 4
    (a count rule's count up to 8, plays of 5 to 8 cards: ``L_BIG``, :func:`big_word`), and
    a chain's moves (H19: 1 or more cards of the run's rank from the source in force,
    whatever E, H4, H5 or the count say, and ``END``; no pick-up, no blind turn). Called,
    not inlined: the seed rules never come here."""
    p = st[CURRENT]
    count = st[COUNT]
    source = play_source(st)
    if source == 2:                             # R14, R16 (H10 "always": or pick up)
        return np.int64((rz[Z_PICKS] >> 12) & 7 if count > 0 else 2) << L_PICKUP
    w = HAVE + 4 * p + 2 * source
    lead = np.int64(st[ix(w)]) | (np.int64(st[ix(w + 1)]) << (2 * NR))
    big = _big(st, st, HANDS + p * NR) if source == 0 else np.int64(0)
    big_bit = np.int64(big != 0) << L_BIG
    if st[CHAIN] > 0:                           # H19: continue the run, or end the turn
        return (lead & (_GROUPS << st[TOPRANK])) | (np.int64(1) << L_END) | big_bit
    if count == 0:                              # R7, H8, H18: lead 1 to 4 d cards
        return lead | big_bit
    mask = np.int64(st[ix(R_FOLLOW + 1 + st[TOP])])
    if rz[Z_COUNT]:                             # R9: exactly `count` cards (up to 8, H18)
        word = np.int64(0)
        if count <= 4:
            g = count - 1
            word = ((np.int64(st[ix(w + (g >> 1))]) >> ((g & 1) * NR)) & mask) << (g * NR)
    else:                                       # H1: any number of a legal rank
        word = lead & (mask * _GROUPS)
    word |= big_bit
    i = 2 * source + (word == 0)
    return word | (np.int64((rz[Z_PICKS] >> (3 * i)) & 7) << L_PICKUP)


@jit(inline="always")
def legal_move(st, legal, m):
    """Is ``m`` legal for the seat to move, whose legal word is ``legal`` (R24)? Every move, big
    plays (H18) included, with the mover's hand read in ``st``: the one check,
    :func:`sim.kernel.moves.legal_in`."""
    return legal_in(legal, m, st, st, HANDS + st[CURRENT] * NR)


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
        if holds_cards(st, s):
            return s
    return s


@jit(inline="always")
def _push(st, r, n, trans):
    """Put ``n`` cards of rank ``r`` on the pile; keep the pile summary; no burn, no effect.
    ``trans``: the transparent rank (H5), -1 for none."""
    size = st[PILELEN]                        # in a local: see _draw
    for i in range(n):
        st[ix(PILE + size + i)] = r
    st[PILELEN] = size + n
    st[ix(PILECNT + r)] += n
    word_set(st, PILEHAVE, r, st[ix(PILECNT + r)])
    # R22: the physical run on top (a joker or a transparent card breaks it, H5) ...
    st[RUN] = st[RUN] + n if st[TOPRANK] == r else n
    st[TOPRANK] = r
    # ... while the effective top looks through jokers (R23) and the transparent rank (H5).
    if r != JOKER and r != trans:
        st[TOP] = -1 if r == TWO else r      # R20: anything may follow a 2


@jit(inline="always")
def _clear_pile(st, into, known):
    """Empty the pile: its counts per rank go to the counts at ``into`` (BURNED, or a hand),
    and also to those at ``known`` unless it is 0 (the hand's known cards, R26).

    Over the ranks in the pile only (the set bits of its have-word): a pile holds a few
    ranks, and a loop over all 14 made the pick-up measurably slower (benchmarks/ab.py)."""
    ranks = np.int64(st[PILEHAVE]) & RANKS_MASK
    while ranks:
        r = lowest_bit(ranks)
        ranks &= ranks - 1
        c = st[ix(PILECNT + r)]
        st[ix(into + r)] += c
        if known:
            st[ix(known + r)] += c
        st[ix(PILECNT + r)] = 0
    st[PILEHAVE] = 0
    st[ix(PILEHAVE + 1)] = 0
    st[PILELEN] = 0
    st[TOP] = -1
    st[TOPRANK] = -1
    st[RUN] = 0
    st[COUNT] = 0


@jit(inline="always")
def _play(st, r, n, rz, hand):
    """A play of ``n`` cards of rank ``r`` onto the pile (from hand, face-up or blind; ``hand``:
    from the hand, which draws next): the count of a lead (R7, H8), and the burn check (R21,
    R22 unless H3, or H20 when the mover is out); effects come after."""
    _push(st, r, n, rz[Z_TRANS])
    if st[COUNT] == 0:
        st[COUNT] = n                         # R7, R9: the lead sets the count
    if r == TEN or (st[RUN] >= 4 and rz[Z_FOUR]):
        if st[R_OUTBURN] and r != TEN and _out_after(st, np.int64(hand)):   # one compile
            return 0                          # H20: out before the four burns
        _clear_pile(st, BURNED, 0)
        st[BURNS] += 1
        st[CHAIN] = 0                         # H19: a burn ends the chain, cancels its run
        return EV_BURN
    return 0


@jit
def _out_after(st, hand):
    """H20: will the mover hold no card at all after this play and its drawing (R8; ``hand``:
    the play came from the hand)? Called, not inlined: only H20 asks."""
    p = st[CURRENT]
    return not holds_cards(st, p) and (not hand or st[STOCKLEN] == 0)


# Called, not inlined (like _blind): the rarer paths of a turn, out of the referee's inlined
# code, which shortens the cold compile much for little of a turn (benchmarks/ab.py).
@jit
def _pickup(st, p):
    """R10: the whole pile goes into the hand; everyone saw it, so it is known (R26)."""
    add_words(st, HAVE + 4 * p, PILEHAVE)
    st[ix(HANDN + p)] += st[PILELEN]
    st[ix(PICKUPS + p)] += 1
    _clear_pile(st, HANDS + p * NR, KNOWN + p * NR)
    return EV_PICKUP


@jit(inline="always")
def _draw(st, p, hand_size):
    """R8: draw from the stock up to the hand size (H12), as far as the stock lasts."""
    # The counters in locals, the number of cards known before the loop: each write to the
    # state might be a write to them, so a loop that kept them there read them back after
    # every card, and its exit waited for those reads.
    k = min(hand_size - st[ix(HANDN + p)], st[STOCKLEN])
    if k > 0:
        top = st[STOCKLEN]
        for i in range(1, k + 1):
            hand_add(st, p, st[ix(STOCK + top - i)], 1)
        st[STOCKLEN] = top - k
        st[ix(HANDN + p)] += k


@jit
def _blind(st, p, rz):
    """R14-R17: turn the top face-down cards (the count's worth; one under H1); keep them on
    the pile if legal, else pick up. Returns the rank played, or -1 after a failed turn."""
    k = max(st[COUNT], 1) if rz[Z_COUNT] else 1
    left = st[ix(FDN + p)]
    take = min(k, left)
    top = FD + p * FDS + left - 1            # R17: last dealt is turned first
    r = st[ix(top)]
    ok = take == k                            # R16: fewer than the count is illegal
    for i in range(take):
        if st[ix(top - i)] != r:
            ok = False                        # R15: one rank only
    if st[COUNT] > 0 and not playable(st, r):
        ok = False                            # a blind lead (count 0, H8) is always legal
    st[ix(FDN + p)] = left - take
    if ok:
        return r
    # R15: the turned cards go into the hand with the pile (seen by all: known, R26).
    for i in range(take):
        _push(st, st[ix(top - i)], 1, rz[Z_TRANS])
    return -1


@jit(inline="always")
def _advance(st, p, skips):
    """H0a, H6: the (skips + 1)-th counted seat after ``p`` in the direction of play: seats
    holding cards, ``p`` itself included when it still holds any."""
    q = p
    for _ in range(skips + 1):
        q = next_seat(st, q)
    return q


@jit
def apply_move(st, m):
    """Carry out legal move ``m`` for the seat to move; return its events (bit flags)
    (:func:`apply_with`)."""
    return apply_with(st, m, rules_of(st))


@jit(inline="always")
def _from_hand(st, p, r, n, rz):
    """Seat ``p`` plays ``n`` cards of rank ``r`` from the hand (R13), then draws (R8, R21:
    after the play and any burn); returns the play's events (:func:`_play`). Inlined in
    :func:`apply_with` for plays of 1 to 4 cards and in :func:`_apply_rare` for 5 to 8 (H18):
    a play path shared with the big plays slowed every turn of the seed rules (the figures:
    benchmarks/results/seed-speed-2026-12-02.md)."""
    hand_add(st, p, r, -n)
    st[ix(HANDN + p)] -= n
    k = st[ix(KNOWN + p * NR + r)] - n        # what is still known to be there (R26)
    st[ix(KNOWN + p * NR + r)] = k if k > 0 else 0
    ev = _play(st, r, n, rz, True)
    _draw(st, p, rz[Z_HAND])
    return ev


@jit
def apply_with(st, m, rz):
    """:func:`apply_move` with the ruleset's scalars ``rz`` (:func:`rules_of`) given.

    Compiled on its own and called: inlined at every call site (Numba's ``inline="always"``)
    it took the batch core's compile from 16 to 71 s. The batch core inlines one copy, for
    the table of ``lowest`` only (:mod:`sim.kernel.referee`).

    H0a's order: the cards go on the pile, a hand play draws (R8), the burn check (R21, R22),
    and only without a burn the play's one turn effect (reverse R23/H7, cover H8 or skip H6);
    then going out and the end of the game (R18, R19, R25, V2), then who moves next. The
    common move (no effect, nobody out) stays on a short path; the rest is out of line
    (:func:`_after_special`).
    """
    p = st[CURRENT]
    r = -1                                    # the rank played, -1 for a pick-up
    n = 1
    if m < ADD:                               # a play of 1 to 4 cards
        r = move_rank(m)                      # looked up (sim.kernel.moves): no division
        n = move_cards(m)
        if st[ix(HANDN + p)] > 0:                 # R13: the hand first
            ev = _from_hand(st, p, r, n, rz)
        else:                                 # R11: face-up cards, no drawing (R8)
            up_add(st, p, r, -n)
            st[ix(FUN + p)] -= n
            ev = _play(st, r, n, rz, False)
    elif m == PICKUP:
        ev = _pickup(st, p)
    elif m == BLIND:
        r = _blind(st, p, rz)
        if r < 0:
            ev = EV_BLIND_FAIL | _pickup(st, p)
        else:
            n = st[COUNT] if st[COUNT] > 0 and rz[Z_COUNT] else 1
            ev = _play(st, r, n, rz, False)
    elif m < PICKUP:
        a = m - ADD                           # R12, H11: adding is not a play
        c = st[ix(FU + p * NR + a)] if rz[Z_FUPICK] >= 2 else 1    # H11: all of rank a
        up_add(st, p, a, -c)
        st[ix(FUN + p)] -= c
        _push(st, a, c, rz[Z_TRANS])
        ev = _pickup(st, p)
    else:                                     # END (H19), 5 to 8 cards (H18), ADDN (H11)
        ev, r, n, done = _apply_rare(st, p, m, rz)
        if done:
            return ev
    st[TURN] += 1
    st[LASTMOVER] = p
    effect = EFF_NONE
    if r >= 0 and (rz[Z_EFFECTS] >> r) & 1 and not ev & EV_BURN:   # H0a: a burn cancels
        effect = st[ix(R_EFFECT + r)]
    if effect != EFF_NONE or not holds_cards(st, p):
        return _after_special(st, p, n, effect, ev)
    if ev & EV_BURN:
        # R21, R22: the burner leads again; H9: the next seat leads
        st[CURRENT] = p if rz[Z_AGAIN] else next_seat(st, p)
    else:
        st[CURRENT] = next_seat(st, p)        # R9, R10
    return ev


@jit
def _apply_rare(st, p, m, rz):
    """The moves no seed game makes, out of line (:func:`apply_with` calls it). H19's ``END``
    is made to the end here (the run's effect applies, for its rank on top and its ``CHAIN``
    cards, and the turn passes); H18's plays of 5 to 8 cards from the hand and H11
    one_then_rank's ``ADDN`` (k of the face-up cards of a rank go on the pile, then the pile
    is picked up: an add is never a play, R12) are carried out here and ended by
    :func:`apply_with` like the other plays and pick-ups. Returns (events, the rank played
    or -1, cards played, whether the move is made to the end)."""
    if m == END:
        st[TURN] += 1
        st[LASTMOVER] = p
        r = st[TOPRANK]
        n = np.int64(st[CHAIN])
        st[CHAIN] = 0
        effect = np.int64(0)
        if (rz[Z_EFFECTS] >> r) & 1:
            effect = np.int64(st[ix(R_EFFECT + r)] & (EFF_CHAIN - 1))
        return _after_special(st, p, n, effect, np.int64(0)), np.int64(-1), n, True
    r = move_rank(m)
    k = move_cards(m)
    if m < ADDN:                              # H18: 5 to 8 cards, from the hand
        return _from_hand(st, p, r, k, rz), r, k, False
    up_add(st, p, r, -k)
    st[ix(FUN + p)] -= k
    _push(st, r, k, rz[Z_TRANS])
    return _pickup(st, p), np.int64(-1), k, False


@jit(inline="always")
def _source_holds(st, p, r):
    """Does seat ``p``'s source in force (the hand while it holds a card, else the face-ups;
    R11, R13) hold a card of rank ``r``?"""
    if st[ix(HANDN + p)] > 0:
        return st[ix(HANDS + p * NR + r)] > 0
    return st[ix(FU + p * NR + r)] > 0


@jit
def _after_special(st, p, n, effect, ev):
    """The end of a move with a turn effect (a play of ``n`` cards) or after which the mover
    is out: the effect (R23, H6-H8), going out (R18, R19, R25, V2), who moves next.

    H19: under play on every play comes here (``EFF_CHAIN``). The mover stays in a chain
    while not out, not covering, and their source in force holds a card of the play's rank
    (a blind play leaves no such source): ``CHAIN`` counts the run, no effect yet. Else the
    run's effect applies once, for the run's ``n`` cards, and the turn passes."""
    if effect & EFF_CHAIN:
        effect &= EFF_CHAIN - 1
        if effect != EFF_COVER and holds_cards(st, p) and _source_holds(st, p, st[TOPRANK]):
            st[CHAIN] += n
            return ev
        n += st[CHAIN]
        st[CHAIN] = 0
    skips = 0
    if effect == EFF_REVERSE or effect == EFF_REVERSE_PER_CARD:
        if effect == EFF_REVERSE or n & 1:    # R23, H7: once, or once per card
            st[DIR] = -st[DIR]
        ev |= EV_REVERSE
    elif effect == EFF_SKIP or effect == EFF_SKIP_PER_CARD:
        skips = n if effect == EFF_SKIP_PER_CARD else 1   # H6
        ev |= EV_SKIP
    if not holds_cards(st, p):                # R18: out
        ev |= EV_OUT
        st[ix(OUTORDER + st[NOUT])] = p
        st[NOUT] += 1
        if st[V2] == 0 or st[NOUT] >= st[PLAYERS] - 1:    # R25, V2
            ev |= EV_GAME_OVER
            st[OVER] = 1
            st[CURRENT] = next_seat(st, p)    # docs/position.md: no skips once over
            return ev
        if ev & EV_BURN:
            st[CURRENT] = next_seat(st, p)    # R19: the next seat leads on the empty pile
        else:   # R19, V2: the next seat follows (H8: an uncovered cover is followed)
            st[CURRENT] = _advance(st, p, skips)
    elif effect == EFF_COVER:
        st[COUNT] = 0                         # H8: the mover leads again on the pile
    elif ev & EV_BURN:
        st[CURRENT] = p if st[R_AGAIN] else next_seat(st, p)
    else:
        st[CURRENT] = _advance(st, p, skips)  # R23, H6, H7
    return ev
