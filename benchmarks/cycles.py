"""What stopping endless games saves (sim.kernel.cycle).

For one strategy (default ``lowest``) at 2 to 6 players, the same games (seed fixed) are
played with detection off (every endless game runs to the turn limit, R25) and on (stopped
when a position after a pick-up repeats), on one thread. Printed as a Markdown table: the
share of games unfinished (by cycle and by the cap, with detection on), the share of all
turns that the unfinished games hold with detection off, the share of turns saved
((off - on) / off), the wall times (median of ``--repeats``), and a check that every other
result is the same. Run::

    python benchmarks/cycles.py --games 50000 --seed 1
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sim.kernel.cycle import END_CAP, END_CYCLE
from sim.runs.runner import RunConfig, play_batch


def timed(cfg, games, repeats):
    times, b = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        b = play_batch(cfg, 0, games, 1)
        times.append(time.perf_counter() - t0)
    return b, statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    ap.add_argument("--strategy", default="lowest")
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--max-turns", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{args.games:,} games each of `{args.strategy}`, rules {args.rules}, seed "
          f"{args.seed}, limit {args.max_turns:,} turns, one thread; wall time: median of "
          f"{args.repeats}\n")
    print("| players | unfinished | by cycle | by cap | their share of turns (off) | "
          "turns off | turns on | turns saved | mean turns of a cycle game (on) | "
          "wall off (s) | wall on (s) | other results |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in args.players:
        cfgs = {stop: RunConfig(games=args.games, players=p, seed=args.seed,
                                strategies=[args.strategy], rules=args.rules,
                                max_turns=args.max_turns, cycle_stop=stop)
                for stop in (False, True)}
        for cfg in cfgs.values():
            play_batch(cfg, 0, 200, 1)                          # compile, warm up
        off, t_off = timed(cfgs[False], args.games, args.repeats)
        on, t_on = timed(cfgs[True], args.games, args.repeats)
        done = off.status == 0
        same = (np.array_equal(on.status, off.status) and np.array_equal(on.order, off.order)
                and np.array_equal(on.turns[done], off.turns[done])
                and np.array_equal(on.pickups[done], off.pickups[done])
                and np.array_equal(on.burns, off.burns))
        n = args.games
        unf = int((~done).sum())
        cyc = int((on.end == END_CYCLE).sum())
        cap = int((on.end == END_CAP).sum())
        t0, t1 = int(off.turns.sum()), int(on.turns.sum())
        held = int(off.turns[~done].sum()) / t0
        mean_cyc = on.turns[on.end == END_CYCLE].mean() if cyc else float("nan")
        print(f"| {p} | {unf:,} ({100 * unf / n:.3f}%) | {cyc:,} | {cap:,} | "
              f"{100 * held:.1f}% | {t0:,} | {t1:,} | {100 * (t0 - t1) / t0:.1f}% | "
              f"{mean_cyc:.0f} | {t_off:.2f} | {t_on:.2f} | "
              f"{'identical' if same else 'DIFFER'} |", flush=True)


if __name__ == "__main__":
    main()
