"""The search bot's strength against CPU-seconds per game, old and new in one run.

    python benchmarks/search_curve.py --before /tmp/before --deals 300 \
        --out benchmarks/results/search_curve

The table is ``benchmarks/search_table.py``'s mixed one (lowest, save-specials, counting and
the bot; seats rotated over duplicate deals, one thread) under each preset of ``--rules``.
Every variant plays the same deals. ``--before DIR`` loads another tree's packages renamed
(as ``benchmarks/ab.py`` does) and plays its ``montecarlo`` at the ``--old`` budgets in this
same process, so that old and new are timed side by side; without it the old points are
this tree's ``montecarlo(halving=0)`` (the same moves as before wherever the moves were
kept, but the playouts' speed-ups included). Per point: the bot's result with its 95%
interval over deals, CPU-seconds per game of the whole table (process time, one thread, after a
warm-up deal that compiles the bot), and
the paired per-deal difference with the old bot at its largest budget. Writes ``OUT.json``,
``OUT.md`` and ``OUT.png``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TABLE = ["lowest", "save-specials", "counting"]


def point(tune, spec, deals, seed, rules):
    tune.table_match(TABLE + [spec], 1, seed=seed + 1, rules=rules, threads=1)   # compile
    m = tune.table_match(TABLE + [spec], deals, seed=seed, rules=rules, threads=1)
    i = m["names"].index(spec)
    s = tune.summarize(m, target=i)
    me = next(r for r in s["rows"] if r["strategy"] == spec)
    return {"bot": spec, "result": me["result"], "low": me["ci_low"], "high": me["ci_high"],
            "cpu_per_game": m["cpu_seconds"] / m["games"], "games": m["games"],
            "per_deal": m["per_deal"][:, i].tolist()}


def main():
    from sim.studies import tune
    from sim.studies.stats import mean_interval

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--rules", default="seed,classic")
    ap.add_argument("--before", default=None, help="another tree: today's bot, timed here")
    ap.add_argument("--old", default="30,60,120,240", help="the old bot's rollouts")
    ap.add_argument("--new", default="montecarlo", help="the new bot's specs, ';'-separated")
    ap.add_argument("--out", default=None, help="OUT.json, OUT.md, OUT.png")
    ap.add_argument("--retime", type=int, default=5, metavar="REPS",
                    help="time every point again in REPS alternating rounds (median kept)")
    ap.add_argument("--retime-deals", type=int, default=20)
    ap.add_argument("--from-json", default=None,
                    help="the points of an earlier run (same deals): retime and redraw only")
    a = ap.parse_args()
    old_tune = tune
    old_spec = "montecarlo(rollouts={},halving=0)"
    if a.before:
        import numba

        from ab import load
        numba.set_num_threads(1)
        scratch = Path(tempfile.mkdtemp(prefix="shithead-curve-"))
        sys.path.insert(0, str(scratch))
        load("before", Path(a.before).resolve(), scratch)
        old_tune = importlib.import_module("sim_before.studies.tune")
        old_spec = "montecarlo(rollouts={})"
    out = []
    lines = ["| rules | bot | result (95% CI) | CPU-s/game | - old max (paired CI) |",
             "|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for rules in a.rules.split(","):
        if a.from_json:
            points = [p for p in json.loads(Path(a.from_json).read_text())["points"]
                      if p["rules"] == rules]
            for p in points:
                p.pop("shift", None)
        else:
            points = []
            for r in [int(x) for x in a.old.split(",")]:
                p = point(old_tune, old_spec.format(r), a.deals, a.seed, rules)
                p.update(kind="old", rollouts=r)
                points.append(p)
            for spec in a.new.split(";"):
                p = point(tune, spec, a.deals, a.seed, rules)
                p.update(kind="new")
                points.append(p)
        if a.retime:
            retime(points, {"old": old_tune, "new": tune}, rules, a.retime_deals, a.seed,
                   a.retime)
        n_old = sum(p["kind"] == "old" for p in points)
        ref = np.array(points[n_old - 1]["per_deal"])
        for p in points:
            d = mean_interval(np.array(p["per_deal"]) - ref, bounds=(-1.0, 1.0))
            p.update(rules=rules, diff=d["estimate"], diff_low=d["ci_low"],
                     diff_high=d["ci_high"])
            line = (f"| {rules} | {p['kind']} {p['bot']} | {100 * p['result']:.1f} "
                    f"({100 * p['low']:.1f}-{100 * p['high']:.1f}) | "
                    f"{1000 * p['cpu_per_game']:.1f} ms | {100 * p['diff']:+.1f} "
                    f"({100 * p['diff_low']:+.1f} .. {100 * p['diff_high']:+.1f}) |")
            lines.append(line)
            print(line, flush=True)
        sh = shift(points, np.random.default_rng(a.seed))
        if sh:
            line = (f"{rules}: the new curve reaches the old {points[n_old - 1]['bot']}'s "
                    f"{100 * sh['level']:.1f} at {sh['shift']:.1f}x less CPU a game "
                    f"(95% CI {sh['low']:.1f}-{sh['high']:.1f}x; a line in log CPU through the "
                    f"new points, deals resampled {sh['resamples']} times)")
            lines.append("")
            lines.append(line)
            lines.append("")
            print(line, flush=True)
            points[0]["shift"] = sh
        out += points
        if a.out:
            write(a, out, lines)
    if a.before:
        shutil.rmtree(scratch, ignore_errors=True)


def retime(points, tunes, rules, deals, seed, reps):
    """CPU-seconds a game of every point, timed again in ``reps`` rounds that alternate the
    points (each round on its own ``deals`` deals, the same for every point), the median
    kept: points timed one after the other drift with the machine's load (+-30% here), so a
    ratio of two of them can be off by as much. The first measure stays as ``cpu_first``."""
    times = {id(p): [] for p in points}
    for p in points:                                     # compile (or load) first
        tunes[p["kind"]].table_match(TABLE + [p["bot"]], 1, seed=seed + 1, rules=rules,
                                     threads=1)
    for rep in range(reps):
        for p in points:
            m = tunes[p["kind"]].table_match(TABLE + [p["bot"]], deals, seed=seed + 7919 + rep,
                                             rules=rules, threads=1)
            times[id(p)].append(m["cpu_seconds"] / m["games"])
    for p in points:
        p.setdefault("cpu_first", p["cpu_per_game"])
        p["cpu_per_game"] = float(np.median(times[id(p)]))
        p["cpu_reps"] = times[id(p)]


def shift(points, rng, resamples=2000):
    """How far left the new curve lies: the old bot's CPU a game at its largest budget over the
    CPU at which the new bot reaches the same result, read off a straight line fitted to the
    new points (result against log CPU). With a 95% percentile interval from resampling the
    deals (every point played the same deals, so they are resampled together). A resample
    whose line does not rise reaches no level: it counts as no shift (0)."""
    old = max((p for p in points if p["kind"] == "old"), key=lambda p: p["rollouts"])
    new = [p for p in points if p["kind"] == "new"]
    if len(new) < 2:
        return None
    x = np.log(np.array([p["cpu_per_game"] for p in new]))
    ys = np.array([p["per_deal"] for p in new])          # points x deals
    y_old = np.array(old["per_deal"])

    def ratio(idx):
        b, a = np.polyfit(x, ys[:, idx].mean(axis=1), 1)
        if b <= 0:
            return 0.0
        return old["cpu_per_game"] / np.exp((y_old[idx].mean() - a) / b)

    n = y_old.shape[0]
    est = ratio(np.arange(n))
    boot = np.array([ratio(rng.integers(0, n, n)) for _ in range(resamples)])
    low, high = np.percentile(boot, [2.5, 97.5])
    return {"rules": old["rules"], "shift": est, "low": low, "high": high,
            "level": float(y_old.mean()), "old_cpu": old["cpu_per_game"],
            "resamples": resamples}


def write(a, out, lines):
    base = Path(a.out)
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".json").write_text(json.dumps(
        {"deals": a.deals, "seed": a.seed, "table": TABLE, "points": out}, indent=1))
    base.with_suffix(".md").write_text(
        f"Mixed table ({', '.join(TABLE)}, bot), {a.deals} deals x 4 rotations, seed "
        f"{a.seed}, one thread; CPU-s/game of the whole table"
        + (f" (median of {len(out[0]['cpu_reps'])} rounds alternating the points, "
           f"{a.retime_deals} deals each)" if "cpu_reps" in out[0] else "") + ".\n\n"
        + "\n".join(lines) + "\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for rules in dict.fromkeys(p["rules"] for p in out):
        for kind, mark in (("old", "o-"), ("new", "s--")):
            ps = sorted((p for p in out if p["rules"] == rules and p["kind"] == kind),
                        key=lambda p: p["cpu_per_game"])
            if not ps:
                continue
            x = [1000 * p["cpu_per_game"] for p in ps]
            y = [100 * p["result"] for p in ps]
            err = [[100 * (p["result"] - p["low"]) for p in ps],
                   [100 * (p["high"] - p["result"]) for p in ps]]
            ax.errorbar(x, y, yerr=err, fmt=mark, capsize=3, label=f"{kind} ({rules})")
    ax.set_xscale("log")
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    ax.set_xticks([1, 2, 5, 10, 20, 50])
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("CPU ms per game (whole table, one thread)")
    ax.set_ylabel("bot's result, % (seed: wins; classic: place share)")
    ax.set_title("montecarlo in the mixed table: strength against CPU")
    ax.legend()
    fig.tight_layout()
    fig.savefig(base.with_suffix(".png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
