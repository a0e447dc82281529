"""A tournament's records and what they answer, every interval over deals (the independent
unit of duplicate deals, :mod:`sim.studies.stats`): each strategy's result (seed rules: win
rate; V2: share of the other seats finished behind), the leader against each other strategy
(paired per-deal differences at level ``1 - 0.05 / (k - 1)``), seat and starting-player
effects, head to head and Plackett-Luce ratings (:mod:`sim.studies.rankings`); after an
until-clear run every interval is anytime-valid. An unfinished game (turn cap, R25) is a game
won by nobody, counted beside every table. ``sim compare`` (:mod:`sim.studies.compare`)
plays it; the method and why: docs/comparing.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.kernel.cycle import END_CYCLE
from sim.runs.tally import UNFINISHED_POLICY
from sim.studies import rankings, stats
from sim.studies.design import companies_balanced, rotations, seat_companions, seat_note
from sim.studies.match import places, seat_values, stack_rotations, strategy_results
from sim.studies.stats import ALPHA

POLICY = UNFINISHED_POLICY


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

    def strat(self, seating):
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
        order, done, starter = stack_rotations(batches_by_rotation, self.players)
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
        value = seat_values(places(order, done, self.v2), done, self.v2)
        self.per_deal.append(strategy_results(value, self.strat(seating), self.k))

    def _all(self):
        """Every block's records, concatenated: (orders, finished, starters, places)."""
        order = np.concatenate(self.orders)
        done = np.concatenate(self.finished)
        return order, done, np.concatenate(self.starters), places(order, done, self.v2)

    def _interval(self, x, alpha=ALPHA, bounds=(0.0, 1.0), null=None):
        return stats.interval(x, alpha, bounds, null, self.sequential)

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
            strat = self.strat(seating)
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
        rows = [{"against": self.strategies[j], "difference": ci["estimate"],
                 "ci_low": ci["ci_low"], "ci_high": ci["ci_high"], "p_value": ci["p_value"],
                 "p_adjusted": min(1.0, ci["p_value"] * (k - 1))}
                for j, ci in stats.versus(per_deal, lead, alpha, self.sequential)]
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
        unit, and the per-deal value is the share of the deal's rotations the seat won; and
        ``shares_with``, the seats holding its strategy in every game. A seat effect only
        where :meth:`seat_design` says so."""
        _, done, _, place = self._all()
        won = ((place == 0) & done[:, :, None]).sum(axis=1)        # (deals, n)
        rows = []
        for s, twins in zip(range(self.players), seat_companions(self.k, self.players)):
            ci = self._interval(won[:, s] / self.k)
            rows.append({"seat": s, "games": self.games, "wins": int(won[:, s].sum()),
                         "win_rate": ci["estimate"], "ci_low": ci["ci_low"],
                         "ci_high": ci["ci_high"], "unfinished": self.unfinished,
                         "shares_with": twins})
        return rows

    def seat_design(self):
        """Is the win rate by seat a seat effect (:func:`sim.studies.design.companies_balanced`)?
        ``balanced`` and ``note`` (the words: which seats share a strategy). The design is
        read from the cyclic orders played: ``"fixed"`` when every deal was played under the
        order given."""
        fixed = all((np.asarray(o) == np.arange(self.k)).all() for o in self.seatings)
        seating = "fixed" if fixed else "balanced"
        return {"balanced": companies_balanced(self.k, self.players, seating),
                "note": seat_note(self.k, self.players, seating)}

    def starter_effect(self):
        """How often the starting player (R6) won, with an interval over deals."""
        _, done, starter, place = self._all()
        first = np.take_along_axis(place, starter[:, :, None].astype(np.int64), axis=2)[:, :, 0]
        won = ((first == 0) & done).sum(axis=1)
        ci = self._interval(won / self.k)
        return {"games": self.games, "starter_wins": int(won.sum()),
                "win_rate": ci["estimate"], "ci_low": ci["ci_low"], "ci_high": ci["ci_high"],
                "unfinished": self.unfinished}

    def head_to_head(self):
        """Shares of meetings per ordered pair (:func:`sim.studies.rankings.head_to_head`)."""
        return rankings.head_to_head(self)

    def ratings(self, alpha=ALPHA):
        """Plackett-Luce ratings (:func:`sim.studies.rankings.ratings`)."""
        return rankings.ratings(self, alpha)

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
                                                           else ""),
                            "unfinished": self.unfinished,
                            "unfinished_note": "unfinished games give no choice event "
                                               "(the unfinished-games policy)"},
                "head_to_head": self.head_to_head(),
                "seat_effect": self.seat_effect(),
                "seat_design": self.seat_design(),
                "starter_effect": self.starter_effect()}
