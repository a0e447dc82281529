"""The page of a saved run (``sim run --out``): first the answer (:func:`answer`: each
strategy's win rate in this seating, or with one strategy at every seat the first player's
edge), then win rates by strategy and by seat, the seat effect by position after the
starting player (one strategy at every seat only: :func:`_start_position`), game length and
pick-ups.

The per-game records are read one batch file at a time, a few columns each, so a report of
a run of any size needs little memory.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.html.common import (
    HOW, SPARSE, TEXT_COLUMNS, Page, _fmt_table, _legend_below, axes, int_text, pct_text,
    percent_axis, rate_bars,
)
from reports.plain import neighbours_text, seats_text
from sim.kernel.ruleset import Ruleset
from sim.runs.saved import Loaded
from sim.runs.tally import neighbours, wilson

TITLE = "simulation"


def answer(page: Page, run: Loaded) -> None:
    """First on the page, what the run answers under its seating. Several strategies at the
    table: each one's win rate in this seating, the best first, with the note that this
    seating is not a fair ranking (:func:`_neighbours`); one strategy at every seat: how
    often the player who made the first move won (R6), against the fair share."""
    stats = _stats(page, run)
    p = run.players
    if _mixed(run, stats):
        bs = run.by_strategy
        if bs.empty or "seats" not in bs:
            return
        rows = sorted(zip((lab for lab, _ in _strategy_labels(run)), bs["win_rate"],
                          bs["ci_low"], bs["ci_high"], bs["games"]), key=lambda r: -r[1])
        blocks = page.section("answer", "The answer: each strategy's win rate in this seating")
        blocks.text("; ".join(
            f"{lab} won {pct_text(rate)} of its seat-games (95% CI {pct_text(lo)} – "
            f"{pct_text(hi)}, n = {int_text(n)})" if i == 0 else
            f"{lab} {pct_text(rate)} ({pct_text(lo)} – {pct_text(hi)}, n = {int_text(n)})"
            for i, (lab, rate, lo, hi, n) in enumerate(rows))
            + f". A fair share is {pct_text(1 / p)}.")
        note = _neighbours(run)
        if note:
            blocks.text("Note: " + neighbours_text(note))
        return
    n = stats["games"]
    if not n:
        return
    lo, hi = wilson(int(stats["starter_wins"]), int(n))
    blocks = page.section("answer", "The answer: the first player's edge")
    blocks.text(f"The player who made the first move won {pct_text(stats['starter_wins'] / n)} "
                f"of the games (95% CI {pct_text(lo)} – {pct_text(hi)}, n = {n:,}); a fair "
                f"share is {pct_text(1 / p)}."
                + (f" {stats['unfinished']:,} games ({pct_text(stats['unfinished'] / n)}) were "
                   "unfinished, won by no one (R25)." if stats["unfinished"] else ""))


def _stats(page: Page, run: Loaded) -> dict:
    """:func:`_game_stats`, read once for the answer and the sections after it."""
    if "run_stats" not in page.memo:
        page.memo["run_stats"] = _game_stats(run)
    return page.memo["run_stats"]


def _mixed(run: Loaded, stats: dict) -> bool:
    """Do the seats hold different strategies (or swap policies)? From the games' records
    where they name each seat's strategy in every game (a seating rotated or shuffled from
    game to game counts too), else from the seat table, else from the options."""
    if stats.get("mixed") is not None:
        return stats["mixed"]
    bs = run.by_seat
    if not bs.empty and "strategy" in bs:
        return bool(bs["strategy"].nunique() > 1 or ("swap" in bs and bs["swap"].nunique() > 1))
    cfg, p = run.config, run.players
    names = list(cfg.get("strategies") or [cfg.get("strategy")])[:p]
    swaps = list(cfg.get("swaps") or [None])[:p]
    return len(set(names)) > 1 or len(set(swaps)) > 1


def build(page: Page, run: Loaded) -> list[str]:
    """The run's sections after the answer; returns warnings for the top of the page."""
    stats = _stats(page, run)
    warnings = []
    ov_games = run.summary.get("overall", {}).get("games")
    if run.parts and ov_games is not None and stats["games"] != ov_games:
        warnings.append(f"The record files hold {stats['games']:,} games but the summary "
                        f"counts {ov_games:,}: the folder may have been changed after the run.")
    _strategy_section(page, run)
    _seat_section(page, run, stats)
    _length_section(page, run, stats)
    return warnings


def _game_stats(run: Loaded) -> dict:
    p = run.players
    cols = ["turns", "unfinished", "winner", "starter"] + [f"pickups_{s}" for s in range(p)]
    if run.parts:
        import pyarrow.parquet as pq
        names = pq.read_schema(run.parts[0]).names
        if "unfinished_by" in names:                # since store format 2
            cols.append("unfinished_by")
        seated = [f"{k}_{s}" for s in range(p) for k in ("strategy", "swap")]
        if all(c in names for c in seated):         # each seat's strategy in every game
            cols += seated
    turns = np.zeros(1, np.int64)
    pick = np.zeros((p, 1), np.int64)
    games = unfinished = cycles = starter_wins = 0
    mixed = None
    offset_wins = np.zeros(p, np.int64)
    for df in run.iter_parts(cols):
        if "strategy_0" in df and not mixed:
            mixed = any((_names(df[f"{k}_{s}"]) != _names(df[f"{k}_0"])).any()
                        for k in ("strategy", "swap") for s in range(1, p))
        done = ~df["unfinished"].to_numpy(bool)
        games += len(df)
        unfinished += int((~done).sum())
        if "unfinished_by" in df:
            cycles += int((df["unfinished_by"].astype(object) == "cycle").sum())
        t = df["turns"].to_numpy(np.int64)
        c = np.bincount(t[done], minlength=turns.size)
        turns = np.pad(turns, (0, c.size - turns.size)) + c
        winner = df["winner"].to_numpy(np.int64)
        starter = df["starter"].to_numpy(np.int64)
        off = (winner[done] - starter[done]) % p
        offset_wins += np.bincount(off, minlength=p)[:p]
        starter_wins += int((off == 0).sum())
        for s in range(p):
            # finished games only: an unfinished game's pick-ups depend on where it stopped
            c = np.bincount(df[f"pickups_{s}"].to_numpy(np.int64)[done],
                            minlength=pick.shape[1])
            if c.size > pick.shape[1]:
                pick = np.pad(pick, ((0, 0), (0, c.size - pick.shape[1])))
            pick[s, :c.size] += c
    return {"games": games, "unfinished": unfinished, "cycles": cycles, "turns": turns,
            "pickups": pick, "starter_wins": starter_wins, "offset_wins": offset_wins,
            "mixed": mixed}


def _names(col: pd.Series) -> np.ndarray:
    """A record column of names (a seat's strategy or swap policy, saved as a category) as
    strings, "" where missing: from the category codes, fast for a batch of any size."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = np.append(np.asarray(col.cat.categories, dtype=str), "")
        return cats[col.cat.codes.to_numpy()]               # code -1 (missing): ""
    return col.fillna("").astype(str).to_numpy()


def _hist_limit(counts: np.ndarray, q=0.999) -> int:
    """The smallest value below which a share ``q`` of the counted values lies."""
    total = counts.sum()
    if total == 0:
        return 1
    return int(np.searchsorted(np.cumsum(counts), q * total)) + 1


def _strategy_labels(run: Loaded) -> list[tuple[str, list[int]]]:
    """(label, seats) per row of the summary's strategy table."""
    bs = run.by_strategy
    if bs.empty or "seats" not in bs:      # a tournament's or a tuning's table: no seats
        return []
    multi = bs["strategy"].value_counts()
    out = []
    for r in bs.to_dict(orient="records"):
        label = r["strategy"] if multi[r["strategy"]] == 1 else f"{r['strategy']} / {r['swap']}"
        out.append((str(label), [int(s) for s in str(r["seats"]).split(",") if s != ""]))
    return out


def _strategy_section(page: Page, run: Loaded) -> None:
    bs = run.by_strategy
    if bs.empty or "seats" not in bs:      # a tournament's table is drawn by its section
        return
    blocks = page.section("strategies", "Win rate by strategy")
    labels = [f"{lab}\nseats {seats_text(','.join(map(str, seats)))}\nn={int_text(g)}"
              for (lab, seats), g in zip(_strategy_labels(run), bs["games"])]
    fig, ax = axes(8, 4.4)
    rate_bars(ax, labels, bs["win_rate"], bs["ci_low"], bs["ci_high"], "#4c78a8",
              players=run.players, n=bs["games"],
              names_label="strategy (seats held; n = seat-games)",
              rate_label="win rate (% of seat-games)")
    blocks.figure("win_rate_by_strategy", fig, "Each strategy's wins over the seat-games it "
                  "played; the seats of one game are not independent, so read the intervals "
                  "as indicative.", f"Win rate by strategy with 95% Wilson CI (n = "
                  f"{int_text(bs['games'].sum())} seat-games)")
    _per_row_table(blocks, "by_strategy", bs, "Win rate by strategy")
    if _neighbours(run):
        blocks.text("These rows speak of this seating only: see the note under The answer.")


GAME_COLUMNS = ("unfinished", "mean_turns")     # of the games, not of a seat or a strategy


def _per_row_table(blocks, name: str, df: pd.DataFrame, what: str) -> None:
    """A seat's or a strategy's table, shown without the columns of the whole run that
    repeat on every row (unfinished games, mean turns: How this was run gives them), so
    that eight seats' rows stay readable; the CSV keeps every column."""
    same = [c for c in GAME_COLUMNS if c in df and len(df) > 1 and df[c].nunique() == 1]
    shown = _fmt_table(df.drop(columns=same))
    note = (f" ({' and '.join(c.replace('_', ' ') for c in same)}: the same on every row, "
            f"given once in {HOW})" if same else "")
    blocks.table(name, df, f"{what}{note}:", shown=shown,
                 text=[c for c in shown.columns if c in TEXT_COLUMNS])


def _neighbours(run: Loaded) -> dict | None:
    """The summary's neighbours (:func:`sim.runs.tally.neighbours`), or for a folder saved
    before they were, the same made from the run's options."""
    if "neighbours" in run.summary:
        return run.summary["neighbours"]
    cfg = run.config
    try:
        return neighbours(cfg.get("strategies") or [], run.players,
                          Ruleset.parse(cfg.get("rules", "seed")))
    except (KeyError, ValueError):
        return None


def _seat_section(page: Page, run: Loaded, stats: dict) -> None:
    bs, p = run.by_seat, run.players
    if (bs.empty or "strategy" not in bs) and not stats["games"]:
        return                             # a tournament's seat effect is in its section
    same = not _mixed(run, stats)
    blocks = page.section("seats", "Win rate by seat (seat effect)" if same else
                          "Win rate by seat and the strategy there (not a seat effect)")
    if not same and not bs.empty and "strategy" in bs:
        blocks.text("The seats hold different strategies, so each seat's row is that strategy "
                    "in that seat, beside these neighbours: a seat and its strategy together, "
                    "not a seat effect (which needs the same strategy at every seat, or a "
                    "tournament, sim compare, whose seat table says when it is one).")
    if not bs.empty and "strategy" in bs:
        labels = [f"seat {s}\n{st}\nn={int_text(g)}" for s, st, g in
                  zip(bs["seat"], bs["strategy"], bs["games"])]
        fig, ax = axes(8, 4.4)
        rate_bars(ax, labels, bs["win_rate"], bs["ci_low"], bs["ci_high"], "#72b7b2",
                  players=p, n=bs["games"], names_label="seat (strategy; n = games)",
                  rate_label="win rate (% of games)")
        blocks.figure("win_rate_by_seat", fig, "Each seat's share of all games won; the "
                      "dealer is drawn at random (R3).", f"Win rate by seat with 95% Wilson "
                      f"CI (n = {int_text(bs['games'].iloc[0])} games)")
        _per_row_table(blocks, "by_seat", bs, "Win rate by seat")
        if "shithead" in bs:
            games = bs["games"].to_numpy()
            ci = [wilson(int(k), int(n)) for k, n in zip(bs["shithead"], games)]
            fig, ax = axes()
            rate_bars(ax, labels, bs["shithead"].to_numpy() / np.maximum(games, 1),
                      [c[0] for c in ci], [c[1] for c in ci], "#e45756", players=p, n=games,
                      names_label="seat (strategy; n = games)",
                      rate_label="Shithead rate (% of games)")
            blocks.figure("shithead_by_seat", fig, "V2: the last player out (the Shithead) "
                          "by seat.", f"V2: how often each seat is the Shithead, 95% Wilson CI "
                          f"(n = {int_text(games[0])} games)")
    if stats["games"]:
        _start_position(blocks, stats, p, same)


def _start_position(blocks, stats: dict, p: int, same: bool) -> None:
    """Win rate by position after the starting player (R6): the seat effect, where one
    strategy holds every seat.

    Where the seats hold different strategies the chart is left out, with a line saying why.
    Each position after the starter then holds whichever strategy sat there in that game, so
    the bars would mostly show how often the strong strategy started or sat where, not what
    the position is worth: a seat effect mixed up with the strategies. Splitting it by
    strategy was weighed and not taken: each strategy's bars would still depend on who sat
    at the other positions (its company, fixed by this seating), and with a strategy in two
    seats on which of them started, so every bar would need its own caveat. Left out, the
    page stays simple and says nothing it cannot stand behind; the measure is one command
    away (one strategy at every seat, or a tournament's starter effect)."""
    n = stats["games"]
    if not same:
        blocks.text("Win rate by position after the starting player: not drawn, because the "
                    "seats hold different strategies, so each position after the starter "
                    "holds a different mix of them and the chart would show which strategy "
                    "started or sat where, not the effect of the position. One strategy at "
                    "every seat measures it (sim run -s NAME), or a tournament (sim compare: "
                    "its starter effect, every strategy in every seat).")
        return
    wins = stats["offset_wins"]
    ci = [wilson(int(w), int(n)) for w in wins]
    labels = ["starter"] + [f"starter +{k}" for k in range(1, p)]
    fig, ax = axes()
    rate_bars(ax, labels, wins / n, [c[0] for c in ci], [c[1] for c in ci], "#f58518",
              players=p, n=[n] * p,
              names_label="seat, counted in seat order from the player who started (R6)",
              rate_label="win rate (% of games)")
    blocks.figure("win_rate_by_start_position", fig, "Wins by where the winner sat relative "
                  "to the starting player (the first player's share: the answer above).",
                  f"Win rate by position after the starting player, 95% Wilson CI (n = "
                  f"{int_text(n)} games)")
    df = pd.DataFrame({"position": labels, "games": n, "wins": wins, "win_rate": wins / n,
                       "ci_low": [c[0] for c in ci], "ci_high": [c[1] for c in ci]})
    blocks.table("start_position", df, "Win rate by position after the starting player:")


def _length_section(page: Page, run: Loaded, stats: dict) -> None:
    if not stats["games"]:
        return
    blocks = page.section("length", "Game length and pick-ups")
    unf = stats["unfinished"]
    if unf:
        cap = int_text(run.config.get("max_turns"))
        blocks.text(f"{unf:,} of {stats['games']:,} games ({pct_text(unf / stats['games'])}) "
                    f"were unfinished"
                    + (f": {unf - stats['cycles']:,} still going after {cap} turns (R25), "
                       f"{stats['cycles']:,} stopped as endless when a position repeated"
                       if stats["cycles"] else f": still going after {cap} turns (R25)")
                    + ". They are left out of the game-length and pick-up histograms and "
                      "counted as not won in every win rate.")
    turns = stats["turns"]
    finished = int(turns.sum())
    if finished:
        values = np.arange(turns.size)
        mean = float((values * turns).sum() / finished)
        median = int(np.searchsorted(np.cumsum(turns), finished / 2))
        limit = _hist_limit(turns)
        width = max(1, int(math.ceil(limit / 60)))
        edges = np.arange(0, limit + width, width)
        first = int(np.flatnonzero(turns)[0]) // width * width
        edges = edges[edges >= first]
        binned = np.add.reduceat(turns[:edges[-1]], edges[:-1]) if edges.size > 1 else turns
        over = int(turns[edges[-1]:].sum())
        fig, ax = axes()
        ax.stairs(binned, edges, fill=True, color="#4c78a8", alpha=0.85)
        ax.axvline(mean, color="#c0392b", ls="--", lw=1.2, label=f"mean {mean:.1f}")
        ax.axvline(median, color="#1d2433", ls=":", lw=1.2, label=f"median {median}")
        ax.set_xlabel(f"turns per game (moves; bins of {width})")
        ax.set_ylabel("games (count)")
        _legend_below(ax)
        ax.grid(axis="y", alpha=0.3)
        note = ([f"{over:,} above {edges[-1]} not shown"] if over else []) + (
            [f"{unf:,} unfinished excluded"] if unf else [])
        blocks.figure("turns_histogram", fig, "Turns (moves, pick-ups included) per finished "
                      "game.", f"Game length of finished games (n = {finished:,} games"
                      + ("; " + ", ".join(note) if note else "") + ")")
        df = pd.DataFrame({"turns": values, "games": turns})
        page.csv("turns_counts", df[df["games"] > 0])
    pick = stats["pickups"]
    fig, ax = axes()
    limit = max(_hist_limit(pick.sum(axis=0)), 2)
    edges = np.arange(limit + 1) - 0.5
    colors = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#b279a2", "#9d755d", "#eeca3b",
              "#1d2433"]                       # one each for up to 8 seats' strategies
    rows = []
    total = 0
    groups = _strategy_labels(run) or [("all seats", list(range(run.players)))]
    for i, (label, seats) in enumerate(groups):
        counts = pick[seats].sum(axis=0)
        n = int(counts.sum())
        total += n
        if not n:
            continue
        mean = float((np.arange(counts.size) * counts).sum() / n)
        sparse = n < SPARSE                  # a share of a few player-games: dotted
        ax.stairs(counts[:limit] / n, edges, lw=1.8, color=colors[i % len(colors)],
                  ls=":" if sparse else "-",
                  label=f"{label}: mean {mean:.2f} (n={n:,}"
                        + (f"; sparse, fewer than {SPARSE})" if sparse else ")"))
        rows += [{"strategy": label, "pickups": v, "player_games": int(c)}
                 for v, c in enumerate(counts) if c]
    percent_axis(ax)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("pick-ups per player per game (count)")
    ax.set_ylabel("share of player-games (%)")
    _legend_below(ax, ncols=2)
    ax.grid(axis="y", alpha=0.3)
    blocks.figure("pickups_histogram", fig, "How often a player picked up the pile in a "
                  "finished game (R10), by strategy.", f"Pick-ups per player per finished game "
                  f"(n = {total:,} player-games" + (f"; {unf:,} unfinished games excluded)"
                                                    if unf else ")"))
    page.csv("pickups_counts", pd.DataFrame(rows))
