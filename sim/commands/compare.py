"""``sim compare`` / ``sim.compare``: a fair tournament of strategies on duplicate deals."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import count, out_field, resume_field, run_config, seq, shared
from sim.commands.declare import Command, Options, argument, option, play
from sim.runs.kinds import KINDS


@dataclass
class CompareOptions(Options):
    strategies: List[str] = argument("Two or more strategies.", complete="strategy")
    players: int = shared("players")
    games: str = shared("games", "100k", help="Games in all (deals x rotations).")
    seed: int = shared("seed")
    rules: str = shared("rules")
    rule: Optional[List[str]] = shared("rule")
    choose_face_ups: bool = shared("choose_face_ups")
    last_player_loses: bool = shared("last_player_loses")
    max_turns: int = shared("max_turns")
    threads: Optional[int] = shared("threads")
    cycle_stop: bool = shared("cycle_stop")
    until_clear: bool = option(False, "--until-clear", help="Play in blocks until the leader "
                               "is ahead of every other strategy (anytime-valid confidence "
                               "sequences of the paired per-deal differences).")
    max_games: Optional[str] = option(None, "--max-games", help="Cap for --until-clear "
                                      "(default: --games).")
    independent: bool = option(False, "--independent", help="Fresh deals for every rotation "
                               "(no duplicate deals).")
    seating: str = option("balanced", "--seating", help="balanced: every deal under one of "
                          "many cyclic orders of the strategies, so that each follows every "
                          "other equally often; fixed: the order given, each always after the "
                          "same neighbour (3+ strategies).")
    out: Optional[Path] = out_field("per-game records (Parquet), compare.json, manifest and "
                                    "summary")
    resume: bool = resume_field("comparison")
    quiet: bool = shared("quiet")


def compare(o: CompareOptions):
    """Play the tournament: ``result`` is the tournament as a dict (``Tournament.to_dict()``
    and its ``info``), saved in ``out`` (compare.json) by
    :func:`sim.studies.compare.compare`, also when Ctrl-C stopped it after a deal was played
    under every rotation."""
    from sim.runs import folder
    from sim.studies.compare import check_field, compare as play_compare

    strategies = seq(o.strategies)
    cfg = run_config("1", o.players, o.seed, strategies[:1], None, o.rules, o.choose_face_ups,
                     o.last_player_loses, o.max_turns, o.threads, rule=seq(o.rule))
    total = count(o.games, limit="compare --games")
    cap = count(o.max_games, "--max-games") if o.max_games else total
    check_field(strategies)                     # before the estimate: nothing played yet
    folder.check_resume(o.resume, o.out, "comparison")
    asked = {"strategies": strategies, "players": o.players, "games": total, "seed": o.seed,
             "rules": cfg.rules, "until_clear": o.until_clear, "max_games": cap,
             "independent": o.independent, "max_turns": o.max_turns,
             "cycle_stop": o.cycle_stop, "seating": o.seating, "threads": o.threads,
             "out": str(o.out) if o.out else None}
    planned = cap if o.until_clear else total
    done = play(lambda progress: play_compare(
        strategies, players=o.players, games=total, seed=o.seed, rules=cfg.rules,
        max_turns=o.max_turns, threads=o.threads, independent=o.independent,
        until_clear=o.until_clear, max_games=cap, progress=progress, out=o.out,
        cycle_stop=o.cycle_stop, seating=o.seating, resume=o.resume),
        o.quiet, cfg.ruleset, asked, planned)
    t, info = done.result.tournament, done.result.info
    if not t.games:
        raise KeyboardInterrupt("interrupted before a deal was played under every rotation")
    done.result = dict(t.to_dict(), info=info)
    return done


COMMAND = Command(
    "compare", CompareOptions, compare, "A fair tournament of strategies on duplicate deals.",
    show="sim.cli.study_commands:compare", panel="Play games", kind=KINDS["compare"],
    result=dict, partial="sim.studies.compare:Comparison", python="compare",
    examples=("sim compare lowest counting montecarlo --games 12k",
              "sim compare lowest random --until-clear --out runs/cmp"))
