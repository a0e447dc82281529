"""Statistics for tournaments (``sim compare``): intervals over deals, confidence sequences
for sequential stopping, and Plackett-Luce ratings with a stated prior.

Everything here works on *per-deal* values: the duplicate design replays a deal under every
seat rotation, so the games of one deal are correlated while deals are independent and
identically distributed. The unit of every interval is therefore the deal.

Fixed-sample intervals (:func:`mean_interval`): mean +- z standard errors over deals, never
narrower than what a run of identical deals can rule out (see the function).

Anytime-valid intervals (:func:`confidence_sequence`, :func:`sequential_test`): a confidence
sequence for the mean of values in [0, 1] that holds simultaneously at every number of deals,
so a procedure may look after every block and stop when it likes, and the interval printed
at the stop keeps its level whatever ``--max-games`` was. The construction is the hedged
capital process of Waudby-Smith & Ramdas, *Estimating means of bounded random variables by
betting* (J. R. Stat. Soc. B 86(1), 2024, 1-27; arXiv:2010.09686), with the "diversified
Kelly" (dKelly) bets of its section 5: for a candidate mean ``m``, the capital

    K+_t(m) = 1/G sum_g prod_{i<=t} (1 + f_g (X_i - m) / m)        (bets on "mean > m")
    K-_t(m) = 1/G sum_g prod_{i<=t} (1 - f_g (X_i - m) / (1 - m))  (bets on "mean < m")

is a nonnegative martingale when ``m`` is the true mean, so by Ville's inequality
P(exists t: K+_t(mean) >= 2/alpha) <= alpha/2, and the same for K-. The confidence
sequence at time ``t`` is every ``m`` whose capitals never reached ``2/alpha`` (running
maximum over a fixed schedule of check points, and the current time). The fractions ``f_g``
are constants (geometric, 0.9 down to 3e-4) instead of the paper's evenly spaced ones, so
that differences of a fraction of a percentage point are found too. Each K+ is
nonincreasing in ``m`` and each K- nondecreasing, so the set is an interval, whose ends are
found on successively finer grids, and deciding whether it lies above a value ``m`` costs
one evaluation of K+ at ``m``.

The data are few distinct values (a deal's result is a multiple of 1/players, or of
1/(players(players-1)) under V2), so the capitals are computed from counts of each value
up to each check point: the cost does not grow with the number of deals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05                      # 95% intervals, unless a caller asks for another level
Z95 = 1.959963984540054           # the normal quantile of a two-sided 95% interval
ELO = 400 / math.log(10)          # Elo points per natural-log unit of strength
FRACTIONS = 0.9 * 2.0 ** (-np.arange(24) / 2)    # the dKelly bets f_g (0.9 .. 3.3e-4)
CHECK_GROWTH = 1.05               # check points: every deal up to 20, then 5% apart


# -- fixed-sample intervals ------------------------------------------------------------------
def mean_interval(x, alpha=0.05, bounds=(0.0, 1.0), null=None):
    """Mean of per-deal values ``x`` in ``bounds``, its ``1 - alpha`` interval over deals and,
    with ``null``, the two-sided p-value of "the mean is ``null``".

    The interval is the hull of two: mean +- z standard errors, never narrower than
    ``(hi - lo) * (1 - (alpha/2) ** (1/deals))`` (Clopper-Pearson for "no deal deviated"),
    and a score interval on the deals that leave the most frequent value (0 for a
    difference), which keeps its coverage when deals rarely deviate, where the normal
    interval undercovers (:mod:`sim.studies.discordant`; coverage in
    benchmarks/results/paired_coverage.md). One deal gives a standard error of 0, not NaN.
    The p-value is the smallest level at which the interval excludes ``null``, so
    ``p < alpha`` exactly when it does; it is never NaN.
    """
    from scipy.stats import norm

    from sim.studies import discordant

    x = np.asarray(x, float)
    d = x.size
    lo, hi = bounds
    mean = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(d) if d > 1 else 0.0
    z = float(norm.isf(alpha / 2))
    half = max(z * se, (hi - lo) * -math.expm1(math.log(alpha / 2) / d))
    c = discordant.centre(x, bounds)
    s = discordant.sums(x, c, bounds)
    m_lo, m_hi = discordant.mover(*s, c, bounds, alpha)
    out = {"estimate": mean, "ci_low": max(min(mean - half, float(m_lo)), lo),
           "ci_high": min(max(mean + half, float(m_hi)), hi), "se": se, "deals": d}
    if null is not None:
        p_normal = float(2 * norm.sf(abs(mean - null) / (half / z)))
        out["p_value"] = max(p_normal, discordant.p_value(s[0], s[1:], c, bounds, null))
    return out


def interval(x, alpha=ALPHA, bounds=(0.0, 1.0), null=None, sequential=False):
    """:func:`mean_interval`, or after a procedure that may have stopped at any look
    (``sequential``) the anytime-valid :func:`confidence_sequence`."""
    fn = confidence_sequence if sequential else mean_interval
    return fn(x, alpha=alpha, bounds=bounds, null=null)


def versus(per_deal, lead: int, alpha=ALPHA, sequential=False) -> list:
    """Column ``lead`` of the per-deal results ``per_deal`` (deals, k) against each other
    column ``j``: ``(j, interval)`` of the paired per-deal difference (:func:`interval`,
    with its p-value) at level ``1 - alpha / (k - 1)``, Bonferroni over the comparisons."""
    k = per_deal.shape[1]
    return [(j, interval(per_deal[:, lead] - per_deal[:, j], alpha / max(1, k - 1),
                         (-1.0, 1.0), 0.0, sequential)) for j in range(k) if j != lead]


def ends(ci: dict) -> dict:
    """An interval's estimate and ends, and its p-value when it has one (not its working)."""
    return {k: ci[k] for k in ("estimate", "ci_low", "ci_high", "p_value") if k in ci}


FAR = 100                         # more than FAR times the samples so far: "far more"


def to_separate(estimate: float, low: float, high: float, n: int) -> float:
    """Samples (in all, these ``n`` included) after which a difference measured as
    ``estimate`` with the interval ``low .. high`` over ``n`` samples would likely have an
    interval that excludes 0, if it stayed as measured: the interval's half toward 0
    shrinks as 1/sqrt(samples), so ``n (half / estimate)**2`` (for a normal interval, ``n
    (z se / estimate)**2``). An estimate, not a promise: the difference measured is itself
    noisy. ``n`` when the interval already excludes 0, ``math.inf`` for a difference of 0
    (two options that tie in every sample never separate)."""
    if low > 0 or high < 0:
        return float(n)
    if estimate == 0:
        return math.inf
    half = estimate - low if estimate > 0 else high - estimate
    return max(float(n), n * (half / estimate) ** 2)


def tie_group(versus, n: int) -> dict:
    """The options tied with the best: ``versus`` holds the best's comparison with each
    other option, as :func:`mean_interval` gives it (``estimate``, ``ci_low``, ``ci_high``:
    best minus it, positive favouring the best) over ``n`` samples. An option is tied with
    the best when that interval includes 0; the best is named alone only when none is.
    Returns ``tied`` (the indices into ``versus`` of the tied options), ``clear`` (none
    tied), ``n`` and ``more``: the samples more after which the tied ones would likely all
    be told from the best (:func:`to_separate`, the largest over them), 0 when clear, None
    when that is more than :data:`FAR` times ``n`` or never: "far more"."""
    tied = [i for i, c in enumerate(versus) if c["ci_low"] <= 0 <= c["ci_high"]]
    need = max([to_separate(versus[i]["estimate"], versus[i]["ci_low"], versus[i]["ci_high"],
                            n) for i in tied], default=float(n))
    more = None if need > FAR * n else int(math.ceil(need)) - n
    return {"tied": tied, "clear": not tied, "n": int(n), "more": more}


def ratio_interval(num, den, alpha=0.05):
    """``sum(num) / sum(den)`` over deals (a share of meetings) with its ``1 - alpha`` interval
    by the delta method over deals (cluster-robust), floored like :func:`mean_interval` over
    the deals that had a meeting. ``None`` estimates when there was no meeting."""
    from scipy.stats import norm

    num, den = np.asarray(num, float), np.asarray(den, float)
    total = den.sum()
    if total == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None, "meetings": 0}
    r = num.sum() / total
    met = den > 0
    d = int(met.sum())
    resid = num[met] - r * den[met]
    se = math.sqrt(d / (d - 1) * (resid ** 2).sum()) / total if d > 1 else 0.0
    z = float(norm.isf(alpha / 2))
    half = max(z * se, -math.expm1(math.log(alpha / 2) / d))
    return {"estimate": float(r), "ci_low": max(r - half, 0.0), "ci_high": min(r + half, 1.0),
            "meetings": int(total)}


# -- confidence sequences ----------------------------------------------------------------
def check_points(n):
    """The fixed schedule of deal counts at which the running maximum of the capital is
    taken (1, 2, ..., 20, then 5% apart), ending with ``n``."""
    pts, t = [], 1
    while t < n:
        pts.append(t)
        t = max(t + 1, int(t * CHECK_GROWTH))
    pts.append(n)
    return np.array(pts, np.int64)


@dataclass
class _Counts:
    """How many deals gave each distinct value, up to each check point."""

    values: np.ndarray     # (U,) distinct values in [0, 1]
    cum: np.ndarray        # (J, U) counts (as floats) of each value among the first
    mean: float            # check_points[j] deals; and the mean of every deal

    @classmethod
    def of(cls, x):
        import pandas as pd

        x = np.clip(np.asarray(x, float), 0.0, 1.0)
        idx, values = pd.factorize(np.round(x, 12))     # hashing: no sort of every deal
        values = np.asarray(values, float)
        pts = check_points(x.size)
        chunk = np.searchsorted(pts, np.arange(x.size), side="right")   # deal i in chunk j
        counts = np.bincount(chunk * values.size + idx, minlength=pts.size * values.size)
        return cls(values, counts.reshape(pts.size, values.size).cumsum(axis=0).astype(float),
                   float(x.mean()))

    def log_capital(self, m, side):
        """log of the largest K+ (side=+1) or K- (side=-1) over the check points, at each
        candidate mean in the array ``m`` (in (0, 1))."""
        m = np.asarray(m, float)[:, None, None]                            # (M, 1, 1)
        f = FRACTIONS[None, :, None]                                       # (1, G, 1)
        v = self.values[None, None, :]                                     # (1, 1, U)
        step = np.log1p(f * (v - m) / m if side > 0 else -f * (v - m) / (1 - m))
        logk = self.cum @ step.transpose(0, 2, 1)                          # (M, J, G)
        top = logk.max(axis=2, keepdims=True)
        mix = top[..., 0] + np.log(np.exp(logk - top).mean(axis=2))       # log mean over g
        return mix.max(axis=1)


def _edge(counts, side, threshold):
    """The end of the confidence sequence on one side. K+ is nonincreasing in m, so the
    excluded means below the sample's form an interval [0, end) (K- nondecreasing: (end, 1]);
    the end is found on successively finer grids of 16 steps and rounded outwards."""
    if side > 0 and counts.values.max() <= 0:    # every value 0: nothing excludes small means
        return 0.0
    if side < 0 and counts.values.min() >= 1:
        return 1.0
    lo, hi = 0.0, 1.0          # side +1: lo excluded (or 0), hi kept; side -1: the reverse
    for _ in range(6):
        grid = np.linspace(lo, hi, 17)[1:-1]
        excluded = counts.log_capital(grid, side) >= threshold
        if side > 0:
            n = int(excluded.sum())              # excluded points come first
            lo, hi = (grid[n - 1] if n else lo), (grid[n] if n < grid.size else hi)
        else:
            n = int((~excluded).sum())           # kept points come first
            lo, hi = (grid[n - 1] if n else lo), (grid[n] if n < grid.size else hi)
    return lo if side > 0 else hi                # the outer end: conservative


def confidence_sequence(x, alpha=0.05, bounds=(0.0, 1.0), null=None):
    """Anytime-valid ``1 - alpha`` interval for the mean of the per-deal values ``x`` (in
    ``bounds``, in deal order), and with ``null`` the anytime-valid p-value of "the mean is
    ``null``" (``p <= alpha`` when the interval excludes it, up to the outward rounding of
    its ends). The interval always holds the sample mean. See the module doc."""
    lo, hi = bounds
    scale = hi - lo
    x = (np.asarray(x, float) - lo) / scale
    c = _Counts.of(x)
    threshold = math.log(2 / alpha)
    low, high = _edge(c, +1, threshold), _edge(c, -1, threshold)
    low, high = min(low, c.mean), max(high, c.mean)
    out = {"estimate": lo + scale * c.mean, "ci_low": lo + scale * low,
           "ci_high": lo + scale * high, "deals": int(x.size)}
    if null is not None:
        out["p_value"] = sequential_p(c, (null - lo) / scale)
    return out


def sequential_p(counts, m):
    """Anytime-valid two-sided p-value of "the mean is m": 2 / the largest capital."""
    if not 0.0 < m < 1.0:
        outside = (m <= 0 and counts.values.max() > 0) or (m >= 1 and counts.values.min() < 1)
        return 0.0 if outside else 1.0
    best = max(counts.log_capital([m], +1)[0], counts.log_capital([m], -1)[0])
    return float(min(1.0, math.exp(math.log(2) - best)))


def sequential_test(x, alpha, bounds=(-1.0, 1.0), null=0.0):
    """True when the anytime-valid ``1 - alpha`` interval of the mean of ``x`` lies wholly
    above ``null``: the one evaluation of the capital K+ at ``null`` that decides it."""
    lo, hi = bounds
    c = _Counts.of((np.asarray(x, float) - lo) / (hi - lo))
    m = (null - lo) / (hi - lo)
    return c.mean > m and c.log_capital([m], +1)[0] >= math.log(2 / alpha)


def format_p(p) -> str:
    """A p-value for a table: two significant digits, ``< 1e-16`` below double precision."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "< 1e-16" if p < 1e-16 else f"{p:.2g}"


# -- Plackett-Luce ratings -------------------------------------------------------------------
PRIOR_SD = 1.0      # prior: each log-strength ~ N(0, 1), i.e. sd 174 Elo points


@dataclass
class Choices:
    """Plackett-Luce data as weighted choice events: in each event one strategy
    (``chosen``) finished ahead of all the seats still in play, whose strategies are counted
    in ``among`` (a seat-multiplicity row: a strategy holding two seats counts twice)."""

    chosen: np.ndarray     # (E,) strategy index
    among: np.ndarray      # (E, k) seats of each strategy among those still in play
    weight: np.ndarray     # (E,) number of times the event happened

    @classmethod
    def merge(cls, chosen, among, k, weight=None):
        """Aggregate identical events (rows) into weights (each ``weight``, default 1)."""
        rows = np.concatenate([np.asarray(chosen, np.int64).reshape(-1, 1),
                               np.asarray(among, np.int64).reshape(-1, k)], axis=1)
        if rows.size == 0:
            return cls(np.zeros(0, np.int64), np.zeros((0, k), np.int64), np.zeros(0))
        base = int(rows.max()) + 1
        if base ** (k + 1) < 2 ** 62:            # one integer key per row: a fast unique
            _, first, inv = np.unique(rows @ base ** np.arange(k + 1), return_index=True,
                                      return_inverse=True)
        else:
            _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        w = np.bincount(inv.ravel(), weights=weight, minlength=first.size)
        return cls(rows[first, 0], rows[first, 1:], w.astype(float))

    @classmethod
    def concat(cls, parts, k):
        """Merge several aggregated event sets."""
        return cls.merge(np.concatenate([p.chosen for p in parts]),
                         np.concatenate([p.among for p in parts]), k,
                         np.concatenate([p.weight for p in parts]))


def pl_probabilities(theta, among):
    """Each event's Plackett-Luce probabilities of each strategy being the one chosen."""
    g = among * np.exp(theta - theta.max())[None, :]
    return g / g.sum(axis=1, keepdims=True)


def plackett_luce(data: Choices, k: int, prior_sd: float = PRIOR_SD):
    """MAP log-strengths of a Plackett-Luce model under the prior ``theta_i ~ N(0, sd^2)``
    (the penalty ``alpha * sum(theta^2)`` of ``choix.opt_rankings`` with
    ``alpha = 1 / (2 sd^2)``), and the posterior precision (Hessian) there."""
    from scipy.optimize import minimize

    alpha = 1 / (2 * prior_sd ** 2)
    onehot = np.zeros((data.chosen.size, k))
    onehot[np.arange(data.chosen.size), data.chosen] = 1
    w = data.weight[:, None]

    def objective(theta):
        logits = np.log(np.maximum(data.among, 1e-300)) + theta[None, :]
        top = logits.max(axis=1)
        lse = top + np.log(np.exp(logits - top[:, None]).sum(axis=1))
        return float(-(data.weight * (theta[data.chosen] - lse)).sum() + alpha * theta @ theta)

    def gradient(theta):
        p = pl_probabilities(theta, data.among)
        return -(w * (onehot - p)).sum(axis=0) + 2 * alpha * theta

    def hessian(theta):
        p = pl_probabilities(theta, data.among)
        return (np.einsum("e,ei,ij->ij", data.weight, p, np.eye(k))
                - np.einsum("e,ei,ej->ij", data.weight, p, p) + 2 * alpha * np.eye(k))

    res = minimize(objective, np.zeros(k), jac=gradient, hess=hessian, method="trust-exact",
                   options={"gtol": 1e-9})
    return res.x, hessian(res.x)


def separation(data: Choices, k: int):
    """Per strategy: ``None`` when the data bound its rating on both sides, else ``"lower"``
    (it never finished behind a strategy outside its group: the data bound it from below
    only), ``"upper"`` (never ahead of one outside: bounded from above only) or ``"prior"``
    (between separated groups: both ends set by the prior).

    The maximum-likelihood ratings exist exactly when the graph "i finished ahead of j at
    least once" is strongly connected (Hunter 2004, Ann. Stat. 32(1), assumption 1)."""
    ahead = np.zeros((k, k), bool)
    for c, row, w in zip(data.chosen, data.among, data.weight):
        if w > 0:
            ahead[c] |= row > 0
    np.fill_diagonal(ahead, True)
    reach = ahead.copy()
    for _ in range(k):                                # transitive closure
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    same = reach & reach.T                            # strongly connected components
    if same.all():
        return [None] * k
    out = []
    for i in range(k):
        beaten_by_outsider = (reach[:, i] & ~same[:, i]).any()
        beats_outsider = (reach[i] & ~same[i]).any()
        out.append("prior" if beaten_by_outsider and beats_outsider else
                   "upper" if beaten_by_outsider else "lower" if beats_outsider else "prior")
    return out


def ratings(data: Choices, k: int, scores=None, alpha=0.05, prior_sd: float = PRIOR_SD):
    """Centred ratings on the Elo scale (MAP of :func:`plackett_luce`) with ``1 - alpha``
    intervals: the wider of the posterior's (Laplace) and a deal-clustered sandwich's, so that
    correlated games of one deal do not narrow them. ``scores(theta)`` gives the per-deal
    score vectors (deals, k) for the sandwich. Returns (point, low, high, bound) per
    strategy, bound as in :func:`separation`."""
    from scipy.stats import norm

    theta, h = plackett_luce(data, k, prior_sd)
    centre = np.eye(k) - 1.0 / k
    cov = np.linalg.inv(h)
    var = np.diag(centre @ cov @ centre.T).copy()
    if scores is not None:
        g = scores(theta)
        if g.shape[0] > 1:
            g = g - g.mean(axis=0)
            meat = g.T @ g * g.shape[0] / (g.shape[0] - 1)
            var = np.maximum(var, np.diag(centre @ cov @ meat @ cov @ centre.T))
    point = centre @ theta * ELO
    half = float(norm.isf(alpha / 2)) * np.sqrt(np.maximum(var, 0)) * ELO
    return point, point - half, point + half, separation(data, k)
