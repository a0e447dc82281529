"""The code identities: hashes of the files that compiled code, or the games a command plays
and what it records, depend on.

- The compile identity (:data:`CODE`) names the compile cache's folder
  (:func:`sim.kernel.compiler.cache_dir`): the jitted code and all it depends on.
- The results identity (:data:`CODE` and :data:`GAMES`) is saved with every folder as its
  "code", which ``--resume`` requires unchanged (:func:`sim.kernel.compiler.results_code`):
  besides the compiled code, the studies' modules that decide which games are played, under
  which seating, and how a folder holds them (its blocks and stages). Editing those refuses
  a resume but recompiles nothing.

An edit of anything else (the CLI, the reports, the docs, the statistics drawn from the
games) neither recompiles nor stops a saved folder from being continued.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The kernel, the built-in strategies and the learning environments' tables (all jitted
# code and all it imports: Numba checks only a cached function's own file); the short
# public paths a user's strategy imports; and the modules of sim.runs that decide which games
# are played and what is recorded of them (options, seats, seeds: config, registry; batches
# and their chunks on the pool: batch, workers; one game replayed and records: onegame,
# runner, backends, store). Not the CLI, the reports, the docs, nor the rest of sim.runs:
# the tally (re-counted from the saved records on --resume), the time estimates, the
# folder's file writing and the reading of saved folders.
CODE = ("sim/kernel", "strategies", "sim/env", "sim/cards.py", "sim/layout.py", "sim/moves.py",
        "sim/rng.py", "sim/rules.py", "sim/strategy.py", "sim/runs/config.py",
        "sim/runs/registry.py", "sim/runs/batch.py", "sim/runs/workers.py",
        "sim/runs/onegame.py", "sim/runs/runner.py", "sim/runs/backends.py",
        "sim/runs/store.py")

# The studies' modules that decide a saved folder's games (no jitted code): the seating
# designs and the deals' seat orders (design, match), each command's blocks and stages and
# the game numbers in them (compare, tune, the swap study's values and head-to-head stages,
# the rules lab's rulesets and stages). tests/test_code_identity.py classifies every module
# of sim.studies as one of these or as reading the games only.
GAMES = ("sim/studies/design.py", "sim/studies/match.py", "sim/studies/compare.py",
         "sim/studies/tune.py", "sim/studies/swapstudy/values.py",
         "sim/studies/swapstudy/h2h.py", "sim/studies/swapstudy/study.py",
         "sim/studies/ruleslab/study.py", "sim/studies/ruleslab/variants.py",
         "sim/studies/ruleslab/tables.py")


def digest(root: Path, salt: str = "", extra: tuple = ()) -> str:
    """The identity of the code under ``root`` (16 hex digits): the files of :data:`CODE`
    and ``extra`` (:data:`GAMES` for the results identity), with ``salt`` mixed in."""
    h = hashlib.sha256(salt.encode())
    for entry in CODE + tuple(extra):
        path = root / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path] * path.exists():
            h.update(file.relative_to(root).as_posix().encode())
            h.update(file.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=None)
def own(salt: str = "", extra: tuple = ()) -> str:
    """:func:`digest` of this checkout."""
    return digest(ROOT, salt, extra)
