"""The review's loss estimators where the true values are known: the winner's curse of the
loss measured on the worlds that chose the best move (before), against the loss measured on
fresh worlds (now, :func:`sim.studies.review.measured_loss`).

    python benchmarks/review_bias.py [--reps 2000] [--seed 1] [--out FILE.md]

A synthetic review is ``decisions`` decisions; a decision is ``k`` moves with true values
``mu`` (win chances; one case is normal payoffs) and a move made. A world's results for
the moves are correlated as common random numbers make them (a shared normal draw, weight
``rho``, thresholded at each move's own quantile: each move's result is Bernoulli(mu_j),
and moves agree in most worlds). Each decision plays ``worlds`` ranking worlds, on which the
best move is the one of highest mean (the first of them, as ``sim analyze`` orders), and
``worlds`` fresh worlds of the same kind, independent of them.

- **before**: the loss is the mean of "best minus made" on the ranking worlds, its
  interval at 5% / (k - 1) (Bonferroni) for a mistake;
- **now**: the mean of "best minus made" on the fresh worlds, its 95% interval.

The truth each is judged against is the true value gap between the move named best and
the move made, ``mu[best] - mu[made]`` (the estimand of both; it is 0 when the best named
is the move made, and can be negative when the named best is truly worse than the move
made). The total's 95% interval is the review's: the sum of the losses +- 1.96 sqrt(sum of
se**2), with se the standard error of the mean over the worlds (as in
:meth:`sim.studies.review.Review.summary`). The table gives, per case, the mean error of a
decision's loss (bias, points of win chance), the coverage of the total's interval, how often
the total's interval excludes 0, and the mean number of decisions marked mistakes per review
(from the review's own interval functions, on the first ``--exact-reps`` reviews); and the
regret, ``max(mu) - mu[made]``, which the named best's gap never exceeds.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sim.studies.race import paired_difference  # noqa: E402
from sim.studies.review import measured_loss  # noqa: E402

Z = 1.959963984540054
DECISIONS, WORLDS, RHO = 30, 300, 0.85


def _mixed(seed=7):
    """Thirty decisions like a game's: 2-8 moves, values spread as a game's decisions are
    (most near-ties, some clear), the move made the best, the second or a random one."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(DECISIONS):
        k = int(rng.integers(2, 9))
        mu = np.clip(0.35 + rng.choice([0.003, 0.01, 0.03, 0.1], k) * rng.standard_normal(k),
                     0.02, 0.98)
        order = np.argsort(-mu)
        made = int(rng.choice([order[0], order[min(1, k - 1)], rng.integers(k)]))
        out.append((mu, made))
    return out


CASES = {
    "every move equal (4 moves at 35%)": [(np.full(4, 0.35), 1)] * DECISIONS,
    "one clearly better move (55% vs three at 35%), another made": [
        (np.array([0.55, 0.35, 0.35, 0.35]), 1)] * DECISIONS,
    "one clearly better move (55% vs three at 35%), made": [
        (np.array([0.55, 0.35, 0.35, 0.35]), 0)] * DECISIONS,
    "many near-ties (8 moves, 35% to 42% by 1 point), the 4th made": [
        (0.35 + 0.01 * np.arange(8)[::-1], 3)] * DECISIONS,
    "mixed, like a game (2-8 moves, mostly near-ties)": _mixed(),
    "normal payoffs, every move equal (5 moves, sd 1)": [(np.zeros(5), 2)] * DECISIONS,
}


def worlds(rng, mu, reps, n, normal):
    """reps x n x k results: Bernoulli(mu_j) (or normal(mu_j, 1)), correlated across moves."""
    k = mu.size
    common = rng.standard_normal((reps, n, 1))
    own = rng.standard_normal((reps, n, k))
    latent = np.sqrt(RHO) * common + np.sqrt(1 - RHO) * own
    if normal:
        return latent + mu
    return (latent < norm.ppf(mu)).astype(float)


def simulate(case, reps, exact, rng, normal):
    """Per review (reps): the truth, the old and new totals and ses; the errors of the
    decisions; the mistakes of the first ``exact`` reviews."""
    span = 3.0 if normal else 1.0         # normal: a V2-like range of places
    truth = np.zeros(reps)
    regret = np.zeros(reps)
    tot = {"before": np.zeros(reps), "now": np.zeros(reps)}
    var = {"before": np.zeros(reps), "now": np.zeros(reps)}
    err = {"before": [], "now": []}
    mistakes = {"before": np.zeros(exact), "now": np.zeros(exact)}
    for mu, made in case:
        sel = worlds(rng, mu, reps, WORLDS, normal)
        fresh = worlds(rng, mu, reps, WORLDS, normal)
        means = sel.mean(axis=1)                             # reps x k
        best = np.argmax(means, axis=1)                      # the first of the highest
        gap = mu[best] - mu[made]
        truth += gap
        regret += mu.max() - mu[made]
        r = np.arange(reps)
        for name, w in (("before", sel), ("now", fresh)):
            d = w[r, :, best] - w[:, :, made]                # reps x worlds
            est = d.mean(axis=1)
            se = d.std(axis=1, ddof=1) / np.sqrt(WORLDS)
            same = best == made
            est[same], se[same] = 0.0, 0.0                   # the best is the move made
            tot[name] += est
            var[name] += se ** 2
            err[name].append(est - gap)
        for i in range(exact):                               # the review's own intervals
            b = int(best[i])
            if b == made:
                continue
            old = paired_difference(sel[i], b, made, span, 0.05 / (mu.size - 1))
            mistakes["before"][i] += old["ci_low"] > 0
            new = measured_loss(fresh[i][:, [b, made]], False, span)
            mistakes["now"][i] += new["mistake"]
    out = {"truth": float(truth.mean()), "regret": float(regret.mean())}
    for name in ("before", "now"):
        half = Z * np.sqrt(var[name])
        lo, hi = tot[name] - half, tot[name] + half
        out[name] = {
            "bias": float(np.mean(np.concatenate(err[name]))),
            "bias_se": float(np.std(np.concatenate(err[name])) / np.sqrt(reps * len(case))),
            "total": float(tot[name].mean()),
            "cover": float(np.mean((lo <= truth) & (truth <= hi))),
            "excludes0": float(np.mean(lo > 0)),
            "mistakes": float(mistakes[name].mean()),
        }
    return out


def check_one(rng):
    """The vectorised loss and se are measured_loss's own, on one decision."""
    mu = np.array([0.4, 0.3, 0.35])
    w = worlds(rng, mu, 1, WORLDS, False)[0]
    d = w[:, 0] - w[:, 2]
    got = measured_loss(w[:, [0, 2]], False, 1.0)
    assert abs(got["loss"] - d.mean()) < 1e-12
    assert abs(got["se"] - d.std(ddof=1) / np.sqrt(WORLDS)) < 1e-12


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--exact-reps", type=int, default=200,
                    help="reviews whose mistakes are counted with the review's intervals")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    check_one(rng)
    lines = [f"Synthetic reviews of {DECISIONS} decisions, {WORLDS} ranking worlds and "
             f"{WORLDS} fresh worlds a decision, common-random-number correlation {RHO}, "
             f"{a.reps:,} reviews a case (mistakes: the first {a.exact_reps}) "
             f"(`python benchmarks/review_bias.py --reps {a.reps} --seed {a.seed}`).",
             "",
             "Bias: the mean of a decision's loss minus its true loss (the true gap between "
             "the move named best and the move made), in points of win chance (the normal "
             "case: hundredths of its unit), ± its standard error. Coverage: the share of "
             "reviews whose total's 95% interval holds the true total loss. Excl. 0: the "
             "share whose total's interval lies above 0. Mistakes: decisions marked a "
             "mistake per review.",
             "",
             "| case | true total | regret total | bias before | bias now | coverage before "
             "| coverage now | excl. 0 before | excl. 0 now | mistakes before | mistakes now |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, case in CASES.items():
        r = simulate(case, a.reps, a.exact_reps, rng, name.startswith("normal"))
        b, n = r["before"], r["now"]
        lines.append(
            f"| {name} | {100 * r['truth']:.2f} | {100 * r['regret']:.2f} | "
            f"{100 * b['bias']:+.3f} ± {100 * b['bias_se']:.3f} | "
            f"{100 * n['bias']:+.3f} ± {100 * n['bias_se']:.3f} | {b['cover']:.1%} | "
            f"{n['cover']:.1%} | {b['excludes0']:.1%} | {n['excludes0']:.1%} | "
            f"{b['mistakes']:.2f} | {n['mistakes']:.2f} |")
        print(lines[-1], file=sys.stderr)
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
