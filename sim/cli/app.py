"""The ``sim`` command line (typer): run, replay, strategies."""
from __future__ import annotations

import importlib
import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Simulate the card game Shithead (rules: RULES.md R1-R26, V1, V2, "
                       "house rules H1-H17: see `sim rules`).")

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9}


def parse_count(text: str, option: str = "--games") -> int:
    """``1e6``, ``1_000_000``, ``250k``, ``2M`` -> a positive int; ``ValueError`` otherwise."""
    raw = str(text).strip().lower().replace("_", "").replace(",", "")
    mult = 1
    if raw and raw[-1] in _SUFFIX:
        raw, mult = raw[:-1], _SUFFIX[raw[-1]]
    try:
        if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?", raw):
            raise ValueError
        value = float(raw) * mult
    except ValueError:
        raise ValueError(f"{option}: expected a number of games such as 1e6, 1_000_000 or "
                         f"250k, got {text!r}") from None
    if value != int(value):
        raise ValueError(f"{option}: expected a whole number, got {text!r}")
    if value < 1:
        raise ValueError(f"{option}: expected at least 1, got {text!r}")
    return int(value)


def _fail(message: str, code: int = 2):
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def ruleset(rules: str, rule: Optional[List[str]], choose_face_ups=False,
            last_player_loses=False):
    """``--rules PRESET``, every ``--rule key=value`` and the ``--v1``/``--v2`` shorthands as
    one :class:`~sim.kernel.ruleset.Ruleset` (``ValueError`` naming what is wrong)."""
    from sim.kernel.ruleset import Ruleset

    overrides = list(rule or [])
    if choose_face_ups:
        overrides.append("choose_face_ups=true")
    if last_player_loses:
        overrides.append("last_player_loses=true")
    try:
        return Ruleset.build(rules, overrides)
    except ValueError as e:
        raise ValueError(f"--rules/--rule: {e}") from None


def _config(games, players, seed, strategy, swap, rules, choose_face_ups, last_player_loses,
            max_turns, threads, batch=100_000, rule=None, cycle_stop=True):
    from sim.runs.runner import RunConfig

    return RunConfig(games=parse_count(games), players=players, seed=seed,
                     strategies=strategy or ["lowest"], swaps=swap or [None],
                     rules=ruleset(rules, rule, choose_face_ups, last_player_loses),
                     max_turns=max_turns, threads=threads, batch=batch,
                     cycle_stop=cycle_stop)


# Options shared by run and replay.
GAMES = typer.Option("10k", "--games", "-n", help="Number of games: 1e6, 1_000_000, 250k.")
PLAYERS = typer.Option(4, "--players", "-p", help="Players, 2 to 6 (R1).")
SEED = typer.Option(0, "--seed", help="Seed of the run: same seed and options, same results.")
STRATEGY = typer.Option(None, "--strategy", "-s", help="Strategy: once for all seats, or once "
                        "per seat in seat order (see `sim strategies`). Default: lowest.")
SWAP = typer.Option(None, "--swap", help="Swap policy (R5/V1): once for all seats or once per "
                    "seat. Default: each strategy's own.")
RULES = typer.Option("seed", "--rules", help="Rules preset: seed (RULES.md §1-9), classic, "
                     "masters-of-shithead, boothj5 (see `sim rules`).")
RULE = typer.Option(None, "--rule", "-r", help="A house-rule option over the preset, "
                    "key=value (repeatable), e.g. --rule ten_anywhere=true (see `sim rules`).")
V1 = typer.Option(False, "--choose-face-ups", "--v1", help="Variant V1: choose 3 face-ups of 6.")
V2 = typer.Option(False, "--last-player-loses", "--v2",
                  help="Variant V2: play to the last; the result is the finishing order.")
CAP = typer.Option(10_000, "--max-turns", help="Turns after which a game is unfinished (R25).")
CYCLE_STOP = typer.Option(True, "--cycle-stop/--no-cycle-stop", help="Stop a game as soon as "
                          "a position repeats, which proves it endless: recorded as unfinished "
                          "(reason cycle, not cap). Only when every seat's strategy is pure "
                          "(`sim strategies`); never changes a result, only the turns of "
                          "unfinished games.")
THREADS = typer.Option(None, "--threads", "-t", help="Threads (default: all cores). The "
                       "results do not depend on it.")


def _debug_mode():
    """``--debug``: Numba compiles nothing when ``NUMBA_DISABLE_JIT`` is set before it is
    imported, which the command has not done yet (sim.kernel.compiler.DEBUG)."""
    import os

    if "numba" in sys.modules:
        import numba

        if not numba.config.DISABLE_JIT:
            _fail("--debug: Numba is already loaded in this process; set NUMBA_DISABLE_JIT=1 "
                  "before starting Python instead")
    os.environ["NUMBA_DISABLE_JIT"] = "1"


@app.command()
def run(games: str = GAMES, players: int = PLAYERS, seed: int = SEED,
        strategy: Optional[List[str]] = STRATEGY, swap: Optional[List[str]] = SWAP,
        rules: str = RULES, rule: Optional[List[str]] = RULE, choose_face_ups: bool = V1,
        last_player_loses: bool = V2, max_turns: int = CAP, threads: Optional[int] = THREADS,
        cycle_stop: bool = CYCLE_STOP,
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for per-game "
                                           "records (Parquet), manifest and summary."),
        resume: bool = typer.Option(False, "--resume", help="Continue the run saved in --out."),
        batch: str = typer.Option("100k", "--batch", help="Games per batch (and per file)."),
        backend: str = typer.Option("local", "--backend", help="local (this machine) or dask."),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Address of a Dask "
                                                "scheduler, e.g. tcp://host:8786."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Start a local Dask "
                                              "cluster with this many worker processes."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
        debug: bool = typer.Option(False, "--debug", help="Run uncompiled, as plain Python "
                                   "(NUMBA_DISABLE_JIT=1), on one thread: a breakpoint in a "
                                   "strategy stops there. About 300 times slower; same games.")):
    """Play many games and print win rates per seat and per strategy, with 95% CIs."""
    if debug:
        _debug_mode()
        threads = 1
    from sim.runs.runner import RunError, run as run_games

    engine = None
    try:
        cfg = _config(games, players, seed, strategy, swap, rules, choose_face_ups,
                      last_player_loses, max_turns, threads, parse_count(batch, "--batch"),
                      rule, cycle_stop)
        engine = _backend(backend, scheduler, workers, threads)
        if not as_json:
            _import_meanwhile("reports.text")
        t0 = time.perf_counter()
        if not quiet and not as_json and sys.stderr.isatty():
            with _progress_bar() as bar:
                task = bar.add_task("games", total=cfg.games)
                tally = run_games(cfg, progress=lambda done: bar.update(task, completed=done),
                                  out=out, resume=resume, backend=engine)
        else:
            tally = run_games(cfg, out=out, resume=resume, backend=engine)
        seconds = time.perf_counter() - t0
    except (RunError, ValueError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        saved = f"; the finished batches are in {out}, continue with --resume" if out else ""
        _fail(f"interrupted: no summary{saved}", code=130)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()
    if as_json:
        result = tally.to_dict()
        result["seconds"] = seconds
        typer.echo(json.dumps(result, indent=2))
    else:
        from reports.text import print_summary
        print_summary(tally, seconds)


def _import_meanwhile(module: str) -> None:
    """Import ``module`` on a thread of its own, while this one plays the games: the core
    releases the GIL, so the import runs on another core (the summary's ``rich``, 40 ms of a
    warm ``sim run``'s start-up). Importing it again later waits for this one to finish."""
    threading.Thread(target=importlib.import_module, args=(module,), daemon=True).start()


def _backend(name, scheduler, workers, threads):
    from sim.runs.runner import RunError

    if name == "local":
        if scheduler or workers:
            raise RunError("--scheduler and --workers go with --backend dask")
        return None
    if name != "dask":
        raise RunError(f"--backend: expected local or dask, got {name!r}")
    if scheduler and workers:
        raise RunError("--backend dask: give --scheduler (an existing cluster) or --workers "
                       "(a local one), not both")
    if workers is not None and workers < 1:
        raise RunError(f"--workers: expected at least 1, got {workers}")
    from sim.runs.backends import DaskBackend
    return DaskBackend(scheduler=scheduler, workers=workers, threads=threads)


class _maybe_progress:
    """A progress bar on a terminal (stderr), else nothing; yields a callback(done)."""

    def __init__(self, wanted, total, label="games"):
        self.bar = _progress_bar() if wanted and sys.stderr.isatty() else None
        self.total, self.label = total, label

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.__enter__()
        task = self.bar.add_task(self.label, total=self.total)
        return lambda done: self.bar.update(task, completed=done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


def _progress_bar():
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                               TimeRemainingColumn)
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            return Text(f"{task.speed:,.0f} games/s" if task.speed else "")

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), Rate(), TimeRemainingColumn(), transient=True)


@app.command()
def compare(strategies: List[str] = typer.Argument(..., help="Two or more strategies."),
            players: int = PLAYERS, games: str = typer.Option("100k", "--games", "-n",
                                                             help="Games in all (deals x "
                                                             "rotations)."),
            seed: int = SEED, rules: str = RULES, rule: Optional[List[str]] = RULE,
            choose_face_ups: bool = V1, last_player_loses: bool = V2, max_turns: int = CAP,
            threads: Optional[int] = THREADS, cycle_stop: bool = CYCLE_STOP,
            until_clear: bool = typer.Option(False, "--until-clear", help="Play in blocks "
                                             "until the leader is ahead of every other "
                                             "strategy (anytime-valid confidence sequences "
                                             "of the paired per-deal differences)."),
            max_games: Optional[str] = typer.Option(None, "--max-games", help="Cap for "
                                                    "--until-clear (default: --games)."),
            independent: bool = typer.Option(False, "--independent", help="Fresh deals for "
                                              "every rotation (no duplicate deals)."),
            seating: str = typer.Option("balanced", "--seating", help="balanced: every deal "
                                        "under one of many cyclic orders of the strategies, "
                                        "so that each follows every other equally often; "
                                        "fixed: the order given, each always after the "
                                        "same neighbour (3+ strategies)."),
            out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for "
                                               "per-game records (Parquet), compare.json, "
                                               "manifest and summary."),
            as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
            quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """A tournament: seats rotated, each deal replayed under every rotation (duplicate deals);
    win rates with 95% intervals over deals, the leader against each other strategy,
    head-to-head, Plackett-Luce ratings, seat and starter effects."""
    from sim.studies.compare import compare as play, save
    from sim.runs.runner import RunError

    try:
        cfg = _config("1", players, seed, strategies[:1], None, rules, choose_face_ups,
                      last_player_loses, max_turns, threads, rule=rule)
        total = parse_count(games)
        cap = parse_count(max_games, "--max-games") if max_games else total
        t0 = time.perf_counter()
        with _maybe_progress(not as_json and not quiet,
                             cap if until_clear else total) as progress:
            t, info = play(list(strategies), players=players, games=total, seed=seed,
                           rules=cfg.rules, max_turns=max_turns, threads=threads,
                           independent=independent, until_clear=until_clear, max_games=cap,
                           progress=progress, out=out, cycle_stop=cycle_stop,
                           seating=seating)
        seconds = time.perf_counter() - t0
        result = t.to_dict()
        result["info"] = info
        if out is not None:
            save(out, t, info, {"strategies": list(strategies), "players": players,
                                "games": total, "seed": seed, "rules": cfg.rules,
                                "until_clear": until_clear, "max_games": cap,
                                "independent": independent, "max_turns": max_turns,
                                "cycle_stop": cycle_stop, "seating": seating}, result)
    except (RunError, ValueError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _fail("interrupted: no result", code=130)
    if as_json:
        result["seconds"] = seconds
        typer.echo(json.dumps(result, indent=2, default=float))
    else:
        from reports.text import print_compare
        print_compare(result, seconds)


study_app = typer.Typer(no_args_is_help=True, help="Studies that answer one question.")
app.add_typer(study_app, name="study")


@study_app.command("swap")
def study_swap(players: int = PLAYERS,
               games: str = typer.Option("100k", "--games", "-n", help="Games that fit the "
                                         "split model (random swaps)."),
               h2h_games: Optional[str] = typer.Option(None, "--h2h-games", help="Deals per "
                                                       "policy in the head-to-head (default "
                                                       "games/5)."),
               seed: int = SEED, rules: str = RULES, rule: Optional[List[str]] = RULE,
               choose_face_ups: bool = V1, last_player_loses: bool = V2, max_turns: int = CAP,
               threads: Optional[int] = THREADS, cycle_stop: bool = CYCLE_STOP,
               strategy: str = typer.Option("lowest", "--strategy", "-s",
                                            help="Move strategy of every seat."),
               out: Path = typer.Option(..., "--out", "-o", help="Folder for study.json, "
                                        "split.csv, policy.csv, swap_values.csv, games/ "
                                        "and the summary."),
               as_json: bool = typer.Option(False, "--json", help="Print the study as JSON."),
               quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """Which face-up cards should I keep? The value of each split of the six cards (face up
    or in hand), the split policy derived from it, and its head-to-head against the old
    triple table and every built-in swap policy."""
    from sim.runs.runner import RunError
    from sim.studies.swapstudy import swap_study

    try:
        cfg = _config("1", players, seed, [strategy], None, rules, choose_face_ups,
                      last_player_loses, max_turns, threads, rule=rule)
        t0 = time.perf_counter()
        n = parse_count(games)
        h2h = parse_count(h2h_games, "--h2h-games") if h2h_games else None
        with _maybe_progress(not (as_json or quiet), n, "value games") as progress:
            study = swap_study(out, players=players, games=n, seed=seed, rules=cfg.rules,
                               strategy=strategy, threads=threads, progress=progress,
                               h2h_games=h2h, max_turns=max_turns, cycle_stop=cycle_stop)
        study["seconds"] = time.perf_counter() - t0
    except (RunError, ValueError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _fail("interrupted: no result", code=130)
    if as_json:
        typer.echo(json.dumps(study, indent=2, default=float))
    else:
        from reports.text import print_study
        print_study(study)


@app.command()
def replay(game: Optional[int] = typer.Option(None, "--game", "-g", help="Index of the game "
                                               "(from 0)."),
           games: str = GAMES, players: int = PLAYERS, seed: int = SEED,
           strategy: Optional[List[str]] = STRATEGY, swap: Optional[List[str]] = SWAP,
           rules: str = RULES, rule: Optional[List[str]] = RULE, choose_face_ups: bool = V1,
           last_player_loses: bool = V2, max_turns: int = CAP, cycle_stop: bool = CYCLE_STOP,
           file: Optional[Path] = typer.Option(None, "--file", help="Show a game saved by "
                                               "sim play instead.")):
    """Show one game of a run turn by turn (same options as run, plus --game), or a game
    saved by `sim play` (--file)."""
    from sim.runs.replay import describe
    from sim.runs.runner import RunError, record_game

    if file is not None:
        from sim.cli.play import describe_saved, load
        try:
            lines = describe_saved(load(file))
        except ValueError as e:
            _fail(str(e))
        typer.echo("\n".join(lines))
        return
    try:
        if game is None:
            raise RunError("--game: give the index of a game of the run (or --file PATH for a "
                           "game saved by sim play)")
        cfg = _config(games, players, seed, strategy, swap, rules, choose_face_ups,
                      last_player_loses, max_turns, None, rule=rule, cycle_stop=cycle_stop)
        if game < 0:
            raise RunError(f"--game: expected a game index of 0 or more, got {game}")
        cfg.games = max(cfg.games, game + 1)
        lines = describe(cfg, game, record_game(cfg, game))
    except (RunError, ValueError) as e:
        _fail(str(e))
    typer.echo("\n".join(lines))


@app.command("rules")
def rules_command(preset: Optional[str] = typer.Argument(None, help="Show this preset only."),
                  as_json: bool = typer.Option(False, "--json", help="Print as JSON.")):
    """List the rules presets and the house-rule options (RULES.md §11) with their values."""
    from sim.kernel.ruleset import OPTIONS, PRESET_NOTES, PRESETS, _text

    names = list(PRESETS)
    if preset is not None:
        if preset not in PRESETS:
            _fail(f"unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
        names = [preset]
    if as_json:
        typer.echo(json.dumps({n: PRESETS[n].to_dict() for n in names}, indent=2))
        return
    typer.echo("Presets (--rules NAME):")
    for n in names:
        typer.echo(f"  {n:<20} {PRESET_NOTES[n]}")
    typer.echo("\nOptions (--rule key=value), value under each preset:")
    width = max(len(n) for n in names)
    typer.echo(f"  {'rule':<5} {'key':<20} " + " ".join(f"{n[:width]:<{width}}" for n in names))
    for opt in OPTIONS:
        values = [_text(getattr(PRESETS[n], opt.key)) for n in names]
        cells = " ".join(f"{v[:width]:<{width}}" if len(v) <= width else v for v in values)
        typer.echo(f"  {opt.rule:<5} {opt.key:<20} {cells}")
        typer.echo(f"  {'':<5} {'':<20} {opt.meaning}")
    typer.echo("\nExample: sim run --rules classic --rule seven_lower=true --rule skip_rank=8")


@app.command()
def strategies():
    """List the strategies and swap policies."""
    from sim.runs.registry import all_moves, all_swaps

    def params(s):
        if not s.params:
            return ""
        return " Parameters: " + ", ".join(
            f"{k}={d[0]!r}" + (f" ({d[1]}..{d[2]})" if d[1] is not None and d[1] > -1e300
                               else "") for k, d in s.params.items()) + "."

    typer.echo("Strategies (--strategy NAME, NAME(key=value), FILE.py:function):")
    for s in all_moves().values():
        pure = "; pure" if s.pure else ""
        typer.echo(f"  {s.name:<14} {s.description} [default swap: {s.swap}{pure}]{params(s)}")
    typer.echo("Swap policies (--swap):")
    for s in all_swaps().values():
        typer.echo(f"  {s.name:<14} {s.description}{params(s)}")
    typer.echo("pure: a function of the position alone (no turn counter, no random draws); "
               "when every seat is pure, a game whose position repeats is stopped as endless "
               "(--no-cycle-stop to play it to --max-turns).")
    typer.echo("Writing your own: docs/strategies.md")


@app.command()
def report(run_dir: Path = typer.Argument(..., help="Folder saved by sim run, sim compare or "
                                          "sim study swap with --out DIR."),
           output: Optional[Path] = typer.Option(None, "--output", "-o", help="HTML file to "
                                                 "write (default: DIR/report.html); its PNG "
                                                 "and CSV files go to <name>_files/ beside it.")):
    """Write an HTML report of a saved run: win rates with 95% CIs, seat effect, game length,
    pick-ups; the tournament and the swap study when the folder holds them."""
    from reports.html import write_report

    try:
        files = write_report(run_dir, output)
    except ValueError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write the report: {e.strerror or e}"
              + (f": {e.filename}" if getattr(e, "filename", None) else ""))
    pngs = sum(f.suffix == ".png" for f in files)
    csvs = sum(f.suffix == ".csv" for f in files)
    typer.echo(f"wrote {files[0]} ({pngs} plots and {csvs} tables also in "
               f"{files[0].parent / (files[0].stem + '_files')})")


def _read_json(path: str, what: str = "position"):
    """A JSON document from a file, or from stdin when ``path`` is ``-``; ``ValueError``
    saying what is wrong."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).expanduser().read_text()
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror or e}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{'stdin' if path == '-' else path}: not valid JSON ({e.msg} at line "
                         f"{e.lineno}, column {e.colno})") from None


def _given(ctx: typer.Context, *names) -> bool:
    """Did the user give any of these options (rather than leave their defaults)?"""
    return any(getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in
               ("DEFAULT", "DEFAULT_MAP") for name in names)


@app.command("analyze")
def analyze_command(
        ctx: typer.Context,
        position: str = typer.Argument(..., help="A position (POSITION.md JSON) file, or - for "
                                       "stdin. Hidden cards may be written \"?\"."),
        rollouts: str = typer.Option("1000", "--rollouts", help="Worlds sampled; every legal "
                                     "move is played out once in each (with --until-clear: "
                                     "worlds per block)."),
        seed: int = SEED,
        opponents: str = typer.Option("counting", "--opponents", help="Strategy of the other "
                                      "seats in the playouts (default counting: the strongest "
                                      "fast built-in; montecarlo is too slow to play out with)."),
        me: Optional[str] = typer.Option(None, "--me", help="Strategy of the seat to move after "
                                         "its move, in the playouts (default: --opponents)."),
        rules: str = RULES, rule: Optional[List[str]] = RULE,
        omniscient: bool = typer.Option(False, "--omniscient", help="Use the hidden cards "
                                        "written in the position (face-downs, stock, other "
                                        "hands) instead of re-dealing them."),
        until_clear: bool = typer.Option(False, "--until-clear", help="Play blocks of "
                                         "--rollouts worlds until the best move separates from "
                                         "the second (paired, corrected for repeated looks) or "
                                         "--max-rollouts is reached."),
        max_rollouts: Optional[str] = typer.Option(None, "--max-rollouts", help="Cap of worlds "
                                                   "for --until-clear (default 20 blocks)."),
        max_turns: int = typer.Option(2000, "--max-turns", help="Turns a playout may last "
                                      "before it counts as unfinished."),
        as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON.")):
    """Every legal move of a position with its estimated win chance (V2: expected finishing
    place) and a 95% interval, best first, from playouts in worlds re-dealt from what the
    seat to move may know (R26)."""
    from sim.studies.analysis import describe, position_line, run_analysis, state_of

    try:
        data = _read_json(position)
        given = ruleset(rules, rule) if _given(ctx, "rules", "rule") else None
        n = parse_count(rollouts, "--rollouts")
        cap = parse_count(max_rollouts, "--max-rollouts") if max_rollouts else None
        a = run_analysis(data, rules=given, omniscient=omniscient, rollouts=n, seed=seed,
                         opponents=opponents, me=me, until_clear=until_clear,
                         max_rollouts=cap, max_turns=max_turns)
        line = position_line(state_of(data)[0])
    except ValueError as e:
        _fail(str(e))
    if as_json:
        typer.echo(json.dumps({**a.info(), "position": position, "moves": a.rows()}, indent=2,
                              default=float))
    else:
        typer.echo("\n".join(describe(a, line)))


@app.command("play")
def play_command(
        players: int = PLAYERS,
        opponents: Optional[List[str]] = typer.Option(None, "--opponents", help="The bots' "
                                                      "strategy: once for every bot or once per "
                                                      "bot seat in seat order (default "
                                                      "counting)."),
        rules: str = RULES, rule: Optional[List[str]] = RULE, choose_face_ups: bool = V1,
        last_player_loses: bool = V2,
        seed: Optional[int] = typer.Option(None, "--seed", help="Deal the cards of this seed "
                                           "again (game 0 of `sim run --seed S`); default: a "
                                           "new seed, printed."),
        seat: int = typer.Option(0, "--seat", help="Your seat (0 to players-1)."),
        save: Optional[Path] = typer.Option(None, "--save", help="File to save the game to "
                                            "(default ~/.cache/shithead-sim/games/"
                                            "<time>-seed<seed>.json); `sim replay --file` "
                                            "shows it."),
        hint_rollouts: str = typer.Option("500", "--hint-rollouts", help="Worlds per `hint` "
                                          "(sim analyze --rollouts)."),
        max_turns: int = CAP):
    """Play a game in the terminal against bots. Type moves in plain words (`7 7`, `pickup`,
    `add K`, `blind`), `hint` for sim analyze's answer, `quit` to stop. Without --seed a new
    deal; the game is saved for `sim replay --file`. Reads one move a line when stdin is not
    a terminal."""
    import secrets

    from sim.cli.play import Table, Terminal, play

    try:
        if seed is None:
            seed = secrets.randbelow(2**31)                 # a new deal, said on screen
        table = Table(players, ruleset(rules, rule, choose_face_ups, last_player_loses), seed,
                      seat, list(opponents or ["counting"]), max_turns,
                      parse_count(hint_rollouts, "--hint-rollouts"))
        record = play(table, Terminal(), save)
    except ValueError as e:
        _fail(str(e))
    if record["reason"] == "interrupted":
        raise typer.Exit(130)                               # Ctrl-C: saved, then stopped


@app.command()
def tune(strategy: str = typer.Argument(..., help="The strategy to tune: a built-in name, "
                                        "FILE.py:FUNCTION or package.module:FUNCTION (with "
                                        "values to start from: 'counting(pickup_limit=2)')."),
         against: str = typer.Option(..., "--against", "-a", help="The field: strategies "
                                     "separated by commas, filling the other seats in turn."),
         players: int = PLAYERS,
         trials: int = typer.Option(100, "--trials", help="Trials (parameter sets) in all."),
         games_per_trial: str = typer.Option("2000", "--games-per-trial", help="Games per "
                                             "trial: the same deals for every trial."),
         fresh_games: Optional[str] = typer.Option(None, "--fresh-games", help="Games of the "
                                                   "final check on fresh deals, for the best "
                                                   "and for the defaults (default: "
                                                   "--games-per-trial)."),
         param: Optional[List[str]] = typer.Option(None, "--param", help="Tune only this "
                                                   "parameter, NAME or NAME=LOW:HIGH "
                                                   "(repeatable; default: every parameter "
                                                   "with a finite range)."),
         seed: int = SEED, rules: str = RULES, rule: Optional[List[str]] = RULE,
         max_turns: int = CAP, threads: Optional[int] = THREADS, cycle_stop: bool = CYCLE_STOP,
         out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for every "
                                            "trial (trials.jsonl), tune.json, manifest and "
                                            "summary."),
         resume: bool = typer.Option(False, "--resume", help="Continue the tuning saved in "
                                     "--out."),
         as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """The best parameters of a strategy against a field: optuna (TPE) over the ranges the
    strategy declares, every trial on the same duplicate deals, then the best and the
    defaults re-measured on fresh deals (no winner's curse)."""
    from sim.runs.runner import RunError
    from sim.studies.tune import tune as run_tune

    try:
        rs = ruleset(rules, rule)
        field = [s.strip() for s in against.split(",") if s.strip()]
        per_trial = parse_count(games_per_trial, "--games-per-trial")
        fresh = parse_count(fresh_games, "--fresh-games") if fresh_games else per_trial
        deals, fdeals = per_trial // players, max(1, fresh // players)
        t0 = time.perf_counter()
        with _maybe_progress(not (as_json or quiet),
                             trials * deals * players + 2 * fdeals * players) as progress:
            result = run_tune(strategy, field, players=players, trials=trials,
                              games_per_trial=per_trial, fresh_games=fresh, seed=seed,
                              rules=rs, threads=threads or 1, max_turns=max_turns,
                              params=param, out=out, resume=resume, progress=progress,
                              cycle_stop=cycle_stop)
        result["seconds"] = time.perf_counter() - t0
    except (RunError, ValueError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _fail("interrupted" + (f"; the finished trials are in {out}, continue with --resume"
                               if out else ""), code=130)
    if as_json:
        typer.echo(json.dumps(result, indent=2, default=float))
        return
    f = result["fresh"]

    def line(label, r):
        return (f"  {label:<9} {100 * r['estimate']:6.2f}%  (95% CI {100 * r['ci_low']:.2f}% - "
                f"{100 * r['ci_high']:.2f}%)  {r['spec']}")
    best = result["best"]
    typer.echo(f"{len(result['trials'])} trials of {result['options']['games_per_trial']:,} "
               f"games each against {', '.join(field)} ({players} players); best trial "
               f"#{best['number']}: {100 * best['value']:.2f}% on the trials' deals.")
    what = "place share" if rs.last_player_loses else "win rate"
    typer.echo(f"Fresh deals that no trial saw ({f['games']:,} games each), {what} of the "
               f"tuned seat:")
    typer.echo(line("best", f["best"]))
    typer.echo(line("defaults", f["default"]))
    d = f["difference"]
    typer.echo(f"  best - defaults: {100 * d['estimate']:+.2f} points (95% CI "
               f"{100 * d['ci_low']:+.2f} .. {100 * d['ci_high']:+.2f}, paired over deals, "
               f"p = {d['p_value']:.3g})")
    if f.get("same"):
        typer.echo("The best trial is the defaults: nothing to change.")
    elif f["better"]:
        typer.echo(f"Use: '{f['best']['spec']}'")
    else:
        typer.echo(f"No clear improvement over the defaults (the interval includes 0); the "
                   f"best found was '{f['best']['spec']}'")


def main():  # console script entry point
    """``sim``: the typer app, with Python's garbage collector tuned for a short command.

    Importing Numba and loading compiled code create about a million objects, none of them
    garbage: the collector's default thresholds ran many full passes over them during
    start-up, and one more at exit. Measured on ``sim run --games 1000`` (warm cache, median
    of 7): 0.84 s as it was, 0.71 s with the objects frozen at exit, 0.65 s with the first
    generation collected every 100,000 allocations instead of 700 as well. Cycles are still
    collected (less often), so memory stays flat in long runs; frozen objects are not
    finalised at exit, which matters only for resources left open (none are: every file is
    closed by its ``with``, and standard output is flushed here).
    """
    import gc

    gc.set_threshold(100_000, 20, 20)
    try:
        app()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()       # the collection at exit would walk every object for nothing


if __name__ == "__main__":
    main()
