"""The whole swap study (the package docstring): the stages in order, and the saved folder
(kind ``swap-study``, :mod:`sim.runs.folder`: study.json, values.json, split.csv,
policy.csv, swap_values.csv, per-game records, manifest.json) and its reader."""
from __future__ import annotations

import numpy as np

from sim.kernel.cards import NAMES
from sim.kernel.ruleset import Ruleset
from sim.runs import folder
from sim.runs.kinds import KINDS
from sim.runs.workers import Played
from sim.runs.partial import Interrupted, Partial
from sim.runs.runner import RunError
from sim.runs.saved import Loaded, unfinished
from sim.runs.tally import UNFINISHED_POLICY as UNFINISHED_POLICY_RUNS
from sim.studies.saved import Games, close
from sim.studies.swapstudy.h2h import bh, head_to_heads, verdict
from sim.studies.swapstudy.model import (
    PRIOR_SD, PRIOR_SD_EXTRA, fit_split_model, write_cov_file, write_split_file,
)
from sim.studies.swapstudy.policy import examples, write_policy_file
from sim.studies.swapstudy.table import triple_table
from sim.studies.swapstudy.values import SwapStudyPartial, refuse_hand_size, values_stage

BUILTIN_SWAPS = ("none", "random", "highest-up", "specials-up", "lowest-hand")
KIND = "swap-study"         # its format and what must match to resume: sim.runs.kinds
STUDY = KINDS[KIND].result
VALUES = "values.json"      # the values stage's tally (older folders: summary.json)


def h2h_deals(games: int, h2h_games: int | None = None) -> int:
    """Deals per policy in the head-to-head: ``h2h_games``, by default a fifth of ``games``
    (at least 1,000)."""
    return h2h_games or max(1000, games // 5)


def planned_games(games: int, h2h_games: int | None = None) -> int:
    """Every game the study plays: the values stage's, then each head-to-head's (the old
    table and every built-in policy, each deal with the split policy's seats and then the
    other's)."""
    return games + 2 * h2h_deals(games, h2h_games) * (1 + len(BUILTIN_SWAPS))
# What the model's standard errors are: indicative (a replicate SD is below the reported SE,
# and under V2 a place share's variance is below the binomial's).
SE_NOTE = ("SE: the Laplace posterior SD of the penalised fit, treating the seats of one game "
           "as independent, so indicative, not an interval over games")
V2_SE_NOTE = ("; under V2 the binomial variance is assumed for the share of seats beaten (no "
              "dispersion estimated), which overstates it (4 players: about 1.3x too wide)")
UNFINISHED_POLICY = (UNFINISHED_POLICY_RUNS[0].upper() + UNFINISHED_POLICY_RUNS[1:]
                     + ": a loss for every seat in the triple table and the model, a result "
                     "of 0 for both sides in the head-to-head.")


def swap_study(out, players=4, games=100_000, seed=0, rules="seed", strategy="lowest",
               threads=None, h2h_games=None, progress=None, batch=100_000, max_turns=10_000,
               cycle_stop=True, resume=False, phase=None):
    """Run the study (the package docstring); write study.json, split.csv, policy.csv,
    swap_values.csv, per-game records, values.json and manifest.json into ``out``;
    return the study as a dict.

    ``progress(done)`` counts games of the current stage; ``phase(name, total)`` names each
    stage as it starts (``total`` games, or None for a stage without games). ``resume``
    reads back the batches saved in ``out`` by an interrupted study with the same options
    (the manifest) and plays the rest: the same study as an uninterrupted one. Ctrl-C raises
    :class:`~sim.runs.partial.Interrupted` within about a second, its ``partial.result``
    ``{"tally": the values stage's so far, "head_to_head": those finished}`` and its
    ``stage`` the stage interrupted; the folder is then marked partial, its values.json the
    values stage's games so far. Without ``resume``, ``out`` must hold no saved folder."""
    import numba

    try:
        ruleset = Ruleset.parse(rules)
    except ValueError:
        ruleset = None                           # bad rules: RunConfig names the fault
    if ruleset is not None:
        refuse_hand_size(ruleset)                # before anything is written
    threads = threads or numba.config.NUMBA_NUM_THREADS
    if not isinstance(games, int) or games < 1:
        raise RunError(f"--games: expected a positive number, got {games}")
    h2h_games = h2h_deals(games, h2h_games)
    options = {"players": players, "games": games, "seed": seed, "rules": rules,
               "strategy": strategy, "h2h_games": h2h_games, "max_turns": max_turns,
               "cycle_stop": cycle_stop}
    # the results are written again on --resume (never a mix of two)
    saved = folder.open_for_write(out, KIND, options=options, resume=resume,
                                  facts={"options": options, "batch": batch},
                                  extra={"batch": batch}, default=_json)
    out = saved.path
    kept = Games(saved, resume)
    phase = phase or (lambda name, total: None)
    phase("value games", games)
    try:
        stage = values_stage(players, games, seed, rules, strategy, threads, progress, kept,
                             batch, max_turns, cycle_stop)
    except Interrupted as e:
        _close(saved, e.partial.result.tally, options, stage=e.partial.stage)
        raise
    state = {"stage": "fitting", "head_to_head": []}       # what _rest has reached
    try:
        study = _rest(out, stage, kept, players, games, seed, rules, strategy, threads,
                      h2h_games, batch, max_turns, cycle_stop, progress, phase, state)
    except KeyboardInterrupt:
        _close(saved, stage["tally"], options, stage=state["stage"])
        h2h = state["head_to_head"]
        raise Interrupted(Partial(SwapStudyPartial(stage["tally"], h2h),
                                  games + sum(r["games"] for r in h2h),
                                  planned_games(games, h2h_games),
                                  stage=state["stage"])) from None
    _close(saved, stage["tally"], options, study)
    return study


def _close(saved, tally, options, study=None, stage=None):
    """values.json (the values stage's tally, a run's summary, with the study's options) and
    study.json, the folder marked finished; or, interrupted in ``stage``, values.json of the
    values stage's games so far and the folder marked partial (sim report reads it;
    --resume continues)."""
    values = tally.to_dict()
    values["config"] = dict(values["config"], **options)
    partial = None
    if stage is None:
        values["note"] = "the values stage: every seat plays with random swaps"
    else:
        partial = values["partial"] = (f"interrupted in the {stage} stage: the values stage's "
                                       f"games so far; continue with --resume")
    close(saved, {VALUES: values} if study is None else {STUDY: study, VALUES: values},
          partial)


def read(saved) -> Loaded:
    """The swap study in ``saved`` (kind ``swap-study``; sim.studies.saved): study.json
    as ``study``, the values stage's tally (values.json; summary.json in older folders) as
    ``summary``, its seat and strategy tables, and the games of every stage. An interrupted
    study opens with its values stage only (``study`` None, ``summary["partial"]``)."""
    import pandas as pd

    manifest = saved.manifest
    values = VALUES if saved.has(VALUES) else "summary.json"
    summary = saved.json(values, "values file") if saved.has(values) else None
    study = saved.json(STUDY, "study file") if saved.has(STUDY) else None
    if summary is not None and study is None and manifest.get("partial"):
        summary.setdefault("partial", manifest["partial"])
    if summary is None or (study is None and not summary.get("partial")):
        parts = saved.parts()
        raise ValueError(unfinished(saved.path, manifest, STUDY,
                                    f" ({len(parts)} files of games saved)" if parts else ""))
    return Loaded(path=saved.path, manifest=manifest, summary=summary,
                  by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(summary.get("by_strategy", [])), result=study,
                  parts=saved.parts())


def _rest(out, stage, kept, players, games, seed, rules, strategy, threads, h2h_games,
          batch, max_turns, cycle_stop, progress, phase, state):
    """The stages after the values stage: tables, model, policy, head-to-head; the study.
    ``state``: the stage under way and the head-to-heads finished, kept up to date (what an
    interruption has finished)."""
    from strategies.swaps import read_split, write_table

    phase("fitting the split model", None)
    rows, shrink = triple_table(stage)
    model = fit_split_model(stage, players, threads=threads)
    split_file = write_split_file(out / "split.csv", model)
    split_spec = f"split(file={split_file})"
    row = read_split(split_file)
    table_file = write_table(out / "swap_values.csv",
                             {tuple(r["triple"]): r["win_rate"] for r in rows})
    # the files no game needs are written on a thread of their own meanwhile: the
    # covariance (sim swap --model's intervals) and the policy of every six-card set
    from concurrent.futures import ThreadPoolExecutor
    writer = ThreadPoolExecutor(1, thread_name_prefix="shithead-write")
    written = [writer.submit(write_cov_file, out / "split_cov.npz", model),
               writer.submit(write_policy_file, out / "policy.csv", row, stage["deck"])]
    writer.shutdown(wait=False)
    table_spec = f"table(file={table_file})"
    rivals = [("table (old: raw triple win rates)", table_spec)] + [(p, p) for p in
                                                                    BUILTIN_SWAPS]
    phase("head-to-head games", 2 * h2h_games * len(rivals))
    played = Played(progress)
    state["stage"] = "head-to-head"
    h2h = state["head_to_head"]
    try:
        head_to_heads(split_spec, rivals, players, h2h_games, seed + 1, rules, strategy,
                      threads, kept, batch=batch, max_turns=max_turns, cycle_stop=cycle_stop,
                      tick=played.tick, done=h2h)
    finally:
        policy_file = [f.result() for f in written][1]
    for r, p in zip(h2h, bh([r["p_value"] for r in h2h])):
        r["p_adjusted"] = p
        r["share"] = float(r["share"])
    examples_ = examples(model, row, stage["deck"])
    cards = [{"card": NAMES[r], "gain": float(model["gain"][r]),
              "se": float(model["gain_se"][r]),
              "points": float(model["gain"][r] * model["slope"])}
             for r in model["ranks"]]
    study = {"players": players, "games": games, "unfinished": stage["unfinished"],
             "seed": seed, "rules": rules, "strategy": strategy,
             "unfinished_policy": UNFINISHED_POLICY,
             "triples": rows, "triples_note": (
                 "Descriptive: the win rate of the seats that held each face-up triple after "
                 "random swaps. It includes the value of owning those cards (and, under the "
                 "seed rules, R6's start), so it is not the value of putting them face up; "
                 "'shrunk' pulls rare triples towards the mean (empirical Bayes)."),
             "shrinkage": shrink,
             "model": {"note": model.get("note", ""),
                       "kind": "logistic regression (L2 penalty; Newton's method on every "
                               "core, scikit-learn's LogisticRegression(C=1) objective) of a "
                               "seat's win "
                               "on rank x place terms (cards of each rank face up and in "
                               "hand, pairs, triples), a term for each face-up triple and "
                               + ("each hand triple, and the position after the starting "
                                  "player" if stage["position"] else
                                  "each hand triple; no position term: under V1 or H14 "
                                  "starter=hand the swap decides who starts"),
                       "position_term": stage["position"],
                       "se": SE_NOTE + (V2_SE_NOTE if stage["v2"] else ""),
                       "prior_sd": PRIOR_SD, "prior_sd_extra": PRIOR_SD_EXTRA,
                       "prior_sd_triple": model["sd_triple"],
                       "held_out_loglik": model["held_out"],
                       "cells": model["cells"], "seat_games": model["seat_games"],
                       "mean": model["mean"], "intercept": model["intercept"],
                       "coefficients": model["coef"]},
             "cards": cards,
             "examples": examples_,
             "split_file": str(split_file), "split_policy": split_spec,
             "policy_file": str(policy_file),
             "table_file": str(table_file), "table_policy": table_spec,
             "head_to_head": h2h, "verdict": verdict(h2h),
             "answer": plain_answer({"cards": cards, "head_to_head": h2h}),
             "h2h_games_per_policy": 2 * h2h_games, "h2h_seed": seed + 1}
    return study


def plain_answer(study) -> str:
    """The study's answer in plain words, for its first lines: which cards are worth most
    face up and which in hand (the model's rank terms), and by how much the split policy
    beats the usual advice (highest-up) in the head-to-head. ``study``: study.json's dict
    (its ``cards`` and ``head_to_head``); an older study without them gets what it has."""
    cards = sorted(study.get("cards") or [], key=lambda c: -c["gain"])
    parts = []
    if cards:
        up = [c["card"] for c in cards if c["gain"] > 0]
        hand = [c["card"] for c in reversed(cards) if c["gain"] <= 0]
        parts.append(f"Worth most face up (rather than in hand), best first: {' '.join(up)}; "
                     f"worth most in hand: {' '.join(hand)}. Use `sim swap` (or --swap "
                     f"split(file=...)) for the best split of your own six cards.")
    usual = next((r for r in study.get("head_to_head") or []
                  if isinstance(r, dict) and r.get("policy") == "highest-up"), None)
    if usual is not None:
        p = usual.get("p_adjusted", usual.get("p_value"))
        clear = p is not None and p < 0.05
        parts.append(f"The split policy {'beats' if usual['diff'] > 0 else 'trails'} the usual "
                     f"advice (highest-up: 2s, 10s, then the highest cards face up) by "
                     f"{abs(100 * usual['diff']):.2f} points of win rate per seat (95% CI "
                     f"{100 * usual['ci_low']:+.2f} to {100 * usual['ci_high']:+.2f}; "
                     + ("clear" if clear else "not clear") + ", BH-adjusted).")
    return " ".join(parts)


def _json(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)

