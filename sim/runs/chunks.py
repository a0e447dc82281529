"""Many games of a batch on threads, in chunks short enough that Ctrl-C is answered within
about a second (:class:`Chunks`), and the progress they report (:class:`Played`)."""
from __future__ import annotations

import threading
import time


def next_size(games: int, seconds: float, target: float) -> int:
    """The games of the next piece of work, to last about ``target`` seconds at the speed of
    the last one (``games`` in ``seconds``), at most 4 times as many."""
    return max(1, min(4 * games, int(games * target / max(seconds, 1e-6))))


class Played:
    """Progress counted from chunks: ``tick(games)`` (from the core's threads, as chunks
    finish) adds to ``games``, the games played in this process, and calls
    ``progress(done)``; ``seen(done)`` sets the count shown (games loaded, whole blocks)."""

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


class Chunks:
    """Play games ``0 .. n - 1`` of a batch in chunks sized to last about ``SECONDS`` each, on
    ``threads`` daemon threads, so that Ctrl-C (or ``stop``, a threading.Event) is answered
    within about a second however slow the strategies, and ``tick(games)`` reports progress
    within a batch. ``done`` is the number of games played from the first without a gap."""

    SECONDS = 0.15      # a chunk's target duration
    FIRST = 16          # a chunk's size before its speed is known

    def __init__(self, n, threads, block, stop, tick):
        self.n, self.block, self.tick = n, block, tick
        self.stop = stop if stop is not None else threading.Event()
        self.threads = max(1, min(threads or 1, n // self.FIRST or 1))
        self.lock = threading.Lock()
        self.next = 0
        self.size = self.FIRST
        self.finished = []           # (lo, hi) of the chunks played
        self.errors = []

    @property
    def done(self) -> int:
        end = 0
        for lo, hi in sorted(self.finished):
            if lo != end:
                break
            end = hi
        return end

    def _take(self):
        with self.lock:
            if self.stop.is_set() or self.errors or self.next >= self.n:
                return None
            lo = self.next
            self.next = hi = min(self.n, lo + self.size)
            return lo, hi

    def _work(self):
        try:
            while (span := self._take()) is not None:
                t0 = time.perf_counter()
                self.block(*span)
                seconds = time.perf_counter() - t0
                games = span[1] - span[0]
                with self.lock:
                    self.finished.append(span)
                    self.size = next_size(games, seconds, self.SECONDS)
                if self.tick is not None:
                    try:
                        self.tick(games)
                    except KeyboardInterrupt:      # raised by a progress callback: a stop
                        self.stop.set()
        except BaseException as e:      # noqa: BLE001 (given to the caller's thread)
            self.errors.append(e)

    def play(self):
        if self.threads == 1:
            try:
                self._work()
            except KeyboardInterrupt:
                self.stop.set()
        else:
            workers = [threading.Thread(target=self._work, daemon=True, name="shithead-chunk")
                       for _ in range(self.threads)]
            for w in workers:
                w.start()
            try:
                for w in workers:
                    while w.is_alive():
                        w.join(0.05)
            except KeyboardInterrupt:
                self.stop.set()
                for w in workers:        # the chunks under way: a fraction of a second
                    w.join(2 * self.SECONDS + 1.0)
        if self.errors:
            raise self.errors[0]
