"""Do two versions of the project print the same results? (A refactoring must not change any.)

    python benchmarks/same_results.py BEFORE AFTER      # two commits (or . for the work tree)

Each version is checked out into a temporary git worktree (``.`` is the work tree itself) and
runs the same commands on fixed seeds: ``sim run`` under every preset, ``sim compare``,
``sim study swap``, ``sim analyze`` and ``sim replay``. Their JSON (or text) is compared
after dropping what is not a result (timings, versions, paths). Exit 1 on any difference.

A preset changed on purpose (``masters-of-shithead`` took H18-H20 and H11 "one_then_rank")
would differ by design, so where AFTER's preset differs from BEFORE's, AFTER runs that
preset's commands with ``--rule`` overrides that give BEFORE's options back (an option BEFORE
lacks at its ``seed`` default, which is the old rule, docs/rules.md §11): the old games as
played now. The overrides are printed; ``--as-named`` runs the presets as named instead.
Each differing command lists the fields that differ, so an intended change (a format
version, a new fact) is told from a changed game.
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


PRESETS_JSON = ("import json; from sim.kernel.ruleset import PRESETS; "
                "print(json.dumps({n: p.to_dict() for n, p in PRESETS.items()}))")


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200"}


def presets(tree: Path) -> dict:
    """Every preset's options as ``tree`` defines them (``Ruleset.to_dict``)."""
    p = subprocess.run([sys.executable, "-c", PRESETS_JSON], cwd=tree, env=_env(tree),
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def _text(v) -> str:
    """An option value as ``--rule`` reads it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, list):
        return ",".join(v)
    return str(v)


def old_equivalents(before: dict, after: dict) -> dict:
    """Per preset whose options differ between the versions: the ``--rule key=value``
    overrides that make AFTER's preset play BEFORE's (an option BEFORE lacks at AFTER's
    ``seed`` value, the old rule)."""
    out = {}
    for name, now in after.items():
        old = before.get(name)
        if old is None:
            continue
        want = {k: old.get(k, after["seed"][k]) for k in now if k != "base"}
        rules = [f"{k}={_text(v)}" for k, v in want.items() if now[k] != v]
        if rules:
            out[name] = rules
    return out


def with_overrides(args: str, mapping: dict) -> str:
    """``args`` with the overrides of the preset it names (``--rules NAME``) added."""
    words = args.split()
    for i, w in enumerate(words[:-1]):
        if w == "--rules" and words[i + 1] in mapping:
            return " ".join(words + [f"--rule {r}" for r in mapping[words[i + 1]]])
    return args


def results(tree: Path, mapping: dict | None = None) -> dict:
    """Every command's cleaned output, run with ``tree`` first on the import path (a preset
    of ``mapping`` with its overrides, :func:`old_equivalents`)."""
    env = _env(tree)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in COMMANDS.items():
            args = with_overrides(args, mapping or {})
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


def differences(a, b, path="", limit=8) -> list[str]:
    """The first ``limit`` fields where two outputs differ, as ``path: before -> after``."""
    found: list[str] = []

    def walk(x, y, at):
        if len(found) >= limit or x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in list(x) + [k for k in y if k not in x]:
                walk(x.get(k, "<absent>"), y.get(k, "<absent>"), f"{at}.{k}")
        elif (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)):
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{at}[{i}]")
        elif isinstance(x, str) and isinstance(y, str) and "\n" in x + y:
            lx, ly = x.splitlines(), y.splitlines()
            i = next((i for i, (u, v) in enumerate(zip(lx, ly)) if u != v), min(len(lx), len(ly)))
            found.append(f"{at} line {i + 1}: {_short(lx[i:i + 1])} -> {_short(ly[i:i + 1])}")
        else:
            found.append(f"{at}: {_short(x)} -> {_short(y)}")

    walk(a, b, path)
    return found


def _short(x, n=70) -> str:
    t = json.dumps(x) if not isinstance(x, str) else repr(x)
    return t if len(t) <= n else t[:n - 3] + "..."


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
    ap.add_argument("--as-named", action="store_true",
                    help="run changed presets as named (no old-equivalent overrides)")
    a = ap.parse_args()
    made: list[Path] = []
    try:
        found = {}
        trees = {rev: tree_of(rev, made) for rev in (a.before, a.after)}
        mapping = ({} if a.as_named else
                   old_equivalents(presets(trees[a.before]), presets(trees[a.after])))
        for name, rules in mapping.items():
            print(f"{a.after} runs {name} as BEFORE's: --rules {name} "
                  + " ".join(f"--rule {r}" for r in rules))
        for rev in (a.before, a.after):
            print(f"{rev}:", file=sys.stderr)
            found[rev] = results(trees[rev], mapping if rev == a.after else None)
    finally:
        for path in made:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)])
    if a.save:
        a.save.write_text(json.dumps(found, indent=1))
    before, after = found[a.before], found[a.after]
    differ = [k for k in COMMANDS if before[k] != after[k]]
    for k in COMMANDS:
        print(f"{k:15} {'DIFFERS' if k in differ else 'same'} (exit {after[k]['exit']})")
        found = differences(before[k], after[k], limit=10_000) if k in differ else []
        for line in found[:8]:
            print(f"    {line}")
        if len(found) > 8:
            print(f"    ... and {len(found) - 8} more fields")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
