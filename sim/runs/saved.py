"""What ``sim.load(DIR)`` returns (:class:`Loaded`), and the reader of a saved run (``sim run
--out DIR``, kind ``run``); the other kinds' readers live beside the studies that write them,
and :mod:`sim.studies.saved` opens each kind with its own.

>>> run = sim.load("runs/big")            # doctest: +SKIP
>>> run.by_seat                           # the summary's seat table, as a DataFrame
>>> run.games.groupby("starter")["turns"].mean()   # every per-game record

The summary, manifest and tables are read at once; the per-game records (one Parquet file
per batch) are read on first use of ``.games`` and kept, so opening a run of 10^8 games to
look at its summary costs nothing. :func:`iter_parts` reads chosen columns batch by batch,
for statistics over runs too big for memory.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass(repr=False, eq=False)
class Loaded:
    """A saved folder: ``manifest`` (as saved), ``summary`` (a run's summary.json; another
    kind's reader gives its options as ``config``, its totals as ``overall``, its seat table
    as ``by_seat`` and ``partial`` when an interrupted command saved it), ``by_seat`` (the
    summary's seat table), ``by_strategy`` (the kind's per-strategy table), ``result`` (the
    command's result as its kind saves it, :data:`sim.runs.kinds.KINDS`: a run's summary, a
    tournament's compare.json, a swap study's study.json, a tuning's tune.json, a rules lab's
    ruleslab.json, a review's review.json; None for a swap study stopped before its study),
    the same by the kind's name for three of them (``compare``, ``study``, ``tune``; None for
    another kind), and ``games``: every per-game record, sorted by game. A result kept in
    memory (a Python call without ``out``) has ``path`` None and its records in memory, or,
    past what is kept in memory, ``unsaved`` saying why there are none."""

    path: Path | None
    manifest: dict
    summary: dict
    by_seat: pd.DataFrame
    by_strategy: pd.DataFrame
    result: dict | None = None
    parts: list[Path] = field(default_factory=list)
    records: list | None = None          # kept in memory: its records' tables
    unsaved: str | None = None           # why a result kept in memory has no records
    _games: pd.DataFrame | None = field(default=None, init=False)

    @property
    def kind(self) -> str:
        return self.manifest.get("kind", "run")

    def _as(self, kind: str) -> dict | None:
        return self.result if self.kind == kind else None

    @property
    def compare(self) -> dict | None:
        """A tournament's result (compare.json), else None."""
        return self._as("compare")

    @property
    def study(self) -> dict | None:
        """A swap study's result (study.json), else None."""
        return self._as("swap-study")

    @property
    def tune(self) -> dict | None:
        """A tuning's result (tune.json), else None."""
        return self._as("tune")

    @property
    def games(self) -> pd.DataFrame:
        """Per-game records of all batches (columns game, status, unfinished, unfinished_by
        ("cap" or "cycle", null when finished; runs saved since store format 2), cycle_turns,
        winner, turns, burns, starter, dealer, order_*, pickups_*, faceup_*, hand_*,
        strategy_*, swap_*),
        sorted by game; a swap study's add stage, seed and opponent and keep the order of
        its files (values stage first, then each head-to-head)."""
        if self._games is None:
            if self.unsaved:
                raise ValueError(self.unsaved)
            frames = (list(self.records) if self.records is not None
                      else [pd.read_parquet(p) for p in self.parts])
            if frames:
                df = pd.concat(frames, ignore_index=True)
                if "stage" not in df:          # a run: one game index per game
                    df = df.sort_values("game", kind="stable").reset_index(drop=True)
                # a swap study: its stages reuse game indices (duplicate deals); the files'
                # order keeps each stage and each head-to-head together, games in order
            else:
                df = pd.DataFrame()
            self._games = df
        return self._games

    @property
    def players(self) -> int:
        return int(self.config["players"])

    @property
    def config(self) -> dict:
        """The run's options (``summary["config"]``: games, players, seed, strategies...)."""
        return self.summary.get("config") or self.manifest.get("options", {})

    def iter_parts(self, columns=None):
        """The per-game records one batch at a time (only ``columns`` if given)."""
        for p in self.parts:
            yield pd.read_parquet(p, columns=columns)

    def __repr__(self) -> str:
        cfg = self.config
        extra = [name for name in ("compare", "study", "tune") if getattr(self, name) is not None]
        kind = self.kind
        where = repr(str(self.path)) if self.path is not None else "(not saved)"
        records = (f"{len(self.parts)} part file(s)" if self.path is not None else
                   "records in memory" if self.records else "no records kept")
        return (f"<shithead-sim {kind} {where}: {cfg.get('games', '?'):,} games, "
                f"{cfg.get('players', '?')} players, seed {cfg.get('seed', '?')}, {records}"
                + (f", with {' and '.join(extra)}" if extra else "") + ">")


def read(saved) -> Loaded:
    """The run in ``saved`` (a :class:`~sim.runs.folder.Folder` of kind ``run``): finished
    when its summary.json is written (:meth:`sim.runs.store.Store.finish`); else
    ``ValueError`` saying how far it got and how to continue it."""
    parts, manifest = saved.parts(), saved.manifest
    if not saved.has("summary.json"):
        options = manifest.get("options", {})
        games, batch = options.get("games"), manifest.get("batch")
        progress = (f" ({len(parts)} of {-(-games // batch)} batches saved)"
                    if isinstance(games, int) and isinstance(batch, int) and batch > 0 else "")
        raise ValueError(unfinished(saved.path, manifest, "summary.json", progress))
    summary = saved.json("summary.json", "summary")
    return Loaded(path=saved.path, manifest=manifest, summary=summary,
                  by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(summary.get("by_strategy", [])), result=summary,
                  parts=parts, records=saved.records, unsaved=saved.unsaved)


def unfinished(root: Path, manifest: dict, result: str, progress: str = "") -> str:
    """What to say of a saved folder without its result (the file ``result``): the command
    that saved it stopped (killed, or interrupted before it saved a partial result), and
    ``--resume`` continues it; ``progress``: how far it got."""
    from sim.runs.kinds import KINDS

    kind = manifest.get("kind", "run")
    known = KINDS.get(kind)
    command = known.command if known else f"the command that saved it ({kind})"
    head = (f"the {'run' if kind == 'run' else kind} in {root} did not finish: it has no "
            f"{result}{progress}.")
    if known is not None and not known.resume:       # no --resume: it is run again
        return f"{head} Run `{command}` again with `--out {root}`, then report it"
    return (f"{head} Continue it with the same `{command}` options plus "
            f"`--out {root} --resume`, then report it")
