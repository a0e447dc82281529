"""Where batches are played: in this process (all cores) or on a Dask cluster.

A backend's ``play(cfg, todo, tick)`` yields ``(index, Batch)`` for each ``(index, first, n)``
of ``todo``, in any order, calling ``tick(games)`` as games are played; on Ctrl-C it raises
:class:`~sim.runs.batch.Interrupted` whose ``partial``, when set, is ``(index, Batch)``: the
first games of a batch. Games depend only on (seed, game index), so every backend gives the
same records.
"""
from __future__ import annotations

import functools
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

from sim.runs.batch import Interrupted, play_batch
from sim.runs.config import RunConfig, RunError


class LocalBackend:
    """This process, with ``threads`` threads (default: all cores).

    One batch is played ahead, on a thread of its own, while the caller tallies and saves
    the one before (the core releases the GIL), so the next batch need not wait for them."""

    def __init__(self, threads=None):
        self.threads = threads or numba.config.NUMBA_NUM_THREADS

    def play(self, cfg, todo, tick=None):
        stop = threading.Event()
        if len(todo) < 2:
            for index, first, n in todo:
                yield index, _played(index, play_batch, cfg, first, n, self.threads,
                                     stop=stop, tick=tick)
            return
        ahead = ThreadPoolExecutor(1, thread_name_prefix="shithead-batch")
        pending = None
        try:
            for index, first, n in todo:
                job = index, ahead.submit(play_batch, cfg, first, n, self.threads,
                                          stop=stop, tick=tick)
                if pending is not None:
                    yield pending[0], pending[1].result()
                pending = job
            yield pending[0], pending[1].result()
        except KeyboardInterrupt as e:
            # Ctrl-C: stop the batch under way (its chunks end within a second) and pass on
            # its first games, played, with the batch's index
            stop.set()
            if isinstance(e, Interrupted) or pending is None:
                raise
            played = _played(pending[0], pending[1].result)
            raise Interrupted((pending[0], played)) from None
        finally:   # stopped early (an error, Ctrl-C): drop the batch not yet started
            stop.set()
            ahead.shutdown(wait=False, cancel_futures=True)


def _played(index, play, *args, **kwargs):
    """``play(*args, **kwargs)``; an :class:`Interrupted` from it with ``(index, partial)``."""
    try:
        return play(*args, **kwargs)
    except Interrupted as e:
        e.partial = (index, e.partial)
        raise


@functools.lru_cache(maxsize=8)
def _worker_config(spec_json: str):
    """A worker builds (and compiles) each config once, not once per task."""
    return RunConfig.from_spec(json.loads(spec_json))


def _play_on_worker(spec_json: str, first: int, n: int):
    cfg = _worker_config(spec_json)
    return play_batch(cfg, first, n, numba.config.NUMBA_NUM_THREADS)


class DaskBackend:
    """A Dask distributed cluster: an existing one (``scheduler`` address) or a local one
    started here with ``workers`` processes. At most two batches per worker are in flight, so
    memory stays flat."""

    def __init__(self, scheduler=None, workers=None, threads=None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RunError("--backend dask needs the 'distributed' package "
                           "(pip install 'dask[distributed]')") from None
        self.cluster = None
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
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def play(self, cfg, todo, tick=None):
        from distributed import as_completed
        spec = json.dumps(cfg.to_spec(), sort_keys=True)
        workers = max(1, len(self.client.scheduler_info()["workers"]))
        pending = list(todo)
        running = as_completed()
        keys = {}

        def submit():
            index, first, n = pending.pop(0)
            fut = self.client.submit(_play_on_worker, spec, first, n, pure=False)
            keys[fut.key] = index
            running.add(fut)
        for _ in range(min(2 * workers, len(pending))):
            submit()
        for fut in running:
            index = keys.pop(fut.key)
            batch = fut.result()
            fut.release()
            if pending:
                submit()
            if tick is not None:
                tick(batch.status.size)
            yield index, batch
