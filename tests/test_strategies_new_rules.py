"""Every built-in strategy under the house rules of round 2 (docs/rules.md §11: H18 two decks,
H19 play on, H20 out before the four, H11 ``one_then_rank``): the choice each makes in a
chain (its description says it), plays of 5 to 8 cards where it plays "all copies", and whole
games of every registered built-in under every preset at every player count and under random
option sets, in the spirit of pgx's api_test: each game finishes or is counted unfinished, and
no strategy ever returns an illegal move (R24). Also the README's strategy, unchanged, under
every ruleset without H19.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from sim.kernel import engine
from sim.kernel.layout import BIG, CURRENT, END, HANDS, L_END, NR, PUB
from sim.kernel.moves import has, is_legal_move
from sim.kernel.position import move_to_dict, to_state
from sim.kernel.rng import seed_game
from sim.kernel.ruleset import PRESETS, Ruleset
from sim.runs.registry import all_moves, get_move
from sim.runs.runner import RunConfig, run
from strategies.montecarlo import candidates
from tests.positions import pos
from tests.rulesets import random_players, random_ruleset

PLAY_ON = {"base": "seed", "count_rule": False, "play_on": True}
TWO_DECKS = {"base": "seed", "count_rule": False, "decks": 2}
END_MOVE = {"end": True}
# montecarlo at a cost a test can pay: few playouts, short horizons (the rules are the same)
LIGHT = {"montecarlo": "montecarlo(rollouts=4, horizon=10)"}


def builtins() -> list[str]:
    """Every registered built-in move strategy (the project's modules, not tests' own)."""
    return sorted(name for name, s in all_moves().items()
                  if s.fn.py_func.__module__.startswith(("strategies.", "sim.kernel.")))


def hpos(ruleset, players=3, **kw):
    """A position under ``ruleset`` with its deck's decks (H18) and jokers (H13)."""
    rs = Ruleset.parse(ruleset)
    return pos(players=players, ruleset=ruleset, jokers=bool(rs.jokers_for(players)),
               decks=rs.decks_for(players), **kw)


def choose(spec, position, seed=1):
    """The move ``spec`` makes in ``position`` (docs/position.md), checked legal (R24), as a
    JSON move."""
    st = to_state(position)
    legal = engine.legal_word(st)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, seed, 0)
    strategy = get_move(LIGHT.get(spec, spec))
    p = int(st[CURRENT])
    obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
    obs.flags.writeable = False
    hand.flags.writeable = False
    m = int(strategy.fn(obs, hand, legal, rng, strategy.row()))
    assert is_legal_move(legal, m, obs, hand), (spec, m)                  # R24
    return move_to_dict(m, st)


def play(*cards):
    return {"play": list(cards)}


def chain(rank, held, ruleset=PLAY_ON, stock=("4",), pile=None):
    """Seat 0 in a chain of ``rank`` (H19: one card of it just played), holding ``held``;
    the next seat far from going out."""
    pile = list(pile or ["5", rank])
    return hpos(ruleset, players=3, hands=[list(held), ["6"] * 3, ["J"] * 3], pile=pile,
                count=1, run=1, stock=list(stock), face_down=[[], ["Q"] * 3, ["A"] * 3])


# -- H19: each strategy's rule in a chain --------------------------------------------------------
@pytest.mark.parametrize("name", ["lowest", "highest", "save-specials", "counting", "simple",
                                  "cheapest"])
def test_H19_a_plain_rank_goes_on_with_every_card_of_it(name):
    """A chain of 5s with two more 5s in hand: every rule-based strategy goes on with both
    (cheapest by its own rule, docs/rules.md §11.6: all of 4..J)."""
    assert choose(name, chain("5", ["5", "5", "K"])) == play("5", "5")


@pytest.mark.parametrize("name,want", [("lowest", play("2")), ("highest", play("2")),
                                       ("save-specials", END_MOVE), ("counting", END_MOVE),
                                       ("simple", END_MOVE)])
def test_H19_a_chain_of_2s_goes_on_or_ends_by_each_strategys_rule(name, want):
    """save-specials keeps the ranks it saves; counting keeps a 2 while the stock lasts;
    simple lays its 2s, 7s and 10s one at a time (so ends); lowest and highest go on."""
    assert choose(name, chain("2", ["2", "K", "9"])) == want


def test_H19_counting_spends_a_2_in_a_chain_once_the_stock_is_empty():
    assert choose("counting", chain("2", ["2", "K", "9"], stock=())) == play("2")


def test_H19_counting_goes_on_with_a_2_that_burns_four_of_a_kind():
    """R22: the continuation burns the pile and the mover leads again."""
    p = chain("2", ["2", "K", "9"], pile=["2", "2", "2"])
    assert choose("counting", p) == play("2")


def test_H19_simple_ends_on_a_rank_it_lays_alone_and_goes_on_with_a_normal_one():
    assert choose("simple", chain("7", ["7", "7", "K"])) == END_MOVE
    assert choose("simple", chain("9", ["9", "K"])) == play("9")


def test_H19_random_chooses_among_end_and_every_continuation():
    p = chain("5", ["5", "5", "K"])
    seen = {repr(choose("random", p, seed=s)) for s in range(60)}
    assert seen == {repr(play("5")), repr(play("5", "5")), repr(END_MOVE)}


def test_H19_montecarlo_searches_end_and_every_continuation():
    st = to_state(chain("5", ["5", "5", "K"]))
    legal = engine.legal_word(st)
    assert has(legal, L_END)
    cand = np.zeros(200, np.int64)
    hand = st[HANDS:HANDS + NR]
    base = 1 * NR + 2                                  # counting's move: both 5s
    got = sorted(cand[:candidates(st[:PUB], hand, legal, base, 0, cand)].tolist())
    assert got == sorted([2, base, END])               # one 5, both, or END


def test_H19_montecarlo_searches_every_continuation_of_five_or_more_too():
    st = to_state(chain("5", ["5"] * 6, ruleset={**PLAY_ON, "decks": 2}))
    legal = engine.legal_word(st)
    cand = np.zeros(200, np.int64)
    got = sorted(cand[:candidates(st[:PUB], st[HANDS:HANDS + NR], legal, END, 0, cand)].tolist())
    assert got == sorted([(n - 1) * NR + 2 for n in range(1, 5)]
                         + [BIG + (n - 5) * NR + 2 for n in (5, 6)] + [END])


# -- H18: plays of 5 to 8 cards where a strategy plays every copy -------------------------------
@pytest.mark.parametrize("name", ["lowest", "highest", "save-specials", "counting", "simple"])
def test_H18_a_lead_of_every_copy_is_a_play_of_five_or_more(name):
    p = hpos(TWO_DECKS, players=3, hands=[["6"] * 6, ["7"], ["8"]])
    assert choose(name, p) == play(*["6"] * 6)


def test_H18_montecarlo_searches_the_largest_play_of_each_rank_five_or_more_included():
    st = to_state(hpos(TWO_DECKS, players=3, hands=[["6"] * 6 + ["9"], ["7"], ["8"]]))
    legal = engine.legal_word(st)
    cand = np.zeros(200, np.int64)
    got = cand[:candidates(st[:PUB], st[HANDS:HANDS + NR], legal, 6, 0, cand)].tolist()
    six = BIG + 1 * NR + 3                          # six 6s
    assert six in got and 3 * NR + 3 not in got     # the four 6s are not the largest
    assert 6 in got                                 # one 9


@pytest.mark.parametrize("name", ["lowest", "highest", "save-specials", "counting", "simple",
                                  "random", "cheapest", "montecarlo"])
def test_H18_when_only_plays_of_five_or_more_are_legal_each_plays_one(name):
    """R9 with a count of 5 (H3 off lets five equal cards lie unburned) and H10 "never": no
    pick-up is legal while a play is, and the only plays are of five cards."""
    rules = {"base": "seed", "decks": 2, "four_burns": False, "voluntary_pickup": "never"}
    p = hpos(rules, players=3, hands=[["K"] * 5 + ["4"], ["7"], ["8"]], pile=["9"] * 5,
             count=5)
    assert choose(name, p) == play(*["K"] * 5)


# -- H11 one_then_rank: a pick-up takes all of the rank --------------------------------------
@pytest.mark.parametrize("name", ["lowest", "highest", "save-specials", "counting", "simple"])
def test_H11_one_then_rank_pick_up_takes_every_face_up_card_of_the_rank(name):
    rules = {"base": "seed", "faceup_pickup": "one_then_rank"}
    p = hpos(rules, players=3, hands=[[], ["7"], ["8"]], face_up=[["4", "4", "9"], [], []],
             face_down=[["5"], ["6"], ["6"]], pile=["A"], count=1)
    move = choose(name, p)
    assert move["pickup"] and move["n"] == 2 and move["add"] == "4", move


# -- every built-in, every preset, every size, random option sets (R24, R25) -------------------
def _seats(names, players, shift):
    return [LIGHT.get(n, n) for n in (names[(shift + i) % len(names)] for i in range(players))]


def _check(cfg):
    tally = run(cfg)                          # a bad move (R24) is a RunError
    assert tally.games == cfg.games
    assert int(tally.wins.sum()) + tally.unfinished == cfg.games      # R25: one first out


def test_the_built_ins_are_the_registered_strategies():
    assert set(builtins()) >= {"random", "lowest", "highest", "save-specials", "counting",
                               "cheapest", "simple", "montecarlo"}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_built_in_plays_every_preset_at_every_size(preset):
    """Every built-in in every seat (montecarlo with few playouts), 2 to 8 players."""
    names = builtins()
    rs = Ruleset.build(preset)
    for players in range(2, rs.max_players() + 1):
        for shift in range(len(names)):
            _check(RunConfig(games=8, players=players, seed=players * 10 + shift,
                             rules=preset, strategies=_seats(names, players, shift),
                             max_turns=3000))


def test_every_built_in_plays_random_option_sets():
    """Random allowed option sets, H18-H20 and one_then_rank included (tests/rulesets.py)."""
    names = builtins()
    rng = random.Random(33)
    for i in range(48):
        rs = random_ruleset(rng)
        players = random_players(rs, rng)
        _check(RunConfig(games=8, players=players, seed=i, rules=rs.to_json(),
                         strategies=_seats(names, players, i), max_turns=3000))


# -- the README's strategy, unchanged, under every ruleset without H19 --------------------------
def _no_play_on():
    """Every preset without H19 at every size (two decks at 7-8), and random option sets
    without H19, less the one case docs/strategies.md names (R9 with a count above 4 and
    no pick-up: only plays of 5 to 8 cards legal, which a strategy of 1 to 4 cards must
    play)."""
    out = []
    for preset in PRESETS:
        rs = Ruleset.build(preset, {"play_on": False})
        for players in range(2, rs.max_players() + 1):
            out.append((rs, players))
    for players in (7, 8):
        for preset in ("seed", "classic"):
            out.append((Ruleset.build(preset, {"decks": 2}), players))
    rng = random.Random(35)
    while len(out) < 60:
        rs = random_ruleset(rng)
        if rs.play_on or (rs.count_rule and not rs.four_burns
                          and rs.voluntary_pickup == "never"):
            continue
        out.append((rs, random_players(rs, rng)))
    return out


def test_the_readme_strategy_plays_every_ruleset_without_H19(tmp_path):
    from tests.test_user_strategies import readme_example

    bots = tmp_path / "mybots.py"
    bots.write_text(readme_example())
    spec = f"{bots}:careful"
    sizes = set()
    for i, (rs, players) in enumerate(_no_play_on()):
        _check(RunConfig(games=16, players=players, seed=i, rules=rs.to_json(),
                         strategies=([spec, "lowest", "random"] * 3)[:players],
                         max_turns=3000))
        sizes.add((rs.decks_for(players), players))
    assert {(2, 7), (2, 8)} <= sizes


def test_the_guides_chain_example_plays_H19_and_ends_on_its_specials(tmp_path):
    """docs/strategies.md's "Play on (H19)" example: the one thing a strategy adds for H19."""
    import re

    from tests.test_user_strategies import GUIDE

    code = next(b for b in re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
                if "def careful_chains" in b)
    bots = tmp_path / "chainbots.py"
    bots.write_text(code)
    spec = f"{bots}:careful_chains"
    assert choose(spec, chain("2", ["2", "K", "9"])) == END_MOVE
    assert choose(spec, chain("2", ["2", "K", "9"], stock=())) == play("2")
    assert choose(spec, chain("5", ["5", "5", "K"])) == play("5", "5")
    for players in (2, 4, 6):
        _check(RunConfig(games=200, players=players, seed=players, rules="masters-of-shithead",
                         strategies=[spec] + ["counting"] * (players - 1), max_turns=3000))
