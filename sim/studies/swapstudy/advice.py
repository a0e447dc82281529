"""The swap advisor (``sim swap``, and ``hint`` at ``sim play``'s swap prompt): the splits of
one seat's six cards into three face up and three in hand (R5), best first, each with its
value and 95% interval, and the answer in plain words.

Two sources. **Playouts** (:func:`by_playouts`): deals where the seat holds the six cards
(:func:`sim.kernel.sampling.deal_holding`), each played once for every split, on the same
deal and random stream (common random numbers: the splits are compared deal by deal), every
seat playing one strategy, the other seats swapping by its own swap policy; the seat's
result is the swap study's (a win under the seed rules, under V2 the share of the other
seats finished behind; an unfinished game is 0, R25). Where the six were dealt (face up or
in hand, which decides R6's start as dealt and what R26 lets the others know) is random, as
in a real deal. **A study's model** (:func:`by_model`): the split values of a folder saved
by ``sim study swap`` (``split.csv``, the split policy's own numbers), with intervals from
its saved posterior covariance (``split_cov.npz``) when the folder has one.

A split's value is the seat's mean result (playouts, with its 95% interval) or the model's
log-odds (model: up to a constant, only differences between splits of the same six cards are
identified, so no interval of its own); every split is also given as points of win rate (V2:
of share beaten) against the best, with a paired 95% interval. "The usual advice" is
``highest-up`` (2s, 10s, jokers, then the highest cards face up).
"""
from __future__ import annotations

import json
import math
import time
import zipfile
from pathlib import Path

import numpy as np

from sim.kernel.cards import NAMES, NRANK
from sim.studies.analysis import splits_of
from sim.studies.race import paired_difference
from sim.studies.swapstudy.triples import card_names, table_code, usual_up, words

DEFAULT_DEALS = 5000
DEFAULT_STRATEGY = "lowest"          # the swap study's default
DEFAULT_CAP = 2000                   # a playout's turn limit (R25)
USUAL = "highest-up"


class AdviceError(ValueError):
    """Input the advisor cannot answer (bad cards, a folder that holds no study, ...)."""


# -- the six cards and their splits ----------------------------------------------------------
def check_cards(codes, ruleset, players) -> np.ndarray:
    """The six cards (rank codes) checked against the ruleset's deck for ``players`` (R1,
    H13) and its swap (R5 at H12's hand size 3, the study's): sorted codes, else
    :class:`AdviceError` naming the fault."""
    if ruleset.hand_size != 3:
        raise AdviceError(f"hand_size={ruleset.hand_size} (H12): the advisor splits 6 cards "
                          f"into 3 face up and 3 in hand (R5 at hand_size=3)")
    codes = sorted(int(c) for c in codes)
    if len(codes) != 6:
        raise AdviceError(f"give the 6 cards a swap chooses from (3 face up + 3 in hand, R5), "
                          f"got {len(codes)}")
    deck = ruleset.deck_counts(players)
    for r in sorted(set(codes)):
        if codes.count(r) > deck[r]:
            held = "no" if deck[r] == 0 else f"only {deck[r]}"
            why = (" (no jokers under this ruleset at this table, H13)" if r == NRANK - 1
                   else " (R1)")
            raise AdviceError(f"{codes.count(r)} x {NAMES[r]}: the deck holds {held}{why}")
    return np.array(codes, np.int64)


def usual_split(codes) -> tuple:
    """The face-up codes ``highest-up`` chooses from these six cards (as dealt under V1)."""
    return tuple(int(codes[i]) for i in usual_up(codes))


# -- by playouts -----------------------------------------------------------------------------
def by_playouts(codes, players=4, rules="seed", strategy=DEFAULT_STRATEGY,
                deals=DEFAULT_DEALS, seed=0, max_turns=DEFAULT_CAP, cycle_stop=True,
                progress=None, threads=None) -> dict:
    """The splits of ``codes`` valued by ``deals`` deals of playouts (module docstring),
    seat 0 holding the cards; ``progress(games done, games)`` once the input is checked, then
    as deals finish. The same ``seed`` and options give the same numbers, whatever the
    ``threads`` (default: all cores)."""
    from sim.kernel.compiler import install
    from sim.kernel.sampling import split_playouts
    from sim.kernel.referee import BAD_MOVE, BAD_SWAP, UNFINISHED
    from sim.runs.config import RunConfig, check_seed
    from sim.runs.runner import RunError
    from sim.runs.workers import Group
    from sim.studies.match import seat_value

    if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
        raise AdviceError(f"--deals: expected a positive number of deals, got {deals!r}")
    check_seed(seed)
    try:
        base = RunConfig(players=players, strategies=[strategy], rules=rules,
                         max_turns=max_turns, cycle_stop=cycle_stop)
        codes = check_cards(codes, base.ruleset, players)
        # seat 0 swaps by `table`, its row all zeros but the split's face-up triple (set by
        # the kernel): the split policy's own machinery, forced to each split in turn
        from strategies.swaps import TABLE_SIZE
        cfg = RunConfig(players=players, strategies=[strategy],
                        swaps=["table"] + base.swaps[1:], rules=rules, max_turns=max_turns,
                        cycle_stop=cycle_stop,
                        preset_rows=base.rows[:players] + [np.zeros(TABLE_SIZE)]
                        + base.rows[players + 1:])
    except RunError as e:
        raise AdviceError(str(e)) from None
    install()
    splits = splits_of(codes)
    ups = np.array([table_code(u) for u, _, _ in splits], np.int64)
    want = np.bincount(codes, minlength=NRANK).astype(np.int64)
    pool, kinds = cfg.pool, cfg.seat_table
    detect = cfg.cycle_detect
    impure = cfg.impure_seats()
    v2 = bool(cfg.ruleset.last_player_loses)
    value = np.zeros((deals, len(splits)))         # seat 0's result, deals x splits
    counts = []                                    # per chunk: games refused, unfinished

    def block(lo, hi):
        # the chunk's finishing orders and statuses: only seat 0's results are kept
        o = np.full((hi - lo, len(splits), players), -1, np.int8)
        s = np.zeros((hi - lo, len(splits)), np.int8)
        split_playouts(np.uint64(seed), lo, 0, want, ups, pool.moves, pool.swaps,
                       pool.params, kinds, cfg.rules_vector, players, max_turns, impure, detect,
                       o, s)
        # the chunk's results, on the pool's thread (not after every chunk, on one)
        done = s != UNFINISHED
        value[lo:hi] = seat_value(o, done, v2, 0)
        counts.append((int(((s == BAD_SWAP) | (s == BAD_MOVE)).sum()), int((~done).sum())))

    if progress:
        progress(0, deals * len(splits))     # checked, about to start (or compile)
    block(0, 0)                          # compile (or load) before the clock starts
    t0 = time.perf_counter()
    played = [0]

    def tick(n):
        played[0] += n
        progress(played[0] * len(splits), deals * len(splits))

    # the deals in chunks on the process's threads (sim.runs.workers): each deal's games
    # depend on its index alone
    with Group(threads) as group:
        job = group.submit(deals, block, kind="split playouts", tick=tick if progress else None)
        group.wait(job)
        if job.done < deals:
            raise KeyboardInterrupt("interrupted")
    seconds = time.perf_counter() - t0
    bad, unfinished = (sum(c) for c in zip(*counts)) if counts else (0, 0)
    if bad:
        raise AdviceError(f"strategy {strategy!r} made an illegal move or swap in a playout "
                          f"(R24, R5)")
    rows = _rows(splits, value.mean(axis=0), value, None, v2)
    return _advice(codes, splits, rows, cfg.ruleset, players, v2, {
        "method": "playouts", "deals": deals, "games": deals * len(splits), "seed": seed,
        "strategy": strategy, "opponents_swap": base.swaps[1], "max_turns": max_turns,
        "unfinished": unfinished, "seconds": seconds,
        "budget": (f"{deals:,} deals x {len(splits)} splits = {deals * len(splits):,} games "
                   f"of {strategy} (the others swap by {base.swaps[1]}), seed {seed}, paired "
                   f"over common deals")})


# -- from a study's model --------------------------------------------------------------------
# what by_model reads of a study's study.json and split_cov.npz
STUDY_KEYS = ("players", "rules", "games", "strategy", "seed", "model")
COV_KEYS = ("place", "id", "term", "cov")


def read_study(folder) -> dict:
    """A ``sim study swap`` folder's study.json and split.csv (its split policy's row);
    :class:`AdviceError` for a folder that is not one."""
    from sim.kernel.ruleset import Ruleset
    from strategies.swaps import read_split
    d = Path(folder).expanduser()
    try:
        study = json.loads((d / "study.json").read_text())
    except (OSError, ValueError):
        raise AdviceError(f"--model: {str(d)!r} holds no swap study (no readable study.json; "
                          f"make one with `sim study swap --out DIR`)") from None
    if not (d / "split.csv").is_file() or not isinstance(study, dict) or "players" not in study:
        raise AdviceError(f"--model: {str(d)!r} holds no finished swap study (no split.csv)")
    missing = [k for k in STUDY_KEYS if k not in study]
    if missing or not isinstance(study["model"], dict) or "mean" not in study["model"]:
        raise AdviceError(f"--model: {str(d / 'study.json')!r} is damaged: it lacks "
                          f"{', '.join(missing) or 'model.mean'}; run the study again")
    try:
        Ruleset.parse(study["rules"])
        row = read_split(d / "split.csv")
    except ValueError as e:
        raise AdviceError(f"--model: {e}") from None
    cov = None
    if (d / "split_cov.npz").is_file():
        try:
            with np.load(d / "split_cov.npz") as z:
                cov = {k: z[k] for k in COV_KEYS}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            raise AdviceError(f"--model: {str(d / 'split_cov.npz')!r} is damaged (it should "
                              f"hold {', '.join(COV_KEYS)}); delete it to advise without "
                              f"intervals, or run the study again") from None
    return {"study": study, "row": row, "cov": cov, "dir": d}


def by_model(codes, folder, players=None, rules=None) -> dict:
    """The splits of ``codes`` valued by the model of the study saved in ``folder``. Its
    players and ruleset are used; a ``players`` or ``rules`` given that differ from them is
    an :class:`AdviceError` (the model was fitted under those only)."""
    from sim.kernel.ruleset import Ruleset
    from strategies.swaps import split_value

    saved = read_study(folder)
    study = saved["study"]
    ruleset = Ruleset.parse(study["rules"])
    if players is not None and players != study["players"]:
        raise AdviceError(f"--model: the study in {str(saved['dir'])!r} was run with "
                          f"{study['players']} players, not {players}: drop --players or "
                          f"use a study of {players} players")
    if rules is not None:
        try:
            asked = Ruleset.parse(rules)
        except ValueError as e:
            raise AdviceError(f"--rules: {e}") from None
        if asked.to_dict() != ruleset.to_dict():
            diff = sorted(k for k, v in asked.to_dict().items() if ruleset.to_dict()[k] != v)
            raise AdviceError(f"--model: the study in {str(saved['dir'])!r} ran under other "
                              f"rules ({', '.join(diff)} differ): drop --rules or use a "
                              f"study of these rules")
    players = int(study["players"])
    codes = check_cards(codes, ruleset, players)
    splits = splits_of(codes)
    up = np.array([table_code(u) for u, _, _ in splits])
    hand = np.array([table_code(h) for _, h, _ in splits])
    logit = split_value(saved["row"], up, hand)
    if not np.isfinite(logit).all():
        raise AdviceError(f"--model: the study's split.csv does not value every split of "
                          f"{words(codes)} (cards its deck did not hold?)")
    v2 = bool(ruleset.last_player_loses)
    slope = float(study["model"]["mean"]) * (1 - float(study["model"]["mean"]))
    rows = _rows(splits, logit, None, _design(saved["cov"], splits), v2, slope)
    return _advice(codes, splits, rows, ruleset, players, v2, {
        "method": "model", "model": str(saved["dir"]), "games": study["games"],
        "strategy": study["strategy"], "seed": study["seed"],
        "budget": (f"the split model of {str(saved['dir'])!r} ({study['games']:,} games of "
                   f"{study['strategy']}, random swaps, seed {study['seed']}); no games "
                   f"played"),
        "interval_note": ("from the model's posterior covariance (Laplace; seats of one game "
                          "taken as independent: indicative)" if saved["cov"] is not None
                          else "none: this study folder has no split_cov.npz (made before "
                          "it was saved); run the study again for intervals")})


def _design(cov, splits):
    """Each split's row of the model's terms (its value is row @ coef) and the covariance,
    or None without a saved covariance."""
    if cov is None:
        return None
    from sim.studies.swapstudy.model import split_terms
    col = {(str(p), int(i), str(t)): k for k, (p, i, t) in
           enumerate(zip(cov["place"], cov["id"], cov["term"]))}
    X = np.stack([split_terms(col, u, h) for u, h, _ in splits])
    return X, cov["cov"]


def _rows(splits, value, per_deal, design, v2, slope=None):
    """One row per split: its value and interval, and its difference with the best in points
    and that difference's interval (paired over deals, or from the model's covariance)."""
    from sim.studies.stats import mean_interval
    from sim.runs.tally import wilson

    best = int(np.argmax(value))                     # the first of highest value
    rows = []
    for i, (u, h, _) in enumerate(splits):
        row = {"face_up": card_names(u), "hand": card_names(h), "value": float(value[i])}
        if per_deal is not None:                     # playouts: a mean result over deals
            x = per_deal[:, i]
            if v2:
                ci = mean_interval(x, bounds=(0.0, 1.0))
                row["low"], row["high"] = ci["ci_low"], ci["ci_high"]
            else:
                row["low"], row["high"] = wilson(int(x.sum()), int(x.size))
            d = paired_difference(per_deal, i, best, 1.0, 0.05, complete=True)
            row["vs_best"] = 100 * d["estimate"]
            row["vs_best_low"], row["vs_best_high"] = 100 * d["ci_low"], 100 * d["ci_high"]
            if i == best:                            # the reference itself
                row["vs_best_low"] = row["vs_best_high"] = 0.0
        else:                                        # the model: log-odds, points by slope
            row["vs_best"] = 100 * slope * (value[i] - value[best])
            row["low"] = row["high"] = row["vs_best_low"] = row["vs_best_high"] = None
            if design is not None:
                X, cov = design       # a value alone has no interval: only differences
                dd = X[i] - X[best]                  # 0 for the best itself
                sd = math.sqrt(max(float(dd @ cov @ dd), 0.0))
                row["vs_best_low"] = row["vs_best"] - 100 * slope * 1.96 * sd
                row["vs_best_high"] = row["vs_best"] + 100 * slope * 1.96 * sd
        rows.append(row)
    order = sorted(range(len(rows)), key=lambda i: -value[i])     # stable: ties keep order
    for rank, i in enumerate(order, 1):
        rows[i]["rank"] = rank
    return [rows[i] for i in order]


def _advice(codes, splits, rows, ruleset, players, v2, how) -> dict:
    """The advice as a dict (the JSON results of ``sim swap``): the rows best first, the
    answer in words, the margins over the next split and the usual advice, and ``tie``: the
    splits not clearly different from the best (:func:`tie`). Its text is
    :mod:`reports.swap`'s."""
    usual = card_names(usual_split(codes))
    best = rows[0]
    nxt = rows[1] if len(rows) > 1 else None
    usual_row = next(r for r in rows if r["face_up"] == usual)
    measure = ("share of the other seats finished behind (V2)" if v2
               else "win chance (the first seat out wins, R18)")
    out = {"cards": card_names(codes), "players": players, "rules": ruleset.to_json(),
           "measure": measure,
           "splits": rows, "answer": answer(best), "best": best, "next": nxt,
           "usual": {"policy": USUAL, "face_up": usual, "row": usual_row,
                     "is_best": usual_row is best}}
    out.update(how)
    out["tie"] = tie(rows, how["deals"] if how["method"] == "playouts" else how["games"])
    return out


def tie(rows, n: int) -> dict | None:
    """The best split and the splits whose paired interval against it includes 0
    (:func:`sim.studies.stats.tie_group` over ``n`` deals, or the study's games for a model):
    ``tied`` (their face-up cards in words, best first), ``clear``, ``n``, ``more``. None
    without intervals (a model folder without its covariance) or with one split."""
    from sim.studies.stats import tie_group

    if len(rows) < 2 or any(r["vs_best_low"] is None for r in rows[1:]):
        return None
    g = tie_group([{"estimate": -r["vs_best"], "ci_low": -r["vs_best_high"],
                    "ci_high": -r["vs_best_low"]} for r in rows[1:]], n)
    g["tied"] = [words_of(rows[0])] + [words_of(rows[1 + i]) for i in g["tied"]]
    return g


def words_of(row) -> str:
    """A split by its face-up cards: ``4 10 K``."""
    return " ".join(row["face_up"])


def answer(row) -> str:
    return f"put {' '.join(row['face_up'])} face up, keep {' '.join(row['hand'])}"


def hint(names, players, ruleset) -> dict | str:
    """``sim play``'s ``hint`` at the swap: ``sim swap``'s advice for these six cards (names)
    at this table, with its default budget (:func:`by_playouts`), or why there is none;
    :func:`reports.swap.hint_text` says it."""
    from sim.kernel.cards import rank_code
    try:
        return by_playouts([rank_code(n) for n in names], players=players, rules=ruleset)
    except AdviceError as e:
        return f"No swap advice: {e}."
