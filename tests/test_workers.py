"""The process's pool of threads (sim.runs.workers): jobs cut into chunks, a group's thread
limit, streams fed ahead with bounded memory, stops, errors and progress. Plain Python
blocks stand in for the core here (they hold the GIL, which changes nothing but speed)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from sim.runs import workers
from sim.runs.workers import Group, stream


def _filler(out, seconds=0.0):
    """A block writing each unit's index, as the core writes each game's record, taking
    ``seconds`` a unit."""
    def block(lo, hi):
        if seconds:
            time.sleep(seconds * (hi - lo))
        out[lo:hi] = np.arange(lo, hi)
    return block


def test_a_job_is_played_whole_in_chunks_whatever_the_threads():
    for threads in (1, 2):
        out = np.full(10_000, -1)
        with Group(threads) as g:
            job = g.submit(out.size, _filler(out))
            g.wait(job)
        assert job.done == job.n == out.size and np.array_equal(out, np.arange(out.size))


def test_a_group_never_runs_more_chunks_at_once_than_its_threads():
    live, most, lock = [0], [0], threading.Lock()

    def block(lo, hi):
        with lock:
            live[0] += 1
            most[0] = max(most[0], live[0])
        time.sleep(0.002)
        with lock:
            live[0] -= 1
    with Group(1) as g:
        jobs = [g.submit(200, block) for _ in range(3)]
        g.wait(jobs)
    assert most[0] == 1


def test_a_stream_yields_in_order_and_keeps_the_threads_fed_ahead():
    """Items are started before the caller asks for them (the threads play on while it
    holds one), yielded in order, and at most a bounded number are started ahead."""
    started, outs = [], {}

    def start(i):
        started.append(i)
        outs[i] = np.full(500, -1)
        h = type("H", (), {})()
        h.i, h.jobs = i, [g.submit(500, _filler(outs[i], 2e-5), kind="fill")]
        return h

    with Group(2) as g:
        seen = []
        for h in stream(g, range(60), start, lambda h: h):
            seen.append(h.i)
            assert np.array_equal(outs[h.i], np.arange(500))
            assert len(started) - len(seen) <= 64      # memory stays bounded
            if h.i == 5:               # the chunks' speed known: items are started ahead
                before = workers.stats()["units"]
                time.sleep(0.1)        # the caller holds item 5: the threads play on
                assert workers.stats()["units"] > before and len(started) > 6
    assert seen == list(range(60))


def test_leaving_a_stream_early_cancels_what_was_started_ahead():
    calls = []

    def block(lo, hi):
        calls.append((lo, hi))
        time.sleep(0.001)

    def start(i):
        h = type("H", (), {})()
        h.i, h.jobs = i, [g.submit(100_000, block)]
        return h

    with Group(2) as g:
        for h in stream(g, range(50), start, lambda h: h):
            if h.i == 1:
                break
        n = len(calls)
        time.sleep(0.1)
        assert len(calls) == n            # nothing runs after the stream was left
        assert g.active == 0


def test_a_chunks_error_is_raised_to_the_waiting_thread_and_stops_the_group():
    def bad(lo, hi):
        raise ValueError("a strategy's error")

    with Group(2) as g:
        other = g.submit(10**9, lambda lo, hi: time.sleep(0.001))
        job = g.submit(100, bad)
        with pytest.raises(ValueError, match="a strategy's error"):
            g.wait([job, other])
        assert other.cancelled and g.active == 0


def test_a_stop_cuts_the_job_short_within_a_chunk_with_a_gapless_prefix():
    stop = threading.Event()
    out = np.full(10**7, -1)
    with Group(2, stop) as g:
        job = g.submit(out.size, _filler(out, 1e-6))
        threading.Timer(0.2, stop.set).start()
        t0 = time.perf_counter()
        g.wait(job)
    assert time.perf_counter() - t0 < 2.0
    assert 0 < job.done < out.size
    assert np.array_equal(out[:job.done], np.arange(job.done))


def test_progress_is_reported_on_the_waiting_thread_in_whole_grains():
    """A tick (a progress bar's callback) runs on the thread that waits, so it may raise
    KeyboardInterrupt as Ctrl-C does; it counts what a stop keeps: units from the first,
    in whole multiples of the grain (a tournament's deal)."""
    me, where, counts = threading.get_ident(), set(), []

    def tick(n):
        where.add(threading.get_ident())
        counts.append(n)
    out = np.full(9_000, -1)
    with Group(2) as g:
        job = g.submit(out.size, _filler(out), tick=tick, grain=3)
        g.wait(job)
    assert where == {me} and sum(counts) == out.size and all(c % 3 == 0 for c in counts)

    def stop_at(n):
        if sum(counts) > 0:
            raise KeyboardInterrupt
        counts.append(n)
    counts.clear()
    with Group(2) as g:
        job = g.submit(10**8, _filler(np.zeros(10**8, np.int8), 1e-6), tick=stop_at)
        with pytest.raises(KeyboardInterrupt):
            g.wait(job)
        assert job.cancelled and g.active == 0


def test_threads_must_be_from_one_to_the_cores():
    import numba
    for bad in (0, -1, numba.config.NUMBA_NUM_THREADS + 1, 1.5, True):
        with pytest.raises(ValueError, match="--threads: expected 1 to"):
            Group(bad)


def test_groups_side_by_side_each_get_their_threads():
    """Two groups at once (two callers, or tasks of a Dask worker with several threads):
    the pool grows to serve both, so one does not wait for the other's threads."""
    barrier = threading.Barrier(2, timeout=5)

    def block(lo, hi):
        barrier.wait()               # passes only if both groups' chunks run at once

    results = []

    def run():
        with Group(1) as g:
            g.wait(g.submit(1, block))
            results.append(True)
    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results == [True, True]


def test_a_job_submitted_after_a_stop_plays_nothing():
    """Ctrl-C stops the whole group: work a command starts afterwards (a review's next step)
    is born cut short, so the command ends at once."""
    calls = []
    with Group(2) as g:
        g.cancel()
        job = g.submit(1000, lambda lo, hi: calls.append(lo))
        g.wait(job)
    assert job.over and job.done == 0 and calls == []


def test_then_runs_on_a_whole_job_even_when_a_stop_lands_during_its_last_chunk():
    """A job whose every unit was played is whole: its ``then`` (a batch's saving, a study's
    counting) runs and its ``value`` is what it returned, though the stop came while the
    last chunk ran; a job cut short runs none."""
    g = Group(1)
    entered = threading.Event()

    def block(lo, hi):
        entered.set()
        time.sleep(0.05)
    whole = g.submit(1, block, then=lambda: "saved")
    cut = g.submit(5, block, then=lambda: "never")
    assert entered.wait(5)
    g.cancel()                   # Ctrl-C's stop, during the first job's only chunk
    assert whole.cancelled and not whole.running
    assert whole.done == 1 and whole.value == "saved"
    assert cut.done < cut.n and cut.value is None
    g.close()
