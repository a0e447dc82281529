"""``sim study swap`` / ``sim.study_swap``: which face-up cards to keep, measured over many
games."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import (
    count, out_field, phase_of, resume_field, run_config, seq, shared,
)
from sim.commands.declare import Command, Options, option, play
from sim.runs.kinds import KINDS


@dataclass
class SwapStudyOptions(Options):
    players: int = shared("players")
    games: str = shared("games", "100k", help="Games that fit the split model (random swaps).")
    h2h_games: Optional[str] = option(None, "--h2h-games", help="Deals per policy in the "
                                      "head-to-head (default games/5).")
    seed: int = shared("seed")
    rules: str = shared("rules")
    rule: Optional[List[str]] = shared("rule")
    choose_face_ups: bool = shared("choose_face_ups")
    last_player_loses: bool = shared("last_player_loses")
    max_turns: int = shared("max_turns")
    threads: Optional[int] = shared("threads")
    cycle_stop: bool = shared("cycle_stop")
    strategy: str = shared("strategy", "lowest", names=("--strategy", "-s"),
                           help="Move strategy of every seat.")
    out: Optional[Path] = out_field("study.json, split.csv, policy.csv, swap_values.csv, "
                                    "games/ and the summary", required=True)
    resume: bool = resume_field("study", " (same options)")
    quiet: bool = shared("quiet")


def study_swap(o: SwapStudyOptions):
    """The study into ``out``: ``result`` is the study; on Ctrl-C, a
    :class:`~sim.studies.swapstudy.values.SwapStudyPartial`."""
    from sim.studies.swapstudy import swap_study

    cfg = run_config("1", o.players, o.seed, [o.strategy], None, o.rules, o.choose_face_ups,
                     o.last_player_loses, o.max_turns, o.threads, rule=seq(o.rule))
    n = count(o.games, limit="study swap --games")
    h2h = count(o.h2h_games, "--h2h-games") if o.h2h_games else None
    asked = {"players": o.players, "games": n, "h2h_games": h2h, "seed": o.seed,
             "rules": cfg.rules, "strategy": o.strategy, "max_turns": o.max_turns,
             "cycle_stop": o.cycle_stop, "threads": o.threads, "out": str(o.out)}
    return play(lambda progress: swap_study(
        o.out, players=o.players, games=n, seed=o.seed, rules=cfg.rules, strategy=o.strategy,
        threads=o.threads, progress=progress, h2h_games=h2h, max_turns=o.max_turns,
        cycle_stop=o.cycle_stop, resume=o.resume, phase=phase_of(progress)),
        o.quiet, cfg.ruleset, asked, n, "value games")


COMMAND = Command(
    "study swap", SwapStudyOptions, study_swap,
    "Which face-up cards to keep, measured over many games.",
    show="sim.cli.study_commands:study_swap", kind=KINDS["swap-study"], result=dict,
    partial="sim.studies.swapstudy.values:SwapStudyPartial", python="study_swap",
    examples=("sim study swap --players 4 --games 1e6 --out runs/swap",))
