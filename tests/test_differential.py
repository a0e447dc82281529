"""Differential test: ``sim.rules`` against the independent reference (tests/reference_rules.py).

Random games are dealt (R1, R4, R5, R6) and played with random legal moves; at every step the
legal moves of both sides must be the same set, the position each side computes after the
chosen move must be the same (multisets where order carries no meaning: hands, face-ups,
burned; ordered lists for face-downs, stock and pile; everything else exactly), a few random
illegal or malformed moves must be refused by both with ValueError, inputs must not be
mutated, and no card may appear or vanish.
"""

import copy
import os
import random
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim.rules as real

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_rules import (  # noqa: E402
    CARDS,
    copy_position,
    move_key,
    ref_apply,
    ref_first_player,
    ref_legal_moves,
)

MAX_MOVES = 400
V2 = {"base": "seed", "last_player_loses": True}


# --------------------------------------------------------------------------- dealing

def full_deck(players):
    """R1: 52 cards, plus 2 jokers with 6 players."""
    deck = [c for c in CARDS if c != "JK" for _ in range(4)]
    if players == 6:
        deck += ["JK", "JK"]
    return deck


def deal_position(rng):
    """A dealt position (R4), its first player (R6, as dealt) and a random swap (R5)."""
    players = rng.randint(2, 6)
    ruleset = rng.choice(["seed", V2])
    deck = full_deck(players)
    rng.shuffle(deck)
    with_dealer = rng.random() < 0.8
    dealer = rng.randrange(players) if with_dealer else players - 1
    order = [(dealer + 1 + i) % players for i in range(players)]  # dealer's left first
    face_down = [[] for _ in range(players)]
    face_up = [[] for _ in range(players)]
    hands = [[] for _ in range(players)]
    for zone in (face_down, face_up, hands):  # R4: packets of three, in this order
        for seat in order:
            for _ in range(3):
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
    if with_dealer:
        pos["dealer"] = dealer
    first = ref_first_player(pos)
    assert real.first_player(copy.deepcopy(pos)) == first, ("first_player (R6)", pos)
    pos["current"] = first
    # R5: each player may exchange cards between hand and face-ups (after R6, as decided)
    for seat in range(players):
        if rng.random() < 0.5:
            pool = hands[seat] + face_up[seat]
            rng.shuffle(pool)
            hands[seat], face_up[seat] = pool[:3], pool[3:]
    return pos


# --------------------------------------------------------------------------- comparing

def all_cards(pos):
    c = Counter(pos["pile"]) + Counter(pos["stock"]) + Counter(pos["burned"])
    for zone in pos["hands"] + pos["face_up"] + pos["face_down"]:
        c += Counter(zone)
    return c


def assert_same_position(got, want, ctx):
    assert set(got) == set(want), ("keys differ", set(got) ^ set(want), ctx)
    for key in want:
        if key in ("hands", "face_up"):
            g = [Counter(z) for z in got[key]]
            w = [Counter(z) for z in want[key]]
        elif key == "burned":
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
            pytest.fail(f"sim.rules.apply accepted {move!r}: {ctx}")
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


def run_game(seed):
    """Deal and play one random game with both implementations in lockstep."""
    rng = random.Random(seed)
    pos = deal_position(rng)
    deck = Counter(full_deck(pos["players"]))
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

@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_differential_random_games(seed):
    run_game(seed)


def test_differential_200_seeded_games():
    outcomes = Counter()
    for seed in range(200):
        final = run_game(seed)
        outcomes["over" if final["winner"] is not None else "cut"] += 1
    assert outcomes["over"] > 0  # the games do reach their end, so the end rules are compared
