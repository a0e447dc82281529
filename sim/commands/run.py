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


def run(o: RunOptions, meanwhile: str | None = None, kept: dict | None = None):
    """Play the games: ``result`` is the run's :class:`~sim.runs.tally.Tally` (on Ctrl-C, of
    the games played so far; ``out`` keeps the whole batches). ``meanwhile``: a module the
    front end prints with, imported on a thread of its own while this one plays the games
    (the core releases the GIL, so the import runs on another core; importing it again later
    waits for this one to finish). ``kept``: a dict given without ``out`` keeps each whole
    batch in memory (:func:`sim.runs.runner.run`)."""
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
                                          backend=engine, kept=kept),
                o.quiet, cfg.ruleset, asked, cfg.games, configs=[cfg], engine=engine)


def _python(o: RunOptions):
    """``sim.run``: the run as :func:`sim.load` opens it. With ``out``, the folder, and when
    Ctrl-C stopped it the tally so far as the summary (as ``sim run`` prints it) with the
    whole batches saved as its records. Without ``out`` no folder is written: the per-game
    records are kept in memory up to :data:`sim.runs.folder.IN_MEMORY` games (``.games``);
    past that ``.games`` says to give ``out``."""
    import pandas as pd

    from sim.runs import folder
    from sim.runs.folder import IN_MEMORY
    from sim.runs.saved import Loaded
    from sim.runs.store import records
    from sim.studies.saved import load

    if o.out is None and o.resume:
        raise ValueError("resume=True continues the run saved in out=DIR: give out")
    games = count(o.games)
    kept = {} if o.out is None and games <= IN_MEMORY else None
    done = run(o, kept=kept)
    if o.out is not None and done.partial is None:
        return load(o.out)
    tally = done.result
    summary = tally.to_dict()
    stopped = f"interrupted: {tally.games:,} of {tally.cfg.games:,} games"
    if o.out is not None:
        path = Path(o.out).expanduser()
        summary["partial"] = f"{stopped}; continue with resume=True, out={str(path)!r}"
        saved = folder.Folder(path, folder.read_manifest(path) or {})
        where = dict(path=path, manifest=saved.manifest, parts=saved.parts())
    else:
        if done.partial is not None:
            summary["partial"] = (f"{stopped} (nothing was saved: out=DIR keeps a run that "
                                  f"resume=True continues)")
        unsaved = None if kept is not None else (
            f"the per-game records of a run of {games:,} games are kept in a folder, not in "
            f"memory (at most {IN_MEMORY:,} games): run it with out=DIR, then .games")
        where = dict(path=None, manifest={"kind": "run", "options": summary.get("config", {})},
                     records=None if kept is None else [records(tally.cfg, kept[i])
                                                        for i in sorted(kept)],
                     unsaved=unsaved)
    return Loaded(summary=summary, by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(summary.get("by_strategy", [])), result=summary,
                  **where)


COMMAND = Command(
    "run", RunOptions, run, "Play many games: win rates per seat and strategy, with 95% CIs.",
    show="sim.cli.run_commands:run", panel="Play games", kind=KINDS["run"],
    result="sim.runs.tally:Tally", partial="sim.runs.tally:Tally", python="run",
    python_call=_python,
    examples=("sim run --games 1e6 --players 4",
              "sim run -n 250k -s lowest -s random -s counting",
              "sim run --games 1e6 --rules classic --json > summary.json"))
