"""The code identity: a hash of the files that compiled code, or the games a run plays and
what it records, depend on (:data:`CODE`). It names the compile cache's folder
(:func:`sim.kernel.compiler.cache_dir`) and is saved with every run as its "code", which
``--resume`` requires unchanged: an edit of anything else (the CLI, the reports, the docs)
neither recompiles nor stops a run from being continued.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The kernel and the built-in strategies (all jitted code and all it imports); the short
# public paths a user's strategy imports; and the modules of sim.runs that decide which games
# are played and what is recorded of them (options, seats, seeds: config, registry; batches,
# chunks, one game replayed and records: batch, chunks, onegame, runner, backends, store).
# Not the CLI, the reports, the docs,
# the studies, nor the rest of sim.runs: the tally (re-counted from the saved records on
# --resume), the speed estimates, the folder's file writing and the reading of saved runs.
CODE = ("sim/kernel", "strategies", "sim/cards.py", "sim/layout.py", "sim/moves.py",
        "sim/rng.py", "sim/rules.py", "sim/strategy.py", "sim/runs/config.py",
        "sim/runs/registry.py", "sim/runs/batch.py", "sim/runs/workers.py",
        "sim/runs/onegame.py", "sim/runs/runner.py", "sim/runs/backends.py",
        "sim/runs/store.py")


def digest(root: Path, salt: str = "") -> str:
    """The identity of the code under ``root`` (16 hex digits), with ``salt`` mixed in."""
    h = hashlib.sha256(salt.encode())
    for entry in CODE:
        path = root / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path] * path.exists():
            h.update(file.relative_to(root).as_posix().encode())
            h.update(file.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=None)
def own(salt: str = "") -> str:
    """:func:`digest` of this checkout."""
    return digest(ROOT, salt)
