"""Swap policies of strategies/swaps.py (R5, V1): exact choices, always 3 of 6, the table
file format and its errors, and CLI runs."""
from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from sim.kernel.cards import CODE, NRANK
from sim.kernel.layout import PUB
from sim.runs.registry import get_swap
from strategies.swaps import (
    SPLIT_SIZE, TABLE_SIZE, read_split, read_table, split_row, split_value, table_index,
    table_row, write_split, write_table,
)

OBS = np.zeros(PUB, np.int32)


def hand(*names):
    return np.array([CODE[n] for n in names], np.int32)


def choose(spec, cards):
    s = get_swap(spec)
    return int(s.fn(cards, OBS, np.zeros(4, np.uint64), s.row()))


def split_spec(path):
    return f"split(file={str(path)!r})"


def up(cards, mask):
    """The names of the face-up cards of a mask, in rank order."""
    from sim.kernel.cards import NAMES
    return sorted((NAMES[cards[i]] for i in range(len(cards)) if (mask >> i) & 1),
                  key=CODE.get)


def table_spec(path):
    return f"table(file={str(path)!r})"


@pytest.fixture
def small_table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,c,value\n"
                    "A,K,9,5\n"          # any order within the triple
                    "3,4,5,7.5\n"
                    "\n"                 # blank lines are skipped
                    "10,2,JK,1e-3\n"
                    "Q,Q,J,7.5\n")       # ties 3,4,5: the first in combination order wins
    return path


# -- exact choices -------------------------------------------------------------------------
@pytest.mark.parametrize("names,expected", [
    (("10", "3", "2", "4", "A", "5"), ["10", "A", "2"]),
    (("2", "JK", "3", "10", "A", "K"), ["10", "2", "JK"]),        # specials before the ace
    (("3", "4", "5", "6", "7", "8"), ["6", "7", "8"]),            # no special, no ace
    (("K", "A", "3", "A", "Q", "4"), ["K", "A", "A"]),             # aces, then the king
    (("2", "2", "10", "10", "JK", "A"), ["10", "2", "2"]),        # 2 > 10 > joker
])
def test_specials_up(names, expected):
    cards = hand(*names)
    assert up(cards, choose("specials-up", cards)) == expected


def test_specials_up_ties_go_to_the_first_card():
    cards = hand("2", "10", "A", "A", "3", "4")
    assert choose("specials-up", cards) == 0b000111
    cards = hand("3", "K", "K", "K", "K", "4")
    assert choose("specials-up", cards) == 0b001110


@pytest.mark.parametrize("names,hand_kept", [
    (("10", "3", "2", "4", "A", "5"), 0b101010),                  # keeps 3, 4, 5
    (("J", "Q", "K", "10", "3", "4"), 0b111000),                  # 10 is plain: kept
    (("2", "JK", "A", "K", "Q", "J"), 0b111000),                  # 2 and joker count high
    (("5", "5", "5", "5", "9", "9"), 0b000111),                   # ties: the first stay
])
def test_lowest_hand(names, hand_kept):
    cards = hand(*names)
    assert choose("lowest-hand", cards) == 0b111111 ^ hand_kept


def test_lowest_hand_differs_from_highest_up_on_tens():
    cards = hand("J", "Q", "K", "10", "3", "4")
    assert up(cards, choose("lowest-hand", cards)) == ["J", "Q", "K"]
    assert up(cards, choose("highest-up", cards)) == ["10", "Q", "K"]


def test_table_picks_the_best_listed_triple(small_table):
    spec = table_spec(small_table)
    cards = hand("3", "9", "4", "K", "5", "A")
    assert choose(spec, cards) == 0b010101                        # 3,4,5 (7.5) over 9,K,A (5)
    cards = hand("9", "K", "A", "3", "4", "6")                    # 3,4,5 not here
    assert choose(spec, cards) == 0b000111
    cards = hand("JK", "8", "2", "10", "7", "6")
    assert up(cards, choose(spec, cards)) == ["10", "2", "JK"]


def test_table_ties_and_unlisted(small_table):
    spec = table_spec(small_table)
    cards = hand("Q", "J", "Q", "3", "4", "5")                    # both 7.5: (0,1,2) is first
    assert choose(spec, cards) == 0b000111
    cards = hand("3", "4", "5", "Q", "J", "Q")
    assert choose(spec, cards) == 0b000111
    cards = hand("6", "7", "8", "6", "7", "8")                    # nothing listed: (0,1,2)
    assert choose(spec, cards) == 0b000111


def test_table_row_layout(small_table):
    row = get_swap(table_spec(small_table)).row()
    assert row.dtype == np.float64 and row.shape == (TABLE_SIZE,) == (NRANK ** 3,)
    assert row[CODE["9"] * 196 + CODE["K"] * 14 + CODE["A"]] == 5.0
    assert row[table_index(CODE["A"], CODE["9"], CODE["K"])] == 5.0
    assert row[table_index(CODE["10"], CODE["2"], CODE["JK"])] == 1e-3
    assert np.isfinite(row).sum() == 4 and np.isneginf(row).sum() == TABLE_SIZE - 4


def test_write_table_round_trip(tmp_path):
    values = {("A", "K", "9"): 5.0, ("5", "4", "3"): 0.1 + 0.2, ("JK", "2", "10"): -3,
              ("Q", "Q", "Q"): 1e300}
    path = write_table(tmp_path / "w.csv", values)
    assert path.read_text().splitlines()[0] == "a,b,c,value"
    assert np.array_equal(read_table(path), table_row(values))
    with pytest.raises(ValueError, match="unknown card 'X'"):
        write_table(tmp_path / "bad.csv", {("X", "3", "4"): 1.0})
    with pytest.raises(ValueError, match="given twice"):
        write_table(tmp_path / "dup.csv", {("3", "4", "5"): 1.0, ("5", "3", "4"): 2.0})
    with pytest.raises(ValueError, match="must be a number"):
        write_table(tmp_path / "nan.csv", {("3", "4", "5"): float("nan")})
    assert not (tmp_path / "bad.csv").exists()


# -- every policy: exactly 3 of the 6 ------------------------------------------------------
@pytest.fixture
def random_table(tmp_path):
    rs = np.random.RandomState(3)
    from sim.kernel.cards import NAMES
    values = {}
    for a in range(NRANK):
        for b in range(a, NRANK):
            for c in range(b, NRANK):
                if rs.rand() < 0.5:
                    values[(NAMES[a], NAMES[b], NAMES[c])] = float(rs.randn())
    return write_table(tmp_path / "random.csv", values)


@pytest.mark.parametrize("policy", ["specials-up", "lowest-hand", "table"])
def test_always_three_of_six(policy, random_table):
    path = random_table
    s = get_swap(table_spec(path) if policy == "table" else policy)
    row, rng = s.row(), np.zeros(4, np.uint64)
    deck = np.array([r for r in range(13) for _ in range(4)] + [13, 13], np.int32)
    rs = np.random.RandomState(11)
    for _ in range(500):
        cards = rs.choice(deck, 6, replace=False).astype(np.int32)
        mask = int(s.fn(cards, OBS, rng, row))
        assert 0 <= mask < 64 and mask.bit_count() == 3, (cards, mask)
        if policy == "table":                     # the best value among the 20 triples
            vals = [row[table_index(*cards[list(t)])] for t in combinations(range(6), 3)]
            best = next(t for t, v in zip(combinations(range(6), 3), vals) if v == max(vals))
            assert mask == sum(1 << i for i in best)


# -- table errors --------------------------------------------------------------------------
@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    ("x,y,z,value\n3,4,5,1\n", "must start with the header a,b,c,value"),
    ("", "must start with the header a,b,c,value"),
    ("a,b,c,value\n3,4,X,1\n", "line 2: unknown card 'X'"),
    ("a,b,c,value\n3,4,5,1\n3,4,1,2\n", "line 3: unknown card '1'"),
    ("a,b,c,value\n3,4,5,high\n", "line 2: the value must be a number, got 'high'"),
    ("a,b,c,value\n3,4,5\n", "line 2: expected 4 fields"),
    ("a,b,c,value\n3,4,5,1\n5,3,4,2\n", "line 3: the triple 5/3/4 is listed twice"),
    ("a,b,c,value\n", "lists no triples"),
])
def test_table_file_errors_are_clear_on_the_cli(cli, tmp_path, content, message):
    path = tmp_path / "t.csv"
    if content is not None:
        path.write_text(content)
    r = cli("run", "--games", "10", "--swap", table_spec(path))
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "swap policy table" in r.output
    assert "Traceback" not in r.output


def test_table_without_a_file_is_a_clear_error(cli):
    with pytest.raises(ValueError, match="no file given"):
        get_swap("table").row()
    r = cli("run", "--games", "10", "--swap", "table")
    assert r.exit_code == 2 and "no file given" in r.output and "Traceback" not in r.output
    r = cli("run", "--games", "10", "--swap", "table(file=3)")
    assert r.exit_code == 2 and "must be a text" in r.output


def test_unquoted_path(small_table):
    assert get_swap(f"table(file={small_table})").row().shape == (TABLE_SIZE,)


# -- CLI runs ------------------------------------------------------------------------------
@pytest.mark.parametrize("v1", [False, True], ids=["R5", "V1"])
@pytest.mark.parametrize("policy", ["specials-up", "lowest-hand", "table", "split"])
def test_cli_run(cli, small_table, small_split, policy, v1):
    spec = {"table": table_spec(small_table), "split": split_spec(small_split)}.get(policy,
                                                                                  policy)
    args = ["run", "--games", "2000", "--seed", "5", "--json", "--swap", spec]
    r = cli(*args, *(["--v1"] if v1 else []))
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [s["swap"] for s in out["by_seat"]] == [spec] * 4
    assert out["overall"]["finished"] > 1900


# -- split: face-up triple value + hand triple value (the study's fitted model) ----------------
@pytest.fixture
def small_split(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("a,b,c,up,hand\n"
                    "A,2,10,3,0\n"              # any order within the triple
                    "3,4,5,0,2\n"
                    "\n"                        # blank lines are skipped
                    "10,4,3,1,1\n"
                    "5,2,A,1,1\n"
                    "6,7,8,0.5,0.5\n"
                    "9,J,Q,0.5,0.5\n")
    return path


def test_split_chooses_the_split_of_highest_value(small_split):
    spec = split_spec(small_split)
    cards = hand("3", "4", "5", "10", "2", "A")
    assert up(cards, choose(spec, cards)) == ["10", "A", "2"]      # 3 + 2 beats 1 + 1, 0 + 0
    cards = hand("10", "2", "A", "3", "4", "5")                    # wherever they were dealt
    assert choose(spec, cards) == 0b000111
    cards = hand("6", "7", "8", "9", "J", "Q")                      # a tie: the first split
    assert choose(spec, cards) == 0b000111
    cards = hand("9", "J", "Q", "6", "7", "8")
    assert choose(spec, cards) == 0b000111
    cards = hand("3", "3", "3", "K", "K", "K")                      # nothing listed: (0,1,2)
    assert choose(spec, cards) == 0b000111


def test_split_row_layout_and_file_round_trip(small_split, tmp_path):
    row = read_split(small_split)
    assert row.shape == (SPLIT_SIZE,) == (1 + 2 * TABLE_SIZE,) and row[0] == 3
    assert row[1 + table_index(CODE["10"], CODE["2"], CODE["A"])] == 3.0
    assert row[1 + TABLE_SIZE + table_index(CODE["3"], CODE["4"], CODE["5"])] == 2.0
    assert np.isfinite(row[1:]).sum() == 12
    values = {("A", "K", "9"): (0.1, -0.2), ("5", "4", "3"): (0.1 + 0.2, 1e300),
              ("JK", "2", "10"): (-3, 0)}
    path = write_split(tmp_path / "w.csv", values)
    assert path.read_text().splitlines()[0] == "a,b,c,up,hand"
    assert np.array_equal(read_split(path), split_row(values))
    code = np.array([table_index(CODE["3"], CODE["4"], CODE["5"])])
    assert split_value(read_split(path), code, code) == [0.1 + 0.2 + 1e300]


@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    ("a,b,c,value\n3,4,5,1\n", "must start with the header a,b,c,up,hand"),
    ("", "must start with the header a,b,c,up,hand"),
    ("a,b,c,up,hand\n3,4,X,1,2\n", "line 2: unknown card 'X'"),
    ("a,b,c,up,hand\n3,4,5,1\n", "line 2: expected 5 fields"),
    ("a,b,c,up,hand\n3,4,5,1,x\n", "the values must be numbers"),
    ("a,b,c,up,hand\n3,4,5,1,nan\n", "finite numbers"),
    ("a,b,c,up,hand\n3,4,5,1,2\n5,4,3,1,2\n", "line 3: the triple 5/4/3 is listed twice"),
    ("a,b,c,up,hand\n", "lists no triples"),
])
def test_split_file_errors_are_clear_on_the_cli(cli, tmp_path, content, message):
    path = tmp_path / "s.csv"
    if content is not None:
        path.write_text(content)
    r = cli("run", "--games", "10", "--swap", split_spec(path))
    assert r.exit_code == 2, r.output
    assert message in r.output and "swap policy split" in r.output
    assert "Traceback" not in r.output
    with pytest.raises(ValueError, match="no file given"):
        get_swap("split").row()


def test_split_agrees_with_its_numpy_value(tmp_path):
    """On random values and random deals the compiled policy returns the first split of
    highest value by :func:`split_value` (the study derives policy.csv with it)."""
    from sim.kernel.cards import NAMES
    from sim.studies.swapstudy.policy import best_splits
    rs = np.random.RandomState(5)
    values = {}
    for a in range(NRANK):
        for b in range(a, NRANK):
            for c in range(b, NRANK):
                values[(NAMES[a], NAMES[b], NAMES[c])] = tuple(rs.randn(2))
    path = write_split(tmp_path / "r.csv", values)
    s = get_swap(split_spec(path))
    row = s.row()
    deck = np.array([r for r in range(13) for _ in range(4)] + [13, 13], np.int32)
    sets = np.array([rs.choice(deck, 6, replace=False) for _ in range(500)], np.int32)
    chosen, _, _ = best_splits(row, sets)
    for cards, t in zip(sets, chosen):
        mask = int(s.fn(cards, OBS, np.zeros(4, np.uint64), row))
        vals = [split_value(row, table_index(*cards[list(u)]),
                            table_index(*cards[[i for i in range(6) if i not in u]]))
                for u in combinations(range(6), 3)]
        first = list(combinations(range(6), 3))[int(np.argmax(vals))]
        assert mask == sum(1 << i for i in first) == sum(1 << i for i in t)


# -- a hand size of 4 (house rules): 8 cards, 4 face up ----------------------------------------
def test_policies_choose_half_of_eight_cards(small_table, small_split):
    """specials-up and lowest-hand choose 4 of 8; table and split, made for 3 of 6, refuse
    (-1: the core stops the run naming the policy) instead of guessing or crashing."""
    cards = hand("3", "2", "K", "10", "4", "A", "5", "JK")
    assert up(cards, choose("specials-up", cards)) == ["10", "A", "2", "JK"]
    assert up(cards, choose("lowest-hand", cards)) == ["K", "A", "2", "JK"]
    cards = hand("9", "9", "9", "9", "8", "8", "8", "8")
    assert choose("specials-up", cards) == 0b00001111
    assert choose("lowest-hand", cards) == 0b00001111
    assert choose(table_spec(small_table), cards) == -1
    assert choose(split_spec(small_split), cards) == -1
    assert choose(split_spec(small_split), hand("3", "4", "5", "6")) == -1




def test_highest_up_matches_a_plain_reading_of_it():
    """R5, highest-up: the best half of the cards face up, 2s, 10s and jokers best, ties to the
    earlier card. The branch-free sim.kernel.baseline.highest_up against the plain reading (pick
    the best remaining card, half the hand's times) on random hands of 2 to 16 cards (H12)."""
    from sim.kernel.baseline import _UP_VALUE, highest_up

    def plain(cards):
        chosen = set()
        for _ in range(len(cards) // 2):
            best = max((i for i in range(len(cards)) if i not in chosen),
                       key=lambda i: (_UP_VALUE[cards[i]], -i))
            chosen.add(best)
        return sum(1 << i for i in chosen)

    gen = np.random.default_rng(4)
    for n in (2, 4, 6, 8, 16):
        for _ in range(300):
            cards = gen.integers(0, 14, n).astype(np.int32)
            assert highest_up(cards, None, None, None) == plain(list(cards))


def test_random_swap_is_a_fisher_yates_shuffle_of_the_positions():
    """R5, random: half the cards face up, uniformly. sim.kernel.baseline.random_swap keeps its
    shuffle of the positions in one word (the batch core allocates nothing); against the
    plain reading (a Fisher-Yates shuffle of an array of positions, the first half face up)
    with the same draws, on 2 to 16 cards (H12): the same choice and the same generator
    state after it."""
    from sim.kernel.baseline import random_swap
    from sim.kernel.rng import randint, seed_game

    def plain(n, rng):
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = randint(rng, i + 1)
            order[i], order[j] = order[j], order[i]
        return sum(1 << k for k in order[:n // 2])

    for n in (2, 4, 6, 8, 10, 12, 14, 16):
        for game in range(200):
            ours, theirs = np.zeros(4, np.uint64), np.zeros(4, np.uint64)
            seed_game(ours, 3, game)
            seed_game(theirs, 3, game)
            cards = np.zeros(n, np.int32)
            assert random_swap(cards, cards, ours, np.zeros(1)) == plain(n, theirs)
            assert (ours == theirs).all()


def test_a_given_swap_plays_the_mask_it_carries_and_is_compiled_once():
    """R5: a choice already made (sim play's human, sim review's swap) is one policy, shared."""
    from strategies.swaps import given_swap
    f = given_swap()
    assert f is given_swap()
    ro = np.zeros(3, np.int32)
    ro.flags.writeable = False
    params = np.array([0b101010], np.float64)
    params.flags.writeable = False
    assert f(ro, ro, np.zeros(4, np.uint64), params) == 0b101010
