"""Per-game random streams: xoshiro256** seeded by splitmix64(seed, game index).

Each game owns its generator state (4 uint64 words), so a game's randomness depends only on
the run's seed and the game's index, never on threads, batches or global state (the results
are bit-identical across threads, batches and Dask workers: tests/test_engine_properties.py,
benchmarks/same_results.py).
All constants are ``np.uint64``: mixing uint64 with a Python int gives int64 in Numba.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import jit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_S17, _S45, _S11, _S7, _S23 = np.uint64(17), np.uint64(45), np.uint64(11), np.uint64(7), np.uint64(23)
_FIVE, _NINE = np.uint64(5), np.uint64(9)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@jit
def splitmix64(x):
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def seed_game(state, seed, game):
    """Fill ``state`` (uint64[4]) for game number ``game`` of the run seeded ``seed``."""
    x = splitmix64(np.uint64(seed)) ^ splitmix64(np.uint64(game) + _GOLDEN)
    for i in range(4):
        x = splitmix64(x)
        state[i] = x


@jit
def _rotl(x, k):
    return (x << k) | (x >> (np.uint64(64) - k))


@jit(inline="always")
def _step(s0, s1, s2, s3):
    """One xoshiro256** step on the four state words: the output and the new words."""
    result = _rotl(s1 * _FIVE, _S7) * _NINE
    t = s1 << _S17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _S45)
    return result, s0, s1, s2, s3


@jit
def next_u64(s):
    result, s0, s1, s2, s3 = _step(s[0], s[1], s[2], s[3])
    s[0], s[1], s[2], s[3] = s0, s1, s2, s3
    return result


@jit(inline="always")
def _below(x, n):
    """The integer in [0, n) that the output ``x`` gives (:func:`randint`)."""
    return np.int64(np.float64(x >> _S11) * _INV53 * n)


@jit
def uniform(s):
    """A float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> _S11) * _INV53


@jit
def randint(s, n):
    """An integer in [0, n) (n >= 1)."""
    return _below(next_u64(s), n)


@jit(inline="always")
def shuffle(a, lo, n, s):
    """Fisher-Yates over ``a[lo:lo + n]``: for i from n - 1 down to 1, swap the items at i and
    j = ``randint(s, i + 1)``. The same draws as that loop, with the generator's words kept
    in locals for the loop rather than loaded and stored in ``s`` at each draw (the compiler
    cannot tell ``s`` from ``a``, so every swap made it reload them): a deal's 51 draws."""
    s0, s1, s2, s3 = s[0], s[1], s[2], s[3]
    for i in range(n - 1, 0, -1):
        x, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        j = _below(x, i + 1)
        a[np.uint64(lo + i)], a[np.uint64(lo + j)] = a[np.uint64(lo + j)], a[np.uint64(lo + i)]
    s[0], s[1], s[2], s[3] = s0, s1, s2, s3
