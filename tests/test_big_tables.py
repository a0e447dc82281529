"""Seven and eight players (R1, H18) in every command: played with two decks, refused with one
deck in one line naming H18 and R1 (exit 2, before anything is estimated or played), by the
one owner of that check, :meth:`sim.kernel.ruleset.Ruleset.check_players`."""
from __future__ import annotations

import json

import pytest

from sim.commands.savedgame import run_record
from sim.kernel.position import to_position
from sim.runs.config import RunConfig
from sim.runs.onegame import record_game

TWO_DECKS = {"base": "seed", "decks": 2}


def _game(players=7, rules=TWO_DECKS, strategy="lowest"):
    """Game 0 of a run as sim play saves a game (sim replay --save)."""
    cfg = RunConfig(games=1, players=players, seed=3, strategies=[strategy], rules=rules)
    return cfg, run_record(cfg, 0, record_game(cfg, 0))


@pytest.fixture(scope="module")
def one_deck_files(tmp_path_factory):
    """A 7-player game and a position of it, relabelled as played under ``seed`` (one deck)."""
    folder = tmp_path_factory.mktemp("seven")
    cfg, game = _game()
    game["rules"] = "seed"
    (folder / "game.json").write_text(json.dumps(game))
    position = to_position(record_game(cfg, 0).start, "seed")
    (folder / "position.json").write_text(json.dumps(position))
    return folder


COMMANDS = [("run", "--games", "100"), ("compare", "lowest", "random", "--games", "100"),
            ("replay", "--game", "0"), ("play", "--seed", "1"),
            ("swap", "4", "5", "6", "9", "10", "K"),
            ("study", "swap", "--games", "100", "--out", "{tmp}/study"),
            ("study", "rules", "--games", "100", "--out", "{tmp}/lab")]
FILES = [("analyze", "{files}/position.json"), ("review", "{files}/game.json", "--seat", "0"),
         ("replay", "--file", "{files}/game.json"), ("play", "--load", "{files}/game.json")]


@pytest.mark.parametrize("args", [c + ("--players", n) for c in COMMANDS for n in ("7", "8")]
                         + FILES)
def test_seven_and_eight_players_with_one_deck_are_one_line_naming_H18_and_R1(
        cli, tmp_path, one_deck_files, args):
    """R1, H18: 2 to 6 players with one deck. A position or a saved game brings its own
    players (the 7-player files); every other command takes --players."""
    r = cli(*[a.format(tmp=tmp_path, files=one_deck_files) for a in args])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert "need two decks" in lines[0] and "(R1, H18" in lines[0], lines[0]
    assert "Traceback" not in r.output and "estimate" not in r.output
    assert not (tmp_path / "study").exists() and not (tmp_path / "lab").exists()


def test_nine_players_and_a_third_deck_are_refused(cli):
    """H18: at most two decks, so at most 8 players; masters computes 3 decks at 7 (§11.3)."""
    r = cli("run", "--players", "9", "--rules", "boothj5")
    assert r.exit_code == 2 and "2 to 8 with two decks (R1, H18)" in r.output
    r = cli("run", "--players", "7", "--rules", "masters-of-shithead")
    assert r.exit_code == 2 and "3 decks at 7 players" in r.output


def test_eight_players_run_through_the_cli(cli):
    """boothj5 seats 8 with two decks (H18); every seat is tallied."""
    r = cli("run", "--games", "400", "--players", "8", "--rules", "boothj5", "--seed", "2",
            "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [row["seat"] for row in out["by_seat"]] == list(range(8))
    assert sum(row["wins"] for row in out["by_seat"]) == out["overall"]["finished"]
    assert out["overall"]["games"] == 400


def test_seven_players_replay_with_two_decks(cli):
    """--rule decks=2 seats 7 (H18): the deal shows 7 seats and eight copies of a rank."""
    r = cli("replay", "--game", "0", "--games", "1", "--players", "7", "--rule", "decks=2")
    assert r.exit_code == 0, r.output
    assert "  seat 6 (lowest, swap highest-up): face-down" in r.output
    assert "  seat 6 puts face up:" in r.output
    assert "wins after" in r.output or "Unfinished" in r.output


def test_eight_players_compare_swap_analyze_and_review(cli, tmp_path):
    r = cli("compare", "lowest", "random", "--players", "8", "--rules", "boothj5", "--games",
            "160", "--json", "-q")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [row["seat"] for row in out["seat_effect"]] == list(range(8))
    r = cli("swap", "2", "2", "2", "2", "2", "K", "--players", "8", "--rules", "boothj5",
            "--deals", "40", "-q")                  # five 2s: eight copies with two decks
    assert r.exit_code == 0, r.output
    assert "K 2 2" in r.output and "2 2 2" in r.output
    cfg, game = _game(8, "boothj5")
    (tmp_path / "g.json").write_text(json.dumps(game))
    r = cli("replay", "--file", tmp_path / "g.json", "--at", "5", "--json")
    assert r.exit_code == 0, r.output
    (tmp_path / "p.json").write_text(r.output)
    r = cli("analyze", tmp_path / "p.json", "--rollouts", "20", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["moves"]
    r = cli("review", tmp_path / "g.json", "--seat", "3", "--rollouts", "4", "-q")
    assert r.exit_code == 0, r.output
    assert "Review of seat 3" in r.output and "Summary:" in r.output


@pytest.mark.slow
def test_eight_players_studies(cli, tmp_path):
    """The swap study and the rules lab at 8 players with two decks (H18)."""
    r = cli("study", "swap", "--players", "8", "--rules", "boothj5", "--games", "3000",
            "--out", tmp_path / "swap", "-q")
    assert r.exit_code == 0, r.output
    study = json.loads((tmp_path / "swap" / "study.json").read_text())
    assert study["players"] == 8 and study["triples"]
    r = cli("study", "rules", "--players", "8", "--base", "boothj5", "--only", "play_on",
            "--only", "decks", "--games", "400", "--skill-deals", "40", "--mc-deals", "0",
            "--out", tmp_path / "lab", "-q")
    assert r.exit_code == 0, r.output
    assert "play_on=true" in r.output
    assert "decks=1 (8 players need two decks" in " ".join(r.output.split())
