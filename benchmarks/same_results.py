"""Do two versions of the project print the same results? (A refactoring must not change any.)

    python benchmarks/same_results.py BEFORE AFTER      # two commits (or . for the work tree)

Each version is checked out into a temporary git worktree (``.`` is the work tree itself) and
runs the same commands on fixed seeds: ``sim run`` under every preset, ``sim compare``,
``sim study swap``, ``sim analyze`` and ``sim replay``. Their JSON (or text) is compared
after dropping what is not a result (timings, versions, paths). Exit 1 on any difference.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VOLATILE = {"seconds", "elapsed", "versions", "sim_version", "games_per_second", "out", "path",
            "created", "time", "cpu_seconds", "started", "finished", "wall", "playouts_per_second"}

COMMANDS = {
    "run-seed": "run --games 20k --seed 3 --threads 2 --json",
    "run-mixed": "run --games 20k --seed 4 -s lowest -s random -s counting -s save-specials "
                 "--json",
    "run-classic": "run --games 20k --seed 5 --rules classic --json",
    "run-masters": "run --games 20k --seed 6 --players 3 --rules masters-of-shithead --json",
    "run-boothj5": "run --games 20k --seed 8 --players 5 --rules boothj5 --json",
    "run-simple": "run --games 10k --seed 10 -s simple --rules boothj5 --json",
    "run-peers": "run --games 10k --seed 11 --players 3 -s cheapest -s simple -s lowest "
                 "--rules masters-of-shithead --json",
    "run-v2": "run --games 10k --seed 9 --v2 -s lowest -s random --players 2 --json",
    "compare": "compare lowest random counting --games 6k --seed 5 --json",
    "study": "study swap --games 20k --seed 2 --json --out {tmp}/study",
    "analyze": "analyze docs/examples/midgame-seed-4p.json --rollouts 300 --seed 1 --json",
    "replay": "replay --seed 7 --game 3 --players 4",
    "replay-classic": "replay --seed 7 --game 5 --players 3 --rules classic",
}


def _clean(x, tmp=""):
    """``x`` without its volatile fields, the temporary folder's name replaced by ``{tmp}``."""
    if isinstance(x, dict):
        return {k: _clean(v, tmp) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_clean(v, tmp) for v in x]
    if isinstance(x, str) and tmp:
        return x.replace(tmp, "{tmp}")
    return x


def results(tree: Path) -> dict:
    """Every command's cleaned output, run with ``tree`` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200"}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in COMMANDS.items():
            argv = [sys.executable, "-c", "from sim.cli import main; main()",
                    *args.format(tmp=tmp).split()]
            p = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
            text = p.stdout
            try:
                value = _clean(json.loads(text), tmp)
            except json.JSONDecodeError:
                value = text.replace(tmp, "{tmp}")
            out[name] = {"exit": p.returncode, "out": value}
            print(f"  {name}: exit {p.returncode}", file=sys.stderr)
            if p.returncode:
                print("    " + "\n    ".join(p.stderr.strip().splitlines()[-5:]), file=sys.stderr)
    return out


def tree_of(rev: str, stack) -> Path:
    if rev == ".":
        return ROOT
    path = Path(tempfile.mkdtemp()) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev],
                   check=True)
    stack.append(path)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after", nargs="?", default=".")
    ap.add_argument("--save", type=Path, help="also write both results as JSON here")
    a = ap.parse_args()
    made: list[Path] = []
    try:
        found = {}
        for rev in (a.before, a.after):
            print(f"{rev}:", file=sys.stderr)
            found[rev] = results(tree_of(rev, made))
    finally:
        for path in made:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)])
    if a.save:
        a.save.write_text(json.dumps(found, indent=1))
    before, after = found[a.before], found[a.after]
    differ = [k for k in COMMANDS if before[k] != after[k]]
    for k in COMMANDS:
        print(f"{k:15} {'DIFFERS' if k in differ else 'same'} (exit {after[k]['exit']})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
