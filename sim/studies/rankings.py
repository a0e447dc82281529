"""What a tournament's finishing orders say about pairs of strategies: head to head (the
share of meetings each won, with intervals over deals) and Plackett-Luce ratings.

Each function reads a :class:`sim.studies.tournament.Tournament`'s per-block records.
"""
from __future__ import annotations

import numpy as np

from sim.studies import stats
from sim.studies.match import places
from sim.studies.stats import ALPHA


# -- head to head ------------------------------------------------------------------------------
def beats(t):
    """(deals, k, k): in each deal, how often a seat of i finished ahead of a seat of j (seed
    rules: i won a game j sat in), over the rotations; (k, k) the most possible; and (k, k)
    the seat pairs of i and j in unfinished games, which decide no meeting (the unfinished-
    games policy, :data:`sim.runs.tally.UNFINISHED_POLICY`)."""
    k, n = t.k, t.players
    # The most meetings a deal can hold, for the ratio's anytime interval: over the
    # rotations of the order given, the seat pairs of i and j depend only on how many
    # places j sits after i (``ident[0, gap]``); so under any cyclic order each pair gets
    # the count of its gap, and ``most`` is the largest over the orders played.
    ident = np.zeros((k, k), np.int64)
    for r in range(k):
        strat = t.seats(r)
        for s in range(n):
            for u in range(n):
                if strat[s] != strat[u]:
                    ident[strat[s], strat[u]] += 1
    most = np.zeros((k, k), np.int64)
    used = np.unique(np.concatenate(t.seatings), axis=0) if t.seatings else \
        np.arange(k)[None, :]
    for gap in range(1, k):
        np.maximum.at(most, (used.ravel(), np.roll(used, -gap, axis=1).ravel()),
                      ident[0, gap])
    blocks, open_ = [], np.zeros((k, k), np.int64)
    for order, done, seating in zip(t.orders, t.finished, t.seatings):
        place, strat = places(order, done, t.v2), t.strat(seating)
        won = np.zeros((done.shape[0], k, k), np.int32)
        rows = np.arange(done.shape[0])
        for r in range(k):
            for s in range(n):
                for u in range(n):
                    i, j = strat[:, r, s], strat[:, r, u]
                    ok = i != j                # two seats of one strategy: no meeting
                    ahead = done[:, r] & (place[:, r, s] < place[:, r, u])
                    won[rows[ok], i[ok], j[ok]] += ahead[ok]
                    # a seat of each in an unfinished game: a meeting nobody decided
                    np.add.at(open_, (i[ok & ~done[:, r]], j[ok & ~done[:, r]]), 1)
        blocks.append(won)
    return np.concatenate(blocks), most, open_


def head_to_head(t):
    """Per ordered pair: the share of meetings (a seat of each in one game, one finishing
    ahead of the other) the row won, the number of meetings, an interval over deals, and the
    seat pairs left undecided by unfinished games (``unfinished``)."""
    won, most, open_ = beats(t)
    k = t.k
    matrix = [[None] * k for _ in range(k)]
    meetings = [[0] * k for _ in range(k)]
    low = [[None] * k for _ in range(k)]
    high = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            met = won[:, i, j] + won[:, j, i]
            if t.sequential:
                ci = _ratio_sequence(won[:, i, j], met, most[i, j])
            else:
                ci = stats.ratio_interval(won[:, i, j], met, ALPHA)
            matrix[i][j], low[i][j], high[i][j] = ci["estimate"], ci["ci_low"], ci["ci_high"]
            meetings[i][j] = int(met.sum())
    return {"strategies": t.strategies, "matrix": matrix, "meetings": meetings,
            "ci_low": low, "ci_high": high, "unfinished": open_.tolist()}


def _ratio_sequence(num, den, most):
    """A share of meetings from two anytime-valid intervals at ``alpha / 2`` each (per-deal
    counts scaled by the most possible per deal): [low num / high den, high / low]."""
    if den.sum() == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None}
    a = stats.confidence_sequence(num / most, ALPHA / 2)
    m = stats.confidence_sequence(den / most, ALPHA / 2)
    return {"estimate": float(num.sum() / den.sum()),
            "ci_low": min(1.0, a["ci_low"] / m["ci_high"]) if m["ci_high"] > 0 else 0.0,
            "ci_high": min(1.0, a["ci_high"] / m["ci_low"]) if m["ci_low"] > 0 else 1.0}


# -- ratings -----------------------------------------------------------------------------------
def _choice_events(t, order, done, strat):
    """Plackett-Luce choice events per (deal, rotation, place): the chosen strategy and the
    strategies of the seats still in play. Seed rules: the winner among all seats; V2: each
    place in turn among the seats not out yet. Unfinished games give none."""
    k, n = t.k, t.players
    chosen, among, deal = [], [], []
    for r in range(k):
        ok = np.flatnonzero(done[:, r])
        held = strat[ok, r, :]                                     # (deals, n)
        rows = np.arange(ok.size)
        left = np.ones((ok.size, n), bool)
        for pos in range(n - 1 if t.v2 else 1):
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


def ratings(t, alpha=ALPHA):
    """Plackett-Luce ratings (Elo scale, mean 0) with their intervals and separation bounds:
    see :func:`sim.studies.stats.ratings`. Events are aggregated block by block."""
    k = t.k
    events = [_choice_events(t, o, f, t.strat(c))
              for o, f, c in zip(t.orders, t.finished, t.seatings)]
    data = stats.Choices.concat([stats.Choices.merge(c, a, k) for c, a, _ in events], k)

    def scores(theta):                      # per deal: sum of (chosen - probabilities)
        out = []
        for (chosen, among, deal), done in zip(events, t.finished):
            g = np.zeros((done.shape[0], k))
            np.add.at(g, deal, np.eye(k)[chosen] - stats.pl_probabilities(theta, among))
            out.append(g)
        return np.concatenate(out)
    return stats.ratings(data, k, scores=scores, alpha=alpha)
