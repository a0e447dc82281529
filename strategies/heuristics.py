"""Heuristic strategies: ``highest``, ``save-specials`` and ``counting``.

All three are loops over the ranks of the legal word (:mod:`sim.kernel.moves`) that allocate nothing,
so that they cost little more than ``lowest`` in the batch core.

``counting`` was tuned against ``lowest``; its weights are the module constants below. What
the tuning found, for whoever changes them: benchmarks/results/counting-tuning.md.

All three play every copy of a rank (5 to 8 with two decks, H18) where they play "all copies",
and say in their description how they end a chain (H19).
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.cards import JOKER, TEN, TWO
from sim.kernel.dealing import deck_jokers
from sim.kernel.layout import (
    ADD, BLIND, BURNED, CURRENT, DIR, END, FDN, FU, FUN, HANDN, KNOWN, L_ADD, L_BIG, L_BLIND,
    L_END, L_PICKUP, NDECKS, NR, PICKUP, PILECNT, PILELEN, PLAYERS, R_COUNT, R_COVER, R_FOLLOW,
    R_FOUR, R_REV, R_SKIP, R_TEN, R_TRANS, RUN, STOCKLEN, TOPRANK, TURN,
)
from sim.kernel.moves import (
    big_play, big_ranks, big_word, count_legal, forced, has, lowest_bit, most_cards, move_cards,
    most_play, nth_legal, play_ranks,
)
from sim.kernel.rng import randint
from sim.kernel.strategy import move_strategy

_SPECIALS = (1 << TEN) | (1 << TWO) | (1 << JOKER)
_WILD = (1 << TWO) | (1 << JOKER)      # playable on anything (R20, R23)


@jit(inline="always")
def _rank_bit(r):
    """The bit of rank code ``r`` (-1, a rule's "none", gives 0)."""
    return (1 << r) if r >= 0 else 0


@jit(inline="always")
def wild(obs):
    """The ranks playable on anything under these rules: 2s (R20), jokers (R23), the
    transparent rank (H5) and, under H2, the 10."""
    return _WILD | _rank_bit(obs[R_TRANS]) | (obs[R_TEN] << TEN)


@jit(inline="always")
def forced_move(obs, hand, legal, high):
    """No play of 1 to 4 cards is legal: :func:`sim.kernel.moves.forced`; when only plays of
    5 to 8 cards are (two decks, H18), the largest of the lowest rank (``high``: highest)."""
    m = forced(legal, obs)
    if m < 0:                                 # H18: :func:`sim.kernel.moves.big_play`
        m = big_play(obs, hand, _highest_rank(big_ranks(big_word(obs, hand))) if high else -1)
    return m


@jit(inline="always")
def _highest_rank(bits):
    for r in range(NR - 1, -1, -1):
        if (bits >> r) & 1:
            return r
    return -1


@jit
def largest_play(legal, r, obs, hand):
    """:func:`sim.kernel.moves.most_play`, out of line: only games of two decks (H18) call it,
    and inlined in counting's loops it slowed every one-deck turn (benchmarks/ab.py)."""
    return most_play(legal, r, obs, hand)


@jit(inline="always")
def _lowest_rank(bits):
    for r in range(NR):
        if (bits >> r) & 1:
            return r
    return -1


# -- highest ---------------------------------------------------------------------------------
@move_strategy(
    "highest",
    "plays the highest legal rank (3 up to A, then 2, then joker), all copies when leading "
    "(5 to 8 with two decks, H18); in a chain (H19) goes on with every card of the run's rank; "
    "picks up only when nothing is legal",
    swap="highest-up",
    pure=True,
)
def highest(obs, hand, legal, rng, params):
    ranks = play_ranks(legal)
    if ranks == 0:
        return forced_move(obs, hand, legal, True)
    return most_play(legal, _highest_rank(ranks), obs, hand)     # H18: 5 to 8 cards too


# -- save-specials ---------------------------------------------------------------------------
@move_strategy(
    "save-specials",
    "plays the lowest legal rank, all copies when leading (5 to 8 with two decks, H18), but "
    "keeps 2s, 10s, jokers and the transparent rank (H5) until nothing else is legal; burns a "
    "pile of burn_pile cards or more with a 10; in a chain (H19) goes on with every card of "
    "the run's rank, unless it is one of those it keeps: then it ends the turn",
    swap="highest-up",
    params={"burn_pile": (6, 1, 52)},
    pure=True,
)
def save_specials(obs, hand, legal, rng, params):
    ranks = play_ranks(legal)
    if ranks == 0:
        return forced_move(obs, hand, legal, False)
    saved = _SPECIALS | wild(obs)                           # H5: the transparent rank too
    if has(legal, L_END):                                   # H19: in a chain, keep them
        r = obs[TOPRANK]
        return END if (saved >> r) & 1 else most_play(legal, r, obs, hand)
    if (ranks >> TEN) & 1 and obs[PILELEN] >= params[0]:
        return most_play(legal, TEN, obs, hand)            # R21: burn a large pile
    plain = ranks & ~saved
    return most_play(legal, _lowest_rank(plain if plain else ranks), obs, hand)


# -- counting --------------------------------------------------------------------------------
SHED = 3.0      # value of each card a play gets rid of
BREAK = 3.0     # cost of leaving part of a rank behind (breaking a pair or triple)
_COST_TEN = 7.0  # cost of spending a card; plain ranks cost their code (3 = 0 ... A = 11)
_COST_TWO = 9.0
_COST_JOKER = 13.0
_NEAR = 4        # the next seat is "close to going out" below this many cards in all ...
_DANGER = 10.0   # ... and blocking it is worth this much per card under _NEAR
# The weights above are also counting's parameters (shed, break_cost, cost_ten, cost_two,
# cost_joker, near, danger), so that `sim tune counting` can search them; these constants are
# their defaults, and a parameter row shorter than the declared one falls back to them.
_LOOP_TURNS = 1000  # games are ~120 turns long; past this, play at random 1 move in _LOOP_ODDS
_LOOP_ODDS = 4


@jit(inline="always")
def card_cost(r):
    """:func:`_cost_k` with the default costs."""
    return _cost_k(r, _COST_TEN, _COST_TWO, _COST_JOKER)


@jit(inline="always")
def _cost_k(r, cten, ctwo, cjoker):
    """:func:`card_cost` with the costs of 10, 2 and joker given."""
    if r == TEN:
        return cten
    if r == TWO:
        return ctwo
    if r == JOKER:
        return cjoker
    return r * 1.0


@jit(inline="always")
def _knob(params, i, default):
    return params[i] if params.shape[0] > i else default


@jit(inline="always")
def _unseen(obs, hand, p):
    """The cards the mover has not seen (R26), per rank: the deck less the pile, the burned
    cards, every face-up card, the cards known to be in other hands and its own hand. Packed
    4 bits a rank (at most 8 of a rank: 4 a deck, H18), with their total: no array to
    allocate."""
    n = obs[PLAYERS]
    copies = 4 * obs[NDECKS]
    packed = 0
    total = 0
    for a in range(NR):
        k = deck_jokers(obs) if a == JOKER else copies   # R1, H13, H18
        k -= obs[PILECNT + a] + obs[BURNED + a] + hand[a]
        for s in range(n):
            k -= obs[FU + s * NR + a]
            if s != p:
                k -= obs[KNOWN + s * NR + a]
        if k > 0:
            packed |= np.int64(k) << (4 * a)     # int64: in Python k is an np.int32
            total += k
    return packed, total


@jit(inline="always")
def _power(u, pr):
    """(1 - pr) ** u by repeated products (the arithmetic :func:`_binom_tail` starts from)."""
    q = 1.0 - pr
    term = 1.0
    for _ in range(u):
        term *= q
    return term


@jit(inline="always")
def _binom_tail(u, pr, need, power):
    """P(X >= need) for X ~ Binomial(u, pr); ``power`` is :func:`_power` (u, pr), computed by
    the caller once for every rank with as many unseen cards (at most four values a
    decision, where a product loop per rank and play was most of a blocking turn)."""
    if need <= 0:
        return 1.0
    if need > u or pr <= 0.0:
        return 0.0
    if pr >= 1.0:
        return 1.0
    q = 1.0 - pr
    term = power
    acc = term
    ratio = pr / q
    for j in range(need - 1):
        term *= (u - j) / (j + 1.0) * ratio
        acc += term
    t = 1.0 - acc
    return t if t > 0.0 else 0.0


@jit(inline="always")
def _can_answer(obs, q, mode, a, c, unseen_a, unseen, unknown_q, powers):
    """The chance that seat ``q`` can play ``c`` cards of rank ``a``: from its hand (mode 0:
    the cards known to be there, R26, plus its unknown cards drawn from the unseen ones),
    from its face-ups (mode 1: exact) or blind (mode 2: its next ``c`` face-down cards).
    ``powers``: :func:`_powers` of ``unseen``, ``unknown_q``."""
    if mode == 0:
        need = c - obs[KNOWN + q * NR + a]
        if unseen <= 0:
            return 1.0 if need <= 0 else 0.0
        return _binom_tail(unknown_q, unseen_a / unseen, need,
                           powers[min(unseen_a, 8)])
    if mode == 1:
        return 1.0 if obs[FU + q * NR + a] >= c else 0.0
    if obs[FDN + q] < c or unseen < c:
        return 0.0
    pr = 1.0
    for i in range(c):
        pr *= (unseen_a - i) / (unseen - i)
    return pr if pr > 0.0 else 0.0


@jit(inline="always")
def _powers(unseen, unknown_q, ndecks):
    """:func:`_power` (unknown_q, k / unseen) for k = 0..8 unseen cards of a rank (the most
    there can be: 4 a deck, R1, H18; with one deck the last four are not computed)."""
    if unseen <= 0:
        return (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    if ndecks < 2:
        return (1.0, _power(unknown_q, 1 / unseen), _power(unknown_q, 2 / unseen),
                _power(unknown_q, 3 / unseen), _power(unknown_q, 4 / unseen), 0.0, 0.0, 0.0,
                0.0)
    return (1.0, _power(unknown_q, 1 / unseen), _power(unknown_q, 2 / unseen),
            _power(unknown_q, 3 / unseen), _power(unknown_q, 4 / unseen),
            _power(unknown_q, 5 / unseen), _power(unknown_q, 6 / unseen),
            _power(unknown_q, 7 / unseen), _power(unknown_q, 8 / unseen))


@jit(boundscheck=True)
def _random_move(obs, legal, rng):
    """A uniformly random legal move (out of line, so that the usual path stays small)."""
    return nth_legal(legal, obs, randint(rng, count_legal(legal, obs)))


@jit(inline="always")
def _plain_effect(obs, r):
    """Does a play of rank ``r`` leave the next seat to answer it on ``r``? Not a 10 (R21),
    a joker (R23), the transparent rank (H5), nor a skip, reverse or cover (H6-H8): they
    burn, turn away from that seat, or leave another effective top."""
    return (r != TEN and r != JOKER and r != obs[R_TRANS] and r != obs[R_SKIP]
            and r != obs[R_REV] and r != obs[R_COVER])


@jit(inline="always")
def _weights(obs, params):
    """What :func:`_score` reads of counting's row (weights from index 1 on, else the module's
    constants) and of the rules, read once a decision rather than once a rank (a playout
    turn of counting is the hot loop of montecarlo: benchmarks/playout_cost.py)."""
    return (_knob(params, 1, SHED), _knob(params, 2, BREAK), _knob(params, 3, _COST_TEN),
            _knob(params, 4, _COST_TWO), _knob(params, 5, _COST_JOKER), obs[R_COUNT],
            obs[R_TRANS], obs[R_TEN], obs[R_FOUR])


@jit(inline="always")
def _score(obs, hand, p, from_hand, r, m, block, w):
    """The value of play ``m`` (rank ``r``): cards shed (H1 off: one rank, whatever the
    cards), less the cost of the rank and of breaking a pair; plus ``block``, the value of
    the next seat not answering it (the caller gives 0 unless :func:`_plain_effect`),
    unless it burns four of a kind (R22, H3). ``w``: :func:`_weights`.
    """
    w_shed, w_break, cten, ctwo, cjoker, count_rule, trans, ten_wild, four = w
    c = move_cards(m)                                   # 5 to 8 with two decks (H18)
    wildish = r == trans or (r == TEN and ten_wild)     # H5, H2: kept like a 2
    # H1 off: every copy of a rank can always go in one play, so a hand takes as many plays
    # as it holds ranks, however many cards: a play sheds one rank, not c cards
    shed = c if count_rule else 1
    score = w_shed * shed - (ctwo if wildish else _cost_k(r, cten, ctwo, cjoker))
    held = hand[r] if from_hand else obs[FU + p * NR + r]
    if held > c:
        score -= w_break
    if block > 0.0 and not (four and (c >= 4 or (obs[TOPRANK] == r
                                                  and obs[RUN] + c >= 4))):
        score += block
    return score


@jit(boundscheck=True)
def _blocking_best(obs, hand, legal, ranks, p, q, from_hand, left_q, params, w):
    """The best play when the next seat ``q`` is close to going out: the usual score plus the
    chance that ``q`` cannot answer, which is a product over the ranks that may follow the
    play (the ruleset's follow table, H0: 7-lower, transparent and 10-anywhere included), of
    as many cards as the play (any number under H1). Returns (its score, the play). Out of
    line, so that the usual path stays small. ``w``: the caller's :func:`_weights`."""
    best = -1
    best_score = -1e300
    bigs = has(legal, L_BIG)
    danger = _knob(params, 7, _DANGER) * (_knob(params, 6, _NEAR) - left_q)
    mode = 0 if obs[HANDN + q] > 0 else (1 if obs[FUN + q] > 0 else 2)
    unknown_q = 0
    if mode == 0:
        unknown_q = obs[HANDN + q]
        for a in range(NR):
            unknown_q -= obs[KNOWN + q * NR + a]
        unknown_q = max(unknown_q, 0)
    packed, unseen = 0, 0
    if mode == 2 or unknown_q > 0:     # else what q can play is known exactly (R26)
        packed, unseen = _unseen(obs, hand, p)
    powers = _powers(unseen, unknown_q, obs[NDECKS])
    wilds = wild(obs) & ~(1 << JOKER)  # a joker turns away from q (R23): scored by the caller
    for part in range(2):              # plain ranks (ties to the higher), then 2s and H5's
        bits = ranks & ~wild(obs) if part == 0 else ranks & wilds
        while bits:
            r = lowest_bit(bits)
            bits &= bits - 1
            m = most_cards(legal, r)
            if bigs:
                m = largest_play(legal, r, obs, hand)
            block = 0.0
            if _plain_effect(obs, r):
                c = move_cards(m) if obs[R_COUNT] else 1
                answers = obs[R_FOLLOW + (0 if r == TWO else r + 1)]   # E = r after it (R20)
                none = 1.0
                for a in range(NR):
                    if (answers >> a) & 1:
                        none *= 1.0 - _can_answer(obs, q, mode, a, c, (packed >> (4 * a)) & 15,
                                                  unseen, unknown_q, powers)
                block = danger * none
            score = _score(obs, hand, p, from_hand, r, m, block, w)
            if score > best_score or (part == 0 and score == best_score):
                best_score, best = score, m
    return best_score, best


@jit(inline="always")
def chain_move(obs, hand, legal):
    """counting in a chain (H19): every card of the run's rank, as it leads (H1 off: a play
    sheds a rank, and one more turn to shed it is what ``END`` would cost); but a rank it keeps
    like a 2 (a 2, a joker, H5's transparent rank, a 10 under H2: their cost is above what a
    play sheds) goes on only when that burns four of a kind (R22: the mover leads again) or
    the stock is empty (no card comes back for it); else ``END``."""
    r = obs[TOPRANK]
    m = most_play(legal, r, obs, hand)                     # H18: 5 to 8 cards too
    if not (r == obs[R_TRANS] or (r == TEN and obs[R_TEN]) or r == TWO or r == JOKER):
        return m
    if (obs[R_FOUR] and obs[RUN] + move_cards(m) >= 4) or obs[STOCKLEN] == 0:
        return m
    return END


@jit(inline="always")
def pickup_move(obs, legal):
    """No play is legal: blind (R14), else a pick-up that sends the lowest face-up along
    (R12; H11 takes all of that rank), else a plain pick-up (R10)."""
    if has(legal, L_BLIND):
        return BLIND
    if has(legal, L_ADD):
        p = obs[CURRENT]
        for r in range(NR):
            if obs[FU + p * NR + r] > 0:
                return ADD + r
    return PICKUP


@move_strategy(
    "counting",
    "counts the public cards (R26) to block the next seat when it is close to going out; "
    "otherwise sheds the most cards for the lowest ranks without breaking pairs (H1 off: "
    "its cheapest rank, every copy), keeping 2s over 3..Q; picks up a pile of pickup_limit "
    "cards or fewer rather than spend a 2; in a chain (H19) goes on with every card of the "
    "run's rank, but with the ranks it keeps like a 2 (2, joker, H5's, a 10 under H2) only "
    "when that burns four of a kind or the stock is empty",
    swap="highest-up",
    params={"pickup_limit": (3, 0, 52), "shed": (SHED, 0.0, 10.0),
            "break_cost": (BREAK, 0.0, 10.0), "cost_ten": (_COST_TEN, 0.0, 15.0),
            "cost_two": (_COST_TWO, 0.0, 15.0), "cost_joker": (_COST_JOKER, 0.0, 20.0),
            "near": (_NEAR, 1, 15), "danger": (_DANGER, 0.0, 30.0)},
)
def counting(obs, hand, legal, rng, params):
    ranks = play_ranks(legal)
    p = obs[CURRENT]
    if ranks == 0:
        if has(legal, L_BIG):                  # H18: only plays of 5 to 8 cards are legal
            return forced_move(obs, hand, legal, False)
        return pickup_move(obs, legal)
    if obs[TURN] >= _LOOP_TURNS and randint(rng, _LOOP_ODDS) == 0:
        # a long game is most likely a cycle of pick-ups among deterministic players (every
        # seat leading its lowest pair, say): a random move now and then breaks it (R25)
        return _random_move(obs, legal, rng)
    if has(legal, L_END):                      # H19: in a chain
        return chain_move(obs, hand, legal)
    # R10 on purpose: only 2s or jokers would do, the pile is small, the stock still lasts.
    wilds = wild(obs)
    if ((ranks & ~wilds) == 0 and has(legal, L_PICKUP) and obs[STOCKLEN] > 0
            and obs[PILELEN] <= params[0]):
        return PICKUP
    n = obs[PLAYERS]
    from_hand = obs[HANDN + p] > 0
    # the next seat in the direction of play, skipping seats that are out (V2)
    d = obs[DIR]
    q = p
    for _ in range(n):
        q += d
        if q == n:
            q = 0
        elif q < 0:
            q = n - 1
        if obs[HANDN + q] + obs[FUN + q] + obs[FDN + q] > 0:
            break
    left_q = obs[HANDN + q] + obs[FUN + q] + obs[FDN + q]
    best = -1
    best_score = -1e300
    bigs = has(legal, L_BIG)                   # H18: plays of 5 to 8 cards are legal
    usual = left_q >= _knob(params, 6, _NEAR) or q == p
    w = _weights(obs, params)
    if usual:
        # the usual case: no blocking, only the legal ranks (ties to the higher rank)
        bits = ranks & ~wilds
        while bits:
            r = lowest_bit(bits)
            bits &= bits - 1
            m = most_cards(legal, r)
            if bigs:
                m = largest_play(legal, r, obs, hand)
            score = _score(obs, hand, p, from_hand, r, m, 0.0, w)
            if score >= best_score:
                best_score, best = score, m
        bits = ranks & wilds                   # 2s, the transparent rank, jokers: if better
    else:
        best_score, best = _blocking_best(obs, hand, legal, ranks, p, q, from_hand, left_q,
                                          params, w)
        bits = ranks & (1 << JOKER)
    while bits:
        r = lowest_bit(bits)
        bits &= bits - 1
        m = most_cards(legal, r)
        if bigs:
            m = largest_play(legal, r, obs, hand)
        score = _score(obs, hand, p, from_hand, r, m, 0.0, w)
        if score > best_score:
            best_score, best = score, m
    return best
