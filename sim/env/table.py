"""One table stepped from Python (:class:`Table`): the state the AEC, parallel and Gymnasium
environments share, over the jitted pieces of :mod:`sim.env.core`. Games are numbered as
``sim run`` numbers them: ``reset(seed=s)`` plays game 0 of seed ``s``, each later reset the
next game of that seed, so the deals are those of ``sim run --seed s``."""
from __future__ import annotations

import numpy as np

from sim.env import core
from sim.env.spec import N_ACTIONS, OBS_LEN, TableSpec
from sim.kernel.layout import CURRENT, MAXP, OVER, STATE_SIZE, TURN
from sim.kernel.position import move_to_dict


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for a reset without one (0 .. 2**63-1)."""
    return int(np.random.SeedSequence().entropy % (2**63))


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed: expected an integer from 0 to 2**63-1, got {seed!r}")
    return int(seed)


class Table:
    """A game in progress: its state row, its stream, which game of which seed it is."""

    def __init__(self, spec: TableSpec):
        self.spec = spec
        self.st = np.zeros(STATE_SIZE, np.int32)
        self.dealt = np.zeros(STATE_SIZE, np.int32)   # the state right after the deal (R4)
        self.rng = np.zeros(4, np.uint64)
        self.rewards = np.zeros(MAXP)
        self.swaps, self.cards, self.err, self.ids = core.scratch()
        self.mask_buf = np.zeros(N_ACTIONS, np.int8)
        self.seed: int | None = None
        self.game = -1
        self.status = core.RUNNING

    def start(self, seed=None, game=None) -> None:
        """Deal a game (:func:`sim.env.core.start_game`): game ``game`` of ``seed``; without a
        seed the next game of the current one (a fresh seed the first time)."""
        if seed is not None:
            self.seed, self.game = check_seed(seed), -1
        elif self.seed is None:
            self.seed, self.game = fresh_seed(), -1
        if game is not None:
            if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or game < 0:
                raise ValueError(f"game: expected a game number >= 0, got {game!r}")
            self.game = int(game)
        else:
            self.game += 1
        c = self.spec.config
        pool = c.pool
        if not core.start_game(self.st, self.dealt, self.rng, np.uint64(self.seed), self.game,
                               self.spec.players, c.rules_vector, pool.swaps, c.seat_table,
                               pool.params, self.swaps, self.cards, self.err):
            s = int(self.err[0])
            raise ValueError(f"swap policy {c.swaps[s]!r} (seat {s}) returned "
                             f"{int(self.err[1])}, not a choice of half its cards (R5, H12)")
        self.status = core.RUNNING

    @property
    def current(self) -> int:
        return int(self.st[CURRENT])

    @property
    def over(self) -> bool:
        return bool(self.st[OVER])

    @property
    def turn(self) -> int:
        return int(self.st[TURN])

    def observe(self, seat: int) -> np.ndarray:
        out = np.zeros(OBS_LEN, np.int32)
        core.observe(self.st, seat, out)
        return out

    def mask(self, seat: int) -> np.ndarray:
        """The legal moves of ``seat``: its mask while it is to move, else all 0."""
        out = np.zeros(N_ACTIONS, np.int8)
        if seat == self.current and self.status == core.RUNNING:
            core.legal_mask(self.st, out, self.ids)
        return out

    def play(self, action) -> tuple[int, bool]:
        """The seat to move plays ``action`` (a move id); (status, substituted). R24: an
        illegal action raises ``ValueError`` naming it, unless ``illegal="lowest"``."""
        if self.status != core.RUNNING:
            raise ValueError("the game is over (R25): reset the environment")
        try:
            m = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action: expected a move id 0..{N_ACTIONS - 1}, got "
                             f"{action!r}") from None
        status = core.play(self.st, m, self.spec.max_turns, self.spec.scheme,
                           self.spec.illegal == "lowest", self.rewards, self.ids)
        if status == core.ILLEGAL:
            what = move_to_dict(m, self.st) if 0 <= m < N_ACTIONS else "out of range"
            raise ValueError(f"illegal action {m} ({what}) for seat {self.current} (R24): "
                             f"not in the action mask")
        self.status = status & 3
        return self.status, bool(status & core.SUBSTITUTED)
