"""The saved folder (``--out DIR``): one protocol for every command that saves one (``sim run``,
``sim compare``, ``sim study swap``, ``sim study rules``, ``sim tune``, ``sim review``).

A command declares what it saves and :func:`open_for_write` does the rest:

- ``kind`` (``run``, ``compare``, ...) and ``format`` (the version of its files);
- ``options``: what was asked, shown by ``sim report``;
- ``match``: what must be the same to continue the folder with ``--resume`` (everything
  that decides its games); the format and the code's hash (:func:`versions`) are added;
- ``results``: the files of its result, written at the end (removed when it resumes).

:func:`open_for_write` makes the folder, or checks it for ``--resume`` (the same kind, and
every key of ``match`` as saved, said in one wording: ``cannot resume DIR: KEY was X, now
Y``), writes ``manifest.json`` and returns a :class:`Folder`. Its ``write_*`` write each part
atomically (a temporary name, then a rename: a process killed mid-write leaves whole files
only, what ``--resume`` and ``sim.load`` rely on); :meth:`Folder.finish` writes the result
and marks the folder finished, :meth:`Folder.mark_partial` writes what an interrupted command
finished and marks it partial.

``manifest.json``: ``kind``, ``format``, ``options``, ``match``, ``versions``, ``state``
(``running``, ``partial`` or ``finished``; absent in a folder saved before the manifest said
so), ``partial`` (why, when partial), ``created``, ``finished`` and a kind's own fields.
``sim.load`` (:mod:`sim.studies.saved`) reads it and opens each kind with that kind's reader.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import tempfile
from pathlib import Path

import numpy as np

from sim.runs.config import RunError

MANIFEST = "manifest.json"
RUNNING, PARTIAL, FINISHED = "running", "partial", "finished"


class StoreError(RunError):
    """The output folder cannot be used as asked."""


def versions() -> dict:
    """The project's version, the code's hash (what decides the games: --resume requires it
    unchanged, :func:`sim.kernel.compiler.results_code`) and the versions of Python and the
    libraries that make a result."""
    import numba
    import pyarrow

    from sim.kernel.version import VERSION as project
    from sim.kernel.compiler import results_code
    return {"shithead-sim": project, "code": results_code(), "python": platform.python_version(),
            "numba": numba.__version__, "numpy": np.__version__, "pyarrow": pyarrow.__version__}


def check_resume(resume: bool, out, what: str = "run") -> None:
    """``--resume`` continues a saved folder, so it needs ``--out``; ``--out`` is a folder (or
    none yet), holding a saved one when resumed and none otherwise: checked before anything
    is estimated, written or played, in one wording for every command (``what``: the run,
    the study). What must match to resume is checked when the folder is opened."""
    if resume and out is None:
        raise StoreError(f"--resume needs --out, the folder of the {what} to continue")
    if out is None:
        return
    path = Path(out).expanduser()                  # nothing written yet: only looked at
    if path.exists() and not path.is_dir():
        raise StoreError(f"--out: {path} is a file, not a folder")
    old = read_manifest(path) if path.is_dir() else None
    if old is not None and not resume:
        raise StoreError(_held(path, old, resumable=True))
    if resume and old is None:
        raise StoreError(f"cannot resume {path}: it holds no saved folder (no {MANIFEST}); "
                         f"start without --resume")


def resume_advice(out, what: str) -> str:
    """What a stopped command adds to its last line: where ``what`` (``the finished batches
    are``) lie and ``--resume``, only when ``out`` holds a saved folder to continue (a stop
    in the first seconds may have written none, and ``--resume`` would refuse it); "" without
    ``--out``."""
    if out is None:
        return ""
    path = Path(out).expanduser()
    if read_manifest(path, quiet=True) is None:
        return f"; nothing was saved in {path} yet (start again without --resume)"
    return f"; {what} in {path}, continue with --resume"


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
    if (path / MANIFEST).exists():
        raise StoreError(_held(path, read_manifest(path, quiet=True), resumable=False))
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


def read_manifest(path, quiet: bool = False) -> dict | None:
    """``path/manifest.json`` as a dict, None if there is none; :class:`StoreError` if it
    cannot be read (``quiet``: then ``{}``)."""
    file = Path(path).expanduser() / MANIFEST
    if not file.exists():
        return None
    try:
        data = json.loads(file.read_text())
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        return data
    except (OSError, ValueError) as e:
        if quiet:
            return {}
        raise StoreError(f"{file} is not a readable manifest: {e}") from None


def _now() -> str:
    return _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")


def _held(path: Path, manifest: dict, resumable: bool) -> str:
    kind = manifest.get("kind", "run") if manifest else "saved folder"
    return (f"--out: {path} already holds a saved folder ({kind}); "
            + ("add --resume to continue it (the same options), or " if resumable else "")
            + "choose another folder")


def open_for_write(path, kind: str, *, format: int, options: dict, match: dict,
                   resume: bool = False, results=(), extra: dict | None = None,
                   default=None) -> "Folder":
    """The folder ``path`` for a command of ``kind`` (module doc): made and its manifest
    written; with ``resume``, the saved one if its kind and ``match`` (with the format and
    the code) are those given, its ``results`` removed (written again at the end).
    :class:`StoreError` in one line otherwise. ``default`` serialises ``options``/``match``
    values JSON does not know (as for ``json.dumps``)."""
    path = make_dir(path)
    try:
        tempfile.NamedTemporaryFile(dir=path, delete=True).close()
    except OSError as e:
        raise StoreError(f"--out: cannot write to {path}: {e.strerror or e}") from None
    match = json.loads(json.dumps({"format": format, "code": versions()["code"], **match},
                                  default=default))
    old = read_manifest(path)
    if old is not None and not resume:
        raise StoreError(_held(path, old, resumable=True))
    if resume:
        if old is None:
            raise StoreError(f"cannot resume {path}: it holds no saved folder (no "
                             f"{MANIFEST}); start without --resume")
        _check(path, old, kind, match)
        for name in results:
            (path / name).unlink(missing_ok=True)
    manifest = {"kind": kind, "format": format, "options": options, "match": match,
                "versions": versions(), "state": RUNNING,
                "created": (old or {}).get("created") or _now(), **(extra or {})}
    f = Folder(path, manifest, default)
    f._write_manifest()
    return f


def open_saved(path, kind: str) -> "Folder":
    """The folder ``path`` a command of ``kind`` opened (:func:`open_for_write`), to write
    its result; :class:`StoreError` if it holds none."""
    path = Path(path).expanduser()
    old = read_manifest(path)
    if old is None or old.get("kind", "run") != kind:
        raise StoreError(f"{path} holds no {kind} folder to write to (no {MANIFEST} of "
                         f"kind {kind})")
    return Folder(path, old)


def _check(path: Path, old: dict, kind: str, match: dict) -> None:
    """``--resume``: the saved folder must be of ``kind`` with the same ``match``."""
    if old.get("kind", "run") != kind:
        raise StoreError(f"cannot resume {path}: it holds a {old.get('kind', 'run')} folder, "
                         f"not a {kind} one")
    if "match" not in old:
        raise StoreError(f"cannot resume {path}: it was saved by an older version of "
                         f"shithead-sim ({MANIFEST} says nothing of what must match); start "
                         f"again in another folder")
    saved, now = _flat(old["match"]), _flat(match)
    diff = [k for k in sorted(set(saved) | set(now)) if saved.get(k) != now.get(k)]
    if diff:
        said = "; ".join(f"{k} was {json.dumps(saved.get(k))}, now {json.dumps(now.get(k))}"
                         for k in diff)
        hint = (" (the project's code changed since it began: results of two versions are "
                "not mixed)" if "code" in diff else "")
        raise StoreError(f"cannot resume {path}: {said}{hint}")


class Folder:
    """A saved folder open for writing (:func:`open_for_write`): ``path``, ``manifest``."""

    def __init__(self, path: Path, manifest: dict, default=None):
        self.path, self.manifest, self.default = Path(path), manifest, default

    def sub(self, name: str) -> Path:
        """The subfolder ``name`` (``games``, ``units``), made if missing."""
        return make_dir(self.path, name) / name

    def write_json(self, name: str, data, default=None) -> None:
        write_json(self.path / name, data, default=default or self.default)

    def _write_manifest(self) -> None:
        self.write_json(MANIFEST, self.manifest)

    def _mark(self, files, default, **fields) -> None:
        for name, data in (files or {}).items():       # the results first, then the state
            self.write_json(name, data, default=default)
        for key in (PARTIAL, FINISHED):
            self.manifest.pop(key, None)
        self.manifest.update(fields)
        self._write_manifest()

    def finish(self, files: dict | None = None, default=None) -> None:
        """Write ``files`` (name: JSON data) and mark the folder finished."""
        self._mark(files, default, state=FINISHED, finished=_now())

    def mark_partial(self, reason: str, files: dict | None = None, default=None) -> None:
        """Write ``files`` (what an interrupted command finished) and mark the folder
        partial, ``reason`` saying why (``sim report`` shows it; ``--resume`` goes on)."""
        self._mark(files, default, state=PARTIAL, partial=reason)


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
