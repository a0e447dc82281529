"""The swap size (H12: a swap chooses the hand size of twice as many cards, R5) and the deck
(R1, H13) have one owner each, and every caller follows them: the replay's swap text, the
swap buffer's size, the swap study's hand size and the swap study's deck."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.kernel import dealing
from sim.kernel.cards import CODE, NAMES, deck_counts, joker_count
from sim.kernel.layout import FU, HANDS, NR, STATE_SIZE
from sim.kernel.referee import deal_game
from sim.kernel.rng import seed_game
from sim.kernel.ruleset import JOKERS, PRESETS, Ruleset
from sim.runs.config import RunError
from tests.conftest import card_totals

ROOT = Path(__file__).resolve().parents[1]


def dealt(rules, players, seed=0):
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(seed), 0)
    deal_game(st, rng, players, Ruleset.parse(rules).vector())
    return st


# -- H12: the swap size --------------------------------------------------------------------
def test_h12_replay_shows_every_card_of_a_hand_size_4_swap():
    """H12, R5: at hand size 4 each seat puts 4 of its 8 cards face up, and the replay names
    all 4 (it printed the mask, ``15``, or 3 of the 4, then crashed writing past a 10-slot
    buffer). In a subprocess: the old code died with a segfault or an abort."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "sim.cli", "replay", "--seed", "7", "--game",
                        "3", "--players", "3", "--rule", "hand_size=4"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert "  seat 0 puts face up: Q K 2 2" in lines      # highest-up: the best half
    assert "  seat 1 puts face up: 9 J A 10" in lines
    assert "  seat 2 puts face up: 10 J K Q" in lines
    assert any("wins after" in line or "Shithead" in line for line in lines)


@pytest.mark.parametrize("hand_size", [3, 4])
def test_h12_swap_cards_never_write_past_the_buffer(hand_size):
    """H12: ``swap_cards`` writes 2 x hand size cards and SWAP_SCRATCH slots after them, no
    more; a buffer one slot shorter is refused (IndexError), and nothing past it changes.
    The buffer is a view into a larger array, so a write past its end lands on sentinels."""
    st = dealt({"base": "seed", "hand_size": hand_size}, 3, seed=5)
    k = dealing.swap_size(st)
    assert k == 2 * hand_size
    for s in range(3):
        big = np.full(k + dealing.SWAP_SCRATCH + 8, -7, np.int32)
        dealing.swap_cards(st, s, big[:k + dealing.SWAP_SCRATCH])
        assert (big[k + dealing.SWAP_SCRATCH:] == -7).all()
        big[:] = -7
        with pytest.raises(IndexError):
            dealing.swap_cards(st, s, big[:k + dealing.SWAP_SCRATCH - 1])
        assert (big[k + dealing.SWAP_SCRATCH - 1:] == -7).all()


@pytest.mark.parametrize("hand_size", [3, 4])
def test_h12_swap_choices_are_the_face_ups_then_the_hand(hand_size):
    """R5, H12: the cards a swap chooses from are the seat's face-ups, then its hand, each in
    rank order: 2 x hand size of them, the order of a swap mask's bits."""
    st = dealt({"base": "seed", "hand_size": hand_size}, 4, seed=11)
    for s in range(4):
        cards = dealing.swap_choices(st, s)
        assert len(cards) == 2 * hand_size
        want = [r for base in (FU, HANDS) for r in range(NR) for _ in range(st[base + s * NR + r])]
        assert cards.tolist() == want


def test_h12_swap_study_refuses_hand_size_4_before_playing(tmp_path):
    """H12, R5: the swap study values triples (3 of 6 cards); at hand size 4 it refuses at
    once, naming H12, and writes nothing (it used to play the whole values stage first)."""
    from sim.studies.swapstudy import swap_study
    from sim.studies.swapstudy.values import values_stage
    out = tmp_path / "study"
    with pytest.raises(RunError, match="hand_size=4 \\(H12\\)"):
        swap_study(out, players=3, games=200, rules={"base": "seed", "hand_size": 4},
                   threads=1)
    assert not out.exists()
    with pytest.raises(RunError, match="H12"):
        values_stage(3, 200, 0, {"base": "boothj5", "hand_size": 4}, "lowest", 1)


def test_h12_study_cli_refuses_hand_size_4(cli, tmp_path):
    r = cli("study", "swap", "--players", "3", "--games", "100", "--rule", "hand_size=4",
            "--out", tmp_path / "s")
    assert r.exit_code != 0
    assert "H12" in r.output and "Traceback" not in r.output


# -- H13: the deck -------------------------------------------------------------------------
@pytest.mark.parametrize("jokers", JOKERS)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_h13_ruleset_deck_is_the_dealt_deck(preset, jokers):
    """R1, H13, H18: ``Ruleset.deck_counts`` is the deck the engine deals, for every preset,
    joker option and player count (one formula, :func:`sim.kernel.cards.joker_count`)."""
    rules = Ruleset.build(preset, {"jokers": jokers})
    for players in range(2, rules.max_players() + 1):
        st = dealt(rules, players, seed=players)
        assert card_totals(st).tolist() == rules.deck_counts(players)
        assert rules.deck_counts(players) == deck_counts(JOKERS.index(jokers), players,
                                                         rules.decks_for(players))   # H18
        assert dealing.deck_jokers(st) == rules.jokers_for(players) == joker_count(
            JOKERS.index(jokers), players)
    assert rules.deck_counts(3)[CODE["JK"]] == (2 if jokers == "always" else 0)


@pytest.mark.slow
def test_h13_swap_study_models_the_jokers_of_jokers_always(tmp_path):
    """H13: under ``jokers=always`` the study's deck has two jokers at 3 players, so its split
    policy values joker triples and its policy lists six-card sets with jokers (it modelled
    the 52-card deck of R1's 3 players: no joker anywhere). The values stage deals them."""
    from sim.studies.swapstudy import swap_study
    out = tmp_path / "s"
    study = swap_study(out, players=3, games=400, h2h_games=100, threads=1, seed=3,
                       rules={"base": "seed", "jokers": "always"})
    split = (out / "split.csv").read_text().splitlines()
    assert any("JK" in line.split(",")[:3] for line in split[1:])
    policy = (out / "policy.csv").read_text().splitlines()
    assert any("JK" in line.split(",")[0].split() for line in policy[1:])
    assert "JK" in [c["card"] for c in study["cards"]]
    assert any("JK" in t["triple"] for t in study["triples"])      # dealt and recorded
    # and without jokers (R1 at 3 players) none appears
    out2 = tmp_path / "s2"
    swap_study(out2, players=3, games=200, h2h_games=100, threads=1, seed=3)
    assert not any("JK" in line for line in (out2 / "policy.csv").read_text().splitlines())
    assert json.loads((out / "study.json").read_text())["rules"] == {
        "base": "seed", "jokers": "always"}


def test_h13_six_card_sets_follow_the_deck():
    """H13: the study's six-card sets are those the given deck allows."""
    from sim.studies.swapstudy.policy import six_card_sets
    with_jk = six_card_sets(Ruleset.build("seed", {"jokers": "always"}).deck_counts(3))
    without = six_card_sets(Ruleset.build("seed").deck_counts(3))
    assert (with_jk == CODE["JK"]).any(axis=1).sum() > 0
    assert not (without == CODE["JK"]).any()
    assert ((with_jk == CODE["JK"]).sum(axis=1) <= 2).all()
    assert NAMES[CODE["JK"]] == "JK"
