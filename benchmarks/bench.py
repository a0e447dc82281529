"""Games per second of the batch core: 2, 4 and 6 players x random/lowest x 1 and 2 threads
under ``seed``, the other presets at 4 players, two-deck games (H18: ``decks=2`` at 6 and 8
players), play-on games (H19: ``classic`` with ``play_on`` at 4 players, and
``masters-of-shithead``, two decks and H19 from 4 players), and the reference kernel side by
side.

Run with ``make bench`` (or ``python benchmarks/bench.py [--repeats 5] [--seconds 1.0]``);
``--no-cycle-stop`` (``make bench BENCH_ARGS=--no-cycle-stop``) plays endless games of
``lowest`` to the turn limit instead of stopping them when a position repeats (sim.kernel.cycle), to
time the core on the same turns as before that existed.
Each cell is the median of several timed runs of about ``--seconds`` each, after a warm-up,
in this one process, so the cells can be compared with each other. The bare-bones kernel of
``../shared/reference/`` (seed rules, policy hard-wired) is timed in the same process, and the
ratio of our 4-player games/s to its is printed: a ratio travels between machines, a time
does not. Also prints the start-up time of a fresh process (warm compile cache), the wall
time and peak memory of ``sim run --games 1e6 --players 4 --strategy lowest`` (on all cores,
and on one thread against the core's one-thread games/s), of ``sim run --games 1000``, and
with ``--cold`` of the first run on an empty compile cache.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from sim.runs.runner import RunConfig, play_batch


# ../shared/reference beside the project (or beside the folder of its git worktrees)
REFERENCE = next((p / "shared" / "reference" for p in Path(__file__).resolve().parents[1:4]
                  if (p / "shared" / "reference").is_dir()),
                 Path(__file__).resolve().parents[1].parent / "shared" / "reference")
TWO_DECKS, PLAY_ON = "seed decks=2", "classic play_on=true"            # H18, H19
RULES = {TWO_DECKS: {"base": "seed", "decks": 2},
         PLAY_ON: {"base": "classic", "play_on": True}}


def measure(players, strategy, threads, seconds, repeats, rules="seed", cycle_stop=True):
    cfg = RunConfig(games=1, players=players, seed=1, strategies=[strategy], rules=rules,
                    cycle_stop=cycle_stop)
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


def reference(players, policy, seconds, repeats):
    """The reference kernel's games/s and ns/turn on one thread (None if it is not there)."""
    if not (REFERENCE / "limit_kernel.py").exists():
        return None
    sys.path.insert(0, str(REFERENCE))
    import limit_kernel as k

    numba.set_num_threads(1)
    k.run_batch(2000, players, policy, 1, 10_000)                   # compile, warm up
    t0 = time.perf_counter()
    k.run_batch(20_000, players, policy, 2, 10_000)
    n = max(20_000, int(20_000 * seconds / max(time.perf_counter() - t0, 1e-6)))
    rates, ns = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        _, turns, _ = k.run_batch(n, players, policy, 3 + r, 10_000)
        dt = time.perf_counter() - t0
        rates.append(n / dt)
        ns.append(dt / turns.sum() * 1e9)
    return statistics.median(rates), statistics.median(ns)


def startup():
    """A fresh process (warm cache): import to the first games played, and the peak memory."""
    code = ("import time,resource; t=time.perf_counter(); from sim.runs.runner import RunConfig,"
            "play_batch; play_batch(RunConfig(games=10), 0, 10, 1); "
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # warm cache
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def end_to_end(games="1e6", threads=None, env=None, cycle_stop=True):
    """Wall time of the whole command a user types (warm cache), and its peak memory."""
    cmd = [sys.executable, "-m", "sim.cli", "run", "--games", games, "--players", "4",
           "--strategy", "lowest", "--quiet"] + (["--threads", str(threads)] if threads else [])
    cmd += [] if cycle_stop else ["--no-cycle-stop"]
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=env)
    _, status, usage = os.wait4(child.pid, 0)          # this child's own peak memory
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    rss = usage.ru_maxrss / 1024
    return " ".join(cmd[1:]).replace("-m sim.cli", "sim"), wall, rss


def same_games_core(games=1_000_000, cycle_stop=True):
    """Seconds the core takes, on one thread in this warm process, for the very games of
    ``sim run --games 1e6`` (seed 0, 4 players, lowest, batches of 100,000 like the run):
    the end-to-end time over this is the command's own overhead, start-up included."""
    cfg = RunConfig(games=games, players=4, seed=0, strategies=["lowest"],
                    cycle_stop=cycle_stop)
    play_batch(cfg, 0, 2000, 1)
    t0 = time.perf_counter()
    for first in range(0, games, 100_000):
        play_batch(cfg, first, min(100_000, games - first), 1)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-cycle-stop", dest="cycle_stop", action="store_false",
                    help="play games proven endless to the turn limit (sim.kernel.cycle)")
    ap.add_argument("--cold", action="store_true",
                    help="also time the first run with an empty compile cache (~20 s more)")
    args = ap.parse_args()
    print("command: python benchmarks/bench.py " + " ".join(sys.argv[1:]))
    print(f"machine: {platform.processor() or platform.machine()}, "
          f"{numba.config.NUMBA_NUM_THREADS} cores, python {platform.python_version()}, "
          f"numba {numba.__version__}; median of {args.repeats} runs of ~{args.seconds:.1f} s; "
          f"endless games {'stopped' if args.cycle_stop else 'played to the limit'}")
    print(f"{'rules':>22} {'players':>7} {'strategy':>8} {'threads':>7} {'games':>9} "
          f"{'games/s':>10} {'ns/turn':>8} {'turns/game':>10}")
    cells = [("seed", players, strategy, threads) for players in (2, 4, 6)
             for strategy in ("random", "lowest") for threads in args.threads]
    cells += [(rules, 4, strategy, 1) for rules in ("classic", "masters-of-shithead",
                                                    "boothj5", PLAY_ON)
              for strategy in ("random", "lowest")]
    cells += [(TWO_DECKS, players, strategy, 1) for players in (6, 8)
              for strategy in ("random", "lowest")]
    ours = {}
    for rules, players, strategy, threads in cells:
        n, rate, ns, turns = measure(players, strategy, threads, args.seconds, args.repeats,
                                     RULES.get(rules, rules), args.cycle_stop)
        ours[rules, players, strategy, threads] = rate, ns
        print(f"{rules:>22} {players:>7} {strategy:>8} {threads:>7} {n:>9,} {rate:>10,.0f} "
              f"{ns:>8.1f} {turns:>10.1f}", flush=True)
    for rules, players, seed_players in [(r, 4, 4) for r in ("classic", "masters-of-shithead",
                                                            "boothj5", PLAY_ON)] + [
            (TWO_DECKS, 6, 6), (TWO_DECKS, 8, 6)]:
        for strategy in ("random", "lowest"):
            (rate, ns), (seed_rate, seed_ns) = (ours[rules, players, strategy, 1],
                                                ours["seed", seed_players, strategy, 1])
            print(f"{rules} {players}p / seed {seed_players}p, {strategy}, one thread: "
                  f"ns/turn {ns / seed_ns:.2f}, games/s {rate / seed_rate:.2f}")
    for policy, strategy in ((1, "lowest"), (0, "random")):
        ref = reference(4, policy, args.seconds, args.repeats)
        if ref is None:
            print("reference kernel: ../shared/reference/limit_kernel.py not found")
            break
        rate = ours["seed", 4, strategy, 1][0]
        print(f"reference kernel, seed 4p {('random', 'greedy')[policy]}, one thread: "
              f"{ref[0]:,.0f} games/s, {ref[1]:.1f} ns/turn; ours ({strategy}) / reference = "
              f"{rate / ref[0]:.2f}", flush=True)
    t, rss = startup()
    print(f"start-up (fresh process, warm cache, import to the first games played): {t:.2f} s;"
          f" peak memory {rss:.0f} MiB")
    cmd, wall, rss = end_to_end(cycle_stop=args.cycle_stop)
    print(f"end to end: `{cmd}` {wall:.2f} s wall (warm cache), peak memory {rss:.0f} MiB")
    cmd, wall, rss = end_to_end(threads=1, cycle_stop=args.cycle_stop)
    core = same_games_core(cycle_stop=args.cycle_stop)
    print(f"end to end: `{cmd}` {wall:.2f} s wall, {1e6 / wall:,.0f} games/s = "
          f"{core / wall:.2f} of the core's one-thread games/s on the same games "
          f"({1e6 / core:,.0f} games/s, {core:.2f} s in this process)")
    cmd, wall, rss = end_to_end("1000", cycle_stop=args.cycle_stop)
    print(f"end to end: `{cmd}` {wall:.2f} s wall (warm cache)")
    if args.cold:
        with tempfile.TemporaryDirectory() as cache:
            cmd, wall, rss = end_to_end(env={**os.environ, "SHITHEAD_CACHE_DIR": cache},
                                        cycle_stop=args.cycle_stop)
        print(f"first run: `{cmd}` {wall:.2f} s wall with an empty compile cache")
    print(f"this process peak memory: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
