"""Tournaments: every strategy in every seat equally often, each deal replayed under every
rotation of the seating (duplicate deals: common random numbers, so the luck of the deal
cancels out of the comparison).

With strategies ``S_0 .. S_{k-1}`` at ``n`` seats, rotation ``r`` seats ``S_{(s + r) % k}`` at
seat ``s``; over the ``k`` rotations each strategy holds each seat exactly once per deal. A
deal is a game index: the deal depends only on (seed, index) (sim.rng), so rotation ``r``
of deal ``d`` is game ``d`` of a run whose seats are rotated by ``r``.

Statistics (seed rules: win rate; V2: mean finishing place), all per deal, so that the
correlation the duplicate design creates is accounted for: a strategy's estimate is the mean
over deals of its per-deal result, and its 95% interval uses the spread between deals
(a cluster-robust interval). Ratings are Bradley-Terry strengths fitted with ``choix`` from
the pairwise results (who finished ahead of whom), with a block-bootstrap interval over
deals. ``until_clear`` stops when the leader's interval separates from the runner-up's, at
a level corrected for the repeated looks (Bonferroni over the largest possible number of
looks), or at ``max_games``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.layout import MAXP
from sim.runner import RunConfig, RunError, play_batch

BOOTSTRAP = 200


@dataclass
class Tournament:
    """Running totals of a tournament, per block of deals (for the bootstrap)."""

    strategies: list[str]
    players: int
    v2: bool
    per_deal: list = field(default_factory=list)     # per block: (deals, k) results
    beats: list = field(default_factory=list)        # per block: (k, k) pairwise counts
    seat_wins: np.ndarray = None
    starter_wins: int = 0
    games: int = 0
    unfinished: int = 0
    turns: int = 0

    def __post_init__(self):
        self.seat_wins = np.zeros(MAXP, np.int64)

    @property
    def k(self):
        return len(self.strategies)

    def seats(self, r):
        """Strategy index of each seat under rotation ``r``."""
        return [(s + r) % self.k for s in range(self.players)]

    def add_block(self, batches_by_rotation):
        """Fold in one block of deals: one Batch per rotation, all over the same deals."""
        k, n = self.k, self.players
        deals = batches_by_rotation[0].status.size
        result = np.zeros((deals, k))
        beats = np.zeros((k, k), np.int64)
        for r, b in enumerate(batches_by_rotation):
            seat_strat = np.array(self.seats(r))
            done = b.status == 0
            self.games += b.status.size
            self.unfinished += int((~done).sum())
            self.turns += int(b.turns[done].sum())
            winner = b.order[:, 0].astype(np.int64)
            self.seat_wins += np.bincount(winner[done], minlength=MAXP)[:MAXP]
            self.starter_wins += int((done & (winner == b.starter)).sum())
            place = self._places(b, done)                     # (deals, seats), 0 = first
            for s in range(n):
                i = seat_strat[s]
                if self.v2:   # share of the other seats finished behind
                    result[done, i] += (n - 1 - place[done, s]) / (n - 1)
                else:
                    result[done, i] += place[done, s] == 0
                for t in range(n):
                    j = seat_strat[t]
                    if i != j:
                        ahead = done & (place[:, s] < place[:, t])
                        if not self.v2:      # seed rules: only the winner is ranked
                            ahead &= place[:, s] == 0
                        beats[i, j] += int(ahead.sum())
        self.per_deal.append(result / self._seat_count())
        self.beats.append(beats)

    def _places(self, b, done):
        n = self.players
        place = np.full((b.status.size, n), n - 1, np.int64)
        for pos in range(n - 1 if self.v2 else 1):
            seat = b.order[:, pos].astype(np.int64)
            ok = done & (seat >= 0)
            place[np.flatnonzero(ok), seat[ok]] = pos
        return place

    def _seat_count(self):
        """Seats each strategy holds per deal, over all rotations (the same for each)."""
        return self.players

    # -- answers ---------------------------------------------------------------------------
    def estimates(self, z=1.959963984540054):
        """Per strategy: seat-games, result (win rate or V2 place share) and its interval.

        The interval is mean +- z standard errors over deals, but never narrower than
        ``1 - 0.025 ** (1 / deals)``: a deal's result lies in [0, 1], and when no deal among
        ``deals`` deviated (zero spread, e.g. one strategy wins every game) that is the most a
        share of deviating deals could still move the mean (Clopper-Pearson, 95%). Clipped
        to [0, 1].
        """
        per_deal = np.concatenate(self.per_deal)
        d = per_deal.shape[0]
        mean = per_deal.mean(axis=0)
        se = per_deal.std(axis=0, ddof=1) / math.sqrt(d) if d > 1 else np.full(self.k, np.nan)
        half = np.maximum(z * se, 1 - 0.025 ** (1 / d))
        return [{"strategy": s, "games": int(d * self.players), "wins": int(round(
                 mean[i] * d * self.players)) if not self.v2 else None,
                 "win_rate" if not self.v2 else "place_share": float(mean[i]),
                 "ci_low": float(max(mean[i] - half[i], 0.0)),
                 "ci_high": float(min(mean[i] + half[i], 1.0))}
                for i, s in enumerate(self.strategies)]

    def ratings(self, seed=0):
        """Bradley-Terry strengths (Elo scale, mean 0) with a block-bootstrap 95% interval."""
        import choix

        beats = np.array(self.beats)
        total = beats.sum(axis=0)
        scale = 400 / math.log(10)
        point = choix.ilsr_pairwise_dense(total.astype(float), alpha=0.01) * scale
        rng = np.random.default_rng(seed)
        draws = []
        if len(beats) > 1:
            for _ in range(BOOTSTRAP):
                pick = rng.integers(len(beats), size=len(beats))
                draws.append(choix.ilsr_pairwise_dense(beats[pick].sum(axis=0).astype(float),
                                                       alpha=0.01) * scale)
        low, high = (np.percentile(draws, [2.5, 97.5], axis=0) if draws
                     else (np.full(self.k, np.nan),) * 2)
        return point, low, high

    def head_to_head(self):
        """matrix[i][j]: share of i's finishing ahead of j, among their meetings."""
        beats = np.array(self.beats).sum(axis=0)
        out = []
        for i in range(self.k):
            row = []
            for j in range(self.k):
                meet = beats[i, j] + beats[j, i]
                row.append(None if i == j or meet == 0 else float(beats[i, j] / meet))
            out.append(row)
        return out

    def to_dict(self, z=1.959963984540054):
        from reports.summary import wilson

        est = self.estimates(z)
        point, low, high = self.ratings()
        for row, p, lo, hi in zip(est, point, low, high):
            row.update(rating=float(p), rating_low=float(lo), rating_high=float(hi))
        finished = self.games - self.unfinished
        seat = []
        for s in range(self.players):
            lo, hi = wilson(int(self.seat_wins[s]), self.games)
            seat.append({"seat": s, "games": self.games, "wins": int(self.seat_wins[s]),
                         "win_rate": float(self.seat_wins[s] / self.games), "ci_low": lo,
                         "ci_high": hi})
        lo, hi = wilson(self.starter_wins, self.games)
        return {"strategies": self.strategies, "players": self.players,
                "games": self.games, "deals": int(sum(len(p) for p in self.per_deal)),
                "unfinished": self.unfinished,
                "mean_turns": self.turns / finished if finished else None,
                "per_strategy": est,
                "head_to_head": {"strategies": self.strategies, "matrix": self.head_to_head()},
                "seat_effect": seat,
                "starter_effect": {"games": self.games, "starter_wins": self.starter_wins,
                                   "win_rate": self.starter_wins / self.games, "ci_low": lo,
                                   "ci_high": hi}}


def clear_leader(est, key):
    """(leader, runner-up, separated?) by the estimate ``key``."""
    order = sorted(est, key=lambda r: r[key], reverse=True)
    return order[0], order[1], order[0]["ci_low"] > order[1]["ci_high"]


def compare(strategies, players=4, games=100_000, seed=0, rules="seed", max_turns=10_000,
            threads=None, block=None, independent=False, until_clear=False,
            max_games=None, swaps=None, progress=None):
    """Play a duplicate-deal tournament; return (Tournament, info).

    ``games`` counts every game played (deals x rotations). ``independent`` replays no deal:
    each rotation gets its own game indices (to measure what duplicate deals gain).
    """
    import numba
    from scipy.stats import norm

    if len(strategies) < 2:
        raise RunError("compare: give at least two strategies")
    if len(set(strategies)) != len(strategies):
        raise RunError("compare: each strategy once (seats are rotated for you)")
    k = len(strategies)
    threads = threads or numba.config.NUMBA_NUM_THREADS
    configs = []
    for r in range(k):
        seats = [strategies[(s + r) % k] for s in range(players)]
        sw = None if swaps is None else [swaps[(s + r) % k] for s in range(players)]
        configs.append(RunConfig(games=1, players=players, seed=seed, strategies=seats,
                                 swaps=sw or [None], rules=rules, max_turns=max_turns,
                                 threads=threads))
    opts = configs[0].options
    total = max_games if until_clear else games
    if total is None or total < k:
        raise RunError(f"--games: at least one game per rotation ({k}), got {total}")
    deals = total // k
    block = block or max(1, min(deals // 20 or 1, 50_000))   # >= 20 blocks for the bootstrap
    t = Tournament(list(strategies), players, bool(opts["last_player_loses"]))
    looks = math.ceil(deals / block)
    z = norm.ppf(1 - 0.05 / (2 * looks)) if until_clear else norm.ppf(0.975)
    key = "place_share" if t.v2 else "win_rate"
    stopped = "games"
    for first in range(0, deals, block):
        n = min(block, deals - first)
        t.add_block([play_batch(cfg, first + (r * deals if independent else 0), n, threads)
                     for r, cfg in enumerate(configs)])
        if progress:
            progress(t.games)
        if until_clear and len(t.per_deal) >= 2:
            if clear_leader(t.estimates(z), key)[2]:
                stopped = "clear"
                break
    info = {"z": float(z), "looks": looks if until_clear else 1, "stopped": stopped,
            "until_clear": until_clear, "independent": independent, "seed": seed,
            "rules": rules, "options": opts, "block": block}
    return t, info


def save(path, t: Tournament, info: dict, config: dict) -> None:
    """Write compare.json, and a summary.json and manifest.json that sim.load and sim report
    read like a run's (per-strategy rows as by_strategy, the seat effect as by_seat)."""
    import json
    from pathlib import Path

    from sim.store import StoreError, _atomic_write, versions

    path = Path(path).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out: cannot write to {path}: {e.strerror or e}") from None
    d = t.to_dict()
    d["info"] = info
    manifest = {"kind": "compare", "options": config, "versions": versions()}
    summary = {"config": config, "overall": {"games": t.games, "finished": t.games - t.unfinished,
                                             "unfinished": t.unfinished,
                                             "mean_turns": d["mean_turns"]},
               "by_seat": d["seat_effect"], "by_strategy": d["per_strategy"]}
    for name, data in (("compare.json", d), ("summary.json", summary),
                       ("manifest.json", manifest)):
        _atomic_write(path / name, json.dumps(data, indent=2, default=float).encode())
