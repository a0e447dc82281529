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
from sim.engine import apply_move, legal_word
from sim.layout import (
    ADD, BLIND, BURNED, CURRENT, DECK, EV_GAME_OVER, FD, FDN, FU, HANDN, HANDS, KNOWN, L_ADD,
    L_BLIND, L_PICKUP, MAXP, NMOVES, NOUT, OUTORDER, PICKUP, PILECNT, PILELEN, PLAYERS, PUB,
    STATE_SIZE, STOCK, STOCKLEN, V2,
)
from sim.cards import TWO
from sim.moves import count_legal, has, lowest_bit, most_cards, nth_legal, play_ranks
from sim.rng import next_u64, randint, splitmix64, uniform
from sim.strategy import move_strategy
from strategies.heuristics import _BREAK, _SHED, _WILD, _cost, counting


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


@jit(inline="always")
def _lite(legal, st, rng, noise):
    """``counting`` without its blocking rule: the play that sheds most for the lowest cost
    without breaking a set (its weights), 2s kept over 3..Q, the lowest face-up added to a
    pick-up; with probability ``noise`` a uniformly random legal move."""
    if noise > 0 and uniform(rng) < noise:
        return nth_legal(legal, st, randint(rng, count_legal(legal, st)))
    ranks = play_ranks(legal)
    p = st[CURRENT]
    if ranks == 0:
        if has(legal, L_BLIND):
            return BLIND
        if has(legal, L_ADD):
            for r in range(NRANK):
                if st[FU + p * NRANK + r] > 0:
                    return ADD + r
        return PICKUP
    if ((ranks & ~_WILD) == 0 and has(legal, L_PICKUP) and st[STOCKLEN] > 0
            and st[PILELEN] <= 3):
        return PICKUP
    from_hand = st[HANDN + p] > 0
    best = -1
    best_score = -1e300
    bits = ranks
    while bits:
        r = lowest_bit(bits)
        bits &= bits - 1
        m = most_cards(legal, r)
        c = m // NRANK + 1
        score = _SHED * c - _cost(r)
        held = st[HANDS + p * NRANK + r] if from_hand else st[FU + p * NRANK + r]
        if held > c:
            score -= _BREAK
        if score >= best_score if r < TWO else score > best_score:
            best_score, best = score, m
    return best


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
def _playout(st, m, me, rng, horizon, noise, model, counting_params):
    """Apply ``m`` to the world ``st`` and play on with the playout policy; the score."""
    ev = apply_move(st, m)
    turns = 0
    mix = 0
    if model == 2:                           # each seat lowest or counting, per playout
        mix = randint(rng, 1 << MAXP)
    while not ev & EV_GAME_OVER and turns < horizon:
        if st[V2] and _score(st, me) > 0:
            break                            # V2: my place is decided
        word = legal_word(st)
        p = st[CURRENT]
        if model == 1 or (model == 2 and (mix >> p) & 1):
            m2 = counting(st[:PUB], st[HANDS + p * NRANK:HANDS + p * NRANK + NRANK],
                          word, rng, counting_params)
        elif model == 3:
            m2 = _lite(word, st, rng, noise)
        else:
            m2 = _default_policy(word, st, rng, noise)
        ev = apply_move(st, m2)
        turns += 1
    return _score(st, me)


@jit
def evaluate(obs, hand, legal, rng, rollouts, horizon, noise, model, pickups, split=1,
             crn=0, prior=-1.0, halving=0):
    """The legal move with the best mean playout score. With ``pickups`` 0, picking up is
    considered only when no play is legal."""
    counting_params = np.array([3.0])
    base = counting(obs, hand, legal, rng, counting_params)   # the heuristic's choice
    if pickups == 0 and legal & ((np.int64(1) << ADD) - 1):
        legal = legal & ((np.int64(1) << ADD) - 1)
    cand = np.empty(NMOVES, np.int64)
    k = 0
    if split:
        moves = count_legal(legal, obs)
        for i in range(moves):
            cand[k] = nth_legal(legal, obs, i)
            k += 1
    else:
        ranks = play_ranks(legal)
        if ranks == 0:
            moves = count_legal(legal, obs)
            for i in range(moves):
                cand[k] = nth_legal(legal, obs, i)
                k += 1
        else:
            while ranks:
                r = lowest_bit(ranks)
                ranks &= ranks - 1
                cand[k] = most_cards(legal, r)
                k += 1
    ib = -1                                   # the heuristic's move among the candidates
    for i in range(k):
        if cand[i] == base:
            ib = i
    if ib < 0 and prior >= 0:
        cand[k] = base
        ib = k
        k += 1
    if k == 1:
        return cand[0]
    me = obs[CURRENT]
    st = np.empty(STATE_SIZE, np.int32)
    world = np.empty(STATE_SIZE, np.int32)
    pool = np.empty(DECK, np.int32)
    prng = np.empty(4, np.uint64)
    alive = np.ones(k, np.bool_)
    total = np.zeros(k)
    n = np.zeros(k)
    dsum = np.zeros(k)                        # paired differences with the heuristic's move
    dsq = np.zeros(k)
    sc = np.zeros(k)
    n_alive = k
    rounds = 1
    if halving:
        while (1 << rounds) < k:
            rounds += 1
    for rnd in range(rounds):
        worlds = max(1, rollouts // (rounds * n_alive)) if crn else 1
        reps = 1 if crn else max(1, rollouts // (rounds * n_alive))
        for _ in range(worlds):
            if crn:
                sample_world(obs, hand, rng, world, pool)
                s0 = next_u64(rng)
            for i in range(k):
                if not alive[i]:
                    continue
                for _ in range(reps):
                    if crn:
                        st[:] = world
                        x = s0
                        for j in range(4):
                            x = splitmix64(x)
                            prng[j] = x
                        sc[i] = _playout(st, cand[i], me, prng, horizon, noise, model,
                                         counting_params)
                    else:
                        sample_world(obs, hand, rng, st, pool)
                        sc[i] = _playout(st, cand[i], me, rng, horizon, noise, model,
                                         counting_params)
                    total[i] += sc[i]
                    n[i] += 1
            if crn and ib >= 0:
                for i in range(k):
                    if alive[i]:
                        d = sc[i] - sc[ib]
                        dsum[i] += d
                        dsq[i] += d * d
        if rnd < rounds - 1:                  # successive halving: keep the better half
            keep = (n_alive + 1) // 2
            while n_alive > keep:
                worst, wv = -1, 1e300
                for i in range(k):
                    if alive[i] and i != ib and total[i] / n[i] < wv:
                        worst, wv = i, total[i] / n[i]
                if worst < 0:
                    break
                alive[worst] = False
                n_alive -= 1
    best, bv = -1, -1e300
    for i in range(k):
        if alive[i] and total[i] / n[i] > bv:
            best, bv = i, total[i] / n[i]
    if prior >= 0 and ib >= 0 and best != ib:
        if crn:
            m = dsum[best] / n[best]
            var = dsq[best] / n[best] - m * m
            if m <= 0 or m * m * n[best] <= prior * prior * var:
                return cand[ib]
        elif bv <= total[ib] / n[ib] + prior * np.sqrt(max(bv * (1 - bv), 0.01) / n[best]):
            return cand[ib]
    return cand[best]


@move_strategy(
    "montecarlo",
    "search: for each legal move, samples the unseen cards and plays the game out "
    "(`rollouts` playouts per decision; seats modelled as lowest or counting); picks the best",
    swap="highest-up",
    params={"rollouts": (200, 1, 1_000_000), "horizon": (1000, 10, 100_000),
            "noise": (0.1, 0.0, 1.0), "model": (2, 0, 3), "pickups": (0, 0, 1),
            "split": (1, 0, 1), "crn": (0, 0, 1), "prior": (-1.0, -1.0, 100.0),
            "halving": (0, 0, 1)},
)
def montecarlo(obs, hand, legal, rng, params):
    return evaluate(obs, hand, legal, rng, np.int64(params[0]), np.int64(params[1]),
                    params[2], np.int64(params[3]), np.int64(params[4]), np.int64(params[5]),
                    np.int64(params[6]), params[7], np.int64(params[8]))


__all__ = ["montecarlo", "sample_world", "evaluate", "MAXP"]
