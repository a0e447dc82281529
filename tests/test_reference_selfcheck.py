"""Self-checks of the reference rules (tests/reference_rules.py) on hand-written positions.

One test per rule area, each naming its rule from ../shared/RULES.md. These import only
the reference, never ``sim``, so the reference can be trusted before it judges ``sim``.
"""

import copy
import os
import sys
from collections import Counter

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_rules import (  # noqa: E402
    CARDS,
    move_key,
    ref_apply,
    ref_first_player,
    ref_legal_moves,
)

V2 = {"base": "seed", "last_player_loses": True}


def deck(players):
    """R1: 4 of each rank; 2 jokers with 6 players."""
    d = Counter({c: 4 for c in CARDS if c != "JK"})
    if players == 6:
        d["JK"] = 2
    return d


def make(players=3, hands=None, face_up=None, face_down=None, pile=(), count=None,
         current=0, direction=1, stock=(), out=(), ruleset="seed", rest_in_stock=False):
    """A valid position: every card not placed anywhere else is in ``burned``
    (or, with ``rest_in_stock``, in the stock, as for a position before any play)."""
    hands = [list(h) for h in (hands or [[] for _ in range(players)])]
    face_up = [list(h) for h in (face_up or [[] for _ in range(players)])]
    face_down = [list(h) for h in (face_down or [[] for _ in range(players)])]
    pile = list(pile)
    if count is None:
        count = 1 if pile else 0
    placed = Counter(pile) + Counter(stock)
    for zone in hands + face_up + face_down:
        placed += Counter(zone)
    rest = deck(players)
    rest.subtract(placed)
    assert min(rest.values()) >= 0, "hand-written position uses too many of a rank"
    burned = sorted(rest.elements())
    if rest_in_stock:
        stock, burned = list(stock) + burned, []
    return {
        "ruleset": ruleset, "players": players, "current": current, "direction": direction,
        "hands": hands, "face_up": face_up, "face_down": face_down, "stock": list(stock),
        "pile": pile, "count": count, "burned": burned, "out": list(out),
    }


def keys(moves):
    return {move_key(m) for m in moves}


def total(pos):
    """Every card of a position, as a multiset (for conservation checks)."""
    c = Counter(pos["pile"]) + Counter(pos["stock"]) + Counter(pos["burned"])
    for zone in pos["hands"] + pos["face_up"] + pos["face_down"]:
        c += Counter(zone)
    return c


def play(*cards):
    return {"play": list(cards)}


PICKUP = {"pickup": True}


# --------------------------------------------------------------------------- R6

def test_R6_first_player_face_up_before_hand_lowest_rank_deal_order():
    hands = [["3", "9", "K"], ["5", "6", "7"], ["8", "9", "J"]]
    face_up = [["4", "Q", "A"], ["4", "K", "A"], ["2", "2", "Q"]]
    # a 3 in seat 0's hand, no 3 face up anywhere -> seat 0
    assert ref_first_player(make(hands=hands, face_up=face_up, rest_in_stock=True)) == 0
    # a 3 face up anywhere beats a 3 in hand
    face_up_3 = face_up[:2] + [["3", "2", "Q"]]
    assert ref_first_player(make(hands=hands, face_up=face_up_3, rest_in_stock=True)) == 2
    # no 3 at all: 4 face up at seats 0 and 1; ties go to the first in deal order
    no_3 = [["6", "9", "K"]] + hands[1:]
    pos = make(hands=no_3, face_up=face_up, rest_in_stock=True)
    assert ref_first_player(pos) == 0
    pos["dealer"] = 0  # seat 1 is dealt first now
    assert ref_first_player(pos) == 1


def test_R6_twos_never_count_and_fallback_is_first_in_deal_order():
    pos = make(players=2, hands=[["2", "2", "A"], ["2", "A", "A"]],
               face_up=[["2", "A", "K"], ["K", "K", "Q"]], rest_in_stock=True)
    # 2s ignored: lowest of 3..A is Q (face up at seat 1)
    assert ref_first_player(pos) == 1
    # nobody holds any of 3..A face up or in hand (not a real deal; R6 reads only those)
    empty = make(players=2, rest_in_stock=True)
    empty["dealer"] = 0
    assert ref_first_player(empty) == 1


# --------------------------------------------------------------------------- R7, R9

def test_R7_leader_may_play_any_number_of_one_rank_and_cannot_pick_up():
    pos = make(hands=[["5", "5", "5", "K"], ["3"], ["4"]])
    assert keys(ref_legal_moves(pos)) == keys(
        [play("5"), play("5", "5"), play("5", "5", "5"), play("K")])


def test_R9_count_and_equal_or_higher_rank():
    pos = make(hands=[["4", "7", "7", "8", "8", "K", "2", "2"], ["3"], ["4"]],
               pile=["7", "7"], count=2)
    assert keys(ref_legal_moves(pos)) == keys(
        [play("7", "7"), play("8", "8"), play("2", "2"), PICKUP])
    # the lead sets the count (R9), the next seat follows
    lead = make(hands=[["9", "9", "9", "Q"], ["3"], ["4"]])
    after = ref_apply(lead, play("9", "9"))
    assert after["count"] == 2 and after["pile"] == ["9", "9"] and after["current"] == 1
    assert after["events"] == [] and after["winner"] is None
    with pytest.raises(ValueError):  # R24: wrong count
        ref_apply(pos, play("8"))
    with pytest.raises(ValueError):  # R24: lower rank
        ref_apply(make(hands=[["4", "4"], ["3"], ["4"]], pile=["7", "7"], count=2),
                  play("4", "4"))


# --------------------------------------------------------------------------- R8

def test_R8_draw_to_three_from_stock_top_only_after_hand_play():
    pos = make(hands=[["6", "6", "9"], ["3"], ["4"]], stock=["J", "Q", "K"])
    after = ref_apply(pos, play("6", "6"))
    assert sorted(after["hands"][0]) == sorted(["9", "K", "Q"])  # last element drawn first
    assert after["stock"] == ["J"]
    # a player holding 3 or more never draws
    pos = make(hands=[["6", "9", "9", "9", "8"], ["3"], ["4"]], stock=["J"])
    after = ref_apply(pos, play("6"))
    assert Counter(after["hands"][0]) == Counter(["9", "9", "9", "8"])
    assert after["stock"] == ["J"]
    # a play from the face-ups never draws
    pos = make(hands=[[], ["3"], ["4"]], face_up=[["8", "5"], [], []], stock=["J"])
    after = ref_apply(pos, play("8"))
    assert after["hands"][0] == [] and after["face_up"][0] == ["5"] and after["stock"] == ["J"]


# --------------------------------------------------------------------------- R10

def test_R10_pickup_takes_whole_pile_next_player_leads_no_draw():
    pos = make(hands=[["4"], ["3"], ["5"]], pile=["6", "9", "K"], count=1, stock=["A"])
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])
    after = ref_apply(pos, PICKUP)
    assert Counter(after["hands"][0]) == Counter(["4", "6", "9", "K"])
    assert after["pile"] == [] and after["count"] == 0 and after["current"] == 1
    assert after["stock"] == ["A"] and after["events"] == ["pickup"]
    # the player may pick up even when they could play
    pos = make(hands=[["A"], ["3"], ["5"]], pile=["6"], count=1)
    assert keys(ref_legal_moves(pos)) == keys([play("A"), PICKUP])


# --------------------------------------------------------------------------- R11-R13

def test_R11_R13_face_ups_only_when_hand_empty():
    pos = make(hands=[["4"], ["3"], ["5"]], face_up=[["A", "A"], [], []], pile=["6"])
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])  # R13: no table cards with a hand
    with pytest.raises(ValueError):
        ref_apply(pos, {"pickup": True, "add": "A"})
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["A", "A", "5"], [], []],
               pile=["6", "6"], count=2)
    assert keys(ref_legal_moves(pos)) == keys([
        play("A", "A"), PICKUP, {"pickup": True, "add": "A"}, {"pickup": True, "add": "5"}])
    after = ref_apply(pos, play("A", "A"))
    assert after["face_up"][0] == ["5"] and after["pile"] == ["6", "6", "A", "A"]


def test_R12_pickup_with_add_never_burns_or_reverses():
    pos = make(players=6, hands=[[], ["3"], ["5"], ["6"], ["7"], ["8"]],
               face_up=[["10", "JK", "4"], [], [], [], [], []], pile=["Q"], count=1)
    after = ref_apply(pos, {"pickup": True, "add": "10"})
    assert Counter(after["hands"][0]) == Counter(["Q", "10"])
    assert sorted(after["face_up"][0]) == sorted(["JK", "4"])
    assert after["events"] == ["pickup"] and after["current"] == 1 and after["direction"] == 1
    after = ref_apply(pos, {"pickup": True, "add": "JK"})
    assert after["events"] == ["pickup"] and after["direction"] == 1 and after["current"] == 1
    # adding a fourth card of a rank does not burn either
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["9"], [], []], pile=["9", "9", "9"],
               count=3)
    after = ref_apply(pos, {"pickup": True, "add": "9"})
    assert Counter(after["hands"][0]) == Counter(["9"] * 4) and after["burned"] == pos["burned"]


# --------------------------------------------------------------------------- R14-R17

def test_R14_R17_blind_is_the_only_move_and_turns_the_last_element():
    pos = make(face_down=[["K", "4"], ["7"], ["5"]], hands=[[], ["3"], ["5"]],
               pile=["6"], count=1)
    assert ref_legal_moves(pos) == [{"blind": True}]
    with pytest.raises(ValueError):  # R16: no pick-up from the blind-only state
        ref_apply(pos, PICKUP)
    # top is "4", lower than 6: blind_fail, both the pile and the turned card go to hand
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["blind_fail", "pickup"]
    assert Counter(after["hands"][0]) == Counter(["6", "4"])
    assert after["face_down"][0] == ["K"] and after["pile"] == [] and after["count"] == 0
    assert after["current"] == 1


def test_R15_blind_success_is_a_normal_play():
    pos = make(face_down=[["4", "K", "K"], [], []], hands=[[], ["3"], ["5"]],
               pile=["9", "9"], count=2)
    after = ref_apply(pos, {"blind": True})
    assert after["pile"] == ["9", "9", "K", "K"] and after["face_down"][0] == ["4"]
    assert after["events"] == [] and after["current"] == 1 and after["count"] == 2
    # two different ranks turned: illegal
    pos["face_down"][0] = ["K", "4", "K"]
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["blind_fail", "pickup"]
    assert Counter(after["hands"][0]) == Counter(["9", "9", "K", "4"])
    assert after["face_down"][0] == ["K"]


def test_R16_fewer_face_down_than_count_is_illegal():
    pos = make(face_down=[["A"], [], []], hands=[[], ["3"], ["5"]],
               pile=["5", "5"], count=2)
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["blind_fail", "pickup"]
    assert Counter(after["hands"][0]) == Counter(["5", "5", "A"])
    assert after["face_down"][0] == [] and after["out"] == []  # R18: not out, play goes on


# --------------------------------------------------------------------------- R18, R19, R25

def test_R18_R25_seed_first_out_wins_and_game_is_over():
    pos = make(hands=[[], ["3", "4"], ["5"]], face_up=[["Q"], [], []],
               pile=["6"], count=1, current=0)
    after = ref_apply(pos, play("Q"))
    assert after["out"] == [0] and after["winner"] == 0
    assert after["events"] == ["out", "game_over"] and after["current"] == 1
    assert ref_legal_moves(after) == []
    with pytest.raises(ValueError):
        ref_apply(after, play("3"))


def test_R19_out_with_a_burn_wins_and_current_is_next_seat():
    pos = make(hands=[["10"], ["3", "4"], ["5"]], pile=["6"], count=1, current=0)
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn", "out", "game_over"]
    assert after["winner"] == 0 and after["current"] == 1 and after["pile"] == []
    # V2: the next seat leads on the empty pile
    pos["ruleset"] = V2
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn", "out"] and after["winner"] is None
    assert after["current"] == 1 and after["count"] == 0 and after["out"] == [0]


def test_R19_out_with_a_joker_reverses_first():
    pos = make(players=6, hands=[["3"], [], ["4"], ["5"], ["6"], ["7"]],
               face_down=[[], ["JK"], [], [], [], []], current=1, pile=["9"], count=1)
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["reverse", "out", "game_over"]
    assert after["direction"] == -1 and after["current"] == 0 and after["winner"] == 1


# --------------------------------------------------------------------------- R20

def test_R20_two_on_anything_anything_on_two_count_applies():
    pos = make(hands=[["2", "2", "3"], ["4"], ["5"]], pile=["A", "A"], count=2)
    assert keys(ref_legal_moves(pos)) == keys([play("2", "2"), PICKUP])
    pos = make(hands=[["2", "3"], ["4"], ["5"]], pile=["A"], count=1)
    assert keys(ref_legal_moves(pos)) == keys([play("2"), PICKUP])
    after = ref_apply(pos, play("2"))
    assert after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play("4"), PICKUP])  # 4 on a 2


# --------------------------------------------------------------------------- R21

def test_R21_ten_burns_and_player_leads_again():
    pos = make(hands=[["10", "10", "3", "9"], ["4"], ["5"]], pile=["8", "8"], count=2,
               stock=["K"])
    after = ref_apply(pos, play("10", "10"))
    assert after["events"] == ["burn"]
    assert after["pile"] == [] and after["count"] == 0 and after["current"] == 0
    assert Counter(after["burned"]) - Counter(pos["burned"]) == Counter(["8", "8", "10", "10"])
    assert Counter(after["hands"][0]) == Counter(["3", "9", "K"])  # R8 draw after burn
    # a 10 obeys R9: not on a higher card
    pos = make(hands=[["10"], ["4"], ["5"]], pile=["J"], count=1)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])


# --------------------------------------------------------------------------- R22

def test_R22_four_of_a_kind_on_the_physical_top_four():
    pos = make(hands=[["7", "3"], ["4"], ["5"]], pile=["6", "7", "7", "7"], count=1)
    after = ref_apply(pos, play("7"))
    assert after["events"] == ["burn"] and after["current"] == 0 and after["pile"] == []
    # four at once
    pos = make(hands=[["9", "9", "9", "9", "3"], ["4"], ["5"]])
    after = ref_apply(pos, play("9", "9", "9", "9"))
    assert after["events"] == ["burn"] and after["current"] == 0
    # four 2s count
    pos = make(hands=[["2", "2", "3"], ["4"], ["5"]], pile=["2", "2"], count=2)
    after = ref_apply(pos, play("2", "2"))
    assert after["events"] == ["burn"]
    # a joker between them breaks the set
    pos = make(players=6, hands=[["7", "3"], ["4"], ["5"], ["6"], ["8"], ["9"]],
               pile=["7", "7", "JK", "7"], count=1)
    after = ref_apply(pos, play("7"))
    assert after["events"] == [] and after["pile"] == ["7", "7", "JK", "7", "7"]


# --------------------------------------------------------------------------- R23

def test_R23_joker_reverses_once_and_is_looked_through():
    pos = make(players=6,
               hands=[["JK", "JK", "4"], ["8"], ["5"], ["6"], ["9"], ["K", "K", "3", "3"]],
               pile=["8", "8"], count=2)
    after = ref_apply(pos, play("JK", "JK"))
    assert after["events"] == ["reverse"] and after["direction"] == -1
    assert after["current"] == 5  # one reversal, previous seat
    assert after["count"] == 2
    # the effective top is the 8 under the jokers: count 2, needs 8 or higher
    assert keys(ref_legal_moves(after)) == keys([play("K", "K"), PICKUP])


def test_R23_joker_lead_and_empty_under_jokers_means_anything():
    pos = make(players=6, hands=[["JK", "4"], ["3"], ["5"], ["6"], ["9"], ["8"]])
    after = ref_apply(pos, play("JK"))
    assert after["count"] == 1 and after["current"] == 5 and after["direction"] == -1
    assert keys(ref_legal_moves(after)) == keys([play("8"), PICKUP])
    # jokers alone on the pile: anything, even a 3, may follow
    pos = make(players=6, hands=[["4"], ["Q"], ["5"], ["6"], ["9"], ["3", "3"]],
               pile=["JK", "JK"], count=2, current=5, direction=-1)
    assert keys(ref_legal_moves(pos)) == keys([play("3", "3"), PICKUP])
    # a joker on a 2: the 2 under it still means anything
    pos = make(players=6, hands=[["4"], ["3"], ["5"], ["6"], ["9"], ["8"]],
               pile=["K", "2", "JK"], count=1)
    assert keys(ref_legal_moves(pos)) == keys([play("4"), PICKUP])


# --------------------------------------------------------------------------- R24

def test_R24_illegal_and_malformed_moves_raise_and_input_is_unchanged():
    pos = make(hands=[["5", "5", "K"], ["3"], ["4"]], face_up=[["A"], [], []],
               pile=["6"], count=1)
    before = copy.deepcopy(pos)
    bad = [play("5"), play("A"), play("K", "K"), {"play": []}, {"play": ["X"]},
           {"blind": True}, {"blind": False}, {"pickup": True, "add": None},
           {"pickup": True, "add": "A"}, {"pickup": False}, {"pickup": True, "x": 1},
           {}, "pickup"]
    for move in bad:
        with pytest.raises(ValueError):
            ref_apply(pos, move)
    ref_apply(pos, play("K"))
    ref_apply(pos, PICKUP)
    assert pos == before


# --------------------------------------------------------------------------- V2

def test_V2_out_seats_skipped_and_game_ends_with_one_left():
    pos = make(players=3, hands=[["Q"], [], ["3", "4"]], face_down=[[], ["9"], []],
               out=[], ruleset=V2, pile=["6"], count=1)
    after = ref_apply(pos, play("Q"))
    assert after["out"] == [0] and after["events"] == ["out"] and after["winner"] is None
    assert after["current"] == 1 and after["pile"] == ["6", "Q"] and after["count"] == 1
    # seat 1 turns its last card (9 < Q): fails, picks up, seat 0 is skipped -> seat 2
    after2 = ref_apply(after, {"blind": True})
    assert after2["events"] == ["blind_fail", "pickup"] and after2["current"] == 2
    # seat 2 leads 3, seat 1 (skipping 0) must follow
    after3 = ref_apply(after2, play("3"))
    assert after3["current"] == 1
    # a position where seat 1's last card goes out: game over, winner is out[0]
    end = make(players=3, hands=[[], ["A"], ["3"]], ruleset=V2, out=[0], current=1,
               pile=["5"], count=1)
    fin = ref_apply(end, play("A"))
    assert fin["events"] == ["out", "game_over"] and fin["out"] == [0, 1]
    assert fin["winner"] == 0 and fin["current"] == 2 and ref_legal_moves(fin) == []


def test_conservation_over_a_sequence():
    pos = make(hands=[["5", "10"], ["6", "6"], ["7"]], face_up=[["8"], ["9"], ["J"]],
               stock=["Q", "K"])
    start = total(pos)
    for move in [play("5"), play("6"), PICKUP, play("10")]:
        pos = ref_apply(pos, move)
        assert total(pos) == start
