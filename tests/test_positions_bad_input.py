"""Bad input to the single-position rules API (``sim.kernel.position``), from docs/position.md.

An invalid position (R1 player count, card conservation, count, direction, unknown keys or
ruleset options, out seats) or a malformed move is refused with a ``ValueError`` that says
what is wrong, by ``validate``, ``legal_moves``, ``apply`` and ``first_player`` alike; the
input is never changed. Message checks are deliberately loose: a case-insensitive
alternation of words any helpful message would contain.
"""

import collections
import copy

import pytest

from sim.kernel import position as rules
from tests.positions import ORDER, RANKS
from tests.positions import pos as _pos

V2 = {"base": "seed", "last_player_loses": True}


def pos(**kw):
    """A position that may be invalid: the fixture checks are off."""
    return _pos(strict=False, **kw)


def base():
    """Valid: seat 0 to move, holding 7 7 9, on a 5 (count 1)."""
    return pos(hands={0: ["7", "7", "9"], 1: ["4", "K"], 2: ["6"]},
               face_down={0: ["3"], 1: ["3"], 2: ["3"]}, pile=["5"], count=1)


def test_base_fixture_is_valid():
    p = base()
    rules.validate(p)
    assert rules.legal_moves(p)


# --------------------------------------------------------------------------- invalid positions


def _with(p, **changes):
    p = copy.deepcopy(p)
    p.update(changes)
    return p


def _missing_card():
    p = base()
    p["burned"].remove("Q")
    return p


def _extra_card():
    p = base()
    p["burned"].append("K")
    return p


def _unknown_card():
    p = base()
    p["hands"][0][2] = "11"            # the 9 becomes an unknown card
    p["burned"].append("9")            # ... and the 9 stays conserved
    return p


def _hands_too_short():
    p = base()
    p["hands"] = p["hands"][:2]
    return p


CONSERVE = r"(?i)conserv|deck|missing|too (many|few)|expected|appear|times|copies|R1\b"

INVALID = {
    "players_1": (
        pos(players=1, hands={0: ["7"]}), r"(?i)players|R1\b"),
    "players_7": (
        pos(players=7, hands={s: [RANKS[s + 1]] for s in range(7)}), r"(?i)players|R1\b"),
    "card_missing": (_missing_card(), CONSERVE + r"|\bQ\b"),
    "card_extra": (_extra_card(), CONSERVE + r"|\bK\b"),
    "unknown_card_name": (_unknown_card(), r"(?i)unknown|invalid|card|rank|\b11\b"),
    "joker_with_4_players": (
        pos(players=4, hands={0: ["7"], 1: ["8"], 2: ["9"], 3: ["J"]}, jokers=True),
        CONSERVE + r"|joker|JK"),
    "no_jokers_with_6_players": (
        pos(players=6, hands={s: [RANKS[s + 1]] for s in range(6)}, jokers=False),
        CONSERVE + r"|joker|JK"),
    "count_0_with_pile": (_with(base(), count=0), r"(?i)count|pile"),
    "count_bigger_than_pile": (_with(base(), count=2), r"(?i)count|pile"),
    "count_with_empty_pile": (
        pos(hands={0: ["7", "5"], 1: ["4"], 2: ["6"]}, count=1), r"(?i)count|pile"),
    "count_5": (
        pos(hands={0: ["7"], 1: ["4"], 2: ["6"]}, pile=["3", "3", "3", "3", "5"], count=5),
        r"(?i)count"),
    "direction_2": (_with(base(), direction=2), r"(?i)direction"),
    "direction_0": (_with(base(), direction=0), r"(?i)direction"),
    "current_out_of_range": (_with(base(), current=3), r"(?i)current|seat|range"),
    "hands_list_too_short": (_hands_too_short(), r"(?i)hands|seat|players|length"),
    "unknown_key": (_with(base(), foo=1), r"(?i)unknown|key|foo"),
    "unknown_ruleset_option": (
        _with(base(), ruleset={"base": "seed", "bogus_option": True}),
        r"(?i)option|unknown|bogus|ruleset"),
    "ruleset_without_base": (
        _with(base(), ruleset={"last_player_loses": True}), r"(?i)base|ruleset"),
    "unknown_ruleset_name": (_with(base(), ruleset="nope"), r"(?i)ruleset|unknown|nope"),
    "out_seat_holds_cards": (
        pos(hands={0: ["7"], 1: ["K"], 2: ["6"]}, out=[1], current=2),
        r"(?i)\bout\b|seat|card"),
    "seat_without_cards_not_out": (
        pos(hands={0: ["7"], 2: ["6"]}, pile=["5"], count=1),
        r"(?i)\bout\b|seat|card|empty"),
    "seat_to_move_holds_no_cards": (
        pos(ruleset=V2, hands={0: ["7"], 2: ["6"]}, pile=["5"], count=1, out=[1], current=1),
        r"(?i)current|seat|move|\bout\b|card"),
    "two_out_under_seed": (
        pos(hands={2: ["6"]}, out=[0, 1], current=2),
        r"(?i)\bout\b|seed|seat|R25|V2"),
    "all_out_under_V2": (
        pos(ruleset=V2, out=[0, 1, 2], current=0),
        r"(?i)\bout\b|seat|V2|last"),
}


# Every answer of the API refuses an invalid position the same way.
CALLS = {
    "validate": rules.validate,
    "legal_moves": rules.legal_moves,
    "first_player": rules.first_player,
    "apply_pickup": lambda p: rules.apply(p, {"pickup": True}),
    "apply_play": lambda p: rules.apply(p, {"play": ["7"]}),
    "apply_blind": lambda p: rules.apply(p, {"blind": True}),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_position_refused(case, call):
    position, message = INVALID[case]
    before = copy.deepcopy(position)
    with pytest.raises(ValueError, match=message):
        CALLS[call](position)
    assert position == before


# --------------------------------------------------------------------------- malformed moves

SHAPE = r"(?i)move|malformed|key|invalid|unknown|expected|exactly one"

MALFORMED = {
    "extra_key": ({"play": ["7"], "extra": 1}, SHAPE + r"|extra"),
    "play_and_pickup": ({"play": ["7"], "pickup": True}, SHAPE + r"|play|pickup"),
    "blind_and_pickup": ({"blind": True, "pickup": True}, SHAPE + r"|blind|pickup"),
    "blind_false": ({"blind": False}, SHAPE + r"|blind|true"),
    "pickup_false": ({"pickup": False}, SHAPE + r"|pickup|true"),
    "add_null": ({"pickup": True, "add": None}, SHAPE + r"|add|null|none"),
    "add_list": ({"pickup": True, "add": ["9"]}, SHAPE + r"|add|card|one"),
    "add_without_pickup": ({"add": "9"}, SHAPE + r"|add|pickup"),
    "empty_play": ({"play": []}, SHAPE + r"|empty|play|card"),
    "play_null": ({"play": None}, SHAPE + r"|play|card|list"),
    "unknown_card_1": ({"play": ["1"]}, r"(?i)unknown|invalid|card|rank|\b1\b"),
    "unknown_card_Z": ({"play": ["Z"]}, r"(?i)unknown|invalid|card|rank|\bZ\b"),
    "unknown_card_lowercase": ({"play": ["k"]}, r"(?i)unknown|invalid|card|rank|\bk\b"),
    "mixed_ranks": ({"play": ["7", "9"]}, r"(?i)rank|same|mixed|one|R7|R9"),
    "empty_move": ({}, SHAPE + r"|empty|one of"),
    "not_an_object": (None, SHAPE),
    "a_list_of_moves": ([{"pickup": True}], SHAPE),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_move_refused(case):
    move, message = MALFORMED[case]
    position = base()
    p_before, m_before = copy.deepcopy(position), copy.deepcopy(move)
    with pytest.raises(ValueError, match=message):
        rules.apply(position, move)
    assert position == p_before
    assert move == m_before


def test_malformed_moves_refused_for_a_face_up_player_too():
    # Seat 0 plays from face-ups (hand empty): "add" is meaningful here, but still malformed.
    p = pos(hands={1: ["4"], 2: ["6"]}, face_up={0: ["9", "3"]}, pile=["5"], count=1)
    rules.validate(p)
    for move in ({"pickup": True, "add": None}, {"pickup": True, "add": ["9"]},
                 {"pickup": True, "add": "9", "play": ["9"]}, {"play": []},
                 {"play": ["9", "3"]}):
        before = copy.deepcopy(p)
        with pytest.raises(ValueError):
            rules.apply(p, move)
        assert p == before


def test_malformed_blind_refused_for_a_blind_only_player():
    # Seat 0 holds only face-down cards: {"blind": true} is its one legal move.
    p = pos(hands={1: ["4"], 2: ["6"]}, face_down={0: ["9", "3"]}, pile=["5"], count=1)
    assert rules.legal_moves(p) == [{"blind": True}]
    for move in ({"blind": False}, {"blind": True, "extra": 1}, {"blind": None},
                 {"blind": True, "pickup": True}):
        before = copy.deepcopy(p)
        with pytest.raises(ValueError, match=SHAPE + r"|blind"):
            rules.apply(p, move)
        assert p == before


def test_two_kinds_of_move_at_once_refused_even_when_each_is_legal():
    p = base()
    assert {"pickup": True} in rules.legal_moves(p)
    with pytest.raises(ValueError):
        rules.apply(p, {"play": ["7"], "pickup": True})
    with pytest.raises(ValueError):
        rules.apply(p, {"play": ["9"], "pickup": True, "add": "9"})


# --------------------------------------------------------------------------- events / winner keys


def _canon(p):
    """Multisets sorted so that two positions compare independently of hand order."""
    q = copy.deepcopy(p)
    for key in ("hands", "face_up"):
        q[key] = [sorted(cards) for cards in q[key]]
    q["burned"] = sorted(q["burned"])
    return q


@pytest.mark.parametrize("junk", [
    {"events": ["burn", "out", "game_over"], "winner": 2},
    {"events": [], "winner": None},
    {"events": ["pickup"]},
    {"winner": 0},
])
def test_events_and_winner_keys_on_input_are_accepted_and_ignored(junk):
    plain = base()
    p = dict(base(), **junk)
    before = copy.deepcopy(p)
    rules.validate(p)
    assert sorted(map(repr, rules.legal_moves(p))) == \
        sorted(map(repr, rules.legal_moves(plain)))
    after = rules.apply(p, {"play": ["9"]})
    assert p == before
    assert _canon(after) == _canon(rules.apply(plain, {"play": ["9"]}))
    assert after["events"] == []
    assert after["winner"] is None


# --------------------------------------------------------------------------- first_player


def _dealt():
    """A 3-player position as dealt: nothing played, nothing burned."""
    deck = sorted((collections.Counter({r: 4 for r in RANKS})).elements(), key=ORDER.get)
    p = {"ruleset": "seed", "players": 3, "current": 0, "direction": 1,
         "hands": [], "face_up": [], "face_down": [], "stock": [], "pile": [], "count": 0,
         "burned": [], "out": []}
    for key in ("face_down", "face_up", "hands"):
        p[key] = [[deck.pop() for _ in range(3)] for _ in range(3)]
    p["stock"] = deck
    return p


def test_first_player_accepts_a_dealt_position():
    p = _dealt()
    rules.validate(p)
    assert rules.first_player(p) in (0, 1, 2)


def _played_one():
    p = _dealt()
    p["pile"] = [p["hands"][0].pop()]
    p["count"] = 1
    return p


def _burned_one():
    p = _dealt()
    p["burned"] = [p["stock"].pop()]
    return p


def _someone_out():
    p = _dealt()
    p["burned"] = p["face_down"][1] + p["face_up"][1] + p["hands"][1]
    p["face_down"][1], p["face_up"][1], p["hands"][1] = [], [], []
    p["out"] = [1]
    p["current"] = 2
    return p


@pytest.mark.parametrize("make", [_played_one, _burned_one, _someone_out],
                         ids=["pile_not_empty", "cards_burned", "seat_out"])
def test_first_player_refuses_a_position_after_play(make):
    p = make()
    rules.validate(p)                     # a valid position, just not one before any play
    before = copy.deepcopy(p)
    with pytest.raises(ValueError, match=r"(?i)pile|burn|\bout\b|deal|before|start|play|R6"):
        rules.first_player(p)
    assert p == before


# ------------------------------------------------------------------ why a move is illegal (R24)
def _others():
    return {1: ["4", "K"], 2: ["6"]}


_FD = {0: ["3"], 1: ["3"], 2: ["3"]}
_NEVER = {"base": "seed", "voluntary_pickup": "never"}


@pytest.mark.parametrize("position,move,words", [
    # R14: a blind turn while cards are in hand
    (dict(hands={0: ["7"], **_others()}, face_down=_FD, pile=["5"], count=1),
     {"blind": True}, "seat 0 still holds cards in hand or face up: no blind turn yet (R14)"),
    # R14, R16: only face-down cards left, a play asked
    (dict(hands=_others(), face_down={0: ["3", "9"], 1: ["3"], 2: ["3"]}, pile=["5"], count=1),
     {"pickup": True, "add": "9"}, "only face-down cards: the only move is a blind turn"),
    # R7, R10: a leader with only face-down cards picks up
    (dict(hands=_others(), face_down={0: ["3", "9"], 1: ["3"], 2: ["3"]}),
     {"pickup": True}, "seat 0 leads: a leader must play, here blind (R7, R10, H8)"),
    # R7, R10: the leader may not pick up (an empty pile)
    (dict(hands={0: ["7"], **_others()}, face_down=_FD), {"pickup": True},
     "seat 0 leads (an empty pile, or a cover to cover, H8): a leader must play, not pick up "
     "(R7, R10)"),
    # H10 never: a pick-up while a play is legal
    (dict(hands={0: ["7"], **_others()}, face_down=_FD, pile=["5"], count=1,
          ruleset=_NEVER), {"pickup": True}, "(H10 voluntary_pickup=never)"),
    # R12: adding a face-up card while the hand still holds cards
    (dict(hands={0: ["4"], **_others()}, face_up={0: ["K"]}, face_down=_FD, pile=["9"],
          count=1), {"pickup": True, "add": "K"}, "only when playing from the table (R12)"),
    # H11 pile_only: no face-up card goes along
    (dict(hands=_others(), face_up={0: ["4", "K"]}, face_down=_FD, pile=["9"], count=1,
          ruleset={"base": "seed", "faceup_pickup": "pile_only"}),
     {"pickup": True, "add": "K"}, "(H11 faceup_pickup=pile_only)"),
    # R12, H11: a face-up rank not held
    (dict(hands=_others(), face_up={0: ["4"]}, face_down=_FD, pile=["9"], count=1),
     {"pickup": True, "add": "K"}, "seat 0 has no face-up K to add (R12, H11)"),
    # H11 must_add_rank: a plain pick-up at the face-ups
    (dict(hands=_others(), face_up={0: ["4"]}, face_down=_FD, pile=["9"], count=1,
          ruleset={"base": "seed", "faceup_pickup": "must_add_rank"}),
     {"pickup": True}, "must name a face-up rank, all of which go along (H11"),
    # R24, R13: a face-up card while the hand holds cards
    (dict(hands={0: ["4"], **_others()}, face_up={0: ["K"]}, face_down=_FD, pile=["9"],
          count=1), {"play": ["K"]},
     "seat 0 does not hold any K in its hand (R24); face-up cards wait until the hand is "
     "empty (R13)"),
    # R24: more cards than held
    (dict(hands={0: ["7", "9"], **_others()}, face_down=_FD, pile=["5"], count=1),
     {"play": ["7", "7"]}, "seat 0 does not hold 2 x 7, only 1 in its hand (R24)"),
    # R9: the count rule
    (dict(hands={0: ["7", "7", "9"], **_others()}, face_down=_FD, pile=["5"], count=1),
     {"play": ["7", "7"]}, "this pile was led with 1 card: every play on it must have "
     "exactly 1, not 2 x 7 (R9)"),
    # H4: on a 7 only lower
    (dict(hands={0: ["9"], **_others()}, face_down=_FD, pile=["7"], count=1,
          ruleset={"base": "seed", "seven_lower": True}),
     {"play": ["9"]}, "on a 7 only 3, 4, 5, 6, 7, 2s, jokers or the transparent rank may "
     "follow (H4 seven_lower), not 9"),
    # R9, H0: lower than the top
    (dict(hands={0: ["4"], **_others()}, face_down=_FD, pile=["9"], count=1),
     {"play": ["4"]}, "4 cannot go on 9: a play must be the same as or higher than the "
     "effective top of the pile (R9, H0)"),
])
def test_every_reason_a_move_is_illegal_is_said_with_its_rule(position, move, words):
    """R24: each wording of sim.kernel.position.why_illegal, for a move the kernel refuses,
    names the cards and the rule; `you` addresses the mover."""
    p = pos(**position)
    rules.validate(p)
    assert move not in rules.legal_moves(p)
    st = rules.to_state(p)
    from sim.kernel.ruleset import Ruleset
    why = rules.why_illegal(st, rules.move_to_id(move), Ruleset.parse(p["ruleset"]))
    assert words in why, why
    you = rules.why_illegal(st, rules.move_to_id(move), Ruleset.parse(p["ruleset"]), you=True)
    assert "seat 0" not in you and ("seat 0" not in why or "you" in you), you
