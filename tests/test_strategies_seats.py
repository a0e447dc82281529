"""Seats and strategies: any mix of strategies in one compiled core, strategies from outside
the project, R24 errors reported with a reproducible position, R26 information."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sim.kernel import position as rules
from sim.kernel.referee import run_games
from sim.kernel.layout import BLIND, FD, HANDS, NR, PICKUP, PUB, STATE_SIZE, STOCK
from sim.kernel.moves import nth_legal
from sim.runs.runner import RunConfig, RunError, run
from sim.kernel.strategy import move_strategy, swap_policy


@move_strategy("test-always-pickup", "returns a pick-up even when leading (illegal, R10/R24)")
def always_pickup(obs, hand, legal, rng, params):
    return PICKUP


@move_strategy("test-out-of-range", "returns a move id that does not exist")
def out_of_range(obs, hand, legal, rng, params):
    return 999


@move_strategy("test-peek-hidden", "reads one past its observation: the first hidden value")
def peek_hidden(obs, hand, legal, rng, params):
    if obs[PUB] >= 0:                     # st[PUB] is the first card count of seat 0's hand
        return nth_legal(legal, obs, 0)
    return nth_legal(legal, obs, 0)


@move_strategy("test-peek-hand", "reads past its own hand (into the next seat's)")
def peek_hand(obs, hand, legal, rng, params):
    return nth_legal(legal, obs, 0) + 0 * hand[NR]


@move_strategy("test-last-public", "reads the last public value: allowed")
def last_public(obs, hand, legal, rng, params):
    return nth_legal(legal, obs, 0) + 0 * obs[PUB - 1] + 0 * hand[NR - 1]


@swap_policy("test-four-up", "puts four cards face up (illegal, R5)")
def four_up(cards, obs, rng, params):
    return 0b001111


def test_R24_illegal_strategy_move_stops_the_run_with_a_reproducible_position():
    cfg = RunConfig(games=50, players=3, seed=4,
                    strategies=["lowest", "test-always-pickup", "lowest"])
    with pytest.raises(RunError) as e:
        run(cfg)
    msg = str(e.value)
    assert "strategy 'test-always-pickup' (seat 1)" in msg
    assert "seed 4" in msg and "game 0" in msg and "R24" in msg
    position = json.loads(msg.split("\n")[-1])
    rules.validate(position)
    assert position["current"] == 1 and position["count"] == 0       # it leads (R7)
    with pytest.raises(ValueError, match="R24"):
        rules.apply(position, {"pickup": True})


def test_R24_move_id_out_of_range_is_an_error():
    cfg = RunConfig(games=5, players=2, seed=1, strategies=["test-out-of-range"])
    with pytest.raises(RunError, match="returned move id 999"):
        run(cfg)


def test_R5_swap_choice_must_be_three_of_six():
    cfg = RunConfig(games=5, players=2, seed=1, swaps=["test-four-up"])
    with pytest.raises(RunError, match="swap policy 'test-four-up'.*3 of its 6"):
        run(cfg)


def test_any_mix_of_seats_uses_one_compiled_core():
    """First-class strategies: a new combination of seats compiles nothing new."""
    before = len(run_games.signatures)
    for mix in (["lowest", "random"], ["random", "lowest"], ["random", "random"]):
        run(RunConfig(games=200, players=2, seed=2, strategies=mix))
    run(RunConfig(games=200, players=5, seed=2, strategies=["random", "lowest"] * 2 + ["lowest"]))
    assert len(run_games.signatures) == max(before, 1)


@pytest.mark.parametrize("seats, rules", [
    (["lowest", "random"] * 2, "seed"), (["lowest"] * 4, "seed"), (["random"] * 4, "seed"),
    (["simple", "cheapest", "lowest", "simple"], "boothj5"),
    (["cheapest"] * 4, "masters-of-shithead")])
def test_inlined_builtins_play_exactly_like_their_first_class_functions(monkeypatch, seats,
                                                                        rules):
    """The core inlines the built-ins (sim.kernel.fastpath: the baseline's and the peers'
    bots, docs/rules.md §11.6), with a loop of its own for a table of ``lowest``; calling them as
    first-class functions, like a user's strategy, must give the same games, bit for bit."""
    from dataclasses import replace

    from sim.kernel import fastpath
    from sim.kernel.records import FIELDS
    from sim.runs.runner import play_batch

    cfg = RunConfig(games=600, players=4, seed=3, strategies=seats, rules=rules,
                    swaps=["none", "random", "highest-up", "none"])
    assert (cfg.seat_table[[0, 1, 6, 7, 8]] > 0).all()   # the fast path is taken
    fast = play_batch(cfg, 0, 600, 1)
    monkeypatch.setattr(fastpath, "kind", lambda fn, swap=False: 0)
    plain = replace(cfg)                  # its pool made now: every seat first-class
    assert not plain.pool.kinds[:12].any() and not plain.seat_table[:12].any()
    slow = play_batch(plain, 0, 600, 1)
    for f in FIELDS:
        assert np.array_equal(getattr(fast, f.name), getattr(slow, f.name)), f.name
    assert fast.turns.sum() > 600 * 50


def test_seat_strategies_matter():
    """lowest beats random clearly (a sanity check that seats get their own strategy)."""
    t = run(RunConfig(games=4000, players=2, seed=8, strategies=["lowest", "random"]))
    import pandas as pd

    seats = pd.DataFrame(t.seat_rows())
    assert seats.loc[0, "ci_low"] > 0.6 > seats.loc[1, "ci_high"]


def test_R26_observation_holds_no_hidden_card():
    """Two states that differ only in hidden cards (face-down stacks, the stock, another
    seat's hand) give the mover the same observation: the public block and its own hand."""
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    from sim.kernel.referee import deal_game
    from sim.kernel.ruleset import Ruleset
    from sim.kernel.rng import seed_game
    seed_game(rng, np.uint64(3), 0)
    deal_game(st, rng, 4, Ruleset().vector())
    other = st.copy()
    # Swap a face-down card of seat 0 with a stock card, and shuffle seat 2's hand with the
    # stock: nothing public changes.
    other[FD + 0], other[STOCK + 0] = st[STOCK + 0], st[FD + 0]
    obs_a, obs_b = st[:PUB], other[:PUB]
    assert np.array_equal(obs_a, obs_b)
    assert np.array_equal(st[HANDS:HANDS + NR], other[HANDS:HANDS + NR])
    assert not np.array_equal(st, other)
    assert PUB <= HANDS < FD < STOCK     # hidden blocks lie beyond what a strategy receives


@pytest.mark.parametrize("name", ["test-peek-hidden", "test-peek-hand"])
def test_R26_reading_past_the_observation_or_hand_stops_the_run(name):
    with pytest.raises(RunError, match="indexed past its observation or hand.*R26"):
        run(RunConfig(games=5, players=3, seed=3, strategies=[name]))


def test_R26_the_whole_public_block_and_hand_are_readable():
    t = run(RunConfig(games=50, players=3, seed=3, strategies=["test-last-public"]))
    assert t.games == 50


def test_R26_a_strategy_cannot_write_to_what_it_sees(tmp_path):
    """The observation, hand and parameters are read-only: writing does not even compile."""
    from sim.runs.registry import get_move
    bots = tmp_path / "writer.py"
    bots.write_text("from sim.kernel.strategy import move_strategy\n\n"
                    "@move_strategy()\n"
                    "def writer(obs, hand, legal, rng, params):\n"
                    "    obs[0] = 1\n"
                    "    return 0\n")
    with pytest.raises(ValueError, match="does not compile.*(readonly|read-only|TypingError)"):
        get_move(f"{bots}:writer")


def test_move_ids_round_trip_through_json():
    for m in range(BLIND + 1):
        assert rules.move_to_id(rules.move_to_dict(m)) == m


def test_the_kernel_does_not_import_the_strategies_package():
    """Sim's batch core stands without the plug-in package strategies/."""
    import subprocess
    import sys
    code = "import sys, sim.kernel.referee, sim.kernel.position; print('strategies' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
