"""How long the games of a command will take, said before they start.

A game's cost is that of the command's own table (its strategies in their seats): measured
once per table, player count, rules, turn limit and thread count on this machine, by playing
games numbered far from any command's (:data:`OFFSET`: they change no result) for about
:data:`SECONDS`, and kept in ``speeds.json`` in the compile cache's folder (one per version of
the code, so a faster strategy is measured again). Not the mean of each strategy's own table:
a table of four ``montecarlo`` seats plays games several times longer than a table where it
holds one seat. The
first measurement compiles the core if it is not cached, which the command's bar says
meanwhile.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import replace

OFFSET = 1 << 41          # calibration games: far past every command's game indices
SECONDS = 0.3             # calibration play, after a warm-up game per thread
LIMIT = 50_000            # at most this many calibration games
SLOW_GAMES = 8            # a slow table: at most this many games, one at a time ...
SLOW_SECONDS = 1.0        # ... for about this long (one game's length varies 10-fold)


def _path():
    from sim.kernel.compiler import cache_dir
    return cache_dir() / "speeds.json"


def _key(cfg, threads) -> str:
    spec = cfg.describe()
    for name in ("games", "seed"):
        spec.pop(name)
    spec["threads"] = threads
    return json.dumps(spec, sort_keys=True, default=str)


def _read() -> dict:
    try:
        data = json.loads(_path().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _remember(key: str, seconds: float) -> None:
    from sim.runs import folder
    try:
        data = _read()
        data[key] = seconds
        folder.make_dir(_path().parent)
        folder.write_json(_path(), data)
    except (OSError, ValueError):       # a read-only cache: measured again next time
        pass


def _measure(cfg, threads) -> float:
    """Seconds per game of ``cfg`` on ``threads`` threads (wall clock), from about
    :data:`SECONDS` of play after a warm-up game per thread (loading or compiling); when one
    game takes a quarter of that (the chunks of a slow strategy would take seconds), from
    games played one at a time for about :data:`SLOW_SECONDS`."""
    from sim.runs.batch import play_batch
    from sim.runs.partial import Interrupted

    play_batch(cfg, OFFSET, threads, threads)               # load (or compile) the code
    t0 = time.perf_counter()
    play_batch(cfg, OFFSET + threads, 1, 1)                  # one game, one thread
    one = time.perf_counter() - t0
    if one >= SECONDS / 4:              # a slow strategy: its chunks would take too long
        n = 1
        while n < SLOW_GAMES and time.perf_counter() - t0 < SLOW_SECONDS:
            play_batch(cfg, OFFSET + threads + n, 1, 1)
            n += 1
        return (time.perf_counter() - t0) / n / threads
    stop, lock, games, ours = threading.Event(), threading.Lock(), [0], threading.Event()
    t0 = time.perf_counter()

    def tick(n):
        with lock:
            games[0] += n
        if time.perf_counter() - t0 >= SECONDS:
            ours.set()
            stop.set()
    try:
        play_batch(cfg, OFFSET + threads + 1, LIMIT, threads, stop=stop, tick=tick)
    except Interrupted:
        if not ours.is_set():
            raise KeyboardInterrupt from None               # Ctrl-C, not our own stop
    return (time.perf_counter() - t0) / max(games[0], 1)


def seconds_per_game(cfg, threads=None) -> float:
    """The estimated wall-clock seconds of one game of ``cfg`` (a RunConfig: its strategies in
    their seats) on ``threads`` threads (default: the config's, else all cores), measured once
    on this machine."""
    import numba

    threads = threads or cfg.threads or numba.config.NUMBA_NUM_THREADS
    table = replace(cfg, games=1, threads=threads)
    key = _key(table, threads)
    known = _read()
    if key not in known:
        known[key] = _measure(table, threads)
        _remember(key, known[key])
    return known[key]


def estimate(plan, threads=None) -> float | None:
    """Seconds for ``plan``, a list of ``(RunConfig, games)``; None if a strategy cannot be
    measured (its error is then the command's own, when it plays)."""
    from sim.runs.config import RunError
    try:
        return sum(games * seconds_per_game(cfg, threads) for cfg, games in plan if games > 0)
    except (RunError, ValueError, IndexError):
        return None


def duration_text(seconds: float) -> str:
    """``about 40 s``, ``about 12 min``, ``about 3.5 h`` (always an estimate)."""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"
