"""Compare versions of the core in one process: games/s of each, batches alternated.

    git worktree add /tmp/before HEAD~1
    python benchmarks/ab.py before=/tmp/before now=. [--players 4 --strategy lowest]

This machine's speed drifts by +-15% from one run to the next, so two separate `make bench`
runs cannot tell a 5% change. Here each DIR's ``sim/``, ``strategies/`` and ``reports/`` are
copied under renamed packages (``sim_before``, ...) into a scratch folder, imported side by
side and timed in alternating batches on one thread; the medians (and the best batch) compare
fairly. The turn totals of the same games are printed too: a change meant to keep the games
as they were must keep them equal.
"""
from __future__ import annotations

import argparse
import importlib
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba

PACKAGES = ("sim", "strategies", "reports")


def load(name: str, source: Path, scratch: Path):
    """Import ``source``'s packages renamed with the suffix ``_name``; its ``sim.runs.runner``."""
    for pkg in PACKAGES:
        dst = scratch / f"{pkg}_{name}"
        shutil.copytree(source / pkg, dst, ignore=shutil.ignore_patterns("__pycache__"))
        for f in dst.rglob("*.py"):
            text = re.sub(r"\b(from|import) (sim|strategies|reports)\b",
                          lambda m: f"{m.group(1)} {m.group(2)}_{name}", f.read_text())
            # the compile cache is named after these folders (sim/kernel/compiler.py)
            text = text.replace('("sim", "strategies")', f'("sim_{name}", "strategies_{name}")')
            f.write_text(text)
    runner = "runs.runner" if (source / "sim" / "runs").is_dir() else "runner"
    return importlib.import_module(f"sim_{name}.{runner}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("versions", nargs="+", metavar="NAME=DIR")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategy", default="lowest")
    ap.add_argument("--rules", default="seed", help="a preset (versions before presets: seed)")
    ap.add_argument("--games", type=int, default=40_000, help="games per batch")
    ap.add_argument("--reps", type=int, default=15, help="batches per version")
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU of the process (time.process_time), fairer when other jobs "
                         "share the cores")
    ap.add_argument("--cycle-stop", action=argparse.BooleanOptionalAction, default=False,
                    help="stop games proven endless, in versions that can (default: off, "
                         "so that every version plays the same turns)")
    ap.add_argument("--max-turns", type=int, default=None,
                    help="end every game after this many turns (R25): 1 times what a game costs "
                         "besides its turns (the deal, the swap, the records)")
    ap.add_argument("--balanced", action="store_true",
                    help="load every version twice, in the given order and then reversed, and "
                         "pool both copies: the version loaded first runs ~2%% faster than the "
                         "same code loaded second (an A/A run), which this cancels")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="shithead-ab-"))
    sys.path.insert(0, str(scratch))
    numba.set_num_threads(1)
    runners, configs, of = {}, {}, {}
    specs = list(args.versions)
    for spec in specs:
        name, _, folder = spec.partition("=")
        if not name.isidentifier() or not folder:
            ap.error(f"expected NAME=DIR, got {spec!r}")
    if args.balanced:           # the reversed copies, named NAME_2, pooled with NAME below
        specs += [f"{spec.partition('=')[0]}_2={spec.partition('=')[2]}" for spec in specs[::-1]]
    for spec in specs:
        name, _, folder = spec.partition("=")
        of[name] = name[:-2] if args.balanced and name.endswith("_2") and name[:-2] in of else name
        runners[name] = load(name, Path(folder).resolve(), scratch)
        extra = {}
        if "cycle_stop" in runners[name].RunConfig.__dataclass_fields__:
            extra["cycle_stop"] = args.cycle_stop       # versions before it had none
        if args.max_turns is not None:
            extra["max_turns"] = args.max_turns
        if args.rules != "seed":
            extra["rules"] = args.rules
        configs[name] = runners[name].RunConfig(games=1, players=args.players, seed=1,
                                                strategies=[args.strategy], **extra)
    turns = {k: int(r.play_batch(configs[k], 0, 3000, 1).turns.sum()) for k, r in runners.items()}
    print(f"turns of games 0..2999 (equal when the games are the same): {turns}")
    times = {k: [] for k in runners}
    clock = time.process_time if args.cpu else time.perf_counter
    names = list(runners)
    for rep in range(args.reps):
        # each batch in a rotated order, so that no version always runs after the same one
        for k in names[rep % len(names):] + names[:rep % len(names)]:
            r = runners[k]
            t0 = clock()
            b = r.play_batch(configs[k], rep * args.games, args.games, 1)
            times[k].append((clock() - t0, int(b.turns.sum())))
    print(f"{args.players}p {args.strategy}, rules {args.rules}, one thread, median of {args.reps} batches of "
          f"{args.games:,} games")
    pooled = {}
    for k, v in times.items():
        pooled.setdefault(of[k], []).extend(v)
    if args.balanced:
        print(f"each version loaded twice (given order, then reversed): medians of {2 * args.reps} batches")
    for k, v in pooled.items():
        dt = statistics.median(t for t, _ in v)
        per_turn = statistics.median(t / n for t, n in v) * 1e9
        best = args.games / min(t for t, _ in v)
        print(f"{k:>12} {args.games / dt:>10,.0f} games/s {per_turn:6.1f} ns/turn "
              f"(best batch {best:,.0f})")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
