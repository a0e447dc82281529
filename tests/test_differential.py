"""Differential test: ``sim.kernel.position`` against the independent reference (tests/reference_rules.py).

Random games are dealt (R1, R4, R5, R6, and under random rulesets of RULES.md §11: H12's
hand size, H13's jokers, H14/H15's starter, H16's forced opening, H17's removed cards, V1's
chosen face-ups) and played with random legal moves; at every step the legal moves of both
sides must be the same set, the position each side computes after the chosen move must be
the same (multisets where order carries no meaning: hands, face-ups, burned, removed;
ordered lists for face-downs, stock and pile; everything else exactly), a few random illegal
or malformed moves must be refused by both with ValueError, inputs must not be mutated, and
no card may appear or vanish.
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
    OPTION_KEYS,
    PRESET_PLAYERS,
    PRESETS,
    RANKS_13,
    copy_position,
    deck_size,
    move_key,
    ref_apply,
    ref_deck,
    ref_first_player,
    ref_forced_opening,
    ref_legal_moves,
    ref_ruleset,
)

MAX_MOVES = 400
V1 = {"base": "seed", "choose_face_ups": True}
V2 = {"base": "seed", "last_player_loses": True}
SEED_FAMILY = ["seed", V1, V2, {"base": "seed", "choose_face_ups": True,
                                 "last_player_loses": True}]


# --------------------------------------------------------------------------- rulesets

ROLE_KEYS = ["transparent_rank", "skip_rank", "reverse_rank", "cover_rank"]  # H5-H8
ROLE_RANKS = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]  # §11.3: no 2, 10, JK


def _random_value(rng, key, opts):
    """A random value of option ``key`` (§11.2); ``opts`` is the option set built so far."""
    if key in ("count_rule", "ten_anywhere", "four_burns", "seven_lower", "skip_per_card",
               "reverse_per_card", "burn_plays_again", "choose_face_ups",
               "last_player_loses", "forced_opening"):
        return rng.random() < 0.5
    if key in ROLE_KEYS:  # H5-H8: pairwise different, never 2/10/JK, no 7 under H4
        taken = {opts[k] for k in ROLE_KEYS if k != key}
        free = [r for r in ROLE_RANKS if r not in taken
                and not (r == "7" and opts["seven_lower"])]
        return rng.choice([None] + free)
    choices = {
        "voluntary_pickup": ["except_blind", "always", "never"],       # H10
        "faceup_pickup": ["may_add_one", "pile_only", "must_add_rank"],  # H11
        "hand_size": [3, 4],                                             # H12
        "jokers": ["six_players", "never", "always"],                    # H13
        "starter": ["dealt", "hand"],                                    # H14
        "removed_before_deal": ["none", "masters"],                      # H17
    }
    if key in choices:
        return rng.choice(choices[key])
    if key == "starter_order":  # H15: distinct ranks, in any order, partial or even empty
        ranks = list(RANKS_13)
        rng.shuffle(ranks)
        return ranks if rng.random() < 0.6 else ranks[:rng.randint(0, 12)]
    raise AssertionError(key)


def random_ruleset(rng):
    """An allowed ruleset (§11): a preset by name, or {"base": preset, ...} with random
    options changed (refused combinations, §11.3, are never returned)."""
    if rng.random() < 0.3:
        return rng.choice(list(PRESETS))
    base = rng.choice(list(PRESETS))
    change = rng.choice([0.1, 0.3, 0.6])  # how many options differ from the base
    while True:
        opts = copy.deepcopy(PRESETS[base])
        keys = list(OPTION_KEYS)
        rng.shuffle(keys)
        for key in keys:
            if rng.random() < change:
                opts[key] = _random_value(rng, key, opts)
        if opts["seven_lower"] and "7" in [opts[k] for k in ROLE_KEYS]:
            continue  # §11.3: a 7 role under H4 (seven_lower changed after the roles)
        if opts["forced_opening"] and not (
                opts["starter"] == "hand" and sorted(opts["starter_order"]) == sorted(RANKS_13)):
            opts["forced_opening"] = False  # H16 needs H14 "hand" and all 13 ranks (§11.3)
        ruleset = {"base": base}
        for key in OPTION_KEYS:  # the changed keys, and now and then an unchanged one
            if opts[key] != PRESETS[base][key] or rng.random() < 0.1:
                ruleset[key] = opts[key]
        assert ref_ruleset(ruleset) == opts, ruleset  # allowed by §11.3
        if allowed_players(ruleset):
            return ruleset


def allowed_players(ruleset):
    """Player counts for a ruleset: R1's 2-6, limited by the deck (§11.3: players x 3 x
    hand_size <= deck size, H12, H13) and, for a preset as it stands, its range (§11.4)."""
    opts = ref_ruleset(ruleset)
    low, high = 2, 6
    base = ruleset if isinstance(ruleset, str) else ruleset["base"]
    if opts == PRESETS[base]:
        low, high = PRESET_PLAYERS[base]
    return [n for n in range(low, high + 1)
            if n * 3 * opts["hand_size"] <= deck_size(opts, n)]


def uses_house_rules(opts):
    """Any §11 option away from `seed` (V1 and V2 are §10's, not house rules)."""
    return any(opts[key] != PRESETS["seed"][key] for key in OPTION_KEYS
               if key not in ("choose_face_ups", "last_player_loses"))


# --------------------------------------------------------------------------- dealing

def h17_removed_count(rng, deck_cards, players):
    """H17: spare = D - 17n; k = spare - u, u uniform in 1..2n, if spare >= 2n; else 0.

    Decided: D is the deck H13 gives (52, or 54 with jokers), and the formula is used as
    written whatever the hand size (H12 does not mention H17)."""
    spare = deck_cards - 17 * players
    if spare >= 2 * players:
        return spare - rng.randint(1, 2 * players)
    return 0


def deal_position(rng, ruleset=None, check_real=True):
    """A dealt position, its first player and the swap, and the H16 forced opening.

    Returns (position, forced opening move or None). R4 / H12: packets of hand_size cards
    face down, face up, to the hand (V1: face down, then twice hand_size to the hand, of
    which each player chooses hand_size face up). H17: the removed cards come off the top
    of the shuffled deck first. R6 / H14 "dealt" reads the deal before the swap (R5); H14
    "hand" reads the hands after it; V1 reads the chosen face-ups. With ``check_real``,
    ``sim.kernel.position.first_player`` must agree with the reference.
    """
    if ruleset is None:
        ruleset = random_ruleset(rng)
    opts = ref_ruleset(ruleset)
    players = rng.choice(allowed_players(ruleset))
    size = opts["hand_size"]
    deck = ref_deck(opts, players)
    rng.shuffle(deck)  # the last element is the top
    removed = []
    if opts["removed_before_deal"] == "masters":
        removed = [deck.pop() for _ in range(h17_removed_count(rng, len(deck), players))]
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
    assert set(got) == set(want), ("keys differ", set(got) ^ set(want), ctx)
    for key in want:
        if key in ("hands", "face_up"):
            g = [Counter(z) for z in got[key]]
            w = [Counter(z) for z in want[key]]
        elif key in ("burned", "removed"):
            g, w = Counter(got[key]), Counter(want[key])
        else:  # face_down, stock, pile (ordered) and every scalar / list exactly
            g, w = got[key], want[key]
        assert g == w, (f"{key}: sim={g!r} reference={w!r}", ctx)


def candidate_bad_moves():
    """Moves that are legal in some positions, plus malformed ones (R24, POSITION.md)."""
    moves = [{"play": [c] * k} for c in CARDS for k in range(1, 5)]
    moves += [{"blind": True}, {"pickup": True}]
    moves += [{"pickup": True, "add": c} for c in CARDS]
    moves += [
        {"play": []}, {"play": ["1"]}, {"play": ["5", "6"]}, {"blind": False},
        {"pickup": True, "add": None}, {"pickup": False}, {"play": ["5"], "pickup": True},
        {"pickup": True, "blind": True}, {},
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


def _legal(move, legal_keys):
    try:
        return move_key(move) in legal_keys
    except ValueError:
        return False


# --------------------------------------------------------------------------- one game

SPECIAL = {"2": 20, "10": 21, "JK": 22}  # kept for last by the sensible choice


def choose_move(keys, rng, greedy):
    """A random legal move; with probability ``greedy`` the sensible one instead: the
    lowest rank, as many cards as allowed, pick up only when nothing else is legal.
    (Purely random play picks up so often that few games would reach their end.)"""
    plays = [k for k in keys if k[0] != "pickup"]
    if plays and rng.random() < greedy:
        def badness(k):
            if k[0] == "blind":
                return (0, 0)
            rank = k[1][0]
            return (SPECIAL.get(rank, CARDS.index(rank)), -len(k[1]))
        return min(plays, key=badness)
    return rng.choice(keys)


def run_game(seed, ruleset=None):
    """Deal and play one random game with both implementations in lockstep (the ruleset
    is random unless given)."""
    rng = random.Random(seed)
    pos, forced = deal_position(rng, ruleset)
    deck = Counter(ref_deck(pos["ruleset"], pos["players"]))
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


# --------------------------------------------------------------------------- tests

@pytest.mark.slow
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_differential_random_games(seed):
    run_game(seed)


@pytest.mark.slow
def test_differential_200_seeded_games():
    outcomes = Counter()
    for seed in range(200):
        final = run_game(seed)
        outcomes["over" if final["winner"] is not None else "cut"] += 1
    assert outcomes["over"] > 0  # the games do reach their end, so the end rules are compared


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_differential_every_preset(preset):
    """Each §11.4 preset as named, over its player range (§11.4)."""
    for seed in range(25):
        run_game(seed, preset)


@pytest.mark.slow
def test_differential_seed_family():
    """R1-R26, V1, V2 only (no house rule): the rulesets of RULES.md §1-§10."""
    for seed in range(100):
        run_game(seed, SEED_FAMILY[seed % len(SEED_FAMILY)])


def test_random_ruleset_gives_allowed_and_varied_rulesets():
    rng = random.Random(1)
    seen = Counter()  # (option, value) -> how many rulesets had it
    kinds = Counter()  # preset names and objects
    for _ in range(300):
        ruleset = random_ruleset(rng)
        opts = ref_ruleset(ruleset)  # allowed (§11.3)
        players = allowed_players(ruleset)
        assert players and all(ref_ruleset(ruleset, n) for n in players)
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


def test_deal_follows_H12_H13_H17():
    rng = random.Random(7)
    for _ in range(200):
        ruleset = random_ruleset(rng)
        pos, forced = deal_position(rng, ruleset, check_real=False)
        opts = ref_ruleset(ruleset)
        n, size = pos["players"], opts["hand_size"]
        assert all(len(z) == size for z in pos["hands"] + pos["face_up"] + pos["face_down"])
        removed = pos.get("removed", [])
        assert all_cards(pos) == Counter(ref_deck(opts, n))
        if opts["removed_before_deal"] == "masters":
            spare = len(ref_deck(opts, n)) - 17 * n
            if spare >= 2 * n:
                assert spare - 2 * n <= len(removed) <= spare - 1
            else:
                assert removed == []
        else:
            assert removed == []
        assert (forced is not None) == opts["forced_opening"]
