"""The page of a game review (``sim review --out DIR``): first the answer, the summary (the
decisions, the mistakes, the total loss), the plot of the seat's win chance (V2: expected
place) over the game and the table of its decisions; then the options of the review."""
from __future__ import annotations


import numpy as np
import pandas as pd

from reports.html.common import Page, _legend_below, axes, fig_title, percent_axis
from reports.review import judged, loss_text, summary_line, value_text
from reports.ties import MISTAKE
from sim.runs.saved import Loaded



def title(run: Loaded) -> str:
    cfg = run.config
    return f"Shithead game review: seat {cfg.get('seat')}, {cfg.get('players')} players"


def _review(run: Loaded):
    from sim.studies.review import Decision, Review

    data = run.result
    return Review(data["seat"], data["players"], data["v2"], data["rollouts"], data["seed"],
                  data["opponents"], data["summary"]["of"], data["turns"], data["forced"],
                  [Decision(**d) for d in data["decisions"]], data["interrupted"])


def answer(page: Page, run: Loaded) -> None:
    """The whole review, before the options: the summary, the plot, every decision."""
    r = _review(run)
    blocks = page.section("review", f"Review of seat {r.seat}")
    blocks.text(summary_line(r))
    blocks.text(f"Budget: {r.budget()}.")
    if r.decisions:
        blocks.figure("review_values", _plot(r), "Each decision's value with the best move and "
                      "after the move made, from the same worlds (turn 0: the swap); a red "
                      "mark is a mistake (the loss's interval excludes 0, and the move made "
                      "is not tied with the best).")
    chains = any(x.chain for x in r.decisions)     # H19: a turn of several moves
    rows = [{"turn": "swap" if x.turn == 0 else x.turn,
             "in turn": f"{x.chain[0]}-{x.chain[1]}" if x.chain else "", "made": x.made,
             "best": "=" if x.best == x.made else x.best,
             "made value": value_text(x.value_made, r.v2),
             "best value": value_text(x.value_best, r.v2), "loss": loss_text(x.loss, r.v2),
             "95% interval": f"{loss_text(x.low, r.v2)} .. {loss_text(x.high, r.v2)}",
             "mistake": "MISTAKE" if judged(x) == MISTAKE else ""} for x in r.decisions]
    unit = "places" if r.v2 else "percentage points of win chance"
    blocks.table("review_decisions", pd.DataFrame(rows, columns=[
        "turn"] + ["in turn"] * chains + ["made", "best", "made value", "best value", "loss",
                                          "95% interval", "mistake"]),
        f"Every decision with a choice; loss in {unit}"
        + ("; a chain's moves (H19) are one turn, named by its first and last move (as "
           "sim replay numbers them)" if chains else "") + ":")


def _plot(r):
    d = r.decisions
    x = np.array([t.turn for t in d])
    best = np.array([t.value_best for t in d])
    made = np.array([t.value_made for t in d])
    bad = np.array([judged(t) == MISTAKE for t in d])     # never a tied move
    fig, ax = axes()
    ax.plot(x, best, "-o", ms=3, color="#4c78a8", label="with the best move")
    ax.plot(x, made, "o", ms=4, mfc="white", color="#1d2433", label="after the move made")
    if bad.any():
        ax.plot(x[bad], made[bad], "o", ms=7, color="#c0392b", label="mistake")
    ax.set_xlabel("turn")
    if r.v2:
        ax.set_ylabel("expected place (1 = first out)")
        ax.set_ylim(r.players + 0.1, 0.9)                 # better is up
    else:
        ax.set_ylabel(f"seat {r.seat}'s win chance")
        ax.set_ylim(-0.02, 1.02)
        percent_axis(ax)
    ax.grid(alpha=0.3)
    _legend_below(ax)                                    # at most 3 entries: one row
    fig_title(fig, f"Seat {r.seat}'s {'expected place' if r.v2 else 'win chance'} over the "
                   f"game (n = {r.rollouts:,} worlds a decision)")
    return fig
