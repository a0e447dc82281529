"""The tables a rules lab plays, and where their games are kept for ``--resume``.

A table is a seating of strategies played on deals ``first .. first + deals - 1`` of the
study's seed: the same deal numbers under every ruleset (duplicate deals, so every
difference from the base is paired deal by deal). ``rotated`` tables seat the strong
strategy at seat r in rotation r (the weak one elsewhere) and play every deal under all
rotations, as a tournament does (:mod:`sim.studies.match`): each deal's cards meet the strong
strategy at every seat. A block of games is played as plain RunConfigs, on this process's
pool (:mod:`sim.runs.workers`, every block of a stage at once) or a Dask cluster
(:mod:`sim.runs.backends`), and kept as one ``.npz`` file of its per-game records under
``DIR/units/``.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from sim.kernel.referee import UNFINISHED
from sim.runs import folder
from sim.runs.config import RunConfig
from sim.studies.match import places

FIELDS = ("turns", "end", "starter", "dealer", "winner", "loser")   # per game: (rotations, deals)


@dataclass(frozen=True)
class Table:
    """``name``; ``strong`` at one seat and ``weak`` at the others when ``rotated``, else
    ``weak`` at every seat."""

    name: str
    weak: str
    strong: str | None = None

    @property
    def rotated(self) -> bool:
        return self.strong is not None

    def seatings(self, players: int) -> list[list[str]]:
        if not self.rotated:
            return [[self.weak] * players]
        return [[self.strong if s == r else self.weak for s in range(players)]
                for r in range(players)]


def records_of(b, players: int, v2: bool) -> dict:
    """A Batch's games as the fields the measures read: turns, why it ended (cycle.END_*),
    the starting seat, the dealer, the first seat out and, under V2, the last seat holding
    cards (the Shithead); -1 where there is none (unfinished; loser without V2)."""
    done = b.status != UNFINISHED
    loser = np.full(done.size, -1, np.int8)
    if v2:         # the one seat not among the first N - 1 out: the last place
        loser = np.where(done, np.argmax(places(b.order[:, :players], done, True), axis=1),
                         -1).astype(np.int8)
    return {"turns": b.turns.astype(np.int32), "end": b.end.astype(np.int8),
            "starter": b.starter.astype(np.int8), "dealer": b.dealer.astype(np.int8),
            "winner": np.where(done, b.order[:, 0], -1).astype(np.int8), "loser": loser}


class Units:
    """``DIR/units/<table>-<variant>-<first deal>.npz``: the games of one block of one table
    under one ruleset; written whole (atomically) when the block is played."""

    def __init__(self, saved=None):
        """``saved``: the study's :class:`sim.runs.folder.Folder`, or None (nothing kept)."""
        self.path = None if saved is None else saved.sub("units")

    def file(self, table, vindex, first):
        return self.path / f"{table}-{vindex:03d}-{first:07d}.npz"

    def load(self, table, vindex, first):
        if self.path is None or not self.file(table, vindex, first).exists():
            return None
        with np.load(self.file(table, vindex, first)) as z:
            return {k: z[k] for k in FIELDS}

    def save(self, table, vindex, first, rec):
        if self.path is not None:
            buf = io.BytesIO()
            np.savez(buf, **rec)
            folder.write_bytes(self.file(table, vindex, first), buf.getvalue())


class Block:
    """Every seating of ``table`` on deals ``first .. first + deals - 1`` under ``ruleset``,
    started (:func:`start_block`): ``jobs`` (on this process's pool; none on a cluster,
    which plays the block when its result is asked for) and :meth:`result`, the fields of
    :data:`FIELDS`, each (rotations, deals)."""

    def __init__(self, table, ruleset, first, deals, spec, backend, group, tick, index):
        from sim.runs.backends import LocalBackend
        from sim.runs.batch import start

        self.index, self.players = index, spec["players"]
        self.v2 = ruleset.last_player_loses
        self.first, self.deals, self.backend, self.tick = first, deals, backend, tick
        self.cfgs = [RunConfig(games=first + deals, players=self.players, seed=spec["seed"],
                               strategies=seats, rules=ruleset, max_turns=spec["max_turns"],
                               threads=spec["threads"], batch=spec["batch"],
                               cycle_stop=spec["cycle_stop"])
                     for seats in table.seatings(self.players)]
        self.batch = spec["batch"]
        self.parts = None
        self.jobs = []
        if backend is None or isinstance(backend, LocalBackend):
            # every rotation at once, one job each: the pool plays them side by side
            self.parts = [start(group, cfg, first, deals, tick=tick) for cfg in self.cfgs]
            self.jobs = [j for p in self.parts for j in p.jobs]

    def result(self) -> dict:
        """The block's records; Interrupted (the block is dropped: blocks are kept whole)
        if it was cut short."""
        if self.parts is not None:
            batches = [p.result() for p in self.parts]
        else:
            batches = [self._on_backend(cfg) for cfg in self.cfgs]
        rows = [records_of(b, self.players, self.v2) for b in batches]
        return {k: np.stack([r[k] for r in rows]) for k in FIELDS}

    def _on_backend(self, cfg):
        from sim.runs.batch import Batch
        first, end = self.first, self.first + self.deals
        todo = [(i, lo, min(self.batch, end - lo))
                for i, lo in enumerate(range(first, end, self.batch))]
        parts = dict(self.backend.play(cfg, todo, tick=self.tick))
        return Batch.join([parts[i] for i, _, _ in todo])


def start_block(table: Table, ruleset, first: int, deals: int, spec: dict, backend, group,
                tick=None, index=None) -> Block:
    """Start every seating of ``table`` on deals ``first .. first + deals - 1`` under
    ``ruleset`` in ``group`` (a :class:`~sim.runs.workers.Group` of this process, or on the
    Dask ``backend``): a :class:`Block`. ``spec``: players, seed, max_turns, threads, batch,
    cycle_stop."""
    return Block(table, ruleset, first, deals, spec, backend, group, tick, index)


def join(blocks: list[dict]) -> dict:
    """Blocks of consecutive deals as one record (deals concatenated)."""
    return {k: np.concatenate([b[k] for b in blocks], axis=1) for k in FIELDS}
