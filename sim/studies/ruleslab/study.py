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

import numpy as np

from sim.runs import folder
from sim.runs.chunks import Played
from sim.runs.config import RunError
from sim.runs.partial import Interrupted, Partial
from sim.runs.saved import Loaded
from sim.studies.ruleslab import measures as m
from sim.studies.ruleslab.tables import Table, Units, join, play_block
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

    for name, value, low in (("--games", games, 1), ("--skill-deals", skill_deals, 1),
                             ("--mc-deals", mc_deals, 0), ("--mc-block", mc_block, 1)):
        if not isinstance(value, int) or value < low:
            raise RunError(f"{name}: expected a whole number of at least {low}, got {value}")
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

    def block(table, i, first, deals, played):
        rec = units.load(table.name, i, first)
        if rec is None:
            rec = play_block(table, vs[i].ruleset, first, deals, spec, backend, played.tick)
            units.save(table.name, i, first, rec)
        else:
            played.seen(played.done + rec["turns"].size)
        state["played"] += rec["turns"].size           # played now or read back: every game
        return rec

    stage = ["reference and counting"]
    try:
        phase("rules lab: reference and counting games", len(vs) * (games + players * skill_deals))
        played = Played(progress)
        for i, v in enumerate(vs):
            state["ref"][i] = block(reference, i, 0, games, played)
            state["counting"][i] = block(COUNTING, i, 0, skill_deals, played)
        if mc_deals:
            stage[0] = "montecarlo"
            phase("rules lab: montecarlo games (at most)", len(vs) * players * mc_deals)
            played = Played(progress)
            _montecarlo(state, vs, mc_deals, mc_block, precision, players,
                        lambda i, first, n: block(MONTECARLO, i, first, n, played))
    except KeyboardInterrupt:
        result = summarize(state, partial=True)
        if saved is not None:
            close(saved, {RESULT: result}, result["partial"])
        raise Interrupted(Partial(result, result["games_played"], stage=stage[0])) from None
    result = summarize(state)
    if saved is not None:
        close(saved, {RESULT: result})
    return result


def _montecarlo(state, vs, mc_deals, mc_block, precision, players, block):
    """The costly table: the base's blocks to ``mc_deals``, every other ruleset's until its
    paired difference is clear or precise (the module doc)."""
    def deals(i, upto):
        got = state["mc"].setdefault(i, [])
        while sum(b["turns"].shape[1] for b in got) < upto:
            first = sum(b["turns"].shape[1] for b in got)
            got.append(block(i, first, min(mc_block, mc_deals - first)))
        return join(got)
    def tagged(i, upto):
        return dict(deals(i, upto), v2=vs[i].ruleset.last_player_loses)
    base = tagged(0, mc_deals)
    base_values = m.skill_values(base, players)
    state["stopped"][0] = "all"
    for i in range(1, len(vs)):
        n = 0
        while True:
            n = min(n + mc_block, mc_deals)
            rec = tagged(i, n)
            cs = confidence_sequence(m.skill_values(rec, players) - base_values[:n],
                                     bounds=m.diff_bounds(rec, base, players))
            if cs["ci_low"] > 0 or cs["ci_high"] < 0:
                state["stopped"][i] = "clear"
            elif (cs["ci_high"] - cs["ci_low"]) / 2 < precision:
                state["stopped"][i] = "precise"
            elif n >= mc_deals:
                state["stopped"][i] = "most deals"
            else:
                continue
            break


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


# -- the folder ------------------------------------------------------------------------------
FORMAT = 1
RESULT = "ruleslab.json"


def _open(out, plan, resume):
    """The saved folder (kind ``rules-lab``, :mod:`sim.runs.folder`): what must match to
    resume is the plan (every option that decides the games and the stopping)."""
    return folder.open_for_write(out, KIND, format=FORMAT, options=_config(plan),
                                 match={"plan": plan}, resume=resume,
                                 results=(RESULT, "summary.json"), extra={"plan": plan},
                                 default=_json)


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


def read(root, manifest) -> Loaded:
    """The rules lab saved in ``root`` (kind ``rules-lab``; sim.studies.saved): its options
    with every game of the result (``config``, ``overall``), the base's seats as ``by_seat``;
    ``sim report`` reads ruleslab.json itself."""
    result = result_of(root, manifest, RESULT, "rules lab file")
    plan = manifest.get("plan") or {}
    config = dict(manifest.get("options") or (_config(plan) if plan else {}),
                  games=result.get("games_played"))
    base = next((r for r in result.get("rulesets", []) if r.get("ident") == "base"), None)
    return opened(root, manifest, result, config=config,
                  overall={"games": result.get("games_played")},
                  by_seat=[] if base is None else base.get("seats", []))


def _json(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(type(x).__name__)


def estimate_plan(*, players, base, rule, only, strategy, games, skill_deals, mc_deals, seed,
                  max_turns, threads, cycle_stop) -> list:
    """The study's games as ``(RunConfig, games)`` per table, for :mod:`sim.runs.estimate`
    (which times each table once, on other games than the study's): every ruleset's timed
    as the base's, the montecarlo table at its most deals (it may stop earlier). Empty when
    the options are wrong (:func:`rules_lab` then says why)."""
    from sim.runs.config import RunConfig

    try:
        vs = variants(base, players, rule, only)[0]
    except ValueError:
        return []

    def table(t):
        return RunConfig(games=1, players=players, seed=seed, strategies=t.seatings(players)[0],
                         rules=vs[0].ruleset, max_turns=max_turns, threads=threads,
                         cycle_stop=cycle_stop)
    n = len(vs)
    return ([(table(Table("reference", weak=strategy)), n * games),
             (table(COUNTING), n * players * skill_deals)]
            + ([(table(MONTECARLO), n * players * mc_deals)] if mc_deals else []))
