"""Stage 4 of the swap study: the descriptive table of face-up triples (owning included),
with Wilson intervals and empirical-Bayes shrunk rates."""
from __future__ import annotations

import math

import numpy as np

from sim.studies.swapstudy.triples import triple_names


def triple_table(stage):
    """Per face-up triple: seat-games (unfinished included), wins, raw win rate, its Wilson
    interval and an empirical-Bayes shrunk rate (method of moments, beta-binomial)."""
    from sim.runs.tally import wilson

    count, score, unf = stage["count"], stage["score"], stage["unf"]
    codes = np.flatnonzero(count)
    n, w = count[codes].astype(float), score[codes]
    mean = w.sum() / n.sum()
    raw = w / n
    # between-triple variance of true rates: observed variance less the sampling part
    within = mean * (1 - mean) / n
    tau2 = max(float(np.average((raw - mean) ** 2, weights=n) - np.average(within,
                                                                           weights=n)), 0.0)
    shrink = tau2 / (tau2 + within) if tau2 > 0 else np.zeros_like(n)
    shrunk = mean + shrink * (raw - mean)
    rows = []
    for code, ni, wi, si, ui in zip(codes, n, w, shrunk, unf[codes]):
        lo, hi = wilson(int(round(wi)), int(ni))
        rows.append({"triple": triple_names(int(code)), "games": int(ni), "wins": float(wi),
                     "win_rate": float(wi / ni), "ci_low": lo, "ci_high": hi,
                     "shrunk": float(si), "unfinished": int(ui)})
    rows.sort(key=lambda r: -r["shrunk"])
    return rows, {"mean": float(mean), "tau": math.sqrt(tau2)}

