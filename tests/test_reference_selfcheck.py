"""Self-checks of the reference rules (tests/reference_rules.py) on hand-written positions.

One test per rule area, each naming its rule (docs/rules.md): the seed rules (R6-R25, V2),
then the house rules of §11 (rulesets §11.3-§11.4, H0a, H1-H20 and their interactions, the
``run`` key of docs/position.md), then invariant walks over random games. These import only the reference,
never ``sim``, so the reference can be trusted before it judges ``sim``.
"""

import copy
import os
import random
import sys
from collections import Counter

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_rules import (  # noqa: E402
    CARDS,
    PRESET_PLAYERS,
    PRESETS,
    RANKS_13,
    move_key,
    ref_apply,
    ref_deck,
    ref_first_player,
    ref_forced_opening,
    ref_decks,
    ref_legal_moves,
    ref_removed_range,
    ref_ruleset,
)

V2 = {"base": "seed", "last_player_loses": True}


def rs(base="seed", **options):
    """A ruleset object: ``options`` on top of the preset ``base`` (docs/position.md)."""
    return {"base": base, **options}


def deck(players, ruleset="seed"):
    """R1, H13: 4 of each rank; 2 jokers with 6 players (or as H13 says)."""
    return Counter(ref_deck(ruleset, players))


def make(players=3, hands=None, face_up=None, face_down=None, pile=(), count=None,
         current=0, direction=1, stock=(), out=(), ruleset="seed", rest_in_stock=False,
         removed=None):
    """A valid position: every card not placed anywhere else is in ``burned``
    (or, with ``rest_in_stock``, in the stock, as for a position before any play).
    ``removed`` (H17) is added as a key when given."""
    hands = [list(h) for h in (hands or [[] for _ in range(players)])]
    face_up = [list(h) for h in (face_up or [[] for _ in range(players)])]
    face_down = [list(h) for h in (face_down or [[] for _ in range(players)])]
    pile = list(pile)
    if count is None:
        count = 1 if pile else 0
    placed = Counter(pile) + Counter(stock) + Counter(removed or [])
    for zone in hands + face_up + face_down:
        placed += Counter(zone)
    rest = deck(players, ruleset)
    rest.subtract(placed)
    assert min(rest.values()) >= 0, "hand-written position uses too many of a rank"
    burned = sorted(rest.elements())
    if rest_in_stock:
        stock, burned = list(stock) + burned, []
    pos = {
        "ruleset": ruleset, "players": players, "current": current, "direction": direction,
        "hands": hands, "face_up": face_up, "face_down": face_down, "stock": list(stock),
        "pile": pile, "count": count, "burned": burned, "out": list(out),
    }
    if removed is not None:
        pos["removed"] = list(removed)
    return pos


def keys(moves):
    return {move_key(m) for m in moves}


def total(pos):
    """Every card of a position, as a multiset (for conservation checks; H17's removed too)."""
    c = Counter(pos["pile"]) + Counter(pos["stock"]) + Counter(pos["burned"])
    c += Counter(pos.get("removed", []))
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


# =========================================================================== §11 house rules

ALL_OPTION_KEYS = {
    "count_rule", "ten_anywhere", "four_burns", "seven_lower", "transparent_rank",
    "skip_rank", "skip_per_card", "reverse_rank", "reverse_per_card", "cover_rank",
    "burn_plays_again", "voluntary_pickup", "faceup_pickup", "hand_size", "jokers",
    "starter", "starter_order", "forced_opening", "removed_before_deal",
    "decks", "play_on", "out_before_burn", "choose_face_ups", "last_player_loses",
}


# --------------------------------------------------------------------------- §11.4 presets

def test_11_4_presets_resolve_to_the_table():
    assert set(PRESETS) == {"seed", "classic", "masters-of-shithead", "boothj5"}
    for name in PRESETS:
        assert set(ref_ruleset(name)) == ALL_OPTION_KEYS
        assert ref_ruleset(name) == PRESETS[name]
        assert ref_ruleset(rs(name)) == PRESETS[name]
    seed = ref_ruleset("seed")
    assert seed["count_rule"] is True and seed["transparent_rank"] is None
    assert seed["voluntary_pickup"] == "except_blind" and seed["jokers"] == "six_players"
    assert seed["starter_order"] == ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    classic = ref_ruleset("classic")
    assert (classic["count_rule"], classic["ten_anywhere"], classic["jokers"],
            classic["last_player_loses"], classic["starter"]) == (False, True, "never", True,
                                                                  "dealt")
    masters = ref_ruleset("masters-of-shithead")
    assert (masters["seven_lower"], masters["transparent_rank"], masters["skip_rank"],
            masters["skip_per_card"], masters["reverse_rank"], masters["reverse_per_card"],
            masters["cover_rank"]) == (True, "3", "8", True, "K", True, "Q")
    assert (masters["voluntary_pickup"], masters["faceup_pickup"], masters["starter"],
            masters["removed_before_deal"]) == ("always", "one_then_rank", "hand", "masters")
    assert (masters["decks"], masters["play_on"], masters["out_before_burn"]) == (
        "masters", True, True)
    assert masters["starter_order"] == ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A",
                                        "10", "2", "3"]
    booth = ref_ruleset("boothj5")
    assert (booth["transparent_rank"], booth["skip_rank"], booth["skip_per_card"],
            booth["reverse_rank"], booth["voluntary_pickup"], booth["faceup_pickup"],
            booth["forced_opening"]) == ("7", "8", False, None, "never", "pile_only", True)
    assert (booth["decks"], booth["play_on"], booth["out_before_burn"]) == (
        "boothj5", False, False)
    assert booth["starter_order"] == ["3", "4", "5", "6", "8", "9", "J", "Q", "K", "A",
                                      "2", "7", "10"]
    for name in PRESETS:  # all four: H3 on, H9 on, hand size 3, no V1
        o = PRESETS[name]
        assert (o["four_burns"], o["burn_plays_again"], o["hand_size"],
                o["choose_face_ups"]) == (True, True, 3, False)
    for name in ("seed", "classic"):  # H18-H20 at their defaults
        assert (PRESETS[name]["decks"], PRESETS[name]["play_on"],
                PRESETS[name]["out_before_burn"]) == (1, False, False)
    # keys override the base; the result is a copy
    got = ref_ruleset(rs("boothj5", hand_size=4, skip_rank=None))
    assert got["hand_size"] == 4 and got["skip_rank"] is None and got["ten_anywhere"] is True
    got["count_rule"] = "mutated"
    assert PRESETS["seed"]["count_rule"] is True and ref_ruleset("seed")["count_rule"] is True


# --------------------------------------------------------------------------- §11.3 refusals

@pytest.mark.parametrize("ruleset", [
    "house", None, 3, {"count_rule": False}, {"base": "nope"}, {"base": V2},
    rs(colour="red"), rs(players=3),                                   # unknown key
    rs(count_rule="no"), rs(count_rule=0), rs(ten_anywhere=None),      # unknown values
    rs(hand_size=5), rs(hand_size=True), rs(hand_size="3"), rs(hand_size=3.0),
    rs(voluntary_pickup="sometimes"), rs(faceup_pickup="add_one"), rs(jokers=2),
    rs(starter="face_up"), rs(removed_before_deal="some"), rs(last_player_loses="yes"),
    rs(starter_order=["3", "3"]), rs(starter_order=["JK"]), rs(starter_order=["1"]),
    rs(starter_order="3"), rs(transparent_rank="1"), rs(skip_rank=8),
    rs(skip_rank="8", reverse_rank="8"), rs(transparent_rank="Q", cover_rank="Q"),  # pairwise
    rs(transparent_rank="2"), rs(skip_rank="10"), rs(reverse_rank="JK"), rs(cover_rank="2"),
    rs(seven_lower=True, transparent_rank="7"), rs(seven_lower=True, cover_rank="7"),
    rs("boothj5", seven_lower=True),              # boothj5's transparent 7 under H4
    rs("masters-of-shithead", skip_rank="K"),     # K already reverses
    rs(forced_opening=True),                      # H16 without H14 "hand"
    rs("boothj5", starter="dealt"),               # H16 without H14 "hand"
    rs("boothj5", starter_order=["3", "4"]),      # H16 without all 13 ranks
    rs(forced_opening=True, starter="hand"),      # seed's order has no 2: 12 ranks
])
def test_11_3_refused_rulesets_raise(ruleset):
    with pytest.raises(ValueError):
        ref_ruleset(ruleset)


def test_11_3_deck_size_limits_players_and_positions_with_refused_rulesets_raise():
    # players x 3 x hand_size above the deck (H12, H13)
    assert ref_ruleset("seed", 6)["jokers"] == "six_players"  # 54 cards, 54 dealt
    for ruleset, players in [("classic", 6), (rs(jokers="never"), 6),
                             (rs(hand_size=4), 5), (rs(hand_size=4, jokers="always"), 5),
                             (rs(hand_size=4), 6), ("seed", 7), ("seed", 1)]:
        with pytest.raises(ValueError):
            ref_ruleset(ruleset, players)
    ref_ruleset(rs("classic", jokers="always"), 6)  # 54 cards: allowed
    ref_ruleset(rs("boothj5", hand_size=4), 4)      # 48 of 52
    ref_ruleset(rs(hand_size=4, jokers="always"), 4)
    ref_ruleset(rs(transparent_rank="7"), 3)         # a 7 role is fine without H4
    # the entry points refuse a position whose ruleset is refused
    pos = make(hands=[["5"], ["6"], ["7"]])
    for bad in [rs(skip_rank="2"), rs(cover_rank="9", reverse_rank="9"), "house"]:
        bad_pos = dict(pos, ruleset=bad)
        with pytest.raises(ValueError):
            ref_legal_moves(bad_pos)
        with pytest.raises(ValueError):
            ref_apply(bad_pos, play("5"))
        with pytest.raises(ValueError):
            ref_first_player(bad_pos)


# --------------------------------------------------------------------------- H1

def test_H1_count_rule_off_any_number_of_one_rank_lead_or_follow():
    ruleset = rs(count_rule=False)
    pos = make(hands=[["9", "J", "J", "J", "4"], ["3"], ["5"]], pile=["9", "9"], count=2,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([
        play("9"), play("J"), play("J", "J"), play("J", "J", "J"), PICKUP])
    after = ref_apply(pos, play("J", "J", "J"))
    assert after["pile"] == ["9", "9", "J", "J", "J"]
    assert after["count"] == 2  # H1: still the size of the pile's lead; restricts nothing
    assert after["current"] == 1
    # a lead still sets the count to its size
    lead = ref_apply(make(hands=[["6", "6", "6", "K"], ["3"], ["5"]], ruleset=ruleset),
                     play("6", "6"))
    assert lead["count"] == 2 and lead["current"] == 1
    # seed for comparison: only exactly two cards
    seed = dict(pos, ruleset="seed")
    assert keys(ref_legal_moves(seed)) == keys([play("J", "J"), PICKUP])


def test_H1_count_rule_off_blind_turn_is_exactly_one_card():
    ruleset = rs(count_rule=False)
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["4", "K", "K"], [], []],
               pile=["5", "5", "5"], count=3, ruleset=ruleset)
    after = ref_apply(pos, {"blind": True})
    assert after["pile"] == ["5", "5", "5", "K"] and after["face_down"][0] == ["4", "K"]
    assert after["events"] == [] and after["count"] == 3 and after["current"] == 1
    # seed would turn three cards (K, K, 4): two ranks, a failed blind turn
    seed = ref_apply(dict(pos, ruleset="seed"), {"blind": True})
    assert seed["events"] == ["blind_fail", "pickup"] and seed["face_down"][0] == []
    # one card that cannot follow: it fails alone, the rest stays face down
    pos["face_down"][0] = ["K", "4"]
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["blind_fail", "pickup"]
    assert Counter(after["hands"][0]) == Counter(["5", "5", "5", "4"])
    assert after["face_down"][0] == ["K"] and after["current"] == 1


# --------------------------------------------------------------------------- H2

def test_H2_ten_on_anything_burns_and_the_count_applies():
    ruleset = rs(ten_anywhere=True)
    pos = make(hands=[["10", "3"], ["4"], ["5"]], pile=["A"], count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("10"), PICKUP])
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn"] and after["current"] == 0 and after["pile"] == []
    assert keys(ref_legal_moves(dict(pos, ruleset="seed"))) == keys([PICKUP])  # R21
    # the count applies: one 10 cannot follow a pair
    pos = make(hands=[["10", "3"], ["4"], ["5"]], pile=["A", "A"], count=2, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])
    # Decided (H2): not on a 7 under H4
    pos = make(hands=[["10", "5", "8"], ["4"], ["6"]], pile=["7"], count=1,
               ruleset=rs(ten_anywhere=True, seven_lower=True))
    assert keys(ref_legal_moves(pos)) == keys([play("5"), PICKUP])


# --------------------------------------------------------------------------- H3

def test_H3_four_burns_off():
    ruleset = rs(four_burns=False)
    pos = make(hands=[["7", "3"], ["4"], ["5"]], pile=["6", "7", "7", "7"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("7"))
    assert after["events"] == [] and after["pile"] == ["6", "7", "7", "7", "7"]
    assert after["current"] == 1
    lead = ref_apply(make(hands=[["9"] * 4 + ["3"], ["4"], ["5"]], ruleset=ruleset),
                     play("9", "9", "9", "9"))
    assert lead["events"] == [] and lead["count"] == 4 and lead["current"] == 1
    # a 10 still burns (R21)
    ten = ref_apply(make(hands=[["10", "3"], ["4"], ["5"]], pile=["8"], ruleset=ruleset),
                    play("10"))
    assert ten["events"] == ["burn"] and ten["current"] == 0


# --------------------------------------------------------------------------- H4

def test_H4_seven_lower_only_low_cards_on_a_seven_while_it_is_E():
    ruleset = rs(seven_lower=True)
    hand = ["3", "6", "7", "8", "A", "2", "JK", "10"]
    others = [["4"], ["5"], ["9"], ["J"], ["Q"]]
    on_seven = keys([play("3"), play("6"), play("7"), play("2"), play("JK"), PICKUP])
    for pile in (["K", "7"], ["7", "7"], ["7", "JK"]):  # Decided: 7s and jokers keep it
        pos = make(players=6, hands=[hand] + others, pile=pile, count=1, ruleset=ruleset)
        assert keys(ref_legal_moves(pos)) == on_seven, pile
    # any other card ends it: on 7, 5 the ordinary rule (R9) applies to the 5
    pos = make(players=6, hands=[hand] + others, pile=["7", "5"], count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([
        play("6"), play("7"), play("8"), play("A"), play("2"), play("JK"), play("10"), PICKUP])
    # the 7 itself is played by the ordinary rule: not on a K
    pos = make(players=6, hands=[hand] + others, pile=["K"], count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("A"), play("2"), play("JK"), PICKUP])
    # without H4 a 7 is an ordinary rank
    pos = make(players=6, hands=[hand] + others, pile=["7"], count=1)
    assert ("play", ("8",)) in keys(ref_legal_moves(pos))


def test_H4_H5_transparent_card_on_a_seven_keeps_seven_lower():
    ruleset = rs(seven_lower=True, transparent_rank="9")
    pos = make(hands=[["9", "8", "4"], ["8", "6", "Q"], ["5"]], pile=["7"], count=1,
               ruleset=ruleset)
    # H5: the transparent rank is always legal, also on a 7 under H4
    assert keys(ref_legal_moves(pos)) == keys([play("9"), play("4"), PICKUP])
    after = ref_apply(pos, play("9"))
    assert after["pile"] == ["7", "9"] and after["current"] == 1
    # E is still the 7 (H0: transparent cards are never E): only 6 of 8, 6, Q
    assert keys(ref_legal_moves(after)) == keys([play("6"), PICKUP])


# --------------------------------------------------------------------------- H5

def test_H5_transparent_rank_always_legal_and_never_the_effective_top():
    ruleset = rs(transparent_rank="5")
    pos = make(hands=[["5", "4", "K"], ["J", "K"], ["3"]], pile=["Q"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("5"), play("K"), PICKUP])
    after = ref_apply(pos, play("5"))
    assert after["pile"] == ["Q", "5"] and after["current"] == 1 and after["events"] == []
    assert keys(ref_legal_moves(after)) == keys([play("K"), PICKUP])  # E is still the Q
    # Decided (H5): a transparent lead leaves E open, so any rank follows
    pos = make(hands=[["9"], ["3", "4"], ["6"]], pile=["5"], count=1, current=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("3"), play("4"), PICKUP])
    assert keys(ref_legal_moves(dict(pos, ruleset="seed"))) == keys([PICKUP])


def test_H5_transparent_on_a_skip_card_does_not_repeat_the_skip():
    ruleset = rs(transparent_rank="5", skip_rank="8")
    pos = make(players=4, hands=[["5", "3"], ["6", "9"], ["4"], ["J"]], pile=["8"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("5"))
    assert after["events"] == [] and after["current"] == 1  # no skip: seat 1 moves
    assert keys(ref_legal_moves(after)) == keys([play("9"), PICKUP])  # E is the 8


def test_H5_R22_four_of_a_kind_is_physical_transparent_card_breaks_the_set():
    ruleset = rs(transparent_rank="5")
    # a transparent card between equal cards breaks the set (no counting through it)
    for pile in (["9", "9", "5", "9"], ["9", "9", "9", "5"]):
        pos = make(hands=[["9", "3"], ["4"], ["6"]], pile=pile, count=1, ruleset=ruleset)
        after = ref_apply(pos, play("9"))
        assert after["events"] == [] and after["pile"] == pile + ["9"], pile
    # four transparent cards burn
    pos = make(hands=[["5", "3"], ["4"], ["6"]], pile=["K", "5", "5", "5"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("5"))
    assert after["events"] == ["burn"] and after["pile"] == [] and after["current"] == 0


# --------------------------------------------------------------------------- H6

def test_H6_skip_once_per_play():
    ruleset = rs(skip_rank="8")
    pos = make(players=4, hands=[["8", "8", "3"], ["9"], ["4"], ["J"]], pile=["6", "6"],
               count=2, ruleset=ruleset)
    after = ref_apply(pos, play("8", "8"))
    assert after["events"] == ["skip"] and after["current"] == 2 and after["count"] == 2
    assert after["direction"] == 1 and after["pile"] == ["6", "6", "8", "8"]


def test_H6_skip_per_card_counts_seats_including_the_mover():
    ruleset = rs(skip_rank="8", skip_per_card=True)
    hands = [["8", "8", "8", "3"], ["9"], ["4"], ["J"]]
    pos = make(players=4, hands=hands, pile=["6", "6"], count=2, ruleset=ruleset)
    after = ref_apply(pos, play("8", "8"))  # s = 2: the 3rd counted seat of 1, 2, 3, 0
    assert after["events"] == ["skip"] and after["current"] == 3
    # counter-clockwise: counted seats 3, 2, 1, 0
    after = ref_apply(dict(pos, direction=-1), play("8", "8"))
    assert after["current"] == 1
    # a lead of three 8s: s = 3, the 4th counted seat is the mover, who follows on it
    lead = ref_apply(make(players=4, hands=hands, ruleset=ruleset), play("8", "8", "8"))
    assert lead["events"] == ["skip"] and lead["current"] == 0 and lead["count"] == 3
    assert keys(ref_legal_moves(lead)) == keys([PICKUP])  # the 3 cannot follow three 8s


def test_H6_skip_two_seats_left_returns_to_mover_same_count():
    ruleset = rs(skip_rank="8", last_player_loses=True)
    pos = make(players=3, hands=[["8", "9", "3"], ["K"], []], pile=["5"], count=1,
               out=[2], ruleset=ruleset)
    after = ref_apply(pos, play("8"))
    # counted seats: 1, 0 (seat 2 is out); s = 1 -> the 2nd, the mover
    assert after["events"] == ["skip"] and after["current"] == 0
    assert after["count"] == 1 and after["pile"] == ["5", "8"]
    assert keys(ref_legal_moves(after)) == keys([play("9"), PICKUP])  # follows on own 8
    # per card, two 8s: s = 2 -> seat 1
    pos = make(players=3, hands=[["8", "8", "3"], ["K"], []], pile=["5", "5"], count=2,
               out=[2], ruleset=rs(skip_rank="8", skip_per_card=True, last_player_loses=True))
    assert ref_apply(pos, play("8", "8"))["current"] == 1


def test_H6_mover_who_went_out_never_counts_and_game_over_ignores_skips():
    ruleset = rs(skip_rank="8", last_player_loses=True)
    pos = make(players=3, hands=[["8"], ["K"], ["4"]], pile=["5"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("8"))
    # counted seats 1, 2 (the mover is out); s = 1 -> seat 2
    assert after["events"] == ["skip", "out"] and after["current"] == 2
    assert after["out"] == [0] and after["winner"] is None
    # seed: the game is over; current is the next seat, without skips
    after = ref_apply(dict(pos, ruleset=rs(skip_rank="8")), play("8"))
    assert after["events"] == ["skip", "out", "game_over"] and after["current"] == 1
    assert after["winner"] == 0


def test_H6_face_up_and_blind_plays_skip_too():
    ruleset = rs(skip_rank="8")
    pos = make(players=4, hands=[[], ["9"], ["4"], ["J"]], face_up=[["8", "K"], [], [], []],
               face_down=[["3"], [], [], []], pile=["5"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("8"))
    assert after["events"] == ["skip"] and after["current"] == 2
    pos = make(players=4, hands=[[], ["9"], ["4"], ["J"]], face_down=[["K", "8"], [], [], []],
               pile=["5"], count=1, ruleset=ruleset)
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["skip"] and after["current"] == 2
    assert after["face_down"][0] == ["K"]


# --------------------------------------------------------------------------- H7

def test_H7_reverse_rank_flips_once_per_play_and_is_itself_E():
    ruleset = rs(reverse_rank="K")
    pos = make(players=4, hands=[["K", "K", "3"], ["9"], ["4"], ["A", "A", "Q", "Q"]],
               pile=["9", "9"], count=2, ruleset=ruleset)
    after = ref_apply(pos, play("K", "K"))
    assert after["events"] == ["reverse"] and after["direction"] == -1
    assert after["current"] == 3 and after["count"] == 2
    # H7: an ordinary card, itself E (not looked through like a joker)
    assert keys(ref_legal_moves(after)) == keys([play("A", "A"), PICKUP])


def test_H7_reverse_per_card_flips_cancel_but_event_once():
    ruleset = rs(reverse_rank="K", reverse_per_card=True)
    pos = make(players=4, hands=[["K", "K", "K", "3"], ["9"], ["4"], ["J"]],
               pile=["9", "9"], count=2, ruleset=ruleset)
    after = ref_apply(pos, play("K", "K"))
    assert after["events"] == ["reverse"] and after["direction"] == 1
    assert after["current"] == 1
    lead = ref_apply(make(players=4, hands=[["K", "K", "K", "3"], ["9"], ["4"], ["J"]],
                          ruleset=ruleset), play("K", "K", "K"))
    assert lead["events"] == ["reverse"] and lead["direction"] == -1 and lead["current"] == 3


def test_H7_jokers_keep_one_reversal_per_play_under_reverse_per_card():
    ruleset = rs(reverse_rank="K", reverse_per_card=True)
    pos = make(players=6, hands=[["JK", "JK", "4"], ["8"], ["5"], ["6"], ["9"], ["K", "K"]],
               pile=["8", "8"], count=2, ruleset=ruleset)
    after = ref_apply(pos, play("JK", "JK"))
    assert after["events"] == ["reverse"] and after["direction"] == -1
    assert after["current"] == 5


def test_H7_going_out_on_reverse_flips_then_next_seat():
    ruleset = rs(reverse_rank="K")
    pos = make(players=4, hands=[["4"], ["K"], ["5"], ["6"]], pile=["9"], count=1, current=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("K"))
    assert after["events"] == ["reverse", "out", "game_over"]
    assert after["direction"] == -1 and after["current"] == 0 and after["winner"] == 1
    # V2: play goes on from seat 0, counter-clockwise
    after = ref_apply(dict(pos, ruleset=rs(reverse_rank="K", last_player_loses=True)),
                      play("K"))
    assert after["events"] == ["reverse", "out"] and after["current"] == 0
    assert after["count"] == 1 and after["pile"] == ["9", "K"]


# --------------------------------------------------------------------------- H8

def test_H8_cover_mover_leads_again_count_zero_no_pickup():
    ruleset = rs(cover_rank="Q")
    pos = make(hands=[["Q", "4", "5", "5"], ["3", "6"], ["7"]], pile=["9"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("Q"))
    assert after["pile"] == ["9", "Q"] and after["count"] == 0 and after["current"] == 0
    assert after["events"] == []
    # any rank, any size, no pick-up
    assert keys(ref_legal_moves(after)) == keys([play("4"), play("5"), play("5", "5")])
    with pytest.raises(ValueError):
        ref_apply(after, PICKUP)
    covered = ref_apply(after, play("5", "5"))
    # the cover sets the count and is E for the next player
    assert covered["pile"] == ["9", "Q", "5", "5"] and covered["count"] == 2
    assert covered["current"] == 1
    assert keys(ref_legal_moves(covered)) == keys([PICKUP])  # 3, 6: no pair
    # a follow on a pair: the queens set the cover duty, the cover sets a new count
    pos = make(hands=[["Q", "Q", "4", "8"], ["3", "6"], ["7"]], pile=["9", "9"], count=2,
               ruleset=ruleset)
    after = ref_apply(ref_apply(pos, play("Q", "Q")), play("4"))
    assert after["count"] == 1 and after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play("6"), PICKUP])


def test_H8_transparent_cover_leaves_the_cover_card_as_E():
    ruleset = rs(cover_rank="Q", transparent_rank="5")
    pos = make(hands=[["5"], ["J", "K"], ["7"]], pile=["9", "Q"], count=0, ruleset=ruleset,
               face_up=[["A"], [], []])
    after = ref_apply(pos, play("5"))
    assert after["count"] == 1 and after["current"] == 1 and after["events"] == []
    assert keys(ref_legal_moves(after)) == keys([play("K"), PICKUP])  # E is the Q


def test_H8_a_cover_of_the_cover_rank_must_be_covered_again():
    ruleset = rs(cover_rank="Q")
    pos = make(hands=[["Q", "Q", "4", "8"], ["3", "6"], ["7"]], pile=["9"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("Q"))
    after = ref_apply(after, play("Q"))
    assert after["count"] == 0 and after["current"] == 0 and after["pile"] == ["9", "Q", "Q"]
    assert keys(ref_legal_moves(after)) == keys([play("4"), play("8")])
    after = ref_apply(after, play("4"))
    assert after["count"] == 1 and after["current"] == 1 and after["events"] == []


def test_H8_going_out_on_a_cover_leaves_it_uncovered_and_next_follows_on_it():
    ruleset = rs(cover_rank="Q", last_player_loses=True)
    pos = make(hands=[["Q"], ["J", "K", "A"], ["7"]], pile=["9"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("Q"))
    assert after["events"] == ["out"] and after["out"] == [0]
    assert after["pile"] == ["9", "Q"] and after["count"] == 1 and after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play("K"), play("A"), PICKUP])
    # going out with a cover as a lead: the count is the lead's
    pos = make(hands=[["Q", "Q"], ["J", "K", "A"], ["7"]], ruleset=ruleset)
    after = ref_apply(pos, play("Q", "Q"))
    assert after["count"] == 2 and after["current"] == 1 and after["pile"] == ["Q", "Q"]


def test_H8_cover_with_only_blind_cards_is_a_blind_lead_always_legal():
    for voluntary in ("except_blind", "always"):
        ruleset = rs(cover_rank="Q", voluntary_pickup=voluntary)
        pos = make(hands=[[], ["3", "4"], ["7"]], face_up=[["Q"], [], []],
                   face_down=[["A", "3"], [], []], pile=["9"], count=1, ruleset=ruleset)
        after = ref_apply(pos, play("Q"))
        assert after["count"] == 0 and after["current"] == 0
        assert ref_legal_moves(after) == [{"blind": True}]  # H10 "always": still no pick-up
        after = ref_apply(after, {"blind": True})  # a 3 on a Q: legal as a lead
        assert after["events"] == [] and after["pile"] == ["9", "Q", "3"]
        assert after["count"] == 1 and after["current"] == 1 and after["face_down"][0] == ["A"]
        assert keys(ref_legal_moves(after)) == keys([play("3"), play("4"), PICKUP])
    # under count_rule false too: one card turned
    pos = make(hands=[[], ["3", "4"], ["7"]], face_down=[["A", "3"], [], []],
               pile=["9", "Q"], count=0, ruleset=rs(cover_rank="Q", count_rule=False))
    after = ref_apply(pos, {"blind": True})
    assert after["pile"] == ["9", "Q", "3"] and after["count"] == 1


# --------------------------------------------------------------------------- H9

def test_H9_no_play_again_after_a_burn_next_seat_leads():
    ruleset = rs(burn_plays_again=False)
    pos = make(hands=[["10", "3"], ["4"], ["5"]], pile=["8"], count=1, stock=["K"],
               ruleset=ruleset)
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn"] and after["pile"] == [] and after["count"] == 0
    assert after["current"] == 1
    assert Counter(after["hands"][0]) == Counter(["3", "K"])  # R8: the draw still happens
    # four of a kind too
    pos = make(hands=[["7", "3"], ["4"], ["5"]], pile=["6", "7", "7", "7"], count=1,
               ruleset=ruleset)
    assert ref_apply(pos, play("7"))["current"] == 1
    # seed: the burner leads again
    assert ref_apply(dict(pos, ruleset="seed"), play("7"))["current"] == 0


# --------------------------------------------------------------------------- H0a

def test_H0a_a_burn_cancels_skip_and_reverse():
    pos = make(players=4, hands=[["8", "3"], ["9"], ["4"], ["J"]], pile=["8", "8", "8"],
               count=1, ruleset=rs(skip_rank="8"))
    after = ref_apply(pos, play("8"))
    assert after["events"] == ["burn"] and after["current"] == 0 and after["pile"] == []
    pos = make(players=4, hands=[["K", "3"], ["9"], ["4"], ["J"]], pile=["K", "K", "K"],
               count=1, ruleset=rs(reverse_rank="K", reverse_per_card=True))
    after = ref_apply(pos, play("K"))
    assert after["events"] == ["burn"] and after["direction"] == 1 and after["current"] == 0
    # with H9 off the next seat is found without the skip: four 8s per card would be s = 4
    pos = make(players=3, hands=[["8", "8", "8", "8", "3"], ["9"], ["4"]],
               ruleset=rs(skip_rank="8", skip_per_card=True, burn_plays_again=False))
    after = ref_apply(pos, play("8", "8", "8", "8"))
    assert after["events"] == ["burn"] and after["current"] == 1


def test_H0a_a_burn_cancels_the_cover():
    # four queens led: a burn, no cover; with H9 off the next seat leads
    pos = make(hands=[["Q", "Q", "Q", "Q", "5"], ["9"], ["4"]],
               ruleset=rs(cover_rank="Q", burn_plays_again=False))
    after = ref_apply(pos, play("Q", "Q", "Q", "Q"))
    assert after["events"] == ["burn"] and after["current"] == 1 and after["count"] == 0
    # a 10 as the cover burns the pile, the cover card included (R21)
    pos = make(hands=[["10", "4"], ["9"], ["5"]], pile=["9", "Q"], count=0,
               ruleset=rs(cover_rank="Q"))
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn"] and after["pile"] == [] and after["current"] == 0
    assert Counter(after["burned"]) - Counter(pos["burned"]) == Counter(["9", "Q", "10"])


def test_H0a_H8_the_draw_comes_before_the_cover_check():
    # the last hand card is a Q, but the draw refills the hand: the mover must cover
    pos = make(hands=[["Q"], ["9"], ["4"]], pile=["9"], count=1, stock=["5"],
               ruleset=rs(cover_rank="Q"))
    after = ref_apply(pos, play("Q"))
    assert after["hands"][0] == ["5"] and after["count"] == 0 and after["current"] == 0
    assert after["events"] == []


# --------------------------------------------------------------------------- H10

def test_H10_always_a_blind_only_player_may_pick_up_instead():
    ruleset = rs(voluntary_pickup="always")
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["K", "4"], [], []], pile=["6"],
               count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([{"blind": True}, PICKUP])
    after = ref_apply(pos, PICKUP)
    assert after["hands"][0] == ["6"] and after["face_down"][0] == ["K", "4"]
    assert after["events"] == ["pickup"] and after["current"] == 1
    # a leader never picks up
    lead = make(hands=[[], ["3"], ["5"]], face_down=[["K", "4"], [], []], ruleset=ruleset)
    assert ref_legal_moves(lead) == [{"blind": True}]
    # except_blind (R16): blind only
    assert ref_legal_moves(dict(pos, ruleset="seed")) == [{"blind": True}]


def test_H10_never_pick_up_only_when_no_play_is_legal():
    ruleset = rs(voluntary_pickup="never")
    pos = make(hands=[["A", "4"], ["3"], ["5"]], pile=["6"], count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("A")])
    with pytest.raises(ValueError):
        ref_apply(pos, PICKUP)
    pos = make(hands=[["4"], ["3"], ["5"]], pile=["6"], count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])
    # from the face-ups: the adds of R12 are pick-ups too (Decided in H11)
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["A", "4"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([play("A")])
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "3"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([
        PICKUP, {"pickup": True, "add": "4"}, {"pickup": True, "add": "3"}])
    # blind turns are forced
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["4"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert ref_legal_moves(pos) == [{"blind": True}]


# --------------------------------------------------------------------------- H11

def test_H11_pile_only_no_add():
    ruleset = rs(faceup_pickup="pile_only")
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "3"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])
    with pytest.raises(ValueError):
        ref_apply(pos, {"pickup": True, "add": "4"})
    after = ref_apply(pos, PICKUP)
    assert after["hands"][0] == ["6"] and Counter(after["face_up"][0]) == Counter(["4", "3"])


def test_H11_must_add_rank_takes_all_face_up_cards_of_that_rank():
    ruleset = rs(faceup_pickup="must_add_rank")
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "4", "3"], [], []], pile=["6"],
               count=1, ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([
        {"pickup": True, "add": "4"}, {"pickup": True, "add": "3"}])
    with pytest.raises(ValueError):
        ref_apply(pos, PICKUP)  # a plain pick-up is illegal for this player
    after = ref_apply(pos, {"pickup": True, "add": "4"})
    assert Counter(after["hands"][0]) == Counter(["6", "4", "4"])
    assert after["face_up"][0] == ["3"] and after["pile"] == [] and after["count"] == 0
    assert after["events"] == ["pickup"] and after["current"] == 1
    # a player with a hand picks up plainly
    pos = make(hands=[["3"], ["3"], ["5"]], face_up=[["4"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])
    # an add is never a play (R12): three 4s on the pile plus the added 4s do not burn
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "3"], [], []],
               pile=["4", "4", "4"], count=3, ruleset=ruleset)
    after = ref_apply(pos, {"pickup": True, "add": "4"})
    assert after["events"] == ["pickup"] and Counter(after["hands"][0]) == Counter(["4"] * 4)
    assert after["burned"] == pos["burned"]
    # with H10 "never": only when no play is legal
    both = rs(faceup_pickup="must_add_rank", voluntary_pickup="never")
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["A", "4", "4"], [], []], pile=["6"],
               count=1, ruleset=both)
    assert keys(ref_legal_moves(pos)) == keys([play("A")])
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["3", "4", "4"], [], []], pile=["6"],
               count=1, ruleset=both)
    assert keys(ref_legal_moves(pos)) == keys([
        {"pickup": True, "add": "4"}, {"pickup": True, "add": "3"}])


# --------------------------------------------------------------------------- H12

def test_H12_hand_size_four_draws_up_to_four():
    ruleset = rs(hand_size=4)
    pos = make(hands=[["6", "6", "9", "K"], ["3"], ["5"]], stock=["J", "Q", "A"],
               ruleset=ruleset)
    after = ref_apply(pos, play("6", "6"))
    assert Counter(after["hands"][0]) == Counter(["9", "K", "A", "Q"])
    assert after["stock"] == ["J"]
    # seed draws to three only
    after = ref_apply(dict(pos, ruleset="seed"), play("6", "6"))
    assert len(after["hands"][0]) == 3 and after["stock"] == ["J", "Q"]
    # 4 x 3 x 4 = 48 cards: fine; 5 players: refused (§11.3)
    ref_ruleset(ruleset, 4)
    with pytest.raises(ValueError):
        ref_legal_moves(make(players=5, hands=[["5"], ["6"], ["7"], ["8"], ["9"]],
                             ruleset="seed") | {"ruleset": ruleset})


# --------------------------------------------------------------------------- H13

def test_H13_jokers_deck_of_52_or_54():
    assert len(ref_deck("seed", 5)) == 52 and "JK" not in ref_deck("seed", 5)
    assert len(ref_deck("seed", 6)) == 54 and Counter(ref_deck("seed", 6))["JK"] == 2
    assert len(ref_deck(rs(jokers="always"), 2)) == 54
    assert len(ref_deck(rs(jokers="never"), 5)) == 52
    assert len(ref_deck("classic", 4)) == 52
    assert len(ref_deck(ref_ruleset(rs(jokers="always")), 3)) == 54  # resolved options too
    for players in range(2, 7):
        d = Counter(ref_deck("seed", players))
        assert all(d[r] == 4 for r in CARDS if r != "JK")
    # "always": the joker reverses at any player count (R23)
    pos = make(players=3, hands=[["JK", "4"], ["3"], ["5", "K"]], pile=["9"], count=1,
               ruleset=rs(jokers="always"))
    after = ref_apply(pos, play("JK"))
    assert after["events"] == ["reverse"] and after["direction"] == -1
    assert after["current"] == 2
    assert keys(ref_legal_moves(after)) == keys([play("K"), PICKUP])


# --------------------------------------------------------------------------- H14, H15

def test_H14_hand_starter_reads_only_the_hands_after_the_swap():
    hands = [["5", "9", "9"], ["4", "K", "K"], ["6", "A", "A"]]
    face_up = [["8", "8", "J"], ["J", "Q", "Q"], ["3", "Q", "J"]]
    pos = make(hands=hands, face_up=face_up, rest_in_stock=True)
    assert ref_first_player(pos) == 2  # R6 / "dealt": the face-up 3
    assert ref_first_player(dict(pos, ruleset=rs(starter="hand"))) == 1  # the 4 in hand
    # nobody holds a listed rank in hand: the first seat in deal order
    pos = make(hands=[["2", "2"], ["2", "JK"], ["2", "JK"]], face_up=face_up, players=3,
               ruleset=rs(starter="hand", jokers="always"), rest_in_stock=True)
    pos["dealer"] = 0
    assert ref_first_player(pos) == 1


def test_H15_starter_order_listed_ranks_decide_in_listed_order():
    hands = [["5", "9", "9"], ["4", "K", "K"], ["6", "A", "A"]]
    face_up = [["2", "8", "J"], ["J", "Q", "Q"], ["3", "Q", "J"]]
    pos = make(hands=hands, face_up=face_up, rest_in_stock=True)
    assert ref_first_player(dict(pos, ruleset=rs(starter_order=["K", "2"]))) == 1
    # Decided (H15): a listed 2 counts at its place
    assert ref_first_player(dict(pos, ruleset=rs(starter_order=["2", "K"]))) == 0
    # an empty order: the first seat in deal order
    empty = dict(pos, ruleset=rs(starter_order=[]), dealer=1)
    assert ref_first_player(empty) == 2
    # ties go to the earliest seat in deal order: seats 0 and 2 both hold an A
    tie = make(hands=[["A", "9", "9"], ["4", "K", "K"], ["6", "A", "A"]], face_up=face_up,
               rest_in_stock=True, ruleset=rs(starter="hand", starter_order=["A"]))
    assert ref_first_player(tie) == 0
    assert ref_first_player(dict(tie, dealer=0)) == 2
    # boothj5: only 2s, 7s and 10s in hand: 2 before 7 before 10
    pos = make(hands=[["7", "10", "10"], ["10", "7", "7"], ["2", "7", "10"]],
               face_up=[["3", "4", "5"], ["3", "4", "5"], ["3", "4", "5"]],
               rest_in_stock=True, ruleset="boothj5")
    assert ref_first_player(pos) == 2
    pos = make(players=2, hands=[["10", "10", "10"], ["7", "7", "10"]],
               face_up=[["3", "4", "5"], ["3", "4", "5"]], rest_in_stock=True,
               ruleset="boothj5")
    assert ref_first_player(pos) == 1  # 7 before 10, whatever the deal order


# --------------------------------------------------------------------------- H16

def test_H16_forced_opening_plays_every_hand_card_of_the_starting_rank():
    hands = [["5", "9", "9"], ["4", "4", "K"], ["6", "4", "A"]]
    face_up = [["8", "8", "J"], ["J", "Q", "Q"], ["3", "Q", "J"]]
    pos = make(hands=hands, face_up=face_up, rest_in_stock=True, ruleset="boothj5")
    assert ref_first_player(pos) == 1  # the 4s (hands only, H14); seat 1 before seat 2
    pos["current"] = 1
    opening = ref_forced_opening(pos)
    assert opening == play("4", "4")
    after = ref_apply(pos, opening)
    assert after["pile"] == ["4", "4"] and after["count"] == 2 and after["current"] == 2
    assert len(after["hands"][1]) == 3 and after["events"] == []
    # boothj5: count rule off, pick up only when no play is legal
    assert keys(ref_legal_moves(after)) == keys([play("4"), play("6"), play("A")])
    # deal order decides the tie: dealt first after dealer 1 is seat 2, with one 4
    pos2 = dict(pos, dealer=1, current=2)
    assert ref_first_player(pos2) == 2 and ref_forced_opening(pos2) == play("4")
    with pytest.raises(ValueError):  # current is not the starter
        ref_forced_opening(dict(pos, dealer=1))
    # no H16: no forced opening
    assert ref_forced_opening(dict(pos, ruleset="masters-of-shithead", removed=[])) is None
    assert ref_forced_opening(dict(pos, ruleset="seed")) is None


# --------------------------------------------------------------------------- H17

def test_H17_removed_cards_counted_and_allowed_only_under_masters():
    masters = "masters-of-shithead"
    pos = make(players=2, hands=[["5", "9"], ["4", "K"]], pile=["6"], count=1,
               removed=["5", "5", "J"], ruleset=masters)
    assert total(pos) == deck(2, masters) and Counter(pos["burned"])["5"] == 1
    after = ref_apply(pos, play("9"))
    assert after["removed"] == ["5", "5", "J"] and total(after) == total(pos)
    for bad in ["seed", "classic", "boothj5", rs(masters, removed_before_deal="none")]:
        with pytest.raises(ValueError):
            ref_legal_moves(dict(pos, ruleset=bad))
        with pytest.raises(ValueError):
            ref_apply(dict(pos, ruleset=bad), play("9"))
    ok = make(players=2, hands=[["5", "9"], ["4", "K"]], pile=["6"], count=1, removed=[])
    assert keys(ref_legal_moves(ok)) == keys([play("9"), PICKUP])
    assert "removed" not in ref_apply(make(players=2, hands=[["5", "9"], ["4", "K"]]),
                                      play("5"))  # absent stays absent (means [])


# =========================================================================== H18-H20, H11

END = {"end": True}
PLAY_ON = rs(count_rule=False, play_on=True)  # H19 needs H1 off (§11.3)


def po(**options):
    """A ruleset with H19 on (and the count rule off, as §11.3 requires)."""
    return rs(count_rule=False, play_on=True, **options)


def refusal(ruleset, players=None):
    """The message of the ValueError that refuses a ruleset (§11.3)."""
    with pytest.raises(ValueError) as info:
        ref_ruleset(ruleset, players)
    return str(info.value)


# --------------------------------------------------------------------------- H18

def test_H18_deck_is_d_decks_with_at_most_two_jokers():
    two = rs(decks=2)
    cards = deck(4, two)
    assert sum(cards.values()) == 104 and cards["JK"] == 0
    assert all(cards[rank] == 8 for rank in RANKS_13)
    for players in (6, 7, 8):  # H13 "six_players": jokers at 6 or more players, 2 only
        assert deck(players, two)["JK"] == 2 and sum(deck(players, two).values()) == 106
    assert deck(2, rs(decks=2, jokers="always"))["JK"] == 2
    assert deck(8, rs(decks=2, jokers="never"))["JK"] == 0
    assert sum(deck(5, rs(decks=2)).values()) == 104
    # "masters": d = ceil(17n / 52); "boothj5": d = ceil(3 n hand_size / 52)
    masters, booth = ref_ruleset("masters-of-shithead"), ref_ruleset("boothj5")
    assert [ref_decks(masters, n) for n in range(2, 7)] == [1, 1, 2, 2, 2]
    assert [ref_decks(booth, n) for n in range(2, 9)] == [1, 1, 1, 1, 2, 2, 2]
    booth4 = ref_ruleset(rs("boothj5", hand_size=4))
    assert [ref_decks(booth4, n) for n in range(2, 9)] == [1, 1, 1, 2, 2, 2, 2]
    assert len(ref_deck("masters-of-shithead", 3)) == 52
    assert len(ref_deck("masters-of-shithead", 4)) == 104
    assert len(ref_deck("boothj5", 6)) == 104 and len(ref_deck("boothj5", 5)) == 52
    assert len(ref_deck(booth4, 5)) == 104  # resolved options too


def test_H18_seven_and_eight_players_with_two_decks():
    for players in (7, 8):
        for ruleset in (rs(decks=2), "boothj5", rs("boothj5", hand_size=4),
                        rs(decks=2, hand_size=4, jokers="never")):
            assert ref_ruleset(ruleset, players)["decks"] in (2, "boothj5")
    # eight seats: play goes round all of them, and jokers (H13, 6+) reverse
    hands = [["5", "3"], ["6", "3"], ["7", "3"], ["8", "3"], ["9", "3"], ["J", "3"],
             ["Q", "3"], ["JK", "K"]]
    pos = make(players=8, hands=hands, pile=["4"], count=1, current=7, ruleset=rs(decks=2))
    assert keys(ref_legal_moves(pos)) == keys([play("JK"), play("K"), PICKUP])
    after = ref_apply(pos, play("K"))
    assert after["current"] == 0 and after["events"] == []
    after = ref_apply(pos, play("JK"))
    assert after["events"] == ["reverse"] and after["direction"] == -1 and after["current"] == 6
    # seven seats, V2: a seat that went out is skipped
    pos = make(players=7, hands=hands[:6] + [["A"]], pile=["4"], count=1, current=6,
               ruleset=rs(decks=2, last_player_loses=True))
    after = ref_apply(pos, play("A"))
    assert after["events"] == ["out"] and after["current"] == 0 and after["out"] == [6]
    after = ref_apply(dict(after, current=5, direction=-1), PICKUP)
    assert after["current"] == 4


@pytest.mark.parametrize("ruleset, players, words", [
    ("seed", 7, ["H18", "R1"]),                        # one deck: 2-6
    (rs(jokers="always"), 7, ["H18", "R1"]),
    (rs(decks=1), 8, ["H18", "R1"]),
    (rs(decks=2), 9, ["H18", "R1"]),                   # two decks: 2-8
    (rs(decks=2), 1, ["H18", "R1"]),
    ("boothj5", 9, ["H18", "R1"]),                     # d = ceil(81 / 52) = 2
    ("masters-of-shithead", 7, ["H18", "3 decks"]),    # d = ceil(119 / 52) = 3
    ("masters-of-shithead", 8, ["H18", "3 decks"]),
    (rs("boothj5", hand_size=4), 9, ["H18", "3 decks"]),  # d = ceil(108 / 52) = 3
    ("classic", 6, ["§11.3"]),                         # 54 cards dealt of 52
])
def test_H18_refused_player_counts_name_their_rule(ruleset, players, words):
    message = refusal(ruleset, players)
    assert all(word in message for word in words), message
    # the entry points refuse such a position too
    seats = min(max(players, 2), 8)
    pos = make(players=seats, hands=[["5"]] + [["6"] for _ in range(seats - 1)],
               ruleset=rs(decks=2))
    pos["players"] = players
    pos["ruleset"] = ruleset
    with pytest.raises(ValueError):
        ref_legal_moves(pos)


def test_H18_refusals_of_values_and_H19_with_the_count_rule():
    for bad in (rs(decks=3), rs(decks="2"), rs(decks=True), rs(decks=2.0), rs(decks=None),
                rs(decks="trachwo"), rs(play_on=1), rs(out_before_burn="yes"),
                rs(faceup_pickup="one_then_all")):
        with pytest.raises(ValueError):
            ref_ruleset(bad)
    # H19 with the count rule on: a continuation would break the count (§11.3)
    for bad in (rs(play_on=True), rs("masters-of-shithead", count_rule=True),
                rs("classic", play_on=True, count_rule=True)):
        assert "H19" in refusal(bad)
    ref_ruleset(rs("classic", play_on=True))  # classic has the count rule off
    ref_ruleset(rs(decks="masters"))  # without players, d is not computed yet


def test_H18_leads_and_plays_of_up_to_eight_cards():
    two = rs(decks=2)
    pos = make(hands=[["9"] * 6 + ["4"], ["3"], ["5"]], ruleset=two)
    assert keys(ref_legal_moves(pos)) == keys([play(*["9"] * k) for k in range(1, 7)]
                                              + [play("4")])
    # R22 unchanged: six 9s put four 9s on top, the pile burns
    after = ref_apply(pos, play(*["9"] * 6))
    assert after["events"] == ["burn"] and after["current"] == 0 and after["count"] == 0
    # H3 off: no burn, the count is 6 and the follower must play six (R9)
    no_four = rs(decks=2, four_burns=False)
    pos = make(hands=[["9"] * 6 + ["4"], ["J"] * 7 + ["3"], ["5"]], ruleset=no_four)
    after = ref_apply(pos, play(*["9"] * 6))
    assert after["events"] == [] and after["count"] == 6 and after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play(*["J"] * 6), PICKUP])
    # eight cards at once (4·d)
    pos = make(hands=[["K"] * 8, ["3"], ["5"]], ruleset=no_four)
    assert play(*["K"] * 8) in ref_legal_moves(pos)
    assert ref_apply(pos, play(*["K"] * 8))["count"] == 8
    # R16's shortfall with a count of 6: five face-down Ks are too few
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["K"] * 5, [], []], pile=["9"] * 6,
               count=6, ruleset=no_four)
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["blind_fail", "pickup"] and after["face_down"][0] == []
    assert Counter(after["hands"][0]) == Counter(["9"] * 6 + ["K"] * 5)
    pos["face_down"][0] = ["4"] + ["K"] * 6
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == [] and after["pile"] == ["9"] * 6 + ["K"] * 6
    assert after["face_down"][0] == ["4"] and after["count"] == 6
    # H1 off: any number of one rank, up to all eight
    pos = make(hands=[["J"] * 7, ["3"], ["5"]], pile=["9", "9"], count=2,
               ruleset=rs(decks=2, count_rule=False, four_burns=False))
    assert keys(ref_legal_moves(pos)) == keys([play(*["J"] * k) for k in range(1, 8)]
                                              + [PICKUP])


def test_H18_starter_ties_deal_order_and_H11_H16_take_every_card():
    # R6 with two decks: two seats dealt a 3 face up; the earliest in deal order starts
    players = 7
    face_up = [["5", "6", "A"] for _ in range(players)]
    face_up[2], face_up[5] = ["3", "6", "A"], ["3", "3", "A"]
    hands = [["J", "Q", "K"] for _ in range(players)]
    pos = make(players=players, hands=hands, face_up=face_up, rest_in_stock=True,
               ruleset=rs(decks=2))
    assert ref_first_player(pos) == 2
    assert ref_first_player(dict(pos, dealer=2)) == 5
    # H11 "must_add_rank": all four face-up 6s go with the pile
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["6"] * 4, [], []], pile=["9"], count=1,
               ruleset=rs(decks=2, hand_size=4, faceup_pickup="must_add_rank"))
    after = ref_apply(pos, {"pickup": True, "add": "6"})
    assert Counter(after["hands"][0]) == Counter(["9"] + ["6"] * 4) and after["face_up"][0] == []
    # H16 at 6 players (boothj5, two decks): every 3 in the starter's hand, an ordinary
    # lead: four 3s burn (R22) and the starter leads again
    hands = [["3", "3", "3", "3"]] + [["5", "6", "7", "8"] for _ in range(5)]
    face_up = [["9", "J", "Q", "K"] for _ in range(6)]
    pos = make(players=6, hands=hands, face_up=face_up, rest_in_stock=True,
               ruleset=rs("boothj5", hand_size=4))
    assert ref_first_player(pos) == 0
    opening = ref_forced_opening(pos)
    assert opening == play("3", "3", "3", "3")
    after = ref_apply(pos, opening)
    assert after["events"] == ["burn"] and after["current"] == 0 and len(after["hands"][0]) == 4
    # however many there are
    pos["hands"][0] = ["3"] * 5
    pos["stock"].remove("3")  # the fifth 3 comes from the stock
    assert ref_forced_opening(pos) == play(*["3"] * 5)


# --------------------------------------------------------------------------- H17 with H18

def test_H17_removed_cards_count_every_deck():
    # D = 52·d + jokers: trachwo's numbers with decks "masters"
    masters = "masters-of-shithead"
    assert [ref_removed_range(masters, n) for n in range(2, 7)] == [
        (14, 17), (0, 0), (28, 35), (9, 18), (0, 0)]
    # one deck as before: 14-17 at 2 players, none at 3+
    one = rs(masters, decks=1)
    assert [ref_removed_range(one, n) for n in range(2, 6)] == [(14, 17)] + [(0, 0)] * 3
    # jokers count: 54 cards at 2 players
    assert ref_removed_range(rs(masters, decks=1, jokers="always"), 2) == (16, 19)
    assert ref_removed_range(rs(decks=2, removed_before_deal="masters"), 8) == (0, 0)
    assert ref_removed_range(rs(decks=2, removed_before_deal="masters"), 3) == (47, 52)
    assert ref_removed_range("boothj5", 6) == (0, 0)  # H17 off


# --------------------------------------------------------------------------- H19

def test_H19_a_play_whose_rank_the_source_still_holds_starts_a_chain():
    pos = make(hands=[["6", "6", "6", "9"], ["3"], ["5"]], pile=["4"], count=1,
               ruleset=PLAY_ON)
    after = ref_apply(pos, play("6"))
    assert after["run"] == 1 and after["current"] == 0 and after["count"] == 1
    assert after["events"] == [] and after["pile"] == ["4", "6"]
    # only continuations of the run's rank (any size) and "end": no pick-up, no other rank
    assert keys(ref_legal_moves(after)) == keys([play("6"), play("6", "6"), END])
    with pytest.raises(ValueError):
        ref_apply(after, PICKUP)
    with pytest.raises(ValueError):
        ref_apply(after, play("9"))
    # the continuation empties the rank: the turn passes at that play, run back to 0
    done = ref_apply(after, play("6", "6"))
    assert done["run"] == 0 and done["current"] == 1 and done["pile"] == ["4", "6", "6", "6"]
    assert done["count"] == 1  # a continuation does not change the count
    # "end" passes the turn instead
    ended = ref_apply(after, END)
    assert ended["run"] == 0 and ended["current"] == 1 and ended["events"] == []
    assert ended["pile"] == after["pile"] and Counter(ended["hands"][0]) == Counter(
        ["6", "6", "9"])
    # without H19 the play passes the turn at once and no "run" is written
    seed_like = ref_apply(dict(pos, ruleset=rs(count_rule=False)), play("6"))
    assert seed_like["current"] == 1 and "run" not in seed_like


def test_H19_a_continuation_does_not_change_the_count_and_ignores_E():
    # a lead of two sets the count; the continuation of one keeps it
    pos = make(hands=[["5", "5", "5", "A"], ["3"], ["K"]], ruleset=PLAY_ON)
    after = ref_apply(pos, play("5", "5"))
    assert after["count"] == 2 and after["run"] == 2 and after["current"] == 0
    after = ref_apply(after, play("5"))
    assert after["count"] == 2 and after["run"] == 0 and after["current"] == 1
    # H4: a run of 7s goes on on its own 7 whatever E says; a transparent run too
    ruleset = po(seven_lower=True, transparent_rank="4")
    pos = make(hands=[["4", "4", "9"], ["3"], ["K"]], pile=["7"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("4"))
    assert after["run"] == 1 and keys(ref_legal_moves(after)) == keys([play("4"), END])


def test_H19_a_continuation_is_allowed_when_nothing_was_drawn():
    # a hand above the hand size draws nothing; it still holds the rank
    pos = make(hands=[["8", "8", "J", "Q", "K"], ["3"], ["5"]], pile=["6"], count=1,
               stock=["4"], ruleset=PLAY_ON)
    after = ref_apply(pos, play("8"))
    assert after["stock"] == ["4"] and after["run"] == 1 and after["current"] == 0
    assert keys(ref_legal_moves(after)) == keys([play("8"), END])


def test_H19_cards_of_the_rank_drawn_mid_turn_may_be_added():
    pos = make(hands=[["7", "9", "K"], ["3"], ["5"]], pile=["6"], count=1, stock=["7"],
               ruleset=PLAY_ON)
    after = ref_apply(pos, play("7"))  # R8 draws the 7 (last element), then the chain
    assert Counter(after["hands"][0]) == Counter(["7", "9", "K"]) and after["stock"] == []
    assert after["run"] == 1 and keys(ref_legal_moves(after)) == keys([play("7"), END])
    after = ref_apply(after, play("7"))
    assert after["run"] == 0 and after["current"] == 1 and after["pile"] == ["6", "7", "7"]


def test_H19_continuation_from_face_ups_after_the_last_hand_card():
    pos = make(hands=[["8"], ["3"], ["5"]], face_up=[["8", "8", "A"], [], []], pile=["6"],
               count=1, ruleset=PLAY_ON)
    after = ref_apply(pos, play("8"))
    assert after["hands"][0] == [] and after["run"] == 1 and after["current"] == 0
    assert keys(ref_legal_moves(after)) == keys([play("8"), play("8", "8"), END])
    after = ref_apply(after, play("8", "8"))  # from the face-ups (R11)
    assert after["face_up"][0] == ["A"] and after["pile"] == ["6", "8", "8", "8"]
    assert after["run"] == 0 and after["current"] == 1
    # R13: while the hand holds a card, face-up cards of the rank do not count
    pos = make(hands=[["8", "K"], ["3"], ["5"]], face_up=[["8"], [], []], pile=["6"], count=1,
               ruleset=PLAY_ON)
    after = ref_apply(pos, play("8"))
    assert after["run"] == 0 and after["current"] == 1
    # a face-up play continues from the face-ups
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["Q", "Q", "2"], [], []], pile=["6"],
               count=1, ruleset=PLAY_ON)
    after = ref_apply(pos, play("Q"))
    assert after["run"] == 1 and keys(ref_legal_moves(after)) == keys([play("Q"), END])


def test_H19_no_continuation_after_a_blind_play_or_a_pickup():
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["9", "9"], [], []], pile=["6"],
               count=1, ruleset=PLAY_ON)
    after = ref_apply(pos, {"blind": True})
    assert after["pile"] == ["6", "9"] and after["face_down"][0] == ["9"]
    assert after["run"] == 0 and after["current"] == 1 and after["events"] == []
    pos = make(hands=[["4", "4"], ["3"], ["5"]], pile=["6"], count=1, ruleset=PLAY_ON)
    after = ref_apply(pos, PICKUP)
    assert after["run"] == 0 and after["current"] == 1 and after["events"] == ["pickup"]


def test_H19_no_continuation_after_a_burn_the_burner_leads_a_new_run():
    pos = make(hands=[["10", "10", "4"], ["3"], ["5"]], pile=["6"], count=1, ruleset=PLAY_ON)
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn"] and after["run"] == 0 and after["count"] == 0
    assert after["current"] == 0
    assert keys(ref_legal_moves(after)) == keys([play("10"), play("4")])  # a lead, no end
    with pytest.raises(ValueError):
        ref_apply(after, END)
    # H9 off: the next seat leads
    after = ref_apply(dict(pos, ruleset=po(burn_plays_again=False)), play("10"))
    assert after["current"] == 1 and after["run"] == 0
    # a four completed mid-chain burns; the mover still holds 9s but leads anew
    pos = make(hands=[["9"] * 5 + ["4"], ["3"], ["5"]], pile=["9"], count=1,
               ruleset=po(decks=2))
    after = ref_apply(pos, play("9", "9"))
    assert after["run"] == 2 and after["pile"] == ["9", "9", "9"]
    after = ref_apply(after, play("9"))
    assert after["events"] == ["burn"] and after["run"] == 0 and after["count"] == 0
    assert after["current"] == 0 and Counter(after["hands"][0]) == Counter(["9", "9", "4"])
    assert keys(ref_legal_moves(after)) == keys([play("9"), play("9", "9"), play("4")])


def test_H19_H0a_a_burn_mid_chain_cancels_the_runs_skip():
    ruleset = po(skip_rank="8", burn_plays_again=False)
    pos = make(players=4, hands=[["8", "8", "8", "4"], ["3"], ["5"], ["6"]], pile=["5", "8"],
               count=1, ruleset=ruleset)
    after = ref_apply(pos, play("8"))
    assert after["run"] == 1 and after["events"] == []
    # without the burn the run's skip would give the turn to seat 2
    ended = ref_apply(after, END)
    assert ended["events"] == ["skip"] and ended["current"] == 2
    # the continuation completes four 8s: burn, no skip, the next seat (H9 off) leads
    burned = ref_apply(after, play("8", "8"))
    assert burned["events"] == ["burn"] and burned["current"] == 1 and burned["run"] == 0
    # H9 on: the burner leads again, no skip either
    after = ref_apply(dict(pos, ruleset=po(skip_rank="8")), play("8"))
    burned = ref_apply(after, play("8", "8"))
    assert burned["events"] == ["burn"] and burned["current"] == 0


def test_H19_H6_skip_per_card_counts_the_whole_run():
    ruleset = po(skip_rank="8", skip_per_card=True)
    pos = make(players=5, hands=[["8", "8", "8", "4"], ["3"], ["5"], ["6"], ["7"]],
               pile=["6"], count=1, ruleset=ruleset)
    first = ref_apply(pos, play("8"))
    second = ref_apply(first, play("8"))
    assert first["events"] == [] and second["events"] == [] and second["run"] == 2
    assert second["current"] == 0 and second["direction"] == 1
    ended = ref_apply(second, END)  # s = 2: the 3rd counted seat of 1, 2, 3, 4, 0
    assert ended["events"] == ["skip"] and ended["current"] == 3 and ended["run"] == 0
    # the whole rank at the end of the chain: s = 3, no "end" needed
    done = ref_apply(first, play("8", "8"))
    assert done["events"] == ["skip"] and done["current"] == 4
    # once per run without skip_per_card
    pos["ruleset"] = po(skip_rank="8")
    done = ref_apply(ref_apply(pos, play("8")), play("8", "8"))
    assert done["events"] == ["skip"] and done["current"] == 2


def test_H19_H7_reverse_and_joker_runs_flip_when_the_turn_passes():
    ruleset = po(reverse_rank="K", reverse_per_card=True)
    hands = [["K", "K", "K", "4"], ["3"], ["5"], ["6"]]
    pos = make(players=4, hands=hands, pile=["9"], count=1, ruleset=ruleset)
    first = ref_apply(pos, play("K"))
    assert first["direction"] == 1 and first["events"] == [] and first["run"] == 1
    ended = ref_apply(first, END)  # one K: one flip
    assert ended["events"] == ["reverse"] and ended["direction"] == -1
    assert ended["current"] == 3
    two = ref_apply(ref_apply(first, play("K")), END)  # two Ks: two flips, event once
    assert two["events"] == ["reverse"] and two["direction"] == 1 and two["current"] == 1
    three = ref_apply(first, play("K", "K"))  # the run ends with the rank: three flips
    assert three["events"] == ["reverse"] and three["direction"] == -1
    assert three["current"] == 3
    # once per run without reverse_per_card
    pos["ruleset"] = po(reverse_rank="K")
    three = ref_apply(ref_apply(pos, play("K")), play("K", "K"))
    assert three["direction"] == -1 and three["current"] == 3
    # a run of jokers (R23) flips once
    pos = make(players=4, hands=[["JK", "JK", "4"], ["3"], ["5"], ["6"]], pile=["9"],
               count=1, ruleset=po(jokers="always"))
    first = ref_apply(pos, play("JK"))
    assert first["run"] == 1 and first["direction"] == 1 and first["events"] == []
    done = ref_apply(first, play("JK"))
    assert done["events"] == ["reverse"] and done["direction"] == -1 and done["current"] == 3


def test_H19_reverse_and_skip_events_only_on_the_move_that_passes_the_turn():
    ruleset = po(skip_rank="8")
    pos = make(players=4, hands=[["8", "8", "8", "4"], ["3"], ["5"], ["6"]], pile=["6"],
               count=1, ruleset=ruleset)
    events = []
    for move in (play("8"), play("8"), END):
        pos = ref_apply(pos, move)
        events.append(pos["events"])
    assert events == [[], [], ["skip"]] and pos["current"] == 2


def test_H19_end_is_legal_under_H10_never_and_only_in_a_chain():
    ruleset = po(voluntary_pickup="never")
    pos = make(hands=[["6", "6", "9"], ["3"], ["5"]], pile=["4"], count=1, ruleset=ruleset)
    assert END not in ref_legal_moves(pos)
    with pytest.raises(ValueError, match="H19"):
        ref_apply(pos, END)
    after = ref_apply(pos, play("6"))
    assert keys(ref_legal_moves(after)) == keys([play("6"), END])
    assert ref_apply(after, END)["current"] == 1
    # outside H19 "end" is never a move; malformed values are refused
    seed = make(hands=[["6", "6", "9"], ["3"], ["5"]], pile=["4"], count=1)
    for bad in (END, {"end": False}, {"end": 1}, {"end": True, "play": ["6"]}):
        with pytest.raises(ValueError):
            ref_apply(seed, bad)
        with pytest.raises(ValueError):
            ref_apply(after, bad if bad != END else {"end": "yes"})


def test_H19_H8_a_cover_ends_the_chain_and_the_new_lead_may_be_the_cover_rank():
    ruleset = po(cover_rank="Q")
    pos = make(hands=[["Q", "Q", "4"], ["3"], ["5"]], pile=["9"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("Q"))
    assert after["count"] == 0 and after["current"] == 0 and after["run"] == 0
    assert keys(ref_legal_moves(after)) == keys([play("Q"), play("4")])  # a lead, no end
    again = ref_apply(after, play("Q"))  # the cover's lead is of the cover rank: cover it
    assert again["count"] == 0 and again["current"] == 0 and again["run"] == 0
    covered = ref_apply(again, play("4"))
    assert covered["count"] == 1 and covered["current"] == 1 and covered["run"] == 0
    # a cover lead of two cards of one rank, then a continuation of that rank
    pos = make(hands=[["Q", "5", "5", "5"], ["3"], ["K"]], pile=["9"], count=1,
               ruleset=ruleset)
    lead = ref_apply(ref_apply(pos, play("Q")), play("5", "5"))
    assert lead["count"] == 2 and lead["run"] == 2 and lead["current"] == 0


def test_H19_H6_out_in_a_chain_ends_the_turn_and_the_runs_effects_apply():
    ruleset = po(skip_rank="8", skip_per_card=True, last_player_loses=True)
    pos = make(players=4, hands=[["8", "8"], ["3"], ["5"], ["6"]], pile=["6"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("8"))
    assert after["run"] == 1
    out = ref_apply(after, play("8"))
    # s = 2 counted seats, the mover (out) not counted: 1, 2, 3 -> seat 3
    assert out["events"] == ["skip", "out"] and out["current"] == 3 and out["run"] == 0
    assert out["out"] == [0] and out["winner"] is None
    # seed's end: game over at once; current is the next seat, without skips
    pos["ruleset"] = po(skip_rank="8", skip_per_card=True)
    out = ref_apply(ref_apply(pos, play("8")), play("8"))
    assert out["events"] == ["skip", "out", "game_over"] and out["current"] == 1
    assert out["winner"] == 0 and out["run"] == 0 and ref_legal_moves(out) == []
    # a reversing run: the game-over seat is found in the flipped direction (R19)
    pos = make(players=4, hands=[["K", "K"], ["3"], ["5"], ["6"]], pile=["6"], count=1,
               ruleset=po(reverse_rank="K"))
    out = ref_apply(ref_apply(pos, play("K")), play("K"))
    assert out["events"] == ["reverse", "out", "game_over"] and out["current"] == 3


def test_H19_H6_a_skip_back_to_the_mover_starts_a_new_turn():
    # two seats left, s = 1: the turn comes back to the mover, who follows on their own
    # play (same count) as a new turn: run 0, pick-up allowed, no "end"
    ruleset = po(skip_rank="8", last_player_loses=True)
    pos = make(players=3, hands=[["8", "8", "9", "3"], ["K"], []], pile=["5"], count=1,
               out=[2], ruleset=ruleset)
    after = ref_apply(ref_apply(pos, play("8")), END)
    assert after["events"] == ["skip"] and after["current"] == 0 and after["run"] == 0
    assert keys(ref_legal_moves(after)) == keys([play("8"), play("9"), PICKUP])


def test_H19_H16_the_forced_opening_starts_a_run_the_player_may_continue():
    ruleset = rs("boothj5", play_on=True)
    hands = [["9", "J", "K"], ["4", "4", "K"], ["6", "5", "A"]]
    face_up = [["8", "8", "J"], ["J", "Q", "Q"], ["3", "Q", "J"]]
    pos = make(hands=hands, face_up=face_up, stock=["4"], ruleset=ruleset)
    pos["burned"], pos["stock"] = [], pos["stock"] + pos["burned"]
    pos["stock"].remove("4")
    pos["stock"].append("4")  # the next card drawn is a 4
    pos["current"] = ref_first_player(pos)
    assert pos["current"] == 1
    opening = ref_forced_opening(pos)
    assert opening == play("4", "4")
    after = ref_apply(pos, opening)
    assert after["run"] == 2 and after["current"] == 1 and "4" in after["hands"][1]
    assert keys(ref_legal_moves(after)) == keys([play("4"), END])  # H10 "never": end too


def test_H19_run_key_validity():
    pos = make(hands=[["6", "6", "9"], ["3"], ["5"]], pile=["4", "6"], count=1,
               ruleset=PLAY_ON)
    assert keys(ref_legal_moves(dict(pos, run=1))) == keys([play("6"), play("6", "6"), END])
    bad = [
        dict(pos, run=2),                              # more than the equal cards on top
        dict(pos, run=1, ruleset=rs(count_rule=False)),  # run above 0 without H19
        dict(pos, run=-1), dict(pos, run=True), dict(pos, run="1"), dict(pos, run=1.0),
        dict(pos, run=1, hands=[["9", "9"], ["3"], ["5"]]),  # the source holds no 6
        dict(pos, run=1, pile=[]),
    ]
    covered = make(hands=[["Q", "9"], ["3"], ["5"]], pile=["4", "Q"], count=0,
                   ruleset=po(cover_rank="Q"))
    bad.append(dict(covered, run=1))                   # top of the cover rank
    over = make(hands=[[], ["6", "3"], ["5"]], pile=["4", "6"], count=1, out=[0],
                current=1, ruleset=PLAY_ON)
    bad.append(dict(over, run=1))                      # the game is over
    for position in bad:
        with pytest.raises(ValueError):
            ref_legal_moves(position)
        with pytest.raises(ValueError):
            ref_apply(position, END)
    # a run held in face-ups only counts when the hand is empty (R13)
    face_up_run = make(hands=[[], ["3"], ["5"]], face_up=[["6", "9"], [], []], pile=["4", "6"],
                       count=1, ruleset=PLAY_ON)
    assert keys(ref_legal_moves(dict(face_up_run, run=1))) == keys([play("6"), END])
    # run 0: accepted everywhere; copied never outside H19, always written under it
    seed = make(hands=[["6", "6", "9"], ["3"], ["5"]], pile=["4"], count=1)
    assert "run" not in ref_apply(dict(seed, run=0), play("6"))
    assert ref_apply(dict(pos, run=0), play("9"))["run"] == 0
    assert ref_apply(pos, PICKUP)["run"] == 0  # absent means 0; written under H19


# --------------------------------------------------------------------------- H20

def test_H20_going_out_on_a_completed_four_does_not_burn():
    ruleset = rs(out_before_burn=True, last_player_loses=True, decks=2)
    pos = make(hands=[["9"], ["9", "K", "3"], ["5"]], pile=["5", "9", "9", "9"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("9"))
    assert after["events"] == ["out"] and after["out"] == [0]
    assert after["pile"] == ["5", "9", "9", "9", "9"] and after["count"] == 1
    assert after["current"] == 1 and after["burned"] == pos["burned"]
    # the next seat follows on the four (E is a 9, count as it stands) or picks up
    assert keys(ref_legal_moves(after)) == keys([play("9"), play("K"), PICKUP])
    # one more 9 makes the top four 9s again: it burns as usual
    burned = ref_apply(after, play("9"))
    assert burned["events"] == ["burn"] and burned["current"] == 1 and burned["pile"] == []
    # seed's end (no V2): the game ends at that out, the four stays, same winner
    seed_end = ref_apply(dict(pos, ruleset=rs(out_before_burn=True, decks=2)), play("9"))
    assert seed_end["events"] == ["out", "game_over"] and seed_end["winner"] == 0
    assert seed_end["pile"] == ["5", "9", "9", "9", "9"]
    # without H20 the four burns and the mover is out anyway
    plain = ref_apply(dict(pos, ruleset=rs(last_player_loses=True, decks=2)), play("9"))
    assert plain["events"] == ["burn", "out"] and plain["pile"] == []


def test_H20_a_ten_still_burns():
    ruleset = rs(out_before_burn=True, last_player_loses=True)
    pos = make(hands=[["10"], ["3"], ["5"]], pile=["6"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("10"))
    assert after["events"] == ["burn", "out"] and after["pile"] == [] and after["count"] == 0
    assert after["current"] == 1


def test_H20_a_four_by_a_mover_still_holding_a_card_burns():
    ruleset = rs(out_before_burn=True, last_player_loses=True)
    for hands, face_down, stock in ([["9", "4"], [], []], [["9"], ["3"], []],
                                    [["9"], [], ["K"]]):
        pos = make(hands=[hands, ["3"], ["5"]], face_down=[face_down, [], []],
                   pile=["9", "9", "9"], count=1, stock=stock, ruleset=ruleset)
        after = ref_apply(pos, play("9"))  # still holds a card (after the draw, R8)
        assert after["events"] == ["burn"] and after["current"] == 0, (hands, face_down, stock)
    # H3 off: H20 is moot, nothing burns either way
    pos = make(hands=[["9"], ["3"], ["5"]], pile=["9", "9", "9"], count=1,
               ruleset=rs(out_before_burn=True, four_burns=False, last_player_loses=True))
    assert ref_apply(pos, play("9"))["events"] == ["out"]


def test_H20_a_four_completed_by_a_blind_last_card_stays():
    pos = make(hands=[[], ["3"], ["5"]], face_down=[["9"], [], []], pile=["9", "9", "9"],
               count=1, ruleset=rs(out_before_burn=True, last_player_loses=True))
    after = ref_apply(pos, {"blind": True})
    assert after["events"] == ["out"] and after["pile"] == ["9"] * 4 and after["current"] == 1


def test_H20_the_plays_turn_effect_applies_with_no_burn_to_cancel_it():
    base = {"out_before_burn": True, "last_player_loses": True}
    hands = [["8"], ["3"], ["5"], ["6"]]
    # H6: skip one seat, the mover (out) not counted: 1, 2, 3 -> seat 2
    pos = make(players=4, hands=hands, pile=["8", "8", "8"], count=1,
               ruleset=rs(skip_rank="8", **base))
    after = ref_apply(pos, play("8"))
    assert after["events"] == ["skip", "out"] and after["current"] == 2
    assert after["pile"] == ["8"] * 4
    # H7: the direction flips, then the next seat
    pos = make(players=4, hands=[["K"], ["3"], ["5"], ["6"]], pile=["K", "K", "K"], count=1,
               ruleset=rs(reverse_rank="K", **base))
    after = ref_apply(pos, play("K"))
    assert after["events"] == ["reverse", "out"] and after["direction"] == -1
    assert after["current"] == 3
    # H8: the cover is left uncovered; the next seat follows on it, count as it stands
    pos = make(players=4, hands=[["Q"], ["K", "3"], ["5"], ["6"]], pile=["Q", "Q", "Q"],
               count=1, ruleset=rs(cover_rank="Q", **base))
    after = ref_apply(pos, play("Q"))
    assert after["events"] == ["out"] and after["count"] == 1 and after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play("K"), PICKUP])


def test_H20_H5_four_transparent_cards_left_by_an_out_are_looked_through():
    # Reading: "E is the four's rank" unless the four is of the transparent rank, which is
    # never E (H0, H5): the next seat follows on the card under the four
    ruleset = rs(out_before_burn=True, last_player_loses=True, transparent_rank="5")
    pos = make(hands=[["5"], ["4", "J", "3"], ["6"]], pile=["9", "5", "5", "5"], count=1,
               ruleset=ruleset)
    after = ref_apply(pos, play("5"))
    assert after["events"] == ["out"] and after["pile"] == ["9", "5", "5", "5", "5"]
    assert keys(ref_legal_moves(after)) == keys([play("J"), PICKUP])


def test_H20_R9_a_four_led_out_sets_a_count_of_four():
    ruleset = rs(out_before_burn=True, last_player_loses=True, decks=2)
    pos = make(hands=[["9"] * 4, ["J"] * 4 + ["A"], ["5"]], ruleset=ruleset)
    after = ref_apply(pos, play(*["9"] * 4))
    assert after["events"] == ["out"] and after["count"] == 4 and after["current"] == 1
    assert keys(ref_legal_moves(after)) == keys([play(*["J"] * 4), PICKUP])
    assert ref_apply(after, play(*["J"] * 4))["events"] == ["burn"]


def test_H20_H19_a_continuation_that_goes_out_on_a_four():
    ruleset = po(out_before_burn=True, last_player_loses=True)
    pos = make(hands=[["9", "9"], ["3"], ["5"]], pile=["9", "9"], count=1, ruleset=ruleset)
    after = ref_apply(pos, play("9"))
    assert after["run"] == 1 and after["pile"] == ["9"] * 3
    out = ref_apply(after, play("9"))
    assert out["events"] == ["out"] and out["pile"] == ["9"] * 4 and out["current"] == 1
    assert out["run"] == 0
    # without H20 it burns (and the mover is out all the same)
    pos["ruleset"] = po(last_player_loses=True)
    out = ref_apply(ref_apply(pos, play("9")), play("9"))
    assert out["events"] == ["burn", "out"] and out["pile"] == []


# --------------------------------------------------------------------------- H11 one_then_rank

def test_H11_one_then_rank_n_cards_of_a_named_face_up_rank():
    ruleset = rs(faceup_pickup="one_then_rank")
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "4", "3"], [], []], pile=["6"],
               count=1, ruleset=ruleset)
    add = [{"pickup": True, "add": "4", "n": 1}, {"pickup": True, "add": "4", "n": 2},
           {"pickup": True, "add": "3", "n": 1}]
    assert keys(ref_legal_moves(pos)) == keys(add)  # no plain pick-up for them
    one = ref_apply(pos, add[0])
    assert Counter(one["hands"][0]) == Counter(["6", "4"])
    assert Counter(one["face_up"][0]) == Counter(["4", "3"])
    assert one["events"] == ["pickup"] and one["current"] == 1 and one["count"] == 0
    two = ref_apply(pos, add[1])
    assert Counter(two["hands"][0]) == Counter(["6", "4", "4"]) and two["face_up"][0] == ["3"]
    # n bounds: 1 <= n <= the face-up cards of that rank; anything else is refused
    for bad in ({"pickup": True, "add": "4", "n": 3}, {"pickup": True, "add": "3", "n": 2},
                {"pickup": True, "add": "4", "n": 0}, {"pickup": True, "add": "4", "n": -1},
                {"pickup": True, "add": "4", "n": True}, {"pickup": True, "add": "4", "n": 1.0},
                {"pickup": True, "add": "4", "n": "1"}, {"pickup": True, "add": "4", "n": None},
                {"pickup": True, "n": 1}, {"pickup": True, "add": "4"}, PICKUP,
                {"pickup": True, "add": "9", "n": 1}):
        with pytest.raises(ValueError):
            ref_apply(pos, bad)
    # n is refused under every other value of faceup_pickup
    for mode in ("may_add_one", "pile_only", "must_add_rank"):
        with pytest.raises(ValueError):
            ref_apply(dict(pos, ruleset=rs(faceup_pickup=mode)), add[0])
    # a player with a hand picks up plainly
    pos = make(hands=[["3"], ["3"], ["5"]], face_up=[["4"], [], []], pile=["6"], count=1,
               ruleset=ruleset)
    assert keys(ref_legal_moves(pos)) == keys([PICKUP])


def test_H11_one_then_rank_is_a_pickup_not_a_play():
    ruleset = rs(faceup_pickup="one_then_rank")
    # an add never burns (R12): three 4s on the pile, one more added
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["4", "3"], [], []], pile=["4", "4", "4"],
               count=3, ruleset=ruleset)
    after = ref_apply(pos, {"pickup": True, "add": "4", "n": 1})
    assert after["events"] == ["pickup"] and Counter(after["hands"][0]) == Counter(["4"] * 4)
    # H10 "never": only when no play is legal
    both = rs(faceup_pickup="one_then_rank", voluntary_pickup="never")
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["A", "4", "4"], [], []], pile=["6"],
               count=1, ruleset=both)
    assert keys(ref_legal_moves(pos)) == keys([play("A")])
    pos["face_up"][0] = ["3", "4", "4"]
    pos["burned"].remove("3")
    pos["burned"].append("A")
    assert len(ref_legal_moves(pos)) == 3
    # two decks, hand size 4: up to four of a rank
    pos = make(hands=[[], ["3"], ["5"]], face_up=[["6"] * 4, [], []], pile=["9"], count=1,
               ruleset=rs(faceup_pickup="one_then_rank", decks=2, hand_size=4))
    assert keys(ref_legal_moves(pos)) == keys(
        [{"pickup": True, "add": "6", "n": n} for n in range(1, 5)])


# --------------------------------------------------------------------------- §11.4 ranges

def test_11_4_masters_and_boothj5_player_ranges():
    assert PRESET_PLAYERS == {"seed": (2, 6), "classic": (2, 5),
                              "masters-of-shithead": (2, 6), "boothj5": (2, 8)}
    for n in range(2, 7):
        ref_ruleset("masters-of-shithead", n)
    for n in range(2, 9):
        ref_ruleset("boothj5", n)
        ref_ruleset(rs("boothj5", hand_size=4), n)  # boothj5 also at hand size 4
    for ruleset, n in (("masters-of-shithead", 7), ("boothj5", 9), ("classic", 6)):
        with pytest.raises(ValueError):
            ref_ruleset(ruleset, n)


# --------------------------------------------------------------------------- invariants

WALK_RULESETS = [
    "seed", "classic", "masters-of-shithead", "boothj5", V2,
    rs(count_rule=False, skip_rank="8", skip_per_card=True, reverse_rank="K",
       reverse_per_card=True, cover_rank="Q", transparent_rank="5", jokers="always"),
    rs("masters-of-shithead", count_rule=True, play_on=False, voluntary_pickup="never",
       hand_size=4, faceup_pickup="must_add_rank"),
    rs("boothj5", cover_rank="9", reverse_rank="J", burn_plays_again=False, four_burns=False),
    rs(seven_lower=True, transparent_rank="4", ten_anywhere=True, cover_rank="A",
       faceup_pickup="must_add_rank", last_player_loses=True, choose_face_ups=True),
    # H18-H20 and H11 "one_then_rank", alone and together
    rs("boothj5", hand_size=4),  # two decks from 5 players (H18)
    rs(decks=2),  # 2-8 players, jokers at 6-8 (H13)
    rs(decks=2, out_before_burn=True, reverse_rank="K", cover_rank="Q"),  # count up to 8
    rs(decks=2, four_burns=False, hand_size=4),  # a count up to 8 (H3 off)
    rs(count_rule=False, play_on=True, skip_rank="8", skip_per_card=True, jokers="always",
       reverse_rank="K", cover_rank="Q", transparent_rank="5", last_player_loses=True),
    rs("classic", play_on=True, out_before_burn=True, faceup_pickup="one_then_rank",
       voluntary_pickup="never", decks=2, burn_plays_again=False),
    rs(out_before_burn=True, faceup_pickup="one_then_rank", last_player_loses=True),
]


def walk_deal(rng, ruleset):
    """A simple deal for the invariant walk: R4 / H12 packets (also under V1: the walk
    needs valid positions, not V1's statistics), H17 removed cards, the starter of
    R6 / H14 (no swap), the H16 opening."""
    opts = ref_ruleset(ruleset)
    players = rng.choice(allowed_players(ruleset))
    size = opts["hand_size"]
    cards = ref_deck(opts, players)
    rng.shuffle(cards)
    removed = []
    spare = len(cards) - 17 * players
    if opts["removed_before_deal"] == "masters" and spare >= 2 * players:
        removed = [cards.pop() for _ in range(spare - rng.randint(1, 2 * players))]  # H17
    zones = [[[cards.pop() for _ in range(size)] for _ in range(players)] for _ in range(3)]
    pos = {"ruleset": ruleset, "players": players, "current": 0, "direction": 1,
           "face_down": zones[0], "face_up": zones[1], "hands": zones[2], "stock": cards,
           "pile": [], "count": 0, "burned": [], "out": [], "removed": removed}
    pos["current"] = ref_first_player(pos)
    return pos, ref_forced_opening(pos)


def allowed_players(ruleset):
    """The player counts §11.3 allows for a ruleset (R1, H12, H13, H18): 2-6 or 2-8."""
    allowed = []
    for n in range(2, 9):
        try:
            ref_ruleset(ruleset, n)
        except ValueError:
            continue
        allowed.append(n)
    return allowed


@pytest.mark.parametrize("ruleset", WALK_RULESETS, ids=repr)
def test_H0a_H20_invariants_over_random_walks(ruleset):
    """docs/position.md validity after every move: cards conserved (H17's removed included),
    the seats without cards are exactly `out`, `count` 0 only on an empty pile or a cover
    (H8) and at most 4·d (H18), `run` written exactly under H19 and valid, events in
    order, apply never mutates, a game that is not over has a move."""
    opts = ref_ruleset(ruleset)
    event_order = ["burn", "reverse", "skip", "blind_fail", "pickup", "out", "game_over"]
    seen = Counter()
    for seed in range(15):
        rng = random.Random(seed)
        pos, forced = walk_deal(rng, ruleset)
        cards = total(pos)
        assert cards == deck(pos["players"], ruleset)
        for step in range(500):
            empty = {s for s in range(pos["players"])
                     if not (pos["hands"][s] or pos["face_up"][s] or pos["face_down"][s])}
            assert empty == set(pos["out"])
            moves = ref_legal_moves(pos)
            if not moves:
                assert pos["winner"] == pos["out"][0]
                seen["over"] += 1
                break
            assert len(keys(moves)) == len(moves) and pos["current"] not in pos["out"]
            if pos["count"] == 0:
                assert not pos["pile"] or pos["pile"][-1] == opts["cover_rank"]
            else:
                assert pos["pile"] and 1 <= pos["count"] <= 4 * ref_decks(opts, pos["players"])
            if step:
                assert ("run" in pos) == opts["play_on"]  # H19: written exactly under it
            if pos.get("run"):  # H19: in a chain, only continuations and "end"
                seen["chain"] += 1
                assert moves[-1] == {"end": True}
                assert all(m["play"][0] == pos["pile"][-1] for m in moves[:-1])
            move = forced if step == 0 and forced else rng.choice(moves)
            if rng.random() < 0.6:  # play when possible, or few games would end
                move = next((m for m in moves if "pickup" not in m), move)
            old, before = pos, copy.deepcopy(pos)
            pos = ref_apply(old, move)
            assert old == before and total(pos) == cards
            assert pos["events"] == sorted(set(pos["events"]), key=event_order.index)
            seen.update(pos["events"])
            seen["count>4"] += pos["count"] > 4
    assert seen["over"] > 0
    assert seen["chain"] > 0 or not opts["play_on"]
    if opts["decks"] == 2 and not opts["four_burns"]:
        assert seen["count>4"] > 0  # H18: counts above 4 do arise (H3 off)
