"""One table stepped from Python (:class:`Table`): the state the AEC, parallel and Gymnasium
environments share, over the jitted pieces of :mod:`sim.env.core`. Games are numbered as
``sim run`` numbers them: ``reset(seed=s)`` plays game 0 of seed ``s``, each later reset the
next game of that seed, so the deals are those of ``sim run --seed s``."""
from __future__ import annotations

import numpy as np

from sim.env import core
from sim.env.spec import OBS_LEN, TableSpec
from sim.kernel.layout import CURRENT, MAXP, NMOVES, OVER, STATE_SIZE, TURN
from sim.kernel.position import move_to_dict


def swap_seating(spec: TableSpec):
    """(swap functions, seat table, parameter rows, choosers) of ``spec``'s swap phase: its
    run's pool, with the seats that swap by action (``swap="choose"``) playing the choice
    given them (:func:`strategies.swaps.given_swaps`, as ``sim play`` seats its human)."""
    c = spec.config
    choosers = np.zeros(MAXP, np.int64)
    if not spec.choosers:
        return c.pool.swaps, c.seat_table, c.pool.params, choosers
    from strategies.swaps import given_swaps

    fns, kinds, params = given_swaps(c.pool, {s: 0 for s in spec.choosers})
    choosers[list(spec.choosers)] = 1
    return fns, kinds, params, choosers


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
        self.n_actions = spec.n_actions
        self.swap_fns, self.kinds, self.params, self.choosers = swap_seating(spec)
        self.work = self.params.copy()
        self.chosen = np.zeros(MAXP, np.int64)
        self.phase = 0            # swap="choose": >= 1 while a seat is to choose (core)
        self.seed: int | None = None
        self.game = -1
        self.status = core.RUNNING

    def start(self, seed=None, game=None) -> None:
        """Deal game ``game`` of ``seed`` and, unless a seat chooses it by action, make the
        swap phase (:func:`sim.env.core.begin_game`); without a seed the next game of the
        current one (a fresh seed the first time)."""
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
        phase = core.begin_game(self.st, self.dealt, self.rng, np.uint64(self.seed), self.game,
                                self.spec.players, self.spec.config.rules_vector,
                                self.swap_fns, self.kinds, self.params, self.work,
                                self.choosers, self.chosen, self.swaps, self.cards, self.err)
        self.status = core.RUNNING
        self.phase = max(phase, 0)
        self._check_swaps(phase)

    def _check_swaps(self, phase: int) -> None:
        """``ValueError`` when a swap policy's choice was not half its cards (phase -2)."""
        if phase == -2:
            s = int(self.err[0])
            raise ValueError(f"swap policy {self.spec.config.swaps[s]!r} (seat {s}) returned "
                             f"{int(self.err[1])}, not a choice of half its cards (R5, H12)")

    @property
    def swapping(self) -> bool:
        """In the swap phase (``swap="choose"``): a seat is to choose its face-ups."""
        return self.phase > 0

    @property
    def current(self) -> int:
        """The seat to act: to move, or in the swap phase to choose."""
        if self.phase:
            return int(core.chooser_seat(self.st, self.phase))
        return int(self.st[CURRENT])

    @property
    def over(self) -> bool:
        return bool(self.st[OVER])

    @property
    def turn(self) -> int:
        return int(self.st[TURN])

    def observe(self, seat: int) -> np.ndarray:
        out = np.zeros(OBS_LEN, np.int32)
        if self.phase:
            core.observe_swap(self.st, seat, core.chooser_seat(self.st, self.phase), out)
        else:
            core.observe(self.st, seat, out)
        return out

    def mask(self, seat: int) -> np.ndarray:
        """The legal actions of ``seat``: its mask while it is to act, else all 0."""
        out = np.zeros(self.n_actions, np.int8)
        if seat == self.current and self.status == core.RUNNING:
            if self.phase:
                core.swap_mask(self.st, out)
            else:
                core.legal_mask(self.st, out, self.ids)
        return out

    def play(self, action) -> tuple[int, bool]:
        """The seat to act plays ``action`` (a move id, or in the swap phase a swap id);
        (status, substituted). R24: an illegal action raises ``ValueError`` naming it, unless
        ``illegal="lowest"``."""
        if self.status != core.RUNNING:
            raise ValueError("the game is over (R25): reset the environment")
        try:
            m = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action: expected an action id 0..{self.n_actions - 1}, got "
                             f"{action!r}") from None
        if self.phase:
            return self._swap(m)
        status = core.play(self.st, m, self.spec.max_turns, self.spec.scheme,
                           self.spec.illegal == "lowest", self.rewards, self.ids)
        if status == core.ILLEGAL:
            raise ValueError(f"illegal action {m} ({self._name(m)}) for seat {self.current} "
                             f"(R24): not in the action mask")
        self.status = status & 3
        return self.status, bool(status & core.SUBSTITUTED)

    def _name(self, m: int):
        if 0 <= m < NMOVES:
            return move_to_dict(m, self.st)
        if NMOVES <= m < self.n_actions:
            return "a swap, outside the swap phase"
        return "out of range"

    def _swap(self, a: int) -> tuple[int, bool]:
        """The seat to choose chooses swap id ``a`` (R5/V1; :func:`sim.env.core.choose_swap`,
        which after the last chooser makes the swap phase)."""
        seat = self.current
        phase, substituted = core.choose_swap(
            self.st, self.rng, self.phase, a, self.spec.illegal == "lowest", self.swap_fns,
            self.kinds, self.params, self.work, self.choosers, self.chosen, self.swaps,
            self.cards, self.err)
        if phase == -1:
            what = "a move, in the swap phase" if 0 <= a < NMOVES else "no swap choice"
            raise ValueError(f"illegal action {a} ({what}) for seat {seat} (R5, R24): not in "
                             f"the action mask")
        self._check_swaps(phase)
        self.rewards[:] = 0.0
        self.phase = phase
        return core.RUNNING, bool(substituted)
