"""The search bot (``montecarlo``) in every company: issue 12, item 1.

    python benchmarks/search_table.py --deals 300 --rules seed --out runs/table-seed.json
    python benchmarks/search_table.py --deals 300 --rules classic --out runs/table-classic.json

On one thread, duplicate deals, seats rotated (every deal played once under each rotation):

- ``1v3 X``: the bot at one seat, three copies of X (:func:`sim.tune.table_match`);
- ``2v2 X``: bot, X, bot, X (the seating of ``sim compare montecarlo X``);
- ``mixed``: lowest, save-specials, counting, bot (``sim compare lowest save-specials counting
  montecarlo``);
- ``5p fixed``: a 5-player table of every built-in, eight strategies rotated over five seats
  (``sim compare montecarlo random lowest highest save-specials counting cheapest simple
  --players 5``), through :func:`sim.compare.compare`. In that design the cyclic order of the
  strategies never changes, so each one always follows the same neighbour: following
  ``random`` (which hands out 2s and 10s) is worth much (without the bot, ``lowest`` in that
  seat wins 43% and ``counting``, two places on, 24%);
- ``5p all``: the same table with the neighbours balanced: every deal under its own random
  cyclic order of the eight strategies (every deal still played under all eight rotations of
  its order), so that every strategy follows every other equally often on average. One order
  per deal keeps the deals independent, which the interval over deals assumes: with blocks
  of deals sharing an order (``--orders N``, the design until 2026-11-30) the neighbour
  effect is shared within a block and the interval over deals is too narrow.

Per matchup: the bot's win rate per seat-game with its 95% interval over deals, the best other
strategy's, the paired per-deal difference bot - other with its interval (Bonferroni over the
other strategies of the table) for the *closest* other, and games/s of the whole table.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OTHERS = ["random", "lowest", "highest", "save-specials", "counting", "cheapest", "simple"]


def row(label, summary, bot):
    rows = {r["strategy"]: r for r in summary["rows"]}
    me = rows[bot]
    worst = min(summary["differences"], key=lambda d: d["ci_low"])
    best_other = max((r for r in summary["rows"] if r["strategy"] != bot),
                     key=lambda r: r["result"])
    return {"matchup": label, "bot": me["result"], "bot_low": me["ci_low"],
            "bot_high": me["ci_high"], "best_other": best_other["strategy"],
            "other": best_other["result"], "closest": worst["against"],
            "diff": worst["difference"], "diff_low": worst["ci_low"],
            "diff_high": worst["ci_high"], "level": worst["level"],
            "deals": summary["deals"], "games": summary["games"],
            "games_per_second": summary["games_per_second"],
            "games_per_cpu_second": summary["games_per_cpu_second"],
            "clear": all(d["ci_low"] > 0 for d in summary["differences"])}


def compare_summary(names, players, deals, seed, rules, orders=1):
    """``names[0]`` against the others in ``sim compare``'s design (``orders`` = 1); else
    every deal (``orders`` = 0) or each of ``orders`` blocks of deals under a random cyclic
    order of ``names``."""
    import numpy as np

    from sim import stats
    from sim.compare import compare
    from sim.runner import RunConfig, play_batch

    t0, c0 = time.perf_counter(), time.process_time()
    if orders == 1:
        t, _ = compare(names, players=players, games=deals * len(names), seed=seed,
                       rules=rules, threads=1)
        per_deal, games = np.concatenate(t.per_deal), t.games
    else:
        from sim.compare import Tournament
        gen = np.random.default_rng(seed)
        per_deal, games = [], 0
        k = len(names)
        size = 1 if orders <= 0 else -(-deals // orders)
        for b, first in enumerate(range(0, deals, size)):
            n = min(size, deals - first)
            order = [names[0]] + [names[1 + i] for i in gen.permutation(k - 1)]
            t = Tournament(order, players, False)
            cfgs = [RunConfig(games=1, players=players, seed=seed, rules=rules, threads=1,
                              strategies=[order[(s + r) % k] for s in range(players)])
                    for r in range(k)]
            t.v2 = bool(cfgs[0].options["last_player_loses"])
            t.add_block([play_batch(c, first, n, 1) for c in cfgs])
            block = np.concatenate(t.per_deal)
            per_deal.append(block[:, [order.index(x) for x in names]])
            games += t.games
        per_deal = np.concatenate(per_deal)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    level = 0.05 / (len(names) - 1)
    diffs = []
    for j in range(1, len(names)):
        ci = stats.mean_interval(per_deal[:, 0] - per_deal[:, j], alpha=level,
                                 bounds=(-1.0, 1.0), null=0.0)
        diffs.append({"against": names[j], "difference": ci["estimate"],
                      "ci_low": ci["ci_low"], "ci_high": ci["ci_high"], "level": 1 - level})
    rows = []
    for i, name in enumerate(names):
        ci = stats.mean_interval(per_deal[:, i])
        rows.append({"strategy": name, "result": ci["estimate"], "ci_low": ci["ci_low"],
                     "ci_high": ci["ci_high"]})
    return {"rows": rows, "differences": diffs, "deals": int(per_deal.shape[0]),
            "games": games, "games_per_second": games / seconds,
            "games_per_cpu_second": games / cpu}


def main():
    from sim.tune import summarize, table_match

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bot", default="montecarlo")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--only", default=None, help="comma-separated matchup labels")
    ap.add_argument("--orders", type=int, default=0, help="random cyclic orders, 5p all "
                    "(0: one per deal, the default; N: blocks of deals sharing one)")
    ap.add_argument("--mixed-deals", type=int, default=None, help="deals of the mixed and "
                    "5-player tables (default --deals)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    bot = a.bot
    plans = []
    for x in OTHERS:
        plans.append((f"1v3 {x}", [bot, x, x, x]))
    for x in OTHERS:
        plans.append((f"2v2 {x}", [bot, x, bot, x]))
    plans.append(("mixed", ["lowest", "save-specials", "counting", bot]))
    plans.append(("5p fixed", None))
    plans.append(("5p all", None))
    if a.only:
        keep = set(a.only.split(","))
        plans = [p for p in plans if p[0] in keep]
    out = []
    for label, seats in plans:
        deals = a.mixed_deals if a.mixed_deals and label in ("mixed", "5p fixed",
                                                             "5p all") else a.deals
        if seats is None:
            s = compare_summary([bot] + OTHERS, 5, deals, a.seed, a.rules,
                                a.orders if label == "5p all" else 1)
        else:
            m = table_match(seats, deals, seed=a.seed, rules=a.rules, threads=1)
            s = summarize(m, target=m["names"].index(bot))
        r = row(label, s, bot)
        r["rules"] = a.rules
        out.append(r)
        print(f"| {label} | {100 * r['bot']:.1f} ({100 * r['bot_low']:.1f}-"
              f"{100 * r['bot_high']:.1f}) | {r['best_other']} {100 * r['other']:.1f} | "
              f"{r['closest']}: {100 * r['diff']:+.1f} ({100 * r['diff_low']:+.1f} .. "
              f"{100 * r['diff_high']:+.1f}) | {'yes' if r['clear'] else 'NO'} | "
              f"{r['games']} | {r['games_per_cpu_second']:.1f} |", flush=True)
        if a.out:
            Path(a.out).parent.mkdir(parents=True, exist_ok=True)
            Path(a.out).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
