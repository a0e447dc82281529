"""What each Numba patch of sim/kernel/patches.py buys on the commands users run.

For every patch (``SHITHEAD_NUMBA_PATCHES``), every workload runs as a fresh process with all
patches and with all but that one, interleaved in rounds (all, all-but-a, all-but-b, ...,
then the next round, each starting one configuration further on), each configuration on a warm compile cache of its own: the
all-patches cache is built first, copied for every other configuration and warmed there by
one untimed run of each workload (a configuration whose compiled code differs compiles into
its copy then; the script reports which copies changed). Without the ``cache`` patch nothing
is cached on disk unless ``NUMBA_CACHE_DIR`` is set, which a user does not by default: that
configuration compiles at every run, so it gets ``--cache-rounds`` rounds of
``--cache-workloads`` only.

Printed (and written with ``--json FILE``): per patch and workload the medians of wall time
and of the child's CPU time (``getrusage(RUSAGE_CHILDREN)``, steadier than wall time on a
shared machine) with and without the patch, and the change without it in percent.

    python benchmarks/patches.py [--rounds 5] [--cache-rounds 1] [--patches a,b] [--json F]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.kernel.patches import ALL_PATCHES  # noqa: E402

EXAMPLE = str(ROOT / "docs" / "examples" / "midgame-seed-4p.json")

# sim run --games 2e5 stands for --games 1e6: the same code path (chunks of the same core),
# a fifth of the time, so that the whole benchmark stays under 25 minutes.
WORKLOADS = {
    "run 1000": ["run", "--games", "1000", "--threads", "1", "--json"],
    "run 2e5": ["run", "--games", "2e5", "--threads", "1", "--json"],
    "montecarlo table": ["run", "-p", "2", "-s", "montecarlo", "-s", "lowest", "--games", "50",
                         "--threads", "1", "--json"],
    "analyze example": ["analyze", EXAMPLE, "--json"],
    "tune 1 trial": ["tune", "counting", "--against", "lowest", "--trials", "1",
                     "--games-per-trial", "200", "--fresh-games", "200", "--threads", "1",
                     "--quiet", "--json"],
}


def _env(patches: str, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "SHITHEAD_CACHE_DIR", "SHITHEAD_NUMBA_PATCHES")}
    env.update(PYTHONPATH=str(ROOT), SHITHEAD_NUMBA_PATCHES=patches,
               SHITHEAD_CACHE_DIR=str(cache), NUMBA_NUM_THREADS="1")
    return env


def _time(argv: list, env: dict) -> tuple:
    """(wall s, child CPU s) of one run of ``python -m sim.cli argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "sim.cli", *argv], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({env['SHITHEAD_NUMBA_PATCHES']}):\n"
                         + out.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns
            for p in folder.rglob("*") if p.is_file() and p.name != "speeds.json"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cache-rounds", type=int, default=1,
                    help="rounds without the cache patch (every run compiles: ~40-60 s)")
    ap.add_argument("--patches", default=",".join(ALL_PATCHES),
                    help="the patches to measure (comma-separated; default: all)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help="the workloads (comma-separated names; default: all)")
    ap.add_argument("--cache-workloads", default="run 1000,analyze example",
                    help="the workloads timed without the cache patch (each run compiles)")
    ap.add_argument("--json", type=Path, help="also write the medians to this file")
    args = ap.parse_args()
    measured = [p for p in args.patches.split(",") if p]
    workloads = {k: WORKLOADS[k] for k in args.workloads.split(",")}
    tmp = Path(tempfile.mkdtemp(prefix="patches-"))
    configs = {"all": ",".join(ALL_PATCHES)}
    for p in measured:
        configs[f"-{p}"] = ",".join(q for q in ALL_PATCHES if q != p) or "0"
    caches = {c: tmp / c for c in configs}
    for argv in workloads.values():                   # the all-patches cache, warm
        _time(argv, _env(configs["all"], caches["all"]))
    changed = {}
    for c, cache in caches.items():
        if c == "all":
            continue
        shutil.copytree(caches["all"], cache)
        before = _files(cache)
        if c != "-cache":
            for argv in workloads.values():
                _time(argv, _env(configs[c], cache))
        changed[c] = _files(cache) != before
    print("warm-up compiled into its copy of the cache:",
          {c: v for c, v in changed.items() if c != "-cache"}, flush=True)
    times = {(c, w): [] for c in configs for w in workloads}
    for r in range(args.rounds):
        for w, argv in workloads.items():
            order = list(configs)
            for c in order[r % len(order):] + order[:r % len(order)]:   # no first place
                if c == "-cache" and (r >= args.cache_rounds
                                      or w not in args.cache_workloads.split(",")):
                    continue
                times[c, w].append(_time(argv, _env(configs[c], caches[c])))
        print(f"round {r + 1}/{args.rounds} done", flush=True)
    rows = []
    for p in measured:
        for w in workloads:
            with_, without = times["all", w], times[f"-{p}", w]
            if not without:
                continue
            cell = {"patch": p, "workload": w, "rounds": len(without)}
            for k, i in (("wall", 0), ("cpu", 1)):
                a = statistics.median(t[i] for t in with_)
                b = statistics.median(t[i] for t in without)
                cell[k] = [round(a, 3), round(b, 3), round(100 * (b - a) / a, 1)]
            rows.append(cell)
    print("\n| patch | workload | rounds | wall with | wall without | wall % | "
          "CPU with | CPU without | CPU % |\n|---|---|---|---|---|---|---|---|---|")
    for c in rows:
        print(f"| {c['patch']} | {c['workload']} | {c['rounds']} | {c['wall'][0]:.2f} s | "
              f"{c['wall'][1]:.2f} s | {c['wall'][2]:+.1f} | {c['cpu'][0]:.2f} s | "
              f"{c['cpu'][1]:.2f} s | {c['cpu'][2]:+.1f} |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "changed": changed}, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
