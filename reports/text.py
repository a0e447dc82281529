"""The run summary as terminal tables (rich)."""
from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table


def _pct(x):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.2f}%"


def print_summary(tally, seconds: float, console: Console | None = None) -> None:
    import sys

    # Wide enough for the tables when the output goes to a file or a pipe.
    console = console or Console(width=None if sys.stdout.isatty() else 160)
    cfg = tally.cfg
    ov = tally.overall()
    console.print(f"[bold]{ov['games']:,} games[/], {cfg.players} players, rules "
                  f"{cfg.rules}, seed {cfg.seed}: {ov['unfinished']:,} unfinished (limit "
                  f"{cfg.max_turns} turns, R25), {ov['mean_turns']:.1f} turns per finished "
                  f"game, {seconds:.2f} s ({ov['games'] / max(seconds, 1e-9):,.0f} games/s)")
    v2 = cfg.options["last_player_loses"]
    for title, df, key in (("By seat", tally.by_seat(), "seat"),
                           ("By strategy (over the seats it holds)", tally.by_strategy(),
                            "seats")):
        t = Table(title=title + (" - win = first out (V2)" if v2 else ""), title_justify="left")
        cols = [key, "strategy", "swap", "games", "wins", "win rate", "95% CI", "unfinished",
                "mean turns"]
        if key == "seat" and v2:
            cols += ["shithead", "mean place"]
        for c in cols:
            t.add_column(c, justify="left" if c in ("strategy", "swap") else "right")
        for r in df.to_dict(orient="records"):
            row = [str(r[key]), r["strategy"], r["swap"], f"{r['games']:,}", f"{r['wins']:,}",
                   _pct(r["win_rate"]), f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                   f"{r['unfinished']:,}", f"{r['mean_turns']:.1f}"]
            if key == "seat" and v2:
                row += [f"{r['shithead']:,}", f"{r['mean_place']:.3f}"]
            t.add_row(*row)
        console.print(t)


def print_compare(d: dict, seconds: float, console: Console | None = None) -> None:
    """A tournament's tables: per strategy, head-to-head, seat and starter effects."""
    import sys

    console = console or Console(width=None if sys.stdout.isatty() else 160)
    info = d["info"]
    v2 = info["options"]["last_player_loses"]
    key = "place_share" if v2 else "win_rate"
    design = "independent deals" if info["independent"] else "duplicate deals"
    console.print(f"[bold]{d['games']:,} games[/] ({d['deals']:,} {design} x "
                  f"{len(d['strategies'])} seat rotations), {d['players']} players, seed "
                  f"{info['seed']}: {d['unfinished']:,} unfinished, {seconds:.1f} s")
    if info["until_clear"]:
        console.print("Stopped: " + ("the leader is clear of the runner-up" if
                      info["stopped"] == "clear" else "--max-games reached without a clear "
                      "leader") + f" (intervals at z={info['z']:.2f}: 95% corrected for up to "
                      f"{info['looks']} looks)")
    t = Table(title="Per strategy (every seat equally often; interval over deals)",
              title_justify="left")
    for c in ("strategy", "seat-games", "win rate" if not v2 else "place share", "95% CI",
              "rating (Elo scale)", "95% CI "):
        t.add_column(c, justify="left" if c == "strategy" else "right")
    for r in sorted(d["per_strategy"], key=lambda r: -r[key]):
        t.add_row(r["strategy"], f"{r['games']:,}", _pct(r[key]),
                  f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}", f"{r['rating']:+.0f}",
                  f"{r['rating_low']:+.0f} .. {r['rating_high']:+.0f}")
    console.print(t)
    h = Table(title="Head to head: share of meetings the row finished ahead of the column",
              title_justify="left")
    names = d["head_to_head"]["strategies"]
    h.add_column("")
    for n in names:
        h.add_column(n, justify="right")
    for n, row in zip(names, d["head_to_head"]["matrix"]):
        h.add_row(n, *("-" if v is None else _pct(v) for v in row))
    console.print(h)
    s = Table(title="Seat effect (all strategies pooled)", title_justify="left")
    for c in ("seat", "games", "wins", "win rate", "95% CI"):
        s.add_column(c, justify="right")
    for r in d["seat_effect"]:
        s.add_row(str(r["seat"]), f"{r['games']:,}", f"{r['wins']:,}", _pct(r["win_rate"]),
                  f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}")
    console.print(s)
    st = d["starter_effect"]
    console.print(f"The starting player (R6) won {_pct(st['win_rate'])} of games "
                  f"({_pct(st['ci_low'])} - {_pct(st['ci_high'])}, n={st['games']:,}); a fair "
                  f"share is {_pct(1 / d['players'])}.")


def print_study(study: dict, console: Console | None = None) -> None:
    """The swap study: the split model's card values, examples, the head-to-head and its
    verdict, then the descriptive triple table; the unfinished-games policy under them."""
    import sys

    from sim.study import fmt_p

    console = console or Console(width=None if sys.stdout.isatty() else 160)
    rows = study["triples"]
    unf = study["unfinished"]
    policy = study.get("unfinished_policy", "")
    console.print(f"[bold]Swap study[/]: {study['players']} players, rules {study['rules']}, "
                  f"move strategy {study['strategy']}, {study['games']:,} games with random "
                  f"swaps ({unf:,} unfinished, counted as not won), "
                  f"{study.get('seconds', 0):.0f} s")
    cards = study.get("cards") or []
    if cards:
        t = Table(title="Split model: gain of a card face up rather than in hand, relative to "
                        "the average card (what the split policy maximises)",
                  title_justify="left")
        for c in ("card", "gain (log-odds)", "± SE", "≈ points of win rate"):
            t.add_column(c, justify="left" if c == "card" else "right")
        for r in sorted(cards, key=lambda r: -r["gain"]):
            t.add_row(r["card"], f"{r['gain']:+.3f}", f"{r['se']:.3f}",
                      f"{100 * r['points']:+.2f}")
        console.print(t)
        console.print(f"Model: {study['model']['kind']}; "
                      f"{study['model']['seat_games']:,} seat-games ({unf:,} unfinished games "
                      f"counted as not won) in {study['model']['cells']:,} cells.")
    for e in study.get("examples") or []:
        console.print(f"  {' '.join(e['cards'])}: {e['why']}")
    h = Table(title=f"Split policy vs each policy (seats alternated, duplicate deals; "
                    f"{study['h2h_games_per_policy']:,} games each)", title_justify="left")
    for c in ("against", "games", "unfinished", "split's share of wins", "margin per seat",
              "95% CI", "p", "p (BH-adjusted)"):
        h.add_column(c, justify="left" if c == "against" else "right")
    for r in study["head_to_head"]:
        h.add_row(r["policy"], f"{r['games']:,}", f"{r.get('unfinished', 0):,}",
                  _pct(r.get("share", r.get("table_share"))), f"{100 * r['diff']:+.2f} pts",
                  f"{100 * r['ci_low']:+.2f} .. {100 * r['ci_high']:+.2f}",
                  fmt_p(r["p_value"]), fmt_p(r["p_adjusted"]))
    console.print(h)
    console.print(study["verdict"])
    for title, part in (("Best face-up triples", rows[:10]),
                        ("Worst face-up triples", rows[-10:])):
        t = Table(title=title + " - descriptive, not a policy: win rate of the seats holding "
                  "them after random swaps (owning the cards included), ranked by the shrunk "
                  "rate", title_justify="left")
        for c in ("face-up", "seat-games", "unfinished", "win rate", "95% CI", "shrunk"):
            t.add_column(c, justify="left" if c == "face-up" else "right")
        for r in part:
            t.add_row(" ".join(r["triple"]), f"{r['games']:,}", f"{r.get('unfinished', 0):,}",
                      _pct(r["win_rate"]), f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                      _pct(r.get("shrunk")))
        console.print(t)
    if policy:
        console.print(policy + f" Values stage: {unf:,} of {study['games']:,} games "
                      "unfinished; head-to-heads: see the unfinished column.")
    if study.get("split_file"):
        console.print(f"The split policy: {study['split_file']} (use it with "
                      f"--swap '{study['split_policy']}'); its choice for every six-card set: "
                      f"{study.get('policy_file')}.")
    console.print(f"The old value table (raw triple win rates): {study['table_file']} "
                  f"(--swap '{study['table_policy']}').")
