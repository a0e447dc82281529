"""The commands that answer a question with many games: ``sim compare``, ``sim study swap``,
``sim study rules`` (the rules lab, :mod:`sim.studies.ruleslab`: what each house rule does to
the length, the first mover's edge, skill and luck of the game) and ``sim tune``; their work
is :mod:`sim.cli.work`'s."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from sim.cli import work
from sim.cli.options import (
    BACKEND, CAP, CYCLE_STOP, PLAYERS, QUIET, RULE, RULES, SCHEDULER, SEED, THREADS, V1, V2,
    WORKERS, complete_rules, complete_strategy, forward, json_option, one_line, out_option,
    resume_advice, resume_option,
)


def compare(strategies: List[str] = typer.Argument(..., help="Two or more strategies.",
                                                  autocompletion=complete_strategy),
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
    options = forward(locals())
    with one_line(hint=lambda: resume_advice(out, "the finished blocks are")):
        done = work.compare(**options)
    result = done.result
    if done.partial:
        result["partial"] = "interrupted" + resume_advice(out, "the finished blocks are")
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("compare", done.ruleset, done.asked, {**result, "seconds": done.seconds})
    else:
        from reports.text import print_compare
        if done.partial:
            typer.echo(f"PARTIAL ({result['partial']}): {result['games']:,} of "
                       f"{done.asked['games']:,} games")
        print_compare(result, done.seconds)
    if done.partial:
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
                                            autocompletion=complete_strategy,
                                            help="Move strategy of every seat."),
               out: Path = out_option("study.json, split.csv, policy.csv, swap_values.csv, "
                                      "games/ and the summary", required=True),
               resume: bool = resume_option("study", " (same options)"),
               as_json: bool = json_option("the study"), quiet: bool = QUIET):
    """Which face-up cards to keep, measured over many games."""
    with one_line():
        done = work.study_swap(**forward(locals()))
    if done.partial:
        _study_partial(done.partial, out, as_json, done.seconds, done.ruleset)
    study = dict(done.result, seconds=done.seconds)
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("study-swap", done.ruleset, done.asked, study)
    else:
        from reports.text import print_study
        print_study(study)


def _study_partial(partial, out, as_json, seconds, ruleset):
    """Ctrl-C in the swap study: the values stage's games so far (a run's summary, labelled
    PARTIAL) and the head-to-heads finished; exit 130."""
    tally, h2h = partial.result.tally, partial.result.head_to_head
    what = (f"interrupted in the {partial.stage} stage"
            + resume_advice(out, "the games so far are"))
    if as_json:
        result = tally.to_dict()
        result["partial"] = what
        result["head_to_head"] = h2h
        from sim.cli import jsonout
        jsonout.echo("study-swap", ruleset, {"out": str(out)}, {**result, "seconds": seconds})
    else:
        from reports.text import print_summary
        print_summary(tally, seconds, partial=what + " (the values stage, random swaps)")
        for r in h2h:
            typer.echo(f"head-to-head, split against {r['policy']}: {100 * r['diff']:+.2f} "
                       f"points per seat (95% CI {100 * r['ci_low']:+.2f} to "
                       f"{100 * r['ci_high']:+.2f}), {r['games']:,} games")
    raise typer.Exit(130)


def study_rules(players: int = PLAYERS,
                base: str = typer.Option("seed", "--base", autocompletion=complete_rules,
                                         help="The preset every change is measured from: "
                                         "seed, classic, masters-of-shithead, boothj5 (with "
                                         "--rule: that preset so changed)."),
                rule: Optional[List[str]] = RULE,
                only: Optional[List[str]] = typer.Option(None, "--only", help="Measure only "
                                                         "the changes of this option, or this "
                                                         "preset (repeatable; default: all)."),
                games: str = typer.Option("40k", "--games", "-n", help="Games per ruleset of "
                                          "the reference table (length, first mover, seats)."),
                skill_deals: str = typer.Option("10k", "--skill-deals", help="Deals per "
                                                "ruleset of counting against random, each "
                                                "played under every seat rotation (skill, "
                                                "luck)."),
                mc_deals: str = typer.Option("100", "--mc-deals", help="At most this many "
                                             "deals per ruleset of montecarlo against "
                                             "lowest, rotated; 0: leave that measure out."),
                mc_block: int = typer.Option(20, "--mc-block", help="Deals between two looks "
                                             "at the montecarlo measure (stop when clear)."),
                precision: float = typer.Option(0.1, "--precision", help="Stop a ruleset's "
                                                "montecarlo games once its difference from "
                                                "the base is known to within this (a share)."),
                strategy: str = typer.Option("lowest", "--strategy", "-s",
                                             autocompletion=complete_strategy,
                                             help="Strategy of every seat of the reference "
                                                  "table."),
                seed: int = SEED, max_turns: int = CAP, threads: Optional[int] = THREADS,
                cycle_stop: bool = CYCLE_STOP, backend: str = BACKEND,
                scheduler: Optional[str] = SCHEDULER, workers: Optional[int] = WORKERS,
                out: Optional[Path] = out_option("ruleslab.json, the units of games, "
                                                 "manifest and summary"),
                resume: bool = resume_option("study", " (same options)"),
                as_json: bool = json_option("the study"), quiet: bool = QUIET):
    """What each house rule does to the game, on the same deals."""
    with one_line():
        done = work.study_rules(**forward(locals()))
    result = dict(done.result, seconds=done.seconds)
    if done.partial:
        result["partial"] += resume_advice(out, "the rulesets measured are")
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("study-rules", done.ruleset, done.asked, result)
    else:
        from reports.lab_text import ruleslab_lines
        if done.partial:
            typer.echo(f"PARTIAL ({result['partial']})")
        typer.echo("\n".join(ruleslab_lines(result)))
    if done.partial:
        raise typer.Exit(130)


def tune(strategy: str = typer.Argument(..., autocompletion=complete_strategy,
                                        help="The strategy to tune: a built-in name, "
                                        "FILE.py:FUNCTION or package.module:FUNCTION (with "
                                        "values to start from: 'counting(pickup_limit=2)')."),
         against: str = typer.Option(..., "--against", "-a", autocompletion=complete_strategy,
                                     help="The field: strategies separated by commas, "
                                          "filling the other seats in turn."),
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
    options = forward(locals())
    with one_line(hint=lambda: resume_advice(out, "the finished trials are")):
        done = work.tune(**options)
    if done.partial:
        _tune_partial(done.partial, out, as_json, done.ruleset)
    result = dict(done.result, seconds=done.seconds)
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("tune", done.ruleset, {**result.pop("options"), **done.asked}, result)
        return
    from reports.plain import tune_lines

    typer.echo("\n".join(tune_lines(result, result["options"]["against"], players,
                                     done.ruleset.last_player_loses)))


def _tune_partial(partial, out, as_json, ruleset):
    """Ctrl-C in sim tune: the trials finished and the best so far, labelled PARTIAL (not
    checked on fresh deals); exit 130."""
    done, best = partial.result["trials"], partial.result["best"]
    what = (f"interrupted during {partial.stage}, after {len(done)} of {partial.of} trials"
            + resume_advice(out, "they are"))
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("tune", ruleset, {"out": str(out) if out else None},
                     {"partial": what, "trials": done, "best": best})
    else:
        typer.echo(f"PARTIAL ({what})")
        if best is not None:
            typer.echo(f"best so far (trial {best['number']}, not checked on fresh deals): "
                       f"{best['spec']}: {100 * best['value']:.2f}% (95% CI "
                       f"{100 * best['ci_low']:.2f}% - {100 * best['ci_high']:.2f}%)")
    raise typer.Exit(130)
