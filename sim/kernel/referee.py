"""The batch core: a referee loop that plays whole games between first-class strategies.

:func:`play_out` is the referee, short enough to read in one screen; :func:`run_games` plays
the games of an array of game numbers (threads run several calls at once, :mod:`sim.runs.batch`)
and writes one record per game into preallocated arrays. Games proven endless stop early
when asked (:mod:`sim.kernel.cycle`). A game's random stream comes from (seed, game index) only
(:mod:`sim.kernel.rng`), so results do not depend on threads or batch sizes.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.kernel import cycle
from sim.kernel.bits import leading_zeros, trailing_zeros
from sim.kernel.compiler import borrow, ix, jit
from sim.kernel.engine import apply_move, apply_with, legal_from, legal_move, rules_of
from sim.kernel.dealing import SWAP_SCRATCH, apply_swap, deal, starter, swap_cards
from sim.kernel.fastpath import (
    ALONE, ANY, ENTRY, KIND, PEERS, SEAT_TABLE, SWAP_KIND, choose_move, choose_peers,
    choose_swap, only_alone, plays_alone, referee_of,
)
from sim.kernel.layout import (
    BURNS, CURRENT, DEALER, EV_GAME_OVER, EV_PICKUP, FIRST, FUN, HANDN, HANDS, HAVE,
    HTRIPLES, MAXP, NR, OUTORDER, PICKUPS, PLAYERS, PUB, R_FORCED, R_HAND, R_STARTER,
    RANKS_MASK, STARTRANK, STATE_SIZE, TRIPLES, TURN, V1,
)
from sim.kernel.moves import play_id
from sim.kernel.rng import randint, seed_game

FINISHED, UNFINISHED, BAD_MOVE, BAD_SWAP = 0, 1, 2, 3
SWAP_CARDS = 8 * MAXP + SWAP_SCRATCH   # the swap phase's scratch of cards (H12: up to 8 a seat)
# The batch core's scratch (:func:`scratch`): the state, the swap's cards, then the cycle
# detection's (int32); the swap choices, an error, the seat table (int64).
_SEEN = STATE_SIZE + SWAP_CARDS
_WORK64 = MAXP + 3 + SEAT_TABLE


class Scratch(NamedTuple):
    """The scratch arrays one call of :func:`run_games` (or :func:`run_alone`) works in
    (:func:`scratch`)."""

    state: np.ndarray   # int32: the state, the swap's cards, then the cycle detection's
    work: np.ndarray    # int64: the swap choices, an error, the seat table
    rng: np.ndarray     # uint64: the game's random state


class Games(NamedTuple):
    """Which games one call of :func:`run_games` plays, and under which table (:func:`_games`)."""

    seed: int
    numbers: np.ndarray     # int64: the game numbers (a game's cards come from seed and number)
    seat_rows: np.ndarray   # int8 (1 or games, MAXP): per game, the pool entry of each seat
    players: int
    rules: np.ndarray       # the ruleset's vector (sim.kernel.ruleset.Ruleset.vector)
    cap: int                # the turn limit (R25)
    cycle_stop: bool        # stop games proven endless (sim.kernel.cycle)


def scratch(cycle_stop) -> Scratch:
    """The scratch one call of :func:`run_games` (or :func:`run_alone`) works in. The core
    allocates nothing itself: code that allocates makes every command import Numba's array
    implementation when it loads the core (start-up time). One set per thread: calls must
    not share them."""
    return Scratch(np.zeros(_SEEN + (cycle.SIZE if cycle_stop else 0), np.int32),
                   np.zeros(_WORK64, np.int64), np.zeros(4, np.uint64))


@jit(inline="always")
def triple_code(st, w, n):
    """A seat's 3 face-up (or hand) cards as one number: sorted ranks r1 <= r2 <= r3 ->
    r1*196 + r2*14 + r3 (the swap study's key); -1 unless there are ``n`` = 3 of them.

    From the have-words at ``w`` (:data:`sim.kernel.layout.HAVE`) without a loop: a loop over the
    ranks held and over the copies of each mispredicted its exits, 8 codes a game. Three
    cards: r1 is the lowest rank held and r3 the highest; r2 is the third rank held if there
    is one, else the rank held twice (r1 = r2 = r3 for three of a kind).
    """
    if n != 3:
        return np.int64(-1)
    held = np.int64(st[ix(w)]) & RANKS_MASK                # ranks with at least one card
    twice = (np.int64(st[ix(w)]) >> NR) & RANKS_MASK       # ... with at least two
    r1 = trailing_zeros(held)
    r3 = 63 - leading_zeros(held)
    middle = held & ~(np.int64(1) << r1) & ~(np.int64(1) << r3)
    r2 = trailing_zeros(middle) if middle != 0 else trailing_zeros(twice)
    return (r1 * NR + r2) * NR + r3


@jit
def deal_game(st, rng, players, rules):
    """R3-R4 (V1, H12-H17): a random dealer, then the deal; the first draws of the game's
    stream. ``rules``: the ruleset's vector (:meth:`sim.kernel.ruleset.Ruleset.vector`)."""
    deal(st, rng, players, randint(rng, players), rules)


@jit(inline="always")
def deal_unswapped(st, rng, players, rules):
    """:func:`deal_game` with no swap phase, then R6's first player as dealt; returns it
    (positions for fitting the learned value, timing playouts)."""
    deal_game(st, rng, players, rules)
    first, rank = starter(st)
    st[CURRENT] = first
    st[FIRST] = first
    st[STARTRANK] = rank
    return first


@jit
def swap_phase(st, rng, swap_fns, kinds, params, swaps, cards, err):
    """R5/V1 swaps (simultaneous: all choose from the deal, then all apply) and R6 (H14, H15).

    ``cards`` (int32, at least ``SWAP_CARDS`` long) is scratch space. Returns False, with
    (seat, choice, 0) in ``err``, when a swap policy's choice is not the hand size (H12) of
    its twice as many cards.
    """
    players = st[PLAYERS]
    obs = borrow(st[:PUB])       # views without reference counts (sim.kernel.patches.borrow)
    k = 2 * st[R_HAND]
    first, rank = starter(st)                              # R6: as dealt
    for s in range(MAXP):
        st[ix(TRIPLES + s)] = -1
        st[ix(HTRIPLES + s)] = -1
    for s in range(players):
        swap_cards(st, s, cards, k * s)
    for s in range(players):
        swaps[s] = choose_swap(kinds, swap_fns, borrow(cards[k * s:k * s + k]), obs, rng,
                               params, s)
    for s in range(players):
        if not apply_swap(st, s, borrow(cards[k * s:k * s + k]), swaps[s]):
            err[0], err[1], err[2] = s, swaps[s], 0
            return False
        st[ix(TRIPLES + s)] = triple_code(st, HAVE + 4 * s + 2, st[ix(FUN + s)])
        st[ix(HTRIPLES + s)] = triple_code(st, HAVE + 4 * s, st[ix(HANDN + s)])
    if st[V1] or st[R_STARTER]:
        first, rank = starter(st)                          # V1: chosen; H14: after the swap
    st[CURRENT] = first
    st[FIRST] = first
    st[STARTRANK] = rank
    return True


@jit(inline="always")
def opening_move(st):
    """H16: the move the starter is made to open with, every hand card of the rank that made
    them starter (any number, H18); -1 when there is none (no forced opening, no listed rank
    in any hand, or the game has begun). Under H19 it starts a run: the chain that may follow
    is the starter's choice."""
    if not st[R_FORCED] or st[STARTRANK] < 0 or st[TURN] > 0:
        return -1
    r = st[STARTRANK]
    return play_id(r, st[ix(HANDS + st[CURRENT] * NR + r)])


@jit
def opening(st, log):
    """H16 on its own (``sim play`` asks which move it is): make the forced opening, logged as
    turn 0. True when the game is over after it (it cannot be, but the caller is told the
    truth). The referee makes it itself (:func:`_referee`)."""
    m = opening_move(st)
    if m < 0:
        return False
    if log.shape[0] > 0:
        log[0] = m
    return apply_move(st, m) & EV_GAME_OVER != 0


@jit
def play_out(st, rng, cap, move_fns, kinds, params, log, err, seen):
    """The referee loop: ask the seat to move, check its answer (R24), apply it, until the game
    is over or ``cap`` turns are played (R25). ``log`` receives the move ids, as far as it is
    long. On an illegal answer ``err`` gets (seat, answer, turn).

    ``seen`` (int32, :data:`sim.kernel.cycle.SIZE` long, or empty for no detection): the game also
    stops, UNFINISHED, as soon as a position after a pick-up (from turn ``cycle.START`` on)
    comes back, which proves it endless while every seat still to move has a pure strategy
    (the others are the bits of ``seen[cycle.IMPURE]``; :mod:`sim.kernel.cycle`);
    ``seen[cycle.PERIOD]`` then holds the cycle's length in turns, else 0.

    A table where every seat plays the fast path's ALONE row (``lowest``) gets a copy of the
    loop compiled for it alone, with the rules inlined (:func:`sim.kernel.fastpath.plays_alone`,
    the test :func:`entry` makes too): no dispatch at each turn.
    """
    cycle.reset(seen)
    if plays_alone(kinds, st[PLAYERS]):
        return _play_alone(st, rng, cap, move_fns, kinds, params, log, err, seen)
    return _play_any(st, rng, cap, move_fns, kinds, params, log, err, seen)


# apply_with inlined (same source): a cheap strategy's turn is dominated by the call otherwise;
# one copy in the batch core, because every inlined copy adds to the compile.
# montecarlo's playouts inline it too (compiled only when a table seats montecarlo).
inlined_apply = jit(inline="always")(apply_with.py_func)


@jit(inline="always")
def _referee(st, rng, cap, choose, apply, move_fns, kinds, params, log, err, seen):
    """:func:`play_out`'s loop, compiled once for each ``choose`` and ``apply``. The ruleset's
    scalars are read once a game (:func:`sim.kernel.engine.rules_of`). Cycle detection costs one
    well-predicted test a turn, and a call on pick-up turns from turn ``cycle.START`` on
    (:func:`sim.kernel.cycle.seen_again`)."""
    obs = borrow(st[:PUB])
    rz = rules_of(st)
    start = cycle.START if seen.shape[0] > 0 else cap + 1
    # H16: the forced opening is made here, through the one call of ``apply`` (a second
    # call, or apply_move, would compile the rules once more, lengthening a cold first run).
    m = opening_move(st)
    while st[TURN] < cap:
        legal = legal_from(st, rz)
        p = st[CURRENT]
        if m < 0:
            m = choose(kinds, move_fns, st, obs, legal, rng, params, p)
            if not legal_move(st, legal, m):      # R24; big plays too (H18)
                err[0], err[1], err[2] = p, m, st[TURN]
                return BAD_MOVE
        if st[TURN] < log.shape[0]:
            log[st[TURN]] = m
        ev = apply(st, m, rz)
        m = -1
        if ev & EV_GAME_OVER:
            return FINISHED
        if st[TURN] >= start and ev & EV_PICKUP and cycle.seen_again(st, seen):
            return UNFINISHED
    return UNFINISHED


@jit(inline="always")
def _game(st, rng, players, rules, cap, move_fns, swap_fns, kinds, params, swaps, cards, log,
          err, seen, play):
    """Play one game from a seeded ``rng`` with the referee ``play``: FINISHED, UNFINISHED or
    an error status (``seen``: :func:`play_out`)."""
    cycle.reset(seen)
    deal_game(st, rng, players, rules)
    if not swap_phase(st, rng, swap_fns, kinds, params, swaps, cards, err):
        return BAD_SWAP
    return play(st, rng, cap, move_fns, kinds, params, log, err, seen)   # H16 opening too


@jit
def _play_alone(st, rng, cap, move_fns, kinds, params, log, err, seen):
    """:func:`play_out` for a table of the ALONE row (``lowest``) only: its inlined copy alone."""
    return _referee(st, rng, cap, only_alone, inlined_apply, move_fns, kinds, params, log,
                    err, seen)


@jit
def _play_any(st, rng, cap, move_fns, kinds, params, log, err, seen):
    """:func:`play_out` for any table: every seat's strategy called through ``choose_move``."""
    return _referee(st, rng, cap, choose_move, apply_with, move_fns, kinds, params, log, err,
                    seen)


@jit
def _play_peers(st, rng, cap, move_fns, kinds, params, log, err, seen):
    """:func:`_play_any` with the peers' bots inlined (:func:`sim.kernel.fastpath.choose_peers`)."""
    return _referee(st, rng, cap, choose_peers, apply_with, move_fns, kinds, params, log, err,
                    seen)


@jit(inline="always")
def _seat(seat_rows, row, players, pool_kinds, n, kinds):
    """Write into the seat table ``kinds`` (:data:`sim.kernel.fastpath.SEAT_TABLE`) the seating of
    row ``row`` of ``seat_rows`` (seat ``s`` plays entry ``seat_rows[row, s]`` of a pool of
    ``n``); return the seats whose strategies are not pure, a bit each
    (:data:`sim.kernel.cycle.IMPURE`), from ``pool_kinds``' last ``n`` values, the pure flags."""
    impure = 0
    for s in range(MAXP):
        q = seat_rows[row, s]
        kinds[KIND + s] = pool_kinds[q]
        kinds[SWAP_KIND + s] = pool_kinds[n + q]
        kinds[ENTRY + s] = q
        if s < players and pool_kinds[2 * n + q] == 0:
            impure |= 1 << s
    return impure


@jit(inline="always")
def _games(games, pool, work, records, play):
    """Play the games ``games.numbers`` (:class:`Games`) one after the other with the referee
    ``play``, writing one row of ``records`` (:class:`sim.kernel.records.Records`) each.

    Seat ``s`` of game ``g`` plays entry ``games.seat_rows[g, s]`` of the ``pool``
    (:class:`sim.kernel.fastpath.Pool`: ``n`` move functions, ``n`` swap functions, their
    kinds and pure flags, their parameter rows); one row of ``seat_rows`` serves every game.
    So a tournament with balanced seating plays a block of games under many seatings in one
    call (sim.studies.compare), through the seat table (:data:`sim.kernel.fastpath.SEAT_TABLE`),
    which is rewritten when the seating changes.
    ``games.cycle_stop``: stop games proven endless (:mod:`sim.kernel.cycle`: while every seat
    still to move has a pure strategy); ``records.end`` gets why each game ended
    (``cycle.END_*``), ``records.cycle_turns`` the length in turns of the cycle that stopped
    it (0 for the others). ``work``: the scratch the games are played in (:func:`scratch`)."""
    seat_rows, players, cap = games.seat_rows, games.players, games.cap
    cycle_stop = games.cycle_stop
    # Not reference-counted views (sim.kernel.patches.borrow) of the arrays handed on at
    # every turn, cut from the caller's scratch (:func:`scratch`).
    st, cards = borrow(work.state[:STATE_SIZE]), borrow(work.state[STATE_SIZE:_SEEN])
    seen = borrow(work.state[_SEEN:]) if cycle_stop else borrow(work.state[:0])
    log = borrow(work.state[:0])                  # never written
    swaps, err, kinds = (borrow(work.work[:MAXP]), borrow(work.work[MAXP:MAXP + 3]),
                         borrow(work.work[MAXP + 3:_WORK64]))
    rng, params, rules_ = borrow(work.rng), borrow(pool.params), borrow(games.rules)
    n = len(pool.moves)
    impure = _seat(seat_rows, 0, players, pool.kinds, n, kinds)
    status = records.status
    for g in range(status.shape[0]):
        if g > 0 and seat_rows.shape[0] > 1:
            differs = False
            for s in range(MAXP):
                differs = differs or seat_rows[g, s] != seat_rows[g - 1, s]
            if differs:
                impure = _seat(seat_rows, g, players, pool.kinds, n, kinds)
        if cycle_stop:
            seen[cycle.IMPURE] = impure
        seed_game(rng, games.seed, games.numbers[g])
        status[g] = _game(st, rng, players, rules_, cap, pool.moves, pool.swaps, kinds, params,
                          swaps, cards, log, err, seen, play)
        records.end[g], records.cycle_turns[g] = cycle.end_of(status[g] == UNFINISHED, seen)
        records.turns[g] = st[TURN]
        records.burns[g] = st[BURNS]
        records.starter[g] = st[FIRST]
        records.dealer[g] = st[DEALER]
        for s in range(MAXP):
            records.order[g, s] = st[ix(OUTORDER + s)]
            records.pickups[g, s] = st[ix(PICKUPS + s)]
            records.triples[g, s] = st[ix(TRIPLES + s)]
            records.hand_triples[g, s] = st[ix(HTRIPLES + s)]
        records.errors[g, 0], records.errors[g, 1], records.errors[g, 2] = err[0], err[1], err[2]


# Three entry points, one per referee of the fast path's table (sim.kernel.fastpath.REFEREES),
# so that a command compiles only the referee its table needs: a table of ``lowest`` (the
# default run, the bench) never compiles the dispatching copy, and the reverse; only a table
# that seats a peer's bot compiles the copy that inlines them (:func:`entry` picks). The
# process's threads play chunks of games side by side from Python (sim.runs.workers): the
# functions release the GIL (nogil), and without ``parallel=True`` they compile faster.
# Their arguments are named tuples: :class:`Games`, :class:`sim.kernel.fastpath.Pool`,
# :class:`Scratch` and :class:`sim.kernel.records.Records`.
@jit
def run_games(games, pool, work, records):
    """Play ``games`` (any table) seated from ``pool``, in the scratch ``work``; write one
    row of ``records`` each (:func:`_games`)."""
    _games(games, pool, work, records, _play_any)


@jit
def run_alone(games, pool, work, records):
    """:func:`run_games` for a table where every seat plays the ALONE row (``lowest``)."""
    _games(games, pool, work, records, _play_alone)


@jit
def run_peers(games, pool, work, records):
    """:func:`run_games` for a table that seats one of the peers' bots
    (the PEERS rows of the fast path): they are inlined."""
    _games(games, pool, work, records, _play_peers)


REFEREES = {ANY: run_games, PEERS: run_peers, ALONE: run_alone}


def entry(pool, seat_table=None, players: int = 0):
    """The entry point that plays games seated from ``pool`` (:data:`REFEREES`, chosen by
    :func:`sim.kernel.fastpath.referee_of`): with ``seat_table`` and ``players``, a plain
    table seated as given; without, a tournament's seatings (never the ALONE loop)."""
    return REFEREES[referee_of(pool, seat_table, players)]
