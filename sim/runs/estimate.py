"""How long the work left will take: this run's own speed, measured as it plays.

:class:`Eta` is fed the units done (games, deals, worlds) as the progress moves and answers
with the seconds left at the speed of the run's recent play: over the last quarter of its
play (at least :data:`MIN_WINDOW` seconds), counted from its first unit, so that the compile
before it and a change of speed along the way (a slower stage, a loaded machine) weigh only
as long as they last. Nothing is said before :data:`FIRST` seconds of play: no estimate from
another run, another time or another load (an earlier version read a speed cached for the
machine, which was off by ten times or more).
"""
from __future__ import annotations

import time
from collections import deque

FIRST = 2.0          # seconds of play before the first estimate
WINDOW = 0.25        # the share of the play so far that the speed is measured over ...
MIN_WINDOW = 5.0     # ... at least this many seconds


class Eta:
    """The seconds left of ``total`` units at this run's recent speed (module docstring);
    ``clock``: a fake one in the tests."""

    def __init__(self, total, clock=None):
        self.total, self.clock = total, clock
        self.samples: deque = deque()          # (time, units done)
        self.start = None                      # when the first unit was done

    def update(self, done, now=None) -> float | None:
        """Record ``done`` units now; the seconds left, or None while too early to say (or
        with no total)."""
        now = (self.clock or time.monotonic)() if now is None else now
        if self.start is None:
            if done <= 0:
                return None
            self.start = now
        self.samples.append((now, done))
        played = now - self.start
        if self.total is None or played < FIRST:
            return None
        window = max(MIN_WINDOW, WINDOW * played)
        while len(self.samples) > 2 and self.samples[1][0] <= now - window:
            self.samples.popleft()
        t0, d0 = self.samples[0]
        if now <= t0 or done <= d0:
            return None
        return max(0.0, self.total - done) / ((done - d0) / (now - t0))


def duration_text(seconds: float) -> str:
    """``about 40 s``, ``about 12 min``, ``about 3.5 h`` (always an estimate)."""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"
