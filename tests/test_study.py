"""The swap study (sim study swap): triple values, the derived table policy, head-to-heads."""
from __future__ import annotations

import json

from sim.runner import RunConfig, play_batch
from sim.study import SIZE, triple_names
from strategies.swaps import read_table


def test_hand_triples_are_the_other_three_of_the_six():
    """The hand triple after the swap (R5) is recorded too: with ``none`` (no swap) face-ups
    and hand are the dealt ones, and each seat's two triples hold 6 cards together."""
    b = play_batch(RunConfig(games=1, players=4, seed=3, swaps=["random"]), 0, 100, 1)
    assert (b.hand_triples[:, 4:] == -1).all()
    assert ((b.hand_triples[:, :4] >= 0) & (b.hand_triples[:, :4] < SIZE)).all()
    up = b.triples[:, :4].ravel()
    hand = b.hand_triples[:, :4].ravel()
    assert (up != hand).any()            # a random swap does not copy one into the other


def test_face_up_triples_are_recorded_after_the_swap():
    """The record is the seat's face-ups after the swap (R5), sorted; -1 for empty seats."""
    b = play_batch(RunConfig(games=1, players=3, seed=2, swaps=["highest-up"]), 0, 200, 1)
    assert (b.triples[:, 3:] == -1).all()
    codes = b.triples[:, :3].ravel()
    assert ((codes >= 0) & (codes < SIZE)).all()
    for code in codes[:50]:
        names = triple_names(int(code))
        ranks = [["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
                  "JK"].index(n) for n in names]
        assert ranks == sorted(ranks)


def test_study_cli_writes_values_table_and_verdict(cli, tmp_path):
    out = tmp_path / "study"
    r = cli("study", "swap", "--players", "3", "--games", "6000", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    study = json.loads(r.output)
    triples = study["triples"]
    # every seat of every finished game; unfinished games (R25) are counted apart
    assert sum(t["games"] for t in triples) == 3 * (6000 - study["unfinished"])
    assert triples[0]["win_rate"] >= triples[-1]["win_rate"]
    assert all(t["ci_low"] <= t["win_rate"] <= t["ci_high"] for t in triples)
    assert {h["policy"] for h in study["head_to_head"]} == {
        "none", "random", "highest-up", "specials-up", "lowest-hand"}
    for h in study["head_to_head"]:
        assert 0 <= h["p_value"] <= 1 and h["ci_low"] <= h["diff"] <= h["ci_high"]
    assert study["verdict"]
    row = read_table(out / "swap_values.csv")        # the table policy reads what was learnt
    assert row.max() == triples[0]["win_rate"]
    assert json.loads((out / "study.json").read_text())["players"] == 3
    r = cli("study", "swap", "--players", "3", "--games", "3000", "--out", out)
    assert r.exit_code == 0 and "Best face-up triples" in r.output and "p (BH" in r.output
