"""How long ``sim analyze --until-clear`` takes, per position.

    python benchmarks/analyze_clear.py [--tree DIR ...] [--reps 3] [--positions N]

Positions: the three of ``docs/examples`` and ``--positions`` more from random games (seed
rules, 4 players, tests/test_engine_properties.random_game), each analysed with
``analyze_state(..., until_clear=True)`` at the default block of 1,000 worlds and cap of
20,000, seed 0, in a warm process (one untimed call first). With several ``--tree``s, each
tree's ``sim`` is loaded in turn inside this process (its modules swapped in) and the trees
alternate per repetition; the median wall time is reported with how the run stopped, the
worlds played and the best-minus-second difference.
"""
from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ours():
    return {m: mod for m, mod in sys.modules.items() if m.split(".")[0] in ("sim", "strategies")}


def swap(snapshot):
    """Put one tree's modules in place (registries are looked up lazily through them)."""
    for name in ours():
        del sys.modules[name]
    sys.modules.update(snapshot)


def load(tree):
    """The ``sim.studies.analysis`` and ``sim.studies.view`` modules of ``tree``."""
    swap({})
    sys.path.insert(0, str(tree))
    try:
        analysis = importlib.import_module("sim.studies.analysis")
        view = importlib.import_module("sim.studies.view")
    finally:
        sys.path.remove(str(tree))
    return analysis, view


def positions(view, extra):
    """(name, kernel state) of the examples and ``extra`` positions of random games."""
    out = [(p.name, view.state_of(json.loads(p.read_text()))[0])
           for p in sorted((ROOT / "docs" / "examples").glob("*.json"))]
    sys.path.insert(0, str(ROOT / "tests"))
    from test_engine_properties import random_game
    from sim.kernel.layout import OVER, TURN
    found = []

    def keep(st):
        if not st[OVER] and st[TURN] in (12, 30):
            found.append(st.copy())
    g = 0
    while len(found) < extra:
        random_game(100 + g, 4, "seed", steps=300, check=keep)
        g += 1
    out += [(f"random game {100 + i // 2} turn {(12, 30)[i % 2]}", st)
            for i, st in enumerate(found[:extra])]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", help="a source tree (default: this one)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--positions", type=int, default=6, help="positions of random games")
    ap.add_argument("--options", default="{}", help="JSON: extra analyze_state options, "
                    "one object for every tree or a list with one per tree")
    args = ap.parse_args()
    trees = args.tree or [str(ROOT)]
    opts = json.loads(args.options)
    opts = opts if isinstance(opts, list) else [opts] * len(trees)
    mods, snaps = [], []
    for k, tree in enumerate(trees):
        analysis, view = load(tree)
        pos = positions(view, args.positions)
        analysis.analyze_state(pos[0][1], rollouts=10, until_clear=True, **opts[k])   # warm
        mods.append((analysis, pos))
        snaps.append(ours())
    times = {}
    result = {}
    for rep in range(args.reps):
        for k, (analysis, pos) in enumerate(mods):
            swap(snaps[k])
            for name, st in pos:
                t0 = time.perf_counter()
                a = analysis.analyze_state(st, until_clear=True, **opts[k])
                times.setdefault((k, name), []).append(time.perf_counter() - t0)
                p = a.info()["paired"]
                result[(k, name)] = (a.clear["stopped"], a.clear.get("worlds", a.n),
                                     len(a.moves), p and 100 * p["difference"],
                                     p and 100 * p["low"], p and 100 * p["high"])
    for name, _ in mods[0][1]:
        for k in range(len(mods)):
            stopped, worlds, nm, d, lo, hi = result[(k, name)]
            med = statistics.median(times[(k, name)])
            print(f"{name:32s} tree {k} {trees[k]:18s} {med:6.2f} s  {stopped:22s} "
                  f"{worlds:6d} worlds {nm} moves  best-second {d:+.2f} ({lo:+.2f} .. {hi:+.2f})"
                  if d is not None else f"{name:32s} tree {k} {med:6.2f} s {stopped}")


if __name__ == "__main__":
    main()
