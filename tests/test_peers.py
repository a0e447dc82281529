"""The peers' bots as they play in their own programs (docs/rules.md §11.6, strategies/peers.py):
``cheapest`` (trachwo's CheapShit) lays a 10 and a Q alone; ``simple`` (boothj5's Simple)
draws among its legal 2, 7 and 10 and among its legal face-up ranks, from the game's random
stream, and so is not pure."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.kernel import engine
from sim.kernel.layout import CURRENT, HANDS, NR, PUB
from sim.kernel.moves import is_legal_move
from sim.kernel.position import move_to_dict, to_state
from sim.rules import apply
from sim.runs.registry import get_move
from sim.runs.runner import RunConfig, play_batch
from tests.positions import pos
from tests.test_heuristics import PICKUP, choose, play

END_MOVE = {"end": True}

SEEDS = range(200)


def lead(hand, stock=(), ruleset="seed", face_up=None):
    """Seat 0 to lead (empty pile) holding ``hand``; seat 1 is far from going out."""
    return pos(players=3, current=0, hands=[list(hand), [], []], face_up=face_up,
               face_down=[["J"], ["6", "6", "6"], ["J"]], stock=list(stock), ruleset=ruleset)


def on(pile, hand, ruleset, face_up=None, stock=()):
    """Seat 0 to answer ``pile`` (count 1) holding ``hand``."""
    return pos(players=3, current=0, hands=[list(hand), [], []], face_up=face_up,
               face_down=[["J"], ["6", "6", "6"], ["J"]], stock=list(stock), pile=list(pile),
               count=1, ruleset=ruleset)


def seen(spec, position):
    """How often ``spec`` makes each move in ``position`` over :data:`SEEDS`."""
    return Counter(str(choose(spec, position, seed)) for seed in SEEDS)


# -- cheapest (§11.6: CheapShit) ------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ["seed", "masters-of-shithead"])
@pytest.mark.parametrize("rank", ["10", "Q"])
def test_11_6_cheapest_lays_a_10_or_a_q_alone_even_with_the_stock_empty(ruleset, rank):
    """With the stock empty it lays all its cards of the chosen rank, but never two 10s
    (the first burns as it lands, R21) nor two Qs (a Q must be covered at once, H8)."""
    assert choose("cheapest", lead([rank, rank], ruleset=ruleset)) == play(rank)
    assert choose("cheapest", lead([rank, rank], stock=["5"], ruleset=ruleset)) == play(rank)
    # the same empty stock, another rank of the far end of its order: all of them
    assert choose("cheapest", lead(["K", "K"], ruleset=ruleset)) == play("K", "K")


def test_11_6_cheapest_holds_back_above_j_while_the_stock_lasts():
    """While the stock lasts (R8: the hand is drawn back up) it lays one card of Q..A, all
    copies of 4..J."""
    assert choose("cheapest", lead(["5", "5", "K"], stock=["9"])) == play("5", "5")
    assert choose("cheapest", lead(["K", "K"], stock=["9"])) == play("K")


def test_11_6_cheapest_alone_is_a_parameter():
    """Which ranks go alone (R21's 10, H8's Q by default) is its parameter ``alone``."""
    assert choose('cheapest(alone="Q")', lead(["10", "10"])) == play("10", "10")
    assert choose('cheapest(alone="Q")', lead(["Q", "Q"])) == play("Q")
    with pytest.raises(ValueError, match="alone.*X is not a rank"):
        get_move('cheapest(alone="10 X")').row()


TWO_DECKS = {"base": "classic", "decks": 2}      # H1 off, two decks (H18): eight of a rank
MASTERS = "masters-of-shithead"


def decide(spec, position):
    """The move ``spec`` makes in ``position``, big plays (H18) and an H11 add's ``n``
    included (:func:`tests.test_heuristics.choose` covers neither)."""
    st = to_state(position)
    legal = engine.legal_word(st)
    p = int(st[CURRENT])
    obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
    m = int(get_move(spec).fn(obs, hand, legal, np.zeros(4, np.uint64), get_move(spec).row()))
    assert is_legal_move(legal, m, obs, hand), m                         # R24
    return move_to_dict(m, st)


def chain(pile, hand, stock=(), players=3, run=1):
    """masters-of-shithead (H19): seat 0 in a chain, ``run`` cards of its run on ``pile``."""
    return pos(players=players, current=0, hands=[list(hand)] + [[]] * (players - 1),
               face_down=[["J"]] + [["8"]] * (players - 1), stock=list(stock),
               pile=list(pile), count=1, ruleset=MASTERS, run=run,
               decks=2 if players > 3 else 1)


@pytest.mark.parametrize("ruleset", [TWO_DECKS, {"base": "boothj5", "decks": 2}])
def test_11_6_cheapest_completes_a_four_with_all_its_cards(ruleset):
    """R22 with three of its rank on top: its cards complete a four, and it lays all of them
    (the peer's KILL branch adds every one before the burn), a K or a Q too while the stock
    lasts; with two on top it holds back as ever (one K)."""
    position = pos(players=3, current=0, hands=[["K", "K", "A"], ["5"], ["5"]],
                   face_down=[["J"], ["6"], ["6"]], stock=["9"], pile=["K", "K", "K"],
                   count=1, ruleset=ruleset, decks=2)
    assert decide("cheapest", position) == play("K", "K")
    position = pos(players=3, current=0, hands=[["Q", "Q", "A"], ["5"], ["5"]],
                   face_down=[["J"], ["6"], ["6"]], stock=["9"], pile=["Q", "Q", "Q"],
                   count=1, ruleset=ruleset, decks=2)
    assert decide("cheapest", position) == play("Q", "Q")          # `alone` gives way
    position = pos(players=3, current=0, hands=[["K", "K", "A"], ["5"], ["5"]],
                   face_down=[["J"], ["6"], ["6"]], stock=["9"], pile=["9", "K", "K"],
                   count=1, ruleset=ruleset, decks=2)
    assert decide("cheapest", position) == play("K")


def test_11_6_cheapest_completes_a_four_under_the_masters_preset():
    """Two decks at 4 players (H18 "masters"): on three Ks it lays both of its Ks, burning."""
    position = chain(["K", "K", "K"], ["K", "K", "9"], stock=["5"], players=4, run=0)
    assert decide("cheapest", position) == play("K", "K")
    after = apply(position, play("K", "K"))
    assert "burn" in after["events"] and after["current"] == 0


def test_11_6_cheapest_lays_every_card_of_4_to_j_in_one_play_of_two_decks():
    """H18: five 5s are one lead of five (a big play), all of them."""
    position = pos(players=3, current=0, hands=[["5"] * 5 + ["K"], ["5"], ["5"]],
                   face_down=[["J"], ["6"], ["6"]], stock=["9"], ruleset=TWO_DECKS, decks=2)
    assert decide("cheapest", position) == play(*["5"] * 5)


def test_11_6_h19_cheapest_goes_on_with_every_card_of_4_to_j():
    """H19: after the draw it continues with all its cards of the run's rank when the rank
    is 4..J, or the stock is empty; otherwise it ends the turn."""
    assert decide("cheapest", chain(["4", "5"], ["5", "5", "K"], stock=["6"])) == play("5", "5")
    assert decide("cheapest", chain(["4", "K"], ["K", "K", "9"], stock=["6"])) == END_MOVE
    assert decide("cheapest", chain(["4", "K"], ["K", "K", "9"])) == play("K", "K")


def test_11_6_h19_cheapest_ends_its_run_on_three_of_a_kind_while_the_stock_lasts():
    """Three Ks on top after its one K (H19), the stock not empty: the peer's turn offers an
    end there (its KILL branch needs four on top), and CheapShit takes it; the four clause
    is for a play that completes a four, not for a continuation."""
    assert decide("cheapest", chain(["K", "K", "K"], ["K", "9", "5"], stock=["6"])) == END_MOVE


def test_11_6_h11_one_then_rank_cheapest_takes_all_of_its_cheapest_face_up_rank():
    """H11 "one_then_rank": no face-up card plays on the A, so it picks up naming its
    cheapest face-up rank (9 before K in its order), all of it: k = 2."""
    position = pos(players=3, current=0, hands=[[], ["5"], ["5"]],
                   face_up=[["9", "9", "K"], [], []], face_down=[["J"], ["6"], ["6"]],
                   pile=["A"], count=1, ruleset=MASTERS)
    assert decide("cheapest", position) == {"pickup": True, "add": "9", "n": 2}


# -- simple (§11.6: boothj5's Simple) -------------------------------------------------------
def test_11_6_simple_draws_among_its_legal_2_7_and_10():
    """Its comparator ranks 2, 7 and 10 equal (it plays the one it got first): every one is
    seen over seeds, one card (R9)."""
    position = on(["K"], ["2", "7", "10"], "boothj5")
    counts = seen("simple", position)
    assert set(counts) == {str(play(r)) for r in ("2", "7", "10")}, counts


def test_11_6_simple_weighs_the_specials_by_their_cards():
    """Three 2s and a 10: the first of them it got is a 2 three times in four; one card."""
    counts = seen("simple", on(["K"], ["2", "2", "2", "10"], "boothj5"))
    assert set(counts) == {str(play("2")), str(play("10"))}
    assert 0.65 < counts[str(play("2"))] / len(SEEDS) < 0.85, counts


def test_11_6_simple_plays_a_legal_normal_rank_before_any_special():
    """On a 9 its legal K pair (R9) comes before the specials 2, 7 and 10 (R20, R21)."""
    position = on(["9"], ["2", "7", "10", "K", "K"], "boothj5")
    assert seen("simple", position) == {str(play("K", "K")): len(SEEDS)}


def test_11_6_simple_draws_among_its_legal_face_up_ranks():
    """From the face-ups (R11) the original plays the first legal card of the row as dealt:
    any legal face-up rank (R9), all its copies (an A before a 4, sometimes)."""
    position = pos(players=3, current=0, hands=[[], ["5"], ["5"]],
                   face_up=[["A", "4", "4"], [], []],
                   face_down=[["J"], ["K"], ["J"]], ruleset="boothj5")
    counts = seen("simple", position)
    assert set(counts) == {str(play("A")), str(play("4", "4"))}, counts
    # on a 9 the 4 is not legal: the A every time
    position = pos(players=3, current=0, hands=[[], ["5"], ["5"]],
                   face_up=[["A", "4", "4"], [], []],
                   face_down=[["J"], ["K"], ["J"]], pile=["9"], count=1, ruleset="boothj5")
    assert seen("simple", position) == {str(play("A")): len(SEEDS)}


def test_11_6_simple_still_picks_up_only_when_it_cannot_play():
    """R10: it picks up the pile only when no play is legal."""
    assert choose("simple", on(["A"], ["4", "5"], "seed")) == PICKUP


# -- purity (sim.kernel.cycle) and reproducibility ------------------------------------------
def test_11_6_simple_is_not_pure_and_cheapest_is():
    assert not get_move("simple").pure and get_move("cheapest").pure
    assert not RunConfig(strategies=["simple"]).cycle_detect
    assert RunConfig(strategies=["cheapest"]).cycle_detect


@pytest.mark.parametrize("rules", ["seed", "boothj5", "masters-of-shithead", "classic"])
def test_11_6_peers_play_whole_games_the_same_from_the_same_seed(rules):
    """Every move legal (R24) under each preset; simple's draws come from the game's own
    random stream, so a run is the same twice and the games differ with the seed."""
    cfg = RunConfig(games=300, players=3, seed=4, strategies=["simple", "cheapest", "simple"],
                    rules=rules)
    a, b = play_batch(cfg, 0, 300, 1), play_batch(cfg, 0, 300, 2)
    assert np.array_equal(a.turns, b.turns) and np.array_equal(a.status, b.status)
    other = play_batch(RunConfig(**{**_args(cfg), "seed": 5}), 0, 300, 1)
    assert not np.array_equal(a.turns, other.turns)


def _args(cfg):
    return dict(games=cfg.games, players=cfg.players, seed=cfg.seed,
                strategies=list(cfg.strategies), rules=cfg.rules)
