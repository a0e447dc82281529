"""The values the state keeps besides the cards themselves, updated in O(1) as cards move:
each seat's have-words and the pile's (``HAVE``, ``PILEHAVE``: per rank, at least 1, 2, 3, 4
cards, so that the legal moves are a few bit operations), and the pile summary (TOP, TOPRANK,
RUN, PILECNT: R20, R22, R23, H5); and their recomputation for a position written directly
(:func:`derive`: one read from JSON or sampled). The rules (:mod:`sim.kernel.engine`) and the
deal (:mod:`sim.kernel.dealing`) keep them with these helpers.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import ix, jit
from sim.kernel.cards import JOKER, TWO
from sim.kernel.layout import (
    FDN,
    FU, FUN, HANDN, HANDS, HAVE, MAXP, NR, PILE, PILECNT, PILEHAVE, PILELEN,
    R_TRANS, RUN, TOP,
    TOPRANK,
)


_PAIR = 1 | (1 << NR)


# Have-word bits of a count c (0..8: two decks, H18) of one rank, for the first and the second
# word: at least 1, 2; at least 3, 4 (saturating).
_LO = np.array([0, 1] + [_PAIR] * 7, np.int32)


_HI = np.array([0, 0, 0, 1] + [_PAIR] * 5, np.int32)


@jit(inline="always")
def word_set(st, w, r, c):
    """The have-words at ``w``, ``w + 1`` now say ``c`` cards of rank ``r``."""
    st[ix(w)] = (st[ix(w)] & ~(_PAIR << r)) | (_LO[ix(c)] << r)
    st[ix(w + 1)] = (st[ix(w + 1)] & ~(_PAIR << r)) | (_HI[ix(c)] << r)


@jit(inline="always")
def set_count(st, block, k, s, r, c):
    """Seat ``s`` now holds ``c`` cards of rank ``r`` in ``block`` (HANDS or FU, whose
    have-words are ``HAVE + 4 * s + k``); keep its have-words."""
    st[ix(block + s * NR + r)] = c
    word_set(st, HAVE + 4 * s + k, r, c)


@jit(inline="always")
def hand_add(st, s, r, d):
    set_count(st, HANDS, 0, s, r, st[ix(HANDS + s * NR + r)] + d)


@jit(inline="always")
def up_add(st, s, r, d):
    set_count(st, FU, 2, s, r, st[ix(FU + s * NR + r)] + d)


@jit(inline="always")
def have_words(st, block, k, s):
    """Recompute seat ``s``'s have-words of ``block`` from its counts."""
    words(st, block + s * NR, HAVE + 4 * s + k)


@jit(inline="always")
def words(st, counts, w):
    """Recompute the have-words at ``w`` from the 14 counts at ``counts``."""
    lo, hi = 0, 0
    for r in range(NR):
        c = st[ix(counts + r)]
        lo |= _LO[ix(c)] << r
        hi |= _HI[ix(c)] << r
    st[ix(w)] = lo
    st[ix(w + 1)] = hi


@jit(inline="always")
def add_words(st, w, v):
    """The have-words at ``w`` += those at ``v``: per rank, the code of the sum of the two
    counts (at most 4), from the codes alone (a pick-up, R10, in O(1))."""
    m = (1 << NR) - 1
    a1, a2, a3, a4 = st[ix(w)] & m, st[ix(w)] >> NR, st[ix(w + 1)] & m, st[ix(w + 1)] >> NR
    b1, b2, b3, b4 = st[ix(v)] & m, st[ix(v)] >> NR, st[ix(v + 1)] & m, st[ix(v + 1)] >> NR
    s1 = a1 | b1                                       # at least k = i + j cards
    s2 = a2 | b2 | (a1 & b1)
    s3 = a3 | b3 | (a2 & b1) | (a1 & b2)
    s4 = a4 | b4 | (a3 & b1) | (a2 & b2) | (a1 & b3)
    st[ix(w)] = s1 | (s2 << NR)
    st[ix(w + 1)] = s3 | (s4 << NR)


@jit
def derive_have(st):
    """Recompute every seat's and the pile's have-words (after writing hands, face-ups or the
    pile summary directly)."""
    for s in range(MAXP):
        have_words(st, HANDS, 0, s)
        have_words(st, FU, 2, s)
    words(st, PILECNT, PILEHAVE)


@jit(inline="always")
def holds_cards(st, s):
    """Does seat ``s`` still hold cards (hand, face-up or face-down)? A seat without is out
    (R18)."""
    return st[ix(HANDN + s)] + st[ix(FUN + s)] + st[ix(FDN + s)] > 0


@jit
def derive(st):
    """Recompute every derived value of a position written directly (such as one read from
    JSON): the pile summary and the have-words."""
    derive_pile(st)
    derive_have(st)


@jit
def derive_pile(st):
    """Recompute TOP, TOPRANK, RUN and PILECNT from the pile order (R20, R22, R23, H5)."""
    n = st[PILELEN]
    for r in range(NR):
        st[ix(PILECNT + r)] = 0
    for i in range(n):
        st[ix(PILECNT + st[ix(PILE + i)])] += 1
    st[TOP] = -1
    st[TOPRANK] = -1
    st[RUN] = 0
    if n == 0:
        return
    tr = st[ix(PILE + n - 1)]
    st[TOPRANK] = tr
    run = 0
    for i in range(n - 1, -1, -1):
        if st[ix(PILE + i)] != tr:
            break
        run += 1
    st[RUN] = run
    for i in range(n - 1, -1, -1):            # R23, H5: look through jokers, transparent
        r = st[ix(PILE + i)]
        if r != JOKER and r != st[R_TRANS]:
            st[TOP] = -1 if r == TWO else r
            break
