"""The commands that answer a question with many games: ``sim compare``, ``sim study swap``
and ``sim tune``."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer

from sim.cli.options import (
    CAP, CYCLE_STOP, PLAYERS, QUIET, RULE, RULES, SEED, THREADS, V1, V2, fail, json_option,
    maybe_progress, out_option, parse_count, phase_of, resume_option, ruleset, run_config,
    say_estimate,
)


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
            out: Optional[Path] = out_option("per-game records (Parquet), compare.json, "
                                             "manifest and summary"),
            resume: bool = resume_option("comparison"), as_json: bool = json_option(),
            quiet: bool = QUIET):
    """A fair tournament of strategies on duplicate deals."""
    from sim.runs import folder
    from sim.studies.compare import check_field, compare as play, estimate_plan, save
    from sim.runs.partial import Interrupted
    from sim.runs.runner import RunError

    partial = None
    try:
        cfg = run_config("1", players, seed, strategies[:1], None, rules, choose_face_ups,
                         last_player_loses, max_turns, threads, rule=rule)
        total = parse_count(games)
        cap = parse_count(max_games, "--max-games") if max_games else total
        check_field(strategies)                 # before the estimate: nothing played yet
        folder.check_resume(resume, out, "comparison")
        t0 = time.perf_counter()
        try:
            say_estimate(estimate_plan(cfg, list(strategies), cap if until_clear else total),
                         threads, quiet or as_json)
            t0 = time.perf_counter()        # reset after the estimate (it compiles)
            with maybe_progress(not as_json and not quiet,
                                cap if until_clear else total) as progress:
                t, info = play(list(strategies), players=players, games=total, seed=seed,
                               rules=cfg.rules, max_turns=max_turns, threads=threads,
                               independent=independent, until_clear=until_clear,
                               max_games=cap, progress=progress, out=out,
                               cycle_stop=cycle_stop, seating=seating, resume=resume)
        except Interrupted as e:
            t, info = e.partial.result
            partial = "interrupted" + (f"; the finished blocks are in {out}, continue with "
                                       f"--resume" if out else "")
            if not t.games:
                fail("interrupted before a deal was played under every rotation"
                     + (f"; continue with --resume (--out {out})" if out else ""), code=130)
        seconds = time.perf_counter() - t0
        result = t.to_dict()
        result["info"] = info
        if out is not None:
            save(out, t, info, result)
    except (RunError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted" + (f"; continue with --resume (--out {out})" if out else ""),
             code=130)
    if partial:
        result["partial"] = partial
    if as_json:
        from sim.cli import jsonout
        asked = {"strategies": list(strategies), "players": players, "games": total,
                 "seed": seed, "rules": cfg.rules, "until_clear": until_clear,
                 "max_games": cap, "independent": independent, "max_turns": max_turns,
                 "cycle_stop": cycle_stop, "seating": seating, "threads": threads,
                 "out": str(out) if out else None}
        jsonout.echo("compare", cfg.ruleset, asked, {**result, "seconds": seconds},
                     default=float)
    else:
        from reports.text import print_compare
        if partial:
            typer.echo(f"PARTIAL ({partial}): {t.games:,} of {total:,} games")
        print_compare(result, seconds)
    if partial:
        raise typer.Exit(130)


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
               out: Path = out_option("study.json, split.csv, policy.csv, swap_values.csv, "
                                      "games/ and the summary", required=True),
               resume: bool = resume_option("study", " (same options)"),
               as_json: bool = json_option("the study"), quiet: bool = QUIET):
    """Which face-up cards to keep, measured over many games."""
    from sim.runs.partial import Interrupted
    from sim.runs.runner import RunError
    from sim.studies.swapstudy import planned_games, swap_study

    try:
        cfg = run_config("1", players, seed, [strategy], None, rules, choose_face_ups,
                         last_player_loses, max_turns, threads, rule=rule)
        t0 = time.perf_counter()
        n = parse_count(games)
        h2h = parse_count(h2h_games, "--h2h-games") if h2h_games else None
        say_estimate([(cfg, planned_games(n, h2h))], threads, quiet or as_json)
        with maybe_progress(not (as_json or quiet), n, "value games") as progress:
            study = swap_study(out, players=players, games=n, seed=seed, rules=cfg.rules,
                               strategy=strategy, threads=threads, progress=progress,
                               h2h_games=h2h, max_turns=max_turns, cycle_stop=cycle_stop,
                               resume=resume, phase=phase_of(progress))
        study["seconds"] = time.perf_counter() - t0
    except Interrupted as e:
        _study_partial(e.partial, out, as_json, time.perf_counter() - t0, cfg.ruleset)
    except (RunError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    if as_json:
        from sim.cli import jsonout
        asked = {"players": players, "games": n, "h2h_games": h2h, "seed": seed,
                 "rules": cfg.rules, "strategy": strategy, "max_turns": max_turns,
                 "cycle_stop": cycle_stop, "threads": threads, "out": str(out)}
        jsonout.echo("study-swap", cfg.ruleset, asked, study, default=float)
    else:
        from reports.text import print_study
        print_study(study)


def _study_partial(partial, out, as_json, seconds, ruleset):
    """Ctrl-C in the swap study: the values stage's games so far (a run's summary, labelled
    PARTIAL) and the head-to-heads finished; exit 130."""
    tally, h2h = partial.result["tally"], partial.result["head_to_head"]
    what = (f"interrupted in the {partial.stage} stage; the games so far are in {out}, "
            f"continue with --resume")
    if as_json:
        result = tally.to_dict()
        result["partial"] = what
        result["head_to_head"] = h2h
        from sim.cli import jsonout
        jsonout.echo("study-swap", ruleset, {"out": str(out)},
                     {**result, "seconds": seconds}, default=float)
    else:
        from reports.text import print_summary
        print_summary(tally, seconds, partial=what + " (the values stage, random swaps)")
        for r in h2h:
            typer.echo(f"head-to-head, split against {r['policy']}: {100 * r['diff']:+.2f} "
                       f"points per seat (95% CI {100 * r['ci_low']:+.2f} to "
                       f"{100 * r['ci_high']:+.2f}), {r['games']:,} games")
    raise typer.Exit(130)


def tune_field(against) -> list[str]:
    """``--against``: strategies separated by commas (or, from Python, a list of them)."""
    words = against.split(",") if isinstance(against, str) else list(against)
    return [s.strip() for s in words if s.strip()]


def tune_budget(games_per_trial, fresh_games, trials, players) -> tuple[int, int, int]:
    """``--games-per-trial`` and ``--fresh-games`` as counts, and the games of the whole
    tuning (every trial's deals, then the final check of the best and of the defaults)."""
    per_trial = parse_count(str(games_per_trial), "--games-per-trial")
    fresh = parse_count(str(fresh_games), "--fresh-games") if fresh_games else per_trial
    deals, fdeals = per_trial // players, max(1, fresh // players)
    return per_trial, fresh, trials * deals * players + 2 * fdeals * players


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
         out: Optional[Path] = out_option("every trial (trials.jsonl), tune.json, manifest "
                                          "and summary"),
         resume: bool = resume_option("tuning"), as_json: bool = json_option(),
         quiet: bool = QUIET):
    """Tune a strategy's parameters against a field (optuna)."""
    from sim.runs.partial import Interrupted
    from sim.runs.runner import RunError
    from sim.runs import folder
    from sim.runs.extras import require
    from sim.studies.tune import lineup, tune as run_tune

    try:
        require("optuna", "sim tune")
        folder.check_resume(resume, out, "tuning")
        rs = ruleset(rules, rule)
        field = tune_field(against)
        per_trial, fresh, planned = tune_budget(games_per_trial, fresh_games, trials, players)
        t0 = time.perf_counter()
        table = run_config("1", players, seed, lineup(strategy, field, players), None, rules,
                           False, False, max_turns, threads, rule=rule)
        say_estimate([(table, planned)], threads or 1, quiet or as_json)
        with maybe_progress(not (as_json or quiet), planned) as progress:
            result = run_tune(strategy, field, players=players, trials=trials,
                              games_per_trial=per_trial, fresh_games=fresh, seed=seed,
                              rules=rs, threads=threads or 1, max_turns=max_turns,
                              params=param, out=out, resume=resume, progress=progress,
                              cycle_stop=cycle_stop)
        result["seconds"] = time.perf_counter() - t0
    except Interrupted as e:
        _tune_partial(e.partial, out, as_json, rs)
    except (RunError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted" + (f"; the finished trials are in {out}, continue with --resume"
                              if out else ""), code=130)
    if as_json:
        from sim.cli import jsonout
        asked = {**result.pop("options"), "threads": threads, "out": str(out) if out else None,
                 "resume": resume}
        jsonout.echo("tune", rs, asked, result, default=float)
        return
    from reports.plain import tune_lines

    typer.echo("\n".join(tune_lines(result, field, players, rs.last_player_loses)))


def _tune_partial(partial, out, as_json, ruleset):
    """Ctrl-C in sim tune: the trials finished and the best so far, labelled PARTIAL (not
    checked on fresh deals); exit 130."""
    done, best = partial.result["trials"], partial.result["best"]
    what = (f"interrupted during {partial.stage}, after {len(done)} of {partial.of} trials"
            + (f"; they are in {out}, continue with --resume" if out else ""))
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("tune", ruleset, {"out": str(out) if out else None},
                     {"partial": what, "trials": done, "best": best}, default=float)
    else:
        typer.echo(f"PARTIAL ({what})")
        if best is not None:
            typer.echo(f"best so far (trial {best['number']}, not checked on fresh deals): "
                       f"{best['spec']}: {100 * best['value']:.2f}% (95% CI "
                       f"{100 * best['ci_low']:.2f}% - {100 * best['ci_high']:.2f}%)")
    raise typer.Exit(130)
