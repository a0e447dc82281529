"""Fit the learned value of :mod:`strategies.value` and check it on fresh games.

    python benchmarks/fit_value.py --games 20000 --seed 1 --fresh-seed 2

Positions every ``--every`` turns of simulated 4-seat games of the playouts' own mixture
(:func:`strategies.montecarlo.mixture_positions`, seed and classic rules, half each) are fitted
by maximum likelihood of a Plackett-Luce order (seat utilities linear in the features) over
the places known at the end, with a small ridge. Checked on fresh games: log loss and Brier
score of "who goes out first" against the uniform guess, and calibration by decile. Prints
the coefficients to paste into ``strategies/value.py`` (bit-reproducible from the seeds).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def positions(seed, games, rules_name, every):
    from sim.kernel.ruleset import Ruleset
    from strategies.montecarlo import mixture_positions, POLICIES
    from strategies.value import NFEAT
    w = np.array([2.8146, 2.4494, 2.3973, 0.6413, 0.0, 0.0])    # montecarlo's w_* defaults
    assert len(w) == len(POLICIES)
    rows = games * (200 // every + 2)
    X = np.zeros((rows, 4, NFEAT))
    alive = np.zeros((rows, 4), np.int64)
    place = np.zeros((rows, 4), np.int64)
    turn = np.zeros(rows, np.int64)
    n = mixture_positions(np.uint64(seed), games, 4, Ruleset.build(rules_name).vector(), w,
                          every, X, alive, place, turn)
    return X[:n], alive[:n], place[:n], turn[:n]


def nll(beta, X, alive, place, ridge):
    """The Plackett-Luce negative log-likelihood of the known places, and its gradient."""
    u = X @ beta                                     # rows x seats
    total, grad = 0.0, np.zeros_like(beta)
    remaining = alive.astype(bool)
    for k in range(4):                               # the k-th seat out among those left
        who = (place == k) & remaining
        has = who.any(axis=1)
        if not has.any():
            break
        uu = np.where(remaining, u, -np.inf)[has]
        m = uu.max(axis=1, keepdims=True)
        e = np.exp(uu - m)
        z = e.sum(axis=1, keepdims=True)
        p = e / z
        chosen = who[has]
        total -= (uu[chosen] - (m[:, 0] + np.log(z[:, 0]))).sum()
        Xh = X[has]
        grad -= (Xh * (chosen - p)[:, :, None]).sum(axis=(0, 1))
        remaining = remaining & ~(place == k)
    n = len(X)
    return total / n + ridge * beta @ beta, grad / n + 2 * ridge * beta


def first_probs(beta, X, alive):
    u = np.where(alive.astype(bool), X @ beta, -np.inf)
    e = np.exp(u - u.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def check(beta, X, alive, place, turn):
    """Log loss, Brier and calibration of the first out among the seats left (positions
    where none is out yet), against the uniform guess, overall and by turn band."""
    keep = alive.sum(axis=1) == 4
    X, alive, place, turn = X[keep], alive[keep], place[keep], turn[keep]
    p = first_probs(beta, X, alive)
    y = (place == 0).astype(float)
    out = []
    for lo, hi in ((0, 1000), (0, 20), (20, 40), (40, 80), (80, 1000)):
        s = (turn >= lo) & (turn < hi)
        if not s.any():
            continue
        ll = -np.log(np.clip((p[s] * y[s]).sum(axis=1), 1e-12, 1)).mean()
        brier = ((p[s] - y[s]) ** 2).sum(axis=1).mean()
        out.append((f"turns {lo}-{hi}", int(s.sum()), ll, np.log(4), brier, 0.75))
    bins = np.clip((p.ravel() * 10).astype(int), 0, 9)
    cal = [(b / 10, int((bins == b).sum()), p.ravel()[bins == b].mean(), y.ravel()[bins == b].mean())
           for b in range(10) if (bins == b).sum() > 0]
    return out, cal


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20000, help="games per preset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fresh-seed", type=int, default=2)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--ridge", type=float, default=1e-4)
    a = ap.parse_args()
    from strategies.value import FEATURES

    def data(seed):
        parts = [positions(seed, a.games, r, a.every) for r in ("seed", "classic")]
        return [np.concatenate(x) for x in zip(*parts)]

    X, alive, place, turn = data(a.seed)
    print(f"fit: {len(X)} positions from {2 * a.games} games (seed {a.seed})")
    r = minimize(nll, np.zeros(X.shape[2]), args=(X, alive, place, a.ridge), jac=True,
                 method="L-BFGS-B")
    beta = r.x
    for name, b in zip(FEATURES, beta):
        print(f"  {name:>20}: {b:+.4f}")
    print("COEF = np.array([" + ", ".join(f"{b:.4f}" for b in beta) + "])")
    Xf, af, pf, tf = data(a.fresh_seed)
    print(f"fresh: {len(Xf)} positions (seed {a.fresh_seed})")
    out, cal = check(np.round(beta, 4), Xf, af, pf, tf)
    print("| positions | n | log loss | uniform | Brier | uniform |\n|---|---|---|---|---|---|")
    for row in out:
        print("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |".format(*row))
    print("\n| predicted | n | mean predicted | observed |\n|---|---|---|---|")
    for row in cal:
        print("| {:.1f}-{:.1f} | {} | {:.3f} | {:.3f} |".format(row[0], row[0] + 0.1, *row[1:]))


if __name__ == "__main__":
    main()
