"""The built-in strategies the batch core calls directly, inlined, instead of through a
first-class function.

A first-class call costs about 10 ns a turn and stops Numba from optimising across it, which
is a fifth of a four-player turn of ``lowest``. The core therefore takes, besides the
first-class functions, one *kind* per seat (:func:`kinds`): 0 means "call the function", any
other value names a built-in that :func:`choose_move` or :func:`choose_swap` runs inlined.
The inlined code is the same Python function as the registered strategy (its ``py_func``),
so there is still one implementation of each strategy (:mod:`sim.kernel.baseline`); only trusted built-ins get here, which
is why they may skip the bounds checks that enforce R26 on users' strategies.
"""
from __future__ import annotations

import numpy as np

from sim.kernel import baseline
from sim.kernel.compiler import FnTuple, jit
from sim.kernel.layout import HANDS, MAXP, NR, PLAYERS

_MOVES = (baseline.lowest, baseline.random_move)          # kind = position + 1
# The strategies of one core call (a plain run's seats, a tournament's field), each once:
# tuples of 6 functions, or of 16 when there are more (a second compile of the core, for
# tournaments of 7 to 16 strategies only). The core seats them game by game through the
# seat table (:func:`kinds`): no tuple is rebuilt, no parameter row copied.
POOLS = (MAXP, 16)
POOL = POOLS[-1]
LOWEST = 1
_SWAPS = (baseline.keep, baseline.random_swap, baseline.highest_up)

_lowest = jit(inline="always")(baseline.lowest)
_random_move = jit(inline="always")(baseline.random_move)
_keep = jit(inline="always")(baseline.keep)
_random_swap = jit(inline="always")(baseline.random_swap)
_highest_up = jit(inline="always")(baseline.highest_up)


def make_pool(entries) -> tuple:
    """The core's pool (:func:`sim.kernel.referee.run_games`) of ``entries``, one per strategy (at most
    :data:`POOL`): (move function, swap function, move kind, swap kind, move parameter row,
    swap parameter row, pure). Padded with the first to a length ``n`` of :data:`POOLS`:
    (move functions, swap functions, ``3 n`` kinds (of the moves, of the swaps, then 1 for a
    pure strategy, :mod:`sim.kernel.cycle`), ``2 n`` parameter rows (moves then swaps))."""
    if not 1 <= len(entries) <= POOL:
        raise ValueError(f"at most {POOL} strategies in one call of the core, got "
                         f"{len(entries)}")
    size = next(n for n in POOLS if len(entries) <= n)
    entries = list(entries) + [entries[0]] * (size - len(entries))
    width = max([1] + [e[i].size for e in entries for i in (4, 5)])
    params = np.zeros((2 * size, width))
    for i, e in enumerate(entries):
        params[i, :e[4].size] = e[4]
        params[size + i, :e[5].size] = e[5]
    kinds = [e[2] for e in entries] + [e[3] for e in entries] + [int(e[6]) for e in entries]
    return (FnTuple(e[0] for e in entries), FnTuple(e[1] for e in entries),
            np.array(kinds, np.int64), params)


def kinds(move_fns, swap_fns) -> np.ndarray:
    """The seat table of a table whose seat ``s`` plays ``move_fns[s]`` and ``swap_fns[s]``
    (:data:`SEAT_TABLE`): per seat, the kind of its strategy and of its swap policy (which of
    :mod:`sim.kernel.baseline`'s functions it compiles, if any), and its entry in the tuples (here
    ``s``)."""
    def kind(table, fn):
        for i, known in enumerate(table):
            if getattr(fn, "py_func", None) is known:
                return i + 1
        return 0
    return np.array([kind(_MOVES, f) for f in move_fns] + [kind(_SWAPS, f) for f in swap_fns]
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
    whose reference count costs atomic operations, 2-3 ns a turn (measured).
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
