"""The measures of one ruleset from its tables' games, and their paired differences from the
base on the same deals (docs/rules-lab.md states each definition).

Every measure is a dict ``estimate, ci_low, ci_high`` (95%) and, for a ruleset other than
the base, ``diff`` (the paired difference from the base, its interval and ``effect``: +1 or
-1 when the interval excludes 0, else 0). Per-game and per-deal values come from
:mod:`.tables` records: arrays (rotations, deals).
"""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.cycle import END_CAP, END_CYCLE, END_FINISHED
from sim.runs.tally import wilson
from sim.studies.ruleslab.tables import FIELDS
from sim.studies.stats import ALPHA, Z95 as Z, ends, interval

MEASURES = {          # key -> (name, what it is, unit)
    "turns": ("game length", "mean turns of the reference table's games that finished",
              "turns"),
    "endless": ("endless games", "share of the reference games stopped as a proven cycle or "
                "at the turn cap (R25)", "share"),
    "first_mover": ("first mover's edge", "the starting player's win rate minus 1/N (under "
                    "V2: 1/N minus its Shithead rate), reference table", "share"),
    "skill_counting": ("skill (counting)", "one counting seat against random seats: its "
                       "gain over the fair share as a share of the most it could gain",
                       "index"),
    "skill_montecarlo": ("skill (montecarlo)", "one montecarlo seat against lowest seats, "
                         "the same index", "index"),
    "luck": ("luck", "how often the same seat wins a deal (under V2: is the Shithead) "
             "whoever holds which seat, counting table", "index"),
}
SCALES = {            # key -> what its values mean: 1, 0 and negative, or its unit
    "turns": "in turns; a difference: + longer games, - shorter",
    "endless": "0 = none, 1 = all; a difference in points: + more endless games",
    "first_mover": "in points: 0 = no edge, + starting helps, - starting hurts",
    "skill_counting": "1 = the strong seat always wins, 0 = no better than chance, negative = "
                      "worse than chance; a difference: + more skill",
    "skill_montecarlo": "1 = the strong seat always wins, 0 = no better than chance, "
                        "negative = worse than chance; a difference: + more skill",
    "luck": "1 = the deal alone decides the winning seat, 0 = that seat no more predictable "
            "than by chance, negative = the winner follows the strong strategy from seat to "
            "seat (skill beats the cards); a difference: + more luck",
}


def definitions() -> dict:
    """Per measure, one line: its name, what it is and its scale (:data:`SCALES`)."""
    return {k: f"{n}: {d} ({SCALES[k]})" for k, (n, d, _) in MEASURES.items()}


def identical(pairs) -> bool:
    """Did a ruleset play every game as the base did? ``pairs``: (its records, the base's)
    per table, on the same deals (the ruleset's may be the base's first deals only): true
    when every field of every game's record (:data:`.tables.FIELDS`: turns, how it ended,
    starter, dealer, winner, Shithead) is the same; then every difference from the base is
    exactly 0 and the change has no effect under this base."""
    for rec, base in pairs:
        n = rec["turns"].shape[1]
        if base["turns"].shape[1] < n or any(
                not np.array_equal(rec[k], base[k][:, :n]) for k in FIELDS):
            return False
    return True


def effect(low, high) -> int:
    """+1 / -1 when the interval lies above / below 0, else 0 (no effect shown)."""
    return 1 if low > 0 else -1 if high < 0 else 0


def normal(x) -> dict:
    """Mean of independent values with mean +- 1.96 standard errors (many games: the
    central limit theorem holds; a turn count is not bounded tightly enough for the
    bounded-mean intervals of :mod:`sim.studies.stats` to be narrow)."""
    x = np.asarray(x, float)
    if x.size == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    m = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else 0.0
    return {"estimate": m, "ci_low": m - Z * se, "ci_high": m + Z * se, "n": int(x.size)}


def bounded(x, bounds, sequential=False) -> dict:
    """Mean of per-deal values in ``bounds``: :func:`sim.studies.stats.mean_interval`, or its
    anytime-valid :func:`~sim.studies.stats.confidence_sequence` after stopping when clear."""
    return {**ends(interval(np.asarray(x, float), ALPHA, bounds, sequential=sequential)),
            "n": int(np.size(x))}


def with_diff(own: dict, diff: dict | None) -> dict:
    if diff is not None:
        diff["effect"] = (effect(diff["ci_low"], diff["ci_high"])
                          if diff["estimate"] is not None else 0)
        own["diff"] = diff
    return own


# -- length (the reference table: one strategy at every seat) -----------------------------
def length(rec, base=None) -> dict:
    """Turns of the games that finished (mean, spread: SD and deciles) and the share of
    endless games (stopped as a proven cycle or at the turn cap, R25)."""
    turns, end = rec["turns"][0], rec["end"][0]
    done = end == END_FINISHED
    t = turns[done].astype(float)
    own = normal(t)
    if t.size > 2:
        sd = float(t.std(ddof=1))
        m4 = float(((t - t.mean()) ** 4).mean())
        se_sd = math.sqrt(max(m4 - sd ** 4, 0.0) / t.size) / (2 * sd) if sd > 0 else 0.0
        own["sd"] = {"estimate": sd, "ci_low": sd - Z * se_sd, "ci_high": sd + Z * se_sd}
        own["deciles"] = [float(q) for q in np.percentile(t, [10, 50, 90])]
    n = int(end.size)
    endless = int((~done).sum())
    lo, hi = wilson(endless, n)
    share = {"estimate": endless / n, "ci_low": lo, "ci_high": hi, "n": n,
             "cycle": int((end == END_CYCLE).sum()), "cap": int((end == END_CAP).sum())}
    diff_t = diff_e = None
    if base is not None:
        b_turns, b_end = base["turns"][0], base["end"][0]
        both = done & (b_end == END_FINISHED)
        diff_t = normal(turns[both].astype(float) - b_turns[both])
        diff_e = bounded((~done).astype(float) - (b_end != END_FINISHED), (-1.0, 1.0))
    return {"turns": with_diff(own, diff_t), "endless": with_diff(share, diff_e)}


# -- outcomes: the win, or under V2 not being the Shithead --------------------------------
def fair(rec, players) -> float:
    """A seat's fair share of the good outcome: 1/N (going out first), under V2 (N-1)/N (not
    being the Shithead)."""
    return (players - 1) / players if rec["v2"] else 1 / players


def decisive(rec):
    """The seat the outcome is about, game by game: the winner, under V2 the Shithead; -1
    when the game did not finish."""
    return rec["loser"] if rec["v2"] else rec["winner"]


def gain(rec, seat, players):
    """Per game, ``seat``'s good outcome (1 or 0) minus its fair share; 0 for a game that did
    not finish (nobody gained)."""
    who = decisive(rec)
    good = (who != seat) if rec["v2"] else (who == seat)
    return np.where(who >= 0, good - fair(rec, players), 0.0)


def _bounds(rec, players):
    f = fair(rec, players)
    return (-f, 1 - f)


# -- the first mover and the seats (the reference table) ---------------------------------
def first_mover(rec, players, base=None) -> dict:
    """The starting player's gain over the fair share, game by game."""
    def values(r):
        return gain(r, r["starter"], players)[0]
    own = bounded(values(rec), _bounds(rec, players))
    diff = None if base is None else bounded(values(rec) - values(base), (-1.0, 1.0))
    return with_diff(own, diff)


def seats(rec, players) -> list[dict]:
    """Each seat's share of the good outcome (a win; under V2 not being the Shithead),
    seats counted from the dealer's left (1) to the dealer (N)."""
    who, dealer = decisive(rec)[0], rec["dealer"][0]
    pos = (who.astype(int) - dealer - 1) % players
    n = int(who.size)
    out = []
    for p in range(players):
        hits = int(((who >= 0) & (pos == p)).sum())
        if rec["v2"]:
            hits = int((who >= 0).sum()) - hits
        lo, hi = wilson(hits, n)
        out.append({"position": p + 1, "estimate": hits / n, "ci_low": lo, "ci_high": hi,
                    "n": n})
    return out


def seat_spread(rows) -> float:
    """The largest minus the smallest seat's share."""
    rates = [r["estimate"] for r in rows]
    return float(max(rates) - min(rates))


# -- skill and luck (rotated tables: the strong strategy at seat r in rotation r) ---------
def skill_values(rec, players):
    """Per deal: the strong seat's mean gain over the rotations as a share of the most it
    could gain, 1 - fair share: 0 = as by chance, 1 = it always wins (under V2: is never
    the Shithead). So the seed rules' and V2's outcomes are on one scale."""
    k = rec["winner"].shape[0]
    g = gain(rec, np.arange(k, dtype=np.int8)[:, None], players).mean(axis=0)
    return g / (1 - fair(rec, players))


def skill_bounds(rec, players):
    """The range of :func:`skill_values` (fixed before any game: the intervals need it)."""
    f = fair(rec, players)
    return (-f / (1 - f), 1.0)


def diff_bounds(rec, base, players):
    """The range of a skill difference from the base."""
    (lo, hi), (b_lo, b_hi) = skill_bounds(rec, players), skill_bounds(base, players)
    return (lo - b_hi, hi - b_lo)


def skill(rec, players, base=None, sequential=False) -> dict:
    own = bounded(skill_values(rec, players), skill_bounds(rec, players), sequential)
    diff = None
    if base is not None:
        n = rec["winner"].shape[1]
        diff = bounded(skill_values(rec, players) - skill_values(base, players)[:n],
                       diff_bounds(rec, base, players), sequential)
    return with_diff(own, diff)


def agreement(rec):
    """Per deal: the share of pairs of rotations whose decisive seat (the winner, under V2
    the Shithead) is the same (a game that did not finish agrees with none)."""
    w = decisive(rec).astype(int)
    k = w.shape[0]
    same = np.zeros(w.shape[1])
    for a in range(k):
        for b in range(a + 1, k):
            same += (w[a] == w[b]) & (w[a] >= 0)
    return same / (k * (k - 1) / 2)


def luck(rec, players, base=None) -> dict:
    """(agreement - 1/N) / (1 - 1/N): 0 when the deal says nothing of which seat wins (or,
    under V2, loses), 1 when it decides that seat whoever holds which seat."""
    scale = 1 - 1 / players

    def index(d, shift):
        return {k: (v - shift) / scale if k.startswith(("estimate", "ci_")) and
                v is not None else v for k, v in d.items()}
    own = index(bounded(agreement(rec), (0.0, 1.0)), 1 / players)
    diff = None
    if base is not None:
        diff = index(bounded(agreement(rec) - agreement(base), (-1.0, 1.0)), 0.0)
    return with_diff(own, diff)
