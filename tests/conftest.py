"""Shared helpers for the tests."""
from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("NUMBA_NUM_THREADS", "2")

from sim.kernel.dealing import deck_jokers  # noqa: E402
from sim.kernel.layout import (  # noqa: E402
    BURNED, FD, FDN, FDS, FU, HANDS, NDECKS, NR, PILE, PILELEN, PLAYERS, REMOVED, STOCK,
    STOCKLEN,
)


def card_totals(st) -> np.ndarray:
    """Cards of each rank found anywhere in a kernel state."""
    tot = np.zeros(NR, np.int64)
    for s in range(st[PLAYERS]):
        tot += st[HANDS + s * NR:HANDS + s * NR + NR]
        tot += st[FU + s * NR:FU + s * NR + NR]
        tot += np.bincount(st[FD + s * FDS:FD + s * FDS + st[FDN + s]], minlength=NR)
    tot += np.bincount(st[STOCK:STOCK + st[STOCKLEN]], minlength=NR)
    tot += np.bincount(st[PILE:PILE + st[PILELEN]], minlength=NR)
    tot += st[BURNED:BURNED + NR]
    tot += st[REMOVED:REMOVED + NR]                      # H17
    return tot


def assert_conserved(st):
    """R1, H13, H17, H18: every card of the ruleset's deck (d decks) exactly once."""
    assert card_totals(st).tolist() == [4 * int(st[NDECKS])] * 13 + [deck_jokers(st)]


@pytest.fixture
def cli():
    from typer.testing import CliRunner

    from sim.cli.app import app

    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, [str(a) for a in args])
    return invoke


def _register_test_strategies():
    from sim.kernel.strategy import move_strategy
    from strategies.basic import lowest, random_move

    @move_strategy("test-wrapped-random", "random, under another name (tests)", swap="random")
    def wrapped_random(obs, hand, legal, rng, params):
        return random_move(obs, hand, legal, rng, params)

    @move_strategy("test-wrapped-lowest", "lowest, under another name (tests)",
                   swap="highest-up")
    def wrapped_lowest(obs, hand, legal, rng, params):
        return lowest(obs, hand, legal, rng, params)

    @move_strategy("test-lowest-random-swap", "lowest, with random swaps (tests)",
                   swap="random")
    def lowest_random_swap(obs, hand, legal, rng, params):
        return lowest(obs, hand, legal, rng, params)


_register_test_strategies()
