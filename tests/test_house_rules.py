"""Scenario tests of the house-rule options and presets (docs/rules.md §11, docs/position.md "Rulesets
and options"), through the single-position API that calls the jitted kernel.

Every test is named after the option it checks (H1 ... H17) or the §11 interaction it
decides. Positions are hand-written; ``hpos`` puts every unused card of the ruleset's deck
into ``burned``.
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.kernel import position as rules
from sim.kernel.ruleset import PRESETS, Ruleset
from sim.runs.runner import RunConfig, play_batch, record_game
from tests.positions import pos

PICKUP = {"pickup": True}
BLIND = {"blind": True}


def R(**options):
    """``seed`` with options changed (a docs/position.md ruleset object)."""
    return {"base": "seed", **options}


def hpos(ruleset="seed", players=3, **kw):
    """A position under ``ruleset``, its deck's jokers per H13."""
    rs = Ruleset.parse(ruleset)
    return pos(players=players, ruleset=ruleset, jokers=bool(rs.jokers_for(players)), **kw)


def play(*cards):
    return {"play": list(cards)}


def add(card):
    return {"pickup": True, "add": card}


def legal(p):
    return rules.legal_moves(p)


# -- H1 count rule ---------------------------------------------------------------------------
def test_H1_count_rule_off_any_number_of_a_legal_rank():
    kw = dict(hands=[["7", "7", "9"], ["4"], ["5"]], pile=["5"], count=1)
    assert play("7", "7") not in legal(hpos(**kw))                           # R9
    moves = legal(hpos(R(count_rule=False), **kw))
    assert play("7", "7") in moves and play("7") in moves and play("9") in moves


def test_H1_count_rule_off_the_lead_still_sets_the_count():
    p = hpos(R(count_rule=False), hands=[["9", "9", "4"], ["4"], ["5"]])
    after = rules.apply(p, play("9", "9"))
    assert after["count"] == 2 and after["current"] == 1
    assert play("K") not in legal(after) and after["pile"] == ["9", "9"]


def test_H1_count_rule_off_blind_turns_exactly_one_card():
    kw = dict(hands=[[], ["4"], ["5"]], face_down=[["8", "8"], ["3"], ["3"]], pile=["5", "5"],
              count=2)
    after = rules.apply(hpos(R(count_rule=False), **kw), BLIND)
    assert after["pile"] == ["5", "5", "8"] and after["face_down"][0] == ["8"]
    seed = rules.apply(hpos(**kw), BLIND)                                  # R14: the count
    assert seed["pile"] == ["5", "5", "8", "8"] and seed["face_down"][0] == []


# -- H2 ten on anything ----------------------------------------------------------------------
def test_H2_ten_follows_on_anything_and_burns():
    kw = dict(hands=[["10", "4"], ["4"], ["5"]], pile=["K"], count=1)
    assert play("10") not in legal(hpos(**kw))                               # R21: by R9
    after = rules.apply(hpos(R(ten_anywhere=True), **kw), play("10"))
    assert after["events"] == ["burn"] and after["pile"] == [] and after["current"] == 0


def test_H2_ten_not_on_a_seven_under_H4():
    kw = dict(hands=[["10", "4"], ["4"], ["5"]], pile=["7"], count=1)
    assert play("10") not in legal(hpos(R(ten_anywhere=True, seven_lower=True), **kw))
    assert play("10") in legal(hpos(R(ten_anywhere=True), **kw))


# -- H3 four of a kind -----------------------------------------------------------------------
def test_H3_four_burns_off_leaves_the_four_on_the_pile():
    kw = dict(hands=[["9", "4"], ["4"], ["5"]], pile=["9", "9", "9"], count=1)
    assert rules.apply(hpos(**kw), play("9"))["events"] == ["burn"]          # R22
    after = rules.apply(hpos(R(four_burns=False), **kw), play("9"))
    assert after["events"] == [] and after["pile"] == ["9"] * 4 and after["current"] == 1


# -- H4 seven-lower --------------------------------------------------------------------------
def test_H4_seven_lower_only_low_cards_wild_cards_on_a_seven():
    kw = dict(hands=[["5", "8", "2", "7"], ["4"], ["5"]], pile=["7"], count=1)
    moves = legal(hpos(R(seven_lower=True), **kw))
    assert play("5") in moves and play("2") in moves and play("7") in moves
    assert play("8") not in moves and PICKUP in moves
    assert play("5") not in legal(hpos(**kw))


def test_H4_seven_lower_ends_with_any_other_card():
    p = hpos(R(seven_lower=True), hands=[["5", "K"], ["4", "6", "J"], ["5"]], pile=["7"],
             count=1)
    after = rules.apply(p, play("5"))
    assert after["current"] == 1
    moves = legal(after)
    assert play("6") in moves and play("J") in moves and play("4") not in moves


# -- H5 transparent rank ---------------------------------------------------------------------
def test_H5_transparent_is_always_legal_and_never_the_top():
    kw = dict(hands=[["Q", "A", "3"], ["4"], ["5"]], pile=["K", "3"], count=1)
    moves = legal(hpos(R(transparent_rank="3"), **kw))
    assert play("A") in moves and play("3") in moves and play("Q") not in moves


def test_H5_transparent_lead_leaves_the_top_open():
    p = hpos(R(transparent_rank="3"), current=1, hands=[["5"], ["4", "9"], ["5"]], pile=["3"],
             count=1)
    assert play("4") in legal(p) and play("9") in legal(p)


def test_H5_transparent_on_a_seven_under_H4_keeps_the_seven():
    p = hpos(R(transparent_rank="3", seven_lower=True),
             hands=[["8", "5", "3"], ["4"], ["6"]], pile=["7", "3"], count=1)
    moves = legal(p)
    assert play("5") in moves and play("3") in moves and play("8") not in moves


def test_H5_four_transparent_cards_burn_physically():
    p = hpos(R(transparent_rank="3"), hands=[["3", "9"], ["4"], ["5"]],
             pile=["K", "3", "3", "3"], count=1)
    assert rules.apply(p, play("3"))["events"] == ["burn"]


def test_H5_a_transparent_card_between_equal_cards_breaks_four_of_a_kind():
    p = hpos(R(transparent_rank="3"), hands=[["9", "5"], ["4"], ["6"]],
             pile=["9", "9", "3", "9"], count=1)
    after = rules.apply(p, play("9"))
    assert "burn" not in after["events"] and after["pile"][-1] == "9"


# -- H6 skip ---------------------------------------------------------------------------------
def test_H6_skip_passes_over_the_next_seat():
    p = hpos(R(skip_rank="8"), players=4, hands=[["8", "4"], ["5"], ["6"], ["7"]])
    after = rules.apply(p, play("8"))
    assert after["events"] == ["skip"] and after["current"] == 2


def test_H6_skip_per_card_skips_one_seat_a_card():
    p = hpos(R(skip_rank="8", skip_per_card=True), players=4,
             hands=[["8", "8", "4"], ["5"], ["6"], ["7"]])
    after = rules.apply(p, play("8", "8"))
    assert after["events"] == ["skip"] and after["current"] == 3
    once = rules.apply(hpos(R(skip_rank="8"), players=4,
                            hands=[["8", "8", "4"], ["5"], ["6"], ["7"]]), play("8", "8"))
    assert once["current"] == 2


def test_H6_skip_with_two_seats_left_returns_to_the_mover_same_count():
    p = hpos(R(skip_rank="8"), players=2, hands=[["8", "4"], ["5"]])
    after = rules.apply(p, play("8"))
    assert after["current"] == 0 and after["count"] == 1 and after["events"] == ["skip"]
    assert play("4") not in legal(after) and PICKUP in legal(after)          # follows its own 8


def test_H6_skip_counts_only_seats_holding_cards_V2():
    p = hpos(R(skip_rank="8", last_player_loses=True), players=4,
             hands=[["8", "4"], [], ["6"], ["7"]], out=[1])
    after = rules.apply(p, play("8"))
    assert after["current"] == 3                     # seat 2 skipped, seat 1 is out


def test_H6_a_mover_who_goes_out_on_a_skip_never_counts():
    p = hpos(R(skip_rank="8", last_player_loses=True), players=3, hands=[["8"], ["5"], ["6"]])
    after = rules.apply(p, play("8"))
    assert after["events"] == ["skip", "out"] and after["current"] == 2


# -- H7 reverse ------------------------------------------------------------------------------
def test_H7_reverse_rank_flips_the_direction():
    p = hpos(R(reverse_rank="K"), players=4, hands=[["K", "4"], ["5"], ["6"], ["7"]])
    after = rules.apply(p, play("K"))
    assert after["events"] == ["reverse"] and after["direction"] == -1 and after["current"] == 3
    assert after["pile"] == ["K"] and play("5") not in legal(after)          # itself the top


def test_H7_reverse_per_card_flips_once_a_card_event_once():
    kw = dict(players=4, hands=[["K", "K", "4"], ["5"], ["6"], ["7"]])
    after = rules.apply(hpos(R(reverse_rank="K", reverse_per_card=True), **kw), play("K", "K"))
    assert after["events"] == ["reverse"] and after["direction"] == 1 and after["current"] == 1
    once = rules.apply(hpos(R(reverse_rank="K"), **kw), play("K", "K"))
    assert once["direction"] == -1 and once["current"] == 3


def test_H7_going_out_on_a_reverse_flips_then_finds_the_next_seat():
    p = hpos(R(reverse_rank="K"), players=3, hands=[["K"], ["5"], ["6"]])
    after = rules.apply(p, play("K"))
    assert after["events"] == ["reverse", "out", "game_over"]
    assert after["winner"] == 0 and after["current"] == 2 and after["direction"] == -1


# -- H8 cover --------------------------------------------------------------------------------
def test_H8_cover_the_mover_leads_again_without_a_pick_up():
    p = hpos(R(cover_rank="Q"), hands=[["Q", "5", "9"], ["4"], ["6"]])
    after = rules.apply(p, play("Q"))
    assert after["current"] == 0 and after["count"] == 0 and after["pile"] == ["Q"]
    moves = legal(after)
    assert PICKUP not in moves and play("5") in moves and play("9") in moves
    covered = rules.apply(after, play("5"))
    assert covered["current"] == 1 and covered["count"] == 1
    assert play("4") not in legal(covered) and PICKUP in legal(covered)     # the 5 is the top


def test_H8_a_cover_of_the_cover_rank_must_be_covered_again():
    p = hpos(R(cover_rank="Q", count_rule=False), hands=[["Q", "Q", "5"], ["4"], ["6"]])
    a = rules.apply(p, play("Q"))
    b = rules.apply(a, play("Q"))
    assert b["current"] == 0 and b["count"] == 0


def test_H8_covering_by_going_out_leaves_it_uncovered():
    p = hpos(R(cover_rank="Q", last_player_loses=True), hands=[["Q"], ["4", "K"], ["6"]])
    after = rules.apply(p, play("Q"))
    assert after["events"] == ["out"] and after["current"] == 1 and after["count"] == 1
    assert legal(after) == [play("K"), PICKUP]                    # follows on the queen


def test_H8_a_cover_with_only_blind_cards_is_a_blind_lead():
    p = hpos(R(cover_rank="Q"), hands=[[], ["4"], ["6"]], face_down=[["3", "Q"], ["5"], ["5"]],
             pile=["9"], count=1)
    after = rules.apply(p, BLIND)                                 # the Q: legal on a 9
    assert after["current"] == 0 and after["count"] == 0 and legal(after) == [BLIND]
    lead = rules.apply(after, BLIND)                              # a 3 on the queen: a lead
    assert lead["pile"] == ["9", "Q", "3"] and lead["count"] == 1 and lead["current"] == 1


def test_H8_count_zero_on_a_pile_only_under_a_cover():
    bad = hpos(R(cover_rank="Q"), hands=[["5"], ["4"], ["6"]], pile=["9"], count=0,
               strict=False)
    with pytest.raises(ValueError, match="count"):
        rules.validate(bad)
    rules.validate(hpos(R(cover_rank="Q"), hands=[["5"], ["4"], ["6"]], pile=["Q"], count=0,
                        strict=False))


# -- H9 play again after a burn ----------------------------------------------------------------
def test_H9_after_a_burn_the_next_seat_leads():
    kw = dict(hands=[["10", "4"], ["5"], ["6"]], pile=["9"], count=1)
    assert rules.apply(hpos(**kw), play("10"))["current"] == 0              # R21
    after = rules.apply(hpos(R(burn_plays_again=False), **kw), play("10"))
    assert after["events"] == ["burn"] and after["current"] == 1 and after["count"] == 0


# -- H10 voluntary pick-up -------------------------------------------------------------------
def test_H10_always_a_blind_player_may_pick_up():
    kw = dict(hands=[[], ["4"], ["6"]], face_down=[["3"], ["5"], ["5"]], pile=["9"], count=1)
    assert legal(hpos(**kw)) == [BLIND]                                      # R16
    assert sorted(map(str, legal(hpos(R(voluntary_pickup="always"), **kw)))) == sorted(
        map(str, [BLIND, PICKUP]))


def test_H10_never_no_pick_up_while_a_play_is_legal():
    kw = dict(hands=[["9", "3"], ["4"], ["6"]], pile=["5"], count=1)
    assert legal(hpos(R(voluntary_pickup="never"), **kw)) == [play("9")]
    stuck = hpos(R(voluntary_pickup="never"), hands=[["3"], ["4"], ["6"]], pile=["5"], count=1)
    assert legal(stuck) == [PICKUP]
    with pytest.raises(ValueError, match="H10"):
        rules.apply(hpos(R(voluntary_pickup="never"), **kw), PICKUP)


def test_H10_never_face_up_adds_are_pick_ups_too():
    kw = dict(hands=[[], ["4"], ["6"]], face_up=[["9", "3"], [], []], pile=["5"], count=1)
    assert legal(hpos(R(voluntary_pickup="never"), **kw)) == [play("9")]


# -- H11 face-up pick-up ---------------------------------------------------------------------
def test_H11_pile_only_no_face_up_card_goes_along():
    kw = dict(hands=[[], ["4"], ["6"]], face_up=[["3", "4"], [], []], pile=["K"], count=1)
    assert add("3") in legal(hpos(**kw))                                     # R12
    assert legal(hpos(R(faceup_pickup="pile_only"), **kw)) == [PICKUP]


def test_H11_must_add_rank_takes_every_face_up_card_of_the_rank():
    p = hpos(R(faceup_pickup="must_add_rank"), hands=[[], ["5"], ["6"]],
             face_up=[["4", "4", "6"], [], []], pile=["K"], count=1)
    moves = legal(p)
    assert PICKUP not in moves and add("4") in moves and add("6") in moves
    after = rules.apply(p, add("4"))
    assert after["events"] == ["pickup"]
    assert sorted(after["hands"][0]) == ["4", "4", "K"] and after["face_up"][0] == ["6"]
    with pytest.raises(ValueError, match="H11"):
        rules.apply(p, PICKUP)


# -- H12 hand size ---------------------------------------------------------------------------
def test_H12_hand_size_four_draws_up_to_four():
    p = hpos(R(hand_size=4), hands=[["5", "9", "J", "Q"], ["4"], ["6"]], stock=["2", "3", "4"])
    after = rules.apply(p, play("5"))
    assert len(after["hands"][0]) == 4 and after["stock"] == ["2", "3"]


def test_H12_hand_size_four_deals_packets_of_four():
    cfg = RunConfig(games=1, players=4, seed=3, rules=R(hand_size=4))
    rec = record_game(cfg, 0)
    st = rules.to_position(rec.start, cfg.rules)
    assert all(len(h) == 4 for h in st["hands"]) and all(len(f) == 4 for f in st["face_up"])
    assert all(len(d) == 4 for d in st["face_down"]) and len(st["stock"]) == 52 - 48
    assert all(bin(int(c)).count("1") == 4 for c in rec.swaps[:4])          # R5: 4 of 8


# -- H13 jokers ------------------------------------------------------------------------------
def test_H13_jokers_always_at_four_players_never_at_six():
    p = hpos(R(jokers="always"), players=4, hands=[["JK", "4"], ["5"], ["6"], ["7"]],
             pile=["A"], count=1)
    after = rules.apply(p, play("JK"))
    assert after["events"] == ["reverse"] and after["current"] == 3          # R23
    with pytest.raises(ValueError, match="conserved"):
        rules.validate(pos(players=4, ruleset="seed", jokers=True,
                           hands=[["JK"], ["5"], ["6"], ["7"]]))
    with pytest.raises(ValueError, match="at most 5"):
        Ruleset.build("seed", {"jokers": "never"}).check_players(6)


# -- H14, H15 starter ------------------------------------------------------------------------
def dealt(ruleset, hands, face_up, players=3, dealer=None):
    """A position before any play (R6): the cards not given are the stock."""
    p = hpos(ruleset, players=players, hands=hands, face_up=face_up,
             face_down=[["K", "K", "K"], ["Q", "Q", "Q"], ["J", "J", "J"]][:players],
             **({} if dealer is None else {"dealer": dealer}))
    p["stock"], p["burned"] = p["burned"], []
    return p


def test_H14_starter_hand_reads_the_hands_only():
    hands = [["9", "9", "9"], ["3", "A", "A"], ["8", "8", "8"]]
    face_up = [["3", "5", "5"], ["6", "6", "6"], ["7", "7", "7"]]
    assert rules.first_player(dealt("seed", hands, face_up)) == 0           # R6: face-ups first
    assert rules.first_player(dealt(R(starter="hand"), hands, face_up)) == 1


def test_H15_starter_order_decides_in_the_listed_order():
    hands = [["9", "9", "9"], ["3", "A", "A"], ["8", "8", "2"]]
    face_up = [["4", "5", "5"], ["6", "6", "6"], ["7", "7", "7"]]
    assert rules.first_player(dealt(R(starter_order=["A", "3"]), hands, face_up)) == 1
    assert rules.first_player(dealt(R(starter_order=["2", "3"]), hands, face_up)) == 2
    assert rules.first_player(dealt(R(starter_order=[]), hands, face_up, dealer=1)) == 2


# -- H16 forced opening ------------------------------------------------------------------------
def test_H16_forced_opening_plays_every_card_of_the_starting_rank():
    """The recorded game (sim replay) and the batch core make the opening alike."""
    cfg = RunConfig(games=20, players=4, seed=5, rules="boothj5")
    batch = play_batch(cfg, 0, 20, 1)
    for game in range(20):
        rec = record_game(cfg, game)
        start = rules.to_position(rec.start, cfg.rules)
        seat = start["current"]
        order = PRESETS["boothj5"].starter_order
        rank = next(r for r in order if any(r in h for h in start["hands"]))
        assert rank in start["hands"][seat]
        first = rules.move_to_dict(int(rec.moves[0]))
        assert first == play(*[rank] * start["hands"][seat].count(rank))
        assert (rec.status, len(rec.moves)) == (batch.status[game], batch.turns[game])


def test_H16_replay_names_the_starting_rank_and_the_forced_opening(cli):
    r = cli("replay", "--game", "3", "--players", "3", "--rules", "boothj5", "--seed", "2")
    assert r.exit_code == 0, r.output
    assert "(H14, H15: the rank" in r.output and "(the forced opening, H16)" in r.output


def test_H16_needs_starter_hand_and_every_rank():
    with pytest.raises(ValueError, match="H16"):
        Ruleset.build("seed", {"forced_opening": True})
    with pytest.raises(ValueError, match="H16"):
        Ruleset.build("boothj5", {"starter_order": ["3", "4"]})


# -- H17 cards removed -----------------------------------------------------------------------
def test_H17_masters_sets_cards_aside_before_the_deal():
    """H17 with H18's D = 52 d: one deck at 2-3 players, two (104 cards) at 4-6."""
    for players, low, high, deck in ((2, 14, 17, 52), (3, 0, 0, 52), (4, 28, 35, 104),
                                     (5, 9, 18, 104), (6, 0, 0, 104)):
        cfg = RunConfig(games=30, players=players, seed=2, rules="masters-of-shithead")
        for game in range(30):
            p = rules.to_position(record_game(cfg, game).dealt, cfg.rules)
            assert low <= len(p["removed"]) <= high
            assert len(p["stock"]) == deck - 9 * players - len(p["removed"])


def test_H17_removed_cards_count_in_the_deck_and_only_under_masters():
    rs = R(removed_before_deal="masters")
    p = hpos(rs, hands=[["5"], ["4"], ["6"]])
    p["removed"], p["burned"] = p["burned"][:5], p["burned"][5:]
    rules.validate(p)
    q = dict(p, ruleset="seed")
    with pytest.raises(ValueError, match="H17"):
        rules.validate(q)


# -- §11 interactions --------------------------------------------------------------------------
def test_H0a_a_burn_cancels_the_skip():
    p = hpos(R(skip_rank="8"), players=4, hands=[["8", "4"], ["5"], ["6"], ["7"]],
             pile=["8", "8", "8"], count=1)
    after = rules.apply(p, play("8"))
    assert after["events"] == ["burn"] and after["current"] == 0


def test_H0a_a_burn_cancels_the_cover_and_the_reverse():
    p = hpos(R(reverse_rank="K", burn_plays_again=False), players=4,
             hands=[["K", "4"], ["5"], ["6"], ["7"]], pile=["K", "K", "K"], count=1)
    after = rules.apply(p, play("K"))
    assert after["events"] == ["burn"] and after["direction"] == 1 and after["current"] == 1


def test_H0_game_over_current_is_the_next_seat_without_skips():
    p = hpos(R(skip_rank="8"), players=4, hands=[["8"], ["5"], ["6"], ["7"]])
    after = rules.apply(p, play("8"))
    assert after["events"] == ["skip", "out", "game_over"] and after["current"] == 1


# -- §11.3 refused rulesets ------------------------------------------------------------------
@pytest.mark.parametrize("options,message", [
    ({"skip_rank": "10"}, "§11.3"), ({"cover_rank": "2"}, "§11.3"),
    ({"transparent_rank": "JK"}, "rank"), ({"skip_rank": "8", "reverse_rank": "8"}, "one role"),
    ({"seven_lower": True, "cover_rank": "7"}, "H4"), ({"hand_size": 5}, "H12"),
    ({"starter_order": ["3", "3"]}, "distinct"), ({"jokers": "maybe"}, "H13"),
    ({"count_rule": "yes"}, "H1"), ({"nosuch": True}, "unknown rule option"),
])
def test_refused_rulesets(options, message):
    with pytest.raises(ValueError, match=message):
        rules.validate(hpos(R(**options) if "nosuch" not in options else R(),
                            hands=[["5"], ["4"], ["6"]]) | {"ruleset": R(**options)})


# -- §11.4 presets, row by row -----------------------------------------------------------------
PRESET_TABLE = {   # docs/rules.md §11.4: seed, classic, masters-of-shithead, boothj5
    "H1 count_rule": (True, False, False, False),
    "H2 ten_anywhere": (False, True, True, True),
    "H3 four_burns": (True, True, True, True),
    "H4 seven_lower": (False, False, True, False),
    "H5 transparent_rank": (None, None, "3", "7"),
    "H6 skip_rank": (None, None, "8", "8"),
    "H6 skip_per_card": (False, False, True, False),
    "H7 reverse_rank": (None, None, "K", None),
    "H7 reverse_per_card": (False, False, True, False),
    "H8 cover_rank": (None, None, "Q", None),
    "H9 burn_plays_again": (True, True, True, True),
    "H10 voluntary_pickup": ("except_blind", "except_blind", "always", "never"),
    "H11 faceup_pickup": ("may_add_one", "may_add_one", "one_then_rank", "pile_only"),
    "H12 hand_size": (3, 3, 3, 3),
    "H13 jokers": ("six_players", "never", "never", "never"),
    "H14 starter": ("dealt", "dealt", "hand", "hand"),
    "H15 starter_order": (list("3456789") + ["10", "J", "Q", "K", "A"],
                          list("3456789") + ["10", "J", "Q", "K", "A"],
                          "4 5 6 7 8 9 J Q K A 10 2 3".split(),
                          "3 4 5 6 8 9 J Q K A 2 7 10".split()),
    "H16 forced_opening": (False, False, False, True),
    "H17 removed_before_deal": ("none", "none", "masters", "none"),
    "H18 decks": (1, 1, "masters", "boothj5"),
    "H19 play_on": (False, False, True, False),
    "H20 out_before_burn": (False, False, True, False),
    "V2 last_player_loses": (False, True, True, True),
    "V1 choose_face_ups": (False, False, False, False),
}


@pytest.mark.parametrize("row", list(PRESET_TABLE))
def test_preset_rows(row):
    key = row.split()[1]
    for name, want in zip(("seed", "classic", "masters-of-shithead", "boothj5"),
                          PRESET_TABLE[row]):
        assert Ruleset.build(name).to_dict()[key] == want, (name, key)


@pytest.mark.parametrize("name,players", [("seed", 6), ("classic", 5),
                                          ("masters-of-shithead", 6), ("boothj5", 8)])
def test_preset_player_ranges(name, players):
    """§11.4's last row: the deck decides (H12, H13, H18)."""
    assert Ruleset.build(name).max_players() == players


def test_presets_play_their_rules_in_the_batch_core():
    """Each preset's games differ from seed's on the same seed, and none is an error."""
    from sim.runs.runner import run

    totals = {}
    for name in PRESETS:
        t = run(RunConfig(games=400, players=3, seed=9, rules=name, threads=1)).to_dict()
        assert t["overall"]["games"] == 400
        totals[name] = t["overall"]["mean_turns"]
    assert len(set(totals.values())) == 4


def test_the_kernel_reads_the_ruleset_as_one_vector():
    """The ruleset reaches the kernel as one compact int32 value."""
    v = Ruleset.build("masters-of-shithead").vector()
    assert v.dtype == np.int32 and v.ndim == 1
    assert not np.array_equal(v, Ruleset().vector())
