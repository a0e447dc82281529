"""Run many games: validate the options, play them in batches, aggregate as we go.

:class:`RunConfig` checks what the user asked for and resolves strategies by name;
:func:`run` plays the games through the jitted batch core (:func:`sim.core.run_games`) in
batches, so memory stays flat however many games are played, and returns a
:class:`~sim.tally.Tally` of the results.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from sim import core, fastpath
from sim.layout import MAXP
from sim.rules import to_position
from sim.ruleset import Ruleset
from sim.strategy import Strategy, get_move, get_swap

DEFAULT_CAP = 10_000  # R25


class RunError(ValueError):
    """A run that cannot go on: a user mistake or a strategy's error (R24)."""


def _spec_file(spec: str) -> Path | None:
    """The file of a ``FILE.py:function`` strategy spec, else None."""
    where = spec.rpartition(":")[0]
    if not where.endswith(".py"):
        return None
    return Path(where).expanduser().resolve()


def _materialize(spec: str, source: str) -> Path:
    """Write a user's strategy file shipped to a worker under a folder named by its hash."""
    from sim._jit import cache_dir

    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = cache_dir().parent / "user" / digest / Path(spec.rpartition(":")[0]).name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(source)
        tmp.replace(path)
    return path


@dataclass
class RunConfig:
    """What to simulate. ``strategies``/``swaps``: one name for every seat, or one per seat;
    a swap of ``None`` uses each strategy's own default swap policy. ``rules``: a preset
    name, a POSITION.md ruleset object or a :class:`~sim.ruleset.Ruleset`."""

    games: int = 10_000
    players: int = 4
    seed: int = 0
    strategies: list[str] = field(default_factory=lambda: ["lowest"])
    swaps: list[str | None] = field(default_factory=lambda: [None])
    rules: object = "seed"
    max_turns: int = DEFAULT_CAP
    threads: int | None = None
    batch: int = 100_000
    preset_rows: list | None = field(default=None, repr=False)  # set by from_spec

    def __post_init__(self):
        if not isinstance(self.players, int) or not 2 <= self.players <= 6:
            raise RunError(f"--players: Shithead is for 2 to 6 players (R1), got {self.players}")
        if not isinstance(self.games, int) or self.games < 1:
            raise RunError(f"--games: expected a positive number of games, got {self.games}")
        if not 0 <= self.seed < 2**63:
            raise RunError(f"--seed: expected an integer from 0 to 2**63-1, got {self.seed}")
        if self.max_turns < 1:
            raise RunError(f"--max-turns: expected a positive number, got {self.max_turns}")
        if self.threads is not None and not 1 <= self.threads <= numba.config.NUMBA_NUM_THREADS:
            raise RunError(f"--threads: expected 1 to {numba.config.NUMBA_NUM_THREADS} "
                           f"(this machine's cores), got {self.threads}")
        if self.batch < 1:
            raise RunError(f"batch: expected a positive number, got {self.batch}")
        try:
            self.ruleset = Ruleset.parse(self.rules)
            self.ruleset.check_players(self.players)
        except ValueError as e:
            raise RunError(f"rules: {e}") from None
        self.rules = self.ruleset.to_json()          # the preset's name, or it and changes
        self.options = self.ruleset.to_dict()        # every option, in full
        self.strategies = self._per_seat(self.strategies, "--strategy")
        self.swaps = self._per_seat(self.swaps or [None], "--swap")
        try:
            self.move_objs: list[Strategy] = [get_move(n) for n in self.strategies]
            self.swap_objs: list[Strategy] = [
                get_swap(sw if sw is not None else mv.swap)
                for sw, mv in zip(self.swaps, self.move_objs)]
        except ValueError as e:
            raise RunError(str(e)) from None
        self.swaps = [s.name for s in self.swap_objs]
        # Parameter rows are prepared once, here: a bad parameter file fails before anything
        # is written, and a file edited during the run does not change it half-way.
        if self.preset_rows is not None:
            self.rows = [np.asarray(r, np.float64) for r in self.preset_rows]
        else:
            try:
                self.rows = ([s.row() for s in self.move_objs]
                             + [s.row() for s in self.swap_objs])
            except (OSError, ValueError) as e:
                raise RunError(str(e)) from None

    def _per_seat(self, names, option):
        names = list(names)
        if len(names) == 1:
            return names * self.players
        if len(names) != self.players:
            raise RunError(f"{option}: give one for all seats or one per seat "
                           f"({self.players}), got {len(names)}")
        return names

    def kernel_args(self):
        """Strategy tuples (always 6 long, so one compiled core serves every table size), the
        kinds of the built-ins the core inlines (:mod:`sim.fastpath`) and the parameter rows:
        seat ``s``'s strategy in row ``s``, its swap policy in row ``MAXP + s``."""
        pad = MAXP - self.players
        moves = tuple(s.fn for s in self.move_objs) + (self.move_objs[0].fn,) * pad
        swaps = tuple(s.fn for s in self.swap_objs) + (self.swap_objs[0].fn,) * pad
        rows = self.rows[:self.players] + [None] * pad + self.rows[self.players:]
        params = np.zeros((2 * MAXP, max([1] + [r.size for r in rows if r is not None])))
        for i, row in enumerate(rows):
            if row is not None:
                params[i, :row.size] = row
        return moves, swaps, fastpath.kinds(moves, swaps), params

    def describe(self) -> dict:
        return {"games": self.games, "players": self.players, "seed": self.seed,
                "strategies": self.strategies, "swaps": self.swaps, "rules": self.rules,
                "options": self.options, "max_turns": self.max_turns}

    def identities(self) -> list[dict]:
        """Per seat: strategy and swap names, with a hash of the source of a user's file."""
        def ident(spec):
            path = _spec_file(spec)
            if path is None:
                return {"name": spec}
            return {"name": spec, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}

        def params(row):       # what the function receives, e.g. a value table's contents
            return hashlib.sha256(np.ascontiguousarray(row).tobytes()).hexdigest()
        return [{"seat": s, "strategy": ident(self.strategies[s]), "swap": ident(self.swaps[s]),
                 "params": params(self.rows[s]), "swap_params": params(self.rows[
                     self.players + s])} for s in range(self.players)]

    def to_spec(self) -> dict:
        """Everything a worker needs to rebuild this config, user files' sources included."""
        spec = {**self.describe(), "batch": self.batch, "sources": {},
                "rows": [r.tolist() for r in self.rows]}
        for name in set(self.strategies) | set(self.swaps):
            path = _spec_file(name)
            if path is not None:
                spec["sources"][name] = path.read_text()
        return spec

    @classmethod
    def from_spec(cls, spec: dict) -> "RunConfig":
        """Rebuild a config on a worker; user files are written from their shipped sources
        (so a worker needs no copy of them) and imported from there."""
        rename = {name: str(_materialize(name, text)) + ":" + name.rpartition(":")[2]
                  for name, text in spec["sources"].items()}
        cfg = cls(games=spec["games"], players=spec["players"], seed=spec["seed"],
                  strategies=[rename.get(n, n) for n in spec["strategies"]],
                  swaps=[rename.get(n, n) for n in spec["swaps"]], rules=spec["rules"],
                  max_turns=spec["max_turns"], threads=None, batch=spec["batch"],
                  preset_rows=spec["rows"])   # the driver's: a worker needs no table file
        cfg.strategies, cfg.swaps = list(spec["strategies"]), list(spec["swaps"])
        return cfg


@dataclass
class Batch:
    """Per-game records of a batch of consecutive games (NumPy arrays)."""

    first: int
    status: np.ndarray
    turns: np.ndarray
    order: np.ndarray
    pickups: np.ndarray
    burns: np.ndarray
    starter: np.ndarray
    dealer: np.ndarray
    errors: np.ndarray
    triples: np.ndarray = None   # (n, 6): each seat's face-up triple after the swap
    hand_triples: np.ndarray = None  # (n, 6): each seat's hand triple after the swap


def play_batch(cfg: RunConfig, first: int, n: int, threads: int) -> Batch:
    """Play games ``first .. first + n - 1`` with the jitted core."""
    b = Batch(first, np.zeros(n, np.int8), np.zeros(n, np.int32), np.zeros((n, MAXP), np.int8),
              np.zeros((n, MAXP), np.int32), np.zeros(n, np.int32), np.zeros(n, np.int8),
              np.zeros(n, np.int8), np.zeros((n, 3), np.int64), np.zeros((n, MAXP), np.int16),
              np.zeros((n, MAXP), np.int16))
    moves, swaps, kinds, params = cfg.kernel_args()
    numba.set_num_threads(threads)
    blocks = threads * 4 if threads > 1 else 1
    try:
        core.run_games(cfg.seed, first, n, cfg.players, cfg.ruleset.vector(), cfg.max_turns,
                       moves, swaps,
                       kinds, params, min(blocks, n), b.status, b.turns, b.order, b.pickups,
                       b.burns, b.starter, b.dealer, b.triples, b.hand_triples, b.errors)
    except (IndexError, SystemError) as e:
        # Strategies are compiled with bounds checking: one indexed past its observation or
        # hand, i.e. tried to read what its player may not see (R26). From the parallel core
        # the IndexError arrives wrapped in a SystemError.
        if not isinstance(e, IndexError) and not isinstance(e.__cause__ or e.__context__,
                                                            IndexError):
            raise
        raise RunError(f"a strategy or swap policy indexed past its observation or hand "
                       f"(R26: strategies see the public state and their own hand only), in "
                       f"games {first}..{first + n - 1} of seed {cfg.seed}; strategies: "
                       f"{', '.join(sorted(set(cfg.strategies)))}; swap policies: "
                       f"{', '.join(sorted(set(cfg.swaps)))}") from None
    bad = np.flatnonzero(b.status >= core.BAD_MOVE)
    if bad.size:
        raise strategy_error(cfg, first + int(bad[0]), b.status[bad[0]], b.errors[bad[0]])
    return b


def batches(cfg: RunConfig) -> list[tuple[int, int, int]]:
    """(index, first game, number of games) of each batch of the run."""
    return [(i, first, min(cfg.batch, cfg.games - first))
            for i, first in enumerate(range(0, cfg.games, cfg.batch))]


def run(cfg: RunConfig, progress=None, out=None, resume=False, backend=None):
    """Play all games of ``cfg`` and return their :class:`~sim.tally.Tally`.

    ``progress(done)`` is called as games finish. With ``out`` (a folder) every batch's
    per-game records are saved (:mod:`sim.store`), and ``resume`` continues a saved run.
    ``backend`` plays the batches (default: this process, all cores); see :mod:`sim.backends`.
    The tally adds integers only, so the summary does not depend on the order in which
    batches finish, nor on threads, batch size or backend.
    """
    from sim.tally import Tally
    from sim.backends import LocalBackend
    from sim.store import Store

    if resume and out is None:
        raise RunError("--resume needs --out, the folder of the run to continue")
    store = Store(out, cfg, resume=resume) if out is not None else None
    tally = Tally(cfg)
    todo = []
    done = 0
    for index, first, n in batches(cfg):
        if store is not None and store.done(index):
            tally.add(store.read(index))
            done += n
        else:
            todo.append((index, first, n))
    if progress and done:
        progress(done)
    backend = backend or LocalBackend(cfg.threads)
    for index, b in backend.play(cfg, todo):
        if store is not None:
            store.write(index, b)
        tally.add(b)
        done += b.status.size
        if progress:
            progress(done)
    if store is not None:
        store.finish(tally.to_dict())
    return tally


# -- one game, step by step ------------------------------------------------------------------
@dataclass
class GameRecord:
    """Everything needed to show one game: the deal, the swaps and the moves."""

    dealt: np.ndarray   # the state right after the deal (R4)
    swaps: np.ndarray   # each seat's swap choice (bit mask over its 6 cards)
    start: np.ndarray   # the state after the swaps, the first player set (R5, R6)
    moves: np.ndarray   # move ids in order
    status: int
    error: np.ndarray


def record_game(cfg: RunConfig, game: int) -> GameRecord:
    """Replay game number ``game`` of ``cfg`` through the same kernel, keeping every move."""
    from sim.layout import STATE_SIZE, TURN
    from sim.rng import seed_game

    if not 0 <= game < cfg.games:
        raise RunError(f"--game: expected 0 to {cfg.games - 1} (the run has {cfg.games} games)")
    moves, swaps, kinds, params = cfg.kernel_args()
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(cfg.seed), game)
    core.deal_game(st, rng, cfg.players, cfg.ruleset.vector())
    dealt = st.copy()
    choice = np.zeros(6, np.int64)
    err = np.zeros(3, np.int64)
    cards = np.zeros(core.SWAP_CARDS, np.int32)
    if not core.swap_phase(st, rng, swaps, kinds, params, choice, cards, err):
        return GameRecord(dealt, choice, st.copy(), np.zeros(0, np.int32), core.BAD_SWAP, err)
    start = st.copy()
    log = np.zeros(cfg.max_turns, np.int32)
    if core.opening(st, log):                       # H16
        status = core.FINISHED
    else:
        status = core.play_out(st, rng, cfg.max_turns, moves, kinds, params, log, err)
    return GameRecord(dealt, choice, start, log[:st[TURN]], int(status), err)


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
        rec = record_game(cfg, game)
        position = _position_before(cfg, rec, turn)
    msg = f"{what} in game {game} of seed {cfg.seed}, turn {turn}."
    if position is not None:
        msg += "\nThe position (POSITION.md), for sim.rules:\n" + json.dumps(position)
    return RunError(msg)


def _position_before(cfg, rec: GameRecord, turn: int) -> dict:
    from sim.engine import apply_move

    st = rec.start.copy()
    for m in rec.moves[:turn]:
        apply_move(st, m)
    return to_position(st, ruleset=cfg.rules)
