"""Debugging a strategy in plain Python: with ``NUMBA_DISABLE_JIT=1`` (or
``sim run --debug``) nothing is compiled, a breakpoint in a strategy stops there, and the
games are the same, move for move, as compiled (the seam's Python meanings: sim.kernel.compiler)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_user_strategies import readme_example

ROOT = Path(__file__).resolve().parents[1]

# A few games of mixed seats: the user's strategy of the README (with a breakpoint in debug
# mode), built-ins called through first-class functions (counting, montecarlo, which calls
# counting) and inlined (random), every kind of swap policy, H13's jokers. (montecarlo with its
# default halving=1: game 2 differed, compiled against Python, while counting's count of the
# unseen cards lost A, 2 and jokers in Python: see the test below.)
_GAMES = """
import json, sys
import numpy as np
from sim.kernel.ruleset import Ruleset
from sim.runs.registry import get_move
from sim.runs.runner import RunConfig, play_batch, record_game

def games(bots):
    cfg = RunConfig(games=4, players=4, seed=11, threads=1,
                    strategies=["counting", "random",
                                "montecarlo(rollouts=2, horizon=30)",
                                f"{bots}:careful"],
                    swaps=["specials-up", "random", "highest-up", "none"],
                    rules=Ruleset.build("classic", ["jokers=always"]))
    b = play_batch(cfg, 0, cfg.games, 1)
    records = {name: np.asarray(value).tolist() for name, value in b.records._asdict().items()}
    moves = [record_game(cfg, g).moves.tolist() for g in range(2)]
    return {"records": records, "moves": moves,
            "compiled": type(get_move(f"{bots}:careful").fn).__name__ != "function"}
"""


def _bots(tmp_path, debug: bool) -> Path:
    code = readme_example()
    if debug:      # plain Python only: a breakpoint does not compile
        code = code.replace("    ranks = play_ranks(legal)", "    breakpoint()\n"
                            "    ranks = play_ranks(legal)")
        assert "breakpoint()" in code
    path = tmp_path / ("dbgbots.py" if debug else "mybots.py")
    path.write_text(code)
    return path


@pytest.mark.slow
def test_uncompiled_games_are_the_same_as_compiled(tmp_path):
    namespace: dict = {}
    exec(_GAMES, namespace)
    compiled = namespace["games"](_bots(tmp_path, False))
    assert compiled["compiled"] and compiled["records"]["turns"][0] > 0
    script = (_GAMES + "hits = []\n"
              "sys.breakpointhook = lambda *a, **k: hits.append(1)\n"
              "out = games(sys.argv[1]); out['breakpoints'] = len(hits)\n"
              "print(json.dumps(out))\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT) + os.pathsep
           + str(Path(__file__).parent)}
    out = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", "-c", script,
                          str(_bots(tmp_path, True))], check=True, capture_output=True,
                         text=True, env=env, cwd=tmp_path).stdout
    debug = json.loads(out.strip().splitlines()[-1])
    assert not debug["compiled"]
    assert debug["breakpoints"] > 10                    # the user's strategy ran as Python
    assert debug["moves"] == compiled["moves"]
    assert debug["records"] == compiled["records"]


def test_sim_run_debug_prints_the_compiled_summary(cli):
    args = ["run", "--games", "6", "--seed", "4", "--players", "3", "--json", "-s", "counting",
            "-s", "lowest", "-s", "random", "--swap", "random"]
    compiled = cli(*args)
    assert compiled.exit_code == 0, compiled.output
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    done = subprocess.run([sys.executable, "-m", "sim", *args, "--debug"], check=True,
                          capture_output=True, text=True, env=env)
    # the kernel's wrapping arithmetic warns nothing uncompiled
    assert "Warning" not in done.stderr, done.stderr
    debug, want = json.loads(done.stdout), json.loads(compiled.output)
    debug.pop("seconds"), want.pop("seconds")
    assert debug["options"].pop("threads") == 1          # --debug plays on one thread
    want["options"].pop("threads")
    assert debug == want


def test_sim_run_debug_refuses_once_numba_is_compiling(cli):
    """In a process that has already loaded Numba with the JIT on, --debug cannot take
    effect: a clear error, not a compiled run that ignores the breakpoints."""
    r = cli("run", "--games", "2", "--debug")
    assert r.exit_code == 2
    assert "NUMBA_DISABLE_JIT" in r.output


def test_the_bit_counts_have_the_same_python_meaning():
    """sim.kernel.bits' leading/trailing zero counts (LLVM ctlz/cttz) and their Python
    versions for debug mode agree, zero included."""
    from sim.kernel import bits
    from sim.kernel.compiler import jit

    @jit
    def counts(x):
        return bits.trailing_zeros(x), bits.leading_zeros(x)

    values = [0, 1, 2, 3, 12, 1 << 13, (1 << 27) - 1, (1 << 62) + 8, -1, -(1 << 40)]
    for v in values:
        x = np.int64(v)
        assert counts(x) == (bits._py_trailing_zeros(x), bits._py_leading_zeros(x)), v



def test_counting_counts_the_unseen_cards_alike_in_python():
    """counting's blocking rule packs the unseen cards per rank 3 bits apart (R26): in plain
    Python each count was an np.int32 (a Python int less an int32 element of the state), so
    that the shifts past bit 31 (A, 2, jokers) lost it, and counting, hence montecarlo's
    playouts, chose other moves than compiled (11 of 505 montecarlo decisions at 40
    rollouts). The Python meaning must be the compiled one."""
    from sim.kernel.layout import CURRENT, HANDS, NR, PUB
    from strategies.heuristics import _unseen
    from tests.test_montecarlo import states

    compared = high = 0
    for st in states(n_games=4, every=9):
        p = st[CURRENT]
        obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
        packed, total = _unseen(obs, hand, p)
        assert _unseen.py_func(obs, hand, p) == (packed, total)
        high += packed >> 33 > 0                      # an unseen A, 2 or joker (bits 33..41)
        compared += 1
    assert compared > 20 and high > 10
