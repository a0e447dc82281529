"""``sim study rules``: the rules lab (:mod:`sim.studies.ruleslab`): what each house rule
does to the length, the first mover's edge, skill and luck of the game."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer

from sim.cli.options import (
    BACKEND, CAP, CYCLE_STOP, PLAYERS, QUIET, RULE, SCHEDULER, SEED, THREADS, WORKERS, fail,
    json_option, make_backend, maybe_progress, out_option, parse_count, phase_of,
    resume_option, say_estimate,
)


def lab_counts(games, skill_deals, mc_deals) -> dict:
    """The rules lab's budgets as typed (``40k``; ``--mc-deals 0`` leaves montecarlo out)."""
    return {"games": parse_count(str(games)),
            "skill_deals": parse_count(str(skill_deals), "--skill-deals"),
            "mc_deals": 0 if str(mc_deals).strip() == "0"
            else parse_count(str(mc_deals), "--mc-deals")}


def study_rules(players: int = PLAYERS,
                base: str = typer.Option("seed", "--base", help="The preset every change is "
                                         "measured from: seed, classic, masters-of-shithead, "
                                         "boothj5 (with --rule: that preset so changed)."),
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
                strategy: str = typer.Option("lowest", "--strategy", "-s", help="Strategy of "
                                             "every seat of the reference table."),
                seed: int = SEED, max_turns: int = CAP, threads: Optional[int] = THREADS,
                cycle_stop: bool = CYCLE_STOP, backend: str = BACKEND,
                scheduler: Optional[str] = SCHEDULER, workers: Optional[int] = WORKERS,
                out: Optional[Path] = out_option("ruleslab.json, the units of games, "
                                                 "manifest and summary"),
                resume: bool = resume_option("study", " (same options)"),
                as_json: bool = json_option("the study"), quiet: bool = QUIET):
    """What each house rule does to the game, on the same deals."""
    from sim.runs import folder
    from sim.runs.partial import Interrupted
    from sim.runs.runner import RunError
    from sim.studies.ruleslab.study import estimate_plan, rules_lab

    engine, partial = None, None
    try:
        counts = lab_counts(games, skill_deals, mc_deals)
        folder.check_resume(resume, out, "study")
        engine = make_backend(backend, scheduler, workers, threads)
        t0 = time.perf_counter()
        try:
            if not resume:                  # resumed: most games may be read back, not played
                say_estimate(estimate_plan(players=players, base=base, rule=rule or (),
                                           only=only or (), strategy=strategy, seed=seed,
                                           max_turns=max_turns, threads=threads,
                                           cycle_stop=cycle_stop, **counts),
                             threads, quiet or as_json)
            with maybe_progress(not (as_json or quiet), None, "rules lab") as progress:
                result = rules_lab(players=players, base=base, rule=rule or (), only=only or (),
                                   seed=seed,
                                   mc_block=mc_block, precision=precision, strategy=strategy,
                                   max_turns=max_turns, threads=threads,
                                   cycle_stop=cycle_stop, out=out, resume=resume,
                                   backend=engine, progress=progress,
                                   phase=phase_of(progress), **counts)
        except Interrupted as e:
            result = e.partial.result
            partial = result["partial"] + (f"; continue with --resume (--out {out})"
                                           if out else "")
        result["seconds"] = time.perf_counter() - t0
    except (RunError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()
    if as_json:
        from sim.cli import jsonout
        from sim.kernel.ruleset import Ruleset
        asked = {"players": players, "base": base, "rule": list(rule or []),
                 "only": list(only or []), **counts,
                 "mc_block": mc_block, "precision": precision, "strategy": strategy,
                 "seed": seed, "max_turns": max_turns, "cycle_stop": cycle_stop,
                 "threads": threads, "backend": backend, "out": str(out) if out else None,
                 "resume": resume}
        if partial:
            result["partial"] = partial
        jsonout.echo("study-rules", Ruleset.build(base, list(rule or [])), asked, result,
                     default=float)
    else:
        from reports.lab_text import ruleslab_lines
        if partial:
            typer.echo(f"PARTIAL ({partial})")
        typer.echo("\n".join(ruleslab_lines(result)))
    if partial:
        raise typer.Exit(130)
