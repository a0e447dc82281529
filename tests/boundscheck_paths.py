"""Every command's game paths with Numba's bounds checking forced on.

The kernel is compiled with ``boundscheck=False`` (``sim.kernel.compiler``): a read or write
past an array's end is not caught, it reads or corrupts other memory (the H12 swap of
``sim replay --rule hand_size=4`` wrote past its buffer). This script plays every command's
game paths (run, replay, compare, study swap, analyze, play, review, swap, tune, the learning
environments' tables), every
built-in strategy
and swap policy, under every preset (docs/rules.md §11.4) and seeded random option sets (§11.2),
with ``NUMBA_BOUNDSCHECK=1``, so that any out-of-bounds index raises ``IndexError``; it
exits 1 naming each path that failed.

Bounds checking changes the compiled code, so it runs with a cache folder of its own
(``--cache``, default ``~/.cache/shithead-sim-boundscheck``), never the normal runs' cache.
Game counts are small: the paths matter, not the statistics. Two decks at 7 and 8 players, play
on and out before the four (H18-H20) have cases of their own. ``--quick``: fewer random
option sets. ``tests/test_boundscheck.py`` runs it (``SHITHEAD_BOUNDSCHECK=1``).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup_environment(cache: Path) -> None:
    """Before Numba is imported: bounds checks on, and a cache folder of our own."""
    if "numba" in sys.modules:
        raise SystemExit("boundscheck_paths: Numba was imported before its settings were made")
    os.environ["NUMBA_BOUNDSCHECK"] = "1"
    os.environ["SHITHEAD_CACHE_DIR"] = str(cache)
    os.environ.pop("NUMBA_CACHE_DIR", None)
    os.environ.pop("NUMBA_DISABLE_JIT", None)
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _check_bounds_are_checked() -> None:
    """Refuse to report "no out-of-bounds access" unless the project's ``jit`` (which asks for
    ``boundscheck=False``) really raises on one."""
    import numba
    import numpy as np

    from sim.kernel.compiler import jit

    assert numba.config.BOUNDSCHECK == 1, "NUMBA_BOUNDSCHECK is not in force"

    @jit
    def past_the_end(a, i):
        return a[np.uint64(i)]

    try:
        past_the_end(np.zeros(3, np.int32), 3)
    except IndexError:
        return
    raise SystemExit("boundscheck_paths: an index past the end did not raise: bounds "
                     "checking is off, this run would prove nothing")


class Paths:
    """The paths played, each timed; a failure is recorded and the others go on."""

    def __init__(self, work: Path):
        from typer.testing import CliRunner

        from sim.cli.app import app

        self.app, self.runner, self.work = app, CliRunner(), work
        self.failed: list[tuple[str, str]] = []
        self.count = 0

    def cli(self, *args, input=None, ok=(0,)):
        """Run ``sim ARGS`` in this process; an exception or another exit code fails."""
        args = [str(a) for a in args]
        r = self.runner.invoke(self.app, args, input=input)
        self.count += 1
        if r.exception is not None and not isinstance(r.exception, SystemExit) \
                or r.exit_code not in ok:
            import traceback
            tb = "".join(traceback.format_exception(*r.exc_info)) if r.exc_info else ""
            self.failed.append(("sim " + " ".join(args), (r.output[-1500:] + tb)[-4000:]))
            print(f"  FAILED: sim {' '.join(args)}", flush=True)
        return r

    def call(self, label, fn, *args, **kw):
        self.count += 1
        try:
            return fn(*args, **kw)
        except Exception as e:      # every failure is reported, then the next path runs
            import traceback
            self.failed.append((label, traceback.format_exc()[-4000:]))
            print(f"  FAILED: {label}: {type(e).__name__}: {e}", flush=True)
            return None


def rule_args(rules) -> list[str]:
    """A ruleset as ``--rules PRESET --rule key=value ...`` (its text form, str(rules))."""
    preset, *changes = str(rules).split(" ")
    args = ["--rules", preset]
    for c in changes:
        args += ["--rule", c]
    return args


def strategy_specs():
    """Every built-in move strategy, montecarlo kept small, and every built-in swap policy
    that needs no file (table and split are played from the swap study's files)."""
    from sim.runs.registry import all_moves, all_swaps

    moves = [("montecarlo(rollouts=3,horizon=60)" if n == "montecarlo" else n)
             for n in all_moves()]
    swaps = [n for n in all_swaps() if n not in ("table", "split")]
    return moves, swaps


def mid_game_position(rules, players, seed):
    """The position half-way through game 0 of a small run (for sim analyze)."""
    from sim.kernel.engine import apply_move
    from sim.kernel.position import to_position
    from sim.runs.runner import RunConfig, record_game

    cfg = RunConfig(games=1, players=players, seed=seed, strategies=["counting"],
                    rules=rules, max_turns=400)
    rec = record_game(cfg, 0)
    st = rec.start.copy()
    for m in rec.moves[:max(0, len(rec.moves) // 2 - 1)]:
        apply_move(st, m)
    return to_position(st, cfg.ruleset)


def table_game(rules, players, seed, opponents):
    """``sim play``'s Table played to the end: the human seat keeps its face-ups (V1: the
    first half) and always makes its first legal move; one hint on the way."""
    import numpy as np

    from reports.game import describe_saved
    from sim.commands.savedgame import record
    from sim.cli.table import Table
    from sim.kernel.layout import CURRENT, OVER, TURN

    t = Table(players, rules, seed, 0, opponents, max_turns=300, hint_rollouts=8)
    t.deal()
    hs = len(t.swap_choices()) // 2
    t.swap((1 << hs) - 1)
    t.opening()
    hinted = False
    while not t.st[OVER] and int(t.st[TURN]) < t.max_turns:
        if int(t.st[CURRENT]) == t.seat:
            if not hinted:
                t.hint()
                hinted = True
            m = t.legal()[0]
        else:
            m = t.bot_move()
        t.play(int(m))
    rec = record(t)
    describe_saved(rec)
    return np.int64(len(rec["moves"]))


def env_game(rules, players, seed):
    """The learning environments (sim.env): batched tables of this ruleset, every seat
    choosing its swap (R5) then playing random legal moves, through auto-resets; a table
    stepped alone as the AEC environment steps it."""
    import numpy as np

    from sim.env.vector import VectorTables
    from sim.kernel.rng import seed_game

    preset, *changes = str(rules).split(" ")
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(seed), 0)
    for swap in ("choose", "highest-up"):
        v = VectorTables(4, players=players, rules=preset, rule=changes, swap=swap,
                         max_turns=300)
        v.reset(seed=seed)
        for _ in range(400):
            v.step(v.random_actions(rng))


def play_paths(p: Paths, rules, players, seed, tag):
    """One ruleset and player count through every command (small counts)."""
    import json

    moves, swaps = strategy_specs()
    ra = rule_args(rules)
    base = ["--players", players, "--seed", seed, *ra]
    work = p.work / tag
    work.mkdir(parents=True, exist_ok=True)
    # run: the lowest-only fast path, each strategy, each swap policy, mixed seats, V1/V2
    p.cli("run", "--games", 300, *base, "--quiet", "--json")
    p.cli("run", "--games", 200, *base, "--quiet", "--json", "--threads", 2, "--batch", 64)
    for m in moves:
        n = 3 if m.startswith("montecarlo") else 60
        p.cli("run", "--games", n, *base, "--strategy", m, "--quiet", "--json")
    for s in swaps:
        p.cli("run", "--games", 60, *base, "--swap", s, "--quiet", "--json")
    mixed = [m for m in moves if not m.startswith("montecarlo")]
    seats = [mixed[(i + seed) % len(mixed)] for i in range(players)]
    p.cli("run", "--games", 100, *base, *sum((["--strategy", s] for s in seats), []),
          "--quiet", "--json", "--no-cycle-stop", "--max-turns", 500)
    mc = ["montecarlo(rollouts=3,horizon=60)"] + ["counting"] * (players - 1)
    p.cli("run", "--games", 2, *base, *sum((["--strategy", s] for s in mc), []), "--quiet",
          "--json")
    # replay: a few games, text for a person
    for g in range(3):
        p.cli("replay", "--game", g, "--games", 3, *base, "--strategy", seats[g % players])
    # compare
    p.cli("compare", "lowest", "counting", "random", "--games", 60, *base, "--quiet", "--json")
    # analyze a mid-game position (sampled and omniscient)
    pos = p.call(f"{tag}: position", mid_game_position, rules, players, seed)
    if pos is not None:
        f = work / "position.json"
        f.write_text(json.dumps(pos))
        p.cli("analyze", f, "--rollouts", 12, "--seed", seed, "--json")
        p.cli("analyze", f, "--rollouts", 8, "--omniscient", "--me", "random",
              "--opponents", "save-specials", "--max-turns", 300)
    # play: the terminal game scripted (swap, a hint, then end of input) and a whole game
    # through its Table; the saved game replayed
    save = work / "game.json"
    p.cli("play", *base, "--opponents", "counting", "--hint-rollouts", 8, "--save", save,
          input="keep\nhint\n")
    if save.exists():
        p.cli("replay", "--file", save)
    # review a game of a run (its swap, then its turns: the swap's and the turns' playouts)
    run_game = work / "run-game.json"
    p.cli("replay", "--game", 1, "--games", 2, *base, "--save", run_game)
    if run_game.exists():
        p.cli("review", run_game, "--seat", 0, "--rollouts", 6, "--quiet", "--json")
    # sim swap: six cards valued by playouts on deals holding them (hand size 3 only)
    if rules.hand_size == 3:
        p.cli("swap", "4", "5", "6", "9", "10", "K", *base, "--deals", 24, "--json",
              ok=(0, 2))
    p.call(f"{tag}: play Table", table_game, rules, players, seed,
           [mixed[(i + 1) % len(mixed)] for i in range(players - 1)])
    p.call(f"{tag}: learning tables", env_game, rules, players, seed)
    # tune (tiny)
    p.cli("tune", "counting", "--against", "lowest,random", "--players", players, "--seed",
          seed, *ra, "--trials", 2, "--games-per-trial", 24, "--fresh-games", 24, "--quiet",
          "--json", "--param", "pickup_limit")
    # the swap study (hand size 3 only, H12) and its two file policies
    if rules.hand_size == 3:
        out = work / "study"
        r = p.cli("study", "swap", "--games", 300, "--h2h-games", 40, *base, "--out", out,
                  "--quiet", "--json")
        if r.exit_code == 0:
            for spec in (f"split(file={out / 'split.csv'})",
                         f"table(file={out / 'swap_values.csv'})"):
                p.cli("run", "--games", 60, *base, "--swap", spec, "--quiet", "--json")
    else:
        p.cli("study", "swap", "--games", 50, *base, "--out", work / "study", ok=(1, 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path,
                    default=Path.home() / ".cache" / "shithead-sim-boundscheck",
                    help="cache folder of the bounds-checked code (never the normal one)")
    ap.add_argument("--random", type=int, default=8, help="random option sets (seeded)")
    ap.add_argument("--seed", type=int, default=20, help="seed of the random option sets")
    ap.add_argument("--quick", action="store_true", help="2 random option sets")
    ap.add_argument("--work", type=Path, default=None, help="folder for outputs (a temp dir)")
    args = ap.parse_args(argv)
    _setup_environment(args.cache.expanduser())
    import random
    import tempfile

    t0 = time.perf_counter()
    _check_bounds_are_checked()
    from sim.kernel.ruleset import PRESETS, Ruleset
    from tests.rulesets import random_players, random_ruleset

    cases = []
    for name, rules in PRESETS.items():
        cases.append((f"{name}-3p", rules, 3))
        cases.append((f"{name}-{rules.max_players()}p", rules, rules.max_players()))
    cases.append(("seed-hand4-4p", Ruleset.build("seed", {"hand_size": 4}), 4))
    cases.append(("boothj5-hand4-2p", Ruleset.build("boothj5", {"hand_size": 4}),
                  2))
    cases.append(("seed-v1-v2-jokers-3p", Ruleset.build(
        "seed", {"choose_face_ups": True, "last_player_loses": True, "jokers": "always"}), 3))
    # H18-H20: two decks at 8 players (counts up to 8 with four_burns off), play on and out
    # before the four on two decks at 7 (masters-of-shithead-3p: play on with one deck)
    cases.append(("seed-decks2-nofour-hand4-8p", Ruleset.build(
        "seed", {"decks": 2, "four_burns": False, "hand_size": 4}), 8))
    cases.append(("playon-outburn-decks2-7p", Ruleset.build(
        "classic", {"decks": 2, "play_on": True, "out_before_burn": True,
                    "faceup_pickup": "one_then_rank", "jokers": "six_players"}), 7))
    rng = random.Random(args.seed)
    for i in range(2 if args.quick else args.random):
        rules = random_ruleset(rng)
        cases.append((f"random{i}", rules, random_players(rules, rng)))
    with tempfile.TemporaryDirectory(prefix="boundscheck-") as tmp:
        p = Paths(args.work or Path(tmp))
        for k, (tag, rules, players) in enumerate(cases):
            t = time.perf_counter()
            print(f"[{k + 1}/{len(cases)}] {tag}: {players} players, rules {rules}", flush=True)
            play_paths(p, rules, players, seed=k, tag=tag)
            print(f"    {time.perf_counter() - t:.1f} s", flush=True)
    took = time.perf_counter() - t0
    print(f"{p.count} paths in {len(cases)} rulesets, {took:.0f} s; "
          f"{len(p.failed)} failed", flush=True)
    for label, text in p.failed:
        print(f"\n=== {label}\n{text}")
    return 1 if p.failed else 0


if __name__ == "__main__":
    sys.exit(main())
