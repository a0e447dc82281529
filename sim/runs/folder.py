"""The saved folder (``--out DIR``): one protocol for every command that saves one (``sim run``,
``sim compare``, ``sim study swap``, ``sim study rules``, ``sim tune``, ``sim review``).

What a folder of each kind holds is declared once, in its :class:`~sim.runs.kinds.Kind`: its
``format`` (the version of its files), what must ``match`` to continue it with ``--resume``
(everything that decides its games; the format and the code's hash, :func:`versions`, are
added) and its result files, written at the end (removed when it resumes). A command hands
:func:`open_for_write` its kind, its ``options`` (what was asked, shown by ``sim report``)
and the facts ``match`` names, and it does the rest.

:func:`open_for_write` makes the folder, or checks it for ``--resume`` (the same kind, and
every key of ``match`` as saved, said in one wording: ``cannot resume DIR: KEY was X, now
Y``), writes ``manifest.json`` and returns a :class:`Folder`. Its ``write_*`` write each part
atomically (a temporary name, then a rename: a process killed mid-write leaves whole files
only, what ``--resume`` and ``sim.load`` rely on); :meth:`Folder.finish` writes the result
and marks the folder finished, :meth:`Folder.mark_partial` writes what an interrupted command
finished and marks it partial. A :class:`Memory` in place of the path keeps the same folder
in memory (a Python call without ``out=``): its result files and, up to :data:`IN_MEMORY`
games, its per-game records; nothing is written.

``manifest.json``: ``kind``, ``format``, ``options``, ``match``, ``versions``, ``state``
(``running``, ``partial`` or ``finished``; absent in a folder saved before the manifest said
so), ``partial`` (why, when partial), ``created``, ``finished`` and a kind's own fields.
``sim.load`` (:mod:`sim.studies.saved`) reads it and opens each kind with that kind's reader,
which reads through :class:`Folder` (``has``, ``json``, ``parts``): a folder on disk and one
in memory read the same.
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
# The most games whose per-game records a folder kept in memory holds (about 110 bytes a game
# as a DataFrame); past it, out=DIR keeps them on disk (about 21 bytes a game).
IN_MEMORY = 10**6
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
    if resume and (out is None or isinstance(out, Memory)):
        raise StoreError(f"--resume needs --out, the folder of the {what} to continue")
    if out is None or isinstance(out, Memory):
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
    if out is None or isinstance(out, Memory):
        return ""
    path = Path(out).expanduser()
    if read_manifest(path, quiet=True) is None:
        return f"; nothing was saved in {path} yet (start again without --resume)"
    return f"; {what} in {path}, continue with --resume"


def resume_hint(saved) -> str:
    """"; continue with --resume" for a study's partial reason when ``saved`` (its folder, or
    None) is on disk; "" when nothing can be resumed (no folder, or one in memory)."""
    return "; continue with --resume" if getattr(saved, "path", None) is not None else ""


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


def open_for_write(path, kind: str, *, options: dict, facts: dict | None = None,
                   resume: bool = False, extra: dict | None = None,
                   default=None) -> "Folder":
    """The folder ``path`` for a command of ``kind`` (module doc): made and its manifest
    written; with ``resume``, the saved one if its kind and what the kind says must match
    (``facts``, by default ``options``: the values of the kind's ``match``; with the format
    and the code) are those given, its result files removed (written again at the end).
    :class:`StoreError` in one line otherwise. ``path`` a :class:`Memory`: that, the
    manifest kept in it. ``default`` serialises ``options``/``facts`` values JSON does not
    know (as for ``json.dumps``)."""
    from sim.runs.kinds import kind_of

    k = kind_of(kind)
    given = options if facts is None else facts
    match = json.loads(json.dumps({"format": k.format, "code": versions()["code"],
                                   **{name: given[name] for name in k.match}},
                                  default=default))
    if isinstance(path, Memory):
        if resume:
            raise StoreError("resume=True continues a folder: give out=DIR")
        old = None
    else:
        path = make_dir(path)
        try:
            tempfile.NamedTemporaryFile(dir=path, delete=True).close()
        except OSError as e:
            raise StoreError(f"--out: cannot write to {path}: {e.strerror or e}") from None
        old = read_manifest(path)
        if old is not None and not resume:
            raise StoreError(_held(path, old, resumable=True))
    if resume:
        if old is None:
            raise StoreError(f"cannot resume {path}: it holds no saved folder (no "
                             f"{MANIFEST}); start without --resume")
        _check(path, old, kind, match)
        for name in k.results:
            (path / name).unlink(missing_ok=True)
    manifest = {"kind": kind, "format": k.format, "options": options, "match": match,
                "versions": versions(), "state": RUNNING,
                "created": (old or {}).get("created") or _now(), **(extra or {})}
    if isinstance(path, Memory):
        path.manifest, path.default = json.loads(json.dumps(manifest, default=default)), default
        return path
    f = Folder(path, manifest, default)
    f._write_manifest()
    return f


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
    """A saved folder (:func:`open_for_write`; :func:`sim.load` opens one to read it):
    ``path``, ``manifest``; its result files read by name (``has``, ``json``), its per-game
    records as Parquet files (``parts``)."""

    records = None                # the per-game records of a folder in memory (Memory)
    unsaved = None                # why a folder in memory kept none

    def __init__(self, path: Path, manifest: dict, default=None):
        self.path, self.manifest, self.default = Path(path), manifest, default

    def sub(self, name: str) -> Path | None:
        """The subfolder ``name`` (``games``, ``units``), made if missing (None in memory:
        what a command keeps there to resume is not kept)."""
        return make_dir(self.path, name) / name

    def write_json(self, name: str, data, default=None) -> None:
        """``data`` as the JSON file ``name`` (``blocks/block-0.json``: its folder made)."""
        if "/" in name:
            make_dir(self.path, name.rpartition("/")[0])
        write_json(self.path / name, data, default=default or self.default)

    def keep_games(self, name: str, df) -> None:
        """A block of per-game records, ``games/NAME.parquet``."""
        write_parquet(self.sub("games") / f"{name}.parquet", df)

    def keeps_games(self) -> bool:
        """Whether :meth:`keep_games` still keeps them (worth making the records)."""
        return True

    def append_line(self, name: str, line: str) -> None:
        """One more line of the file ``name`` (``trials.jsonl``)."""
        with open(self.path / name, "a") as f:
            f.write(line + "\n")

    def lines(self, name: str) -> list[str]:
        path = self.path / name
        return path.read_text().splitlines() if path.exists() else []

    def has(self, name: str) -> bool:
        return (self.path / name).exists()

    def json(self, name: str, what: str) -> dict:
        """The JSON object saved as ``name``; ``ValueError`` naming ``what`` if unreadable."""
        return read_json(self.path / name, what)

    def parts(self) -> list[Path]:
        """The Parquet files of the per-game records, in order."""
        return sorted((self.path / "games").glob("part-*.parquet"))

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


class Memory(Folder):
    """A folder kept in memory (a Python call without ``out=``): pass it as the command's
    ``out``. Its result files are kept as they would read back from disk (through JSON),
    its per-game records up to :data:`IN_MEMORY` games (past that none, ``unsaved`` saying
    why); what a folder keeps only to resume (``sub``) is not kept. ``path`` is None."""

    def __init__(self, limit: int | None = None):
        import threading

        self.path, self.manifest, self.default = None, {}, None
        self.files: dict = {}
        self.unsaved: str | None = None
        self.limit, self.kept, self._games = limit or IN_MEMORY, 0, {}
        self._lock = threading.Lock()       # blocks end on the pool's threads

    @property
    def records(self) -> list | None:
        """The per-game records kept, block by block in the order of their names."""
        return None if self.unsaved else [self._games[k] for k in sorted(self._games)]

    def sub(self, name: str) -> None:
        return None

    def write_json(self, name: str, data, default=None) -> None:
        self.files[name] = json.loads(json.dumps(data, default=default or self.default))

    def keep_games(self, name: str, df) -> None:
        with self._lock:
            self.kept += len(df)
            if self.kept > self.limit:
                self._games.clear()
                self.unsaved = (f"the per-game records of more than {self.limit:,} games are "
                                f"kept in a folder, not in memory: give out=DIR, then .games")
            elif not self.unsaved:
                self._games[name] = df

    def keeps_games(self) -> bool:
        return self.unsaved is None

    def append_line(self, name: str, line: str) -> None:
        self.files.setdefault(name, []).append(line)

    def lines(self, name: str) -> list[str]:
        return list(self.files.get(name, []))

    def has(self, name: str) -> bool:
        return name in self.files

    def json(self, name: str, what: str) -> dict:
        import copy

        return copy.deepcopy(self.files[name])     # a reader's edits stay its own, as on disk

    def parts(self) -> list[Path]:
        return []

    def _write_manifest(self) -> None:
        pass


def read_json(path: Path, what: str) -> dict:
    """The JSON object in ``path``; ``ValueError`` naming ``what`` if it cannot be read."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is not a readable {what}: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a readable {what}: expected a JSON object")
    return data


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
