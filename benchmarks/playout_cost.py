"""The cost of a turn of montecarlo's playouts against a ``lowest`` turn of the batch core, in
one process ("a playout turn within 2x a lowest turn of the batch core").

    python benchmarks/playout_cost.py [--rules seed] [--games 4000] [--reps 7]

Whole games are dealt (no swaps) and played out by :func:`strategies.montecarlo._playout`
from the first move, no horizon, under each opponent model (0 every seat lowest, 1 every seat
counting, 4 the default mixture drawn per game); the batch core plays a table of ``lowest`` on
the same thread. Rows alternate, CPU time of the process; medians of ``--reps``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.engine import legal_from, rules_of
from sim.kernel.layout import MAXP, STATE_SIZE, TURN
from strategies.value import NFEAT
from sim.kernel.referee import deal_unswapped
from sim.kernel.rng import seed_game
from sim.kernel.ruleset import Ruleset
from sim.runs.batch import play_batch
from sim.runs.config import RunConfig
from strategies import montecarlo as mc


@jit
def drive(playout, seed, games, players, rules, model, weights):
    """Deal ``games`` games and play each out with ``playout``; the turns played."""
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    assign = np.ones(MAXP, np.int64)
    params = np.array([3.0])
    coef = np.empty(0)
    vs, fs = np.empty(MAXP), np.empty(NFEAT)
    turns = 0
    for g in range(games):
        seed_game(rng, seed, g)
        first = deal_unswapped(st, rng, players, rules)
        mc.draw_models(rng, weights, first, players, assign, 1)
        word = legal_from(st, rules_of(st))
        m = mc._lowest(st, st, word, rng, st)
        t0 = st[TURN]
        playout(st, m, first, rng, 100_000, 0.0, model, params, assign, coef, vs, fs)
        turns += st[TURN] - t0
    return turns


def playouts():
    """The playout variants timed: name -> a jitted playout (the tree's own by default)."""
    return {"playout": mc._playout}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=4000, help="games per timed batch")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--models", default="0,1,4")
    args = ap.parse_args()
    numba.set_num_threads(1)
    rules = Ruleset.parse(args.rules).vector()
    weights = np.array([2.8146, 2.4494, 2.3973, 0.6413, 0.0, 0.0])
    cfg = RunConfig(games=1, players=args.players, seed=1, strategies=["lowest"],
                    rules=args.rules, cycle_stop=False)
    play_batch(cfg, 0, 200, 1)
    rows = {"batch core lowest": lambda rep: _batch(cfg, rep, args.games * 5)}
    for name, fn in playouts().items():
        for model in (int(x) for x in args.models.split(",")):
            rows[f"{name} model={model}"] = (
                lambda rep, fn=fn, model=model: _time(lambda: drive(
                    fn, rep, args.games, args.players, rules, model, weights)))
    for f in rows.values():
        f(99)                                        # compile
    ns = {k: [] for k in rows}
    for rep in range(args.reps):
        for k, f in rows.items():
            ns[k].append(f(rep))
    base = statistics.median(ns["batch core lowest"])
    print(f"{args.players}p {args.rules}, one thread, CPU ns/turn, median of {args.reps}")
    for k, v in ns.items():
        m = statistics.median(v)
        print(f"{k:>28} {m:7.1f} ns/turn  {m / base:5.2f}x lowest  (best {min(v):.1f})")


def _time(call):
    t0 = time.process_time()
    turns = call()
    return (time.process_time() - t0) / turns * 1e9


def _batch(cfg, rep, games):
    t0 = time.process_time()
    b = play_batch(cfg, rep * games, games, 1)
    return (time.process_time() - t0) / int(b.turns.sum()) * 1e9


if __name__ == "__main__":
    main()
