"""Which move is best, and is it clear: the moves' results over the same worlds (worlds x
moves, NaN where a move was not played), their order, the paired difference of two, the
group tied with the best, and the race of ``sim analyze --until-clear`` (moves dropped as
they fall clearly behind). :mod:`sim.studies.analysis`, :mod:`sim.studies.review` and the
swap advice read their worlds with these."""
from __future__ import annotations


import numpy as np

from sim.studies.stats import Z95

def best_first(scores, v2: bool) -> list[int]:
    """Columns of ``scores`` (worlds x moves, NaN where a move was not played), best mean
    first (V2: lowest place first); stable, so ties keep the legal order."""
    means = np.nanmean(scores, axis=0) if scores.shape[0] else np.zeros(scores.shape[1])
    return [int(i) for i in np.argsort(means if v2 else -means, kind="stable")]


def paired_difference(scores, a: int, b: int, span: float, alpha: float,
                      sign: float = 1.0, complete: bool = False) -> dict:
    """Column ``a`` of ``scores`` (worlds x moves, NaN where a move was not played) minus
    column ``b``, times ``sign`` (-1 under V2, where a lower place is better), world by
    world over the worlds both were played in (common random numbers): the mean, its
    ``1 - alpha`` interval in ``(-span, span)`` and standard error from
    :func:`sim.studies.stats.mean_interval`, ``deals`` the worlds. ``complete``: every
    world played by both (no NaN), which spares looking."""
    from sim.studies.stats import mean_interval

    if complete:
        d = scores[:, a] - scores[:, b]
    else:
        both = ~np.isnan(scores[:, a]) & ~np.isnan(scores[:, b])
        d = scores[both, a] - scores[both, b]
    return mean_interval(sign * d, alpha=alpha, bounds=(-span, span))


def tie_of(scores, v2: bool, span: float, z: float | None = None, names=None) -> dict:
    """The best column of ``scores`` (worlds x moves, NaN where a move was not played) and
    every column not clearly different from it: the paired interval of "best minus it"
    (V2: it minus the best) at the two-sided level of ``z`` (default 95%) includes 0.
    :func:`sim.studies.stats.tie_group`'s answer (``tied``: columns, best first; ``clear``;
    ``more``: the worlds more that would likely separate them), with ``names`` (default:
    the columns) in place of the columns in ``tied``."""
    from scipy.stats import norm

    from sim.studies.stats import tie_group

    z = Z95 if z is None else z
    alpha = float(2 * norm.sf(z))
    order = best_first(scores, v2)
    vs = [paired_difference(scores, order[0], j, span, alpha, -1.0 if v2 else 1.0)
          for j in order[1:]]
    n = int((~np.isnan(scores[:, order[0]])).sum())
    g = tie_group(vs, n)
    g["tied"] = [order[0]] + [order[1 + i] for i in g["tied"]]
    if names is not None:
        g["tied"] = [names[i] for i in g["tied"]]
    return g


def race(scores, active, v2: bool, span: float, z: float, tolerance: float):
    """One look of ``--until-clear``: the leader (the best mean among the ``active`` moves)
    against each other active move, paired over the worlds both were played in
    (:func:`paired_difference` at the two-sided level of ``z``). A move whose interval of
    "leader minus it" (V2: it minus the leader) lies above 0 is dropped: it plays no further
    worlds. Returns (active, leader, stopped): "clear" when only the leader is left;
    "tolerance" when every move left is at most ``tolerance`` better than the leader (each
    interval's low end above ``-tolerance``); else None. With ``z`` one-sided at 5% /
    (looks (k - 1)), a wrong answer (the best dropped, or a leader named ``tolerance`` or more
    behind it) has probability at most 5%: docs/analyze-and-play.md says why, and
    benchmarks/analyze_race.py simulates it."""
    from scipy.stats import norm

    active = active.copy()
    alpha = float(2 * norm.sf(z))
    live = [i for i in best_first(scores, v2) if active[i]]
    leader, lows = live[0], []
    for j in live[1:]:
        ci = paired_difference(scores, leader, j, span, alpha, -1.0 if v2 else 1.0)
        if ci["ci_low"] > 0:
            active[j] = False
        else:
            lows.append(ci["ci_low"])
    if not lows:
        return active, leader, "clear"
    if tolerance > 0 and min(lows) > -tolerance:
        return active, leader, "tolerance"
    return active, leader, None
