"""Stage 5 of the swap study: the split policy against each other policy on duplicate
deals, seats alternating; per-deal paired differences, Benjamini-Hochberg adjusted
p-values and the verdict in words."""
from __future__ import annotations

import numpy as np

from sim.runs.runner import RunConfig, batches
from sim.runs.workers import Group, stream
from sim.studies.match import batch_results
from sim.studies.saved import Games
from sim.studies.swapstudy.values import finish_kept, start_kept
from sim.studies.stats import format_p, mean_interval


def head_to_heads(mine, rivals, players, games, seed, rules, strategy, threads, kept=None,
                  batch=100_000, max_turns=10_000, cycle_stop=True, tick=None, done=None):
    """``mine`` against each of ``rivals`` (``(label, spec)`` pairs; rival ``i``'s batches are
    kept under tag ``i``) on duplicate deals: per-deal paired differences, a result per
    rival, appended to ``done`` (a list) as each one finishes. ``kept``
    (:class:`~sim.studies.saved.Games`) saves the batches, or reads back those saved
    (resume); ``tick(games)`` as games are played.

    Every rival's batches are one stream on the pool (:mod:`sim.runs.workers`): no thread
    waits between batches or rivals."""
    done = [] if done is None else done
    kept = kept or Games()
    tables = []
    for i, (label, other) in enumerate(rivals):
        patterns = [[mine if s % 2 == r else other for s in range(players)] for r in (0, 1)]
        cfgs = [RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                          swaps=p, rules=rules, threads=threads, batch=batch,
                          max_turns=max_turns, cycle_stop=cycle_stop) for p in patterns]
        tables.append((label, other, patterns, cfgs))
    v2 = bool(tables[0][3][0].options["last_player_loses"]) if tables else False
    items = [(i, index, first, n, r) for i, (_, _, _, cfgs) in enumerate(tables)
             for index, first, n in batches(cfgs[0]) for r in (0, 1)]
    group = Group(threads)

    def seats(b, mask):
        """A batch's summed results of ``mine``'s seats and of the others', per game, and
        its unfinished games: on the pool's thread that played its last games."""
        score, ok = batch_results(b, players, v2)
        return score[:, mask].sum(axis=1), score[:, ~mask].sum(axis=1), int((~ok).sum())

    def begin(item):
        i, index, first, n, r = item
        label, other, patterns, cfgs = tables[i]
        mask = np.array([p == mine for p in patterns[r]])
        return start_kept(group, kept, f"part-h2h-{i:02d}-{r}-{index:05d}", cfgs[r], first, n,
                          tick=tick, index=item, stage="head-to-head", seed=seed,
                          opponent=label or other, also=lambda b: seats(b, mask))

    acc = None
    with group:
        for h, b in stream(group, items, begin, lambda h: (h, finish_kept(h))):
            i, index, first, n, r = h.index
            label, other, patterns, _ = tables[i]
            if acc is None:
                acc = {"diffs": [], "tw": 0.0, "ow": 0.0, "unfinished": 0}
            if r == 0:
                d = np.zeros(n)
            t, o, unfinished = h.extra
            acc["unfinished"] += unfinished
            mask = np.array([p == mine for p in patterns[r]])
            d += t / mask.sum() - o / (~mask).sum()      # per seat: mine minus other
            acc["tw"] += t.sum()
            acc["ow"] += o.sum()
            if r == 1:
                acc["diffs"].append(d / 2)
                if first + n >= games:                   # the rival's last batch
                    done.append(_result(acc, label, other))
                    acc = None
    return done


def _result(acc, label, other) -> dict:
    diffs = np.concatenate(acc["diffs"])
    tw, ow = acc["tw"], acc["ow"]
    ci = mean_interval(diffs, bounds=(-1.0, 1.0), null=0.0)
    return {"policy": label or other, "spec": other, "deals": int(diffs.size),
            "games": int(2 * diffs.size), "unfinished": acc["unfinished"],
            "share": tw / (tw + ow) if tw + ow else float("nan"), "diff": ci["estimate"],
            "ci_low": ci["ci_low"], "ci_high": ci["ci_high"], "p_value": ci["p_value"]}


def bh(pvalues):
    """Benjamini-Hochberg adjusted p-values (scipy), NaN-safe: a missing p counts as 1."""
    from scipy.stats import false_discovery_control
    p = np.nan_to_num(np.asarray(pvalues, float), nan=1.0).clip(0.0, 1.0)
    return [float(x) for x in false_discovery_control(p)] if p.size else []



def verdict(h2h, mine="split") -> str:
    """Plain words: the best of the policies tested, with its margin and interval. A
    comparison counts as clear when its Benjamini-Hochberg adjusted p-value (``p_adjusted``,
    over the comparisons made) is below 5%, and the verdict says so; the intervals quoted are
    each comparison's own, unadjusted 95% intervals."""
    def pts(r, sign=1):
        lo, hi = sorted((sign * r["ci_low"], sign * r["ci_high"]))
        return (f"{sign * 100 * r['diff']:+.2f} points of win rate per seat (95% CI "
                f"{100 * lo:+.2f} to {100 * hi:+.2f}, BH-adjusted p "
                f"{format_p(r.get('p_adjusted', r['p_value']))})")

    def clear(r):
        return r.get("p_adjusted", r["p_value"]) < 0.05

    names = ", ".join(r["policy"] for r in h2h)
    how = (f" (clear: Benjamini-Hochberg adjusted p below 5% over the {len(h2h)} "
           f"comparisons)")
    wins = [r for r in h2h if clear(r) and r["diff"] > 0]
    losers = [r for r in h2h if clear(r) and r["diff"] < 0]
    if len(wins) == len(h2h):
        worst = min(h2h, key=lambda r: r["diff"])
        return (f"Best of the policies tested ({mine}, {names}): the {mine} policy. It beats "
                f"each of them{how}; its smallest margin is against {worst['policy']}: "
                f"{pts(worst)}.")
    if losers:
        best = min(losers, key=lambda r: r["diff"])
        return (f"The {mine} policy is not the best of the policies tested{how}: "
                f"{best['policy']} beats it by {pts(best, -1)}"
                + (f"; {', '.join(r['policy'] for r in losers if r is not best)} also beat it"
                   if len(losers) > 1 else "") + ". "
                + (f"It beats {', '.join(r['policy'] for r in wins)}." if wins else ""))
    rivals = [r for r in h2h if r not in wins]
    return (f"No policy tested is clearly best{how}: the {mine} policy "
            + (f"beats {', '.join(r['policy'] for r in wins)}, but " if wins else "")
            + "does not clearly beat " + "; ".join(f"{r['policy']}: {pts(r)}" for r in rivals)
            + ".")