"""The montecarlo strategy: worlds sampled from what its player knows (R26), decisions that
depend on nothing hidden, and parameters given on the command line."""
from __future__ import annotations

import numpy as np
import pytest

from sim import engine
from sim.cards import deck_counts
from sim.layout import (
    CURRENT, DECK, FD, FDN, HANDN, HANDS, KNOWN, NR, OVER, PLAYERS, PUB, STATE_SIZE, STOCK,
    STOCKLEN, TURN,
)
from sim.rng import seed_game
from sim.strategy import get_move
from strategies.montecarlo import evaluate, sample_world
from tests.conftest import assert_conserved, card_totals
from tests.test_engine_properties import random_game


def states(n_games=12, every=7):
    """Positions of random games (3-6 players, seed rules and V2)."""
    found = []

    def keep(st):
        if not st[OVER] and st[TURN] % every == 0:
            found.append(st.copy())
    for g in range(n_games):
        random_game(g, 3 + g % 4, "seed" if g % 2 else {"base": "seed",
                                                        "last_player_loses": True},
                    steps=300, check=keep)
    return found


def test_sampled_worlds_agree_with_everything_the_player_knows():
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(1), 0)
    world = np.zeros(STATE_SIZE, np.int32)
    pool = np.zeros(DECK, np.int32)
    checked = 0
    for st in states():
        me = st[CURRENT]
        hand = st[HANDS + me * NR:HANDS + me * NR + NR]
        for _ in range(3):
            assert sample_world(st[:PUB], hand, rng, world, pool)
            assert np.array_equal(world[:PUB], st[:PUB])            # the public state as is
            assert_conserved(world)                                   # every card once (R1)
            assert np.array_equal(world[HANDS + me * NR:HANDS + me * NR + NR], hand)
            for s in range(st[PLAYERS]):
                h = world[HANDS + s * NR:HANDS + s * NR + NR]
                assert h.sum() == st[HANDN + s]
                assert (h >= st[KNOWN + s * NR:KNOWN + s * NR + NR]).all()
            checked += 1
    assert checked > 50
    assert card_totals(world).tolist() == deck_counts(int(world[PLAYERS]))


def test_R26_decisions_do_not_depend_on_hidden_cards():
    """Two positions that differ only in cards the mover cannot see (its own face-downs, the
    stock, another hand's unknown cards) get the same decision from the same random stream."""
    compared = 0
    for st in states(n_games=8, every=11):
        me = st[CURRENT]
        other = st.copy()
        # Exchange a card of a face-down stack with one of the stock: hidden from everyone.
        s = next((s for s in range(st[PLAYERS]) if st[FDN + s]), None)
        if s is None or not st[STOCKLEN] or st[FD + s * DECK] == st[STOCK]:
            continue
        other[FD + s * DECK], other[STOCK] = st[STOCK], st[FD + s * DECK]
        legal = engine.legal_word(st)
        hand = st[HANDS + me * NR:HANDS + me * NR + NR]
        a, b = np.zeros(4, np.uint64), np.zeros(4, np.uint64)
        seed_game(a, np.uint64(5), 0)
        seed_game(b, np.uint64(5), 0)
        assert np.array_equal(st[:PUB], other[:PUB])
        assert evaluate(st[:PUB], hand, legal, a, 40, 1000, 0.1, 0, 1) == evaluate(
            other[:PUB], other[HANDS + me * NR:HANDS + me * NR + NR], legal, b, 40, 1000, 0.1, 0, 1)
        compared += 1
    assert compared > 3


def test_montecarlo_beats_lowest(cli):
    """A small sanity check of strength (the full evidence is in the issue note)."""
    import json
    r = cli("run", "--games", "150", "--players", "4", "--seed", "3", "--json", "--threads", "1",
            "-s", "montecarlo(rollouts=150)", "-s", "lowest", "-s", "lowest", "-s", "lowest")
    assert r.exit_code == 0, r.output
    seat0 = json.loads(r.output)["by_seat"][0]
    assert seat0["ci_low"] > 0.25                     # better than a fair share


@pytest.mark.parametrize("spec,message", [
    ("montecarlo(bogus=1)", "unknown parameter 'bogus'"),
    ("montecarlo(rollouts=0)", "rollouts must be from 1"),
    ("montecarlo(rollouts=1.5)", "whole number"),
    ("montecarlo(rollouts='many')", "must be a number"),
    ("lowest(x=1)", "unknown parameter 'x'"),
    ("montecarlo(rollouts=)", "parameters are written"),
    ("montecarlo(5)", "parameters are written"),
])
def test_bad_strategy_parameters_are_clear_errors(cli, spec, message):
    r = cli("run", "--games", "10", "-s", spec)
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output


def test_parameters_reach_the_strategy():
    s = get_move("montecarlo(rollouts=7, horizon=50)")
    assert s.name == "montecarlo(rollouts=7, horizon=50)"
    assert s.row().tolist() == [7.0, 50.0, 0.1, 2.0, 0.0]
    assert get_move("montecarlo").row().tolist() == [200.0, 1000.0, 0.1, 2.0, 0.0]
