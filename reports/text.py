"""The run summary, a tournament and a swap study as terminal tables (rich)."""
from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reports.plain import (
    cycle_stop_text, neighbours_text, plural, rules_words, seats_text, shared_text,
)
from sim.runs.tally import neighbours
from sim.studies.design import seat_design_of


def _pct(x):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.2f}%"


def _ci(r):
    return f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}"


def _pts(r, key="difference"):
    """A difference and its interval in points: ``+1.23 pts``, ``+0.10 .. +2.36``."""
    return (f"{100 * r[key]:+.2f} pts",
            f"{100 * r['ci_low']:+.2f} .. {100 * r['ci_high']:+.2f}")


def _console(console: Console | None) -> Console:
    """``console``, or one wide enough for the tables when the output goes to a file or a
    pipe."""
    import sys

    return console or Console(width=None if sys.stdout.isatty() else 160)


def _table(title: str, columns, rows, left=()) -> Table:
    """A table titled ``title``: ``columns`` right-aligned but for those in ``left``."""
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c, justify="left" if c in left else "right")
    for row in rows:
        t.add_row(*row)
    return t


def unfinished_text(d: dict, cap=None) -> str:
    """Why games were unfinished (R25): "12 at the limit of 10000 turns, 30 proven endless"."""
    limit = f"the limit of {plural(cap, 'turn')}" if cap else "the turn limit"
    if "unfinished_cycle" not in d:
        return f"limit {plural(cap, 'turn')}, R25" if cap else "R25"
    return (f"{d['unfinished_cap']:,} at {limit}, R25; {d['unfinished_cycle']:,} stopped as "
            f"endless: a position repeated")


def print_summary(tally, seconds: float, console: Console | None = None,
                  partial: str | None = None) -> None:
    """The run's summary; ``partial`` (what was interrupted) heads a summary of the games
    played before Ctrl-C. Games/s count the games played here, not those loaded by --resume."""
    console = _console(console)
    cfg = tally.cfg
    ov = tally.overall()
    if partial:
        console.print(f"[bold red]PARTIAL[/] ({partial}): {ov['games']:,} of "
                      f"{plural(cfg.games, 'game', fmt=',')}")
    console.print(f"[bold]{plural(ov['games'], 'game', fmt=',')}[/], {cfg.players} players, "
                  f"{rules_words(cfg.ruleset)}, seed {cfg.seed}: {ov['unfinished']:,} unfinished "
                  f"({unfinished_text(ov, cfg.max_turns)}), {ov['mean_turns']:.1f} turns per "
                  f"finished game, {seconds:.2f} s "
                  f"({(ov['games'] - tally.loaded) / max(seconds, 1e-9):,.0f} games/s"
                  + (f" played, {plural(tally.loaded, 'game', fmt=',')} loaded" if tally.loaded
                     else "") + ")")
    console.print(f"Stopping endless games: {cycle_stop_text(ov['cycle_stop'])}.")
    v2 = cfg.options["last_player_loses"]
    same = len(set(zip(cfg.strategies[:cfg.players], cfg.swaps[:cfg.players]))) == 1
    everywhere = f"{cfg.strategies[0]}, swap {cfg.swaps[0]}, at every seat"
    for title, rows, key in (("By seat" + (f" (seat effect: {everywhere})"
                                           if same else " and the strategy there (not a "
                                           "seat effect: the seats hold different "
                                           "strategies)"), tally.seat_rows(), "seat"),
                             ("By strategy (over the seats it holds)", tally.strategy_rows(),
                              "seats")):
        more = key == "seat" and v2
        named = not (same and key == "seat")   # one strategy everywhere: said in the title
        # The unfinished games and mean turns are the run's (the line above), alike on every
        # row: left out, so that a table of eight seats fits 80 columns.
        console.print(_table(
            title + (" - win = first out (V2)" if v2 else ""),
            [key] + ["strategy", "swap"] * named + ["games", "wins", "win rate", "95% CI"]
            + (["shithead", "mean place"] if more else []),
            [[seats_text(r[key])] + [r["strategy"], r["swap"]] * named
             + [f"{r['games']:,}", f"{r['wins']:,}", _pct(r["win_rate"]), _ci(r)]
             + ([f"{r['shithead']:,}", f"{r['mean_place']:.3f}"] if more else [])
             for r in rows], left=("strategy", "swap")))
    mixed = neighbours(cfg.strategies, cfg.players, cfg.ruleset)
    if mixed:
        console.print(f"[bold]Note[/]: {escape(neighbours_text(mixed))}", highlight=False)


def _rating(r) -> tuple[str, str]:
    """A tournament row's rating and its interval, or the one bound the data give."""
    if r.get("rating_bound") == "lower":
        return f">= {r['rating_low']:+.0f}", "separated: a lower bound"
    if r.get("rating_bound") == "upper":
        return f"<= {r['rating_high']:+.0f}", "separated: an upper bound"
    interval = f"{r['rating_low']:+.0f} .. {r['rating_high']:+.0f}"
    return f"{r['rating']:+.0f}", interval + (" (set by the prior)"
                                              if r.get("rating_bound") == "prior" else "")


def print_compare(d: dict, seconds: float, console: Console | None = None) -> None:
    """A tournament's tables: per strategy, the leader against each other strategy, head to
    head, seat and starter effects; each followed by what it counts and how."""
    from sim.studies.stats import format_p

    console = _console(console)
    info = d["info"]
    v2 = info["options"]["last_player_loses"]
    key = "place_share" if v2 else "win_rate"
    design = "independent deal" if info["independent"] else "duplicate deal"
    anytime = info["until_clear"]
    level = "95% CS" if anytime else "95% CI"
    console.print(f"[bold]{plural(d['games'], 'game', fmt=',')}[/] "
                  f"({plural(d['deals'], design, fmt=',')} x "
                  f"{len(d['strategies'])} seat rotations), {d['players']} players, seed "
                  f"{info['seed']}: {d['unfinished']:,} unfinished "
                  f"({unfinished_text(d)}), {seconds:.1f} s")
    if info.get("seating_note"):
        console.print(f"Seating: {info['seating_note']}.")
    if info.get("cycle_stop"):
        console.print(f"Stopping endless games: {cycle_stop_text(info['cycle_stop'])}.")
    if anytime:
        looks = plural(info["looks"], "look")
        console.print("Stopped: " + (f"{info['leader']} is ahead of every other strategy"
                                      if info["stopped"] == "clear" else
                                      "--max-games reached without a clear leader")
                      + f" after {looks}. Every interval below is an anytime-valid "
                      "confidence sequence (CS): it keeps its level however often the "
                      "results were looked at and whenever play stopped.")
    console.print(_table(
        "Per strategy (every seat equally often; intervals over deals)",
        ("strategy", "seat-games", "win rate" if not v2 else "place share", level,
         "unfinished", "rating (Elo scale)", "95% interval"),
        [(r["strategy"], f"{r['games']:,}", _pct(r[key]), _ci(r), f"{r['unfinished']:,}",
          *_rating(r)) for r in sorted(d["per_strategy"], key=lambda r: -r[key])],
        left=("strategy",)))
    rt = d["ratings"]
    console.print(f"Ratings: {rt['model']}, prior {rt['prior']}; {rt['scale']}; intervals "
                  f"{rt['intervals']}. Where some strategies always finished ahead of others "
                  "the data bound a rating on one side only, and that bound is shown."
                  + (f" The {plural(rt['unfinished'], 'unfinished game', fmt=',')} "
                     f"give{'s' * (rt['unfinished'] == 1)} no choice event."
                     if rt.get("unfinished") is not None else ""))
    lead = d["leader"]
    console.print(_table(
        f"The leader, {lead['strategy']}, against each other strategy: mean paired per-deal "
        f"difference of {'win rates' if not v2 else 'place shares'}",
        ("against", "difference", f"{100 * lead['level']:.4g}% " + level[4:], "p",
         f"p x {len(lead['comparisons'])} (adjusted)"),
        [(r["against"], *_pts(r), format_p(r["p_value"]), format_p(r["p_adjusted"]))
         for r in lead["comparisons"]], left=("against",)))
    hh = d["head_to_head"]
    open_ = hh.get("unfinished")
    names = hh["strategies"]
    console.print(_table(
        "Head to head: share of meetings the first finished ahead of the second (a meeting: "
        "a seat of each in one game, one finishing ahead of the other)",
        ("strategy", "against", "meetings", "share ahead", level)
        + (("undecided (unfinished)",) if open_ is not None else ()),
        [(a, b, f"{hh['meetings'][i][j]:,}", _pct(hh["matrix"][i][j]),
          f"{_pct(hh['ci_low'][i][j])} - {_pct(hh['ci_high'][i][j])}",
          *([f"{open_[i][j]:,}"] if open_ is not None else []))
         for i, a in enumerate(names) for j, b in enumerate(names) if i < j],
        left=("strategy", "against")))
    seats = seat_design_of(d)
    balanced = seats["balanced"]
    console.print(_table(
        "Seat effect (all strategies pooled; every seat beside every company equally often; "
        "intervals over deals)" if balanced else "Win rate by seat, all strategies pooled "
        "(intervals over deals): " + seats["note"],
        ("seat", "games", "wins", "win rate", level, "unfinished")
        + (() if balanced else ("same strategy as",)),
        [(str(r["seat"]), f"{r['games']:,}", f"{r['wins']:,}", _pct(r["win_rate"]), _ci(r),
          f"{r['unfinished']:,}",
          *(() if balanced else (shared_text(r, d["players"], len(d["strategies"])),)))
         for r in d["seat_effect"]]))
    st = d["starter_effect"]
    console.print(f"The starting player (R6) won {_pct(st['win_rate'])} of games "
                  f"({level} {_ci(st)} over deals, n={st['games']:,}, {st['unfinished']:,} "
                  f"unfinished); a fair share is {_pct(1 / d['players'])}.")
    console.print(f"Unfinished games: {d['unfinished']:,} of {d['games']:,}; "
                  f"{d['unfinished_policy']} (it adds 0 to every result above).")


def print_study(study: dict, console: Console | None = None) -> None:
    """The swap study: the split model's card values, examples, the head-to-head and its
    verdict, then the descriptive triple table; the unfinished-games policy under them."""
    from sim.studies.stats import format_p
    from sim.studies.swapstudy.study import plain_answer

    console = _console(console)
    rows = study["triples"]
    unf = study["unfinished"]
    policy = study.get("unfinished_policy", "")
    console.print(f"[bold]Swap study[/]: {study['players']} players, "
                  f"{rules_words(study['rules'])}, "
                  f"move strategy {study['strategy']}, "
                  f"{plural(study['games'], 'game', fmt=',')} with random "
                  f"swaps ({unf:,} unfinished, counted as not won), "
                  f"{study.get('seconds', 0):.0f} s")
    answer = study.get("answer") or plain_answer(study)
    if answer:
        console.print(f"[bold]Answer[/] ({study['players']} players, "
                      f"{rules_words(study['rules'])}): {answer}")
    cards = study.get("cards") or []
    if cards:
        console.print(_table(
            "Split model: gain of a card face up rather than in hand, relative to the average "
            "card (its rank terms only; the split policy adds the pair, triple and "
            "whole-triple terms)", ("card", "gain (log-odds)", "± SE", "≈ points of win rate"),
            [(r["card"], f"{r['gain']:+.3f}", f"{r['se']:.3f}", f"{100 * r['points']:+.2f}")
             for r in sorted(cards, key=lambda r: -r["gain"])], left=("card",)))
        if study["model"].get("se"):
            console.print(study["model"]["se"] + ".")
        console.print(f"Model: {study['model']['kind']}; "
                      f"{plural(study['model']['seat_games'], 'seat-game', fmt=',')} "
                      f"({plural(unf, 'unfinished game', fmt=',')} counted as not won) in "
                      f"{plural(study['model']['cells'], 'cell', fmt=',')}.")
    for e in study.get("examples") or []:
        console.print(f"  {' '.join(e['cards'])}: {e['why']}")
    console.print(_table(
        f"Split policy vs each policy (seats alternated, duplicate deals; "
        f"{plural(study['h2h_games_per_policy'], 'game', fmt=',')} each)",
        ("against", "games", "unfinished", "split's share of wins", "margin per seat",
         "95% CI", "p", "p (BH-adjusted)"),
        [(r["policy"], f"{r['games']:,}", f"{r.get('unfinished', 0):,}",
          _pct(r.get("share", r.get("table_share"))), *_pts(r, "diff"),
          format_p(r["p_value"]), format_p(r["p_adjusted"])) for r in study["head_to_head"]],
        left=("against",)))
    console.print(study["verdict"])
    for title, part in (("Best face-up triples", rows[:10]),
                        ("Worst face-up triples", rows[-10:])):
        console.print(_table(
            title + " - descriptive, not a policy: win rate of the seats holding them after "
            "random swaps (owning the cards included), ranked by the shrunk rate",
            ("face-up", "seat-games", "unfinished", "win rate", "95% CI", "shrunk"),
            [(" ".join(r["triple"]), f"{r['games']:,}", f"{r.get('unfinished', 0):,}",
              _pct(r["win_rate"]), _ci(r), _pct(r.get("shrunk"))) for r in part],
            left=("face-up",)))
    if policy:
        console.print(policy + f" Values stage: {unf:,} of "
                      f"{plural(study['games'], 'game', fmt=',')} unfinished; head-to-heads: "
                      "see the unfinished column.")
    if study.get("split_file"):
        console.print(f"The split policy: {study['split_file']} (use it with "
                      f"--swap '{study['split_policy']}'); its choice for every six-card set: "
                      f"{study.get('policy_file')}.")
    console.print(f"The old value table (raw triple win rates): {study['table_file']} "
                  f"(--swap '{study['table_policy']}').")
