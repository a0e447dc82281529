"""Each built-in strategy against three `random` and against three `lowest` opponents.

Four players; the tested strategy sits in each seat in turn (seats rotated, equal games per
seat), results pooled: games, wins, win rate with its 95% Wilson interval, and games per
second of the whole table. Run: ``python benchmarks/strategy_table.py [--games N] [--mc-games N]``.
"""
from __future__ import annotations

import argparse
import sys
import time

import numba

from sim.runs.tally import wilson
from sim.runs.runner import RunConfig, run
from sim.runs.registry import all_moves


def rotated(strategy, opponent, games, seed, threads):
    wins = total = 0
    # load (or compile) the jitted code first: the rate is of play, not of compiling
    run(RunConfig(games=1, players=4, seed=seed, strategies=[strategy] + [opponent] * 3,
                  threads=threads))
    t0 = time.perf_counter()
    for seat in range(4):
        seats = [opponent] * 4
        seats[seat] = strategy
        tally = run(RunConfig(games=games, players=4, seed=seed + seat, strategies=seats,
                              threads=threads))
        wins += int(tally.wins[seat])
        total += tally.games
    return wins, total, total / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=25_000, help="games per seat")
    ap.add_argument("--mc-games", type=int, default=500, help="games per seat, montecarlo")
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--only", nargs="*", help="strategies to test (default: every built-in)")
    ap.add_argument("--opponents", nargs="*", default=["random", "lowest"],
                    help="opponent strategies (three copies each)")
    args = ap.parse_args()
    names = args.only or [n for n in all_moves() if not n.startswith("test-")]
    print("command: python benchmarks/strategy_table.py " + " ".join(sys.argv[1:]))
    print(f"4 players, seats rotated, {args.threads} threads; fair share 25%")
    print(f"{'strategy':<22} {'vs 3x':<7} {'games':>7} {'wins':>7} {'win rate':>9} "
          f"{'95% CI':>17} {'games/s':>9}")
    for name in names:
        games = args.mc_games if name.startswith("montecarlo") else args.games
        for opponent in args.opponents:
            wins, total, rate = rotated(name, opponent, games, 100, args.threads)
            low, high = wilson(wins, total)
            print(f"{name:<22} {opponent:<7} {total:>7,} {wins:>7,} {wins / total:>9.2%} "
                  f"{low:>8.2%}-{high:<8.2%} {rate:>9,.0f}", flush=True)


if __name__ == "__main__":
    main()
