"""Mistakes in what a user types get a message that says what is wrong: a position missing
its keys (docs/position.md), a boolean option written other than true/false (§11.2), a
misspelt word at sim play's prompt."""
from __future__ import annotations

import json

import pytest

from sim.cli.words import parse
from sim.kernel.ruleset import Ruleset


def test_analyze_names_the_missing_keys(cli, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"players": 3}))
    r = cli("analyze", path)
    assert r.exit_code == 2
    assert r.output.strip() == ("error: missing key(s) in position: burned, count, current, "
                                "direction, face_down, face_up, hands, out, pile, ruleset, "
                                "stock (docs/position.md)")


@pytest.mark.parametrize("word", ["yes", "no", "on", "1", "maybe"])
def test_a_boolean_option_is_true_or_false_only(word):
    """§11.2 (H2): the command line writes booleans as JSON does."""
    with pytest.raises(ValueError, match=f"ten_anywhere \\(H2\\): expected true or false, "
                                         f"got '{word}'"):
        Ruleset.build("seed", [f"ten_anywhere={word}"])


@pytest.mark.parametrize("word", ["true", "TRUE", "false"])
def test_true_and_false_are_taken(cli, word):
    r = cli("run", "--games", "4", "--players", "2", "--rule", f"ten_anywhere={word}",
            "--json")
    assert r.exit_code == 0
    assert json.loads(r.output)["ruleset"]["ten_anywhere"] is (word.lower() == "true")


@pytest.mark.parametrize("typed,meant", [("pickp", "pickup"), ("hnit", "hint"),
                                         ("blnd", "blind"), ("ad K", "add")])
def test_play_suggests_the_word_meant(typed, meant):
    kind, why = parse(typed)
    assert kind == "garbage" and why.endswith(f"did you mean `{meant}`?")


def test_play_guesses_no_card():
    assert parse("7 x") == ("garbage", "I did not understand that: 'x' is not a card")


@pytest.mark.parametrize("command,message", [
    (["run", "--resume", "--games", "1e7"], "--resume needs --out, the folder of the run"),
    (["compare", "lowest", "--games", "100"], "compare: give at least two strategies"),
    (["compare", "lowest", "lowest", "--games", "100"], "compare: each strategy once"),
    (["compare", "lowest", "random", "--resume"], "--resume needs --out, the folder of the "
                                                  "comparison"),
    (["study", "rules", "--resume"], "--resume needs --out, the folder of the study"),
    (["tune", "counting", "--against", "lowest", "--resume"], "--resume needs --out, the "
                                                              "folder of the tuning"),
])
def test_nothing_is_estimated_before_the_input_is_checked(cli, command, message):
    """A mistake is the one line: no time estimate (which compiles and plays) before it."""
    r = cli(*command)
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), r.output
