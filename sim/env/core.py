"""The jitted pieces every environment shares: deal a game as ``sim run`` deals it, write a
seat's observation (R26) and the legal-move mask, play one move and score it.

They only call the kernel (:mod:`sim.kernel.engine`, :mod:`sim.kernel.referee`,
:mod:`sim.kernel.moves`): no rule is written here. A table is one state row (``int32``,
:data:`sim.kernel.layout.STATE_SIZE`) and one random stream (``uint64[4]``); the batched
environment (:mod:`sim.env.vector`) steps many rows of a 2-D array in one call.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.engine import apply_move, legal_move, legal_word
from sim.kernel.derived import holds_cards
from sim.kernel.layout import (
    CURRENT, DEALER, EV_GAME_OVER, EV_OUT, HANDS, MAXP, NMOVES, NOUT, NR, OVER, PLAYERS, PUB, R_HAND, TURN, V2,
)
from sim.kernel.moves import every_legal
from sim.kernel.referee import SWAP_CARDS, deal_game, opening_move, swap_phase
from sim.kernel.rng import seed_game

# What :func:`play` returns (ILLEGAL: nothing was played); SUBSTITUTED is or-ed in when an
# illegal action was replaced by the lowest legal move.
RUNNING, OVER_, TRUNCATED, ILLEGAL = 0, 1, 2, 3
SUBSTITUTED = 4
PLACE, WIN = 0, 1          # reward schemes (sim.env.spec.REWARDS)


def _swap_masks():
    """The swap ids' choices (``swap="choose"``): row ``h - 3`` for hand size ``h`` (H12),
    entry ``j`` the j-th ``h``-slot combination of the ``2h`` card slots of
    :func:`sim.kernel.dealing.swap_cards` (R5: the dealt face-ups, then the hand, each in rank
    order; V1: the ``2h`` cards dealt to the hand, in rank order), in
    ``itertools.combinations`` order (lexicographic: slots 0, 1, 2 first), as the bit mask
    :func:`sim.kernel.dealing.apply_swap` takes: the chosen slots go face up. -1 past the
    C(2h, h) valid ones."""
    from sim.env.spec import SWAP_IDS

    out = np.full((2, SWAP_IDS), -1, np.int64)
    for h in (3, 4):
        for j, slots in enumerate(combinations(range(2 * h), h)):
            out[h - 3, j] = sum(1 << i for i in slots)
    return out


SWAP_MASKS = _swap_masks()
SWAP_COUNT = (SWAP_MASKS >= 0).sum(axis=1)    # the valid swap ids: C(6, 3), C(8, 4) (H12)


def scratch():
    """The small arrays :func:`finish_deal` and :func:`legal_mask` work in (one set per
    thread): swap choices, the swap's cards, an error, the legal ids."""
    return (np.zeros(MAXP, np.int64), np.zeros(SWAP_CARDS, np.int32), np.zeros(3, np.int64),
            np.zeros(NMOVES, np.int64))


@jit
def deal_only(st, dealt, rng, seed, game, players, rules):
    """Game ``game`` of ``seed`` as ``sim run --seed`` deals it: the stream seeded from
    (seed, game) (sim.kernel.rng), the deal (R3, R4). ``dealt`` (empty, or a state row) gets
    the state right after the deal."""
    seed_game(rng, seed, game)
    deal_game(st, rng, players, rules)
    if dealt.shape[0] > 0:
        for i in range(st.shape[0]):
            dealt[i] = st[i]


@jit
def finish_deal(st, rng, swap_fns, kinds, params, swaps, cards, err):
    """After the deal: each seat's swap policy (R5/V1, the kernel's swap phase), R6, and
    H16's forced opening, which no seat chooses. False when a swap policy fails (``err``)."""
    if not swap_phase(st, rng, swap_fns, kinds, params, swaps, cards, err):
        return False
    m = opening_move(st)
    if m >= 0:
        apply_move(st, m)
    return True


# -- swap="choose": the swap as an action ----------------------------------------------------
# A table in its swap phase holds the state as dealt (R4) and a phase j >= 1: the seat
# ``(dealer + j) % players`` is to choose (deal order from the dealer's left, R4); 0 once
# play has begun. ``choosers`` (int64, MAXP): 1 for a seat that swaps by action. The choices
# are kept (``chosen``) and made together by the kernel's swap phase after the last seat's
# (R5: simultaneous and independent), through the given-choice policy
# (strategies.swaps.given_swaps) whose mask is the seat's parameter row's first entry.


@jit
def next_chooser(st, choosers, j):
    """The phase after ``j``: the next seat in deal order that swaps by action, or 0."""
    n = st[PLAYERS]
    for k in range(j + 1, n + 1):
        if choosers[(st[DEALER] + k) % n]:
            return k
    return 0


@jit
def chooser_seat(st, j):
    """The seat to choose at phase ``j`` (>= 1)."""
    return (st[DEALER] + j) % st[PLAYERS]


@jit
def swap_choice(st, a):
    """The bit mask over the seat's card slots of swap id ``a`` (NMOVES + j), or -1 when
    ``a`` is no valid swap id under the state's hand size (H12)."""
    j = a - NMOVES
    h = st[R_HAND] - 3
    if j < 0 or j >= SWAP_COUNT[h]:
        return -1
    return SWAP_MASKS[h, j]


@jit
def swap_mask(st, out):
    """The legal actions of the seat to choose, as a 0/1 mask (``out``, N_ACTIONS_CHOOSE long):
    the valid swap ids; returns how many."""
    for i in range(out.shape[0]):
        out[i] = 0
    k = SWAP_COUNT[st[R_HAND] - 3]
    for j in range(k):
        out[NMOVES + j] = 1
    return k


@jit
def observe_swap(st, seat, chooser, out):
    """:func:`observe` in the swap phase: the state as dealt (R26: the dealt face-ups are
    public, a hand its owner's), with the seat to choose (``chooser``) as CURRENT."""
    observe(st, seat, out)
    out[CURRENT] = chooser


@jit
def finish_chosen(st, rng, swap_fns, kinds, params, work, choosers, chosen, swaps, cards, err):
    """The swap phase once every seat that chooses by action has chosen (``chosen``: a mask
    per seat): their choices written into ``work`` (a copy of ``params``, the given-choice
    policy's rows), then :func:`finish_deal`."""
    for s in range(MAXP):
        if choosers[s]:
            work[MAXP + s, 0] = chosen[s]
    return finish_deal(st, rng, swap_fns, kinds, work, swaps, cards, err)


@jit
def begin_game(st, dealt, rng, seed, game, players, rules, swap_fns, kinds, params, work,
               choosers, chosen, swaps, cards, err):
    """Deal game ``game`` of ``seed`` (:func:`deal_only`); with no seat to choose its swap by
    action, make the swap phase at once (:func:`finish_chosen`). The phase
    (:func:`next_chooser`), or -2 when a swap policy failed (``err``)."""
    deal_only(st, dealt, rng, seed, game, players, rules)
    for s in range(MAXP):
        chosen[s] = 0
    phase = next_chooser(st, choosers, 0)
    if phase == 0 and not finish_chosen(st, rng, swap_fns, kinds, params, work, choosers,
                                        chosen, swaps, cards, err):
        return -2
    return phase


@jit
def choose_swap(st, rng, phase, a, substitute, swap_fns, kinds, params, work, choosers,
                chosen, swaps, cards, err):
    """The seat to choose at ``phase`` chooses swap id ``a`` (R5/V1); an invalid one is the
    lowest swap id when ``substitute`` (``illegal="lowest"``). After the last chooser the
    swap phase is made (:func:`finish_chosen`). (the next phase, substituted); the phase is
    -1 for an invalid ``a`` not substituted, -2 when a swap policy failed (``err``)."""
    c = swap_choice(st, a)
    substituted = c < 0
    if substituted:
        if not substitute:
            return -1, substituted
        c = swap_choice(st, NMOVES)
    chosen[chooser_seat(st, phase)] = c
    phase = next_chooser(st, choosers, phase)
    if phase == 0 and not finish_chosen(st, rng, swap_fns, kinds, params, work, choosers,
                                        chosen, swaps, cards, err):
        return -2, substituted
    return phase, substituted


@jit
def observe(st, seat, out):
    """R26: what ``seat`` may see, into ``out`` (:data:`sim.env.spec.OBS_LEN`): the public
    block, its own hand (14 counts), its number. Nothing else of the state is read."""
    for i in range(PUB):
        out[i] = st[i]
    base = HANDS + seat * NR
    for r in range(NR):
        out[PUB + r] = st[base + r]
    out[PUB + NR] = seat


@jit
def legal_mask(st, out, ids):
    """The legal moves of the seat to move as a 0/1 mask over the move ids (``out``,
    ``NMOVES`` long; all 0 once the game is over); returns how many
    (:func:`sim.kernel.moves.every_legal`; ``ids``: scratch, ``NMOVES`` long)."""
    for i in range(out.shape[0]):
        out[i] = 0
    if st[OVER]:
        return 0
    k = _legal(st, ids)
    for i in range(k):
        out[ids[i]] = 1
    return k


@jit
def lowest_legal(st, ids):
    """The lowest legal move id of the seat to move (``illegal="lowest"``), or -1."""
    return ids[0] if _legal(st, ids) > 0 else -1


@jit(inline="always")
def _legal(st, ids):
    p = st[CURRENT]
    return every_legal(legal_word(st), st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR], ids)


@jit
def place_value(place, players, v2, scheme):
    """The reward of finishing ``place`` (1 = first out). ``WIN``: 1 for the first out, else
    0. ``PLACE``: seed rules +1 the winner, -1 every other seat (R25: they all lose); V2 +1
    first out down to -1 the Shithead, linear in the place."""
    if scheme == WIN:
        return 1.0 if place == 1 else 0.0
    if v2 == 0 or players < 2:
        return 1.0 if place == 1 else -1.0
    return 1.0 - 2.0 * (place - 1) / (players - 1)


@jit
def play(st, m, max_turns, scheme, substitute, rewards, ids):
    """The seat to move plays move id ``m`` (R24: checked against the legal word first; an
    illegal one is refused, ILLEGAL, or with ``substitute`` replaced by the lowest legal id).
    ``rewards`` (float64, MAXP) gets each seat's reward for this move: a seat's place is
    scored when it goes out (V2), every seat still holding cards when the game ends
    (R18, R25, V2). Returns RUNNING, OVER_ or TRUNCATED (R25: ``max_turns`` reached), with
    SUBSTITUTED or-ed in when ``m`` was replaced."""
    for s in range(rewards.shape[0]):
        rewards[s] = 0.0
    legal = legal_word(st)
    flag = 0
    if st[OVER] or not legal_move(st, legal, m):
        if not substitute or st[OVER]:
            return ILLEGAL
        m = lowest_legal(st, ids)
        flag = SUBSTITUTED
    p = st[CURRENT]
    players = st[PLAYERS]
    ev = apply_move(st, m)
    if ev & EV_OUT:
        rewards[p] = place_value(st[NOUT], players, st[V2], scheme)
    if ev & EV_GAME_OVER:
        for s in range(players):
            if holds_cards(st, s):           # not out (R18): the last place
                rewards[s] = place_value(players, players, st[V2], scheme)
        return OVER_ | flag
    if st[TURN] >= max_turns:
        return TRUNCATED | flag
    return RUNNING | flag
