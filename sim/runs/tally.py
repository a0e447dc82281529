"""Aggregate game records as they come (memory stays flat) and turn them into tables.

:class:`Tally` (a run's running totals) and :func:`wilson` are used by the simulator itself
(``sim.runs.runner``, ``sim.studies.compare``, ``sim.studies.swapstudy``), so they live here, in ``sim``.
What the summary saves about the seating and the stopping of endless games is facts, not
words (:func:`neighbours`, :func:`cycle_facts`): ``reports`` words them.

Every win rate comes with its sample size and a 95% Wilson score interval (:func:`wilson`,
the closed form); unfinished games (R25) are counted in every denominator and shown in their
own column, never hidden, split by why they stopped: at the turn limit (``cap``) or proven
endless (``cycle``, :mod:`sim.kernel.cycle`). Turns and pick-ups per game are over finished games:
an unfinished game's depend only on where it was stopped.
"""
from __future__ import annotations

import math
import shlex
from statistics import NormalDist

import numpy as np

from sim.kernel.referee import UNFINISHED
from sim.kernel.cycle import END_CYCLE
from sim.kernel.layout import MAXP
from sim.kernel.ruleset import value_text


def wilson(wins: int, games: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``nan`` when there are no games).

    The closed form (Wilson 1927, no continuity correction), as SciPy's
    ``binomtest(...).proportion_ci(method="wilson")`` computes it (a test compares them):
    importing scipy.stats for it would dominate a short ``sim run``'s start-up."""
    if games == 0:
        return float("nan"), float("nan")
    n, p = float(games), wins / games
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


# The one unfinished-games policy (R25), for every table of every command.
UNFINISHED_POLICY = (
    "an unfinished game (still going at the turn limit, R25, or stopped as proven endless) is "
    "a game nobody won: it counts in the games of every table and adds nothing to any result "
    "(no win, no place, no head-to-head meeting decided, no rating event)")


def cycle_facts(cfg) -> dict:
    """Whether games proven endless are stopped (:mod:`sim.kernel.cycle`) in a run of config
    ``cfg`` (:class:`sim.runs.config.RunConfig`), as facts saved with a run's summary and a
    tournament's: ``asked`` (not ``--no-cycle-stop``), ``impure`` (the strategies seated that
    are not declared pure, which keep it off; each once) and ``once_out`` (V2 with a pure seat
    too: it starts once the impure seats are out)."""
    impure = sorted({s.name for s in cfg.move_objs if not s.pure}) if cfg.cycle_stop else []
    pure = any(s.pure for s in cfg.move_objs[:cfg.players])
    return {"asked": bool(cfg.cycle_stop), "impure": impure,
            "once_out": bool(impure) and bool(cfg.ruleset.last_player_loses) and pure}


def neighbours(strategies: list[str], players: int, rules) -> dict | None:
    """What a run's per-strategy rows can and cannot mean when its seats hold different
    strategies, as facts: ``None`` when every seat holds the same one, else ``seats`` (the
    strategy of each seat, in seat order), ``strategies`` (each once) and ``fair_command``
    (the tournament that measures them fairly: every strategy in every seat after every
    other, on the same deals, ``sim compare``).

    A seat's result depends on who plays before and after it (whose discards it must beat,
    who must beat its own), so the rows speak of this run's seating only; the words that say
    so (``reports``) quote no figure: the only figures that speak of these seats are the
    run's own rows."""
    seats = list(strategies[:players])
    names = list(dict.fromkeys(seats))
    if len(names) < 2:
        return None
    words = ["sim", "compare", *names, "--players", str(players)]
    if rules.base != "seed":
        words += ["--rules", rules.base]
    for key, value in rules.changes().items():
        words += ["--rule", f"{key}={value_text(value)}"]
    return {"seats": seats, "strategies": names,
            "fair_command": " ".join(shlex.quote(w) for w in words)}


class Tally:
    """Running totals of a run: per seat wins, places and pick-ups; turns, burns, unfinished
    (and of those, how many were stopped as endless, ``cycles``)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.games = 0
        self.loaded = 0          # of them, read back from a saved run (--resume), not played
        self.unfinished = 0
        self.cycles = 0          # unfinished games stopped as proven endless (sim.kernel.cycle)
        self.turns = 0           # over finished games
        self.played = 0          # turns played in all, unfinished games included
        self.burns = 0
        self.wins = np.zeros(MAXP, np.int64)
        self.last = np.zeros(MAXP, np.int64)        # V2: the Shithead
        self.place_sum = np.zeros(MAXP, np.int64)   # V2: 1 = first out
        self.pickups = np.zeros(MAXP, np.int64)     # over finished games
        self.started = np.zeros(MAXP, np.int64)

    # the running totals, as plain data (a Dask worker's share, :meth:`counts`)
    _SCALARS = ("games", "unfinished", "cycles", "turns", "played", "burns")
    _ARRAYS = ("wins", "last", "place_sum", "pickups", "started")

    def counts(self) -> dict:
        """The totals as plain data: what a Dask worker sends back for its games when the
        records themselves are not wanted (no ``--out``), a few hundred bytes a task."""
        return {**{k: getattr(self, k) for k in self._SCALARS},
                **{k: getattr(self, k).copy() for k in self._ARRAYS}}

    def add(self, b) -> None:
        """Add a Batch's games, or the :meth:`counts` of another tally of the same run."""
        if isinstance(b, dict):
            for k in self._SCALARS:
                setattr(self, k, getattr(self, k) + int(b[k]))
            for k in self._ARRAYS:
                getattr(self, k)[:] += b[k]
            return
        players = self.cfg.players
        done = b.status != UNFINISHED
        self.games += b.status.size
        self.unfinished += int((~done).sum())
        self.cycles += int((b.end == END_CYCLE).sum())
        self.turns += int(b.turns[done].sum())
        self.played += int(b.turns.sum())
        self.burns += int(b.burns.sum())
        self.pickups += b.pickups[done].sum(axis=0)
        self.started += np.bincount(b.starter, minlength=MAXP)[:MAXP]
        first = b.order[done, 0]
        self.wins += np.bincount(first, minlength=MAXP)[:MAXP]
        if self.cfg.options["last_player_loses"]:
            # V2: the finishing order, then the Shithead: the one seat not in it.
            order = b.order[done, :players - 1].astype(np.int64)
            loser = players * (players - 1) // 2 - order.sum(axis=1)
            self.last += np.bincount(loser, minlength=MAXP)[:MAXP]
            for place in range(players - 1):
                self.place_sum += (place + 1) * np.bincount(order[:, place], minlength=MAXP)[:MAXP]
            self.place_sum += players * np.bincount(loser, minlength=MAXP)[:MAXP]

    @property
    def finished(self) -> int:
        return self.games - self.unfinished

    def _row(self, label, strategy, swap, games, wins, seats):
        low, high = wilson(wins, games)
        ov = self.overall()
        return {label: seats, "strategy": strategy, "swap": swap, "games": games, "wins": wins,
                "win_rate": wins / games if games else float("nan"), "ci_low": low,
                "ci_high": high, "unfinished": ov["unfinished"], "mean_turns": ov["mean_turns"]}

    def seat_rows(self) -> list[dict]:
        """One row per seat: its strategy, games, wins, win rate and 95% CI (and V2 places).

        Plain dicts: the run's summary needs no pandas, whose import would dominate a short
        ``sim run``."""
        rows = []
        v2 = self.cfg.options["last_player_loses"]
        for s in range(self.cfg.players):
            row = self._row("seat", self.cfg.strategies[s], self.cfg.swaps[s], self.games,
                            int(self.wins[s]), s)
            row["started"] = int(self.started[s])
            row["pickups_per_game"] = (self.pickups[s] / self.finished if self.finished
                                       else float("nan"))   # per finished game
            if v2:
                row["shithead"] = int(self.last[s])
                row["mean_place"] = (self.place_sum[s] / self.finished if self.finished
                                     else float("nan"))
            rows.append(row)
        return rows

    def strategy_rows(self) -> list[dict]:
        """One row per (strategy, swap) pair, in order of first seat, over the seats it holds
        (seat-games)."""
        groups: dict = {}
        for r in self.seat_rows():
            groups.setdefault((r["strategy"], r["swap"]), []).append(r)
        return [self._row("seats", strategy, swap, self.games * len(g),
                          sum(r["wins"] for r in g), ",".join(str(r["seat"]) for r in g))
                for (strategy, swap), g in groups.items()]

    def overall(self) -> dict:
        return {
            "games": self.games,
            "finished": self.finished,
            "unfinished": self.unfinished,
            "unfinished_cap": self.unfinished - self.cycles,      # at the turn limit (R25)
            "unfinished_cycle": self.cycles,      # proven endless and stopped (sim.kernel.cycle)
            "cycle_stop": cycle_facts(self.cfg),
            "mean_turns": self.turns / self.finished if self.finished else float("nan"),
            "turns_played": self.played,          # every game's turns, unfinished included
            "burns_per_game": self.burns / self.games if self.games else float("nan"),
        }

    def to_dict(self) -> dict:
        """The summary as plain JSON-ready data."""
        def records(rows):
            return [{k: (None if isinstance(v, float) and np.isnan(v) else
                         v.item() if hasattr(v, "item") else v) for k, v in r.items()}
                    for r in rows]
        return {"config": self.cfg.describe(), "overall": self.overall(),
                "by_seat": records(self.seat_rows()),
                "by_strategy": records(self.strategy_rows()),
                "neighbours": neighbours(self.cfg.strategies, self.cfg.players,
                                         self.cfg.ruleset)}
