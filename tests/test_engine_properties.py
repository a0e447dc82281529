"""Invariants over random games, stepped through the kernel (OpenSpiel-style random
simulation test): cards conserved (R1), every reached position valid (POSITION.md), the
incremental pile summary equal to a recomputation (R20, R22, R23), ``apply`` never mutating,
and the same seed giving the same game whatever the threads or batches."""
from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from sim import engine, rules
from sim.core import FINISHED, UNFINISHED, deal_game
from sim.layout import (
    BLIND, COUNT, CURRENT, EV_GAME_OVER, NMOVES, OVER, PILELEN, RUN, STATE_SIZE, TOP, TOPRANK,
    TURN,
)
from sim.moves import legal_list
from sim.rng import randint, seed_game
from sim.runner import RunConfig, play_batch, run
from tests.conftest import assert_conserved

RULESETS = ["seed", {"base": "seed", "last_player_loses": True},
            {"base": "seed", "choose_face_ups": True}]


def random_game(seed, players, ruleset, steps=600, check=None):
    """Deal, swap at random, then play uniformly random legal moves; call ``check(st)``."""
    opts = rules.parse_ruleset(ruleset)
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(seed), 0)
    deal_game(st, rng, players, int(opts["choose_face_ups"]), int(opts["last_player_loses"]))
    cards = np.zeros(6 + engine.SWAP_SCRATCH, np.int32)
    for s in range(players):
        engine.swap_cards(st, s, cards)
        bits = rng_choice3(rng)
        assert engine.apply_swap(st, s, cards, bits)
    st[CURRENT] = engine.first_player(st)
    if check:
        check(st)
    for _ in range(steps):
        legal = legal_ids(st)
        assert legal.size > 0, "a seat to move always has a legal move"
        m = legal[randint(rng, legal.size)]
        ev = engine.apply_move(st, m)
        if check:
            check(st)
        if ev & EV_GAME_OVER:
            break
    return st


def legal_ids(st):
    """The legal move ids of the seat to move, through the helper strategies use."""
    out = np.zeros(NMOVES, np.int64)
    return out[:legal_list(engine.legal_word(st), st, out)]


def rng_choice3(rng):
    idx = list(range(6))
    bits = 0
    for _ in range(3):
        i = idx.pop(randint(rng, len(idx)))
        bits |= 1 << i
    return bits


def check_state(st):
    assert_conserved(st)
    pos = rules.to_position(st)
    rules.validate(pos)                                   # every reached position is valid
    again = st.copy()
    engine.derive(again)                  # the values kept incrementally equal a recomputation
    assert np.array_equal(again, st)
    assert (st[COUNT] == 0) == (st[PILELEN] == 0)          # R7, R9


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32), players=hs.integers(2, 6), rs=hs.integers(0, 2))
def test_random_games_conserve_cards_and_stay_valid(seed, players, rs):
    random_game(seed, players, RULESETS[rs], check=check_state)


@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 2**32), players=hs.integers(2, 6), rs=hs.integers(0, 1))
def test_apply_never_mutates_and_matches_kernel(seed, players, rs):
    """``sim.rules.apply`` on the JSON position gives the kernel's next position (R24)."""
    rng = np.random.default_rng(seed)
    seen = []

    def check(st):
        if st[OVER] or len(seen) > 60:
            return
        pos = rules.to_position(st, ruleset=RULESETS[rs])
        moves = rules.legal_moves(pos)
        move = moves[rng.integers(len(moves))]
        before = copy.deepcopy(pos)
        after = rules.apply(pos, move)
        assert pos == before
        nxt = st.copy()
        engine.apply_move(nxt, rules.move_to_id(move))
        expect = rules.to_position(nxt, ruleset=RULESETS[rs])
        assert {k: after[k] for k in expect} == expect
        seen.append(move)
    random_game(seed, players, RULESETS[rs], check=check)


def test_blind_only_seat_has_only_the_blind_move():
    """R14, R16: random games reach blind play, and then it is the only legal move."""
    hits = 0

    def check(st):
        nonlocal hits
        if st[OVER]:
            return
        legal = legal_ids(st)
        if BLIND in legal:
            hits += 1
            assert legal.tolist() == [BLIND]
    for seed in range(30):
        random_game(seed, 3, "seed", check=check)
    assert hits > 0


def test_same_seed_same_games_whatever_threads_and_batches():
    """Reproducible: records depend on (seed, game index) only."""
    cfg = RunConfig(games=3000, players=4, seed=11, strategies=["random", "lowest"] * 2)
    one = play_batch(cfg, 0, 3000, 1)
    two = play_batch(cfg, 0, 3000, 2)
    tail = play_batch(cfg, 1000, 2000, 2)
    for name in ("status", "turns", "order", "pickups", "burns", "starter", "dealer"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
        assert np.array_equal(getattr(one, name)[1000:], getattr(tail, name)), name
    a = run(RunConfig(games=3000, players=4, seed=11, batch=700, threads=1)).to_dict()
    b = run(RunConfig(games=3000, players=4, seed=11, batch=3000, threads=2)).to_dict()
    assert a == b
    c = run(RunConfig(games=3000, players=4, seed=12, threads=2)).to_dict()
    assert c != a


def test_batch_results_are_finished_or_unfinished_and_consistent():
    cfg = RunConfig(games=2000, players=2, seed=3, strategies=["lowest"], max_turns=500)
    b = play_batch(cfg, 0, 2000, 2)
    assert set(np.unique(b.status)) <= {FINISHED, UNFINISHED}
    assert (b.status == UNFINISHED).sum() > 0              # lowest vs lowest can loop (R25)
    assert (b.turns[b.status == UNFINISHED] == 500).all()
    assert (b.order[b.status == UNFINISHED, 0] == -1).all()
    assert (b.order[b.status == FINISHED, 0] >= 0).all()


def test_dealt_state_follows_R4():
    """R4: 3 face-down, 3 face-up, 3 in hand each; the rest is the stock (V1: 6 in hand)."""
    for players in range(2, 7):
        for v1 in (0, 1):
            st = np.zeros(STATE_SIZE, np.int32)
            rng = np.zeros(4, np.uint64)
            seed_game(rng, np.uint64(5), players)
            deal_game(st, rng, players, v1, 0)
            assert_conserved(st)
            pos = rules.to_position(st)
            assert all(len(fd) == 3 for fd in pos["face_down"])
            assert all(len(h) == (6 if v1 else 3) for h in pos["hands"])
            assert all(len(f) == (0 if v1 else 3) for f in pos["face_up"])
            assert len(pos["stock"]) == (52 if players < 6 else 54) - 9 * players
            assert st[TURN] == 0
