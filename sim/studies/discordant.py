"""Intervals for the mean of bounded values that rarely leave one value.

Paired comparisons on common random numbers (two moves on the same worlds, two strategies on
the same deals) mostly give the same result: the difference is 0 in most worlds and deviates
in a few. A normal interval (mean +- z standard errors) then undercovers badly, because the
sample variance of a few deviations is itself unreliable (4 worlds at +1 and 996 at 0 gave a
"clear" difference where the exact sign test says p = 0.125).

The method here is a score interval on the discordant part, combined by MOVER:

- split each value around a centre ``c`` (0 for a paired difference; the most frequent value
  otherwise) into its part above, ``u = (x - c) / (hi - c)``, and below,
  ``v = (c - x) / (c - lo)``, both in [0, 1] and never both nonzero;
- for each part, a Wilson score interval under a quasi-binomial variance
  ``Var(u) = mu (w - mu)``, ``w = sum(u^2) / sum(u)`` (the mean size of a deviation, weighted;
  ``w = 1`` when there is none, the worst case): for 0/1 values it *is* Wilson's interval, and
  for many deviations its width tends to the normal one;
- the two parts' intervals are recovered into one for ``c + (hi - c) mu_u - (c - lo) mu_v``
  by the MOVER of Zou & Donner (2008) with the sample correlation of ``u`` and ``v`` (negative,
  since they are never both nonzero), as Newcombe's (1998) method 10 does for paired
  proportions.

:func:`interval` is the hull of that interval and the normal one with its floor, so it is
never narrower than before; its p-value is the smallest level at which the interval excludes
the null, so ``p < alpha`` exactly when the interval excludes it. The coverage of each
corner is simulated in ``benchmarks/paired_coverage.py`` (table in benchmarks/results/).
"""
from __future__ import annotations

import math

import numpy as np


def _z(alpha):
    from scipy.stats import norm

    return norm.isf(np.asarray(alpha, float) / 2)


def _wilson(p, n, z):
    """Wilson's score interval for a proportion ``p`` of ``n`` (arrays broadcast)."""
    z2 = z * z
    mid = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * np.sqrt(np.maximum(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    return np.maximum(mid - half, 0.0), np.minimum(mid + half, 1.0)


def _part(s1, s2, n, z):
    """The quasi-binomial score interval of a part's mean from its sum ``s1`` and sum of
    squares ``s2`` over ``n`` values in [0, 1]."""
    w = np.where(s1 > 0, s2 / np.where(s1 > 0, s1, 1.0), 1.0)
    mean = s1 / n
    lo, hi = _wilson(np.minimum(mean / w, 1.0), n, z)
    return mean, w * lo, w * hi


def sums(x, center, bounds):
    """The sufficient statistics of :func:`mover`: n, and the sums and sums of squares of the
    parts above and below ``center``."""
    x = np.asarray(x, float)
    lo, hi = bounds
    a, b = hi - center, center - lo
    u = np.where(x > center, (x - center) / (a if a > 0 else 1.0), 0.0)
    v = np.where(x < center, (center - x) / (b if b > 0 else 1.0), 0.0)
    return x.size, u.sum(), (u * u).sum(), v.sum(), (v * v).sum()


def mover(n, su, su2, sv, sv2, center, bounds, alpha=0.05):
    """The MOVER score interval of the mean from :func:`sums` (arrays broadcast, so that a
    simulation can evaluate thousands of samples at once)."""
    lo, hi = bounds
    a, b = hi - center, center - lo
    z = _z(alpha)
    mu, lu, uu = _part(su, su2, n, z)
    mv, lv, uv = _part(sv, sv2, n, z)
    var_u = np.maximum(su2 / n - mu * mu, 0.0)
    var_v = np.maximum(sv2 / n - mv * mv, 0.0)
    denom = np.sqrt(var_u * var_v)
    rho = np.where(denom > 0, -mu * mv / np.where(denom > 0, denom, 1.0), 0.0)
    theta = a * mu - b * mv
    d_lo = np.sqrt(np.maximum((a * (mu - lu)) ** 2 + (b * (uv - mv)) ** 2
                              - 2 * rho * a * (mu - lu) * b * (uv - mv), 0.0))
    d_hi = np.sqrt(np.maximum((a * (uu - mu)) ** 2 + (b * (mv - lv)) ** 2
                              - 2 * rho * a * (uu - mu) * b * (mv - lv), 0.0))
    return (np.maximum(center + theta - d_lo, lo), np.minimum(center + theta + d_hi, hi))


def centre(x, bounds) -> float:
    """0 for a difference (bounds around 0: no difference), else the most frequent value."""
    lo, hi = bounds
    x = np.asarray(x, float)
    if lo < 0 < hi or x.size == 0:
        return 0.0 if lo < 0 < hi else float((lo + hi) / 2)
    values, counts = np.unique(np.round(x, 12), return_counts=True)
    return float(min(max(values[np.argmax(counts)], lo), hi))


def p_value(n, sums_, center, bounds, null):
    """The smallest level at which the MOVER interval excludes ``null``: bisection on the
    log of the level (the interval shrinks as the level grows), down to 1e-300."""
    low, high = mover(n, *sums_, center, bounds, 1.0 - 1e-12)
    if low <= null <= high:
        return 1.0
    lo_a, hi_a = math.log(1e-300), 0.0
    low, high = mover(n, *sums_, center, bounds, 1e-300)
    if low > null or high < null:
        return 1e-300
    for _ in range(60):
        mid = (lo_a + hi_a) / 2
        low, high = mover(n, *sums_, center, bounds, math.exp(mid))
        if low > null or high < null:
            hi_a = mid
        else:
            lo_a = mid
    return float(math.exp(hi_a))
