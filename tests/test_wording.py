"""What a player reads: `sim play` edits the typed line where there is readline, speaks of
moves in the words a player types (`end`, not {"end": true}; H19), cites the rule that
turned the direction (H7 for a reverse rank, R23 for a joker) and counts in agreeing words
("1 card"); `sim review` never calls a move tied with the best a mistake, and review, hint
and analyze take their verdict words (best, tied, mistake) from one function,
reports.ties.move_verdict."""
from __future__ import annotations

import sys
import types

import pytest

import sim.cli.play as play_module
from reports.game import direction_text, pile_text, result_lines, table_view
from reports.plain import plural
from reports.ties import BEST, MISTAKE, TIED, move_verdict
from sim.cli.play import Terminal, _ask_move, line_editing
from sim.cli.table import Table
from sim.cli.words import in_typed_words, parse, typed
from sim.kernel.cards import rank_code
from sim.kernel.layout import DIR
from sim.kernel.moves import play_id
from sim.kernel.position import to_state
from sim.kernel.ruleset import Ruleset
from sim.studies import review as rv
from tests.positions import pos


class Lines:
    """A scripted stdin (not a terminal): one line per question."""

    def __init__(self, *lines):
        self.lines = iter(lines)

    def isatty(self):
        return False

    def readline(self):
        return next(self.lines, "")


def _table_at(ruleset, players=2, **position):
    """A game of sim play standing at a hand-written position (seat 0 the human)."""
    rs = Ruleset.parse(ruleset)
    p = pos(players=players, ruleset=ruleset, jokers=bool(rs.jokers_for(players)),
            decks=rs.decks_for(players), **position)
    t = Table(players, rs, 1, opponents=["lowest"])
    t.st[:] = to_state(p)
    t.start = t.st.copy()
    return t


# -- 6a: line editing ----------------------------------------------------------------------
class FakeReadline(types.ModuleType):
    def __init__(self):
        super().__init__("readline")
        self.read, self.written = [], []

    def read_history_file(self, path):
        self.read.append(path)
        raise FileNotFoundError(path)            # no history yet: not an error

    def set_history_length(self, n):
        self.length = n

    def write_history_file(self, path):
        raise PermissionError(path)              # unwritable: not an error either


def test_6a_a_terminal_imports_readline_so_arrow_keys_edit_the_line(monkeypatch, tmp_path):
    """At a terminal, readline is imported before the first input(), so
    that the arrow keys edit the line; a missing or unwritable history never fails."""
    fake = FakeReadline()
    kept = []
    monkeypatch.setitem(sys.modules, "readline", fake)
    monkeypatch.setattr(play_module, "_editing", None)
    monkeypatch.setattr(play_module, "HISTORY", tmp_path / "no" / "history")
    monkeypatch.setattr(play_module.atexit, "register", lambda f, *a: kept.append((f, a)))
    monkeypatch.setattr("builtins.input", lambda prompt: "7")

    class Tty(Lines):
        def isatty(self):
            return True
    term = Terminal(stdin=Tty(), echo=lambda text: None)
    assert term.editing and fake.read == [str(tmp_path / "no" / "history")]
    assert term.ask("your move> ") == "7"
    f, args = kept[0]
    f(*args)                                    # the history written at exit: refused, quietly
    assert Terminal(stdin=Lines()).editing is False      # a script: no readline needed


def test_6a_without_readline_play_goes_on_and_a_stray_arrow_key_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "readline", None)      # import readline: ImportError
    monkeypatch.setattr(play_module, "_editing", None)
    assert line_editing() is False
    what, why = parse("\x1b[A")
    assert what == "garbage" and "arrow" in why and "is not a card" not in why


# -- 6b: moves in the typed words ----------------------------------------------------------
def test_6b_an_illegal_move_in_a_chain_names_end_as_it_is_typed():
    """H19: in a chain the reason says `end`, the word the player types,
    not the JSON API's {"end": true}; so for the other moves written as objects."""
    t = _table_at({"base": "seed", "count_rule": False, "play_on": True},
                  hands=[["7", "7", "7", "9"], ["4"]], face_up=[["5"], ["9"]],
                  face_down=[["3"], ["3"]])
    t.play(play_id(rank_code("7"), 1))          # one 7; the chain goes on (H19)
    said = []
    m = _ask_move(t, Terminal(stdin=Lines("pickup\n", "9\n", "end\n"), echo=said.append),
                  None)
    assert m == t.typed_id({"end": True})
    text = "\n".join(said)
    assert "Not legal: you are in a chain of 7s: only more 7s or `end` may follow, no " \
           "pick-up and no other rank (H19)." in text
    assert '{"end": true}' not in text and "{" not in text


@pytest.mark.parametrize("kernel,said", [
    ('{"end": true} is a move only under play_on (H19)',
     "`end` is a move only under play_on (H19)"),
    ("illegal move {'pickup': True, 'add': 'K', 'n': 3} (R24): you have 2 face-up K (H11 "
     "one_then_rank)", "illegal move `add K K K` (R24): you have 2 face-up K (H11 "
     "one_then_rank)"),
    ('{"blind": true} or {"pickup": true} or {"play": ["7", "7"]}', "`blind` or `pickup` or `7 7`"),
    ("no move here {'x': 1}", "no move here {'x': 1}"),
])
def test_6b_moves_written_as_objects_are_said_as_typed(kernel, said):
    assert in_typed_words(kernel) == said


@pytest.mark.parametrize("text", ["7 7", "pickup", "add K", "add K K", "blind", "end"])
def test_6b_typed_words_read_back_as_the_same_move(text):
    assert typed(parse(text)[1]) == text


# -- 6c: the rule that turned the direction ------------------------------------------------
def test_6c_a_K_reversal_under_H7_cites_H7_not_the_joker_rule():
    """A K under H7 reverse_rank=K turns the direction; the table says
    H7 (before: "anticlockwise (R23)", the joker rule, with no joker in the deck)."""
    t = _table_at({"base": "seed", "count_rule": False, "reverse_rank": "K"}, players=3,
                  hands=[["K", "5"], ["4", "6"], ["9", "6"]], face_up=[["5"], ["9"], ["8"]],
                  face_down=[["3"], ["3"], ["3"]], pile=["4"], count=1)
    t.play(play_id(rank_code("K"), 1))
    assert t.st[DIR] == -1
    view = "\n".join(table_view(t.st, 0, t.seats))
    assert "direction anticlockwise (H7)" in view and "R23" not in view


def _direction(ruleset, players, pile=(), stock=()):
    """The direction line of a position turned anticlockwise; ``pile``: the cards played,
    ``stock``: cards never seen (every other card a fixture does not place is burned)."""
    p = pos(players=players, ruleset=ruleset, hands=[[c] for c in "56789J"[:players]],
            pile=pile, stock=stock, count=1 if pile else None, direction=-1,
            jokers=bool(Ruleset.parse(ruleset).jokers_for(players)))
    return direction_text(to_state(p))


def test_6c_a_joker_cites_R23_and_both_when_the_state_cannot_tell():
    """R23 for a joker; with both a reverse rank and jokers (H7, H13), the ones whose cards
    were played (in the pile or burned); both when both were."""
    both = {"base": "seed", "reverse_rank": "K"}              # 6 players: jokers too (R1)
    kings, jokers = ["K"] * 4, ["JK"] * 2
    assert _direction("seed", 6, pile=["4", "JK"]) == "anticlockwise (R23)"
    assert _direction(both, 6, pile=["4", "K"], stock=jokers) == "anticlockwise (H7)"
    assert _direction(both, 6, pile=["4", "JK"], stock=kings) == "anticlockwise (R23)"
    assert _direction(both, 6, pile=["K", "JK"]) == "anticlockwise (R23, H7)"
    assert _direction(both, 6, stock=kings + jokers) == "anticlockwise (R23, H7)"  # no trace
    assert _direction("seed", 3, pile=["4"]) == "anticlockwise"  # a hand-written position


# -- 6d: counts in agreeing words ----------------------------------------------------------
def test_6d_one_helper_makes_counts_agree():
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert plural(1200, "game", fmt=",") == "1,200 games" and plural(1, "game", fmt=",") == \
        "1 game"
    assert plural(1, "plot") == "1 plot" and plural(3, "child", "children") == "3 children"


def test_6d_the_table_says_1_card_and_1_turn():
    """Counts agree: "stock 1 cards" was printed; now "stock 1 card"."""
    p = pos(players=2, hands=[["5"], ["9"]], stock=["7"], pile=["4"], count=1)
    st = to_state(p)
    view = "\n".join(table_view(st, 0, ["you", "lowest"]))
    assert "stock 1 card;" in view and "(1 card)" in pile_text(st)
    over = pos(players=2, hands=[[], ["9"]], pile=["4"], count=1, out=[0])
    st = to_state(over)
    st[9] = 1                                                   # TURN: one move made
    assert "wins after 1 turn (R18, R25)." in result_lines(st, ["you", "lowest"])[0]


# -- 7: the verdict words have one owner ---------------------------------------------------
def test_7_the_verdict_never_calls_a_tied_move_a_mistake():
    assert move_verdict("pickup", ["pickup", "3", "10"]) == BEST
    assert move_verdict("3", ["pickup", "3", "10"], mistake=True) == TIED
    assert move_verdict("5", ["pickup", "3", "10"], mistake=True) == MISTAKE
    assert move_verdict("5", ["pickup"], mistake=False) == ""


def _decision(made, tied, mistake, turn=3):
    return rv.Decision(turn=turn, moves=4, made=made, best="pickup", value_made=0.3,
                       value_best=0.56, loss=0.26, low=0.11, high=0.41, mistake=mistake,
                       worlds=300, seconds=0.0, se=0.07, fresh=300, tied=tied, more=None)


def test_7_review_does_not_mark_MISTAKE_on_the_line_that_lists_it_as_tied():
    """A tied move is no mistake: "3 pickup ... +26.0 [+11.0, +41.0] MISTAKE tied: pickup, 3 or 10"
    was printed; a move listed as tied with the best is not a mistake, in the line, the
    summary's count, the JSON and the page; a move outside the group still is."""
    from reports.html.review import _plot
    from reports.review import decision_line, judged_dict, summary_line

    tied = _decision("3", ["pickup", "3", "10"], True)
    line = decision_line(tied, False)
    assert "tied: pickup, 3 or 10" in line and "MISTAKE" not in line
    out = _decision("5", ["pickup", "3", "10"], True, turn=5)
    assert "MISTAKE" in decision_line(out, False)
    r = rv.Review(0, 3, False, 300, 5, "counting", 2, 60, 0, [tied, out])
    assert "2 decisions, 1 mistake," in summary_line(r)
    data = judged_dict(r)
    assert [d["verdict"] for d in data["decisions"]] == [TIED, MISTAKE]
    assert [d["mistake"] for d in data["decisions"]] == [False, True]
    assert data["summary"]["mistakes"] == 1
    one = rv.Review(0, 3, False, 300, 5, "counting", 1, 60, 0, [tied])
    assert "1 decision, 0 mistakes," in summary_line(one)
    marks = [x.get_label() for x in _plot(one).axes[0].get_lines()]
    assert "mistake" not in marks                       # no red mistake mark on the page
    assert "mistake" in [x.get_label() for x in _plot(r).axes[0].get_lines()]


def test_7_analyze_and_hint_mark_best_and_tied_with_the_same_words():
    """sim analyze's table (and hint's details, the same lines) say best and tied with
    move_verdict's words: K clearly best (R18); 5, 6 and pickup all lose, tied."""
    from reports.analysis import describe
    from sim.studies.analysis import run_analysis

    def table(a):
        lines = describe(a)
        head = next(i for i, x in enumerate(lines) if x.split()[:2] == ["#", "move"])
        return lines[head], [x.split() for x in lines[head + 1:head + 1 + len(a.moves)]]
    clear = run_analysis(pos(players=2, current=0, hands=[["5", "K"], ["9"]], pile=["4"],
                             count=1), rollouts=30, seed=3)
    head, rows = table(clear)
    assert head.endswith("  verdict")
    assert [(r[1], r[-1]) for r in rows] == [("K", BEST), ("5", "0"), ("pickup", "0")]
    lose = run_analysis(pos(players=2, current=0, hands=[["5", "6"], ["9"]], pile=["4"],
                            count=1), rollouts=30, seed=3)
    assert [r[-1] for r in table(lose)[1]] == [BEST, TIED, TIED]
