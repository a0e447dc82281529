"""Coverage of the paired-difference intervals in their corners: values that rarely
leave 0 (two moves on common worlds, two strategies on duplicate deals), none at all, rare
deviations spanning the range, and an ordinary case for the width.

    python benchmarks/paired_coverage.py [--reps 20000] [--seed 1] [--out FILE.md]

Each corner is a distribution over a few values in its bounds; every repetition draws ``n``
values (as multinomial counts), builds each method's 95% interval and checks that it holds
the true mean. Methods:

- ``normal``: mean +- 1.96 standard errors (``sim analyze``'s best-minus-second before);
- ``floored``: the same, never narrower than the Clopper-Pearson width for "no value
  deviated" (``stats.mean_interval`` before);
- ``score``: :func:`sim.studies.stats.mean_interval` now (the floored interval's hull with
  the MOVER score interval on the discordant part, :mod:`sim.studies.discordant`).

The width column is the mean width of ``score`` over that of ``floored``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sim.studies import discordant  # noqa: E402

Z = 1.959963984540054

# name: (n, {value: probability}, bounds, base) -- the rest of the mass is on the base value.
CORNERS = {
    "rare wins: a alone 0.2%, b never (1,000 worlds)": (1000, {1.0: 0.002}, (-1, 1), 0.0),
    "rare wins: 0.4% / 0.1% (1,000 worlds)": (1000, {1.0: 0.004, -1.0: 0.001}, (-1, 1), 0.0),
    "rare wins: 0.2% / 0.05% (2,000 worlds)": (2000, {1.0: 0.002, -1.0: 0.0005}, (-1, 1), 0.0),
    "none at all (1,000 worlds)": (1000, {}, (-1, 1), 0.0),
    "rare deviations spanning the range, 0.8%, 2:1 up (1,000 deals)": (
        1000, {v: 0.008 * (2 / 3 if v > 0 else 1 / 3) / 4
               for v in (-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1)}, (-1, 1), 0.0),
    "rare deviations spanning the range, 0.8%, symmetric (1,000 deals)": (
        1000, {v: 0.001 for v in (-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1)}, (-1, 1), 0.0),
    "rare one-sided deviations spanning [0, 1], 0.8% (1,000 deals)": (
        1000, {v / 8: 0.001 for v in range(1, 9)}, (0, 1), 0.0),
    "rare one-sided differences spanning (0, 1], 0.8% (1,000 deals)": (
        1000, {v / 8: 0.001 for v in range(1, 9)}, (-1, 1), 0.0),
    "rare one-sided deviations, 0.8% (5,000 deals)": (
        5000, {v / 8: 0.001 for v in range(1, 9)}, (0, 1), 0.0),
    "rare deviations, 0.3% (300 deals)": (300, {0.5: 0.002, -0.25: 0.001}, (-1, 1), 0.0),
    "V2 places (4p, steps of 1/3), 1% (1,000 deals)": (
        1000, {1 / 3: 0.004, 2 / 3: 0.002, -1 / 3: 0.003, -1.0: 0.001}, (-1, 1), 0.0),
    "near-constant level: 0.25 but 0.5% (1,000 deals)": (
        1000, {0.0: 0.002, 0.5: 0.001, 1.0: 0.002}, (0, 1), 0.25),
    "ordinary: 40% deviate, a small edge (1,000 deals)": (
        1000, {-1.0: 0.04, -0.5: 0.08, -0.25: 0.06, 0.25: 0.08, 0.5: 0.09, 1.0: 0.05},
        (-1, 1), 0.0),
    "ordinary: win shares, 4 players (400 deals)": (
        400, {0.0: 0.35, 0.5: 0.2, 0.75: 0.1, 1.0: 0.1}, (0, 1), 0.25),
}


def simulate(n, dist, bounds, center, reps, rng):
    values = np.array([center] + list(dist), float)
    probs = np.array([1 - sum(dist.values())] + list(dist.values()))
    truth = float(values @ probs)
    counts = rng.multinomial(n, probs, size=reps).astype(float)          # (reps, V)
    s1, s2 = counts @ values, counts @ values ** 2
    mean = s1 / n
    sd = np.sqrt(np.maximum((s2 - n * mean ** 2) / (n - 1), 0.0))
    lo, hi = bounds
    normal = (mean - Z * sd / np.sqrt(n), mean + Z * sd / np.sqrt(n))
    floor = (hi - lo) * -np.expm1(np.log(0.025) / n)
    half = np.maximum(Z * sd / np.sqrt(n), floor)
    floored = (np.maximum(mean - half, lo), np.minimum(mean + half, hi))
    # The centre as stats.mean_interval takes it: 0 for a difference, else the most frequent
    # value of each sample (discordant.centre).
    if lo < 0 < hi:
        c = np.zeros(reps)
    else:
        c = values[np.argmax(counts, axis=1)]
    a, b = hi - c, c - lo
    up = np.maximum(values[None, :] - c[:, None], 0) / np.where(a > 0, a, 1.0)[:, None]
    down = np.maximum(c[:, None] - values[None, :], 0) / np.where(b > 0, b, 1.0)[:, None]
    stats_ = (n, (counts * up).sum(1), (counts * up ** 2).sum(1), (counts * down).sum(1),
              (counts * down ** 2).sum(1))
    m_lo, m_hi = discordant.mover(*stats_, c, bounds, 0.05)
    score = (np.minimum(floored[0], m_lo), np.maximum(floored[1], m_hi))
    cover = {k: float(np.mean((iv[0] <= truth) & (truth <= iv[1])))
             for k, iv in (("normal", normal), ("floored", floored), ("score", score))}
    width = float(np.mean(score[1] - score[0]) / np.mean(floored[1] - floored[0]))
    return truth, cover, width


def grid(rng, reps):
    """The lowest coverage of each method over 6 rates x 5 sample sizes x 5 shapes."""
    shapes = {
        "+1 only": lambda r: ({1.0: r}, (-1, 1), 0.0),
        "+1/-1 at 7:3": lambda r: ({1.0: 0.7 * r, -1.0: 0.3 * r}, (-1, 1), 0.0),
        "one-sided level, spanning": lambda r: ({v / 8: r / 8 for v in range(1, 9)}, (0, 1),
                                                0.0),
        "difference, spanning 7:3": lambda r: (
            {v: r * (0.7 if v > 0 else 0.3) / 4 for v in (-1, -.75, -.5, -.25, .25, .5, .75, 1)},
            (-1, 1), 0.0),
        "level 0.25, rare 0 / 0.5 / 1": lambda r: ({0.0: r / 2, 0.5: r / 5, 1.0: 3 * r / 10},
                                                   (0, 1), 0.25),
    }
    worst = {}
    for rate in (0.0005, 0.001, 0.003, 0.01, 0.03, 0.1):
        for n in (100, 300, 1000, 5000, 20000):
            for shape, make in shapes.items():
                _, cover, _ = simulate(n, *make(rate), reps, rng)
                for k, v in cover.items():
                    if v < worst.get(k, (2,))[0]:
                        worst[k] = (v, f"rate {rate:g}, n {n:,}, {shape}")
    return "\n".join([f"Lowest coverage over a grid of 150 cases ({reps:,} repetitions each):",
                      ""] + [f"- {k}: {v:.1%} ({where})" for k, (v, where) in worst.items()])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--grid", action="store_true", help="also the worst coverage over a grid "
                    "of rates, sample sizes and shapes")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    lines = [f"Coverage of 95% intervals, {args.reps:,} repetitions each "
             f"(`python benchmarks/paired_coverage.py --reps {args.reps} --seed {args.seed}`)",
             "", "| corner | true mean | normal | floored (before) | score (now) | width now / "
             "before |", "|---|---|---|---|---|---|"]
    for name, (n, dist, bounds, center) in CORNERS.items():
        truth, cover, width = simulate(n, dist, bounds, center, args.reps, rng)
        lines.append(f"| {name} | {truth:+.5f} | {cover['normal']:.1%} | {cover['floored']:.1%}"
                     f" | {cover['score']:.1%} | {width:.2f} |")
    if args.grid:
        lines += ["", grid(rng, max(1000, args.reps // 5))]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
