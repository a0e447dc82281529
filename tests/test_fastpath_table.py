"""The fast path is one table (sim.kernel.fastpath.BUILTINS): the inlined branches, the
kinds, the referee a table plays through and the compiled check all come from its rows."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from sim.kernel import fastpath
from sim.runs.registry import get_move, get_swap

# A toy strategy and swap policy, added to the fast path through the table alone
# (fastpath.use, before the referee is imported), then played inlined and first-class: the
# same function under another name, which no row names.
TOY = '''
import types
from sim.kernel.moves import forced, lowest_bit, most_cards, play_ranks
from sim.kernel.strategy import move_strategy, swap_policy


def toy(obs, hand, legal, rng, params):
    """the highest legal rank, but the lowest when holding two of it (its hand) and while
    params[0] is 0 (its parameter row)"""
    ranks = play_ranks(legal)
    if not ranks:
        return forced(legal, obs)
    low = lowest_bit(ranks)
    if hand[low] >= 2 and params[0] == 0:
        return most_cards(legal, low)
    high = low
    while ranks >> (high + 1):
        high += 1
    return most_cards(legal, high)


def toy_swap(cards, obs, rng, params):
    """the last half of the cards face up"""
    n = cards.shape[0]
    return ((1 << n) - 1) ^ ((1 << (n // 2)) - 1)


def _copy(f, name):
    return types.FunctionType(f.__code__, f.__globals__, name)


move_strategy("toy", pure=True)(toy)
move_strategy("toy-first-class", pure=True)(_copy(toy, "toy_first_class"))
swap_policy("toy-swap")(toy_swap)
swap_policy("toy-swap-first-class")(_copy(toy_swap, "toy_swap_first_class"))
'''

RUN = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import toyfast
from sim.kernel import fastpath
from sim.kernel.fastpath import ANY, PEERS, Builtin

fastpath.use(fastpath.BUILTINS + (
    Builtin("toy", 8, move=toyfast.toy, referee=PEERS, hand=True, params=True),
    Builtin("toy-swap", 9, swap=toyfast.toy_swap, referee=ANY)))

from sim.kernel import referee as core
from sim.kernel.layout import MAXP
from sim.kernel.records import FIELDS
from sim.runs.batch import entry, play_batch
from sim.runs.config import RunConfig


def table(move, swap):
    return RunConfig(games=300, players=3, seed=4, strategies=[move, "lowest", move],
                     swaps=[swap, "none", swap], threads=1)


fast, plain = table("toy", "toy-swap"), table("toy-first-class", "toy-swap-first-class")
a, b = play_batch(fast, 0, 300, 1), play_batch(plain, 0, 300, 1)
print(json.dumps({
    "kinds": [fast.seat_table[:3].tolist(), fast.seat_table[MAXP:MAXP + 3].tolist(),
              plain.seat_table[:3].tolist(), plain.seat_table[MAXP:MAXP + 3].tolist()],
    "entries": [entry(fast).__name__, entry(plain).__name__],
    "compiled": [len(core.run_peers.signatures), len(core.run_games.signatures)],
    "same": [f.name for f in FIELDS if not np.array_equal(getattr(a, f.name), getattr(b, f.name))],
    "turns": int(a.turns.sum())}))
'''


def test_a_toy_strategy_joins_the_fast_path_through_the_table_alone(tmp_path):
    """One row each (tests' toy strategy and swap policy, in a process of their own with a
    fresh compile cache): the seat table gives them their kinds, the PEERS row makes the
    table play through run_peers, which inlines it, and the games are bit for bit those of
    the same functions called first-class."""
    (tmp_path / "toyfast.py").write_text(TOY)
    out = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "SHITHEAD_CACHE_DIR": str(tmp_path / "cache")})
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["kinds"] == [[8, 1, 8], [9, 5, 9], [0, 1, 0], [0, 5, 0]]
    assert got["entries"] == ["run_peers", "run_games"]
    assert got["compiled"] == [1, 1]
    assert got["same"] == [] and got["turns"] > 300 * 20


def test_each_derived_function_tests_the_rows_in_the_table_order():
    """The branches are generated as source (fastpath.SOURCES), one ``if k == K`` per row in
    the table's order, the PEERS rows first in choose_peers; the hand is sliced only for a
    row that reads it (a STATE row gets the whole state, unsliced), and for the first-class
    call."""
    def tested(name):
        return [int(k) for k in re.findall(r"if k == (\d+):", fastpath.SOURCES[name])]
    moves = [r for r in fastpath.BUILTINS if r.move is not None]
    common = [r.kind for r in moves if r.referee != fastpath.PEERS]
    peers = [r.kind for r in moves if r.referee == fastpath.PEERS]
    assert tested("choose_move") == common and tested("choose_peers") == peers + common
    assert tested("choose_swap") == [r.kind for r in fastpath.BUILTINS if r.swap is not None]
    assert fastpath.SOURCES["choose_peers"].count("st[HANDS") == 1 + sum(
        r.hand is True for r in moves)
    alone = [r for r in moves if r.referee == fastpath.ALONE]
    assert tested("only_alone") == [] and f"{alone[0].move.__name__}_{alone[0].kind}(" in (
        fastpath.SOURCES["only_alone"])


def test_each_row_is_the_registered_strategy_of_its_name():
    """The table's names and functions are the registry's: a row inlines exactly the code a
    first-class seat of that name would call."""
    for row in fastpath.BUILTINS:
        found = get_move(row.name) if row.move is not None else get_swap(row.name)
        assert found.dispatcher.py_func is (row.move if row.move is not None else row.swap)
        assert fastpath.kind(found.dispatcher, swap=row.swap is not None) == row.kind


def test_the_table_is_checked():
    bad = fastpath.Builtin("twice", fastpath.BUILTINS[0].kind, move=fastpath.BUILTINS[0].move)
    for table in (fastpath.BUILTINS + (bad,),
                  (fastpath.Builtin("neither", 9),),
                  (fastpath.Builtin("swap", 9, swap=len, referee=fastpath.PEERS),),
                  (fastpath.Builtin("a", 8, move=len, referee=fastpath.ALONE),
                   fastpath.Builtin("b", 9, move=abs, referee=fastpath.ALONE))):
        try:
            fastpath._check(table)
        except ValueError as e:
            assert "fast path" in str(e)
        else:
            raise AssertionError(f"accepted {table}")


def test_the_referee_of_a_table_follows_the_table():
    """sim.kernel.fastpath.referee_of: ALONE for a table of lowest only, PEERS for a table
    that seats a PEERS row, else ANY; a tournament's pool (no seat table) is never ALONE."""
    from sim.runs.config import RunConfig

    def of(*names, seated=True):
        cfg = RunConfig(games=10, players=len(names), seed=1, strategies=list(names))
        return fastpath.referee_of(cfg.pool, *((cfg.seat_table, cfg.players) if seated else ()))
    assert of("lowest", "lowest") == fastpath.ALONE
    assert of("lowest", "lowest", seated=False) == fastpath.ANY
    assert of("lowest", "random") == fastpath.ANY
    assert of("lowest", "simple") == of("cheapest", "cheapest") == fastpath.PEERS
    assert of("counting", "counting") == fastpath.ANY
