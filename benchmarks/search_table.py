"""The search bot (``montecarlo``) in every company.

    python benchmarks/search_table.py --deals 300 --rules seed --out runs/table-seed.json
    python benchmarks/search_table.py --deals 300 --rules classic --out runs/table-classic.json

On one thread, duplicate deals, seats rotated (every deal played once under each rotation):

- ``1v3 X``: the bot at one seat, three copies of X (:func:`sim.studies.tune.table_match`);
- ``2v2 X``: bot, X, bot, X (the seating of ``sim compare montecarlo X``);
- ``mixed``: lowest, save-specials, counting, bot (``sim compare lowest save-specials counting
  montecarlo``);
- ``5p fixed``: a 5-player table of every built-in, eight strategies rotated over five seats
  in the order given (``sim compare montecarlo random lowest highest save-specials counting
  cheapest simple --players 5 --seating fixed``). Each strategy then always follows the same
  neighbour, and following ``random`` (which hands out 2s and 10s) is worth much: without the
  bot, ``lowest`` in that seat wins 43% and ``counting``, two places on, 24%; a copy of
  ``lowest`` after ``random`` wins twice as often as ``lowest`` itself (tests/test_compare.py);
- ``5p after random``: ``5p fixed`` with the bot moved to the seat after ``random`` (the
  order ``montecarlo lowest highest save-specials counting cheapest simple random``, cyclic),
  ``lowest`` after the bot: the bot in the seat that ``lowest`` holds in ``5p fixed``. Not in
  the default list (``--only "5p after random"``): it shows how much of ``5p fixed`` is the
  seat;
- ``5p all``: the same table with the neighbours balanced, ``sim compare``'s default
  (``--seating balanced``): every deal under its own random cyclic order of the eight
  strategies (still played under all eight rotations of it), so that every strategy follows
  every other equally often on average and deals stay independent. Until 2026-11-30 this
  table used blocks of 20 deals sharing one order, which correlated the deals of a block and
  made the interval over deals too narrow (benchmarks/seating.py).

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


def compare_summary(names, players, deals, seed, rules, seating="fixed"):
    """``names[0]`` against the others in ``sim compare``'s design, the cyclic order of the
    strategies ``fixed`` (as given) or ``balanced`` (sim.studies.compare, "Seating")."""
    import numpy as np

    from sim.studies.compare import compare
    from sim.studies.tune import summarize

    t0, c0 = time.perf_counter(), time.process_time()
    t, _ = compare(names, players=players, games=deals * len(names), seed=seed, rules=rules,
                   threads=1, seating=seating)
    return summarize({"names": names, "per_deal": np.concatenate(t.per_deal),
                      "games": t.games, "unfinished": t.unfinished,
                      "seconds": time.perf_counter() - t0,
                      "cpu_seconds": time.process_time() - c0})


def main():
    from sim.studies.tune import summarize, table_match

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bot", default="montecarlo")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--only", default=None, help="comma-separated matchup labels")
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
        plans.append(("5p after random", None))
        plans = [p for p in plans if p[0] in keep]
    out = []
    for label, seats in plans:
        deals = a.mixed_deals if a.mixed_deals and label.startswith(("mixed", "5p")) else a.deals
        if label == "5p after random":
            s = compare_summary([bot] + OTHERS[1:] + OTHERS[:1], 5, deals, a.seed, a.rules)
        elif seats is None:
            s = compare_summary([bot] + OTHERS, 5, deals, a.seed, a.rules,
                                "balanced" if label == "5p all" else "fixed")
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
