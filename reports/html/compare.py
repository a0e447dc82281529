"""The page of a saved tournament (``sim compare --out``). First the answer: the leader
against each other strategy (the mean paired per-deal difference, its interval at level
``1 - 0.05 / (k - 1)``, Bonferroni, anytime-valid after ``--until-clear``, and the p-values,
raw and adjusted), as a forest plot and a table; then win rates (or V2 place shares) and
Plackett-Luce ratings with their intervals (all over deals), the head-to-head matrix with
meetings, the seat effect; last how it was run (the options, versions and date)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.html.common import (
    SPARSE, Page, Section, _too_wide, as_float, axes, error_bars, heatmap, int_text,
    new_figure, pct_text, points_text, rate_bars, rate_key,
)
from sim.runs.saved import Loaded

TITLE = "tournament"


def _compare(run: Loaded) -> dict:
    if run.compare is None:
        raise ValueError(f"{run.path} is a tournament folder without compare.json")
    return run.compare


def answer(page: Page, run: Loaded) -> None:
    """The leader against each other strategy, before anything else: is it clearly best?"""
    from sim.studies.stats import format_p

    cmp = _compare(run)
    lead = cmp.get("leader") or {}
    rows = lead.get("comparisons") or []
    if not rows:
        return                            # compare.json of a version before the leader
    k = len(rows) + 1
    info = cmp.get("info") or {}
    anytime = bool(info.get("until_clear")) or "anytime" in str(cmp.get("intervals", ""))
    what = ("win rate" if rate_key(cmp.get("per_strategy") or []) == "win_rate"
            else "place share")
    level = f"{100 * as_float(lead.get('level', 1 - 0.05 / (k - 1))):.4g}%"
    interval = "confidence sequence" if anytime else "confidence interval"
    name = lead["strategy"]
    deals = int_text(lead.get("deals", cmp.get("deals")))
    blocks = page.section("leader", f"The answer: {name} against each other strategy")
    open_ = [r["against"] for r in rows if not as_float(r.get("ci_low")) > 0]
    blocks.text(
        f"{name} has the highest {what}. " + (
            f"It is ahead of every other strategy: each {level} interval of the difference "
            "lies above 0, so the chance that this claim is wrong is at most 5%."
            if not open_ else
            f"It is not clearly ahead of {', '.join(open_)}: the {level} interval of the "
            "difference includes 0 (more games, or --until-clear, would tell).")
        + f" The level {level} is 1 − 0.05/(k − 1) with k = {k} strategies: Bonferroni over "
        f"the {k - 1} comparisons of the leader"
        + ("; after --until-clear every interval is an anytime-valid confidence sequence, "
           "valid however often the results were looked at and whenever play stopped."
           if anytime else "; fixed-sample intervals over deals.")
        + (f" Play stopped after {int_text(info['looks'])} looks, "
           + ("when the leader was clear." if info.get("stopped") == "clear" else
              "at --max-games, without a clear leader.") if anytime and info.get("looks")
           else "")
        + f" Each difference is the mean over {deals} deals of {name}'s {what} minus the "
        "other's in the same deal (duplicate deals: the luck of the cards cancels).")
    diff, low, high = ([100 * as_float(r.get(key)) for r in rows]
                       for key in ("difference", "ci_low", "ci_high"))
    fig, ax = axes(8, max(2.6, 1.5 + 0.45 * len(rows)))
    for yi, d, lo, hi in zip(range(len(rows)), diff, low, high):
        color = "#54a24b" if lo > 0 else "#6b7487"
        ax.errorbar([d], [yi], xerr=error_bars([d], [lo], [hi]), fmt="o", color=color,
                    ecolor=color, capsize=5, lw=1.6, ms=7)
    ax.axvline(0, color="#c0392b", ls="--", lw=1)
    ax.set_yticks(range(len(rows)), [str(r["against"]) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_ylabel(f"{name} against")
    ax.set_xlabel(f"the leader's {what} minus the other's (percentage points)")
    ax.grid(axis="x", alpha=0.3)
    blocks.figure("leader_differences", fig, (
        f"Right of the dashed zero line: {name} ahead. Green: the whole interval above 0. "
        f"Level {level} = 1 − 0.05/{k - 1} (Bonferroni)"
        + (", anytime-valid (--until-clear)." if anytime else ", fixed-sample over deals.")),
        f"{name} against each other strategy: paired difference of {what} per deal, "
        f"{level} {interval} (n = {deals} deals)")
    shown = pd.DataFrame({
        "against": [str(r["against"]) for r in rows],
        f"difference ({what} points)": [points_text(r.get("difference")) for r in rows],
        f"{level} {interval}": [f"{points_text(r.get('ci_low'))} – {points_text(r.get('ci_high'))}"
                                 for r in rows],
        "p (raw)": [format_p(r.get("p_value")) for r in rows],
        f"p adjusted (× {k - 1}, Bonferroni)": [format_p(r.get("p_adjusted")) for r in rows]})
    blocks.table("leader_differences", pd.DataFrame(rows),
                 f"{name} against each other strategy:", shown=shown, text=("against",))


def build(page: Page, run: Loaded) -> list[str]:
    cmp = _compare(run)
    blocks = page.section("tournament", "Tournament (compare.json)")
    rows = cmp.get("per_strategy") or []
    games = cmp.get("games") or (cmp.get("starter_effect") or {}).get("games")
    facts = [f"{len(cmp.get('strategies', rows))} strategies"] + [
        f"{int_text(cmp[k])} {k}" for k in ("players", "games", "deals", "unfinished")
        if cmp.get(k) is not None]
    blocks.text("Every strategy in every seat equally often: " + ", ".join(facts) + ".")
    if rows:
        _strategies(blocks, cmp, rows, games)
    h2h = cmp.get("head_to_head") or {}
    names = h2h.get("strategies") or cmp.get("strategies") or []
    if h2h.get("matrix") and names:
        _head_to_head(blocks, cmp, h2h, names, games)
    if cmp.get("seat_effect") or cmp.get("starter_effect"):
        _seats(blocks, cmp, games)
    return []


def _strategies(blocks: Section, cmp: dict, rows: list, games) -> None:
    """Win rates (V2: place shares) and the ratings, per strategy."""
    key = rate_key(rows)
    what = "win rate" if key == "win_rate" else "place share (V2: share of others beaten)"
    df = pd.DataFrame(rows)
    labels = [f"{r['strategy']}\nn={int_text(r.get('games'))}" for r in rows]
    has_rating = "rating" in df
    fig = new_figure(9, 4.4)
    ax = fig.add_subplot(1, 2 if has_rating else 1, 1)
    # Names too long for two panels side by side: one above the other, full width.
    stacked = has_rating and _too_wide(ax, labels)
    if stacked:
        ax.remove()
        fig.set_size_inches(9, max(5.0, 2.6 + 0.55 * len(rows)))
        ax = fig.add_subplot(2, 1, 1)
    rate_bars(ax, labels, df[key], df["ci_low"], df["ci_high"], "#4c78a8",
              players=cmp.get("players") if key == "win_rate" else None, n=df["games"],
              names_label="strategy (n = seat-games)", rate_label=f"{what.split(' (')[0]} (%)")
    anytime = "anytime" in str(cmp.get("intervals", ""))
    ax.set_title(f"{what.split(' (')[0].capitalize()}, 95% "
                 + ("confidence sequence" if anytime else "CI"), fontsize=10)
    if has_rating:
        ax2 = fig.add_subplot(*((2, 1, 2) if stacked else (1, 2, 2)))
        r = df["rating"].astype(float).to_numpy()
        y = np.arange(len(rows))
        ax2.errorbar(r, y, xerr=error_bars(r, df.get("rating_low", r), df.get("rating_high", r)),
                     fmt="o", color="#54a24b", ecolor="#1d2433", capsize=4)
        ax2.axvline(0, color="#888", lw=0.8)
        ax2.set_yticks(y, [str(x["strategy"]) for x in rows])
        ax2.set_ylim(len(rows) - 0.5, -0.5)             # first strategy on top
        ax2.set_xlabel("Plackett-Luce rating (Elo points, mean 0)")
        ax2.set_title("Plackett-Luce rating, 95% interval", fontsize=10)
        ax2.grid(axis="x", alpha=0.3)
    prior = (cmp.get("ratings") or {}).get("prior", "stated in compare.json")
    blocks.figure("tournament_strategies", fig, f"Per strategy: {what} "
                  + (f"and Plackett-Luce rating (Elo points, mean 0; a bound where a strategy "
                     f"always beat another; prior: {prior}) " if has_rating else "")
                  + f"with 95% intervals ({cmp.get('intervals', 'over deals')}).",
                  f"Tournament: strategies compared (n = {int_text(games)} games)")
    blocks.table("tournament_strategies", df, "Per strategy:")


def _head_to_head(blocks: Section, cmp: dict, h2h: dict, names: list, games) -> None:
    """The share of meetings each strategy finished ahead of each other: a heat map, and
    one row per pair as the terminal prints it (its interval over deals, the meetings)."""
    m = np.array([[as_float(v) for v in row] for row in h2h["matrix"]], float)
    k = len(names)
    fig, ax = axes(max(5.5, 1.0 + 0.9 * k), max(4.5, 0.8 + 0.75 * k))
    dev = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.1
    dev = max(0.05, math.ceil(dev * 20) / 20)
    meet = h2h.get("meetings")
    few = (np.array([[as_float(v) for v in row] for row in meet]) < SPARSE) & np.isfinite(m) \
        if meet else np.zeros(m.shape, bool)
    heatmap(ax, m, few, "meetings", names,
            np.array([["–" if math.isnan(v) else f"{100 * v:.1f}%" for v in row] for row in m]),
            dark=np.isfinite(m) & (np.abs(m - 0.5) > 0.6 * dev) & ~few, cmap="RdBu",
            vmin=0.5 - dev, vmax=0.5 + dev, fontsize=9 if k <= 5 else 7,
            bar_label="row finishes ahead of column (% of meetings)", rotate=True)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    anytime = "anytime" in str(cmp.get("intervals", ""))
    blocks.figure("head_to_head", fig, "Row beats column, among the games where both were "
                  "seated and one of them was ranked ahead"
                  + (f" ({int_text(sum(sum(r) for r in meet) // 2)} meetings in all; per pair "
                     "with its 95% interval over deals in the table"
                     + ("; anytime-valid after --until-clear" if anytime else "") + ")"
                     if meet else "")
                  + (f"; hatched grey: fewer than {SPARSE} meetings, too few to colour"
                     if few.any() else "") + ".",
                  f"Head to head: share of meetings the row strategy won (n = "
                  f"{int_text(games)} games)")
    low, high, open_ = h2h.get("ci_low"), h2h.get("ci_high"), h2h.get("unfinished")
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if not math.isnan(m[i, j])]
    shown = pd.DataFrame([{
        "strategy": names[i], "against": names[j],
        "meetings": (int_text(meet[i][j]) + (" (sparse)" if as_float(meet[i][j]) < SPARSE
                                             else "")) if meet else "–",
        "share ahead": pct_text(m[i, j], 1),
        "95% CI": ("–" if not (low and high) or low[i][j] is None or high[i][j] is None
                   else f"{pct_text(low[i][j], 1)} – {pct_text(high[i][j], 1)}"),
        "undecided (unfinished)": int_text(open_[i][j]) if open_ else "–"}
        for i, j in pairs], columns=["strategy", "against", "meetings", "share ahead",
                                     "95% CI", "undecided (unfinished)"])
    blocks.table("head_to_head", pd.DataFrame(m, index=names, columns=names).reset_index(
        names="strategy"), "Head to head, per pair (the strategy against the other):",
        shown=shown, text=("strategy", "against"))


def _seats(blocks: Section, cmp: dict, games) -> None:
    """Win rate by seat, pooled over the strategies (a seat effect where the design is
    balanced), and of the starting player."""
    from reports.plain import seat_twins, shared_text
    from sim.studies.design import seat_design_of

    seat = cmp.get("seat_effect") or []
    start = cmp.get("starter_effect")
    design = seat_design_of(cmp)
    balanced = design["balanced"]
    blocks.heading("Seat effect in the tournament" if balanced
                   else "Win rate by seat in the tournament (not a seat effect)")
    rows = list(seat) + ([dict(start, seat="starter")] if start else [])
    labels = [f"seat {r['seat']}" if r["seat"] != "starter" else "starter (R6)"
              for r in rows]
    p = cmp.get("players") or len(seat)
    k = len(cmp.get("strategies") or [])
    if not balanced:               # the seats holding the same strategy, under each
        labels = [lab if r["seat"] == "starter" or not seat_twins(r, p, k) else
                  lab + "\n= " + ", ".join(f"seat {t}" for t in seat_twins(r, p, k))
                  for lab, r in zip(labels, rows)]
    fig, ax = axes()
    rate_bars(ax, labels, [r.get("win_rate") for r in rows], [r.get("ci_low") for r in rows],
              [r.get("ci_high") for r in rows],
              ["#72b7b2"] * len(seat) + ["#f58518"] * (len(rows) - len(seat)),
              players=p, n=[r.get("games") for r in rows],
              names_label=("seat (strategies rotated through every seat)" if balanced
                           else "seat (= the seats holding its strategy in every game)"),
              rate_label="win rate (% of games)")
    blocks.figure("tournament_seats", fig, (
        "Over the rotations every strategy holds every seat equally often, beside every "
        "company of the others equally often: the differences are the seats'."
        if balanced else design["note"][0].upper() + design["note"][1:] + "."),
        "Tournament: win rate by seat " + ("" if balanced else "(not a seat effect) ")
        + f"and of the starting player, 95% interval over deals (n = {int_text(games)} games)")
    if seat:
        table = pd.DataFrame(seat)
        if "shares_with" in table or not balanced:
            table["shares_with"] = [shared_text(r, p, k) for r in seat]
            table = table.rename(columns={"shares_with": "same strategy as"})
        blocks.table("tournament_seats", table, "Seat effect:" if balanced else
                     "Win rate by seat (not a seat effect: see above):")
    if start:
        blocks.text(f"The starting player won {pct_text(start.get('win_rate'))} of the "
                    f"tournament's games (95% CI {pct_text(start.get('ci_low'))} – "
                    f"{pct_text(start.get('ci_high'))}, n = {int_text(start.get('games'))})"
                    + (f"; a fair share is {pct_text(1 / p)}." if p else "."))
        blocks.page.csv("tournament_starter", pd.DataFrame([start]))
