"""Strength of the search bot against its budget: the curve.

    python benchmarks/search_budget.py --deals 300 --rollouts 1,8,15,30,60,120,240

The fixed table is the mixed one (lowest, save-specials, counting and the bot, seats rotated
over duplicate deals, one thread). For each budget (``rollouts``: playouts per decision,
shared among the candidate moves) it prints the bot's win rate with its 95% interval over
deals, its paired difference with the best other seat (counting), and games per CPU-second.
Every budget plays the same deals, so the points differ by the budget only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main():
    from sim.studies.tune import summarize, table_match

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--rollouts", default="1,8,15,30,60,120,240")
    ap.add_argument("--table", default="lowest,save-specials,counting")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = []
    print("| rollouts | bot win rate (95% CI) | counting | bot - counting (CI) | games/s |")
    print("|---|---|---|---|---|")
    for r in [int(x) for x in a.rollouts.split(",")]:
        bot = f"montecarlo(rollouts={r})"
        m = table_match(a.table.split(",") + [bot], a.deals, seed=a.seed, rules=a.rules)
        s = summarize(m, target=m["names"].index(bot))
        me = next(x for x in s["rows"] if x["strategy"] == bot)
        cnt = next(x for x in s["rows"] if x["strategy"] == "counting")
        d = next(x for x in s["differences"] if x["against"] == "counting")
        rec = {"rollouts": r, "bot": me, "counting": cnt, "difference": d,
               "games": s["games"], "games_per_cpu_second": s["games_per_cpu_second"]}
        out.append(rec)
        print(f"| {r} | {100 * me['result']:.1f} ({100 * me['ci_low']:.1f}-"
              f"{100 * me['ci_high']:.1f}) | {100 * cnt['result']:.1f} | "
              f"{100 * d['difference']:+.1f} ({100 * d['ci_low']:+.1f} .. "
              f"{100 * d['ci_high']:+.1f}) | {s['games_per_cpu_second']:.1f} |", flush=True)
        if a.out:
            Path(a.out).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
