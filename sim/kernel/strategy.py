"""Seats and strategies: the interface between the batch core and a way of playing.

A **move strategy** is a plain function, compiled for :data:`MOVE_SIG` when first seated::

    choose(obs, hand, legal, rng, params) -> move id

- ``obs``: the public part of the state (``st[:PUB]``, R26): read-only;
- ``hand``: the mover's own hand, cards per rank (14 ranks, :mod:`sim.kernel.cards` order): read-only;
- ``legal``: the legal word, a bit set of the legal move ids (:mod:`sim.kernel.moves` has helpers);
- ``rng``: the game's random stream (use :func:`sim.kernel.rng.randint`), never a global;
- ``params``: the seat's parameters (float64, in the order they were declared): read-only.

It returns a legal move id; anything else stops the run as an error of that strategy (R24).

A move strategy may declare itself **pure** (``@move_strategy(pure=True)``): its move is a
function of the position it sees alone (``obs`` without its counters ``TURN`` and
``PICKUPS``, ``hand``, ``legal``, ``params``), and it never draws from ``rng``. When every
seat is pure, a game whose position comes back is endless and is stopped at once
(:mod:`sim.kernel.cycle`); a strategy that declares it wrongly could have a game stopped that was
not endless.

A **swap policy** (R5, V1) is compiled for :data:`SWAP_SIG`::

    swap(cards, obs, rng, params) -> bit mask of the half of ``cards`` to put face up

``cards`` holds the 2 x hand size cards to choose from (H12: 6, or 8 at hand size 4; the
dealt face-ups first under R5), and the mask sets exactly the hand size of its bits.

Information is enforced, not trusted (R26): the arrays a strategy gets are typed read-only
(writing to them does not compile) and strategies are compiled with bounds checking, so an
index past the observation or the hand raises instead of reading hidden cards.

Because both are first-class functions of one fixed signature, the core is compiled once for
every mix of seats and can call a strategy from any module (docs/architecture.md).
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field, replace

import numpy as np
from numba import float64, int32, int64, types, uint64

from sim.kernel.compiler import jit_lazy, ready

_RO_INT = types.Array(int32, 1, "A", readonly=True)
_RO_FLOAT = types.Array(float64, 1, "A", readonly=True)
MOVE_SIG = int64(_RO_INT, _RO_INT, int64, uint64[:], _RO_FLOAT)
SWAP_SIG = int64(_RO_INT, _RO_INT, uint64[:], _RO_FLOAT)

MOVES: dict[str, "Strategy"] = {}
SWAPS: dict[str, "Strategy"] = {}


@dataclass(frozen=True)
class Strategy:
    """A compiled strategy or swap policy: its name, description and parameters.

    ``params`` declares the parameters, ``{name: (default, low, high)}`` (an int default
    makes an integer parameter); ``values`` are this instance's values, in that order.
    ``prepare`` (optional) turns the values into the float64 row the function receives.
    """

    name: str
    dispatcher: object = field(repr=False)   # lazy until first used: see :attr:`fn`
    description: str
    swap: str | None = None   # a move strategy's default swap policy
    params: dict = field(default_factory=dict)
    values: tuple = ()
    prepare: object = field(default=None, repr=False)
    pure: bool = False        # a function of the position only: no counters, no rng

    @property
    def fn(self):
        """The compiled function, ready to be seated: compiled for its one signature on first
        use (:func:`sim.kernel.patches.ready`), so that a command compiles only the strategies it
        seats (a cold first run spent 27 s compiling every built-in at import)."""
        return ready(self.dispatcher)

    def row(self) -> np.ndarray:
        """The float64 parameter row the compiled function receives."""
        if self.prepare is not None:
            return np.asarray(self.prepare(dict(zip(self.params, self.values))), np.float64)
        text = [k for k, v in zip(self.params, self.values) if isinstance(v, str)]
        if text:
            raise ValueError(f"{self.name!r}: text parameter(s) {', '.join(text)} need a "
                             f"prepare hook to become numbers")
        return np.asarray(self.values, np.float64)

    def with_args(self, spec: str, args: dict) -> "Strategy":
        """A copy with the parameters of ``args`` (validated) and ``spec`` as its name."""
        values = dict((k, d[0]) for k, d in self.params.items())
        for key, value in args.items():
            if key not in self.params:
                known = ", ".join(self.params) or "none"
                raise ValueError(f"{spec!r}: unknown parameter {key!r} (parameters: {known})")
            default, low, high = self.params[key]
            if isinstance(default, str):
                if not isinstance(value, str):
                    raise ValueError(f"{spec!r}: {key} must be a text, got {value!r}")
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ValueError(f"{spec!r}: {key} must be a number, got {value!r}")
                if isinstance(default, int) and value != int(value):
                    raise ValueError(f"{spec!r}: {key} must be a whole number, got {value!r}")
                if not low <= value <= high:
                    raise ValueError(f"{spec!r}: {key} must be from {low} to {high}, "
                                     f"got {value!r}")
                value = type(default)(value)
            values[key] = value
        return replace(self, name=spec, values=tuple(values[k] for k in self.params))


def _declare(params) -> dict:
    out = {}
    for key, spec in (params or {}).items():
        if isinstance(spec, tuple):
            out[key] = spec
        else:
            out[key] = (spec, None, None) if isinstance(spec, str) else (spec, -math.inf,
                                                                        math.inf)
    return out


def _defaults(params) -> tuple:
    return tuple(d[0] for d in params.values())


_CALL = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<args>.*)\)\s*$", re.S)


def parse_call(spec: str) -> tuple[str, dict]:
    """``'montecarlo(rollouts=200)'`` -> ``('montecarlo', {'rollouts': 200})``."""
    m = _CALL.match(spec.strip())
    if not m:
        return spec.strip(), {}
    name, text = m.group("name").strip(), m.group("args").strip()
    args = {}
    if not text:
        return name, args
    for item in _split_args(text):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key.isidentifier() or not value:
            raise ValueError(f"{spec!r}: parameters are written name(key=value, ...), "
                             f"e.g. montecarlo(rollouts=200)")
        try:
            args[key] = ast.literal_eval(value)
        except (SyntaxError, ValueError):
            args[key] = value          # plain text, such as an unquoted file path
    return name, args


def _split_args(text: str) -> list[str]:
    """Split on the commas that are outside quotes and brackets."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _registrar(registry, signature, name, description, swap, params, prepare, pure=False):
    if not isinstance(pure, bool):
        raise TypeError(f"pure: expected True or False, got {pure!r}")

    def register(py_fn):
        compiled = jit_lazy(signature, boundscheck=True)(py_fn)
        if not py_fn.__module__.startswith(("strategies.", "sim.")):
            ready(compiled)     # a user's strategy: a mistake in it shows when it is loaded
        key = _key(registry, name, py_fn)
        decl = _declare(params)
        registry[key] = Strategy(key, compiled, description or _first_line(py_fn), swap, decl,
                                 _defaults(decl), prepare, pure)
        return compiled
    return register


def move_strategy(name: str | None = None, description: str = "", swap: str = "none",
                  params: dict | None = None, prepare=None, pure: bool = False):
    """Mark a function as a move strategy: compile it for :data:`MOVE_SIG` and register it
    under ``name`` (default: the function's name). ``swap`` is its default swap policy;
    ``params`` declares its parameters, ``{name: (default, low, high)}``. ``pure=True``
    declares that its move depends on the position alone: not on ``obs[TURN]``,
    ``obs[PICKUPS + s]`` nor ``rng`` (see the module's docstring); then games that repeat a
    position are stopped as endless (:mod:`sim.kernel.cycle`)."""
    return _registrar(MOVES, MOVE_SIG, name, description, swap, params, prepare, pure)


def swap_policy(name: str | None = None, description: str = "", params: dict | None = None,
                prepare=None):
    """Mark a function as a swap policy: compile it for :data:`SWAP_SIG` and register it."""
    return _registrar(SWAPS, SWAP_SIG, name, description, None, params, prepare)


def _key(registry, name, py_fn) -> str:
    """The registry name; a user's function never replaces a strategy of another module."""
    key = name or py_fn.__name__
    old = registry.get(key)
    if old is not None and old.dispatcher.py_func.__module__ != py_fn.__module__:
        key = f"{py_fn.__module__}:{py_fn.__name__}"
    return key


def _first_line(fn) -> str:
    return (fn.__doc__ or "").strip().split("\n")[0]
