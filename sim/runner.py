"""Run many games: validate the options, play them in batches, aggregate as we go.

:class:`RunConfig` checks what the user asked for and resolves strategies by name;
:func:`run` plays the games through the jitted batch core (:func:`sim.core.run_games`) in
batches, so memory stays flat however many games are played, and returns a
:class:`~reports.summary.Tally` of the results.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numba
import numpy as np

from sim import core
from sim.layout import MAXP
from sim.rules import parse_ruleset, to_position
from sim.strategy import Strategy, get_move, get_swap

DEFAULT_CAP = 10_000  # R25


class RunError(ValueError):
    """A run that cannot go on: a user mistake or a strategy's error (R24)."""


@dataclass
class RunConfig:
    """What to simulate. ``strategies``/``swaps``: one name for every seat, or one per seat;
    a swap of ``None`` uses each strategy's own default swap policy."""

    games: int = 10_000
    players: int = 4
    seed: int = 0
    strategies: list[str] = field(default_factory=lambda: ["lowest"])
    swaps: list[str | None] = field(default_factory=lambda: [None])
    rules: object = "seed"
    max_turns: int = DEFAULT_CAP
    threads: int | None = None
    batch: int = 100_000

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
            self.options = parse_ruleset(self.rules)
        except ValueError as e:
            raise RunError(f"--rules: {e}") from None
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

    def _per_seat(self, names, option):
        names = list(names)
        if len(names) == 1:
            return names * self.players
        if len(names) != self.players:
            raise RunError(f"{option}: give one for all seats or one per seat "
                           f"({self.players}), got {len(names)}")
        return names

    def kernel_args(self):
        """Strategy tuples (always 6 long, so one compiled core serves every table size)."""
        pad = MAXP - self.players
        moves = tuple(s.fn for s in self.move_objs) + (self.move_objs[0].fn,) * pad
        swaps = tuple(s.fn for s in self.swap_objs) + (self.swap_objs[0].fn,) * pad
        params = np.zeros((MAXP, 1))
        return moves, swaps, params

    def describe(self) -> dict:
        return {"games": self.games, "players": self.players, "seed": self.seed,
                "strategies": self.strategies, "swaps": self.swaps, "rules": self.rules,
                "options": self.options, "max_turns": self.max_turns}


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


def play_batch(cfg: RunConfig, first: int, n: int, threads: int) -> Batch:
    """Play games ``first .. first + n - 1`` with the jitted core."""
    b = Batch(first, np.zeros(n, np.int8), np.zeros(n, np.int32), np.zeros((n, MAXP), np.int8),
              np.zeros((n, MAXP), np.int32), np.zeros(n, np.int32), np.zeros(n, np.int8),
              np.zeros(n, np.int8), np.zeros((n, 3), np.int64))
    moves, swaps, params = cfg.kernel_args()
    numba.set_num_threads(threads)
    blocks = threads * 4 if threads > 1 else 1
    core.run_games(cfg.seed, first, n, cfg.players, int(cfg.options["choose_face_ups"]),
                   int(cfg.options["last_player_loses"]), cfg.max_turns, moves, swaps, params,
                   min(blocks, n), b.status, b.turns, b.order, b.pickups, b.burns, b.starter,
                   b.dealer, b.errors)
    bad = np.flatnonzero(b.status >= core.BAD_MOVE)
    if bad.size:
        raise strategy_error(cfg, first + int(bad[0]), b.status[bad[0]], b.errors[bad[0]])
    return b


def run(cfg: RunConfig, progress=None):
    """Play all games of ``cfg``; ``progress(done)`` is called after each batch."""
    from reports.summary import Tally

    threads = cfg.threads or numba.config.NUMBA_NUM_THREADS
    tally = Tally(cfg)
    done = 0
    while done < cfg.games:
        n = min(cfg.batch, cfg.games - done)
        tally.add(play_batch(cfg, done, n, threads))
        done += n
        if progress:
            progress(done)
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
    moves, swaps, params = cfg.kernel_args()
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(cfg.seed), game)
    core.deal_game(st, rng, cfg.players, int(cfg.options["choose_face_ups"]),
                   int(cfg.options["last_player_loses"]))
    dealt = st.copy()
    choice = np.zeros(6, np.int64)
    err = np.zeros(3, np.int64)
    if not core.swap_phase(st, rng, moves, swaps, params, choice, err):
        return GameRecord(dealt, choice, st.copy(), np.zeros(0, np.int32), core.BAD_SWAP, err)
    start = st.copy()
    log = np.zeros(cfg.max_turns, np.int32)
    status = core.play_out(st, rng, cfg.max_turns, moves, params, log, err)
    return GameRecord(dealt, choice, start, log[:st[TURN]], int(status), err)


def strategy_error(cfg: RunConfig, game: int, status: int, err) -> RunError:
    """R24: say which strategy failed where, with the position as JSON to reproduce it."""
    seat, value, turn = (int(x) for x in err)
    if status == core.BAD_SWAP:
        name = cfg.swaps[seat]
        what = (f"swap policy {name!r} (seat {seat}) returned {value}, which is not a choice "
                f"of 3 of its 6 cards (R5)")
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
