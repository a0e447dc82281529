"""Worlds sampled from what one seat may know, and moves played out in them.

:func:`sample_world` re-deals everything a seat cannot see (R26), consistently with its
observation and hand; :func:`playouts` plays every candidate move out in many such worlds
with common random numbers. Both are jitted kernel code (NumPy and Numba only), shared by
the ``montecarlo`` strategy (the sampler) and ``sim analyze`` (:mod:`sim.studies.analysis`):
a world's result depends only on the seed and the world's index, never on the number of
threads.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from sim.kernel import engine
from sim.kernel.cards import NRANK
from sim.kernel.compiler import borrow, jit
from sim.kernel.engine import deck_jokers, derive_have
from sim.kernel.layout import (
    BURNED, CURRENT, DECK, EV_GAME_OVER, EV_OUT, FD, FDN, FU, HANDN, HANDS, KNOWN, NOUT, NR, OUTORDER,
    OVER, PILECNT, PLAYERS, PUB, REMOVED, REMOVEDN, STATE_SIZE, STOCK, STOCKLEN, V2,
)
from sim.kernel.moves import is_legal
from sim.kernel.rng import next_u64, randint, seed_game, splitmix64


@jit
def sample_world(obs, hand, rng, st, pool):
    """Fill ``st`` with a full position consistent with the observation and the hand."""
    st[:] = 0
    st[:PUB] = obs
    me = obs[CURRENT]
    players = obs[PLAYERS]
    n = 0                                    # the unseen cards: deck minus everything known
    for r in range(NRANK):
        left = deck_jokers(obs) if r == NRANK - 1 else 4       # R1, H13
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
    for _ in range(obs[REMOVEDN]):           # H17: set aside, unseen by all
        st[REMOVED + pool[k]] += 1
        k += 1
    derive_have(st)                          # hands written directly: the legal words' source
    return k == n                            # every unseen card placed exactly once


# The status of a playout.
OK, UNFINISHED, BAD_MOVE = 0, 1, 2


@jit
def score(st, me, players):
    """Seed rules: 1 for a win, else 0. V2: ``me``'s place (1 = first out), 0 while open."""
    if st[V2] == 0:
        return 1.0 if st[NOUT] > 0 and st[OUTORDER] == me else 0.0
    for i in range(st[NOUT]):
        if st[OUTORDER + i] == me:
            return i + 1.0
    if st[OVER]:
        return players * 1.0                  # the one seat never out: the Shithead (V2)
    return 0.0


@jit
def play_on(st, m, me, rng, max_turns, fns, params, bad):
    """Apply ``m`` to the world ``st`` and let every seat play its strategy until the
    analyst's result is decided. Returns (score, status); a strategy's illegal move (R24)
    writes (seat, move) into ``bad``. The ruleset's scalars are read once a playout
    (:func:`sim.kernel.engine.rules_of`), and the analyst's place only after a seat goes out."""
    players = st[PLAYERS]
    rz = engine.rules_of(st)
    ev = engine.apply_with(st, m, rz)
    turns = 0
    while not ev & EV_GAME_OVER:
        if ev & EV_OUT:
            s = score(st, me, players)
            if s > 0:
                return s, OK                  # V2: the analyst is out, its place is known
        if turns >= max_turns:
            if st[V2]:                        # the mean of the places still open
                return (st[NOUT] + 1 + players) / 2.0, UNFINISHED
            return 0.0, UNFINISHED
        legal = engine.legal_from(st, rz)
        p = st[CURRENT]
        m2 = fns[p](st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR], legal, rng, params[p])
        if not is_legal(legal, m2, st[:PUB]):
            bad[0], bad[1] = p, m2
            return 0.0, BAD_MOVE
        ev = engine.apply_with(st, m2, rz)
        turns += 1
    return score(st, me, players), OK


@jit(parallel=True)
def playouts(st0, sample, moves, seed, first, scores, status, bad, max_turns, fns, params):
    """Worlds ``first .. first + len(scores) - 1``: each re-dealt from what the seat to move
    knows (``sample``), or ``st0`` itself, and every move of ``moves`` played out in it from
    the same random stream. Fills ``scores`` and ``status`` (worlds x moves)."""
    obs = st0[:PUB]
    me = st0[CURRENT]
    hand = st0[HANDS + me * NR:HANDS + me * NR + NR]
    n = scores.shape[0]
    pv = borrow(params)                       # rows handed on without reference counts
    for w in prange(n):
        rng = np.empty(4, np.uint64)
        seed_game(rng, seed, first + w)
        world = np.empty(STATE_SIZE, np.int32)
        st = np.empty(STATE_SIZE, np.int32)
        if sample:
            pool = np.empty(DECK, np.int32)
            sample_world(obs, hand, rng, world, pool)
        else:
            world[:] = st0
        s0 = next_u64(rng)
        prng = np.empty(4, np.uint64)
        for i in range(moves.shape[0]):
            st[:] = world
            x = s0                            # the same playout stream for every move
            for j in range(4):
                x = splitmix64(x)
                prng[j] = x
            # views without reference counts (sim.kernel.compiler.borrow); st and prng live on
            scores[w, i], status[w, i] = play_on(borrow(st), moves[i], me, borrow(prng),
                                                 max_turns, fns, pv, bad[w])
    params[0, 0] = params[0, 0]               # the owner outlives its view
