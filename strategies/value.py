"""A learned value of a position, for playouts cut short: who is likely to go out first.

Each seat still in the game gets a utility, linear in a few counts of the world
(:func:`seat_features`: its hand, face-up and face-down cards, its specials, whether it is to
move or next, the pile it may have to pick up); the seats then go out in a Plackett-Luce
order by those utilities. So the chance that ``me`` goes out first among the seats left is a
softmax, and that ``me`` goes out before seat ``j`` is ``1 / (1 + exp(v_j - v_me))``.
:func:`value` turns this into the playout's score: seed rules, the chance to win (1 or 0
once a seat is out); V2, the expected share of the other seats finished behind ``me``.

The playouts read it only in a sampled world (:func:`sim.kernel.sampling.sample_world`),
never the real hidden cards (R26). :data:`COEF` was fitted by ``benchmarks/fit_value.py``
on simulated games of the playouts' own mixture of opponent models (seed and classic
rules, 4 seats) and checked on fresh ones (``benchmarks/results/value-model.md``).
"""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.cards import NRANK, TEN
from sim.kernel.compiler import jit
from sim.kernel.engine import next_seat
from sim.kernel.layout import (
    CURRENT, FDN, FU, FUN, HANDN, HANDS, NOUT, OUTORDER, PILELEN, PLAYERS, STOCKLEN, V2,
)
from strategies.heuristics import wild

NFEAT = 9
FEATURES = ("hand", "face-up", "face-down", "specials", "high", "to move", "next",
            "pile if to move", "hand if stock empty")

# Fitted by benchmarks/fit_value.py (its check on fresh games: benchmarks/results/value-model.md):
# `python benchmarks/fit_value.py --games 5000 --seed 1 --fresh-seed 2`; order of FEATURES.
COEF = np.array([-0.1299, -0.4471, -0.4896, 0.1953, 0.2136, 0.1247, 0.0386, -0.0213, -0.0534])


@jit(inline="always")
def _out(st, s):
    for i in range(st[NOUT]):
        if st[OUTORDER + i] == s:
            return True
    return False


@jit
def seat_features(st, s, f):
    """Write seat ``s``'s features (:data:`FEATURES`) into ``f``: counts of the world."""
    hn = st[HANDN + s]
    f[0] = hn
    f[1] = st[FUN + s]
    f[2] = st[FDN + s]
    special = wild(st) | (1 << TEN)
    sp = 0
    hi = 0
    for r in range(NRANK):
        c = st[HANDS + s * NRANK + r] + st[FU + s * NRANK + r]
        if (special >> r) & 1:
            sp += c
        elif r >= TEN:                       # J, Q, K, A
            hi += c
    f[3] = sp
    f[4] = hi
    cur = st[CURRENT]
    f[5] = 1.0 if cur == s else 0.0
    f[6] = 1.0 if next_seat(st, cur) == s else 0.0
    f[7] = st[PILELEN] if cur == s else 0.0
    f[8] = hn if st[STOCKLEN] == 0 else 0.0


@jit
def utilities(st, coef, v, f):
    """Every seat's utility into ``v`` (-inf for the seats already out)."""
    for s in range(st[PLAYERS]):
        if _out(st, s):
            v[s] = -math.inf
            continue
        seat_features(st, s, f)
        u = 0.0
        for k in range(NFEAT):
            u += coef[k] * f[k]
        v[s] = u


@jit
def value(st, me, coef, v, f):
    """The playout's score of an unfinished world: seed rules, ``me``'s chance to go out
    first (decided once a seat is out); V2, the expected share of the other seats finished
    behind ``me`` (the seats out already are ahead). ``v``, ``f``: scratch of MAXP, NFEAT."""
    players = st[PLAYERS]
    if st[V2] == 0 and st[NOUT] > 0:
        return 1.0 if st[OUTORDER] == me else 0.0
    if _out(st, me):
        for i in range(st[NOUT]):
            if st[OUTORDER + i] == me:
                return (players - 1 - i) / (players - 1)
    utilities(st, coef, v, f)
    if st[V2] == 0:
        z = 0.0
        for s in range(players):
            if v[s] > -math.inf:
                z += math.exp(v[s] - v[me])
        return 1.0 / z
    share = 0.0
    for s in range(players):
        if s != me and v[s] > -math.inf:
            share += 1.0 / (1.0 + math.exp(v[s] - v[me]))
    return share / (players - 1)


__all__ = ["COEF", "FEATURES", "NFEAT", "seat_features", "utilities", "value"]
