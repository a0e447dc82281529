"""Seats and strategies: the interface between the batch core and a way of playing.

A **move strategy** is a plain function, compiled eagerly for :data:`MOVE_SIG`::

    choose(obs, hand, legal, rng, params) -> move id

- ``obs``: the public part of the state (``st[:PUB]``, R26), read-only by contract;
- ``hand``: the mover's own hand, cards per rank (14 ranks, :mod:`sim.cards` order);
- ``legal``: a mask over move ids (:mod:`sim.layout`), 1 where the move is legal;
- ``rng``: the game's random stream (use :func:`sim.rng.randint`), never a global;
- ``params``: the seat's parameters (float64).

It returns a legal move id; anything else stops the run as an error of that strategy (R24).

A **swap policy** (R5, V1) is compiled for :data:`SWAP_SIG`::

    swap(cards, obs, rng, params) -> bit mask of the 3 of the 6 ``cards`` to put face up

``cards`` holds the six cards to choose from (the dealt face-ups first under R5).

Because both are first-class functions of one fixed signature, the core is compiled once for
every mix of seats and can call a strategy from any module (NUMBA-NOTES.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from numba import float64, int32, int64, uint8, uint64

from sim._jit import jit_sig

MOVE_SIG = int64(int32[:], int32[:], uint8[:], uint64[:], float64[:])
SWAP_SIG = int64(int32[:], int32[:], uint64[:], float64[:])

MOVES: dict[str, "Strategy"] = {}
SWAPS: dict[str, "Strategy"] = {}


@dataclass(frozen=True)
class Strategy:
    """A compiled strategy or swap policy with its name and one-line description."""

    name: str
    fn: object = field(repr=False)
    description: str
    swap: str | None = None   # a move strategy's default swap policy


def move_strategy(name: str, description: str, swap: str = "none"):
    """Register a move strategy under ``name``, compiled for :data:`MOVE_SIG`."""
    def register(py_fn):
        compiled = jit_sig(MOVE_SIG)(py_fn)
        MOVES[name] = Strategy(name, compiled, description, swap)
        return compiled
    return register


def swap_policy(name: str, description: str):
    """Register a swap policy under ``name``, compiled for :data:`SWAP_SIG`."""
    def register(py_fn):
        compiled = jit_sig(SWAP_SIG)(py_fn)
        SWAPS[name] = Strategy(name, compiled, description)
        return compiled
    return register


def _load_builtins():
    import strategies  # noqa: F401  (registers the built-ins)


def get_move(name: str) -> Strategy:
    _load_builtins()
    if name not in MOVES:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(MOVES))}")
    return MOVES[name]


def get_swap(name: str) -> Strategy:
    _load_builtins()
    if name not in SWAPS:
        raise ValueError(f"unknown swap policy {name!r}; known: {', '.join(sorted(SWAPS))}")
    return SWAPS[name]


def all_moves() -> dict[str, Strategy]:
    _load_builtins()
    return dict(MOVES)


def all_swaps() -> dict[str, Strategy]:
    _load_builtins()
    return dict(SWAPS)
