"""sim tune: the search space from declared ranges, duplicate-deal tables, trials kept in
--out and continued by --resume, the fresh-deal check, the report page."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sim.runs.runner import RunError
from sim.studies.tune import lineup, spec_of, table_match, tunable, tune

USER_BOT = '''
from sim.kernel.strategy import move_strategy
from sim.kernel.moves import forced, lowest_bit, most_cards, play_ranks
from sim.kernel.cards import TWO


@move_strategy(params={"keep_twos": (1, 0, 1), "unbounded": 1.0})
def picky(obs, hand, legal, rng, params):
    ranks = play_ranks(legal)
    if ranks == 0:
        return forced(legal, obs)
    plain = ranks & ~(1 << TWO)
    if params[0] > 0.5 and plain:
        ranks = plain
    return most_cards(legal, lowest_bit(ranks))
'''


def test_the_search_space_comes_from_the_declared_ranges():
    space = tunable("counting")
    assert space["pickup_limit"] == (3, 0, 52, True)
    assert space["shed"] == (3.0, 0.0, 10.0, False)
    assert set(space) >= {"break_cost", "cost_ten", "cost_two", "near", "danger"}
    # values given in the spec are where the search starts
    assert tunable("counting(pickup_limit=2)")["pickup_limit"][0] == 2
    assert tunable("counting", ["shed=2:4", "near"]) == {"shed": (3.0, 2.0, 4.0, False),
                                                        "near": (4, 1, 15, True)}


@pytest.mark.parametrize("strategy,only,message", [
    ("lowest", None, "nothing to tune"),
    ("counting", ["bogus"], "has no parameter 'bogus'"),
    ("counting", ["shed=5:1"], "LOW < HIGH"),
    ("counting", ["shed=0:99"], "within"),
    ("counting", ["shed=a:b"], "NAME=LOW:HIGH"),
    ("nosuch", None, "unknown strategy"),
])
def test_bad_search_spaces_are_clear_errors(strategy, only, message):
    with pytest.raises(RunError, match=message):
        tunable(strategy, only)


def test_specs_and_seating():
    assert spec_of("counting", {"pickup_limit": 2, "shed": 3.14159}) == (
        "counting(pickup_limit=2, shed=3.1416)")
    assert spec_of("counting(near=5)", {"shed": 1.0}) == "counting(near=5, shed=1.0)"
    assert spec_of("lowest", {}) == "lowest"
    assert lineup("a", ["b", "c"], 4) == ["a", "b", "c", "b"]


def test_a_table_rotates_the_seats_over_duplicate_deals():
    m = table_match(["counting", "lowest", "lowest", "lowest"], 30, seed=3)
    x = m["per_deal"]
    assert m["names"] == ["counting", "lowest"] and x.shape == (30, 2)
    assert m["games"] == 120 and m["unfinished"] == 0
    # one winner per game: one counting seat and three lowest seats share each deal's 4 games
    assert np.allclose(x[:, 0] + 3 * x[:, 1], 1.0)
    again = table_match(["counting", "lowest", "lowest", "lowest"], 10, seed=3, first=20)
    assert np.array_equal(again["per_deal"], x[20:])          # a deal is its index


def test_tune_keeps_every_trial_resumes_and_checks_on_fresh_deals(tmp_path):
    out = tmp_path / "t"
    args = dict(players=4, games_per_trial=40, fresh_games=40, seed=5, params=["pickup_limit"])
    first = tune("counting", ["lowest"], trials=3, out=out, **args)
    lines = (out / "trials.jsonl").read_text().splitlines()
    assert len(lines) == 3
    trials = [json.loads(s) for s in lines]
    assert trials[0]["spec"] == "counting(pickup_limit=3)"       # the defaults come first
    assert all(t["games"] == 40 for t in trials)
    assert first["fresh"]["default"]["spec"] == "counting(pickup_limit=3)"
    assert "difference" in first["fresh"] and first["fresh"]["first_deal"] > 10**9
    # --resume plays the missing trials only, and keeps the first ones as they were
    more = tune("counting", ["lowest"], trials=5, out=out, resume=True, **args)
    lines2 = (out / "trials.jsonl").read_text().splitlines()
    assert len(lines2) == 5 and lines2[:3] == lines
    assert len(more["trials"]) == 5
    # common random numbers: the same values on the same deals give the same result
    same = tune("counting", ["lowest"], trials=1, **args)
    assert same["trials"][0]["value"] == trials[0]["value"]
    with pytest.raises(RunError, match=r"cannot resume .*: against\.0 was \"lowest\", now \"highest\""):
        tune("counting", ["highest"], trials=6, out=out, resume=True, **args)
    with pytest.raises(RunError, match="already holds"):
        tune("counting", ["lowest"], trials=2, out=out, **args)


def test_sim_tune_command_and_its_report(cli, tmp_path):
    out = tmp_path / "run"
    r = cli("tune", "counting", "--against", "lowest,counting", "--trials", "2",
            "--games-per-trial", "40", "--param", "pickup_limit", "--param", "shed=2:4",
            "--out", out, "-q", "--threads", "1")
    assert r.exit_code == 0, r.output
    assert "best - defaults" in r.output and "counting(pickup_limit=" in r.output
    assert ("Use: '" in r.output) or ("No clear improvement" in r.output) or (
        "The best trial is the defaults" in r.output)
    assert json.loads((out / "manifest.json").read_text())["kind"] == "tune"
    r = cli("report", out, "-o", tmp_path / "page.html")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "page_files" / "tune_history.png").exists()
    assert "Tuning counting" in (tmp_path / "page.html").read_text()
    r = cli("tune", "lowest", "--against", "lowest", "--trials", "2")
    assert r.exit_code == 2 and "nothing to tune" in r.output


def test_tune_a_users_own_strategy(cli, tmp_path):
    bots = tmp_path / "bots.py"
    bots.write_text(USER_BOT)
    r = cli("tune", f"{bots}:picky", "--against", "lowest", "--trials", "2",
            "--games-per-trial", "20", "-q", "--threads", "1", "--json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.output)
    assert set(result["best"]["params"]) == {"keep_twos"}          # unbounded ones are not searched
    assert result["best"]["spec"].startswith(f"{bots}:picky(keep_twos=")


def test_when_the_defaults_win_they_are_not_played_twice():
    r = tune("counting", ["lowest"], trials=1, games_per_trial=40, fresh_games=40, seed=2,
             params=["pickup_limit"])
    f = r["fresh"]
    assert f["same"] and not f["better"] and f["difference"]["estimate"] == 0.0
