"""The page of a saved tuning (``sim tune --out``): first the answer, the check of the best
parameters against the defaults on fresh deals; then the history of the trials (each
trial's result with its interval over deals, and the best so far) and the best trials; last
how it was run (the options, versions and date)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from reports.html.common import (
    SPARSE, SPARSE_COLOR, Page, Section, _legend_below, axes, int_text, pct_text, percent_axis,
)
from sim.runs.saved import Loaded

TITLE = "tuning"


def answer(page: Page, run: Loaded) -> None:
    """First on the page: the best parameters against the defaults on fresh deals (the
    verdict, then its table), how the trials were played, then the history of the trials
    and the best trials."""
    tn = run.tune
    trials = tn["trials"]
    blocks = page.section("tune", f"Tuning {tn['strategy']} against "
                                  f"{', '.join(tn['against'])}")
    opts = tn.get("options", {})
    what = "place share" if tn.get("v2") else "win rate"
    if "fresh" in tn:
        _fresh(blocks, tn, what)
    elif tn.get("best"):                 # an interrupted tuning (tune.json's 'partial')
        b = tn["best"]
        blocks.text(f"PARTIAL ({tn.get('partial', 'interrupted')}). Best so far: trial "
                    f"{b['number']}, {b['spec']}: {pct_text(b['value'])} "
                    f"({pct_text(b['ci_low'])} - {pct_text(b['ci_high'])}) on the trials' "
                    f"deals.")
    blocks.text(f"{len(trials)} trials (optuna, TPE), each of "
                f"{int_text(opts.get('games_per_trial'))} games on the same duplicate deals "
                f"(common random numbers), {tn['players']} players; the tuned strategy holds "
                f"one seat of each table, rotated over the seats.")
    if trials:
        _history(blocks, tn, trials, opts, what)


def _fresh(blocks: Section, tn: dict, what: str) -> None:
    """The best parameters against the defaults on fresh deals: the answer."""
    f = tn["fresh"]
    d = f["difference"]
    rows = [{"": k, "spec": f[k]["spec"], what: pct_text(f[k]["estimate"]),
             "95% CI": f"{pct_text(f[k]['ci_low'])} - {pct_text(f[k]['ci_high'])}"}
            for k in ("best", "default")]
    rows.append({"": "best - defaults", "spec": "paired over deals",
                 what: f"{100 * d['estimate']:+.2f} pts",
                 "95% CI": f"{100 * d['ci_low']:+.2f} .. {100 * d['ci_high']:+.2f}"})
    blocks.text(f"On {int_text(f['games'])} games of fresh deals that no trial saw, for each: "
                + ("the best parameters are better than the defaults." if f.get("better") else
                   "no clear improvement over the defaults (the interval includes 0)."))
    blocks.table("tune_fresh", pd.DataFrame(rows), "Best against defaults on fresh deals:")


def _history(blocks: Section, tn: dict, trials: list, opts: dict, what: str) -> None:
    """Each trial's result and the best so far; the best trials."""
    x, y, lo, hi = (np.array([t[k] for t in trials])
                    for k in ("number", "value", "ci_low", "ci_high"))
    fig, ax = axes()
    few = (opts.get("games_per_trial") or 0) < SPARSE     # every trial plays the same games
    ax.errorbar(x, y, yerr=np.vstack([y - lo, hi - y]).clip(min=0), fmt="o", ms=3,
                color=SPARSE_COLOR if few else "#4c78a8", ecolor="#9fb3c8", lw=0.8,
                mfc="white" if few else None,
                label="trial (95% CI over deals)" + (f"; sparse: fewer than {SPARSE} games"
                                                     if few else ""))
    ax.step(x, np.maximum.accumulate(y), where="post", color="#c0392b", label="best so far")
    ax.axhline(trials[0]["value"], color="#1d2433", ls="--", lw=1,
               label="trial 0 (the defaults)")
    ax.set_xlabel("trial")
    ax.set_ylabel(f"{what} of the tuned seat")
    percent_axis(ax)
    ax.grid(alpha=0.3)
    _legend_below(ax)
    blocks.figure("tune_history", fig, "Each trial's result on the trials' deals; the best of "
                  "many noisy trials is lucky too, hence the check on fresh deals above.",
                  f"Tuning history of {tn['strategy']} (n = "
                  f"{int_text(opts.get('games_per_trial'))} games per trial)")
    top = sorted(trials, key=lambda t: -t["value"])[:10]
    df = pd.DataFrame([{"trial": t["number"], what: pct_text(t["value"]),
                        "95% CI": f"{pct_text(t['ci_low'])} - {pct_text(t['ci_high'])}",
                        "spec": t["spec"]} for t in top])
    blocks.table("tune_best", df, "The best trials (on the trials' deals):")
