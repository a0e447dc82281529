"""Open any saved folder for analysis: ``sim.load(DIR)``.

>>> run = sim.load("runs/big")            # doctest: +SKIP
>>> run.by_seat                           # the summary's seat table, as a DataFrame
>>> run.games.groupby("starter")["turns"].mean()   # every per-game record

The manifest (:mod:`sim.runs.folder`) names the folder's kind; each kind is opened by its own
reader (declared in :data:`sim.runs.kinds.KINDS`: a run's in :mod:`sim.runs.saved`, each
study's beside the study, built with :func:`result_of` and :func:`opened`), which returns a :class:`~sim.runs.saved.Loaded`. The
summary, manifest and tables are read at once; the per-game records (one Parquet file per
batch) on first use of ``.games``. :func:`close` ends a study's folder, finished or partial.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from sim.runs import folder
from sim.runs.kinds import kind_of, saved_text
from sim.runs.saved import Loaded, unfinished


def load(path) -> Loaded:
    """Open the folder saved in ``path`` by ``sim run``, ``sim compare``, ``sim study swap``,
    ``sim study rules``, ``sim tune`` or ``sim review`` (``--out``).

    ``ValueError`` in one line if ``path`` is not a saved folder (no ``manifest.json``), is of
    a kind this version does not know, or did not finish (continue it with ``--resume``)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise ValueError(f"{root}: no such folder (expected {saved_text()})")
    if not root.is_dir():
        raise ValueError(f"{root} is a file, not a saved folder (expected {saved_text()})")
    try:
        manifest = folder.read_manifest(root)
    except folder.StoreError as e:
        raise ValueError(str(e)) from None
    if manifest is None:
        raise ValueError(f"{root} is not a saved folder: it has no manifest.json (expected "
                         f"{saved_text()})")
    return read(folder.Folder(root, manifest))


def read(saved: folder.Folder) -> Loaded:
    """``saved`` (a folder on disk or in memory, :class:`~sim.runs.folder.Memory`) opened by
    its kind's reader."""
    kind = saved.manifest.get("kind", "run")
    module, _, name = kind_of(kind, saved.path).reader.partition(":")
    return getattr(importlib.import_module(module), name)(saved)


def result_of(saved: folder.Folder, name: str, what: str, progress: str = "") -> dict:
    """The study's result file ``name`` (JSON, ``what`` in errors); ``ValueError`` saying how
    to continue the study when it has not written it (``progress``: how far it got)."""
    if not saved.has(name):
        raise ValueError(unfinished(saved.path, saved.manifest, name, progress))
    return saved.json(name, what)


def opened(saved: folder.Folder, result: dict, *, config=None, overall=None,
           by_seat=(), by_strategy=()) -> Loaded:
    """A study's folder as ``sim.load`` gives it: ``summary`` holds its options (``config``,
    by default the manifest's), its totals (``overall``), its seat table and, when it saved
    a partial result, why (``result``'s ``partial``, else the manifest's); ``by_seat`` and
    ``by_strategy`` as DataFrames; ``result`` as the Loaded's; its per-game records
    (``parts`` on disk, ``records`` in memory)."""
    import pandas as pd

    manifest = saved.manifest
    summary = {"config": manifest.get("options", {}) if config is None else config,
               "overall": overall or {}, "by_seat": list(by_seat), "by_strategy": []}
    partial = result.get("partial") or manifest.get("partial")
    if partial:
        summary["partial"] = partial
    return Loaded(path=saved.path, manifest=manifest, summary=summary,
                  by_seat=pd.DataFrame(summary["by_seat"]),
                  by_strategy=pd.DataFrame(list(by_strategy)), result=result,
                  parts=saved.parts(), records=saved.records, unsaved=saved.unsaved)


def close(saved: folder.Folder, files: dict, partial: str | None = None, default=None) -> None:
    """Write a study's result ``files`` (name: JSON data; ``default`` as for ``json.dumps``,
    else the folder's) and mark its folder finished, or partial when ``partial`` says why it
    stopped (``--resume`` goes on)."""
    if partial:
        saved.mark_partial(partial, files, default=default)
    else:
        saved.finish(files, default=default)


class Games:
    """``DIR/games/NAME.parquet``: a study's per-game records, one file per block of games,
    written whole as the block finishes (:meth:`~sim.runs.folder.Folder.keep_games`; in
    memory for a :class:`~sim.runs.folder.Memory`); with ``resume``, read back instead of
    played again. ``saved``: the study's folder, or None (nothing is kept)."""

    def __init__(self, saved: folder.Folder | None = None, resume: bool = False):
        self.saved, self.resume = saved, resume

    @property
    def keeps(self) -> bool:
        """Whether the games are kept (on disk or in memory)."""
        return self.saved is not None

    def path(self, name: str) -> Path | None:
        """Where ``name`` is saved on disk (None in memory or when nothing is kept)."""
        if self.saved is None or self.saved.path is None:
            return None
        return self.saved.path / "games" / f"{name}.parquet"

    def read(self, name: str):
        """The DataFrame saved as ``name``, when resuming and it was saved; else None."""
        import pandas as pd

        path = self.path(name) if self.resume else None
        return pd.read_parquet(path) if path is not None and path.exists() else None

    def write(self, name: str, df) -> None:
        """Keep ``df`` (:func:`sim.runs.store.records`' columns and the study's) as ``name``."""
        if self.saved is not None:
            self.saved.keep_games(name, df)
