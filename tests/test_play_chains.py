"""Chains (H19), big plays (H18) and the one_then_rank pick-up (H11) in the front ends: `sim
play` offers a chain's continuations and `end` in plain words and reads them (and `add K K`,
`pickup K K`, plays of 5 to 8 cards); `sim replay` and `sim review` tell a chain as one turn
of several moves, numbered by its moves (so that `--at` still names a move); a saved game
round-trips chains, `end` and the adds of one_then_rank, through --file and --load."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.cli.play import Terminal, play
from sim.commands.savedgame import load
from sim.cli.table import Table
from sim.cli.words import parse
from sim.kernel.cards import rank_code
from sim.kernel.layout import ADD, ADDN, CHAIN, CURRENT, END, PICKUP
from sim.kernel.moves import play_id
from sim.kernel.position import to_state
from sim.kernel.ruleset import Ruleset
from sim.studies.review import move_phrase
from tests.positions import pos

MASTERS = "masters-of-shithead"


def run(*args, input=""):
    return CliRunner().invoke(app, [str(a) for a in args], input=input)


@pytest.mark.parametrize("text,expected", [
    ("end", {"end": True}),                                          # H19
    ("end turn", {"end": True}),
    ("stop", {"end": True}),
    ("add K K", {"pickup": True, "add": "K", "n": 2}),               # H11 one_then_rank
    ("pickup K K K", {"pickup": True, "add": "K", "n": 3}),
    ("pickup K", {"pickup": True, "add": "K"}),
    ("7 7 7 7 7 7", {"play": ["7"] * 6}),                            # H18: two decks
])
def test_chain_words_adds_and_big_plays_are_read(text, expected):
    assert parse(text) == ("move", expected)


@pytest.mark.parametrize("text", ["7 7 7 7 7 7 7 7 7", "add K Q", "end now"])
def test_nine_cards_or_mixed_adds_are_not_moves(text):
    what, why = parse(text)
    assert what == "garbage" and why


def _table_at(ruleset, **position):
    """A game of sim play standing at a hand-written position (seat 0 the human)."""
    rs = Ruleset.parse(ruleset)
    p = pos(players=2, ruleset=ruleset, jokers=bool(rs.jokers_for(2)), decks=rs.decks_for(2),
            **position)
    t = Table(2, rs, 1, opponents=["lowest"])
    t.st[:] = to_state(p)
    t.start = t.st.copy()
    return t


ONE_THEN_RANK = {"base": "seed", "count_rule": False, "faceup_pickup": "one_then_rank"}
FACE_UP_KINGS = dict(hands=[[], ["4"]], face_up=[["K", "K", "5"], ["9"]],
                     face_down=[["3"], ["3"]], pile=["A"], count=1)


def test_one_then_rank_adds_are_written_as_many_cards_as_go_along():
    """H11 one_then_rank: `add K` takes one face-up K, `add K K` both (all of them: ADD + r,
    saved with its n); each legal move is listed as it is typed, no two alike."""
    t = _table_at(ONE_THEN_RANK, **FACE_UP_KINGS)
    words = [move_phrase(t.st, m) for m in t.legal()]
    assert {"add K", "add K K", "add 5"} <= set(words) and len(set(words)) == len(words)
    king = rank_code("K")
    assert t.typed_id({"pickup": True, "add": "K"}) == ADDN + king          # k = 1 of them
    assert t.typed_id({"pickup": True, "add": "K", "n": 2}) == ADD + king   # all of them
    assert t.why_illegal(parse("add K K K")[1]) == "illegal move {'pickup': True, 'add': " \
        "'K', 'n': 3} (R24): you have 2 face-up K (H11 one_then_rank)"
    t.play(t.typed_id(parse("add K K")[1]))
    assert t.log[-1]["move"] == {"pickup": True, "add": "K", "n": 2}


@pytest.mark.parametrize("rule,typed,why", [
    ("may_add_one", "add K K", "one face-up card at most goes along with the pile (R12)"),
    ("must_add_rank", "add K", None),
    ("must_add_rank", "add K K", None),
    ("pile_only", "add K K", "no face-up card goes along with the pile (H11 "
                             "faceup_pickup=pile_only)"),
])
def test_other_face_up_pickups_read_the_cards_written_as_their_rule_says(rule, typed, why):
    """R12: one card; H11 must_add_rank: all of them, written or not; pile_only: none."""
    t = _table_at({"base": "seed", "count_rule": False, "faceup_pickup": rule},
                  **FACE_UP_KINGS)
    got = t.why_illegal(parse(typed)[1])
    assert (got is None) == (why is None) and (why is None or why in got), got
    if why is None:
        assert t.typed_id(parse(typed)[1]) == ADD + rank_code("K")


def test_a_chain_offers_its_continuations_and_end_in_words():
    """H19: after a play the mover may add cards of its rank or end the turn; the prompt
    says so, the table view too, and `end` ends it."""
    t = _table_at({"base": "seed", "count_rule": False, "play_on": True},
                  hands=[["7", "7", "7", "9"], ["4"]], face_up=[["5"], ["9"]],
                  face_down=[["3"], ["3"]])
    t.play(play_id(rank_code("7"), 1))          # one 7; two more in hand
    assert t.st[CHAIN] == 1 and int(t.st[CURRENT]) == 0
    said = []
    stdin = iter(["end\n"])

    class Lines:
        def isatty(self):
            return False

        def readline(self):
            return next(stdin, "")
    from sim.cli.play import _ask_move
    m = _ask_move(t, Terminal(stdin=Lines(), echo=said.append), None)
    assert m == END
    text = "\n".join(said)
    assert "you may go on (H19): play another 7 or end your turn: `7`, `7 7`, `end`." in text
    assert "you may play more 7s or end the turn (H19)" in text
    assert "  you may: 7 | 7 7 | end" in text
    assert t.why_illegal({"pickup": True}).endswith("no pick-up and no other rank (H19)")


def test_big_plays_of_two_decks_are_typed_as_their_cards():
    """H18: with two decks a play may have 5 to 8 cards of a rank, typed as them."""
    t = _table_at({"base": "seed", "decks": 2, "count_rule": False},
                  hands=[["7"] * 6 + ["9"], ["4"]], face_up=[["5"], ["9"]],
                  face_down=[["3"], ["3"]])
    assert t.why_illegal(parse("7 7 7 7 7 7")[1]) is None
    m = t.typed_id(parse("7 7 7 7 7")[1])
    assert m == play_id(rank_code("7"), 5) and m in t.legal()
    assert "7 7 7 7 7 7" in [move_phrase(t.st, x) for x in t.legal()]
    assert "only 6" in t.why_illegal(parse("7 7 7 7 7 7 7")[1])


class ChainPlayer:
    """A stdin for a whole game: `keep`; in a chain `end` the first time, then the first
    continuation; a pick-up naming face-ups with the most cards written; else the first
    legal move, each typed as the list writes it."""

    def __init__(self, table):
        self.table, self.chains, self.typed = table, 0, []

    def isatty(self):
        return False

    def readline(self):
        t = self.table
        if t.start is None:
            line = "keep"
        else:
            legal = t.legal()
            words = [move_phrase(t.st, m) for m in legal]
            adds = [w for w, m in zip(words, legal) if ADD <= m < PICKUP or m >= ADDN]
            if t.st[CHAIN]:
                self.chains += 1
                line = "end" if self.chains == 1 else words[0]
            elif adds:
                line = max(adds, key=len)
            else:
                line = words[0]
        self.typed.append(line)
        return line + "\n"


def _masters_game(seed=12):
    t = Table(4, Ruleset.parse(MASTERS), seed, opponents=["cheapest"])
    stdin = ChainPlayer(t)
    said = []
    rec = play(t, Terminal(stdin=stdin, echo=said.append), None)
    return stdin.typed, rec, said


def test_a_scripted_masters_game_with_chains_end_and_adds(tmp_path):
    """masters-of-shithead (H19 play on, H11 one_then_rank, H18 two decks at 4 players):
    the human ends a chain, goes on with another, adds two face-ups; the bots' chains read as
    such; the game finishes and is saved with {"end": true} and the add's n."""
    typed, rec, said = _masters_game()
    assert rec["status"] == "finished", said[-5:]
    text = "\n".join(said)
    assert re.search(r"play another (\S+) or end your turn: `\1`.*`end`\.", text)
    assert re.search(r"\d+\. seat 0 \(you\) ends the turn", text)
    assert re.search(r"\d+\. seat 0 \(you\) goes on: plays", text)
    assert re.search(r"\d+\. seat [123] \(cheapest\) goes on: plays", text)
    moves = [e["move"] for e in rec["moves"]]
    assert {"end": True} in moves
    assert any(m.get("n", 0) >= 2 for m in moves if "add" in m), "an add of all of a rank"
    assert any(re.fullmatch(r"add (\S+)( \1)+", w) for w in typed), "typed an add of two"


def test_a_saved_chain_game_replays_as_turns_and_continues_with_load(tmp_path, monkeypatch):
    """The saved game round-trips: replay --file tells each chain as one turn numbered by
    its moves, with the same result; --at names a move inside a chain; a game saved mid-way
    and continued with --load ends as the uninterrupted one."""
    monkeypatch.setenv("HOME", str(tmp_path))
    typed, whole, _ = _masters_game()
    save = tmp_path / "g.json"
    stop = typed.index("end") + 1                         # saved right after the first end
    r = run("play", "--players", 4, "--rules", MASTERS, "--seed", 12, "--opponents",
            "cheapest", "--save", save, input="\n".join(typed[:stop] + ["save", "quit"]) + "\n")
    assert r.exit_code == 0 and load(save)["status"] == "unfinished", r.output
    r = run("play", "--load", save, input="\n".join(typed[stop:]) + "\n")
    assert r.exit_code == 0, r.output
    done = load(save)
    assert done["moves"] == whole["moves"] and done["result"] == whole["result"]
    r = run("replay", "--file", save)
    assert r.exit_code == 0, r.output
    out = r.output.splitlines()
    assert any(line.startswith("Play on (H19): a turn may be a chain of moves") for line in out)
    chain = next(line for line in out if re.match(r"\s*\d+-\d+\. seat 0 \(you\) .*; ends the "
                                                  r"turn", line))
    first, last = (int(x) for x in re.match(r"\s*(\d+)-(\d+)\.", chain).groups())
    assert whole["moves"][last - 1]["move"] == {"end": True}
    assert all(whole["moves"][i]["seat"] == 0 for i in range(first - 1, last))
    r = run("replay", "--file", save, "--at", last)       # the position before the end
    assert r.exit_code == 0, r.output
    assert f"Before turn {last}: seat 0 to move." in r.output
    assert "may play more" in r.output and "or end the turn (H19)" in r.output


def test_replay_tells_a_chain_as_one_turn_and_the_same_moves_otherwise(cli):
    """sim replay under masters: lines numbered 11-12. hold the moves of one seat's chain;
    every move is on one line, in order, and the last line of a chain ends the turn
    (an `end`, or a play after which no continuation was possible)."""
    from sim.runs.config import RunConfig
    from sim.runs.onegame import record_game

    r = cli("replay", "--rules", MASTERS, "--players", 4, "--game", 1, "--games", 2,
            "-s", "cheapest")
    assert r.exit_code == 0, r.output
    labels = re.findall(r"^\s*(\d+)(?:-(\d+))?\. seat", r.output, re.M)
    numbers = [(int(a), int(b or a)) for a, b in labels]
    assert any(b > a for a, b in numbers)                   # a chain told as one turn
    assert [a for a, _ in numbers] == [1] + [b + 1 for _, b in numbers[:-1]]   # every move
    cfg = RunConfig(games=2, players=4, rules=MASTERS, strategies=["cheapest"])
    assert numbers[-1][1] == len(record_game(cfg, 1).moves)
    lines = [line for line in r.output.splitlines() if re.match(r"\s*\d+-\d+\. seat", line)]
    assert all(line.count(";") >= 1 for line in lines)


def test_review_heads_the_decisions_of_a_chain_with_its_turn(tmp_path, cli):
    """sim review: the decisions of one chain under one heading, `turn 6-7: one turn of 2
    moves, a chain (H19)`, each decision keeping its move number; the page's table names
    the turn of each."""
    for game in range(1, 6):                  # the first game of a chain (a strategy's choice)
        r = cli("replay", "--rules", MASTERS, "--players", 4, "--game", game, "--games", 5,
                "-s", "lowest", "--save", tmp_path / "g.json")
        assert r.exit_code == 0, r.output
        chains = re.findall(r"^\s*(\d+)-(\d+)\. seat (\d) ", r.output, re.M)
        if chains:
            break
    assert chains, "no chain in 5 games of masters-of-shithead"
    first, last, seat = chains[0]
    r = cli("review", tmp_path / "g.json", "--seat", seat, "--rollouts", 4, "-q", "--out",
            tmp_path / "review")
    assert r.exit_code == 0, r.output
    assert f"turn {first}-{last}: one turn of {int(last) - int(first) + 1} moves, a chain " \
           f"(H19)" in r.output
    review = json.loads((tmp_path / "review" / "review.json").read_text())
    inside = [d for d in review["decisions"] if d["chain"] == [int(first), int(last)]]
    assert inside and all(int(first) <= d["turn"] <= int(last) for d in inside)
    r = cli("report", tmp_path / "review", "--output", tmp_path / "page.html")
    assert r.exit_code == 0, r.output
    html = (tmp_path / "page.html").read_text()
    assert "<th" in html and "in turn" in html and f"{first}-{last}" in html
