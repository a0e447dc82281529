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
