"""Games per second of the batch core: 2, 4 and 6 players x random/lowest x 1 and 2 threads.

Run with ``make bench`` (or ``python benchmarks/bench.py [--repeats 5] [--seconds 1.0]``).
Each cell is the median of several timed runs of about ``--seconds`` each, after a warm-up,
in this one process, so the cells can be compared with each other. Also prints the start-up
time of a fresh process (warm compile cache), and the wall time and peak memory of
``sim run --games 1e6 --players 4 --strategy lowest``.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import numba

from sim.runner import RunConfig, play_batch


def measure(players, strategy, threads, seconds, repeats):
    cfg = RunConfig(games=1, players=players, seed=1, strategies=[strategy])
    b = play_batch(cfg, 0, 2000, threads)                     # warm-up and pilot
    t0 = time.perf_counter()
    b = play_batch(cfg, 0, 2000, threads)
    pilot = time.perf_counter() - t0
    n = max(2000, int(2000 * seconds / max(pilot, 1e-6)))
    rates, ns = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        b = play_batch(cfg, r * n, n, threads)
        dt = time.perf_counter() - t0
        rates.append(n / dt)
        ns.append(dt / b.turns.sum() * 1e9)
    return n, statistics.median(rates), statistics.median(ns), b.turns.mean()


def startup():
    """A fresh process (warm cache): import to the first games played, and the peak memory."""
    code = ("import time,resource; t=time.perf_counter(); from sim.runner import RunConfig,"
            "play_batch; play_batch(RunConfig(games=10), 0, 10, 1); "
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # warm cache
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def end_to_end(games="1e6"):
    """Wall time of the whole command a user types (warm cache), and its peak memory."""
    cmd = [sys.executable, "-m", "sim.cli", "run", "--games", games, "--players", "4",
           "--strategy", "lowest", "--quiet"]
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)          # this child's own peak memory
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    rss = usage.ru_maxrss / 1024
    return " ".join(cmd[1:]).replace("-m sim.cli", "sim"), wall, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    print("command: python benchmarks/bench.py " + " ".join(sys.argv[1:]))
    print(f"machine: {platform.processor() or platform.machine()}, "
          f"{numba.config.NUMBA_NUM_THREADS} cores, python {platform.python_version()}, "
          f"numba {numba.__version__}; median of {args.repeats} runs of ~{args.seconds:.1f} s")
    print(f"{'players':>7} {'strategy':>8} {'threads':>7} {'games':>9} {'games/s':>10} "
          f"{'ns/turn':>8} {'turns/game':>10}")
    for players in (2, 4, 6):
        for strategy in ("random", "lowest"):
            for threads in args.threads:
                n, rate, ns, turns = measure(players, strategy, threads, args.seconds,
                                             args.repeats)
                print(f"{players:>7} {strategy:>8} {threads:>7} {n:>9,} {rate:>10,.0f} "
                      f"{ns:>8.1f} {turns:>10.1f}", flush=True)
    t, rss = startup()
    print(f"start-up (fresh process, warm cache, import to the first games played): {t:.2f} s;"
          f" peak memory {rss:.0f} MiB")
    cmd, wall, rss = end_to_end()
    print(f"end to end: `{cmd}` {wall:.2f} s wall (warm cache), peak memory {rss:.0f} MiB")
    print(f"this process peak memory: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
