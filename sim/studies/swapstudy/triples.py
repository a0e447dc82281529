"""The swap study's triples: the sorted triples of rank codes (jokers included), their
index and per-rank counts; a triple's code is r1*196 + r2*14 + r3, as ``Batch.triples``."""
from __future__ import annotations

from itertools import combinations

import numpy as np

from sim.kernel.cards import NAMES, NRANK

SIZE = NRANK ** 3

# The 560 sorted triples of rank codes (jokers included), and their per-rank counts.
TRIPLES = [t for t in combinations(range(NRANK + 2), 3)]
TRIPLES = [(a, b - 1, c - 2) for a, b, c in TRIPLES]             # multisets r1 <= r2 <= r3
NTRIPLE = len(TRIPLES)
CODE = np.array([a * NRANK * NRANK + b * NRANK + c for a, b, c in TRIPLES], np.int64)
INDEX = np.full(SIZE, -1, np.int64)
INDEX[CODE] = np.arange(NTRIPLE)
COUNTS = np.zeros((NTRIPLE, NRANK), np.int64)
for _i, _t in enumerate(TRIPLES):
    for _r in _t:
        COUNTS[_i, _r] += 1


def triple_names(code: int) -> list[str]:
    """The three ranks' names of a triple's code."""
    return [NAMES[code // (NRANK * NRANK)], NAMES[code // NRANK % NRANK], NAMES[code % NRANK]]


def table_code(cards):
    """The code of three cards (rank codes, any order); of each row of an array of them."""
    t = np.sort(np.asarray(cards, np.int64), axis=-1)
    code = t[..., 0] * NRANK * NRANK + t[..., 1] * NRANK + t[..., 2]
    return int(code) if code.ndim == 0 else code


def card_names(codes):
    """The ranks' names of rank codes."""
    return [NAMES[int(c)] for c in codes]


def words(codes) -> str:
    """Rank codes in words: ``4 10 K``."""
    return " ".join(card_names(codes))


def usual_up(cards) -> list[int]:
    """The indices of the six ``cards`` (rank codes) that ``highest-up``, the usual advice,
    puts face up."""
    from strategies.basic import highest_up

    cards = np.asarray(cards, np.int32)
    mask = int(highest_up.py_func(cards, cards, np.zeros(4, np.uint64), np.zeros(1)))
    return [i for i in range(cards.size) if (mask >> i) & 1]
