"""The per-game records the batch core writes: the one definition of their fields.

:data:`FIELDS` names each field, its dtype and its shape per game; :class:`Records` holds one
array per field, named so, and is what the core (:mod:`sim.kernel.referee`) writes into by
name. Everything that reads or writes records goes through these names: the batch
(:class:`sim.runs.batch.Batch`), the saved folder's Parquet columns (:mod:`sim.runs.store`)
and the run's totals (:mod:`sim.runs.tally`); so two fields cannot be swapped unnoticed.
"""
from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np

from sim.kernel.layout import MAXP


class Field(NamedTuple):
    """One record field: its name, dtype and shape per game; ``column`` is its name in the
    saved Parquet files (a per-seat field is saved as ``column_0`` .. ``column_7``, MAXP
    seats), None for a field that is not saved; ``pad``: a per-seat field's value at a seat
    the game does not have (and in folders saved when there were 6 seats)."""

    name: str
    dtype: type
    shape: tuple
    column: str | None
    doc: str
    pad: int = 0


# In the order of the saved columns (sim.runs.store).
FIELDS = (
    Field("status", np.int8, (), "status",
          "FINISHED, UNFINISHED, BAD_MOVE or BAD_SWAP (sim.kernel.referee)"),
    Field("end", np.int8, (), "unfinished_by",
          "why the game ended: sim.kernel.cycle.END_* (finished, cap, cycle)"),
    Field("cycle_turns", np.int32, (), "cycle_turns",
          "the length in turns of the cycle that stopped it, or 0"),
    Field("turns", np.int32, (), "turns", "turns played (R25: up to the cap)"),
    Field("burns", np.int32, (), "burns", "burns of the pile (R10, R11)"),
    Field("starter", np.int8, (), "starter", "the seat that played first (R6)"),
    Field("dealer", np.int8, (), "dealer", "the dealer (R3)"),
    Field("order", np.int8, (MAXP,), "order", "the seats in the order they went out", -1),
    Field("pickups", np.int32, (MAXP,), "pickups", "each seat's pick-ups of the pile"),
    Field("triples", np.int16, (MAXP,), "faceup",
          "each seat's face-up triple after the swap: r1*196 + r2*14 + r3, or -1", -1),
    Field("hand_triples", np.int16, (MAXP,), "hand", "each seat's hand triple, same code", -1),
    Field("errors", np.int64, (3,), None,
          "(seat, answer, turn) of a strategy's bad move or swap (R24)"),
)

# One array per field, (games,) + shape, in the order of FIELDS; passed to the jitted core
# as a named tuple (Numba types it by its fields' names).
Records = namedtuple("Records", [f.name for f in FIELDS])
Records.__doc__ = "One array per record field (:data:`FIELDS`), a row per game."


def allocate(n: int) -> Records:
    """Zeroed records for ``n`` games."""
    return Records(**{f.name: np.zeros((n,) + f.shape, f.dtype) for f in FIELDS})


def take(records: Records, index) -> Records:
    """The rows at ``index`` (a slice: views; an index array: copies) of every field."""
    return records._make(a[index] for a in records)       # field by field, the same type
