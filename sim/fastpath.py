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
from sim._jit import jit
from sim.layout import HANDS, MAXP, NR, PLAYERS

_MOVES = (baseline.lowest, baseline.random_move)          # kind = position + 1
LOWEST = 1
_SWAPS = (baseline.keep, baseline.random_swap, baseline.highest_up)

_lowest = jit(inline="always")(baseline.lowest)
_random_move = jit(inline="always")(baseline.random_move)
_keep = jit(inline="always")(baseline.keep)
_random_swap = jit(inline="always")(baseline.random_swap)
_highest_up = jit(inline="always")(baseline.highest_up)


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
