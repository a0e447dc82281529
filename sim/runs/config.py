"""What to simulate: :class:`RunConfig` checks what the user asked for (players, games, seed,
rules, strategies and their parameters) and resolves strategies by name; :class:`RunError`
is a run that cannot go on.

The modules of a run import one way: ``config`` <- ``batch`` (play a batch, record a game)
<- ``store`` and ``backends`` <- ``runner`` (the whole run).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from sim.kernel import fastpath
from sim.kernel.compiler import FnTuple
from sim.kernel.layout import MAXP
from sim.kernel.ruleset import Ruleset
from sim.kernel.strategy import Strategy
from sim.runs.registry import get_move, get_swap

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
    from sim.kernel.compiler import cache_dir

    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = cache_dir().parent / "user" / digest / Path(spec.rpartition(":")[0]).name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(source)
        tmp.replace(path)
    return path


# The seating of a plain run: seat s plays entry s of the pool (RunConfig.pool_args).
SEATED = np.arange(MAXP, dtype=np.int8)[None, :]


@dataclass
class RunConfig:
    """What to simulate. ``strategies``/``swaps``: one name for every seat, or one per seat;
    a swap of ``None`` uses each strategy's own default swap policy. ``rules``: a preset
    name, a POSITION.md ruleset object or a :class:`~sim.kernel.ruleset.Ruleset`."""

    games: int = 10_000
    players: int = 4
    seed: int = 0
    strategies: list[str] = field(default_factory=lambda: ["lowest"])
    swaps: list[str | None] = field(default_factory=lambda: [None])
    rules: object = "seed"
    max_turns: int = DEFAULT_CAP
    threads: int | None = None
    batch: int = 100_000
    cycle_stop: bool = True   # stop games proven endless (sim.kernel.cycle), when every seat is pure
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

    @property
    def cycle_detect(self) -> bool:
        """Are games proven endless stopped (:mod:`sim.kernel.cycle`)? Only when asked
        (``cycle_stop``) and every seat's strategy is pure: a function of the position."""
        return bool(self.cycle_stop) and self.impure_seats() == 0

    def impure_seats(self) -> int:
        """The seats whose strategies are not pure, a bit each (:data:`sim.kernel.cycle.IMPURE`)."""
        return sum(1 << s for s, m in enumerate(self.move_objs) if not m.pure)

    def cycle_note(self) -> str:
        """Why games proven endless are stopped or not, in words."""
        if not self.cycle_stop:
            return "off (--no-cycle-stop)"
        impure = sorted({s.name for s in self.move_objs if not s.pure})
        if impure:
            are = "is" if len(impure) == 1 else "are"
            note = (f"off: {', '.join(impure)} {are} not declared pure (a function of the "
                    f"position only)")
            if self.ruleset.last_player_loses and len(impure) < len(self.move_objs):
                note += (f"; on once {'its seats are' if len(impure) == 1 else 'their seats are'}"
                         f" out (V2: the seats still to move are then all pure)")
            return note
        return "on: every seat's strategy is pure"

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
        kinds of the built-ins the core inlines (:mod:`sim.kernel.fastpath`) and the parameter rows
        (seat ``s``'s strategy in row ``s``, its swap policy in row ``MAXP + s``). Made once
        per config, as :meth:`rules_vector`: a tournament calls the core thousands of times
        with the same ones. (Not flagged read-only: that would be another Numba type, and
        another compile of the core; nothing writes to them.)"""
        if getattr(self, "_kernel_args", None) is None:
            self._kernel_args = self._make_kernel_args()
        return self._kernel_args

    def seat_entry(self, s: int) -> tuple:
        """Seat ``s``'s strategy as an entry of a pool of the core
        (:func:`sim.kernel.fastpath.make_pool`), as :meth:`kernel_args` seats it."""
        moves, swaps, kinds, params = self.kernel_args()
        pure = self.move_objs[s if s < self.players else 0].pure
        return moves[s], swaps[s], kinds[s], kinds[MAXP + s], params[s], params[MAXP + s], pure

    def pool_args(self) -> tuple:
        """The core's pool for this table: entry ``s`` is seat ``s``'s (:data:`SEATED`)."""
        if getattr(self, "_pool_args", None) is None:
            self._pool_args = fastpath.make_pool([self.seat_entry(s) for s in range(MAXP)])
        return self._pool_args

    def rules_vector(self) -> np.ndarray:
        """The ruleset as the kernel reads it (:meth:`sim.kernel.ruleset.Ruleset.vector`), made once
        (56 us each time)."""
        if getattr(self, "_rules_vector", None) is None:
            self._rules_vector = self.ruleset.vector()
        return self._rules_vector

    def _make_kernel_args(self):
        pad = MAXP - self.players
        moves = tuple(s.fn for s in self.move_objs) + (self.move_objs[0].fn,) * pad
        swaps = tuple(s.fn for s in self.swap_objs) + (self.swap_objs[0].fn,) * pad
        rows = self.rows[:self.players] + [None] * pad + self.rows[self.players:]
        params = np.zeros((2 * MAXP, max([1] + [r.size for r in rows if r is not None])))
        for i, row in enumerate(rows):
            if row is not None:
                params[i, :row.size] = row
        return FnTuple(moves), FnTuple(swaps), fastpath.kinds(moves, swaps), params

    def describe(self) -> dict:
        return {"games": self.games, "players": self.players, "seed": self.seed,
                "strategies": self.strategies, "swaps": self.swaps, "rules": self.rules,
                "options": self.options, "max_turns": self.max_turns,
                "cycle_stop": self.cycle_stop}

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
                  cycle_stop=spec.get("cycle_stop", True),
                  preset_rows=spec["rows"])   # the driver's: a worker needs no table file
        cfg.strategies, cfg.swaps = list(spec["strategies"]), list(spec["swaps"])
        return cfg
