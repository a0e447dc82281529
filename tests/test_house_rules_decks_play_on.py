"""Scenario tests of H18 (decks), H19 (play on), H20 (out before the four) and H11
``one_then_rank`` (docs/rules.md §11.2, docs/position.md "H18, decks", "H19, play on", "H11
one_then_rank"), through the single-position API that calls the jitted kernel.

Every test is named after the rule it checks, and the interactions docs/rules.md spells out have
tests of their own. Positions are hand-written; ``hpos`` puts every unused card of the
ruleset's deck (d decks, H13's jokers) into ``burned``.
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.kernel import engine
from sim.kernel import position as rules
from sim.kernel.layout import CHAIN, CURRENT, OUTORDER, TURN
from sim.kernel.ruleset import Ruleset
from sim.runs.config import RunError
from sim.runs.runner import RunConfig, play_batch, record_game
from tests.positions import pos

PICKUP = {"pickup": True}
BLIND = {"blind": True}
END = {"end": True}
PLAY_ON = {"count_rule": False, "play_on": True}


def R(**options):
    """``seed`` with options changed (a docs/position.md ruleset object)."""
    return {"base": "seed", **options}


def hpos(ruleset="seed", players=3, **kw):
    """A position under ``ruleset``: its deck's decks (H18) and jokers (H13)."""
    rs = Ruleset.parse(ruleset)
    return pos(players=players, ruleset=ruleset, jokers=bool(rs.jokers_for(players)),
               decks=rs.decks_for(players), **kw)


def play(*cards):
    return {"play": list(cards)}


def add(card, n):
    return {"pickup": True, "add": card, "n": n}


def legal(p):
    return rules.legal_moves(p)


def same(moves, want):
    """The same moves, in any order."""
    key = sorted(map(repr, moves))
    return key == sorted(map(repr, want))


# -- H18 decks --------------------------------------------------------------------------------
def test_H18_two_decks_seat_up_to_eight_one_deck_refuses_seven_in_one_line():
    eight = hpos(R(decks=2), players=8, hands=[["5"]] * 8)
    rules.validate(eight)
    assert rules.legal_moves(eight)[0] == play("5")
    for ruleset in ("seed", R(decks=1)):
        with pytest.raises(ValueError, match=r"players: 7 players need two decks.*R1, H18"):
            rules.validate(hpos(R(decks=2), players=7, hands=[["5"]] * 7) | {"ruleset": ruleset})
    with pytest.raises(ValueError, match="R1, H18"):
        Ruleset.build("seed").check_players(7)
    with pytest.raises(RunError, match="H18"):
        RunConfig(games=10, players=7)
    with pytest.raises(RunError, match="2 to 8 with two decks"):
        RunConfig(games=10, players=9, rules=Ruleset.build("seed", {"decks": 2}))


def test_H18_computed_decks_masters_and_boothj5():
    masters = Ruleset.build("seed", {"decks": "masters"})
    assert [masters.decks_for(n) for n in range(2, 7)] == [1, 1, 2, 2, 2]   # ceil(17 n / 52)
    with pytest.raises(ValueError, match=r"3 decks at 7 players.*H18, §11.3"):
        masters.check_players(7)
    booth = Ruleset.build("seed", {"decks": "boothj5"})
    assert [booth.decks_for(n) for n in range(2, 9)] == [1, 1, 1, 1, 2, 2, 2]
    booth4 = Ruleset.build("seed", {"decks": "boothj5", "hand_size": 4})
    assert [booth4.decks_for(n) for n in range(2, 9)] == [1, 1, 1, 2, 2, 2, 2]
    assert Ruleset.build("seed", ["decks=2"]).decks == 2                 # the command line
    with pytest.raises(ValueError, match="H18"):
        Ruleset.build("seed", ["decks=3"])


def test_H18_eight_copies_of_a_rank_and_never_more_than_two_jokers():
    two = Ruleset.build("seed", {"decks": 2})
    assert two.deck_counts(4) == [8] * 13 + [0]
    assert two.deck_counts(7) == [8] * 13 + [2]                          # H13: 6 or more
    assert Ruleset.build("seed", {"decks": 2, "jokers": "always"}).deck_counts(3)[-1] == 2
    assert Ruleset.build("seed").deck_counts(6) == [4] * 13 + [2]


def test_H18_a_lead_is_up_to_eight_cards_and_four_or_more_burn():
    p = hpos(R(decks=2), hands=[["K"] * 6 + ["4"], ["5"], ["6"]])
    moves = legal(p)
    assert all(play(*["K"] * n) in moves for n in range(1, 7))
    assert play(*["K"] * 7) not in moves
    after = rules.apply(p, play(*["K"] * 6))
    assert after["events"] == ["burn"] and after["pile"] == [] and after["current"] == 0


def test_H18_count_rule_count_above_four_with_four_burns_off():
    kw = dict(hands=[["A"] * 5 + ["K"] * 4, ["5"], ["6"]], pile=["9"] * 5, count=5)
    p = hpos(R(decks=2, four_burns=False), **kw)
    assert same(legal(p), [play(*["A"] * 5), PICKUP])                    # R9: exactly 5
    after = rules.apply(p, play(*["A"] * 5))
    assert after["count"] == 5 and after["current"] == 1 and len(after["pile"]) == 10
    with pytest.raises(ValueError, match="count"):                       # one deck: 1-4
        rules.validate(hpos(R(four_burns=False), hands=[["5"], ["4"], ["6"]],
                            pile=["9"] * 4 + ["A"], count=5))


def test_H18_a_blind_turn_short_of_a_count_above_four_fails():
    p = hpos(R(decks=2, four_burns=False), hands=[[], ["5"], ["6"]],
             face_down=[["A", "A", "A"], ["4"], ["4"]], pile=["9"] * 5, count=5)
    after = rules.apply(p, BLIND)                                       # R16: 3 < 5
    assert after["events"] == ["blind_fail", "pickup"] and after["face_down"][0] == []


def test_H18_a_big_play_is_refused_without_the_cards():
    p = hpos(R(decks=2), hands=[["K"] * 4 + ["4"], ["5"], ["6"]])
    with pytest.raises(ValueError, match="only 4"):
        rules.apply(p, play(*["K"] * 5))
    with pytest.raises(ValueError, match="at most 8"):
        rules.apply(p, play(*["K"] * 9))


def test_H18_eight_player_games_with_two_decks_in_the_batch_core():
    cfg = RunConfig(games=60, players=8, seed=4, rules=Ruleset.build("boothj5"),
                    strategies=["lowest", "random", "cheapest", "simple"] * 2)
    b = play_batch(cfg, 0, 60, 1)
    assert (b.status <= 1).all() and (b.order[b.status == 0, :7] >= 0).all()
    for g in (3, 17):                       # one game step by step: the same game
        rec = record_game(cfg, g)
        st = rec.start.copy()
        for m in rec.moves:
            engine.apply_move(st, int(m))
        assert int(st[TURN]) == b.turns[g] and list(st[OUTORDER:OUTORDER + 8]) == list(
            b.order[g])


# -- H19 play on ---------------------------------------------------------------------------------
def test_H19_a_drawn_card_of_the_rank_goes_on_in_a_chain():
    p = hpos(R(**PLAY_ON), hands=[["5", "9", "9"], ["4"], ["6"]], stock=["K", "5"])
    after = rules.apply(p, play("5"))
    assert after["current"] == 0 and after["run"] == 1 and after["events"] == []
    assert sorted(after["hands"][0]) == ["5", "9", "9"]
    assert same(legal(after), [play("5"), END])
    done = rules.apply(after, play("5"))                                # draws the K: no 5
    assert done["current"] == 1 and done["run"] == 0 and done["count"] == 1
    assert done["pile"] == ["5", "5"]


def test_H19_a_chain_offers_only_the_runs_rank_and_end():
    p = hpos(R(**PLAY_ON, seven_lower=True), hands=[["7", "7", "K"], ["4"], ["6"]],
             pile=["9", "7"], count=1, run=1)
    assert same(legal(p), [play("7"), play("7", "7"), END])
    for move in (PICKUP, play("K")):
        with pytest.raises(ValueError, match=r"chain of 7s.*H19"):
            rules.apply(p, move)


def test_H19_end_passes_the_turn_also_under_H10_never():
    p = hpos(R(**PLAY_ON, voluntary_pickup="never"), hands=[["7", "7", "K"], ["4"], ["6"]],
             pile=["9", "7"], count=1, run=1)
    assert END in legal(p)
    after = rules.apply(p, END)
    assert after["current"] == 1 and after["run"] == 0 and after["events"] == []


def test_H19_end_is_refused_outside_a_chain():
    p = hpos(R(**PLAY_ON), hands=[["7", "K"], ["4"], ["6"]], pile=["9"], count=1)
    with pytest.raises(ValueError, match="H19"):
        rules.apply(p, END)
    with pytest.raises(ValueError, match="only under play_on"):
        rules.apply(hpos(hands=[["7", "K"], ["4"], ["6"]], pile=["9"], count=1), END)
    with pytest.raises(ValueError, match="end"):
        rules.apply(p, {"end": False})


def test_H19_skip_per_card_counts_the_whole_run_on_the_passing_move_only():
    p = hpos(R(**PLAY_ON, skip_rank="8", skip_per_card=True), players=4,
             hands=[["8", "8", "4"], ["5"], ["6"], ["7"]])
    mid = rules.apply(p, play("8"))
    assert mid["events"] == [] and mid["current"] == 0 and mid["run"] == 1
    after = rules.apply(mid, play("8"))
    assert after["events"] == ["skip"] and after["current"] == 3         # 2 seats skipped
    assert after["run"] == 0


def test_H19_end_applies_the_runs_skip_once():
    p = hpos(R(**PLAY_ON, skip_rank="8"), players=4,
             hands=[["8", "8", "4"], ["5"], ["6"], ["7"]])
    mid = rules.apply(p, play("8"))
    after = rules.apply(mid, END)
    assert mid["events"] == [] and after["events"] == ["skip"] and after["current"] == 2


def test_H19_reverse_per_card_flips_once_per_card_of_the_run():
    ruleset = R(**PLAY_ON, reverse_rank="K", reverse_per_card=True)
    p = hpos(ruleset, players=4, hands=[["K", "K", "4"], ["5"], ["6"], ["7"]])
    mid = rules.apply(p, play("K"))
    assert mid["events"] == [] and mid["direction"] == 1
    two = rules.apply(mid, play("K"))
    assert two["events"] == ["reverse"] and two["direction"] == 1 and two["current"] == 1
    one = rules.apply(mid, END)
    assert one["events"] == ["reverse"] and one["direction"] == -1 and one["current"] == 3


def test_H19_a_run_of_jokers_flips_once():
    p = hpos(R(**PLAY_ON, jokers="always"), hands=[["JK", "JK", "4"], ["5"], ["6"]])
    mid = rules.apply(p, play("JK"))
    assert mid["run"] == 1 and mid["direction"] == 1
    after = rules.apply(mid, play("JK"))
    assert after["events"] == ["reverse"] and after["direction"] == -1
    assert after["current"] == 2


def test_H19_a_burn_mid_chain_cancels_the_runs_skip_and_ends_the_chain():
    p = hpos(R(**PLAY_ON, skip_rank="8", skip_per_card=True), players=4,
             hands=[["8", "8", "4"], ["5"], ["6"], ["7"]], pile=["8", "8"], count=1)
    mid = rules.apply(p, play("8"))
    assert mid["run"] == 1 and mid["current"] == 0
    after = rules.apply(mid, play("8"))                                  # the fourth 8 (R22)
    assert after["events"] == ["burn"] and after["current"] == 0        # H9: leads again
    assert after["run"] == 0 and after["count"] == 0 and END not in legal(after)


def test_H19_no_continuation_after_a_ten_burn():
    p = hpos(R(**PLAY_ON), hands=[["10", "10", "4"], ["5"], ["6"]], pile=["5"], count=1)
    after = rules.apply(p, play("10"))
    assert after["events"] == ["burn"] and after["run"] == 0 and after["count"] == 0
    assert play("10") in legal(after) and END not in legal(after)       # a new run


def test_H19_no_continuation_after_a_cover():
    p = hpos(R(**PLAY_ON, cover_rank="Q"), hands=[["Q", "Q", "4"], ["5"], ["6"]], pile=["5"],
             count=1)
    after = rules.apply(p, play("Q"))
    assert after["current"] == 0 and after["count"] == 0 and after["run"] == 0
    assert same(legal(after), [play("4"), play("Q")])                   # H8: cover, a new run


def test_H19_no_continuation_after_a_blind_play():
    p = hpos(R(**PLAY_ON), hands=[[], ["4"], ["6"]], face_down=[["5", "5"], ["3"], ["3"]],
             pile=["4"], count=1)
    after = rules.apply(p, BLIND)
    assert after["pile"] == ["4", "5"] and after["current"] == 1 and after["run"] == 0


def test_H19_no_continuation_after_a_pick_up():
    p = hpos(R(**PLAY_ON), hands=[["5", "3"], ["4"], ["6"]], pile=["9"], count=1)
    after = rules.apply(p, PICKUP)
    assert after["current"] == 1 and after["run"] == 0 and END not in legal(after)


def test_H19_a_continuation_from_face_ups_after_the_last_hand_card():
    p = hpos(R(**PLAY_ON), hands=[["6"], ["4"], ["5"]], face_up=[["6", "9"], [], []])
    mid = rules.apply(p, play("6"))
    assert mid["hands"][0] == [] and mid["run"] == 1 and mid["current"] == 0
    assert same(legal(mid), [play("6"), END])
    after = rules.apply(mid, play("6"))
    assert after["face_up"][0] == ["9"] and after["current"] == 1 and after["run"] == 0


def test_H19_a_continuation_when_nothing_was_drawn():
    p = hpos(R(**PLAY_ON), hands=[["5", "5", "5", "9"], ["4"], ["6"]], stock=["K"])
    mid = rules.apply(p, play("5"))                                     # 3 left: no draw (R8)
    assert mid["stock"] == ["K"] and mid["run"] == 1 and play("5", "5") in legal(mid)


def test_H19_a_mover_who_goes_out_ends_the_chain_and_the_run_skips():
    p = hpos(R(**PLAY_ON, skip_rank="8", last_player_loses=True), players=4,
             hands=[["8"], ["5"], ["6"], ["7"]], face_down=[[], ["3"], ["3"], ["3"]])
    after = rules.apply(p, play("8"))
    assert after["events"] == ["skip", "out"] and after["current"] == 2
    assert after["run"] == 0


def test_H19_a_continuation_of_five_or_more_cards_with_two_decks():
    p = hpos(R(**PLAY_ON, decks=2), hands=[["K"] * 6 + ["4"], ["5"], ["6"]], pile=["5"],
             count=1)
    mid = rules.apply(p, play("K"))
    assert mid["run"] == 1 and play(*["K"] * 5) in legal(mid)
    after = rules.apply(mid, play(*["K"] * 5))
    assert after["events"] == ["burn"] and after["run"] == 0


def test_H19_the_forced_opening_starts_a_run_the_starter_may_continue():
    """H16 with H19: the opening is a run's first play; a drawn card of its rank continues
    it (``lowest`` always does)."""
    cfg = RunConfig(games=40, players=3, seed=1, strategies=["lowest"],
                    rules=Ruleset.build("boothj5", {"play_on": True}))
    chained = 0
    for g in range(40):
        rec = record_game(cfg, g)
        st = rec.start.copy()
        first = int(st[CURRENT])
        engine.apply_move(st, int(rec.moves[0]))
        if st[CHAIN] > 0:
            chained += 1
            assert int(st[CURRENT]) == first
    assert chained > 0


def test_H19_needs_count_rule_off():
    with pytest.raises(ValueError, match=r"play_on needs count_rule=false.*H19"):
        Ruleset.build("seed", {"play_on": True})


@pytest.mark.parametrize("ruleset,kw,message", [
    (R(**PLAY_ON), dict(pile=["9", "7"], run=2), "only 1 equal"),
    (R(count_rule=False), dict(pile=["9", "7"], run=1), "only under play_on"),
    (R(**PLAY_ON, cover_rank="7"), dict(pile=["9", "7"], run=1), "cover"),
    (R(**PLAY_ON), dict(pile=["9", "9"], run=1), "no 9"),
    (R(**PLAY_ON), dict(pile=["9", "7"], run=True), "whole number"),
    (R(**PLAY_ON), dict(pile=["9", "7"], run=-1), "whole number"),
])
def test_H19_run_is_checked(ruleset, kw, message):
    p = hpos(ruleset, hands=[["7", "K"], ["4"], ["6"]], count=1, **kw)
    with pytest.raises(ValueError, match=message):
        rules.validate(p)


def test_H19_run_is_written_under_play_on_only():
    p = hpos(R(**PLAY_ON), hands=[["7", "K"], ["4"], ["6"]])
    assert rules.apply(p, play("7"))["run"] == 0
    seed = hpos(hands=[["7", "K"], ["4"], ["6"]], run=0)
    assert "run" not in rules.apply(seed, play("7"))
    over = hpos(R(**PLAY_ON), hands=[["7"], ["4"], ["6"]])
    after = rules.apply(over, play("7"))
    assert after["winner"] == 0 and after["run"] == 0


# -- H20 out before the four -----------------------------------------------------------------
OUT = dict(out_before_burn=True, last_player_loses=True)


def test_H20_going_out_on_a_four_leaves_it_on_the_pile():
    p = hpos(R(**OUT), hands=[["9"], ["A", "4"], ["6"]], face_down=[[], ["3"], ["3"]],
             pile=["9", "9", "9"], count=1)
    after = rules.apply(p, play("9"))
    assert after["events"] == ["out"] and after["pile"] == ["9"] * 4
    assert after["current"] == 1 and after["count"] == 1
    assert same(legal(after), [play("A"), PICKUP])                       # follows on the 9s
    assert "burn" in rules.apply(hpos(R(last_player_loses=True), **{
        k: p[k] for k in ("hands", "face_down", "pile", "count")}), play("9"))["events"]


def test_H20_the_next_player_adding_a_fifth_card_burns():
    p = hpos(R(**OUT, decks=2), hands=[["9"], ["9", "4"], ["6"]], face_down=[[], ["3"], ["3"]],
             pile=["9", "9", "9"], count=1)
    after = rules.apply(rules.apply(p, play("9")), play("9"))
    assert after["events"] == ["burn"] and after["current"] == 1 and after["pile"] == []


def test_H20_a_ten_still_burns():
    p = hpos(R(**OUT), hands=[["10"], ["A", "4"], ["6"]], face_down=[[], ["3"], ["3"]],
             pile=["5"], count=1)
    after = rules.apply(p, play("10"))
    assert after["events"] == ["burn", "out"] and after["pile"] == []


def test_H20_a_four_that_leaves_the_mover_a_card_burns():
    kw = dict(face_down=[[], ["3"], ["3"]], pile=["9", "9", "9"], count=1)
    held = rules.apply(hpos(R(**OUT), hands=[["9", "4"], ["A"], ["6"]], **kw), play("9"))
    assert held["events"] == ["burn"] and held["current"] == 0
    drawn = rules.apply(hpos(R(**OUT), hands=[["9"], ["A"], ["6"]], stock=["4"], **kw),
                        play("9"))                                      # draws: holds a card
    assert drawn["events"] == ["burn"] and drawn["hands"][0] == ["4"]


def test_H20_without_V2_the_game_ends_with_the_four_on_the_pile():
    p = hpos(R(out_before_burn=True), hands=[["9"], ["A"], ["6"]], pile=["9", "9", "9"],
             count=1)
    after = rules.apply(p, play("9"))
    assert after["events"] == ["out", "game_over"] and after["winner"] == 0
    assert after["pile"] == ["9"] * 4


def test_H20_the_plays_effect_applies_without_a_burn_to_cancel_it():
    p = hpos(R(**OUT, skip_rank="8"), players=4, hands=[["8"], ["5"], ["6"], ["7"]],
             face_down=[[], ["3"], ["3"], ["3"]], pile=["8", "8", "8"], count=1)
    after = rules.apply(p, play("8"))
    assert after["events"] == ["skip", "out"] and after["current"] == 2


def test_H20_a_four_completed_by_a_blind_last_card_stays():
    p = hpos(R(**OUT), hands=[[], ["A"], ["6"]], face_down=[["9"], ["3"], ["3"]],
             pile=["9", "9", "9"], count=1)
    after = rules.apply(p, BLIND)
    assert after["events"] == ["out"] and after["pile"] == ["9"] * 4


def test_H20_with_H19_a_continuation_that_goes_out_on_a_four():
    p = hpos(R(**PLAY_ON, **OUT), hands=[["9", "9"], ["A"], ["6"]],
             face_down=[[], ["3"], ["3"]], pile=["9", "9"], count=1)
    mid = rules.apply(p, play("9"))
    assert mid["run"] == 1 and mid["events"] == []
    after = rules.apply(mid, play("9"))
    assert after["events"] == ["out"] and after["pile"] == ["9"] * 4 and after["run"] == 0


# -- H11 one_then_rank ----------------------------------------------------------------------
ONE = R(faceup_pickup="one_then_rank")


def test_H11_one_then_rank_names_a_face_up_rank_and_how_many():
    p = hpos(ONE, hands=[[], ["5"], ["6"]], face_up=[["K", "K", "4"], [], []], pile=["A"],
             count=1)
    assert same(legal(p), [add("4", 1), add("K", 1), add("K", 2)])      # no plain pick-up
    after = rules.apply(p, add("K", 1))
    assert after["events"] == ["pickup"] and sorted(after["hands"][0]) == ["A", "K"]
    assert sorted(after["face_up"][0]) == ["4", "K"] and after["current"] == 1
    every = rules.apply(p, add("K", 2))
    assert every["face_up"][0] == ["4"] and sorted(every["hands"][0]) == ["A", "K", "K"]


def test_H11_one_then_rank_n_is_required_there_and_refused_elsewhere():
    kw = dict(hands=[[], ["5"], ["6"]], face_up=[["K", "K", "4"], [], []], pile=["A"], count=1)
    p = hpos(ONE, **kw)
    with pytest.raises(ValueError, match="one_then_rank"):
        rules.apply(p, {"pickup": True, "add": "K"})
    with pytest.raises(ValueError, match="one_then_rank"):
        rules.apply(p, PICKUP)
    with pytest.raises(ValueError, match="only under faceup_pickup=one_then_rank"):
        rules.apply(hpos(**kw), add("K", 1))
    for bad in (True, 0, 1.0, "1", None):
        with pytest.raises(ValueError, match="n: expected"):
            rules.apply(p, add("K", bad))
    with pytest.raises(ValueError, match="a move has exactly one"):
        rules.apply(p, {"pickup": True, "n": 1})
    with pytest.raises(ValueError, match="illegal move.*2 face-up K"):
        rules.apply(p, add("K", 3))


def test_H11_one_then_rank_under_H10_never_only_when_no_play_is_legal():
    kw = dict(hands=[[], ["5"], ["6"]], face_up=[["K", "K", "4"], [], []], count=1)
    never = R(faceup_pickup="one_then_rank", voluntary_pickup="never")
    assert same(legal(hpos(never, pile=["3"], **kw)), [play("4"), play("K")])
    assert add("K", 1) in legal(hpos(never, pile=["A"], **kw))


def test_H11_one_then_rank_an_add_is_never_a_play():
    p = hpos(ONE, hands=[[], ["5"], ["6"]], face_up=[["K", "K", "4"], [], []],
             pile=["2", "K", "K"], count=1)
    moves = legal(p)
    assert add("K", 2) in moves
    after = rules.apply(p, add("K", 2))                                 # 4 Ks: no burn (R12)
    assert after["events"] == ["pickup"] and after["hands"][0].count("K") == 4


def test_H11_one_then_rank_in_the_masters_preset_and_in_games():
    assert Ruleset.build("masters-of-shithead").faceup_pickup == "one_then_rank"
    cfg = RunConfig(games=200, players=3, seed=3, strategies=["random"],
                    rules=Ruleset.build("seed", {"faceup_pickup": "one_then_rank"}))
    b = play_batch(cfg, 0, 200, 1)
    assert (b.status <= 1).all()
    assert np.isin(b.status, [0]).sum() > 100


@pytest.mark.parametrize("options", [
    {"decks": 2, "faceup_pickup": "one_then_rank"},            # H18 big plays, H11 adds of k
    {"decks": 2, "play_on": True, "count_rule": False, "four_burns": False,
     "hand_size": 4},                                        # H19, H1, H3, H12
])
def test_H18_every_legal_lists_the_legal_word_and_the_big_plays_in_increasing_order(options):
    """sim.kernel.moves.every_legal, the one list of a seat's choices: on every state of
    random games at 7 players (two decks), legal_list's ids and big_word's plays of 5 to 8
    cards (H18), strictly increasing (the H11 adds of k face-up cards, above the big plays,
    never come with a hand to make one from)."""
    from sim.env.vector import VectorTables
    from sim.kernel.layout import BIG, HANDS, L_BIG, NMOVES, NR, OVER, PUB
    from sim.kernel.moves import big_word, every_legal, has, legal_list
    from sim.kernel.rng import seed_game

    v = VectorTables(6, players=7, rules="seed",
                     rule=[f"{k}={str(x).lower()}" for k, x in options.items()])
    v.reset(seed=5)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(5), 0)
    out, ref = np.zeros(NMOVES, np.int64), np.zeros(NMOVES, np.int64)
    bigs = 0
    for _ in range(1500):
        for st in v.states:
            if st[OVER]:
                continue
            p = st[CURRENT]
            hand = st[HANDS + p * NR:HANDS + p * NR + NR]
            word = engine.legal_word(st)
            k = every_legal(word, st[:PUB], hand, out)
            want = set(ref[:legal_list(word, st[:PUB], ref)].tolist())
            if has(word, L_BIG):
                big = int(big_word(st[:PUB], hand))
                want |= {BIG + i for i in range(4 * NR) if (big >> i) & 1}
                bigs += 1
            got = out[:k].tolist()
            assert set(got) == want and got == sorted(set(got))
        v.step(v.random_actions(rng))
    assert bigs > 0                      # the case this is about was met
