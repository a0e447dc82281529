"""Seats and strategies: the interface between the batch core and a way of playing.

A **move strategy** is a plain function, compiled eagerly for :data:`MOVE_SIG`::

    choose(obs, hand, legal, rng, params) -> move id

- ``obs``: the public part of the state (``st[:PUB]``, R26), read-only by contract;
- ``hand``: the mover's own hand, cards per rank (14 ranks, :mod:`sim.cards` order);
- ``legal``: the legal word, a bit set of the legal move ids (:mod:`sim.moves` has helpers);
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

from numba import float64, int32, int64, uint64

from sim._jit import jit_sig

MOVE_SIG = int64(int32[:], int32[:], int64, uint64[:], float64[:])
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


def move_strategy(name: str | None = None, description: str = "", swap: str = "none"):
    """Mark a function as a move strategy: compile it for :data:`MOVE_SIG` and register it
    under ``name`` (default: the function's name). ``swap`` is its default swap policy."""
    def register(py_fn):
        compiled = jit_sig(MOVE_SIG)(py_fn)
        key = _key(MOVES, name, py_fn)
        MOVES[key] = Strategy(key, compiled, description or _first_line(py_fn), swap)
        return compiled
    return register


def swap_policy(name: str | None = None, description: str = ""):
    """Mark a function as a swap policy: compile it for :data:`SWAP_SIG` and register it."""
    def register(py_fn):
        compiled = jit_sig(SWAP_SIG)(py_fn)
        key = _key(SWAPS, name, py_fn)
        SWAPS[key] = Strategy(key, compiled, description or _first_line(py_fn))
        return compiled
    return register


def _key(registry, name, py_fn) -> str:
    """The registry name; a user's function never replaces a strategy of another module."""
    key = name or py_fn.__name__
    old = registry.get(key)
    if old is not None and old.fn.py_func.__module__ != py_fn.__module__:
        key = f"{py_fn.__module__}:{py_fn.__name__}"
    return key


def _first_line(fn) -> str:
    return (fn.__doc__ or "").strip().split("\n")[0]


def _load_builtins():
    import strategies  # noqa: F401  (registers the built-ins)


def _from_spec(spec: str, registry: dict, kind: str, decorator: str) -> Strategy:
    """``file.py:function`` or ``package.module:function`` -> the registered strategy."""
    import importlib
    import importlib.util
    import os
    import sys

    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise ValueError(f"{kind} {spec!r}: expected a name, FILE.py:FUNCTION or "
                         f"package.module:FUNCTION")
    try:
        if where.endswith(".py"):
            path = os.path.abspath(os.path.expanduser(where))
            if not os.path.isfile(path):
                raise ValueError(f"{kind} {spec!r}: no such file {path}")
            mod_name = "shithead_user_" + os.path.splitext(os.path.basename(path))[0]
            module = sys.modules.get(mod_name)
            if module is None or getattr(module, "__file__", None) != path:
                loader = importlib.util.spec_from_file_location(mod_name, path)
                module = importlib.util.module_from_spec(loader)
                sys.modules[mod_name] = module
                try:
                    loader.loader.exec_module(module)
                except BaseException:
                    del sys.modules[mod_name]
                    raise
        else:
            module = importlib.import_module(where)
    except ValueError:
        raise
    except Exception as e:  # the user's code: any error is theirs, say it plainly
        raise ValueError(f"{kind} {spec!r}: could not import {where}: "
                         f"{type(e).__name__}: {e}") from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise ValueError(f"{kind} {spec!r}: {where} has no function {attr!r}")
    for s in registry.values():
        if s.fn is fn:
            return Strategy(spec, s.fn, s.description, s.swap)
    raise ValueError(f"{kind} {spec!r}: {attr!r} is not marked with @{decorator} "
                     f"(from sim.strategy import {decorator})")


def _get(name: str, registry: dict, kind: str, decorator: str) -> Strategy:
    _load_builtins()
    if name in registry:
        return registry[name]
    if ":" in name:
        return _from_spec(name, registry, kind, decorator)
    raise ValueError(f"unknown {kind} {name!r}; known: {', '.join(sorted(registry))} "
                     f"(or FILE.py:FUNCTION)")


def get_move(name: str) -> Strategy:
    """A move strategy by built-in name, ``file.py:function`` or ``package.module:function``."""
    return _get(name, MOVES, "strategy", "move_strategy")


def get_swap(name: str) -> Strategy:
    """A swap policy by built-in name, ``file.py:function`` or ``package.module:function``."""
    return _get(name, SWAPS, "swap policy", "swap_policy")


def all_moves() -> dict[str, Strategy]:
    _load_builtins()
    return dict(MOVES)


def all_swaps() -> dict[str, Strategy]:
    _load_builtins()
    return dict(SWAPS)
