"""The rules lab: every ruleset of :mod:`.variants` on the same deals, its measures
(:mod:`.measures`) and the effects that stand out; saved for ``sim report`` and resumable.

Two stages. The cheap one plays, for every ruleset, the reference table (``strategy`` at
every seat: length, endless games, first mover, seats) and the rotated ``counting``-against-
``random`` table (skill, luck) at the batch core's full speed. The costly one plays the
rotated ``montecarlo``-against-``lowest`` table in blocks of deals, the base's to
``mc_deals``, every other ruleset's only until the anytime-valid interval of its paired
difference from the base excludes 0 or is narrower than ``precision`` (stop when clear, as
``sim compare --until-clear``), so a rule without effect costs few bot games. Every block is
kept under ``DIR/units`` as it finishes; ``resume`` reads them back, so the stopping
decisions and the result are those of an uninterrupted study.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.runs import folder
from sim.runs.kinds import KINDS
from sim.runs.workers import Group, Played, stream
from sim.runs.config import RunError
from sim.runs.partial import Interrupted, Partial
from sim.runs.saved import Loaded
from sim.studies.ruleslab import measures as m
from sim.studies.ruleslab.tables import Table, Units, join, start_block
from sim.studies.ruleslab.variants import variants
from sim.studies.saved import close, opened, result_of
from sim.studies.stats import confidence_sequence

KIND = "rules-lab"
COUNTING = Table("counting", weak="random", strong="counting")
MONTECARLO = Table("montecarlo", weak="lowest", strong="montecarlo")
MEASURES = m.MEASURES          # key -> (name, what it is, unit)


def rules_lab(players=4, base="seed", rule=(), only=(), seed=0, games=40_000, skill_deals=10_000,
              mc_deals=100, mc_block=20, precision=0.1, strategy="lowest",
              max_turns=10_000, threads=None, cycle_stop=True, batch=50_000, out=None,
              resume=False, backend=None, progress=None, phase=None) -> dict:
    """Run the study (module doc) and return its result; with ``out`` save ruleslab.json,
    manifest.json and the units. ``progress(done)`` counts the games of the
    stage named by ``phase(label, total)``. Ctrl-C raises
    :class:`~sim.runs.partial.Interrupted` within about a second, its ``partial.result`` the
    result of the rulesets measured so far (saved too; ``resume`` goes on).

    ``games_played`` counts every game of the result, those read back from ``out`` on
    ``resume`` too: a resumed study reports the totals of an uninterrupted one."""
    import numba

    for name, value, low, most, why in (
            ("--games", games, 1, 10**7, "every ruleset's games are kept in memory"),
            ("--skill-deals", skill_deals, 1, 10**6, "every ruleset's games are kept in memory"),
            ("--mc-deals", mc_deals, 0, 10**5, "montecarlo's games take seconds each"),
            ("--mc-block", mc_block, 1, 10**5, "montecarlo's games take seconds each")):
        if not isinstance(value, int) or value < low:
            raise RunError(f"{name}: expected a whole number of at least {low}, got {value}")
        if value > most:
            raise RunError(f"{name}: at most {most:,} ({why}), got {value}")
    if not 0 < precision < 1:
        raise RunError(f"--precision: expected a share between 0 and 1, got {precision}")
    try:
        vs, refused, skipped = variants(base, players, rule, only)
    except ValueError as e:
        raise RunError(str(e)) from None
    threads = threads or numba.config.NUMBA_NUM_THREADS
    plan = {"players": players, "base": base, "rule": list(rule), "only": list(only),
            "seed": seed, "games": games,
            "skill_deals": skill_deals, "mc_deals": mc_deals, "mc_block": mc_block,
            "precision": precision, "strategy": strategy, "max_turns": max_turns,
            "cycle_stop": bool(cycle_stop), "batch": batch,
            "variants": [v.ident for v in vs], "ruleset": vs[0].ruleset.to_json()}
    folder.check_resume(resume, out, "study")
    saved = _open(out, plan, resume) if out is not None else None
    if backend is None:
        from sim.runs.backends import LocalBackend
        backend = LocalBackend(threads)
    spec = {"players": players, "seed": seed, "max_turns": max_turns, "threads": threads,
            "batch": batch, "cycle_stop": bool(cycle_stop)}
    reference = Table("reference", weak=strategy)
    units = Units(saved)
    state = {"vs": vs, "refused": refused, "skipped": skipped, "plan": plan, "ref": {},
             "counting": {}, "mc": {}, "stopped": {}, "played": 0}
    phase = phase or (lambda label, total: None)

    group = Group(threads)
    played = [Played(progress)]

    def begin(table, i, first, deals):
        """A block of ``table`` under ruleset ``i``, started (or read back: no jobs)."""
        rec = units.load(table.name, i, first)
        if rec is not None:
            return _Loaded(rec, (table, i, first))
        return start_block(table, vs[i].ruleset, first, deals, spec, backend, group,
                           played[0].tick, (table, i, first))

    def finish(h):
        """The block's records, saved if played now; counted in the games played."""
        table, i, first = h.index
        rec = h.result()
        if isinstance(h, _Loaded):
            played[0].seen(played[0].done + rec["turns"].size)
        else:
            units.save(table.name, i, first, rec)
        state["played"] += rec["turns"].size           # played now or read back: every game
        return rec

    stage = ["reference and counting"]
    try:
        with group:
            phase("rules lab: reference and counting games",
                  len(vs) * (games + players * skill_deals))
            # every ruleset's two tables are one stream on the pool (sim.runs.workers)
            items = [(t, i, 0, n) for i in range(len(vs))
                     for t, n in ((reference, games), (COUNTING, skill_deals))]
            for h, rec in stream(group, items, lambda it: begin(*it),
                                 lambda h: (h, finish(h))):
                table, i, _ = h.index
                state["ref" if table is reference else "counting"][i] = rec
            if mc_deals:
                stage[0] = "montecarlo"
                phase("rules lab: montecarlo games (at most)", len(vs) * players * mc_deals)
                played[0] = Played(progress)
                _montecarlo(state, vs, mc_deals, mc_block, precision, players, group,
                            lambda i, first, n: begin(MONTECARLO, i, first, n), finish)
    except KeyboardInterrupt:
        result = summarize(state, partial=True)
        if saved is not None:
            close(saved, {RESULT: result}, result["partial"])
        raise Interrupted(Partial(LabPartial(result, result["measured"], result["of"]),
                                  result["games_played"], stage=stage[0])) from None
    result = summarize(state)
    if saved is not None:
        close(saved, {RESULT: result})
    return result


class _Loaded:
    """A block read back from the folder (``--resume``), as a started one reads."""

    jobs = ()

    def __init__(self, rec, index):
        self.rec, self.index = rec, index

    def result(self):
        return self.rec


def _montecarlo(state, vs, mc_deals, mc_block, precision, players, group, begin, finish):
    """The costly table: the base's blocks to ``mc_deals``, every other ruleset's until its
    paired difference is clear or precise (the module doc).

    Every ruleset's blocks are played side by side on the pool: each one's stopping depends
    on its own blocks and the base's alone, decided after each of its blocks in order, so
    the result is that of the rulesets measured one after the other. While few rulesets
    are left to feed the threads, each one's next block is started before the last one is
    judged (dropped, never counted or saved, if the ruleset stops)."""
    from collections import deque

    blocks = [(first, min(mc_block, mc_deals - first)) for first in range(0, mc_deals, mc_block)]
    pending = {i: deque() for i in range(len(vs))}
    scheduled = dict.fromkeys(range(len(vs)), 0)       # blocks started (or read) of each
    waiting = set()                                    # judged once the base has the deals
    live = set(range(1, len(vs)))                      # rulesets not stopped yet
    block_games = mc_block * players

    def schedule(i, depth):
        while scheduled[i] < len(blocks) and len(pending[i]) < depth:
            first, n = blocks[scheduled[i]]
            pending[i].append(begin(i, first, n))
            scheduled[i] += 1

    def depth():
        # a second block ahead only where the rulesets left would not fill the threads
        return 2 if group.threads > 1 and len(live) * block_games < 8 * group.threads else 1

    def dealt(i):
        return sum(b["turns"].shape[1] for b in state["mc"].get(i, []))

    def judge(i):
        n = dealt(i)
        if dealt(0) < n:
            waiting.add(i)
            return
        waiting.discard(i)
        base = dict(join(state["mc"][0]), v2=vs[0].ruleset.last_player_loses)
        rec = dict(join(state["mc"][i]), v2=vs[i].ruleset.last_player_loses)
        cs = confidence_sequence(m.skill_values(rec, players)
                                 - m.skill_values(base, players)[:n],
                                 bounds=m.diff_bounds(rec, base, players))
        if cs["ci_low"] > 0 or cs["ci_high"] < 0:
            state["stopped"][i] = "clear"
        elif (cs["ci_high"] - cs["ci_low"]) / 2 < precision:
            state["stopped"][i] = "precise"
        elif n >= mc_deals:
            state["stopped"][i] = "most deals"
        else:
            schedule(i, depth())
            return
        live.discard(i)
        ahead = [j for h in pending[i] for j in h.jobs]
        group.cancel(ahead)
        group.forget(ahead)
        pending[i].clear()

    schedule(0, len(blocks))
    for i in sorted(live):
        schedule(i, depth())
    while True:
        heads = [pending[i][0] for i in range(len(vs)) if pending[i] and i not in waiting]
        if not heads:
            break
        h = group.wait_any(heads)
        i = h.index[1]
        pending[i].popleft()
        group.forget(h.jobs)
        rec = finish(h)
        state["mc"].setdefault(i, []).append(rec)
        if i == 0:
            if not pending[0]:
                state["stopped"][0] = "all"
            for j in sorted(waiting):
                judge(j)
        else:
            judge(i)


def summarize(state, partial=False) -> dict:
    """The result: every ruleset measured so far with its measures, the top effects, the
    refused changes and the definitions."""
    vs, plan, players = state["vs"], state["plan"], state["plan"]["players"]
    rows = []
    def tagged(i, rec):                 # the measures read the outcome's kind (V2) from it
        return dict(rec, v2=vs[i].ruleset.last_player_loses)
    ref = {i: tagged(i, r) for i, r in state["ref"].items()}
    cnt = {i: tagged(i, r) for i, r in state["counting"].items()}
    mc = {i: tagged(i, join(b)) for i, b in state["mc"].items()}
    for i, v in enumerate(vs):
        if i not in ref or i not in cnt or 0 not in ref or 0 not in cnt:
            continue
        b_ref, b_cnt = (None, None) if i == 0 else (ref[0], cnt[0])
        row = {"ident": v.ident, "label": v.label(), "kind": v.kind, "rule": v.rule,
               "key": v.key, "ruleset": v.ruleset.to_json()}
        row.update(m.length(ref[i], b_ref))
        row["first_mover"] = m.first_mover(ref[i], players, b_ref)
        row["identical"] = i != 0 and m.identical(
            [(ref[i], ref[0]), (cnt[i], cnt[0])] + ([(mc[i], mc[0])] if i in mc and 0 in mc
                                                    else []))
        row["seats"] = m.seats(ref[i], players)
        row["seat_spread"] = m.seat_spread(row["seats"])
        row["skill_counting"] = m.skill(cnt[i], players, b_cnt)
        row["luck"] = m.luck(cnt[i], players, b_cnt)
        if i in mc and 0 in mc:
            rec = mc[i]
            row["skill_montecarlo"] = m.skill(rec, players, None if i == 0 else mc[0],
                                              sequential=True)
            row["skill_montecarlo"]["deals"] = int(rec["turns"].shape[1])
            row["skill_montecarlo"]["stopped"] = state["stopped"].get(i, "interrupted")
        rows.append(row)
    out = {"players": players, "base": str(vs[0].ruleset), "seed": plan["seed"],
           "plan": {k: v for k, v in plan.items() if k not in ("variants", "code", "ruleset")},
           "rulesets": rows, "refused": state["refused"], "skipped": state["skipped"],
           "measured": len(rows), "of": len(vs), "games_played": state["played"],
           "top": top_effects(rows), "definitions": m.definitions(),
           "no_effect": [r["ident"] for r in rows if r.get("identical")]}
    if partial:
        out["partial"] = (f"interrupted: {len(rows)} of {len(vs)} rulesets measured"
                          + ("" if all(i in state["stopped"] for i in range(len(vs)))
                             or not plan["mc_deals"] else
                             "; the montecarlo skill of some is missing or incomplete"))
    return out


def top_effects(rows, n=5) -> dict:
    """Per measure, the rulesets whose paired difference from the base excludes 0, the
    largest first (at most ``n``)."""
    out = {}
    for key in MEASURES:
        found = [(abs(r[key]["diff"]["estimate"]), r["ident"], r[key]["diff"]) for r in rows
                 if key in r and "diff" in r[key] and r[key]["diff"]["effect"]]
        found.sort(key=lambda t: -t[0])
        out[key] = [{"ident": ident, "estimate": d["estimate"], "ci_low": d["ci_low"],
                     "ci_high": d["ci_high"]} for _, ident, d in found[:n]]
    return out


def headline(result) -> list[str]:
    """The answer in plain words: for each measure, the option that changes it most (with
    its interval), or that none does."""
    lines = []
    for key, (name, _, unit) in MEASURES.items():
        top = result["top"].get(key) or []
        if not any(key in r for r in result["rulesets"]):
            continue
        if not top:
            lines.append(f"{name}: no change from {result['base']} shows an effect "
                         f"(every 95% interval includes 0).")
            continue
        words = [f"{t['ident']} {fmt(t['estimate'], unit)} ({fmt(t['ci_low'], unit)} to "
                 f"{fmt(t['ci_high'], unit)})" for t in top[:3]]
        lines.append(f"{name}: most changed by " + "; ".join(words) + ".")
    return lines


def fmt(x, unit) -> str:
    if x is None:
        return "-"
    if unit == "turns":
        return f"{x:+.1f} turns"
    if unit == "share":
        return f"{100 * x:+.1f} pts"
    return f"{x:+.3f}"


# -- the folder (its format and what must match to resume: sim.runs.kinds) ------------------


class LabPartial(NamedTuple):
    """An interrupted lab's ``partial.result``: ``lab``, its result so far as saved
    (:func:`summarize`'s, marked ``partial``: the rulesets measured), ``measured`` of ``of``
    rulesets."""

    lab: dict
    measured: int
    of: int
RESULT = KINDS[KIND].result


def _open(out, plan, resume):
    """The saved folder (kind ``rules-lab``, :mod:`sim.runs.folder`)."""
    return folder.open_for_write(out, KIND, options=_config(plan), facts={"plan": plan},
                                 resume=resume, extra={"plan": plan}, default=_json)


def _config(plan) -> dict:
    from sim.kernel.ruleset import Ruleset

    return {"players": plan["players"], "seed": plan["seed"], "rules": plan["ruleset"],
            "options": Ruleset.parse(plan["ruleset"]).to_dict(),
            "strategies": list(dict.fromkeys([plan["strategy"], COUNTING.strong,
                                              COUNTING.weak, MONTECARLO.strong,
                                              MONTECARLO.weak])),
            "tables": (f"reference: {plan['strategy']} at every seat; {COUNTING.strong} "
                       f"against {COUNTING.weak}; {MONTECARLO.strong} against "
                       f"{MONTECARLO.weak}"),
            "games": plan["games"], "skill_deals": plan["skill_deals"],
            "mc_deals": plan["mc_deals"], "max_turns": plan["max_turns"]}


def read(saved) -> Loaded:
    """The rules lab in ``saved`` (kind ``rules-lab``; sim.studies.saved): its options
    with every game of the result (``config``, ``overall``), the base's seats as ``by_seat``;
    its page reads the result, ``.result``."""
    result = result_of(saved, RESULT, "rules lab file")
    plan = saved.manifest.get("plan") or {}
    config = dict(saved.manifest.get("options") or (_config(plan) if plan else {}),
                  games=result.get("games_played"))
    base = next((r for r in result.get("rulesets", []) if r.get("ident") == "base"), None)
    return opened(saved, result, config=config,
                  overall={"games": result.get("games_played")},
                  by_seat=[] if base is None else base.get("seats", []))


def _json(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(type(x).__name__)
