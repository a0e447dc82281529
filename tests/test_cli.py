"""The command line: `sim run`, `sim replay`, `sim strategies`, and clear errors for user
mistakes (a message on stderr, exit code 2, no traceback)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim.commands.common import parse_count


@pytest.mark.parametrize("text,value", [("1e6", 10**6), ("1_000_000", 10**6), ("250k", 250_000),
                                        ("2M", 2 * 10**6), ("12", 12), ("1.5k", 1500)])
def test_games_accepts_usual_spellings(text, value):
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["-5", "0", "abc", "1.5", "1e", "k", ""])
def test_games_refuses_nonsense(text):
    with pytest.raises(ValueError, match="--games"):
        parse_count(text)


def test_run_prints_tables_per_seat_and_strategy(cli):
    r = cli("run", "--games", "2k", "--players", "3", "--seed", "7", "-s", "lowest", "-s",
            "random", "-s", "lowest")
    assert r.exit_code == 0, r.output
    for word in ("By seat", "By strategy", "95% CI", "unfinished", "turns per finished game",
                 "lowest", "random", "2,000"):
        assert word in " ".join(r.output.split())


def test_the_run_tables_fit_80_columns_at_8_seats(cli):
    """Eight seats of one strategy under V2 (boothj5, two decks, H18): the seat table without
    the strategy, the swap and the run's own numbers (unfinished, mean turns: the line above)
    fits 80 columns, no number cut ("…"); the strategy row names its seats 0-7."""
    from rich.console import Console

    from reports.text import print_summary
    from sim.runs.config import RunConfig
    from sim.runs.runner import run

    tally = run(RunConfig(games=300, players=8, seed=1, rules="boothj5", threads=1))
    console = Console(width=80, record=True)
    print_summary(tally, 1.0, console)
    text = console.export_text()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    assert "By seat (seat effect: lowest, swap highest-up, at every seat)" in " ".join(
        text.split())
    assert "│   0-7 │ lowest" in text and "│    7 │" in text


def test_run_json_is_consistent(cli):
    r = cli("run", "--games", "3000", "--players", "4", "--seed", "1", "--json",
            "-s", "lowest", "-s", "random", "-s", "lowest", "-s", "random")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["overall"]["games"] == 3000
    seats = out["by_seat"]
    assert [s["strategy"] for s in seats] == ["lowest", "random"] * 2
    wins = sum(s["wins"] for s in seats)
    assert wins == out["overall"]["finished"]            # one winner per finished game (R25)
    for s in seats:
        assert s["ci_low"] <= s["win_rate"] <= s["ci_high"]
        assert s["games"] == 3000
    by = {s["strategy"]: s for s in out["by_strategy"]}
    assert by["lowest"]["games"] == 6000
    assert by["lowest"]["win_rate"] > by["random"]["win_rate"]


def test_rules_lists_presets_and_options(cli):
    """`sim rules`: the four presets of §11.4 and every option of §11.2 with its rule."""
    r = cli("rules")
    assert r.exit_code == 0, r.output
    for word in ("seed", "classic", "masters-of-shithead", "boothj5", "count_rule", "H1",
                 "removed_before_deal", "H17", "last_player_loses", "V2"):
        assert word in r.output
    data = json.loads(cli("rules", "boothj5", "--json").output)["presets"]
    assert data["boothj5"]["forced_opening"] is True                   # §11.4
    assert data["boothj5"]["starter_order"][-3:] == ["2", "7", "10"]
    assert cli("rules", "nosuch").exit_code == 2


def test_run_writes_the_ruleset_in_full(cli, tmp_path):
    """The JSON summary and the manifest hold every option; --rule overrides."""
    r = cli("run", "--games", "300", "--rules", "classic", "--rule", "skip_rank=8",
            "--json", "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["options"]["rules"] == {"base": "classic", "skip_rank": "8"}     # as asked
    rules = out["ruleset"]                                                    # as used
    assert rules["count_rule"] is False and rules["skip_rank"] == "8"
    assert len(rules) == 25                       # base and every option, H1-H20, V1, V2
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["options"]["options"] == rules


def test_run_same_seed_same_summary(cli):
    args = ("run", "--games", "2000", "--seed", "5", "--json")
    a, b = json.loads(cli(*args).output), json.loads(cli(*args).output)
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_run_v2_reports_finishing_places(cli):
    r = cli("run", "--games", "1000", "--players", "4", "--v2", "--json", "-s", "lowest",
            "-s", "random", "-s", "lowest", "-s", "random")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["ruleset"]["last_player_loses"] is True
    seats = out["by_seat"]
    assert sum(s["shithead"] for s in seats) == out["overall"]["finished"]
    assert sum(s["mean_place"] for s in seats) == pytest.approx(1 + 2 + 3 + 4)


def test_run_v1_and_swap_options(cli):
    r = cli("run", "--games", "500", "--v1", "--swap", "random", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["ruleset"]["choose_face_ups"] is True
    assert out["options"]["swaps"] == ["random"] * 4


def test_unfinished_games_are_counted(cli):
    r = cli("run", "--games", "2000", "--players", "2", "--max-turns", "300", "--json")
    out = json.loads(r.output)
    assert out["overall"]["unfinished"] > 0
    assert out["overall"]["finished"] + out["overall"]["unfinished"] == 2000


def test_replay_shows_deal_swaps_moves_and_result(cli):
    r = cli("replay", "--seed", "7", "--game", "12", "--players", "4")
    assert r.exit_code == 0, r.output
    text = r.output
    for word in ("Game 12 of seed 7", "Dealer: seat", "face-down", "Swaps", "starts (R6: the rank",
                 "plays", "picks up", "wins after"):
        assert word in text
    again = cli("replay", "--seed", "7", "--game", "12", "--players", "4")
    assert again.output == text


def test_replay_matches_the_run(cli):
    """The replay is the same game the batch played: same winner and number of turns."""
    from sim.runs.runner import RunConfig, play_batch

    cfg = RunConfig(games=20, players=3, seed=9, strategies=["random"])
    b = play_batch(cfg, 0, 20, 1)
    r = cli("replay", "--seed", "9", "--game", "17", "--players", "3", "-s", "random")
    assert f"Seat {b.order[17, 0]} wins after {b.turns[17]} turns" in r.output


def test_strategies_lists_builtins(cli):
    r = cli("strategies")
    assert r.exit_code == 0
    for name in ("random", "lowest", "highest-up", "none"):
        assert name in r.output


@pytest.mark.parametrize("args,message", [
    (("run", "--players", "1"), "2 to 6 players"),
    (("run", "--players", "7"), "2 to 6 players"),
    (("run", "--games", "-5"), "--games"),
    (("run", "--games", "lots"), "--games"),
    (("run", "--strategy", "nosuch"), "unknown strategy 'nosuch'"),
    (("run", "--swap", "nosuch"), "unknown swap policy"),
    (("run", "-s", "lowest", "-s", "random"), "one per seat"),
    (("run", "--rules", "house"), "unknown rules preset 'house'"),
    (("run", "--rule", "nosuch=1"), "unknown rule option 'nosuch'"),
    (("run", "--rule", "ten_anywhere"), "expected key=value"),
    (("run", "--rule", "ten_anywhere=maybe"), "ten_anywhere (H2): expected true or false"),
    (("run", "--rule", "hand_size=5"), "hand_size (H12)"),
    (("run", "--rule", "skip_rank=2"), "skip_rank=2"),                      # §11.3
    (("run", "--rule", "skip_rank=8", "--rule", "cover_rank=8"), "one role per rank"),
    (("run", "--rule", "seven_lower=true", "--rule", "transparent_rank=7"), "H4"),
    (("run", "--rule", "forced_opening=true"), "H16"),
    (("run", "--rules", "classic", "--players", "6"), "at most 5 players"),  # H13
    (("run", "--rule", "hand_size=4", "--players", "5"), "at most 4 players"),  # H12
    (("compare", "lowest", "random", "--rule", "nosuch=1"), "unknown rule option"),
    (("replay", "--game", "0", "--rules", "house"), "unknown rules preset"),
    (("study", "swap", "--out", "/tmp/x", "--rule", "jokers=some"), "jokers (H13)"),
    (("run", "--threads", "0"), "--threads"),
    (("run", "--max-turns", "0"), "--max-turns"),
    (("replay", "--game", "-1"), "--game"),
])
def test_user_mistakes_are_clear_errors(cli, args, message):
    r = cli(*args)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_console_script_reports_errors_without_traceback():
    p = subprocess.run([sys.executable, "-m", "sim.cli", "run", "--games", "-5"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert "error: --games" in p.stderr
    assert "Traceback" not in p.stderr


def test_ctrl_c_is_a_message_not_a_traceback(cli, monkeypatch):
    import sim.runs.runner

    def interrupted(cfg, **options):
        raise KeyboardInterrupt
    monkeypatch.setattr(sim.runs.runner, "run", interrupted)
    r = cli("run", "--games", "1000")
    assert r.exit_code == 130
    assert "interrupted" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("seats,text", [("0,1,2,3,4,5,6,7", "0-7"), ("0,1,2,3,5", "0-3,5"),
                                        ("0,4", "0,4"), ("1,2", "1,2"), (3, "3")])
def test_seats_are_written_as_ranges(seats, text):
    from reports.plain import seats_text

    assert seats_text(seats) == text
