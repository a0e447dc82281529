"""A run's output folder: manifest, per-game records in Parquet batches, summary (written
through :mod:`sim.runs.folder`, as every saved folder is).

Layout of ``--out DIR``::

    manifest.json          options, seed, batch size, versions, strategy identities
    games/part-00000.parquet, ...   one file per batch of consecutive games
    summary.json           written when the run is complete

A batch file is written to a temporary name and renamed, so a run that is killed leaves only
whole batches; ``--resume`` re-reads them and plays the batches that are missing, which gives
exactly the result of an uninterrupted run (the games depend only on seed and index).
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from sim.kernel.cycle import END_FINISHED, END_NAMES
from sim.kernel.records import FIELDS, Records
from sim.kernel.referee import UNFINISHED
from sim.runs.batch import Batch
from sim.runs.folder import StoreError, make_dir, versions, write_json, write_parquet

# 2: the columns unfinished_by and cycle_turns (games proven endless are stopped, sim.kernel.cycle)
FORMAT = 2
# What must match for --resume to continue a run (everything that changes a game's result).
_SAME = ("format", "options", "batch", "code", "strategies")


class Store:
    """The output folder of one run."""

    def __init__(self, path, cfg, resume: bool = False):
        self.path = Path(path).expanduser()
        self.cfg = cfg
        self.games_dir = self.path / "games"
        v = versions()
        self.manifest = {"format": FORMAT, "options": cfg.describe(), "batch": cfg.batch,
                         "code": v["code"], "strategies": cfg.identities(), "versions": v}
        make_dir(self.path, "games")
        try:
            probe = tempfile.NamedTemporaryFile(dir=self.games_dir, delete=True)
            probe.close()
        except OSError as e:
            raise StoreError(f"--out: cannot write to {self.path}: {e.strerror or e}") from None
        old = self._read_manifest()
        if old is None:
            if resume and any(self.games_dir.iterdir()):
                raise StoreError(f"--resume: {self.path} has game files but no manifest.json")
            self._write_json("manifest.json", self.manifest)
        elif not resume:
            raise StoreError(f"--out: {self.path} already holds a run; add --resume to "
                             f"continue it, or choose another folder")
        else:
            saved, now = _flat({k: old.get(k) for k in _SAME}), _flat(
                {k: self.manifest[k] for k in _SAME})
            diff = [k for k in sorted(set(saved) | set(now)) if saved.get(k) != now.get(k)]
            if diff:
                details = "; ".join(f"{k}: saved {json.dumps(saved.get(k))}, now "
                                    f"{json.dumps(now.get(k))}" for k in diff)
                hint = (" The project's code changed since the run began: results of two "
                        "versions are not mixed." if "code" in diff else "")
                raise StoreError(f"--resume: the options differ from the saved run in "
                                 f"{self.path}/manifest.json ({details}).{hint}")

    def _read_manifest(self):
        path = self.path / "manifest.json"
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise StoreError(f"--out: {path} is not a readable manifest: {e}") from None

    def _write_json(self, name, data):
        write_json(self.path / name, data)

    def part(self, index: int) -> Path:
        return part_path(self.games_dir, index)

    def done(self, index: int) -> bool:
        return self.part(index).exists()

    def write(self, index: int, batch) -> None:
        """Write one batch of per-game records as Parquet, atomically."""
        write_parquet(self.part(index), records(self.cfg, batch))

    def read(self, index: int):
        """The batch stored under ``index`` (to re-count it on --resume): every saved record
        field from its columns (:func:`records`); a field not saved (``errors``) is zeros."""
        import pandas as pd

        df = pd.read_parquet(self.part(index))
        return Batch(int(df["game"].iloc[0]), read_records(df))

    def finish(self, summary: dict) -> None:
        self._write_json("summary.json", summary)


def part_path(games_dir: Path, index: int) -> Path:
    """The Parquet file of batch ``index`` in a folder's ``games/``."""
    return games_dir / f"part-{index:05d}.parquet"


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
    a field not saved (``errors``) is zeros."""
    values = {}
    for f in FIELDS:
        if f.column is None:
            values[f.name] = np.zeros((len(df),) + f.shape, f.dtype)
        elif f.name == "end":
            values[f.name] = _end_codes(df[f.column])
        elif f.shape:
            values[f.name] = np.stack([df[f"{f.column}_{s}"].to_numpy()
                                       for s in range(f.shape[0])], axis=1)
        else:
            values[f.name] = df[f.column].to_numpy()
    return Records(**values)


def _end_codes(unfinished_by) -> np.ndarray:
    """The record field ``end`` (sim.kernel.cycle.END_*) from its column: null is finished."""
    by = unfinished_by.astype(object).to_numpy()
    end = np.zeros(len(by), np.int8)
    for code, name in enumerate(END_NAMES):
        end[by == name] = code
    return end


def _flat(data, prefix=""):
    """{"options": {"seed": 1}} -> {"options.seed": 1}, to name what differs."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    if isinstance(data, list):
        out = {}
        for i, v in enumerate(data):
            out.update(_flat(v, f"{prefix}{i}."))
        return out
    return {prefix[:-1]: data}

