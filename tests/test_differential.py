"""Differential test: ``sim.kernel.position`` against the independent reference (tests/reference_rules.py).

Random games are dealt (R1, R4, R5, R6, and under random rulesets of docs/rules.md §11: H12's
hand size, H13's jokers, H14/H15's starter, H16's forced opening, H17's removed cards, H18's
decks, V1's chosen face-ups) and played with random legal moves (H19's continuations and
``end`` included); at every step the legal moves of both sides must be the same set, the
position each side computes after the chosen move must be the same (multisets where order
carries no meaning: hands, face-ups, burned, removed; ordered lists for face-downs, stock
and pile; everything else exactly, H19's ``run`` included, and the same keys), a few random
illegal or malformed moves (and, under H19, positions with an impossible ``run``) must be
refused by both with ValueError, inputs must not be mutated, and no card may appear or
vanish.

Two families of rulesets: "main" (the options H1-H17, V1, V2, one deck) and "new" (with
H11 "one_then_rank", H18, H19, H20 too).
"""

import copy
import os
import random
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim.kernel.position as real

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_rules import (  # noqa: E402
    CARDS,
    NEW_OPTION_KEYS,
    OPTION_KEYS,
    PRESET_PLAYERS,
    PRESETS,
    RANKS_13,
    copy_position,
    move_key,
    ref_apply,
    ref_deck,
    ref_decks,
    ref_first_player,
    ref_forced_opening,
    ref_legal_moves,
    ref_removed_range,
    ref_ruleset,
)

MAX_MOVES = 400
V1 = {"base": "seed", "choose_face_ups": True}
V2 = {"base": "seed", "last_player_loses": True}
SEED_FAMILY = ["seed", V1, V2, {"base": "seed", "choose_face_ups": True,
                                 "last_player_loses": True}]
FAMILIES = ["main", "new"]


# --------------------------------------------------------------------------- new options

def uses_new_options(ruleset, players):
    """Does this ruleset at this player count use H11 "one_then_rank", H18's second deck,
    H19 or H20, or name one of their keys (§11.2)?"""
    if isinstance(ruleset, dict) and any(key in ruleset for key in NEW_OPTION_KEYS):
        return True
    opts = ref_ruleset(ruleset, players)
    return (ref_decks(opts, players) == 2 or opts["play_on"] or opts["out_before_burn"]
            or opts["faceup_pickup"] == "one_then_rank")


# --------------------------------------------------------------------------- rulesets

ROLE_KEYS = ["transparent_rank", "skip_rank", "reverse_rank", "cover_rank"]  # H5-H8
ROLE_RANKS = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]  # §11.3: no 2, 10, JK
MAIN_KEYS = [key for key in OPTION_KEYS if key not in NEW_OPTION_KEYS]
MAIN_BASES = ["seed", "classic", "boothj5"]  # masters-of-shithead now has H18-H20 on


def _random_value(rng, key, opts, family):
    """A random value of option ``key`` (§11.2); ``opts`` is the option set built so far."""
    if key in ("count_rule", "ten_anywhere", "four_burns", "seven_lower", "skip_per_card",
               "reverse_per_card", "burn_plays_again", "choose_face_ups",
               "last_player_loses", "forced_opening", "play_on", "out_before_burn"):
        return rng.random() < 0.5
    if key in ROLE_KEYS:  # H5-H8: pairwise different, never 2/10/JK, no 7 under H4
        taken = {opts[k] for k in ROLE_KEYS if k != key}
        free = [r for r in ROLE_RANKS if r not in taken
                and not (r == "7" and opts["seven_lower"])]
        return rng.choice([None] + free)
    faceup = ["may_add_one", "pile_only", "must_add_rank"]
    choices = {
        "voluntary_pickup": ["except_blind", "always", "never"],        # H10
        "faceup_pickup": faceup + (["one_then_rank"] if family == "new" else []),  # H11
        "hand_size": [3, 4],                                              # H12
        "jokers": ["six_players", "never", "always"],                     # H13
        "starter": ["dealt", "hand"],                                     # H14
        "removed_before_deal": ["none", "masters"],                       # H17
        "decks": [1, 2, "masters", "boothj5"],                            # H18
    }
    if key in choices:
        return rng.choice(choices[key])
    if key == "starter_order":  # H15: distinct ranks, in any order, partial or even empty
        ranks = list(RANKS_13)
        rng.shuffle(ranks)
        return ranks if rng.random() < 0.6 else ranks[:rng.randint(0, 12)]
    raise AssertionError(key)


def random_ruleset(rng, family="main"):
    """An allowed ruleset (§11): a preset by name, or {"base": preset, ...} with random
    options changed (refused combinations, §11.3, are never returned). Family "main" keeps
    to H1-H17 with one deck; "new" always uses H11 "one_then_rank" or H18-H20 at some
    player count."""
    bases = MAIN_BASES if family == "main" else list(PRESETS)
    keys = MAIN_KEYS if family == "main" else OPTION_KEYS
    while True:
        if rng.random() < 0.3:
            ruleset = rng.choice(bases)
        else:
            ruleset = _random_object(rng, rng.choice(bases), keys, family)
        players = allowed_players(ruleset, family)
        if not players:
            continue
        if family == "new" and not any(uses_new_options(ruleset, n) for n in players):
            continue
        return ruleset


def _random_object(rng, base, keys, family):
    """{"base": base, ...} with random options changed; allowed by §11.3 without players."""
    change = rng.choice([0.1, 0.3, 0.6])  # how many options differ from the base
    while True:
        opts = copy.deepcopy(PRESETS[base])
        order = list(keys)
        rng.shuffle(order)
        for key in order:
            if rng.random() < change:
                opts[key] = _random_value(rng, key, opts, family)
        if opts["seven_lower"] and "7" in [opts[k] for k in ROLE_KEYS]:
            continue  # §11.3: a 7 role under H4 (seven_lower changed after the roles)
        if opts["forced_opening"] and not (
                opts["starter"] == "hand" and sorted(opts["starter_order"]) == sorted(RANKS_13)):
            opts["forced_opening"] = False  # H16 needs H14 "hand" and all 13 ranks (§11.3)
        if opts["play_on"] and opts["count_rule"]:
            # §11.3: H19 needs the count rule off; keep one of the two at random
            opts["play_on" if rng.random() < 0.5 else "count_rule"] = False
        ruleset = {"base": base}
        for key in keys:  # the changed keys, and now and then an unchanged one
            if opts[key] != PRESETS[base][key] or rng.random() < 0.1:
                ruleset[key] = opts[key]
        assert ref_ruleset(ruleset) == opts, ruleset  # allowed by §11.3
        return ruleset


def allowed_players(ruleset, family="new"):
    """Player counts for a ruleset: those §11.3 allows (R1's 2-6, H18's 2-8 with two decks,
    the deck size, H12, H13, H18) and, for a preset as it stands, its range (§11.4);
    family "main" keeps to those that need none of the new options."""
    opts = ref_ruleset(ruleset)
    low, high = 2, 8
    base = ruleset if isinstance(ruleset, str) else ruleset["base"]
    if opts == PRESETS[base]:
        low, high = PRESET_PLAYERS[base]
    players = []
    for n in range(low, high + 1):
        try:
            ref_ruleset(ruleset, n)
        except ValueError:
            continue
        if family == "main" and uses_new_options(ruleset, n):
            continue
        players.append(n)
    return players


def uses_house_rules(opts):
    """Any §11 option away from `seed` (V1 and V2 are §10's, not house rules)."""
    return any(opts[key] != PRESETS["seed"][key] for key in OPTION_KEYS
               if key not in ("choose_face_ups", "last_player_loses"))


# --------------------------------------------------------------------------- dealing

def deal_position(rng, ruleset=None, check_real=True, players=None, family="main"):
    """A dealt position, its first player and the swap, and the H16 forced opening.

    Returns (position, forced opening move or None). R4 / H12: packets of hand_size cards
    face down, face up, to the hand (V1: face down, then twice hand_size to the hand, of
    which each player chooses hand_size face up), from H18's d decks and H13's jokers.
    H17: the removed cards come off the top of the shuffled deck first (D = 52·d +
    jokers). R6 / H14 "dealt" reads the deal before the swap (R5); H14 "hand" reads the
    hands after it; V1 reads the chosen face-ups. With ``check_real``,
    ``sim.kernel.position.first_player`` must agree with the reference.
    """
    if ruleset is None:
        ruleset = random_ruleset(rng, family)
    opts = ref_ruleset(ruleset)
    if players is None:
        players = rng.choice(allowed_players(ruleset, family))
    size = opts["hand_size"]
    deck = ref_deck(ruleset, players)
    rng.shuffle(deck)  # the last element is the top
    fewest, most = ref_removed_range(ruleset, players)  # H17
    removed = [deck.pop() for _ in range(rng.randint(fewest, most))]
    with_dealer = rng.random() < 0.8
    dealer = rng.randrange(players) if with_dealer else players - 1
    order = [(dealer + 1 + i) % players for i in range(players)]  # dealer's left first
    face_down = [[] for _ in range(players)]
    face_up = [[] for _ in range(players)]
    hands = [[] for _ in range(players)]
    if opts["choose_face_ups"]:
        # V1 / H12. Decided: packets of hand_size face down, then one packet of twice
        # hand_size to the hand, each round in deal order (the order has no effect, §11.7)
        packets = [(face_down, size), (hands, 2 * size)]
    else:  # R4, H12
        packets = [(face_down, size), (face_up, size), (hands, size)]
    for zone, n in packets:
        for seat in order:
            for _ in range(n):
                zone[seat].append(deck.pop())
    pos = {
        "ruleset": copy.deepcopy(ruleset),
        "players": players,
        "current": 0,
        "direction": 1,
        "hands": hands,
        "face_up": face_up,
        "face_down": face_down,
        "stock": deck,  # the undealt rest; last element drawn first
        "pile": [],
        "count": 0,
        "burned": [],
        "out": [],
    }
    if opts["removed_before_deal"] == "masters" or (uses_house_rules(opts)
                                                     and rng.random() < 0.2):
        pos["removed"] = removed  # H17 (absent means [], so [] is sometimes written out)
    if opts["play_on"] and rng.random() < 0.5:
        pos["run"] = 0  # H19: absent means 0, so 0 is sometimes written out
    if with_dealer:
        pos["dealer"] = dealer

    def starter():
        first = ref_first_player(pos)
        if check_real:
            assert real.first_player(copy.deepcopy(pos)) == first, ("first_player (R6)", pos)
        return first

    if opts["choose_face_ups"]:
        # V1: each player chooses hand_size of their cards to put face up (replaces R5)
        for seat in range(players):
            rng.shuffle(hands[seat])
            face_up[seat], hands[seat] = hands[seat][:size], hands[seat][size:]
        first = starter()
    else:
        if opts["starter"] == "dealt":
            first = starter()  # R6: the cards as dealt, before the swap
        # R5: each player may exchange cards between hand and face-ups
        for seat in range(players):
            if rng.random() < 0.5:
                pool = hands[seat] + face_up[seat]
                rng.shuffle(pool)
                hands[seat], face_up[seat] = pool[:size], pool[size:]
        if opts["starter"] == "hand":
            first = starter()  # H14: the hands after the swap
    pos["current"] = first
    return pos, ref_forced_opening(pos)  # H16: played with apply right after the swap


# --------------------------------------------------------------------------- comparing

def all_cards(pos):
    c = Counter(pos["pile"]) + Counter(pos["stock"]) + Counter(pos["burned"])
    c += Counter(pos.get("removed", []))  # H17
    for zone in pos["hands"] + pos["face_up"] + pos["face_down"]:
        c += Counter(zone)
    return c


def assert_same_position(got, want, ctx):
    """The same keys (so ``run`` on both sides or neither, H19) and the same values."""
    assert set(got) == set(want), ("keys differ", set(got) ^ set(want), ctx)
    for key in want:
        if key in ("hands", "face_up"):
            g = [Counter(z) for z in got[key]]
            w = [Counter(z) for z in want[key]]
        elif key in ("burned", "removed"):
            g, w = Counter(got[key]), Counter(want[key])
        else:  # face_down, stock, pile (ordered) and every scalar (run, count...) exactly
            g, w = got[key], want[key]
        assert g == w, (f"{key}: sim={g!r} reference={w!r}", ctx)


def candidate_bad_moves():
    """Moves that are legal in some positions, plus malformed ones (R24, docs/position.md)."""
    moves = [{"play": [c] * k} for c in CARDS for k in range(1, 9)]  # up to 4·d (H18)
    moves += [{"blind": True}, {"pickup": True}, {"end": True}]      # "end": H19
    moves += [{"pickup": True, "add": c} for c in CARDS]
    moves += [{"pickup": True, "add": c, "n": n} for c in CARDS for n in range(1, 5)]  # H11
    moves += [
        {"play": []}, {"play": ["1"]}, {"play": ["5", "6"]}, {"blind": False},
        {"pickup": True, "add": None}, {"pickup": False}, {"play": ["5"], "pickup": True},
        {"pickup": True, "blind": True}, {}, {"end": False}, {"end": 1},
        {"end": True, "pickup": True}, {"pickup": True, "n": 1},
        {"pickup": True, "add": "5", "n": 0}, {"pickup": True, "add": "5", "n": True},
        {"pickup": True, "add": "5", "n": 1.0}, {"pickup": True, "add": "5", "n": None},
    ]
    return moves


BAD_MOVES = candidate_bad_moves()


def sorted_keys(keys):
    return sorted(keys, key=repr)


def check_illegal_refused(pos, legal_keys, rng, ctx):
    """Two random moves that are not legal here must be refused by both (R24)."""
    before = copy_position(pos)
    tried = 0
    while tried < 2:
        move = rng.choice(BAD_MOVES)
        if _legal(move, legal_keys):
            continue
        tried += 1
        with pytest.raises(ValueError):
            ref_apply(pos, move)
        with pytest.raises(ValueError):
            real.apply(pos, move)
            pytest.fail(f"sim.kernel.position.apply accepted {move!r}: {ctx}")
    assert pos == before, ("input mutated by a refused move", ctx)


def bad_runs(pos):
    """Positions whose ``run`` breaks docs/position.md's H19 rules (only under ``play_on``): more
    than the equal cards on top, not an integer >= 0, or a chain where the mover's source
    holds no card of the top's rank or the top is of the cover rank."""
    pile = pos["pile"]
    top_equal = 0
    for card in reversed(pile):
        if card != pile[-1]:
            break
        top_equal += 1
    bad = [dict(pos, run=-1), dict(pos, run=True), dict(pos, run=top_equal + 1)]
    if pile and pos["count"] > 0 and not pos.get("run"):
        seat = pos["current"]
        source = pos["hands"][seat] or pos["face_up"][seat]
        if pile[-1] not in source:
            bad.append(dict(pos, run=1))
    return bad


def check_bad_runs_refused(pos, ctx):
    for bad in bad_runs(pos):
        with pytest.raises(ValueError):
            ref_legal_moves(bad)
        with pytest.raises(ValueError):
            real.legal_moves(bad)
            pytest.fail(f"sim.kernel.position.legal_moves accepted run={bad['run']!r}: {ctx}")


def _legal(move, legal_keys):
    try:
        return move_key(move) in legal_keys
    except ValueError:
        return False


# --------------------------------------------------------------------------- one game

SPECIAL = {"2": 20, "10": 21, "JK": 22}  # kept for last by the sensible choice


def choose_move(keys, rng, greedy):
    """A random legal move; with probability ``greedy`` the sensible one instead: the
    lowest rank, as many cards as allowed (H19: the longest continuation), pick up only
    when nothing else is legal. (Purely random play picks up so often that few games
    would reach their end.)"""
    plays = [k for k in keys if k[0] in ("play", "blind")]
    if plays and rng.random() < greedy:
        def badness(k):
            if k[0] == "blind":
                return (0, 0)
            rank = k[1][0]
            return (SPECIAL.get(rank, CARDS.index(rank)), -len(k[1]))
        return min(plays, key=badness)
    return rng.choice(keys)


def run_game(seed, ruleset=None, players=None, family="main"):
    """Deal and play one random game with both implementations in lockstep (the ruleset
    is random in ``family`` unless given)."""
    rng = random.Random(seed)
    pos, forced = deal_position(rng, ruleset, players=players, family=family)
    deck = Counter(ref_deck(pos["ruleset"], pos["players"]))
    play_on = ref_ruleset(pos["ruleset"])["play_on"]
    greedy = rng.choice([0.3, 0.7, 0.9, 0.97])  # how often the move is the "sensible" one
    real_pos = copy_position(pos)
    ref_pos = copy_position(pos)
    history = []

    for step in range(MAX_MOVES):
        ctx = {"seed": seed, "step": step, "last_moves": history[-6:], "position": ref_pos}
        assert all_cards(real_pos) == deck, ("cards not conserved", ctx)
        assert all_cards(ref_pos) == deck, ("reference lost cards", ctx)

        real_before = copy_position(real_pos)
        real_moves = real.legal_moves(real_pos)
        assert real_pos == real_before, ("legal_moves mutated its input", ctx)
        ref_moves = ref_legal_moves(ref_pos)
        real_keys = [move_key(m) for m in real_moves]
        assert len(real_keys) == len(set(real_keys)), ("a move is listed twice", real_moves, ctx)
        ref_keys = {move_key(m) for m in ref_moves}
        assert set(real_keys) == ref_keys, (
            "legal moves differ",
            {"sim_only": set(real_keys) - ref_keys, "reference_only": ref_keys - set(real_keys)},
            ctx,
        )
        if not ref_keys:  # game over: both must refuse every move
            assert ref_pos["winner"] is not None, ("no legal move but no winner", ctx)
            for move in rng.sample(BAD_MOVES, 3):
                with pytest.raises(ValueError):
                    real.apply(real_pos, move)
            return ref_pos

        if rng.random() < 0.3:
            check_illegal_refused(real_pos, ref_keys, rng, ctx)
        if play_on and rng.random() < 0.1:
            check_bad_runs_refused(real_pos, ctx)  # H19: position validity of "run"

        if step == 0 and forced is not None:
            key = move_key(forced)  # H16: the forced opening, an ordinary legal lead
            assert key in ref_keys, ("forced opening not legal", ctx)
        else:
            key = choose_move(sorted_keys(ref_keys), rng, greedy)
        real_move = next(m for m in real_moves if move_key(m) == key)
        ref_move = next(m for m in ref_moves if move_key(m) == key)
        history.append(ref_move)
        ctx["move"] = ref_move

        new_real = real.apply(real_pos, real_move)
        assert real_pos == real_before, ("apply mutated its input", ctx)
        new_ref = ref_apply(ref_pos, ref_move)
        assert_same_position(new_real, new_ref, ctx)
        real_pos, ref_pos = new_real, new_ref
    return ref_pos


# --------------------------------------------------------------------------- cases

def preset_cases():
    """(id, ruleset, players): every §11.4 preset as named at every player count of its
    range, and boothj5 at hand size 4 wherever its deck allows (§11.4: "boothj5 also 4")."""
    cases = []
    for name, (low, high) in PRESET_PLAYERS.items():
        cases += [(f"{name}-{n}p", name, n) for n in range(low, high + 1)]
    booth4 = {"base": "boothj5", "hand_size": 4}
    cases += [(f"boothj5-hand4-{n}p", booth4, n) for n in allowed_players(booth4)]
    return cases


PRESET_CASES = preset_cases()


def new_option_combinations():
    """H11's four values x H18's four values x H19 x H20, each allowed set once (§11.3: H19
    needs H1 off, so the count rule goes with it), on `seed`."""
    combos = []
    for faceup in ("may_add_one", "pile_only", "must_add_rank", "one_then_rank"):
        for decks in (1, 2, "masters", "boothj5"):
            for play_on in (False, True):
                for out_before_burn in (False, True):
                    ruleset = {"base": "seed", "faceup_pickup": faceup, "decks": decks,
                               "play_on": play_on, "out_before_burn": out_before_burn}
                    if play_on:
                        ruleset["count_rule"] = False
                    combos.append(ruleset)
    return combos


NEW_COMBOS = new_option_combinations()


def _id(ruleset):
    return "-".join(f"{k}={v}" for k, v in ruleset.items() if k != "base")


# --------------------------------------------------------------------------- tests

def test_differential_fast_main():
    """A quick sample in the fast lane: random rulesets of H1-H17 and the presets of main."""
    for seed in range(12):
        run_game(seed, family="main")
    for _, ruleset, players in PRESET_CASES:
        if not uses_new_options(ruleset, players) and players in (2, 4):
            run_game(100 + players, ruleset, players)


def test_differential_fast_new():
    """A quick sample in the fast lane with H11 "one_then_rank" and H18-H20: random option
    sets, and the presets that use them, at 2 to 8 players."""
    for seed in range(10):
        run_game(seed, family="new")
    for index, (_, ruleset, players) in enumerate(PRESET_CASES):
        if uses_new_options(ruleset, players):
            run_game(200 + index, ruleset, players)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_differential_random_games(family, seed):
    run_game(seed, family=family)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_differential_200_seeded_games(family):
    outcomes = Counter()
    for seed in range(200):
        final = run_game(seed, family=family)
        outcomes["over" if final["winner"] is not None else "cut"] += 1
    assert outcomes["over"] > 0  # the games do reach their end, so the end rules are compared


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, players", [case[1:] for case in PRESET_CASES],
                         ids=[case[0] for case in PRESET_CASES])
def test_differential_every_preset(ruleset, players):
    """Each §11.4 preset as named, at every player count of its range (§11.4)."""
    for seed in range(12):
        run_game(seed, ruleset, players)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", NEW_COMBOS, ids=[_id(r) for r in NEW_COMBOS])
def test_differential_new_option_combinations(ruleset):
    """H11 x H18 x H19 x H20, every allowed combination, at every player count allowed."""
    for players in allowed_players(ruleset):
        for seed in range(2):
            run_game(1000 * players + seed, ruleset, players)


@pytest.mark.slow
def test_differential_seed_family():
    """R1-R26, V1, V2 only (no house rule): the rulesets of docs/rules.md §1-§10."""
    for seed in range(100):
        run_game(seed, SEED_FAMILY[seed % len(SEED_FAMILY)])


@pytest.mark.parametrize("family", FAMILIES)
def test_random_ruleset_gives_allowed_and_varied_rulesets(family):
    rng = random.Random(1)
    seen = Counter()  # (option, value) -> how many rulesets had it
    kinds = Counter()  # preset names and objects
    player_counts = Counter()
    for _ in range(300):
        ruleset = random_ruleset(rng, family)
        opts = ref_ruleset(ruleset)  # allowed (§11.3)
        players = allowed_players(ruleset, family)
        assert players and all(ref_ruleset(ruleset, n) for n in players)
        if family == "main":
            assert not any(uses_new_options(ruleset, n) for n in players)
        else:
            assert any(uses_new_options(ruleset, n) for n in players)
        player_counts.update(players)
        for key, value in opts.items():
            seen[key, repr(value) if key != "starter_order" else len(value) == 13] += 1
        kinds["name" if isinstance(ruleset, str) else "object"] += 1
    for key in ("count_rule", "ten_anywhere", "four_burns", "seven_lower", "burn_plays_again",
                "skip_per_card", "reverse_per_card", "forced_opening", "choose_face_ups",
                "last_player_loses"):
        assert seen[key, "True"] and seen[key, "False"], key
    for key, values in [("voluntary_pickup", ["except_blind", "always", "never"]),
                        ("faceup_pickup", ["may_add_one", "pile_only", "must_add_rank"]),
                        ("jokers", ["six_players", "never", "always"]),
                        ("starter", ["dealt", "hand"]), ("hand_size", [3, 4]),
                        ("removed_before_deal", ["none", "masters"])]:
        for value in values:
            assert seen[key, repr(value)], (key, value)
    for key in ("transparent_rank", "skip_rank", "reverse_rank", "cover_rank"):
        with_rank = sum(n for (k, v), n in seen.items() if k == key and v != "None")
        assert seen[key, "None"] and with_rank, key
    assert seen["starter_order", True] and seen["starter_order", False]
    assert kinds["name"] and kinds["object"]
    if family == "main":
        assert set(player_counts) == {2, 3, 4, 5, 6}
        assert not seen["faceup_pickup", repr("one_then_rank")]
        assert {value for key, value in seen if key == "decks"} <= {"1", "'boothj5'"}
    else:
        assert set(player_counts) == {2, 3, 4, 5, 6, 7, 8}  # H18: 7 and 8 with two decks
        for key, values in [("decks", [1, 2, "masters", "boothj5"]),
                            ("play_on", [True, False]), ("out_before_burn", [True, False]),
                            ("faceup_pickup", ["one_then_rank"])]:
            for value in values:
                assert seen[key, repr(value)], (key, value)


@pytest.mark.parametrize("family", FAMILIES)
def test_deal_follows_H12_H13_H17_H18(family):
    rng = random.Random(7)
    sizes = Counter()
    for _ in range(200):
        ruleset = random_ruleset(rng, family)
        pos, forced = deal_position(rng, ruleset, check_real=False, family=family)
        opts = ref_ruleset(ruleset)
        n, size = pos["players"], opts["hand_size"]
        assert all(len(z) == size for z in pos["hands"] + pos["face_up"] + pos["face_down"])
        removed = pos.get("removed", [])
        cards = ref_deck(opts, n)
        assert all_cards(pos) == Counter(cards)
        decks = ref_decks(opts, n)
        jokers = 2 if opts["jokers"] == "always" or (
            opts["jokers"] == "six_players" and n >= 6) else 0
        assert len(cards) == 52 * decks + jokers  # H13, H18
        sizes[len(cards)] += 1
        spare = len(cards) - 17 * n  # H17: D = 52·d + jokers
        if opts["removed_before_deal"] == "masters" and spare >= 2 * n:
            assert spare - 2 * n <= len(removed) <= spare - 1
        else:
            assert removed == []
        assert (forced is not None) == opts["forced_opening"]
    if family == "new":
        assert sizes[104] and sizes[106] and sizes[52]


def test_preset_cases_cover_every_preset_at_every_player_count():
    """§11.4: masters 2-6, boothj5 2-8 (at hand size 3 and 4), classic 2-5, seed 2-6."""
    got = Counter(case[0].rsplit("-", 1)[0] for case in PRESET_CASES)
    assert got == {"seed": 5, "classic": 4, "masters-of-shithead": 5, "boothj5": 7,
                   "boothj5-hand4": 7}
    assert len(NEW_COMBOS) == 64
    for ruleset in NEW_COMBOS:
        assert allowed_players(ruleset), ruleset
