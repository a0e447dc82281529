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

from sim.runs.batch import Batch
from sim.kernel.referee import UNFINISHED
from sim.kernel.cycle import END_FINISHED, END_NAMES
from sim.kernel.layout import MAXP
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
        return self.games_dir / f"part-{index:05d}.parquet"

    def done(self, index: int) -> bool:
        return self.part(index).exists()

    def write(self, index: int, batch) -> None:
        """Write one batch of per-game records as Parquet, atomically."""
        write_parquet(self.part(index), records(self.cfg, batch))

    def read(self, index: int):
        """The batch stored under ``index`` (to re-count it on --resume)."""
        import pandas as pd

        df = pd.read_parquet(self.part(index))
        order = np.stack([df[f"order_{s}"].to_numpy() for s in range(MAXP)], axis=1)
        pickups = np.stack([df[f"pickups_{s}"].to_numpy() for s in range(MAXP)], axis=1)
        triples = np.stack([df[f"faceup_{s}"].to_numpy() for s in range(MAXP)], axis=1)
        hand = np.stack([df[f"hand_{s}"].to_numpy() for s in range(MAXP)], axis=1)
        by = df["unfinished_by"].astype(object).to_numpy()
        end = np.zeros(len(df), np.int8)                    # null: finished
        for code, name in enumerate(END_NAMES):
            end[by == name] = code
        return Batch(int(df["game"].iloc[0]), df["status"].to_numpy(), df["turns"].to_numpy(),
                     order, pickups, df["burns"].to_numpy(), df["starter"].to_numpy(),
                     df["dealer"].to_numpy(), np.zeros((len(df), 3), np.int64), triples, hand,
                     end, df["cycle_turns"].to_numpy())

    def finish(self, summary: dict) -> None:
        self._write_json("summary.json", summary)


def records(cfg, b):
    """Per-game records of a batch as a DataFrame (one row per game)."""
    import pandas as pd

    n = b.status.size
    end = b.end if b.end is not None else np.where(b.status == UNFINISHED, 1, 0)
    # why an unfinished game stopped: "cap" (the turn limit, R25) or "cycle" (proven endless,
    # sim.kernel.cycle); null for a finished game
    unfinished_by = pd.Categorical.from_codes(end.astype(np.int8) - (END_FINISHED + 1),
                                              list(END_NAMES[1:]))
    cols = {"game": b.games, "status": b.status,
            "unfinished": b.status == UNFINISHED, "unfinished_by": unfinished_by,
            "cycle_turns": (b.cycle_turns if b.cycle_turns is not None
                            else np.zeros(n, np.int32)),
            "winner": b.order[:, 0], "turns": b.turns,
            "burns": b.burns, "starter": b.starter, "dealer": b.dealer}
    for s in range(MAXP):
        cols[f"order_{s}"] = b.order[:, s]
    for s in range(MAXP):
        cols[f"pickups_{s}"] = b.pickups[:, s]
    for s in range(MAXP):   # face-up triple after the swap: r1*196 + r2*14 + r3 (sim.kernel.referee)
        cols[f"faceup_{s}"] = b.triples[:, s]
    for s in range(MAXP):   # hand triple after the swap, same code
        cols[f"hand_{s}"] = b.hand_triples[:, s]
    df = pd.DataFrame(cols)
    for s in range(cfg.players):
        df[f"strategy_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8),
                                                        [cfg.strategies[s]])
        df[f"swap_{s}"] = pd.Categorical.from_codes(np.zeros(n, np.int8), [cfg.swaps[s]])
    return df


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

