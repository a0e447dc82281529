"""The built-in strategies the batch core calls directly, inlined, instead of through a
first-class function.

A first-class call stops Numba from optimising across it and costs a sizeable share of a
cheap strategy's turn. The core therefore takes, besides the
first-class functions, one *kind* per seat (:func:`kinds`): 0 means "call the function", any
other value names a built-in that :func:`choose_move` or :func:`choose_swap` runs inlined.
The inlined code is the same Python function as the registered strategy (its ``py_func``),
so there is still one implementation of each strategy (:mod:`sim.kernel.baseline`,
:mod:`sim.kernel.peers`); only trusted built-ins get here, which
is why they may skip the bounds checks that enforce R26 on users' strategies.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.kernel import baseline, peers
from sim.kernel.compiler import FnTuple, jit
from sim.kernel.layout import HANDS, MAXP, NR, PLAYERS

# kind = position + 1
_MOVES = (baseline.lowest, baseline.random_move, peers.cheapest, peers.simple)
# The strategies of one core call (a plain run's seats, a tournament's field), each once:
# tuples of 6 functions, or of 16 when there are more (a second compile of the core, for
# tournaments of 7 to 16 strategies only). The core seats them game by game through the
# seat table (:func:`kinds`): no tuple is rebuilt, no parameter row copied.
POOLS = (MAXP, 16)
POOL = POOLS[-1]
LOWEST = 1
PEERS = (3, 4)                # the kinds of cheapest and simple (:func:`choose_peers`)
_SWAPS = (baseline.keep, baseline.random_swap, baseline.highest_up)

_lowest = jit(inline="always")(baseline.lowest)
_random_move = jit(inline="always")(baseline.random_move)
_cheapest = jit(inline="always")(peers.cheapest)
_simple = jit(inline="always")(peers.simple)
_keep = jit(inline="always")(baseline.keep)
_random_swap = jit(inline="always")(baseline.random_swap)
_highest_up = jit(inline="always")(baseline.highest_up)


class SeatEntry(NamedTuple):
    """One strategy of a pool (:func:`make_pool`): a seat's strategy and swap policy."""

    move: object              # its move function (first-class, sim.kernel.strategy.MOVE_SIG)
    swap: object              # its swap policy's function
    move_kind: int            # which built-in the core inlines for it, 0 for none (:func:`kind`)
    swap_kind: int            # ... for its swap policy
    move_params: np.ndarray   # the strategy's parameter row (float64)
    swap_params: np.ndarray   # the swap policy's
    pure: bool                # a function of the position only (sim.kernel.cycle)


class Pool(NamedTuple):
    """The strategies of one core call (:func:`sim.kernel.referee.run_games`), each once, in
    ``n`` entries (``n`` in :data:`POOLS`)."""

    moves: tuple              # FnTuple of n move functions
    swaps: tuple              # FnTuple of n swap functions
    kinds: np.ndarray         # int64 (3 n): the move kinds, the swap kinds, 1 for a pure entry
    params: np.ndarray        # float64 (2 n, width): the move rows, then the swap rows


def make_pool(entries) -> Pool:
    """The core's pool of ``entries`` (:class:`SeatEntry`, at most :data:`POOL`), padded
    with the first to a length ``n`` of :data:`POOLS`."""
    if not 1 <= len(entries) <= POOL:
        raise ValueError(f"at most {POOL} strategies in one call of the core, got "
                         f"{len(entries)}")
    size = next(n for n in POOLS if len(entries) <= n)
    entries = list(entries) + [entries[0]] * (size - len(entries))
    width = max([1] + [r.size for e in entries for r in (e.move_params, e.swap_params)])
    params = np.zeros((2 * size, width))
    for i, e in enumerate(entries):
        params[i, :e.move_params.size] = e.move_params
        params[size + i, :e.swap_params.size] = e.swap_params
    kinds = ([e.move_kind for e in entries] + [e.swap_kind for e in entries]
             + [int(e.pure) for e in entries])
    return Pool(FnTuple(e.move for e in entries), FnTuple(e.swap for e in entries),
                np.array(kinds, np.int64), params)


def kind(fn, swap: bool = False) -> int:
    """Which of :mod:`sim.kernel.baseline`'s strategies (``swap``: swap policies) ``fn``
    compiles, as the core's kind of it (position + 1); 0 for any other function."""
    for i, known in enumerate(_SWAPS if swap else _MOVES):
        if getattr(fn, "py_func", None) is known:
            return i + 1
    return 0


def kinds(move_fns, swap_fns) -> np.ndarray:
    """The seat table of a table whose seat ``s`` plays ``move_fns[s]`` and ``swap_fns[s]``
    (:data:`SEAT_TABLE`): per seat, the kind of its strategy and of its swap policy
    (:func:`kind`), and its entry in the tuples (here ``s``)."""
    return np.array([kind(f) for f in move_fns] + [kind(f, swap=True) for f in swap_fns]
                    + list(range(MAXP)), np.int64)


# The seat table (int64, 3 * MAXP): seat s's strategy kind at s, its swap policy's kind at
# MAXP + s, and at 2 * MAXP + s its entry in the function tuples, the same in both (its
# parameter rows: the entry for the strategy, after all the strategies' for the swap policy).
KIND, SWAP_KIND, ENTRY = 0, MAXP, 2 * MAXP
SEAT_TABLE = 3 * MAXP


@jit(inline="always")
def choose_move(kinds, fns, st, obs, legal, rng, params, p):
    """Seat ``p``'s move: a built-in inlined, else its first-class function (its entry in
    the seat table ``kinds``, :data:`SEAT_TABLE`).

    The hand and parameter rows are sliced only where they are used: a slice is a new array
    whose reference count costs atomic operations at every turn.
    Built-ins that do not read them get ``obs`` in their place.
    """
    kind = kinds[KIND + p]
    if kind == 1:
        return _lowest(obs, obs, legal, rng, obs)
    if kind == 2:
        return _random_move(obs, obs, legal, rng, obs)
    j = kinds[ENTRY + p]
    return fns[j](obs, st[HANDS + p * NR:HANDS + p * NR + NR], legal, rng, params[j])


@jit(inline="always")
def choose_peers(kinds, fns, st, obs, legal, rng, params, p):
    """:func:`choose_move` with the peers' bots (:data:`PEERS`) inlined too, for a table that
    seats one (:func:`seats_peer`): the others' tables do not compile them. Without it
    a peer is called through its first-class function, the same function and moves."""
    kind = kinds[KIND + p]
    j = kinds[ENTRY + p]
    if kind == 3:
        return _cheapest(obs, obs, legal, rng, params[j])
    if kind == 4:
        return _simple(obs, st[HANDS + p * NR:HANDS + p * NR + NR], legal, rng, params[j])
    return choose_move(kinds, fns, st, obs, legal, rng, params, p)


def seats_peer(pool: Pool) -> bool:
    """Does ``pool`` hold one of the peers' bots (:data:`PEERS`), which only
    :func:`choose_peers` inlines?"""
    return bool(np.isin(pool.kinds[:len(pool.moves)], PEERS).any())


@jit(inline="always")
def only_lowest(kinds, fns, st, obs, legal, rng, params, p):
    """:func:`choose_move` for a table of ``lowest`` only."""
    return _lowest(obs, obs, legal, rng, obs)


@jit(inline="always")
def same_builtin(st, kinds):
    """The kind every seat's strategy has, if they all have the same; else 0."""
    k = kinds[KIND]
    for s in range(1, st[PLAYERS]):
        if kinds[KIND + s] != k:
            return 0
    return k


@jit(inline="always")
def choose_swap(kinds, fns, cards, obs, rng, params, s):
    """Seat ``s``'s swap choice: a built-in inlined, else its first-class function (its
    entry in the seat table; its parameter row comes after all the strategies')."""
    kind = kinds[SWAP_KIND + s]
    if kind == 1:
        return _keep(cards, obs, rng, obs)
    if kind == 2:
        return _random_swap(cards, obs, rng, obs)
    if kind == 3:
        return _highest_up(cards, obs, rng, obs)
    j = kinds[ENTRY + s]
    return fns[j](cards, obs, rng, params[len(fns) + j])
