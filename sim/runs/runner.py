"""Run many games: play them in batches, aggregate as we go.

:func:`run` plays the games of a :class:`~sim.runs.config.RunConfig` through the jitted batch core
(:mod:`sim.runs.batch`) in batches, so memory stays flat however many games are played, saves
them (:mod:`sim.runs.store`) on the chosen backend (:mod:`sim.runs.backends`), and returns a
:class:`~sim.runs.tally.Tally` of the results. The names of :mod:`sim.runs.config`,
:mod:`sim.runs.batch` and :mod:`sim.runs.onegame` are re-exported here for callers of
``sim.runs.runner``.
"""
from __future__ import annotations

from pathlib import Path

from sim.runs import folder
from sim.runs.backends import LocalBackend
from sim.runs.batch import Batch, batches, play_batch  # noqa: F401  (re-exported)
from sim.runs.workers import Played
from sim.runs.config import DEFAULT_CAP, RunConfig, RunError  # noqa: F401  (re-exported)
from sim.runs.onegame import GameRecord, record_game, strategy_error  # noqa: F401  (re-exported)
from sim.runs.partial import Interrupted, Partial
from sim.runs.store import Store, saved_batches
from sim.runs.tally import Tally


def games_to_play(cfg: RunConfig, out=None, resume=False) -> int:
    """The games :func:`run` will play: all of them, or with ``resume`` those of the batches
    not saved in ``out`` yet (``RunError`` if ``resume`` has no ``out`` or no saved run)."""
    if resume:
        folder.check_resume(resume, out, "run")
    if not (resume and out is not None):
        return cfg.games
    saved = saved_batches(Path(out).expanduser() / "games")
    return cfg.games - sum(_size(cfg, index) for index in saved)


def _size(cfg: RunConfig, index: int) -> int:
    """The games of batch ``index`` (0 past the run's end)."""
    return max(0, min(cfg.batch, cfg.games - index * cfg.batch))


def run(cfg: RunConfig, progress=None, out=None, resume=False, backend=None):
    """Play all games of ``cfg`` and return their :class:`~sim.runs.tally.Tally`.

    ``progress(done)`` is called as games finish (chunks of a batch, so from the first
    second). Ctrl-C raises :class:`~sim.runs.partial.Interrupted` within about a second, its
    ``partial.result`` the tally of the games played so far (the saved folder keeps whole batches:
    ``--resume`` plays the rest). With ``out`` (a folder) every batch's
    per-game records are saved (:mod:`sim.runs.store`), and ``resume`` continues a saved run.
    ``backend`` plays the batches (default: this process, all cores); see :mod:`sim.runs.backends`.
    ``out`` a :class:`~sim.runs.folder.Memory`: the same, kept in memory. The tally adds
    integers only, so the summary does not depend on the order in which batches finish, nor
    on threads, batch size or backend.
    """
    folder.check_resume(resume, out, "run")
    store = Store(out, cfg, resume=resume) if out is not None else None
    tally = Tally(cfg)
    saved = set(store.saved()) if store is not None else set()
    done = 0
    for index in sorted(saved):               # the batches saved: re-counted, not played
        n = _size(cfg, index)
        tally.add(store.read(index))
        tally.loaded += n
        done += n
    # the batches to play, one after the other as the threads need them (no list of them)
    todo = ((index, first, n) for index, first, n in batches(cfg) if index not in saved)
    played = Played(progress, done)
    backend = backend or LocalBackend(cfg.threads)
    try:
        # without a folder to save in, a cluster sends back each batch's counts, not its
        # records (the tally is all that is kept of them)
        for index, b in backend.play(cfg, todo, tick=played.tick, keep=store is not None,
                                     save=None if store is None else store.write):
            tally.add(b)
    except KeyboardInterrupt as e:
        # the whole batches are tallied (and saved); the games played of the others too
        if isinstance(e, Interrupted) and e.partial.done:
            tally.add(e.partial.result)
        raise Interrupted(Partial(tally, tally.games, cfg.games)) from None
    if store is not None:
        store.finish(tally.to_dict())
    return tally
