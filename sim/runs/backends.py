"""Where batches are played: in this process (all cores) or on a Dask cluster.

A backend's ``play(cfg, todo, tick)`` yields ``(index, Batch)`` for each ``(index, first, n)``
of ``todo``, in any order, calling ``tick(games)`` as games are played; on Ctrl-C it raises
:class:`~sim.runs.partial.Interrupted` whose ``partial.result`` is a Batch: the games played
of batches not passed on (none: an empty Batch). Games depend only on (seed, game index), so every backend gives the same records.
A Dask worker rebuilds the config from what is shipped to it (:func:`_spec`), users' strategy
files included.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
import time
from pathlib import Path

import numba

from sim.kernel.records import allocate
from sim.runs.batch import Batch, play_batch, start
from sim.runs.workers import Group, next_size, stream
from sim.runs.config import RunConfig, RunError
from sim.runs.partial import Interrupted, Partial
from sim.runs.registry import spec_file


def _nothing() -> Interrupted:
    """Ctrl-C before a game of a batch not yet whole was played: an empty Batch."""
    return Interrupted(Partial(Batch(0, allocate(0)), 0))


class LocalBackend:
    """This process, with ``threads`` threads (default: all cores) of the process's pool
    (:mod:`sim.runs.workers`).

    The batches are one stream of work: the threads go on with the next batches while the
    caller tallies and saves one (:func:`sim.runs.workers.stream`); a batch is the unit of
    saving and resuming, not of parallel work."""

    def __init__(self, threads=None):
        self.threads = threads or numba.config.NUMBA_NUM_THREADS

    def play(self, cfg, todo, tick=None, keep=True, save=None):
        """Yield ``(index, Batch)`` for each batch of ``todo``, in order (the module
        docstring; ``keep`` is for a cluster: here the records cost nothing to pass on).
        ``save(index, batch)`` is run on the pool's threads as each batch is whole, before
        it is yielded: the writing of one overlaps the play and the writing of others."""
        def begin(item):
            index, first, n = item
            then = None if save is None else (lambda b, i=index: save(i, b))
            return start(group, cfg, first, n, tick=tick, index=index, then=then)

        def cut(started):
            # the games each batch started and not passed on played from its first, as its
            # progress counted them: a tally counts them all (the saved folder keeps whole
            # batches; --resume plays the rest)
            parts = [p.played() for p in started]
            parts = [b for b in parts if b.status.size]
            if parts:
                played = Batch.join(parts)
                raise Interrupted(Partial(played, played.status.size)) from None

        with Group(self.threads) as group:
            try:
                yield from stream(group, todo, begin, lambda p: (p.index, p.result()), cut)
            except KeyboardInterrupt as e:
                if isinstance(e, Interrupted):     # the games played of batches not whole
                    raise
                raise _nothing() from None


def _spec(cfg: RunConfig) -> str:
    """Everything a worker needs to rebuild ``cfg``, as JSON: its options, its parameter rows
    (the driver's: a worker needs no table file) and the sources of users' strategy files
    (a worker needs no copy of them)."""
    files = {name: spec_file(name) for name in {*cfg.strategies, *cfg.swaps}}
    sources = {name: f.read_text() for name, f in files.items() if f is not None}
    return json.dumps({**cfg.describe(), "batch": cfg.batch, "sources": sources,
                       "rows": [r.tolist() for r in cfg.rows]}, sort_keys=True)


def _materialize(spec: str, source: str) -> Path:
    """Write a user's strategy file shipped to a worker under a folder named by its hash."""
    from sim.kernel.compiler import cache_dir

    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = cache_dir().parent / "user" / digest / Path(spec.rpartition(":")[0]).name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # A name of its own per process and thread: two workers of one machine may write the
        # same file at once, and one's rename must not take the other's half-written file.
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(source)
        tmp.replace(path)
    return path


@functools.lru_cache(maxsize=8)
def _worker_config(spec_json: str) -> RunConfig:
    """The config of :func:`_spec` rebuilt on a worker, once, not once per task: users' files
    written from their shipped sources and imported from there."""
    spec = json.loads(spec_json)
    rename = {name: str(_materialize(name, text)) + ":" + name.rpartition(":")[2]
              for name, text in spec["sources"].items()}
    return RunConfig(games=spec["games"], players=spec["players"], seed=spec["seed"],
                     strategies=spec["strategies"], swaps=spec["swaps"], rules=spec["rules"],
                     max_turns=spec["max_turns"], batch=spec["batch"],
                     cycle_stop=spec.get("cycle_stop", True), preset_rows=spec["rows"],
                     imported_as=rename)


def _play_on_worker(spec_json: str, first: int, n: int, keep: bool = True):
    """Games ``first .. first + n - 1`` on a worker, and the seconds they took there: on one
    thread, a task being one of the worker's (a worker of ``threads_per_worker`` threads
    runs as many tasks at once). ``keep``: their records (a Batch), else only the totals
    of their tally (:meth:`~sim.runs.tally.Tally.counts`: a few hundred bytes, not a
    hundred a game, to send and unpack)."""
    from sim.runs.tally import Tally

    cfg = _worker_config(spec_json)
    t0 = time.perf_counter()
    batch = play_batch(cfg, first, n, 1)
    if not keep:
        tally = Tally(cfg)
        tally.add(batch)
        batch = tally.counts()
    return batch, time.perf_counter() - t0


WARM = 1 << 41        # the game a cluster is warmed with: far past every run's (no result)


def _warm_worker(spec_json: str) -> None:
    """Load (or compile) on this worker the code that plays the config of ``spec_json``."""
    play_batch(_worker_config(spec_json), WARM, 1, 1)


class DaskBackend:
    """A Dask distributed cluster: an existing one (``scheduler`` address), a local one
    started here with ``workers`` processes, or a ``client`` given (a Python caller's).

    Each batch is played as tasks of consecutive games sized to last about ``SECONDS`` on a
    worker (from the speed of the tasks done so far, starting at ``FIRST`` games), so the
    progress moves task by task and Ctrl-C is answered at once: the tasks under way are
    cancelled and the games of the tasks finished, in batches not yet whole, are passed on
    (:class:`~sim.runs.partial.Interrupted`). At most two tasks per worker are in flight, so
    memory stays flat; a batch is yielded once all its tasks are back, its games in order."""

    SECONDS = 1.0
    FIRST = 64

    def __init__(self, scheduler=None, workers=None, threads=None, client=None):
        self.cluster = None
        self.own = client is None
        if client is not None:
            self.client = client
            return
        from sim.runs.extras import require
        require("distributed", "--backend dask")
        from distributed import Client, LocalCluster
        try:
            if scheduler:
                self.client = Client(scheduler, timeout="5s")
            else:
                self.cluster = LocalCluster(n_workers=workers or 2,
                                            threads_per_worker=threads or 1,
                                            processes=True, dashboard_address=None)
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as e:
            raise RunError(f"--scheduler: cannot reach the Dask scheduler at {scheduler}: "
                           f"{e}") from None

    def close(self):
        if not self.own:
            return
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def warm(self, cfg, spec=None) -> None:
        """Load (or compile) the code that plays ``cfg`` here, then on every worker, before
        the first task: on one machine the workers read it from the compile cache this
        process filled, rather than all compiling it at once; on several machines,
        ``SHITHEAD_CACHE_DIR`` on a shared filesystem does the same (docs/long-runs.md).
        Each worker then has it for every task (Numba keeps it in the process)."""
        play_batch(cfg, WARM, 1, 1)
        self.client.run(_warm_worker, spec or _spec(cfg))

    def play(self, cfg, todo, tick=None, keep=True, save=None):
        """As :meth:`LocalBackend.play` (``save`` here runs on this thread); with ``keep``
        false (nothing to save) each batch comes back as its tally's counts
        (:meth:`~sim.runs.tally.Tally.counts`), not its records: the driver then unpacks a
        few hundred bytes a task."""
        from distributed import as_completed
        spec = _spec(cfg)
        if todo:
            self.warm(cfg, spec)
        info = self.client.scheduler_info()["workers"]
        # a worker of N threads runs N tasks at once: two in flight for each
        workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.values()))
        tasks = _Tasks(todo, self.FIRST, self.SECONDS, keep)
        running = as_completed()
        keys = {}

        def submit():
            task = tasks.next()
            if task is not None:
                index, first, n = task
                fut = self.client.submit(_play_on_worker, spec, first, n, keep, pure=False)
                keys[fut.key] = index, first, n, fut
                running.add(fut)
        for _ in range(2 * workers):
            submit()
        try:
            for fut in running:
                index, first, n, _ = keys.pop(fut.key)
                part, seconds = fut.result()
                fut.release()
                whole = tasks.finished(index, first, n, part, seconds)
                submit()
                if tick is not None:
                    tick(n)
                if whole is not None:
                    if save is not None:
                        save(index, whole)
                    yield index, whole
        except KeyboardInterrupt:
            self.client.cancel([f for *_, f in keys.values()])
            played, games = tasks.partial()
            raise Interrupted(Partial(played, games)) from None


class _Tasks:
    """The tasks of :class:`DaskBackend`: consecutive games of the batches ``todo``, each
    task's size chosen from the speed of those finished; the finished ones kept until their
    batch is whole."""

    def __init__(self, todo, first_size, seconds, keep=True):
        self.todo, self.size, self.seconds, self.keep = iter(todo), first_size, seconds, keep
        self.cursor = None                 # [index, first game, games, next game]
        self.parts, self.left = {}, {}     # per batch: {first game: Batch}, games still out

    def next(self):
        if self.cursor is None:
            nxt = next(self.todo, None)
            if nxt is None:
                return None
            index, first, n = nxt
            self.cursor = [index, first, first + n, first]
            self.parts[index], self.left[index] = {}, n
        index, _, end, at = self.cursor
        n = min(self.size, end - at)
        self.cursor[3] += n
        if self.cursor[3] >= end:
            self.cursor = None
        return index, at, n

    def finished(self, index, first, games, part, seconds):
        """Keep a finished task's ``games`` (a Batch, or its tally's counts); the batch if
        it is now whole (its games in order, or their counts added up), else None."""
        self.size = next_size(games, seconds, self.seconds)
        self.parts[index][first] = part
        self.left[index] -= games
        if self.left[index]:
            return None
        del self.left[index]
        parts = self.parts.pop(index)
        return self._join([parts[k] for k in sorted(parts)])

    def _join(self, parts):
        if self.keep:
            return Batch.join(parts)
        total = {k: v.copy() if hasattr(v, "copy") else v for k, v in parts[0].items()}
        for p in parts[1:]:
            for k, v in p.items():
                total[k] = total[k] + v
        return total

    def partial(self):
        """The games of every finished task of the batches not yet whole, as one Batch (or
        counts) and their number (an empty Batch and 0 if none)."""
        done = [parts[k] for index in sorted(self.parts)
                for parts in [self.parts[index]] for k in sorted(parts)]
        if not done:
            return Batch(0, allocate(0)), 0
        joined = self._join(done)
        return joined, int(joined["games"] if isinstance(joined, dict)
                           else joined.status.size)
