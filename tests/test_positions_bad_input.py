"""Bad input to the single-position rules API (``sim.kernel.position``), from ../shared/POSITION.md.

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
