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
from sim.runs.batch import Seating, _kind, start
from sim.runs.config import RunConfig
from sim.runs.partial import Interrupted, Partial
from sim.runs.workers import Group
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


def _value(place, n, v2):
    """A seat's result from its place (0 = first) at a table of ``n``: 1 for the winner (seed
    rules), under V2 the share of the other seats finished behind."""
    return (n - 1 - place) / (n - 1) if v2 else (place == 0).astype(float)


def seat_values(place, done, v2):
    """Each seat's result in [0, 1] from its ``place``: 1 for the winner (seed rules), under
    V2 the share of the other seats finished behind; 0 for every seat of a game not ``done``."""
    return _value(place, place.shape[-1], v2) * np.asarray(done)[..., None]


def seat_value(order, done, v2, seat):
    """``seat_values(places(order, done, v2), done, v2)[..., seat]``: one seat's result
    alone, without the others' (a swap's playouts value seat 0 over millions of games)."""
    n = order.shape[-1]
    if v2:                          # its position among the first n - 1 out, else n - 1
        hit = order[..., :n - 1] == seat
        place = np.where(hit.any(axis=-1), hit.argmax(axis=-1), n - 1)
    else:                           # the winner's place alone is recorded
        place = np.where(order[..., 0] == seat, 0, n - 1)
    return _value(place, n, v2) * np.asarray(done)


def batch_results(b, players, v2):
    """(games, players) each seat's result in a Batch (:func:`seat_values`), and (games,)
    whether each game finished."""
    done = b.status != UNFINISHED
    return seat_values(places(b.order[:, :players], done, v2), done, v2), done


def strategy_results(value, strat, k):
    """(deals, k): each strategy's mean result over its seat-games in each deal, from the
    seats' results ``value`` and strategy indices ``strat`` (deals, rotations, n)."""
    deals = strat.shape[0]
    # each deal's seat-games in rotation then seat order: bincount adds them in that order
    flat = (np.arange(deals)[:, None, None] * k + strat).ravel()
    out = np.bincount(flat, weights=np.ravel(value), minlength=deals * k)
    held = np.bincount(flat, minlength=deals * k)
    return (out / held).reshape(deals, k)


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

    def play(self, orders, numbers, stop=None, tick=None, group=None):
        """Play deal ``i`` of a block under every rotation of its cyclic order ``orders[i]``,
        the deal's cards being those of game ``numbers[r * deals + i]`` in rotation ``r``; all
        in one job of the pool (in ``group``, a :class:`~sim.runs.workers.Group`, else one
        of its own on the match's threads). Returns the Batch (rotation by rotation, each in
        the order of the deals) and its seat rows (pool entries per seat).

        The core plays the games deal by deal (every rotation of a deal, then the next deal),
        so that on Ctrl-C (:class:`~sim.runs.partial.Interrupted`, ``stop`` and ``tick`` as
        for :func:`~sim.runs.batch.play_batch`) the games played are whole deals: the
        exception's ``partial.result`` is the Batch of the first ``partial.done`` deals,
        rotation by rotation (empty if none)."""
        if group is None:
            with Group(self.threads, stop) as g:
                return self.play(orders, numbers, tick=tick, group=g)
        block = self.start(group, orders, numbers, tick)
        try:
            group.wait(block.jobs)
        except KeyboardInterrupt:
            block.result()              # cut short: raises Interrupted with whole deals
            raise
        finally:
            group.forget(block.jobs)
        return block.result()

    def start(self, group, orders, numbers, tick=None, index=None, then=None) -> "Block":
        """:meth:`play`'s block submitted to ``group``, returned at once (:class:`Block`);
        ``then(batch, rows)`` (:meth:`play`'s result) runs on the pool's thread that
        finishes it (saving its records)."""
        return Block(self, group, orders, numbers, tick, index, then)


class Block:
    """A block of a :class:`Match` under way (:meth:`Match.start`): ``jobs``, ``index`` (the
    caller's), ``orders``, and :meth:`result` (:meth:`Match.play`'s) once they are over."""

    def __init__(self, match, group, orders, numbers, tick, index, then=None):
        self.index, self.orders = index, orders
        rows = seat_rows(orders, match.players)
        deals = len(orders)
        k = len(rows) // max(deals, 1)
        self.rows, self.deals, self.k = rows, deals, k
        self.by_deal = np.arange(k * deals).reshape(k, deals).T.ravel()
        back = np.argsort(self.by_deal)
        self.playing = start(group, match.configs[0], 0, 0, numbers=numbers[self.by_deal],
                             seating=Seating(match.pool, rows[self.by_deal], match.config),
                             tick=tick, grain=k, kind=("match", _kind(match.configs[0])),
                             then=None if then is None else lambda b: then(b.take(back), rows))
        self.jobs = self.playing.jobs

    def played(self):
        """The Batch of the whole deals played from the first (rotation by rotation) and
        their number, once no chunk is under way: what the block's progress counted."""
        m = self.playing.job.done // self.k
        back = np.arange(self.k * m).reshape(m, self.k).T.ravel()
        return self.playing.batch.take(back), m

    def result(self):
        k, deals = self.k, self.deals
        try:
            b = self.playing.result()
        except Interrupted as e:
            m = e.partial.result.status.size // k
            back = np.arange(k * m).reshape(m, k).T.ravel()
            raise Interrupted(Partial(e.partial.result.take(back), m, deals, "deals")) from None
        return b.take(np.argsort(self.by_deal)), self.rows
