"""The built-in strategies the batch core calls directly, inlined, instead of through a
first-class function: one table, :data:`BUILTINS`, and what is derived from it.

A first-class call stops Numba from optimising across it and costs a sizeable share of a
cheap strategy's turn. The core therefore takes, besides the first-class functions, one
*kind* per seat (:func:`kinds`): 0 means "call the function", any other value names a row
of :data:`BUILTINS`, whose function the core runs inlined. The inlined code is the same
Python function as the registered strategy (its ``py_func``), so there is still one
implementation of each strategy (:mod:`sim.kernel.baseline`, :mod:`sim.kernel.peers`); only
trusted built-ins get here, which is why they may skip the bounds checks that enforce R26
on users' strategies.

**Adding a built-in to the fast path** is one row of :data:`BUILTINS` (and the function
registered as a strategy under that name, as :mod:`strategies.basic` does); everything else
is derived from the table by :func:`use`: the branches of :func:`choose_move`,
:func:`choose_peers` and :func:`choose_swap` (each row one ``if kind == K`` inlined, in the
table's order, written out as source: :data:`SOURCES`), :func:`kind`, which referee a table
plays through (:func:`referee_of`, and from it :func:`sim.kernel.referee.entry` and the
compiled check of :mod:`sim.runs.batch`).
``tests/test_fastpath_table.py`` adds a toy strategy so, through :func:`use` alone.
"""
from __future__ import annotations

import linecache
from typing import NamedTuple

import numpy as np

from sim.kernel import baseline, peers
from sim.kernel.compiler import FnTuple, jit
from sim.kernel.layout import HANDS, MAXP, NR

# Which referee inlines a row (the entry points of :mod:`sim.kernel.referee`, :data:`REFEREES`):
ANY = "any"        # every referee (a swap policy: the swap phase, which they all share)
PEERS = "peers"    # only the referee of a table that seats one (run_peers): the others'
                   # compiles do not include it
ALONE = "alone"    # every referee, and a table of it alone gets a loop of its own, with no
                   # dispatch at all (run_alone; one row at most: each loop adds to the compile)
REFEREES = (ANY, PEERS, ALONE)


# A row's ``hand`` that is the whole state (:class:`Builtin`): a slice of the hand costs a
# tenth of a cheap strategy's turn, for what only a rare path reads (plays of 5 to 8 cards).
STATE = "state"


class Builtin(NamedTuple):
    """One built-in of the fast path: a row of :data:`BUILTINS`."""

    name: str             # its registered name (strategies.basic, strategies.peers)
    kind: int             # its number in the seat table (:func:`kinds`): >= 1, one per row
    move: object = None   # its move function (plain Python: the strategy's py_func), or
    swap: object = None   # ... its swap policy's function: a row has one of the two
    referee: str = ANY    # which referee inlines it (ANY, PEERS, ALONE)
    hand: object = False  # it reads its hand (else it gets ``obs`` there: no slice is made);
                          # STATE: it gets the whole state there, unsliced, and finds its
                          # hand itself (sim.kernel.moves.big_word: two decks only, H18)
    params: bool = False  # it reads its parameter row (else ``obs`` there)


# The fast path. Order matters only for speed: each table's kinds are tested in this order
# (and the PEERS rows before the others, in the referee that inlines them).
BUILTINS = (
    Builtin("lowest", 1, move=baseline.lowest, referee=ALONE, hand=STATE),
    Builtin("random", 2, move=baseline.random_move, hand=STATE),
    Builtin("cheapest", 3, move=peers.cheapest, referee=PEERS, hand=STATE, params=True),
    Builtin("simple", 4, move=peers.simple, referee=PEERS, hand=True, params=True),
    Builtin("none", 5, swap=baseline.keep),
    Builtin("random", 6, swap=baseline.random_swap),
    Builtin("highest-up", 7, swap=baseline.highest_up),
)

# The strategies of one core call (a plain run's seats, a tournament's field), each once:
# tuples of MAXP (8) functions, or of 16 when there are more (a second compile of the core, for
# tournaments of 9 to 16 strategies only). The core seats them game by game through the
# seat table (:func:`kinds`): no tuple is rebuilt, no parameter row copied.
POOLS = (MAXP, 16)
POOL = POOLS[-1]


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
    """The kind (:data:`BUILTINS`) of the strategy (``swap``: swap policy) that ``fn``
    compiles; 0 for any other function."""
    return (_SWAP_KINDS if swap else _MOVE_KINDS).get(getattr(fn, "py_func", None), 0)


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


def referee_of(pool: Pool, seat_table=None, players: int = 0) -> str:
    """Which referee (:data:`REFEREES`) plays games seated from ``pool``: ALONE when the
    seat table ``seat_table`` (as given: a plain run's) seats the ALONE row at each of
    the ``players`` seats, PEERS when the pool holds a PEERS row, else ANY."""
    if seat_table is not None and plays_alone.py_func(seat_table, players):
        return ALONE
    return PEERS if bool(np.isin(pool.kinds[:len(pool.moves)], PEER_KINDS).any()) else ANY


# -- the inlined calls, derived from the table (:func:`use`) ------------------------------------
# Each derived function is written out as Python source, one ``if k == K: return <row's call>``
# per row, and compiled with ``exec`` (:data:`SOURCES` keeps the text): the if-chain that was
# written by hand before the table, so Numba inlines one function and the rows' own functions
# (a chain of nested inlined closures, a level or more a row, made the cold compile slower:
# benchmarks/results/fastpath-table.md).
# The hand and parameter rows are sliced only where a row reads them (``hand``, ``params``): a
# slice is a new array whose reference count costs atomic operations at every turn; a row that
# does not read them gets ``obs`` in their place.

_MOVE_ARGS = "kinds, fns, st, obs, legal, rng, params, p"
_SWAP_ARGS = "kinds, fns, cards, obs, rng, params, s"
_HAND = "st[HANDS + p * NR:HANDS + p * NR + NR]"                  # seat p's hand
# else the seat's first-class function (its entry in the seat table); a swap policy's
# parameter row comes after all the strategies'
_FIRST_CLASS_MOVE = ("j = kinds[ENTRY + p]", f"return fns[j](obs, {_HAND}, legal, rng, params[j])")
_FIRST_CLASS_SWAP = ("j = kinds[ENTRY + s]", "return fns[j](cards, obs, rng, params[len(fns) + j])")

# SOURCES[name]: the generated source of each derived function (:func:`use`), to read.
SOURCES: dict = {}


def _move_call(row, fn: str) -> str:
    """The call of ``row``'s move function, named ``fn``, with the arguments it reads."""
    hand = "st" if row.hand == STATE else _HAND if row.hand else "obs"
    return (f"{fn}(obs, {hand}, legal, rng, "
            f"{'params[kinds[ENTRY + p]]' if row.params else 'obs'})")


def _swap_call(row, fn: str) -> str:
    """The call of ``row``'s swap function, named ``fn``."""
    return f"{fn}(cards, obs, rng, {'params[len(fns) + kinds[ENTRY + s]]' if row.params else 'obs'})"


def _source(name: str, args: str, key: str, calls, rest) -> str:
    """``def name(args)``: ``k = key``, then for each ``(kind, call)`` of ``calls`` in order
    ``if k == kind: return call``, then the lines ``rest`` (no ``k`` without ``calls``)."""
    lines = [f"def {name}({args}):"] + ([f"    k = {key}"] if calls else [])
    for kind_, call in calls:
        lines += [f"    if k == {kind_}:", f"        return {call}"]
    return "\n".join(lines + [f"    {line}" for line in rest] + [""])


def _define(source: str, name: str, names: dict):
    """Compile ``source`` (a function ``name`` over the module constants and ``names``) into
    an inlined jitted function; keep the source (:data:`SOURCES`, and for tracebacks)."""
    filename = f"<sim.kernel.fastpath.{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {"KIND": KIND, "SWAP_KIND": SWAP_KIND, "ENTRY": ENTRY, "HANDS": HANDS, "NR": NR,
             **names}
    exec(compile(source, filename, "exec"), scope)
    SOURCES[name] = source
    return jit(inline="always", cache=False)(scope[name])   # inlined: never compiled alone


def _check(table) -> None:
    kinds_ = [r.kind for r in table]
    if len(set(kinds_)) != len(kinds_) or min(kinds_) < 1:
        raise ValueError(f"fast path: each row needs a kind of its own, >= 1: {kinds_}")
    for r in table:
        if (r.move is None) == (r.swap is None) or r.referee not in REFEREES or (
                r.swap is not None and (r.referee != ANY or r.hand)):
            raise ValueError(f"fast path: row {r.name!r} needs a move or a swap function, "
                             f"and a referee of {REFEREES} (a swap policy's: {ANY!r}, no hand)")
    if sum(r.referee == ALONE for r in table) > 1:
        raise ValueError(f"fast path: one row at most has referee {ALONE!r}")


def use(table) -> None:
    """Derive the fast path from ``table`` (rows of :class:`Builtin`) into this module's
    names: called below with :data:`BUILTINS`. (A test calls it with a toy row added, in a
    fresh process before :mod:`sim.kernel.referee` is imported, with a cache of its own.)"""
    global BUILTINS, choose_move, choose_peers, choose_swap, only_alone, ALONE_KIND
    global PEER_KINDS, _MOVE_KINDS, _SWAP_KINDS
    _check(table)
    # each row's function inlined, named in the generated source after it and its kind
    fn = {r.kind: f"{(r.move or r.swap).__name__}_{r.kind}" for r in table}
    names = {fn[r.kind]: jit(inline="always")(r.move or r.swap) for r in table}
    moves = [r for r in table if r.move is not None]
    common = [(r.kind, _move_call(r, fn[r.kind])) for r in moves if r.referee != PEERS]
    peer = [(r.kind, _move_call(r, fn[r.kind])) for r in moves if r.referee == PEERS]
    swaps = [(r.kind, _swap_call(r, fn[r.kind])) for r in table if r.swap is not None]
    SOURCES.clear()
    BUILTINS = tuple(table)
    choose_move = _define(_source("choose_move", _MOVE_ARGS, "kinds[KIND + p]", common,
                                  _FIRST_CLASS_MOVE), "choose_move", names)
    choose_peers = _define(_source("choose_peers", _MOVE_ARGS, "kinds[KIND + p]", peer + common,
                                   _FIRST_CLASS_MOVE), "choose_peers", names)
    choose_swap = _define(_source("choose_swap", _SWAP_ARGS, "kinds[SWAP_KIND + s]", swaps,
                                  _FIRST_CLASS_SWAP), "choose_swap", names)
    alone = [r for r in moves if r.referee == ALONE]
    only_alone = choose_move
    if alone:
        only_alone = _define(_source("only_alone", _MOVE_ARGS, "", [],
                                     [f"return {_move_call(alone[0], fn[alone[0].kind])}"]),
                             "only_alone", names)
    ALONE_KIND = alone[0].kind if alone else -1
    PEER_KINDS = tuple(r.kind for r in moves if r.referee == PEERS)
    _MOVE_KINDS = {r.move: r.kind for r in moves}
    _SWAP_KINDS = {r.swap: r.kind for r in table if r.swap is not None}


@jit(inline="always")
def plays_alone(kinds, players):
    """Does each of the ``players`` seats of the seat table ``kinds`` play the ALONE row
    (which then gets its own referee loop)?"""
    for s in range(players):
        if kinds[KIND + s] != ALONE_KIND:
            return False
    return players > 0


# The derived names (set by :func:`use`), documented:
#   choose_move(kinds, fns, st, obs, legal, rng, params, p): seat p's move, an ANY or ALONE
#       row inlined, else its first-class function (its entry in the seat table ``kinds``);
#   choose_peers(...): the same with the PEERS rows inlined too, for a table that seats one
#       (only run_peers compiles them); without it a peer's bot is called through its
#       first-class function, the same function and moves;
#   choose_swap(kinds, fns, cards, obs, rng, params, s): seat s's swap choice likewise;
#   only_alone(...): choose_move for a table of the ALONE row only (no dispatch);
#   ALONE_KIND, PEER_KINDS: those rows' kinds.
choose_move = choose_peers = choose_swap = only_alone = None
ALONE_KIND, PEER_KINDS = -1, ()
_MOVE_KINDS: dict = {}
_SWAP_KINDS: dict = {}
use(BUILTINS)
