"""Tournaments: every strategy in every seat equally often, each deal replayed under every
rotation of the seating (duplicate deals: common random numbers, so the luck of the deal
cancels out of the comparison).

With strategies ``S_0 .. S_{k-1}`` at ``n`` seats, rotation ``r`` seats ``S_{(s + r) % k}`` at
seat ``s``; over the ``k`` rotations each strategy holds each seat exactly once per deal. A
deal is a game index: the deal depends only on (seed, index) (sim.rng), so rotation ``r``
of deal ``d`` is game ``d`` of a run whose seats are rotated by ``r``; every rotation of a
deal gives each seat the same cards and the same starting player.

Statistics (:mod:`sim.stats`), all over deals, the independent unit of the design:

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
  V2: the whole order) with a stated Gaussian prior, see :func:`sim.stats.ratings`.

An unfinished game (turn cap, R25) counts in every denominator as a game won by nobody: it
adds 0 to every strategy's and seat's result, and it is reported next to every table. When
every strategy is pure, a game proven endless (a position came back, :mod:`sim.cycle`) is
stopped at once; it is unfinished all the same, counted apart (``unfinished_cycle``).

``until_clear`` plays in blocks and stops as soon as the leader is ahead of every other
strategy by anytime-valid confidence sequences (:func:`sim.stats.confidence_sequence`):
looking after every block costs no validity, whatever ``max_games``. After such a run every
interval reported is anytime-valid too (the tournament's ``sequential`` flag).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim import stats
from sim.core import UNFINISHED
from sim.cycle import END_CYCLE
from sim.runner import RunConfig, RunError, play_batch

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
    games: int = 0
    unfinished: int = 0
    cycles: int = 0                                   # of them, stopped as endless
    turns: int = 0

    @property
    def k(self):
        return len(self.strategies)

    def seats(self, r):
        """Strategy index of each seat under rotation ``r``."""
        return [(s + r) % self.k for s in range(self.players)]

    def _holds(self):
        """(k rotations, k strategies): seats each strategy holds in each rotation."""
        h = np.zeros((self.k, self.k), np.int64)
        for r in range(self.k):
            for i in self.seats(r):
                h[r, i] += 1
        return h

    def add_block(self, batches_by_rotation):
        """Fold in one block of deals: one Batch per rotation, all over the same deals."""
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
        self.orders.append(order)
        self.finished.append(done)
        self.starters.append(starter)
        self.per_deal.append(self._results(self._places(order, done), done))

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

    def _results(self, place, done):
        """(deals, k): each strategy's result in the deal, in [0, 1]: the share of its seats
        (one per seat and rotation) that won, or under V2 the mean share of the other seats
        it finished ahead of. An unfinished game gives everyone 0 (won by nobody)."""
        n = self.players
        value = (n - 1 - place) / (n - 1) if self.v2 else (place == 0).astype(float)
        value = value * done[:, :, None]
        out = np.zeros((done.shape[0], self.k))
        for r in range(self.k):
            for s, i in enumerate(self.seats(r)):
                out[:, i] += value[:, r, s]
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
        lost = (~np.concatenate(self.finished)).sum(axis=0)          # per rotation
        return [int(v) for v in lost @ self._holds()]

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
        _, done, _, place = self._all()
        k, n = self.k, self.players
        beats = np.zeros((done.shape[0], k, k), np.int32)
        most = np.zeros((k, k), np.int64)
        for r in range(k):
            strat = self.seats(r)
            for s in range(n):
                for t in range(n):
                    i, j = strat[s], strat[t]
                    if i == j:
                        continue
                    most[i, j] += 1
                    ahead = done[:, r] & (place[:, r, s] < place[:, r, t])
                    beats[:, i, j] += ahead
        return beats, most

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
    def _choice_events(self, order, done):
        """Plackett-Luce choice events per (deal, rotation, place): the chosen strategy and
        the strategies of the seats still in play. Seed rules: the winner among all seats;
        V2: each place in turn among the seats not out yet. Unfinished games give none."""
        k, n = self.k, self.players
        chosen, among, deal = [], [], []
        for r in range(k):
            onehot = np.eye(k, dtype=np.int64)[self.seats(r)]         # (n, k)
            ok = np.flatnonzero(done[:, r])
            left = np.ones((ok.size, n), bool)
            for pos in range(n - 1 if self.v2 else 1):
                seat = order[ok, r, pos].astype(np.int64)
                chosen.append(np.asarray(self.seats(r))[seat])
                among.append(left.astype(np.int64) @ onehot)
                deal.append(ok)
                left[np.arange(ok.size), seat] = False
        return (np.concatenate(chosen), np.concatenate(among).reshape(-1, k),
                np.concatenate(deal))

    def ratings(self, alpha=ALPHA):
        """Plackett-Luce ratings (Elo scale, mean 0) with their intervals and separation
        bounds: see :func:`sim.stats.ratings`. Events are aggregated block by block."""
        events = [self._choice_events(o, f) for o, f in zip(self.orders, self.finished)]
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


class _Records:
    """``DIR/games/part-NNNNN.parquet``: the per-game records of each block (sim.store's
    columns, plus deal and rotation), written as the blocks finish."""

    def __init__(self, path):
        from pathlib import Path

        from sim.store import StoreError

        self.path = Path(path).expanduser()
        self.games_dir = self.path / "games"
        if (self.path / "manifest.json").exists() or any(self.games_dir.glob("part-*")):
            raise StoreError(f"--out: {self.path} already holds a run or a comparison; "
                             f"choose another folder")
        try:
            self.games_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"--out: cannot write to {self.path}: {e.strerror or e}") from None

    def write(self, index, configs, batches, first, k):
        import os

        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        from sim.store import records

        frames = []
        for r, (cfg, b) in enumerate(zip(configs, batches)):
            df = records(cfg, b)
            n = len(df)
            df.insert(0, "rotation", np.full(n, r, np.int8))
            df.insert(0, "deal", df.pop("game"))          # the game index: the deal's cards
            df.insert(0, "game", (first + np.arange(n, dtype=np.int64)) * k + r)
            frames.append(df)
        df = pd.concat(frames, ignore_index=True).sort_values("game", kind="stable")
        for c in df.columns:
            if c.startswith(("strategy_", "swap_")):
                df[c] = df[c].astype(str).astype("category")
        part = self.games_dir / f"part-{index:05d}.parquet"
        tmp = part.with_suffix(".tmp")
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp)
        os.replace(tmp, part)


def compare(strategies, players=4, games=100_000, seed=0, rules="seed", max_turns=10_000,
            threads=None, block=None, independent=False, until_clear=False,
            max_games=None, swaps=None, progress=None, out=None, cycle_stop=True):
    """Play a duplicate-deal tournament; return (Tournament, info).

    ``games`` counts every game played (deals x rotations). ``independent`` replays no deal:
    each rotation gets its own game indices (to measure what duplicate deals gain). With
    ``out`` (a folder) the per-game records are written to ``out/games`` as blocks finish.
    """
    import numba

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
                                 threads=threads, cycle_stop=cycle_stop))
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
        batches = [play_batch(cfg, first + (r * deals if independent else 0), n, threads)
                   for r, cfg in enumerate(configs)]
        t.add_block(batches)
        if store is not None:
            store.write(index, configs, batches, first, k)
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
            "block": block, "cycle_stop": configs[0].cycle_note()}
    return t, info


def save(path, t: Tournament, info: dict, config: dict, result: dict | None = None) -> None:
    """Write compare.json, and a summary.json and manifest.json that sim.load and sim report
    read like a run's (the seat effect as by_seat; the per-strategy rows are in
    compare.json only: a run's by_strategy rows name the seats a strategy holds, and in a
    tournament every strategy holds every seat). ``result``: ``t.to_dict()`` if computed."""
    import json
    from pathlib import Path

    from sim.store import StoreError, _atomic_write, versions

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
