"""``sim tune``: the best parameters of a strategy against a field, by a well-kept optimiser.

A **table** (:func:`table_match`) seats the strategy being measured at one seat and the field
at the others (the field's names repeated in order to fill them), and plays every deal once
under each of the ``players`` rotations of that seating (duplicate deals: each seat's cards
and the starting player are the same in every rotation, so the luck of the deal falls on
every strategy alike). The unit of every interval is the deal.

Tuning (:func:`tune`) asks optuna's TPE sampler for parameter values (within the ranges the
strategy declares), measures each trial on the *same* deals (common random numbers: two
trials differ by their parameters, not by their cards), and keeps every trial in
``OUT/trials.jsonl`` so that ``--resume`` goes on where it stopped. At the end the best
trial's parameters and the defaults are measured again, side by side on the same fresh
deals that no trial saw (so that the best trial's luck, the winner's curse, does not count),
with the paired difference and its 95% interval over deals.
"""
from __future__ import annotations

import json
import math
import time
from typing import NamedTuple

import numpy as np

from sim.runs import folder
from sim.runs.kinds import KINDS
from sim.runs.workers import Group, Played, stream
from sim.runs.config import RunConfig, RunError
from sim.runs.partial import Interrupted, Partial
from sim.runs.saved import Loaded
from sim.studies import stats
from sim.studies.design import rotations
from sim.studies.match import (
    Match, places, seat_values, split_rotations, stack_rotations, strategy_results,
)
from sim.studies.saved import opened, result_of

# fresh deals for the final check start this far into the seed's game indices, far past any
# trial's (a game depends only on (seed, index), sim.kernel.rng)
FRESH_OFFSET = 1 << 40


def check_trials(trials) -> None:
    """``--trials``: 1 to 10,000 (:class:`RunError` otherwise), before anything is played."""
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 10_000:
        raise RunError(f"--trials: expected 1 to 10,000 (the optimiser slows with every trial), "
                       f"got {trials}")


def lineup(target: str, field: list[str], players: int) -> list[str]:
    """Seat 0 holds ``target``; the others hold the field's names in order, repeated."""
    if not field:
        raise RunError("the field (--against) names no strategy")
    return [target] + [field[i % len(field)] for i in range(players - 1)]


def table_match(seats: list[str], deals: int, seed: int = 0, rules="seed", first: int = 0,
                threads: int | None = None, max_turns: int = 10_000, block: int | None = None,
                progress=None, cycle_stop: bool = True, group=None) -> dict:
    """Play deals ``first .. first + deals - 1`` under every rotation of ``seats`` (rotation
    ``r`` puts ``seats[(s + r) % n]`` at seat ``s``), a :class:`sim.studies.match.Match`.

    Returns ``{"names": distinct strategies in seat order, "per_deal": (deals, k) array of
    each strategy's win rate per seat-game in that deal (V2: the share of the other seats
    finished behind), "games", "unfinished", "seconds", "cpu_seconds"}``: the process's CPU
    time, which on one thread (``threads=1``) measures games per second per core even on a
    shared machine.
    An unfinished game is won by nobody."""
    n = len(seats)
    names = list(dict.fromkeys(seats))
    order = np.array([names.index(s) for s in seats], np.int8)     # the one cyclic order
    match = Match(names, n, seed, rules, max_turns, threads, cycle_stop=cycle_stop, base=order)
    v2 = bool(match.configs[0].options["last_player_loses"])
    per_deal = np.zeros((deals, len(names)))
    block = block or max(1, min(deals, 2500))     # a unit of work, not of results
    t0, c0 = time.perf_counter(), time.process_time()
    unfinished = 0
    played = Played(progress)
    own = group is None                 # a tuning's trials share one group (and its speeds)
    group = Group(threads) if own else group

    def begin(item):
        done, m = item
        orders = np.tile(order, (m, 1))
        return match.start(group, orders, np.tile(first + done + np.arange(m, dtype=np.int64), n),
                           tick=played.tick, index=item)

    # the blocks are one stream on the pool (sim.runs.workers): no thread waits between them
    try:
        for h, (b, _) in stream(group, [(d, min(block, deals - d)) for d in range(0, deals, block)],
                                begin, lambda h: (h, h.result())):
            done, m = h.index
            finish, ok, _ = stack_rotations(split_rotations(b, n), n)
            unfinished += int((~ok).sum())
            value = seat_values(places(finish, ok, v2), ok, v2)
            per_deal[done:done + m] = strategy_results(
                value, rotations(h.orders, n).astype(np.int64), len(names))
    finally:
        if own:
            group.close()
    return {"names": names, "per_deal": per_deal, "games": deals * n, "unfinished": unfinished,
            "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}


def summarize(match: dict, target: int = 0, alpha: float = 0.05) -> dict:
    """Each strategy's result with its interval over deals, and ``target`` against each other
    strategy: the paired per-deal difference and its interval (Bonferroni over the others)."""
    x = match["per_deal"]
    k = x.shape[1]
    rows = []
    for i, name in enumerate(match["names"]):
        ci = stats.mean_interval(x[:, i], alpha=alpha)
        rows.append({"strategy": name, "result": ci["estimate"], "ci_low": ci["ci_low"],
                     "ci_high": ci["ci_high"]})
    level = alpha / max(1, k - 1)
    diffs = [{"against": match["names"][j], "difference": ci["estimate"], "ci_low": ci["ci_low"],
              "ci_high": ci["ci_high"], "p_value": ci["p_value"], "level": 1 - level}
             for j, ci in stats.versus(x, target, alpha)]
    return {"rows": rows, "differences": diffs, "deals": int(x.shape[0]),
            "games": match["games"], "unfinished": match["unfinished"],
            "games_per_second": match["games"] / max(match["seconds"], 1e-9),
            "games_per_cpu_second": match["games"] / max(match["cpu_seconds"], 1e-9)}


# -- tuning ----------------------------------------------------------------------------------
def tunable(strategy: str, only: list[str] | None = None) -> dict:
    """The parameters of ``strategy`` to tune: ``{name: (default, low, high, is_int)}``.

    Every numeric parameter with a finite declared range, or those named in ``only``, each
    ``NAME`` or ``NAME=LOW:HIGH`` (a narrower range, within the declared one). The defaults
    are the strategy's own, or the values given in its spec (``'counting(pickup_limit=2)'``).
    """
    from sim.runs.registry import get_move

    try:
        s = get_move(strategy)
    except ValueError as e:
        raise RunError(str(e)) from None
    values = dict(zip(s.params, s.values))
    out = {}
    for key, (default, low, high) in s.params.items():
        if isinstance(default, str) or low is None or not (math.isfinite(low)
                                                           and math.isfinite(high)):
            continue
        out[key] = (values[key], low, high, isinstance(default, int))
    if only:
        chosen = {}
        for item in only:
            name, eq, rng = item.partition("=")
            name = name.strip()
            if name not in s.params:
                raise RunError(f"--param {item!r}: {s.name} has no parameter {name!r} "
                               f"(parameters: {', '.join(s.params) or 'none'})")
            if name not in out:
                raise RunError(f"--param {item!r}: {name} has no finite numeric range to "
                               f"search")
            default, low, high, is_int = out[name]
            if eq:
                try:
                    lo_t, _, hi_t = rng.partition(":")
                    lo, hi = float(lo_t), float(hi_t)
                except ValueError:
                    raise RunError(f"--param {item!r}: expected NAME=LOW:HIGH") from None
                if not low <= lo < hi <= high:
                    raise RunError(f"--param {item!r}: the range must lie within "
                                   f"{low}..{high} and LOW < HIGH")
                low, high = (int(lo), int(hi)) if is_int else (lo, hi)
            chosen[name] = (default, low, high, is_int)
        out = chosen
    if not out:
        raise RunError(f"{s.name} declares no parameter with a finite numeric range: nothing "
                       f"to tune")
    return out


def spec_of(strategy: str, values: dict) -> str:
    """``'counting(pickup_limit=2, shed=3.1)'``: the strategy with these values (and any
    other values its own spec gives)."""
    from sim.kernel.strategy import parse_call

    name, args = parse_call(strategy)
    args = {**args, **values}
    if not args:
        return name
    return f"{name}(" + ", ".join(f"{k}={_fmt(v)}" for k, v in args.items()) + ")"


def _fmt(v) -> str:
    if isinstance(v, float):
        return repr(round(v, 4))
    return repr(v)


def _round(value, is_int):
    return int(round(value)) if is_int else round(float(value), 4)


def measure(spec: str, field: list[str], players: int, deals: int, seed: int, rules,
            first: int = 0, threads: int | None = None, max_turns: int = 10_000, progress=None,
            cycle_stop: bool = True, group=None):
    """``spec`` at one seat of a table with ``field`` (:func:`lineup`), rotated: its per-deal
    result, and the match (played in ``group``, a tuning's, if given)."""
    m = table_match(lineup(spec, field, players), deals, seed=seed, rules=rules, first=first,
                    threads=threads, max_turns=max_turns, progress=progress,
                    cycle_stop=cycle_stop, group=group)
    return m["per_deal"][:, 0], m


def _interval(x, bounds=(0.0, 1.0), null=None):
    return stats.ends(stats.mean_interval(x, bounds=bounds, null=null))


KIND = "tune"             # its format and what must match to resume: sim.runs.kinds


class TunePartial(NamedTuple):
    """An interrupted tuning's ``partial.result``: the ``trials`` finished, the ``best`` of
    them (None before the first; not checked on fresh deals) and ``saved``, tune.json as
    written, marked ``partial``."""

    trials: list
    best: dict | None
    saved: dict
RESULT = KINDS[KIND].result
TRIALS = "trials.jsonl"      # one line per trial, appended as they finish


def _trials(saved) -> list[dict]:
    """The trials saved in ``saved``'s trials.jsonl (up to a line cut by an interruption)."""
    trials = []
    for line in saved.lines(TRIALS):
        if line.strip():
            try:
                trials.append(json.loads(line))
            except ValueError:
                break                               # a line cut by an interruption
    return trials


def tune(strategy: str, against: list[str], players: int = 4, trials: int = 100,
         games_per_trial: int = 2000, fresh_games: int | None = None, seed: int = 0,
         rules="seed", threads: int | None = None, max_turns: int = 10_000, params=None, out=None,
         resume: bool = False, progress=None, log=None, cycle_stop: bool = True) -> dict:
    """Tune ``strategy``'s parameters for the highest win rate (V2: place share) at one seat
    of a table with ``against`` (see :func:`lineup`).

    Each trial plays ``games_per_trial`` games: ``games_per_trial // players`` deals, the same
    deals for every trial (common random numbers), each under every rotation of the seating.
    optuna's TPE sampler (seeded by ``seed``) proposes the values; the defaults are the first
    trial. Then the best trial's values and the defaults are measured on ``fresh_games`` (by
    default ``games_per_trial``) games of deals that no trial saw, with their paired
    difference. ``out``: a folder for manifest.json, trials.jsonl (one line per trial, as
    they finish) and tune.json; ``resume`` continues it, and gives the result
    of an uninterrupted search (each trial's sampler is seeded by ``seed`` and its number).
    Ctrl-C raises :class:`~sim.runs.partial.Interrupted` within about a second, its
    ``partial.result`` the result so far (the trials finished and the best of them, not
    checked on fresh deals, marked ``partial``; ``partial.stage`` "trials" or "the fresh-deal
    check")."""
    import optuna

    space = tunable(strategy, params)
    deals = games_per_trial // players
    if deals < 1:
        raise RunError(f"--games-per-trial: at least one deal of {players} games, got "
                       f"{games_per_trial}")
    check_trials(trials)
    fresh_deals = max(1, (fresh_games or games_per_trial) // players)
    cfg = RunConfig(games=1, players=players, seed=seed, rules=rules, max_turns=max_turns,
                    threads=threads, strategies=lineup(strategy, list(against), players),
                    cycle_stop=cycle_stop)
    options = {"strategy": strategy, "against": list(against), "players": players,
               "trials": trials, "games_per_trial": deals * players,
               "fresh_games": fresh_deals * players, "seed": seed, "rules": cfg.rules,
               "max_turns": max_turns, "cycle_stop": cycle_stop,
               "space": {k: [v[1], v[2], "int" if v[3] else "float"] for k, v in space.items()}}
    done: list[dict] = []
    saved = None
    if out is not None:
        # more trials, or a larger final check, continue the same search
        saved = folder.open_for_write(out, KIND, options=options, resume=resume,
                                      default=float)
        if resume:
            done = _trials(saved)
    else:
        folder.check_resume(resume, out, "tuning")
    head = {"strategy": strategy, "against": list(against), "players": players,
            "v2": bool(cfg.options["last_player_loses"])}

    def play(spec, n, first, played):
        """``spec`` on deals ``first ..`` of the table, after ``played`` games in all."""
        return measure(spec, against, players, n, seed, rules, first, threads, max_turns,
                       (lambda g: progress(played + g)) if progress else None, cycle_stop,
                       group)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {k: (optuna.distributions.IntDistribution(int(lo), int(hi)) if is_int
                 else optuna.distributions.FloatDistribution(float(lo), float(hi)))
             for k, (_, lo, hi, is_int) in space.items()}
    study = optuna.create_study(direction="maximize")
    for t in done:
        # the sampler's own values (before rounding), as the search saw them
        study.add_trial(optuna.trial.create_trial(params=t.get("sampled", t["params"]),
                                                  distributions=dists,
                                                  value=t["value"]))
    defaults = {k: v[0] for k, v in space.items()}
    if not done:
        study.enqueue_trial(defaults)
    t_start = time.perf_counter()
    group = Group(threads)          # every trial's games: the chunks' sizes carry over
    try:
        while len(done) < trials:
            # a sampler seeded for this trial: a resumed search proposes what the whole
            # one would
            trial_seed = (seed * 1_000_003 + len(done)) % 2**32
            study.sampler = optuna.samplers.TPESampler(seed=trial_seed)
            trial = study.ask(dists)
            values = {k: _round(trial.params[k], space[k][3]) for k in space}
            spec = spec_of(strategy, values)
            t0 = time.perf_counter()
            x, m = play(spec, deals, 0, len(done) * deals * players)
            value = float(x.mean())
            study.tell(trial, value)
            ci = _interval(x)
            rec = {"number": len(done), "params": values, "spec": spec, "value": value,
                   "ci_low": ci["ci_low"], "ci_high": ci["ci_high"], "games": m["games"],
                   "unfinished": m["unfinished"], "seconds": time.perf_counter() - t0,
                   "sampled": dict(trial.params)}
            done.append(rec)
            if saved is not None:
                saved.append_line(TRIALS, json.dumps(rec))
            if log:
                log(rec)
        best = max(done, key=lambda t: t["value"])
        default_spec = spec_of(strategy, defaults)
        # the fresh-deal check: both on the same deals, that no trial played
        played = len(done) * deals * players
        xb, mb = play(best["spec"], fresh_deals, FRESH_OFFSET, played)
        if best["spec"] == default_spec:                  # the same table: play it once
            xd, md = xb, mb
        else:
            xd, md = play(default_spec, fresh_deals, FRESH_OFFSET,
                          played + fresh_deals * players)
        diff = _interval(xb - xd, bounds=(-1.0, 1.0), null=0.0)
        result = {
            **head, "trials": done, "best": best,
            "fresh": {"deals": fresh_deals, "games": fresh_deals * players, "first_deal":
                      FRESH_OFFSET,
                      "best": {"spec": best["spec"], **_interval(xb), "unfinished":
                               mb["unfinished"]},
                      "default": {"spec": default_spec, **_interval(xd), "unfinished":
                                  md["unfinished"]},
                      "difference": diff,
                      "same": best["spec"] == default_spec,
                      "better": diff["ci_low"] > 0 and best["spec"] != default_spec},
            "seconds": time.perf_counter() - t_start,
            "options": options,
        }
        if saved is not None:
            saved.finish({RESULT: result})
        return result
    except KeyboardInterrupt:
        stage = "trials" if len(done) < trials else "the fresh-deal check"
        # tune.json of the trials so far and the best of them, not checked on fresh deals
        result = {**head, "trials": list(done),
                  "best": max(done, key=lambda t: t["value"]) if done else None,
                  "options": options,
                  "partial": (f"interrupted during {stage}, after {len(done)} of {trials} "
                              f"trials: the best so far is not checked on fresh deals"
                              f"{folder.resume_hint(saved)}")}
        if saved is not None:
            saved.mark_partial(result["partial"], {RESULT: result})
        raise Interrupted(Partial(TunePartial(result["trials"], result["best"], result),
                                  len(done), trials, "trials", stage)) from None
    finally:
        group.close()


def read(saved) -> Loaded:
    """The tuning in ``saved`` (kind ``tune``; sim.studies.saved): tune.json as ``tune``,
    its options (the manifest's, with the games played) as ``config``, and as
    ``by_strategy`` the best and the default parameters measured again on fresh deals
    (``role``, ``strategy``: the spec, ``games``, ``estimate`` and its interval)."""
    n = len(_trials(saved))
    wanted = saved.manifest.get("options", {}).get("trials", "?")
    d = result_of(saved, RESULT, "tune file", f" ({n} of {wanted} trials saved)")
    options = d.get("options") or saved.manifest.get("options", {})
    fresh = d.get("fresh") or {}
    games = (sum(t.get("games", 0) for t in d.get("trials", []))
             + 2 * fresh.get("games", 0))
    rows = [{"role": role, "strategy": fresh[role]["spec"], "games": fresh["games"],
             **{k: v for k, v in fresh[role].items() if k != "spec"}}
            for role in ("best", "default") if role in fresh]
    return opened(saved, d, config={**{k: v for k, v in options.items()
                                                 if k != "space"}, "games": games},
                  overall={"games": games}, by_strategy=rows)
