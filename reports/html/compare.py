"""The page of a saved tournament (``sim compare --out``): win rates (or V2 place shares)
and Plackett-Luce ratings with their intervals (all over deals), the head-to-head matrix
with meetings, the seat effect."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.html.common import (
    Page, as_float, error_bars, fig_title, html_table, int_text, new_figure, pct_text,
    percent_axis, rate_bars, rate_key, write_csv,
)
from sim.runs.saved import Loaded

TITLE = "tournament"


def build(page: Page, run: Loaded) -> list[str]:
    if run.compare is None:
        raise ValueError(f"{run.path} is a tournament folder without compare.json")
    _compare_section(page, run)
    return []


def _compare_section(page: Page, run: Loaded) -> None:
    cmp = run.compare
    blocks = page.section("tournament", "Tournament (compare.json)")
    rows = cmp.get("per_strategy") or []
    key = rate_key(rows)
    what = "win rate" if key == "win_rate" else "place share (V2: share of others beaten)"
    games = cmp.get("games") or (cmp.get("starter_effect") or {}).get("games")
    facts = [f"{len(cmp.get('strategies', rows))} strategies"]
    for k, label in (("players", "players"), ("games", "games"), ("deals", "deals"),
                     ("unfinished", "unfinished")):
        if cmp.get(k) is not None:
            facts.append(f"{int_text(cmp[k])} {label}")
    blocks.append({"kind": "text", "text": "Every strategy in every seat equally often: "
                   + ", ".join(facts) + "."})
    if rows:
        df = pd.DataFrame(rows)
        labels = [f"{r['strategy']}\nn={int_text(r.get('games'))}" for r in rows]
        has_rating = "rating" in df
        fig = new_figure(9, 4.4)
        ax = fig.add_subplot(1, 2 if has_rating else 1, 1)
        p = cmp.get("players")
        rate_bars(ax, labels, df[key], df["ci_low"], df["ci_high"], "#4c78a8",
                  fair=1 / p if p and key == "win_rate" else None,
                  fair_label=f"fair share 1/{p}" if p else None)
        ax.set_xlabel("strategy (n = seat-games)")
        ax.set_ylabel(f"{what.split(' (')[0]} (%)")
        ax.set_title(f"{what.split(' (')[0].capitalize()}, 95% CI", fontsize=10)
        if has_rating:
            ax2 = fig.add_subplot(1, 2, 2)
            r = df["rating"].astype(float).to_numpy()
            y = np.arange(len(rows))
            xerr = error_bars(r, df.get("rating_low", r), df.get("rating_high", r))
            ax2.errorbar(r, y, xerr=xerr, fmt="o", color="#54a24b", ecolor="#1d2433", capsize=4)
            ax2.axvline(0, color="#888", lw=0.8)
            ax2.set_yticks(y, [str(x["strategy"]) for x in rows])
            ax2.set_ylim(len(rows) - 0.5, -0.5)             # first strategy on top
            ax2.set_xlabel("Plackett-Luce rating (Elo points, mean 0)")
            ax2.set_title("Rating, 95% interval (prior: " + str((cmp.get("ratings") or {})
                          .get("prior", "stated in compare.json")) + ")", fontsize=8)
            ax2.grid(axis="x", alpha=0.3)
        fig_title(fig, f"Tournament: strategies compared (n = {int_text(games)} games)")
        blocks.append(page.figure("tournament_strategies", fig, f"Per strategy: {what} "
                                  + ("and Plackett-Luce rating (Elo points, mean 0; a bound "
                                     "where a strategy always beat another) " if has_rating
                                     else "") + "with 95% intervals "
                                  + f"({cmp.get('intervals', 'over deals')})."))
        blocks.append(page.table("tournament_strategies", df, "Per strategy:"))
    h2h = cmp.get("head_to_head") or {}
    names = h2h.get("strategies") or cmp.get("strategies") or []
    matrix = h2h.get("matrix")
    if matrix and names:
        m = np.array([[as_float(v) for v in row] for row in matrix], float)
        k = len(names)
        fig = new_figure(max(5.5, 1.0 + 0.9 * k), max(4.5, 0.8 + 0.75 * k))
        ax = fig.add_subplot()
        dev = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.1
        dev = max(0.05, math.ceil(dev * 20) / 20)
        im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.5 - dev, vmax=0.5 + dev)
        for i in range(k):
            for j in range(k):
                v = m[i, j]
                text = "–" if math.isnan(v) else f"{100 * v:.1f}%"
                dark = not math.isnan(v) and abs(v - 0.5) > 0.6 * dev
                ax.text(j, i, text, ha="center", va="center", fontsize=9,
                        color="white" if dark else "#1d2433")
        ax.set_xticks(range(k), names, rotation=30, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("opponent (column)")
        ax.set_ylabel("strategy (row)")
        cb = fig.colorbar(im, ax=ax, shrink=0.85)
        cb.set_label("row finishes ahead of column (% of meetings)")
        percent_axis(cb.ax)
        fig_title(fig, f"Head to head: share of meetings the row strategy won (n = "
                     f"{int_text(games)} games)")
        meet = h2h.get("meetings")
        blocks.append(page.figure("head_to_head", fig, "Row beats column, among the games "
                                  "where both were seated and one of them was ranked ahead"
                                  + (f" ({int_text(sum(sum(r) for r in meet) // 2)} meetings in "
                                     "all; per pair with its 95% interval over deals in the "
                                     "table)" if meet else "") + "."))
        df = pd.DataFrame(m, index=names, columns=names).reset_index(names="strategy")
        path = write_csv(page, "head_to_head", df)
        blocks.append({"kind": "table", "html": _fmt_h2h(names, m, h2h),
                       "caption": "Head to head (row beats column):",
                       "href": page.href(path)})
    seat = cmp.get("seat_effect") or []
    start = cmp.get("starter_effect")
    if seat or start:
        blocks.append({"kind": "heading", "text": "Seat effect in the tournament"})
        rows = list(seat) + ([dict(start, seat="starter")] if start else [])
        labels = [f"seat {r['seat']}" if r["seat"] != "starter" else "starting\nplayer (R6)"
                  for r in rows]
        p = cmp.get("players") or len(seat)
        fig = new_figure(8, 4.2)
        ax = fig.add_subplot()
        rate_bars(ax, labels, [r.get("win_rate") for r in rows], [r.get("ci_low") for r in rows],
                  [r.get("ci_high") for r in rows],
                  ["#72b7b2"] * len(seat) + ["#f58518"] * (len(rows) - len(seat)),
                  fair=1 / p if p else None, fair_label=f"fair share 1/{p}")
        ax.set_xlabel("seat (strategies rotated through every seat)")
        ax.set_ylabel("win rate (% of games)")
        fig_title(fig, f"Tournament: win rate by seat and of the starting player, 95% interval "
                    f"over deals (n = {int_text(games)} games)")
        blocks.append(page.figure("tournament_seats", fig, "Over the rotations every "
                                  "strategy holds every seat equally often."))
        if seat:
            blocks.append(page.table("tournament_seats", pd.DataFrame(seat),
                                     "Win rate by seat:"))
        if start:
            blocks.append({"kind": "text", "text": (
                f"The starting player won {pct_text(start.get('win_rate'))} of the tournament's "
                f"games (95% CI {pct_text(start.get('ci_low'))} – "
                f"{pct_text(start.get('ci_high'))}, "
                f"n = {int_text(start.get('games'))})" + (f"; a fair share is {pct_text(1 / p)}."
                                                           if p else "."))})
            write_csv(page, "tournament_starter", pd.DataFrame([start]))


def _fmt_h2h(names, m, h2h=None) -> str:
    """Each cell: the share, its 95% interval over deals and the number of meetings."""
    h2h = h2h or {}
    low, high, meet = h2h.get("ci_low"), h2h.get("ci_high"), h2h.get("meetings")

    def cell(i, j, v):
        if math.isnan(v):
            return "–"
        text = pct_text(v, 1)
        if low and high and low[i][j] is not None and high[i][j] is not None:
            text += f" ({pct_text(low[i][j], 1)} – {pct_text(high[i][j], 1)})"
        if meet:
            text += f", n = {int_text(meet[i][j])}"
        return text
    df = pd.DataFrame([[cell(i, j, v) for j, v in enumerate(row)] for i, row in enumerate(m)],
                      index=names, columns=names)
    return html_table(df, index_name="row beats column")
