"""The cost of a turn of several tables, in one process: ns per turn, batches alternated.

    python benchmarks/turn_cost.py lowest@seed simple@boothj5 cheapest@trachwo [--players 4]

Each TABLE is ``strategy@preset`` (every seat plays the strategy). The tables are timed in
alternating batches on one thread (CPU time of the process, fair when other jobs share the cores), so that the machine's drift (+-15% from one run to the
next) falls on all of them alike; the median ns/turn of each and its ratio to the first
table are printed. Endless games are played to the turn limit (no cycle stop), so a pure
strategy and one that is not play the same kind of turns.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba

from sim.runs.batch import play_batch
from sim.runs.config import RunConfig


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tables", nargs="+", metavar="STRATEGY@PRESET")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=20_000, help="games per batch")
    ap.add_argument("--reps", type=int, default=9, help="batches per table")
    args = ap.parse_args()
    numba.set_num_threads(1)
    configs = {}
    for spec in args.tables:
        strategy, _, rules = spec.partition("@")
        configs[spec] = RunConfig(games=1, players=args.players, seed=1, strategies=[strategy],
                                  rules=rules or "seed", cycle_stop=False)
        play_batch(configs[spec], 0, 200, 1)           # compile (or load) first
    per_turn = {k: [] for k in configs}
    for rep in range(args.reps):
        for k, cfg in configs.items():
            t0 = time.process_time()
            b = play_batch(cfg, rep * args.games, args.games, 1)
            per_turn[k].append((time.process_time() - t0) / int(b.turns.sum()) * 1e9)
    print(f"{args.players}p, one thread, median of {args.reps} batches of {args.games:,} games")
    base = statistics.median(per_turn[args.tables[0]])
    for k, v in per_turn.items():
        ns = statistics.median(v)
        print(f"{k:>24} {ns:7.1f} ns/turn  {ns / base:5.2f}x  (best {min(v):.1f})")


if __name__ == "__main__":
    main()
