"""The page of a saved rules lab (``sim study rules --out``): first the answer in words
(the changes that most move each measure, with their intervals), then a chart of every
ruleset's paired difference from the base on each measure with its 95% interval, and a
table a player can read, each measure with its meaning and scale (docs/rules-lab.md). The
changes that play every game as the base does are listed once, not charted."""
from __future__ import annotations


import numpy as np
import pandas as pd

from reports.html.common import Page, fig_title, new_figure
from reports.lab_text import no_effect, no_effect_line
from sim.runs.saved import Loaded

TITLE = "rules lab"
PANELS = (("turns", "game length (turns)", 1.0), ("endless", "endless games (pts)", 100.0),
          ("first_mover", "first mover's edge (pts)", 100.0),
          ("skill_counting", "skill, counting (index)", 1.0),
          ("skill_montecarlo", "skill, montecarlo (index)", 1.0),
          ("luck", "luck (index)", 1.0))


def answer(page: Page, run: Loaded) -> None:
    """The answer first: per measure, the changes that move it most, or that none does."""
    from sim.studies.ruleslab.measures import MEASURES, SCALES
    from sim.studies.ruleslab.study import headline

    res = run.result
    blocks = page.section("answer", f"What each rule does ({res['players']} players, base "
                                    f"{res['base']})")
    if res.get("partial"):
        blocks.text(f"PARTIAL: {res['partial']}.")
    same = no_effect_line(res)
    for line in headline(res) + ([same] if same else []):
        blocks.text(line)
    meaning = pd.DataFrame([{"measure": name, "what it is": what,
                             "scale (what 1, 0 and negative mean)": SCALES[key]}
                            for key, (name, what, _) in MEASURES.items()
                            if any(key in r for r in res["rulesets"])])
    blocks.table("ruleslab_measures", meaning, "What each measure means, and its scale:",
                 shown=meaning, text=tuple(meaning.columns))
    blocks.text(f"{res['measured']} rulesets on the same deals (seed {res['seed']}): the base, "
                f"every single option change §11.3 allows with it, and the other presets. An "
                f"effect is claimed only where the 95% interval of the paired difference from "
                f"the base excludes 0; with this many comparisons about 1 in 20 changes without "
                f"effect may still show one on some measure.")


def build(page: Page, run: Loaded) -> list[str]:
    res = run.result
    same = set(no_effect(res))
    shown = [r for r in res["rulesets"] if r["ident"] not in same]
    rows = [r for r in shown if r["ident"] != "base"]
    blocks = page.section("effects", "Every change against the base")
    panels = [p for p in PANELS if any(p[0] in r for r in rows)]
    if same:
        blocks.text(f"Left out of the charts and tables: the {len(same)} changes with no "
                    f"effect under this base (identical games), listed above.")
    for part, chosen in (("length", panels[:3]), ("skill", panels[3:])):
        if chosen:
            blocks.figure(f"ruleslab_{part}", _chart(rows, chosen, res), "Each change's "
                          "paired difference from the base with its 95% interval; dark: the "
                          "interval excludes 0.")
    length, skill = _tables(shown)
    blocks.table("ruleslab_length", length, "Length and the first mover (first row: the "
                 "base's values; the others: their differences from it with the 95% interval, "
                 "* where it excludes 0; turns in turns, endless games and the first mover's "
                 "edge in points, 0 = no edge, + = starting helps):")
    blocks.table("ruleslab_skill", skill, "Skill and luck, the same layout (indices: skill 1 = "
                 "the strong seat always wins, 0 = as by chance, negative = worse than chance; "
                 "luck 1 = the deal alone decides the winning seat, 0 = as by chance, negative "
                 "= the winner follows the strong strategy from seat to seat):")
    strategy = (res.get("plan") or {}).get("strategy", "one strategy")
    seats = pd.DataFrame([{"ruleset": r["ident"], **{
        f"seat {x['position']}": f"{100 * x['estimate']:.1f}%" for x in r.get("seats", [])}}
        for r in shown])
    blocks.table("ruleslab_seats", seats, "The seats, from the dealer's left (1) to the "
                 "dealer: each one's share of the good outcome (a win; under V2 not being the "
                 f"Shithead), reference table ({strategy} at every seat, so a seat effect; the "
                 "fair share is 1/N, under V2 (N − 1)/N):")
    if res["refused"]:
        blocks.text("Not allowed with this base (§11.3): " + "; ".join(
            f"{x['ident']} ({x['reason']})" for x in res["refused"]) + ".")
    if res.get("skipped"):
        blocks.text("Not measured, sure to play games measured already: " + "; ".join(
            f"{x['ident']} ({x['reason']})" for x in res["skipped"]) + ".")
    blocks.text("More on each measure: docs/rules-lab.md.")
    return []


def _chart(rows, panels, res):
    n = len(rows)
    fig = new_figure(9.0, 1.6 + 0.16 * n)
    axes = fig.subplots(1, len(panels), sharey=True)
    axes = np.atleast_1d(axes)
    y = np.arange(n)[::-1]
    for ax, (key, label, scale) in zip(axes, panels):
        est, lo, hi, dark = [], [], [], []
        for r in rows:
            d = (r.get(key) or {}).get("diff") or {}
            e = d.get("estimate")
            est.append(np.nan if e is None else scale * e)
            lo.append(np.nan if e is None else scale * d["ci_low"])
            hi.append(np.nan if e is None else scale * d["ci_high"])
            dark.append(bool(d.get("effect")))
        est, lo, hi, dark = (np.asarray(a) for a in (est, lo, hi, dark))
        for mask, color in ((~dark, "#b8bfcc"), (dark, "#1f4e8c")):
            ax.errorbar(est[mask], y[mask], xerr=np.vstack([est - lo, hi - est])[:, mask]
                        .clip(min=0), fmt="o", ms=3, color=color, lw=1)
        ax.axvline(0, color="#1d2433", lw=0.8)
        ax.set_title(label, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8)
    axes[0].set_yticks(y, [r["ident"] for r in rows], fontsize=7)
    axes[0].set_ylim(-0.8, n - 0.2)
    fig_title(fig, f"Change from {res['base']} ({res['players']} players)")
    return fig


def _cell(m, scale, digits, diff):
    if m is None:
        return "–"
    d = m.get("diff") if diff else m
    if d is None or d.get("estimate") is None:
        return "–"
    text = f"{scale * d['estimate']:{'+' if diff else ''}.{digits}f}"
    if diff and d.get("effect"):
        text += "*"
    return text + f" ({scale * d['ci_low']:.{digits}f} to {scale * d['ci_high']:.{digits}f})"


def _tables(rulesets) -> tuple[pd.DataFrame, pd.DataFrame]:
    length, skill = [], []
    for r in rulesets:
        diff = r["ident"] != "base"
        length.append({"ruleset": r["ident"], "turns": _cell(r.get("turns"), 1, 1, diff),
                       "endless, pts": _cell(r.get("endless"), 100, 2, diff),
                       "first mover, pts": _cell(r.get("first_mover"), 100, 1, diff)})
        row = {"ruleset": r["ident"],
               "skill (counting)": _cell(r.get("skill_counting"), 1, 3, diff)}
        if "skill_montecarlo" in r:
            mc = r["skill_montecarlo"]
            row["skill (montecarlo)"] = _cell(mc, 1, 2, diff)
            row["deals"] = mc["deals"]
        row["luck"] = _cell(r.get("luck"), 1, 3, diff)
        skill.append(row)
    return pd.DataFrame(length), pd.DataFrame(skill)
