"""Seat-rotation matches: deals played under every rotation of a cyclic order of strategies
(duplicate deals: every rotation of a deal gives each seat the same cards and the same
starting player, so the luck of the deal falls on every strategy alike), a block of them in
one call of the core; and what each seat and each strategy made of the games.

Tournaments (:mod:`sim.studies.compare`) and ``sim tune``'s tables (:mod:`sim.studies.tune`)
play through :class:`Match`; they and the swap study score seats with :func:`places` and
:func:`seat_values` (:func:`batch_results` for a Batch). An unfinished game (turn cap, R25) is won by nobody: every seat scores 0.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.fastpath import make_pool
from sim.kernel.referee import UNFINISHED
from sim.runs.batch import Seating, play_batch
from sim.runs.config import RunConfig
from sim.runs.partial import Interrupted, Partial
from sim.studies.design import rotations, seat_rows


# -- per-seat and per-strategy results ---------------------------------------------------------
def places(order, done, v2):
    """(..., n): each seat's place, 0 = first, from ``order`` (..., n), the seats in finishing
    order, and ``done`` (...), the games that finished. Places not recorded (seed rules: all
    but the winner's; unfinished games: everyone's) are n - 1."""
    n = order.shape[-1]
    flat = order.reshape(-1, n)
    place = np.full(flat.shape, n - 1, np.int8)
    game = np.flatnonzero(np.ravel(done))
    for pos in range(n - 1 if v2 else 1):
        seat = flat[game, pos].astype(np.int64)
        ok = seat >= 0
        place[game[ok], seat[ok]] = pos
    return place.reshape(order.shape)


def seat_values(place, done, v2):
    """Each seat's result in [0, 1] from its ``place``: 1 for the winner (seed rules), under
    V2 the share of the other seats finished behind; 0 for every seat of a game not ``done``."""
    n = place.shape[-1]
    value = (n - 1 - place) / (n - 1) if v2 else (place == 0).astype(float)
    return value * np.asarray(done)[..., None]


def batch_results(b, players, v2):
    """(games, players) each seat's result in a Batch (:func:`seat_values`), and (games,)
    whether each game finished."""
    done = b.status != UNFINISHED
    return seat_values(places(b.order[:, :players], done, v2), done, v2), done


def strategy_results(value, strat, k):
    """(deals, k): each strategy's mean result over its seat-games in each deal, from the
    seats' results ``value`` and strategy indices ``strat`` (deals, rotations, n)."""
    deals, rotations_, n = strat.shape
    out = np.zeros((deals, k))
    held = np.zeros((deals, k))
    rows = np.arange(deals)
    for r in range(rotations_):
        for s in range(n):
            out[rows, strat[:, r, s]] += value[:, r, s]
            held[rows, strat[:, r, s]] += 1
    return out / held


def split_rotations(b, rotations_):
    """A block played rotation by rotation (:meth:`Match.play`) as one Batch per rotation."""
    n = b.status.size // rotations_
    return [b.take(slice(r * n, (r + 1) * n)) for r in range(rotations_)]


def stack_rotations(batches, players):
    """(deals, rotations, ...) arrays of one Batch per rotation over the same deals: the
    finishing order (int8), whether each game finished, its starting seat (int8)."""
    order = np.stack([b.order[:, :players] for b in batches], axis=1).astype(np.int8)
    done = np.stack([b.status != UNFINISHED for b in batches], axis=1)
    starter = np.stack([b.starter for b in batches], axis=1).astype(np.int8)
    return order, done, starter


# -- playing -----------------------------------------------------------------------------------
class Match:
    """``strategies`` (distinct names) at ``players`` seats, played under rotations of cyclic
    orders of their indices: ``base`` (default: the order given) names the rotations whose
    RunConfigs describe the match (``configs``; rotation 0's gives seed, rules and the turn
    limit to every game). ``swaps``: a swap policy per strategy (default: each one's own)."""

    def __init__(self, strategies, players, seed, rules, max_turns, threads, swaps=None,
                 cycle_stop=True, base=None):
        self.strategies, self.players, self.threads = list(strategies), players, threads
        self._made = {}
        self._spec = dict(seed=seed, rules=rules, max_turns=max_turns, threads=threads,
                          cycle_stop=cycle_stop)
        self._swaps = swaps
        k = len(self.strategies)
        base = np.arange(k) if base is None else np.asarray(base)
        seated = rotations(base[None, :], players)[0]
        self.configs = [self.config(tuple(int(i) for i in seats)) for seats in seated]
        # Strategy j of the core's pool: seat 0 of the first rotation that seats it there.
        first = {}
        for r, seats in enumerate(seated):
            first.setdefault(int(seats[0]), r)
        entry = [self.configs[first[j]] for j in range(k)]
        self.pool = make_pool([c.seat_entry(0) for c in entry])
        self.swaps = [c.swaps[0] for c in entry]      # each strategy's swap policy, by name

    def config(self, seats: tuple) -> RunConfig:
        """The RunConfig of one seating (a tuple of strategy indices per seat), made once."""
        if seats not in self._made:
            self._made[seats] = RunConfig(
                games=1, players=self.players, strategies=[self.strategies[i] for i in seats],
                swaps=None if self._swaps is None else [self._swaps[i] for i in seats],
                **self._spec)
        return self._made[seats]

    def play(self, orders, numbers, stop=None, tick=None):
        """Play deal ``i`` of a block under every rotation of its cyclic order ``orders[i]``,
        the deal's cards being those of game ``numbers[r * deals + i]`` in rotation ``r``; all
        in one call of the core. Returns the Batch (rotation by rotation, each in the order of
        the deals) and its seat rows (pool entries per seat).

        The core plays the games deal by deal (every rotation of a deal, then the next deal),
        so that on Ctrl-C (:class:`~sim.runs.partial.Interrupted`, ``stop`` and ``tick`` as
        for :func:`~sim.runs.batch.play_batch`) the games played are whole deals: the
        exception's ``partial.result`` is the Batch of the first ``partial.done`` deals,
        rotation by rotation (empty if none)."""
        rows = seat_rows(orders, self.players)
        deals = len(orders)
        k = len(rows) // max(deals, 1)
        by_deal = np.arange(k * deals).reshape(k, deals).T.ravel()
        try:
            b = play_batch(self.configs[0], 0, 0, self.threads, numbers=numbers[by_deal],
                           seating=Seating(self.pool, rows[by_deal], self.config),
                           stop=stop, tick=tick)
        except Interrupted as e:
            m = e.partial.result.status.size // k
            back = np.arange(k * m).reshape(m, k).T.ravel()
            raise Interrupted(Partial(e.partial.result.take(back), m, deals, "deals")) from None
        return b.take(np.argsort(by_deal)), rows
