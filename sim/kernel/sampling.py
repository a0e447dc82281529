"""Worlds sampled from what one seat may know, and moves played out in them.

:func:`sample_world` re-deals everything a seat cannot see (R26), consistently with its
observation and hand; :func:`playouts` plays every candidate move out in many such worlds
with common random numbers; :func:`split_playouts` plays every split of a seat's six cards
(R5) on deals where that seat holds them (:func:`deal_holding`). All are jitted kernel code
(NumPy and Numba only), shared by the ``montecarlo`` strategy (the sampler), ``sim analyze``
(:mod:`sim.studies.analysis`) and ``sim swap`` (:mod:`sim.studies.swapstudy.advice`): a
world's result depends only on the seed and the world's index, never on the number of
threads. Each kernel plays a range of worlds on one thread; the process's pool of threads
(:mod:`sim.runs.workers`) plays the chunks of a range side by side, as it plays games.
"""
from __future__ import annotations

import numpy as np

from sim.kernel import cycle, engine
from sim.kernel.cards import NRANK
from sim.kernel.compiler import borrow, jit
from sim.kernel.engine import legal_move
from sim.kernel.dealing import deck_jokers
from sim.kernel.derived import derive_have
from sim.kernel.fastpath import ENTRY
from sim.kernel.layout import (
    BURNED, CURRENT, DECK, EV_GAME_OVER, EV_OUT, FD, FDN, FDS, FU, HANDN, HANDS, KNOWN, MAXP,
    NDECKS, NOUT, NR, OUTORDER, OVER, PILECNT, PLAYERS, PUB, REMOVED, REMOVEDN, STATE_SIZE,
    STOCK, STOCKLEN, V2,
)
from sim.kernel.referee import BAD_MOVE as GAME_BAD_MOVE
from sim.kernel.referee import UNFINISHED as GAME_UNFINISHED
from sim.kernel.referee import BAD_SWAP, SWAP_CARDS, deal_game, play_out, swap_phase
from sim.kernel.rng import next_u64, randint, seed_game, shuffle, splitmix64


@jit
def sample_world(obs, hand, rng, st, pool):
    """Fill ``st`` with a full position consistent with the observation and the hand."""
    st[:] = 0
    st[:PUB] = obs
    me = obs[CURRENT]
    players = obs[PLAYERS]
    n = 0                                    # the unseen cards: deck minus everything known
    for r in range(NRANK):
        left = deck_jokers(obs) if r == NRANK - 1 else 4 * max(obs[NDECKS], 1)   # R1, H13, H18
        left -= obs[PILECNT + r] + obs[BURNED + r] + hand[r]
        for s in range(players):
            left -= obs[FU + s * NRANK + r]
            if s != me:
                left -= obs[KNOWN + s * NRANK + r]
        for _ in range(left):
            pool[n] = r
            n += 1
    shuffle(pool, 0, n, rng)                 # shuffle, then deal in a fixed order
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
            st[FD + s * FDS + i] = pool[k]
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
def play_on(world, m, me, stream, max_turns, fns, params, bad):
    """Apply ``m`` to the world ``world`` and let every seat play its strategy until the
    analyst's result is decided, drawing from ``stream``. Returns (score, status); a
    strategy's illegal move (R24) writes (seat, move) into ``bad``. The ruleset's scalars are
    read once a playout (:func:`sim.kernel.engine.rules_of`), and the analyst's place only
    after a seat goes out."""
    st, rng = borrow(world), borrow(stream)     # the caller holds both for the whole call
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
        if not legal_move(st, legal, m2):
            bad[0], bad[1] = p, m2
            return 0.0, BAD_MOVE
        ev = engine.apply_with(st, m2, rz)
        turns += 1
    return score(st, me, players), OK


@jit
def playouts(st0, sample, moves, seed, first, scores, status, bad, max_turns, fns, params):
    """Worlds ``first .. first + len(scores) - 1``: each re-dealt from what the seat to move
    knows (``sample``), or ``st0`` itself, and every move of ``moves`` played out in it from
    the same random stream. Fills ``scores`` and ``status`` (worlds x moves). One thread's
    share: callers cut the worlds into chunks for the process's threads
    (sim.runs.workers), each world's result depending on its index alone."""
    obs = st0[:PUB]
    me = st0[CURRENT]
    hand = st0[HANDS + me * NR:HANDS + me * NR + NR]
    n = scores.shape[0]
    pv = borrow(params)                       # rows handed on without reference counts
    rng = np.empty(4, np.uint64)
    world = np.empty(STATE_SIZE, np.int32)
    st = np.empty(STATE_SIZE, np.int32)
    pool = np.empty(DECK, np.int32)
    prng = np.empty(4, np.uint64)
    for w in range(n):
        seed_game(rng, seed, first + w)
        if sample:
            sample_world(obs, hand, rng, world, pool)
        else:
            world[:] = st0
        s0 = next_u64(rng)
        for i in range(moves.shape[0]):
            st[:] = world
            x = s0                            # the same playout stream for every move
            for j in range(4):
                x = splitmix64(x)
                prng[j] = x
            scores[w, i], status[w, i] = play_on(st, moves[i], me, prng, max_turns, fns, pv,
                                                 bad[w])


# -- deals where one seat holds given cards: the swap advisor (sim swap) ---------------------
@jit
def _take_elsewhere(st, s, d, k, o):
    """Put rank ``o`` where the ``k``-th copy of rank ``d`` lies outside seat ``s``'s face-ups
    and hand: another seat's face-ups or hand, a face-down stack, the stock or the cards set
    aside (H17), in that order."""
    players = st[PLAYERS]
    for t in range(players):
        if t == s:
            continue
        for base in (FU, HANDS):
            c = st[base + t * NR + d]
            if k < c:
                st[base + t * NR + d] -= 1
                st[base + t * NR + o] += 1
                return
            k -= c
    for t in range(players):
        for i in range(st[FDN + t]):
            if st[FD + t * FDS + i] == d:
                if k == 0:
                    st[FD + t * FDS + i] = o
                    return
                k -= 1
    for i in range(st[STOCKLEN]):
        if st[STOCK + i] == d:
            if k == 0:
                st[STOCK + i] = o
                return
            k -= 1
    st[REMOVED + d] -= 1
    st[REMOVED + o] += 1


@jit
def deal_holding(st, rng, players, rules, s, want):
    """The deal of the referee (:func:`sim.kernel.referee.deal_game`, R3-R4, V1, H12-H17),
    conditioned on seat ``s`` being dealt the cards ``want`` (counts per rank, twice the hand
    size) among the cards its swap chooses from (R5: face-ups and hand; V1: hand).

    The seat's surplus copies are chosen at random among its copies of their rank, paired at
    random with its missing cards, and each exchanged with a copy of the missing rank chosen
    at random among those outside the seat: the result is distributed as a random deal given
    that the seat holds ``want`` (the exchange commutes with every permutation of the places
    inside and outside the seat). Returns False if the deck cannot hold ``want`` (R1, H13)."""
    deal_game(st, rng, players, rules)
    up = np.empty(NR, np.int64)
    hand = np.empty(NR, np.int64)
    total = np.zeros(NR, np.int64)                   # the deck's copies of each rank
    for r in range(NR):
        up[r] = st[FU + s * NR + r]
        hand[r] = st[HANDS + s * NR + r]
    for t in range(players):
        for r in range(NR):
            total[r] += st[FU + t * NR + r] + st[HANDS + t * NR + r]
        for i in range(st[FDN + t]):
            total[st[FD + t * FDS + i]] += 1
    for i in range(st[STOCKLEN]):
        total[st[STOCK + i]] += 1
    for r in range(NR):
        total[r] += st[REMOVED + r]
        if want[r] > total[r]:
            return False
    slot_rank = np.empty(2 * DECK, np.int64)        # the surplus copies: rank, place
    slot_up = np.empty(2 * DECK, np.int64)
    n = 0
    for r in range(NR):
        for _ in range(up[r] + hand[r] - want[r]):
            on_top = randint(rng, up[r] + hand[r]) < up[r]
            slot_rank[n], slot_up[n] = r, on_top
            if on_top:
                up[r] -= 1
            else:
                hand[r] -= 1
            n += 1
    for i in range(n - 1, 0, -1):                   # a random pairing
        j = randint(rng, i + 1)
        slot_rank[i], slot_rank[j] = slot_rank[j], slot_rank[i]
        slot_up[i], slot_up[j] = slot_up[j], slot_up[i]
    m = 0
    for d in range(NR):
        held = st[FU + s * NR + d] + st[HANDS + s * NR + d]
        for _ in range(want[d] - held):
            outside = total[d] - held               # copies of d outside the seat
            o = slot_rank[m]
            _take_elsewhere(st, s, d, randint(rng, outside), o)
            held += 1
            if slot_up[m]:
                st[FU + s * NR + d] += 1
                st[FU + s * NR + o] -= 1
            else:
                st[HANDS + s * NR + d] += 1
                st[HANDS + s * NR + o] -= 1
            m += 1
    derive_have(st)
    return True


@jit
def _swap_and_play(world, stream, swaps, kinds, params, chosen, cards, err, cap, moves, log,
                   seen):
    """The referee's :func:`swap_phase` and :func:`play_out` on the deal ``world``, drawing
    from ``stream``: the game's status (BAD_SWAP for a swap the referee refuses). ``play_out`` gets
    views into the arrays the caller holds for the whole call (:func:`borrow`)."""
    st, rng = borrow(world), borrow(stream)
    if not swap_phase(world, rng, swaps, kinds, params, chosen, cards, err):
        return BAD_SWAP
    return play_out(st, rng, cap, moves, kinds, params, log, err, seen)


@jit
def split_playouts(seed, first, s, want, ups, moves, swaps, pool_params, kinds, rules, players,
                   cap, impure, cycle_stop, order, status):
    """Deals ``first .. first + len(status) - 1`` of ``seed``, each dealt with seat ``s``
    holding ``want`` (:func:`deal_holding`), then played once for every face-up triple of
    ``ups`` (table indices, :func:`sim.kernel.referee.triple_code`'s numbers): the same deal
    and the same random stream for every split (common random numbers).

    The seats play a pool's ``moves``, ``swaps`` and ``pool_params``
    (:class:`sim.kernel.fastpath.Pool`, passed apart) seated by ``kinds`` (the referee's
    :func:`swap_phase` and :func:`play_out`, R5-R25); seat ``s``'s swap policy must be
    ``table`` (:mod:`strategies.swaps`) with a row of zeros, which is set to 1 at the
    split's face-up triple (in a copy of the rows). Fills ``order`` (deals x splits x
    players: the finishing order, -1 for none) and ``status`` (deals x splits: the
    referee's FINISHED, UNFINISHED, BAD_MOVE, BAD_SWAP; BAD_SWAP too for a deal that cannot
    hold ``want``). One thread's share: callers cut the deals into chunks for the process's
    threads (sim.runs.workers), each deal's result depending on its index alone."""
    n = status.shape[0]
    nfns = len(moves)
    row = nfns + kinds[ENTRY + s]                  # seat s's swap parameter row
    world = np.empty(STATE_SIZE, np.int32)
    st = np.empty(STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    cards = np.zeros(SWAP_CARDS, np.int32)
    chosen = np.zeros(MAXP, np.int64)
    err = np.zeros(3, np.int64)
    seen = np.zeros(cycle.SIZE if cycle_stop else 0, np.int32)
    log = np.zeros(0, np.int32)
    params = pool_params.copy()              # this call's: the forced triple is written
    for w in range(n):
        seed_game(rng, seed, first + w)
        if not deal_holding(world, rng, players, rules, s, want):
            for i in range(ups.shape[0]):
                status[w, i] = BAD_SWAP
            continue
        s0 = next_u64(rng)
        for i in range(ups.shape[0]):
            st[:] = world
            x = s0                            # the same stream for every split
            for j in range(4):
                x = splitmix64(x)
                prng[j] = x
            params[row, ups[i - 1] if i > 0 else ups[0]] = 0.0
            params[row, ups[i]] = 1.0
            if cycle_stop:
                seen[cycle.IMPURE] = impure
            status[w, i] = _swap_and_play(st, prng, swaps, kinds, params, chosen, cards,
                                          err, cap, moves, log, seen)
            for p in range(players):
                order[w, i, p] = st[OUTORDER + p]
        params[row, ups[ups.shape[0] - 1]] = 0.0


# -- a seat's swap from what it saw at the deal: sim review -------------------------------------
SWAP_OK, SWAP_REFUSED, SWAP_BAD_MOVE = 0, 1, 2


@jit
def swap_playouts(dealt, seat, hand, seed, first, masks, row, swap_fns, kinds, params_in, moves,
                  max_turns, scores, bad):
    """Worlds ``first .. first + len(scores) - 1`` of a review of seat ``seat``'s swap (R5,
    V1): each re-dealt from what the seat saw at the deal ``dealt`` (its ``hand`` and the
    dealt face-ups, R26), then every choice of ``masks`` (over its dealt cards) made by its
    swap policy (parameter row ``row``, :func:`strategies.swaps.given_swaps`), the others
    swapping by theirs, and the game played out by ``moves``, from one random stream for
    every choice. ``scores`` (worlds x choices): 1 for a win (V2: the place); an unfinished
    game 0 (V2: the mean of the places still open). Returns ``SWAP_OK``, or an error with
    (seat, answer, turn) in ``bad``: a swap refused (R5) or an illegal move (R24).
    One thread's share, as :func:`playouts`."""
    players = dealt[PLAYERS]
    obs = dealt[:PUB].copy()
    obs[CURRENT] = seat
    params = params_in.copy()                 # this call's: the choice is written
    world = np.zeros(STATE_SIZE, np.int32)
    st = np.zeros(STATE_SIZE, np.int32)
    pool = np.zeros(DECK, np.int32)
    rng = np.zeros(4, np.uint64)
    prng = np.zeros(4, np.uint64)
    choice = np.zeros(MAXP, np.int64)
    err = np.zeros(3, np.int64)
    cards = np.zeros(SWAP_CARDS, np.int32)
    log = np.zeros(0, np.int32)
    seen = np.zeros(0, np.int32)
    for w in range(scores.shape[0]):
        seed_game(rng, seed, first + w)
        sample_world(obs, hand, rng, world, pool)
        for i in range(masks.shape[0]):
            st[:] = world
            prng[:] = rng                     # the same stream for every choice
            params[row, 0] = masks[i]
            if not swap_phase(st, prng, swap_fns, kinds, params, choice, cards, err):
                bad[0], bad[1], bad[2] = err[0], err[1], 0
                return SWAP_REFUSED
            status = play_out(st, prng, max_turns, moves, kinds, params, log, err, seen)
            if status == GAME_BAD_MOVE:       # R24: never scored as a loss
                bad[0], bad[1], bad[2] = err[0], err[1], err[2]
                return SWAP_BAD_MOVE
            v = score(st, seat, players)
            if status == GAME_UNFINISHED or (st[V2] and v == 0):
                v = (st[NOUT] + 1 + players) / 2.0 if st[V2] else 0.0
            scores[w, i] = v
    return SWAP_OK
