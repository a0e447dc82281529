"""The built-in strategies the batch core calls directly, inlined, instead of through a
first-class function.

A first-class call costs about 10 ns a turn and stops Numba from optimising across it, which
is a fifth of a four-player turn of ``lowest``. The core therefore takes, besides the
first-class functions, one *kind* per seat (:func:`kinds`): 0 means "call the function", any
other value names a built-in that :func:`choose_move` or :func:`choose_swap` runs inlined.
The inlined code is the same Python function as the registered strategy (its ``py_func``),
so there is still one implementation of each strategy (:mod:`sim.baseline`); only trusted built-ins get here, which
is why they may skip the bounds checks that enforce R26 on users' strategies.
"""
from __future__ import annotations

import numpy as np

from sim import baseline
from sim._jit import FnTuple, jit
from sim.layout import HANDS, MAXP, NR, PLAYERS

_MOVES = (baseline.lowest, baseline.random_move)          # kind = position + 1
# The strategies of one core call: up to this many, each once (a tournament's field, or a
# plain run's seats), in tuples of this one length whatever the table, so one compile
# serves every call; the core seats them game by game (sim.core._games).
POOL = 16
LOWEST = 1
_SWAPS = (baseline.keep, baseline.random_swap, baseline.highest_up)

_lowest = jit(inline="always")(baseline.lowest)
_random_move = jit(inline="always")(baseline.random_move)
_keep = jit(inline="always")(baseline.keep)
_random_swap = jit(inline="always")(baseline.random_swap)
_highest_up = jit(inline="always")(baseline.highest_up)


def make_pool(entries) -> tuple:
    """The core's pool (:func:`sim.core.run_games`) of ``entries``, one per strategy (at most
    :data:`POOL`): (move function, swap function, move kind, swap kind, move parameter row,
    swap parameter row, pure). Padded with the first: (move functions, swap functions,
    kinds (moves then swaps), parameter rows (moves then swaps), pure flags)."""
    if not 1 <= len(entries) <= POOL:
        raise ValueError(f"at most {POOL} strategies in one call of the core, got "
                         f"{len(entries)}")
    entries = list(entries) + [entries[0]] * (POOL - len(entries))
    width = max([1] + [e[i].size for e in entries for i in (4, 5)])
    params = np.zeros((2 * POOL, width))
    for i, e in enumerate(entries):
        params[i, :e[4].size] = e[4]
        params[POOL + i, :e[5].size] = e[5]
    return (FnTuple(e[0] for e in entries), FnTuple(e[1] for e in entries),
            np.array([e[2] for e in entries] + [e[3] for e in entries], np.int64), params,
            np.array([e[6] for e in entries], np.uint8))


def kinds(move_fns, swap_fns) -> np.ndarray:
    """Per seat, the kind of its strategy (row ``s``) and of its swap policy (row 6 + s):
    which of :mod:`sim.baseline`'s functions it compiles, if any."""
    def kind(table, fn):
        for i, known in enumerate(table):
            if getattr(fn, "py_func", None) is known:
                return i + 1
        return 0
    return np.array([kind(_MOVES, f) for f in move_fns] + [kind(_SWAPS, f) for f in swap_fns],
                    np.int64)


@jit(inline="always")
def choose_move(kind, fns, st, obs, legal, rng, params, p):
    """Seat ``p``'s move: a built-in inlined, else its first-class function ``fns[p]``.

    The hand and parameter rows are sliced only where they are used: a slice is a new array
    whose reference count costs atomic operations, 2-3 ns a turn (measured).
    Built-ins that do not read them get ``obs`` in their place.
    """
    if kind == 1:
        return _lowest(obs, obs, legal, rng, obs)
    if kind == 2:
        return _random_move(obs, obs, legal, rng, obs)
    return fns[p](obs, st[HANDS + p * NR:HANDS + p * NR + NR], legal, rng, params[p])


@jit(inline="always")
def only_lowest(kind, fns, st, obs, legal, rng, params, p):
    """:func:`choose_move` for a table of ``lowest`` only."""
    return _lowest(obs, obs, legal, rng, obs)


@jit(inline="always")
def same_builtin(st, kinds):
    """The kind every seat's strategy has, if they all have the same; else 0."""
    k = kinds[0]
    for s in range(1, st[PLAYERS]):
        if kinds[s] != k:
            return 0
    return k


@jit(inline="always")
def choose_swap(kind, fns, cards, obs, rng, params, s):
    """Seat ``s``'s swap choice: a built-in inlined, else its first-class function
    ``fns[s]`` (parameter row ``MAXP + s``)."""
    if kind == 1:
        return _keep(cards, obs, rng, obs)
    if kind == 2:
        return _random_swap(cards, obs, rng, obs)
    if kind == 3:
        return _highest_up(cards, obs, rng, obs)
    return fns[s](cards, obs, rng, params[MAXP + s])
