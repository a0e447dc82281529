"""Many tables stepped at once (:class:`VectorTables`): arrays in, arrays out, for speed.

A 2-D state array (one row a table, :data:`sim.kernel.layout.STATE_SIZE` wide) and one
random stream a table; :func:`step_rows` plays each table's seat to move one move id, scores
it, re-deals a finished table (auto-reset) and writes the next mover's observation and mask,
the same as the AEC environment's (:mod:`sim.env.core`). Table ``i`` plays games ``i``,
``i + n``, ``i + 2n`` ... of the seed, so the deals are ``sim run --seed``'s. NumPy only: no
PettingZoo or Gymnasium needed.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.env import core
from sim.env.spec import OBS_LEN, TableSpec
from sim.env.table import check_seed, fresh_seed, swap_seating
from sim.kernel.compiler import jit
from sim.kernel.layout import CURRENT, MAXP, NMOVES, STATE_SIZE
from sim.kernel.referee import SWAP_CARDS
from sim.kernel.rng import randint


class Batch(NamedTuple):
    """What a step (or a reset) of :class:`VectorTables` gives, one row a table."""

    obs: np.ndarray        # int32 (n, OBS_LEN): the seat to move's observation (R26)
    mask: np.ndarray       # int8 (n, spec.n_actions): its legal actions
    seat: np.ndarray       # int64 (n,): the seat to move (or, swap="choose", to choose)
    reward: np.ndarray     # float64 (n, players): each seat's reward for the step
    done: np.ndarray       # bool (n,): the game ended (then the row holds a new game's)
    truncated: np.ndarray  # bool (n,): the game reached max_turns (R25)


@jit
def _next(st, phase, seat, obs, mask, ids, i):
    if phase > 0:                              # swap="choose": a seat is to choose
        p = core.chooser_seat(st, phase)
        seat[i] = p
        core.observe_swap(st, p, p, obs[i])
        core.swap_mask(st, mask[i])
        return
    p = st[CURRENT]
    seat[i] = p
    core.observe(st, p, obs[i])
    core.legal_mask(st, mask[i], ids)


@jit
def reset_rows(states, rngs, games, seed, players, rules, swap_fns, kinds, params, choosers,
               phases, chosen, obs, mask, seat, lo, hi):
    """Deal game ``games[i]`` of ``seed`` at every table ``lo <= i < hi``; -1, or the first
    table whose swap policy failed."""
    swaps, cards, err = np.zeros(MAXP, np.int64), np.zeros(SWAP_CARDS, np.int32), np.zeros(3, np.int64)
    ids, dealt = np.zeros(NMOVES, np.int64), np.zeros(0, np.int32)
    work = params.copy()
    for i in range(lo, hi):
        phases[i] = core.begin_game(states[i], dealt, rngs[i], seed, games[i], players, rules,
                                    swap_fns, kinds, params, work, choosers, chosen[i], swaps,
                                    cards, err)
        if phases[i] < 0:
            return i
        _next(states[i], phases[i], seat, obs, mask, ids, i)
    return -1


@jit
def step_rows(states, rngs, games, n, seed, players, rules, swap_fns, kinds, params, choosers,
              phases, chosen, actions, max_turns, scheme, substitute, obs, mask, seat, reward,
              done, truncated, lo, hi):
    """Each table ``lo <= i < hi`` plays ``actions[i]`` (:func:`sim.env.core.play`), or in its
    swap phase (``swap="choose"``) chooses by it; a finished table deals its next game,
    ``games[i] + n``. Returns -1, or the first table whose action was illegal (R24: nothing
    played from it on)."""
    swaps, cards, err = np.zeros(MAXP, np.int64), np.zeros(SWAP_CARDS, np.int32), np.zeros(3, np.int64)
    ids, dealt = np.zeros(NMOVES, np.int64), np.zeros(0, np.int32)
    work = params.copy()
    for i in range(lo, hi):
        st = states[i]
        if phases[i] > 0:                      # a seat chooses its face-ups (R5/V1)
            phase, _ = core.choose_swap(st, rngs[i], phases[i], actions[i], substitute,
                                        swap_fns, kinds, params, work, choosers, chosen[i],
                                        swaps, cards, err)
            if phase == -1:
                return i
            if phase == -2:
                return -2 - i
            phases[i] = phase
            for s in range(reward.shape[1]):
                reward[i, s] = 0.0
            done[i] = False
            truncated[i] = False
            _next(st, phase, seat, obs, mask, ids, i)
            continue
        status = core.play(st, actions[i], max_turns, scheme, substitute, reward[i], ids) & 3
        if status == core.ILLEGAL:
            return i
        done[i] = status == core.OVER_
        truncated[i] = status == core.TRUNCATED
        if status != core.RUNNING:
            games[i] += n
            phases[i] = core.begin_game(st, dealt, rngs[i], seed, games[i], players, rules,
                                        swap_fns, kinds, params, work, choosers, chosen[i],
                                        swaps, cards, err)
            if phases[i] < 0:
                phases[i] = 0
                return -2 - i
        _next(st, phases[i], seat, obs, mask, ids, i)
    return -1


@jit
def random_legal(mask, rng, out):
    """A uniformly random legal action of every row of ``mask`` into ``out``, drawn from the
    stream ``rng`` (uint64[4], :mod:`sim.kernel.rng`): a baseline policy and the benchmark's."""
    for i in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            k += mask[i, a]
        k = randint(rng, k)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


class VectorTables:
    """``n`` tables of one :class:`sim.env.spec.TableSpec` (``players``, ``rules``, ``rule``,
    ``swap``, ``max_turns``, ``reward``, ``illegal``), stepped together; ``threads`` > 1 steps
    slices of them on the process's pool (:class:`sim.runs.workers.Group`). With
    ``swap="choose"`` a table's first steps after each deal are its seats' swaps, as in the
    AEC environment."""

    def __init__(self, n: int, players: int = 4, rules="seed", rule=(), swap="highest-up",
                 max_turns: int = 10_000, reward: str = "place", illegal: str = "raise",
                 threads: int = 1):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n: expected a positive number of tables, got {n!r}")
        self.spec = TableSpec(players, rules, tuple(rule) if not isinstance(rule, (str, dict))
                              else rule, swap, max_turns, reward, illegal)
        self.n = int(n)
        self.swap_fns, self.kinds, self.params, self.choosers = swap_seating(self.spec)
        self.phases = np.zeros(n, np.int64)
        self.chosen = np.zeros((n, MAXP), np.int64)
        self.group = None
        if threads != 1:
            from sim.runs.workers import Group

            self.group = Group(threads)
        self.states = np.zeros((n, STATE_SIZE), np.int32)
        self.rngs = np.zeros((n, 4), np.uint64)
        self.games = np.arange(n, dtype=np.int64)
        self.obs = np.zeros((n, OBS_LEN), np.int32)
        self.mask = np.zeros((n, self.spec.n_actions), np.int8)
        self.seat = np.zeros(n, np.int64)
        self._reward = np.zeros((n, MAXP))
        self.done = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        self.seed = None

    def _batch(self) -> Batch:
        return Batch(self.obs, self.mask, self.seat, self._reward[:, :self.spec.players],
                     self.done, self.truncated)

    def _slices(self, fn) -> int:
        """``fn(lo, hi)`` over the tables, in slices on the pool's threads when asked;
        -1 or the first table it reports."""
        if self.group is None:
            return fn(0, self.n)
        k = self.group.threads
        cuts = [self.n * j // k for j in range(k + 1)]
        found = [-1] * k

        def block(j):
            found[j] = fn(cuts[j], cuts[j + 1])

        jobs = [self.group.submit(1, lambda lo, hi, j=j: block(j)) for j in range(k)]
        self.group.wait(jobs)
        return next((f for f in found if f != -1), -1)

    def reset(self, seed=None) -> Batch:
        """Deal game ``i`` of ``seed`` at table ``i`` (a fresh seed when None)."""
        self.seed = check_seed(seed) if seed is not None else fresh_seed()
        self.games[:] = np.arange(self.n)
        self._reward[:] = 0
        self.done[:] = False
        self.truncated[:] = False
        c = self.spec.config
        bad = self._slices(lambda lo, hi: reset_rows(
            self.states, self.rngs, self.games, np.uint64(self.seed), self.spec.players,
            c.rules_vector, self.swap_fns, self.kinds, self.params, self.choosers,
            self.phases, self.chosen, self.obs, self.mask, self.seat, lo, hi))
        if bad >= 0:
            raise ValueError(f"table {bad}: a swap policy returned a choice that is not half "
                             f"its cards (R5, H12)")
        return self._batch()

    def step(self, actions) -> Batch:
        """Every table's seat to move plays its action (a move id, int64 ``(n,)``)."""
        if self.seed is None:
            raise ValueError("reset() the tables before the first step")
        actions = np.asarray(actions)
        if actions.shape != (self.n,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions: expected {self.n} integer move ids, got shape "
                             f"{actions.shape} of {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        c, spec = self.spec.config, self.spec
        bad = self._slices(lambda lo, hi: step_rows(
            self.states, self.rngs, self.games, self.n, np.uint64(self.seed), spec.players,
            c.rules_vector, self.swap_fns, self.kinds, self.params, self.choosers, self.phases,
            self.chosen, actions, spec.max_turns, spec.scheme, spec.illegal == "lowest",
            self.obs, self.mask, self.seat, self._reward, self.done, self.truncated, lo, hi))
        if bad <= -2:
            raise ValueError(f"table {-2 - bad}: a swap policy returned a choice that is not "
                             f"half its cards (R5, H12)")
        if bad >= 0:
            raise ValueError(f"table {bad}: illegal action {int(actions[bad])} for seat "
                             f"{int(self.seat[bad])} (R24): not in its mask; tables from "
                             f"{bad} on were not stepped")
        return self._batch()

    def random_actions(self, rng: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A random legal action per table (:func:`random_legal`) from the stream ``rng``."""
        out = np.zeros(self.n, np.int64) if out is None else out
        random_legal(self.mask, rng, out)
        return out
