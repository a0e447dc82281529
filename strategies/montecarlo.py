"""``montecarlo``: a search strategy that plays each legal move out many times.

For each legal move the strategy samples the cards it cannot see, consistent with what its
player knows (R26: the unseen cards are dealt at random into the other hands' unknown part,
every face-down stack and the stock), applies the move with the rules kernel and plays the
game out, ``rollouts`` times in all. In the playouts every seat plays a fixed policy: with
``model=0`` ``lowest`` (with a share ``noise`` of random moves), with ``model=1``
``counting``, with ``model=2`` (default) each seat draws one of the two per playout. A
search that assumes one exact opponent policy exploits opponents who play it and
misjudges the others; the mixture is what makes it strong against both. By default
(``pickups=0``) it picks up only when no play is legal: searched pick-ups were plans that
work only if the other seats play as modelled, and with two montecarlo seats at a table
they lost to plain ``lowest``.
It picks the move with the best result: under the seed rules the share of playouts it wins;
under V2 its mean finishing place. Everything runs inside the Numba core.

The sampler and the playouts are compiled with the project's options (no bounds checks):
they read only the observation and the strategy's own hand, like any strategy.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit
from sim.cards import NRANK
from sim.engine import apply_move, derive_have, legal_word
from sim.layout import (
    ADD,
    BLIND, CURRENT, DECK, EV_GAME_OVER, FD, FDN, FU, HANDN, HANDS, KNOWN, L_BLIND, MAXP, NOUT,
    OUTORDER, PICKUP, PILECNT, PLAYERS, PUB, STATE_SIZE, STOCK, STOCKLEN, BURNED, V2,
)
from sim.moves import count_legal, has, lowest_bit, most_cards, nth_legal, play_ranks
from sim.rng import randint, uniform
from sim.strategy import move_strategy
from strategies.heuristics import counting


@jit
def sample_world(obs, hand, rng, st, pool):
    """Fill ``st`` with a full position consistent with the observation and the hand."""
    st[:] = 0
    st[:PUB] = obs
    me = obs[CURRENT]
    players = obs[PLAYERS]
    n = 0                                    # the unseen cards: deck minus everything known
    for r in range(NRANK):
        left = (2 if players == 6 else 0) if r == NRANK - 1 else 4
        left -= obs[PILECNT + r] + obs[BURNED + r] + hand[r]
        for s in range(players):
            left -= obs[FU + s * NRANK + r]
            if s != me:
                left -= obs[KNOWN + s * NRANK + r]
        for _ in range(left):
            pool[n] = r
            n += 1
    for i in range(n - 1, 0, -1):            # shuffle, then deal in a fixed order
        j = randint(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    k = 0
    for s in range(players):
        if s == me:
            for r in range(NRANK):
                st[HANDS + s * NRANK + r] = hand[r]
        else:
            unknown = obs[HANDN + s]
            for r in range(NRANK):
                st[HANDS + s * NRANK + r] = obs[KNOWN + s * NRANK + r]
                unknown -= obs[KNOWN + s * NRANK + r]
            for _ in range(unknown):
                st[HANDS + s * NRANK + pool[k]] += 1
                k += 1
        for i in range(obs[FDN + s]):
            st[FD + s * DECK + i] = pool[k]
            k += 1
    for i in range(obs[STOCKLEN]):
        st[STOCK + i] = pool[k]
        k += 1
    derive_have(st)                          # hands written directly: the legal words' source
    return k == n                            # every unseen card placed exactly once


@jit(inline="always")
def _default_policy(legal, st, rng, noise):
    """``lowest`` (the lowest legal rank, all copies when leading), except that with
    probability ``noise`` a uniformly random legal move: the other players are not exactly
    ``lowest``, and a search that assumes they are exploits a model that is wrong."""
    if noise > 0 and uniform(rng) < noise:
        return nth_legal(legal, st, randint(rng, count_legal(legal, st)))
    ranks = play_ranks(legal)
    if ranks:
        return most_cards(legal, lowest_bit(ranks))
    return BLIND if has(legal, L_BLIND) else PICKUP


@jit
def _score(st, me):
    """1 for a win (seed rules); under V2 the share of seats finished behind ``me``."""
    players = st[PLAYERS]
    if st[V2] == 0:
        return 1.0 if st[NOUT] > 0 and st[OUTORDER] == me else 0.0
    for i in range(st[NOUT]):
        if st[OUTORDER + i] == me:
            return (players - 1 - i) / (players - 1)
    return 0.0


@jit
def evaluate(obs, hand, legal, rng, rollouts, horizon, noise, model, pickups):
    """The legal move with the best mean playout score. With ``pickups`` 0, picking up is
    considered only when no play is legal."""
    if pickups == 0 and legal & ((np.int64(1) << ADD) - 1):
        legal = legal & ((np.int64(1) << ADD) - 1)
    moves = count_legal(legal, obs)
    if moves == 1:
        return nth_legal(legal, obs, 0)
    per_move = max(1, rollouts // moves)
    me = obs[CURRENT]
    st = np.empty(STATE_SIZE, np.int32)
    pool = np.empty(DECK, np.int32)
    best, best_score = -1, -1.0
    counting_params = np.array([3.0])
    model_of = np.zeros(MAXP, np.int64)      # each seat's playout policy
    for k in range(moves):
        m = nth_legal(legal, obs, k)
        total = 0.0
        for _ in range(per_move):
            sample_world(obs, hand, rng, st, pool)
            for s in range(MAXP):                # model 2: each seat lowest or counting
                model_of[s] = model if model < 2 else randint(rng, 2)
            ev = apply_move(st, m)
            turns = 0
            while not ev & EV_GAME_OVER and turns < horizon:
                if st[V2] and _score(st, me) > 0:
                    break                    # V2: my place is decided
                word = legal_word(st)
                p = st[CURRENT]
                if model_of[p] == 1:           # this seat plays `counting`
                    m2 = counting(st[:PUB], st[HANDS + p * NRANK:HANDS + p * NRANK + NRANK],
                                  word, rng, counting_params)
                else:
                    m2 = _default_policy(word, st, rng, noise)
                ev = apply_move(st, m2)
                turns += 1
            total += _score(st, me)
        if total > best_score:
            best, best_score = m, total
    return best


@move_strategy(
    "montecarlo",
    "search: for each legal move, samples the unseen cards and plays the game out "
    "(`rollouts` playouts per decision; seats modelled as lowest or counting); picks the best",
    swap="highest-up",
    params={"rollouts": (200, 1, 1_000_000), "horizon": (1000, 10, 100_000),
            "noise": (0.1, 0.0, 1.0), "model": (2, 0, 2), "pickups": (0, 0, 1)},
)
def montecarlo(obs, hand, legal, rng, params):
    return evaluate(obs, hand, legal, rng, np.int64(params[0]), np.int64(params[1]),
                    params[2], np.int64(params[3]), np.int64(params[4]))


__all__ = ["montecarlo", "sample_world", "evaluate", "MAXP"]
