"""The page of a saved swap study (``sim study swap --out``): first the answer (in plain
words), then the split policy against the other policies (margins, intervals, the verdict);
then the model behind it (each card's face-up gain, examples of its choices) and the
descriptive table of face-up triples, the policy for unfinished games under each table; last
how it was run (the options, versions and date)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.html.common import (
    SPARSE, SPARSE_COLOR, Page, Section, _legend_below, as_float, axes, card_key, error_bars,
    heatmap, int_text, pct_text, percent_axis, points_text, rate_key,
)
from sim.runs.saved import Loaded

TITLE = "swap study"
MIN_TRIPLE_GAMES = 100     # a triple ranks among the best/worst only if seen this often
UNFINISHED = ("Unfinished games (R25) count as games not won by any seat, in every "
              "denominator.")


def answer(page: Page, run: Loaded) -> None:
    """First on the page: the split policy against each other policy, and the verdict."""
    if run.study is None:
        raise ValueError(f"{run.path} is a swap-study folder without study.json")
    _policies_section(page, run.study, run.config)


def _answer_text(st: dict, config: dict) -> str:
    """The study's answer in plain words, with the ruleset and table it ran under (an older
    study.json names them only in the folder's options; the oldest ran under seed rules)."""
    from reports.plain import rules_words
    from sim.studies.swapstudy.study import plain_answer
    text = st.get("answer") or plain_answer(st)
    rules = st.get("rules") or config.get("rules") or "seed"
    players = st.get("players") or config.get("players")
    return f"Answer ({players} players, {rules_words(rules)}): {text}" if text else ""


def build(page: Page, run: Loaded) -> list[str]:
    _model_section(page, run.study)
    _triples_section(page, run.study)
    return []


def _unfinished_note(blocks: Section, st: dict, extra: str = "") -> None:
    unf = st.get("unfinished")
    text = st.get("unfinished_policy") or UNFINISHED
    if unf is not None and st.get("games"):
        text += f" Values stage: {int_text(unf)} of {int_text(st['games'])} games unfinished."
    blocks.text(text + extra)


def _policies_section(page: Page, st: dict, config: dict) -> None:
    """The answer in plain words, then the split policy (or, in an older study, the value
    table) against each policy."""
    from sim.studies.stats import format_p

    blocks = page.section("study", "Swap study: the best split")
    if _answer_text(st, config):
        blocks.text(_answer_text(st, config))
    h2h = [r for r in st.get("head_to_head") or [] if isinstance(r, dict) and "policy" in r]
    mine = "split policy" if st.get("split_policy") else "value table"
    blocks.text(f"A swap divides six cards into three face up and three in hand. The {mine} "
                + ("chooses, of the 20 splits, the one of highest value under a model fitted "
                   "to games with random swaps (below); it" if st.get("split_policy") else "")
                + " played every other policy on duplicate deals, seats alternated, "
                f"{int_text(st.get('h2h_games_per_policy'))} games each.")
    if not h2h:
        blocks.text("The study holds no head-to-head.")
        return
    n = st.get("h2h_games_per_policy") or h2h[0].get("games")
    diff = np.array([as_float(r.get("diff")) for r in h2h])
    fig, ax = axes(8, max(3.0, 1.2 + 0.45 * len(h2h)))
    y = np.arange(len(h2h))
    err = error_bars(diff, [r.get("ci_low") for r in h2h], [r.get("ci_high") for r in h2h])
    ax.errorbar(100 * diff, y, xerr=100 * err, fmt="o", color="#4c78a8", ecolor="#1d2433",
                capsize=4)
    ax.axvline(0, color="#c0392b", ls="--", lw=1)
    ax.set_yticks(y, [str(r["policy"]) for r in h2h])
    ax.invert_yaxis()
    ax.set_xlabel(f"{mine}'s margin (points of win rate per seat), 95% CI")
    ax.set_ylabel("policy played against")
    ax.grid(axis="x", alpha=0.3)
    blocks.figure("study_policies", fig, f"Right of the dashed line: the {mine} wins more "
                  "often than that policy.", f"{mine.capitalize()} vs each swap policy, "
                  f"duplicate deals (n = {int_text(n)} games per policy)")
    if st.get("verdict"):
        blocks.text(str(st["verdict"]))
    shown = pd.DataFrame({
        "policy": [str(r["policy"]) for r in h2h],
        "games": [int_text(r.get("games")) for r in h2h],
        "unfinished": [int_text(r.get("unfinished")) for r in h2h],
        f"{mine}'s share of wins": [pct_text(r.get("share", r.get("table_share"))) for r in h2h],
        "margin (points per seat)": [points_text(r.get("diff")) for r in h2h],
        "95% CI": [f"{points_text(r.get('ci_low'))} – {points_text(r.get('ci_high'))}"
                   for r in h2h],
        "p": [format_p(r.get("p_value")) for r in h2h],
        "p (BH-adjusted)": [format_p(r.get("p_adjusted")) for r in h2h]})
    blocks.table("study_policies", pd.DataFrame(h2h), f"The {mine} against each policy:",
                 shown=shown, text=("policy",))
    _unfinished_note(blocks, st, " In the head-to-head an unfinished game is a result of 0 "
                     "for both sides (the unfinished column).")


def _model_section(page: Page, st: dict) -> None:
    """The split model: each card's face-up gain (its rank terms) and example choices."""
    cards = st.get("cards") or []
    if not cards:
        return
    blocks = page.section("study-model", "The split model")
    model = st.get("model") or {}
    blocks.text(f"Model: {model.get('kind', 'a regression of the win on rank x place terms')}; "
                f"{int_text(model.get('seat_games'))} seat-games in "
                f"{int_text(model.get('cells'))} cells"
                + (f"; the triple terms' prior sd {model['prior_sd_triple']} (chosen on "
                   f"held-out games)" if model.get("prior_sd_triple") else "")
                + (f". {model['note']}" if model.get("note") else "") + ".")
    df = pd.DataFrame(cards).sort_values("gain", ascending=False, kind="stable")
    fig, ax = axes()
    x = np.arange(len(df))
    g = df["gain"].to_numpy(float)
    ax.bar(x, g, color=["#54a24b" if v > 0 else "#e45756" for v in g], width=0.6, zorder=2)
    ax.errorbar(x, g, yerr=1.959963984540054 * np.nan_to_num(df["se"].to_numpy(float)),
                fmt="none", ecolor="#1d2433", capsize=4, zorder=3)
    ax.axhline(0, color="#1d2433", lw=0.8)
    ax.set_xticks(x, df["card"].astype(str))
    ax.set_xlabel("card")
    ax.set_ylabel("face-up gain (log-odds of a win)")
    ax.grid(axis="y", alpha=0.3, zorder=0)
    blocks.figure("study_card_gains", fig, "The model's rank terms; the terms of each face-up "
                  "and hand triple come on top of them. " + (model.get("se") or "") + ".",
                  "Rank terms of the split model: a card face up rather than in hand, "
                  "relative to the average card, +- 1.96 SE")
    shown = pd.DataFrame({"card": df["card"].astype(str),
                          "face-up gain (log-odds)": [f"{as_float(v):+.3f}" for v in df["gain"]],
                          "± SE": [f"{as_float(v):.3f}" for v in df["se"]],
                          "≈ points of win rate": [f"{100 * as_float(v):+.2f}"
                                                   for v in df["points"]]})
    blocks.table("study_card_gains", df, "Face-up gain per card (rank terms; points: the "
                 "log-odds times p(1 - p) at the mean win rate; "
                 + (model.get("se") or "SE: indicative") + "):", shown=shown, text=("card",))
    ex = st.get("examples") or []
    if ex:
        blocks.heading("Examples: where the split policy differs from highest-up")
        for e in ex:
            blocks.text(f"{' '.join(e['cards'])}: {e['why']}")
    files = [(k, st.get(k)) for k in ("split_file", "policy_file", "table_file") if st.get(k)]
    if files:
        blocks.text("Files: " + "; ".join(f"{k.replace('_', ' ')} {v}" for k, v in files)
                    + (f". Play the policy with --swap '{st['split_policy']}'."
                       if st.get("split_policy") else "."))


def _triples_section(page: Page, st: dict) -> None:
    """The descriptive triple table: win rate of the seats that held each face-up triple."""
    blocks = page.section("study-triples", "Descriptive: face-up triples (not a policy)")
    rows = st.get("triples") or []
    if not rows:
        blocks.text("The study holds no triples.")
        return
    key = rate_key(rows)
    what = key.replace("_", " ")
    df = pd.DataFrame(rows)
    cards = [sorted(map(str, t), key=card_key) for t in df["triple"]]
    df["triple"] = [" ".join(c) for c in cards]
    rank_by = "shrunk" if "shrunk" in df else key       # rare triples: their shrunk rate
    df = df.sort_values(rank_by, ascending=False, kind="stable").reset_index(drop=True)
    cards = [t.split(" ") for t in df["triple"]]
    n_all = df["games"].to_numpy(float)
    total = int(n_all.sum())
    mean = float((df[key].to_numpy(float) * n_all).sum() / total) if total else float("nan")
    intro = f"{len(df):,} face-up triples seen in {total:,} seat-games"
    if st.get("games"):
        intro += f", from {int_text(st['games'])} games with random swaps"
    if st.get("strategy"):
        intro += f", move strategy {st['strategy']}"
    blocks.text(st.get("triples_note") or (
        "Descriptive: the win rate of the seats that held each face-up triple. It includes "
        "the value of owning those cards, so it is not the value of putting them face up."))
    blocks.text(f"{intro}; mean {what} of a seat {pct_text(mean)}."
                + (" Best and worst are ranked by the shrunk rate (rare triples pulled towards "
                   "the mean)." if rank_by == "shrunk" else ""))

    # grid: rows = highest card, columns = lowest card, pooled over the middle card
    ranks = sorted({c for t in cards for c in t}, key=card_key)
    idx = {r: i for i, r in enumerate(ranks)}
    k = len(ranks)
    g, v = np.zeros((k, k)), np.zeros((k, k))
    for t, r, n in zip(cards, df[key], n_all):
        if not pd.isna(r):
            g[idx[t[-1]], idx[t[0]]] += n
            v[idx[t[-1]], idx[t[0]]] += n * float(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        grid = np.where(g > 0, v / g, np.nan)
    # The colour scale follows the cells seen often enough; rarer ones are hatched grey.
    rare = np.isfinite(grid) & (g < SPARSE)
    scale = grid[np.isfinite(grid) & ~rare]
    fig, ax = axes(max(6.0, 1.5 + 0.6 * k), max(5.0, 1.0 + 0.5 * k))
    mid = (scale.min() + scale.max()) / 2 if scale.size else 0
    heatmap(ax, grid, rare, "seat-games", ranks,
            np.array([[f"{100 * v:.1f}" if np.isfinite(v) else "" for v in row] for row in grid]),
            dark=~rare & (grid < mid), cmap="viridis",
            vmin=scale.min() if scale.size else None, vmax=scale.max() if scale.size else None,
            fontsize=7 if k > 9 else 9, bar_label=f"{what} (%), pooled over the middle card")
    ax.set_xlabel("lowest card of the face-up triple")
    ax.set_ylabel("highest card of the face-up triple")
    blocks.figure("study_heatmap", fig, "Each cell pools the triples with that lowest and "
                  "highest card (whatever the middle card), weighted by seat-games; cell "
                  "values in %" + (f"; hatched grey: fewer than {SPARSE} seat-games, a value "
                                   "too uncertain to colour (outside the colour scale)"
                                   if rare.any() else "") + ".",
                  f"Value of the face-up triple: {what} (%) by lowest and highest card "
                  f"(n = {total:,} seat-games)")

    # the best and worst 10, among the triples seen often enough to rank
    min_n = MIN_TRIPLE_GAMES if (n_all >= MIN_TRIPLE_GAMES).sum() >= 20 else 0
    ranked = df[n_all >= min_n]
    top = ranked.head(10)
    bottom = ranked.tail(min(10, max(0, len(ranked) - 10)))       # best first, like df
    if min_n:
        blocks.text(f"Best and worst are ranked among the {len(ranked):,} triples seen in at "
                    f"least {min_n} seat-games (the rarer ones have intervals too wide to "
                    f"rank); every triple is in the CSV file.")
    both = pd.concat([top, bottom])
    fig, ax = axes(8, max(3.5, 0.8 + 0.28 * len(both)))
    y = np.arange(len(both))
    rates = both[key].to_numpy(float)
    err = error_bars(rates, both.get("ci_low", rates), both.get("ci_high", rates))
    colors = ["#54a24b"] * len(top) + ["#e45756"] * len(bottom)
    few = both["games"].to_numpy(float) < SPARSE
    for yi, r, e0, e1, col, sp in zip(y, rates, err[0], err[1], colors, few):
        ax.errorbar([r], [yi], xerr=[[e0], [e1]], fmt="o", capsize=3,
                    color=SPARSE_COLOR if sp else col, ecolor=SPARSE_COLOR if sp else col,
                    mfc="white" if sp else col, mec="#6b7487" if sp else col)
    if few.any():
        ax.plot([], [], "o", mfc="white", mec="#6b7487",
                label=f"fewer than {SPARSE} seat-games (sparse)")
    if rank_by == "shrunk":
        ax.plot(both["shrunk"].to_numpy(float), y, "x", color="#1d2433", ms=6, label="shrunk rate")
    if not math.isnan(mean):
        ax.axvline(mean, color="#1d2433", ls="--", lw=1, label=f"mean {pct_text(mean, 1)}")
    _legend_below(ax)
    ax.set_yticks(y, [f"{t}  (n={int(n):,})" for t, n in zip(both["triple"], both["games"])])
    ax.invert_yaxis()
    percent_axis(ax, "x")
    ax.set_xlabel(f"{what} (%), 95% CI")
    ax.set_ylabel("face-up triple (seat-games)")
    ax.grid(axis="x", alpha=0.3)
    blocks.figure("study_best_worst", fig, "The best and worst triples with their 95% "
                  "intervals (descriptive: owning the cards included)"
                  + ("; x: the shrunk rate they are ranked by." if rank_by == "shrunk" else "."),
                  f"Best (green) and worst (red) face-up triples (n = "
                  f"{int(both['games'].sum()):,} seat-games shown of {total:,})")
    page.csv("study_triples", df)
    blocks.heading("Top 10 triples")
    blocks.table("study_top10", top.reset_index(drop=True), "Top 10:")
    if len(bottom):
        blocks.heading("Bottom 10 triples")
        blocks.table("study_bottom10", bottom.iloc[::-1].reset_index(drop=True),
                     "Bottom 10 (worst first):")
    _unfinished_note(blocks, st)
