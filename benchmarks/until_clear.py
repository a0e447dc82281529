"""Does ``sim compare --until-clear`` keep its promise? (a benchmark, not a timed test)

    python benchmarks/until_clear.py                 # 200 repetitions each, about 2 minutes
    python benchmarks/until_clear.py --reps 50 --real 2

1. The per-deal outcome of two strategies that play alike is measured once with the real
   engine: ``random`` against ``random-b`` (the same play, but one extra draw from the game's
   random stream each turn, so the games differ while the strategies are equal in law), four
   players, duplicate deals. With two strategies at four seats a deal's paired difference of
   win rates is -1/2, 0 or +1/2 (a quarter step when a game hits the turn cap).
2. That process is then simulated directly with numpy, to afford the repetitions: i.i.d.
   deals drawn from the measured distribution, made exactly symmetric (identical strategies)
   or tilted to a mean difference of one point of win rate (``mean(D) = 0.01``). Each
   repetition runs sim.studies.compare's own stopping rule (``Tournament.clear_leader`` after every
   block of ``sim.studies.compare.blocks``) up to ``--max-games``; the script reports how often a
   leader is declared between identical strategies (the promise: at most 5%) and how many
   games a one-point difference needs.
3. The real ``compare(..., until_clear=True)`` is also run ``--real`` times on the two
   identical strategies, with the engine playing every game.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.studies.compare import blocks, compare  # noqa: E402
from sim.studies.stats import ALPHA  # noqa: E402
from sim.studies.tournament import Tournament  # noqa: E402
from sim.kernel.rng import randint  # noqa: E402
from sim.kernel.strategy import move_strategy  # noqa: E402
from strategies.basic import random_move  # noqa: E402


@move_strategy("random-b", "random, after one extra draw from the game's stream (benchmark)",
               swap="random")
def random_b(obs, hand, legal, rng, params):
    randint(rng, 2)
    return random_move(obs, hand, legal, rng, params)


PAIR = ["random", "random-b"]


def measured(games, seed, threads):
    """Distribution of the paired per-deal difference, from the real engine."""
    t, _ = compare(PAIR, players=4, games=games, seed=seed, threads=threads)
    x = np.concatenate(t.per_deal)
    d = np.round(x[:, 0] - x[:, 1], 9) + 0.0          # + 0.0: no -0.0
    values, counts = np.unique(np.concatenate([d, -d]), return_counts=True)  # symmetric
    return values, counts / counts.sum(), t.unfinished


def tilted(values, p, mean):
    """The distribution p(d) (1 + c d) with mean ``mean`` (c = mean / variance)."""
    c = mean / float((p * values ** 2).sum())
    q = p * (1 + c * values)
    assert (q >= 0).all()
    return q / q.sum()


def until_clear(values, p, rng, max_games):
    """One until-clear procedure on simulated deals; (declared leader or None, games)."""
    t = Tournament(["a", "b"], 4, False, sequential=True)
    deals = max_games // 2
    for first, n in blocks(deals, None, True):
        d = rng.choice(values, p=p, size=n)
        a = (0.5 + d) / 2                       # a's and b's win rates add up to 1/2
        t.per_deal.append(np.stack([a, 0.5 - a], axis=1))
        leader, clear = t.clear_leader()
        if clear:
            return leader, 2 * (first + n)
    return None, 2 * deals


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200, help="simulated repetitions per case")
    ap.add_argument("--max-games", type=float, default=1e6, help="the cap of each procedure")
    ap.add_argument("--measure-games", type=float, default=40_000,
                    help="real games to measure the per-deal distribution")
    ap.add_argument("--real", type=int, default=5, help="real compare(...) runs")
    ap.add_argument("--real-games", type=float, default=100_000, help="their cap")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    max_games = int(args.max_games)
    t0 = time.perf_counter()
    values, p, unf = measured(int(args.measure_games), args.seed, args.threads)
    var = float((p * values ** 2).sum())
    print(f"Stopping rule (sim.studies.compare): stop when the anytime-valid {1 - ALPHA:.0%} "
          f"confidence sequence (sim.studies.stats: Waudby-Smith & Ramdas betting, dKelly) of the "
          f"paired per-deal difference, leader minus each other strategy, lies above 0.")
    print(f"Per-deal paired difference of win rates, measured with the real engine "
          f"({' vs '.join(PAIR)}, 4 players, {int(args.measure_games):,} games, {unf} "
          f"unfinished; symmetrised): "
          + ", ".join(f"P({v + 0.0:+.2f}) = {q:.4f}" for v, q in zip(values, p))
          + f"; variance {var:.4f}.")
    rng = np.random.default_rng(args.seed)

    print(f"\n[numpy simulation of the per-deal process, through sim.studies.compare's stopping rule; "
          f"cap {max_games:,} games]")
    null = [until_clear(values, p, rng, max_games) for _ in range(args.reps)]
    false = sum(w is not None for w, _ in null)
    upper = _clopper_upper(false, args.reps)
    print(f"Identical strategies: a leader declared in {false} of {args.reps} repetitions "
          f"({100 * false / args.reps:.1f}%; 95% upper bound {100 * upper:.1f}%). "
          f"{'OK: at most 5%' if false <= 0.05 * args.reps else 'FAIL: more than 5%'}.")

    q = tilted(values, p, 0.01)
    one = [until_clear(values, q, rng, max_games) for _ in range(args.reps)]
    games = np.array([g for w, g in one if w is not None])
    right = sum(w == "a" for w, _ in one)
    wrong = sum(w == "b" for w, _ in one)
    fixed = math.ceil((1.959964 + 0.841621) ** 2 * var / 0.01 ** 2) * 2
    print(f"One point apart (win rates 25.5% vs 24.5% per seat-game): the better declared in "
          f"{right}, the worse in {wrong}, no leader by the cap in {args.reps - right - wrong} "
          f"of {args.reps} repetitions.")
    if games.size:
        q25, q50, q75, q90 = np.percentile(games, [25, 50, 75, 90])
        print(f"Games needed: median {q50:,.0f} (quartiles {q25:,.0f} - {q75:,.0f}; 90% "
              f"stopped by {q90:,.0f}). For reference, one fixed-size test (5% two-sided, "
              f"80% power) would need {fixed:,} games, and could not stop early.")

    if args.real:
        print(f"\n[the real compare(..., until_clear=True), every game played by the engine; "
              f"{' vs '.join(PAIR)}, cap {int(args.real_games):,} games]")
        declared = []
        for i in range(args.real):
            t, info = compare(PAIR, players=4, games=0, max_games=int(args.real_games),
                              until_clear=True, seed=args.seed + 1 + i, threads=args.threads)
            declared.append(info["stopped"] == "clear")
            lead = t.leader_comparisons()
            c = lead["comparisons"][0]
            print(f"  seed {args.seed + 1 + i}: {info['stopped']} after {t.games:,} games "
                  f"({info['looks']} looks); leader {lead['strategy']} by "
                  f"{100 * c['difference']:+.2f} points (95% CS {100 * c['ci_low']:+.2f} .. "
                  f"{100 * c['ci_high']:+.2f})")
        print(f"Real runs: a leader declared in {sum(declared)} of {args.real}.")
    print(f"\n{time.perf_counter() - t0:.0f} s")


def _clopper_upper(k, n, alpha=0.05):
    from scipy.stats import beta
    return 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))


if __name__ == "__main__":
    main()
