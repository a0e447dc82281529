"""``sim tune`` / ``sim.tune``: a strategy's parameters tuned against a field (optuna)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import count, out_field, resume_field, ruleset, run_config, seq, shared
from sim.commands.declare import Command, Options, argument, option, play
from sim.runs.kinds import KINDS


@dataclass
class TuneOptions(Options):
    strategy: str = argument("The strategy to tune: a built-in name, FILE.py:FUNCTION or "
                             "package.module:FUNCTION (with values to start from: "
                             "'counting(pickup_limit=2)').", complete="strategy")
    against: str = option(None, "--against", "-a", complete="strategy", cli_required=True,
                          help="The field: strategies separated by commas, filling the other "
                               "seats in turn.")
    players: int = shared("players")
    trials: int = option(100, "--trials", help="Trials (parameter sets) in all.")
    games_per_trial: str = option("2000", "--games-per-trial", help="Games per trial: the "
                                  "same deals for every trial.")
    fresh_games: Optional[str] = option(None, "--fresh-games", help="Games of the final check "
                                        "on fresh deals, for the best and for the defaults "
                                        "(default: --games-per-trial).")
    param: Optional[List[str]] = option(None, "--param", help="Tune only this parameter, NAME "
                                        "or NAME=LOW:HIGH (repeatable; default: every "
                                        "parameter with a finite range).")
    seed: int = shared("seed")
    rules: str = shared("rules")
    rule: Optional[List[str]] = shared("rule")
    max_turns: int = shared("max_turns")
    threads: Optional[int] = shared("threads")
    cycle_stop: bool = shared("cycle_stop")
    out: Optional[Path] = out_field("every trial (trials.jsonl), tune.json, manifest and "
                                    "summary")
    resume: bool = resume_field("tuning")
    quiet: bool = shared("quiet")


def tune(o: TuneOptions):
    """The tuning: ``result`` is its result dict, its ``options`` those of ``asked`` not
    given here (on Ctrl-C, a :class:`~sim.studies.tune.TunePartial`: the trials finished and
    the best so far); ``against``: names separated by commas, or a list."""
    from sim.runs import folder
    from sim.runs.extras import require
    from sim.studies.tune import check_trials, lineup, tune as play_tune

    if o.against is None:
        raise ValueError("--against: give the field, strategies separated by commas")
    require("optuna", "sim tune")
    check_trials(o.trials)
    folder.check_resume(o.resume, o.out, "tuning")
    rs = ruleset(o.rules, seq(o.rule))
    words = o.against.split(",") if isinstance(o.against, str) else list(o.against)
    field = [s.strip() for s in words if s.strip()]
    per_trial = count(o.games_per_trial, "--games-per-trial")
    fresh = count(o.fresh_games, "--fresh-games") if o.fresh_games else per_trial
    # the games of the whole tuning: every trial's deals, then the final check of the best
    # and of the defaults
    planned = (o.trials * (per_trial // o.players) * o.players
               + 2 * max(1, fresh // o.players) * o.players)
    run_config("1", o.players, o.seed, lineup(o.strategy, field, o.players), None,  # checked
               o.rules, False, False, o.max_turns, o.threads, rule=seq(o.rule))
    asked = {"threads": o.threads, "out": str(o.out) if o.out else None, "resume": o.resume}
    return play(lambda progress: play_tune(
        o.strategy, field, players=o.players, trials=o.trials, games_per_trial=per_trial,
        fresh_games=fresh, seed=o.seed, rules=rs, threads=o.threads, max_turns=o.max_turns,
        params=seq(o.param), out=o.out, resume=o.resume, progress=progress,
        cycle_stop=o.cycle_stop),
        o.quiet, rs, asked, planned)


COMMAND = Command(
    "tune", TuneOptions, tune, "Tune a strategy's parameters against a field (optuna).",
    show="sim.cli.study_commands:tune", panel="Play games", kind=KINDS["tune"], result=dict,
    partial="sim.studies.tune:TunePartial", python="tune",
    examples=("sim tune counting --against lowest,random --trials 30 --out runs/tune",))
