"""A run's output folder: manifest, per-game records in Parquet batches, summary (a saved
folder of kind ``run``, :mod:`sim.runs.folder`).

Layout of ``--out DIR``::

    manifest.json          options, seed, batch size, versions, strategy identities
    games/part-00000.parquet, ...   one file per batch of consecutive games
    summary.json           written when the run is complete

A batch file is written to a temporary name and renamed, so a run that is killed leaves only
whole batches; ``--resume`` re-reads them and plays the batches that are missing, which gives
exactly the result of an uninterrupted run (the games depend only on seed and index).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from sim.kernel.cycle import END_FINISHED, END_NAMES
from sim.kernel.records import FIELDS, Records
from sim.kernel.referee import UNFINISHED
from sim.runs import folder
from sim.runs.batch import Batch
from sim.runs.folder import StoreError  # noqa: F401  (re-exported)
from sim.runs.registry import spec_file

KIND = "run"                # its format and what must match to resume: sim.runs.kinds


class Store:
    """The output folder of one run. What must match for ``--resume`` to continue it:
    everything that changes a game's result (the options, the batch size, each seat's
    strategy identity; the code, :mod:`sim.runs.folder`)."""

    def __init__(self, path, cfg, resume: bool = False):
        self.cfg = cfg
        options, strategies = cfg.describe(), identities(cfg)
        self.folder = folder.open_for_write(
            path, KIND, options=options, resume=resume,
            facts={"options": options, "batch": cfg.batch, "strategies": strategies},
            extra={"batch": cfg.batch, "strategies": strategies})
        self.path = self.folder.path
        self.games_dir = self.folder.sub("games")

    def part(self, index: int) -> Path:
        return part_path(self.games_dir, index)

    def saved(self) -> list[int]:
        """The indices of the batches saved whole (their files), ascending."""
        return saved_batches(self.games_dir)

    def read(self, index: int):
        """The batch stored under ``index`` (to re-count it on --resume): every saved record
        field from its columns (:func:`records`); a field not saved (``errors``) is zeros."""
        import pandas as pd

        df = pd.read_parquet(self.part(index))
        return Batch(int(df["game"].iloc[0]), read_records(df))

    def write(self, index: int, batch) -> None:
        """Keep one batch of per-game records (Parquet, atomically; or in memory)."""
        if self.folder.keeps_games():
            self.folder.keep_games(part_name(index), records(self.cfg, batch))

    def finish(self, summary: dict) -> None:
        self.folder.finish({"summary.json": summary})


def identities(cfg) -> list[dict]:
    """Per seat of ``cfg``: strategy and swap names, with a hash of the source of a user's
    file, and hashes of the parameter rows (what the function receives, e.g. a value table's
    contents)."""
    def ident(spec):
        path = spec_file(spec)
        if path is None:
            return {"name": spec}
        return {"name": spec, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}

    def params(row):
        return hashlib.sha256(np.ascontiguousarray(row).tobytes()).hexdigest()
    return [{"seat": s, "strategy": ident(cfg.strategies[s]), "swap": ident(cfg.swaps[s]),
             "params": params(cfg.rows[s]), "swap_params": params(cfg.rows[cfg.players + s])}
            for s in range(cfg.players)]


def part_name(index: int) -> str:
    """The name of batch ``index``'s records (``part-00012``; its file in ``games/``)."""
    return f"part-{index:05d}"


def part_path(games_dir: Path, index: int) -> Path:
    """The Parquet file of batch ``index`` in a folder's ``games/``."""
    return games_dir / f"{part_name(index)}.parquet"


def saved_batches(games_dir: Path) -> list[int]:
    """The indices of the batch files in a folder's ``games/``, ascending (none: [])."""
    import re

    if games_dir is None or not Path(games_dir).is_dir():       # none, or a run in memory
        return []
    found = (re.fullmatch(r"part-(\d+)\.parquet", p.name) for p in Path(games_dir).iterdir())
    return sorted(int(m.group(1)) for m in found if m)


def records(cfg, b):
    """Per-game records of a batch as a DataFrame (one row per game): the game number, every
    saved record field (:data:`sim.kernel.records.FIELDS`: its ``column``, per seat
    ``column_0`` ..), with ``unfinished`` after ``status`` and ``winner`` before ``turns``;
    then each seat's strategy and swap policy."""
    import pandas as pd

    n = b.status.size
    cols = {"game": b.games}
    for f in FIELDS:
        value = getattr(b.records, f.name)
        if f.column is None:
            continue
        if f.name == "end":
            # why an unfinished game stopped: "cap" (the turn limit, R25) or "cycle" (proven
            # endless, sim.kernel.cycle); null for a finished game
            cols[f.column] = pd.Categorical.from_codes(value.astype(np.int8) - (END_FINISHED + 1),
                                                       list(END_NAMES[1:]))
        elif f.shape:
            cols.update({f"{f.column}_{s}": value[:, s] for s in range(f.shape[0])})
        else:
            cols[f.column] = value
    df = pd.DataFrame(cols)
    df.insert(df.columns.get_loc("unfinished_by"), "unfinished", b.status == UNFINISHED)
    df.insert(df.columns.get_loc("turns"), "winner", b.order[:, 0])
    for s in range(cfg.players):
        df[f"strategy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8),
                                                        [cfg.strategies[s]])
        df[f"swap_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [cfg.swaps[s]])
    return df


def read_records(df) -> Records:
    """The record fields of the games in ``df`` (a saved batch's columns, :func:`records`);
    a field not saved (``errors``) is zeros, a seat's column missing (a folder saved with 6
    seats, before format 4) the field's padding."""
    import pandas as pd

    values = {}
    for f in FIELDS:
        if f.column is None:
            values[f.name] = np.zeros((len(df),) + f.shape, f.dtype)
        elif f.name == "end":        # as written by records(): null (finished) is code -1
            values[f.name] = (pd.Categorical(df[f.column], categories=END_NAMES[1:]).codes
                              + END_FINISHED + 1).astype(np.int8)
        elif f.shape:
            pad = np.full(len(df), f.pad, f.dtype)
            values[f.name] = np.stack([df[f"{f.column}_{s}"].to_numpy()
                                       if f"{f.column}_{s}" in df else pad
                                       for s in range(f.shape[0])], axis=1)
        else:
            values[f.name] = df[f.column].to_numpy()
    return Records(**values)
