"""Scenario tests of the single-position rules API (``sim.kernel.position``).

Written from docs/rules.md (rules R1-R26, V1, V2, "Decided" readings binding) and
docs/position.md (position and move JSON, the ``legal_moves`` / ``apply`` /
``validate`` / ``first_player`` answers). Every test is named after the rule it checks.

Where the documents are silent these tests assume:
- after a pick-up the pile is [] with count 0 and the next seat leads;
- after a burn the pile is [] with count 0 and the same seat moves again (unless it went out).

Positions are small and hand-written; ``pos`` puts every card they do not use into
``burned`` so that each rank appears exactly as often as the deck holds it.
"""

import collections
import copy

import pytest

from sim.kernel import position as rules
from tests.positions import ORDER, RANKS, full_deck, pos  # noqa: F401
from tests.positions import seats as _seats
from tests.positions import used as _used

# --------------------------------------------------------------------------- helpers

SEED = "seed"
V1 = {"base": "seed", "choose_face_ups": True}
V2 = {"base": "seed", "last_player_loses": True}

PICKUP = {"pickup": True}
BLIND = {"blind": True}


def play(*cards):
    return {"play": list(cards)}


def add(card):
    return {"pickup": True, "add": card}


def dealt(players, hands, face_up, face_down=None, dealer=None, ruleset=SEED):
    """A position as dealt (R4): nothing played or burned; seats without given face-downs get
    three from the undealt cards, the rest is the stock."""
    p = {
        "ruleset": copy.deepcopy(ruleset),
        "players": players,
        "current": 0,
        "direction": 1,
        "hands": _seats(players, hands),
        "face_up": _seats(players, face_up),
        "face_down": _seats(players, face_down),
        "stock": [],
        "pile": [],
        "count": 0,
        "burned": [],
        "out": [],
    }
    if dealer is not None:
        p["dealer"] = dealer
    deck = full_deck(players)
    used = _used(p)
    assert not used - deck, f"fixture uses too many cards: {dict(used - deck)}"
    rest = sorted((deck - used).elements(), key=ORDER.get)
    for seat in range(players):
        if face_down is None or seat not in (face_down if isinstance(face_down, dict)
                                             else range(players)):
            p["face_down"][seat] = [rest.pop() for _ in range(3)]
    p["stock"] = rest
    assert _used(p) == deck
    return p


def move_key(move):
    """A hashable, order-insensitive form of a move; also checks the move's shape."""
    assert isinstance(move, dict), move
    if "play" in move:
        assert set(move) == {"play"}, move
        assert move["play"], move
        return ("play",) + tuple(sorted(move["play"]))
    if "blind" in move:
        assert move == {"blind": True}, move
        return ("blind",)
    assert move.get("pickup") is True and set(move) <= {"pickup", "add"}, move
    if "add" in move:
        assert isinstance(move["add"], str), move
        return ("pickup", move["add"])
    return ("pickup",)


def assert_moves(position, *expected):
    """legal_moves(position) is exactly ``expected``, each move once, input unchanged."""
    before = copy.deepcopy(position)
    got = rules.legal_moves(position)
    assert position == before, "legal_moves changed its input"
    keys = [move_key(m) for m in got]
    assert len(keys) == len(set(keys)), f"a move is listed twice: {got}"
    assert set(keys) == {move_key(m) for m in expected}, got


def go(position, move):
    """apply(position, move), checking that the input is unchanged and the result valid."""
    before = copy.deepcopy(position)
    after = rules.apply(position, move)
    assert position == before, "apply changed its input"
    rules.validate(after)
    assert position == before
    return after


def refused(position, move):
    """apply must raise ValueError (R24) and leave the input unchanged."""
    before = copy.deepcopy(position)
    with pytest.raises(ValueError) as info:
        rules.apply(position, move)
    assert position == before, "a refused move changed its input"
    assert str(info.value), "the ValueError should say what is wrong"


SAME = object()


def check(before, after, *, current, hands=None, face_up=None, face_down=None,
          stock=SAME, pile=SAME, count=SAME, burned_add=(), direction=SAME, events=(),
          winner=None, out=SAME):
    """Compare ``after`` with ``before`` plus the given changes; everything not given must be
    unchanged. hands/face_up/face_down are {seat: cards} for the seats that changed."""
    n = before["players"]
    assert after["players"] == n
    assert after["ruleset"] == before["ruleset"]
    if "dealer" in before:
        assert after["dealer"] == before["dealer"], "apply keeps the dealer"
    for key, changes in (("hands", hands), ("face_up", face_up)):
        want = [list(c) for c in before[key]]
        for seat, cards in (changes or {}).items():
            want[seat] = list(cards)
        assert len(after[key]) == n
        for seat in range(n):
            assert collections.Counter(after[key][seat]) == collections.Counter(want[seat]), \
                f"{key}[{seat}]: {after[key][seat]} != {want[seat]}"
    want_fd = [list(c) for c in before["face_down"]]
    for seat, cards in (face_down or {}).items():
        want_fd[seat] = list(cards)
    assert [list(c) for c in after["face_down"]] == want_fd
    assert list(after["stock"]) == (before["stock"] if stock is SAME else list(stock))
    assert list(after["pile"]) == (before["pile"] if pile is SAME else list(pile))
    assert after["count"] == (before["count"] if count is SAME else count)
    assert collections.Counter(after["burned"]) == \
        collections.Counter(before["burned"]) + collections.Counter(burned_add)
    assert list(after["out"]) == (before["out"] if out is SAME else list(out))
    assert after["current"] == current
    assert after["direction"] == (before["direction"] if direction is SAME else direction)
    assert list(after["events"]) == list(events)
    if winner is None:
        assert after["winner"] is None
    else:
        assert after["winner"] == winner


# --------------------------------------------------------------------------- R6 who starts


def test_R6_dealt_face_up_three_beats_three_in_hand():
    p = dealt(4,
              hands=[["3", "9", "Q"], ["4", "5", "K"], ["6", "8", "J"], ["7", "10", "A"]],
              face_up=[["5", "8", "K"], ["9", "J", "Q"], ["3", "7", "A"], ["4", "6", "10"]])
    before = copy.deepcopy(p)
    assert rules.first_player(p) == 2
    assert p == before


def test_R6_three_in_hand_beats_four_face_up():
    # Rank by rank: face-ups then hands for 3, only then face-ups for 4.
    p = dealt(3,
              hands=[["8", "10", "A"], ["3", "Q", "K"], ["5", "9", "J"]],
              face_up=[["4", "9", "K"], ["5", "J", "A"], ["6", "7", "Q"]])
    assert rules.first_player(p) == 1


def test_R6_tie_goes_to_earliest_in_deal_order_from_dealers_left():
    hands = [["5", "9", "Q"], ["3", "5", "K"], ["6", "8", "J"], ["4", "10", "A"]]
    face_up = [["3", "8", "K"], ["9", "J", "Q"], ["4", "7", "A"], ["3", "6", "10"]]
    # Seats 0 and 3 were dealt a 3 face up (seat 1 holds one in hand: face-ups first).
    assert rules.first_player(dealt(4, hands, face_up)) == 0          # no dealer: seat 0 first
    assert rules.first_player(dealt(4, hands, face_up, dealer=1)) == 3  # order 2, 3, 0, 1
    assert rules.first_player(dealt(4, hands, face_up, dealer=2)) == 3  # order 3, 0, 1, 2
    assert rules.first_player(dealt(4, hands, face_up, dealer=3)) == 0  # order 0, 1, 2, 3


def test_R6_tie_in_hands_uses_deal_order():
    p = dealt(3,
              hands=[["3", "9", "Q"], ["4", "5", "K"], ["3", "8", "J"]],
              face_up=[["5", "8", "K"], ["9", "J", "Q"], ["4", "7", "A"]],
              dealer=0)                                   # deal order 1, 2, 0
    assert rules.first_player(p) == 2


def test_R6_reads_position_ignores_current():
    p = dealt(3,
              hands=[["3", "9", "Q"], ["4", "5", "K"], ["6", "8", "J"]],
              face_up=[["5", "8", "K"], ["9", "J", "Q"], ["4", "7", "A"]])
    p["current"] = 2
    assert rules.first_player(p) == 0


def test_R6_twos_and_face_downs_never_count():
    # No 3 face up or in hand; the 3s are face down at seat 0 and in the stock. Seat 0 (first
    # in deal order) and seat 1 hold 2s; seat 1 holds the lowest other rank, a 4, in hand.
    p = dealt(3,
              hands=[["2", "8", "Q"], ["4", "K", "A"], ["6", "7", "10"]],
              face_up=[["2", "9", "K"], ["2", "J", "A"], ["5", "J", "Q"]],
              face_down={0: ["3", "3", "3"]})
    assert rules.first_player(p) == 1


def test_R6_fallback_first_in_deal_order_when_nobody_holds_three_to_ace():
    # Six players: only 2s and jokers in hands, no face-ups (2s and jokers never count).
    hands = [["2"], ["JK"], ["2", "2"], [], ["JK"], ["2"]]
    face_up = [[], [], [], [], [], []]
    assert rules.first_player(dealt(6, hands, face_up)) == 0
    assert rules.first_player(dealt(6, hands, face_up, dealer=3)) == 4
    assert rules.first_player(dealt(6, hands, face_up, dealer=5)) == 0


# --------------------------------------------------------------------------- R7 lead


def test_R7_leader_plays_one_card_or_several_of_one_rank():
    p = pos(current=0,
            hands=[["5", "5", "9"], ["4", "8", "8", "J"], ["6", "Q", "K"]],
            face_down=[["7", "7", "A"], ["10", "2", "3"], ["3", "J", "A"]])
    assert_moves(p, play("5"), play("5", "5"), play("9"))      # no pick-up: pile empty
    after = go(p, play("5", "5"))
    check(p, after, current=1, hands={0: ["9"]}, pile=["5", "5"], count=2)
    assert_moves(after, play("8", "8"), PICKUP)   # count 2: no single 8 or J; 4s are lower


def test_R7_leader_may_play_all_four_of_a_rank_or_any_single():
    p = pos(current=1,
            hands={0: ["3"], 1: ["6", "6", "6", "K"], 2: ["9"]})
    assert_moves(p, play("6"), play("6", "6"), play("6", "6", "6"), play("K"))
    after = go(p, play("6", "6", "6"))
    check(p, after, current=2, hands={1: ["K"]}, pile=["6", "6", "6"], count=3)


def test_R7_apply_keeps_dealer_and_ruleset():
    p = pos(current=0, hands=[["5", "9"], ["4"], ["6"]], dealer=2)
    after = go(p, play("9"))
    assert after["dealer"] == 2
    assert after["ruleset"] == "seed"
    check(p, after, current=1, hands={0: ["5"]}, pile=["9"], count=1)


# --------------------------------------------------------------------------- R8 drawing


def test_R8_draw_to_three_after_hand_play_last_stock_card_first():
    p = pos(current=0,
            hands=[["5", "5", "9"], ["4", "4", "K"], ["6", "7", "7"]],
            face_down=[["3"], ["3"], ["3"]],
            stock=["Q", "J", "8"])
    after = go(p, play("5", "5"))
    check(p, after, current=1, hands={0: ["9", "8", "J"]}, stock=["Q"],
          pile=["5", "5"], count=2)


def test_R8_draw_as_far_as_the_stock_lasts():
    p = pos(current=0,
            hands=[["5", "5", "9"], ["4", "4", "K"], ["6", "7", "7"]],
            face_down=[["3"], ["3"], ["3"]],
            stock=["8"])
    after = go(p, play("5", "5"))
    check(p, after, current=1, hands={0: ["9", "8"]}, stock=[], pile=["5", "5"], count=2)


def test_R8_never_draw_when_holding_three_or_more():
    p = pos(current=0,
            hands=[["5", "9", "K", "A"], ["4", "4", "K"], ["6", "7", "7"]],
            face_down=[["3"], ["3"], ["3"]],
            stock=["Q", "J"], pile=["4"], count=1)
    after = go(p, play("5"))
    check(p, after, current=1, hands={0: ["9", "K", "A"]}, pile=["4", "5"], count=1)


def test_R8_no_draw_after_face_up_play():
    p = pos(current=0,
            hands={1: ["4", "4", "K"], 2: ["6", "7", "7"]},
            face_up={0: ["9", "K"]},
            face_down=[["3"], ["3"], ["3"]],
            stock=["Q", "J"], pile=["8"], count=1)
    after = go(p, play("9"))
    check(p, after, current=1, face_up={0: ["K"]}, pile=["8", "9"], count=1)


def test_R8_no_draw_after_blind_play():
    p = pos(current=0,
            hands={1: ["4", "4", "K"], 2: ["6", "7", "7"]},
            face_down=[["3", "A"], ["3"], ["3"]],
            stock=["Q", "J"], pile=["8"], count=1)
    after = go(p, BLIND)
    check(p, after, current=1, face_down={0: ["3"]}, pile=["8", "A"], count=1)


# --------------------------------------------------------------------------- R9 following


def test_R9_follow_must_match_count_and_rank():
    p = pos(current=1,
            hands=[["4"], ["5", "5", "7", "7", "7", "9"], ["8"]],
            pile=["6", "6"], count=2)
    # Not a single 7 nor three 7s (count 2), not 5s (lower), not a single 9 (count).
    assert_moves(p, play("7", "7"), PICKUP)
    after = go(p, play("7", "7"))
    check(p, after, current=2, hands={1: ["5", "5", "7", "9"]},
          pile=["6", "6", "7", "7"], count=2)


def test_R9_equal_rank_allowed_count_one():
    p = pos(current=2,
            hands=[["4"], ["3"], ["7", "8", "J", "J"]],
            pile=["8"], count=1)
    assert_moves(p, play("8"), play("J"), PICKUP)
    after = go(p, play("J"))
    check(p, after, current=0, hands={2: ["7", "8", "J"]}, pile=["8", "J"], count=1)


def test_R9_play_passes_clockwise_and_wraps():
    p = pos(players=4, current=3,
            hands=[["4"], ["3"], ["5"], ["9", "Q"]],
            pile=["8"], count=1)
    after = go(p, play("Q"))
    check(p, after, current=0, hands={3: ["9"]}, pile=["8", "Q"], count=1)


def test_R9_POSITION_md_example():
    p = {
        "ruleset": "seed",
        "players": 4,
        "current": 2,
        "direction": 1,
        "hands": [["7", "7", "K"], ["3", "Q", "A"], ["5", "5", "9"], ["2", "8", "J"]],
        "face_up": [["A", "10", "4"], ["K", "6", "6"], [], ["9", "3", "Q"]],
        "face_down": [["4", "J", "8"], ["2", "5", "7"], ["Q", "9", "3"], ["6", "K", "10"]],
        "stock": ["8", "4", "J"],
        "pile": ["5", "9"],
        "count": 1,
        "burned": ["2", "2", "3", "4", "6", "7", "8", "10", "10", "J", "Q", "K", "A", "A"],
        "out": [],
    }
    rules.validate(p)
    assert_moves(p, play("9"), PICKUP)
    after = go(p, play("9"))
    check(p, after, current=3, hands={2: ["5", "5", "J"]}, stock=["8", "4"],
          pile=["5", "9", "9"], count=1)


# --------------------------------------------------------------------------- R10 pick-up


def test_R10_pickup_whole_pile_no_draw_next_player_leads():
    p = pos(current=1,
            hands=[["7", "7", "A"], ["4", "6", "6"], ["8", "Q", "3"]],
            stock=["Q", "J"],
            pile=["5", "9", "K"], count=1)
    assert_moves(p, PICKUP)                       # nothing in hand beats a K
    after = go(p, PICKUP)
    check(p, after, current=2, hands={1: ["4", "6", "6", "5", "9", "K"]},
          pile=[], count=0, events=["pickup"])   # stock unchanged: the picker does not draw
    # The next player leads (R7): any single rank, no pick-up of the empty pile.
    assert_moves(after, play("8"), play("Q"), play("3"))


def test_R10_picker_does_not_draw_even_below_three():
    # Not reachable in a real game (a hand of 1 while the stock lasts), but the Decided
    # reading is unconditional: only a play from the hand draws (R8).
    p = pos(current=0,
            hands=[["4"], ["5", "5", "8"], ["6", "6", "7"]],
            stock=["Q", "J"], pile=["9"], count=1)
    after = go(p, PICKUP)
    check(p, after, current=1, hands={0: ["4", "9"]}, pile=[], count=0, events=["pickup"])


def test_R10_leader_cannot_pick_up():
    p = pos(current=0, hands=[["5", "9"], ["4"], ["6"]])
    assert_moves(p, play("5"), play("9"))
    refused(p, PICKUP)


def test_R10_pickup_allowed_even_when_a_play_exists():
    p = pos(current=0, hands=[["A", "3"], ["4"], ["6"]], pile=["9"], count=1)
    assert_moves(p, play("A"), PICKUP)
    after = go(p, PICKUP)
    check(p, after, current=1, hands={0: ["A", "3", "9"]}, pile=[], count=0,
          events=["pickup"])


# --------------------------------------------------------------------------- R11 face-ups


def test_R11_empty_hand_plays_face_up_cards_count_applies():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["8", "8", "3"]},
            face_down={0: ["4", "Q", "K"]},
            pile=["5", "5"], count=2)
    assert_moves(p, play("8", "8"), PICKUP, add("8"), add("3"))
    after = go(p, play("8", "8"))
    check(p, after, current=1, face_up={0: ["3"]}, pile=["5", "5", "8", "8"], count=2)


def test_R11_face_up_lead_any_number_of_one_rank():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["8", "8", "K"]},
            face_down={0: ["4"]})
    assert_moves(p, play("8"), play("8", "8"), play("K"))
    after = go(p, play("K"))
    check(p, after, current=1, face_up={0: ["8", "8"]}, pile=["K"], count=1)


# --------------------------------------------------------------------------- R12 add a face-up


def test_R12_add_one_face_up_then_pick_up():
    p = pos(current=1,
            hands={0: ["4"], 2: ["6"]},
            face_up={1: ["4", "K", "K"]},
            face_down={1: ["3", "9"]},
            pile=["Q", "A"], count=1)
    assert_moves(p, PICKUP, add("4"), add("K"))   # nothing beats the A
    after = go(p, add("K"))
    check(p, after, current=2, hands={1: ["Q", "A", "K"]}, face_up={1: ["4", "K"]},
          pile=[], count=0, events=["pickup"])


def test_R12_adding_fourth_of_a_rank_never_burns():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["9", "3"]},
            face_down={0: ["K"]},
            pile=["5", "9", "9", "9"], count=1)
    assert_moves(p, play("9"), PICKUP, add("9"), add("3"))
    after = go(p, add("9"))
    check(p, after, current=1, hands={0: ["5", "9", "9", "9", "9"]}, face_up={0: ["3"]},
          pile=[], count=0, events=["pickup"])   # burned unchanged


def test_R12_adding_a_ten_never_burns():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["10", "4"]},
            face_down={0: ["K"]},
            pile=["K"], count=1)
    assert_moves(p, PICKUP, add("10"), add("4"))  # a 10 is lower than a K (R21)
    after = go(p, add("10"))
    check(p, after, current=1, hands={0: ["K", "10"]}, face_up={0: ["4"]},
          pile=[], count=0, events=["pickup"])


def test_R12_adding_a_joker_never_reverses():
    p = pos(players=6, current=2,
            hands={0: ["3"], 1: ["4"], 3: ["6"], 4: ["7"], 5: ["8"]},
            face_up={2: ["JK", "5"]},
            face_down={2: ["9"]},
            pile=["A"], count=1)
    assert_moves(p, play("JK"), PICKUP, add("JK"), add("5"))
    after = go(p, add("JK"))
    check(p, after, current=3, hands={2: ["A", "JK"]}, face_up={2: ["5"]},
          pile=[], count=0, direction=1, events=["pickup"])


def test_R12_add_only_one_card_that_is_face_up():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["3", "4"]},
            face_down={0: ["K"]},
            pile=["Q"], count=1)
    refused(p, add("K"))          # a face-down card, not a face-up one
    refused(p, add("A"))          # not held at all


# --------------------------------------------------------------------------- R13 hand first


def test_R13_no_table_cards_while_hand_not_empty():
    p = pos(current=0,
            hands={0: ["4"], 1: ["5"], 2: ["6"]},
            face_up={0: ["A", "A"]},
            face_down={0: ["K"]},
            pile=["9"], count=1)
    assert_moves(p, PICKUP)
    refused(p, play("A"))
    refused(p, play("A", "A"))
    refused(p, add("A"))
    refused(p, BLIND)


def test_R13_leading_with_hand_uses_hand_only():
    p = pos(current=0,
            hands={0: ["4"], 1: ["5"], 2: ["6"]},
            face_up={0: ["A"]},
            face_down={0: ["K"]})
    assert_moves(p, play("4"))
    refused(p, play("A"))
    after = go(p, play("4"))
    check(p, after, current=1, hands={0: []}, pile=["4"], count=1)
    # The hand is empty now; at the seat's next turn the face-ups are played (R11).


# --------------------------------------------------------------------------- R14 blind


def test_R14_blind_lead_turns_one_card():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_down={0: ["K", "5", "9"]})
    assert_moves(p, BLIND)
    after = go(p, BLIND)
    check(p, after, current=1, face_down={0: ["K", "5"]}, pile=["9"], count=1)


def test_R14_blind_turns_as_many_cards_as_the_count():
    p = pos(current=0,
            hands={1: ["4"], 2: ["7"]},
            face_down={0: ["3", "8", "8"]},
            pile=["6", "6"], count=2)
    assert_moves(p, BLIND)
    after = go(p, BLIND)
    check(p, after, current=1, face_down={0: ["3"]}, pile=["6", "6", "8", "8"], count=2)


# --------------------------------------------------------------------------- R15 blind result


def test_R15_legal_blind_cards_stay_on_pile():
    p = pos(current=1,
            hands={0: ["4"], 2: ["7"]},
            face_down={1: ["Q", "2"]},
            pile=["A"], count=1)
    after = go(p, BLIND)                       # a 2 may go on anything (R20)
    check(p, after, current=2, face_down={1: ["Q"]}, pile=["A", "2"], count=1)


def test_R15_illegal_blind_card_picks_up_pile_and_turned_card():
    p = pos(current=0,
            hands={1: ["5"], 2: ["6"]},
            face_down={0: ["J", "4"]},
            pile=["7", "9"], count=1)
    after = go(p, BLIND)
    check(p, after, current=1, hands={0: ["7", "9", "4"]}, face_down={0: ["J"]},
          pile=[], count=0, events=["blind_fail", "pickup"])
    assert_moves(after, play("5"))            # the next seat leads


def test_R15_blind_cards_of_two_ranks_are_illegal():
    p = pos(current=0,
            hands={1: ["5"], 2: ["6"]},
            face_down={0: ["A", "5", "Q"]},
            pile=["7", "7"], count=2)
    after = go(p, BLIND)                      # turns Q then 5
    check(p, after, current=1, hands={0: ["7", "7", "Q", "5"]}, face_down={0: ["A"]},
          pile=[], count=0, events=["blind_fail", "pickup"])


def test_R15_legal_blind_ten_burns_and_player_leads_again():
    p = pos(current=0,
            hands={1: ["5"], 2: ["6"]},
            face_down={0: ["3", "10"]},
            pile=["9"], count=1)
    after = go(p, BLIND)
    check(p, after, current=0, face_down={0: ["3"]}, pile=[], count=0,
          burned_add=["9", "10"], events=["burn"])
    assert_moves(after, BLIND)


# --------------------------------------------------------------------------- R16 blind forced


def test_R16_blind_is_forced_no_pickup_offered():
    p = pos(current=0,
            hands={1: ["5"], 2: ["6"]},
            face_down={0: ["3", "4"]},
            pile=["9", "K"], count=1)
    assert_moves(p, BLIND)
    refused(p, PICKUP)
    refused(p, play("4"))


def test_R16_count_bigger_than_face_downs_left_turns_all_and_is_illegal():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_down={0: ["K"]},
            pile=["5", "5"], count=2)
    after = go(p, BLIND)
    check(p, after, current=1, hands={0: ["5", "5", "K"]}, face_down={0: []},
          pile=[], count=0, events=["blind_fail", "pickup"])


def test_R16_short_turn_illegal_even_with_one_high_rank():
    p = pos(current=2,
            hands={0: ["4"], 1: ["7"]},
            face_down={2: ["A", "A"]},
            pile=["6", "6", "6"], count=3)
    after = go(p, BLIND)
    check(p, after, current=0, hands={2: ["6", "6", "6", "A", "A"]}, face_down={2: []},
          pile=[], count=0, events=["blind_fail", "pickup"])


# --------------------------------------------------------------------------- R17 stack order


def test_R17_last_face_down_is_turned_first():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_down={0: ["3", "A"]},
            pile=["Q"], count=1)
    after = go(p, BLIND)
    check(p, after, current=1, face_down={0: ["3"]}, pile=["Q", "A"], count=1)

    q = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_down={0: ["A", "3"]},
            pile=["Q"], count=1)
    after = go(q, BLIND)
    check(q, after, current=1, hands={0: ["Q", "3"]}, face_down={0: ["A"]},
          pile=[], count=0, events=["blind_fail", "pickup"])


# --------------------------------------------------------------------------- R18 winning


def test_R18_first_player_with_no_cards_wins():
    p = pos(current=1,
            hands={0: ["4", "4"], 1: ["K"], 2: ["6"]},
            face_down={0: ["3"], 2: ["5"]},
            pile=["9"], count=1)
    after = go(p, play("K"))
    check(p, after, current=2, hands={1: []}, pile=["9", "K"], count=1,
          events=["out", "game_over"], winner=1, out=[1])


def test_R18_out_with_last_face_up_cards():
    p = pos(current=0,
            hands={1: ["4"], 2: ["6"]},
            face_up={0: ["Q", "Q"]},
            pile=["9", "9"], count=2)
    after = go(p, play("Q", "Q"))
    check(p, after, current=1, face_up={0: []}, pile=["9", "9", "Q", "Q"], count=2,
          events=["out", "game_over"], winner=0, out=[0])


def test_R18_last_blind_card_legal_wins():
    p = pos(current=2,
            hands={0: ["4"], 1: ["6"]},
            face_down={2: ["A"]},
            pile=["9"], count=1)
    after = go(p, BLIND)
    check(p, after, current=0, face_down={2: []}, pile=["9", "A"], count=1,
          events=["out", "game_over"], winner=2, out=[2])


def test_R18_last_blind_card_illegal_is_not_out():
    p = pos(current=0,
            hands={1: ["5"], 2: ["6"]},
            face_down={0: ["4"]},
            pile=["9"], count=1)
    after = go(p, BLIND)
    check(p, after, current=1, hands={0: ["9", "4"]}, face_down={0: []},
          pile=[], count=0, events=["blind_fail", "pickup"], winner=None, out=[])
    assert_moves(after, play("5"))


# --------------------------------------------------------------------------- R19 out by burn


def test_R19_going_out_with_a_ten_burn_wins():
    p = pos(current=0,
            hands={0: ["10"], 1: ["4"], 2: ["6"]},
            pile=["5", "9"], count=1)
    after = go(p, play("10"))
    check(p, after, current=1, hands={0: []}, pile=[], count=0,
          burned_add=["5", "9", "10"], events=["burn", "out", "game_over"],
          winner=0, out=[0])
    assert rules.legal_moves(after) == []


def test_R19_going_out_with_four_of_a_kind_wins():
    p = pos(current=2,
            hands={0: ["4"], 1: ["6"]},
            face_up={2: ["8"]},
            pile=["8", "8", "8"], count=1)
    after = go(p, play("8"))
    check(p, after, current=0, face_up={2: []}, pile=[], count=0,
          burned_add=["8", "8", "8", "8"], events=["burn", "out", "game_over"],
          winner=2, out=[2])


def test_R19_V2_out_by_burn_next_player_leads_on_empty_pile():
    p = pos(current=0, ruleset=V2,
            hands={0: ["10"], 1: ["4", "J"], 2: ["6", "Q"]},
            pile=["5", "9"], count=1)
    after = go(p, play("10"))
    check(p, after, current=1, hands={0: []}, pile=[], count=0,
          burned_add=["5", "9", "10"], events=["burn", "out"], winner=None, out=[0])
    assert_moves(after, play("4"), play("J"))


def test_R19_going_out_with_a_joker_reverses_first():
    p = pos(players=6, current=2,
            hands={0: ["3"], 1: ["7", "8", "Q"], 2: ["JK"], 3: ["4"], 4: ["5"], 5: ["6"]},
            pile=["8"], count=1)
    after = go(p, play("JK"))
    check(p, after, current=1, hands={2: []}, pile=["8", "JK"], count=1, direction=-1,
          events=["reverse", "out", "game_over"], winner=2, out=[2])


def test_R19_V2_going_out_with_a_joker_reverses_then_next_player():
    p = pos(players=6, current=2, ruleset=V2,
            hands={0: ["3"], 1: ["7", "8", "Q"], 2: ["JK"], 3: ["4"], 4: ["5"], 5: ["6"]},
            pile=["8"], count=1)
    after = go(p, play("JK"))
    check(p, after, current=1, hands={2: []}, pile=["8", "JK"], count=1, direction=-1,
          events=["reverse", "out"], winner=None, out=[2])
    assert_moves(after, play("8"), play("Q"), PICKUP)     # must match the 8 under the joker


# --------------------------------------------------------------------------- R20 twos


def test_R20_two_on_anything():
    p = pos(current=0, hands={0: ["2", "5"], 1: ["4"], 2: ["6"]}, pile=["A"], count=1)
    assert_moves(p, play("2"), PICKUP)
    after = go(p, play("2"))
    check(p, after, current=1, hands={0: ["5"]}, pile=["A", "2"], count=1)


def test_R20_anything_on_a_two():
    p = pos(current=1, hands={0: ["4"], 1: ["3", "Q", "Q"], 2: ["6"]},
            pile=["K", "2"], count=1)
    assert_moves(p, play("3"), play("Q"), PICKUP)
    after = go(p, play("3"))
    check(p, after, current=2, hands={1: ["Q", "Q"]}, pile=["K", "2", "3"], count=1)


def test_R20_count_applies_to_twos():
    single = pos(current=0, hands={0: ["2", "5", "5"], 1: ["4"], 2: ["6"]},
                 pile=["9", "9"], count=2)
    assert_moves(single, PICKUP)               # one 2 is not two cards; 5s are lower
    refused(single, play("2"))

    p = pos(current=0, hands={0: ["2", "2", "5"], 1: ["3", "3", "K"], 2: ["6"]},
            pile=["9", "9"], count=2)
    assert_moves(p, play("2", "2"), PICKUP)
    after = go(p, play("2", "2"))
    check(p, after, current=1, hands={0: ["5"]}, pile=["9", "9", "2", "2"], count=2)
    assert_moves(after, play("3", "3"), PICKUP)  # any rank on the 2s, but two cards


# --------------------------------------------------------------------------- R21 tens


def test_R21_ten_burns_pile_and_player_leads_again():
    p = pos(current=1, hands={0: ["4"], 1: ["10", "6", "K"], 2: ["7"]},
            pile=["8", "9"], count=1)
    assert_moves(p, play("10"), play("K"), PICKUP)
    after = go(p, play("10"))
    check(p, after, current=1, hands={1: ["6", "K"]}, pile=[], count=0,
          burned_add=["8", "9", "10"], events=["burn"])
    assert_moves(after, play("6"), play("K"))   # leads again: no pick-up


def test_R21_ten_burner_draws_before_leading_again():
    p = pos(current=1, hands={0: ["4", "4", "5"], 1: ["10", "6", "K"], 2: ["7", "7", "3"]},
            stock=["4", "Q"], pile=["8", "9"], count=1)
    after = go(p, play("10"))
    check(p, after, current=1, hands={1: ["6", "K", "Q"]}, stock=["4"], pile=[], count=0,
          burned_add=["8", "9", "10"], events=["burn"])


def test_R21_ten_must_itself_be_equal_or_higher():
    p = pos(current=0, hands={0: ["10", "Q"], 1: ["4"], 2: ["6"]}, pile=["J"], count=1)
    assert_moves(p, play("Q"), PICKUP)          # a 10 on a J is illegal
    refused(p, play("10"))


def test_R21_ten_on_a_two_burns():
    p = pos(current=0, hands={0: ["10", "Q"], 1: ["4"], 2: ["6"]},
            pile=["K", "2"], count=1)
    after = go(p, play("10"))
    check(p, after, current=0, hands={0: ["Q"]}, pile=[], count=0,
          burned_add=["K", "2", "10"], events=["burn"])


def test_R21_count_applies_to_tens():
    p = pos(current=0, hands={0: ["10", "10", "5"], 1: ["4"], 2: ["6"]},
            pile=["7", "7"], count=2)
    assert_moves(p, play("10", "10"), PICKUP)
    refused(p, play("10"))
    after = go(p, play("10", "10"))
    check(p, after, current=0, hands={0: ["5"]}, pile=[], count=0,
          burned_add=["7", "7", "10", "10"], events=["burn"])


def test_R21_ten_lead_burns_itself():
    p = pos(current=2, hands={0: ["4"], 1: ["6"], 2: ["10", "4"]})
    after = go(p, play("10"))
    check(p, after, current=2, hands={2: ["4"]}, pile=[], count=0,
          burned_add=["10"], events=["burn"])


# --------------------------------------------------------------------------- R22 four of a kind


def test_R22_four_of_a_kind_at_once_burns():
    p = pos(current=0, hands={0: ["7", "7", "7", "7", "Q"], 1: ["4"], 2: ["6"]})
    after = go(p, play("7", "7", "7", "7"))
    check(p, after, current=0, hands={0: ["Q"]}, pile=[], count=0,
          burned_add=["7", "7", "7", "7"], events=["burn"])


def test_R22_four_completed_across_plays_burns():
    p = pos(current=2, hands={0: ["4"], 1: ["6"], 2: ["9", "K"]},
            pile=["6", "9", "9", "9"], count=1)
    after = go(p, play("9"))
    check(p, after, current=2, hands={2: ["K"]}, pile=[], count=0,
          burned_add=["6", "9", "9", "9", "9"], events=["burn"])


def test_R22_four_completed_by_a_pair_burns():
    p = pos(current=1, hands={0: ["4"], 1: ["9", "9", "A"], 2: ["6"]},
            pile=["5", "5", "9", "9"], count=2)
    after = go(p, play("9", "9"))
    check(p, after, current=1, hands={1: ["A"]}, pile=[], count=0,
          burned_add=["5", "5", "9", "9", "9", "9"], events=["burn"])


def test_R22_three_on_top_is_not_a_burn():
    p = pos(current=0, hands={0: ["9", "K"], 1: ["4"], 2: ["6"]},
            pile=["4", "9", "9"], count=1)
    after = go(p, play("9"))
    check(p, after, current=1, hands={0: ["K"]}, pile=["4", "9", "9", "9"], count=1)


def test_R22_joker_between_breaks_the_four():
    # 9, 9, joker (reversed), 9 played back; now a fourth 9: the top four are 9 JK 9 9.
    p = pos(players=6, current=3, direction=-1,
            hands={0: ["3"], 1: ["4"], 2: ["5"], 3: ["9", "K"], 4: ["6"], 5: ["7"]},
            pile=["9", "9", "JK", "9"], count=1)
    after = go(p, play("9"))
    check(p, after, current=2, hands={3: ["K"]}, pile=["9", "9", "JK", "9", "9"], count=1,
          direction=-1)


def test_R22_four_twos_burn():
    p = pos(current=0, hands={0: ["2", "5"], 1: ["4"], 2: ["6"]},
            pile=["K", "2", "2", "2"], count=1)
    after = go(p, play("2"))
    check(p, after, current=0, hands={0: ["5"]}, pile=[], count=0,
          burned_add=["K", "2", "2", "2", "2"], events=["burn"])


def test_R22_four_twos_at_once_burn():
    p = pos(current=1, hands={0: ["4"], 1: ["2", "2", "2", "2", "8"], 2: ["6"]})
    after = go(p, play("2", "2", "2", "2"))
    check(p, after, current=1, hands={1: ["8"]}, pile=[], count=0,
          burned_add=["2", "2", "2", "2"], events=["burn"])


# --------------------------------------------------------------------------- R23 jokers

SIX_OTHERS = {0: ["3"], 1: ["7", "8", "Q"], 3: ["4"], 4: ["5"], 5: ["6"]}


def test_R23_joker_reverses_next_must_match_card_under_it():
    p = pos(players=6, current=2, hands={**SIX_OTHERS, 2: ["JK", "4"]},
            pile=["8"], count=1)
    assert_moves(p, play("JK"), PICKUP)
    after = go(p, play("JK"))
    check(p, after, current=1, hands={2: ["4"]}, pile=["8", "JK"], count=1, direction=-1,
          events=["reverse"])
    assert_moves(after, play("8"), play("Q"), PICKUP)     # not the 7
    nxt = go(after, play("8"))
    check(after, nxt, current=0, hands={1: ["7", "Q"]}, pile=["8", "JK", "8"], count=1)


def test_R23_several_jokers_reverse_once():
    p = pos(players=6, current=2,
            hands={0: ["3"], 1: ["4", "4", "6", "6"], 2: ["JK", "JK", "3"],
                   3: ["4"], 4: ["5"], 5: ["7"]},
            pile=["5", "5"], count=2)
    assert_moves(p, play("JK", "JK"), PICKUP)             # one joker is not two cards
    after = go(p, play("JK", "JK"))
    check(p, after, current=1, hands={2: ["3"]}, pile=["5", "5", "JK", "JK"], count=2,
          direction=-1, events=["reverse"])
    assert_moves(after, play("6", "6"), PICKUP)


def test_R23_joker_lead_lets_any_rank_follow():
    p = pos(players=6, current=2,
            hands={0: ["3"], 1: ["3", "A"], 2: ["JK", "K"], 3: ["4"], 4: ["5"], 5: ["6"]})
    assert_moves(p, play("JK"), play("K"))
    after = go(p, play("JK"))
    check(p, after, current=1, hands={2: ["K"]}, pile=["JK"], count=1, direction=-1,
          events=["reverse"])
    assert_moves(after, play("3"), play("A"), PICKUP)


def test_R23_joker_on_joker_looks_through_to_card_below():
    p = pos(players=6, current=0,
            hands={0: ["J", "K", "3"], 1: ["4"], 2: ["5"], 3: ["6"], 4: ["7"], 5: ["8"]},
            pile=["Q", "JK", "JK"], count=1)
    assert_moves(p, play("K"), PICKUP)
    after = go(p, play("K"))
    check(p, after, current=1, hands={0: ["J", "3"]}, pile=["Q", "JK", "JK", "K"], count=1)


def test_R23_jokers_on_empty_pile_let_any_rank_follow():
    p = pos(players=6, current=0,
            hands={0: ["3", "J"], 1: ["4"], 2: ["5"], 3: ["6"], 4: ["7"], 5: ["8"]},
            pile=["JK", "JK"], count=1)
    assert_moves(p, play("3"), play("J"), PICKUP)


def test_R23_joker_may_always_be_played_count_applies():
    p = pos(players=6, current=0,
            hands={0: ["JK", "5"], 1: ["4"], 2: ["5"], 3: ["6"], 4: ["7"], 5: ["8"]},
            pile=["A"], count=1)
    assert_moves(p, play("JK"), PICKUP)

    two = pos(players=6, current=0,
              hands={0: ["JK", "5", "5"], 1: ["4"], 2: ["6"], 3: ["6"], 4: ["7"], 5: ["8"]},
              pile=["A", "A"], count=2)
    assert_moves(two, PICKUP)
    refused(two, play("JK"))


def test_R23_joker_reverses_back_to_clockwise():
    p = pos(players=6, current=3, direction=-1,
            hands={0: ["3"], 1: ["4"], 2: ["5"], 3: ["JK", "9"], 4: ["6"], 5: ["7"]},
            pile=["8"], count=1)
    after = go(p, play("JK"))
    check(p, after, current=4, hands={3: ["9"]}, pile=["8", "JK"], count=1, direction=1,
          events=["reverse"])


def test_R23_pickup_follows_reversed_direction():
    p = pos(players=6, current=0, direction=-1,
            hands={0: ["3"], 1: ["4"], 2: ["5"], 3: ["6"], 4: ["7"], 5: ["8"]},
            pile=["K", "JK"], count=1)
    after = go(p, PICKUP)
    check(p, after, current=5, hands={0: ["3", "K", "JK"]}, pile=[], count=0,
          events=["pickup"])


# --------------------------------------------------------------------------- R24 errors

R24_CASES = {
    "rank_not_held": (
        pos(current=0, hands={0: ["5", "9"], 1: ["4"], 2: ["6"]}), play("K")),
    "more_cards_than_held": (
        pos(current=0, hands={0: ["5", "9"], 1: ["4"], 2: ["6"]}), play("5", "5")),
    "lower_rank": (
        pos(current=0, hands={0: ["5", "9"], 1: ["4"], 2: ["6"]}, pile=["7"], count=1),
        play("5")),
    "wrong_count": (
        pos(current=0, hands={0: ["9", "9"], 1: ["4"], 2: ["6"]}, pile=["7", "7"], count=2),
        play("9")),
    "too_many_for_count": (
        pos(current=0, hands={0: ["9", "9"], 1: ["4"], 2: ["6"]}, pile=["7"], count=1),
        play("9", "9")),
    "face_up_while_hand_not_empty": (
        pos(current=0, hands={0: ["4"], 1: ["5"], 2: ["6"]}, face_up={0: ["K"]},
            pile=["9"], count=1),
        play("K")),
    "add_while_hand_not_empty": (
        pos(current=0, hands={0: ["4"], 1: ["5"], 2: ["6"]}, face_up={0: ["K"]},
            pile=["9"], count=1),
        add("K")),
    "leader_picks_up": (
        pos(current=0, hands={0: ["4"], 1: ["5"], 2: ["6"]}), PICKUP),
    "blind_while_holding_hand": (
        pos(current=0, hands={0: ["4"], 1: ["5"], 2: ["6"]}, face_down={0: ["K"]},
            pile=["9"], count=1),
        BLIND),
    "blind_while_holding_face_up": (
        pos(current=0, hands={1: ["5"], 2: ["6"]}, face_up={0: ["A"]}, face_down={0: ["K"]},
            pile=["9"], count=1),
        BLIND),
    "play_face_down_card_by_name": (
        pos(current=0, hands={1: ["5"], 2: ["6"]}, face_down={0: ["K"]},
            pile=["9"], count=1),
        play("K")),
    "pickup_with_only_face_downs": (
        pos(current=0, hands={1: ["5"], 2: ["6"]}, face_down={0: ["K"]},
            pile=["9"], count=1),
        PICKUP),
    "add_card_not_face_up": (
        pos(current=0, hands={1: ["5"], 2: ["6"]}, face_up={0: ["4"]},
            pile=["9"], count=1),
        add("A")),
    "ten_on_jack": (
        pos(current=0, hands={0: ["10"], 1: ["5"], 2: ["6"]}, pile=["J"], count=1),
        play("10")),
}


@pytest.mark.parametrize("case", sorted(R24_CASES))
def test_R24_illegal_moves_raise_and_never_change_input(case):
    position, move = R24_CASES[case]
    assert move_key(move) not in {move_key(m) for m in rules.legal_moves(position)}
    refused(position, move)


# --------------------------------------------------------------------------- R25 end


def test_R25_first_out_ends_the_game_winner_and_no_more_moves():
    p = pos(players=4, current=1,
            hands={0: ["4", "4"], 1: ["K"], 2: ["6"], 3: ["A", "2"]},
            face_down={0: ["3"], 2: ["5"]},
            pile=["9"], count=1)
    after = go(p, play("K"))
    check(p, after, current=2, hands={1: []}, pile=["9", "K"], count=1,
          events=["out", "game_over"], winner=1, out=[1])
    assert rules.legal_moves(after) == []
    for move in (PICKUP, play("6"), play("A"), BLIND, add("6")):
        refused(after, move)


def test_R25_winner_is_null_while_game_goes_on():
    p = pos(current=0, hands={0: ["5", "9"], 1: ["4"], 2: ["6"]})
    after = go(p, play("5"))
    assert after["winner"] is None
    assert after["events"] == []


def test_R25_game_over_position_as_input_has_no_moves():
    p = pos(current=2,
            hands={0: ["4", "4"], 2: ["6", "2"]},
            pile=["9", "K"], count=1, out=[1])
    rules.validate(p)
    assert rules.legal_moves(p) == []
    for move in (PICKUP, play("6"), play("2"), BLIND):
        refused(p, move)


# --------------------------------------------------------------------------- V1 choose face-ups


def test_V1_ruleset_accepted_and_first_player_reads_chosen_face_ups():
    p = dealt(3,
              hands=[["3", "9", "Q"], ["4", "5", "K"], ["6", "8", "J"]],
              face_up=[["5", "8", "K"], ["9", "3", "Q"], ["4", "7", "A"]],
              ruleset=V1)
    rules.validate(p)
    assert rules.first_player(p) == 1          # chosen face-up 3 beats the 3 in seat 0's hand


def test_V1_positions_play_by_seed_rules():
    p = pos(current=0, ruleset=V1, hands={0: ["5", "9"], 1: ["4"], 2: ["6"]},
            pile=["7"], count=1)
    assert_moves(p, play("9"), PICKUP)
    after = go(p, play("9"))
    assert after["ruleset"] == V1
    check(p, after, current=1, hands={0: ["5"]}, pile=["7", "9"], count=1)


# --------------------------------------------------------------------------- V2 play to the last


def test_V2_out_seats_are_skipped():
    p = pos(players=4, current=0, ruleset=V2,
            hands={0: ["9", "K"], 2: ["4"], 3: ["6"]},
            pile=["5"], count=1, out=[1])
    after = go(p, play("9"))
    check(p, after, current=2, hands={0: ["K"]}, pile=["5", "9"], count=1)

    q = pos(players=4, current=3, ruleset=V2,
            hands={1: ["9", "K"], 2: ["4"], 3: ["6"]},
            pile=["A"], count=1, out=[0])
    after = go(q, PICKUP)
    check(q, after, current=1, hands={3: ["6", "A"]}, pile=[], count=0, events=["pickup"])


def test_V2_out_seats_are_skipped_counterclockwise():
    p = pos(players=6, current=2, ruleset=V2,
            hands={0: ["3"], 2: ["JK", "9"], 3: ["4"], 4: ["5"], 5: ["6"]},
            pile=["8"], count=1, out=[1])
    after = go(p, play("JK"))
    check(p, after, current=0, hands={2: ["9"]}, pile=["8", "JK"], count=1, direction=-1,
          events=["reverse"])


def test_V2_going_out_does_not_end_the_game_while_two_hold_cards():
    p = pos(players=4, current=1, ruleset=V2,
            hands={0: ["4"], 1: ["K"], 2: ["6"], 3: ["7"]},
            pile=["9"], count=1)
    after = go(p, play("K"))
    check(p, after, current=2, hands={1: []}, pile=["9", "K"], count=1,
          events=["out"], winner=None, out=[1])
    assert_moves(after, PICKUP)                 # the 6 is lower than the K


def test_V2_game_ends_when_one_seat_holds_cards_winner_is_first_out():
    p = pos(current=1, ruleset=V2,
            hands={1: ["K"], 2: ["4", "5"]},
            pile=["9"], count=1, out=[0])
    after = go(p, play("K"))
    check(p, after, current=2, hands={1: []}, pile=["9", "K"], count=1,
          events=["out", "game_over"], winner=0, out=[0, 1])
    assert rules.legal_moves(after) == []
    refused(after, PICKUP)


def test_V2_last_out_by_burn_ends_game_current_skips_out_seats():
    p = pos(current=0, ruleset=V2,
            hands={0: ["10"], 1: ["4", "5"]},
            pile=["6", "8"], count=1, out=[2])
    after = go(p, play("10"))
    check(p, after, current=1, hands={0: []}, pile=[], count=0,
          burned_add=["6", "8", "10"], events=["burn", "out", "game_over"],
          winner=2, out=[2, 0])
    assert rules.legal_moves(after) == []
