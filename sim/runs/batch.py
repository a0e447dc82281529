"""Play one batch of games with the jitted core, and one game step by step; the errors of a
strategy (R24, R26) as :class:`~sim.runs.config.RunError` with the position to reproduce them.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

import numpy as np

from sim.kernel import cycle, records
from sim.kernel import referee as core
from sim.kernel.compiler import install
from sim.kernel.fastpath import KIND, LOWEST, Pool, seats_peer
from sim.kernel.layout import MAXP
from sim.kernel.records import Records
from sim.runs.config import SEATED, RunConfig, RunError
from sim.runs.partial import Interrupted, Partial


@dataclass
class Batch:
    """Per-game records of a batch of games: ``records`` (:class:`sim.kernel.records.Records`,
    one array per field of :data:`sim.kernel.records.FIELDS`), each field also readable as an
    attribute of the batch (``b.turns`` is ``b.records.turns``)."""

    first: int
    records: Records
    numbers: np.ndarray | None = None   # the game numbers, when not first, first + 1, ...

    def __getattr__(self, name):
        if name in Records._fields:                 # only called for what is not an attribute
            return getattr(self.__dict__["records"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def take(self, index) -> "Batch":
        """The games at ``index`` (a slice or an index array) as a batch of their own."""
        numbers = self.games[index]
        return Batch(int(numbers[0]) if numbers.size else self.first,
                     records.take(self.records, index), numbers=numbers)

    @classmethod
    def join(cls, parts: list) -> "Batch":
        """The games of ``parts`` (batches) one after the other, as one batch."""
        if len(parts) == 1:
            return parts[0]
        numbers = np.concatenate([p.games for p in parts])
        fields = [np.concatenate([getattr(p.records, f) for p in parts])
                  for f in Records._fields]
        contiguous = numbers.size and (np.diff(numbers) == 1).all()
        return cls(int(numbers[0]) if numbers.size else 0, Records(*fields),
                   None if contiguous else numbers)

    @property
    def games(self) -> np.ndarray:
        """The game numbers of the batch (each game's cards come from the seed and this)."""
        if self.numbers is not None:
            return self.numbers
        return self.first + np.arange(self.records.status.size, dtype=np.int64)


@dataclass
class Seating:
    """Other strategies than a config's, seated game by game (sim.studies.compare's tournaments)."""

    pool: Pool             # the core's pool of strategies (sim.kernel.fastpath.make_pool)
    rows: np.ndarray       # int8 (games, 6): per game, the pool entry of each seat
    config: object         # a row's first `players` entries (a tuple) -> that table's RunConfig

    def configs(self, players) -> list:
        """The RunConfig of every distinct table seated."""
        return [self.config(tuple(r)) for r in np.unique(self.rows[:, :players], axis=0)]


def play_batch(cfg: RunConfig, first: int, n: int, threads: int,
               numbers: np.ndarray | None = None, seating: Seating | None = None,
               stop=None, tick=None) -> Batch:
    """Play games ``first .. first + n - 1`` with the jitted core; or, with ``numbers``, the
    games numbered so (``first`` and ``n`` ignored).

    ``seating`` (:class:`Seating`) seats other strategies than ``cfg``'s, game by game (one
    call for a tournament's many seatings); ``cfg`` then gives everything else (seed,
    players, rules, the turn limit, ``cycle_stop``). The games are the same as those of the
    seating's own configs.

    ``stop`` (a threading.Event) set, or Ctrl-C, ends the batch within about a second by
    raising :class:`Interrupted` with the games played so far; ``tick(games)`` is called as
    chunks of games finish (from other threads)."""
    install()                 # Numba's process-wide patches (sim.kernel.compiler), once
    if numbers is None:
        games = np.arange(first, first + n, dtype=np.int64)
    else:
        numbers = games = np.ascontiguousarray(numbers, np.int64)
        first, n = (int(numbers[0]) if numbers.size else 0), numbers.size
    b = Batch(first, records.allocate(n), numbers)
    if seating is None:
        pool, seat_rows = cfg.pool, SEATED
        # The compiled referee for this table: a table of lowest has its own (sim.kernel.referee).
        run = entry(cfg)
    else:
        pool, seat_rows = seating.pool, np.ascontiguousarray(seating.rows, np.int8)
        if seat_rows.shape != (n, MAXP):
            raise ValueError(f"seating: expected ({n}, {MAXP}) seat rows, got {seat_rows.shape}")
        run = core.run_peers if seats_peer(pool) else core.run_games

    def block(lo, hi):
        rows = seat_rows if seat_rows.shape[0] == 1 else seat_rows[lo:hi]
        table = core.Games(seed=cfg.seed, numbers=games[lo:hi], seat_rows=rows,
                           players=cfg.players, rules=cfg.rules_vector, cap=cfg.max_turns,
                           cycle_stop=bool(cfg.cycle_stop))
        part = b.records if hi - lo == n else records.take(b.records, slice(lo, hi))
        run(table, pool, core.scratch(cfg.cycle_stop), part)

    # Chunks of consecutive games on `threads` threads; the core releases the GIL. Each game's
    # random stream comes from (seed, game index) alone, so the chunks change no result.
    chunks = _Chunks(n, threads, block, stop, tick)
    try:
        chunks.play()
    except IndexError:
        # Strategies are compiled with bounds checking: one indexed past its observation or
        # hand, i.e. tried to read what its player may not see (R26).
        tables = [cfg] if seating is None else seating.configs(cfg.players)
        moves = sorted({m for c in tables for m in c.strategies})
        swaps = sorted({w for c in tables for w in c.swaps})
        raise RunError(f"a strategy or swap policy indexed past its observation or hand "
                       f"(R26: strategies see the public state and their own hand only), in "
                       f"games {games.min()}..{games.max()} of seed {cfg.seed}; strategies: "
                       f"{', '.join(moves)}; swap policies: {', '.join(swaps)}") from None
    bad = np.flatnonzero(b.status[:chunks.done] >= core.BAD_MOVE)
    if bad.size:
        i = bad[0]
        table = cfg if seating is None else seating.config(tuple(seat_rows[i, :cfg.players]))
        raise strategy_error(table, int(games[i]), b.status[i], b.errors[i])
    if chunks.done < n:          # stopped: the games played so far, in order from the first
        # (copies: chunks may still run)
        raise Interrupted(Partial(b.take(np.arange(chunks.done)), chunks.done, n))
    return b


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


class _Chunks:
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
                    # size the next chunks from this one's speed (at most 4 times larger)
                    self.size = max(1, min(4 * games, int(games * self.SECONDS
                                                          / max(seconds, 1e-6))))
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


def entry(cfg: RunConfig):
    """The compiled referee that plays ``cfg``'s table (seated as given): a table of lowest
    has its own, a table seating a peer's bot another (sim.kernel.referee)."""
    if (cfg.seat_table[KIND:KIND + cfg.players] == LOWEST).all():
        return core.run_lowest
    return core.run_peers if seats_peer(cfg.pool) else core.run_games


def compiled(configs=None) -> bool:
    """Are the referee that plays these tables (RunConfigs; without, the general one that
    seated tournaments use) and their seats' strategies in the compile cache (the first call
    loads them)? If not, the first batch compiles them: tens of seconds, once (montecarlo
    alone about 40 s), which a command says meanwhile. Only what a command plays counts: a
    user of ``lowest`` alone never compiles the others, and must not be told it is compiling
    at every run."""
    from sim.kernel.compiler import cached
    seats = {s.dispatcher for c in configs or () for s in (*c.move_objs, *c.swap_objs)}
    if not all(cached(f) for f in seats):
        return False            # asked first: entry() seats the strategies, compiling them
    fns = {entry(c) for c in configs} if configs else {core.run_games}
    return all(cached(f) for f in fns)


def batches(cfg: RunConfig) -> list[tuple[int, int, int]]:
    """(index, first game, number of games) of each batch of the run."""
    return [(i, first, min(cfg.batch, cfg.games - first))
            for i, first in enumerate(range(0, cfg.games, cfg.batch))]


# -- one game, step by step ------------------------------------------------------------------
@dataclass
class GameRecord:
    """Everything needed to show one game: the deal, the swaps and the moves."""

    dealt: np.ndarray   # the state right after the deal (R4)
    swaps: np.ndarray   # each seat's swap choice (bit mask over its 2 x hand size cards, H12)
    start: np.ndarray   # the state after the swaps, the first player set (R5, R6)
    moves: np.ndarray   # move ids in order
    status: int
    error: np.ndarray
    end: int = cycle.END_FINISHED   # why it ended (sim.kernel.cycle.END_*)
    cycle_turns: int = 0            # the length in turns of the cycle that stopped it, or 0


def record_game(cfg: RunConfig, game: int) -> GameRecord:
    """Replay game number ``game`` of ``cfg`` through the same kernel, keeping every move."""
    if not 0 <= game < cfg.games:
        raise RunError(f"--game: expected 0 to {cfg.games - 1} (the run has {cfg.games} games)")
    return _record(cfg, game)


def _record(cfg: RunConfig, game: int) -> GameRecord:
    """:func:`record_game` of any game number: a tournament's deal is a game of a config
    made for one game (sim.studies.compare), which its errors replay."""
    from sim.kernel.layout import STATE_SIZE, TURN
    from sim.kernel.rng import seed_game

    pool, kinds = cfg.pool, cfg.seat_table
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(cfg.seed), game)
    core.deal_game(st, rng, cfg.players, cfg.rules_vector)
    dealt = st.copy()
    choice = np.zeros(6, np.int64)
    err = np.zeros(3, np.int64)
    cards = np.zeros(core.SWAP_CARDS, np.int32)
    if not core.swap_phase(st, rng, pool.swaps, kinds, pool.params, choice, cards, err):
        return GameRecord(dealt, choice, st.copy(), np.zeros(0, np.int32), core.BAD_SWAP, err)
    start = st.copy()
    log = np.zeros(cfg.max_turns, np.int32)
    seen = np.zeros(cycle.SIZE if cfg.cycle_stop else 0, np.int32)
    if cfg.cycle_stop:
        seen[cycle.IMPURE] = cfg.impure_seats()       # as the batch core does (sim.kernel.referee)
    status = core.play_out(st, rng, cfg.max_turns, pool.moves, kinds, pool.params, log, err,
                           seen)  # H16 too
    end, period = cycle.end_of(status == core.UNFINISHED, seen)
    return GameRecord(dealt, choice, start, log[:st[TURN]], int(status), err, int(end),
                      int(period))


def strategy_error(cfg: RunConfig, game: int, status: int, err) -> RunError:
    """R24: say which strategy failed where, with the position as JSON to reproduce it."""
    seat, value, turn = (int(x) for x in err)
    if status == core.BAD_SWAP:
        name = cfg.swaps[seat]
        k = cfg.ruleset.hand_size
        what = (f"swap policy {name!r} (seat {seat}) returned {value}, which is not a choice "
                f"of {k} of its {2 * k} cards (R5, H12)"
                + ("; the policy refuses this number of cards (table and split value 3 of 6 "
                   "only)" if value == -1 else ""))
        position = None
    else:
        name = cfg.strategies[seat]
        what = (f"strategy {name!r} (seat {seat}) returned move id {value}, which is not a "
                f"legal move (R24)")
        rec = _record(cfg, game)
        position = _position_before(cfg, rec, turn)
    msg = f"{what} in game {game} of seed {cfg.seed}, turn {turn}."
    if position is not None:
        msg += "\nThe position (POSITION.md), for sim.kernel.position:\n" + json.dumps(position)
    return RunError(msg)


def _position_before(cfg, rec: GameRecord, turn: int) -> dict:
    from sim.kernel.engine import apply_move

    st = rec.start.copy()
    for m in rec.moves[:turn]:
        apply_move(st, m)
    from sim.kernel.position import to_position   # only for an error: 4 ms less to start a run

    return to_position(st, ruleset=cfg.rules)
