"""One pool of threads for the process, and the jobs every command's work is cut into.

A command's work is a stream of *jobs*: ``n`` units (games, worlds, deals) that
``block(lo, hi)`` plays, a call of the jitted core, which releases the GIL. The pool's threads
are started once for the process (never per batch) and take *chunks* of the oldest job that
has units left, each sized from the speed of the chunks before it to last about
:data:`SECONDS`, so Ctrl-C is answered within a fraction of a second and a chunk's Python
overhead (the core's call) is a fraction of a percent of it. A job belongs to a
:class:`Group`, the threads one command may use (``--threads``): at most ``threads`` of
its chunks are under way at once, whichever of its jobs they come from.

Nothing waits at a job's end: a command submits the next jobs before it waits for the first
(:func:`stream` keeps the queue fed, a few chunks a thread ahead, so memory stays bounded),
and its own thread sleeps while it waits, waking as chunks finish to report progress
(``tick``, called on the waiting thread, so a progress callback may raise KeyboardInterrupt
like Ctrl-C) and to feed the queue. Which thread plays which chunk changes no result: every unit's outcome
depends on its index alone (each game's random stream comes from (seed, game index)).
"""
from __future__ import annotations

import math
import threading
import time
from collections import deque

SECONDS = 0.05      # a chunk's target duration: Ctrl-C's answer, the tail of a stream
FIRST = 16          # a chunk's size before its job's speed is known
TICKS = 0.05        # the waiting thread wakes at least this often (Ctrl-C, a stop)
AHEAD = 2.0         # a stream keeps this many chunks a thread queued beyond those under way


def next_size(units: int, seconds: float, target: float) -> int:
    """The units of the next piece of work, to last about ``target`` seconds at the speed of
    the last one (``units`` in ``seconds``), at most 4 times as many."""
    return max(1, min(4 * units, int(units * target / max(seconds, 1e-6))))


def check_threads(threads) -> int:
    """``--threads``: from 1 to this machine's cores (Numba's count, ``NUMBA_NUM_THREADS``);
    ``ValueError`` otherwise (more threads than cores only wait for each other)."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise ValueError(f"--threads: expected 1 to {most} (this machine's cores), got "
                         f"{threads}")
    return threads


class Played:
    """Progress counted from jobs: ``tick(units)`` (called by the thread that waits for them)
    adds to ``games``, the units played in this process, and calls ``progress(done)``;
    ``seen(done)`` sets the count shown (units loaded, whole blocks)."""

    def __init__(self, progress=None, done=0):
        self.progress, self.done, self.games = progress, done, 0
        self.lock = threading.Lock()
        if progress and done:
            progress(done)

    def tick(self, games):
        with self.lock:
            self.games += games
            self.done += games
            done = self.done
        if self.progress:
            self.progress(done)

    def seen(self, done):
        with self.lock:
            changed, self.done = done != self.done, done
        if self.progress and changed:
            self.progress(done)


class Speed:
    """Units a second of one thread on one kind of work, from the chunks played: the size of
    the next chunk (:data:`FIRST` until a chunk has been timed). Shared by a group's jobs of
    the same kind (:meth:`Group.speed`), so a new batch starts at the size the last one
    reached; only the size of the chunks depends on it, never a result."""

    def __init__(self):
        self.units, self.seconds = 0, 0.0

    def update(self, units, seconds):
        # the latest chunks count most: a quarter of the history is kept at each update
        self.units = self.units // 4 + units
        self.seconds = self.seconds / 4 + seconds

    def size(self, target=None) -> int:
        if not self.units:
            return FIRST
        return next_size(self.units, self.seconds, SECONDS if target is None else target)

    def rate(self) -> float | None:
        return self.units / self.seconds if self.units and self.seconds > 0 else None


class Job:
    """``n`` units played in chunks by the pool (:meth:`Group.submit`): ``done`` units from
    the first without a gap, ``finished`` in all; ``error``, a chunk's exception. ``tick``,
    if given, is called on the waiting thread with the units added to ``done`` since its
    last call, in whole multiples of ``grain`` (a tournament's deal is ``grain`` games): the
    progress shown is what a stop keeps (the units from the first without a gap)."""

    def __init__(self, group, n, block, speed, tick=None, grain=1, then=None):
        self.group, self.n, self.block, self.speed, self.tick = group, n, block, speed, tick
        self.grain, self.then = grain, then
        self.next = 0              # the first unit not handed out
        self.spans = {}            # finished chunks past a gap: lo -> hi
        self.done = 0
        self.finished = 0
        self.ticked = 0
        self.running = 0           # chunks under way
        self.cancelled = False
        self.error = None
        self.value = None          # what ``then`` returned
        self.busy = 0.0            # seconds the pool's threads spent in its chunks

    @property
    def over(self) -> bool:
        """Every unit finished (and ``then`` run), or cancelled (an error, a stop), with no
        chunk under way."""
        stopped = self.cancelled or self.group.stop.is_set()
        return self.running == 0 and (self.done >= self.n or stopped)

    def _finish(self, lo, hi):
        self.spans[lo] = hi
        while self.done in self.spans:
            self.done = self.spans.pop(self.done)
        self.finished += hi - lo


# The pool: its threads, and the jobs with units to hand out, oldest first. One condition
# guards all of it: threads wait on it for work, and waiting commands for their jobs.
_cond = threading.Condition()
_queue: list = []
_threads: list = []
# What the pool's threads did, for benchmarks/scaling.py (read with :func:`stats`).
_stats = {"busy": 0.0, "chunks": 0, "units": 0}


def stats() -> dict:
    """The pool's totals since the process started: ``busy`` (seconds its threads spent in
    chunks), ``chunks`` and ``units`` played."""
    with _cond:
        return dict(_stats, threads=len(_threads))


_groups: set = set()         # the groups at work (jobs queued or chunks under way)


def _ensure() -> None:
    """Start threads until the pool has as many as the groups at work may use together, so
    that no group waits for another's threads (under ``_cond``); they are never stopped,
    and wait for work when idle."""
    n = sum(g.threads for g in _groups)
    while len(_threads) < n:
        t = threading.Thread(target=_work, daemon=True, name=f"shithead-{len(_threads)}")
        _threads.append(t)
        t.start()


def _size(job) -> int:
    """The next chunk of ``job``: about :data:`SECONDS` of its speed; when it is its group's
    last job with units left, at most an equal share of them per thread (the stream's tail:
    no thread is left with a long chunk while the others are idle)."""
    left = job.n - job.next
    size = job.speed.size()
    g = job.group
    if g.queued == 1:
        size = min(size, math.ceil(left / g.threads))
    return max(1, min(size, left))


def _take():
    """The next chunk (job, lo, hi) for a thread, or None (under ``_cond``)."""
    for job in _queue:
        g = job.group
        if job.cancelled or g.stop.is_set():
            continue
        if g.active >= g.threads:
            continue
        lo = job.next
        hi = lo + _size(job)
        job.next = hi
        if hi >= job.n:
            _queue.remove(job)
            g.queued -= 1
        g.active += 1
        job.running += 1
        return job, lo, hi
    return None


def _work() -> None:
    while True:
        with _cond:
            while (task := _take()) is None:
                _cond.wait()
        job, lo, hi = task
        error = None
        t0 = time.perf_counter()
        try:
            job.block(lo, hi)
        except BaseException as e:      # noqa: BLE001 (given to the waiting thread)
            error = e
        seconds = time.perf_counter() - t0
        then = None
        with _cond:
            job.busy += seconds
            job.group.busy += seconds
            _stats["busy"] += seconds
            _stats["chunks"] += 1
            _stats["units"] += hi - lo
            if error is not None:
                if job.error is None:
                    job.error = error
                _cancel(job)
            else:
                job._finish(lo, hi)
                job.speed.update(hi - lo, seconds)
                if job.done >= job.n and job.then is not None and job.error is None:
                    # the last chunk's thread runs it, a stop notwithstanding: the job is
                    # whole, and what a stop keeps is every job finished whole
                    then, job.then = job.then, None
            if then is None:
                job.group.active -= 1
                job.running -= 1
                if not job.group.queued and not job.group.active:
                    _groups.discard(job.group)
                _cond.notify_all()
        if then is not None:                  # still counted under way: the job is not over
            t0 = time.perf_counter()
            try:
                job.value = then()
            except BaseException as e:        # noqa: BLE001 (given to the waiting thread)
                with _cond:
                    job.error = job.error or e
            seconds = time.perf_counter() - t0
            with _cond:
                job.busy += seconds
                job.group.busy += seconds
                _stats["busy"] += seconds
                job.group.active -= 1
                job.running -= 1
                if not job.group.queued and not job.group.active:
                    _groups.discard(job.group)
                _cond.notify_all()


def _cancel(job) -> None:
    """Hand out no more of ``job`` (under ``_cond``)."""
    if not job.cancelled:
        job.cancelled = True
        if job in _queue:
            _queue.remove(job)
            job.group.queued -= 1
            if not job.group.queued and not job.group.active:
                _groups.discard(job.group)


class Group:
    """The threads one command may use: at most ``threads`` chunks of its jobs under way at
    once (default: all cores). ``stop`` (a threading.Event; one of its own by default) set,
    its jobs hand out no more chunks: those under way finish (within about a chunk's
    :data:`SECONDS`), and the waiting thread sees the jobs cut short (``done < n``).

    ``busy``: the seconds the pool's threads spent in this group's chunks (the parallel
    part of its work, for benchmarks/scaling.py)."""

    def __init__(self, threads=None, stop=None):
        if threads is None:
            import numba
            threads = numba.config.NUMBA_NUM_THREADS
        if hasattr(threads, "__index__") and not isinstance(threads, bool):
            threads = int(threads)               # a NumPy integer
        self.threads = check_threads(threads)
        self.stop = stop if stop is not None else threading.Event()
        self.active = 0            # chunks under way
        self.queued = 0            # jobs with units to hand out
        self.jobs: list = []       # submitted and not yet forgotten (ticks, cancel)
        self.speeds: dict = {}
        self.busy = 0.0

    def speed(self, kind) -> Speed:
        """The :class:`Speed` of this group's work of ``kind`` (any hashable: a batch's
        table, a kernel), shared by its jobs."""
        s = self.speeds.get(kind)
        if s is None:
            s = self.speeds[kind] = Speed()
        return s

    def submit(self, n: int, block, kind=None, tick=None, grain=1, then=None) -> Job:
        """A job of ``n`` units, ``block(lo, hi)`` playing units ``lo .. hi - 1``, queued
        after every job submitted before it (``tick`` and ``grain``: :class:`Job`).
        ``then()``, if given, runs once every unit is played, on the thread that played the
        last chunk (saving a batch's records: not on the waiting thread, which would hold
        up the stream), a stop notwithstanding; what it returns is the job's ``value``."""
        job = Job(self, int(n), block, self.speed(kind), tick, grain, then)
        if job.n == 0 and then is not None:
            job.then = None
            job.value = then()
        with _cond:
            self.jobs.append(job)
            if job.n > 0 and not self.stop.is_set():
                _queue.append(job)
                self.queued += 1
                _groups.add(self)
                _ensure()
                _cond.notify_all()
        return job

    def backlog(self) -> float:
        """Units queued and not handed out, in chunks a thread: how long the threads are fed."""
        with _cond:
            chunks = sum((j.n - j.next) / j.speed.size() for j in _queue if j.group is self)
        return chunks / self.threads

    def wait(self, jobs, meanwhile=None) -> None:
        """Sleep until every job of ``jobs`` is over (finished, or cut short by a stop or an
        error), reporting progress (the jobs' ``tick``) and calling ``meanwhile()`` as chunks
        finish. A chunk's error is raised here, the group's other jobs cancelled; so is
        KeyboardInterrupt (Ctrl-C, or raised by a tick), once the chunks under way have
        ended."""
        jobs = [jobs] if isinstance(jobs, Job) else list(jobs)
        self._until(lambda: all(j.over for j in jobs), meanwhile)
        for j in jobs:
            if j.error is not None:
                self.cancel()
                raise j.error

    def wait_any(self, handles, meanwhile=None):
        """The first of ``handles`` (each with its ``jobs``) whose jobs are all over, after
        sleeping as :meth:`wait` does; a chunk's error is raised here."""
        found = []

        def any_over():
            for h in handles:
                if all(j.over for j in h.jobs):
                    found.append(h)
                    return True
            return False
        self._until(any_over, meanwhile)
        for j in found[0].jobs:
            if j.error is not None:
                self.cancel()
                raise j.error
        return found[0]

    def _until(self, over, meanwhile) -> None:
        try:
            while True:
                with _cond:
                    done = over()
                    if not done:
                        _cond.wait(TICKS)
                self._ticks()
                if done:
                    return
                if meanwhile is not None:
                    meanwhile()
        except BaseException:
            self.cancel()
            raise

    def _ticks(self) -> None:
        """Report the units each job added to its ``done`` since the last report (the
        waiting thread wakes as chunks finish)."""
        for j in list(self.jobs):
            done = j.done // j.grain * j.grain
            if j.tick is not None and done > j.ticked:
                units, j.ticked = done - j.ticked, done
                j.tick(units)

    def forget(self, jobs) -> None:
        """Drop finished jobs from the group's list (their results are the caller's)."""
        jobs = [jobs] if isinstance(jobs, Job) else jobs
        with _cond:
            for j in jobs:
                if j in self.jobs:
                    self.jobs.remove(j)

    def cancel(self, jobs=None, timeout: float = 2 * SECONDS + 1.0) -> None:
        """Hand out no more chunks of ``jobs`` (default: all this group's) and wait, up to
        ``timeout`` seconds, for their chunks under way, so that none writes after this (a
        slower chunk ends on its own; its results are not read)."""
        deadline = time.perf_counter() + timeout
        if jobs is None:
            self.stop.set()          # the whole group: a job submitted after it plays nothing
        with _cond:
            jobs = list(self.jobs if jobs is None else jobs)
            for j in jobs:
                _cancel(j)
            while any(j.running for j in jobs) and time.perf_counter() < deadline:
                _cond.wait(TICKS)

    def close(self) -> None:
        """:meth:`cancel` and forget every job."""
        self.cancel()
        with _cond:
            self.jobs.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def stream(group: Group, items, start, finish, cut=None):
    """Yield ``finish(handle)`` for ``handle = start(item)`` of each item, in order, keeping
    the group's threads fed: items are started ahead (``start`` submits jobs and returns at
    once, a handle with their list as ``.jobs``) while fewer than :data:`AHEAD` chunks a
    thread are queued, so no thread waits for the caller's work between items (tallying,
    saving). A handle with an ``advance()`` method (an item of several steps, each on the
    pool) has it called as chunks finish, to start its next step as soon as it can. Leaving
    early (a break, an error, Ctrl-C) cancels what was started ahead.

    On Ctrl-C (or a stop) ``cut(handles)``, given the handles started and not yet
    yielded (the first one's jobs may have finished), raises the caller's
    :class:`~sim.runs.partial.Interrupted` with what they played; without ``cut``,
    ``finish`` of the first one raises it (the part of it played)."""
    items = iter(items)
    pending: deque = deque()
    more = [True]

    def feed():
        for h in pending:           # an item of several steps starts its next one early
            step = getattr(h, "advance", None)
            if step is not None:
                step()
        while more[0] and (not pending or group.backlog() < AHEAD):
            item = next(items, _END)
            if item is _END:
                more[0] = False
                return
            pending.append(start(item))

    stopped = None
    try:
        feed()
        while pending:
            head = pending[0]
            try:
                group.wait(head.jobs, meanwhile=feed)
                if any(j.done < j.n for j in head.jobs):
                    raise KeyboardInterrupt("stopped")          # a stop: cut short
            except KeyboardInterrupt as e:
                stopped = e
                break
            except Exception:
                finish(head)        # a chunk's error: raised in the caller's words
                raise
            pending.popleft()
            group.forget(head.jobs)
            yield finish(head)
            feed()
        if stopped is not None:
            # Ctrl-C: the items finished whole are the caller's still (it saves them), in
            # order; then what the others played is passed on, and the stop raised
            while pending and all(j.done >= j.n for j in pending[0].jobs):
                head = pending.popleft()
                group.forget(head.jobs)
                yield finish(head)
            if cut is not None:
                cut(list(pending))      # raises the caller's Interrupted
            if pending:
                finish(pending[0])      # cut short: raises its own Interrupted, its part
            raise stopped
    finally:
        started = [j for h in pending for j in h.jobs]
        if started:
            group.cancel(started)
            group.forget(started)


_END = object()
