"""Tournaments: every strategy in every seat equally often, each deal replayed under every
rotation of the seating (duplicate deals: common random numbers, so the luck of the deal
cancels out of the comparison).

With strategies ``S_0 .. S_{k-1}`` at ``n`` seats, rotation ``r`` seats ``S_{(s + r) % k}`` at
seat ``s``; over the ``k`` rotations each strategy holds each seat exactly once per deal. A
deal is a game index: the deal depends only on (seed, index) (sim.kernel.rng), so rotation ``r``
of deal ``d`` is game ``d`` of a run whose seats are rotated by ``r``; every rotation of a
deal gives each seat the same cards and the same starting player.

Statistics (:mod:`sim.studies.stats`), all over deals, the independent unit of the design:

- a strategy's result (seed rules: win rate; V2: share of the other seats finished behind)
  is the mean over deals of its per-deal result, with a 95% interval over deals;
- the leader (highest result) is compared with each other strategy by the paired per-deal
  difference, at level ``1 - 0.05 / (k - 1)``: if the leader is declared better than all
  the others, the chance that this is wrong is at most 5% (a wrong claim needs the interval
  of the pair (leader, true best) to miss, one of the ``k - 1`` pairs holding the true best);
- seat and starting-player effects: the per-deal share of rotations that seat (the starter)
  won, with intervals over deals;
- head to head: shares of meetings, with the number of meetings and an interval over deals;
- ratings: Plackett-Luce over finishing orders (seed rules: the winner among the seated;
  V2: the whole order) with a stated Gaussian prior, see :func:`sim.studies.stats.ratings`.

An unfinished game (turn cap, R25) counts in every denominator as a game won by nobody: it
adds 0 to every strategy's and seat's result, and it is reported next to every table. When
every strategy still to move is pure, a game proven endless (a position came back,
:mod:`sim.kernel.cycle`) is stopped at once; it is unfinished all the same, counted apart
(``unfinished_cycle``).

Seating (``seating``). With ``"fixed"`` the cyclic order of the strategies is the order given,
so each always follows the same neighbour: with more than two strategies that neighbour is
part of the result (a copy of ``lowest`` seated after ``random``, which hands out 2s and 10s,
wins twice as often as ``lowest`` itself). With ``"balanced"`` (the default) every strategy
follows every other equally often: up to six strategies, deal ``d`` is played under cyclic
order ``d mod (k - 1)!`` of all of them (each order a fixed share of every block of deals:
a stratified design, for which the interval over deals is valid, if anything conservative);
with more, every deal gets its own order, drawn from (seed, deal) alone, so that deals stay
independent. (A short list of random orders shared by many deals would not do: its own
imbalance is a bias that the interval over deals does not see; benchmarks/seating.py.) Every
deal is still played under every rotation of its order, so every strategy holds every seat
once per deal. A block's games are played in one call of the core, which seats each game's
strategies itself (:class:`sim.runs.batch.Seating`), and the results are kept in the order of the
deals, so nothing depends on threads or block sizes.

``until_clear`` plays in blocks and stops as soon as the leader is ahead of every other
strategy by anytime-valid confidence sequences (:func:`sim.studies.stats.confidence_sequence`):
looking after every block costs no validity, whatever ``max_games``. After such a run every
interval reported is anytime-valid too (the tournament's ``sequential`` flag).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from sim.studies import stats
from sim.kernel.referee import UNFINISHED
from sim.kernel.cycle import END_CYCLE
from sim.kernel.rng import splitmix64
from sim.runs.batch import Seating
from sim.kernel.fastpath import POOL, make_pool
from sim.kernel.layout import MAXP
from sim.runs.runner import RunConfig, RunError, play_batch

ALPHA = 0.05
POLICY = ("an unfinished game (turn cap, R25) counts in every denominator as a game won by "
          "nobody")


@dataclass
class Tournament:
    """Per-deal records of a tournament: per block of deals, the finishing order of every
    rotation's game, whether it finished, and its starting player."""

    strategies: list[str]
    players: int
    v2: bool
    sequential: bool = False                          # intervals anytime-valid (until-clear)
    per_deal: list = field(default_factory=list)      # per block: (deals, k) results in [0, 1]
    orders: list = field(default_factory=list)        # per block: (deals, k, n) seats in order
    finished: list = field(default_factory=list)      # per block: (deals, k) bool
    starters: list = field(default_factory=list)      # per block: (deals, k) starting seat
    seatings: list = field(default_factory=list)      # per block: (deals, k) cyclic orders
    games: int = 0
    unfinished: int = 0
    cycles: int = 0                                   # of them, stopped as endless
    turns: int = 0

    @property
    def k(self):
        return len(self.strategies)

    def _strat(self, seating):
        """(deals, k, n): the strategy index of each seat under each rotation, for deals played
        under the cyclic orders ``seating`` (deals, k)."""
        return rotations(seating, self.players).astype(np.int64)

    def seats(self, r):
        """Strategy index of each seat under rotation ``r`` of the order given."""
        return [int(i) for i in rotations(np.arange(self.k)[None, :], self.players)[0, r]]

    def add_block(self, batches_by_rotation, seating=None):
        """Fold in one block of deals: one Batch per rotation, all over the same deals, deal
        ``d`` of the block played under rotations of the cyclic order ``seating[d]`` (k
        strategy indices; default: the order given)."""
        n = self.players
        order = np.stack([b.order[:, :n] for b in batches_by_rotation], axis=1).astype(np.int8)
        done = np.stack([b.status != UNFINISHED for b in batches_by_rotation], axis=1)
        starter = np.stack([b.starter for b in batches_by_rotation], axis=1).astype(np.int8)
        for b, ok in zip(batches_by_rotation, done.T):
            self.games += b.status.size
            self.unfinished += int((~ok).sum())
            if getattr(b, "end", None) is not None:   # records without the reason: all cap
                self.cycles += int((b.end == END_CYCLE).sum())
            self.turns += int(b.turns[ok].sum())
        seating = (np.tile(np.arange(self.k, dtype=np.int8), (done.shape[0], 1))
                   if seating is None else np.asarray(seating, np.int8))
        self.orders.append(order)
        self.finished.append(done)
        self.starters.append(starter)
        self.seatings.append(seating)
        self.per_deal.append(self._results(self._places(order, done), done,
                                           self._strat(seating)))

    # -- per-deal quantities ---------------------------------------------------------------
    def _places(self, order, done):
        """(deals, k, n): each seat's place, 0 = first; ranks not recorded (seed rules: all
        but the winner; unfinished games: everyone) are n - 1."""
        n = self.players
        deals, k = done.shape
        place = np.full((deals, k, n), n - 1, np.int8)
        d, r = np.nonzero(done)
        for pos in range(n - 1 if self.v2 else 1):
            seat = order[d, r, pos].astype(np.int64)
            ok = seat >= 0
            place[d[ok], r[ok], seat[ok]] = pos
        return place

    def _results(self, place, done, strat):
        """(deals, k): each strategy's result in the deal, in [0, 1]: the share of its seats
        (one per seat and rotation) that won, or under V2 the mean share of the other seats
        it finished ahead of. An unfinished game gives everyone 0 (won by nobody)."""
        n = self.players
        value = (n - 1 - place) / (n - 1) if self.v2 else (place == 0).astype(float)
        value = value * done[:, :, None]
        out = np.zeros((done.shape[0], self.k))
        rows = np.arange(done.shape[0])
        for r in range(self.k):
            for s in range(n):
                out[rows, strat[:, r, s]] += value[:, r, s]
        return out / n

    def _all(self):
        """Every block's records, concatenated: (orders, finished, starters, places)."""
        order = np.concatenate(self.orders)
        done = np.concatenate(self.finished)
        return order, done, np.concatenate(self.starters), self._places(order, done)

    def _interval(self, x, alpha=ALPHA, bounds=(0.0, 1.0), null=None):
        fn = stats.confidence_sequence if self.sequential else stats.mean_interval
        return fn(x, alpha=alpha, bounds=bounds, null=null)

    # -- answers ---------------------------------------------------------------------------
    def estimates(self):
        """Per strategy: seat-games, result (win rate or V2 place share), its 95% interval over
        deals (anytime-valid after until-clear) and its seat-games in unfinished games."""
        per_deal = np.concatenate(self.per_deal)
        d = per_deal.shape[0]
        key = "place_share" if self.v2 else "win_rate"
        unfinished = self._unfinished_seat_games()
        rows = []
        for i, s in enumerate(self.strategies):
            ci = self._interval(per_deal[:, i])
            rows.append({"strategy": s, "games": int(d * self.players),
                         "wins": None if self.v2 else int(round(per_deal[:, i].sum()
                                                                 * self.players)),
                         key: ci["estimate"], "ci_low": ci["ci_low"], "ci_high": ci["ci_high"],
                         "unfinished": unfinished[i]})
        return rows

    def _unfinished_seat_games(self):
        if not self.finished:
            return [0] * self.k
        lost = np.zeros(self.k, np.int64)
        for done, seating in zip(self.finished, self.seatings):
            strat = self._strat(seating)
            for r in range(self.k):
                for s in range(self.players):
                    lost += np.bincount(strat[~done[:, r], r, s], minlength=self.k)
        return [int(v) for v in lost]

    def leader_comparisons(self, alpha=ALPHA):
        """The leader (highest result) against each other strategy: the mean paired per-deal
        difference, its interval at level ``1 - alpha / (k - 1)`` and p-values (raw and
        Bonferroni-adjusted over the ``k - 1`` comparisons)."""
        per_deal = np.concatenate(self.per_deal)
        k = self.k
        lead = int(np.argmax(per_deal.mean(axis=0)))
        level = alpha / (k - 1)
        rows = []
        for j in range(k):
            if j == lead:
                continue
            ci = self._interval(per_deal[:, lead] - per_deal[:, j], alpha=level,
                                bounds=(-1.0, 1.0), null=0.0)
            rows.append({"against": self.strategies[j], "difference": ci["estimate"],
                         "ci_low": ci["ci_low"], "ci_high": ci["ci_high"],
                         "p_value": ci["p_value"],
                         "p_adjusted": min(1.0, ci["p_value"] * (k - 1))})
        return {"strategy": self.strategies[lead], "level": 1 - level, "deals": len(per_deal),
                "comparisons": rows,
                "clear": all(r["ci_low"] > 0 for r in rows)}

    def clear_leader(self, alpha=ALPHA):
        """(leader, clear?): is the anytime-valid interval of the paired difference between
        the leader and each other strategy, at level ``1 - alpha / (k - 1)``, above 0? What
        until-clear decides on after every block (one capital evaluation per pair)."""
        per_deal = np.concatenate(self.per_deal)
        lead = int(np.argmax(per_deal.mean(axis=0)))
        clear = all(stats.sequential_test(per_deal[:, lead] - per_deal[:, j],
                                          alpha / (self.k - 1))
                    for j in range(self.k) if j != lead)
        return self.strategies[lead], clear

    def seat_effect(self):
        """Per seat: win rate over every game (all strategies pooled) with its interval over
        deals: every rotation of a deal gives the seat the same cards, so the deal is the
        unit, and the per-deal value is the share of the deal's rotations the seat won."""
        _, done, _, place = self._all()
        won = ((place == 0) & done[:, :, None]).sum(axis=1)        # (deals, n)
        rows = []
        for s in range(self.players):
            ci = self._interval(won[:, s] / self.k)
            rows.append({"seat": s, "games": self.games, "wins": int(won[:, s].sum()),
                         "win_rate": ci["estimate"], "ci_low": ci["ci_low"],
                         "ci_high": ci["ci_high"], "unfinished": self.unfinished})
        return rows

    def starter_effect(self):
        """How often the starting player (R6) won, with an interval over deals."""
        _, done, starter, place = self._all()
        first = np.take_along_axis(place, starter[:, :, None].astype(np.int64), axis=2)[:, :, 0]
        won = ((first == 0) & done).sum(axis=1)
        ci = self._interval(won / self.k)
        return {"games": self.games, "starter_wins": int(won.sum()),
                "win_rate": ci["estimate"], "ci_low": ci["ci_low"], "ci_high": ci["ci_high"],
                "unfinished": self.unfinished}

    def _beats(self):
        """(deals, k, k): in each deal, how often a seat of i finished ahead of a seat of j
        (seed rules: i won a game j sat in), over the rotations; and the most possible."""
        k, n = self.k, self.players
        # The most meetings a deal can hold, for the ratio's anytime interval: over the
        # rotations of the order given, the seat pairs of i and j depend only on how many
        # places j sits after i (``ident[0, gap]``); so under any cyclic order each pair gets
        # the count of its gap, and ``most`` is the largest over the orders played.
        ident = np.zeros((k, k), np.int64)
        for r in range(k):
            strat = self.seats(r)
            for s in range(n):
                for t in range(n):
                    if strat[s] != strat[t]:
                        ident[strat[s], strat[t]] += 1
        most = np.zeros((k, k), np.int64)
        used = np.unique(np.concatenate(self.seatings), axis=0) if self.seatings else \
            np.arange(k)[None, :]
        for gap in range(1, k):
            np.maximum.at(most, (used.ravel(), np.roll(used, -gap, axis=1).ravel()),
                          ident[0, gap])
        blocks = []
        for order, done, seating in zip(self.orders, self.finished, self.seatings):
            place, strat = self._places(order, done), self._strat(seating)
            beats = np.zeros((done.shape[0], k, k), np.int32)
            rows = np.arange(done.shape[0])
            for r in range(k):
                for s in range(n):
                    for t in range(n):
                        i, j = strat[:, r, s], strat[:, r, t]
                        ok = i != j                # two seats of one strategy: no meeting
                        ahead = done[:, r] & (place[:, r, s] < place[:, r, t])
                        beats[rows[ok], i[ok], j[ok]] += ahead[ok]
            blocks.append(beats)
        return np.concatenate(blocks), most

    def head_to_head(self):
        """Per ordered pair: the share of meetings (a seat of each in one game, one finishing
        ahead of the other) the row won, the number of meetings and an interval over deals."""
        beats, most = self._beats()
        k = self.k
        matrix = [[None] * k for _ in range(k)]
        meetings = [[0] * k for _ in range(k)]
        low = [[None] * k for _ in range(k)]
        high = [[None] * k for _ in range(k)]
        for i in range(k):
            for j in range(k):
                if i == j:
                    continue
                met = beats[:, i, j] + beats[:, j, i]
                if self.sequential:
                    ci = self._ratio_sequence(beats[:, i, j], met, most[i, j])
                else:
                    ci = stats.ratio_interval(beats[:, i, j], met, ALPHA)
                matrix[i][j], low[i][j], high[i][j] = ci["estimate"], ci["ci_low"], ci["ci_high"]
                meetings[i][j] = int(met.sum())
        return {"strategies": self.strategies, "matrix": matrix, "meetings": meetings,
                "ci_low": low, "ci_high": high}

    def _ratio_sequence(self, num, den, most):
        """A share of meetings from two anytime-valid intervals at ``alpha / 2`` each (per-deal
        counts scaled by the most possible per deal): [low num / high den, high / low]."""
        if den.sum() == 0:
            return {"estimate": None, "ci_low": None, "ci_high": None}
        a = stats.confidence_sequence(num / most, ALPHA / 2)
        m = stats.confidence_sequence(den / most, ALPHA / 2)
        return {"estimate": float(num.sum() / den.sum()),
                "ci_low": min(1.0, a["ci_low"] / m["ci_high"]) if m["ci_high"] > 0 else 0.0,
                "ci_high": min(1.0, a["ci_high"] / m["ci_low"]) if m["ci_low"] > 0 else 1.0}

    # -- ratings ---------------------------------------------------------------------------
    def _choice_events(self, order, done, strat):
        """Plackett-Luce choice events per (deal, rotation, place): the chosen strategy and
        the strategies of the seats still in play. Seed rules: the winner among all seats;
        V2: each place in turn among the seats not out yet. Unfinished games give none."""
        k, n = self.k, self.players
        chosen, among, deal = [], [], []
        for r in range(k):
            ok = np.flatnonzero(done[:, r])
            held = strat[ok, r, :]                                     # (deals, n)
            rows = np.arange(ok.size)
            left = np.ones((ok.size, n), bool)
            for pos in range(n - 1 if self.v2 else 1):
                seat = order[ok, r, pos].astype(np.int64)
                chosen.append(held[rows, seat])
                still = np.zeros((ok.size, k), np.int64)               # seats in play
                for s in range(n):
                    still[rows, held[:, s]] += left[:, s]
                among.append(still)
                deal.append(ok)
                left[rows, seat] = False
        return (np.concatenate(chosen), np.concatenate(among).reshape(-1, k),
                np.concatenate(deal))

    def ratings(self, alpha=ALPHA):
        """Plackett-Luce ratings (Elo scale, mean 0) with their intervals and separation
        bounds: see :func:`sim.studies.stats.ratings`. Events are aggregated block by block."""
        events = [self._choice_events(o, f, self._strat(c))
                  for o, f, c in zip(self.orders, self.finished, self.seatings)]
        data = stats.Choices.concat([stats.Choices.merge(c, a, self.k) for c, a, _ in events],
                                    self.k)

        def scores(theta):                      # per deal: sum of (chosen - probabilities)
            out = []
            for (chosen, among, deal), done in zip(events, self.finished):
                g = np.zeros((done.shape[0], self.k))
                np.add.at(g, deal, np.eye(self.k)[chosen]
                          - stats.pl_probabilities(theta, among))
                out.append(g)
            return np.concatenate(out)
        return stats.ratings(data, self.k, scores=scores, alpha=alpha)

    def to_dict(self):
        est = self.estimates()
        point, low, high, bound = self.ratings()
        for row, p, lo, hi, b in zip(est, point, low, high, bound):
            row.update(rating=float(p), rating_low=float(lo), rating_high=float(hi),
                       rating_bound=b)
        finished = self.games - self.unfinished
        return {"strategies": self.strategies, "players": self.players,
                "games": self.games, "deals": int(sum(len(p) for p in self.per_deal)),
                "unfinished": self.unfinished,
                "unfinished_cap": self.unfinished - self.cycles,
                "unfinished_cycle": self.cycles,
                "mean_turns": self.turns / finished if finished else None,
                "intervals": ("anytime-valid (confidence sequences)" if self.sequential
                              else "fixed-sample, over deals"),
                "unfinished_policy": POLICY,
                "per_strategy": est,
                "leader": self.leader_comparisons(),
                "ratings": {"model": "Plackett-Luce over " + ("finishing orders" if self.v2
                                                               else "winners"),
                            "prior": f"log-strength ~ N(0, {stats.PRIOR_SD:g}^2) each "
                                     f"(choix alpha = {1 / (2 * stats.PRIOR_SD ** 2):g})",
                            "scale": "Elo: +400 = ten times the strength",
                            "intervals": "fixed-sample" + (" (not corrected for the looks "
                                                           "of --until-clear)" if self.sequential
                                                           else "")},
                "head_to_head": self.head_to_head(),
                "seat_effect": self.seat_effect(),
                "starter_effect": self.starter_effect()}


def _blocks(deals, block, until_clear):
    """(first deal, deals) of each block. A fixed ``block``, else 20 blocks (at most 50,000
    deals each); until-clear looks early and then every 25% more deals, since the confidence
    sequences allow any number of looks."""
    first = 0
    while first < deals:
        if block:
            n = block
        elif until_clear:
            n = min(50_000, max(250, first // 4))
        else:
            n = max(1, min(deals // 20 or 1, 50_000))
        n = min(n, deals - first)
        yield first, n
        first += n


BALANCED_ALL = 120       # up to this many cyclic orders (k <= 6), every one is listed


def seat_orders(k: int, seating: str, seed: int, deals: np.ndarray) -> np.ndarray:
    """(deals, k): the cyclic order of the strategies each deal is played under (module
    docstring, "Seating"). ``"fixed"``: the order given. ``"balanced"``: deal d gets order
    d mod (k - 1)! of all the orders with strategy 0 first (k <= 6); with more strategies
    an order drawn for the deal alone from (seed, d), so that deals stay independent."""
    deals = np.asarray(deals, np.int64)
    if seating not in ("fixed", "balanced"):
        raise RunError(f"--seating: expected fixed or balanced, got {seating!r}")
    if seating == "fixed" or k <= 2:
        return np.tile(np.arange(k, dtype=np.int8), (deals.size, 1))
    if math.factorial(k - 1) <= BALANCED_ALL:
        every = np.array([(0,) + p for p in itertools.permutations(range(1, k))], np.int8)
        return every[deals % len(every)]
    # splitmix64 (sim.kernel.rng's, here on numpy arrays) of (seed, deal, place): a key per place,
    # and the order is their ranking
    mix = splitmix64.py_func
    with np.errstate(over="ignore"):                 # wrapping arithmetic is the point
        keys = mix(mix(np.uint64(seed) ^ np.uint64(0x5EA7))
                   + deals.astype(np.uint64)[:, None] * np.uint64(k)
                   + np.arange(1, k, dtype=np.uint64)[None, :])
    return np.concatenate([np.zeros((deals.size, 1), np.int8),
                           (np.argsort(keys, axis=1, kind="stable") + 1).astype(np.int8)],
                          axis=1)


def rotations(orders, players):
    """(deals, k, players): the strategy at each seat under each rotation of each deal's
    cyclic order ``orders[d]`` (k strategy indices): rotation ``r`` seats
    ``orders[d][(s + r) % k]`` at seat ``s``."""
    k = orders.shape[1]
    return orders[:, (np.arange(players)[None, :] + np.arange(k)[:, None]) % k]


def _seat_rows(orders, players):
    """(k * deals, 6) int8: the pool entry of every seat of every game of a block, rotation
    by rotation (game ``r * deals + i`` is deal ``i`` under rotation ``r`` of its cyclic order
    ``orders[i]``); seats past ``players`` repeat seat 0, as a plain run pads them."""
    seats = rotations(orders, players)
    seats = np.concatenate([seats] + [seats[:, :, :1]] * (MAXP - players), axis=2)
    return seats.transpose(1, 0, 2).reshape(-1, MAXP).astype(np.int8)


class _Records:
    """``DIR/games/part-NNNNN.parquet``: the per-game records of each block (sim.runs.store's
    columns, plus deal and rotation), written as the blocks finish."""

    def __init__(self, path):
        from pathlib import Path

        from sim.runs.store import StoreError

        self.path = Path(path).expanduser()
        self.games_dir = self.path / "games"
        if (self.path / "manifest.json").exists() or any(self.games_dir.glob("part-*")):
            raise StoreError(f"--out: {self.path} already holds a run or a comparison; "
                             f"choose another folder")
        try:
            self.games_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"--out: cannot write to {self.path}: {e.strerror or e}") from None

    def write(self, index, cfg, batch, rows, deals, k, names, swaps):
        """One file for a block: ``batch`` holds its games rotation by rotation (``rows``:
        their seatings, pool entries per seat; ``deals``: the block's deal numbers), with
        the names of the pool's strategies and of their swap policies."""
        import os

        import pyarrow as pa
        import pyarrow.parquet as pq

        from sim.runs.store import records

        df = records(cfg, batch)
        n = len(deals)
        rotation = np.repeat(np.arange(k, dtype=np.int8), n)
        df.insert(0, "rotation", rotation)
        df.pop("game")
        df.insert(0, "deal", np.tile(deals, k))               # the deal's cards: seed and deal
        df.insert(0, "game", np.tile(deals, k) * k + rotation)
        for s in range(cfg.players):                           # who sat where, game by game
            df[f"strategy_{s}"] = np.asarray(names, object)[rows[:, s]]
            df[f"swap_{s}"] = np.asarray(swaps, object)[rows[:, s]]
        df = df.sort_values("game", kind="stable").reset_index(drop=True)
        for c in df.columns:
            if c.startswith(("strategy_", "swap_")):
                df[c] = df[c].astype(str).astype("category")
        part = self.games_dir / f"part-{index:05d}.parquet"
        tmp = part.with_suffix(".tmp")
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp)
        os.replace(tmp, part)


def compare(strategies, players=4, games=100_000, seed=0, rules="seed", max_turns=10_000,
            threads=None, block=None, independent=False, until_clear=False,
            max_games=None, swaps=None, progress=None, out=None, cycle_stop=True,
            seating="balanced"):
    """Play a duplicate-deal tournament; return (Tournament, info).

    ``games`` counts every game played (deals x rotations). ``independent`` replays no deal:
    each rotation gets its own game indices (to measure what duplicate deals gain). With
    ``out`` (a folder) the per-game records are written to ``out/games`` as blocks finish.
    ``seating``: ``"balanced"`` or ``"fixed"`` cyclic orders (module docstring).
    """
    import numba

    if len(strategies) < 2:
        raise RunError("compare: give at least two strategies")
    if len(set(strategies)) != len(strategies):
        raise RunError("compare: each strategy once (seats are rotated for you)")
    k = len(strategies)
    if k > POOL:
        raise RunError(f"compare: at most {POOL} strategies in one tournament, got {k}")
    threads = threads or numba.config.NUMBA_NUM_THREADS
    seat_orders(k, seating, seed, np.zeros(0))       # a wrong --seating fails before any play
    made = {}

    def config(seats):
        """The RunConfig of one seating (a tuple of strategy indices per seat), made once."""
        if seats not in made:
            made[seats] = RunConfig(games=1, players=players, seed=seed,
                                    strategies=[strategies[i] for i in seats],
                                    swaps=None if swaps is None else [swaps[i] for i in seats],
                                    rules=rules, max_turns=max_turns, threads=threads,
                                    cycle_stop=cycle_stop)
        return made[seats]

    # The RunConfig of every rotation of the order given
    configs = [config(tuple(int(i) for i in seats))
               for seats in rotations(np.arange(k)[None, :], players)[0]]
    # Strategy i of the pool: seat 0 of rotation i of the order given.
    pool = make_pool([c.seat_entry(0) for c in configs])
    opts = configs[0].options
    total = max_games if until_clear else games
    if total is None or total < k:
        raise RunError(f"--games: at least one game per rotation ({k}), got {total}")
    deals = total // k
    store = _Records(out) if out is not None else None
    t = Tournament(list(strategies), players, bool(opts["last_player_loses"]),
                   sequential=until_clear)
    stopped, looks, leader = "games", 0, None
    for index, (first, n) in enumerate(_blocks(deals, block, until_clear)):
        orders = seat_orders(k, seating, seed, np.arange(first, first + n))
        # Every game of the block in one call of the core, each seated as its cyclic order
        # and rotation say; the games are rotation by rotation, each in the order of its deals.
        rows = _seat_rows(orders, players)
        numbers = np.tile(first + np.arange(n, dtype=np.int64), k)
        if independent:
            numbers += np.repeat(np.arange(k, dtype=np.int64), n) * deals
        b = play_batch(configs[0], 0, 0, threads, numbers=numbers,
                       seating=Seating(pool, rows, config))
        t.add_block([b.take(slice(r * n, (r + 1) * n)) for r in range(k)], orders)
        if store is not None:
            store.write(index, configs[0], b, rows, first + np.arange(n), k,
                        strategies, [c.swaps[0] for c in configs])
        if progress:
            progress(t.games)
        if until_clear:
            looks += 1
            leader, clear = t.clear_leader()
            if clear:
                stopped = "clear"
                break
    info = {"stopped": stopped, "until_clear": until_clear, "looks": looks,
            "leader": leader, "alpha": ALPHA,
            "method": ("anytime-valid confidence sequences (Waudby-Smith & Ramdas 2024, "
                       "betting, dKelly) of the paired per-deal difference, leader against "
                       f"each other strategy at level {1 - ALPHA / (k - 1):.4g}")
            if until_clear else None,
            "independent": independent, "seed": seed, "rules": rules, "options": opts,
            "block": block, "cycle_stop": configs[0].cycle_note(),
            "seating": seating if k > 2 else "fixed",
            "seating_note": _seating_note(seating if k > 2 else "fixed", k)}
    return t, info


def _seating_note(seating, k):
    if seating == "fixed":
        return ("fixed: the strategies sit in the cyclic order given, rotated; each always "
                "follows the same neighbour" if k > 2 else
                "two strategies: every rotation of their one cyclic order")
    m = math.factorial(k - 1)
    if m <= BALANCED_ALL:
        return (f"balanced: deal d played under cyclic order d mod {m} (all {m} cyclic "
                f"orders), rotated; each strategy follows every other equally often")
    return (f"balanced: every deal played under its own random cyclic order (of {m:,}), "
            f"rotated; each strategy follows every other equally often on average")


def save(path, t: Tournament, info: dict, config: dict, result: dict | None = None) -> None:
    """Write compare.json, and a summary.json and manifest.json that sim.load and sim report
    read like a run's (the seat effect as by_seat; the per-strategy rows are in
    compare.json only: a run's by_strategy rows name the seats a strategy holds, and in a
    tournament every strategy holds every seat). ``result``: ``t.to_dict()`` if computed."""
    import json
    from pathlib import Path

    from sim.runs.store import StoreError, _atomic_write, versions

    path = Path(path).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out: cannot write to {path}: {e.strerror or e}") from None
    d = dict(result or t.to_dict())
    d["info"] = info
    manifest = {"kind": "compare", "options": config, "versions": versions()}
    summary = {"config": config, "overall": {"games": t.games, "finished": t.games - t.unfinished,
                                             "unfinished": t.unfinished,
                                             "unfinished_cap": t.unfinished - t.cycles,
                                             "unfinished_cycle": t.cycles,
                                             "cycle_stop": info.get("cycle_stop"),
                                             "mean_turns": d["mean_turns"]},
               "by_seat": d["seat_effect"], "by_strategy": []}
    for name, data in (("compare.json", d), ("summary.json", summary),
                       ("manifest.json", manifest)):
        _atomic_write(path / name, json.dumps(data, indent=2, default=float).encode())
