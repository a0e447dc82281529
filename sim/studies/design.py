"""Seating designs for duplicate deals: which cyclic order of the strategies each deal is
played under, its rotations, and the seat rows the core reads.

With a cyclic order ``o`` of ``k`` strategy indices at ``n`` seats, rotation ``r`` seats
``o[(s + r) % k]`` at seat ``s``; over the ``k`` rotations each entry of the order holds each
seat exactly once per deal. ``"fixed"`` plays every deal under the order given, so with
more than two strategies each always follows the same neighbour, who is then part of its
result (a strategy that hands out 2s and 10s helps the one after it). ``"balanced"`` makes
every strategy follow every other equally often (:func:`seat_orders`): up to six strategies,
every cyclic order in turn (a stratified design, for which the interval over deals is valid,
if anything conservative); with more, an order per deal drawn from (seed, deal) alone, so
that deals stay independent (a short list of shared random orders would not do: its own
imbalance is a bias the interval over deals does not see; benchmarks/seating.py).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from sim.kernel.layout import MAXP
from sim.kernel.rng import splitmix64
from sim.runs.config import RunError

BALANCED_ALL = 120       # up to this many cyclic orders (k <= 6), every one is listed


def seat_orders(k: int, seating: str, seed: int, deals: np.ndarray) -> np.ndarray:
    """(deals, k): the cyclic order of the strategies each deal is played under. ``"fixed"``:
    the order given. ``"balanced"``: deal d gets order d mod (k - 1)! of all the orders with
    strategy 0 first (k <= 6); with more strategies an order drawn for the deal alone from
    (seed, d), so that deals stay independent."""
    deals = np.asarray(deals, np.int64)
    if seating not in ("fixed", "balanced"):
        raise RunError(f"--seating: expected fixed or balanced, got {seating!r}")
    if seating == "fixed" or k <= 2:
        return np.tile(np.arange(k, dtype=np.int8), (deals.size, 1))
    if math.factorial(k - 1) <= BALANCED_ALL:
        every = np.array([(0,) + p for p in itertools.permutations(range(1, k))], np.int8)
        return every[deals % len(every)]
    # splitmix64 (sim.kernel.rng's, here on numpy arrays) of (seed, deal, place): a key per
    # place, and the order is their ranking
    mix = splitmix64.py_func
    with np.errstate(over="ignore"):                 # wrapping arithmetic is the point
        keys = mix(mix(np.uint64(seed) ^ np.uint64(0x5EA7))
                   + deals.astype(np.uint64)[:, None] * np.uint64(k)
                   + np.arange(1, k, dtype=np.uint64)[None, :])
    return np.concatenate([np.zeros((deals.size, 1), np.int8),
                           (np.argsort(keys, axis=1, kind="stable") + 1).astype(np.int8)],
                          axis=1)


def seating_note(seating: str, k: int) -> str:
    """The design in words, for a tournament's info."""
    if seating == "fixed":
        return ("fixed: the strategies sit in the cyclic order given, rotated; each always "
                "follows the same neighbour" if k > 2 else
                "two strategies: every rotation of their one cyclic order")
    m = math.factorial(k - 1)
    if m <= BALANCED_ALL:
        return (f"balanced: deal d played under cyclic order d mod {m} (all {m} cyclic "
                f"orders), rotated; each strategy follows every other equally often")
    return (f"balanced: every deal played under its own random cyclic order (of {m:,}), "
            f"rotated; each strategy follows every other equally often on average")


def rotations(orders, players):
    """(deals, k, players): the strategy at each seat under each rotation of each deal's
    cyclic order ``orders[d]`` (k strategy indices): rotation ``r`` seats
    ``orders[d][(s + r) % k]`` at seat ``s``."""
    k = orders.shape[1]
    return orders[:, (np.arange(players)[None, :] + np.arange(k)[:, None]) % k]


def seat_rows(orders, players):
    """(k * deals, MAXP) int8: the pool entry of every seat of every game of a block, rotation
    by rotation (game ``r * deals + i`` is deal ``i`` under rotation ``r`` of its cyclic order
    ``orders[i]``); seats past ``players`` repeat seat 0, as a plain run pads them."""
    seats = rotations(orders, players)
    seats = np.concatenate([seats] + [seats[:, :, :1]] * (MAXP - players), axis=2)
    return seats.transpose(1, 0, 2).reshape(-1, MAXP).astype(np.int8)


def seat_companions(k: int, players: int) -> list[list[int]]:
    """Per seat, the other seats that hold the same strategy as it in every game: under every
    rotation of every cyclic order of ``k`` strategies, seats ``s`` and ``t`` hold the same
    one exactly when ``s - t`` is a multiple of ``k`` (so only with fewer strategies than
    seats)."""
    return [[t for t in range(players) if t != s and (t - s) % k == 0] for s in range(players)]


def companies_balanced(k: int, players: int, seating: str) -> bool:
    """Does every seat hold every strategy beside every company of the others equally often,
    so that the seats' pooled win rates differ by the seat alone (a seat effect)? With fewer
    strategies than seats, when ``k`` divides the seats (every table holds each strategy
    ``players / k`` times, whichever seat one looks from); with as many, always; with more,
    only under the ``"balanced"`` design (``"fixed"`` seats each strategy beside a window of
    the order that depends on the seat)."""
    if k < players:
        return players % k == 0
    return k == players or seating == "balanced"


def seat_note(k: int, players: int, seating: str) -> str:
    """In words: is a tournament's win rate by seat a seat effect, and if not, why not (which
    seats share a strategy)."""
    if companies_balanced(k, players, seating):
        return ("a seat effect: every seat holds every strategy beside every company of the "
                "others equally often")
    groups = [[s] + t for s, t in enumerate(seat_companions(k, players)) if t and t[0] > s]
    fits = [d for d in range(2, players) if players % d == 0]
    remedy = ("a seat effect needs " + "".join(f"{d} or " for d in fits)
              + f"{players} strategies, or more with balanced seating")
    if groups:
        shared = "; ".join(f"seat {g[-1]} holds seat {g[0]}'s strategy" if len(g) == 2 else
                           f"seats {', '.join(map(str, g))} hold one strategy" for g in groups)
        return (f"not a seat effect: {k} strategies at {players} seats, so in every game "
                f"{shared}; a seat's win rate mixes its position with whom it shares its "
                f"strategy ({remedy})")
    return (f"not a seat effect: fixed seating of {k} strategies at {players} seats puts "
            f"beside each seat's strategy a set of the others that depends on the seat "
            f"({remedy})")


def seat_design_of(result: dict) -> dict:
    """A tournament's ``seat_design`` (``balanced``, ``note``), from its result (compare.json
    or ``sim compare --json``); for one saved before it was recorded, from its strategies,
    players and the seating of its ``info``."""
    if result.get("seat_design"):
        return result["seat_design"]
    k, players = len(result.get("strategies") or []), result.get("players") or 0
    seating = (result.get("info") or {}).get("seating", "balanced") if k > 2 else "fixed"
    return {"balanced": companies_balanced(k, players, seating),
            "note": seat_note(k, players, seating)}
