"""Open any saved folder for analysis: ``sim.load(DIR)``.

>>> run = sim.load("runs/big")            # doctest: +SKIP
>>> run.by_seat                           # the summary's seat table, as a DataFrame
>>> run.games.groupby("starter")["turns"].mean()   # every per-game record

The manifest (:mod:`sim.runs.folder`) names the folder's kind; each kind is opened by its own
reader (:data:`READERS`: a run's in :mod:`sim.runs.saved`, each study's beside the study), which
returns a :class:`~sim.runs.saved.Loaded`. The summary, manifest and tables are read at once;
the per-game records (one Parquet file per batch) on first use of ``.games``.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from sim.runs import folder
from sim.runs.saved import Loaded

# kind -> "module:function" of its reader, function(root, manifest) -> Loaded
READERS = {"run": "sim.runs.saved:read", "compare": "sim.studies.compare:read",
           "swap-study": "sim.studies.swapstudy.study:read", "tune": "sim.studies.tune:read",
           "rules-lab": "sim.studies.ruleslab.study:read", "review": "sim.studies.review:read"}

SAVED = "the --out folder of sim run, compare, study swap, study rules, tune or review"


def load(path) -> Loaded:
    """Open the folder saved in ``path`` by ``sim run``, ``sim compare``, ``sim study swap``,
    ``sim study rules``, ``sim tune`` or ``sim review`` (``--out``).

    ``ValueError`` in one line if ``path`` is not a saved folder (no ``manifest.json``), is of
    a kind this version does not know, or did not finish (continue it with ``--resume``)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise ValueError(f"{root}: no such folder (expected {SAVED})")
    if not root.is_dir():
        raise ValueError(f"{root} is a file, not a saved folder (expected {SAVED})")
    try:
        manifest = folder.read_manifest(root)
    except folder.StoreError as e:
        raise ValueError(str(e)) from None
    if manifest is None:
        raise ValueError(f"{root} is not a saved folder: it has no manifest.json (expected "
                         f"{SAVED})")
    kind = manifest.get("kind", "run")
    if kind not in READERS:
        raise ValueError(f"{root} holds a folder of kind {kind!r}, which this version of "
                         f"shithead-sim cannot open (known kinds: {', '.join(READERS)})")
    module, _, name = READERS[kind].partition(":")
    return getattr(importlib.import_module(module), name)(root, manifest)
