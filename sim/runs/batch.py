"""Play one batch of games with the jitted core (:func:`play_batch`, or :func:`start` in a
command's group), on the process's threads in chunks (:mod:`sim.runs.workers`); a strategy's errors (R24, R26) as :class:`~sim.runs.config.RunError`
(one game replayed to show where: :mod:`sim.runs.onegame`); which compiled referee plays a
table, and whether it is compiled yet (:func:`entry`, :func:`compiled`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.kernel import records
from sim.kernel import referee as core
from sim.kernel.compiler import install
from sim.kernel.fastpath import Pool
from sim.kernel.layout import MAXP
from sim.kernel.records import Records
from sim.runs.workers import Group
from sim.runs.config import SEATED, RunConfig, RunError
from sim.runs.onegame import strategy_error
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
    rows: np.ndarray       # int8 (games, MAXP): per game, the pool entry of each seat
    config: object         # a row's first `players` entries (a tuple) -> that table's RunConfig

    def configs(self, players) -> list:
        """The RunConfig of every distinct table seated."""
        return [self.config(tuple(r)) for r in np.unique(self.rows[:, :players], axis=0)]


def play_batch(cfg: RunConfig, first: int, n: int, threads: int,
               numbers: np.ndarray | None = None, seating: Seating | None = None,
               stop=None, tick=None, group: Group | None = None) -> Batch:
    """Play games ``first .. first + n - 1`` with the jitted core; or, with ``numbers``, the
    games numbered so (``first`` and ``n`` ignored).

    ``seating`` (:class:`Seating`) seats other strategies than ``cfg``'s, game by game (one
    call for a tournament's many seatings); ``cfg`` then gives everything else (seed,
    players, rules, the turn limit, ``cycle_stop``). The games are the same as those of the
    seating's own configs.

    The games are played on the process's pool (:mod:`sim.runs.workers`), on ``threads``
    threads, or in ``group`` (a :class:`~sim.runs.workers.Group`: a command's, whose other
    jobs go on meanwhile). ``stop`` (a threading.Event) set, or Ctrl-C, ends the batch
    within about a second by raising :class:`Interrupted` with the games played so far;
    ``tick(games)`` is called as chunks of games finish (on this thread)."""
    if group is None:
        with Group(threads, stop) as g:
            return _play(g, start(g, cfg, first, n, numbers, seating, tick))
    return _play(group, start(group, cfg, first, n, numbers, seating, tick))


def _play(group, playing):
    """Wait for a started batch in ``group``: its Batch (or Interrupted, ``result``'s)."""
    try:
        group.wait(playing.jobs)
    except BaseException:
        playing.result()            # cut short: Interrupted with the games played; an error
        raise                       # in the caller's words (R24, R26)
    finally:
        group.forget(playing.jobs)
    return playing.result()


class Playing:
    """A batch under way in a group (:func:`start`): ``jobs`` (one), ``index`` (the caller's
    name for it), and :meth:`result` once they are over."""

    def __init__(self, group, cfg, first, n, numbers, seating, tick, index=None, grain=1,
                 kind=None, then=None):
        install()                 # Numba's process-wide patches (sim.kernel.patches), once
        if numbers is None:
            games = np.arange(first, first + n, dtype=np.int64)
        else:
            numbers = games = np.ascontiguousarray(numbers, np.int64)
            first, n = (int(numbers[0]) if numbers.size else 0), numbers.size
        self.cfg, self.seating, self.games, self.index, self.n = cfg, seating, games, index, n
        self.batch = b = Batch(first, records.allocate(n), numbers)
        if seating is None:
            pool, seat_rows = cfg.pool, SEATED
            run = entry(cfg)
        else:
            pool, seat_rows = seating.pool, np.ascontiguousarray(seating.rows, np.int8)
            if seat_rows.shape != (n, MAXP):
                raise ValueError(f"seating: expected ({n}, {MAXP}) seat rows, got "
                                 f"{seat_rows.shape}")
            run = core.entry(pool)
        self.seat_rows = seat_rows
        rules, cycle_stop = cfg.rules_vector, bool(cfg.cycle_stop)
        one_row = seat_rows.shape[0] == 1

        def block(lo, hi):
            table = core.Games(seed=cfg.seed, numbers=games[lo:hi],
                               seat_rows=seat_rows if one_row else seat_rows[lo:hi],
                               players=cfg.players, rules=rules, cap=cfg.max_turns,
                               cycle_stop=cycle_stop)
            part = b.records if hi - lo == n else records.take(b.records, slice(lo, hi))
            run(table, pool, core.scratch(cycle_stop), part)

        # Chunks of consecutive games on the pool's threads; the core releases the GIL. Each
        # game's random stream comes from (seed, game index) alone, so the chunks change no
        # result. The chunk sizes carry over from the group's batches of the same table.
        self.job = group.submit(n, block, kind=kind or _kind(cfg), tick=tick, grain=grain,
                                then=None if then is None else lambda: then(b))
        self.jobs = [self.job]

    @property
    def extra(self):
        """What ``then(batch)`` returned, once :meth:`result` has."""
        return self.job.value

    def played(self) -> Batch:
        """The games played from the first without a gap (copies: a chunk cut off by the
        cancel's time limit may still run), what its progress counted."""
        return self.batch.take(np.arange(self.job.done))

    def result(self) -> Batch:
        """The batch played, or: :class:`RunError` for a strategy's error (R24, R26);
        :class:`Interrupted` with the games played from the first if it was cut short."""
        cfg, seating, games, b, job = self.cfg, self.seating, self.games, self.batch, self.job
        if isinstance(job.error, IndexError):
            # Strategies are compiled with bounds checking: one indexed past its observation
            # or hand, i.e. tried to read what its player may not see (R26).
            tables = [cfg] if seating is None else seating.configs(cfg.players)
            moves = sorted({m for c in tables for m in c.strategies})
            swaps = sorted({w for c in tables for w in c.swaps})
            raise RunError(f"a strategy or swap policy indexed past its observation or hand "
                           f"(R26: strategies see the public state and their own hand only), "
                           f"in games {games.min()}..{games.max()} of seed {cfg.seed}; "
                           f"strategies: {', '.join(moves)}; swap policies: "
                           f"{', '.join(swaps)}") from None
        if job.error is not None:
            raise job.error
        done = job.done
        bad = np.flatnonzero(b.status[:done] >= core.BAD_MOVE)
        if bad.size:
            i = bad[0]
            table = (cfg if seating is None
                     else seating.config(tuple(self.seat_rows[i, :cfg.players])))
            raise strategy_error(table, int(games[i]), b.status[i], b.errors[i])
        if done < self.n:        # stopped: the games played so far, in order from the first
            # (copies: a chunk cut off by the cancel's time limit may still run)
            raise Interrupted(Partial(b.take(np.arange(done)), done, self.n))
        return b


def start(group: Group, cfg: RunConfig, first: int, n: int, numbers=None, seating=None,
          tick=None, index=None, grain=1, kind=None, then=None) -> Playing:
    """Submit a batch (:func:`play_batch`'s arguments) to ``group`` and return at once;
    ``grain``: its progress is counted in whole multiples of so many games (a deal's);
    ``kind``: the work whose speed sizes its first chunks (default: the table's);
    ``then(batch)``: run on the pool's thread that finishes it (saving its records)."""
    return Playing(group, cfg, first, n, numbers, seating, tick, index, grain, kind, then)


def _kind(cfg) -> tuple:
    """The kind of work of a table, for the chunks' size (sim.runs.workers.Speed): its
    seats' strategies without their parameters (a tuning's trials are alike), players and
    rules."""
    return ("batch", cfg.players, cfg.rules_vector.tobytes(),
            tuple(name.partition("(")[0] for name in cfg.strategies[:cfg.players]))


def entry(cfg: RunConfig):
    """The compiled referee that plays ``cfg``'s table, seated as given
    (:func:`sim.kernel.referee.entry`: a table of lowest has its own, a table seating a
    peer's bot another)."""
    return core.entry(cfg.pool, cfg.seat_table, cfg.players)


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


def batches(cfg: RunConfig):
    """(index, first game, number of games) of each batch of the run, one after the other:
    no list (a run of 1e15 games has 1e10 batches)."""
    for i, first in enumerate(range(0, cfg.games, cfg.batch)):
        yield i, first, min(cfg.batch, cfg.games - first)
