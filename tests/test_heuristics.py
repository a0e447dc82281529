"""The heuristic strategies (strategies/heuristics.py): whole games without error, their
choices in hand-built positions, and ``counting`` being stronger than ``lowest``."""
from __future__ import annotations

import numpy as np
import pytest

from sim.kernel import engine
from sim.kernel.layout import HANDS, NR, PUB
from sim.kernel.moves import is_legal
from sim.kernel.rng import seed_game
from sim.kernel.position import to_state, move_to_dict
from sim.runs.runner import RunConfig, run
from sim.runs.registry import get_move
from tests.positions import pos

HEURISTICS = ["highest", "save-specials", "counting"]
PICKUP = {"pickup": True}
BLIND = {"blind": True}


def play(*cards):
    return {"play": list(cards)}


def choose(spec, position, seed=1):
    """The move strategy ``spec`` chooses in ``position`` (docs/position.md), as a JSON move, its
    random stream seeded ``seed``."""
    st = to_state(position)
    legal = engine.legal_word(st)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, seed, 0)
    strategy = get_move(spec)
    p = int(st[1])
    obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
    obs.flags.writeable = False
    hand.flags.writeable = False
    m = int(strategy.fn(obs, hand, legal, rng, strategy.row()))
    assert is_legal(legal, m, obs), m                              # R24
    return move_to_dict(m)


def follow(hand, pile, stock=("9",), ruleset="seed"):
    """Seat 0 to move holding ``hand``, on ``pile`` (count 1) or leading when it is empty;
    seat 1, next to play, is far from going out (four cards face down)."""
    return pos(players=4, current=0, hands=[list(hand), [], [], []], pile=list(pile),
               count=1 if pile else 0, stock=list(stock),
               face_down=[[], ["Q", "Q", "Q", "Q"], ["J"], ["J"]], ruleset=ruleset)


# -- (a) whole games ------------------------------------------------------------------------
@pytest.mark.parametrize("name", HEURISTICS)
def test_plays_2000_four_player_games_without_error(name):
    tally = run(RunConfig(games=2000, players=4, seed=11, strategies=[name]))
    assert tally.games == 2000
    assert int(tally.wins.sum()) + tally.unfinished == 2000        # R25: one winner or none
    if name == "counting":
        assert tally.unfinished <= 2          # it breaks cycles of pick-ups (lowest: ~0.4%)


@pytest.mark.parametrize("name", HEURISTICS)
@pytest.mark.parametrize("players,rules", [(2, "seed"), (3, "seed"), (6, "seed"),
                                           (5, {"base": "seed", "last_player_loses": True})])
def test_other_tables_and_rules_without_error(name, players, rules):
    """Jokers (6 players), seats that are out (V2), two seats: every move is legal (R24)."""
    strategies = [name, "random"] * players
    tally = run(RunConfig(games=300, players=players, seed=3, strategies=strategies[:players],
                          rules=rules))
    assert tally.games == 300


def test_registered_with_highest_up_swaps_and_parameters():
    for name in HEURISTICS:
        s = get_move(name)
        assert s.swap == "highest-up" and s.description
    assert get_move("save-specials").params == {"burn_pile": (6, 1, 52)}
    assert get_move("counting").params["pickup_limit"] == (3, 0, 52)
    # its weights are parameters too (sim tune), defaulting to the module's constants
    assert get_move("counting(pickup_limit=0)").row().tolist() == [0.0, 3.0, 3.0, 7.0, 9.0,
                                                                   13.0, 4.0, 10.0]
    with pytest.raises(ValueError):
        get_move("save-specials(burn_pile=0)")


# -- (b) behaviour in hand-built positions --------------------------------------------------
def test_highest_plays_the_ace_over_the_five():
    assert choose("highest", follow(["3", "5", "A"], ["4"])) == play("A")


def test_highest_leads_all_copies_of_its_highest_rank_and_the_2_is_highest():
    assert choose("highest", follow(["5", "A", "A"], [])) == play("A", "A")
    assert choose("highest", follow(["5", "A", "2"], ["7"])) == play("2")


def test_highest_picks_up_only_when_nothing_is_legal_and_turns_blind_when_forced():
    assert choose("highest", follow(["3", "5"], ["K"])) == PICKUP
    blind = pos(players=4, current=0, hands=[[], ["3"], ["3"], ["3"]],
                face_down=[["5"], ["4"], ["4"], ["4"]], pile=["K"], count=1)
    assert choose("highest", blind) == BLIND


def test_save_specials_keeps_the_2_and_the_10_and_plays_the_6():
    assert choose("save-specials", follow(["2", "6", "K"], ["5"])) == play("6")
    assert choose("save-specials", follow(["2", "10", "6"], ["5"])) == play("6")
    assert choose("save-specials", follow(["3", "3", "2"], [])) == play("3", "3")


def test_save_specials_plays_specials_when_nothing_else_is_legal():
    assert choose("save-specials", follow(["3", "2"], ["K"])) == play("2")
    assert choose("save-specials", follow(["3", "10", "2"], ["8"])) == play("10")


def test_save_specials_burns_a_large_pile_with_a_10():
    seven = ["3", "3", "4", "4", "5", "6", "7"]
    assert choose("save-specials", follow(["8", "10"], seven)) == play("10")
    assert choose("save-specials", follow(["8", "10"], seven[-5:])) == play("8")
    assert choose("save-specials(burn_pile=8)", follow(["8", "10"], seven)) == play("8")


def test_counting_picks_up_a_small_pile_rather_than_spend_its_only_2():
    hand, pile = ["2", "3", "4"], ["9", "K"]
    assert choose("counting(pickup_limit=3)", follow(hand, pile)) == PICKUP
    assert choose("counting(pickup_limit=1)", follow(hand, pile)) == play("2")
    assert choose("counting(pickup_limit=3)", follow(hand, pile + ["A", "A"])) == play("2")
    # once the stock is gone, or with a 10 to play, it does not pick up on purpose
    assert choose("counting(pickup_limit=3)", follow(hand, pile, stock=())) == play("2")
    assert choose("counting(pickup_limit=3)", follow(["10", "3"], ["5", "9"])) == play("10")


def test_counting_keeps_its_pairs_and_sheds_more_cards():
    assert choose("counting", follow(["6", "6", "8"], ["5"])) == play("8")    # not one 6
    assert choose("counting", follow(["3", "5", "5"], [])) == play("5", "5")  # not the 3
    assert choose("lowest", follow(["3", "5", "5"], [])) == play("3")


def test_counting_h1_off_sheds_the_lowest_rank_not_the_most_cards():
    """H1 (count_rule) off, as under classic: every copy of a rank may go in any play, so a
    pair is no more progress than a single card and is never stuck (R9's count is gone).
    counting plays the lowest rank then; with the count rule (seed, above) it sheds more."""
    def classic(hand, pile):
        return follow(hand, pile, ruleset="classic")
    assert choose("counting", classic(["3", "5", "5"], [])) == play("3")        # not the 5s
    assert choose("counting", classic(["4", "6", "6"], ["3"])) == play("4")     # not the 6s
    assert choose("counting", classic(["9", "K", "K", "K"], ["8"])) == play("9")
    # it still plays every copy of the rank it chooses, and keeps its 10 and 2 (H2)
    assert choose("counting", classic(["6", "6", "10", "2"], ["5"])) == play("6", "6")
    # under the count rule the same hands still shed the pair (seed)
    assert choose("counting", follow(["4", "6", "6"], [])) == play("6", "6")


def test_counting_keeps_a_2_over_a_jack_but_not_over_an_ace():
    assert choose("counting", follow(["2", "J"], ["9"])) == play("J")
    assert choose("counting", follow(["2", "A"], ["9"])) == play("2")


def test_counting_blocks_a_next_seat_about_to_go_out():
    """Seat 1 has one face-up card left (R11): a play it cannot beat makes it pick up."""
    def position(last_card):
        return pos(players=4, current=0, hands=[["5", "K"], [], ["3"], ["3"]],
                   face_up=[[], [last_card], [], []], face_down=[["4"], [], ["4"], ["4"]],
                   pile=["4"], count=1)
    assert choose("counting", position("Q")) == play("K")        # Q cannot beat K
    assert choose("counting", position("3")) == play("5")        # 3 cannot beat 5 either
    assert choose("lowest", position("Q")) == play("5")
    # with the seat far from out it saves the K
    far = pos(players=4, current=0, hands=[["5", "K"], ["Q", "J", "J"], ["3"], ["3"]],
              face_up=[[], ["9"], [], []], face_down=[["4"], ["8"], ["4"], ["4"]],
              pile=["4"], count=1)
    assert choose("counting", far) == play("5")


def test_counting_blocks_a_blind_next_seat_by_the_odds():
    """Seat 1 turns its last face-down card (R14). Every unseen card (R26) beats a 5 but
    none beats a K: all the A, K and 2 not in the pile are burned."""
    position = pos(players=4, current=0, hands=[["5", "K"], [], ["3"], ["3"]],
                   face_down=[[], ["6"], ["6", "7", "8", "9"], ["6", "7", "8", "J"]],
                   pile=["4"], count=1)
    assert choose("counting", position) == play("K")


def test_counting_adds_its_lowest_face_up_card_when_it_must_pick_up():
    position = pos(players=4, current=0, hands=[[], ["3"], ["3"], ["3"]],
                   face_up=[["K", "4"], [], [], []], face_down=[["5"]] * 4, pile=["A"],
                   count=1)
    assert choose("counting", position) == {"pickup": True, "add": "4"}


# -- (c) strength ---------------------------------------------------------------------------
def test_counting_beats_lowest_head_to_head():
    cfg = RunConfig(games=20_000, players=4, seed=7,
                    strategies=["counting", "lowest", "counting", "lowest"])
    import pandas as pd

    rows = pd.DataFrame(run(cfg).strategy_rows()).set_index("strategy")
    assert rows.loc["counting", "ci_low"] > 0.25
    assert rows.loc["lowest", "ci_high"] < 0.25
