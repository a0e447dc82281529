"""A game set up (R3-R6, H12-H18): the deal, the swap of face-up cards (R5, V1, H12) and the
seat that starts (R6, H14, H15); the rules of play are :mod:`sim.kernel.engine`'s.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import ix, jit
from sim.kernel.cards import JOKER, TWO, deck_number, joker_count
from sim.kernel.layout import (
    DEALER, DIR, FD, FDN,
    FDS, FU, FUN, HANDN, HANDS, HAVE, KNOWN, LASTMOVER, MAXP, NDECKS,
    NR, NRULES, OUTORDER, PLAYERS, R_DECKS, R_HAND, R_JOKERS, R_NORDER, R_ORDER, R_REMOVE, R_STARTER,
    REMOVED, REMOVEDN, RULES, STARTRANK, STOCK, STOCKLEN, TOP,
    TOPRANK, V1,
)
from sim.kernel.rng import randint, shuffle
from sim.kernel.derived import hand_add, up_add

@jit
def starter(st):
    """R6, H14, H15: the seat that starts and the rank that made it start (-1: none).

    Rank by rank in ``starter_order``: under ``"dealt"`` the face-ups, then the hands, as
    they are now (call it before the swap; under V1 after choosing); under ``"hand"`` the
    hands only (call it after the swap). Ties go to the earliest seat in deal order from the
    dealer's left; no listed rank anywhere: the first seat in deal order.
    """
    n = st[PLAYERS]
    d = st[DEALER]
    for i in range(st[R_NORDER]):
        r = st[ix(R_ORDER + i)]
        if st[R_STARTER] == 0:
            for j in range(1, n + 1):
                s = (d + j) % n
                if st[ix(FU + s * NR + r)] > 0:
                    return s, r
        for j in range(1, n + 1):
            s = (d + j) % n
            if st[ix(HANDS + s * NR + r)] > 0:
                return s, r
    return (d + 1) % n, -1


@jit
def first_player(st):
    """The seat that starts (:func:`starter`)."""
    return starter(st)[0]


_joker_count = jit(inline="always")(joker_count)


_deck_number = jit(inline="always")(deck_number)


@jit(inline="always")
def deck_jokers(st):
    """Jokers in the deck (R1, H13) under the state's rules: the one formula,
    :func:`sim.kernel.cards.joker_count`."""
    return _joker_count(st[R_JOKERS], st[PLAYERS])


@jit
def deal(st, rng, players, dealer, rules):
    """R3-R4 (V1, H12, H13, H17, H18): shuffle a fresh deck of d decks and deal it into a
    cleared state.

    ``rules`` is the ruleset's vector (:meth:`sim.kernel.ruleset.Ruleset.vector`), copied into the
    state's public rules block. Deal order starts at the dealer's left, in packets of the
    hand size: face-down, face-up, hand (V1: face-down, then twice the hand size to the hand).
    H17 first sets cards aside from the top of the shuffled deck. The undealt cards are the
    stock.
    """
    # Loops, not slice assignments: the same code, and a second less to compile.
    for i in range(st.shape[0]):
        st[ix(i)] = 0
    for i in range(NRULES):
        st[ix(RULES + i)] = rules[i]
    st[PLAYERS] = players
    d = _deck_number(st[R_DECKS], players, st[R_HAND])    # H18
    st[NDECKS] = d
    size = 0                                  # the deck is shuffled where the stock lies
    for _ in range(d):                        # H18: d decks, one after the other
        for r in range(TWO + 1):
            for _ in range(4):
                st[ix(STOCK + size)] = r
                size += 1
    for _ in range(deck_jokers(st)):
        st[ix(STOCK + size)] = JOKER
        size += 1
    total = size
    shuffle(st, STOCK, size, rng)             # Fisher-Yates
    if st[R_REMOVE]:                          # H17: k cards off the top, aside all game
        spare = size - 17 * players
        if spare >= 2 * players:
            k = spare - (1 + randint(rng, 2 * players))
            for _ in range(k):
                size -= 1
                st[ix(REMOVED + st[ix(STOCK + size)])] += 1
            st[REMOVEDN] = k
    v1 = st[V1]
    hs = st[R_HAND]
    st[DEALER] = dealer
    st[DIR] = 1
    st[LASTMOVER] = -1
    st[TOP] = -1
    st[TOPRANK] = -1
    st[STARTRANK] = -1
    for s in range(MAXP):
        st[ix(OUTORDER + s)] = -1
    for packet in range(2 if v1 else 3):
        for i in range(1, players + 1):
            s = (dealer + i) % players
            for _ in range(2 * hs if (v1 and packet == 1) else hs):
                size -= 1                     # dealt from the top: what stays is the stock
                r = st[ix(STOCK + size)]
                if packet == 0:
                    st[ix(FD + s * FDS + st[ix(FDN + s)])] = r
                    st[ix(FDN + s)] += 1
                elif packet == 1 and not v1:
                    up_add(st, s, r, 1)
                    st[ix(FUN + s)] += 1
                else:
                    hand_add(st, s, r, 1)
                    st[ix(HANDN + s)] += 1
    for i in range(size, total):              # the slots dealt from: the state stays clear
        st[ix(STOCK + i)] = 0
    st[STOCKLEN] = size


@jit(inline="always")
def swap_cards(st, s, cards, at=0):
    """The cards of seat ``s`` a swap chooses from (twice the hand size, H12): face-ups then
    hand (R5), or the cards dealt to the hand (V1). Written into ``cards[at:at + 2 * hand
    size]`` in rank order; ``cards`` must have :data:`SWAP_SCRATCH` more slots after those,
    which get overwritten (:func:`swap_buffer` sizes it). A shorter ``cards`` raises
    ``IndexError`` instead of writing past its end (bounds checks are off).

    Branch-free: every rank writes 4 slots (8 with two decks, H18, where a seat may hold up
    to 8 of a rank) and advances by its count, because a loop whose length is each rank's
    count mispredicts; the indices are unsigned, which spares Numba's negative-index check on
    each write.
    """
    if cards.shape[0] < at + 2 * st[R_HAND] + SWAP_SCRATCH:
        raise IndexError("swap_cards: cards shorter than 2 x hand_size + SWAP_SCRATCH (H12)")
    k = np.uint64(at)
    if st[NDECKS] > 1:
        for base in (FU + s * NR, HANDS + s * NR):
            for r in range(NR):
                for i in range(8):
                    cards[k + np.uint64(i)] = r
                k += np.uint64(st[ix(base + r)])
        return
    for base in (FU + s * NR, HANDS + s * NR):
        for r in range(NR):
            c = st[ix(base + r)]
            cards[k] = r
            cards[k + np.uint64(1)] = r
            cards[k + np.uint64(2)] = r
            cards[k + np.uint64(3)] = r
            k += np.uint64(c)


SWAP_SCRATCH = 8   # swap_cards' slots past the last card: the writes of a rank not held


def swap_size(st) -> int:
    """How many cards a swap chooses from: twice the hand size (R5, H12; V1 likewise)."""
    return 2 * int(st[R_HAND])


def swap_buffer(st, seats: int = 1) -> np.ndarray:
    """A ``cards`` array for :func:`swap_cards` of ``seats`` seats under the state's rules
    (H12): ``swap_size(st)`` cards a seat, then :data:`SWAP_SCRATCH`."""
    return np.zeros(seats * swap_size(st) + SWAP_SCRATCH, np.int32)


def swap_choices(st, s: int) -> np.ndarray:
    """Seat ``s``'s ``swap_size(st)`` cards in :func:`swap_cards`' order, the order of a swap
    mask's bits (for Python callers: replays, the terminal game, tests)."""
    cards = swap_buffer(st)
    swap_cards(st, s, cards)
    return cards[:swap_size(st)]


@jit(inline="always")
def apply_swap(st, s, cards, chosen):
    """R5/V1: the cards whose bit is set in ``chosen`` (exactly the hand size, H12, of twice
    as many) go face up, the others to the hand. Returns False when ``chosen`` is not such a
    choice.

    Under R5 a card taken from the dealt face-ups into the hand is known to be there (R26).
    """
    hs = st[R_HAND]
    if chosen < 0 or chosen >= (1 << (2 * hs)):
        return False
    bits = 0
    for i in range(2 * hs):
        bits += (chosen >> i) & 1
    if bits != hs:
        return False
    for r in range(NR):
        st[ix(FU + s * NR + r)] = 0
        st[ix(HANDS + s * NR + r)] = 0
    for k in range(4):
        st[ix(HAVE + 4 * s + k)] = 0
    for i in range(2 * hs):
        r = cards[i]
        if (chosen >> i) & 1:
            up_add(st, s, r, 1)
        else:
            hand_add(st, s, r, 1)
            if i < hs and st[V1] == 0:        # it was dealt face up: seen by all
                st[ix(KNOWN + s * NR + r)] += 1
    st[ix(FUN + s)] = hs
    st[ix(HANDN + s)] = hs
    return True
