"""The compile cache is keyed by the project's sources (NUMBA-NOTES gotcha 1)."""
from __future__ import annotations

import shutil
from pathlib import Path

from sim.kernel.compiler import cache_dir

ROOT = Path(__file__).resolve().parents[1]


def test_cache_folder_changes_with_any_project_source(tmp_path, monkeypatch):
    monkeypatch.setenv("SHITHEAD_CACHE_DIR", str(tmp_path / "cache"))
    for folder in ("sim", "strategies"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    first = cache_dir(tmp_path)
    assert first.parent == tmp_path / "cache"
    assert cache_dir(tmp_path) == first                       # stable
    engine = tmp_path / "sim" / "kernel" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    assert cache_dir(tmp_path) != first                       # a helper changed: fresh cache


def test_cache_folder_survives_numba_rereading_its_environment():
    """Numba re-reads its configuration when a NUMBA_* variable changes after import; the
    cache must stay in the hashed folder, never fall back beside the sources (where a changed
    rule could run stale compiled code). The folder is also inherited by child processes."""
    import os
    import subprocess
    import sys

    code = ("import os, numba, sim.kernel.compiler as j, sim.kernel.engine\n"
            "os.environ['NUMBA_NUM_THREADS'] = '1'\n"
            "from numba.core.config import reload_config; reload_config()\n"
            "print(numba.config.CACHE_DIR == str(j.cache_dir()) != '')\n"
            "print(os.environ['NUMBA_CACHE_DIR'] == str(j.cache_dir()))")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_NUM_THREADS",)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    assert out == ["True", "True"]
