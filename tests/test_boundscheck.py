"""The guard for out-of-bounds accesses: ``tests/boundscheck_paths.py``
plays every command's game paths under every preset and random option sets with Numba's
bounds checking forced on (``NUMBA_BOUNDSCHECK=1``) and a compile cache of its own.

Slow (bounds-checked code compiles from scratch), so skipped unless ``SHITHEAD_BOUNDSCHECK=1``
(CI runs it as a step of its own): ``SHITHEAD_BOUNDSCHECK=1 pytest -m boundscheck``.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.boundscheck,
    pytest.mark.skipif(os.environ.get("SHITHEAD_BOUNDSCHECK") != "1",
                       reason="bounds-checked paths: set SHITHEAD_BOUNDSCHECK=1 to run"),
]


def test_every_command_path_stays_in_bounds(tmp_path):
    """No out-of-bounds index anywhere (H12's swap buffer was one): the script exits 0 and
    has checked that bounds checking was in force. Its cache: SHITHEAD_BOUNDSCHECK_CACHE, or
    a fresh folder (then it compiles everything, cold)."""
    cache = os.environ.get("SHITHEAD_BOUNDSCHECK_CACHE") or str(tmp_path / "cache")
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "SHITHEAD_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "boundscheck_paths.py"),
                        "--cache", cache, "--work", str(tmp_path / "work")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=7200)
    assert r.returncode == 0, (r.stdout[-6000:] + r.stderr[-3000:])
    assert "0 failed" in r.stdout
