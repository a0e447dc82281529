"""Is the interval of ``sim compare --seating balanced`` right? A coverage simulation.

    python benchmarks/seating.py                  # 2,000 repetitions per design, ~2 minutes

A tournament's per-deal paired difference between two strategies A and B is simulated with
numpy: a true difference ``delta``, plus a neighbour effect: the strategy seated right after
a "giver" (like ``random``, which hands out 2s and 10s) gains ``gamma``, plus noise. ``k``
strategies (A, B, the giver and k - 3 others), so a cyclic order decides who follows the giver.
The estimand is the difference with the neighbours balanced: averaged over all cyclic orders
the neighbour effect cancels (A and B follow the giver equally often), so it is ``delta``.

Designs, each analysed with ``sim.studies.stats.mean_interval`` over deals (what sim compare prints):

- ``fixed``: one cyclic order (B after the giver), every deal;
- ``blocks``: blocks of 20 deals, each under one random order (this project's benchmark
  tables until 2026-11-30): deals within a block share their neighbour effect;
- ``list120``: deal d under order d mod 120 of a list of 120 random orders drawn once per
  tournament (tried for sim compare, and rejected: the list's own imbalance is a bias the
  interval over deals does not see);
- ``balanced``: sim compare's design for ``k`` strategies (:func:`sim.studies.design.seat_orders`): up to 6
  strategies deal d plays cyclic order d mod (k-1)! of all of them; from 7 on every deal its
  own random order drawn from (seed, deal). Checked for every k from 3 to 8.

``fixed``, ``blocks`` and ``list120`` are run with 8 strategies, as when they were compared.

Reported: how often the 95% interval covers ``delta`` (should be at least 95%), the mean
estimate and the mean interval width.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.studies.design import seat_orders  # noqa: E402
from sim.studies.stats import mean_interval  # noqa: E402

A, B, GIVER = 0, 1, 2


def after_giver(order):
    """+1 when A follows the giver in ``order``, -1 when B does, else 0."""
    pos = order.index(GIVER)
    nxt = order[(pos + 1) % len(order)]
    return 1 if nxt == A else -1 if nxt == B else 0


def run(design, k, deals, delta, gamma, noise, gen, seed):
    if design == "fixed":
        order = (A, GIVER, B) + tuple(range(3, k))      # B always follows the giver
        nb = np.full(deals, after_giver(order))
    elif design == "blocks":
        nb = np.repeat([after_giver((A,) + tuple(gen.permutation(k - 1) + 1))
                        for _ in range(-(-deals // 20))], 20)[:deals]
    elif design == "list120":
        table = np.array([after_giver((A,) + tuple(gen.permutation(k - 1) + 1))
                          for _ in range(120)])
        nb = table[np.arange(deals) % table.size]
    else:
        orders = seat_orders(k, "balanced", seed, np.arange(deals))
        nb = np.array([after_giver(tuple(o)) for o in orders.tolist()])
    d = delta + gamma * nb + gen.normal(0, noise, deals)
    return mean_interval(np.clip(d, -1, 1), bounds=(-1.0, 1.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--deals", type=int, default=800)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--gamma", type=float, default=0.15, help="neighbour effect (15 points: "
                    "the seat after random at the 5-player table of the built-ins)")
    ap.add_argument("--noise", type=float, default=0.3)
    a = ap.parse_args()
    gen = np.random.default_rng(1)
    print(f"{a.reps} tournaments of {a.deals} deals; true difference {a.delta:+.3f}, "
          f"neighbour effect {a.gamma:.2f}, per-deal noise sd {a.noise}")
    print(f"{'k':>2} {'design':>9} {'covers':>7} {'mean estimate':>14} {'mean width':>11}")
    cases = [(8, d) for d in ("fixed", "blocks", "list120")]
    cases += [(k, "balanced") for k in range(3, 9)]
    for k, design in cases:
        hits, est, width = 0, [], []
        for rep in range(a.reps):
            ci = run(design, k, a.deals, a.delta, a.gamma, a.noise, gen, seed=rep)
            hits += ci["ci_low"] <= a.delta <= ci["ci_high"]
            est.append(ci["estimate"])
            width.append(ci["ci_high"] - ci["ci_low"])
        print(f"{k:>2} {design:>9} {hits / a.reps:>7.1%} {np.mean(est):>+14.4f} "
              f"{np.mean(width):>11.4f}")

if __name__ == "__main__":
    main()
