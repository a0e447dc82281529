"""``sim study rules`` / ``sim.study_rules``: the rules lab (:mod:`sim.studies.ruleslab`),
what each house rule does to the length, the first mover's edge, skill and luck of the game,
on the same deals."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import count, make_backend, out_field, phase_of, resume_field, seq, shared
from sim.commands.declare import Command, Options, option, play
from sim.runs.kinds import KINDS


@dataclass
class RulesLabOptions(Options):
    players: int = shared("players")
    base: str = option("seed", "--base", complete="rules", help="The preset every change is "
                       "measured from: seed, classic, masters-of-shithead, boothj5 (with "
                       "--rule: that preset so changed).")
    rule: Optional[List[str]] = shared("rule")
    only: Optional[List[str]] = option(None, "--only", help="Measure only the changes of this "
                                       "option, or this preset (repeatable; default: all).")
    games: str = shared("games", "40k", help="Games per ruleset of the reference table "
                        "(length, first mover, seats).")
    skill_deals: str = option("10k", "--skill-deals", help="Deals per ruleset of counting "
                              "against random, each played under every seat rotation (skill, "
                              "luck).")
    mc_deals: str = option("100", "--mc-deals", help="At most this many deals per ruleset of "
                           "montecarlo against lowest, rotated; 0: leave that measure out.")
    mc_block: int = option(20, "--mc-block", help="Deals between two looks at the montecarlo "
                           "measure (stop when clear).")
    precision: float = option(0.1, "--precision", help="Stop a ruleset's montecarlo games "
                              "once its difference from the base is known to within this (a "
                              "share).")
    strategy: str = shared("strategy", "lowest", help="Strategy of every seat of the "
                           "reference table.")
    seed: int = shared("seed")
    max_turns: int = shared("max_turns")
    threads: Optional[int] = shared("threads")
    cycle_stop: bool = shared("cycle_stop")
    backend: str = shared("backend")
    scheduler: Optional[str] = shared("scheduler")
    workers: Optional[int] = shared("workers")
    out: Optional[Path] = out_field("ruleslab.json, the units of games, manifest and summary")
    resume: bool = resume_field("study", " (same options)")
    quiet: bool = shared("quiet")


def study_rules(o: RulesLabOptions):
    """The lab: ``result`` is its result dict (on Ctrl-C, a
    :class:`~sim.studies.ruleslab.study.LabPartial` of the rulesets measured so far)."""
    from sim.kernel.ruleset import Ruleset
    from sim.runs import folder
    from sim.studies.ruleslab.study import rules_lab
    from sim.studies.ruleslab.variants import variants

    # the budgets as typed (``40k``; ``--mc-deals 0`` leaves montecarlo out)
    counts = {"games": count(o.games, limit="study rules --games"),
              "skill_deals": count(o.skill_deals, "--skill-deals"),
              "mc_deals": 0 if str(o.mc_deals).strip() == "0" else count(o.mc_deals,
                                                                         "--mc-deals")}
    folder.check_resume(o.resume, o.out, "study")
    rule, only = seq(o.rule) or [], seq(o.only) or []
    variants(o.base, o.players, rule, only)        # before anything is played
    shared_ = dict(players=o.players, base=o.base, rule=rule, only=only, strategy=o.strategy,
                   seed=o.seed, max_turns=o.max_turns, threads=o.threads,
                   cycle_stop=o.cycle_stop, **counts)
    engine = make_backend(o.backend, o.scheduler, o.workers, o.threads)
    asked = {"players": o.players, "base": o.base, "rule": rule, "only": only, **counts,
             "mc_block": o.mc_block, "precision": o.precision, "strategy": o.strategy,
             "seed": o.seed, "max_turns": o.max_turns, "cycle_stop": o.cycle_stop,
             "threads": o.threads, "backend": o.backend, "out": str(o.out) if o.out else None,
             "resume": o.resume}
    done = play(lambda progress: rules_lab(
        **shared_, mc_block=o.mc_block, precision=o.precision, out=o.out, resume=o.resume,
        backend=engine, progress=progress, phase=phase_of(progress)),
        o.quiet, None, asked, None, "rules lab", engine=engine)
    done.ruleset = Ruleset.build(o.base, rule)
    return done


COMMAND = Command(
    "study rules", RulesLabOptions, study_rules,
    "What each house rule does to the game, on the same deals.",
    show="sim.cli.study_commands:study_rules", kind=KINDS["rules-lab"], result=dict,
    partial="sim.studies.ruleslab.study:LabPartial", python="study_rules",
    examples=("sim study rules --players 4 --base seed --out runs/lab",))
