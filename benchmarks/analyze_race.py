"""Does ``sim analyze --until-clear``'s race keep its promise? (a simulation, not a test)

    python benchmarks/analyze_race.py [--reps 400] [--seed 1] [--block 200] [--looks 20]

The race (:func:`sim.studies.race.race`) is run on simulated worlds instead of playouts:
per world, every move wins (1) or not (0) with its own chance ``p_i``; with probability
``1 - r`` the world is *shared* (one uniform ``u``, move i wins when ``u < p_i``: the moves
agree as often as their chances allow, like playouts of close moves from common random
numbers) and with probability ``r`` the moves are drawn independently. Each repetition plays
blocks of ``--block`` worlds up to ``--looks`` blocks, the moves dropped by the race playing
no further worlds, with the z of ``analyze_state`` (one-sided Bonferroni over looks x (k - 1)).

A *wrong answer* is: "clear" naming a move that is not among the best, or "tolerance"
naming a leader more than ``tol`` below the best (exactly ``tol`` below counts as wrong
too). The promise: at most 5% in every case. Also reported: how often a best move was
dropped, how the runs stopped, and the median worlds played.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sim.studies.race import race  # noqa: E402

# name: (chances of the moves, r = share of independent worlds, tolerance in win chance)
CASES = {
    "5 moves tied, 30% independent worlds": ([0.3] * 5, 0.3, 0.01),
    "5 moves tied, near-constant: 0.5% independent worlds": ([0.3] * 5, 0.005, 0.01),
    "2 moves tied, every world the same (no discordance)": ([0.4, 0.4], 0.0, 0.01),
    "tied, tolerance 0 (separation only)": ([0.3, 0.3, 0.2], 0.3, 0.0),
    "best 1 point (= tol) above second, 30% independent": ([0.31, 0.30, 0.25, 0.2], 0.3, 0.01),
    "best 1 point (= tol) above second, 5% independent": ([0.31, 0.30, 0.25, 0.2], 0.05, 0.01),
    "best 0.5 point above second, others far (like the example)": (
        [0.205, 0.2, 0.1, 0.08, 0.05], 0.2, 0.01),
    "best 3 points above second": ([0.33, 0.30, 0.28, 0.1], 0.3, 0.01),
    "rare wins: 0.4% vs 0.1%": ([0.004, 0.001, 0.001], 0.5, 0.01),
}


def worlds(p, r, n, rng):
    """n worlds x moves of 0/1 scores."""
    p = np.asarray(p)
    u = rng.random((n, 1))
    shared = (u < p).astype(float)
    indep = (rng.random((n, p.size)) < p).astype(float)
    pick = rng.random((n, 1)) < r
    return np.where(pick, indep, shared)


def one(p, r, tol, block, looks, rng):
    k = len(p)
    z = float(norm.ppf(1 - 0.05 / (looks * max(1, k - 1))))
    active = np.ones(k, bool)
    scores = np.zeros((0, k))
    best = np.flatnonzero(np.isclose(p, max(p)))
    dropped_best = False
    for _ in range(looks):
        s = worlds(p, r, block, rng)
        s[:, ~active] = np.nan
        scores = np.concatenate([scores, s])
        active, leader, stopped = race(scores, active, False, 1.0, z, tol)
        dropped_best |= not active[best].all()
        if stopped:
            break
    stopped = stopped or "cap"
    wrong = ((stopped == "clear" and leader not in best)
             or (stopped == "tolerance" and p[leader] <= max(p) - tol + 1e-12))
    return stopped, wrong, dropped_best, scores.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--block", type=int, default=200)
    ap.add_argument("--looks", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.reps} repetitions a case, blocks of {args.block} worlds, at most "
          f"{args.looks} looks; promise: wrong answers at most 5%.\n")
    print("| case | wrong (95% upper) | best dropped | clear / tolerance / cap | "
          "median worlds |")
    print("|---|---|---|---|---|")
    for name, (p, r, tol) in CASES.items():
        out = [one(np.array(p), r, tol, args.block, args.looks, rng) for _ in range(args.reps)]
        wrong = sum(o[1] for o in out)
        up = _upper(wrong, args.reps)
        stops = [sum(o[0] == s for o in out) for s in ("clear", "tolerance", "cap")]
        print(f"| {name} | {100 * wrong / args.reps:.1f}% ({100 * up:.1f}%) | "
              f"{100 * sum(o[2] for o in out) / args.reps:.1f}% | "
              f"{' / '.join(map(str, stops))} | {np.median([o[3] for o in out]):,.0f} |")


def _upper(k, n, alpha=0.05):
    from scipy.stats import beta
    return 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))


if __name__ == "__main__":
    main()
