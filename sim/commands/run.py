"""``sim run`` / ``sim.run``: many games of one table, win rates per seat and strategy."""
from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import (
    count, make_backend, out_field, resume_field, run_config, seq, shared,
)
from sim.commands.declare import Command, Options, option, play
from sim.runs.kinds import KINDS


@dataclass
class RunOptions(Options):
    games: str = shared("games")
    players: int = shared("players")
    seed: int = shared("seed")
    strategy: Optional[List[str]] = shared("strategy")
    swap: Optional[List[str]] = shared("swap")
    rules: str = shared("rules")
    rule: Optional[List[str]] = shared("rule")
    choose_face_ups: bool = shared("choose_face_ups")
    last_player_loses: bool = shared("last_player_loses")
    max_turns: int = shared("max_turns")
    threads: Optional[int] = shared("threads")
    cycle_stop: bool = shared("cycle_stop")
    out: Optional[Path] = out_field("per-game records (Parquet), manifest and summary")
    resume: bool = resume_field("run")
    batch: str = option("100k", "--batch", help="Games per batch (and per file).")
    backend: str = shared("backend")
    scheduler: Optional[str] = shared("scheduler")
    workers: Optional[int] = shared("workers")
    quiet: bool = shared("quiet")


def run(o: RunOptions, meanwhile: str | None = None):
    """Play the games: ``result`` is the run's :class:`~sim.runs.tally.Tally` (on Ctrl-C, of
    the games played so far; ``out`` keeps the whole batches). ``meanwhile``: a module the
    front end prints with, imported on a thread of its own while this one plays the games
    (the core releases the GIL, so the import runs on another core; importing it again later
    waits for this one to finish)."""
    from sim.runs import folder
    from sim.runs.runner import run as play_run

    cfg = run_config(o.games, o.players, o.seed, seq(o.strategy), seq(o.swap), o.rules,
                     o.choose_face_ups, o.last_player_loses, o.max_turns, o.threads,
                     count(o.batch, "--batch"), seq(o.rule), o.cycle_stop)
    folder.check_resume(o.resume, o.out, "run")    # --out checked before anything is played
    engine = make_backend(o.backend, o.scheduler, o.workers, o.threads)
    asked = {k: v for k, v in cfg.describe().items() if k != "options"}
    asked.update(threads=o.threads, batch=cfg.batch, out=str(o.out) if o.out else None,
                 resume=o.resume, backend=o.backend)
    if meanwhile:
        threading.Thread(target=importlib.import_module, args=(meanwhile,), daemon=True).start()
    return play(lambda progress: play_run(cfg, progress=progress, out=o.out, resume=o.resume,
                                          backend=engine),
                o.quiet, cfg.ruleset, asked, cfg.games, configs=[cfg], engine=engine)


def _stopped(done, saved):
    """``sim.run`` stopped by Ctrl-C (a run's folder has no summary until it finishes): the
    tally so far as the summary, as ``sim run`` prints it, with the whole batches ``saved``
    (on disk or in memory) as its records."""
    import pandas as pd

    from sim.runs.saved import Loaded

    tally = done.result
    summary = tally.to_dict()
    stopped = f"interrupted: {tally.games:,} of {tally.cfg.games:,} games"
    summary["partial"] = (f"{stopped}; continue with resume=True, out={str(saved.path)!r}"
                          if saved.path is not None else
                          f"{stopped} (nothing was saved: out=DIR keeps a run that "
                          f"resume=True continues)")
    return Loaded(path=saved.path, manifest=saved.manifest, summary=summary,
                  by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(summary.get("by_strategy", [])), result=summary,
                  parts=saved.parts(), records=saved.records, unsaved=saved.unsaved)


COMMAND = Command(
    "run", RunOptions, run, "Play many games: win rates per seat and strategy, with 95% CIs.",
    show="sim.cli.run_commands:run", panel="Play games", kind=KINDS["run"],
    result="sim.runs.tally:Tally", partial="sim.runs.tally:Tally", python="run",
    stopped=_stopped,
    examples=("sim run --games 1e6 --players 4",
              "sim run -n 250k -s lowest -s random -s counting",
              "sim run --games 1e6 --rules classic --json > summary.json"))
