"""What to simulate: :class:`RunConfig` checks what the user asked for (players, games, seed,
rules, strategies and their parameters) and resolves strategies by name; :class:`RunError`
is a run that cannot go on.

The modules of a run import one way: ``workers`` (the process's threads) <- ``config`` <-
``onegame`` (one game step by step) <- ``batch`` (play a batch) <- ``store`` and
``backends`` <- ``runner`` (the whole run).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sim.kernel import fastpath
from sim.kernel.layout import MAXP
from sim.kernel.ruleset import Ruleset
from sim.kernel.strategy import Strategy
from sim.runs.registry import get_move, get_swap
from sim.runs.workers import check_threads

DEFAULT_CAP = 10_000  # R25
MAX_TURNS = 10_000_000  # the most --max-turns takes (a game of lowest lasts about 100 turns)


class RunError(ValueError):
    """A run that cannot go on: a user mistake or a strategy's error (R24)."""


def check_seed(seed) -> int:
    """The seed of a run, a study or an analysis: an integer from 0 to 2**63-1 (it seeds
    every game's stream, :mod:`sim.kernel.rng`); :class:`RunError` otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise RunError(f"--seed: expected an integer from 0 to 2**63-1, got {seed!r}")
    return int(seed)


def _per_seat(names, players, option) -> list:
    """One name per seat, from one for all or one per seat."""
    names = list(names)
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise RunError(f"{option}: give one for all seats or one per seat "
                       f"({players}), got {len(names)}")
    return names


# The seating of a plain run: seat s plays entry s of the pool (RunConfig.pool).
SEATED = np.arange(MAXP, dtype=np.int8)[None, :]


@dataclass(frozen=True)
class RunConfig:
    """What to simulate, checked. Built from what the user asked for, each field is set once,
    to its checked value (:meth:`__post_init__`); a config is never changed afterwards (for
    another, ``dataclasses.replace``). The values derived from it are declared: the fields
    after ``imported_as``, set by the constructor, and the cached properties.

    ``strategies``/``swaps``: one name for every seat, or one per seat; a swap of ``None``
    uses each strategy's own default swap policy. ``rules``: a preset name, a
    docs/position.md ruleset object or a :class:`~sim.kernel.ruleset.Ruleset`.
    ``preset_rows``: the parameter rows, instead of reading them from the strategies' files;
    ``imported_as``: where to import a strategy name from instead (a Dask worker's copy of a
    user's file, :mod:`sim.runs.backends`)."""

    games: int = 10_000
    players: int = 4
    seed: int = 0
    strategies: list = ("lowest",)     # one name per seat
    swaps: list = (None,)              # one swap policy's name per seat (defaults resolved)
    rules: object = "seed"     # the ruleset as docs/position.md's JSON: a preset, or it changed
    max_turns: int = DEFAULT_CAP       # R25
    threads: int | None = None
    batch: int = 100_000
    cycle_stop: bool = True    # stop games proven endless (sim.kernel.cycle), all seats pure
    preset_rows: list | None = field(default=None, repr=False)
    imported_as: dict | None = field(default=None, repr=False)
    # derived by the constructor
    ruleset: Ruleset = field(init=False, repr=False, compare=False)
    options: dict = field(init=False, repr=False, compare=False)   # every rule option, in full
    move_objs: list = field(init=False, repr=False, compare=False)   # per seat: Strategy
    swap_objs: list = field(init=False, repr=False, compare=False)   # per seat: Strategy
    # the parameter rows: each seat's strategy's, then each seat's swap policy's
    rows: list = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        games, players, threads = self.games, self.players, self.threads
        try:
            ruleset = Ruleset.parse(self.rules)
        except ValueError as e:
            raise RunError(f"rules: {e}") from None
        try:                          # R1, H18: the ruleset owns the players' check
            ruleset.check_players(players)
        except ValueError as e:
            raise RunError(f"--players: {e}") from None
        if not isinstance(games, int) or games < 1:
            raise RunError(f"--games: expected a positive number of games, got {games}")
        check_seed(self.seed)
        if not 1 <= self.max_turns <= MAX_TURNS:
            raise RunError(f"--max-turns: expected 1 to {MAX_TURNS:,} (R25's turn limit), got "
                           f"{self.max_turns}")
        if threads is not None:
            try:
                check_threads(threads)
            except ValueError as e:
                raise RunError(str(e)) from None
        if self.batch < 1:
            raise RunError(f"batch: expected a positive number, got {self.batch}")
        imported_as = dict(self.imported_as or {})
        strategies = _per_seat(self.strategies, players, "--strategy")
        swaps = _per_seat(self.swaps or [None], players, "--swap")
        try:
            move_objs: list[Strategy] = [get_move(imported_as.get(n, n)) for n in strategies]
            swaps = [sw if sw is not None else mv.swap for sw, mv in zip(swaps, move_objs)]
            swap_objs: list[Strategy] = [get_swap(imported_as.get(n, n)) for n in swaps]
        except ValueError as e:
            raise RunError(str(e)) from None
        # Parameter rows are prepared once, here: a bad parameter file fails before anything
        # is written, and a file edited during the run does not change it half-way.
        if self.preset_rows is not None:
            rows = [np.asarray(r, np.float64) for r in self.preset_rows]
        else:
            try:
                rows = [s.row() for s in move_objs] + [s.row() for s in swap_objs]
            except (OSError, ValueError) as e:
                raise RunError(str(e)) from None
        values = dict(strategies=strategies, rules=ruleset.to_json(), imported_as=imported_as,
                      swaps=[n if n in imported_as else s.name for n, s in zip(swaps, swap_objs)],
                      ruleset=ruleset, options=ruleset.to_dict(), move_objs=move_objs,
                      swap_objs=swap_objs, rows=rows)
        for name, value in values.items():
            object.__setattr__(self, name, value)      # frozen: set once, here

    @property
    def cycle_detect(self) -> bool:
        """Are games proven endless stopped (:mod:`sim.kernel.cycle`)? Only when asked
        (``cycle_stop``) and every seat's strategy is pure: a function of the position."""
        return bool(self.cycle_stop) and self.impure_seats() == 0

    def impure_seats(self) -> int:
        """The seats whose strategies are not pure, a bit each (:data:`sim.kernel.cycle.IMPURE`)."""
        return sum(1 << s for s, m in enumerate(self.move_objs) if not m.pure)

    def seat_entry(self, s: int) -> fastpath.SeatEntry:
        """Seat ``s``'s strategy as an entry of a pool of the core
        (:func:`sim.kernel.fastpath.make_pool`); a seat past the players gets seat 0's
        functions and no parameters (it never plays)."""
        seated = s < self.players
        move, swap = self.move_objs[s if seated else 0], self.swap_objs[s if seated else 0]
        none = np.zeros(0)
        return fastpath.SeatEntry(
            move=move.fn, swap=swap.fn, move_kind=fastpath.kind(move.fn),
            swap_kind=fastpath.kind(swap.fn, swap=True),
            move_params=self.rows[s] if seated else none,
            swap_params=self.rows[self.players + s] if seated else none, pure=move.pure)

    @cached_property
    def pool(self) -> fastpath.Pool:
        """The core's pool for this table: entry ``s`` is seat ``s``'s (:data:`SEATED`);
        always MAXP entries, so one compiled core serves every table size. Made once per config,
        as :attr:`seat_table` and :attr:`rules_vector`: a tournament calls the core thousands
        of times with the same ones. (Not flagged read-only: that would be another Numba
        type, and another compile of the core; nothing writes to them.)"""
        return fastpath.make_pool([self.seat_entry(s) for s in range(MAXP)])

    @cached_property
    def seat_table(self) -> np.ndarray:
        """The seat table of :attr:`pool` seated so (:data:`sim.kernel.fastpath.SEAT_TABLE`),
        for the step-by-step kernel (``swap_phase``, ``play_out``)."""
        return fastpath.kinds(self.pool.moves, self.pool.swaps)

    @cached_property
    def rules_vector(self) -> np.ndarray:
        """The ruleset as the kernel reads it (:meth:`sim.kernel.ruleset.Ruleset.vector`)."""
        return self.ruleset.vector()

    def describe(self) -> dict:
        return {"games": self.games, "players": self.players, "seed": self.seed,
                "strategies": self.strategies, "swaps": self.swaps, "rules": self.rules,
                "options": self.options, "max_turns": self.max_turns,
                "cycle_stop": self.cycle_stop}
