"""The compile cache is keyed by the project's sources (NUMBA-NOTES gotcha 1)."""
from __future__ import annotations

import shutil
from pathlib import Path

from sim._jit import cache_dir

ROOT = Path(__file__).resolve().parents[1]


def test_cache_folder_changes_with_any_project_source(tmp_path, monkeypatch):
    monkeypatch.setenv("SHITHEAD_CACHE_DIR", str(tmp_path / "cache"))
    for folder in ("sim", "strategies"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    first = cache_dir(tmp_path)
    assert first.parent == tmp_path / "cache"
    assert cache_dir(tmp_path) == first                       # stable
    engine = tmp_path / "sim" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    assert cache_dir(tmp_path) != first                       # a helper changed: fresh cache
