"""The saved folder's files, written in one place for every command that saves one (``sim
run``, ``sim compare``, ``sim study swap``, ``sim tune``): the folder itself, ``manifest.json``
(what was run, with the versions of the code and libraries), result JSON (``summary.json``
and a study's own) and per-game records as Parquet parts under ``games/``.

Every file is written under a temporary name and renamed, so a process killed mid-write
leaves whole files only (what ``--resume`` and ``sim.load`` rely on).
"""
from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np


class StoreError(ValueError):
    """The output folder cannot be used as asked."""


def versions() -> dict:
    """The project's version, the code's hash (the compile cache's name) and the versions of
    Python and the libraries that make a result."""
    import numba
    import pyarrow

    from sim.kernel.version import VERSION as project
    from sim.kernel.compiler import cache_dir
    return {"shithead-sim": project, "code": cache_dir().name, "python": platform.python_version(),
            "numba": numba.__version__, "numpy": np.__version__, "pyarrow": pyarrow.__version__}


def manifest(kind: str, options: dict, **extra) -> dict:
    """A study's ``manifest.json``: its kind, its options and the versions (then ``extra``)."""
    return {"kind": kind, "options": options, "versions": versions(), **extra}


def make_dir(path, sub: str = "") -> Path:
    """The folder ``path`` (``~`` expanded) and its subfolder ``sub``, made if missing;
    :class:`StoreError` if they cannot be. Returns ``path``."""
    path = Path(path).expanduser()
    try:
        (path / sub).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out: cannot write to {path}: {e.strerror or e}") from None
    return path


def new_dir(path) -> Path:
    """``--out`` for a new saved folder: :func:`make_dir`, refusing a folder that holds a
    saved folder already (its manifest): its results must not be overwritten."""
    path = Path(path).expanduser()
    if (path / "manifest.json").exists():
        raise StoreError(f"--out: {path} already holds a saved folder; choose another")
    return make_dir(path)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, then a rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_json(path: Path, data, default=None) -> None:
    """``data`` as indented JSON at ``path``, atomically; ``default`` as for ``json.dumps``."""
    write_bytes(path, json.dumps(data, indent=2, default=default).encode())


def write_parquet(path: Path, df) -> None:
    """The DataFrame ``df`` as a Parquet file at ``path`` (without its index), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = path.with_suffix(".tmp")
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp)
    os.replace(tmp, path)
